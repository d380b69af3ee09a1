#include "app/cli/robot_args.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "engine/core/collision_geometry.hpp"
#include "engine/core/objective_kinds.hpp"
#include "engine/core/robot_path.hpp"

namespace ikwb {

void add_robot_options(ArgParser& args, RobotSource source) {
  if (source == RobotSource::kFileOrScene)
    args.add_flag("floating-base", "attach the root link with a free joint");
  args.add_option("package-path", "DIR", "search folder for package:// URIs", true);
  args.add_flag("strict",
                "refuse files with faults that are otherwise repaired with a warning (commas "
                "between numbers, inverted limits, junk after </robot>, a <mimic> of a missing "
                "joint, xacro leftovers, MJCF attributes newer than the installed MuJoCo)");
  args.add_option("xacro-arg", "NAME:=VALUE", "an argument for a .xacro robot's xacro run", true);
}

UrdfOptions read_robot_options(const ArgParser& args, MeshFiles meshes) {
  UrdfOptions opt;
  opt.floating_base = args.declares("floating-base") && args.has("floating-base");
  opt.package_paths = args.get_all("package-path");
  // a search folder that is not there is said (a typo read as meshes that were not found)
  for (const std::string& p : opt.package_paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec))
      std::fprintf(stderr, "warning: --package-path %s: no such folder\n", p.c_str());
  }
  opt.strict = args.has("strict");
  opt.xacro_args = args.get_all("xacro-arg");
  opt.load_meshes = meshes != MeshFiles::kNone;
  // the command line draws nothing; a caller that turns load_meshes on itself (the workbench)
  // still reads every mesh
  opt.load_visual_meshes = meshes != MeshFiles::kCollision;
  return opt;
}

UrdfOptions scene_robot_options(const ArgParser& args, const Scene& scene) {
  if (args.declares("floating-base") && args.has("floating-base"))
    throw CliError("--floating-base does not go with a scene (its \"floating_base\" says)");
  UrdfOptions opt = read_robot_options(args, scene_mesh_files(scene));
  opt.floating_base = scene.floating_base;
  opt.package_paths.insert(opt.package_paths.begin(), scene.package_paths.begin(),
                           scene.package_paths.end());
  opt.xacro_args.insert(opt.xacro_args.begin(), scene.xacro_args.begin(), scene.xacro_args.end());
  return opt;
}

int link_dof_count(const Model& m, int link) {
  std::vector<bool> moves(std::size_t(m.dof_count), false);
  for (int b = link; b >= 0;) {
    const int j = m.body_joint[b];
    if (j < 0) break;
    const int source = m.joint_mimic[j] >= 0 ? m.joint_mimic[j] : j;
    for (int d = m.joint_qd_start[source]; d < m.joint_qd_start[source + 1]; ++d)
      moves[std::size_t(d)] = true;
    b = m.joint_parent[j];
  }
  return int(std::count(moves.begin(), moves.end(), true));
}

int find_target_link(const Model& m, const std::string& name) {
  const int link = m.find_body(name);
  if (link < 0) {
    auto lower = [](std::string t) {
      for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
      return t;
    };
    std::string close, names;
    int shown = 0;
    for (const std::string& n : m.body_name) {
      names += (names.empty() ? "" : ", ") + n;
      if (!name.empty() && lower(n).find(lower(name)) != std::string::npos && shown < 3)
        close += std::string(shown++ ? ", '" : "'") + n + "'";
    }
    throw CliError("unknown link '" + name + "'" +
                   (close.empty() ? "" : "; did you mean " + close + "?") +
                   (names.empty() ? "; the robot has no links" : "; links are: " + names));
  }
  if (link_dof_count(m, link) > 0) return link;
  std::fprintf(stderr,
               "warning: no joint moves link '%s': only a target where it already is can be "
               "met\n",
               name.c_str());
  return link;
}

std::vector<NamedInput> scene_inputs(const Scene& scene) {
  return {{"the scene's robot", resolve_robot(scene.robot)}, {"the scene's srdf", scene.srdf}};
}

MeshFiles scene_mesh_files(const Scene& scene) {
  if (!scene.obstacles.empty()) return MeshFiles::kCollision;
  for (const SceneObjective& o : scene.objectives) {
    const ObjectiveKind* kind = find_objective_kind(o.type);
    if (!o.enabled || !kind) continue;
    if (kind->type == ObjectiveType::kSelfCollision || kind->type == ObjectiveType::kWorldCollision)
      return MeshFiles::kCollision;
    if (kind->type == ObjectiveType::kSupportPolygon)
      for (const SceneContact& c : o.contacts)
        if (c.points.empty()) return MeshFiles::kCollision;
  }
  return MeshFiles::kNone;
}

std::vector<std::pair<int, int>> fitting_srdf_pairs(const Model& m, const std::string& path) {
  std::vector<std::string> warnings;
  std::vector<std::pair<int, int>> pairs = disabled_body_pairs(m, load_srdf(path), warnings, path);
  if (!warnings.empty()) {
    // the warning a scene's SRDF gets, said as the refusal it is here: nothing is skipped
    std::string what = warnings[0];
    const std::size_t skipped = what.find(", skipped: "), other = what.rfind("; the other ");
    if (other != std::string::npos) what.erase(other);
    if (skipped != std::string::npos) what.replace(skipped, 11, ": ");
    throw std::runtime_error(what +
                             " (--srdf must name this robot's links; a scene's \"srdf\" with "
                             "such entries only warns)");
  }
  return pairs;
}

void print_warnings(const std::vector<std::string>& warnings, const std::string& file,
                    const std::string& robot_file) {
  for (const std::string& w : warnings) {
    const bool named = file.empty() || w.rfind(file, 0) == 0 ||
                       (!robot_file.empty() && w.rfind(robot_file + ": ", 0) == 0);
    std::fprintf(stderr, "warning: %s%s\n", named ? "" : (file + ": ").c_str(), w.c_str());
  }
}

}  // namespace ikwb
