// Rendering a keyframe timeline (engine/core/timeline.hpp) into a trajectory: one configuration
// per sample at a chosen rate, the keys' times included. Joint-space segments are sampled
// directly; task-space segments move every objective's target on the line / slerp between the
// keys' targets and solve IK at each sample, warm-started from the previous one, with the
// posture pulled toward the joint-space curve so the solution arrives at the next key.
// Used by `ikwb animate` and by the workbench's timeline (docs/timeline.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/timeline.hpp"
#include "solver/scene_problem.hpp"
#include "solver/solver.hpp"

namespace ikwb {

// ---- scene <-> model ------------------------------------------------------------------------

// The scene's timeline on the model of `setup` (resolve_scene). Joints missing from a key keep
// setup.q's values, unknown joints are warnings; coordinates are clamped into the limits. The
// keys' targets follow setup.objectives; where a key has none for an objective (or the scene's
// objectives could not all be placed, so the order is not known), the target is the one the
// objective meets at the key's configuration.
Timeline timeline_on_model(const Model& model, const Scene& scene, const SceneSetup& setup,
                           std::vector<std::string>& warnings);
// the timeline in the scene form, objectives in the order of `objectives`
SceneTimeline timeline_to_scene(const Model& model, const Timeline& timeline,
                                const std::vector<PlacedObjective>& objectives);
// key.targets for `objectives`: the targets they meet at key.q (kinds without a target: identity)
void targets_at_key(const Model& model, const std::vector<PlacedObjective>& objectives,
                    Keyframe& key);

// ---- rendering ------------------------------------------------------------------------------

// A jump at one end of a task segment: where IK, solved at the key's time toward the key's
// targets (from the key itself at the start, from the segment's last inner sample at the end),
// leaves the robot away from the key's configuration, so the trajectory snaps between the two
// at the key.
struct KeyJump {
  double gap = 0;     // largest dof difference (rad or m) from the key's configuration
  std::string joint;  // the joint of gap ("" when none moved)
  std::string unit;   // of gap: "rad" or "m"
  // a joint the scene locks (joint_locks) that the key gives another value than the segment's
  // first key (by more than kKeyJumpTolerance): the segment cannot move it ("" when none)
  std::string locked_joint;
  // the key's own configuration against its targets, over the objectives with a target: how far
  // the key is from meeting them (m, rad)
  double key_position_error = 0;
  double key_rotation_error = 0;
  bool key_misses_targets = false;  // beyond the solver's tolerances
  // the hard objective without a target (a collision, a minimum distance, balance) the key's
  // own configuration breaks most, beyond tol_constraint ("" when none), and by how much
  std::string key_breaks;
  double key_break = 0;
  // the solve at the key's time met the key's targets (false: they are out of reach from the
  // segment's side; reach_*_error is how close it got, m and rad)
  bool targets_reached = true;
  double reach_position_error = 0;
  double reach_rotation_error = 0;
  // where that solve fails, whether a search from seeds meets the targets (kReachSearchSeeds
  // seeds with restarts): false, they are out of reach; true, the segment's side is what fails
  // (IK leaving a key whose joint values miss its targets can stay stuck on them)
  bool targets_reachable = true;
};

// seeds of the search that tells a key's targets out of reach from a segment stuck short of them,
// and its time limit: the workbench renders a timeline in its frame, and a large robot's search
// of 8 seeds with restarts could take seconds (a search cut short reads as out of reach)
constexpr int kReachSearchSeeds = 8;
constexpr double kReachSearchSeconds = 0.2;

// a dof difference above this at a key is a jump (rad or m): about 8x the largest gap measured on
// timelines whose keys meet their targets (a redundant arm's posture settling; docs/timeline.md,
// "Flags")
constexpr double kKeyJumpTolerance = 0.005;
// task segments' joint speeds are differences over spans of at least this many seconds: a finer
// rate (or a key a hair off the sample grid) would turn IK's convergence steps into speed
constexpr double kSpeedSpan = 0.005;

// What happened on one segment (key -> key + 1).
struct SegmentReport {
  int key = 0;                // the key the segment starts at
  double start = 0, end = 0;  // s, the times of its keys
  Interpolation interpolation = Interpolation::kJoint;
  int samples = 0;                // samples strictly inside the segment
  int ik_failures = 0;            // task: inner samples whose IK did not converge
  double first_failure = -1;      // s, time of the first of them (-1: none)
  double max_position_error = 0;  // m, task: over the inner samples
  double max_rotation_error = 0;  // rad
  double max_velocity_ratio = 0;  // largest |dq/dt| / velocity limit over the limited 1-dof
                                  // joints (joint: the cubic's peak; task: over spans of at
                                  // least kSpeedSpan, a jump at a key left out)
  std::string fastest_joint;      // the joint of max_velocity_ratio ("" when none is limited)
  double fastest_time = -1;       // s, where it was measured (joint: the cubic's peak; task: the
                                  // span's start)
  KeyJump departure;              // task: at the segment's first key
  KeyJump arrival;                // task: at the next key
  // joint: samples (its keys included) that break a hard objective without a target (a
  // collision, a minimum distance, balance) beyond tol_constraint: a joint segment does not
  // solve, so nothing keeps it (task segments' IK does: a break there is an IK failure)
  int hard_breaks = 0;
  double first_break = -1;  // s, the first of them (-1: none)
  double max_break = 0;     // the largest violation (the objective's unit: m for distances)
  std::string broken;       // the objective of max_break
  std::string broken_unit;  // max_break's: " m" (distances), " rad" (a cone), else ""
  // joint: samples (its keys included) at which a hard objective whose target is the same at
  // both keys (a pinned foot) is off that target beyond the tolerances: the segment follows the
  // keys' joint values, so the link slides between them. A target that moves between the keys
  // is not checked (a joint segment does not follow its line).
  int slides = 0;
  double first_slide = -1;        // s, the first of them (-1: none)
  double max_slide_position = 0;  // m
  double max_slide_rotation = 0;  // rad
  std::string slid;               // the objective furthest off, in tolerances
  bool ik_failed() const { return ik_failures > 0; }
  bool too_fast() const { return max_velocity_ratio > 1; }
  bool departs_with_jump() const { return departure.gap > kKeyJumpTolerance; }
  bool arrives_with_jump() const { return arrival.gap > kKeyJumpTolerance; }
  bool breaks_hard() const { return hard_breaks > 0; }
  bool slides_hard() const { return slides > 0; }
  bool flagged() const {
    return ik_failed() || too_fast() || departs_with_jump() || arrives_with_jump() ||
           breaks_hard() || slides_hard();
  }
};

// One line for each thing a segment is flagged for (none when it is not), each naming the
// segment, with what the user can do about it: the workbench's messages and `ikwb animate`.
std::vector<std::string> describe_segment(const SegmentReport& segment);
// The segment as JSON (trajectory files, the workbench's state dump): its fields, each end's
// jump as {"gap", "joint", "unit", "locked_joint", "key_misses_targets", "targets_reached",
// "targets_reachable", "key_breaks", "key_break"}, and "messages" (describe_segment).
nlohmann::json segment_to_json(const SegmentReport& segment);

struct Trajectory {
  int coord_count = 0;
  std::vector<double> times;  // (sample_count) s, increasing; every key's time in it (fixed_step:
                              // start + k / rate)
  std::vector<double> q;      // (sample_count x coord_count) q_start order
  std::vector<uint8_t> converged;       // (sample_count) 1 unless a task sample's IK failed
  std::vector<SegmentReport> segments;  // (key_count - 1)
  double seconds = 0;                   // wall time of the render
  bool fixed_step = false;              // on_fixed_step's: the keys' own times left out

  std::size_t sample_count() const { return times.size(); }
  const double* row(std::size_t i) const { return q.data() + i * coord_count; }
  int flagged_segments() const;
};

// "1 of 2 segments flagged (segment 0)", "2 of 3 segments flagged (segments 0, 2)": the summary
// the workbench's export and `ikwb animate` give before describe_segment's lines, the first
// kFlaggedListed segments named ("... 9 and 40 more)"); "" when none is
constexpr int kFlaggedListed = 10;
std::string flagged_summary(const Trajectory& trajectory);

// The trajectory on a fixed step of 1 / rate s, for a simulator or an animation that plays rows
// at a constant rate: the rows at start + k / rate for k = 0 .. ceil(span * rate) (the rows
// render_timeline gives at `rate` without the keys' own where they fall between two, the last at
// or after the last key, holding its configuration), at exactly those times. The segments'
// reports are kept. Throws std::invalid_argument for a trajectory not rendered at `rate`.
Trajectory on_fixed_step(const Trajectory& trajectory, double rate);

// Renders the timeline at `rate` Hz. objectives: the scene's, whose targets the keys hold (the
// keys' targets sized to them). settings: the solver's tolerances and iterations (one seed, the
// warm start, is used; at least 50 iterations). Throws std::invalid_argument for no keys, keys
// that do not fit the model or the objectives, or a bad rate. world: the scene's joint limits,
// joint locks and collision world (SRDF, obstacles) that the task-space solves honour, as
// resolve_scene gives them (only dof_lower, dof_upper, locked_joints and collision are read;
// null: the model's limits, no locks, the model's capsules and pairs, no obstacles).
Trajectory render_timeline(std::shared_ptr<const Model> model,
                           const std::vector<PlacedObjective>& objectives, const Timeline& timeline,
                           double rate, const SolverSettings& settings, IkSolver& solver,
                           const SceneSetup* world = nullptr);

// the configuration at time t (clamped to the trajectory), blended between the samples around it
void trajectory_at(const Model& model, const Trajectory& trajectory, double t,
                   std::vector<double>& q);

}  // namespace ikwb
