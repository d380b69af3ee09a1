#include "solver/timeline_render.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
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
    // into the limits in force: the scene's joint_limits where it has them
    if (setup.dof_lower.size() == std::size_t(m.dof_count) &&
        setup.dof_upper.size() == std::size_t(m.dof_count))
      clamp_to_limits(m, setup.dof_lower, setup.dof_upper, key.q);
    else
      clamp_to_limits(m, key.q);
    targets_at_key(m, setup.objectives, key);
    const std::string where = "timeline key " + std::to_string(k);
    if (same_order && sk.targets.size() > setup.objectives.size())
      warnings.push_back(where + ": " + std::to_string(sk.targets.size()) + " targets for " +
                         std::to_string(setup.objectives.size()) +
                         " objectives: the ones past the last objective are ignored");
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

int Trajectory::flagged_segments() const {
  int n = 0;
  for (const SegmentReport& s : segments) n += s.flagged();
  return n;
}

namespace {

// the 1-dof joints with a velocity limit: (coordinate, limit, joint)
struct LimitedCoord {
  int coord;
  double limit;
  int joint;
};

std::vector<LimitedCoord> limited_coords(const Model& m) {
  std::vector<LimitedCoord> out;
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    double v = m.dof_velocity_limit[m.joint_qd_start[j]];
    if (v > 0) out.push_back({m.joint_q_start[j], v, j});
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

SolverSettings render_settings(SolverSettings s) {
  s.n_seeds = 1;
  s.sampler = Sampler::kNone;
  s.max_restarts = 0;
  s.stall_window = 0;
  s.time_budget_s = 0;
  s.prefer_closest = false;
  s.solve_all_seeds = false;
  s.fixed_iterations = false;
  s.max_iterations = std::max(s.max_iterations, 50);
  return s;
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
    r.interpolation = tl.keys[k].interpolation;
    out.segments.push_back(r);
  }

  bool any_task = false;
  for (std::size_t k = 0; k + 1 < tl.keys.size(); ++k)
    any_task = any_task || tl.keys[k].interpolation == Interpolation::kTask;
  std::unique_ptr<TaskProblem> task;
  if (any_task) task = std::make_unique<TaskProblem>(make_task_problem(model, objectives, world));
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

  // velocities against the limits: the cubic's peak 1.5 |dq| / T on joint segments, differences
  // between samples (the segment's ends included) on task segments
  for (SegmentReport& r : out.segments) {
    const Keyframe &a = tl.keys[r.key], &b = tl.keys[r.key + 1];
    const double duration = b.time - a.time;
    auto note = [&](double speed, const LimitedCoord& c) {
      if (speed / c.limit > r.max_velocity_ratio) {
        r.max_velocity_ratio = speed / c.limit;
        r.fastest_joint = m.joint_name[c.joint];
      }
    };
    if (r.interpolation == Interpolation::kJoint) {
      for (const LimitedCoord& c : limited)
        note(1.5 * std::fabs(b.q[c.coord] - a.q[c.coord]) / duration, c);
      continue;
    }
    const std::size_t first =
        std::lower_bound(out.times.begin(), out.times.end(), a.time) - out.times.begin();
    for (std::size_t i = first; i + 1 < n && out.times[i] < b.time; ++i)
      for (const LimitedCoord& c : limited)
        note(std::fabs(out.row(i + 1)[c.coord] - out.row(i)[c.coord]) /
                 (out.times[i + 1] - out.times[i]),
             c);
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
