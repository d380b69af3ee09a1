// Tests for app/gui/history: undo steps of a long timeline stay within kMaxUndoKeys, each step
// keeps the scene file of its state, a branch edit is a step of its own, and storing or deleting
// a configuration is one too. No window.
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
  std::vector<StoredConfig> stored;
  uint64_t serial = 0;
  h.observe(app, stored, serial, false, "");
  for (int edit = 0; edit < 8; ++edit) {
    app.note_edit("weight");
    h.observe(app, stored, serial, false, "");
  }
  EXPECT_EQ(h.undo_depth(), kMaxUndoKeys / 30000);
  // a short timeline keeps every step up to the depth
  app.timeline.timeline.keys.resize(10);
  History short_history;
  short_history.observe(app, stored, serial, false, "");
  for (int edit = 0; edit < 8; ++edit) {
    app.note_edit("weight");
    short_history.observe(app, stored, serial, false, "");
  }
  EXPECT_EQ(short_history.undo_depth(), 8u);
}

// a save under a name takes the steps of the untitled state with it; an open keeps the steps
// before it with their own file
TEST(History, StepsKeepTheirSceneFile) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  History h;
  std::vector<StoredConfig> stored;
  uint64_t serial = 0;
  h.observe(app, stored, serial, false, "");
  app.note_edit("weight");
  h.observe(app, stored, serial, false, "");
  h.saved_as("a.json");
  app.note_edit("open scene");
  h.observe(app, stored, serial, false, "b.json");  // b.json opened
  EXPECT_EQ(h.document(), "b.json");
  ASSERT_TRUE(h.undo(app, stored, serial, "b.json"));
  EXPECT_EQ(h.document(), "a.json");
  ASSERT_TRUE(h.undo(app, stored, serial, "a.json"));
  EXPECT_EQ(h.document(), "a.json");
  ASSERT_TRUE(h.redo(app, stored, serial, "a.json"));
  ASSERT_TRUE(h.redo(app, stored, serial, "a.json"));
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
  std::vector<StoredConfig> stored;
  uint64_t serial = 0;
  auto frames = [&](int n) {
    for (int i = 0; i < n; ++i) {
      ++app.frame;
      driver.step_frame(app);
      h.observe(app, stored, serial, false, "");
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
  ASSERT_TRUE(h.undo(app, stored, serial, ""));
  EXPECT_NEAR(app.joint_q[qs], before, 1e-9);
  EXPECT_TRUE(app.joint_locked(elbow));
  ASSERT_TRUE(h.undo(app, stored, serial, ""));
  EXPECT_NEAR(app.joint_q[qs], before, 1e-9);
  EXPECT_FALSE(app.joint_locked(elbow));
}

// Storing and deleting a configuration are undo steps (by the stored list's serial, not as
// AppState edits): Ctrl+Z after a store took back the drag before it (the list was not in the
// steps), and a deleted configuration could not be brought back. A long list counts toward the key
// budget once, not at every step that shares it.
TEST(History, UndoTakesBackAStoreAndADelete) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("planar3"));
  History h;
  std::vector<StoredConfig> stored;
  uint64_t serial = 0;
  h.observe(app, stored, serial, false, "");
  app.note_edit("set weight");
  h.observe(app, stored, serial, false, "");
  const StoredConfig a{"config 1", app.joint_q, coord_names(*app.model)};
  stored.push_back(a);
  ++serial;
  h.observe(app, stored, serial, false, "");
  stored.push_back({"config 2", std::vector<double>(app.joint_q.size(), 0.25), a.columns});
  ++serial;
  h.observe(app, stored, serial, false, "");
  stored.erase(stored.begin());
  ++serial;
  h.observe(app, stored, serial, false, "");
  ASSERT_EQ(h.undo_label(), "delete configuration");
  // not an AppState edit: the timeline takes those for a pose edit of its selected key (a store
  // while a key was selected overwrote the key's pose)
  EXPECT_EQ(app.last_edit, "set weight");

  ASSERT_TRUE(h.undo(app, stored, ++serial, ""));  // the delete
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].name, "config 1");
  EXPECT_EQ(stored[0].q, a.q);
  ASSERT_TRUE(h.undo(app, stored, ++serial, ""));  // the second store
  ASSERT_EQ(stored.size(), 1u);
  ASSERT_TRUE(h.undo(app, stored, ++serial, ""));  // the first store
  EXPECT_TRUE(stored.empty());
  EXPECT_EQ(h.undo_label(), "set weight");
  ASSERT_TRUE(h.redo(app, stored, ++serial, ""));
  ASSERT_TRUE(h.redo(app, stored, ++serial, ""));
  ASSERT_TRUE(h.redo(app, stored, ++serial, ""));
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].name, "config 2");

  // 30,000 stored configurations, then eight weight edits that share the list: all eight kept
  History long_history;
  stored.assign(30000, a);
  long_history.observe(app, stored, serial, false, "");
  for (int edit = 0; edit < 8; ++edit) {
    app.note_edit("set weight");
    long_history.observe(app, stored, serial, false, "");
  }
  EXPECT_EQ(long_history.undo_depth(), 8u);
  // each a store: each step holds its own list, and the oldest go
  for (int edit = 0; edit < 8; ++edit) {
    stored.push_back(a);
    ++serial;
    long_history.observe(app, stored, serial, false, "");
  }
  EXPECT_LE(long_history.undo_depth(), kMaxUndoKeys / 30000 + 1);
}

}  // namespace
}  // namespace ikwb::gui
