// Tests for solver/scene_problem: a scene's objectives on a model and back keep every field
// their kind reads (per-axis weights included), "current" targets come from the scene's
// configuration, and unknown links are skipped with a warning.
#include "solver/scene_problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/objective_whole_body.hpp"
#include "solver/settings.hpp"
#include "solver/solver.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

std::shared_ptr<const Model> two_pandas() {
  return std::make_shared<const Model>(test::two_pandas());
}

Scene every_kind_scene() {
  return parse_scene(R"({"version": 1, "robot": "x",
    "joint_q": {"left_joint2": 0.4, "right_joint4": -2.0},
    "rest": {"left_joint4": -1.5},
    "objectives": [
      {"type": "pose", "name": "left", "link": "left_hand_tcp", "offset": [0.01, 0, 0.02],
       "weight": 2, "position_weights": [1, 1, 0], "rotation_weights": [0, 0.5, 1],
       "target": {"position": [0.5, 0.3, 0.6], "orientation": [0, 1, 0, 0]}},
      {"type": "position", "link": "right_hand_tcp", "hard": true, "enabled": false},
      {"type": "rotation", "link": "right_link7", "rotation_weights": [1, 0, 1]},
      {"type": "joint_limits", "weight": 3},
      {"type": "posture", "weight": 0.02, "null_space": true},
      {"type": "relative_ball", "link": "left_hand_tcp", "link_b": "right_hand_tcp",
       "offset_b": [0, 0, 0.05], "position_weights": [0, 1, 1], "hard": false},
      {"type": "relative_fixed", "link": "left_link7", "link_b": "right_link7",
       "relative": {"position": [0, -0.6, 0], "orientation": [0, 0, 0, 1]}},
      {"type": "min_distance", "link": "left_hand_tcp", "link_b": "right_hand_tcp",
       "distance": 0.15, "offset": [0, 0, 0.01]},
      {"type": "com", "position_weights": [1, 1, 0], "hard": true,
       "target": {"position": [0.1, 0.2, 0.0], "orientation": [0, 0, 0, 1]}},
      {"type": "look_at", "link": "left_link7", "offset": [0, 0, 0.1], "axis": [1, 0, 0],
       "cone": 0.1, "target": {"position": [1, 0, 1], "orientation": [0, 0, 0, 1]}},
      {"type": "axis_align", "link": "right_hand_tcp", "axis": [0, 1, 0],
       "direction": [0, 0.6, -0.8], "cone": 0.2, "weight": 0.5},
      {"type": "look_at", "name": "follow", "link": "right_link7", "axis": [1, 0, 0],
       "link_b": "left_hand_tcp", "offset_b": [0, 0, 0.02]}]})",
                     "every_kind.json", "");
}

// A floating robot's problems whose targets are far from the shared start begin with the base
// moved by the targeted links' mean offset (a review's motion capture 50 m from the scene's start
// took 260 iterations a row and left 10 of 199 unconverged); near ones, and a fixed base, keep
// the start.
TEST(SceneProblem, AFloatingRobotStartsNearTargetsFarFromIt) {
  Scene scene = load_scene(asset_dir() + "/robots/humanoid/preset.json");
  UrdfOptions opt;
  opt.floating_base = scene.floating_base;
  opt.load_meshes = false;
  auto model = load_urdf_file(resolve_robot(scene.robot), opt).model;
  const SceneSetup setup = resolve_scene(*model, scene);
  const Vec3<double> shifts[] = {{0, 0, 0}, {50, -3, 0}, {0.4, 0, 0}};
  IkProblem problem = make_problem(model, setup.objectives, 3, &setup.collision);
  apply_joint_settings(setup, problem);
  int moved_targets = 0;
  for (int i = 0; i < problem.objective_count(); ++i) {
    if (!problem.objective(i).has_target()) continue;
    ++moved_targets;
    for (int r = 0; r < 3; ++r) {
      Transform<double> t = setup.objectives[std::size_t(i)].target;
      t.p = t.p + shifts[r];
      problem.set_target_pose(i, r, t);
    }
  }
  ASSERT_GE(moved_targets, 2);  // the feet and a hand
  const std::vector<double> starts = starts_near_targets(problem, setup.q);
  const std::size_t nq = std::size_t(model->coord_count);
  ASSERT_EQ(starts.size(), 3 * nq);
  for (std::size_t c = 0; c < nq; ++c) {
    EXPECT_EQ(starts[c], setup.q[c]);
    EXPECT_EQ(starts[2 * nq + c], setup.q[c]) << "0.4 m: within kFarTargets, the start";
    const double shift = c < 3 ? shifts[1][int(c)] : 0.0;  // the free joint's x, y, z first
    EXPECT_NEAR(starts[nq + c], setup.q[c] + shift, 1e-9) << c;
  }
  // from there the far problem converges as the near one does
  SolverSettings settings;
  std::vector<std::string> warnings;
  apply_solver_json(scene.solver, settings, warnings);
  SolveResult far;
  make_cpu_solver()->solve(problem, settings, starts, far);
  for (int r = 0; r < 3; ++r) EXPECT_TRUE(far.problems[std::size_t(r)].converged) << r;
  EXPECT_LT(far.problems[1].total_iterations, 4 * far.problems[0].total_iterations + 20);
  // a centre of mass held in x and y only: moved by its offset there, not by its target's z
  IkProblem com(model, 1);
  Objective held;
  held.params.type = ObjectiveType::kCom;
  held.params.position_weights = {1, 1, 0};
  const int c = com.add_objective(held);
  State fk(*model);
  eval_fk(*model, setup.q, {}, fk);
  const Vec3<double> at = center_of_mass(model->view(), fk.body_q.data());
  com.set_target_position(c, 0, at + Vec3<double>{-30, 40, -5});
  const std::vector<double> moved = starts_near_targets(com, setup.q);
  ASSERT_EQ(moved.size(), nq);
  EXPECT_NEAR(moved[0], setup.q[0] - 30, 1e-9);
  EXPECT_NEAR(moved[1], setup.q[1] + 40, 1e-9);
  EXPECT_EQ(moved[2], setup.q[2]);
  // all near: the start itself; a fixed base: always the start
  IkProblem near = make_problem(model, setup.objectives, 2, &setup.collision);
  EXPECT_EQ(starts_near_targets(near, setup.q), setup.q);
  UrdfOptions fixed;
  fixed.load_meshes = false;
  auto panda = load_urdf_file(resolve_robot("panda"), fixed).model;
  IkProblem arm(panda);
  const int tcp = arm.add_position(panda->find_body("panda_hand_tcp"));
  arm.set_target_pose(tcp, 0, {{40, 0, 0}, {0, 0, 0, 1}});
  const std::vector<double> q(std::size_t(panda->coord_count), 0.1);
  EXPECT_EQ(starts_near_targets(arm, q), q);
}

TEST(SceneProblem, EveryFieldSurvivesSceneToObjectivesToScene) {
  auto m = two_pandas();
  Scene scene = every_kind_scene();
  ASSERT_TRUE(scene.warnings.empty()) << scene.warnings[0];
  SceneSetup setup = resolve_scene(*m, scene);
  ASSERT_TRUE(setup.warnings.empty()) << setup.warnings[0];
  ASSERT_EQ(setup.objectives.size(), scene.objectives.size());
  // the same file again, written from the objectives
  Scene again = scene;
  again.objectives.clear();
  for (const PlacedObjective& p : setup.objectives)
    again.objectives.push_back(objective_to_scene(*m, p));
  for (std::size_t i = 0; i < scene.objectives.size(); ++i) {
    SCOPED_TRACE("objective " + std::to_string(i));
    nlohmann::json a = scene_objective_to_json(scene.objectives[i]);
    nlohmann::json b = scene_objective_to_json(again.objectives[i]);
    // names default to the kind and links; "current" comes back as the pose it stood for
    if (!a.contains("name")) b.erase("name");
    if (a.contains("target") && a["target"] == "current") b["target"] = "current";
    EXPECT_EQ(a, b);
  }
  const ObjectiveParams<double>& pose = setup.objectives[0].objective.params;
  EXPECT_EQ(pose.position_weights.z, 0.0);
  EXPECT_EQ(pose.rotation_weights.y, 0.5);
  EXPECT_EQ(setup.objectives[0].target.p.x, 0.5);
}

TEST(SceneProblem, CurrentTargetsAndRelativePosesComeFromTheScenesConfiguration) {
  auto m = two_pandas();
  Scene scene = every_kind_scene();
  scene.objectives[0].target_current = true;
  scene.objectives[6].relative_current = true;
  SceneSetup setup = resolve_scene(*m, scene);
  EXPECT_EQ(setup.q[m->joint_q_start[m->find_joint("left_joint2")]], 0.4);
  EXPECT_EQ(setup.rest_q[m->joint_q_start[m->find_joint("left_joint4")]], -1.5);
  EXPECT_EQ(setup.q[m->joint_q_start[m->find_joint("left_joint4")]], -1.5);  // from the rest
  State fk(*m);
  eval_fk(*m, setup.q, {}, fk);
  const Transform<double>& tcp = fk.body_q[m->find_body("left_hand_tcp")];
  EXPECT_LT(
      length(setup.objectives[0].target.p - transform_point(tcp, Vec3<double>{0.01, 0, 0.02})),
      1e-15);
  Transform<double> rel = setup.objectives[6].objective.params.relative;
  Transform<double> want =
      inverse(fk.body_q[m->find_body("left_link7")]) * fk.body_q[m->find_body("right_link7")];
  EXPECT_LT(length(rel.p - want.p), 1e-15);
  // the posture's rest is the scene's rest
  EXPECT_EQ(setup.objectives[4].objective.rest_q, setup.rest_q);
}

// a "current" com target is the centre of mass; a "current" look_at target lies 1 m along the
// link's axis; both are met there
TEST(SceneProblem, CurrentComAndLookAtTargetsAreMet) {
  auto m = two_pandas();
  Scene scene = every_kind_scene();
  scene.objectives[8].target_current = true;
  scene.objectives[9].target_current = true;
  SceneSetup setup = resolve_scene(*m, scene);
  ASSERT_EQ(setup.objectives.size(), scene.objectives.size());
  IkProblem pr = make_problem(m, setup.objectives, 1);
  State fk(*m);
  eval_fk(*m, setup.q, {}, fk);
  Vec3<double> com = center_of_mass(m->view(), fk.body_q.data());
  EXPECT_LT(length(setup.objectives[8].target.p - com), 1e-15);
  Vec3<double> eye = transform_point(fk.body_q[m->find_body("left_link7")], {0, 0, 0.1});
  EXPECT_NEAR(length(setup.objectives[9].target.p - eye), 1.0, 1e-12);
  for (int oi : {8, 9}) {
    std::vector<double> r(3);
    objective_residual(pr.view(), oi, 0, setup.q.data(), fk.body_q.data(), r.data());
    for (double v : r) EXPECT_NEAR(v, 0.0, 1e-12) << oi;
  }
}

// a look_at with link_b follows that link's point: it has no target, and an unknown link_b
// skips it with a warning naming the link
TEST(SceneProblem, LookAtWithLinkBFollowsThatLink) {
  auto m = two_pandas();
  Scene scene = every_kind_scene();
  SceneSetup setup = resolve_scene(*m, scene);
  const Objective& follow = setup.objectives.back().objective;
  EXPECT_EQ(follow.params.link_b, m->find_body("left_hand_tcp"));
  EXPECT_EQ(follow.params.offset_b.z, 0.02);
  EXPECT_FALSE(follow.has_target());
  EXPECT_TRUE(setup.objectives[9].objective.has_target());  // the look_at with a target
  scene.objectives.back().link_b = "no_such_link";
  setup = resolve_scene(*m, scene);
  EXPECT_EQ(setup.objectives.size(), scene.objectives.size() - 1);
  ASSERT_FALSE(setup.warnings.empty());
  EXPECT_NE(setup.warnings.back().find("unknown link_b 'no_such_link'"), std::string::npos)
      << setup.warnings.back();
  // a point of the looking link itself: always or never in view, skipped the same way
  scene.objectives.back().link_b = scene.objectives.back().link;
  setup = resolve_scene(*m, scene);
  EXPECT_EQ(setup.objectives.size(), scene.objectives.size() - 1);
  ASSERT_FALSE(setup.warnings.empty());
  EXPECT_NE(setup.warnings.back().find("is the link itself"), std::string::npos)
      << setup.warnings.back();
}

TEST(SceneProblem, UnknownLinksAndJointsAreSkippedWithWarnings) {
  auto m = two_pandas();
  Scene scene = every_kind_scene();
  scene.objectives[1].link = "no_such_link";
  scene.objectives[5].link_b = scene.objectives[5].link;
  scene.joint_q["ghost_joint"] = {1.0};
  scene.rest["left_joint1"] = {1.0, 2.0};
  SceneSetup setup = resolve_scene(*m, scene);
  EXPECT_EQ(setup.objectives.size(), scene.objectives.size() - 2);
  ASSERT_EQ(setup.warnings.size(), 4u);
  EXPECT_EQ(setup.warnings[0], "rest: joint 'left_joint1' takes 1 values, got 2");
  EXPECT_EQ(setup.warnings[1], "joint_q: unknown joint 'ghost_joint' ignored");
  EXPECT_EQ(setup.warnings[2], "objective 1 (position): unknown link 'no_such_link', skipped");
  EXPECT_NE(setup.warnings[3].find("objective 5 (relative_ball): link_b"), std::string::npos);
}

// a continuous joint has no limits: a scene's finite ones for it are a warning, and ignored
TEST(SceneProblem, LimitsOfAContinuousJointAreIgnoredWithAWarning) {
  auto m = load_urdf_file(IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf").model;
  Scene scene = parse_scene(R"({"version": 1, "robot": "x", "joint_limits": {
    "turntable": [-1, 1], "wrist_roll": [null, null], "shoulder": [-1, 1]}})",
                            "limits.json", "");
  ASSERT_TRUE(scene.warnings.empty()) << scene.warnings[0];
  SceneSetup setup = resolve_scene(*m, scene);
  ASSERT_EQ(setup.warnings.size(), 1u);
  EXPECT_EQ(setup.warnings[0],
            "joint_limits: 'turntable' is continuous: it has no limits, ignored");
  const int turntable = m->joint_qd_start[m->find_joint("turntable")];
  const int shoulder = m->joint_qd_start[m->find_joint("shoulder")];
  EXPECT_EQ(setup.dof_lower[turntable], -HUGE_VAL);
  EXPECT_EQ(setup.dof_upper[turntable], HUGE_VAL);
  EXPECT_EQ(setup.dof_upper[shoulder], 1.0);
}

// a robot of joints src and follower (follower = -0.5 src + 0.2, src within [-2, 2], follower
// within [-5, 5]) on links a, b, c, and `more` links and joints
std::shared_ptr<const Model> follower_robot(const std::string& more) {
  UrdfOptions opt;
  opt.load_meshes = false;
  return load_urdf_string(R"(<robot name="m"><link name="a"/><link name="b"/><link name="c"/>
    <joint name="src" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
      <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
    <joint name="follower" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>
      <origin xyz="0.1 0 0"/><limit lower="-5" upper="5" effort="1" velocity="1"/>
      <mimic joint="src" multiplier="-0.5" offset="0.2"/></joint>
    )" + more + "</robot>",
                          "m.urdf", "", opt)
      .model;
}

// a mimic joint's scene limits narrow its source's, as a URDF mimic's <limit> does (they were
// ignored with a warning that called the joint one that does not move); a continuous source, or
// limits no value of the source keeps, are a warning
TEST(SceneProblem, AMimicJointsLimitsNarrowItsSource) {
  auto m = follower_robot(R"(<link name="d"/><link name="e"/>
    <joint name="spin" type="continuous"><parent link="c"/><child link="d"/><axis xyz="0 0 1"/>
      </joint>
    <joint name="geared" type="revolute"><parent link="d"/><child link="e"/><axis xyz="0 0 1"/>
      <limit lower="-5" upper="5" effort="1" velocity="1"/><mimic joint="spin"/></joint>)");
  Scene scene = parse_scene(R"({"version": 1, "robot": "x", "joint_limits": {
    "follower": [0, 0.3], "geared": [-1, 1], "src": [-1.5, 1.5]}})",
                            "limits.json", "");
  SceneSetup setup = resolve_scene(*m, scene);
  const int src = m->joint_qd_start[m->find_joint("src")];
  // follower = -0.5 src + 0.2 within [0, 0.3]: src within [-0.2, 0.4] (inside the scene's own)
  EXPECT_NEAR(setup.dof_lower[src], -0.2, 1e-12);
  EXPECT_NEAR(setup.dof_upper[src], 0.4, 1e-12);
  ASSERT_EQ(setup.warnings.size(), 1u);
  EXPECT_EQ(setup.warnings[0],
            "joint_limits: 'geared' follows 'spin' (mimic): its source is continuous, and has no "
            "limits, ignored");
  // limits the source cannot keep: follower within [2, 3] needs src below -3.6
  scene.joint_limits["follower"] = {2, 3};
  setup = resolve_scene(*m, scene);
  EXPECT_EQ(setup.dof_lower[src], -1.5);
  ASSERT_EQ(setup.warnings.size(), 2u);
  EXPECT_EQ(setup.warnings[0],
            "joint_limits: 'follower' follows 'src' (mimic): no value of its source within its "
            "limits keeps these, ignored");
}

// a scene's limits of a joint that a mimic follows keep the mimic within its own limits (the
// robot file's): wider ones are narrowed with a warning that says to what (a scene that widened
// the source held the mimic up to its new limits past its own), and ones no value of which keeps
// it are ignored with a warning naming it
TEST(SceneProblem, ASourcesLimitsKeepItsMimicWithinItsOwn) {
  auto m = follower_robot(R"(<link name="d"/>
    <joint name="free" type="revolute"><parent link="c"/><child link="d"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>)");
  // follower = -0.5 src + 0.2 within [-5, 5]: src within [-9.6, 10.4]
  Scene scene = parse_scene(R"({"version": 1, "robot": "x", "joint_limits": {
    "src": [-20, 3], "free": [-20, 20]}})",
                            "limits.json", "");
  SceneSetup setup = resolve_scene(*m, scene);
  const int src = m->joint_qd_start[m->find_joint("src")];
  const int free = m->joint_qd_start[m->find_joint("free")];
  EXPECT_NEAR(setup.dof_lower[src], -9.6, 1e-12);
  EXPECT_EQ(setup.dof_upper[src], 3.0);
  EXPECT_EQ(setup.dof_lower[free], -20.0);
  EXPECT_EQ(setup.dof_upper[free], 20.0);
  ASSERT_EQ(setup.warnings.size(), 2u);
  EXPECT_EQ(setup.warnings[0], "joint_limits: 'free' reaches beyond the robot file's limits");
  EXPECT_EQ(setup.warnings[1],
            "joint_limits: 'src' reaches beyond the robot file's limits; it is kept within "
            "[-9.6, 3], which keeps its mimic joint 'follower' within its limits");
  EXPECT_EQ(setup.left_out, 0);
  scene.joint_limits = {{"src", {11, 12}}};
  setup = resolve_scene(*m, scene);
  EXPECT_EQ(setup.dof_lower[src], -2.0);
  EXPECT_EQ(setup.dof_upper[src], 2.0);
  ASSERT_EQ(setup.warnings.size(), 1u);
  EXPECT_EQ(setup.warnings[0],
            "joint_limits: 'src' [11, 12] has no value that keeps its mimic joint 'follower' "
            "within its limits, ignored");
  EXPECT_EQ(setup.left_out, 1);
}

// a continuous source its mimic leaves continuous (limits [-4, 4] keep it at any angle in
// (-pi, pi]) takes no limits from it (a scene's [null, null] gave it [-4, 4], a joint the scene
// saved was refused on reopening); the warning names the mimics whose limits are kept, not one
// whose limits the loader refused
TEST(SceneProblem, AContinuousSourceTakesNoLimitsAndARefusedMimicIsNotNamed) {
  UrdfOptions opt;
  opt.load_meshes = false;
  auto m = load_urdf_string(R"(<robot name="c"><link name="a"/><link name="b"/><link name="c"/>
    <link name="d"/><link name="e"/><link name="f"/>
    <joint name="spin" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
      </joint>
    <joint name="wide" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 1 0"/>
      <limit lower="-4" upper="4" effort="1" velocity="1"/><mimic joint="spin"/></joint>
    <joint name="s" type="revolute"><parent link="c"/><child link="d"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
    <joint name="kept" type="revolute"><parent link="d"/><child link="e"/><axis xyz="0 1 0"/>
      <limit lower="-0.5" upper="0.5" effort="1" velocity="1"/><mimic joint="s"/></joint>
    <joint name="refused" type="revolute"><parent link="d"/><child link="f"/><axis xyz="1 0 0"/>
      <limit lower="2" upper="3" effort="1" velocity="1"/><mimic joint="s"/></joint></robot>)",
                            "c.urdf", "", opt)
               .model;
  ASSERT_EQ(JointType(m->joint_type[m->find_joint("spin")]), JointType::kContinuous);
  Scene scene = parse_scene(R"({"version": 1, "robot": "x", "joint_limits": {
    "spin": [null, null], "s": [-10, 10]}})",
                            "c.json", "");
  SceneSetup setup = resolve_scene(*m, scene);
  const int spin = m->joint_qd_start[m->find_joint("spin")];
  EXPECT_EQ(setup.dof_lower[spin], -HUGE_VAL);
  EXPECT_EQ(setup.dof_upper[spin], HUGE_VAL);
  ASSERT_EQ(setup.warnings.size(), 1u);
  EXPECT_EQ(setup.warnings[0],
            "joint_limits: 's' reaches beyond the robot file's limits; it is kept within "
            "[-0.5, 0.5], which keeps its mimic joint 'kept' within its limits");
}

// a joint_q value beyond the limits in force is moved into them with a warning that names it
// (90 typed in degrees read as 2.8973 rad without a word), and counts as left out (Save would
// write the moved value over the file's)
TEST(SceneProblem, AJointValueBeyondItsLimitsIsMovedWithAWarning) {
  auto m = two_pandas();
  Scene scene = parse_scene(R"({"version": 1, "robot": "x",
    "joint_q": {"left_joint1": 90, "left_joint2": 0.4, "right_joint1": 2,
                "right_joint2": 1.7628000000001},
    "joint_limits": {"right_joint1": [-1, 1]}})",
                            "deg.json", "");
  ASSERT_TRUE(scene.warnings.empty()) << scene.warnings[0];
  SceneSetup setup = resolve_scene(*m, scene);
  ASSERT_EQ(setup.warnings.size(), 2u) << setup.warnings[0];
  EXPECT_EQ(setup.warnings[0],
            "joint_q: joint 'left_joint1': 90 is beyond its limits, set to 2.8973");
  EXPECT_EQ(setup.warnings[1], "joint_q: joint 'right_joint1': 2 is beyond its limits, set to 1");
  EXPECT_EQ(setup.left_out, 2);
  EXPECT_EQ(setup.q[std::size_t(m->joint_q_start[m->find_joint("left_joint2")])], 0.4);
}

TEST(SceneProblem, ProblemHoldsTheDescriptionsAsTheyAre) {
  auto m = two_pandas();
  SceneSetup setup = resolve_scene(*m, every_kind_scene());
  IkProblem problem = make_problem(m, setup.objectives, 3);
  ASSERT_EQ(problem.objective_count(), int(setup.objectives.size()));
  for (int i = 0; i < problem.objective_count(); ++i) {
    const ObjectiveParams<double>& a = problem.objective(i).params;
    const ObjectiveParams<double>& b = setup.objectives[i].objective.params;
    EXPECT_EQ(a.type, b.type);
    EXPECT_EQ(a.weight, b.weight);
    EXPECT_EQ(a.hard, b.hard);
    EXPECT_EQ(a.enabled, b.enabled);
    EXPECT_EQ(a.null_space, b.null_space);
    EXPECT_EQ(a.position_weights.z, b.position_weights.z);
    EXPECT_EQ(a.rotation_weights.x, b.rotation_weights.x);
    for (int p = 0; p < 3; ++p) EXPECT_EQ(problem.target(i, p).p.x, setup.objectives[i].target.p.x);
  }
}

// a robot without mass (no <inertial>): the centre of mass its com objective holds is the mean
// of the bodies' centres, which `ikwb fk --com` said and a scene did not
TEST(SceneProblem, AComObjectiveOnARobotWithoutMassIsAWarning) {
  LoadResult lr = load_urdf_string(
      "<robot name=\"light\"><link name=\"a\"/><link name=\"b\"/><joint name=\"j\" "
      "type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/><limit "
      "lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint></robot>",
      "light.urdf", "");
  ASSERT_TRUE(lr.model);
  Scene scene = parse_scene(R"({"version": 1, "robot": "x", "objectives": [
      {"type": "position", "link": "b", "target": {"position": [0, 0, 0]}},
      {"type": "com", "target": {"position": [0, 0, 0]}}]})",
                            "com.json", "");
  SceneSetup setup = resolve_scene(*lr.model, scene);
  ASSERT_EQ(setup.warnings.size(), 1u);
  EXPECT_EQ(setup.warnings[0],
            "the robot has no mass (no body has one): the centre of mass its com and "
            "support_polygon objectives hold is the mean of the bodies' centres");
  scene.objectives.pop_back();  // no com objective: nothing to say
  EXPECT_TRUE(resolve_scene(*lr.model, scene).warnings.empty());
}

// A support polygon's margin against the widest its contacts allow (the radius of the largest
// circle inside their hull), on polygons whose inradius is known by hand: a 0.2 x 0.1 m rectangle
// (0.05 m, half its short side) and a 0.3-0.4-0.5 m right triangle ((0.3 + 0.4 - 0.5) / 2 = 0.1
// m); to the bisection's 1e-6 of the polygon's size, so the margins tried are 1e-4 m either side
TEST(SceneProblem, ASupportMarginWiderThanItsPolygonAllowsIsAWarning) {
  auto warn = [](std::vector<Vec3<double>> corners, double margin, bool enabled = true) {
    Objective o;
    o.params.type = ObjectiveType::kSupportPolygon;
    o.params.margin = margin;
    o.params.enabled = enabled;
    o.name = "balance";
    for (const Vec3<double>& c : corners) o.points.push_back({0, c});
    std::vector<std::string> warnings;
    warn_support_margin(3, o, {transform_identity<double>()}, "the scene's configuration",
                        warnings);
    return warnings;
  };
  const std::vector<Vec3<double>> rect = {{0, 0, 0}, {0.2, 0, 0}, {0.2, 0.1, 0}, {0, 0.1, 0}};
  EXPECT_TRUE(warn(rect, 0.0499).empty());
  const std::vector<std::string> w = warn(rect, 0.0501);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("objective 3 \"balance\" (support_polygon): margin 0.0501 m is more than "
                      "its support polygon allows at the scene's configuration (0.05 m)"),
            std::string::npos)
      << w[0];
  // whole, however long its numbers (a fixed buffer cut the end off)
  const std::vector<std::string> long_numbers = warn(rect, 0.123456);
  ASSERT_EQ(long_numbers.size(), 1u);
  EXPECT_NE(long_numbers[0].find("(0.05 m): no centre of mass is that far inside every edge, and "
                                 "the balance cannot hold unless the contacts spread"),
            std::string::npos)
      << long_numbers[0];
  const std::vector<Vec3<double>> tri = {{0, 0, 0.1}, {0.4, 0, 0}, {0, 0.3, 0}};
  EXPECT_TRUE(warn(tri, 0.0999).empty());
  EXPECT_EQ(warn(tri, 0.1001).size(), 1u);
  // a polygon without area (two points: one foot's edge; one point) takes no margin, and says
  // so (the margin was dropped without a word); a disabled objective is not checked
  for (const std::vector<Vec3<double>>& flat :
       {std::vector<Vec3<double>>{{0, 0, 0}, {0.2, 0, 0}}, std::vector<Vec3<double>>{{0, 0, 0}}}) {
    const std::vector<std::string> line = warn(flat, 0.02);
    ASSERT_EQ(line.size(), 1u);
    EXPECT_NE(line[0].find("objective 3 \"balance\" (support_polygon): its contacts make a point "
                           "or a line at the scene's configuration, not a polygon: the margin "
                           "0.02 m does not apply"),
              std::string::npos)
        << line[0];
  }
  EXPECT_TRUE(warn(rect, 0.5, false).empty());
}

// A contact link without points stands on the bottoms of its shapes that are as low as the
// lowest (less than kSoleHeight above it): a sole of four spheres, as MuJoCo Menagerie's G1 has,
// gave its first toe sphere alone (both feet then made a line the centre of mass was held on, the
// robot on its toes); a raised sphere (an ankle's) is not stood on; a box gives its bottom face and
// two boxes side by side the outline of both
TEST(SceneProblem, AContactLinkStandsOnEveryShapeAsLowAsItsLowest) {
  auto foot = [](const std::string& shapes) {
    const std::string xml = R"(<robot name="r"><link name="base"/>
      <link name="foot">)" + shapes +
                            R"(</link>
      <joint name="j" type="revolute"><parent link="base"/><child link="foot"/>
        <origin xyz="0 0 0.5"/><axis xyz="0 1 0"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>)";
    LoadResult r = load_urdf_string(xml, "foot.urdf", "");
    State fk(*r.model);
    eval_fk(*r.model, std::vector<double>(std::size_t(r.model->coord_count), 0.0), {}, fk);
    std::vector<Vec3<double>> points =
        lowest_face_points(*r.model, r.model->find_body("foot"), fk.body_q);
    std::sort(points.begin(), points.end(), [](const Vec3<double>& a, const Vec3<double>& b) {
      return a.x != b.x ? a.x < b.x : a.y < b.y;
    });
    return points;
  };
  auto sphere = [](double x, double y, double z, double r) {
    return "<collision><origin xyz=\"" + std::to_string(x) + " " + std::to_string(y) + " " +
           std::to_string(z) + "\"/><geometry><sphere radius=\"" + std::to_string(r) +
           "\"/></geometry></collision>";
  };
  auto box = [](double x, double sx) {
    return "<collision><origin xyz=\"" + std::to_string(x) + " 0 -0.02\"/><geometry><box size=\"" +
           std::to_string(sx) + " 0.08 0.04\"/></geometry></collision>";
  };
  auto expect_points = [](const std::vector<Vec3<double>>& got,
                          const std::vector<Vec3<double>>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[i][k], want[i][k], 1e-12) << i << " " << k;
  };
  const std::string sole = sphere(0.13, 0.02, -0.03, 0.005) + sphere(0.13, -0.02, -0.03, 0.005) +
                           sphere(-0.06, 0.02, -0.03, 0.005) + sphere(-0.06, -0.02, -0.03, 0.005);
  const std::vector<Vec3<double>> corners = {
      {-0.06, -0.02, -0.035}, {-0.06, 0.02, -0.035}, {0.13, -0.02, -0.035}, {0.13, 0.02, -0.035}};
  expect_points(foot(sole), corners);
  expect_points(foot(sole + sphere(0, 0, 0.05, 0.02)), corners);
  expect_points(foot(sphere(0, 0, 0.05, 0.02)), {{0, 0, 0.03}});
  expect_points(
      foot(box(0, 0.2)),
      {{-0.1, -0.04, -0.04}, {-0.1, 0.04, -0.04}, {0.1, -0.04, -0.04}, {0.1, 0.04, -0.04}});
  // a bumper 1 cm above the sole (a big sphere reaching out past it) is not stood on
  expect_points(
      foot(box(0, 0.2) + sphere(0.05, 0, 0.07, 0.1)),
      {{-0.1, -0.04, -0.04}, {-0.1, 0.04, -0.04}, {0.1, -0.04, -0.04}, {0.1, 0.04, -0.04}});
  // a heel box and a toe box: the outer corners (the ones where they meet are on its edges)
  expect_points(
      foot(box(-0.05, 0.1) + box(0.05, 0.1)),
      {{-0.1, -0.04, -0.04}, {-0.1, 0.04, -0.04}, {0.1, -0.04, -0.04}, {0.1, 0.04, -0.04}});
}

}  // namespace
}  // namespace ikwb
