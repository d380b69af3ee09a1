// The robot-loading options every `ikwb` command takes: --package-path DIR (repeatable),
// --floating-base, --strict and --xacro-arg NAME:=VALUE (repeatable), and which mesh files a
// command reads.
#pragma once

#include <vector>

#include "app/cli/cli_args.hpp"
#include "engine/core/output_target.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {

// the mesh files a command reads: none (it uses no geometry: fk, info, a solve without
// collisions stay fast), the collision meshes (it evaluates collisions) or all, as the workbench
// does (info --meshes, to report what they lack)
enum class MeshFiles { kNone, kCollision, kAll };

// where a command's robot comes from: a robot file or a scene (solve, fk, ...), or only a scene
// (animate), whose "floating_base" says what --floating-base would: such a command does not
// offer the flag
enum class RobotSource { kFileOrScene, kSceneOnly };

void add_robot_options(ArgParser& args, RobotSource source = RobotSource::kFileOrScene);
// the options as given, reading the mesh files `meshes` names (the others are only resolved)
UrdfOptions read_robot_options(const ArgParser& args, MeshFiles meshes = MeshFiles::kNone);
// the options for a scene's robot: the scene's floating base, its package paths before the
// command line's, its xacro arguments before the command line's (xacro keeps the last value of a
// name), and the mesh files the scene needs (scene_mesh_files). Throws CliError for
// --floating-base: the scene's "floating_base" says.
UrdfOptions scene_robot_options(const ArgParser& args, const Scene& scene);
// the files a scene names, its robot and its SRDF, as inputs an output must not replace
// (refuse_output_over_inputs)
std::vector<NamedInput> scene_inputs(const Scene& scene);
// the collision meshes a scene needs: kCollision when it has obstacles or an enabled objective
// that reads collision geometry (self_collision, world_collision, a support_polygon contact
// without points)
MeshFiles scene_mesh_files(const Scene& scene);

// the dofs that move body `link`: those of the joints between it and the root, a mimic joint's
// source's in its place, each counted once
int link_dof_count(const Model& m, int link);

// the body named `name` (--link); an unknown name is a CliError that lists the links, those
// whose names contain it first ("did you mean 'panda_hand', 'panda_hand_tcp'?"). A link no
// joint moves is a warning: only a target where it already is can be met.
int find_target_link(const Model& m, const std::string& name);

// each warning on standard error as "warning: TEXT", or "warning: FILE: TEXT" when it is about
// `file` and does not name it already, nor `robot_file` (a scene passes on the warnings of its
// robot's collision geometry, which name the robot file)
// The body pairs the SRDF of --srdf disables; it must fit the robot: an entry naming a link the
// robot lacks (another robot's SRDF, a stale name) throws std::runtime_error with the entries,
// where a scene's "srdf" is a warning (docs/scene_format.md: an option is what the user typed
// just now)
std::vector<std::pair<int, int>> fitting_srdf_pairs(const Model& m, const std::string& path);

void print_warnings(const std::vector<std::string>& warnings, const std::string& file = "",
                    const std::string& robot_file = "");

}  // namespace ikwb
