// The workbench's application state: the robot, its joint configuration, the objectives as the
// UI edits them, solver settings and the last solve's summary, selection, messages and timing.
//
// Panels, the viewport and the automation script edit this plain data; sync() is the one place
// that reconciles it with the IkProblem the solver reads (MuJoCo simulate's sync point). The
// solver itself is driven by SolverDriver (solver_driver.hpp), never from here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/branch_edit.hpp"
#include "app/gui/timeline_state.hpp"
#include "app/gui/timing.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/compromise.hpp"
#include "solver/objective_report.hpp"
#include "solver/settings.hpp"
#include "solver/solver.hpp"

namespace ikwb::gui {

// What the last frame left for one objective: the solver's own numbers from its residual rows
// (solver/objective_report.hpp), whether the solver has given up on reaching it, and, once the
// robot has rested on that solution, why (solver/compromise.hpp, SolverDriver::step_frame).
struct ObjectiveStatus : ObjectiveReport {
  bool missed = false;     // pursued, not reached, and the solver has settled: best effort
  bool explained = false;  // the fields below describe the current, settled solution
  ReachStatus status = ReachStatus::kReached;
  std::vector<Blocker> blocked_by;
  std::vector<Pull> pulled_by;  // shares in unit, largest first
  std::vector<Pull> helped_by;  // Explanation::helped_by: amounts in unit, largest first
  ShareUnit unit = ShareUnit::kMetre;
  double share_error = 0;  // the error the shares split (Explanation::error, in unit)
  double best_error = std::numeric_limits<double>::quiet_NaN();  // Explanation::best_error
  // the share of the pulls not listed (negative shares: objectives that help, and those under
  // 1%): the listed shares add up to pulled_error (share_error, or a blocked objective's part
  // of it the soft objectives hold back) with it
  double others_share() const {
    double listed = 0;
    for (const Pull& p : pulled_by) listed += p.share;
    return pulled_error(share_error, best_error) - listed;
  }
  // the help others_share holds beyond the helpers named in helped_by (those under 1%), in unit
  double unnamed_help() const {
    double named = 0;
    for (const Pull& p : helped_by) named += p.share;
    return -others_share() - named;
  }
  // the explanation says so: missed, and the objective alone is not reached either (false
  // until the robot rests and its explanation comes)
  bool out_of_reach() const { return explained && status == ReachStatus::kOutOfReach; }
  // how far out of reach (m, 0 unless out_of_reach): what is left with the other soft
  // objectives off (best_error, position rows) where the explanation has it, else the error
  double out_of_reach_by() const {
    if (!out_of_reach()) return 0.0;
    return std::isfinite(best_error) && unit == ShareUnit::kMetre
               ? std::min(best_error, position_error)
               : position_error;
  }
};

// One objective in the workbench. `spec` is the same description the scene file and the
// IkProblem hold (every field of its kind, per-axis weights included): panels, the viewport and
// scripts edit it in place and sync() hands it to the solver as it is.
struct WorkbenchObjective {
  Objective spec;
  Transform<double> target = transform_identity<double>();  // world (kinds with a target)
  ObjectiveStatus status;
  // the last spec the solver took: an edit it refuses is undone to this (sync())
  Objective accepted;

  const ObjectiveKind& kind() const { return objective_kind(spec.params.type); }
  ObjectiveType type() const { return spec.params.type; }
  int link() const { return spec.params.link; }
  bool enabled() const { return spec.params.enabled != 0; }
  // a world target with a gizmo (not a look_at that follows link_b)
  bool has_target() const { return spec.has_target(); }
  // it reads its target's position / orientation (the gizmo moves / turns it); com and look_at
  // read a point only, rotation an orientation only
  bool has_target_position() const { return has_target() && kind().target_position(); }
  bool has_target_orientation() const { return has_target() && kind().target_orientation(); }
  const std::string& name() const { return spec.name; }
};

// the frame budget of a new workbench or a scene without one (ms)
constexpr double kDefaultFrameBudgetMs = 4.0;

constexpr double kBannerSeconds = 6.0;  // an error shows as the 3D view's banner this long
struct Message {
  enum Level { kInfo, kWarning, kError };
  Level level = kInfo;
  std::string text;
  int frame = 0;
  double time = 0;  // seconds since the app started
};

// How the last solve spent the frame budget (SolverDriver with AppState::frame_budget_ms > 0).
struct BudgetStatus {
  bool on = false;  // the last solve ran under a budget (the fields below are of it)
  double budget_ms = 0;
  double warm_ms = 0;  // the warm start (seed 0 from the current configuration)
  int warm_iterations = 0;
  double warm_damping = 0;         // the LM damping the warm start began with (the last one's end)
  bool stopped_converged = false;  // the warm start converged, so no other seed ran
  int pool_seeds = 0;              // pool seeds advanced (seed_pool.hpp)
  double pool_ms = 0;
  int pool_iterations = 0;                // over the pool seeds advanced
  double left_ms = 0;                     // budget left when the solve ended (0 when it ran over)
  uint64_t pool_generation = 0;           // pools drawn since start (0: none yet)
  std::vector<int> pool_seed_iterations;  // per pool seed, iterations since its pool was drawn
};

// Summary of the solver's work this frame (plain data for panels and the dump).
struct SolveStatus {
  bool ran = false;           // a solve ran this frame
  bool converged = false;     // the kept configuration meets the tolerances
  bool settled = false;       // nothing left to do: converged, or stalled at a best effort
  bool settling = false;      // converged, the null-space posture still settling (next frames)
  bool as_opened = false;     // resting where a scene was opened, not solved yet (no cost, and
                              // no explanation: that is of a settled solution)
  int iterations = 0;         // of the kept seed
  int total_iterations = 0;   // over all seeds
  int seed = 0;               // kept seed (0 = warm start from the current configuration)
  double cost = 0;            // the kept seed's soft cost; NaN while the solver is paused (a
                              // timeline playing moves the robot without a solve)
  double position_error = 0;  // m, largest over link objectives
  double rotation_error = 0;  // rad
  double solve_ms = 0;
  int stalled_frames = 0;        // consecutive frames without progress while not converged
  double explain_ms = 0;         // the last compromise explanation (CPU), 0 before the first
  int explain_solves = 0;        // test solves it ran
  int explanations = 0;          // explanations run since start
  int explanations_stopped = 0;  // stopped before they finished: the robot moved on
  std::string backend = "cpu";   // backend that ran
  std::string backend_note;      // why the requested backend is not in use ("" when it is)
  bool cuda_available = false;   // a CUDA device is usable (checked once at start)
  std::string cuda_reason;       // why not
  std::vector<int> step_bound;   // joints the frame step bound held back this frame (none when
                                 // no solve ran: the robot rests)
  BudgetStatus budget;           // how the last solve spent the frame budget
};

// The closest collision pairs at the last FK (AppState::evaluate, once a frame after the solve),
// shared by the residual panel, the 3D view's overlays and the state dump.
constexpr int kCollisionPairsListed = 8;  // the closest pairs always listed
struct CollisionStatus {
  // pairs closer than this are near (orange), below 0 penetrating (red): the largest margin of
  // the enabled collision objectives, without one 1 cm (less on a robot under 0.5 m across, as
  // a new objective's margin)
  double margin = 0.01;
  bool objective = false;  // an enabled self_collision or world_collision objective
  // the kCollisionPairsListed closest pairs and every further pair closer than the margin,
  // closest first (per body pair, or body and obstacle, its closest capsule pair)
  std::vector<BodyDistance> pairs;
  int near_count = 0;         // pairs with 0 <= distance < margin
  int penetrating_count = 0;  // pairs with distance < 0
};

struct Selection {
  int body = -1;       // selected link
  int objective = -1;  // objective whose gizmo is shown
  // selected obstacle (its gizmo is shown while no objective is selected; see select_obstacle)
  int obstacle = -1;
};

struct Hover {
  int body = -1;       // link under the mouse (3D view or robot tree)
  int objective = -1;  // target marker under the mouse
  int obstacle = -1;   // obstacle under the mouse
};

class AppState {
 public:
  AppState();

  // ---- robot -----------------------------------------------------------------------------
  std::shared_ptr<const Model> model;  // null until a robot is loaded
  std::string robot_path;              // URDF file
  std::string robot_title;             // shown in the UI
  std::vector<std::string> load_warnings;
  // the options the next robot opens with: the command line's, and package paths added since
  // (a scene's floating base and xacro arguments are its robot's own: robot_options)
  UrdfOptions urdf_options;
  UrdfOptions robot_options;   // what the current robot was opened with (saved into scenes)
  uint64_t model_version = 0;  // bumps whenever the robot is replaced
  // the robot's size at rest when it was opened (m): the diagonal of the bounds of its link
  // origins and collision capsules; new collision margins and the small-robot note read it
  double robot_extent = 0;
  // bumps with every objective added by hand or script (add_objective; not a scene or preset
  // opened, nor undo and redo): the view brings a new objective's gizmo into view
  uint64_t objectives_added = 0;

  // Loads a URDF (a path, or a shipped robot's name) without objectives. On failure the current
  // robot stays and the error goes to the messages; returns false.
  bool load_robot(const std::string& path_or_name);
  // Loads a shipped robot with its preset scene (assets/robots/NAME/preset.json); just the URDF
  // when it has none.
  bool open_robot_preset(const std::string& name);
  // Replaces robot, configuration, objectives and solver settings with a scene's. Targets marked
  // "current" start at the link's pose in the scene's configuration. On a robot load failure
  // nothing changes; unknown links or joints, bad camera keys and the like are warnings, named
  // with `file` (the scene file; "" for a preset). recovery: `file` is the recovery file, and
  // the message says the previous session was restored from it (not "opened the scene").
  bool apply_scene(const Scene& scene, const std::string& file = "", bool recovery = false);
  // the current state as a scene (robot path, configuration, objectives, solver settings)
  Scene make_scene() const;
  // Like apply_scene (undo, redo, recovery) but keeps the loaded model when the scene names the
  // same robot; no camera change; the scene's solver settings apply but the backend, the frame
  // step and the frame budget stay. Notes the edit as `what`.
  bool restore_scene(const Scene& scene, const std::string& what);

  // ---- configuration ---------------------------------------------------------------------
  std::vector<double> joint_q;  // (coord_count)
  std::vector<double> rest_q;   // (coord_count) rest posture (preset or neutral)
  State fk;                     // body poses at joint_q (update_fk)
  // when a joint is set by hand, move the link objectives' targets to the new link poses (the
  // robot stays where it was put); otherwise the solver keeps the targets and moves the rest
  bool targets_follow_joints = true;
  int held_joint = -1;  // joint being edited by hand this frame (frozen for the solver)
  // the most a 1-dof joint may move in one solved frame (rad or m; 0: unbounded): each frame's
  // solve searches only within this step of where the robot is, so a drag walks the robot
  // along its branch instead of letting it jump to another. Saved in scenes ("extra").
  double frame_step = 0;
  // the most one frame's solve may take (ms; 0: no budget, every seed solved every frame): the
  // warm start first, the other seeds continued across frames in the time left, and nothing
  // more once the warm start has converged (SolverDriver). Saved in scenes ("extra").
  double frame_budget_ms = kDefaultFrameBudgetMs;
  // while a script holds frame_budget_ms at 0 (ScriptRunner::hold_budget), the user's budget it
  // holds, which scenes save; -1: none held
  double held_frame_budget_ms = -1;
  // the frame budget a scene saves: the user's, also while a script holds it
  double scene_frame_budget_ms() const {
    return frame_budget_ms == 0 && held_frame_budget_ms >= 0 ? held_frame_budget_ms
                                                             : frame_budget_ms;
  }
  // live joint limits (dof_count each): the robot file's until edited; the solver, the sliders
  // and the limit colours use these
  std::vector<double> dof_lower, dof_upper;
  std::vector<int> locked_joints;  // joints the solver leaves where they are

  // a 1-dof joint's live limits (lower <= upper; +-inf: unlimited), narrowed to the values that
  // keep the mimic joints following it within their own limits; the coordinate is clamped into
  // them. Returns false (with a message) for a joint without one coordinate, bad values, finite
  // limits for a continuous joint (it has none: its angle comes back in (-pi, pi]) or limits
  // without a value that keeps its mimic joints (mimic_limits_problem).
  bool set_joint_limits(int joint, double lower, double upper);
  // why no value of joint's within [lower, upper] keeps the mimic joints following it within
  // their limits, naming them; "" when some does
  std::string mimic_limits_problem(int joint, double lower, double upper) const;
  // back to the robot file's limits
  void reset_joint_limits(int joint);
  void set_joint_locked(int joint, bool locked);
  bool joint_locked(int joint) const;

  // sets a 1-dof joint's coordinate (clamped into its limits, with a warning naming the joint
  // and the limit, once per value), as the joint slider does
  void set_joint(int joint, double value);
  // coordinate k of a joint: 0 of a 1-dof joint, or x, y, angle (0, 1, 2) of a planar one
  void set_joint_coordinate(int joint, int k, double value);
  // with the targets following, a joint set by hand (the slider, a branch edit) is where the user
  // wants it: the rest (the scene's, the Rest button's) and the postures' take coordinate
  // `coord`'s value, or their null-space steps would pull the joint back (a gripper finger,
  // outside every task, all the way; an elbow set to -120 deg crept back to -70)
  void rest_at(int coord);
  // "" when coordinate k of the joint may take `value`, else a warning naming the joint and the
  // limit it is clamped to
  std::string beyond_limit(int joint, int k, double value) const;
  // sets the whole configuration (coord_count values; clamped)
  void set_configuration(const std::vector<double>& q);
  // FK at joint_q now (in branch edit mode, the branch edit's body state instead). Setters do
  // not run it: they mark the configuration changed, and the frame step (or ensure_fk) runs FK
  // once.
  void update_fk();
  // update_fk when the configuration changed since the last FK
  void ensure_fk();
  BranchEdit branch;  // masked-FK branch edit mode (branch_edit.hpp)

  // ---- objectives --------------------------------------------------------------------------
  std::vector<WorkbenchObjective> objectives;
  // the scene's obstacles and SRDF (kept and saved; the collision objectives read them)
  std::vector<Obstacle> obstacles;
  std::string srdf;
  // self pairs turned off or on by hand, relative to the defaults less the SRDF's (saved)
  CollisionPairEdits collision_pairs;
  // the closest collision pairs, refreshed by evaluate()
  CollisionStatus collisions;
  // what the collision objectives check: capsules, self pairs, obstacles
  const CollisionWorld& collision_world() const { return collision_world_; }
  // Rebuilds the collision world from obstacles, srdf and collision_pairs (the problem is
  // rebuilt at the next sync); call after editing any of them.
  void rebuild_collision_world();
  // whether the self pair of bodies a and b is checked now / by default (both have capsules,
  // not joined by a joint, not disabled by the SRDF)
  bool collision_pair_checked(int a, int b) const;
  bool collision_pair_default(int a, int b) const;
  // Turns checking of a self pair on or off (an edit: undoable, saved in the scene's
  // "collision_pairs"). False, with a message, when the pair can never be checked.
  bool set_collision_pair(int a, int b, bool checked);
  // The self pairs that overlap at the current pose (a < b, deepest first), e.g. a gripper's
  // fingers whose fitted capsules touch at rest.
  std::vector<std::pair<int, int>> overlapping_pairs() const;
  // Stops checking every overlapping pair, as one edit; the number turned off.
  int turn_off_overlapping_pairs();

  // ---- obstacles (obstacles.cpp) -------------------------------------------------------------
  // Every change is checked (check_obstacle, unique non-empty names) and refused with a message
  // naming the problem, keeping what was there; accepted changes update the solver's collision
  // world at the next sync().
  // an obstacle of `type` with a size from the robot's, just in front of the robot (+x) and
  // clear of it at the current configuration; a floor (half-space) under the robot's lowest
  // moving capsule. `name` "" picks a free one ("box", "box 2", ...).
  Obstacle new_obstacle(ShapeType type, const std::string& name = "") const;
  // adds and selects it; its index, or -1. The first obstacle without a world_collision
  // objective warns that the solver ignores obstacles until one is added.
  int add_obstacle(Obstacle obstacle);
  // replaces obstacle `index`; `what` non-empty notes an undo step (a drag in progress passes "")
  bool set_obstacle(int index, const Obstacle& obstacle, const std::string& what);
  void remove_obstacle(int index);
  // index of the obstacle named `name`, -1 when none
  int find_obstacle(const std::string& name) const;
  // selects obstacle `index` for the gizmo and the panel (clears the objective selection)
  void select_obstacle(int index);
  // the obstacle whose gizmo is shown: selection.obstacle while no objective is selected
  int selected_obstacle() const;
  // whether an enabled world_collision objective reads the obstacles
  bool has_world_collision() const;

  // a new objective of `type` with its kind's defaults (weight, mode, the rest posture) on a link
  // point (kinds with a link); add it with add_objective
  Objective new_objective(ObjectiveType type, int link = -1, Vec3<double> offset = {0, 0, 0}) const;
  // Adds an objective; kinds with a target start with it at the link point's current pose. Its
  // name (the spec's, else its kind's default) gets " 2", " 3", ... when another objective has
  // it already. Returns its index, or -1 (with a message naming the problem) when the solver
  // refuses it (unknown link, a second joint limits objective, bad values).
  int add_objective(Objective spec);
  void remove_objective(int index);
  // a warning when objective `index` is a support polygon whose margin is more than its
  // contacts' polygon allows at joint_q (warn_support_margin): after an edit of its margin or
  // contacts, or its addition by a script
  void check_support_margin(int index);
  // the timeline's keys' targets where the objectives are met at each key's configuration (after
  // an objective is added or removed: the keys hold a target per objective, by position)
  void refit_key_targets();
  // selects a link and, unless the selected objective is on it already, its first objective
  // (so its gizmo appears); -1 clears the link selection
  void select_link(int body);
  void set_target(int index, const Transform<double>& target);
  // objective `index` (a look_at) looks at the point offset_b of link `body`, or at its target
  // again when body < 0: then the target is put where the followed point is, so nothing jumps.
  // Records no undo step (the caller names the edit).
  void set_look_at_link(int index, int body);
  // the target objective i meets at the last FK: its link point and the link's orientation;
  // the centre of mass for com; 1 m along the axis for look_at (objective_met_target)
  Transform<double> link_point_pose(int index) const;
  // FK (when the configuration changed) and every objective's status from the solver's residual
  // rows, after sync(); the frame step calls it once a frame
  void evaluate();

  // The sync point: applies the objectives and the held joint to the IkProblem (rebuilt when
  // objectives were added or removed, or the robot changed; edited in place otherwise).
  void sync();
  // the limits this frame's solve uses: the live limits, within frame_step of joint_q for
  // 1-dof joints when the frame step bound is on
  void solve_limits(std::vector<double>* lower, std::vector<double>* upper) const;
  // the 1-dof joints whose move from q_before to joint_q reached the frame step bound
  std::vector<int> step_bound_joints(const std::vector<double>& q_before) const;
  const IkProblem* problem() const { return problem_.get(); }
  // changes whenever sync() rebuilds the problem (with problem()->version(): any edit)
  uint64_t problem_serial() const { return problem_serial_; }

  // ---- solver ------------------------------------------------------------------------------
  SolverSettings settings;  // interactive defaults, see interactive_solver_settings()
  bool live_solve = true;   // solve every frame
  // the seed ghosts are shown: with a frame budget the other seeds go on advancing (within the
  // budget, over the next frames) after the warm start has converged, so alternatives appear
  bool want_alternatives = false;
  SolveStatus solve;
  SolveResult last_result;  // every seed's final state (for seed ghosts)
  // every enabled objective is reached (ObjectiveStatus::reached)
  bool all_reached() const;
  // the live solve does not run: turned off, a branch edit or the timeline's playhead holds it
  bool solver_paused() const;
  // a warning naming the self pairs that overlap at the current pose (the deepest, and how
  // many), or else those closer than `margin` (the closest): said when a self_collision
  // objective is added
  void warn_overlapping_pairs(double margin);
  // set_collision_pair's change to collision_pairs, without the rebuild and the edit note
  void edit_collision_pair(int a, int b, bool checked);
  // the timeline or a branch edit sets the joints, not the solver: an objective left off its
  // target then is not a best effort to explain (ObjectiveStatus::missed stays false)
  bool joints_set_elsewhere() const;
  // "playing" (the timeline plays: its playhead moves the robot, the solver waits), "paused"
  // (solver_paused, otherwise), "idle" (no objectives), "converged" (every pursued objective
  // reached), "settled" (stopped within the display tolerances without meeting the solver's: a
  // soft trade-off), "best effort" (stopped short, or converged with a soft objective that its
  // tolerances do not cover traded off: a soft balance) or "solving"
  const char* solve_state() const;

  // ---- timeline ---------------------------------------------------------------------------
  TimelineState timeline;  // keyframes and playback (timeline_edit.hpp)

  // ---- edits --------------------------------------------------------------------------------
  // Marks a finished user edit (a drag released, an objective added or removed, a slider let
  // go, a robot opened): edit_serial bumps. Undo and autosave snapshot make_scene() when it
  // changes, so continuous drags make one step each.
  void note_edit(const std::string& what);
  uint64_t edit_serial = 0;
  std::string last_edit;
  // while set, the edits made coalesce into one undo step, taken when it is cleared (a script's
  // drag_pose: one command, one step, though each axis is a drag of its own)
  bool edit_group_open = false;
  // A weight set on objective i (the Objectives panel, the script's `weight`): on a null-space
  // posture, where it does not trade against the targets, a message says so once a session (a
  // review lowered it and saw nothing change).
  void note_weight_set(int i);
  bool told_null_space_weight = false;

  // ---- UI state ----------------------------------------------------------------------------
  Selection selection;
  Hover hover;
  // camera from a scene (target, distance, yaw, pitch) for the viewport to apply once; empty:
  // frame the robot when it changes
  nlohmann::json scene_camera = nlohmann::json::object();  // its valid keys only
  std::vector<Message> messages;
  std::size_t errors_logged = 0;  // errors logged since start (messages drops old ones)
  // an unconverged seed was adopted (adopt_seed) in frame adopted_frame: the solve keeps the
  // warm start, that seed's branch, until the problem changes (SolverDriver)
  bool hold_adopted = false;
  int adopted_frame = -1;
  // a scene was opened with its own configuration (a file, the recovery file): the next frame
  // rests on joint_q as it is instead of solving, until something changes
  // (SolverDriver::rest_here)
  bool rest_on_opened = false;
  // entries of the last scene opened that this robot could not take (SceneSetup::left_out,
  // timeline keys' too): written back, that scene would lose them
  int scene_left_out = 0;
  int frame = 0;
  FrameStats stats;

  // the newest error of the last kBannerSeconds for the 3D view's banner, none logged before the
  // last robot opened (a successful open clears an earlier failure's); nullptr when none
  const Message* banner_error() const;
  void log(Message::Level level, const std::string& text);
  void info(const std::string& text) { log(Message::kInfo, text); }
  void warn(const std::string& text) { log(Message::kWarning, text); }
  void error(const std::string& text) { log(Message::kError, text); }

 private:
  // installs a freshly loaded model: configuration to rest, objectives cleared
  void install_model(LoadResult loaded, const std::string& path);
  // moves the targets of link objectives to their links (after a joint edited by hand)
  void follow_joints();
  // configuration, solver settings and objectives of a scene, on the installed model; its
  // warnings start with `file` when there is one; `quiet` (an undo step: the scene's warnings
  // were said when it was opened) says none
  void apply_scene_content(const Scene& scene, const std::string& file, bool quiet = false);
  // the default self pairs (less the SRDF's) after the model, srdf or collision world changed
  void refresh_pair_defaults();
  // `collisions` at the current FK
  void update_collisions();

  std::unique_ptr<IkProblem> problem_;
  // the collision searches of evaluate()'s objective status, kept from frame to frame
  CollisionMemoStore<double> status_memo_;
  CollisionWorld collision_world_;  // of obstacles and srdf on the installed model
  bool collision_dirty_ = false;    // obstacles changed: hand the world to the problem
  // the obstacle part of collision_world_ from `obstacles` (capsules and pairs are the model's
  // and the SRDF's and do not change)
  void update_world_obstacles();
  bool structure_dirty_ = true;
  uint64_t problem_serial_ = 0;
  uint64_t synced_model_version_ = 0;
  bool fk_dirty_ = true;         // joint_q changed since the last FK
  bool follow_pending_ = false;  // a joint was set by hand: targets follow at the next FK
  double banner_after_ = -1;     // errors before this (the last robot's open) have no banner
  std::string clamp_warning_;    // the last typed value's clamp warning (not repeated)

  // body pairs (a < b, sorted) checked when collision_pairs is empty: defaults less the SRDF's
  std::vector<std::pair<int, int>> default_pairs_;
};

// Null-space posture iterations a frame's solve spends once the tolerances are met; the
// posture settles over the next frames. In a drag most of a warm start's iterations went to
// settling the posture after the hand had converged (docs/benchmarks.md, "Where the warm
// start's iterations go").
constexpr int kInteractiveSettleIterations = 2;

// LM, analytic Jacobian, 8 gaussian seeds around the current configuration, closest converged
// seed preferred, hard joint limits, 15 iterations per frame, kInteractiveSettleIterations
SolverSettings interactive_solver_settings();

}  // namespace ikwb::gui
