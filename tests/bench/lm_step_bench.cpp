// Google Benchmark: one LM step (solver/lm_step.hpp: normal equations built, factored, solved)
// dense against row space, on revolute chains of nv dofs with k pose objectives spread along the
// chain (m = 6 k general rows) plus the joint limits (nv diagonal rows): the step alone, next to
// the whole-solve counts behind lm_resolve_step's crossover (docs/benchmarks.md, "Structured LM").
//   build/bench/lm_step_bench --benchmark_filter=Step --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "solver/lm_row.hpp"
#include "solver/lm_step.hpp"
#include "solver/problem.hpp"

namespace {

using namespace ikwb;

// nv revolute joints (z, y, z, ...) 0.1 m apart along x
std::shared_ptr<const Model> chain(int nv) {
  ModelBuilder b;
  int parent = b.add_body("base");
  b.add_joint({"base_fixed", JointType::kFixed, -1, parent});
  for (int i = 0; i < nv; ++i) {
    int child = b.add_body("l" + std::to_string(i), 0.1, {0.05, 0, 0});
    JointSpec j{"j" + std::to_string(i),
                JointType::kRevolute,
                parent,
                child,
                {{i == 0 ? 0.0 : 0.1, 0, 0}, {0, 0, 0, 1}}};
    j.axis = i % 2 == 0 ? Vec3<double>{0, 0, 1} : Vec3<double>{0, 1, 0};
    j.lower = -1.5, j.upper = 1.5;
    b.add_joint(j);
    parent = child;
  }
  return std::make_shared<const Model>(b.finalize());
}

// args: nv, pose objectives k, step (0 dense, 1 row space)
void BM_Step(benchmark::State& state) {
  const int nv = int(state.range(0)), k = int(state.range(1));
  const LmStep kind = state.range(2) ? LmStep::kRowSpace : LmStep::kDense;
  auto model = chain(nv);
  IkProblem pr(model, 1);
  for (int i = 0; i < k; ++i) {
    int o = pr.add_pose((i + 1) * nv / k);  // bodies 1..nv are the links
    pr.set_target_pose(o, 0, {{0.3 * i, 0.2, 0.1}, {0, 0, 0, 1}});
  }
  pr.add_joint_limits();
  ProblemView<double> pv = pr.view();
  const int nr = pv.residual_count;
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> q(nv), r(nr), scratch(nr), J(std::size_t(nr) * nv), al(nr, 0.0);
  for (double& v : q) v = u(rng);
  std::vector<Transform<double>> body(model->body_count, transform_identity<double>());
  builtin_residual(pv, 0, al.data(), 1.0, q.data(), body.data(), r.data());
  builtin_jacobian(pv, 0, al.data(), 1.0, q.data(), body.data(), scratch.data(), J.data());
  std::vector<int> row_col(nr), rows(nr), cols(nv);
  const int m = lm_classify_rows(pv, row_col.data(), rows.data());
  std::vector<double> A(lm_a_capacity(kind, nv)), L(lm_l_capacity(kind, nv, m)), g(nv),
      diag(3 * nv), x(nv);
  LmSystem<double> s;
  s.kind = kind;
  s.nv = nv, s.nr = nr, s.m = m;
  s.J = J.data();
  s.A = A.data(), s.L = L.data(), s.g = g.data(), s.diag = diag.data();
  s.row_col = row_col.data(), s.rows = rows.data(), s.cols = cols.data();
  for (auto _ : state) {
    lm_build(s, r.data());
    lm_factor(s, 1e-3, false, (const double*)nullptr);
    for (int a = 0; a < nv; ++a) x[a] = -g[a];
    lm_solve(s, x.data());
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["m"] = m;
}
BENCHMARK(BM_Step)
    ->ArgsProduct({{8, 16, 24, 32, 48, 64, 128, 300}, {1, 2, 4}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
