// Per-row targets for `ikwb solve --scene`: a CSV file whose header names, for each scene
// objective whose target varies, the columns NAME.x,NAME.y,NAME.z and/or
// NAME.qx,NAME.qy,NAME.qz,NAME.qw (NAME: the objective's name, exactly as in the scene once the
// cell is trimmed; it may contain spaces and dots, the suffix is after the last dot). Every
// data row is one problem; objectives not named keep the scene's target.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "solver/scene_problem.hpp"

namespace ikwb {

// one objective whose target comes from the file
struct TargetColumns {
  int objective = -1;                  // index into the objectives given to the reader
  int position[3] = {-1, -1, -1};      // columns of x, y, z; all -1 when not given
  int rotation[4] = {-1, -1, -1, -1};  // columns of qx, qy, qz, qw; all -1 when not given
  bool has_position() const { return position[0] >= 0; }
  bool has_rotation() const { return rotation[0] >= 0; }
};

struct SceneTargetRow {
  int line = 0;     // 1-based line in the file
  bool ok = false;  // false: malformed, reported in `error`, not solved
  std::string error;
  std::vector<Transform<double>> targets;  // per TargetColumns, in order (scene target where
                                           // the file gives only position or only rotation)
};

struct SceneTargets {
  std::vector<std::string> header;
  std::vector<TargetColumns> columns;
  std::vector<SceneTargetRow> rows;
};

// Reads the header and the rows. Header problems throw CsvError ("FILE:LINE: ..." naming the
// column): no header, an unknown objective name, a name shared by several objectives with a
// target, a column for an objective without a target (or a position column for a kind without
// position rows, a quaternion column for one without rotation rows), an unknown suffix,
// duplicate columns, incomplete x,y,z or qx,qy,qz,qw groups. A data row with a wrong field
// count, a field that is not a finite number or a quaternion not unit within 1e-3 is kept with
// ok=false and an error naming the line and column; quaternions are renormalised. Blank lines
// and lines starting with '#' are skipped.
SceneTargets parse_scene_targets(std::istream& in, const std::string& source_name,
                                 const std::vector<PlacedObjective>& objectives);
// same from a file ("-": standard input); throws CsvError when it is a folder or cannot be opened
SceneTargets read_scene_targets(const std::string& path,
                                const std::vector<PlacedObjective>& objectives);

}  // namespace ikwb
