// Sessions: scene files (open, save, save as), undo / redo, the recovery file, stored joint
// configurations (K keeps the current one; export as CSV or JSON) and imported target lists.
// The File and Edit menus, the Stored configurations window, the restore offer
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

// After the initial robot or scene: autosave to recovery_path ("" off) every interval_s seconds;
// an existing recovery file is restored (restore > 0), offered in a modal (restore == 0, not
// scripted; autosave waits for the answer), kept with autosave paused (restore == 0, scripted:
// the script's restore_recovery restores it) or ignored (restore < 0: overwritten by the next
// autosave).
void session_start(Ui& ui, const std::string& recovery_path, double interval_s, int restore);
// once per frame after FK: undo history and autosave (busy: a drag or a slider edit is in
// progress, the edit is not finished)
void session_frame_end(Ui& ui, bool busy);
// at a clean exit: removes the recovery file unless edits are unsaved (then writes it)
void session_shutdown(Ui& ui);

// global shortcuts (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y, Ctrl+S, K), File menu items, Edit menu,
// windows and dialogs
void session_shortcuts(Ui& ui);
void draw_session_file_items(Ui& ui);
void draw_edit_menu(Ui& ui);
void draw_session_windows(Ui& ui);

// the dump's session fields: undo_depth, redo_depth, stored_configs, scene_path, unsaved,
// recovery_file, imported_targets
void add_session_dump(const Ui& ui, nlohmann::json& dump);

}  // namespace ikwb::gui
