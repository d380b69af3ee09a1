// Small driver for tools/compare/run.py: calls our C++ API in-process, outside the main build.
// Times are CPU time of the process (CLOCK_PROCESS_CPUTIME_ID), single-threaded.
// Built by run.py with g++ against build*/engine/core/libikwb_core.a (see tools/compare/README.md).
//
//   masked_fk_driver fk-time ROBOT.urdf Q.csv REPS
//       times eval_fk_batch over all rows of Q.csv (q_start order), REPS passes of at least
//       10000 configurations (the batch repeated); prints
//       `fk_ns_per_config <ns> configs <n> reps <r>` (URDF loading and file IO excluded)
//   masked_fk_driver masked ROBOT.urdf Q0.csv Q1.csv MASKS.csv OUT.csv REPS
//       for every mask row (joint_count values, 0/1, our joint order): full eval_fk at the q0
//       row, then eval_fk at the q1 row with FkOptions::joint_mask; writes
//       case,body,x,y,z,qx,qy,qz,qw and prints `masked_ns_per_call <ns>` (the masked call only)
//   masked_fk_driver ik-time ROBOT.urdf LINK T.csv SEEDS ITERATIONS THREADS REPS
//                            [RESTARTS STALL [SOFT]]
//       our CPU solver on the pose targets of T.csv (x,y,z,qx,qy,qz,qw) as one batch, with the
//       settings of `ikwb solve --seeds S --sampler roberts --iterations I --restarts R
//       --stall W --threads T` (R and W default to 0; SOFT=1 adds --soft-limits); prints
//       `ik_s_per_batch <s> solved <k> targets <n>` (best of REPS; problem set-up and solve timed,
//       URDF loading and file IO excluded)
//   masked_fk_driver seeds ROBOT.urdf S OUT.csv [RNG_SEED]
//       writes the S seeds our CPU solver uses for `--seeds S --sampler roberts`: seed 0 is the
//       middle of the limits, seeds 1.. the Roberts sequence (solver/sampler.hpp, sequence = s)
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/fk.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/sampler.hpp"
#include "solver/solver.hpp"

using namespace ikwb;

namespace {

std::vector<std::vector<double>> read_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<double> row;
    std::stringstream ss(line);
    std::string f;
    bool ok = true;
    while (std::getline(ss, f, ',')) {
      char* end = nullptr;
      double v = std::strtod(f.c_str(), &end);
      if (end == f.c_str()) {
        ok = false;
        break;
      }
      row.push_back(v);
    }
    if (ok && !row.empty()) rows.push_back(row);
  }
  return rows;
}

std::shared_ptr<const Model> load(const char* path) {
  UrdfOptions opt;
  opt.load_meshes = false;
  return load_urdf_file(path, opt).model;
}

void need(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

// CPU time of this process: the machines these comparisons run on are shared, and CPU time does
// not count the time spent waiting for a core (wall time would)
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

int fk_time(int argc, char** argv) {
  need(argc == 5, "usage: fk-time ROBOT.urdf Q.csv REPS");
  auto model = load(argv[2]);
  const Model& m = *model;
  auto rows = read_rows(argv[3]);
  int reps = std::atoi(argv[4]);
  int n = int(rows.size());
  need(n > 0 && reps > 0, "no rows or reps");
  std::vector<double> q;
  for (auto& r : rows) {
    need(int(r.size()) == m.coord_count, "Q.csv: wrong column count");
    q.insert(q.end(), r.begin(), r.end());
  }
  std::vector<Transform<double>> body_q(std::size_t(n) * m.body_count);
  std::vector<Spatial<double>> body_qd;
  eval_fk_batch(m, n, q, {}, body_q, body_qd);  // warm-up
  // each timed pass repeats the batch so that it covers >= 10000 configurations: the clock
  // itself costs a few hundred ns, as much as one FK
  const int inner = std::max(1, 10000 / n);
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    double t0 = cpu_now();
    for (int k = 0; k < inner; ++k) eval_fk_batch(m, n, q, {}, body_q, body_qd);
    double dt = (cpu_now() - t0) / inner;
    if (dt < best) best = dt;
  }
  volatile double sink = body_q.back().p.x;
  (void)sink;
  std::printf("fk_ns_per_config %.3f configs %d reps %d\n", best * 1e9 / n, n, reps);
  return 0;
}

int masked(int argc, char** argv) {
  need(argc == 8, "usage: masked ROBOT.urdf Q0.csv Q1.csv MASKS.csv OUT.csv REPS");
  auto model = load(argv[2]);
  const Model& m = *model;
  auto q0 = read_rows(argv[3]), q1 = read_rows(argv[4]), masks = read_rows(argv[5]);
  int reps = std::atoi(argv[7]);
  need(q0.size() == 1 && q1.size() == 1, "Q0/Q1: one row each");
  need(int(q0[0].size()) == m.coord_count && int(q1[0].size()) == m.coord_count, "Q columns");
  std::FILE* out = std::fopen(argv[6], "w");
  need(out, "cannot write OUT.csv");
  std::fprintf(out, "case,body,x,y,z,qx,qy,qz,qw\n");
  double total = 0;
  long calls = 0;
  for (std::size_t c = 0; c < masks.size(); ++c) {
    need(int(masks[c].size()) == m.joint_count, "MASKS.csv: joint_count columns");
    std::vector<uint8_t> jm(m.joint_count);
    for (int j = 0; j < m.joint_count; ++j) jm[j] = masks[c][j] != 0;
    FkOptions opt;
    opt.joint_mask = &jm;
    State st(m);
    eval_fk(m, q0[0], {}, st);
    eval_fk(m, q1[0], {}, st, opt);
    for (int b = 0; b < m.body_count; ++b) {
      const auto& x = st.body_q[b];
      std::fprintf(out, "%zu,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", c,
                   m.body_name[b].c_str(), x.p.x, x.p.y, x.p.z, x.q.x, x.q.y, x.q.z, x.q.w);
    }
    State timed(m);
    eval_fk(m, q0[0], {}, timed);
    double t0 = cpu_now();
    for (int r = 0; r < reps; ++r) eval_fk(m, q1[0], {}, timed, opt);
    total += cpu_now() - t0;
    calls += reps;
  }
  std::fclose(out);
  std::printf("masked_ns_per_call %.3f cases %zu\n", calls ? total * 1e9 / calls : 0.0,
              masks.size());
  return 0;
}

int ik_time(int argc, char** argv) {
  need(
      argc == 9 || argc == 11 || argc == 12,
      "usage: ik-time ROBOT.urdf LINK T.csv SEEDS ITERATIONS THREADS REPS [RESTARTS STALL [SOFT]]");
  auto model = load(argv[2]);
  const Model& m = *model;
  int link = m.find_body(argv[3]);
  need(link >= 0, "unknown link");
  auto rows = read_rows(argv[4]);
  int n = int(rows.size());
  need(n > 0, "no targets");
  SolverSettings s;
  s.n_seeds = std::atoi(argv[5]);
  s.sampler = s.n_seeds > 1 ? SeedSampler::kRoberts : SeedSampler::kNone;
  s.max_iterations = std::atoi(argv[6]);
  s.threads = std::atoi(argv[7]);
  s.max_restarts = argc >= 11 ? std::atoi(argv[9]) : 0;
  s.stall_window = argc >= 11 ? std::atoi(argv[10]) : 0;
  if (argc == 12 && std::atoi(argv[11]) != 0) s.hard_joint_limits = false;
  int reps = std::atoi(argv[8]);
  need(reps > 0, "REPS > 0");
  validate_settings(s);
  std::vector<Transform<double>> poses(n);
  for (int i = 0; i < n; ++i) {
    need(rows[i].size() == 7, "T.csv: 7 columns");
    poses[i].p = {rows[i][0], rows[i][1], rows[i][2]};
    poses[i].q = normalize(Quat<double>{rows[i][3], rows[i][4], rows[i][5], rows[i][6]});
  }
  auto solver = make_cpu_solver();
  std::vector<double> q0 = m.middle_configuration();
  SolveResult res;
  double best = 1e300;
  int solved = 0;
  for (int r = 0; r < reps + 1; ++r) {  // the first run is a warm-up
    double t0 = cpu_now();
    IkProblem problem(model, n);
    int obj = problem.add_pose(link);
    for (int i = 0; i < n; ++i) problem.set_target_pose(obj, i, poses[i]);
    solver->solve(problem, s, q0, res);
    double dt = cpu_now() - t0;
    if (r > 0 && dt < best) best = dt;
    solved = 0;
    for (const auto& p : res.problems) solved += p.converged;
  }
  std::printf("ik_s_per_batch %.9f solved %d targets %d\n", best, solved, n);
  return 0;
}

int seeds(int argc, char** argv) {
  need(argc == 5 || argc == 6, "usage: seeds ROBOT.urdf S OUT.csv [RNG_SEED]");
  auto model = load(argv[2]);
  const Model& m = *model;
  int S = std::atoi(argv[3]);
  uint64_t rng = argc == 6 ? std::strtoull(argv[5], nullptr, 10) : 0;
  need(S >= 1, "S >= 1");
  ModelView<double> v = m.view();
  std::vector<double> init = m.middle_configuration(), q(m.coord_count), scratch(m.dof_count + 1);
  std::FILE* out = std::fopen(argv[4], "w");
  need(out, "cannot write OUT.csv");
  for (int s = 0; s < S; ++s) {
    sample_seed(v, m.dof_lower.data(), m.dof_upper.data(), SeedSampler::kRoberts, 0.3, rng, 0,
                uint32_t(s), init.data(), q.data(), scratch.data());
    for (int i = 0; i < m.coord_count; ++i) std::fprintf(out, "%s%.17g", i ? "," : "", q[i]);
    std::fprintf(out, "\n");
  }
  std::fclose(out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "fk-time") return fk_time(argc, argv);
    if (mode == "masked") return masked(argc, argv);
    if (mode == "seeds") return seeds(argc, argv);
    if (mode == "ik-time") return ik_time(argc, argv);
    std::fprintf(stderr, "usage: masked_fk_driver fk-time|masked|ik-time|seeds ...\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "masked_fk_driver: %s\n", e.what());
    return 1;
  }
}
