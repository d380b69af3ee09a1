// The Residuals panel's collision rows: a self pair overlapping on a robot without an SRDF says
// why it may (capsules fitted to links that touch by design) and what turns it off; a review's
// fresh arm read "-175.7 mm" in red at rest, the hint only in `ikwb check`.
#include <gtest/gtest.h>

#include <string>

#include "app/gui/visuals.hpp"
#include "headless_imgui.hpp"

namespace ikwb::gui {
namespace {

using ResidualsPanel = ikwb::test::HeadlessImGui;

TEST_F(ResidualsPanel, ASelfOverlapWithoutAnSrdfSaysWhyAndWhatTurnsItOff) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  BodyDistance overlap;
  overlap.body_a = app.model->find_body("panda_link0");
  overlap.body_b = app.model->find_body("panda_link2");
  overlap.contact.distance = -0.1757;
  app.collisions.pairs = {overlap};
  app.collisions.penetrating_count = 1;
  Visuals vis;
  auto text = [&] {
    return frame_text(
        [&] { draw_residuals_panel(app, vis, ImVec2(0, 0), ImVec2(600, 500), nullptr); });
  };
  app.srdf.clear();
  std::string shown = text();
  EXPECT_NE(shown.find("Collisions: 1 penetrating"), std::string::npos) << shown;
  EXPECT_NE(shown.find("no SRDF: fitted capsules can overlap"), std::string::npos) << shown;
  app.srdf = "panda.srdf";  // the pairs that touch by design are off: an overlap is the pose's
  shown = text();
  EXPECT_EQ(shown.find("no SRDF"), std::string::npos) << shown;
  app.srdf.clear();
  app.collisions.pairs[0].body_b = -1;  // a link into an obstacle is the pose's too
  app.collisions.pairs[0].obstacle = 0;
  shown = text();
  EXPECT_EQ(shown.find("no SRDF"), std::string::npos) << shown;
}

// The strip under the view is 200 px tall (Layout). The tug-of-war demo at 1280x720 (330 px
// wide) lists a posture, two targets and the pull of each on the other: five rows, all in view
// above the history plots (stacked plots left three, and the second target scrolled out).
TEST_F(ResidualsPanel, FiveRowsStayInViewAboveThePlotsInTheStrip) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  while (app.objectives.size() > 3) app.objectives.pop_back();
  ASSERT_EQ(app.objectives.size(), 3u);
  for (int i : {1, 2}) {  // each pulled by the other, for all of its error
    app.objectives[i].status.pulled_by = {{3 - i, 0.2}};
    app.objectives[i].status.share_error = 0.2;
  }
  app.collisions = {};
  Visuals vis;
  for (int frame = 0; frame < 3; ++frame)  // the rows' height is the last frame's
    frame_text([&] { draw_residuals_panel(app, vis, ImVec2(0, 0), ImVec2(330, 200), nullptr); });
  const ImGuiWindow* rows = nullptr;
  const ImGuiWindow* panel = nullptr;
  for (const ImGuiWindow* w : GImGui->Windows) {
    const std::string name = w->Name;
    if (name.rfind("Residuals/rows", 0) == 0) rows = w;
    if (name == "Residuals") panel = w;
  }
  ASSERT_NE(rows, nullptr);
  ASSERT_NE(panel, nullptr);
  EXPECT_LE(rows->ScrollMax.y, 0.0f) << "rows cut by " << rows->ScrollMax.y << " px";
  EXPECT_LE(panel->ScrollMax.y, 0.0f) << "the plots cut by " << panel->ScrollMax.y << " px";
  // a sixth row scrolls: the plots keep their place
  app.objectives[0].status.pulled_by = {{1, 0.1}};
  app.objectives[0].status.share_error = 0.1;
  for (int frame = 0; frame < 3; ++frame)
    frame_text([&] { draw_residuals_panel(app, vis, ImVec2(0, 0), ImVec2(330, 200), nullptr); });
  EXPECT_GT(rows->ScrollMax.y, 0.0f);
  EXPECT_LE(panel->ScrollMax.y, 0.0f);
}

}  // namespace
}  // namespace ikwb::gui
