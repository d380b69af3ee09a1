// IK benchmark protocols shared by `ikwb bench` and the Google Benchmark programs.
//
// TRAC-IK protocol: random configurations within the limits -> FK -> pose targets of one link;
// each problem solved alone, seeded at the middle of the limits, restarts allowed within a
// per-problem time budget (5 ms); success at 1e-5 m and 1e-5 rad.
// Batch protocol (PyRoki, cuRobo): batches of pose targets from random configurations, one
// solve call per batch; success at 5 mm and 0.05 rad.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "solver/solver.hpp"

namespace ikwb {

struct BenchStats {
  std::string label;
  int problems = 0;
  int solved = 0;
  double mean_s = 0, median_s = 0, p99_s = 0;  // per solve call (TRAC-IK: one problem each;
                                               // batch: the whole batch)
  double solves_per_s = 0;
  double mean_position_error = 0, max_position_error = 0;  // of solved problems, m
  double mean_rotation_error = 0, max_rotation_error = 0;  // rad
  double mean_iterations = 0;  // LM or L-BFGS iterations per problem, all seeds and restarts
  double success_rate() const { return problems ? double(solved) / problems : 0.0; }
};

// the middle value of `values` (the mean of the two middle ones for an even count); 0 when empty
double median_of(std::vector<double> values);

// pose targets of `link` (+ offset) at n random configurations within the limits
std::vector<Transform<double>> random_pose_targets(const Model& model, int link,
                                                   const Vec3<double>& offset, int n,
                                                   uint64_t rng_seed);

// settings the TRAC-IK protocol uses (tolerances, budget, restarts); threads = 1
SolverSettings tracik_settings();
// settings the batch protocol uses (tolerances 5 mm / 0.05 rad)
SolverSettings batch_settings();

// progress(done, total) after each problem (TRAC-IK) or solve call (batch), outside the timed
// part; done counts up to total
using BenchProgress = std::function<void(int done, int total)>;

BenchStats run_tracik_protocol(const std::shared_ptr<const Model>& model, int link,
                               const Vec3<double>& offset, int n_problems,
                               const SolverSettings& settings, IkSolver& solver,
                               uint64_t rng_seed = 1, const BenchProgress& progress = {});

// one solve call per repetition of a batch of `batch` problems; times per call
BenchStats run_batch_protocol(const std::shared_ptr<const Model>& model, int link,
                              const Vec3<double>& offset, int batch, int repetitions,
                              const SolverSettings& settings, IkSolver& solver,
                              uint64_t rng_seed = 2, const BenchProgress& progress = {});

}  // namespace ikwb
