// Tests for app/gui/script_objectives: `add` and `set` take the fields each kind reads (from the
// kind table), and refuse the others with a message listing what the kind takes. No window.
#include "app/gui/script_objectives.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace ikwb::gui {
namespace {

std::vector<std::string> words(std::initializer_list<const char*> w) {
  return std::vector<std::string>(w.begin(), w.end());
}

TEST(ScriptObjectives, AddTakesTheFieldsOfItsKind) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("dual_arm"));
  const std::size_t n = app.objectives.size();
  std::string error;
  ASSERT_TRUE(
      script_add_objective(app,
                           words({"add", "pose", "left_tool", "offset", "1cm", "0", "0", "weight",
                                  "2", "position_weights", "1", "1", "0", "hard", "name", "grip"}),
                           &error))
      << error;
  const WorkbenchObjective& o = app.objectives[n];
  EXPECT_EQ(o.name(), "grip");
  EXPECT_EQ(o.type(), ObjectiveType::kPose);
  EXPECT_DOUBLE_EQ(o.spec.params.offset.x, 0.01);
  EXPECT_EQ(o.spec.params.weight, 2.0);
  EXPECT_EQ(o.spec.params.position_weights.z, 0.0);
  EXPECT_TRUE(o.spec.params.hard);
  // a pair kind takes two links (scenes only before: now scripts too)
  ASSERT_TRUE(script_add_objective(
      app, words({"add", "min_distance", "left_tool", "right_tool", "distance", "15cm"}), &error))
      << error;
  EXPECT_DOUBLE_EQ(app.objectives[n + 1].spec.params.distance, 0.15);
  EXPECT_TRUE(app.objectives[n + 1].spec.params.hard);  // the kind's default
}

// a relative_fixed holds the two links as they stand when it is added (a scene's "relative":
// "current"), not the identity, which pulled the arms together
TEST(ScriptObjectives, ARelativeFixedHoldsThePairAsItStands) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("dual_arm"));
  app.ensure_fk();
  const int a = app.model->find_body("left_tool"), b = app.model->find_body("right_tool");
  std::string error;
  ASSERT_TRUE(script_add_objective(app, words({"add", "relative_fixed", "left_tool", "right_tool"}),
                                   &error))
      << error;
  const Transform<double> want = inverse(app.fk.body_q[a]) * app.fk.body_q[b];
  const Transform<double>& got = app.objectives.back().spec.params.relative;
  EXPECT_NEAR(length(got.p - want.p), 0.0, 1e-12);
  EXPECT_GT(length(want.p), 0.1);
  EXPECT_NEAR(
      std::abs(got.q.x * want.q.x + got.q.y * want.q.y + got.q.z * want.q.z + got.q.w * want.q.w),
      1.0, 1e-12);
}

// a second objective of a kind on the same link, or of a name given twice, gets a name of its
// own: explanations and target files name objectives
TEST(ScriptObjectives, AddGivesEachObjectiveANameOfItsOwn) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const std::size_t n = app.objectives.size();
  std::string error;
  for (int k = 0; k < 3; ++k)
    ASSERT_TRUE(script_add_objective(app, words({"add", "position", "panda_hand_tcp"}), &error))
        << error;
  for (int k = 0; k < 2; ++k)
    ASSERT_TRUE(
        script_add_objective(app, words({"add", "rotation", "panda_hand", "name", "grip"}), &error))
        << error;
  ASSERT_EQ(app.objectives.size(), n + 5);
  EXPECT_EQ(app.objectives[n].name(), "position panda_hand_tcp");
  EXPECT_EQ(app.objectives[n + 1].name(), "position panda_hand_tcp 2");
  EXPECT_EQ(app.objectives[n + 2].name(), "position panda_hand_tcp 3");
  EXPECT_EQ(app.objectives[n + 3].name(), "grip");
  EXPECT_EQ(app.objectives[n + 4].name(), "grip 2");
}

// the whole-body kinds: com has no link and its target starts at the centre of mass (met);
// look_at's target starts 1 m along its axis (met); axis_align has no target
TEST(ScriptObjectives, AddsWholeBodyKindsWithTheirTargetsMet) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const std::size_t n = app.objectives.size();
  std::string error;
  ASSERT_TRUE(script_add_objective(
      app, words({"add", "com", "position_weights", "1", "1", "0", "hard"}), &error))
      << error;
  ASSERT_TRUE(script_add_objective(
      app, words({"add", "look_at", "panda_hand", "axis", "1", "0", "0", "cone", "5deg"}), &error))
      << error;
  ASSERT_TRUE(script_add_objective(
      app, words({"add", "axis_align", "panda_link7", "direction", "0", "1", "0"}), &error))
      << error;
  EXPECT_FALSE(
      script_add_objective(app, words({"add", "com", "direction", "0", "1", "0"}), &error));
  const WorkbenchObjective& com = app.objectives[n];
  EXPECT_EQ(com.link(), -1);
  EXPECT_TRUE(com.has_target() && com.has_target_position() && !com.has_target_orientation());
  Vec3<double> c = center_of_mass(app.model->view(), app.fk.body_q.data());
  EXPECT_LT(length(com.target.p - c), 1e-12);
  const WorkbenchObjective& look = app.objectives[n + 1];
  EXPECT_NEAR(look.spec.params.cone, 5 * 3.141592653589793 / 180, 1e-12);
  EXPECT_TRUE(look.has_target_position() && !look.has_target_orientation());
  const Transform<double>& hand = app.fk.body_q[look.link()];
  EXPECT_LT(length(look.target.p - (hand.p + rotate(hand.q, Vec3<double>{1, 0, 0}))), 1e-12);
  EXPECT_FALSE(app.objectives[n + 2].has_target());
  EXPECT_EQ(app.objectives[n + 2].spec.params.direction.y, 1.0);
  app.sync();
  app.evaluate();
  EXPECT_LT(length(com.status.current.p - c), 1e-12);  // the report's current: the CoM
  EXPECT_TRUE(com.status.reached);
  EXPECT_TRUE(look.status.reached);
}

// a support polygon added without contacts stands on the links lowest now (the humanoid's two
// feet, each with its lowest face's four corners); `contact LINK` without a point gives that
// link's face; a link with no shapes to stand on is refused by name
TEST(ScriptObjectives, SupportPolygonContactsDefaultToTheLowestLinksFaces) {
  AppState app;
  app.urdf_options.load_meshes = true;  // as the workbench reads them: the feet are meshes
  ASSERT_TRUE(app.open_robot_preset("humanoid"));
  const std::size_t n = app.objectives.size();
  std::string error;
  ASSERT_TRUE(script_add_objective(app, words({"add", "support_polygon"}), &error)) << error;
  ASSERT_TRUE(script_add_objective(
      app, words({"add", "support_polygon", "contact", "left_ankle_roll_link", "margin", "1cm"}),
      &error))
      << error;
  std::set<std::string> feet;
  for (const LinkPoint<double>& p : app.objectives[n].spec.points)
    feet.insert(app.model->body_name[p.link]);
  EXPECT_EQ(feet, (std::set<std::string>{"left_ankle_roll_link", "right_ankle_roll_link"}));
  EXPECT_EQ(app.objectives[n].spec.points.size(), 8u);
  const Objective& one = app.objectives[n + 1].spec;
  ASSERT_EQ(one.points.size(), 4u);
  EXPECT_EQ(app.model->body_name[one.points[0].link], "left_ankle_roll_link");
  EXPECT_DOUBLE_EQ(one.params.margin, 0.01);
  EXPECT_FALSE(script_add_objective(
      app, words({"add", "support_polygon", "contact", "left_wrist_link"}), &error));
  EXPECT_NE(error.find("contact left_wrist_link: the link has no shapes to stand on"),
            std::string::npos)
      << error;
}

TEST(ScriptObjectives, AddRefusesWhatTheKindDoesNotRead) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  std::string error;
  EXPECT_FALSE(script_add_objective(
      app, words({"add", "position", "panda_hand_tcp", "rotation_weights", "1", "1", "1"}),
      &error));
  EXPECT_NE(error.find("unexpected 'rotation_weights' (a position objective takes offset, weight, "
                       "position_weights, hard, name)"),
            std::string::npos)
      << error;
  EXPECT_FALSE(script_add_objective(app, words({"add", "gaze", "panda_hand"}), &error));
  EXPECT_NE(error.find("unknown objective type 'gaze' (known: position"), std::string::npos);
  EXPECT_FALSE(script_add_objective(app, words({"add", "pose", "no_link"}), &error));
  EXPECT_EQ(error, "unknown link 'no_link'");
  EXPECT_FALSE(script_add_objective(app, words({"add", "pose"}), &error));
  EXPECT_EQ(error, "a pose objective needs a link: add pose LINK");
  EXPECT_FALSE(script_add_objective(app, words({"add", "min_distance", "panda_hand"}), &error));
  EXPECT_EQ(error, "a min_distance objective needs two links: add min_distance LINK LINK_B");
  EXPECT_FALSE(
      script_add_objective(app, words({"add", "pose", "panda_hand", "offset", "1"}), &error));
  EXPECT_EQ(error, "offset: expected 3 value(s)");
}

TEST(ScriptObjectives, AddAndSetKeepTheSceneReadersRules) {
  // values a scene file refuses are refused here too (saved, the scene did not open again)
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const std::size_t before = app.objectives.size();
  std::string error;
  EXPECT_FALSE(script_add_objective(
      app, words({"add", "axis_align", "panda_hand", "direction", "0", "0", "1e200"}), &error));
  EXPECT_EQ(error, "objective.direction: magnitude above 1e6 (1e+200)");
  EXPECT_FALSE(script_add_objective(
      app, words({"add", "position", "panda_hand", "offset", "1e300", "0", "0"}), &error));
  EXPECT_EQ(error, "objective.offset: magnitude above 1e6 (1e+300)");
  EXPECT_FALSE(script_add_objective(
      app, words({"add", "manipulability", "panda_hand", "min_measure", "1e300"}), &error));
  EXPECT_EQ(error, "objective.min_measure: must be within [0, 1e6]");
  EXPECT_EQ(app.objectives.size(), before);
  ASSERT_TRUE(script_add_objective(app, words({"add", "axis_align", "panda_hand"}), &error))
      << error;
  const Vec3<double> direction = app.objectives.back().spec.params.direction;
  const std::string last = std::to_string(app.objectives.size() - 1);
  EXPECT_FALSE(script_set_objective(
      app, std::vector<std::string>{"set", last, "direction", "0", "0", "0"}, &error));
  EXPECT_EQ(error, "objective.direction: must not be zero");
  EXPECT_FALSE(
      script_set_objective(app, std::vector<std::string>{"set", last, "weight", "1e150"}, &error));
  EXPECT_EQ(error, "objective.weight: must be within [0, 1e6]");
  EXPECT_EQ(app.objectives.back().spec.params.direction.z, direction.z);
}

TEST(ScriptObjectives, SetEditsOneFieldInPlace) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  std::string error;
  ASSERT_TRUE(
      script_set_objective(app, words({"set", "0", "position_weights", "1", "1", "0"}), &error))
      << error;
  EXPECT_EQ(app.objectives[0].spec.params.position_weights.z, 0.0);
  ASSERT_TRUE(script_set_objective(app, words({"set", "0", "hard", "on"}), &error)) << error;
  EXPECT_TRUE(app.objectives[0].spec.params.hard);
  EXPECT_FALSE(script_set_objective(app, words({"set", "0", "hard"}), &error));
  EXPECT_EQ(error, "hard: expected on or off");
  EXPECT_FALSE(script_set_objective(app, words({"set", "9", "weight", "1"}), &error));
  EXPECT_NE(error.find("no objective 9"), std::string::npos);
  app.sync();
  EXPECT_EQ(app.problem()->objective(0).params.position_weights.z, 0.0);
}

// a rename to another objective's name is refused with the one that has it (an objective keeps
// its own name, so setting it again is no clash)
TEST(ScriptObjectives, SetNameRefusesAnotherObjectivesName) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  ASSERT_GE(app.objectives.size(), 2u);
  const std::string first = app.objectives[0].name(), second = app.objectives[1].name();
  std::string error;
  EXPECT_FALSE(script_set_objective(app, words({"set", "1", "name", first.c_str()}), &error));
  EXPECT_EQ(error, "an objective named '" + first + "' exists already (objective 0)");
  EXPECT_EQ(app.objectives[1].name(), second);
  EXPECT_TRUE(script_set_objective(app, words({"set", "0", "name", first.c_str()}), &error))
      << error;
  EXPECT_TRUE(script_set_objective(app, words({"set", "1", "name", "grip"}), &error)) << error;
  EXPECT_EQ(app.objectives[1].name(), "grip");
}

// the dofs a target leaves to drift are those that move its link (the dual arm's left tool: the
// torso and the left arm's 8, less the pose's 6), not every dof of the robot (15 - 6)
TEST(ScriptObjectives, TheDofsLeftFreeAreThoseOfTheLinksChain) {
  AppState app;
  ASSERT_TRUE(
      app.load_robot(std::string(IKWB_SOURCE_DIR) + "/assets/robots/dual_arm/dual_arm.urdf"));
  std::string error;
  ASSERT_TRUE(script_add_objective(app, words({"add", "pose", "left_tool"}), &error)) << error;
  int said = 0;
  for (const Message& m : app.messages) {
    said += m.text.find("2 dofs are left free by it and drift") != std::string::npos;
    EXPECT_EQ(m.text.find("9 dofs are left free"), std::string::npos) << m.text;
  }
  EXPECT_EQ(said, 1);
}

}  // namespace
}  // namespace ikwb::gui
