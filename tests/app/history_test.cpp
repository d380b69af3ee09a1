// Tests for app/gui/history: undo steps of a long timeline stay within kMaxUndoKeys, each step
// keeps the scene file of its state, and a branch edit is a step of its own. No window.
#include "app/gui/history.hpp"

#include <gtest/gtest.h>

#include "app/gui/branch_edit.hpp"
#include "app/gui/solver_driver.hpp"

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

// A branch edit of a locked joint is an undo step of its own: the first undo turns the joint
// back, the second unlocks it. The frames in branch mode counted as resting, so the step took
// the edited configuration as the one before the edit, and the first undo left the elbow at
// -60 deg (and the second unlocked it there).
TEST(History, UndoTakesBackABranchEditOfALockedJoint) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("humanoid"));
  SolverDriver driver;
  driver.init(app);
  History h;
  auto frames = [&](int n) {
    for (int i = 0; i < n; ++i) {
      ++app.frame;
      driver.step_frame(app);
      h.observe(app, false, "");
    }
  };
  frames(3);
  const int elbow = app.model->find_joint("left_elbow_joint");
  const int qs = app.model->joint_q_start[elbow];
  const double before = app.joint_q[qs];
  app.set_joint_locked(elbow, true);
  app.note_edit("lock joint");
  frames(3);
  ASSERT_TRUE(begin_branch_edit(app, elbow));
  ASSERT_TRUE(branch_set(app, before - 0.6, 0.1));
  frames(3);
  end_branch_edit(app);
  frames(10);
  ASSERT_NEAR(app.joint_q[qs], before - 0.6, 1e-9);
  ASSERT_EQ(h.undo_depth(), 2u);
  ASSERT_TRUE(h.undo(app, ""));
  EXPECT_NEAR(app.joint_q[qs], before, 1e-9);
  EXPECT_TRUE(app.joint_locked(elbow));
  ASSERT_TRUE(h.undo(app, ""));
  EXPECT_NEAR(app.joint_q[qs], before, 1e-9);
  EXPECT_FALSE(app.joint_locked(elbow));
}

}  // namespace
}  // namespace ikwb::gui
