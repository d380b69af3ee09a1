// Opening a robot file of any kind (URDF, xacro, MJCF): what every command, the workbench and
// scenes call.
#pragma once

#include <string>

#include "engine/core/urdf_loader.hpp"

namespace ikwb {

// an MJCF file: its document element is <mujoco> (read from the start of the file, past
// leading comments of up to 1 MiB)
bool is_mjcf_file(const std::string& path);

// The robot file at `path`, whatever its kind: a `.xacro` file is expanded by the `xacro`
// command when it is on PATH, with options.xacro_args after the file (each NAME:=VALUE, else a
// ModelError naming it; xacro's errors, or how to install it, in the ModelError; what else it
// prints on standard error as warnings, "PATH: xacro: ...") and loaded as the URDF it prints,
// meshes relative to the xacro file (the model's source_path is the xacro file's absolute path); an
// MJCF file through load_mjcf_file (xacro arguments given for one: a warning); anything else
// through load_urdf_file, which takes xacro arguments for the $(arg NAME) a xacro run left (any
// not used: a warning).
LoadResult load_robot_file(const std::string& path, const UrdfOptions& options = {});

// load_robot_file of a scene file's "robot" entry (resolve_robot: a shipped robot's name or a
// path): its error names the scene file and the entry, as a scene's other errors do
// ('S.json: robot "/abs/arm.urdf": cannot open file (...)'; it named the robot's path only)
LoadResult load_scene_robot(const std::string& scene_path, const std::string& robot,
                            const UrdfOptions& options);

}  // namespace ikwb
