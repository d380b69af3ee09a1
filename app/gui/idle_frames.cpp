#include "app/gui/idle_frames.hpp"

namespace ikwb::gui {

void IdleFrames::frame_done(const FrameActivity& a) {
  const bool quiet = a.interactive && !a.solved && !a.playing && !a.user_busy && !a.input;
  quiet_ = quiet ? quiet_ + 1 : 0;
}

double IdleFrames::next_wait() const {
  return quiet_ >= kQuietFramesBeforeWaiting ? kIdleWaitSeconds : 0.0;
}

}  // namespace ikwb::gui
