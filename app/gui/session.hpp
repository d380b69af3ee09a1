// The session: what the workbench keeps around the robot and its objectives while it runs. Its
// parts each have their own file (docs/sessions.md):
//   scene_files.hpp     open / save / save as, the recovery file's restore
//   stored_configs.hpp  stored configurations, export, imported targets
//   session_ui.hpp      the File and Edit menus' items, shortcuts, windows and dialogs
//   history.hpp         undo / redo;  autosave.hpp: the recovery file
// This file: the Session state, its start, its once-per-frame step and its shutdown, and its
// fields of the state dump.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/autosave.hpp"
#include "app/gui/file_dialog.hpp"
#include "app/gui/history.hpp"
#include "app/gui/panels.hpp"
#include "app/gui/recent_files.hpp"
#include "app/gui/stored_configs.hpp"

namespace ikwb::gui {

struct Session {
  History history;
  Autosave autosave;
  std::string autosave_error;  // the last autosave failure (reported once)
  std::string scene_path;      // the scene file last opened or saved ("" none)
  // AppState::model_version when scene_path was set: another robot opened since (not from a
  // scene) leaves the scene, and Save asks for a name
  uint64_t scene_model_version = 0;
  // entries of scene_path's file that its robot could not take when it was opened (unknown
  // joints or links): Save does not write over the file without them, Save as asks
  int scene_left_out = 0;
  // What was saved or opened, to tell unsaved edits (session_unsaved): for each scene file ("":
  // none) the history's state it was last saved or opened in (History::state) and what the
  // scene keeps that is no undo step (session_extras); undo or redo back to such a state leaves
  // nothing unsaved, as an editor reads it
  struct SavedMark {
    uint64_t state = 0;
    std::string extras;
  };
  std::map<std::string, SavedMark> saved;
  // a save or an open waits for the frame's end, where the history has seen its edits: the
  // state then is the one saved, unless an edit came after it (session_serial then differs from
  // mark_serial)
  bool mark_pending = false;
  uint64_t mark_serial = 0;
  uint64_t observed_serial = 0;  // session_serial when the history last saw the edits
  std::vector<StoredConfig> stored;
  uint64_t stored_serial = 0;  // bumps with every change to `stored` (each an undo step)
  int stored_selected = -1;
  std::vector<Transform<double>> imported;  // imported targets
  int imported_selected = -1;
  bool offer_restore = false;    // the "Restore the previous session?" modal is pending
  std::string restore_summary;   // what the recovery file holds and when it was written
  bool restore_readable = true;  // the recovery file could be read (else no Restore is offered)
  bool show_stored = false;      // the Stored configurations window
  // the typed-path dialog: 0 closed, else the action (see session_ui.cpp)
  int dialog = 0;
  bool open_dialog = false;
  char dialog_path[1024] = {};
  std::string dialog_error;
  FileDialog picker;
  RecentFiles recent;  // File > Recent
};

// After the initial robot or scene: autosave to recovery_path ("" off) every interval_s seconds;
// an existing recovery file is restored (restore > 0), offered in a modal (restore == 0, not
// scripted; autosave waits for the answer), kept with autosave paused (restore == 0, scripted:
// the script's restore_recovery restores it) or ignored (restore < 0: overwritten by the next
// autosave).
void session_start(Ui& ui, const std::string& recovery_path, double interval_s, int restore);
// once per frame after FK: undo history and autosave (busy: a drag or a slider edit is in
// progress, the edit is not finished)
void session_frame_end(Ui& ui, bool busy);
// At a clean exit: removes the recovery file unless edits are unsaved (then writes it; when
// that fails the file is kept as the last autosave left it). What became of the session, as a
// sentence, and whether it is a failure to show.
struct ShutdownOutcome {
  std::string what;
  bool failed = false;
};
ShutdownOutcome session_shutdown(Ui& ui);

// undo / redo, with the scene file the restored state belongs to (History::document)
bool session_undo(Ui& ui);
bool session_redo(Ui& ui);
// scene_path set to `path` for the robot now open
void set_scene_path(Ui& ui, const std::string& path);

// the edits (AppState::edit_serial) and the changes to the stored configurations
// (Session::stored_serial), in one number
uint64_t session_serial(const Ui& ui);
// what a scene keeps that is no undo step: the timeline's loop and speed, the frame step and
// the frame budget
std::string session_extras(const Ui& ui);
// edits since the scene file (or the session's start) was saved or opened: ones the history has
// not seen yet, or a history state, or extras, other than the file's
bool session_unsaved(const Ui& ui);
// a save or an open of the scene file, or a robot opened (a new untitled scene): its state is
// marked saved at the frame's end
void mark_saved(Ui& ui);
// Runs `open`, which replaces the scene (a robot, a scene or a dropped file opened from the
// window, a demo started from the menu); where it succeeds over unsaved edits, a warning names
// `what` replaced them and that undo brings them back. Nothing is asked first (the workbench has
// no prompts), but nothing went unsaid: a review lost its edits to a demo without a word, and the
// recovery file written at exit held the demo.
bool replace_scene(Ui& ui, const std::string& what, const std::function<bool()>& open);

// "IK Workbench - <robot> - <scene file's name>", with " *" while edits are unsaved (no scene
// file: the robot alone; no robot: the program's name alone)
std::string window_title(const Ui& ui);

// the dump's session fields: undo_depth, redo_depth, stored_configs, scene_path, unsaved,
// window_title, recovery_file, recent_files, imported_targets
void add_session_dump(const Ui& ui, nlohmann::json& dump);

}  // namespace ikwb::gui
