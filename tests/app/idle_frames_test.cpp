// Tests for app/gui/idle_frames: an interactive window waits for events once a few frames in a
// row did nothing (no solve, nothing playing, nobody dragging, no event), any of those draws again
// at once, and a script or a --frames run never waits.
#include "app/gui/idle_frames.hpp"

#include <gtest/gtest.h>

namespace ikwb::gui {
namespace {

FrameActivity quiet() {
  FrameActivity a;
  a.interactive = true;
  return a;
}

TEST(IdleFrames, AWindowLeftAloneWaitsAfterAFewQuietFrames) {
  IdleFrames idle;
  EXPECT_EQ(idle.next_wait(), 0.0);
  for (int k = 1; k < kQuietFramesBeforeWaiting; ++k) {
    idle.frame_done(quiet());
    EXPECT_EQ(idle.next_wait(), 0.0) << k;
  }
  idle.frame_done(quiet());
  EXPECT_EQ(idle.next_wait(), kIdleWaitSeconds);
  idle.frame_done(quiet());
  EXPECT_EQ(idle.next_wait(), kIdleWaitSeconds);
}

TEST(IdleFrames, AnyActivityDrawsAgainAtOnce) {
  for (int which = 0; which < 4; ++which) {
    IdleFrames idle;
    for (int k = 0; k < kQuietFramesBeforeWaiting; ++k) idle.frame_done(quiet());
    ASSERT_GT(idle.next_wait(), 0.0);
    FrameActivity a = quiet();
    (which == 0 ? a.solved : which == 1 ? a.playing : which == 2 ? a.user_busy : a.input) = true;
    idle.frame_done(a);
    EXPECT_EQ(idle.next_wait(), 0.0) << which;
    // and it counts its quiet frames again from there
    for (int k = 1; k < kQuietFramesBeforeWaiting; ++k) idle.frame_done(quiet());
    EXPECT_EQ(idle.next_wait(), 0.0) << which;
    idle.frame_done(quiet());
    EXPECT_GT(idle.next_wait(), 0.0) << which;
  }
}

TEST(IdleFrames, AScriptNeverWaits) {
  IdleFrames idle;
  FrameActivity a;  // not interactive: a script, or a run with --frames
  for (int k = 0; k < 10; ++k) idle.frame_done(a);
  EXPECT_EQ(idle.next_wait(), 0.0);
}

}  // namespace
}  // namespace ikwb::gui
