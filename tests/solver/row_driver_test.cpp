// The row driver (solver/row_driver.hpp) and its two callers. The CUDA backend's kernel bodies
// (kernels/row_solve.cuh: scratch layout, the kernel's call of the driver, which rows count as
// run) run here on the host, without nvcc or a GPU, against the CPU backend in float, so the
// backends cannot drift apart unnoticed in a CPU-only build. Then the driver's pieces alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/test_models.hpp"
#include "kernels/row_solve.cuh"
#include "kernels/solve_host.hpp"
#include "solver/backend_common.hpp"
#include "solver/row_driver.hpp"
#include "solver/solver.hpp"
#include "solver/solver_test_util.hpp"
#include "solver/test_robots.hpp"
#include "solver/warm_start_case.hpp"

namespace ikwb {
namespace {

// How the host runs a row's attempt lanes (the device runs them at once): lanes 0, 1, ...
// one after another, or the last first. Either order must give the same row.
enum class LaneOrder { kForward, kBackward };

// The CUDA backend's solve with its kernel bodies (solve_row_attempts, mark_rows_run and the
// shared pick_problem_seed) run on the host over every row, with the same float conversion and
// SolveConfig as CudaSolver. With lanes > 1 each row's attempts are spread over that many
// attempt lanes, combined and finished as combine_lanes_kernel and finish_rows_kernel do;
// *restarted counts the rows whose kept attempt is a restart.
SolveResult solve_kernel_bodies_on_host(const IkProblem& problem, const SolverSettings& s,
                                        const std::vector<double>& q_init, int lanes = 1,
                                        LaneOrder order = LaneOrder::kForward,
                                        int* restarted = nullptr, const WarmStart& warm = {}) {
  validate_settings(s);
  validate_warm_start(problem, warm);
  std::vector<double> q0 = expand_initial(problem, q_init);
  cuda::FloatProblem fp(problem);
  cuda::SolveConfig c = cuda::make_solve_config(problem, s, warm);
  const Model& m = problem.model();
  const int P = problem.problem_count(), S = s.n_seeds, n = P * S, nq = m.coord_count;
  const int nr = problem.residual_count();
  std::vector<float> warm_lambda(warm.multipliers.begin(), warm.multipliers.end());
  std::vector<float> row_lambda(std::size_t(n) * nr), lane_lambda(std::size_t(lanes) * nr);
  const auto& params = problem.param_array();
  cuda::RowScratchLayout l =
      cuda::row_scratch_layout(nq, m.dof_count, problem.residual_count(), m.body_count,
                               lm_latent_rows(params.data(), int(params.size())));
  std::vector<float> scratch(l.stride), row_q(std::size_t(n) * nq), diff(m.dof_count + 1);
  std::vector<float> qf(q0.begin(), q0.end());
  std::vector<uint8_t> dof_free(m.dof_count, 1);
  for (int d = 0; d < m.dof_count; ++d) dof_free[d] = problem.dof_free(d) ? 1 : 0;
  std::vector<RowResult<float>> rows(n);
  std::vector<ProblemPick> picks(P);
  // each row starts from NaN-filled buffers, as uninitialised shared memory on the device
  // could be: a read before a write shows up as a wrong result
  const uint8_t* free = c.has_dof_mask ? dof_free.data() : nullptr;
  std::vector<RowResult<float>> lane_rows(lanes);
  std::vector<float> lane_q(std::size_t(lanes) * nq);
  std::vector<int> attempt_iterations(s.max_restarts + 1);
  for (int row = 0; row < n; ++row) {
    float* q_out = row_q.data() + std::size_t(row) * nq;
    float* lambda_out = row_lambda.data() + std::size_t(row) * nr;
    if (lanes == 1) {
      std::fill(scratch.begin(), scratch.end(), std::numeric_limits<float>::quiet_NaN());
      cuda::solve_row_attempts(fp.view, c, free, qf.data(), warm_lambda.data(), row, scratch.data(),
                               l, q_out, lambda_out, &rows[row]);
    } else {
      unsigned stop_after = ~0u;
      uint64_t deadline_ns = 0;
      std::fill(attempt_iterations.begin(), attempt_iterations.end(), 0);
      for (int k = 0; k < lanes; ++k) {
        const int a = order == LaneOrder::kForward ? k : lanes - 1 - k;
        std::fill(scratch.begin(), scratch.end(), std::numeric_limits<float>::quiet_NaN());
        cuda::solve_row_attempts(fp.view, c, free, qf.data(), warm_lambda.data(), row,
                                 scratch.data(), l, lane_q.data() + std::size_t(a) * nq,
                                 lane_lambda.data() + std::size_t(a) * nr, &lane_rows[a],
                                 {a, lanes, &stop_after, attempt_iterations.data()}, &deadline_ns);
      }
      const int kept = combine_attempt_lanes(lane_rows.data(), lanes, attempt_iterations.data(),
                                             s.max_restarts, c.row.lm.tol_constraint, &rows[row]);
      std::copy_n(lane_q.data() + std::size_t(kept) * nq, nq, q_out);
      if (c.keep_multipliers)
        std::copy_n(lane_lambda.data() + std::size_t(kept) * nr, nr, lambda_out);
      std::fill(scratch.begin(), scratch.end(), std::numeric_limits<float>::quiet_NaN());
      cuda::finish_row_attempt(fp.view, c, free, row, scratch.data(), l, q_out, lambda_out,
                               &rows[row], deadline_ns);
    }
    if (restarted) *restarted += rows[row].attempt > 0;
  }
  for (int p = 0; p < P; ++p) {
    cuda::mark_rows_run(c, p, rows.data());
    picks[p] =
        pick_problem_seed(fp.view.model, S, c.row.prefer_closest != 0, c.row.lm.tol_constraint, p,
                          qf.data(), row_q.data(), rows.data(), diff.data());
  }
  SolveResult r;
  const std::vector<double> lambda(row_lambda.begin(), row_lambda.end());
  fill_solve_result(problem, S, row_q.data(), rows.data(), picks.data(), r,
                    c.keep_multipliers ? lambda.data() : nullptr);
  return r;
}

// the Panda and its hand frame
struct PandaHand {
  std::shared_ptr<Model> model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");

  // n problems, each one pose objective of the hand at a reachable target (seeded)
  IkProblem pose_problem(int n, unsigned seed) const {
    IkProblem problem(model, n);
    int obj = problem.add_pose(tcp);
    problem.set_target_poses(obj, test::reachable_poses(*model, tcp, n, seed));
    return problem;
  }
};

// Every output of the two solves: flags, seeds and iteration counts exactly; q, costs and
// errors within `tol` (relative for costs): float rounding, since the two paths are compiled in
// different translation units and GCC contracts a different set of multiply-adds into FMAs.
void expect_same_result(const SolveResult& gpu, const SolveResult& cpu, double tol = 1e-5) {
  ASSERT_EQ(gpu.problems.size(), cpu.problems.size());
  ASSERT_EQ(gpu.n_seeds, cpu.n_seeds);
  ASSERT_EQ(gpu.row_q.size(), cpu.row_q.size());
  for (std::size_t row = 0; row < gpu.row_converged.size(); ++row) {
    EXPECT_EQ(gpu.row_converged[row], cpu.row_converged[row]) << "row " << row;
    if (std::isinf(cpu.row_cost[row])) {
      EXPECT_TRUE(std::isinf(gpu.row_cost[row])) << "row " << row << " should not have run";
    } else {
      EXPECT_NEAR(gpu.row_cost[row], cpu.row_cost[row], 0.1 * tol * (1 + cpu.row_cost[row]))
          << "row " << row;
    }
  }
  EXPECT_LE(test::max_abs_diff(gpu.row_q, cpu.row_q), tol);
  for (std::size_t p = 0; p < cpu.problems.size(); ++p) {
    const ProblemResult &g = gpu.problems[p], &c = cpu.problems[p];
    EXPECT_EQ(g.converged, c.converged) << "problem " << p;
    EXPECT_EQ(g.seed, c.seed) << "problem " << p;
    EXPECT_EQ(g.iterations, c.iterations) << "problem " << p;
    EXPECT_EQ(g.total_iterations, c.total_iterations) << "problem " << p;
    EXPECT_LE(test::max_abs_diff(g.q, c.q), tol) << "problem " << p;
    EXPECT_NEAR(g.position_error, c.position_error, 0.1 * tol) << "problem " << p;
    EXPECT_NEAR(g.rotation_error, c.rotation_error, tol) << "problem " << p;
  }
  // each row's penalty and hard-row multipliers (where a warm start from it begins)
  ASSERT_EQ(gpu.row_penalty.size(), cpu.row_penalty.size());
  for (std::size_t row = 0; row < cpu.row_penalty.size(); ++row)
    EXPECT_NEAR(gpu.row_penalty[row], cpu.row_penalty[row], tol * cpu.row_penalty[row])
        << "row " << row;
  ASSERT_EQ(gpu.row_multipliers.size(), cpu.row_multipliers.size());
  for (std::size_t i = 0; i < cpu.row_multipliers.size(); ++i)
    EXPECT_NEAR(gpu.row_multipliers[i], cpu.row_multipliers[i],
                tol * (1 + std::abs(cpu.row_multipliers[i])))
        << "multiplier " << i;
}

SolveResult cpu_float(const IkProblem& problem, SolverSettings s, const std::vector<double>& q,
                      const WarmStart& warm = {}) {
  s.use_float = true;
  s.threads = 1;
  SolveResult r;
  make_cpu_solver()->solve(problem, s, q, warm, r);
  return r;
}

TEST(KernelBodiesOnHost, PandaAllSeedsMatchCpuFloat) {
  PandaHand pp;
  const int P = 24;
  IkProblem problem = pp.pose_problem(P, 3);
  SolverSettings s;
  s.n_seeds = 4;
  s.sampler = Sampler::kRoberts;
  s.max_restarts = 3;
  s.max_iterations = 30;
  s.solve_all_seeds = true;
  std::vector<double> q0 = pp.model->middle_configuration();
  expect_same_result(solve_kernel_bodies_on_host(problem, s, q0), cpu_float(problem, s, q0));
}

TEST(KernelBodiesOnHost, SequentialSeedsStopAtFirstConverged) {
  PandaHand pp;
  const int P = 24;
  IkProblem problem = pp.pose_problem(P, 4);
  SolverSettings s;
  s.n_seeds = 5;
  s.sampler = Sampler::kUniform;
  s.max_iterations = 15;
  s.stall_window = 5;
  s.rng_seed = 11;
  std::vector<double> q0 = pp.model->middle_configuration();
  SolveResult gpu = solve_kernel_bodies_on_host(problem, s, q0);
  SolveResult cpu = cpu_float(problem, s, q0);
  expect_same_result(gpu, cpu);
  // the pattern is not trivial: some problems needed more than one seed, some rows never ran
  int skipped = 0, later_seed = 0;
  for (double c : cpu.row_cost) skipped += std::isinf(c);
  for (const auto& p : cpu.problems) later_seed += p.seed > 0;
  EXPECT_GT(skipped, 0);
  EXPECT_GT(later_seed, 0);
}

TEST(KernelBodiesOnHost, PreferClosestGaussianWithPerProblemInit) {
  PandaHand pp;
  const int P = 12;
  IkProblem problem(pp.model, P);
  int obj = problem.add_position(pp.tcp, {0, 0, 0.05});
  std::vector<Transform<double>> poses = test::reachable_poses(*pp.model, pp.tcp, P, 5);
  for (int p = 0; p < P; ++p) problem.set_target_position(obj, p, poses[p].p);
  std::mt19937 rng(9);
  std::vector<double> q0;
  for (int p = 0; p < P; ++p) {
    std::vector<double> q = test::random_configuration(*pp.model, rng);
    q0.insert(q0.end(), q.begin(), q.end());
  }
  SolverSettings s;
  s.n_seeds = 6;
  s.sampler = Sampler::kGaussian;
  s.gaussian_sigma = 0.4;
  s.prefer_closest = true;
  s.rng_seed = 5;
  expect_same_result(solve_kernel_bodies_on_host(problem, s, q0), cpu_float(problem, s, q0));
}

TEST(KernelBodiesOnHost, FloatingTreeWithHardObjectivesMaskAndNullSpacePosture) {
  auto model = std::make_shared<Model>(test::all_joint_types(true));
  const int P = 6;
  IkProblem problem(model, P);
  int g = model->find_body("g"), c = model->find_body("c"), f = model->find_body("f");
  int pos = problem.add_position(g, {0.05, 0, 0});
  int rot = problem.add_rotation(c, {0.5});
  problem.add_joint_limits({1.0});
  // points off the branch joint's axis, so no dof is left without any effect
  problem.add_relative_ball(f, {0.05, 0.05, 0}, c, {0, 0, 0.1}, {1.0, false});
  problem.add_min_distance(g, {0, 0, 0}, f, {0.1, 0, 0}, 0.05, {1.0, true});
  problem.add_posture({}, {0.2, true});
  std::mt19937 rng(21);
  for (int p = 0; p < P; ++p) {
    std::vector<double> q = test::random_configuration(*model, rng);
    problem.set_target_position(pos, p, test::link_pose(*model, q, g).p);
    problem.set_target_rotation(rot, p, test::link_pose(*model, q, c).q);
  }
  std::vector<uint8_t> mask(model->dof_count, 1);
  mask[model->joint_qd_start[model->find_joint("pris")]] = 0;
  problem.set_dof_mask(mask);
  // Short runs: this infeasible, redundant problem is chaotic after a few iterations (one-ulp
  // differences from FMA contraction in either translation unit flip gain-ratio tests), but
  // every feature's semantics show in the first ones, restarts included.
  SolverSettings s;
  s.n_seeds = 3;
  s.sampler = Sampler::kRoberts;
  s.max_restarts = 2;
  s.max_iterations = 3;
  s.solve_all_seeds = true;
  s.marquardt_scaling = true;
  expect_same_result(solve_kernel_bodies_on_host(problem, s, model->neutral_configuration()),
                     cpu_float(problem, s, model->neutral_configuration()), 5e-3);
}

TEST(KernelBodiesOnHost, FixedIterationsAndHardPose) {
  PandaHand pp;
  const int P = 8;
  IkProblem problem(pp.model, P);
  int obj = problem.add_pose(pp.tcp, {0, 0, 0}, {1.0, true});
  problem.add_posture({}, {0.05});
  problem.set_target_poses(obj, test::reachable_poses(*pp.model, pp.tcp, P, 6));
  SolverSettings s;
  s.fixed_iterations = true;
  s.max_iterations = 25;
  s.hard_joint_limits = false;
  SolveResult gpu = solve_kernel_bodies_on_host(problem, s, pp.model->middle_configuration());
  expect_same_result(gpu, cpu_float(problem, s, pp.model->middle_configuration()));
  for (const auto& p : gpu.problems) EXPECT_EQ(p.iterations, 25);
}

// fixed iterations (the mode graph capture relies on) run exactly max_iterations in float too,
// past the stall at the best reachable point of out-of-reach targets, where the damping grows
// without bound
TEST(KernelBodiesOnHost, FixedIterationsRunOnAfterAStall) {
  PandaHand pp;
  const int P = 4;
  IkProblem problem(pp.model, P);
  int obj = problem.add_position(pp.tcp);
  for (int p = 0; p < P; ++p) problem.set_target_position(obj, p, {2.0 + p, 0.5, 0.3});
  SolverSettings s;
  s.fixed_iterations = true;
  s.max_iterations = 400;
  const std::vector<double> q0 = pp.model->middle_configuration();
  SolveResult gpu = solve_kernel_bodies_on_host(problem, s, q0);
  expect_same_result(gpu, cpu_float(problem, s, q0));
  for (const auto& p : gpu.problems) {
    EXPECT_EQ(p.iterations, 400);
    EXPECT_FALSE(p.converged);
    test::expect_finite(p.q);
  }
}

// Restarts spread over attempt lanes give exactly the row of one lane running them in turn
// (the CPU backend's): the kept attempt, its q, the flags and every iteration count, whichever
// lane runs first; with more lanes than attempts the idle lanes take no part.
TEST(KernelBodiesOnHost, AttemptLanesGiveTheSequentialRestarts) {
  PandaHand pp;
  const int P = 40;
  IkProblem problem = pp.pose_problem(P, 8);
  SolverSettings s;
  s.n_seeds = 2;
  s.sampler = Sampler::kUniform;
  s.max_restarts = 6;
  s.max_iterations = 12;
  s.stall_window = 4;
  s.rng_seed = 3;
  const std::vector<double> q0 = pp.model->middle_configuration();
  const SolveResult cpu = cpu_float(problem, s, q0);
  int restarted_in_turn = 0;
  expect_same_result(
      solve_kernel_bodies_on_host(problem, s, q0, 1, LaneOrder::kForward, &restarted_in_turn), cpu);
  // the case is not trivial: rows kept a restart, and some rows converged in none
  EXPECT_GT(restarted_in_turn, 4);
  int unconverged = 0;
  for (uint8_t f : cpu.row_converged) unconverged += f == 0;
  EXPECT_GT(unconverged, 0);
  for (int lanes : {2, 3, 7, 9})
    for (LaneOrder order : {LaneOrder::kForward, LaneOrder::kBackward}) {
      SCOPED_TRACE("lanes " + std::to_string(lanes) +
                   (order == LaneOrder::kForward ? " forward" : " backward"));
      int restarted = 0;
      expect_same_result(solve_kernel_bodies_on_host(problem, s, q0, lanes, order, &restarted),
                         cpu);
      EXPECT_EQ(restarted, restarted_in_turn);
    }
}

// A warm start (the workbench's next frame) begins each problem's seed 0 from the hard rows'
// multipliers and penalty it is given, and every row hands its own back, as on the CPU backend:
// a hard hand pose held against a posture that pulls it, its target moved 1 cm.
TEST(KernelBodiesOnHost, AWarmStartBeginsFromItsMultipliersAndEveryRowKeepsItsOwn) {
  PandaHand pp;
  const int P = 3;
  test::WarmStartCase c = test::panda_warm_start_case(
      pp.model, pp.tcp, test::reachable_poses(*pp.model, pp.tcp, P, 12));
  ASSERT_TRUE(c.converged);
  ASSERT_GT(c.force, 1e-3);  // the posture pulls: the hard rows hold
  const SolverSettings& s = c.settings;
  const SolveResult cold = cpu_float(c.problem, s, c.q), hot = cpu_float(c.problem, s, c.q, c.warm);
  int differ = 0;
  for (int p = 0; p < P; ++p)
    differ += hot.problems[p].iterations != cold.problems[p].iterations ||
              test::max_abs_diff(hot.problems[p].q, cold.problems[p].q) > 1e-4;
  EXPECT_GT(differ, 0) << "the multipliers change nothing here: the test shows nothing";
  expect_same_result(
      solve_kernel_bodies_on_host(c.problem, s, c.q, 1, LaneOrder::kForward, nullptr, c.warm), hot);
  expect_same_result(
      solve_kernel_bodies_on_host(c.problem, s, c.q, 2, LaneOrder::kBackward, nullptr, c.warm),
      hot);
  expect_same_result(solve_kernel_bodies_on_host(c.problem, s, c.q), cold);
  EXPECT_EQ(hot.row_multipliers.size(), std::size_t(P) * s.n_seeds * c.problem.residual_count());
}

TEST(RowDriver, AttemptLanesFillAShortBatchUpToTheAttempts) {
  const int in_flight = 132 * 32 * 4;  // an H200's multiprocessors, four warps each
  EXPECT_EQ(cuda::attempt_lanes(1, 50, in_flight), cuda::kMaxAttemptLanes);
  EXPECT_EQ(cuda::attempt_lanes(1000, 50, in_flight), 16);
  EXPECT_EQ(cuda::attempt_lanes(2000, 50, in_flight), 8);
  EXPECT_EQ(cuda::attempt_lanes(65536, 50, in_flight), 1);
  EXPECT_EQ(cuda::attempt_lanes(1, 3, in_flight), 4);  // no more lanes than attempts
  EXPECT_EQ(cuda::attempt_lanes(1, 0, in_flight), 1);  // no restarts: nothing to spread
  EXPECT_EQ(cuda::attempt_lanes(0, 50, in_flight), 1);
}

TEST(RowDriver, CombinedLanesKeepTheLowestConvergedAttemptAndCountUpToIt) {
  // four lanes of attempts 0..9: attempts 5 and 2 converged (lanes 1 and 2), lane 3 never ran
  std::vector<RowResult<float>> lanes(4);
  for (RowResult<float>& r : lanes) r.ran = 1;
  lanes[0].attempt = 8;
  lanes[0].eval.soft_cost = 0.5f;
  lanes[1].attempt = 5;
  lanes[1].converged = 1;
  lanes[2].attempt = 2;
  lanes[2].converged = 1;
  lanes[3].ran = 0;
  const std::vector<int> iterations = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  RowResult<float> out;
  EXPECT_EQ(combine_attempt_lanes(lanes.data(), 4, iterations.data(), 9, 1e-4f, &out), 2);
  EXPECT_EQ(out.attempt, 2);
  EXPECT_EQ(out.iterations, 10 + 11 + 12);
  EXPECT_EQ(out.ran, 1);
  // none converged: the lowest merit, the earlier attempt among equals, every attempt counted
  lanes[1].converged = lanes[2].converged = 0;
  lanes[1].eval.soft_cost = 0.25f;
  lanes[2].eval.soft_cost = 0.25f;
  EXPECT_EQ(combine_attempt_lanes(lanes.data(), 4, iterations.data(), 9, 1e-4f, &out), 2);
  EXPECT_EQ(out.iterations, 145);
  // no lane ran: nothing to keep
  for (RowResult<float>& r : lanes) r.ran = 0;
  EXPECT_EQ(combine_attempt_lanes(lanes.data(), 4, iterations.data(), 9, 1e-4f, &out), 0);
  EXPECT_EQ(out.ran, 0);
}

TEST(KernelBodiesOnHost, ScratchLayoutIsDisjointWithOddStride) {
  for (int nq : {1, 7, 14, 40})
    for (int nr : {0, 3, 20, 61}) {
      int nv = nq > 7 ? nq - 1 : nq, nb = nq + 2, latent_rows = nr / 3;
      cuda::RowScratchLayout l = cuda::row_scratch_layout(nq, nv, nr, nb, latent_rows);
      EXPECT_EQ(l.stride % 2, 1);
      EXPECT_GE(l.stride, l.latent + l.latent_size);
      EXPECT_EQ(l.latent - l.cols, lm_cols_capacity(nv));
      EXPECT_EQ(l.latent_size, latent_rows * (nv + 2));
      EXPECT_EQ(l.body_q_trial - l.body_q, nb * 7);
      EXPECT_EQ(l.A - l.J, nr * nv);
      // the structured LM step's buffers (solver/lm_step.hpp)
      EXPECT_EQ(l.diag - l.tmp, nv);
      EXPECT_EQ(l.row_col - l.diag, 3 * nv);
      EXPECT_EQ(l.rows - l.row_col, nr);
      EXPECT_EQ(l.cols - l.rows, nr);
    }
}

// --- the driver's pieces ------------------------------------------------------------------

TEST(RowDriver, TimeBudgetInNanosecondsAndNoneOverTheLimit) {
  SolverSettings s;
  const PandaHand pp;
  const IkProblem problem(pp.model, 1);
  auto budget_ns = [&](double seconds) {
    s.time_budget_s = seconds;
    return make_row_driver_config<float>(s, problem).time_budget_ns;
  };
  EXPECT_EQ(budget_ns(0.0), 0u);
  EXPECT_EQ(budget_ns(0.5), 500000000u);
  EXPECT_EQ(budget_ns(1e-12), 1u);
  EXPECT_EQ(budget_ns(kMaxTimeBudgetS), uint64_t(1e15));
  EXPECT_EQ(budget_ns(2 * kMaxTimeBudgetS), 0u);
  EXPECT_EQ(budget_ns(std::numeric_limits<double>::max()), 0u);
}

TEST(RowDriver, DeadlineIsNoneWithoutABudgetOrOnOverflow) {
  const uint64_t none = ~uint64_t(0);
  EXPECT_EQ(row_deadline_ns(0), none);
  EXPECT_EQ(row_deadline_ns(none - 1), none);
  const uint64_t before = row_clock_ns();
  const uint64_t deadline = row_deadline_ns(1000000000);
  EXPECT_GE(deadline, before + 1000000000);
  EXPECT_LE(deadline, row_clock_ns() + 1000000000);
}

TEST(RowDriver, AttemptSequencesAreDistinctAndSeedsComeFirst) {
  const int S = 5, R = 3;
  std::vector<uint32_t> seen;
  for (int seed = 0; seed < S; ++seed) {
    EXPECT_EQ(attempt_sequence(seed, 0, S, R), uint32_t(seed));
    for (int attempt = 0; attempt <= R; ++attempt)
      seen.push_back(attempt_sequence(seed, attempt, S, R));
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
  EXPECT_EQ(seen.back(), uint32_t(S * (R + 1) - 1));
}

TEST(RowDriver, NullSpacePostureIsTheLastEnabledOne) {
  PandaHand pp;
  IkProblem problem(pp.model, 1);
  problem.add_position(pp.tcp);
  EXPECT_EQ(null_space_posture(problem.view()), -1);
  problem.add_posture({}, {0.1, false});
  int first = problem.add_posture({}, {0.2, true});
  EXPECT_EQ(null_space_posture(problem.view()), first);
  int second = problem.add_posture({}, {0.3, true});
  EXPECT_EQ(null_space_posture(problem.view()), second);
  problem.set_enabled(second, false);
  EXPECT_EQ(null_space_posture(problem.view()), first);
}

// drive_row around a scripted local solve: attempt k reports costs[k] and converged[k]
struct ScriptedRow {
  struct Workspace {
    std::vector<double> q, q_trial, r, r_trial, J, A, L, g, dq, tmp, al, init, seed, best;
    std::vector<Transform<double>> body_q, body_q_trial;
  };

  PandaHand pp;
  IkProblem problem{pp.model, 1};
  Workspace w;
  std::vector<double> costs;
  std::vector<bool> converged;
  int calls = 0;
  std::vector<const double*> null_rests;

  ScriptedRow() {
    problem.add_position(pp.tcp);
    const Model& m = *pp.model;
    const int nq = m.coord_count, nv = m.dof_count, nr = problem.residual_count();
    for (auto* v : {&w.q, &w.q_trial, &w.init, &w.seed, &w.best}) v->assign(nq, 0.0);
    for (auto* v : {&w.r, &w.r_trial, &w.al}) v->assign(nr, 0.0);
    for (auto* v : {&w.g, &w.dq, &w.tmp}) v->assign(nv, 0.0);
    w.J.assign(nr * nv, 0.0);
    w.A.assign(nv * nv, 0.0);
    w.L.assign(nv * nv, 0.0);
    w.body_q.assign(m.body_count, transform_identity<double>());
    w.body_q_trial = w.body_q;
    w.init = m.middle_configuration();
  }

  RowResult<double> run(const RowDriverConfig<double>& c, uint64_t deadline_ns = ~uint64_t(0)) {
    RowBuffers<double> b{w.q.data(),  w.q_trial.data(), w.body_q.data(), w.body_q_trial.data(),
                         w.r.data(),  w.r_trial.data(), w.J.data(),      w.A.data(),
                         w.L.data(),  w.g.data(),       w.dq.data(),     w.tmp.data(),
                         w.al.data(), nullptr,          nullptr,         0.0};
    auto local_solve = [&](RowBuffers<double>& rb, RowStatus<double>& st) {
      null_rests.push_back(rb.null_rest);
      rb.q[0] = 100.0 + calls;  // marks which attempt's configuration is kept
      st.eval.soft_cost = costs[calls];
      st.converged = converged[calls];
      st.iterations = 10 + calls;
      ++calls;
    };
    return drive_row(problem.view(), c, b, 0, 1, w.init.data(), w.seed.data(), w.best.data(),
                     deadline_ns, local_solve);
  }
};

TEST(RowDriver, KeepsTheLowestMeritAttemptAndCountsEveryIteration) {
  ScriptedRow row;
  row.costs = {3.0, 1.0, 2.0};
  row.converged = {false, false, false};
  SolverSettings s;
  s.max_restarts = 2;
  RowResult<double> r = row.run(make_row_driver_config<double>(s, row.problem));
  EXPECT_EQ(row.calls, 3);
  EXPECT_EQ(r.iterations, 10 + 11 + 12);
  EXPECT_EQ(r.eval.soft_cost, 1.0);
  EXPECT_EQ(r.converged, 0);
  EXPECT_EQ(r.ran, 1);
  EXPECT_EQ(row.w.best[0], 101.0);
}

TEST(RowDriver, StopsAtTheFirstConvergedAttemptAndPrefersIt) {
  ScriptedRow row;
  row.costs = {0.5, 4.0, 0.1};
  row.converged = {false, true, true};
  SolverSettings s;
  s.max_restarts = 2;
  RowResult<double> r = row.run(make_row_driver_config<double>(s, row.problem));
  EXPECT_EQ(row.calls, 2);
  EXPECT_EQ(r.iterations, 10 + 11);
  EXPECT_EQ(r.converged, 1);
  EXPECT_EQ(r.eval.soft_cost, 4.0);
  EXPECT_EQ(row.w.best[0], 101.0);
}

TEST(RowDriver, RestartsStopAtTheDeadline) {
  ScriptedRow row;
  row.costs = {1.0, 1.0};
  row.converged = {false, false};
  SolverSettings s;
  s.max_restarts = 1;
  RowResult<double> r = row.run(make_row_driver_config<double>(s, row.problem), 0);
  EXPECT_EQ(row.calls, 1);
  EXPECT_EQ(r.iterations, 10);
}

TEST(RowDriver, EveryAttemptGetsTheNullSpacePosture) {
  ScriptedRow row;
  int posture = row.problem.add_posture({}, {0.2, true});
  row.costs = {1.0, 1.0};
  row.converged = {false, false};
  SolverSettings s;
  s.max_restarts = 1;
  row.run(make_row_driver_config<double>(s, row.problem));
  const int nq = row.pp.model->coord_count;
  ASSERT_EQ(row.null_rests.size(), 2u);
  for (const double* rest : row.null_rests)
    EXPECT_EQ(rest, row.problem.rest_array().data() + posture * nq);
}

TEST(RowDriver, PickPrefersConvergedThenMeritAndSkipsRowsThatDidNotRun) {
  PandaHand pp;
  const Model& m = *pp.model;
  const int S = 4, nq = m.coord_count;
  std::vector<double> row_q(std::size_t(2) * S * nq, 0.0), q_init(2 * nq, 0.0), diff(m.dof_count);
  std::vector<RowResult<double>> rows(2 * S);
  // problem 0: no seed converged; the lowest merit wins
  rows[0].eval.soft_cost = 2.0;
  rows[1].eval.soft_cost = 0.5;
  rows[2].eval.soft_cost = 1.0;
  rows[2].eval.violation = 1.0;  // a violation weighs 1e4 v^2
  rows[3].eval.soft_cost = 0.1;  // did not run
  for (int seed = 0; seed < 3; ++seed) rows[seed].ran = 1, rows[seed].iterations = 5;
  rows[3].iterations = 100;
  // problem 1: a converged seed beats any unconverged one
  rows[S + 0].eval.soft_cost = 0.01;
  rows[S + 2].eval.soft_cost = 3.0;
  rows[S + 2].converged = 1;
  for (int seed = 0; seed < S; ++seed) rows[S + seed].ran = 1, rows[S + seed].iterations = 1;
  ProblemPick p0 = pick_problem_seed(m.view(), S, false, 1e-4, 0, q_init.data(), row_q.data(),
                                     rows.data(), diff.data());
  EXPECT_EQ(p0.seed, 1);
  EXPECT_EQ(p0.total_iterations, 15);
  ProblemPick p1 = pick_problem_seed(m.view(), S, false, 1e-4, 1, q_init.data(), row_q.data(),
                                     rows.data(), diff.data());
  EXPECT_EQ(p1.seed, 2);
  EXPECT_EQ(p1.total_iterations, 4);
}

// Among seeds that did not converge, one that holds every hard objective within tol_constraint
// beats one that trades a hard objective away for a lower merit (a violation of 0.3 mm weighs
// 1e4 v^2 = 9e-4 in the merit, less than a soft objective out of reach gains by it), and the
// lanes of one row combine by the same rule
TEST(RowDriver, PickPrefersASeedThatHoldsItsHardObjectives) {
  PandaHand pp;
  const Model& m = *pp.model;
  const int S = 3, nq = m.coord_count;
  std::vector<double> row_q(std::size_t(S) * nq, 0.0), q_init(nq, 0.0), diff(m.dof_count);
  std::vector<RowResult<double>> rows(S);
  for (RowResult<double>& r : rows) r.ran = 1;
  rows[0].eval.soft_cost = 0.002;  // merit 0.002 + 9e-4, but 0.3 mm off a hard objective
  rows[0].eval.violation = 3e-4;
  rows[1].eval.soft_cost = 0.01;  // holds it
  rows[1].eval.violation = 5e-5;
  rows[2].eval.soft_cost = 0.05;  // holds it too, at a higher cost
  EXPECT_EQ(pick_problem_seed(m.view(), S, false, 1e-4, 0, q_init.data(), row_q.data(), rows.data(),
                              diff.data())
                .seed,
            1);
  // a converged seed still comes first
  rows[2].converged = 1;
  EXPECT_EQ(pick_problem_seed(m.view(), S, false, 1e-4, 0, q_init.data(), row_q.data(), rows.data(),
                              diff.data())
                .seed,
            2);
  // with every seed off its hard objectives, the merit decides as before
  rows[2].converged = 0;
  for (RowResult<double>& r : rows) r.eval.violation = 3e-4;
  EXPECT_EQ(pick_problem_seed(m.view(), S, false, 1e-4, 0, q_init.data(), row_q.data(), rows.data(),
                              diff.data())
                .seed,
            0);

  std::vector<RowResult<float>> lanes(2);
  for (RowResult<float>& r : lanes) r.ran = 1;
  lanes[0].attempt = 0;
  lanes[0].eval.soft_cost = 0.002f;
  lanes[0].eval.violation = 3e-4f;
  lanes[1].attempt = 1;
  lanes[1].eval.soft_cost = 0.01f;
  const std::vector<int> iterations = {7, 9};
  RowResult<float> out;
  EXPECT_EQ(combine_attempt_lanes(lanes.data(), 2, iterations.data(), 1, 1e-4f, &out), 1);
  EXPECT_EQ(out.iterations, 16);
}

TEST(RowDriver, PreferClosestPicksTheNearestConvergedSeed) {
  PandaHand pp;
  const Model& m = *pp.model;
  const int S = 3, nq = m.coord_count;
  std::vector<double> q_init = m.middle_configuration(), row_q, diff(m.dof_count);
  for (double offset : {0.3, 0.1, 0.01}) {
    std::vector<double> q = q_init;
    q[0] += offset;
    row_q.insert(row_q.end(), q.begin(), q.end());
  }
  std::vector<RowResult<double>> rows(S);
  for (auto& r : rows) r.ran = 1;
  rows[0].converged = rows[1].converged = 1;
  rows[0].eval.soft_cost = 0.0;  // the lowest merit, but farther
  rows[1].eval.soft_cost = 1.0;
  ASSERT_EQ(int(row_q.size()), S * nq);
  EXPECT_EQ(pick_problem_seed(m.view(), S, true, 1e-4, 0, q_init.data(), row_q.data(), rows.data(),
                              diff.data())
                .seed,
            1);
  EXPECT_EQ(pick_problem_seed(m.view(), S, false, 1e-4, 0, q_init.data(), row_q.data(), rows.data(),
                              diff.data())
                .seed,
            0);
}

}  // namespace
}  // namespace ikwb
