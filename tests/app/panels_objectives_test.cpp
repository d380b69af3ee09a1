// Tests for the Objectives panel (app/gui/panels_objectives.cpp), drawn in a headless ImGui
// frame at the workbench's width: why a settled objective is not reached reads in full, wrapped
// within the panel (a list of blockers was cut at its right edge).
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
  EXPECT_NE(text.find("blocked by joint panda_joint5, joint panda_joint6"), std::string::npos)
      << text;
  EXPECT_NE(text.find("posture 200.0 mm"), std::string::npos) << text;
  EXPECT_NE(text.find("joint limits 100.0 mm"), std::string::npos) << text;
  EXPECT_LE(overflow_right("Objectives"), 0.0f) << text;
}

}  // namespace
}  // namespace ikwb::gui
