#include "solver/timeline_render.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>

#include "engine/core/fk.hpp"
#include "engine/core/row_kinematics.hpp"
#include "solver/objective_report.hpp"

namespace ikwb {

// ---- scene <-> model ------------------------------------------------------------------------

void targets_at_key(const Model& m, const std::vector<PlacedObjective>& objectives, Keyframe& key) {
  State fk(m);
  eval_fk(m, key.q, {}, fk);
  key.targets.assign(objectives.size(), transform_identity<double>());
  for (std::size_t i = 0; i < objectives.size(); ++i)
    if (objective_kind(objectives[i].objective.params.type).has_target())
      key.targets[i] = objective_met_target(m, objectives[i].objective.params, fk.body_q);
}

Timeline timeline_on_model(const Model& m, const Scene& scene, const SceneSetup& setup,
                           std::vector<std::string>& warnings) {
  Timeline tl;
  // the scene's objectives by position only when every one of them was placed
  const bool same_order = setup.objectives.size() == scene.objectives.size();
  for (std::size_t k = 0; k < scene.timeline.keys.size(); ++k) {
    const SceneKeyframe& sk = scene.timeline.keys[k];
    Keyframe key;
    key.time = sk.time;
    key.interpolation = sk.interpolation;
    key.q = setup.q;
    apply_joint_map(m, sk.joint_q, "timeline key " + std::to_string(k), key.q, warnings);
    // into the limits in force: the scene's joint_limits where it has them; a value moved is
    // named (a later jump message was the only sign of it)
    const bool scene_limits = setup.dof_lower.size() == std::size_t(m.dof_count) &&
                              setup.dof_upper.size() == std::size_t(m.dof_count);
    clamp_to_limits_named(m, scene_limits ? setup.dof_lower : m.dof_lower,
                          scene_limits ? setup.dof_upper : m.dof_upper, key.q,
                          "timeline key " + std::to_string(k), warnings);
    targets_at_key(m, setup.objectives, key);
    const std::string where = "timeline key " + std::to_string(k);
    if (same_order && sk.targets.size() > setup.objectives.size())
      warnings.push_back(where + ": " + std::to_string(sk.targets.size()) + " targets for " +
                         std::to_string(setup.objectives.size()) +
                         " objectives: the ones past the last objective are ignored");
    // a list that stops short is most likely a mistake (no list at all, or nulls, say it)
    if (same_order && !sk.targets.empty() && sk.targets.size() < setup.objectives.size())
      warnings.push_back(where + ": " + std::to_string(sk.targets.size()) + " target" +
                         (sk.targets.size() == 1 ? "" : "s") + " for " +
                         std::to_string(setup.objectives.size()) +
                         " objectives: the others take what they meet at the key's "
                         "configuration");
    for (std::size_t i = 0; same_order && i < setup.objectives.size(); ++i) {
      if (i >= sk.targets.size() || !sk.targets[i]) continue;
      if (objective_kind(setup.objectives[i].objective.params.type).has_target())
        key.targets[i] = *sk.targets[i];
      else
        warnings.push_back(where + ": targets[" + std::to_string(i) + "]: objective " +
                           std::to_string(i) + " (" +
                           objective_kind(setup.objectives[i].objective.params.type).name +
                           ") has no target: ignored");
    }
    tl.keys.push_back(std::move(key));
  }
  if (!same_order && !tl.keys.empty())
    warnings.push_back(
        "timeline: not every objective could be placed; the keys' targets are "
        "where the objectives are met at each key's configuration");
  return tl;
}

SceneTimeline timeline_to_scene(const Model& m, const Timeline& tl,
                                const std::vector<PlacedObjective>& objectives) {
  SceneTimeline st;
  for (const Keyframe& key : tl.keys) {
    SceneKeyframe sk;
    sk.time = key.time;
    sk.interpolation = key.interpolation;
    sk.joint_q = joint_map(m, key.q);
    for (std::size_t i = 0; i < objectives.size(); ++i) {
      if (i < key.targets.size() &&
          objective_kind(objectives[i].objective.params.type).has_target())
        sk.targets.emplace_back(key.targets[i]);
      else
        sk.targets.emplace_back();
    }
    st.keys.push_back(std::move(sk));
  }
  return st;
}

// ---- rendering ------------------------------------------------------------------------------

namespace {

std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

// what to do when a task segment's path, not its keys, is where IK fails
constexpr const char* kPathAdvice =
    "add a key between (a pose on the way that the robot reaches), or make the segment a joint "
    "segment";

// what to do about a key whose joint values miss its targets
constexpr const char* kStoreAgainAdvice =
    "store the key again from a pose that meets them (in the workbench: select it, let the robot "
    "settle on its targets, press K; where it settles short of them, the Objectives panel names "
    "what holds it back, another target or a weighted posture: lower that weight first)";

// IK leaving a segment's first key (its departure) failed, and the key's joint values miss its
// targets, which a search from seeds meets: the segment's IK starts stuck on those joint values
bool stuck_on_key(const KeyJump& departure) {
  return !departure.targets_reached && departure.key_misses_targets && departure.targets_reachable;
}

// why the robot jumps at key `key` (the segment's first when `start`) and what to do about it;
// stuck_from: for an arrival, the segment's first key when its IK started stuck on that key's
// joint values (stuck_on_key), else -1
std::string describe_jump(const KeyJump& jump, int key, bool start, int stuck_from = -1) {
  const std::string snap =
      printf_string("the robot jumps %.3g %s at joint '%s' %s", jump.gap, jump.unit.c_str(),
                    jump.joint.c_str(), start ? "as the segment leaves the key" : "on arriving");
  // the key itself breaks a hard objective: IK keeps it and cannot return to the key
  if (!jump.key_breaks.empty())
    return printf_string("key %d's joint values break the hard objective '%s' (by %.3g): ", key,
                         jump.key_breaks.c_str(), jump.key_break) +
           snap + "; store the key again from a pose that keeps it (a solved pose)";
  if (!jump.targets_reached && jump.key_misses_targets && !jump.targets_reachable)
    return printf_string(
               "key %d's targets are out of reach (IK stops %.3g m, %.3g rad from them) and its "
               "joint values miss them by %.3g m, %.3g rad: ",
               key, jump.reach_position_error, jump.reach_rotation_error, jump.key_position_error,
               jump.key_rotation_error) +
           snap + "; bring the targets within reach";
  // reachable from seeds: the key's joint values, where IK starts or arrives, are what fail
  if (!jump.targets_reached && jump.key_misses_targets)
    return printf_string(
               "key %d's joint values miss its targets (%.3g m, %.3g rad off), and IK %s stops "
               "%.3g m, %.3g rad from them, which a search from seeds meets: ",
               key, jump.key_position_error, jump.key_rotation_error,
               start ? "starting from them" : "along the segment", jump.reach_position_error,
               jump.reach_rotation_error) +
           snap + "; " + kStoreAgainAdvice;
  // the key meets its targets, so they are reachable: the path IK came along is what fails,
  // or where it started
  if (!jump.targets_reached && stuck_from >= 0)
    return printf_string(
               "key %d meets its targets, but IK along the segment stops %.3g m, %.3g rad from "
               "them, having started stuck on key %d's joint values (they miss that key's "
               "targets): ",
               key, jump.reach_position_error, jump.reach_rotation_error, stuck_from) +
           snap + "; store key " + std::to_string(stuck_from) + " again first";
  if (!jump.targets_reached)
    return printf_string(
               "key %d meets its targets, but IK along the segment stops %.3g m, %.3g "
               "rad from them: ",
               key, jump.reach_position_error, jump.reach_rotation_error) +
           snap + "; the segment's path leaves the region the robot can follow: " + kPathAdvice;
  if (jump.key_misses_targets)
    return printf_string("key %d's joint values miss its targets (%.3g m, %.3g rad off): ", key,
                         jump.key_position_error, jump.key_rotation_error) +
           snap + "; " + kStoreAgainAdvice;
  if (!jump.locked_joint.empty())
    return printf_string("joint '%s' is locked and key %d gives it another value: ",
                         jump.locked_joint.c_str(), key) +
           snap + "; unlock it or give the keys the same value";
  if (start)
    return printf_string("IK moves the robot away from key %d's joint values: ", key) + snap +
           "; the key does not satisfy another objective (a hard constraint, a collision, a "
           "limit): store it again from a solved pose";
  return printf_string("IK meets key %d's targets with another configuration: ", key) + snap +
         "; add a key between, or make the segment a joint segment";
}

// what to do about IK failing on task segment s: a key whose targets are out of reach (its joint
// values miss them too, and no search from seeds meets them) is the cause, or the first key's
// joint values that the segment's IK starts stuck on; keys that meet theirs leave the path
// between them
std::string reach_advice(const SegmentReport& s) {
  if (stuck_on_key(s.departure))
    return "store key " + std::to_string(s.key) +
           " again from a pose that meets its targets: the segment's IK starts from its joint "
           "values, stuck short of them";
  if (!s.departure.targets_reached && s.departure.key_misses_targets)
    return "bring key " + std::to_string(s.key) + "'s targets within reach";
  if (!s.arrival.targets_reached && s.arrival.key_misses_targets && !s.arrival.targets_reachable)
    return "bring key " + std::to_string(s.key + 1) + "'s targets within reach";
  return std::string("the targets' path between the keys leaves the robot's reach: ") + kPathAdvice;
}

// what to do about a joint too fast on segment s
std::string speed_advice(const SegmentReport& s) {
  // within this of a jump, fast motion is the jump's aftermath (posture settling)
  constexpr double kNearJump = 0.1;
  if (s.departs_with_jump() && s.fastest_time < s.start + kNearJump)
    return "right after the jump at key " + std::to_string(s.key) + ": remove the jump first";
  if (s.arrives_with_jump() && s.fastest_time > s.end - kNearJump)
    return "right before the jump at key " + std::to_string(s.key + 1) + ": remove the jump first";
  if (s.ik_failed()) return "IK does not converge on this segment (said above): see to that first";
  return "give the segment more time";
}

}  // namespace

std::vector<std::string> describe_segment(const SegmentReport& s) {
  const std::string seg =
      "timeline segment " + std::to_string(s.key) + " (" + to_string(s.interpolation) + "): ";
  std::vector<std::string> out;
  if (s.ik_failed())
    out.push_back(seg +
                  printf_string("IK did not converge at %d of %d samples, first at t = %.4g s "
                                "(max error %.3g m, %.3g rad); ",
                                s.ik_failures, s.samples, s.first_failure, s.max_position_error,
                                s.max_rotation_error) +
                  reach_advice(s));
  if (s.breaks_hard())
    out.push_back(seg +
                  printf_string("the hard objective '%s' is broken at %d samples, first at "
                                "t = %.4g s (by up to %.3g%s); a joint segment does not "
                                "solve: make it a task segment, or add a key that keeps clear",
                                s.broken.c_str(), s.hard_breaks, s.first_break, s.max_break,
                                s.broken_unit.c_str()));
  if (s.slides_hard())
    out.push_back(seg +
                  printf_string("the hard objective '%s' has the same target at both keys but "
                                "slides off it at %d samples, first at t = %.4g s (by up to "
                                "%.3g m, %.3g rad); a joint segment does not solve: make it "
                                "a task segment",
                                s.slid.c_str(), s.slides, s.first_slide, s.max_slide_position,
                                s.max_slide_rotation));
  if (s.departs_with_jump()) out.push_back(seg + describe_jump(s.departure, s.key, true));
  if (s.arrives_with_jump())
    out.push_back(
        seg + describe_jump(s.arrival, s.key + 1, false, stuck_on_key(s.departure) ? s.key : -1));
  if (s.too_fast())
    out.push_back(seg +
                  printf_string("joint '%s' would move at %.3gx its velocity limit at t = "
                                "%.4g s; ",
                                s.fastest_joint.c_str(), s.max_velocity_ratio, s.fastest_time) +
                  speed_advice(s));
  return out;
}

nlohmann::json segment_to_json(const SegmentReport& s) {
  auto jump = [](const KeyJump& j) {
    return nlohmann::json{{"gap", j.gap},
                          {"joint", j.joint},
                          {"unit", j.unit},
                          {"locked_joint", j.locked_joint},
                          {"key_misses_targets", j.key_misses_targets},
                          {"targets_reached", j.targets_reached},
                          {"targets_reachable", j.targets_reachable},
                          {"key_breaks", j.key_breaks},
                          {"key_break", j.key_break}};
  };
  return {{"key", s.key},
          {"start", s.start},
          {"end", s.end},
          {"interpolation", to_string(s.interpolation)},
          {"flagged", s.flagged()},
          {"ik_failures", s.ik_failures},
          {"first_failure", s.first_failure},
          {"max_position_error", s.max_position_error},
          {"max_rotation_error", s.max_rotation_error},
          {"max_velocity_ratio", s.max_velocity_ratio},
          {"fastest_joint", s.fastest_joint},
          {"fastest_time", s.fastest_time},
          {"hard_breaks", s.hard_breaks},
          {"first_break", s.first_break},
          {"max_break", s.max_break},
          {"broken", s.broken},
          {"slides", s.slides},
          {"first_slide", s.first_slide},
          {"max_slide_position", s.max_slide_position},
          {"max_slide_rotation", s.max_slide_rotation},
          {"slid", s.slid},
          {"departure", jump(s.departure)},
          {"arrival", jump(s.arrival)},
          {"messages", describe_segment(s)}};
}

int Trajectory::flagged_segments() const {
  int n = 0;
  for (const SegmentReport& s : segments) n += s.flagged();
  return n;
}

std::string flagged_summary(const Trajectory& tr) {
  const int n = tr.flagged_segments();
  if (n == 0) return "";
  // the first ten by number (a 10,000-key timeline listed 2,951 in one line)
  std::string which;
  int listed = 0;
  for (const SegmentReport& s : tr.segments)
    if (s.flagged() && listed++ < kFlaggedListed)
      which += (which.empty() ? "" : ", ") + std::to_string(s.key);
  if (n > kFlaggedListed) which += " and " + std::to_string(n - kFlaggedListed) + " more";
  return std::to_string(n) + " of " + std::to_string(tr.segments.size()) +
         (tr.segments.size() == 1 ? " segment" : " segments") + " flagged (segment" +
         (n == 1 ? " " : "s ") + which + ")";
}

Trajectory on_fixed_step(const Trajectory& tr, double rate) {
  if (!(rate > 0) || !std::isfinite(rate))
    throw std::invalid_argument("rate must be a positive number of samples per second");
  Trajectory out;
  out.coord_count = tr.coord_count;
  out.segments = tr.segments;
  out.seconds = tr.seconds;
  out.fixed_step = true;
  const std::size_t n = tr.sample_count();
  if (n == 0) return out;
  // sample_times puts a key within 1e-9 s of a grid time in its place
  constexpr double kOnGrid = 2e-9;
  const double t0 = tr.times.front(), t1 = tr.times.back();
  // the grid times up to the last key as sample_times counts them (floor, 1e-9 of a step), and
  // one more only where the last key is past the last of them: a ceil of the same product took
  // a key on the grid for one past it where rounding left the product a hair over an integer
  // (1000.0000038 at 1e5 s and 1e6 Hz) and added a row 1 us after it
  auto steps = std::size_t(std::floor((t1 - t0) * rate + 1e-9));
  if (t0 + double(steps) / rate < t1 - kOnGrid) ++steps;
  std::size_t i = 0;
  for (std::size_t k = 0; k <= steps; ++k) {
    const double t = t0 + double(k) / rate;
    while (i < n && tr.times[i] < t - kOnGrid) ++i;
    std::size_t from = n - 1;  // past the last key: its configuration held
    if (i < n) {
      if (std::fabs(tr.times[i] - t) > kOnGrid)
        throw std::invalid_argument("on_fixed_step: the trajectory has no sample at " +
                                    std::to_string(t) + " s: it was not rendered at this rate");
      from = i;
    }
    out.times.push_back(t);
    out.q.insert(out.q.end(), tr.row(from), tr.row(from) + tr.coord_count);
    out.converged.push_back(tr.converged[from]);
  }
  return out;
}

namespace {

// the 1-dof joints with a velocity limit: (coordinate, limit, joint, periodic)
struct LimitedCoord {
  int coord;
  double limit;
  int joint;
  bool periodic;
  // how far the coordinate moves from a to b (a periodic joint's angle the shorter way round)
  double move(double a, double b) const { return std::fabs(periodic ? wrap_angle(b - a) : b - a); }
};

std::vector<LimitedCoord> limited_coords(const Model& m) {
  std::vector<LimitedCoord> out;
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    double v = m.dof_velocity_limit[m.joint_qd_start[j]];
    if (v > 0) out.push_back({m.joint_q_start[j], v, j, m.joint_periodic[j] != 0});
  }
  return out;
}

void check_keys(const Model& m, const std::vector<PlacedObjective>& objectives,
                const Timeline& tl) {
  if (tl.keys.empty()) throw std::invalid_argument("the timeline has no keys");
  for (std::size_t k = 0; k < tl.keys.size(); ++k) {
    const Keyframe& key = tl.keys[k];
    const std::string what = "timeline key " + std::to_string(k);
    if (int(key.q.size()) != m.coord_count)
      throw std::invalid_argument(what + ": " + std::to_string(key.q.size()) +
                                  " coordinates, the robot has " + std::to_string(m.coord_count));
    if (key.targets.size() != objectives.size())
      throw std::invalid_argument(what + ": " + std::to_string(key.targets.size()) +
                                  " targets for " + std::to_string(objectives.size()) +
                                  " objectives");
    if (k > 0 && !(key.time > tl.keys[k - 1].time))
      throw std::invalid_argument(what + ": time is not after the previous key's");
  }
}

// the problem a task-space sample solves: the objectives, and a posture pulled to the
// joint-space curve (theirs when they have one, else one of its own in the null space)
struct TaskProblem {
  IkProblem problem;
  std::vector<int> target_objectives;  // objectives with a target
  std::vector<int> postures;
};

TaskProblem make_task_problem(std::shared_ptr<const Model> model,
                              const std::vector<PlacedObjective>& objectives,
                              const SceneSetup* world) {
  TaskProblem t{make_problem(model, objectives, 1, world ? &world->collision : nullptr), {}, {}};
  if (world) apply_joint_settings(*world, t.problem);
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    const ObjectiveParams<double>& p = objectives[i].objective.params;
    if (objectives[i].objective.has_target()) t.target_objectives.push_back(int(i));
    if (p.type == ObjectiveType::kPosture && p.enabled) t.postures.push_back(int(i));
  }
  if (t.postures.empty())
    t.postures.push_back(t.problem.add_posture({}, PostureOptions{0.1, true}));
  return t;
}

// the hard objective without a target that reports break most beyond tol_constraint: its name
// into *name and its violation into *by (left as they are when none does)
void hardest_break(const IkProblem& p, const std::vector<ObjectiveReport>& reports,
                   const SolverSettings& settings, std::string* name, double* by,
                   std::string* unit = nullptr) {
  for (int o = 0; o < p.objective_count(); ++o) {
    const Objective& ob = p.objective(o);
    if (!ob.params.hard || !reports[std::size_t(o)].pursued || ob.has_target()) continue;
    const double v = reports[std::size_t(o)].violation;
    if (v > settings.tol_constraint && v > *by) {
      *by = v;
      *name = ob.name;
      const ObjectiveType t = ob.params.type;
      if (unit)
        *unit = t == ObjectiveType::kOrientationCone ? " rad"
                : t == ObjectiveType::kMinDistance || t == ObjectiveType::kSelfCollision ||
                        t == ObjectiveType::kWorldCollision || t == ObjectiveType::kSupportPolygon
                    ? " m"
                    : "";
    }
  }
}

// the keys give objective o the same target: within the tolerances in what its kind reads
bool same_target(const Objective& o, const Transform<double>& a, const Transform<double>& b,
                 const SolverSettings& tolerances) {
  const ObjectiveKind& kind = objective_kind(o.params.type);
  if (kind.target_position() && length(b.p - a.p) > tolerances.tol_position) return false;
  return !kind.target_orientation() ||
         length(quat_log(conjugate(a.q) * b.q)) <= tolerances.tol_rotation;
}

SolverSettings render_settings(SolverSettings s) {
  s.n_seeds = 1;
  s.sampler = Sampler::kNone;
  s.max_restarts = 0;
  s.stall_window = 0;
  s.time_budget_s = 0;
  s.prefer_closest = false;
  s.solve_all_seeds = false;
  s.fixed_iterations = false;
  // the posture settles fully at every sample, so the path does not depend on the sample rate (a
  // frame's cap, the workbench's 2 steps, left it short by an amount that grew with the interval
  // and read as a jump between keys)
  s.settle_iterations = 0;
  s.max_iterations = std::max(s.max_iterations, 50);
  return s;
}

// the unit of dof k (0-based within joint j): m for translations, rad for rotations
const char* dof_unit(const Model& m, int j, int k) {
  return m.dof_is_linear(m.joint_qd_start[j] + k) ? "m" : "rad";
}

// A solve at a key's time toward its targets (the posture on the key's configuration), from
// `from`, against the key's configuration; and the key against its own targets.
// locked: the locked joints, which keep their values of `from`.
KeyJump key_jump(const Model& m, TaskProblem& task, const Keyframe& key,
                 const std::vector<double>& from, const SolverSettings& settings, IkSolver& solver,
                 const std::vector<int>& locked) {
  for (int o : task.target_objectives) task.problem.set_target_pose(o, 0, key.targets[o]);
  for (int o : task.postures) task.problem.set_rest(o, key.q);
  SolveResult result;
  solver.solve(task.problem, settings, from, result);
  KeyJump jump;
  jump.targets_reached = result.problems[0].converged;
  if (!jump.targets_reached) {
    SolverSettings search = settings;
    search.n_seeds = kReachSearchSeeds;
    search.sampler = Sampler::kUniform;
    search.max_restarts = kReachSearchSeeds;
    search.stall_window = kRestartStallWindow;
    search.time_budget_s = kReachSearchSeconds;
    SolveResult found;
    solver.solve(task.problem, search, from, found);
    jump.targets_reachable = found.problems[0].converged;
  }
  // how close the solve got to the key's targets: the objectives with a target only (a soft
  // gaze's error is no distance from the key's targets)
  {
    State at(m);
    eval_fk(m, result.problems[0].q, {}, at);
    const std::vector<ObjectiveReport> reached =
        report_objectives(task.problem, 0, result.problems[0].q, at.body_q, settings);
    for (int o : task.target_objectives) {
      if (!reached[std::size_t(o)].pursued) continue;
      jump.reach_position_error =
          std::max(jump.reach_position_error, reached[std::size_t(o)].position_error);
      jump.reach_rotation_error =
          std::max(jump.reach_rotation_error, reached[std::size_t(o)].rotation_error);
    }
  }
  std::vector<double> d(m.dof_count);
  difference_row(m.view(), result.problems[0].q.data(), key.q.data(), d.data());
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0) continue;
    const int nd = joint_type_dof_count(JointType(m.joint_type[j]));
    for (int k = 0; k < nd; ++k) {
      const double gap = std::fabs(d[m.joint_qd_start[j] + k]);
      if (!(gap > jump.gap)) continue;
      jump.gap = gap;
      jump.joint = m.joint_name[j];
      jump.unit = dof_unit(m, j, k);
    }
  }
  double locked_gap = kKeyJumpTolerance;
  for (int j : locked) {
    const int nd = joint_type_dof_count(JointType(m.joint_type[j]));
    for (int k = 0; k < nd; ++k)
      if (std::fabs(d[m.joint_qd_start[j] + k]) > locked_gap) {
        locked_gap = std::fabs(d[m.joint_qd_start[j] + k]);
        jump.locked_joint = m.joint_name[j];
      }
  }
  State fk(m);
  eval_fk(m, key.q, {}, fk);
  const std::vector<ObjectiveReport> reports =
      report_objectives(task.problem, 0, key.q, fk.body_q, settings);
  for (int o : task.target_objectives) {
    if (!reports[o].pursued) continue;
    jump.key_position_error = std::max(jump.key_position_error, reports[o].position_error);
    jump.key_rotation_error = std::max(jump.key_rotation_error, reports[o].rotation_error);
    jump.key_misses_targets = jump.key_misses_targets || !reports[o].reached;
  }
  hardest_break(task.problem, reports, settings, &jump.key_breaks, &jump.key_break);
  return jump;
}

// The sample indices that split [first, last] into spans of at least kSpeedSpan (a short tail
// joins the span before it).
std::vector<std::size_t> speed_spans(const std::vector<double>& times, std::size_t first,
                                     std::size_t last) {
  std::vector<std::size_t> bounds{first};
  for (std::size_t i = first + 1; i < last; ++i)
    if (times[i] - times[bounds.back()] >= kSpeedSpan) bounds.push_back(i);
  if (bounds.size() > 1 && times[last] - times[bounds.back()] < kSpeedSpan)
    bounds.back() = last;
  else
    bounds.push_back(last);
  return bounds;
}

}  // namespace

Trajectory render_timeline(std::shared_ptr<const Model> model,
                           const std::vector<PlacedObjective>& objectives, const Timeline& tl,
                           double rate, const SolverSettings& settings, IkSolver& solver,
                           const SceneSetup* world) {
  const auto start = std::chrono::steady_clock::now();
  const Model& m = *model;
  check_keys(m, objectives, tl);
  Trajectory out;
  out.coord_count = m.coord_count;
  out.times = sample_times(tl, rate);
  const std::size_t n = out.times.size();
  out.q.resize(n * m.coord_count);
  out.converged.assign(n, 1);
  const std::vector<LimitedCoord> limited = limited_coords(m);
  for (std::size_t k = 0; k + 1 < tl.keys.size(); ++k) {
    SegmentReport r;
    r.key = int(k);
    r.start = tl.keys[k].time;
    r.end = tl.keys[k + 1].time;
    r.interpolation = tl.keys[k].interpolation;
    out.segments.push_back(r);
  }

  bool any_task = false, any_hard = false;
  for (std::size_t k = 0; k + 1 < tl.keys.size(); ++k)
    any_task = any_task || tl.keys[k].interpolation == Interpolation::kTask;
  std::vector<int> hard_targets;  // hard objectives with a target: checked where it is held
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    const Objective& o = objectives[i].objective;
    if (!o.params.hard || !o.params.enabled) continue;
    if (o.has_target())
      hard_targets.push_back(int(i));
    else
      any_hard = true;
  }
  std::unique_ptr<TaskProblem> task;
  if (any_task || any_hard || !hard_targets.empty())
    task = std::make_unique<TaskProblem>(make_task_problem(model, objectives, world));
  const SolverSettings solve_settings = render_settings(settings);

  std::vector<double> q, curve;
  SolveResult result;
  std::size_t key = 0;  // next key at or after the sample
  for (std::size_t i = 0; i < n; ++i) {
    const double t = out.times[i];
    double* row = out.q.data() + i * m.coord_count;
    // a sample on a key is the key
    while (key < tl.keys.size() && tl.keys[key].time < t) ++key;
    if (key < tl.keys.size() && tl.keys[key].time == t) {
      std::copy(tl.keys[key].q.begin(), tl.keys[key].q.end(), row);
      continue;
    }
    const int seg = tl.segment_at(t);
    SegmentReport& r = out.segments[seg];
    ++r.samples;
    sample_joint_space(m, tl, t, curve);
    if (r.interpolation == Interpolation::kJoint) {
      std::copy(curve.begin(), curve.end(), row);
      continue;
    }
    // task space: the targets on their lines, the posture on the joint-space curve, IK from
    // the previous sample
    for (int o : task->target_objectives)
      task->problem.set_target_pose(o, 0, sample_target(tl, o, t));
    for (int o : task->postures) task->problem.set_rest(o, curve);
    q.assign(row - m.coord_count, row);
    solver.solve(task->problem, solve_settings, q, result);
    const ProblemResult& pr = result.problems[0];
    std::copy(pr.q.begin(), pr.q.end(), row);
    r.max_position_error = std::max(r.max_position_error, pr.position_error);
    r.max_rotation_error = std::max(r.max_rotation_error, pr.rotation_error);
    if (!pr.converged) {
      out.converged[i] = 0;
      if (r.ik_failures++ == 0) r.first_failure = t;
    }
  }

  // the joint segments' samples, their keys included, against the hard objectives without a
  // target and the hard targets both keys hold: nothing solves there, so nothing keeps them
  if (any_hard || !hard_targets.empty()) {
    State fk(m);
    std::vector<int> held;
    for (SegmentReport& r : out.segments) {
      if (r.interpolation != Interpolation::kJoint) continue;
      const Keyframe &a = tl.keys[r.key], &b = tl.keys[r.key + 1];
      held.clear();
      for (int o : hard_targets)
        if (same_target(task->problem.objective(o), a.targets[o], b.targets[o], settings)) {
          held.push_back(o);
          task->problem.set_target_pose(o, 0, a.targets[o]);
        }
      if (!any_hard && held.empty()) continue;
      const std::size_t first =
          std::lower_bound(out.times.begin(), out.times.end(), r.start) - out.times.begin();
      const std::size_t last =
          std::lower_bound(out.times.begin(), out.times.end(), r.end) - out.times.begin();
      double worst_slide = 0;  // in tolerances
      for (std::size_t i = first; i <= last && i < n; ++i) {
        q.assign(out.row(i), out.row(i) + m.coord_count);
        eval_fk(m, q, {}, fk);
        const std::vector<ObjectiveReport> reports =
            report_objectives(task->problem, 0, q, fk.body_q, settings);
        std::string name, unit;
        double by = 0;
        hardest_break(task->problem, reports, settings, &name, &by, &unit);
        if (!name.empty()) {
          if (r.hard_breaks++ == 0) r.first_break = out.times[i];
          if (by > r.max_break) {
            r.max_break = by;
            r.broken = name;
            r.broken_unit = unit;
          }
        }
        bool slid = false;
        for (int o : held) {
          const ObjectiveReport& rep = reports[std::size_t(o)];
          if (rep.reached) continue;
          slid = true;
          // the position and rotation rows' errors; a kind without them (a box, a cone) by its
          // violation in its rows' unit
          const Objective& ob = task->problem.objective(o);
          const ObjectiveKind& kind = objective_kind(ob.params.type);
          const bool rows = kind.position_row >= 0 || kind.rotation_row >= 0;
          const RowUnit unit = row_unit(ob.params.type);
          const double off_p = rows || unit != RowUnit::kMetre ? rep.position_error : rep.violation;
          const double off_r =
              rows || unit != RowUnit::kRadian ? rep.rotation_error : rep.violation;
          r.max_slide_position = std::max(r.max_slide_position, off_p);
          r.max_slide_rotation = std::max(r.max_slide_rotation, off_r);
          const double worst =
              std::max(off_p / settings.tol_position, off_r / settings.tol_rotation);
          if (worst > worst_slide) {
            worst_slide = worst;
            r.slid = ob.name;
          }
        }
        if (slid && r.slides++ == 0) r.first_slide = out.times[i];
      }
    }
  }

  // the task segments' ends: where IK leaves the robot at each key against the key itself
  static const std::vector<int> kNoLocks;
  const std::vector<int>& locked = world ? world->locked_joints : kNoLocks;
  for (SegmentReport& r : out.segments) {
    if (r.interpolation != Interpolation::kTask) continue;
    const Keyframe &a = tl.keys[r.key], &b = tl.keys[r.key + 1];
    r.departure = key_jump(m, *task, a, a.q, solve_settings, solver, locked);
    const std::size_t end =
        std::lower_bound(out.times.begin(), out.times.end(), b.time) - out.times.begin();
    const double* last = out.row(end - 1);  // the last inner sample, or the first key
    r.arrival = key_jump(m, *task, b, std::vector<double>(last, last + m.coord_count),
                         solve_settings, solver, locked);
  }

  // velocities against the limits: the cubic's peak 1.5 |dq| / T on joint segments, differences
  // over spans of samples (the segment's ends included) on task segments
  for (SegmentReport& r : out.segments) {
    const Keyframe &a = tl.keys[r.key], &b = tl.keys[r.key + 1];
    const double duration = b.time - a.time;
    auto note = [&](double speed, const LimitedCoord& c, double t) {
      if (speed / c.limit > r.max_velocity_ratio) {
        r.max_velocity_ratio = speed / c.limit;
        r.fastest_joint = m.joint_name[c.joint];
        r.fastest_time = t;
      }
    };
    if (r.interpolation == Interpolation::kJoint) {
      for (const LimitedCoord& c : limited)
        note(1.5 * c.move(a.q[c.coord], b.q[c.coord]) / duration, c, a.time + 0.5 * duration);
      continue;
    }
    // over spans of at least kSpeedSpan, the keys' jumps left out (they are reported as such)
    auto at = [&](double t) {
      return std::size_t(std::lower_bound(out.times.begin(), out.times.end(), t) -
                         out.times.begin());
    };
    const std::vector<std::size_t> spans = speed_spans(out.times, at(a.time), at(b.time));
    for (std::size_t w = 0; w + 1 < spans.size(); ++w) {
      if ((w == 0 && r.departs_with_jump()) || (w + 2 == spans.size() && r.arrives_with_jump()))
        continue;
      const std::size_t i = spans[w], k = spans[w + 1];
      for (const LimitedCoord& c : limited)
        note(c.move(out.row(i)[c.coord], out.row(k)[c.coord]) / (out.times[k] - out.times[i]), c,
             out.times[i]);
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

void trajectory_at(const Model& m, const Trajectory& tr, double t, std::vector<double>& q) {
  if (tr.times.empty()) throw std::invalid_argument("trajectory_at: no samples");
  auto it = std::upper_bound(tr.times.begin(), tr.times.end(), t);
  if (it == tr.times.begin()) {
    q.assign(tr.row(0), tr.row(0) + tr.coord_count);
    return;
  }
  const std::size_t i = std::size_t(it - tr.times.begin()) - 1;
  if (i + 1 >= tr.times.size()) {
    q.assign(tr.row(i), tr.row(i) + tr.coord_count);
    return;
  }
  const double s = (t - tr.times[i]) / (tr.times[i + 1] - tr.times[i]);
  blend_configurations(m, std::vector<double>(tr.row(i), tr.row(i) + tr.coord_count),
                       std::vector<double>(tr.row(i + 1), tr.row(i + 1) + tr.coord_count), s, q);
}

}  // namespace ikwb
