// Tests for the Objectives panel (app/gui/panels_objectives.cpp), drawn in a headless ImGui
// frame at the workbench's width: why a settled objective is not reached reads in full, wrapped
// within the panel (a list of blockers was cut at its right edge); a collision objective's pair
// within its margin reads "inside" it (it read "outside").
#include <gtest/gtest.h>

#include "app/gui/panels.hpp"
#include "headless_imgui.hpp"

namespace ikwb::gui {
namespace {

using ObjectivesPanel = ikwb::test::HeadlessImGui;

TEST_F(ObjectivesPanel, ABlockedObjectivesExplanationWrapsWithinThePanel) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const Model& m = *app.model;
  ObjectiveStatus& s = app.objectives[0].status;
  s.reached = false;
  s.missed = s.explained = true;
  s.position_error = 0.3087;
  s.status = ReachStatus::kBlocked;
  s.blocked_by = {{-1, m.find_joint("panda_joint5")}, {-1, m.find_joint("panda_joint6")}};
  s.pulled_by = {{1, 0.2}, {2, 0.1}};
  s.share_error = 0.3;
  Viewport3D view;
  Ui ui(app, view);
  Layout l;
  const std::string text =
      frame_text([&] { draw_objectives_panel(ui, ImVec2(0, 20), ImVec2(l.right_width, 660)); });
  EXPECT_NE(text.find("blocked by joint panda_joint5's limits, joint panda_joint6's limits"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("posture 200.0 mm"), std::string::npos) << text;
  EXPECT_NE(text.find("joint limits 100.0 mm"), std::string::npos) << text;
  EXPECT_LE(overflow_right("Objectives"), 0.0f) << text;
}

// the violation of a collision kind is the margin less the closest distance, a support
// polygon's the margin less the centre of mass's depth inside it
TEST_F(ObjectivesPanel, AMarginSaysWhetherTheClosestPairOrTheCentreOfMassIsInsideIt) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  const int self = app.add_objective(app.new_objective(ObjectiveType::kSelfCollision));
  const int support = app.add_objective(app.new_objective(ObjectiveType::kSupportPolygon));
  ASSERT_GE(self, 0);
  ASSERT_GE(support, 0);
  app.objectives[self].spec.params.margin = 0.01;
  app.objectives[support].spec.params.margin = 0.02;
  Viewport3D view;
  Ui ui(app, view);
  auto text = [&](double self_violation, double support_violation) {
    app.objectives[self].status.violation = self_violation;
    app.objectives[support].status.violation = support_violation;
    return frame_text([&] { draw_objectives_panel(ui, ImVec2(0, 20), ImVec2(340, 2000)); });
  };
  std::string t = text(0.0008, 0.005);
  EXPECT_NE(t.find("a pair 0.8 mm inside the 10 mm margin"), std::string::npos) << t;
  EXPECT_NE(t.find("CoM 5.0 mm inside the 20 mm margin"), std::string::npos) << t;
  t = text(0.0, 0.0);
  EXPECT_NE(t.find("every pair outside the 10 mm margin"), std::string::npos) << t;
  EXPECT_NE(t.find("CoM inside, clear of the 20 mm margin"), std::string::npos) << t;
  t = text(0.013, 0.025);
  EXPECT_NE(t.find("a pair penetrates by 3.0 mm"), std::string::npos) << t;
  EXPECT_NE(t.find("CoM 5.0 mm outside the polygon"), std::string::npos) << t;
  EXPECT_EQ(t.find("mm outside\n"), std::string::npos) << t;
}

}  // namespace
}  // namespace ikwb::gui
