// Finds robots for the command line and the workbench: a URDF path as given, or the name of a
// robot shipped in assets/robots (panda, ur5e, humanoid, ...).
#pragma once

#include <string>
#include <vector>

namespace ikwb {

// folder holding the shipped assets: $IKWB_ASSETS, else the source tree's assets/ baked in at
// build time, else ./assets
std::string asset_dir();
// `arg` when it names an existing file; else assets/robots/ARG/ARG.urdf when that exists;
// else `arg` unchanged (the loader then reports the missing file)
std::string resolve_robot(const std::string& arg);
// whether `path` names a file inside asset_dir() (a shipped preset, demo or example scene)
bool is_shipped_asset(const std::string& path);
// names of the shipped robots (folders of assets/robots with a NAME.urdf), sorted
std::vector<std::string> shipped_robots();
// what a robot argument that names nothing is: "PATH: no such file", or for a bare name (no '/'
// or '.') "'NAME' is neither a file nor a shipped robot (shipped: panda, ...)"
std::string robot_not_found(const std::string& arg);

}  // namespace ikwb
