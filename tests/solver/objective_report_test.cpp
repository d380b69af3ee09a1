// Tests for solver/objective_report: each objective's errors come from its residual rows as the
// solver counts them (axes of weight 0 left out), judged with the solver's tolerances, and agree
// with the solver's own result.
#include "solver/objective_report.hpp"

#include <gtest/gtest.h>

#include <random>

#include "engine/core/fk.hpp"
#include "solver/preset_problem.hpp"
#include "solver/solver_test_util.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

struct Report : ::testing::Test {
  std::shared_ptr<const Model> m = std::make_shared<const Model>(test::panda());
  int tcp = m->find_body("panda_hand_tcp");
  std::vector<double> q = m->neutral_configuration();
  State fk{*m};
  void SetUp() override { eval_fk(*m, q, {}, fk); }
};

TEST_F(Report, ErrorsAreTheRowsNormsWithFreeAxesLeftOut) {
  IkProblem p(m);
  int pose = p.add_pose(tcp);
  int limits = p.add_joint_limits();
  int posture = p.add_posture(m->neutral_configuration(), {0.1});
  Transform<double> x = fk.body_q[tcp];
  Transform<double> t = {x.p + Vec3<double>{0.003, 0.004, 0.2},
                         quat_from_axis_angle(Vec3<double>{0, 0, 1}, 0.1) * x.q};
  p.set_target_pose(pose, 0, t);
  SolverSettings tol;
  std::vector<ObjectiveReport> r = report_objectives(p, 0, q, fk.body_q, tol);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[pose].position_error, std::sqrt(0.003 * 0.003 + 0.004 * 0.004 + 0.04), 1e-12);
  EXPECT_NEAR(r[pose].rotation_error, 0.1, 1e-12);
  EXPECT_FALSE(r[pose].reached);
  EXPECT_LT(length(r[pose].current.p - x.p), 1e-15);
  EXPECT_TRUE(r[limits].reached);
  EXPECT_EQ(r[limits].violation, 0.0);
  EXPECT_EQ(r[posture].deviation, 0.0);
  // z and the rotation about z left free: what is left is within 5 mm, not 1 mm
  p.set_axis_weights(pose, {1, 1, 0}, {1, 1, 0});
  r = report_objectives(p, 0, q, fk.body_q, tol);
  EXPECT_NEAR(r[pose].position_error, 0.005, 1e-12);
  EXPECT_NEAR(r[pose].rotation_error, 0.0, 1e-12);
  tol.tol_position = 0.006;
  EXPECT_TRUE(report_objectives(p, 0, q, fk.body_q, tol)[pose].reached);
  EXPECT_TRUE(all_reached(p, report_objectives(p, 0, q, fk.body_q, tol)));
}

// weight 0 takes a soft objective out of the solve, not out of the report: its errors are how far
// it is from its target, and it is not pursued, so it never makes the solution fall short
TEST_F(Report, ASoftObjectiveOfWeightZeroReportsItsErrorsAndIsNotPursued) {
  IkProblem p(m);
  int pose = p.add_pose(tcp);
  int other = p.add_position(tcp);
  Transform<double> x = fk.body_q[tcp];
  p.set_target_pose(pose, 0, {x.p + Vec3<double>{0, 0.03, 0.04}, x.q});
  p.set_target_position(other, 0, x.p);
  p.set_weight(pose, 0.0);
  SolverSettings tol;
  std::vector<ObjectiveReport> r = report_objectives(p, 0, q, fk.body_q, tol);
  EXPECT_NEAR(r[pose].position_error, 0.05, 1e-12);
  EXPECT_FALSE(r[pose].reached);
  EXPECT_FALSE(r[pose].pursued);
  EXPECT_TRUE(r[other].pursued);
  EXPECT_TRUE(all_reached(p, r));
  // weighted again, the same error makes the solution fall short
  p.set_weight(pose, 0.5);
  r = report_objectives(p, 0, q, fk.body_q, tol);
  EXPECT_NEAR(r[pose].position_error, 0.05, 1e-12);
  EXPECT_TRUE(r[pose].pursued);
  EXPECT_FALSE(all_reached(p, r));
  // every axis left free: nothing of it is pursued either
  p.set_axis_weights(pose, {0, 0, 0}, {0, 0, 0});
  EXPECT_FALSE(report_objectives(p, 0, q, fk.body_q, tol)[pose].pursued);
}

TEST_F(Report, AgreesWithTheSolversResult) {
  IkProblem p(m);
  int pose = p.add_pose(tcp);
  Transform<double> x = fk.body_q[tcp];
  p.set_target_pose(pose, 0, {x.p + Vec3<double>{0.05, -0.05, -0.1}, x.q});
  SolverSettings s;
  SolveResult res;
  make_cpu_solver()->solve(p, s, q, res);
  const ProblemResult& best = res.problems[0];
  State at(*m);
  eval_fk(*m, best.q, {}, at);
  std::vector<ObjectiveReport> r = report_objectives(p, 0, best.q, at.body_q, s);
  EXPECT_NEAR(r[pose].position_error, best.position_error, 1e-12);
  EXPECT_NEAR(r[pose].rotation_error, best.rotation_error, 1e-12);
  EXPECT_EQ(r[pose].reached, best.converged);
}

TEST_F(Report, ViolationsOfInequalitiesAndHardEqualities) {
  IkProblem p(m);
  int gap = p.add_min_distance(tcp, {0, 0, 0}, m->find_body("panda_link0"), {0, 0, 0}, 5.0);
  int ball =
      p.add_relative_ball(tcp, {0, 0, 0}, m->find_body("panda_link0"), {0, 0, 0}, {1.0, true});
  std::vector<ObjectiveReport> r = report_objectives(p, 0, q, fk.body_q, SolverSettings{});
  double d = length(fk.body_q[tcp].p - fk.body_q[m->find_body("panda_link0")].p);
  EXPECT_NEAR(r[gap].violation, 5.0 - d, 1e-12);
  EXPECT_FALSE(r[gap].reached);
  EXPECT_NEAR(r[ball].violation, d, 1e-12);
  EXPECT_NEAR(r[ball].position_error, d, 1e-12);
}

TEST_F(Report, WrongSizesAreRefused) {
  IkProblem p(m);
  p.add_pose(tcp);
  EXPECT_THROW(report_objectives(p, 0, {0.0}, fk.body_q, {}), std::invalid_argument);
  EXPECT_THROW(report_objectives(p, 0, q, {}, {}), std::invalid_argument);
  EXPECT_THROW(report_objectives(p, 1, q, fk.body_q, {}), std::invalid_argument);
}

// A memo kept from call to call (the workbench's, every frame) reports what a report without one
// does, bit for bit, along a walk of small steps and jumps on the humanoid preset (its
// self_collision objective searches 650 capsule pairs; the jumps make some of them penetrate).
TEST(ReportWithMemo, ReportsAsWithoutOne) {
  std::vector<double> q;
  IkProblem p = test::preset_problem("humanoid", &q);
  const Model& m = p.model();
  int collision = -1;
  for (int i = 0; i < p.objective_count(); ++i)
    if (p.objective(i).params.type == ObjectiveType::kSelfCollision) collision = i;
  ASSERT_GE(collision, 0);
  CollisionMemoStore<double> memo;
  std::mt19937 rng(11);
  State fk{m};
  const SolverSettings tol;
  int penetrating = 0;
  for (int step = 0; step < 80; ++step) {
    q = test::integrate(m, q, test::random_dofs(m, rng, step % 10 == 9 ? 1.0 : 0.003));
    eval_fk(m, q, {}, fk);
    const std::vector<ObjectiveReport> with = report_objectives(p, 0, q, fk.body_q, tol, &memo);
    const std::vector<ObjectiveReport> without = report_objectives(p, 0, q, fk.body_q, tol);
    ASSERT_EQ(with.size(), without.size());
    for (std::size_t i = 0; i < with.size(); ++i) {
      const std::string what = "step " + std::to_string(step) + " objective " + std::to_string(i);
      EXPECT_EQ(with[i].position_error, without[i].position_error) << what;
      EXPECT_EQ(with[i].rotation_error, without[i].rotation_error) << what;
      EXPECT_EQ(with[i].violation, without[i].violation) << what;
      EXPECT_EQ(with[i].deviation, without[i].deviation) << what;
      EXPECT_EQ(with[i].reached, without[i].reached) << what;
    }
    penetrating += with[collision].violation > 0.01 ? 1 : 0;
  }
  EXPECT_GT(penetrating, 0);
  // the reports searched through the memo: it holds the last one's search and a pair list
  const CollisionMemo<double>* mm =
      memo.use(p.view().collision, p.collision_world_id(), m.body_count);
  EXPECT_TRUE(mm->valid[0]);
  EXPECT_TRUE(mm->listed[0]);
}

}  // namespace
}  // namespace ikwb
