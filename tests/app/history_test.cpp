// Tests for app/gui/history: undo steps of a long timeline stay within kMaxUndoKeys, and each
// step keeps the scene file of its state. No window.
#include "app/gui/history.hpp"

#include <gtest/gtest.h>

namespace ikwb::gui {
namespace {

// a timeline of 30,000 keys: each step holds them all, so the oldest steps go
TEST(History, StepsOfALongTimelineHoldAtMostTheKeyBudget) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  Keyframe key;
  key.q = app.joint_q;
  for (int k = 0; k < 30000; ++k) {
    key.time = k;
    app.timeline.timeline.keys.push_back(key);
  }
  app.timeline.model_version = app.model_version;
  History h;
  h.observe(app, false, "");
  for (int edit = 0; edit < 8; ++edit) {
    app.note_edit("weight");
    h.observe(app, false, "");
  }
  EXPECT_EQ(h.undo_depth(), kMaxUndoKeys / 30000);
  // a short timeline keeps every step up to the depth
  app.timeline.timeline.keys.resize(10);
  History short_history;
  short_history.observe(app, false, "");
  for (int edit = 0; edit < 8; ++edit) {
    app.note_edit("weight");
    short_history.observe(app, false, "");
  }
  EXPECT_EQ(short_history.undo_depth(), 8u);
}

// a save under a name takes the steps of the untitled state with it; an open keeps the steps
// before it with their own file
TEST(History, StepsKeepTheirSceneFile) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  History h;
  h.observe(app, false, "");
  app.note_edit("weight");
  h.observe(app, false, "");
  h.saved_as("a.json");
  app.note_edit("open scene");
  h.observe(app, false, "b.json");  // b.json opened
  EXPECT_EQ(h.document(), "b.json");
  ASSERT_TRUE(h.undo(app, "b.json"));
  EXPECT_EQ(h.document(), "a.json");
  ASSERT_TRUE(h.undo(app, "a.json"));
  EXPECT_EQ(h.document(), "a.json");
  ASSERT_TRUE(h.redo(app, "a.json"));
  ASSERT_TRUE(h.redo(app, "a.json"));
  EXPECT_EQ(h.document(), "b.json");
}

}  // namespace
}  // namespace ikwb::gui
