// Tests for the Timeline panel (app/gui/panel_timeline.cpp), drawn in a headless ImGui frame:
// its top row reads "2.25 / 3.00 s at 1.00x" (it read "1.00x speed 2.25 / 3.00 s").
#include <gtest/gtest.h>

#include "app/gui/panels.hpp"
#include "app/gui/timeline_edit.hpp"
#include "headless_imgui.hpp"

namespace ikwb::gui {
namespace {

struct TimelinePanel : ikwb::test::HeadlessImGui {
  // draws app's Timeline panel in a frame; the vertices its windows drew (their text: *text)
  int panel_vertices(AppState& app, std::string* text) {
    app.timeline.show_panel = true;
    Viewport3D view;
    Ui ui(app, view);
    ui.layout.timeline = {280, 360, 660, 160};
    *text = frame_text([&] { draw_timeline_panel(ui); });
    int vertices = 0;
    for (ImGuiWindow* w : GImGui->Windows)
      if (std::string(w->Name).rfind("Timeline", 0) == 0) vertices += w->DrawList->VtxBuffer.Size;
    return vertices;
  }
};

TEST_F(TimelinePanel, ThePlayheadReadsBeforeTheSpeedItPlaysAt) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  for (double t : {0.0, 1.5, 3.0}) ASSERT_GE(add_key(app, t), 0);
  ASSERT_TRUE(scrub(app, 2.25));
  app.timeline.show_panel = true;
  Viewport3D view;
  Ui ui(app, view);
  ui.layout.timeline = {280, 360, 660, 160};
  const std::string text = frame_text([&] { draw_timeline_panel(ui); });
  EXPECT_NE(text.find("2.25 / 3.00 s at { 1.00x }"), std::string::npos) << text;
  EXPECT_LE(overflow_right("Timeline"), 0.0f) << text;
}

// the axis draws a tick a second only where they fit: keys a million seconds apart drew a
// million ticks a frame (6 s frames)
TEST_F(TimelinePanel, TheAxisTicksFitItsWidthWhateverTheSpan) {
  EXPECT_EQ(axis_tick_step(3.0, 600), 1.0);
  EXPECT_EQ(axis_tick_step(100.0, 300), 2.0);
  EXPECT_EQ(axis_tick_step(400.0, 600), 5.0);
  EXPECT_EQ(axis_tick_step(1.05e6, 600), 20000.0);
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  for (double t : {0.0, 1e6}) ASSERT_GE(add_key(app, t), 0);
  std::string text;
  const int vertices = panel_vertices(app, &text);
  EXPECT_GT(vertices, 0);
  EXPECT_LT(vertices, 20000) << text;
}

// keys closer than a pixel draw one diamond, a run of segments of one colour one line: 10,000
// keys drew 10,000 of each into the axis's 650 pixels (38 ms frames under software OpenGL)
TEST_F(TimelinePanel, TenThousandKeysDrawWhatTheAxisHasPixelsFor) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  ASSERT_GE(add_key(app, 0.0), 0);
  std::vector<Keyframe>& keys = app.timeline.timeline.keys;
  const Keyframe first = keys[0];
  keys.assign(10000, first);
  for (int k = 0; k < 10000; ++k) {
    keys[k].time = 0.1 * k;
    keys[k].interpolation = k % 2000 < 1000 ? Interpolation::kJoint : Interpolation::kTask;
  }
  app.timeline.selected = 5000;
  ++app.timeline.serial;
  std::string text;
  const int vertices = panel_vertices(app, &text);
  EXPECT_GT(vertices, 0);
  EXPECT_LT(vertices, 20000) << text;  // 6,044; 121,280 before
}

}  // namespace
}  // namespace ikwb::gui
