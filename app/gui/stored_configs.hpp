// Stored joint configurations (K keeps the current one; restored from a list; exported as CSV or
// JSON; saved in the scene's `extra`) and imported target lists (CSV lines of positions and
// optional orientations, applied one at a time to an objective). docs/sessions.md describes both.
// Errors go to the messages; the session keeps what it had.
#pragma once

#include <string>
#include <vector>

#include "app/cli/trajectory_io.hpp"  // coord_names
#include "app/gui/app_state.hpp"
#include "engine/core/scene.hpp"

namespace ikwb::gui {

struct Ui;

// A configuration belongs to the robot it was stored on: it is restored, exported and saved as
// that robot's only while that robot (the same coordinate names) is open; the others stay in the
// list, marked as another robot's.
struct StoredConfig {
  std::string name;
  std::vector<double> q;             // coord_count values, q_start order
  std::vector<std::string> columns;  // the names of q's values (coord_names of its robot)
};

// the configuration was stored on the open robot
bool stored_fits(const AppState& app, const StoredConfig& c);
// storing and deleting are undo steps (History keeps the list with each step; they are not
// AppState edits, which the timeline takes for a pose edit of its selected key). A store with
// the robot where the last one left it stores nothing and says so. False without a robot.
bool store_configuration(Ui& ui);
bool delete_stored(Ui& ui, int index);
bool restore_stored(Ui& ui, int index);
// the stored configurations that fit the open robot: CSV when the path ends in .csv, JSON
// otherwise; the others are left out and counted in the message (none fitting: an error)
bool export_configs(Ui& ui, const std::string& path);
// CSV lines x,y,z[,qx,qy,qz,qw]; bad lines are reported with their numbers, the rest kept
bool import_targets(Ui& ui, const std::string& path);
// sets objective's target (the selected objective when -1) to imported target `index`
bool apply_imported(Ui& ui, int index, int objective = -1);

// the stored configurations in a scene's extra: `stored_configs` and `coord_names`; one stored on
// another robot carries its own `coord_names`
void add_stored_to_scene(const Ui& ui, Scene& scene);
// replaces the stored configurations with the scene's; an entry without its own `coord_names`
// that does not fit the robot is reported and skipped
// (warnings named with `file`)
void load_stored_from_scene(Ui& ui, const Scene& scene, const std::string& file);

}  // namespace ikwb::gui
