// Tests for app/gui/script_objectives: `add` and `set` take the fields each kind reads (from the
// kind table), and refuse the others with a message listing what the kind takes. No window.
#include "app/gui/script_objectives.hpp"

#include <gtest/gtest.h>

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
  EXPECT_FALSE(
      script_add_objective(app, words({"add", "pose", "panda_hand", "offset", "1"}), &error));
  EXPECT_EQ(error, "offset: expected 3 value(s)");
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

}  // namespace
}  // namespace ikwb::gui
