// When the interactive workbench may stop drawing: a window left alone (the robot rests, nothing
// plays, nobody drags) waits for input between frames instead of drawing the same frame again.
// Drawn without a pause, the default robot at rest took 1.7 of the machine's two cores under
// Xvfb's software OpenGL (no vsync there; with one, a frame every 1/60 s of the same picture).
#pragma once

namespace ikwb::gui {

// what a frame did, as far as waiting goes
struct FrameActivity {
  bool interactive = false;  // a window a person uses: not a script, no --frames cap
  bool solved = false;       // the solver ran (app.solve.ran)
  bool playing = false;      // the timeline plays
  bool user_busy = false;    // a drag, an active widget, a mouse button held
  bool input = false;        // an event ended the frame's wait early (a key, the mouse, a resize)
};

// frames after the last activity before the window waits (ImGui settles hover and layout
// changes over a frame or two)
constexpr int kQuietFramesBeforeWaiting = 3;
// the longest wait: what the window does on its own meanwhile (an explanation or a file dialog
// finishing on another thread, an error banner's end, autosave) shows within it
constexpr double kIdleWaitSeconds = 0.25;

class IdleFrames {
 public:
  // after each frame
  void frame_done(const FrameActivity& a);
  // how long the next frame may wait for an event (s); 0: it polls and draws at once
  double next_wait() const;

 private:
  int quiet_ = 0;  // quiet frames in a row
};

}  // namespace ikwb::gui
