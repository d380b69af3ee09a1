// The CUDA solver against the CPU backend: same seeds, same flags, q within float tolerance;
// success on reachable Panda targets; graph replay; re-uploads; registration and fallback.
#include "kernels/cuda_solver.hpp"

#include <gtest/gtest.h>

#include "engine/core/urdf_loader.hpp"
#include "gpu_test_util.hpp"
#include "solver/warm_start_case.hpp"

namespace ikwb {
namespace {

using Panda = test::PandaHand;

SolveResult solve_cpu_float(const IkProblem& problem, SolverSettings s,
                            const std::vector<double>& q0) {
  s.use_float = true;
  SolveResult r;
  make_cpu_solver()->solve(problem, s, q0, r);
  return r;
}

// The same converged flags for (nearly) every problem and row, and for rows both backends ran
// to convergence the same configuration within float tolerance. The two run the same float
// iteration, but FMA contraction and device sin/cos differ in the last bits; where a gain-ratio
// test sits on its threshold, or a seed converges on one side only, the paths part inside the
// redundant solution set. 1e-3 rad is far above rounding (1e-6) and far below another branch;
// the fractions say how much of that each test tolerates.
void expect_parity(const SolveResult& g, const SolveResult& c, double min_same_flag,
                   double min_close) {
  ASSERT_EQ(g.problems.size(), c.problems.size());
  ASSERT_EQ(g.row_q.size(), c.row_q.size());
  int same_problem = 0;
  for (std::size_t p = 0; p < c.problems.size(); ++p)
    same_problem += g.problems[p].converged == c.problems[p].converged;
  const std::size_t rows = g.row_converged.size(), nq = g.row_q.size() / rows;
  int same_flag = 0, both = 0, close = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    same_flag += g.row_converged[r] == c.row_converged[r];
    if (!(g.row_converged[r] && c.row_converged[r])) continue;
    ++both;
    double d = 0;
    for (std::size_t i = 0; i < nq; ++i)
      d = std::max(d, std::fabs(g.row_q[r * nq + i] - c.row_q[r * nq + i]));
    close += d <= 1e-3;
  }
  EXPECT_GE(same_problem, int(min_same_flag * c.problems.size())) << "problems, same flag";
  EXPECT_GE(same_flag, int(min_same_flag * rows)) << "rows with the same converged flag";
  EXPECT_GT(both, 0);
  EXPECT_GE(close, int(min_close * both)) << "converged rows with the same q";
}

// With joint 3 frozen the Panda has 6 dofs for the 6 pose rows: solutions are isolated, so
// the same seed must reach the same configuration. (Measured on the CPU, double against float,
// a perturbation of the same size as GPU against CPU: 100% same flags, 98.6% same q.)
TEST(CudaSolver, PandaSixDofSameSeedsSameSolutionsAsCpu) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const int P = 128;
  IkProblem problem(pp.model, P);
  int obj = problem.add_pose(pp.tcp);
  std::vector<double> q0 = pp.model->middle_configuration();
  std::mt19937 rng(31);
  for (int p = 0; p < P; ++p) {
    std::vector<double> q = test::random_configuration(*pp.model, rng);
    q[2] = q0[2];
    problem.set_target_pose(obj, p, test::link_pose(*pp.model, q, pp.tcp));
  }
  std::vector<uint8_t> mask(pp.model->dof_count, 1);
  mask[2] = 0;
  problem.set_dof_mask(mask);
  SolverSettings s;
  s.n_seeds = 4;
  s.sampler = Sampler::kRoberts;
  s.max_restarts = 10;
  s.solve_all_seeds = true;
  CudaSolver gpu;
  SolveResult g;
  gpu.solve(problem, s, q0, g);
  SolveResult c = solve_cpu_float(problem, s, q0);
  expect_parity(g, c, 0.98, 0.95);
  for (const auto& p : g.problems) {
    EXPECT_TRUE(p.converged);
    EXPECT_EQ(p.q[2], q0[2]);
  }
}

// All 7 dofs: the pose leaves a one-dimensional set of solutions, and where the two paths part
// they end at different points of it (measured double against float: 93% within 1e-3 rad).
TEST(CudaSolver, PandaRedundantSameSeedsSameFlagsAsCpu) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const int P = 128;
  IkProblem problem = pp.pose_problem(P, 31);
  SolverSettings s;
  s.n_seeds = 4;
  s.sampler = Sampler::kRoberts;
  s.max_restarts = 10;
  s.solve_all_seeds = true;
  std::vector<double> q0 = pp.model->middle_configuration();
  CudaSolver gpu;
  SolveResult g;
  gpu.solve(problem, s, q0, g);
  SolveResult c = solve_cpu_float(problem, s, q0);
  expect_parity(g, c, 0.98, 0.8);
  for (const auto& p : g.problems) EXPECT_TRUE(p.converged);
}

TEST(CudaSolver, PandaReachableTargetsAllSolvedAt5mm) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const int P = 1000;
  IkProblem problem(pp.model, P);
  int obj = problem.add_pose(pp.tcp);
  std::vector<Transform<double>> targets = test::reachable_poses(*pp.model, pp.tcp, P, 41);
  problem.set_target_poses(obj, targets);
  SolverSettings s;
  s.tol_position = 5e-3;
  s.tol_rotation = 0.05;
  s.max_iterations = 40;
  s.max_restarts = 50;
  s.stall_window = 10;
  CudaSolver gpu;
  SolveResult res;
  gpu.solve(problem, s, pp.model->middle_configuration(), res);
  int ok = 0;
  for (int p = 0; p < P; ++p) {
    const ProblemResult& r = res.problems[p];
    ok += r.converged;
    // check the answer with double FK, not the solver's own float errors
    Transform<double> x = test::link_pose(*pp.model, r.q, pp.tcp);
    if (r.converged) {
      EXPECT_LT(length(x.p - targets[p].p), 5e-3 + 1e-5) << "problem " << p;
      EXPECT_LT(test::rotation_angle(x.q, targets[p].q), 0.05 + 1e-4) << "problem " << p;
    }
  }
  EXPECT_EQ(ok, P);
}

TEST(CudaSolver, GraphReplayGivesTheSameResultsAsDirectLaunches) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const int P = 100;
  IkProblem problem(pp.model, P);
  int obj = problem.add_pose(pp.tcp);
  SolverSettings s;
  s.n_seeds = 2;
  s.sampler = Sampler::kUniform;
  s.max_restarts = 3;
  std::vector<double> q0 = pp.model->middle_configuration();
  CudaSolver graphs, direct;
  direct.set_graphs_enabled(false);
  for (int frame = 0; frame < 3; ++frame) {
    problem.set_target_poses(obj, test::reachable_poses(*pp.model, pp.tcp, P, 50 + frame));
    s.rng_seed = uint64_t(frame);  // settings live in device memory: no new capture
    SolveResult a, b;
    graphs.solve(problem, s, q0, a);
    direct.solve(problem, s, q0, b);
    EXPECT_EQ(a.row_q, b.row_q);
    EXPECT_EQ(a.row_converged, b.row_converged);
  }
  EXPECT_EQ(graphs.stats().graph_captures, 1);
  EXPECT_EQ(graphs.stats().graph_replays, 3);
  EXPECT_EQ(direct.stats().graph_captures, 0);
  EXPECT_EQ(direct.stats().direct_launches, 3);
  // a new shape captures a new graph
  s.n_seeds = 3;
  SolveResult a;
  graphs.solve(problem, s, q0, a);
  EXPECT_EQ(graphs.stats().graph_captures, 2);
}

// Row buffers in shared memory (kAuto on the Panda) and in the global slab: the same code on the
// same seeds, so the same bits.
TEST(CudaSolver, SharedAndGlobalRowStorageGiveIdenticalResults) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const int P = 64;
  IkProblem problem = pp.pose_problem(P, 90);
  problem.add_joint_limits({0.5});
  SolverSettings s;
  s.n_seeds = 4;
  s.sampler = Sampler::kRoberts;
  s.max_restarts = 3;
  s.max_iterations = 30;
  s.solve_all_seeds = true;
  std::vector<double> q0 = pp.model->middle_configuration();
  CudaSolver gpu;
  SolveResult shared, global;
  gpu.solve(problem, s, q0, shared);
  ASSERT_TRUE(gpu.stats().shared_memory_rows);
  gpu.set_row_storage(CudaSolver::RowStorage::kGlobal);
  gpu.solve(problem, s, q0, global);
  ASSERT_FALSE(gpu.stats().shared_memory_rows);
  EXPECT_EQ(shared.row_q, global.row_q);
  EXPECT_EQ(shared.row_converged, global.row_converged);
  EXPECT_EQ(shared.row_cost, global.row_cost);
  ASSERT_EQ(shared.problems.size(), global.problems.size());
  for (std::size_t p = 0; p < shared.problems.size(); ++p) {
    const ProblemResult &a = shared.problems[p], &b = global.problems[p];
    EXPECT_EQ(a.q, b.q) << "problem " << p;
    EXPECT_EQ(a.seed, b.seed) << "problem " << p;
    EXPECT_EQ(a.converged, b.converged) << "problem " << p;
    EXPECT_EQ(a.iterations, b.iterations) << "problem " << p;
    EXPECT_EQ(a.total_iterations, b.total_iterations) << "problem " << p;
    EXPECT_EQ(a.cost, b.cost) << "problem " << p;
    EXPECT_EQ(a.position_error, b.position_error) << "problem " << p;
    EXPECT_EQ(a.rotation_error, b.rotation_error) << "problem " << p;
  }
  // and back: the shared kernel again
  gpu.set_row_storage(CudaSolver::RowStorage::kAuto);
  SolveResult again;
  gpu.solve(problem, s, q0, again);
  EXPECT_TRUE(gpu.stats().shared_memory_rows);
  EXPECT_EQ(again.row_q, shared.row_q);
}

// A budget is per row on the GPU and per problem on the CPU, so budgeted runs are not compared
// for parity. A generous budget still gives valid results, converged wherever the CPU converges;
// a budget spent before the first clock read stops the attempt running (solver.hpp) with a
// valid configuration and starts no other.
TEST(CudaSolver, TimeBudgetGivesValidResultsAndStopsRestarts) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const Model& m = *pp.model;
  const int P = 200;
  IkProblem problem(pp.model, P);
  int obj = problem.add_pose(pp.tcp);
  std::vector<Transform<double>> targets = test::reachable_poses(m, pp.tcp, P, 95);
  problem.set_target_poses(obj, targets);
  SolverSettings s;
  s.tol_position = 5e-3;
  s.tol_rotation = 0.05;
  s.max_iterations = 40;
  s.max_restarts = 50;
  s.stall_window = 10;
  s.time_budget_s = 1.0;
  std::vector<double> q0 = m.middle_configuration();
  CudaSolver gpu;
  SolveResult g, c;
  gpu.solve(problem, s, q0, g);
  make_cpu_solver()->solve(problem, s, q0, c);
  ASSERT_EQ(g.problems.size(), std::size_t(P));
  for (int p = 0; p < P; ++p) {
    const ProblemResult& r = g.problems[p];
    ASSERT_EQ(r.q.size(), std::size_t(m.coord_count));
    for (int i = 0; i < m.coord_count; ++i) {
      EXPECT_TRUE(std::isfinite(r.q[i])) << "problem " << p;
      EXPECT_GE(r.q[i], m.dof_lower[i] - 1e-6) << "problem " << p;
      EXPECT_LE(r.q[i], m.dof_upper[i] + 1e-6) << "problem " << p;
    }
    if (c.problems[p].converged) {
      EXPECT_TRUE(r.converged) << "problem " << p;
    }
    if (r.converged) {
      Transform<double> x = test::link_pose(m, r.q, pp.tcp);
      EXPECT_LT(length(x.p - targets[p].p), 5e-3 + 1e-5) << "problem " << p;
      EXPECT_LT(test::rotation_angle(x.q, targets[p].q), 0.05 + 1e-4) << "problem " << p;
    }
  }
  // a 1 ns budget runs out before the first clock read, which comes at the latest after the
  // fourth iteration (lm_row.hpp: every fourth on arms): each attempt stops there with a valid
  // configuration, and no attempt starts after it. A short batch runs its rows' first attempts
  // side by side (attempt lanes), so a row counts up to 4 iterations per lane. The timer's tick
  // does not matter: any reading is past the deadline.
  s.stall_window = 0;
  s.time_budget_s = 1e-9;
  SolveResult budgeted;
  gpu.solve(problem, s, q0, budgeted);
  const int lanes = gpu.stats().attempt_lanes;
  EXPECT_GE(lanes, 1);
  EXPECT_LE(lanes, s.max_restarts + 1);
  ASSERT_EQ(budgeted.problems.size(), std::size_t(P));
  for (int p = 0; p < P; ++p) {
    const ProblemResult& r = budgeted.problems[p];
    EXPECT_GE(r.iterations, 1) << "problem " << p;
    EXPECT_LE(r.iterations, 4 * lanes) << "problem " << p;
    for (int i = 0; i < m.coord_count; ++i) {
      EXPECT_TRUE(std::isfinite(r.q[i])) << "problem " << p;
      EXPECT_GE(r.q[i], m.dof_lower[i] - 1e-6) << "problem " << p;
      EXPECT_LE(r.q[i], m.dof_upper[i] + 1e-6) << "problem " << p;
    }
  }
}

TEST(CudaSolver, ModelAndStructureChangesAreUploaded) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  IkProblem problem(pp.model, 4);
  int obj = problem.add_position(pp.tcp);
  std::vector<Transform<double>> t = test::reachable_poses(*pp.model, pp.tcp, 4, 60);
  for (int p = 0; p < 4; ++p) problem.set_target_position(obj, p, t[p].p);
  CudaSolver gpu;
  SolverSettings s;
  SolveResult r;
  gpu.solve(problem, s, pp.model->middle_configuration(), r);
  gpu.solve(problem, s, pp.model->middle_configuration(), r);
  EXPECT_EQ(gpu.stats().model_uploads, 1);
  // a new objective (structure) keeps the model, a new robot re-uploads it
  problem.add_joint_limits({1.0});
  gpu.solve(problem, s, pp.model->middle_configuration(), r);
  EXPECT_EQ(gpu.stats().model_uploads, 1);
  EXPECT_EQ(gpu.stats().graph_captures, 2);
  for (const auto& p : r.problems) EXPECT_TRUE(p.converged);
  auto planar = std::make_shared<Model>(test::planar_arm());
  IkProblem p2(planar, 2);
  int o2 = p2.add_position(planar->find_body("tip"));
  p2.set_target_position(o2, 0, {1.2, 0.8, 0.1});
  p2.set_target_position(o2, 1, {0.5, -1.1, 0.1});
  SolveResult r2;
  gpu.solve(p2, s, std::vector<double>(planar->coord_count, 0.3), r2);
  EXPECT_EQ(gpu.stats().model_uploads, 2);
  for (const auto& p : r2.problems) EXPECT_TRUE(p.converged);
  for (int p = 0; p < 2; ++p) {
    Transform<double> x = test::link_pose(*planar, r2.problems[p].q, planar->find_body("tip"));
    EXPECT_LT(length(x.p - p2.target(o2, p).p), 1e-4 + 1e-5);
  }
}

TEST(CudaSolver, FloatingTreeHardConstraintsAndDofMaskMatchCpu) {
  IKWB_REQUIRE_CUDA();
  auto model = std::make_shared<Model>(test::all_joint_types(true));
  const int P = 32;
  IkProblem problem(model, P);
  int g = model->find_body("g"), c = model->find_body("c"), f = model->find_body("f");
  int pos = problem.add_position(g, {0.05, 0, 0});
  int rot = problem.add_rotation(c, {0.5});
  problem.add_joint_limits({1.0});
  // a point off the branch joint's axis, so no dof is left without any effect
  problem.add_min_distance(g, {0, 0, 0}, f, {0.1, 0, 0}, 0.05, {1.0, true});
  problem.add_posture({}, {0.2, true});
  // reachable targets with the frozen prismatic joint at its initial value
  std::vector<double> q0 = model->neutral_configuration();
  const int qs = model->joint_q_start[model->find_joint("pris")];
  std::mt19937 rng(77);
  for (int p = 0; p < P; ++p) {
    std::vector<double> q = test::random_configuration(*model, rng);
    q[qs] = q0[qs];
    problem.set_target_position(pos, p, test::link_pose(*model, q, g).p);
    problem.set_target_rotation(rot, p, test::link_pose(*model, q, c).q);
  }
  std::vector<uint8_t> mask(model->dof_count, 1);
  mask[model->joint_qd_start[model->find_joint("pris")]] = 0;
  problem.set_dof_mask(mask);
  SolverSettings s;
  s.n_seeds = 3;
  s.sampler = Sampler::kRoberts;
  s.max_restarts = 4;
  s.solve_all_seeds = true;
  CudaSolver gpu;
  SolveResult gr;
  gpu.solve(problem, s, q0, gr);
  SolveResult cr = solve_cpu_float(problem, s, q0);
  expect_parity(gr, cr, 0.9, 0.5);
  for (const auto& p : gr.problems) EXPECT_EQ(p.q[qs], q0[qs]);
}

// The workbench's next frame on the GPU: each problem's seed 0 begins from the hard rows'
// multipliers of the frame before, and every row hands its own back, as on the CPU (the same
// code, tests/solver/row_driver_test.cpp). A hard hand pose against a posture that pulls it,
// the targets moved 1 cm; the solver ran once without a warm start, so the graph it replays
// reads the warm start from the frame's upload. Multipliers of rows that reach the same q
// agree within float rounding of forces about 1 (1e-2 relative leaves room for where the last
// iteration's step differs).
TEST(CudaSolver, AWarmStartBeginsFromItsMultipliersAsOnTheCpu) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const int P = 32;
  test::WarmStartCase c = test::panda_warm_start_case(
      pp.model, pp.tcp, test::reachable_poses(*pp.model, pp.tcp, P, 12));
  SolverSettings s = c.settings;
  CudaSolver gpu;
  SolveResult cold_gpu, gr;
  gpu.solve(c.problem, s, c.q, cold_gpu);
  gpu.solve(c.problem, s, c.q, c.warm, gr);
  EXPECT_EQ(gpu.stats().graph_captures, 1);
  SolveResult cr;
  s.use_float = true;
  make_cpu_solver()->solve(c.problem, s, c.q, c.warm, cr);
  expect_parity(gr, cr, 0.9, 0.8);
  const std::size_t nr = std::size_t(c.problem.residual_count());
  ASSERT_EQ(gr.row_multipliers.size(), cr.row_multipliers.size());
  ASSERT_EQ(gr.row_multipliers.size(), gr.row_converged.size() * nr);
  int compared = 0, warm_differs = 0;
  for (int p = 0; p < P; ++p) {
    const ProblemResult &g = gr.problems[p], &cpu = cr.problems[p];
    warm_differs += g.iterations != cold_gpu.problems[p].iterations ||
                    test::max_abs_diff(g.q, cold_gpu.problems[p].q) > 1e-4;
    if (!(g.converged && cpu.converged && g.seed == cpu.seed) ||
        test::max_abs_diff(g.q, cpu.q) > 1e-3)
      continue;
    ++compared;
    for (std::size_t i = 0; i < nr; ++i)
      EXPECT_NEAR(g.multipliers[i], cpu.multipliers[i], 1e-2 * (1 + std::abs(cpu.multipliers[i])))
          << "problem " << p << " row " << i;
  }
  EXPECT_GE(compared, P / 2);
  EXPECT_GT(warm_differs, 0) << "the warm start changed nothing: the GPU ignored it";
}

TEST(CudaSolver, SequentialSeedsAndPreferClosestFollowTheCpuRules) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  const int P = 64;
  IkProblem problem = pp.pose_problem(P, 70);
  SolverSettings s;
  s.n_seeds = 4;
  s.sampler = Sampler::kUniform;
  s.max_iterations = 20;
  std::vector<double> q0 = pp.model->middle_configuration();
  CudaSolver gpu;
  SolveResult g;
  gpu.solve(problem, s, q0, g);
  // rows after a problem's first converged seed did not run
  for (int p = 0; p < P; ++p) {
    bool done = false;
    for (int seed = 0; seed < s.n_seeds; ++seed) {
      std::size_t row = std::size_t(p) * s.n_seeds + seed;
      if (done) {
        EXPECT_TRUE(std::isinf(g.row_cost[row])) << "row " << row;
      }
      done = done || g.row_converged[row];
    }
    if (g.problems[p].converged) {
      EXPECT_TRUE(g.row_converged[p * s.n_seeds + g.problems[p].seed]);
    }
  }
  s.prefer_closest = true;
  gpu.solve(problem, s, q0, g);
  for (int p = 0; p < P; ++p) {
    const ProblemResult& r = g.problems[p];
    if (!r.converged) continue;
    // no other converged seed is closer to q0
    std::vector<double> d(pp.model->dof_count);
    auto dist = [&](const double* q) {
      difference_row(pp.model->view(), q, q0.data(), d.data());
      double k = 0;
      for (double v : d) k += v * v;
      return k;
    };
    double mine = dist(r.q.data());
    for (int seed = 0; seed < s.n_seeds; ++seed) {
      std::size_t row = std::size_t(p) * s.n_seeds + seed;
      // distances are compared in float on the device
      if (g.row_converged[row]) {
        EXPECT_LE(mine, dist(g.row_q.data() + row * pp.model->coord_count) + 1e-4 * (1 + mine));
      }
    }
  }
}

TEST(CudaSolver, FixedIterationsRunEveryIteration) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  IkProblem problem = pp.pose_problem(16, 80);
  SolverSettings s;
  s.fixed_iterations = true;
  s.max_iterations = 12;
  CudaSolver gpu;
  SolveResult r;
  gpu.solve(problem, s, pp.model->middle_configuration(), r);
  SolveResult c = solve_cpu_float(problem, s, pp.model->middle_configuration());
  for (std::size_t p = 0; p < r.problems.size(); ++p) {
    EXPECT_EQ(r.problems[p].iterations, c.problems[p].iterations) << "problem " << p;
    EXPECT_LE(r.problems[p].iterations, 12);
  }
}

// the device model carries which joints are periodic: a posture pulls the continuous wrist roll
// of tests/data/robots/turntable_arm.urdf from 3.1 rad to its rest at -3.1 rad the short way
// (0.08 rad: four iterations, where the long way would still be 2 rad off), as on the CPU, and
// the answer comes back in (-pi, pi]
TEST(CudaSolver, PosturePullsAContinuousJointTheShortWayAsOnTheCpu) {
  IKWB_REQUIRE_CUDA();
  std::shared_ptr<const Model> model =
      load_urdf_file(IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf").model;
  const int roll = model->joint_q_start[model->find_joint("wrist_roll")];
  const int tool = model->find_body("tool");
  std::vector<double> q0 = model->middle_configuration(), rest = q0;
  q0[roll] = 3.1;
  rest[roll] = -3.1;
  IkProblem problem(model, 1);
  int obj = problem.add_position(tool);
  State s0(*model);
  eval_fk(*model, q0, {}, s0);
  problem.set_target_position(obj, 0, s0.body_q[tool].p);
  problem.add_posture(rest, {1.0});
  SolverSettings s;
  s.max_iterations = 4;
  CudaSolver gpu;
  SolveResult g;
  gpu.solve(problem, s, q0, g);
  SolveResult c = solve_cpu_float(problem, s, q0);
  EXPECT_NEAR(std::remainder(g.problems[0].q[roll] + 3.1, 2 * M_PI), 0.0, 0.01);
  EXPECT_NEAR(g.problems[0].q[roll], c.problems[0].q[roll], 1e-4);
}

TEST(CudaSolver, UnsupportedSettingsThrowInvalidArgument) {
  IKWB_REQUIRE_CUDA();
  Panda pp;
  IkProblem problem(pp.model, 1);
  problem.add_position(pp.tcp);
  CudaSolver gpu;
  SolverSettings s;
  SolveResult r;
  s.optimizer = Optimizer::kLbfgs;
  EXPECT_THROW(gpu.solve(problem, s, pp.model->middle_configuration(), r), std::invalid_argument);
  s.optimizer = Optimizer::kLevenbergMarquardt;
  EXPECT_THROW(gpu.solve(problem, s, {1.0, 2.0}, r), std::invalid_argument);
  problem.add_custom(make_custom_objective(
      1, [](const Model&, const auto* q, const auto*, auto* out) { out[0] = q[0]; }));
  EXPECT_THROW(gpu.solve(problem, s, pp.model->middle_configuration(), r), std::invalid_argument);
}

// runs with and without a device: make_solver picks CUDA only when it can run
TEST(CudaBackend, RegistrationSelectsCudaOrFallsBackWithAReason) {
  register_cuda_backend();
  std::string why_not;
  bool usable = cuda_device_usable(&why_not);
  std::string reason;
  auto solver = make_solver(Backend::kCuda, &reason);
  ASSERT_TRUE(solver);
  if (usable) {
    EXPECT_EQ(solver->backend(), Backend::kCuda);
    EXPECT_TRUE(cuda_available(nullptr));
  } else {
    EXPECT_EQ(solver->backend(), Backend::kCpu);
    EXPECT_FALSE(why_not.empty());
    EXPECT_NE(reason.find(why_not), std::string::npos) << reason;
    EXPECT_FALSE(cuda_available(nullptr));
  }
}

}  // namespace
}  // namespace ikwb
