// Keyframes, playback and trajectory files in the workbench (docs/timeline.md). Key edits are
// finished edits (AppState::note_edit: one undo step each); errors go to the messages and leave
// the timeline as it was.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/app_state.hpp"
#include "engine/core/scene.hpp"

namespace ikwb::gui {

// ---- keys ---------------------------------------------------------------------------------
// the time K leaves between the last key and the key it appends (s)
constexpr double kKeySpacing = 1.0;

// A key at `time` (>= 0) with the current configuration and targets, the playhead moved to it; a
// key already at that time is replaced, which the message says ("replaced key 1 at 0.5 s"). A
// new key's segment takes the interpolation of the segment it splits (joint for the first). It is
// not selected: the next pose is the next key's. Returns its index (-1 and an error without a
// robot or for a bad time).
int add_key(AppState& app, double time);
// K, the Timeline's Add key and `key_add` without a time: add_key at the playhead, unless a key
// is there already. The selected key (the one being edited) is replaced; a key holding the
// current pose stays and the message says so; a key with another pose stays too, and the new key
// goes kKeySpacing after the last key, the playhead with it: pose, K, pose, K, ... lays the keys
// one after another (docs/timeline.md, "In the workbench").
int add_key_at_playhead(AppState& app);
bool delete_key(AppState& app, int index);
// Selects key `index` (-1: none): the robot jumps to it (configuration and targets), the
// playhead to its time; later edits update the key until another is selected or playback starts.
bool select_key(AppState& app, int index);
// moves key `index` to `time`; refused (an error) onto another key's time
bool retime_key(AppState& app, int index, double time);
// the interpolation of the segment starting at key `index` (-1: every key)
bool set_interpolation(AppState& app, int index, Interpolation mode);

// ---- playback -----------------------------------------------------------------------------
// starts or pauses playback (from the start when the playhead is at the end)
bool play(AppState& app, bool on);
// the playhead to `time` (clamped to the keys or the motion): the robot follows it
bool scrub(AppState& app, double time);
// the first and last time of what plays (the timeline, or the imported motion)
double play_start(const AppState& app);
double play_end(const AppState& app);
// Per frame, before the panels: while playing, the playhead advances by dt * speed (looping or
// stopping at the end) and the robot and targets go to it. True when it moved them: the frame's
// step then runs before the panels too, so they and the view show the pose of this playhead.
bool timeline_advance(AppState& app, double dt);
// Per frame, after the panels and the view's input, before the solver step: an edit with a key
// selected updates the key (once the robot has settled); a scrub or play puts the robot at the
// playhead. user_moving: a gizmo drag or a joint edit is in progress (playback stops and the
// timeline lets go of the robot).
void timeline_frame(AppState& app, bool user_moving);

// ---- rendering and files ------------------------------------------------------------------
// The timeline's trajectory at its export rate (rendered again when the keys changed); nullptr
// with render_error set when there is nothing to render.
const Trajectory* timeline_trajectory(AppState& app);
// the timeline at `rate` Hz as JSON (a path ending in .json, any case) or CSV, on a fixed step
// with `fixed_step` (on_fixed_step: the keys' own times left out); flagged segments are
// warnings. With a motion imported, still the timeline's keys, and the message says so. Sets
// the panel's export_rate and export_fixed_step.
bool export_trajectory(AppState& app, const std::string& path, double rate, bool fixed_step);
// a trajectory CSV (time then the coordinate names) as a motion to play; clear_motion goes back
// to the timeline
bool import_motion(AppState& app, const std::string& path);
void clear_motion(AppState& app);

// ---- scenes and the state dump ------------------------------------------------------------
// the keys in the scene form (AppState::make_scene)
SceneTimeline timeline_for_scene(const AppState& app);
// the scene's keys on the loaded model (AppState::apply_scene); playback stops
void timeline_from_scene(AppState& app, const Scene& scene, const SceneSetup& setup,
                         bool quiet = false);
// the dump's "timeline": keys (time, q, interpolation), playhead, playing, loop, speed,
// selected, flagged segments, motion
nlohmann::json timeline_dump(const AppState& app);

}  // namespace ikwb::gui
