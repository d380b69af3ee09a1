// A scene on a loaded model: its configuration, and its objectives as Objective descriptions
// with their targets, ready for an IkProblem. The mapping goes both ways and keeps every field
// its kind reads (engine/core/objective_kinds.hpp), so a scene opened, edited and saved again
// by the workbench, or solved by `ikwb solve --scene`, means exactly what its file says.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/scene.hpp"
#include "solver/problem.hpp"

namespace ikwb {

using JointMap = std::map<std::string, std::vector<double>>;  // joint name -> its coordinates

// Writes a joint map into q (coord_count, q_start order); unknown joints or wrong sizes are
// warnings ("WHAT: unknown joint 'NAME' ignored").
void apply_joint_map(const Model& model, const JointMap& values, const std::string& what,
                     std::vector<double>& q, std::vector<std::string>& warnings);
// every joint with coordinates, by name
JointMap joint_map(const Model& model, const std::vector<double>& q);

// clamps the 1-dof joints' coordinates into their limits (mimic joints are left alone): the
// model's, or lower / upper (dof_count each)
void clamp_to_limits(const Model& model, std::vector<double>& q);
void clamp_to_limits(const Model& model, const std::vector<double>& lower,
                     const std::vector<double>& upper, std::vector<double>& q);
// the same, with a warning "WHERE: joint 'NAME': V is beyond its limits, set to W" for each
// value moved by more than 1e-9 (a scene's 90 typed in degrees read as 2.8973 rad without a
// word); the count of those
int clamp_to_limits_named(const Model& model, const std::vector<double>& lower,
                          const std::vector<double>& upper, std::vector<double>& q,
                          const std::string& where, std::vector<std::string>& warnings);

// Contact points of a support polygon on `link` (link frame) where the scene gives none: the
// bottoms of the link's collision shapes (its visuals when it has none) whose lowest points stand
// less than kSoleHeight above the lowest's at the poses body_q. A box gives the four corners of
// its face that looks most downwards, a cylinder or a mesh that face of its bounding box (in the
// shape's frame), a sphere its lowest point; several such shapes (a sole of spheres, a heel box
// and a toe box) give the corners of their outline in world xy. Empty when the link has no
// shapes. (The workbench's default support polygon takes the links whose contacts stand within
// kStandingHeight of the lowest link's.)
constexpr double kSoleHeight = 0.005;     // m
constexpr double kStandingHeight = 0.01;  // m
std::vector<Vec3<double>> lowest_face_points(const Model& model, int link,
                                             const std::vector<Transform<double>>& body_q);

struct PlacedObjective {
  Objective objective;
  Transform<double> target = transform_identity<double>();  // world; kinds with a target
};

// One scene objective on the model. "current" targets and relative poses are taken from
// body_q (the poses at the scene's configuration); a posture's rest is rest_q. Returns false
// and sets *error when a link is unknown (or link_b is link): the caller skips it.
bool objective_from_scene(const Model& model, const SceneObjective& so,
                          const std::vector<Transform<double>>& body_q,
                          const std::vector<double>& rest_q, PlacedObjective* out,
                          std::string* error);
// the scene record of an objective (targets and relative poses written out, never "current")
SceneObjective objective_to_scene(const Model& model, const PlacedObjective& placed);

// What a scene asks to solve, on a model.
struct SceneSetup {
  std::vector<double> rest_q;  // (coord_count) neutral, then the scene's "rest"
  std::vector<double> q;       // (coord_count) rest, then the scene's "joint_q", clamped into
                               // the limits
  // (dof_count) the model's limits with the scene's "joint_limits"
  std::vector<double> dof_lower, dof_upper;
  std::vector<int> locked_joints;  // the scene's "joint_locks", as joint indices
  std::vector<PlacedObjective> objectives;
  // the model's capsules, the self-collision pairs less the scene's SRDF pairs, the obstacles
  CollisionWorld collision;
  std::vector<std::string> warnings;  // unknown joints or links (those objectives skipped), an
                                      // SRDF that cannot be used, collision geometry fallbacks
  std::string srdf_unread;            // why the scene's SRDF could not be read ("" read, or none)
  // the scene's entries the robot cannot take (values of joints it lacks, limits and locks it
  // ignores, objectives skipped): a scene written back from this setup leaves them out
  int left_out = 0;
};
// The scene's configuration, objectives and collision world on `model` (FK at the scene's
// configuration for "current" targets). The scene's own load warnings are not repeated. An SRDF
// that cannot be read or names unknown links is a warning (no pairs are disabled); the model's
// collision geometry warnings (visual fallbacks) are added when a collision objective is present.
// stand: each floating root the scene's "joint_q" does not place is lifted until the robot
// stands on z = 0 at the scene's configuration (standing_configuration; the workbench's choice,
// "rest" lifted the same), before the "current" targets are read; the commands keep the file's
// placement.
SceneSetup resolve_scene(const Model& model, const Scene& scene, bool stand = false);
// A warning for objective `index` (scene order) when it is an enabled support_polygon whose
// margin is more than its contacts' polygon allows at body_q (the radius of the largest circle
// inside it): no centre of mass can hold; or whose contacts make a point or a line there, where
// the margin does not apply. `where` names body_q's configuration in the text.
// resolve_scene checks every objective it places; the workbench an edited or added one.
void warn_support_margin(std::size_t index, const Objective& o,
                         const std::vector<Transform<double>>& body_q, const char* where,
                         std::vector<std::string>& warnings);
// The collision world of a scene: the model's capsules, its self pairs less the SRDF's with the
// scene's "collision_pairs" edits (disabled pairs removed, enabled ones added), the scene's
// obstacles (checked when the scene was read). SRDF problems and edited pairs that name unknown
// links or cannot be checked are added to warnings; *srdf_unread (when given) is why the
// scene's SRDF could not be read ("" when it was, or there is none).
CollisionWorld scene_collision_world(const Model& model, const Scene& scene,
                                     std::vector<std::string>& warnings,
                                     std::string* srdf_unread = nullptr);

// What a batch solve (`ikwb solve --scene`, `ikwb animate`, the Python Scene) requires of a
// scene on its robot beyond what resolve_scene accepts: it solves all the scene asks or nothing.
// Throws SceneError naming the first objective the robot cannot place (an unknown link, ...):
// the workbench warns and skips it, a batch does not. command: the batch's name, for the
// message.
void require_placed_objectives(const Model& m, const Scene& scene, const SceneSetup& setup,
                               const std::string& scene_path, const char* command);
// the same, and at least one enabled objective (else SceneError: nothing to solve)
void require_solvable_scene(const Model& m, const Scene& scene, const SceneSetup& setup,
                            const std::string& scene_path, const char* command);

// An IkProblem of problem_count problems holding the objectives, every problem starting at
// their targets, with the collision world when given.
IkProblem make_problem(std::shared_ptr<const Model> model,
                       const std::vector<PlacedObjective>& objectives, int problem_count = 1,
                       const CollisionWorld* collision = nullptr);
// the setup's joint limits and locks (locked joints' dofs frozen) on problem
void apply_joint_settings(const SceneSetup& setup, IkProblem& problem);

// Beyond this mean distance (m) from their targets, a floating robot's targeted links start
// where their targets are (starts_near_targets); within it the solve moves it there (the
// default step is capped at 1 m)
constexpr double kFarTargets = 1.0;
// Where the problems of a batch that share the start q begin: q, except on a robot whose root
// joint is free (a floating base) where a problem's enabled pose, position and com objectives
// have their points (link points, the centre of mass) on average more than kFarTargets from
// their targets at q, per world axis over the objectives that weigh that axis. Such a problem
// starts with the base moved by that mean offset (orientation and joints as in q); a sequence's
// row, from the answer before it, the same way. Motion capture in
// world coordinates, 50 m from the scene's start, took 260 iterations a row from the start's
// base (1 m a step, restarts drawn about it) and left 10 of 199 rows unconverged. Returns q
// (coord_count) when no problem moves, else problem_count x coord_count starts.
std::vector<double> starts_near_targets(const IkProblem& problem, const std::vector<double>& q);
// the dof mask (dof_count, 1 = free) that freezes the joints in `locked`; empty when none
std::vector<uint8_t> lock_mask(const Model& model, const std::vector<int>& locked);
// a joint's limits differ from the model's (live or scene limits: flagged in the workbench)
bool limits_edited(const Model& model, int dof, double lower, double upper);
// the scene's "joint_locks" and "joint_limits" for these limits and locks (only limits that
// differ from the model's are written)
void joint_settings_to_scene(const Model& model, const std::vector<double>& lower,
                             const std::vector<double>& upper, const std::vector<int>& locked,
                             Scene& scene);

}  // namespace ikwb
