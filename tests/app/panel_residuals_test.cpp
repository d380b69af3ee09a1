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

}  // namespace
}  // namespace ikwb::gui
