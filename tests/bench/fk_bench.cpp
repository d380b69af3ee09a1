// Forward kinematics timings: fk_row / fk_row_masked of one configuration, the eval_fk API, and
// eval_fk_batch over 1, 100 and 10000 rows, on the planar arm, the joint-type zoo and a 7-dof
// chain with the Franka Panda's dimensions. The per_config counter is seconds per configuration
// (e.g. 41.5n = 41.5 ns). Configurations cycle through a pool of random ones, so nothing is
// constant-folded.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../core/panda_chain.hpp"
#include "../core/test_models.hpp"
#include "engine/core/fk.hpp"

namespace ikwb {
namespace {

const Model& model(int which) {
  static const Model models[3] = {test::planar_arm(), test::all_joint_types(), test::panda_chain()};
  return models[which];
}

const char* model_label(int which) {
  static const char* labels[3] = {"planar3", "zoo", "panda7"};
  return labels[which];
}

constexpr int kPool = 256;

// kPool random configurations and velocities, concatenated
struct Pool {
  std::vector<double> q, qd;
  Pool(const Model& m, int rows) {
    std::mt19937 rng(7);
    std::normal_distribution<double> n(0.0, 1.0);
    for (int r = 0; r < rows; ++r) {
      std::vector<double> c = test::random_configuration(m, rng);
      q.insert(q.end(), c.begin(), c.end());
      for (int d = 0; d < m.dof_count; ++d) qd.push_back(n(rng));
    }
  }
};

void set_counters(benchmark::State& st, int which, int64_t rows) {
  st.SetLabel(model_label(which));
  st.SetItemsProcessed(st.iterations() * rows);
  st.counters["per_config"] = benchmark::Counter(
      double(rows), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// poses of one configuration through the shared row kernel
void BM_FkRow(benchmark::State& st) {
  const Model& m = model(int(st.range(0)));
  ModelView<double> v = m.view();
  Pool pool(m, kPool);
  std::vector<Transform<double>> body_q(m.body_count, transform_identity<double>());
  int r = 0;
  for (auto _ : st) {
    fk_row(v, pool.q.data() + r * m.coord_count, body_q.data());
    benchmark::DoNotOptimize(body_q.data());
    benchmark::ClobberMemory();
    r = (r + 1) % kPool;
  }
  set_counters(st, int(st.range(0)), 1);
}
BENCHMARK(BM_FkRow)->DenseRange(0, 2);

// poses and twists of one configuration (what eval_fk runs per row)
void BM_FkRowVelocity(benchmark::State& st) {
  const Model& m = model(int(st.range(0)));
  ModelView<double> v = m.view();
  Pool pool(m, kPool);
  State s(m);
  int r = 0;
  for (auto _ : st) {
    fk_row_masked(v, pool.q.data() + r * m.coord_count, pool.qd.data() + r * m.dof_count,
                  static_cast<const uint8_t*>(nullptr), kBodyAll, s.body_q.data(),
                  s.body_qd.data());
    benchmark::DoNotOptimize(s.body_q.data());
    benchmark::DoNotOptimize(s.body_qd.data());
    benchmark::ClobberMemory();
    r = (r + 1) % kPool;
  }
  set_counters(st, int(st.range(0)), 1);
}
BENCHMARK(BM_FkRowVelocity)->DenseRange(0, 2);

// the public single-configuration API: argument checks and the joint selection included
void BM_EvalFk(benchmark::State& st) {
  const Model& m = model(int(st.range(0)));
  Pool pool(m, kPool);
  std::vector<std::vector<double>> qs, qds;
  for (int r = 0; r < kPool; ++r) {
    qs.emplace_back(pool.q.begin() + r * m.coord_count, pool.q.begin() + (r + 1) * m.coord_count);
    qds.emplace_back(pool.qd.begin() + r * m.dof_count, pool.qd.begin() + (r + 1) * m.dof_count);
  }
  const bool vel = st.range(1) != 0;
  const std::vector<double> none;
  State s(m);
  int r = 0;
  for (auto _ : st) {
    eval_fk(m, qs[r], vel ? qds[r] : none, s);
    benchmark::DoNotOptimize(s.body_q.data());
    benchmark::ClobberMemory();
    r = (r + 1) % kPool;
  }
  set_counters(st, int(st.range(0)), 1);
}
BENCHMARK(BM_EvalFk)->ArgsProduct({{0, 1, 2}, {0, 1}})->ArgNames({"model", "vel"});

// eval_fk_batch over n rows (poses, or poses and twists)
void BM_EvalFkBatch(benchmark::State& st) {
  const Model& m = model(int(st.range(0)));
  const int n = int(st.range(1));
  const bool vel = st.range(2) != 0;
  Pool pool(m, n);
  std::vector<double> none;
  std::vector<Transform<double>> body_q(std::size_t(n) * m.body_count);
  std::vector<Spatial<double>> body_qd(vel ? std::size_t(n) * m.body_count : 0);
  for (auto _ : st) {
    eval_fk_batch(m, n, pool.q, vel ? pool.qd : none, body_q, body_qd);
    benchmark::DoNotOptimize(body_q.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, int(st.range(0)), n);
}
BENCHMARK(BM_EvalFkBatch)
    ->ArgsProduct({{0, 1, 2}, {1, 100, 10000}, {0, 1}})
    ->ArgNames({"model", "rows", "vel"});

}  // namespace
}  // namespace ikwb

BENCHMARK_MAIN();
