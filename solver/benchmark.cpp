#include "solver/benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <random>

#include "engine/core/fk.hpp"

namespace ikwb {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<double> random_configuration(const Model& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> q = m.neutral_configuration();
  std::vector<double> seed(m.coord_count);
  ModelView<double> v = m.view();
  std::vector<double> scratch(m.dof_count);
  sample_seed(v, m.dof_lower.data(), m.dof_upper.data(), SeedSampler::kUniform, 0.3, rng(), 0, 1,
              q.data(), seed.data(), scratch.data());
  return seed;
}

void finish(BenchStats& st, std::vector<double>& times, double total_s) {
  std::sort(times.begin(), times.end());
  if (!times.empty()) {
    double sum = 0;
    for (double t : times) sum += t;
    st.mean_s = sum / double(times.size());
    st.median_s = median_of(times);
    st.p99_s = times[std::min(times.size() - 1, std::size_t(double(times.size()) * 0.99))];
  }
  st.solves_per_s = total_s > 0 ? st.problems / total_s : 0.0;
  if (st.problems > 0) st.mean_iterations /= st.problems;
  if (st.solved > 0) {
    st.mean_position_error /= st.solved;
    st.mean_rotation_error /= st.solved;
  }
}

void tally(BenchStats& st, const ProblemResult& r) {
  st.mean_iterations += r.total_iterations;
  if (!r.converged) return;
  ++st.solved;
  st.mean_position_error += r.position_error;
  st.mean_rotation_error += r.rotation_error;
  st.max_position_error = std::max(st.max_position_error, r.position_error);
  st.max_rotation_error = std::max(st.max_rotation_error, r.rotation_error);
}

}  // namespace

double median_of(std::vector<double> values) {
  const std::size_t n = values.size();
  if (n == 0) return 0.0;
  std::sort(values.begin(), values.end());
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<Transform<double>> random_pose_targets(const Model& model, int link,
                                                   const Vec3<double>& offset, int n,
                                                   uint64_t rng_seed) {
  std::mt19937_64 rng(rng_seed);
  std::vector<Transform<double>> out;
  State s(model);
  for (int i = 0; i < n; ++i) {
    eval_fk(model, random_configuration(model, rng), {}, s);
    out.push_back({transform_point(s.body_q[link], offset), s.body_q[link].q});
  }
  return out;
}

SolverSettings tracik_settings() {
  SolverSettings s;
  s.tol_position = 1e-5;
  s.tol_rotation = 1e-5;
  s.time_budget_s = 5e-3;
  s.max_restarts = 1000;
  s.max_iterations = 40;
  s.stall_window = kRestartStallWindow;
  s.lambda_init = kColdStartDamping;
  s.threads = 1;
  return s;
}

SolverSettings batch_settings() {
  SolverSettings s;
  s.tol_position = 5e-3;
  s.tol_rotation = 0.05;
  s.max_restarts = 50;
  s.max_iterations = 40;
  s.stall_window = kRestartStallWindow;
  s.lambda_init = kColdStartDamping;
  return s;
}

BenchStats run_tracik_protocol(const std::shared_ptr<const Model>& model, int link,
                               const Vec3<double>& offset, int n_problems,
                               const SolverSettings& settings, IkSolver& solver, uint64_t rng_seed,
                               const BenchProgress& progress) {
  BenchStats st;
  st.label = "trac-ik";
  std::vector<Transform<double>> targets =
      random_pose_targets(*model, link, offset, n_problems, rng_seed);
  IkProblem problem(model, 1);
  int obj = problem.add_pose(link, offset);
  std::vector<double> q0 = model->middle_configuration();
  SolveResult res;
  std::vector<double> times;
  auto t_all = Clock::now();
  for (const auto& t : targets) {
    problem.set_target_pose(obj, 0, t);
    auto t0 = Clock::now();
    solver.solve(problem, settings, q0, res);
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    ++st.problems;
    tally(st, res.problems[0]);
    if (progress) progress(st.problems, n_problems);
  }
  finish(st, times, std::chrono::duration<double>(Clock::now() - t_all).count());
  return st;
}

BenchStats run_batch_protocol(const std::shared_ptr<const Model>& model, int link,
                              const Vec3<double>& offset, int batch, int repetitions,
                              const SolverSettings& settings, IkSolver& solver, uint64_t rng_seed,
                              const BenchProgress& progress) {
  BenchStats st;
  st.label = "batch " + std::to_string(batch);
  IkProblem problem(model, batch);
  int obj = problem.add_pose(link, offset);
  std::vector<double> q0 = model->middle_configuration();
  SolveResult res;
  std::vector<double> times;
  double total = 0;
  for (int rep = 0; rep < repetitions; ++rep) {
    problem.set_target_poses(
        obj, random_pose_targets(*model, link, offset, batch, rng_seed + uint64_t(rep) * 7919));
    auto t0 = Clock::now();
    solver.solve(problem, settings, q0, res);
    double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    total += dt;
    times.push_back(dt);
    for (const auto& r : res.problems) {
      ++st.problems;
      tally(st, r);
    }
    if (progress) progress(rep + 1, repetitions);
  }
  finish(st, times, total);
  return st;
}

}  // namespace ikwb
