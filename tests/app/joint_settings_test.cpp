// Joint locks and live limits in the workbench, and the tolerance and balance kinds added by
// script: the solver honours them, and they survive the scene
// round trip that undo and save use. No window (the dump is checked in whole_body_gui_test).
#include <gtest/gtest.h>

#include <cmath>

#include "app/gui/branch_edit.hpp"
#include "app/gui/script_objectives.hpp"
#include "app/gui/solver_driver.hpp"
#include "app/gui/visuals.hpp"
#include "solver/scene_problem.hpp"

namespace ikwb::gui {
namespace {

std::vector<std::string> words(std::initializer_list<const char*> w) {
  return std::vector<std::string>(w.begin(), w.end());
}

void frames(AppState& app, SolverDriver& driver, int n) {
  for (int i = 0; i < n; ++i) {
    ++app.frame;
    driver.step_frame(app);
  }
}

// The limit arcs' spoke and the branch handle's zero lie along the child link: at any
// configuration, the spoke of a revolute joint points at its child's first child joint (off the
// axis). It was a quarter turn off on the planar arm (any perpendicular to the axis), and the
// forbidden gap of a joint's range was drawn beside its link instead of opposite it.
TEST(JointSettings, TheLimitArcsSpokeLiesAlongTheChildLink) {
  for (const char* robot : {"planar3", "humanoid", "panda"}) {
    AppState app;
    ASSERT_TRUE(app.open_robot_preset(robot));
    const Model& m = *app.model;
    const std::vector<Vec3<double>> zero = joint_zero_directions(m);
    std::vector<double> q = m.middle_configuration();
    for (int c = 0; c < m.coord_count; ++c) q[c] += 0.3 * std::sin(3.0 * c + 1);
    State s(m);
    eval_fk(m, q, {}, s);
    int checked = 0;
    for (int j = 0; j < m.joint_count; ++j) {
      if (JointType(m.joint_type[j]) != JointType::kRevolute) continue;
      int k = 0;
      const Vec3<double>& axis = m.joint_axis[j];
      auto across = [&](Vec3<double> v) { return v - dot(v, axis) * axis; };
      while (k < m.joint_count &&
             (m.joint_parent[k] != m.joint_child[j] ||
              length(across(transform_point(inverse(m.joint_X_c[j]), m.joint_X_p[k].p))) < 1e-4))
        ++k;
      if (k == m.joint_count) continue;
      // the moving joint frame, and the child joint's origin seen from it
      const int parent = m.joint_parent[j];
      const Transform<double> f =
          (parent >= 0 ? s.body_q[parent] : transform_identity<double>()) * m.joint_X_p[j];
      const Quat<double> moved = f.q * quat_from_axis_angle(axis, q[m.joint_q_start[j]]);
      const Vec3<double> to_child = across(
          rotate_inv(moved, transform_point(s.body_q[m.joint_child[j]], m.joint_X_p[k].p) - f.p));
      const Vec3<double> want = (1.0 / length(to_child)) * to_child;
      EXPECT_LT(length(zero[j] - want), 1e-9) << robot << " joint " << m.joint_name[j];
      EXPECT_NEAR(dot(zero[j], axis), 0.0, 1e-12);
      ++checked;
    }
    EXPECT_GT(checked, 1) << robot;
  }
}

// With descendants kept, the joints below the edited one read what the bodies show after each
// edit (their turn; the kept bodies' places are the edit's): the joint below read its value from
// before the edit (the reviewer's planar arm: joint3
// 0.7 rad where the bodies shown give 1.0764), one edit behind until the mode ended
TEST(JointSettings, ABranchEditKeepingDescendantsGivesTheirJointsAsShown) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  const Model& m = *app.model;
  const int j2 = m.find_joint("joint2"), j3 = m.find_joint("joint3");
  ASSERT_TRUE(begin_branch_edit(app, j2));
  set_branch_follow(app, false);
  for (double deg : {30.0, 80.0}) {
    ASSERT_TRUE(branch_set(app, deg * M_PI / 180, 0.1));
    // the bodies shown, and the joint values that put them there
    std::vector<double> q = app.joint_q;
    eval_ik(m, app.branch.state, q, nullptr);
    EXPECT_NEAR(app.joint_q[m.joint_q_start[j3]], q[m.joint_q_start[j3]], 1e-12) << deg;
    EXPECT_NEAR(app.joint_q[m.joint_q_start[j2]], deg * M_PI / 180, 1e-12);
    // the kept link turns with them as shown (its place is the edit's: it stays where it was)
    State fk(m);
    eval_fk(m, app.joint_q, {}, fk);
    const int link3 = m.joint_child[j3];
    EXPECT_LT(length(quat_log(fk.body_q[link3].q * conjugate(app.branch.state.body_q[link3].q))),
              1e-12)
        << deg;
  }
}

TEST(JointSettings, ALockedJointStaysAndLiveLimitsBindTheSolver) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  SolverDriver driver;
  driver.init(app);
  const Model& m = *app.model;
  const int j1 = m.find_joint("panda_joint1"), j4 = m.find_joint("panda_joint4");
  const int q1 = m.joint_q_start[j1], q4 = m.joint_q_start[j4], d4 = m.joint_qd_start[j4];
  const double held = app.joint_q[q1];
  app.set_joint_locked(j1, true);
  // joint 4 limited to a narrow band around where it is
  const double mid = app.joint_q[q4];
  ASSERT_TRUE(app.set_joint_limits(j4, mid - 0.05, mid + 0.05));
  EXPECT_FALSE(app.set_joint_limits(j4, 0.2, 0.1));
  Transform<double> t = app.objectives[0].target;
  t.p.y += 0.25;
  app.set_target(0, t);
  frames(app, driver, 30);
  EXPECT_EQ(app.joint_q[q1], held);
  EXPECT_GE(app.joint_q[q4], mid - 0.05 - 1e-12);
  EXPECT_LE(app.joint_q[q4], mid + 0.05 + 1e-12);

  // the scene (what undo and save keep) carries both, and only the edited limits
  Scene s = app.make_scene();
  EXPECT_EQ(s.joint_locks, std::vector<std::string>{"panda_joint1"});
  ASSERT_EQ(s.joint_limits.size(), 1u);
  EXPECT_EQ(s.joint_limits.at("panda_joint4")[0], mid - 0.05);
  app.set_joint_locked(j1, false);
  app.reset_joint_limits(j4);
  EXPECT_EQ(app.dof_upper[d4], m.dof_upper[d4]);
  ASSERT_TRUE(app.restore_scene(s, "undo"));
  EXPECT_TRUE(app.joint_locked(j1));
  EXPECT_EQ(app.dof_upper[d4], mid + 0.05);
  // limits beyond the robot file's are allowed
  ASSERT_TRUE(app.set_joint_limits(j4, m.dof_lower[d4] - 0.3, m.dof_upper[d4]));
  EXPECT_TRUE(limits_edited(m, d4, app.dof_lower[d4], app.dof_upper[d4]));
}

// a joint's live limits keep the mimic joints that follow it within their own: the Panda's
// second finger mimics the first (multiplier 1, both [0, 0.04] m), so the first's limits widened
// to [-0.1, 0.1] hold [0, 0.04] (they held the second finger 6 cm past its limits), and limits
// no value of which keeps it are refused, naming it, the limits left as they were
TEST(JointSettings, LiveLimitsKeepTheMimicJointsWithinTheirOwn) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const Model& m = *app.model;
  const int finger = m.find_joint("panda_finger_joint1"), d = m.joint_qd_start[finger];
  ASSERT_TRUE(app.set_joint_limits(finger, -0.1, 0.1));
  EXPECT_EQ(app.dof_lower[d], 0.0);
  EXPECT_EQ(app.dof_upper[d], 0.04);
  // said (it narrowed them without a word)
  ASSERT_FALSE(app.messages.empty());
  EXPECT_EQ(app.messages.back().text,
            "joint limits of panda_finger_joint1: kept within [0, 0.04], which keeps its mimic "
            "joint 'panda_finger_joint2' within its limits");
  ASSERT_TRUE(app.set_joint_limits(finger, 0.01, 0.1));
  EXPECT_EQ(app.dof_lower[d], 0.01);
  EXPECT_EQ(app.dof_upper[d], 0.04);
  EXPECT_EQ(app.mimic_limits_problem(finger, 0.05, 0.1),
            "no value within these limits keeps its mimic joint 'panda_finger_joint2' within its "
            "limits");
  EXPECT_FALSE(app.set_joint_limits(finger, 0.05, 0.1));
  EXPECT_EQ(app.dof_lower[d], 0.01);
  EXPECT_EQ(app.mimic_limits_problem(m.find_joint("panda_joint4"), -10, 10), "");
}

TEST(JointSettings, ToleranceKindsAddedByScriptAreMetAndDumped) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  SolverDriver driver;
  driver.init(app);
  std::string error;
  ASSERT_TRUE(script_add_objective(app,
                                   words({"add", "position_box", "panda_link4", "lower", "-4cm",
                                          "-inf", "-4cm", "upper", "4cm", "inf", "4cm"}),
                                   &error))
      << error;
  ASSERT_TRUE(script_add_objective(
      app, words({"add", "orientation_cone", "panda_hand", "cone", "20deg"}), &error))
      << error;
  ASSERT_TRUE(script_add_objective(app, words({"add", "manipulability", "panda_hand_tcp"}), &error))
      << error;
  EXPECT_GT(app.objectives.back().spec.params.min_measure, 0.0);  // half the measure now
  EXPECT_FALSE(script_add_objective(
      app, words({"add", "position_box", "panda_link4", "lower", "1", "2"}), &error));
  Transform<double> t = app.objectives[0].target;
  t.p.x += 0.03;
  app.set_target(0, t);
  frames(app, driver, 60);
  for (const WorkbenchObjective& o : app.objectives)
    EXPECT_TRUE(o.status.reached) << o.name() << " pos " << o.status.position_error << " rot "
                                  << o.status.rotation_error << " viol " << o.status.violation;
}

TEST(JointSettings, SupportPolygonByScriptReportsItsVerticesAndCom) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  std::string error;
  // a square on the Panda's base, around its centre of mass
  Vec3<double> c = center_of_mass(app.model->view(), app.fk.body_q.data());
  auto num = [](double v) { return std::to_string(v); };
  std::vector<std::string> a = words({"add", "support_polygon", "margin", "1cm"});
  for (double sx : {-0.3, 0.3})
    for (double sy : {-0.3, 0.3})
      for (std::string w : {std::string("contact"), std::string("panda_link0"), num(c.x + sx),
                            num(c.y + sy), std::string("0")})
        a.push_back(w);
  ASSERT_TRUE(script_add_objective(app, a, &error)) << error;
  app.sync();
  app.evaluate();
  const WorkbenchObjective& sp = app.objectives.back();
  EXPECT_TRUE(sp.status.reached);
  EXPECT_EQ(sp.spec.points.size(), 4u);
  EXPECT_EQ(sp.spec.params.margin, 0.01);
  // the scene record names the points per link
  SceneObjective so = objective_to_scene(*app.model, {sp.spec, sp.target});
  ASSERT_EQ(so.contacts.size(), 1u);
  EXPECT_EQ(so.contacts[0].link, "panda_link0");
  EXPECT_EQ(so.contacts[0].points.size(), 4u);
}

// the frame step bound: no 1-dof joint moves more than the step in a frame, the joints it held
// back are reported, the robot still gets there over frames, and scenes keep the bound
TEST(JointSettings, FrameStepBoundWalksTheRobotThere) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  SolverDriver driver;
  driver.init(app);
  const Model& m = *app.model;
  app.frame_step = 0.02;
  app.frame_budget_ms = 0;  // every frame solves in full: the walk does not depend on the clock
  Transform<double> t = app.objectives[0].target;
  t.p.y += 0.3;
  t.p.z -= 0.2;
  app.set_target(0, t);
  bool held_back = false;
  for (int f = 0; f < 300 && !(app.solve.converged && f > 0); ++f) {
    const std::vector<double> before = app.joint_q;
    frames(app, driver, 1);
    for (int j = 0; j < m.joint_count; ++j) {
      // a mimic joint follows its leader (FK reads the leader's coordinate)
      if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
      const int i = m.joint_q_start[j];
      EXPECT_LE(std::abs(app.joint_q[i] - before[i]), 0.02 + 1e-12) << m.joint_name[j];
    }
    held_back = held_back || !app.solve.step_bound.empty();
  }
  EXPECT_TRUE(held_back);
  EXPECT_TRUE(app.solve.converged);
  // resting there, nothing is held back (the converging frame itself may still use a full step)
  frames(app, driver, 2);
  EXPECT_TRUE(app.solve.converged);
  EXPECT_TRUE(app.solve.step_bound.empty());
  Scene s = app.make_scene();
  EXPECT_EQ(s.extra.value("frame_step", 0.0), 0.02);
  app.frame_step = 0;
  ASSERT_TRUE(app.apply_scene(s));
  EXPECT_EQ(app.frame_step, 0.02);
  // undo keeps the bound the user set (like the solver settings)
  app.frame_step = 0.05;
  ASSERT_TRUE(app.restore_scene(s, "undo"));
  EXPECT_EQ(app.frame_step, 0.05);
}

// A target led round the turntable (a continuous joint) across its +-pi seam, a little less than
// the frame step a frame: the turntable follows in (-pi, pi], never held back by the bound, as
// on any other stretch; a branch edit turns it across the seam too; it takes no limits and shows
// none
TEST(JointSettings, AContinuousJointTurnsOnAcrossItsSeam) {
  AppState app;
  ASSERT_TRUE(app.load_robot(IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf"));
  SolverDriver driver;
  driver.init(app);
  const Model& m = *app.model;
  const int turntable = m.find_joint("turntable"), shoulder = m.find_joint("shoulder");
  const int qt = m.joint_q_start[turntable];
  app.joint_q[m.joint_q_start[shoulder]] = 0.5;
  app.joint_q[qt] = 2.9;
  std::string error;
  ASSERT_TRUE(script_add_objective(app, words({"add", "position", "tool"}), &error)) << error;
  app.frame_step = 0.05;
  app.frame_budget_ms = 0;
  const Transform<double> start = app.objectives[0].target;
  for (int f = 1; f <= 20; ++f) {
    Transform<double> t = start;
    const Quat<double> turn = quat_from_axis_angle(Vec3<double>{0, 0, 1}, 0.04 * f);
    t.p = rotate(turn, start.p);
    app.set_target(0, t);
    frames(app, driver, 1);
    EXPECT_TRUE(app.solve.converged) << f;
    EXPECT_TRUE(app.solve.step_bound.empty()) << f;
    EXPECT_GT(app.joint_q[qt], -M_PI) << f;
    EXPECT_LE(app.joint_q[qt], M_PI) << f;
    EXPECT_NEAR(std::remainder(app.joint_q[qt] - (2.9 + 0.04 * f), 2 * M_PI), 0.0, 1e-3) << f;
  }
  EXPECT_LT(app.joint_q[qt], 0.0);  // past the seam
  // a branch edit turns it on past the seam too, at the speed it turned
  ASSERT_TRUE(begin_branch_edit(app, turntable));
  ASSERT_TRUE(branch_set(app, 3.0, 0.1));
  ASSERT_TRUE(branch_set(app, 3.3, 0.1));
  EXPECT_NEAR(app.joint_q[qt], 3.3 - 2 * M_PI, 1e-12);
  EXPECT_NEAR(app.branch.joint_qd[m.joint_qd_start[turntable]], 3.0, 1e-9);
  end_branch_edit(app);
  EXPECT_FALSE(app.set_joint_limits(turntable, -1.0, 1.0));
  EXPECT_TRUE(std::isnan(limit_fraction(app, turntable)));
  app.reset_joint_limits(turntable);
  EXPECT_EQ(app.dof_lower[m.joint_qd_start[turntable]], -HUGE_VAL);
}

}  // namespace
}  // namespace ikwb::gui
