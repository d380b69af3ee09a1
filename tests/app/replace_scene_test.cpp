// What replaces the scene from the window (a robot, a scene or a dropped file, a demo from the
// menu) over unsaved edits says so, and that undo steps back to them: a review lost its edits
// to a demo without a word, and the recovery file written at exit held the demo.
#include <gtest/gtest.h>

#include <string>

#include "app/gui/session.hpp"

namespace ikwb::gui {
namespace {

TEST(ReplaceScene, UnsavedEditsReplacedAreSaidToBe) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  Viewport3D view;
  Ui ui(app, view);
  Session session;
  ui.session = &session;
  // opened and seen by the history at a frame's end: saved, so nothing is said
  mark_saved(ui);
  session_frame_end(ui, false);
  ASSERT_FALSE(session_unsaved(ui));
  std::size_t before = app.messages.size();
  EXPECT_TRUE(replace_scene(ui, "UR5e", [] { return true; }));
  EXPECT_EQ(app.messages.size(), before);

  app.objectives[0].spec.params.weight = 3;
  app.note_edit("weight");
  session_frame_end(ui, false);
  ASSERT_TRUE(session_unsaved(ui));
  before = app.messages.size();
  EXPECT_FALSE(replace_scene(ui, "missing.urdf", [] { return false; }));  // nothing replaced
  EXPECT_EQ(app.messages.size(), before);
  EXPECT_TRUE(replace_scene(ui, "the demo weights_tug_of_war", [] { return true; }));
  ASSERT_EQ(app.messages.size(), before + 1);
  EXPECT_EQ(app.messages.back().level, Message::kWarning);
  EXPECT_EQ(app.messages.back().text,
            "unsaved edits replaced by the demo weights_tug_of_war: Edit > Undo (Ctrl+Z) steps "
            "back to them; save before to keep them in a file");
}

}  // namespace
}  // namespace ikwb::gui
