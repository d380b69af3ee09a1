// The CPU backend end to end: Jacobian modes, convergence, unreachable targets, hard
// constraints and limits, relative-frame constraints on two arms, minimum distance, custom
// objectives, batching, determinism, dof mask, seed choice, float mode, null-space posture and
// input checks.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "core/test_models.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/objective_report.hpp"
#include "solver/solver.hpp"
#include "solver/solver_test_util.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

using test::link_pose;

SolveResult solve(const IkProblem& pr, const SolverSettings& s, const std::vector<double>& q0) {
  SolveResult res;
  make_cpu_solver()->solve(pr, s, q0, res);
  return res;
}

struct Panda : ::testing::Test {
  std::shared_ptr<Model> model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");
  std::vector<double> q_mid = model->middle_configuration();
};

// --- Jacobian modes --------------------------------------------------------------------

TEST_F(Panda, JacobianModesGiveTheSameSolution) {
  const int P = 8;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp, {0.0, 0.02, 0.05});
  pr.set_target_poses(obj, test::reachable_poses(*model, tcp, P, 21, {0.0, 0.02, 0.05}));
  pr.add_posture(q_mid, {1e-3});
  pr.add_joint_limits({1.0});
  SolverSettings s;
  s.tol_position = 1e-3;  // the posture term keeps the exact solution from being reached:
  s.tol_rotation = 1e-2;  // all modes run to the same minimiser of the soft cost
  s.max_iterations = 200;
  SolveResult ref;
  for (JacobianMode mode : {JacobianMode::kAnalytic, JacobianMode::kAutodiff,
                            JacobianMode::kFiniteDifference, JacobianMode::kMixed}) {
    s.jacobian = mode;
    SolveResult res = solve(pr, s, q_mid);
    if (mode == JacobianMode::kAnalytic) {
      ref = res;
      continue;
    }
    // dual numbers and mixed (analytic for built-ins) are exact: rounding only; central
    // differences (h = 1e-6) perturb the steps by ~1e-9 relative
    double tol = mode == JacobianMode::kFiniteDifference ? 1e-6 : 1e-9;
    for (int p = 0; p < P; ++p) {
      EXPECT_EQ(res.problems[p].converged, ref.problems[p].converged) << to_string(mode);
      EXPECT_LE(test::max_abs_diff(res.problems[p].q, ref.problems[p].q), tol)
          << to_string(mode) << " problem " << p;
      EXPECT_NEAR(res.problems[p].cost, ref.problems[p].cost, 1e-9) << to_string(mode);
    }
  }
}

// a custom objective (autodiff through make_custom_objective) in every mode
TEST_F(Panda, JacobianModesAgreeWithACustomObjective) {
  const int P = 4;
  IkProblem pr(model, P);
  int obj = pr.add_position(tcp);
  pr.set_target_positions(obj,
                          {{0.4, 0.2, 0.5}, {0.3, -0.3, 0.3}, {0.5, 0.0, 0.7}, {0.2, 0.4, 0.6}});
  int elbow = model->find_body("panda_link4");
  // keep the elbow at z = 0.6 (soft)
  pr.add_custom(make_custom_objective(1, [elbow](const Model&, const auto*, const auto* body,
                                                 auto* r) { r[0] = body[elbow].p.z - 0.6; }),
                {0.5});
  SolverSettings s;
  s.tol_position = 1e-3;
  s.max_iterations = 200;
  SolveResult ref;
  for (JacobianMode mode : {JacobianMode::kAnalytic, JacobianMode::kAutodiff,
                            JacobianMode::kFiniteDifference, JacobianMode::kMixed}) {
    s.jacobian = mode;
    SolveResult res = solve(pr, s, q_mid);
    if (mode == JacobianMode::kAnalytic) {
      ref = res;
      continue;
    }
    double tol = mode == JacobianMode::kFiniteDifference ? 1e-6 : 1e-9;
    for (int p = 0; p < P; ++p)
      EXPECT_LE(test::max_abs_diff(res.problems[p].q, ref.problems[p].q), tol)
          << to_string(mode) << " problem " << p;
  }
}

// --- convergence -----------------------------------------------------------------------

TEST_F(Panda, ReachablePoseTargetsAllConvergeWithRestarts) {
  const int P = 40;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp);
  pr.set_target_poses(obj, test::reachable_poses(*model, tcp, P, 7));
  for (Sampler restart_sampler : {Sampler::kNone, Sampler::kRoberts}) {
    SolverSettings s;
    s.sampler = restart_sampler;
    s.max_restarts = 30;
    s.stall_window = 10;
    s.tol_position = 1e-5;
    s.tol_rotation = 1e-5;
    SolveResult res = solve(pr, s, q_mid);
    for (int p = 0; p < P; ++p) {
      const ProblemResult& r = res.problems[p];
      ASSERT_TRUE(r.converged) << "problem " << p;
      Transform<double> x = link_pose(*model, r.q, tcp);
      EXPECT_LE(length(x.p - pr.target(obj, p).p), 1e-5);
      EXPECT_LE(test::rotation_angle(x.q, pr.target(obj, p).q), 1e-5);
      EXPECT_NEAR(r.position_error, length(x.p - pr.target(obj, p).p), 1e-9);
      test::expect_within_limits(*model, r.q);
    }
  }
}

TEST_F(Panda, UnreachableTargetIsBestEffort) {
  const int P = 3;
  IkProblem pr(model, P);
  int obj = pr.add_position(tcp);
  const Vec3<double> targets[P] = {{3.0, 0.0, 0.5}, {-1.0, 2.0, 1.0}, {0.0, 0.0, 4.0}};
  for (int p = 0; p < P; ++p) pr.set_target_position(obj, p, targets[p]);
  SolverSettings s;
  s.max_restarts = 3;
  s.sampler = Sampler::kUniform;
  SolveResult res = solve(pr, s, q_mid);
  Vec3<double> shoulder = link_pose(*model, q_mid, model->find_body("panda_link2")).p;
  for (int p = 0; p < P; ++p) {
    const ProblemResult& r = res.problems[p];
    EXPECT_FALSE(r.converged);
    test::expect_finite(r.q);
    test::expect_within_limits(*model, r.q);
    Vec3<double> x = link_pose(*model, r.q, tcp).p;
    // the arm is stretched toward the target: the hand lies on the shoulder-target line,
    // at about the arm's reach (~0.95 m) from the shoulder
    Vec3<double> to_target = targets[p] - shoulder, to_hand = x - shoulder;
    double cosang = dot(to_target, to_hand) / (length(to_target) * length(to_hand));
    EXPECT_GT(cosang, 0.99) << p;
    EXPECT_GT(length(to_hand), 0.9) << p;
    EXPECT_LT(r.position_error, length(link_pose(*model, q_mid, tcp).p - targets[p])) << p;
    EXPECT_NEAR(r.position_error, length(x - targets[p]), 1e-9);
    EXPECT_TRUE(std::isfinite(r.cost));
  }
}

// --- hard constraints ------------------------------------------------------------------

TEST_F(Panda, HardPoseWinsOverConflictingSoftPosture) {
  const int P = 6;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp, {0, 0, 0}, {1.0, true});
  pr.set_target_poses(obj, test::reachable_poses(*model, tcp, P, 31));
  std::vector<double> rest = q_mid;
  rest[0] = 2.0;  // a posture no target agrees with
  pr.add_posture(rest, {1.0});
  SolverSettings s;
  s.max_restarts = 10;
  s.tol_constraint = 1e-6;
  s.max_iterations = 300;
  SolveResult res = solve(pr, s, q_mid);
  for (int p = 0; p < P; ++p) {
    const ProblemResult& r = res.problems[p];
    EXPECT_TRUE(r.converged) << p;
    Transform<double> x = link_pose(*model, r.q, tcp);
    EXPECT_LE(length(x.p - pr.target(obj, p).p), 1e-6);
    EXPECT_LE(test::rotation_angle(x.q, pr.target(obj, p).q), 1e-6);
    EXPECT_LE(r.constraint_violation, 1e-6);
    EXPECT_GT(r.cost, 1e-3);  // the posture is not met: the conflict is real
  }
  // the same with a soft pose: the posture pulls the hand off its target
  pr.set_hard(obj, false);
  SolveResult soft = solve(pr, s, q_mid);
  int off = 0;
  for (const auto& r : soft.problems) off += r.position_error > 1e-3;
  EXPECT_GT(off, 0);
}

// The multipliers a solve ends with (ProblemResult::multipliers) are the hard rows' forces:
// non-zero where a soft objective pulls against a hard one, zero on soft rows, none without a
// hard objective; a warm start (WarmStart) takes them in, checked for size and finiteness (and
// its penalty for finiteness and sign).
TEST_F(Panda, HardRowsReportTheirMultipliersAndAWarmStartTakesThemIn) {
  IkProblem pr(model);
  const int obj = pr.add_pose(tcp, {0, 0, 0}, {1.0, true});
  pr.set_target_pose(obj, 0, test::reachable_poses(*model, tcp, 1, 31)[0]);
  std::vector<double> rest = q_mid;
  rest[0] = 2.0;  // a posture the target disagrees with
  PostureOptions po;
  po.weight = 1.0;
  const int posture = pr.add_posture(rest, po);
  SolverSettings s;
  s.max_restarts = 10;
  s.max_iterations = 300;
  s.tol_constraint = 1e-8;
  SolveResult res = solve(pr, s, q_mid);
  const ProblemResult& r = res.problems[0];
  ASSERT_TRUE(r.converged);
  ASSERT_EQ(int(r.multipliers.size()), pr.residual_count());
  double hard = 0;
  for (int k = 0; k < pr.objective(obj).params.dim; ++k)
    hard = std::max(hard, std::abs(r.multipliers[pr.objective(obj).params.start + k]));
  EXPECT_GT(hard, 1e-3);  // the posture pulls the hand, the pose holds it
  for (int k = 0; k < pr.objective(posture).params.dim; ++k)
    EXPECT_EQ(r.multipliers[pr.objective(posture).params.start + k], 0.0);

  // from the answer with its multipliers, a short solve stays on it and holds the same forces
  WarmStart warm;
  warm.multipliers = r.multipliers;
  s.max_iterations = 20;
  s.max_restarts = 0;
  SolveResult again;
  make_cpu_solver()->solve(pr, s, r.q, warm, again);
  EXPECT_LE(again.problems[0].constraint_violation, 1e-8);
  EXPECT_NEAR(again.problems[0].cost, r.cost, 1e-6 * (1 + r.cost));
  ASSERT_EQ(again.problems[0].multipliers.size(), r.multipliers.size());
  for (std::size_t i = 0; i < r.multipliers.size(); ++i)
    EXPECT_NEAR(again.problems[0].multipliers[i], r.multipliers[i], 1e-6 * hard) << i;

  warm.multipliers.pop_back();
  EXPECT_THROW(
      {
        try {
          make_cpu_solver()->solve(pr, s, r.q, warm, again);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("warm.multipliers"), std::string::npos);
          throw;
        }
      },
      std::invalid_argument);
  warm.multipliers = r.multipliers;
  warm.multipliers[0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(make_cpu_solver()->solve(pr, s, r.q, warm, again), std::invalid_argument);
  warm.multipliers = r.multipliers;
  warm.penalty = -1;
  EXPECT_THROW(make_cpu_solver()->solve(pr, s, r.q, warm, again), std::invalid_argument);

  pr.set_hard(obj, false);
  EXPECT_TRUE(solve(pr, s, q_mid).problems[0].multipliers.empty());
}

// A hard objective turned on holds no force yet: a warm start's multipliers for it are zero
// (they were reached with it off), and the solve begins it from zero instead of rebasing it as
// if it had held its violation at the penalty they were reached at (rebase_multipliers). Rebased
// so, the Panda's elbow 12 cm from its new target started with the force 1e5 x 0.12 m pulling
// it, and after 10 iterations stood 1.08 m off (the workbench's humanoid, its hard balance
// turned on again after 120 frames, had its hard feet give way by 0.27-0.66 m for three frames).
TEST_F(Panda, AHardObjectiveTurnedOnStartsFromNoForce) {
  const int link4 = model->find_body("panda_link4");
  IkProblem pr(model);
  const int pose = pr.add_pose(tcp, {0, 0, 0}, {1.0, true});
  pr.set_target_pose(pose, 0, test::reachable_poses(*model, tcp, 1, 31)[0]);
  std::vector<double> rest = q_mid;
  rest[0] = 2.0;  // pulls against the hard pose: its multipliers hold a force
  PostureOptions po;
  po.weight = 1.0;
  pr.add_posture(rest, po);
  const int elbow = pr.add_position(link4, {0, 0, 0}, {1.0, true});
  pr.set_enabled(elbow, false);
  SolverSettings s;
  s.max_restarts = 10;
  s.max_iterations = 300;
  s.al_mu_init = 1e5;  // as a workbench frame carries it after a long compromise
  const ProblemResult r = solve(pr, s, q_mid).problems[0];
  ASSERT_TRUE(r.converged);

  // the elbow's target where another posture puts it with the same hand pose (reachable)
  IkProblem other(model);
  other.set_target_pose(other.add_pose(tcp, {0, 0, 0}, {1.0, true}), 0, pr.target(pose, 0));
  std::vector<double> rest2 = q_mid;
  rest2[2] = -1.0;
  other.add_posture(rest2, po);
  const Vec3<double> target = link_pose(*model, solve(other, s, q_mid).problems[0].q, link4).p;
  const double off = length(target - link_pose(*model, r.q, link4).p);
  ASSERT_GT(off, 0.05);
  pr.set_target_position(elbow, 0, target);
  pr.set_enabled(elbow, true);

  WarmStart warm;
  warm.multipliers = r.multipliers;
  warm.penalty = r.penalty;
  s.al_mu_init = 100;
  s.max_restarts = 0;
  SolveResult again;
  s.max_iterations = 10;
  make_cpu_solver()->solve(pr, s, r.q, warm, again);
  EXPECT_LT(again.problems[0].constraint_violation, off);  // 0.058 m (1.08 m rebased)
  s.max_iterations = 60;
  make_cpu_solver()->solve(pr, s, r.q, warm, again);
  EXPECT_LT(again.problems[0].constraint_violation, 1e-2);  // 3.7e-4 m (0.089 m rebased)
}

TEST_F(Panda, OnlyHardConstraintsStillSolve) {
  const int P = 6;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp, {0, 0, 0}, {1.0, true});
  pr.set_target_poses(obj, test::reachable_poses(*model, tcp, P, 41));
  SolverSettings s;
  s.max_restarts = 10;
  s.tol_constraint = 1e-6;
  SolveResult res = solve(pr, s, q_mid);
  for (int p = 0; p < P; ++p) {
    EXPECT_TRUE(res.problems[p].converged) << p;
    EXPECT_LE(res.problems[p].constraint_violation, 1e-6);
    Transform<double> x = link_pose(*model, res.problems[p].q, tcp);
    EXPECT_LE(length(x.p - pr.target(obj, p).p), 1e-6);
  }
}

TEST_F(Panda, HardLimitsAreNeverViolated) {
  const int P = 24;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (int p = 0; p < P; ++p)  // random poses, many unreachable
    pr.set_target_pose(
        obj, p, {{u(rng), u(rng), u(rng) + 0.4}, quat_exp(Vec3<double>{u(rng), u(rng), u(rng)})});
  std::vector<double> q0 = q_mid;
  q0[3] = 0.5;  // the initial configuration itself beyond a limit
  q0[5] = -1.0;
  for (int variant = 0; variant < 3; ++variant) {
    SolverSettings s;
    s.optimizer = variant == 1 ? Optimizer::kLbfgs : Optimizer::kLevenbergMarquardt;
    s.use_float = variant == 2;  // float limits are rounded inward
    s.n_seeds = 3;
    s.sampler = Sampler::kGaussian;
    s.gaussian_sigma = 1.0;
    s.solve_all_seeds = true;
    s.max_restarts = 2;
    s.max_iterations = 60;
    SolveResult res = solve(pr, s, q0);
    for (const auto& r : res.problems) test::expect_within_limits(*model, r.q);
    for (int row = 0; row < P * s.n_seeds; ++row)
      test::expect_within_limits(
          *model, std::vector<double>(res.row_q.begin() + row * model->coord_count,
                                      res.row_q.begin() + (row + 1) * model->coord_count));
  }
}

// max_step: one iteration toward a far target moves no dof by more than the cap; without the
// cap the same iteration's Gauss-Newton step is longer (else the test would not test the cap)
TEST_F(Panda, MaxStepBoundsEveryDofOfAStep) {
  IkProblem pr(model);
  int obj = pr.add_pose(tcp);
  pr.set_target_pose(obj, 0, {{-0.3, 0.5, 0.2}, quat_from_rpy(0.4, -2.5, 1.0)});
  auto largest_move = [&](double cap, double damping) {
    SolverSettings s;
    s.max_iterations = 1;
    s.fixed_iterations = true;
    s.hard_joint_limits = false;  // a projection onto the limits would shorten it too
    s.lambda_init = damping;
    s.max_step = cap;
    SolveResult res = solve(pr, s, q_mid);
    double big = 0;
    for (int d = 0; d < model->dof_count; ++d)
      big = std::max(big, std::abs(res.problems[0].q[d] - q_mid[d]));
    return big;
  };
  EXPECT_GT(largest_move(0.0, 1e-6), 0.3);
  for (double cap : {0.05, 0.3}) {
    const double moved = largest_move(cap, 1e-6);
    EXPECT_LE(moved, cap * (1 + 1e-12)) << cap;
    EXPECT_GT(moved, 0.5 * cap) << cap << ": the shortened step is taken, not rejected";
  }
}

// --- relative frames: two arms holding one object --------------------------------------

struct TwoArms : ::testing::Test {
  std::shared_ptr<Model> model = std::make_shared<Model>(test::two_pandas());
  int left = model->find_body("left_hand_tcp");
  int right = model->find_body("right_hand_tcp");
  std::vector<double> q_mid = model->middle_configuration();

  // a grasp both hands can hold: hands 0.25 m apart, facing each other, in front of the torso
  void grasp(Transform<double>* left_target, Transform<double>* relative, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-0.1, 0.1);
    Vec3<double> c{0.45 + u(rng), u(rng), 0.9 + u(rng)};
    // left hand: z (approach) along -y, so it faces the right hand
    Quat<double> ql = quat_from_rpy(M_PI / 2, 0.0, u(rng));
    *left_target = {c + Vec3<double>{0, 0.125, 0}, ql};
    Transform<double> right_pose{c - Vec3<double>{0, 0.125, 0},
                                 quat_from_rpy(-M_PI / 2, 0.0, u(rng))};
    *relative = inverse(*left_target) * right_pose;
  }
};

// A target on the left hand only: no objective reads the right arm, so every seed and restart
// keeps its dofs where the solve started (drawn, nothing would pull them back, and the answer
// would carry a random right arm); the left arm's seeds are drawn. A posture over every dof
// does not change that (it reads no body); a position target on the right hand does.
TEST_F(TwoArms, SeedsKeepTheDofsNoObjectiveReads) {
  std::vector<double> q0 = q_mid;
  for (int d = 7; d < 14; ++d) q0[d] += 0.1 * (d - 10);
  Transform<double> grip, relative;
  grasp(&grip, &relative, 3);
  for (bool right_target : {false, true}) {
    IkProblem pr(model);
    pr.set_target_pose(pr.add_pose(left), 0, grip);
    pr.add_posture(q0, {0.01});
    if (right_target) pr.set_target_position(pr.add_position(right), 0, {0.4, -0.3, 0.9});
    SolverSettings s;
    s.sampler = Sampler::kUniform;
    s.n_seeds = 4;
    s.max_restarts = 3;
    s.max_iterations = 2;
    s.solve_all_seeds = true;
    SolveResult res = solve(pr, s, q0);
    int left_moved = 0, right_moved = 0;
    for (int row = 1; row < s.n_seeds; ++row) {
      const double* q = res.row_q.data() + row * model->coord_count;
      for (int d = 0; d < 7; ++d) left_moved += std::abs(q[d] - q0[d]) > 0.05;
      for (int d = 7; d < 14; ++d) right_moved += std::abs(q[d] - q0[d]) > 0.05;
    }
    EXPECT_GT(left_moved, 10) << right_target;
    if (right_target)
      EXPECT_GT(right_moved, 10);
    else
      EXPECT_EQ(right_moved, 0);
  }
}

TEST_F(TwoArms, HardRelativeFixedHoldsTheObject) {
  ASSERT_EQ(model->dof_count, 14);
  const int P = 4;
  IkProblem pr(model, P);
  int obj = pr.add_pose(left);
  std::vector<Transform<double>> rels(P);
  for (int p = 0; p < P; ++p) {
    Transform<double> t;
    grasp(&t, &rels[p], 100 + p);
    pr.set_target_pose(obj, p, t);
  }
  SolverSettings s;
  s.max_restarts = 20;
  s.max_iterations = 200;
  s.tol_constraint = 1e-5;
  s.sampler = Sampler::kRoberts;
  for (int p = 0; p < P; ++p) {
    // one relative objective per grasp: solve each problem on its own with its own grasp
    IkProblem one(model);
    int o = one.add_pose(left);
    one.set_target_pose(o, 0, pr.target(obj, p));
    int rel = one.add_relative_fixed(left, right, rels[p], {1.0, true});
    EXPECT_TRUE(one.objective(rel).params.hard);
    SolveResult res = solve(one, s, q_mid);
    const ProblemResult& r = res.problems[0];
    ASSERT_TRUE(r.converged) << p;
    auto poses = test::body_poses(*model, r.q);
    Transform<double> got = inverse(poses[left]) * poses[right];
    EXPECT_LE(length(got.p - rels[p].p), 1e-5) << p;
    EXPECT_LE(test::rotation_angle(got.q, rels[p].q), 1e-5) << p;
    EXPECT_LE(length(poses[left].p - pr.target(obj, p).p), 1e-4) << p;
    test::expect_within_limits(*model, r.q);
  }
}

// adam's soft FIXED frames constraint keeps only the rotation; ours keeps the position too
TEST_F(TwoArms, SoftRelativeFixedKeepsThePosition) {
  Transform<double> t, rel;
  grasp(&t, &rel, 7);
  IkProblem pr(model);
  int obj = pr.add_pose(left);
  pr.set_target_pose(obj, 0, t);
  int o = pr.add_relative_fixed(left, right, rel, {10.0, false});
  EXPECT_FALSE(pr.objective(o).params.hard);
  SolverSettings s;
  s.max_restarts = 20;
  s.max_iterations = 200;
  s.sampler = Sampler::kRoberts;
  SolveResult res = solve(pr, s, q_mid);
  ASSERT_TRUE(res.problems[0].converged);
  auto poses = test::body_poses(*model, res.problems[0].q);
  Transform<double> got = inverse(poses[left]) * poses[right];
  EXPECT_LE(length(got.p - rel.p), 1e-4);
  EXPECT_LE(test::rotation_angle(got.q, rel.q), 1e-3);
  // the start does not satisfy it: the solver moved the right hand into place
  auto p0 = test::body_poses(*model, q_mid);
  EXPECT_GT(length((inverse(p0[left]) * p0[right]).p - rel.p), 0.1);
}

TEST_F(TwoArms, RelativeBallJoinsTwoPoints) {
  Transform<double> t, rel;
  grasp(&t, &rel, 9);
  IkProblem pr(model);
  int obj = pr.add_position(left);
  pr.set_target_position(obj, 0, t.p);
  Vec3<double> off{0, 0, 0.05};
  pr.add_relative_ball(left, off, right, off);
  SolverSettings s;
  s.max_restarts = 20;
  s.sampler = Sampler::kRoberts;
  SolveResult res = solve(pr, s, q_mid);
  ASSERT_TRUE(res.problems[0].converged);
  auto poses = test::body_poses(*model, res.problems[0].q);
  EXPECT_LE(length(transform_point(poses[left], off) - transform_point(poses[right], off)), 1e-4);
}

// an axis with weight zero is left free: the target's z is out of reach, x and y are met
TEST_F(Panda, ZeroAxisWeightsLeaveAxesFree) {
  IkProblem pr(model);
  int obj = pr.add_position(tcp);
  pr.set_target_position(obj, 0, {0.4, 0.3, 5.0});
  pr.set_axis_weights(obj, {1, 1, 0}, {1, 1, 1});
  SolverSettings s;
  s.tol_position = 1e-6;
  SolveResult res = solve(pr, s, q_mid);
  ASSERT_TRUE(res.problems[0].converged);
  Vec3<double> x = link_pose(*model, res.problems[0].q, tcp).p;
  EXPECT_NEAR(x.x, 0.4, 1e-6);
  EXPECT_NEAR(x.y, 0.3, 1e-6);
  EXPECT_LT(x.z, 2.0);
  EXPECT_LE(res.problems[0].position_error, 1e-6);
}

// a hard objective holds the axes its weights keep and leaves an axis of weight zero free, as a
// soft one does: the target's x and y are out of reach, its z is met, and the violation and the
// report count z alone
TEST_F(Panda, ZeroAxisWeightsLeaveAxesFreeOfAHardObjective) {
  IkProblem pr(model);
  const int obj = pr.add_position(tcp, {0, 0, 0}, hard_constraint());
  pr.set_target_position(obj, 0, {3.0, -3.0, 0.4});
  pr.set_axis_weights(obj, {0, 0, 1}, {1, 1, 1});
  SolverSettings s;
  s.tol_constraint = 1e-6;
  SolveResult res = solve(pr, s, q_mid);
  ASSERT_TRUE(res.problems[0].converged);
  EXPECT_LE(res.problems[0].constraint_violation, 1e-6);
  const std::vector<Transform<double>> poses = test::body_poses(*model, res.problems[0].q);
  EXPECT_NEAR(poses[tcp].p.z, 0.4, 1e-6);
  EXPECT_LT(poses[tcp].p.x, 2.0);
  const std::vector<ObjectiveReport> rep = report_objectives(pr, 0, res.problems[0].q, poses, s);
  EXPECT_LE(rep[obj].violation, 1e-6);
  EXPECT_LE(rep[obj].position_error, 1e-6);
  EXPECT_TRUE(rep[obj].reached);
}

// --- minimum distance ------------------------------------------------------------------

TEST_F(Panda, MinDistanceInactiveAndActive) {
  // keep the hand at least 0.3 m from a point in front of the robot (a point on link0,
  // which does not move)
  const Vec3<double> obstacle{0.5, 0.0, 0.5};
  const double d = 0.3;
  const int P = 2;
  IkProblem pr(model, P);
  int obj = pr.add_position(tcp);
  pr.set_target_position(obj, 0, {0.5, 0.45, 0.5});  // 0.45 m away: constraint inactive
  pr.set_target_position(obj, 1, {0.5, 0.1, 0.5});   // 0.1 m away: pushes onto the sphere
  int link0 = model->find_body("panda_link0");
  pr.add_min_distance(tcp, {0, 0, 0}, link0, obstacle, d);
  SolverSettings s;
  s.max_restarts = 5;
  s.tol_constraint = 1e-6;
  s.max_iterations = 300;
  SolveResult res = solve(pr, s, q_mid);
  // inactive: the target is met exactly
  Vec3<double> x0 = link_pose(*model, res.problems[0].q, tcp).p;
  EXPECT_TRUE(res.problems[0].converged);
  EXPECT_LE(length(x0 - pr.target(obj, 0).p), 1e-4);
  EXPECT_GE(length(x0 - obstacle), d);
  // active: the hand stops on the sphere, at the point nearest the target
  Vec3<double> x1 = link_pose(*model, res.problems[1].q, tcp).p;
  EXPECT_FALSE(res.problems[1].converged);  // the position target cannot be met
  EXPECT_GE(length(x1 - obstacle), d - 1e-6);
  EXPECT_LE(res.problems[1].constraint_violation, 1e-6);
  Vec3<double> away = pr.target(obj, 1).p - obstacle;
  Vec3<double> nearest = obstacle + (d / length(away)) * away;
  EXPECT_LE(length(x1 - nearest), 1e-3);
}

// A target inside the keep-out distance with restarts on stalls, as `ikwb solve` and Python
// solve: every seed stalls short of the target, and the one kept still holds the distance to
// its tolerance (a stall near it grows the penalty instead of ending the seed)
TEST_F(Panda, MinDistanceHoldsWhenSeedsStall) {
  const Vec3<double> obstacle{0.5, 0.0, 0.5};
  const double d = 0.3;
  IkProblem pr(model, 1);
  int obj = pr.add_position(tcp);
  pr.set_target_position(obj, 0, {0.5, 0.1, 0.5});
  pr.add_min_distance(tcp, {0, 0, 0}, model->find_body("panda_link0"), obstacle, d);
  SolverSettings s = batch_solve_settings();
  s.max_restarts = 5;
  s.threads = 1;
  SolveResult res = solve(pr, s, q_mid);
  EXPECT_FALSE(res.problems[0].converged);
  EXPECT_LE(res.problems[0].constraint_violation, s.tol_constraint);
  EXPECT_GE(length(link_pose(*model, res.problems[0].q, tcp).p - obstacle), d - s.tol_constraint);
}

// --- custom objectives -----------------------------------------------------------------

TEST_F(Panda, CustomObjectivesByAutodiffAndFiniteDifferences) {
  const int P = 4;
  auto targets = test::reachable_poses(*model, tcp, P, 51);
  // reference: the built-in position objective
  IkProblem ref(model, P);
  int o = ref.add_position(tcp);
  for (int p = 0; p < P; ++p) ref.set_target_position(o, p, targets[p].p);
  SolverSettings s;
  s.tol_position = 1e-6;
  SolveResult want = solve(ref, s, q_mid);
  const int tcp_body = tcp;
  // the same residual as a custom objective: generic lambda (autodiff available) ...
  auto fn = [tcp_body](const Model&, const auto*, const auto* body, auto* r) {
    r[0] = body[tcp_body].p.x, r[1] = body[tcp_body].p.y, r[2] = body[tcp_body].p.z;
  };
  // ... and residual only (finite differences)
  CustomObjective fd_only;
  fd_only.dim = 3;
  fd_only.residual = [tcp_body](const Model&, const double*, const Transform<double>* body,
                                double* r) {
    r[0] = body[tcp_body].p.x, r[1] = body[tcp_body].p.y, r[2] = body[tcp_body].p.z;
  };
  for (int variant = 0; variant < 2; ++variant) {
    for (bool hard : {false, true}) {
      // one problem each: the custom residual has no per-problem target, so fold it in
      for (int p = 0; p < P; ++p) {
        IkProblem pr(model);
        Vec3<double> tg = targets[p].p;
        if (variant == 0) {
          pr.add_custom(make_custom_objective(
                            3,
                            [fn, tg](const Model& m, const auto* q, const auto* body, auto* r) {
                              fn(m, q, body, r);
                              r[0] = r[0] - tg.x, r[1] = r[1] - tg.y, r[2] = r[2] - tg.z;
                            }),
                        {1.0, hard});
        } else {
          CustomObjective c = fd_only;
          auto base = c.residual;
          c.residual = [base, tg](const Model& m, const double* q, const Transform<double>* b,
                                  double* r) {
            base(m, q, b, r);
            r[0] -= tg.x, r[1] -= tg.y, r[2] -= tg.z;
          };
          pr.add_custom(c, {1.0, hard});
        }
        for (JacobianMode mode :
             {JacobianMode::kAnalytic, JacobianMode::kAutodiff, JacobianMode::kFiniteDifference}) {
          SolverSettings sc = s;
          sc.jacobian = mode;
          sc.tol_constraint = 1e-8;
          SolveResult got = solve(pr, sc, q_mid);
          Vec3<double> x = link_pose(*model, got.problems[0].q, tcp).p;
          EXPECT_LE(length(x - tg), hard ? 1e-6 : 1e-3)
              << "variant " << variant << " hard " << hard << " mode " << to_string(mode);
          if (!hard) {
            EXPECT_LE(test::max_abs_diff(got.problems[0].q, want.problems[p].q), 1e-4)
                << "variant " << variant << " mode " << to_string(mode);
          }
        }
      }
    }
  }
}

// --- batching and determinism ----------------------------------------------------------

TEST_F(Panda, BatchEqualsOneByOne) {
  const int P = 6;
  auto targets = test::reachable_poses(*model, tcp, P, 61);
  for (Sampler sampler :
       {Sampler::kNone, Sampler::kUniform, Sampler::kGaussian, Sampler::kRoberts}) {
    IkProblem batch(model, P);
    int obj = batch.add_pose(tcp);
    batch.set_target_poses(obj, targets);
    SolverSettings s;
    s.sampler = sampler;
    s.n_seeds = 3;
    s.max_restarts = 4;
    s.max_iterations = 30;
    s.rng_seed = 42;
    SolveResult all = solve(batch, s, q_mid);
    for (int p = 0; p < P; ++p) {
      IkProblem one(model);
      int o = one.add_pose(tcp);
      one.set_target_pose(o, 0, targets[p]);
      SolveResult r = solve(one, s, q_mid);
      EXPECT_EQ(r.problems[0].q, all.problems[p].q) << to_string(sampler) << " problem " << p;
      EXPECT_EQ(r.problems[0].seed, all.problems[p].seed) << to_string(sampler);
      EXPECT_EQ(r.problems[0].iterations, all.problems[p].iterations) << to_string(sampler);
      EXPECT_EQ(r.problems[0].converged, all.problems[p].converged) << to_string(sampler);
    }
  }
}

TEST_F(Panda, SameRngSeedIsBitwiseDeterministicAcrossThreadCounts) {
  const int P = 10;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp);
  pr.set_target_poses(obj, test::reachable_poses(*model, tcp, P, 71));
  for (bool all_seeds : {false, true}) {
    SolverSettings s;
    s.sampler = Sampler::kUniform;
    s.n_seeds = 4;
    s.max_restarts = 3;
    s.max_iterations = 25;
    s.rng_seed = 1234;
    s.solve_all_seeds = all_seeds;
    s.threads = 1;
    SolveResult a = solve(pr, s, q_mid);
    s.threads = 2;
    SolveResult b = solve(pr, s, q_mid);
    SolveResult c = solve(pr, s, q_mid);
    EXPECT_EQ(a.row_q, b.row_q);
    EXPECT_EQ(b.row_q, c.row_q);
    EXPECT_EQ(a.row_converged, b.row_converged);
    for (int p = 0; p < P; ++p) {
      EXPECT_EQ(a.problems[p].q, b.problems[p].q);
      EXPECT_EQ(a.problems[p].seed, b.problems[p].seed);
      EXPECT_EQ(a.problems[p].total_iterations, b.problems[p].total_iterations);
    }
    // another rng_seed gives other seeds
    s.rng_seed = 99;
    SolveResult d = solve(pr, s, q_mid);
    EXPECT_NE(d.row_q, b.row_q);
  }
}

// --- dof mask, seed choice ---------------------------------------------------------------

TEST_F(Panda, DofMaskFreezesJointsExactly) {
  const int P = 6;
  IkProblem pr(model, P);
  int obj = pr.add_position(tcp);
  pr.set_target_positions(obj, {{0.4, 0.2, 0.5},
                                {0.3, -0.3, 0.3},
                                {0.5, 0.0, 0.7},
                                {0.2, 0.4, 0.6},
                                {2.0, 0.0, 0.0},
                                {0.1, 0.1, 0.1}});
  std::vector<uint8_t> mask(model->dof_count, 1);
  mask[0] = mask[3] = mask[6] = 0;
  pr.set_dof_mask(mask);
  std::vector<double> q0 = q_mid;
  q0[0] = 0.3, q0[3] = -1.0, q0[6] = 0.7;
  for (Sampler sampler :
       {Sampler::kNone, Sampler::kUniform, Sampler::kGaussian, Sampler::kRoberts}) {
    for (Optimizer opt : {Optimizer::kLevenbergMarquardt, Optimizer::kLbfgs}) {
      SolverSettings s;
      s.sampler = sampler;
      s.optimizer = opt;
      s.n_seeds = 3;
      s.max_restarts = 2;
      s.max_iterations = 40;
      s.solve_all_seeds = true;
      SolveResult res = solve(pr, s, q0);
      for (int row = 0; row < P * s.n_seeds; ++row)
        for (int d : {0, 3, 6})
          EXPECT_EQ(res.row_q[row * model->coord_count + d], q0[d])
              << to_string(sampler) << " " << to_string(opt) << " row " << row << " dof " << d;
      // the free joints did move
      EXPECT_NE(res.problems[0].q[1], q0[1]);
    }
  }
}

TEST(DofMaskZoo, FrozenFreeRootStaysPut) {
  auto model = std::make_shared<Model>(test::all_joint_types(true, {30.0, -20.0, 15.0}));
  IkProblem pr(model);
  int g = model->find_body("g");
  int obj = pr.add_position(g);
  std::mt19937 rng(2);
  auto q0 = test::random_configuration(*model, rng);
  auto qt = test::random_configuration(*model, rng);
  pr.set_target_position(obj, 0, test::link_pose(*model, qt, g).p);
  std::vector<uint8_t> mask(model->dof_count, 1);
  for (int d = 0; d < 6; ++d) mask[d] = 0;  // the free root
  pr.set_dof_mask(mask);
  SolverSettings s;
  s.sampler = Sampler::kUniform;
  s.n_seeds = 3;
  s.max_restarts = 2;
  s.solve_all_seeds = true;
  SolveResult res = solve(pr, s, q0);
  for (int row = 0; row < s.n_seeds; ++row)
    for (int i = 0; i < 7; ++i)
      EXPECT_NEAR(res.row_q[row * model->coord_count + i], q0[i], 1e-15) << row << " " << i;
}

TEST_F(Panda, PreferClosestPicksTheNearestConvergedSeed) {
  const int P = 4;
  IkProblem pr(model, P);
  int obj = pr.add_position(tcp);  // position only: many solutions
  pr.set_target_positions(obj,
                          {{0.4, 0.2, 0.5}, {0.3, -0.3, 0.3}, {0.5, 0.0, 0.7}, {0.2, 0.4, 0.6}});
  SolverSettings s;
  s.sampler = Sampler::kUniform;
  s.n_seeds = 8;
  s.prefer_closest = true;
  s.rng_seed = 3;
  std::vector<double> q0 = q_mid;
  q0[1] = 0.3;
  SolveResult res = solve(pr, s, q0);
  const int nq = model->coord_count;
  for (int p = 0; p < P; ++p) {
    const ProblemResult& r = res.problems[p];
    ASSERT_TRUE(r.converged);
    int best = -1;
    double best_d = 1e300;
    int n_conv = 0;
    for (int seed = 0; seed < s.n_seeds; ++seed) {
      int row = p * s.n_seeds + seed;
      if (!res.row_converged[row]) continue;
      ++n_conv;
      std::vector<double> q(res.row_q.begin() + row * nq, res.row_q.begin() + (row + 1) * nq);
      double d = test::norm(test::difference(*model, q, q0));
      if (d < best_d) best_d = d, best = seed;
    }
    EXPECT_GT(n_conv, 1);  // a real choice
    EXPECT_EQ(r.seed, best) << p;
    EXPECT_NEAR(test::norm(test::difference(*model, r.q, q0)), best_d, 1e-12);
  }
}

// --- float mode ------------------------------------------------------------------------

TEST_F(Panda, FloatModeMatchesDouble) {
  const int P = 8;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp);
  pr.set_target_poses(obj, test::reachable_poses(*model, tcp, P, 81));
  pr.add_posture(q_mid, {0.1});  // a unique, well-conditioned minimiser
  SolverSettings s;
  s.fixed_iterations = true;  // both run to the minimiser instead of stopping at a tolerance
  s.max_iterations = 60;
  SolveResult d = solve(pr, s, q_mid);
  s.use_float = true;
  SolveResult f = solve(pr, s, q_mid);
  for (int p = 0; p < P; ++p) {
    // float stops where the cost decrease drowns in rounding, eps_f * cost ~ 6e-8 * 0.05; the
    // flattest direction has curvature ~ 0.1^2, so q is good to sqrt(2 * 3e-9 / 0.01) ~ 8e-4
    EXPECT_LE(test::max_abs_diff(f.problems[p].q, d.problems[p].q), 2e-3) << p;
    EXPECT_NEAR(f.problems[p].position_error, d.problems[p].position_error, 2e-4) << p;
    EXPECT_NEAR(f.problems[p].cost, d.problems[p].cost, 1e-5 * (1 + d.problems[p].cost)) << p;
    test::expect_within_limits(*model, f.problems[p].q);
  }
}

TEST_F(Panda, FloatModeConvergesToFloatTolerance) {
  const int P = 12;
  IkProblem pr(model, P);
  int obj = pr.add_pose(tcp);
  pr.set_target_poses(obj, test::reachable_poses(*model, tcp, P, 82));
  SolverSettings s;
  s.use_float = true;
  s.max_restarts = 20;
  s.tol_position = 1e-4;
  s.tol_rotation = 1e-3;
  SolveResult f = solve(pr, s, q_mid);
  for (int p = 0; p < P; ++p) {
    ASSERT_TRUE(f.problems[p].converged) << p;
    Transform<double> x = link_pose(*model, f.problems[p].q, tcp);
    // judged again in double: the reported error is the double one, within the tolerance
    EXPECT_LE(length(x.p - pr.target(obj, p).p), 1e-4);
    EXPECT_NEAR(f.problems[p].position_error, length(x.p - pr.target(obj, p).p), 1e-12);
  }
}

// Tolerances at float's resolution: every problem a float solve calls converged meets them in
// double, and the errors it reports are double's (before, most of those flags were float's
// rounding: 1193 of 1409 UR5e targets at 1e-7 missed it in double)
TEST_F(Panda, FloatModeFlagsHoldInDoubleAtTightTolerances) {
  const int P = 40;
  IkProblem pr(model, P);
  int obj = pr.add_position(tcp);
  std::vector<Vec3<double>> targets;
  for (const Transform<double>& x : test::reachable_poses(*model, tcp, P, 83))
    targets.push_back(x.p);
  pr.set_target_positions(obj, targets);
  SolverSettings s;
  s.use_float = true;
  s.max_restarts = 5;
  s.tol_position = 1e-7;
  SolveResult f = solve(pr, s, q_mid);
  int converged = 0;
  for (int p = 0; p < P; ++p) {
    const double err = length(link_pose(*model, f.problems[p].q, tcp).p - targets[p]);
    EXPECT_NEAR(f.problems[p].position_error, err, 1e-12) << p;
    if (!f.problems[p].converged) continue;
    ++converged;
    EXPECT_LE(err, 1e-7) << p;
  }
  EXPECT_GT(converged, 0);
}

// --- null-space posture ----------------------------------------------------------------

// P reachable position targets on the tool and a null-space posture toward a rest away from the
// middle configuration
struct PandaNullSpace : Panda {
  static constexpr int P = 6;
  IkProblem pr{model, P};
  std::vector<Transform<double>> targets = test::reachable_poses(*model, tcp, P, 91);
  std::vector<double> rest = q_mid;
  int post = -1;
  void SetUp() override {
    int obj = pr.add_position(tcp);
    for (int p = 0; p < P; ++p) pr.set_target_position(obj, p, targets[p].p);
    rest[2] = 1.2, rest[4] = -1.0;
    post = pr.add_posture(rest, {1.0, true});
  }
};

TEST_F(PandaNullSpace, PostureMovesTowardRestWithoutDisturbingTheTask) {
  SolverSettings s;
  s.tol_position = 1e-6;
  s.max_iterations = 200;
  SolveResult with = solve(pr, s, q_mid);
  pr.set_enabled(post, false);
  SolveResult without = solve(pr, s, q_mid);
  int closer = 0;
  for (int p = 0; p < P; ++p) {
    ASSERT_TRUE(with.problems[p].converged) << p;
    ASSERT_TRUE(without.problems[p].converged) << p;
    Vec3<double> x = link_pose(*model, with.problems[p].q, tcp).p;
    EXPECT_LE(length(x - targets[p].p), 1e-6) << p;
    double dw = test::norm(test::difference(*model, with.problems[p].q, rest));
    double dn = test::norm(test::difference(*model, without.problems[p].q, rest));
    EXPECT_LE(dw, dn + 1e-9) << p;
    closer += dw < dn - 1e-2;
    // the null-space posture is not a cost row
    EXPECT_LT(with.problems[p].cost, 1e-10);
  }
  EXPECT_GE(closer, P / 2);
}

// settle_iterations stops a seed whose task has converged after that many posture iterations,
// reporting settling; solving again from where it stopped carries the posture on, to where one
// solve without the limit takes it
TEST_F(PandaNullSpace, SettleIterationsSpreadThePostureOverSolves) {
  SolverSettings s;
  s.max_iterations = 200;
  SolveResult whole = solve(pr, s, q_mid);
  s.settle_iterations = 2;
  SolveResult part = solve(pr, s, q_mid);
  const int nq = model->coord_count;
  int settling = 0, solves = 1;
  for (int p = 0; p < P; ++p) {
    ASSERT_TRUE(whole.problems[p].converged) << p;
    EXPECT_FALSE(whole.problems[p].settling) << p;
    ASSERT_TRUE(part.problems[p].converged) << p;
    settling += part.problems[p].settling;
    if (part.problems[p].settling) {
      EXPECT_LT(part.problems[p].iterations, whole.problems[p].iterations) << p;
    }
  }
  EXPECT_GE(settling, P / 2);
  // solve again from where each stopped while a posture is settling and the solves still move
  // it (a posture whose step the task undoes reports settling without moving: the workbench
  // rests there too, SolverDriver's kSettleMotion)
  auto any_settling = [&] {
    for (const ProblemResult& r : part.problems)
      if (r.settling) return true;
    return false;
  };
  double moved = 1;
  while (any_settling() && moved > 1e-8 && solves < 100) {
    std::vector<double> q;
    for (const ProblemResult& r : part.problems) q.insert(q.end(), r.q.begin(), r.q.end());
    ASSERT_EQ(q.size(), std::size_t(P * nq));
    part = solve(pr, s, q);
    ++solves;
    moved = 0;
    for (int p = 0; p < P; ++p) {
      ASSERT_TRUE(part.problems[p].converged) << p << " solve " << solves;
      EXPECT_LE(length(link_pose(*model, part.problems[p].q, tcp).p - targets[p].p),
                s.tol_position);
      for (int i = 0; i < nq; ++i)
        moved = std::max(moved, std::abs(part.problems[p].q[i] - q[std::size_t(p) * nq + i]));
    }
  }
  EXPECT_LT(solves, 100);
  EXPECT_GT(solves, 2);
  // the posture ends where one solve without the limit took it: both stop once a posture step
  // is below 1e-5 rad, at gain 0.5 about 2e-5 rad from the settled point in each dof (measured:
  // configurations up to 8e-5 apart, distances to the rest up to 6e-6)
  for (int p = 0; p < P; ++p) {
    double dw = test::norm(test::difference(*model, whole.problems[p].q, rest));
    double dp = test::norm(test::difference(*model, part.problems[p].q, rest));
    EXPECT_NEAR(dp, dw, 1e-4) << p;
    EXPECT_LE(test::norm(test::difference(*model, part.problems[p].q, whole.problems[p].q)), 1e-3)
        << p;
  }
}

// A weak null-space posture (weight 0.01: each posture step moved 0.5% of the way to the rest)
// settles within 200 iterations: settling without a cap boosts its steps, and the task's
// curvature (a boosted step must keep the tool within tol_position) limits them. Settled is
// judged independently of the solver: the posture's pull q - rest, less its part the task's
// Jacobian can see (projected with an SVD pseudo-inverse), vanishes at the null-space optimum;
// dofs on a limit, where the optimum is a corner, are left out of the projection. The row calls
// the posture settled once its step at the nominal gain is below 1e-5 rad, a pull of 1e-5 / 0.005
// = 2e-3 rad; the bound is twice that (the solver's projection is damped, the test's is not).
// Measured: 0.9e-3-2.0e-3 rad in 61-182 iterations, against 0.31-1.0 rad after 200 unboosted
// steps.
TEST_F(PandaNullSpace, AWeakPostureSettlesWithinABatchRow) {
  pr.set_weight(post, 0.01);
  SolverSettings s;
  s.max_iterations = 200;
  s.settle_iterations = 0;
  const SolveResult r = solve(pr, s, q_mid);
  const ProblemView<double> pv = pr.view();
  const int nv = model->dof_count;
  for (int p = 0; p < P; ++p) {
    const ProblemResult& row = r.problems[p];
    ASSERT_TRUE(row.converged) << p;
    EXPECT_FALSE(row.settling) << p;
    EXPECT_LT(row.iterations, 200) << p;
    const std::vector<double> J = test::fd_jacobian(pv, 0, p, row.q, 1e-6);
    const std::vector<double> pull = test::difference(*model, row.q, rest);
    std::vector<int> free;
    for (int a = 0; a < nv; ++a)
      if (row.q[a] > model->dof_lower[a] + 1e-6 && row.q[a] < model->dof_upper[a] - 1e-6)
        free.push_back(a);
    const int nf = int(free.size());
    Eigen::MatrixXd Jf(3, nf);
    Eigen::VectorXd d(nf);
    for (int c = 0; c < nf; ++c) {
      for (int k = 0; k < 3; ++k) Jf(k, c) = J[std::size_t(k) * nv + free[c]];
      d(c) = pull[free[c]];
    }
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Jf, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::VectorXd seen = svd.matrixV() * (svd.matrixV().transpose() * d);
    EXPECT_LT((d - seen).lpNorm<Eigen::Infinity>(), 4e-3) << p;
  }
}

// --- bad input -------------------------------------------------------------------------

template <class F>
void expect_invalid(F f, const char* word) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning " << word;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
  }
}

// --- continuous joints ---------------------------------------------------------------------

// tests/data/robots/turntable_arm.urdf: the turntable and the wrist roll are continuous, and the
// roll does not move the tool point; the spinner is continuous too, but the gear follows it at
// half its angle, so a turn of it is another pose
struct Turntable : ::testing::Test {
  std::shared_ptr<const Model> model =
      load_urdf_file(IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf").model;
  int tool = model->find_body("tool");
  int tooth = model->find_body("gear_tooth");
  int coord(const char* joint) const { return model->joint_q_start[model->find_joint(joint)]; }
};

// the posture alone decides the roll: from 3.1 rad toward a rest of -3.1 rad is 0.08 rad across
// pi, which four iterations cover (the null-space step halves what is left each time); the long
// way round, 6.2 rad at most max_step = 1 rad an iteration, would still be 2 rad from the rest
TEST_F(Turntable, PosturePullsAContinuousJointTheShortWay) {
  std::vector<double> q0 = model->middle_configuration(), rest = q0;
  q0[coord("wrist_roll")] = 3.1;
  rest[coord("wrist_roll")] = -3.1;
  for (bool null_space : {false, true}) {
    IkProblem pr(model);
    int obj = pr.add_position(tool);
    pr.set_target_position(obj, 0, link_pose(*model, q0, tool).p);
    pr.add_posture(rest, {1.0, null_space});
    SolverSettings s;
    s.max_iterations = 4;
    s.settle_iterations = 4;
    SolveResult r = solve(pr, s, q0);
    EXPECT_NEAR(std::remainder(r.problems[0].q[coord("wrist_roll")] + 3.1, 2 * M_PI), 0.0, 0.01)
        << "null space " << null_space;
    EXPECT_LE(r.problems[0].position_error, 1e-9) << "null space " << null_space;
  }
}

// answers come back with the continuous joints' angles in (-pi, pi], every seed's too, and the
// same poses as the solve found (the errors it reports are those of the answer's FK); the
// spinner, whose turn is another pose of the gear, comes back as solved
TEST_F(Turntable, AnswersComeBackInRangeWithTheirPoses) {
  std::vector<double> q0 = model->middle_configuration();
  q0[coord("turntable")] = 7.48;
  q0[coord("wrist_roll")] = -12.0;
  q0[coord("spinner")] = 7.0;
  std::vector<double> goal = q0;
  goal[coord("turntable")] += 0.3;
  goal[coord("shoulder")] = 0.4;
  IkProblem pr(model);
  int at_tool = pr.add_position(tool);
  pr.set_target_position(at_tool, 0, link_pose(*model, goal, tool).p);
  int at_tooth = pr.add_position(tooth);
  pr.set_target_position(at_tooth, 0, link_pose(*model, goal, tooth).p);
  SolverSettings s;
  s.n_seeds = 4;
  s.sampler = Sampler::kGaussian;
  s.solve_all_seeds = true;
  SolveResult r = solve(pr, s, q0);
  const ProblemResult& p = r.problems[0];
  ASSERT_TRUE(p.converged);
  for (int row = 0; row < r.n_seeds; ++row) {
    for (const char* joint : {"turntable", "wrist_roll"}) {
      const double v = r.row_q[std::size_t(row) * model->coord_count + coord(joint)];
      EXPECT_GT(v, -M_PI) << joint << " seed " << row;
      EXPECT_LE(v, M_PI) << joint << " seed " << row;
    }
  }
  // the targets fix the turntable up to turns, the spinner up to two turns (0.1 mm at 0.13 m
  // from its axis is 1e-3 rad)
  EXPECT_NEAR(std::remainder(p.q[coord("turntable")] - 7.78, 2 * M_PI), 0.0, 1e-3);
  EXPECT_NEAR(p.q[coord("spinner")], 7.0, 1e-3);
  State at(*model);
  eval_fk(*model, p.q, {}, at);
  const std::vector<ObjectiveReport> reports = report_objectives(pr, 0, p.q, at.body_q, s);
  EXPECT_NEAR(std::max(reports[at_tool].position_error, reports[at_tooth].position_error),
              p.position_error, 1e-12);
  EXPECT_LE(p.position_error, s.tol_position);
}

// An elbow whose limits are [-pi, pi] is held at one of them by a descent that the other side
// of the turn would take on: a stalled attempt turns it over (lm_turn_over_limits) instead of
// restarting elsewhere. 100 pose targets with the elbow within 0.15 rad of +-pi, the batch
// defaults: every one converges, with a third of the iterations (92 a target before, where most
// attempts gave up at the limit and restarted), each answer within the limits.
TEST(TurnOver, AnElbowHeldAtAHalfTurnLimitTurnsOverInsteadOfRestarting) {
  const std::string urdf = R"(<robot name="elbow"><link name="base"/><link name="l1"/>
<link name="l2"/><link name="l3"/><link name="l4"/><link name="l5"/><link name="tip"/>
<joint name="yaw" type="continuous"><parent link="base"/><child link="l1"/>
<origin xyz="0 0 0.1"/><axis xyz="0 0 1"/></joint>
<joint name="shoulder" type="revolute"><parent link="l1"/><child link="l2"/>
<origin xyz="0 0 0.3" rpy="0.2 0 0"/><axis xyz="0 1 0"/>
<limit lower="0.2" upper="0.6" effort="1" velocity="1"/></joint>
<joint name="elbow" type="revolute"><parent link="l2"/><child link="l3"/><origin xyz="0.05 0 0.4"/>
<axis xyz="0 1 0"/><limit lower="-3.141592653589793" upper="3.141592653589793" effort="1"
velocity="1"/></joint>
<joint name="roll" type="continuous"><parent link="l3"/><child link="l4"/>
<origin xyz="0.3 0 0" rpy="0 0.3 0.1"/><axis xyz="0.6 0 0.8"/></joint>
<joint name="wrist" type="revolute"><parent link="l4"/><child link="l5"/>
<origin xyz="0.2 0.02 0" rpy="0.1 -0.2 0.3"/><axis xyz="0 0 1"/>
<limit lower="-2" upper="2.5" effort="1" velocity="1"/></joint>
<joint name="flange" type="fixed"><parent link="l5"/><child link="tip"/>
<origin xyz="0.1 0 0.05" rpy="0.3 0.2 0.1"/></joint></robot>)";
  UrdfOptions opt;
  opt.load_meshes = false;
  std::shared_ptr<const Model> model = load_urdf_string(urdf, "elbow.urdf", "", opt).model;
  const int tip = model->find_body("tip");
  const int elbow = model->joint_q_start[model->find_joint("elbow")];
  const int P = 100;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> near(0.0, 0.15);
  std::vector<Transform<double>> targets;
  for (int p = 0; p < P; ++p) {
    std::vector<double> q = test::random_configuration(*model, rng);
    q[std::size_t(elbow)] = p % 2 ? M_PI - near(rng) : -M_PI + near(rng);
    targets.push_back(link_pose(*model, q, tip));
  }
  IkProblem pr(model, P);
  pr.set_target_poses(pr.add_pose(tip), targets);
  auto mean_iterations = [&](const SolverSettings& s) {
    SolveResult r = solve(pr, s, model->middle_configuration());
    long iterations = 0;
    for (int p = 0; p < P; ++p) {
      const ProblemResult& res = r.problems[std::size_t(p)];
      EXPECT_TRUE(res.converged) << p;
      test::expect_within_limits(*model, res.q);
      iterations += res.iterations;
    }
    return double(iterations) / P;
  };
  SolverSettings s = batch_solve_settings();
  EXPECT_LT(mean_iterations(s), 45.0);
  // off by its setting, and with prefer_closest (which keeps the answer nearest the start)
  s.turn_over_limits = false;
  EXPECT_GT(mean_iterations(s), 60.0);
  s.turn_over_limits = true;
  s.prefer_closest = true;
  EXPECT_GT(mean_iterations(s), 60.0);
}

TEST_F(Panda, BadInputThrows) {
  IkProblem pr(model, 2);
  pr.add_pose(tcp);
  auto solver = make_cpu_solver();
  SolveResult res;
  SolverSettings ok;
  expect_invalid([&] { solver->solve(pr, ok, std::vector<double>(3, 0.0), res); }, "q_init");
  expect_invalid([&] { solver->solve(pr, ok, std::vector<double>(7 * 3, 0.0), res); }, "q_init");
  std::vector<double> q = q_mid;
  q[2] = std::numeric_limits<double>::quiet_NaN();
  expect_invalid([&] { solver->solve(pr, ok, q, res); }, "q_init");
  q[2] = std::numeric_limits<double>::infinity();
  expect_invalid([&] { solver->solve(pr, ok, q, res); },
                 "q_init has a non-finite value (inf) at coordinate 2 (joint 'panda_joint3')");
  // one start per problem: the problem is named too
  std::vector<double> rows = q_mid;
  rows.insert(rows.end(), q_mid.begin(), q_mid.end());
  rows[q_mid.size() + 6] = std::numeric_limits<double>::quiet_NaN();
  expect_invalid([&] { solver->solve(pr, ok, rows, res); },
                 "at problem 1, coordinate 6 (joint 'panda_joint7')");

  struct Case {
    const char* word;
    void (*edit)(SolverSettings&);
  } cases[] = {
      {"n_seeds", [](SolverSettings& s) { s.n_seeds = 0; }},
      {"n_seeds", [](SolverSettings& s) { s.n_seeds = -2; }},
      {"max_iterations", [](SolverSettings& s) { s.max_iterations = -1; }},
      {"max_restarts", [](SolverSettings& s) { s.max_restarts = -1; }},
      {"tol_position", [](SolverSettings& s) { s.tol_position = -1e-4; }},
      {"tol_rotation", [](SolverSettings& s) { s.tol_rotation = 0; }},
      {"tol_constraint", [](SolverSettings& s) { s.tol_constraint = -1; }},
      {"tol_position",
       [](SolverSettings& s) { s.tol_position = std::numeric_limits<double>::quiet_NaN(); }},
      {"lambda_init", [](SolverSettings& s) { s.lambda_init = -1; }},
      {"gaussian_sigma", [](SolverSettings& s) { s.gaussian_sigma = -0.1; }},
      {"lbfgs_memory", [](SolverSettings& s) { s.lbfgs_memory = 0; }},
      {"al_inner_iterations", [](SolverSettings& s) { s.al_inner_iterations = 0; }},
      {"al_mu_init", [](SolverSettings& s) { s.al_mu_init = 0; }},
      {"al_mu_growth", [](SolverSettings& s) { s.al_mu_growth = 0.5; }},
      {"al_mu_max", [](SolverSettings& s) { s.al_mu_max = -1; }},
      {"time_budget_s", [](SolverSettings& s) { s.time_budget_s = -1; }},
      {"stall_window", [](SolverSettings& s) { s.stall_window = -1; }},
      {"settle_iterations", [](SolverSettings& s) { s.settle_iterations = -2; }},
      {"threads", [](SolverSettings& s) { s.threads = -1; }},
      {"null_space_gain",
       [](SolverSettings& s) { s.null_space_gain = std::numeric_limits<double>::infinity(); }},
      {"max_step", [](SolverSettings& s) { s.max_step = -0.5; }},
      {"max_step",
       [](SolverSettings& s) { s.max_step = std::numeric_limits<double>::quiet_NaN(); }},
  };
  for (const Case& c : cases) {
    SolverSettings s;
    c.edit(s);
    expect_invalid([&] { solver->solve(pr, s, q_mid, res); }, c.word);
  }
}

TEST(BadInputZoo, ZeroQuaternionInInitialConfiguration) {
  auto model = std::make_shared<Model>(test::all_joint_types());
  IkProblem pr(model);
  pr.add_position(1);
  std::vector<double> q = model->neutral_configuration();
  for (int i = 3; i < 7; ++i) q[i] = 0;  // the free root's quaternion
  SolveResult res;
  expect_invalid([&] { make_cpu_solver()->solve(pr, SolverSettings(), q, res); }, "q_init");
  // a slightly drifted one is renormalised and solves
  q[6] = 1.01;
  make_cpu_solver()->solve(pr, SolverSettings(), q, res);
  EXPECT_NEAR(quat_norm(Quat<double>{res.problems[0].q[3], res.problems[0].q[4],
                                     res.problems[0].q[5], res.problems[0].q[6]}),
              1.0, 1e-12);
}

}  // namespace
}  // namespace ikwb
