// Scene files: a robot, its objectives and targets, solver settings, the joint configuration
// and the camera, as versioned JSON. Robot presets (assets/robots/NAME/preset.json) are scenes
// whose targets may say "current" (start at the link's pose in the rest posture).
//
// Plain data only (no solver or OpenGL types): the workbench maps it onto IkProblem and
// SolverSettings. Writing is atomic: temporary file, flush + fsync, rename.
#pragma once

#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/collision_geometry.hpp"
#include "engine/core/spatial.hpp"
#include "engine/core/timeline.hpp"

namespace ikwb {

// A scene that cannot be read or written; the message starts with the file name.
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kSceneVersion = 1;

// support_polygon contact points on one link (link frame); no points: the lowest face of the
// link's collision geometry (solver/scene_problem.hpp)
struct SceneContact {
  std::string link;
  std::vector<Vec3<double>> points;
};

// The largest objective weight (and manipulability bound) a scene takes: beyond it the weighted
// squared residuals overflow the solver's cost.
constexpr double kMaxWeight = 1e6;

struct SceneObjective {
  std::string type = "pose";  // a kind's scene name (engine/core/objective_kinds.hpp)
  std::string name;
  // link names ("" when not used); a look_at's link_b is optional: given, it looks at
  // offset_b on link_b instead of its target
  std::string link, link_b;
  Vec3<double> offset{0, 0, 0}, offset_b{0, 0, 0};
  double distance = 0;                 // min_distance
  Vec3<double> axis{0, 0, 1};          // look_at, axis_align: in the link frame
  Vec3<double> direction{0, 0, -1};    // axis_align: world
  double cone = 0;                     // look_at, axis_align, orientation_cone: rad
  std::vector<SceneContact> contacts;  // support_polygon
  double margin = 0;  // support_polygon, collision kinds: m (read: default_margin when absent)
  Vec3<double> lower{-0.05, -0.05, -0.05}, upper{0.05, 0.05, 0.05};  // position_box (+-inf: open)
  double min_measure = 0;                                            // manipulability
  double weight = 1;
  Vec3<double> position_weights{1, 1, 1}, rotation_weights{1, 1, 1};
  bool hard = false;
  bool enabled = true;
  bool null_space = false;     // posture
  bool target_current = true;  // target = the link's pose at the scene's configuration
  Transform<double> target = transform_identity<double>();
  bool relative_current = true;  // relative_fixed: keep the relative pose of the configuration
  Transform<double> relative = transform_identity<double>();
};

struct Scene {
  int version = kSceneVersion;
  std::string robot;  // URDF path (relative paths are relative to the scene file) or the
                      // name of a shipped robot
  bool floating_base = false;
  std::vector<std::string> package_paths;
  std::vector<std::string> xacro_args;  // NAME:=VALUE, for a .xacro robot (UrdfOptions)
  // joint coordinates by joint name (1 value, 4 for ball, 7 for free); missing joints keep
  // the rest / neutral value
  std::map<std::string, std::vector<double>> joint_q;
  std::map<std::string, std::vector<double>> rest;  // posture rest, same form
  std::vector<SceneObjective> objectives;
  // obstacles for world_collision ("obstacles"), and an SRDF whose <disable_collisions> pairs
  // self_collision skips ("srdf": a path, relative to the scene file; "" = none)
  std::vector<Obstacle> obstacles;
  std::string srdf;
  // self pairs turned off or on by hand, relative to the defaults less the SRDF's
  // ("collision_pairs": {"disabled": [["a", "b"], ...], "enabled": [...]})
  CollisionPairEdits collision_pairs;
  nlohmann::json solver = nlohmann::json::object();  // settings by name, see the README
  nlohmann::json camera = nlohmann::json::object();  // target, distance, yaw, pitch
  nlohmann::json extra = nlohmann::json::object();   // other app state (view toggles, ...)
  std::vector<std::string> joint_locks;              // joints the solver leaves where they are
  // joint limits that replace the robot file's (1-dof joints; lower <= upper, +-inf allowed)
  std::map<std::string, std::array<double, 2>> joint_limits;
  SceneTimeline timeline;  // keyframes (engine/core/timeline.hpp); written when it has keys
  // what loading could not restore (unknown keys, fields of newer versions, ...)
  std::vector<std::string> warnings;
};

// Reads a scene; relative robot paths are made absolute against the file's folder.
// Throws SceneError naming the file and the problem (a folder, bad JSON, numbers past the
// double range, nesting deeper than 256 levels, wrong types, non-finite numbers, unknown
// objective types, missing robot, newer major version).
// forgiving_timeline (the workbench's way): a malformed "timeline" is a warning naming the
// problem and the scene is read without it, instead of a SceneError.
Scene load_scene(const std::string& path, bool forgiving_timeline = false);
// same from text; base_dir resolves relative robot paths ("" leaves them as they are)
Scene parse_scene(const std::string& text, const std::string& source_name,
                  const std::string& base_dir, bool forgiving_timeline = false);
nlohmann::json scene_to_json(const Scene& scene);
// one objective as written in a scene file: the keys its kind reads (objective_kinds.hpp)
nlohmann::json scene_objective_to_json(const SceneObjective& objective);
// One objective read as a scene file's "objectives" entry is (the rules an edit elsewhere must
// keep for its scene to open again); throws SceneError "WHERE.KEY: problem".
SceneObjective parse_scene_objective(const nlohmann::json& objective, const std::string& where);
// Atomic write; on failure (including text that is not UTF-8) the old file is left intact
// and SceneError says why.
void save_scene(const std::string& path, const Scene& scene);
// Atomic write of any text file (used for scenes, exports and the recovery file); a device, a
// pipe or a link is written as output_target says.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace ikwb
