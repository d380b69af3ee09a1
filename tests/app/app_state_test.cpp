// Tests for app/gui/app_state and scene_bridge: robot loading keeps the current robot on
// failure, presets with "current" targets, objectives and selection, the sync point, joint edits
// and scene round trips. No window needed (shipped robots from assets/).
#include "app/gui/app_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <filesystem>
#include <fstream>

namespace ikwb::gui {
namespace {

double distance(const Vec3<double>& a, const Vec3<double>& b) {
  return length(a - b);
}

TEST(AppState, PresetStartsWithCurrentTargetsAtTheRestPose) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  ASSERT_TRUE(app.model);
  EXPECT_EQ(app.robot_title, "panda");
  ASSERT_EQ(app.objectives.size(), 3u);
  EXPECT_EQ(app.objectives[0].type(), ObjectiveType::kPose);
  EXPECT_EQ(app.model->body_name[app.objectives[0].link()], "panda_hand_tcp");
  EXPECT_EQ(app.objectives[1].type(), ObjectiveType::kPosture);
  EXPECT_EQ(app.objectives[2].type(), ObjectiveType::kJointLimits);
  // rest posture from the preset, target at the link there
  EXPECT_NEAR(app.joint_q[app.model->joint_q_start[app.model->find_joint("panda_joint4")]],
              -2.356194, 1e-9);
  app.ensure_fk();
  Transform<double> tcp = app.link_point_pose(0);
  EXPECT_LT(distance(tcp.p, app.objectives[0].target.p), 1e-12);
  EXPECT_EQ(app.selection.objective, 0);
  // the preset's solver settings
  EXPECT_EQ(app.settings.n_seeds, 16);
  EXPECT_EQ(app.settings.sampler, Sampler::kRoberts);
  EXPECT_EQ(app.settings.max_iterations, 20);
  app.sync();
  app.evaluate();
  EXPECT_TRUE(app.objectives[0].status.reached);
}

TEST(AppState, EveryShippedPresetOpensWhole) {
  for (const char* name :
       {"panda", "ur5e", "iiwa7", "dual_arm", "humanoid", "quadruped", "planar3"}) {
    AppState app;
    ASSERT_TRUE(app.open_robot_preset(name)) << name;
    for (const Message& m : app.messages) EXPECT_NE(m.level, Message::kError) << m.text;
    for (const Message& m : app.messages) EXPECT_NE(m.level, Message::kWarning) << m.text;
    EXPECT_GE(app.objectives.size(), 3u) << name;
    app.sync();
    app.evaluate();
    for (const WorkbenchObjective& o : app.objectives)
      EXPECT_TRUE(o.status.reached) << name << " " << o.name();
  }
  // the dual arm's tools are kept apart by a hard min_distance objective
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("dual_arm"));
  const WorkbenchObjective& gap = app.objectives[2];
  EXPECT_EQ(gap.type(), ObjectiveType::kMinDistance);
  EXPECT_EQ(app.model->body_name[gap.spec.params.link_b], "right_tool");
  EXPECT_TRUE(gap.spec.params.hard);
  EXPECT_NEAR(gap.spec.params.distance, 0.12, 1e-12);
  app.sync();
  EXPECT_EQ(app.problem()->objective_count(), int(app.objectives.size()));
}

TEST(AppState, FailedLoadKeepsTheCurrentRobot) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  auto model = app.model;
  uint64_t version = app.model_version;
  std::string bad = (std::filesystem::path(::testing::TempDir()) / "ikwb_bad.urdf").string();
  std::ofstream(bad) << "<robot name='x'><link name='a'/><joint name='j' type='revolute'>";
  EXPECT_FALSE(app.load_robot(bad));
  EXPECT_FALSE(app.load_robot("/no/such/robot.urdf"));
  EXPECT_EQ(app.model, model);
  EXPECT_EQ(app.model_version, version);
  EXPECT_EQ(app.objectives.size(), 3u);
  ASSERT_FALSE(app.messages.empty());
  EXPECT_EQ(app.messages.back().level, Message::kError);
  EXPECT_NE(app.messages.back().text.find("/no/such/robot.urdf"), std::string::npos);
  std::filesystem::remove(bad);
}

// a mesh's missing .mtl or texture is a warning in the messages, once for a mesh two links use
// (tests/data/robots/missing_materials); the robot opens with every mesh
TEST(AppState, MissingMaterialFilesAreWarnedInTheMessages) {
  AppState app;
  ASSERT_TRUE(app.load_robot(IKWB_SOURCE_DIR
                             "/tests/data/robots/missing_materials/missing_materials.urdf"));
  int mtl = 0, textures = 0;
  for (const Message& m : app.messages) {
    if (m.level != Message::kWarning) continue;
    mtl += m.text.find("mesh 'meshes/arm.obj': material library 'arm_colors.mtl'") !=
           std::string::npos;
    textures += m.text.find("': texture '") != std::string::npos;
  }
  EXPECT_EQ(mtl, 1);
  EXPECT_EQ(textures, 2);
  for (const auto& visuals : app.model->body_visuals)
    for (const Geometry& g : visuals) EXPECT_FALSE(g.placeholder) << g.mesh_uri;
}

// the Add button and the link menu (new_objective, add_objective) name a second position
// objective on a link "position LINK 2"; a scene that names two objectives alike still opens as
// it is
TEST(AppState, AddedObjectivesGetNamesOfTheirOwnScenesKeepTheirs) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const int tcp = app.model->find_body("panda_hand_tcp");
  const int a = app.add_objective(app.new_objective(ObjectiveType::kPosition, tcp));
  const int b = app.add_objective(app.new_objective(ObjectiveType::kPosition, tcp));
  EXPECT_EQ(app.objectives[a].name(), "position panda_hand_tcp");
  EXPECT_EQ(app.objectives[b].name(), "position panda_hand_tcp 2");
  EXPECT_NE(app.messages.back().text.find("position panda_hand_tcp 2"), std::string::npos);

  Scene scene = app.make_scene();
  scene.objectives[b].name = scene.objectives[a].name;
  ASSERT_TRUE(app.apply_scene(scene));
  ASSERT_EQ(app.objectives.size(), scene.objectives.size());
  EXPECT_EQ(app.objectives[a].name(), "position panda_hand_tcp");
  EXPECT_EQ(app.objectives[b].name(), "position panda_hand_tcp");
}

TEST(AppState, ObjectivesSelectionAndSync) {
  AppState app;
  ASSERT_TRUE(app.load_robot("ur5e"));
  EXPECT_TRUE(app.objectives.empty());
  const int tool = app.model->find_body("tool0");
  EXPECT_EQ(app.add_objective(app.new_objective(ObjectiveType::kPose)), -1);  // needs a link
  EXPECT_EQ(app.messages.back().level, Message::kError);
  int pose = app.add_objective(app.new_objective(ObjectiveType::kPose, tool));
  int limits = app.add_objective(app.new_objective(ObjectiveType::kJointLimits));
  int posture = app.add_objective(app.new_objective(ObjectiveType::kPosture));
  EXPECT_EQ(app.add_objective(app.new_objective(ObjectiveType::kJointLimits)), -1);  // only one
  ASSERT_EQ(pose, 0);
  EXPECT_EQ(limits, 1);
  EXPECT_EQ(posture, 2);
  EXPECT_EQ(app.selection.objective, 0);

  app.sync();
  ASSERT_NE(app.problem(), nullptr);
  EXPECT_EQ(app.problem()->objective_count(), 3);
  uint64_t serial = app.problem_serial();

  // edits in place: same problem, new values
  app.objectives[0].spec.params.weight = 0.25;
  app.objectives[0].spec.params.hard = true;
  Transform<double> t = app.objectives[0].target;
  t.p.z += 0.1;
  app.set_target(0, t);
  app.sync();
  EXPECT_EQ(app.problem_serial(), serial);
  EXPECT_DOUBLE_EQ(app.problem()->objective(0).params.weight, 0.25);
  EXPECT_TRUE(app.problem()->objective(0).params.hard);
  EXPECT_DOUBLE_EQ(app.problem()->target(0, 0).p.z, t.p.z);

  // structural edits rebuild, and the selection follows the indices; each is one edit
  app.selection.objective = 2;
  uint64_t edits = app.edit_serial;
  app.remove_objective(0);
  EXPECT_EQ(app.edit_serial, edits + 1);
  EXPECT_EQ(app.selection.objective, 1);
  app.sync();
  EXPECT_NE(app.problem_serial(), serial);
  EXPECT_EQ(app.problem()->objective_count(), 2);

  app.select_link(tool);
  EXPECT_EQ(app.selection.body, tool);
}

TEST(AppState, JointEditsMoveTargetsOrHoldTheJoint) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const int j1 = app.model->find_joint("panda_joint1");
  const int q1 = app.model->joint_q_start[j1];
  Vec3<double> before = app.objectives[0].target.p;
  app.set_joint(j1, 0.4);
  EXPECT_DOUBLE_EQ(app.joint_q[q1], 0.4);
  EXPECT_EQ(app.held_joint, j1);
  // no FK in the setter: the targets follow at the next FK (the frame step's)
  EXPECT_EQ(distance(app.objectives[0].target.p, before), 0.0);
  app.ensure_fk();
  EXPECT_GT(distance(app.objectives[0].target.p, before), 0.05);  // targets follow
  EXPECT_LT(distance(app.objectives[0].target.p, app.link_point_pose(0).p), 1e-12);
  // limits clamp; the held joint is frozen for the solver
  app.set_joint(j1, 100.0);
  EXPECT_DOUBLE_EQ(app.joint_q[q1], app.model->dof_upper[app.model->joint_qd_start[j1]]);
  app.sync();
  const auto& mask = app.problem()->dof_mask();
  ASSERT_EQ(int(mask.size()), app.model->dof_count);
  EXPECT_EQ(mask[app.model->joint_qd_start[j1]], 0);
  app.held_joint = -1;
  app.sync();
  EXPECT_TRUE(app.problem()->dof_mask().empty());
}

// a planar joint's three coordinates are edited one at a time (the Joints panel's x, y and angle)
TEST(AppState, PlanarJointCoordinatesAreEditable) {
  AppState app;
  ASSERT_TRUE(
      app.load_robot(std::string(IKWB_SOURCE_DIR) + "/tests/data/hostile/urdf/planar_joint.urdf"));
  const int j = app.model->find_joint("table");
  const int qs = app.model->joint_q_start[j];
  app.set_joint_coordinate(j, 0, 0.25);
  app.set_joint_coordinate(j, 1, -0.5);
  app.set_joint_coordinate(j, 2, 1.0);
  EXPECT_EQ(app.joint_q[qs], 0.25);
  EXPECT_EQ(app.joint_q[qs + 1], -0.5);
  EXPECT_EQ(app.joint_q[qs + 2], 1.0);
  EXPECT_EQ(app.held_joint, j);
  app.ensure_fk();
  EXPECT_NEAR(app.fk.body_q[app.model->find_body("puck")].p.x, 0.25, 1e-12);
  // no fourth coordinate, no NaN, and set_joint is for 1-dof joints only
  app.set_joint_coordinate(j, 3, 7.0);
  app.set_joint_coordinate(j, 0, std::nan(""));
  app.set_joint(j, 9.0);
  EXPECT_EQ(app.joint_q, (std::vector<double>{0.25, -0.5, 1.0}));
}

TEST(AppState, SceneRoundTrip) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  app.objectives[0].spec.params.weight = 0.5;
  app.objectives[1].spec.params.null_space = true;
  app.settings.n_seeds = 5;
  app.set_joint(app.model->find_joint("joint2"), 0.3);
  Scene scene = app.make_scene();
  EXPECT_FALSE(scene.objectives[0].target_current);

  AppState other;
  ASSERT_TRUE(other.apply_scene(scene));
  ASSERT_EQ(other.objectives.size(), app.objectives.size());
  for (std::size_t i = 0; i < app.objectives.size(); ++i) {
    EXPECT_EQ(other.objectives[i].type(), app.objectives[i].type());
    EXPECT_EQ(other.objectives[i].link(), app.objectives[i].link());
    EXPECT_EQ(other.objectives[i].spec.params.weight, app.objectives[i].spec.params.weight);
    EXPECT_EQ(other.objectives[i].spec.params.null_space, app.objectives[i].spec.params.null_space);
    EXPECT_LT(distance(other.objectives[i].target.p, app.objectives[i].target.p), 1e-12);
  }
  EXPECT_EQ(other.joint_q, app.joint_q);
  EXPECT_EQ(other.settings.n_seeds, 5);
}

// the xacro arguments the robot was opened with are saved into the scene, and a scene's replace
// the session's for its robot when it opens (for a URDF they are ignored with a warning); a
// robot opened after it takes the session's again
TEST(AppState, XacroArgumentsRoundTripThroughAScene) {
  AppState app;
  app.urdf_options.xacro_args = {"name:=ur"};
  ASSERT_TRUE(app.load_robot("planar3"));
  Scene scene = app.make_scene();
  EXPECT_EQ(scene.xacro_args, (std::vector<std::string>{"name:=ur"}));
  scene.xacro_args = {"ur_type:=ur5e"};
  AppState other;
  ASSERT_TRUE(other.apply_scene(scene));
  EXPECT_EQ(other.robot_options.xacro_args, scene.xacro_args);
  EXPECT_EQ(other.make_scene().xacro_args, scene.xacro_args);
  ASSERT_TRUE(other.load_robot("planar3"));
  EXPECT_TRUE(other.make_scene().xacro_args.empty());
}

// a scene's floating base is its robot's: a fixed-base robot opened after the humanoid's preset
// stays fixed (it stood on a free joint of 6 more dofs)
TEST(AppState, AFloatingBaseStaysWithItsScenesRobot) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("humanoid"));
  EXPECT_TRUE(app.make_scene().floating_base);
  ASSERT_TRUE(app.load_robot("ur5e"));
  EXPECT_EQ(app.model->dof_count, 6);
  EXPECT_FALSE(app.make_scene().floating_base);
  // the command line's --floating-base is the session's
  app.urdf_options.floating_base = true;
  ASSERT_TRUE(app.load_robot("ur5e"));
  EXPECT_EQ(app.model->dof_count, 12);
  EXPECT_TRUE(app.make_scene().floating_base);
}

// the frame budget is kept in the scene's extra; a scene without one (or a bad one) gets the
// default; undo keeps the budget the user set (like the solver settings)
TEST(AppState, FrameBudgetRoundTripsThroughAScene) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  EXPECT_EQ(app.frame_budget_ms, kDefaultFrameBudgetMs);
  app.frame_budget_ms = 0;
  Scene scene = app.make_scene();
  EXPECT_EQ(scene.extra.value("frame_budget_ms", -1.0), 0.0);
  AppState other;
  ASSERT_TRUE(other.apply_scene(scene));
  EXPECT_EQ(other.frame_budget_ms, 0.0);
  other.frame_budget_ms = 12.5;
  ASSERT_TRUE(other.restore_scene(scene, "undo"));
  EXPECT_EQ(other.frame_budget_ms, 12.5);
  scene.extra.erase("frame_budget_ms");
  ASSERT_TRUE(other.apply_scene(scene));
  EXPECT_EQ(other.frame_budget_ms, kDefaultFrameBudgetMs);
  scene.extra["frame_budget_ms"] = -3;
  other.frame_budget_ms = 0;
  ASSERT_TRUE(other.apply_scene(scene));
  EXPECT_EQ(other.frame_budget_ms, kDefaultFrameBudgetMs);
  EXPECT_TRUE(std::any_of(other.messages.begin(), other.messages.end(), [](const Message& m) {
    return m.text.find("frame_budget_ms") != std::string::npos;
  }));
}

// a scene's solver settings apply over the workbench's defaults, not over what the scene open
// before it left (a tolerance of the first stayed for the second); a URDF has none and keeps
// the session's; the backend is the session's choice and stays
TEST(AppState, ASceneOpensWithItsOwnSolverSettings) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  Scene loose = app.make_scene();
  loose.solver = {{"tol_position", 1e-3}, {"n_seeds", 3}};
  ASSERT_TRUE(app.apply_scene(loose));
  EXPECT_EQ(app.settings.tol_position, 1e-3);
  EXPECT_EQ(app.settings.n_seeds, 3);
  ASSERT_TRUE(app.load_robot("ur5e"));
  EXPECT_EQ(app.settings.tol_position, 1e-3);
  app.settings.backend = Backend::kCuda;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const SolverSettings defaults = interactive_solver_settings();
  EXPECT_EQ(app.settings.tol_position, defaults.tol_position);
  EXPECT_EQ(app.settings.n_seeds, 16);  // the preset's
  EXPECT_EQ(app.settings.backend, Backend::kCuda);
}

// issue 13's data loss: per-axis weights survive open / save and reach the live solve
TEST(AppState, PerAxisWeightsSurviveOpenAndSaveAndReachTheSolver) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  Scene saved = app.make_scene();
  saved.objectives[0].position_weights = {1, 1, 0};
  saved.objectives[0].rotation_weights = {0.5, 1, 1};
  AppState other;
  ASSERT_TRUE(other.apply_scene(saved));
  other.sync();
  const ObjectiveParams<double>& p = other.problem()->objective(0).params;
  EXPECT_EQ(p.position_weights.z, 0.0);
  EXPECT_EQ(p.rotation_weights.x, 0.5);
  Scene again = other.make_scene();
  ASSERT_EQ(again.objectives.size(), saved.objectives.size());
  for (std::size_t i = 0; i < saved.objectives.size(); ++i)
    EXPECT_EQ(scene_objective_to_json(again.objectives[i]),
              scene_objective_to_json(saved.objectives[i]))
        << i;
  // an edit in the workbench reaches the solver without rebuilding the problem
  const uint64_t serial = other.problem_serial();
  other.objectives[0].spec.params.position_weights = {0, 1, 1};
  other.sync();
  EXPECT_EQ(other.problem_serial(), serial);
  EXPECT_EQ(other.problem()->objective(0).params.position_weights.x, 0.0);
}

// an edit the solver refuses is undone with a message; the app keeps what it had
TEST(AppState, RefusedEditIsUndoneWithAMessage) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  app.sync();
  app.objectives[0].spec.params.weight = -1;
  app.sync();
  EXPECT_EQ(app.objectives[0].spec.params.weight, app.problem()->objective(0).params.weight);
  EXPECT_GE(app.objectives[0].spec.params.weight, 0.0);
  ASSERT_FALSE(app.messages.empty());
  EXPECT_NE(app.messages.back().text.find("weight must be finite and >= 0"), std::string::npos)
      << app.messages.back().text;
}

// an edit refused in the frame that also adds an objective (the problem is rebuilt) is undone
// the same way, not thrown out of the frame
TEST(AppState, RefusedEditWhileTheProblemIsRebuiltIsUndone) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  app.sync();
  const uint64_t serial = app.problem_serial();
  ASSERT_GE(app.add_objective(
                app.new_objective(ObjectiveType::kPosition, app.model->find_body("panda_link5"))),
            0);
  const int posture = 1;
  ASSERT_EQ(app.objectives[posture].type(), ObjectiveType::kPosture);
  app.objectives[posture].spec.params.hard = 1;
  EXPECT_NO_THROW(app.sync());
  EXPECT_NE(app.problem_serial(), serial);
  EXPECT_EQ(app.problem()->objective_count(), 4);
  EXPECT_FALSE(app.objectives[posture].spec.params.hard);
  EXPECT_FALSE(app.problem()->objective(posture).params.hard);
  EXPECT_NE(app.messages.back().text.find("edit of posture undone"), std::string::npos)
      << app.messages.back().text;
}

// the weight of a null-space posture sets its rate, not a trade-off: said once when it is set
TEST(AppState, AWeightSetOnANullSpacePostureSaysWhatItDoesOnce) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("humanoid"));
  int posture = -1;
  for (int i = 0; i < int(app.objectives.size()); ++i)
    if (app.objectives[i].type() == ObjectiveType::kPosture) posture = i;
  ASSERT_GE(posture, 0);
  ASSERT_TRUE(app.objectives[posture].spec.params.null_space);
  auto said = [&]() {
    int n = 0;
    for (const Message& m : app.messages)
      n += m.text.find("works in the null space") != std::string::npos ? 1 : 0;
    return n;
  };
  app.note_weight_set(0);  // a foot: nothing to say
  EXPECT_EQ(said(), 0);
  const uint64_t edits = app.edit_serial;
  app.note_weight_set(posture);
  EXPECT_EQ(said(), 1);
  EXPECT_GT(app.edit_serial, edits);
  app.note_weight_set(posture);
  EXPECT_EQ(said(), 1);
}

// a preset that does not place its floating root opens standing on the ground grid (its lowest
// collision shape on z = 0: the humanoid's sole boxes, the quadruped's foot spheres), its
// "current" targets where the feet then are
TEST(AppState, FloatingPresetsOpenStandingOnTheGrid) {
  for (const char* robot : {"humanoid", "quadruped"}) {
    AppState app;
    ASSERT_TRUE(app.open_robot_preset(robot)) << robot;
    app.ensure_fk();
    double lowest = 1e300;
    for (int b = 0; b < app.model->body_count; ++b)
      for (const Geometry& g : app.model->body_collisions[b]) {
        const Transform<double> x = app.fk.body_q[b] * g.origin;
        if (g.type == GeometryType::kSphere) lowest = std::min(lowest, x.p.z - g.size.x);
        if (g.type != GeometryType::kBox) continue;
        for (int c = 0; c < 8; ++c)
          lowest =
              std::min(lowest, transform_point(x, Vec3<double>{(c & 1 ? 0.5 : -0.5) * g.size.x,
                                                               (c & 2 ? 0.5 : -0.5) * g.size.y,
                                                               (c & 4 ? 0.5 : -0.5) * g.size.z})
                                   .z);
      }
    EXPECT_NEAR(lowest, 0.0, 1e-9) << robot;
    for (const gui::WorkbenchObjective& o : app.objectives) {
      if (!o.has_target() || !o.spec.params.hard) continue;
      EXPECT_GT(o.target.p.z, -1e-9) << o.name();
    }
  }
}

TEST(AppState, SolverSettingsJson) {
  SolverSettings s = interactive_solver_settings();
  std::vector<std::string> warnings;
  apply_solver_json({{"n_seeds", 64},
                     {"sampler", "roberts"},
                     {"damping", 0.01},
                     {"prefer_closest", false},
                     {"colour", "red"},
                     {"iterations", -3}},
                    s, warnings);
  EXPECT_EQ(s.n_seeds, 64);
  EXPECT_EQ(s.sampler, Sampler::kRoberts);
  EXPECT_DOUBLE_EQ(s.lambda_init, 0.01);
  EXPECT_FALSE(s.prefer_closest);
  EXPECT_EQ(s.max_iterations, 15);  // the bad value is ignored
  EXPECT_EQ(warnings.size(), 2u);
  SolverSettings back = interactive_solver_settings();
  apply_solver_json(solver_settings_json(s), back, warnings);
  EXPECT_EQ(back.n_seeds, 64);
  EXPECT_EQ(warnings.size(), 2u);
}

}  // namespace
}  // namespace ikwb::gui
