// Tests for compute_layout (app/gui/panels_menu.cpp): the 3D view and the panels under it share
// the window without overlapping. No window needed.
#include <gtest/gtest.h>

#include "app/gui/panels.hpp"

namespace ikwb::gui {
namespace {

float bottom(const render::Viewport& r) {
  return r.y + r.height;
}

TEST(Layout, ResidualsAreDockedUnderTheViewBesideTheMessages) {
  Layout l;
  VisualOptions v;
  v.residual_panel = true;
  compute_layout(l, 1280, 720, 22, v);
  EXPECT_FLOAT_EQ(l.view.x, l.left_width);
  EXPECT_FLOAT_EQ(l.view.width, 1280 - l.left_width - l.right_width);
  // the strip under the view: messages left, residuals right, together as wide as the view
  EXPECT_FLOAT_EQ(l.messages.y, bottom(l.view));
  EXPECT_FLOAT_EQ(l.residuals.y, bottom(l.view));
  EXPECT_FLOAT_EQ(bottom(l.residuals), 720);
  EXPECT_FLOAT_EQ(l.residuals.height, l.residuals_height);
  EXPECT_FLOAT_EQ(l.messages.x, l.view.x);
  EXPECT_FLOAT_EQ(l.messages.x + l.messages.width, l.residuals.x);
  EXPECT_FLOAT_EQ(l.residuals.x + l.residuals.width, l.view.x + l.view.width);
  EXPECT_GT(l.messages.width, 200);
  EXPECT_GT(l.residuals.width, 200);
}

// a window too small for the columns at their set widths narrows them together so that the 3D
// view keeps half the width (at 800 pixels it had 180); a wide one leaves them as set
TEST(Layout, ASmallWindowNarrowsTheColumns) {
  Layout l;
  VisualOptions v;
  compute_layout(l, 800, 500, 22, v);
  EXPECT_GE(l.view.width, 400);
  EXPECT_FLOAT_EQ(l.view.x, l.left);
  EXPECT_LE(l.left + l.view.width + l.right, 800);
  EXPECT_NEAR(l.left / l.right, l.left_width / l.right_width, 0.01);
  compute_layout(l, 1920, 1080, 22, v);
  EXPECT_FLOAT_EQ(l.left, l.left_width);
  EXPECT_FLOAT_EQ(l.right, l.right_width);
}

TEST(Layout, HiddenPanelsGiveTheirSpaceBack) {
  Layout l;
  VisualOptions v;
  v.residual_panel = false;
  compute_layout(l, 1280, 720, 22, v);
  EXPECT_FLOAT_EQ(l.residuals.width, 0);
  EXPECT_FLOAT_EQ(l.messages.width, l.view.width);
  EXPECT_FLOAT_EQ(l.view.height, 720 - 22 - l.messages_height);

  v.residual_panel = true;
  l.show_messages = false;
  compute_layout(l, 1280, 720, 22, v);
  EXPECT_FLOAT_EQ(l.messages.width, 0);
  EXPECT_FLOAT_EQ(l.residuals.x, l.view.x);
  EXPECT_FLOAT_EQ(l.residuals.width, l.view.width);

  v.residual_panel = false;
  compute_layout(l, 1280, 720, 22, v);
  EXPECT_FLOAT_EQ(bottom(l.view), 720);
}

// the Timeline panel takes a band between the view and the strip: it covers none of the view
// (a target low in the view was under it); closed, the view has the space back
TEST(Layout, TheTimelineSitsUnderTheViewNotOverIt) {
  Layout l;
  VisualOptions v;
  v.residual_panel = true;
  compute_layout(l, 1280, 720, 22, v);
  const float full = l.view.height;
  l.show_timeline = true;
  compute_layout(l, 1280, 720, 22, v);
  EXPECT_FLOAT_EQ(l.view.height, full - l.timeline_height);
  EXPECT_FLOAT_EQ(l.timeline.y, bottom(l.view));
  EXPECT_FLOAT_EQ(l.timeline.x, l.view.x);
  EXPECT_FLOAT_EQ(l.timeline.width, l.view.width);
  EXPECT_FLOAT_EQ(l.messages.y, bottom(l.timeline));
  EXPECT_FLOAT_EQ(l.residuals.y, bottom(l.timeline));
  EXPECT_FLOAT_EQ(bottom(l.residuals), 720);
  compute_layout(l, 1280, 360, 22, v);
  EXPECT_LE(l.timeline.height, 0.35f * (360 - 22) + 1e-3f);
  EXPECT_GE(l.view.height, 64);
  l.show_timeline = false;
  compute_layout(l, 1280, 720, 22, v);
  EXPECT_FLOAT_EQ(l.view.height, full);
  EXPECT_FLOAT_EQ(l.timeline.height, 0);
}

TEST(Layout, ASmallWindowKeepsMostOfItsHeightForTheView) {
  Layout l;
  VisualOptions v;
  v.residual_panel = true;
  compute_layout(l, 1280, 360, 22, v);
  EXPECT_LE(l.residuals.height, 0.4f * (360 - 22) + 1e-3f);
  EXPECT_GE(l.residuals.height, l.messages_height);
  EXPECT_FLOAT_EQ(bottom(l.view), l.residuals.y);
}

}  // namespace
}  // namespace ikwb::gui
