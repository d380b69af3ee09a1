// The workbench's keyframe timeline (engine/core/timeline.hpp) and its playback: plain data in
// AppState, so scenes and undo carry the keys. app/gui/timeline_edit.hpp edits it; the Timeline
// panel (panel_timeline.cpp) and the script (script_timeline.cpp) call those functions.
#pragma once

#include <cstdint>
#include <string>

#include "solver/timeline_render.hpp"

namespace ikwb::gui {

struct TimelineState {
  Timeline timeline;    // keys on the model, targets in the objectives' order
  int selected = -1;    // the key being edited (the robot is at it; edits update it)
  double playhead = 0;  // s
  bool playing = false;
  bool loop = false;
  double speed = 1;                // playback speed: 1 real time, down to 0.05
  bool hold = false;               // the playhead drives the robot (the live solve waits)
  bool show_ghosts = true;         // the keys as ghosts along the path
  bool show_panel = false;         // the Timeline window
  double export_rate = 100;        // Hz, the last export's (the Timeline window offers it again)
  bool export_fixed_step = false;  // the last export's: rows on a fixed step (on_fixed_step)
  double render_rate = 100;        // Hz, the rendered trajectory's (playback, scrubbing, ghosts)
  uint64_t serial = 1;             // bumps with every change of the keys

  // the rendered timeline (current when rendered_serial == serial)
  Trajectory trajectory;
  uint64_t rendered_serial = 0;
  std::string render_error;  // why the timeline could not be rendered ("" when it was)
  // an imported motion to look at: plays instead of the timeline while motion_path is set
  Trajectory motion;
  std::string motion_path;

  uint64_t model_version = 0;  // AppState::model_version of the robot the keys are for
  uint64_t seen_edit = 0;      // AppState::edit_serial last seen
  bool key_pending = false;    // an edit happened while a key was selected: update the key
  // bumps when a pending key takes the pose: the end of the edit that made it pending, which
  // History folds into that edit's step (undoing the next edit took the key back)
  uint64_t keys_settled = 0;
  // bumps when a selected key or the playhead puts the robot and its targets at a pose (no
  // edit): History takes that pose as the state an undo step brings back
  uint64_t poses_applied = 0;
  bool apply_pending = false;  // put the robot at the playhead this frame
};

}  // namespace ikwb::gui
