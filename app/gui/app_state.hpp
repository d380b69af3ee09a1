// The workbench's application state: the robot, its joint configuration, the objectives as the
// UI edits them, solver settings and the last solve's summary, selection, messages and timing.
//
// Panels, the viewport and the automation script edit this plain data; sync() is the one place
// that reconciles it with the IkProblem the solver reads (MuJoCo simulate's sync point). The
// solver itself is driven by SolverDriver (solver_driver.hpp), never from here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/branch_edit.hpp"
#include "app/gui/timing.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/settings.hpp"

namespace ikwb::gui {

// the objective types the workbench edits
enum class ObjectiveKind {
  kPosition,
  kRotation,
  kPose,
  kJointLimits,
  kPosture,
  kRelativeBall,   // a point on link a and a point on link b coincide
  kRelativeFixed,  // link b keeps its pose relative to link a
  kMinDistance,    // the points on links a and b stay at least `distance` apart
};

// "position", "rotation", "pose", "joint_limits", "posture", "relative_ball", "relative_fixed",
// "min_distance" (the scene file's names)
const char* objective_kind_name(ObjectiveKind k);
// inverse of objective_kind_name; false when unknown
bool parse_objective_kind(const std::string& s, ObjectiveKind* out);
// position, rotation and pose objectives act on a link and have a target pose (and a gizmo)
bool kind_has_link(ObjectiveKind k);
// relative_ball, relative_fixed and min_distance relate two links (no target)
bool kind_is_pair(ObjectiveKind k);

// What the last solve left for one objective (written after FK, read by the UI and the dump).
struct ObjectiveStatus {
  Transform<double> current = transform_identity<double>();  // link point and orientation
  double position_error = 0;  // m, |point - target| (position and pose)
  double rotation_error = 0;  // rad, angle of R R_target^T (rotation and pose)
  double error = 0;           // joint_limits: largest violation; posture: |q - rest| (dof space);
                              // min_distance: how much closer than `distance` the points are
  bool reached = true;        // within 2x the solver tolerances, or 1 mm and 0.5 degrees
  bool out_of_reach = false;  // not reached and the solver has settled: best effort
};

// One objective as the UI edits it. Indices match the IkProblem's objectives after sync().
struct ObjectiveUi {
  ObjectiveKind kind = ObjectiveKind::kPose;
  std::string name;
  int link = -1;                   // body (link kinds)
  Vec3<double> offset{0, 0, 0};    // point on the link, link frame
  int link_b = -1;                 // pair kinds: the second body
  Vec3<double> offset_b{0, 0, 0};  // pair kinds: point on link_b, link_b frame
  double distance = 0;             // min_distance, m
  Transform<double> relative = transform_identity<double>();  // relative_fixed: b in a
  double weight = 1.0;
  bool hard = false;
  bool enabled = true;
  Transform<double> target = transform_identity<double>();  // world (link kinds)
  std::vector<double> rest_q;                               // posture: coord_count
  bool null_space = false;  // posture: applied in the task's null space (never fights it)
  ObjectiveStatus status;
};

struct Message {
  enum Level { kInfo, kWarning, kError };
  Level level = kInfo;
  std::string text;
  int frame = 0;
  double time = 0;  // seconds since the app started
};

// Summary of the solver's work this frame (plain data for panels and the dump).
struct SolveStatus {
  bool ran = false;          // a solve ran this frame
  bool converged = false;    // the kept configuration meets the tolerances
  bool settled = false;      // nothing left to do: converged, or stalled at a best effort
  int iterations = 0;        // of the kept seed
  int total_iterations = 0;  // over all seeds
  int seed = 0;              // kept seed (0 = warm start from the current configuration)
  double cost = 0;
  double position_error = 0;  // m, largest over link objectives
  double rotation_error = 0;  // rad
  double solve_ms = 0;
  int stalled_frames = 0;       // consecutive frames without progress while not converged
  std::string backend = "cpu";  // backend that ran
  std::string backend_note;     // why the requested backend is not in use ("" when it is)
  bool cuda_available = false;  // a CUDA device is usable (checked once at start)
  std::string cuda_reason;      // why not
};

struct Selection {
  int body = -1;       // selected link
  int objective = -1;  // objective whose gizmo is shown
};

struct Hover {
  int body = -1;       // link under the mouse (3D view or robot tree)
  int objective = -1;  // target marker under the mouse
};

class AppState {
 public:
  AppState();

  // ---- robot -----------------------------------------------------------------------------
  std::shared_ptr<const Model> model;  // null until a robot is loaded
  std::string robot_path;              // URDF file
  std::string robot_title;             // shown in the UI
  std::vector<std::string> load_warnings;
  UrdfOptions urdf_options;    // package paths, floating base
  uint64_t model_version = 0;  // bumps whenever the robot is replaced

  // Loads a URDF (a path, or a shipped robot's name) without objectives. On failure the current
  // robot stays and the error goes to the messages; returns false.
  bool load_robot(const std::string& path_or_name);
  // Loads a shipped robot with its preset scene (assets/robots/NAME/preset.json); just the URDF
  // when it has none.
  bool open_robot_preset(const std::string& name);
  // Replaces robot, configuration, objectives and solver settings with a scene's. Targets marked
  // "current" start at the link's pose in the scene's configuration. On a robot load failure
  // nothing changes; unknown links or joints are warnings.
  bool apply_scene(const Scene& scene);
  // the current state as a scene (robot path, configuration, objectives, solver settings)
  Scene make_scene() const;
  // Like apply_scene (undo, redo, recovery) but keeps the loaded model when the scene names the
  // same robot; no camera change. Notes the edit as `what`.
  bool restore_scene(const Scene& scene, const std::string& what);

  // ---- configuration ---------------------------------------------------------------------
  std::vector<double> joint_q;  // (coord_count)
  std::vector<double> rest_q;   // (coord_count) rest posture (preset or neutral)
  State fk;                     // body poses at joint_q (update_fk)
  // when a joint is set by hand, move the link objectives' targets to the new link poses (the
  // robot stays where it was put); otherwise the solver keeps the targets and moves the rest
  bool targets_follow_joints = true;
  int held_joint = -1;  // joint being edited by hand this frame (frozen for the solver)

  // sets a 1-dof joint's coordinate (clamped into its limits), as the joint slider does
  void set_joint(int joint, double value);
  // coordinate k of a joint: 0 of a 1-dof joint, or x, y, angle (0, 1, 2) of a planar one
  void set_joint_coordinate(int joint, int k, double value);
  // sets the whole configuration (coord_count values; clamped)
  void set_configuration(const std::vector<double>& q);
  // full FK at joint_q; in branch edit mode, the branch edit's body state instead
  void update_fk();
  BranchEdit branch;  // masked-FK branch edit mode (branch_edit.hpp)

  // ---- objectives --------------------------------------------------------------------------
  std::vector<ObjectiveUi> objectives;

  // adds an objective; link kinds start with the target at the link's current pose. Returns its
  // index, or -1 (with a message) when the link is invalid.
  int add_objective(ObjectiveKind kind, int link = -1, Vec3<double> offset = {0, 0, 0});
  void remove_objective(int index);
  // selects a link and, unless the selected objective is on it already, its first objective
  // (so its gizmo appears); -1 clears the link selection
  void select_link(int body);
  void set_target(int index, const Transform<double>& target);
  // world pose of objective i's link point at the current configuration
  Transform<double> link_point_pose(int index) const;
  // recomputes each objective's errors from fk (after FK)
  void update_objective_status();

  // The sync point: applies the objectives and the held joint to the IkProblem (rebuilt when
  // objectives were added or removed, or the robot changed; edited in place otherwise).
  void sync();
  const IkProblem* problem() const { return problem_.get(); }
  // changes whenever sync() rebuilds the problem (with problem()->version(): any edit)
  uint64_t problem_serial() const { return problem_serial_; }

  // ---- solver ------------------------------------------------------------------------------
  SolverSettings settings;  // interactive defaults, see interactive_solver_settings()
  bool live_solve = true;   // solve every frame
  SolveStatus solve;
  SolveResult last_result;  // every seed's final state (for seed ghosts)
  // every enabled objective is at its target (ObjectiveStatus::reached)
  bool all_reached() const;
  // "paused", "idle" (no objectives), "converged", "settled" (stopped within the display tolerances
  // without meeting the solver's: a soft trade-off), "best effort" (stopped short) or "solving"
  const char* solve_state() const;

  // ---- edits --------------------------------------------------------------------------------
  // Marks a finished user edit (a drag released, an objective added or removed, a slider let
  // go, a robot opened): edit_serial bumps. Undo and autosave snapshot make_scene() when it
  // changes, so continuous drags make one step each.
  void note_edit(const std::string& what);
  uint64_t edit_serial = 0;
  std::string last_edit;

  // ---- UI state ----------------------------------------------------------------------------
  Selection selection;
  Hover hover;
  // camera from a scene (target, distance, yaw, pitch) for the viewport to apply once; empty:
  // frame the robot when it changes
  nlohmann::json scene_camera = nlohmann::json::object();
  std::vector<Message> messages;
  int frame = 0;
  FrameStats stats;

  void log(Message::Level level, const std::string& text);
  void info(const std::string& text) { log(Message::kInfo, text); }
  void warn(const std::string& text) { log(Message::kWarning, text); }
  void error(const std::string& text) { log(Message::kError, text); }

 private:
  // installs a freshly loaded model: configuration to rest, objectives cleared
  void install_model(LoadResult loaded, const std::string& path);
  // configuration, solver settings and objectives of a scene, on the installed model
  void apply_scene_content(const Scene& scene);

  std::unique_ptr<IkProblem> problem_;
  bool structure_dirty_ = true;
  uint64_t problem_serial_ = 0;
  uint64_t synced_model_version_ = 0;
};

// LM, analytic Jacobian, 8 gaussian seeds around the current configuration, closest converged
// seed preferred, hard joint limits, 15 iterations per frame
SolverSettings interactive_solver_settings();

}  // namespace ikwb::gui
