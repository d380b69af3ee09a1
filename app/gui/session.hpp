// Sessions: scene files (open, save, save as), undo / redo, the recovery file, stored joint
// configurations (K keeps the current one; export as CSV or JSON), imported target lists and
// the soak run. The File and Edit menus, the Stored configurations window, the restore offer
// and the script's commands (script_commands.cpp) all call these functions (docs/sessions.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/autosave.hpp"
#include "app/gui/file_dialog.hpp"
#include "app/gui/history.hpp"
#include "app/gui/panels.hpp"

namespace ikwb::gui {

struct StoredConfig {
  std::string name;
  std::vector<double> q;  // coord_count values, q_start order
};

// Random drags and weight changes for a number of frames, checking for NaN, drift of reached
// objectives and memory (resident set size).
struct Soak {
  bool active = false;
  int frames = 0, done = 0;
  uint64_t seed = 0, rng = 0;
  double started_at = 0, seconds = 0;
  int nan_frames = 0;
  int drift_events = 0;  // a reached objective whose target did not move stopped being reached
  double max_locked_error = 0;  // largest position error of such objectives while locked, m
  int drags = 0, weight_changes = 0;
  std::vector<long> rss_kb;  // sampled every rss_every frames
  int rss_every = 1000;
  // the drag in progress
  int objective = -1, left = 0, length = 0;
  Transform<double> from = transform_identity<double>(), to = transform_identity<double>();
  std::vector<Transform<double>> home;  // link objectives' targets when the soak started
  std::vector<Transform<double>> last_target;
  std::vector<uint8_t> locked;  // reached with an unchanged target since
};

struct Session {
  History history;
  Autosave autosave;
  std::string autosave_error;  // the last autosave failure (reported once)
  std::string scene_path;      // the scene file last opened or saved ("" none)
  uint64_t saved_serial = 0;   // edit_serial when it was opened or saved
  std::vector<StoredConfig> stored;
  int stored_selected = -1;
  std::vector<Transform<double>> imported;  // imported targets
  int imported_selected = -1;
  bool offer_restore = false;  // the "Restore the previous session?" modal is pending
  bool show_stored = false;    // the Stored configurations window
  // the typed-path dialog: 0 closed, else the action (see session.cpp)
  int dialog = 0;
  bool open_dialog = false;
  char dialog_path[1024] = {};
  std::string dialog_error;
  FileDialog picker;
  Soak soak;
};

// the session as a scene: robot, configuration, objectives, solver, camera, stored configs
Scene session_scene(const Ui& ui);
// File actions; errors go to the messages and leave the state and the files as they were
bool save_scene_file(Ui& ui, const std::string& path);
bool open_scene_file(Ui& ui, const std::string& path);
bool restore_recovery(Ui& ui);
void store_configuration(Ui& ui);
bool restore_stored(Ui& ui, int index);
// CSV when the path ends in .csv, JSON otherwise
bool export_configs(Ui& ui, const std::string& path);
// CSV lines x,y,z[,qx,qy,qz,qw]; bad lines are reported with their numbers, the rest kept
bool import_targets(Ui& ui, const std::string& path);
// sets objective's target (the selected objective when -1) to imported target `index`
bool apply_imported(Ui& ui, int index, int objective = -1);
void start_soak(Ui& ui, int frames, uint64_t seed);

// After the initial robot or scene: autosave to recovery_path ("" off) every interval_s seconds;
// an existing recovery file is restored (restore > 0), offered in a modal (restore == 0, not
// scripted; autosave waits for the answer), kept with autosave paused (restore == 0, scripted:
// the script's restore_recovery restores it) or ignored (restore < 0: overwritten by the next
// autosave).
void session_start(Ui& ui, const std::string& recovery_path, double interval_s, int restore);
// frame hooks: soak input before the panels; history, autosave and soak checks after FK
// (busy: a drag or a slider edit is in progress)
void session_frame_begin(Ui& ui);
void session_frame_end(Ui& ui, bool busy);
// at a clean exit: removes the recovery file unless edits are unsaved (then writes it)
void session_shutdown(Ui& ui);

// global shortcuts (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y, Ctrl+S, K), File menu items, Edit menu,
// windows and dialogs
void session_shortcuts(Ui& ui);
void draw_session_file_items(Ui& ui);
void draw_edit_menu(Ui& ui);
void draw_session_windows(Ui& ui);

// the dump's session fields: undo_depth, redo_depth, stored_configs, scene_path,
// recovery_file, imported_targets, soak
void add_session_dump(const Ui& ui, nlohmann::json& dump);

}  // namespace ikwb::gui
