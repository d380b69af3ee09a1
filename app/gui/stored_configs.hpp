// Stored joint configurations (K keeps the current one; restored from a list; exported as CSV or
// JSON; saved in the scene's `extra`) and imported target lists (CSV lines of positions and
// optional orientations, applied one at a time to an objective). docs/sessions.md describes both.
// Errors go to the messages; the session keeps what it had.
#pragma once

#include <string>
#include <vector>

#include "app/cli/trajectory_io.hpp"  // coord_names
#include "app/gui/panels.hpp"
#include "engine/core/scene.hpp"

namespace ikwb::gui {

struct StoredConfig {
  std::string name;
  std::vector<double> q;  // coord_count values, q_start order
};

void store_configuration(Ui& ui);
bool restore_stored(Ui& ui, int index);
// CSV when the path ends in .csv, JSON otherwise
bool export_configs(Ui& ui, const std::string& path);
// CSV lines x,y,z[,qx,qy,qz,qw]; bad lines are reported with their numbers, the rest kept
bool import_targets(Ui& ui, const std::string& path);
// sets objective's target (the selected objective when -1) to imported target `index`
bool apply_imported(Ui& ui, int index, int objective = -1);

// the stored configurations in a scene's extra: `stored_configs` and `coord_names`
void add_stored_to_scene(const Ui& ui, Scene& scene);
// replaces the stored configurations with the scene's; those that do not fit the robot are
// reported and skipped
void load_stored_from_scene(Ui& ui, const Scene& scene);

}  // namespace ikwb::gui
