// Tests for solver/compromise: each status on the Panda, two Pandas on a torso, a planar arm
// and the shipped dual arm and humanoid (a reachable target held back by posture, a target 2 m
// away, a target behind a hard min_distance, one held by a joint limit, one seen from a singular
// start, a block by a combination), and the pull shares adding up to the error.
#include "solver/compromise.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "engine/core/fk.hpp"
#include "solver/objective_report.hpp"
#include "solver/preset_problem.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

Transform<double> body_pose(const Model& m, const std::vector<double>& q, int body) {
  State s(m);
  eval_fk(m, q, {}, s);
  return s.body_q[body];
}

// the settled configuration: a long solve from q
std::vector<double> settle(const IkProblem& p, const std::vector<double>& q,
                           const SolverSettings& s) {
  SolverSettings long_solve = s;
  long_solve.max_iterations = 2000;
  SolveResult r;
  make_cpu_solver()->solve(p, long_solve, q, r);
  return r.problems[0].q;
}

double share_sum(const Explanation& e) {
  double s = 0;
  for (const Pull& p : e.pulled_by) s += p.share;
  return s;
}

struct PandaCompromise : ::testing::Test {
  std::shared_ptr<const Model> m = std::make_shared<const Model>(test::panda());
  int tcp = m->find_body("panda_hand_tcp");
  std::vector<double> q0 = {0.2, -0.3, 0.1, -2.0, 0.1, 1.8, 0.5};
  SolverSettings s;

  // a reachable tool pose (objective *pose) and a posture at q0 of weight 0.1 (*posture)
  IkProblem pose_and_posture(int* pose, int* posture) const {
    IkProblem p(m);
    *pose = p.add_pose(tcp);
    *posture = p.add_posture(q0, {0.1});
    const std::vector<double> qt = {0.4, -0.1, 0.0, -1.8, 0.2, 1.9, 0.7};
    p.set_target_pose(*pose, 0, body_pose(*m, qt, tcp));
    return p;
  }
};

TEST_F(PandaCompromise, StatusWords) {
  for (ReachStatus st : {ReachStatus::kReached, ReachStatus::kTradedOff, ReachStatus::kOutOfReach,
                         ReachStatus::kBlocked, ReachStatus::kStoppedShort}) {
    ReachStatus back = ReachStatus::kReached;
    ASSERT_TRUE(parse(to_string(st), &back));
    EXPECT_EQ(back, st);
  }
  ReachStatus out;
  EXPECT_FALSE(parse("out of reach", &out));
}

TEST_F(PandaCompromise, ReachableTargetHeldBackByPostureIsTradedOffAndPostureTakesTheWholeShare) {
  int pose = 0, posture = 0;
  IkProblem p = pose_and_posture(&pose, &posture);
  std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  ASSERT_EQ(r.objectives.size(), 2u);
  const Explanation& e = r.objectives[pose];
  EXPECT_EQ(e.status, ReachStatus::kTradedOff);
  EXPECT_EQ(e.unit, ShareUnit::kMetre);
  EXPECT_GT(e.error, s.tol_position);
  ASSERT_EQ(e.pulled_by.size(), 1u);
  EXPECT_EQ(e.pulled_by[0].objective, posture);
  EXPECT_NEAR(e.pulled_by[0].share, e.error, 0.02 * e.error);
  EXPECT_EQ(r.objectives[posture].status, ReachStatus::kReached);
  EXPECT_TRUE(r.objectives[posture].pulled_by.empty());
  EXPECT_GE(r.solves, 1);

  // the same posture in the task's null space: the target is reached, nothing to explain
  Objective ns = p.objective(posture);
  ns.params.null_space = 1;
  p.set_objective(posture, ns);
  q = settle(p, q0, s);
  r = explain_compromise(p, 0, q, s);
  EXPECT_EQ(r.objectives[pose].status, ReachStatus::kReached);
  EXPECT_EQ(r.solves, 0);
}

// a stop already set ends the explanation before its first test solve: the pulls are there
// (objective_pulls needs no solve), no status beyond them; unset, the same explanation runs
TEST_F(PandaCompromise, AStopEndsTheExplanationBeforeItsNextTestSolve) {
  int pose = 0, posture = 0;
  const IkProblem p = pose_and_posture(&pose, &posture);
  const std::vector<double> q = settle(p, q0, s);
  std::atomic<bool> stop{true};
  const CompromiseReport stopped = explain_compromise(p, 0, q, s, &stop);
  EXPECT_TRUE(stopped.stopped);
  EXPECT_EQ(stopped.solves, 0);
  ASSERT_EQ(stopped.objectives.size(), 2u);
  EXPECT_EQ(stopped.objectives[pose].status, ReachStatus::kReached);  // as objective_pulls left it
  EXPECT_EQ(stopped.objectives[pose].pulled_by.size(), 1u);
  stop = false;
  const CompromiseReport ran = explain_compromise(p, 0, q, s, &stop);
  EXPECT_FALSE(ran.stopped);
  EXPECT_GE(ran.solves, 1);
  EXPECT_EQ(ran.objectives[pose].status, ReachStatus::kTradedOff);
  EXPECT_EQ(ran.objectives[pose].pulled_by[0].objective, posture);
}

// a soft objective of weight 0 is not pursued: nothing to explain however far its target is, and
// no test solve is run for it
TEST_F(PandaCompromise, ASoftObjectiveOfWeightZeroIsNotExplained) {
  IkProblem p(m);
  int pos = p.add_position(tcp);
  int posture = p.add_posture(q0, {0.1});
  p.set_target_position(pos, 0, {2.0, 0.3, 0.5});
  p.set_weight(pos, 0.0);
  std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  EXPECT_EQ(r.objectives[pos].status, ReachStatus::kReached);
  EXPECT_TRUE(r.objectives[pos].pulled_by.empty());
  EXPECT_EQ(r.objectives[posture].status, ReachStatus::kReached);
  EXPECT_EQ(r.solves, 0);
}

TEST_F(PandaCompromise, TwoPullersShareTheErrorByTheirWeights) {
  IkProblem p(m);
  int pos = p.add_position(tcp);
  int a = p.add_posture(q0, {0.1});
  int b = p.add_posture(q0, {0.2});
  std::vector<double> qt = {0.4, -0.1, 0.0, -1.8, 0.2, 1.9, 0.7};
  p.set_target_position(pos, 0, body_pose(*m, qt, tcp).p);
  std::vector<double> q = settle(p, q0, s);
  std::vector<Explanation> e = objective_pulls(p, 0, q, s);
  ASSERT_EQ(e[pos].pulled_by.size(), 2u);
  EXPECT_NEAR(share_sum(e[pos]), e[pos].error, 0.02 * e[pos].error);
  // identical rests: the forces scale with weight^2, so b pulls four times as hard as a
  EXPECT_EQ(e[pos].pulled_by[0].objective, b);
  EXPECT_EQ(e[pos].pulled_by[1].objective, a);
  EXPECT_NEAR(e[pos].pulled_by[0].share / e[pos].pulled_by[1].share, 4.0, 0.05);
}

// an objective pulling the tool the same way helps: named in helped_by with what it helps by, and
// the pulls less the help are the error (a review's hand read "helped by the others" where a
// gaze was the one helper)
TEST_F(PandaCompromise, AnObjectivePullingTheSameWayIsNamedAsAHelper) {
  IkProblem p(m);
  const int pos = p.add_position(tcp);
  const int posture = p.add_posture(q0, {0.3});
  const int helper = p.add_position(tcp, {0, 0, 0}, {0.5});
  std::vector<double> qt = {0.4, -0.1, 0.0, -1.8, 0.2, 1.9, 0.7};
  const Vec3<double> target = body_pose(*m, qt, tcp).p;
  p.set_target_position(pos, 0, target);
  p.set_target_position(helper, 0, target);
  const std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[pos];
  EXPECT_EQ(e.status, ReachStatus::kTradedOff);
  ASSERT_EQ(e.pulled_by.size(), 1u);
  EXPECT_EQ(e.pulled_by[0].objective, posture);
  ASSERT_EQ(e.helped_by.size(), 1u);
  EXPECT_EQ(e.helped_by[0].objective, helper);
  EXPECT_GT(e.helped_by[0].share, 0.0);
  EXPECT_NEAR(share_sum(e) - e.helped_by[0].share, e.error, 0.02 * e.error);
  // its weight squared against the target's own: it helps by a quarter of the pull
  EXPECT_NEAR(e.helped_by[0].share / e.pulled_by[0].share, 0.25 / 1.25, 0.02);
}

// where the forces do not balance (not a settled compromise: a configuration no solve ended at)
// the shares do not split the error and none are listed (here the posture's would read 5 mm of
// a 78 mm error); settled, they are
TEST_F(PandaCompromise, NoPullsWhereTheForcesDoNotBalance) {
  IkProblem p(m);
  int pos = p.add_position(tcp);
  p.add_posture(q0, {0.2});
  std::vector<double> qt = {0.4, -0.1, 0.0, -1.8, 0.2, 1.9, 0.7};
  p.set_target_position(pos, 0, body_pose(*m, qt, tcp).p);
  std::vector<double> q_far = q0;
  q_far[4] += 0.3;  // 78 mm off; the posture's force there accounts for 5 mm of it
  std::vector<Explanation> e = objective_pulls(p, 0, q_far, s);
  EXPECT_GT(e[pos].error, 0.05);
  EXPECT_TRUE(e[pos].pulled_by.empty()) << e[pos].pulled_by[0].share << " of " << e[pos].error;
  e = objective_pulls(p, 0, settle(p, q0, s), s);
  ASSERT_EQ(e[pos].pulled_by.size(), 1u);
}

// an objective whose rows have no unit of their own explains its error without one: a
// manipulability minimum far beyond any the Panda reaches, a pose target pulling against it
TEST_F(PandaCompromise, AManipulabilityMeasureIsExplainedWithoutAUnit) {
  IkProblem p(m);
  int pose = p.add_pose(tcp);
  Objective manip;
  manip.params.type = ObjectiveType::kManipulability;
  manip.params.link = tcp;
  manip.params.min_measure = 10.0;
  int mi = p.add_objective(manip);
  p.set_target_pose(pose, 0, body_pose(*m, q0, tcp));
  std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[mi];
  EXPECT_NE(e.status, ReachStatus::kReached);
  EXPECT_EQ(e.unit, ShareUnit::kNone);
  EXPECT_STREQ(to_string(e.unit), "");
  EXPECT_GT(e.error, 0);
}

TEST_F(PandaCompromise, TargetTwoMetresAwayIsOutOfReach) {
  IkProblem p(m);
  int pos = p.add_position(tcp);
  int posture = p.add_posture(m->neutral_configuration(), {0.1});
  p.set_target_position(pos, 0, {2.0, 0.3, 0.5});
  std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  EXPECT_EQ(r.objectives[pos].status, ReachStatus::kOutOfReach);
  EXPECT_TRUE(r.objectives[pos].blocked_by.empty());
  EXPECT_EQ(r.objectives[posture].status, ReachStatus::kReached);
}

// A pose 2 m away with its hand turned back: the answer explained (here the one that minds only
// the position) can be nearer in the position rows than a test solve, which trades position for
// rotation. How close the objective gets at best is no further than the answer (an H1 hand 20 mm
// off read "at best 33 mm")
TEST_F(PandaCompromise, AtBestIsNoFurtherThanTheAnswer) {
  IkProblem position_only(m);
  const int pos = position_only.add_position(tcp);
  position_only.set_target_position(pos, 0, {2.0, 0.3, 0.5});
  const std::vector<double> q = settle(position_only, q0, s);
  IkProblem p(m);
  const int pose = p.add_pose(tcp);
  Transform<double> target = transform_identity<double>();
  target.p = {2.0, 0.3, 0.5};
  target.q = quat_from_axis_angle(Vec3<double>{0, 1, 0}, -M_PI / 2);  // the hand's z toward -x
  p.set_target_pose(pose, 0, target);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[pose];
  EXPECT_EQ(e.status, ReachStatus::kOutOfReach);
  EXPECT_EQ(e.unit, ShareUnit::kMetre);
  ASSERT_TRUE(std::isfinite(e.best_error));
  EXPECT_LE(e.best_error, e.error);
}

TEST_F(PandaCompromise, TargetPastAJointLimitIsBlockedByThatJoint) {
  // the tool turned about its own axis past joint 7's upper limit (2.8973), with the other
  // joints frozen by the dof mask (the wrist edited alone): to 3.1 rad, which the joint's range
  // misses either way round (3.4 rad is -2.883 rad the other way, within the range: a seed
  // reaches it, and the solution from 2.8 rad stopped short of it)
  IkProblem p(m);
  int pose = p.add_pose(tcp);
  std::vector<uint8_t> mask(m->dof_count, 0);
  mask[6] = 1;
  p.set_dof_mask(mask);
  std::vector<double> qt = q0;
  qt[6] = 2.8;
  std::vector<double> past = qt;
  past[6] = 3.1;
  p.set_target_pose(pose, 0, body_pose(*m, past, tcp));
  std::vector<double> q = settle(p, qt, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[pose];
  EXPECT_EQ(e.status, ReachStatus::kBlocked);
  bool joint7 = false;
  for (const Blocker& b : e.blocked_by) joint7 |= b.joint == m->find_joint("panda_joint7");
  EXPECT_TRUE(joint7);
}

// a pose reached by bending the elbow (joint 4) 0.5 rad further: with joint 4 locked it is
// blocked by joint 4 (not out of reach: the robot reaches it with the lock off), and so it is
// with joint 4's limits edited to 0.05 rad around where it stands (the problem's limits, not the
// robot file's)
TEST_F(PandaCompromise, ALockedOrEditedJointBlocksWhatItHoldsBack) {
  const int elbow = m->find_joint("panda_joint4");
  const int d = m->joint_qd_start[elbow];
  std::vector<double> bent = q0;
  bent[m->joint_q_start[elbow]] += 0.5;
  auto blocked_by_elbow = [&](const Explanation& e) {
    bool found = false;
    for (const Blocker& b : e.blocked_by) found |= b.joint == elbow;
    return found;
  };
  IkProblem locked(m);
  int pose = locked.add_pose(tcp);
  locked.set_target_pose(pose, 0, body_pose(*m, bent, tcp));
  std::vector<uint8_t> mask(m->dof_count, 1);
  mask[d] = 0;
  locked.set_dof_mask(mask);
  Explanation e = explain_compromise(locked, 0, settle(locked, q0, s), s).objectives[pose];
  EXPECT_EQ(e.status, ReachStatus::kBlocked);
  EXPECT_TRUE(blocked_by_elbow(e));

  IkProblem limited(m);
  pose = limited.add_pose(tcp);
  limited.set_target_pose(pose, 0, body_pose(*m, bent, tcp));
  std::vector<double> lower = m->dof_lower, upper = m->dof_upper;
  lower[d] = q0[m->joint_q_start[elbow]] - 0.05;
  upper[d] = q0[m->joint_q_start[elbow]] + 0.05;
  limited.set_dof_limits(lower, upper);
  e = explain_compromise(limited, 0, settle(limited, q0, s), s).objectives[pose];
  EXPECT_EQ(e.status, ReachStatus::kBlocked);
  EXPECT_TRUE(blocked_by_elbow(e));
}

// a locked joint that also sits on its limit is named once, as locked (the elbow read "locked
// joint panda_joint4" and again at the end of the list; a review)
TEST_F(PandaCompromise, ALockedJointOnItsLimitIsNamedOnceAsLocked) {
  const int elbow = m->find_joint("panda_joint4");
  std::vector<double> q = q0;
  q[m->joint_q_start[elbow]] = m->dof_upper[m->joint_qd_start[elbow]];
  IkProblem locked(m);
  const int pose = locked.add_pose(tcp);
  std::vector<double> away = q;
  away[m->joint_q_start[elbow]] += 0.6;  // past the limit: the limit holds it back too
  locked.set_target_pose(pose, 0, body_pose(*m, away, tcp));
  locked.set_dof_mask(std::vector<uint8_t>(m->dof_count, 0));
  const Explanation e = explain_compromise(locked, 0, q, s).objectives[pose];
  EXPECT_EQ(e.status, ReachStatus::kBlocked);
  std::vector<int> joints;
  for (const Blocker& b : e.blocked_by) {
    EXPECT_EQ(blocking_joint_text(locked, b.joint).rfind("locked joint ", 0), 0u);
    EXPECT_EQ(std::count(joints.begin(), joints.end(), b.joint), 0) << m->joint_name[b.joint];
    joints.push_back(b.joint);
  }
  EXPECT_EQ(std::count(joints.begin(), joints.end(), elbow), 1);
}

TEST(TwoPandasCompromise, TargetBehindAHardMinDistanceIsBlockedByIt) {
  auto m = std::make_shared<const Model>(test::two_pandas());
  int lt = m->find_body("left_hand_tcp"), rt = m->find_body("right_hand_tcp");
  std::vector<double> q(m->coord_count, 0.0);
  for (int side = 0; side < 2; ++side) {
    q[7 * side + 1] = -0.3;
    q[7 * side + 3] = -2.0;
    q[7 * side + 5] = 1.8;
  }
  IkProblem p(m);
  int left = p.add_position(lt);
  int right = p.add_pose(rt, {0, 0, 0}, hard_constraint());
  int apart = p.add_min_distance(lt, {0, 0, 0}, rt, {0, 0, 0}, 0.3);
  int posture = p.add_posture(q, {0.01});
  Transform<double> rx = body_pose(*m, q, rt);
  p.set_target_pose(right, 0, rx);
  // the left tool's target 10 cm from the right tool, which has to stay where it is
  p.set_target_position(left, 0, rx.p + Vec3<double>{0, 0.1, 0});
  SolverSettings s;
  std::vector<double> qs = settle(p, q, s);
  CompromiseReport r = explain_compromise(p, 0, qs, s);
  const Explanation& e = r.objectives[left];
  EXPECT_EQ(e.status, ReachStatus::kBlocked);
  bool by_apart = false;
  for (const Blocker& b : e.blocked_by) by_apart |= b.objective == apart;
  EXPECT_TRUE(by_apart);
  EXPECT_EQ(r.objectives[right].status, ReachStatus::kReached);
  EXPECT_EQ(r.objectives[apart].status, ReachStatus::kReached);
  EXPECT_EQ(r.objectives[posture].status, ReachStatus::kReached);
}

TEST(HumanoidCompromise, HandTargetTenCentimetresForwardIsTradedOffAgainstPosture) {
  std::vector<double> q0;
  IkProblem p = test::preset_problem("humanoid", &q0);
  int left = test::find_objective(p, "left hand"), posture = test::find_objective(p, "posture");
  ASSERT_GE(left, 0);
  ASSERT_GE(posture, 0);
  // the posture as a weighted cost (the reproduction), whatever the preset says
  Objective weighted = p.objective(posture);
  weighted.params.null_space = 0;
  weighted.params.weight = 0.05;
  p.set_objective(posture, weighted);
  Transform<double> t = p.target(left, 0);
  t.p = t.p + Vec3<double>{0.1, 0, 0};
  p.set_target_pose(left, 0, t);
  SolverSettings s;
  std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[left];
  EXPECT_EQ(e.status, ReachStatus::kTradedOff);
  ASSERT_FALSE(e.pulled_by.empty());
  bool by_posture = false;
  for (const Pull& pull : e.pulled_by) by_posture |= pull.objective == posture;
  EXPECT_TRUE(by_posture);
  EXPECT_NEAR(share_sum(e), e.error, 0.1 * e.error);
  for (int i = 0; i < p.objective_count(); ++i) {
    if (p.objective(i).params.hard) {
      EXPECT_EQ(r.objectives[i].status, ReachStatus::kReached);
    }
  }
}

// a hand target 1.5 m out strains the hard feet past their tolerance where the penalty is held
// at its initial 100 (with it free to grow they hold, within 3.2e-5): each foot's pullers'
// shares add up to its violation, none above it (scaled to the net sum, a puller opposed by a
// helper read 200 times the violation)
TEST(HumanoidCompromise, AHardObjectivesPullersShareItsViolation) {
  std::vector<double> q0;
  IkProblem p = test::preset_problem("humanoid", &q0);
  const int left = test::find_objective(p, "left hand");
  Transform<double> t = p.target(left, 0);
  t.p = {1.5, 0.33, 0.0};
  p.set_target_position(left, 0, t.p);
  // `ikwb solve --scene` on the preset: the batch settings under the preset's
  SolverSettings s = batch_solve_settings();
  s.n_seeds = 16;
  s.sampler = Sampler::kRoberts;
  s.max_iterations = 20;
  s.al_mu_max = s.al_mu_init;
  SolveResult solved;
  make_cpu_solver()->solve(p, s, q0, solved);
  CompromiseReport r = explain_compromise(p, 0, solved.problems[0].q, s);
  int hard_explained = 0;
  for (int i = 0; i < p.objective_count(); ++i) {
    const Explanation& e = r.objectives[i];
    if (!p.objective(i).params.hard || e.pulled_by.empty()) continue;
    ++hard_explained;
    for (const Pull& pull : e.pulled_by) EXPECT_LE(pull.share, e.error * (1 + 1e-12));
    EXPECT_NEAR(share_sum(e), e.error, 0.05 * e.error);
  }
  EXPECT_GT(hard_explained, 0);
}

// the right hand (soft) 95 cm forward: the hard feet, balance and the shoulder's limits stop it
// about 8 cm short whatever the soft objectives do. The balance of forces alone split all of its
// 93 mm between the self-collision and the other hand; the shares now add up to what turning
// every other soft objective off wins (error - best_error), the rest is the walls'
TEST(HumanoidCompromise, ABlockedObjectivesSharesSplitWhatTheSoftObjectivesHoldBack) {
  std::vector<double> q0;
  IkProblem p = test::preset_problem("humanoid", &q0);
  const int right = test::find_objective(p, "right hand");
  ASSERT_GE(right, 0);
  Transform<double> t = p.target(right, 0);
  t.p = t.p + Vec3<double>{0.95, 0, 0};
  p.set_target_pose(right, 0, t);
  SolverSettings s;
  const std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[right];
  ASSERT_EQ(e.status, ReachStatus::kBlocked);
  ASSERT_TRUE(std::isfinite(e.best_error));
  EXPECT_GE(e.best_error, 0.0);
  EXPECT_LT(e.best_error, e.error);
  EXPECT_GT(e.best_error, 0.5 * e.error);  // mostly the walls'
  // (scaled sums round: 1e-6 of it)
  EXPECT_LE(share_sum(e), (e.error - e.best_error) * (1 + 1e-6)) << share_sum(e);
  // not blocked: no best error
  for (int i = 0; i < p.objective_count(); ++i)
    if (r.objectives[i].status != ReachStatus::kBlocked) {
      EXPECT_TRUE(std::isnan(r.objectives[i].best_error)) << p.objective(i).name;
    }
}

// the right hand made hard with its target 1 m forward (story 2: a student makes the reach a
// constraint): the hard feet, hand and balance cannot all hold and spread the violation. Each
// of them is blocked by the other hard objectives; no soft objective is blamed for it (the
// shares scaled to the violation named the left hand, the only soft objective pulling at all,
// for all of each foot's 7 cm)
TEST(HumanoidCompromise, HardObjectivesThatCannotAllHoldBlameEachOtherNotASoftOne) {
  std::vector<double> q0;
  IkProblem p = test::preset_problem("humanoid", &q0);
  const int right = test::find_objective(p, "right hand");
  ASSERT_GE(right, 0);
  p.set_hard(right, true);
  Transform<double> t = p.target(right, 0);
  t.p = t.p + Vec3<double>{1.0, 0, 0};
  p.set_target_pose(right, 0, t);
  SolverSettings s;
  const std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  int strained = 0;
  for (int i = 0; i < p.objective_count(); ++i) {
    const Explanation& e = r.objectives[i];
    if (!p.objective(i).params.hard || e.status == ReachStatus::kReached) continue;
    ++strained;
    EXPECT_EQ(e.status, ReachStatus::kBlocked) << p.objective(i).name;
    EXPECT_TRUE(e.pulled_by.empty())
        << p.objective(i).name << " pulled by " << p.objective(e.pulled_by[0].objective).name;
    bool by_hard = false;
    for (const Blocker& b : e.blocked_by)
      by_hard |= b.objective >= 0 && p.objective(b.objective).params.hard;
    EXPECT_TRUE(by_hard) << p.objective(i).name;
  }
  EXPECT_GE(strained, 2);
}

// the shipped dual arm: the left tool's target on the right tool, which is held (hard) where it
// is; the hard "tools apart" keeps them 12 cm apart
TEST(DualArmCompromise, ToolTargetOnTheOtherToolIsBlockedByToolsApart) {
  std::vector<double> q0;
  IkProblem p = test::preset_problem("dual_arm", &q0);
  int left = test::find_objective(p, "left tool pose"),
      right = test::find_objective(p, "right tool pose");
  int apart = test::find_objective(p, "tools apart");
  ASSERT_GE(left, 0);
  ASSERT_GE(right, 0);
  ASSERT_GE(apart, 0);
  p.set_hard(right, true);
  Transform<double> t = p.target(left, 0);
  t.p = p.target(right, 0).p + Vec3<double>{0, 0.05, 0};
  p.set_target_pose(left, 0, t);
  SolverSettings s;
  std::vector<double> q = settle(p, q0, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[left];
  EXPECT_EQ(e.status, ReachStatus::kBlocked);
  bool by_apart = false;
  for (const Blocker& b : e.blocked_by) by_apart |= b.objective == apart;
  EXPECT_TRUE(by_apart);

  // the right tool soft again: the left target is reachable once the right tool gives way, so
  // it is traded off against the right tool's pose
  p.set_hard(right, false);
  q = settle(p, q0, s);
  r = explain_compromise(p, 0, q, s);
  EXPECT_EQ(r.objectives[left].status, ReachStatus::kTradedOff);
}

// the planar arm of test::planar_arm2: reach 0.4 to 1.6 m
struct PlanarArmCompromise : ::testing::Test {
  std::shared_ptr<const Model> m = std::make_shared<const Model>(test::planar_arm2());
  int elbow = m->find_body("link2"), tip = m->find_body("tip");
  SolverSettings s;
};

// the arm held straight, 0.4 m past a target 1.2 m away on its line, well within its reach: at
// that singular start the descent is 0 and one seed does not move, so the objective alone read
// out of reach; the search from the seeds reaches it, and nothing pulls against it: the
// solution stopped short of it
TEST_F(PlanarArmCompromise, AReachableTargetSeenFromASingularStartStoppedShort) {
  IkProblem p(m);
  const int hand = p.add_position(tip);
  p.set_target_position(hand, 0, {1.2, 0, 0});
  CompromiseReport r = explain_compromise(p, 0, {0.0, 0.0}, s);
  const Explanation& e = r.objectives[hand];
  EXPECT_EQ(e.status, ReachStatus::kStoppedShort);
  EXPECT_NEAR(e.error, 0.4, 1e-12);
  EXPECT_TRUE(e.pulled_by.empty());
  EXPECT_TRUE(std::isnan(e.best_error));
}

// a hand target 2.0616 m away, 0.4616 m beyond the reach, held back by a soft elbow target: out
// of reach, at best 0.4616 m (the arm straight toward it, the elbow off), and the elbow's share
// is what it costs the hand, the error less that (it read the whole of the error, 0.528 of
// 0.510 m, and the others "helped" by the difference)
TEST_F(PlanarArmCompromise, AnOutOfReachTargetsSharesSplitWhatTheOthersCostIt) {
  IkProblem p(m);
  const int hand = p.add_position(tip);
  const int el = p.add_position(elbow);
  p.set_weight(el, 0.5);
  p.set_target_position(hand, 0, {2.0, 0.5, 0});
  p.set_target_position(el, 0, {0.0, 1.0, 0});
  const std::vector<double> q = settle(p, {0.3, 0.3}, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[hand];
  EXPECT_EQ(e.status, ReachStatus::kOutOfReach);
  EXPECT_NEAR(e.best_error, std::sqrt(4.25) - 1.6, 1e-6);
  ASSERT_EQ(e.pulled_by.size(), 1u);
  EXPECT_EQ(e.pulled_by[0].objective, el);
  EXPECT_NEAR(e.pulled_by[0].share, e.error - e.best_error, 0.02 * (e.error - e.best_error));
  EXPECT_EQ(r.objectives[el].status, ReachStatus::kTradedOff);
}

// a hard elbow and a limit on the elbow joint that stop the hand target only together (each
// alone with it leaves it reachable, from other seeds than the one at the solution): both are
// named, where the limit alone was (one seed from the solution did not reach the target with
// the limit alone)
TEST_F(PlanarArmCompromise, ABlockOfACombinationNamesBoth) {
  IkProblem p(m);
  const int el = p.add_position(elbow);
  p.set_hard(el, true);
  const int hand = p.add_position(tip);
  p.set_target_position(el, 0, {0.6, 0.8, 0});
  p.set_target_position(hand, 0, {0.3903, 1.3622, 0});
  p.set_dof_limits({-3.1, -3.1}, {3.1, 0.0});
  const std::vector<double> q = settle(p, {0.9, -0.3}, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[hand];
  EXPECT_EQ(e.status, ReachStatus::kBlocked);
  bool hard = false, limit = false;
  for (const Blocker& b : e.blocked_by) {
    hard |= b.objective == el;
    limit |= b.joint == m->find_joint("j2");
  }
  EXPECT_TRUE(hard);
  EXPECT_TRUE(limit);
}

// a hand target (3, 0) 1.4 m beyond the reach alone, and a hard elbow at (0, 1): held there,
// the hand gets no nearer than |(3, -1)| - 0.6 = 2.562 m. Out of reach, and the elbow is named
// for the 1.16 m it costs beyond that (it was not named at all); the joint limits are not, as
// they cost nothing. A target at (0, 3) along the held elbow's line: the hard elbow costs
// nothing, and nothing is named; nor is a hard elbow that cannot hold.
TEST_F(PlanarArmCompromise, AHardObjectiveKeepingAnOutOfReachTargetFurtherIsNamed) {
  IkProblem p(m);
  const int el = p.add_position(elbow);
  p.set_hard(el, true);
  const int hand = p.add_position(tip);
  p.set_target_position(el, 0, {0.0, 1.0, 0});
  p.set_target_position(hand, 0, {3.0, 0.0, 0});
  std::vector<double> q = settle(p, {1.2, -0.5}, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[hand];
  EXPECT_EQ(e.status, ReachStatus::kOutOfReach);
  EXPECT_NEAR(e.best_error, std::sqrt(10.0) - 0.6, 1e-6);
  ASSERT_EQ(e.blocked_by.size(), 1u);
  EXPECT_EQ(e.blocked_by[0].objective, el);

  p.set_target_position(hand, 0, {0.0, 3.0, 0});
  q = settle(p, {1.2, -0.5}, s);
  r = explain_compromise(p, 0, q, s);
  EXPECT_EQ(r.objectives[hand].status, ReachStatus::kOutOfReach);
  EXPECT_NEAR(r.objectives[hand].best_error, 1.4, 1e-6);
  EXPECT_TRUE(r.objectives[hand].blocked_by.empty());

  // the hard elbow at (2, 0), out of its own reach on the hand target's line: it cannot hold,
  // which shows nothing about what it costs the hand (it was named, a review)
  p.set_target_position(el, 0, {2.0, 0.0, 0});
  p.set_target_position(hand, 0, {3.0, 0.0, 0});
  q = settle(p, {0.2, 0.1}, s);
  r = explain_compromise(p, 0, q, s);
  EXPECT_EQ(r.objectives[hand].status, ReachStatus::kOutOfReach);
  EXPECT_TRUE(r.objectives[hand].blocked_by.empty());
}

// the same hand target with the elbow joint's limits edited to +-0.5 rad, no hard objective:
// the arm straight toward it is allowed, nothing is named; with the shoulder's limited to
// [0.5, 1.0] rad the hand cannot point at it, and the shoulder is named
TEST_F(PlanarArmCompromise, LimitsKeepingAnOutOfReachTargetFurtherAreNamed) {
  IkProblem p(m);
  const int hand = p.add_position(tip);
  p.set_target_position(hand, 0, {3.0, 0.0, 0});
  p.set_dof_limits({-3.1, -0.5}, {3.1, 0.5});
  std::vector<double> q = settle(p, {0.2, 0.1}, s);
  CompromiseReport r = explain_compromise(p, 0, q, s);
  EXPECT_EQ(r.objectives[hand].status, ReachStatus::kOutOfReach);
  EXPECT_TRUE(r.objectives[hand].blocked_by.empty());

  p.set_dof_limits({0.5, -0.5}, {1.0, 0.5});
  q = settle(p, {0.7, 0.1}, s);
  r = explain_compromise(p, 0, q, s);
  const Explanation& e = r.objectives[hand];
  EXPECT_EQ(e.status, ReachStatus::kOutOfReach);
  bool shoulder = false;
  for (const Blocker& b : e.blocked_by) shoulder |= b.joint == m->find_joint("j1");
  EXPECT_TRUE(shoulder);
  EXPECT_GT(e.best_error, 1.4 + 0.1);
}

TEST(Compromise, WrongSizesAreRefused) {
  auto m = std::make_shared<const Model>(test::panda());
  IkProblem p(m);
  p.add_position(m->find_body("panda_hand_tcp"));
  SolverSettings s;
  EXPECT_THROW(explain_compromise(p, 0, {0.0}, s), std::invalid_argument);
  EXPECT_THROW(objective_pulls(p, 1, m->neutral_configuration(), s), std::invalid_argument);
}

}  // namespace
}  // namespace ikwb
