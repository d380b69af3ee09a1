// The robot-loading options every `ikwb` command takes: --package-path DIR (repeatable),
// --floating-base and --strict.
#pragma once

#include "app/cli/cli_args.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {

void add_robot_options(ArgParser& args);
// the options as given (meshes are not loaded: the command line needs no geometry)
UrdfOptions read_robot_options(const ArgParser& args);

}  // namespace ikwb
