// Tests for solver/timeline_render on the shipped Panda and humanoid presets: task-space segments
// within the IK tolerances at every sample (checked with our own FK), continuity of position and
// velocity at the keys, limits respected, velocity and IK failures flagged, and the scene form's
// round trip on a model.
#include "solver/timeline_render.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/objective_report.hpp"

namespace ikwb {
namespace {

struct Preset {
  std::shared_ptr<const Model> model;
  SceneSetup setup;
  SolverSettings settings;
  int tcp = -1;  // the first objective with a target
};

Preset load_preset(const std::string& robot) {
  Scene scene = load_scene(asset_dir() + "/robots/" + robot + "/preset.json");
  UrdfOptions opt;
  opt.floating_base = scene.floating_base;
  opt.load_meshes = false;
  Preset p;
  p.model = load_urdf_file(resolve_robot(scene.robot), opt).model;
  p.setup = resolve_scene(*p.model, scene);
  for (std::size_t i = 0; i < p.setup.objectives.size() && p.tcp < 0; ++i)
    if (objective_kind(p.setup.objectives[i].objective.params.type).has_target()) p.tcp = int(i);
  return p;
}

// a key at time t whose first target is moved by `shift` from the start, solved by IK
Keyframe solved_key(const Preset& p, double t, Vec3<double> shift, Interpolation mode) {
  IkProblem problem = make_problem(p.model, p.setup.objectives, 1, &p.setup.collision);
  Transform<double> target = p.setup.objectives[p.tcp].target;
  target.p = target.p + shift;
  problem.set_target_pose(p.tcp, 0, target);
  SolverSettings s = p.settings;
  s.max_iterations = 500;
  SolveResult r;
  make_cpu_solver()->solve(problem, s, p.setup.q, r);
  EXPECT_TRUE(r.problems[0].converged);
  Keyframe k;
  k.time = t;
  k.q = r.problems[0].q;
  k.interpolation = mode;
  targets_at_key(*p.model, p.setup.objectives, k);
  k.targets[p.tcp] = target;
  return k;
}

Timeline pick_and_place(const Preset& p, Interpolation mode) {
  Timeline tl;
  tl.keys.push_back(solved_key(p, 0.0, {0, 0, 0}, mode));
  tl.keys.push_back(solved_key(p, 1.0, {0.15, 0.2, -0.25}, mode));
  tl.keys.push_back(solved_key(p, 2.5, {0.1, -0.25, -0.2}, mode));
  return tl;
}

void expect_within_limits(const Model& m, const Trajectory& tr) {
  for (std::size_t i = 0; i < tr.sample_count(); ++i)
    for (int j = 0; j < m.joint_count; ++j) {
      if (m.joint_mimic[j] >= 0 || joint_type_coord_count(JointType(m.joint_type[j])) != 1)
        continue;
      const int d = m.joint_qd_start[j];
      const double v = tr.row(i)[m.joint_q_start[j]];
      EXPECT_GE(v, m.dof_lower[d] - 1e-9) << m.joint_name[j] << " at t = " << tr.times[i];
      EXPECT_LE(v, m.dof_upper[d] + 1e-9) << m.joint_name[j] << " at t = " << tr.times[i];
    }
}

// largest coordinate speed between samples i and i + 1
double speed(const Trajectory& tr, std::size_t i) {
  double v = 0;
  for (int c = 0; c < tr.coord_count; ++c)
    v = std::max(v, std::fabs(tr.row(i + 1)[c] - tr.row(i)[c]) / (tr.times[i + 1] - tr.times[i]));
  return v;
}

void expect_continuous_at_keys(const Timeline& tl, const Trajectory& tr) {
  double peak = 0;
  for (std::size_t i = 0; i + 1 < tr.sample_count(); ++i) peak = std::max(peak, speed(tr, i));
  ASSERT_GT(peak, 0.3);  // the robot does move between the keys
  for (const Keyframe& k : tl.keys) {
    const std::size_t i = std::find(tr.times.begin(), tr.times.end(), k.time) - tr.times.begin();
    ASSERT_LT(i, tr.sample_count());
    for (int c = 0; c < tr.coord_count; ++c) EXPECT_EQ(tr.row(i)[c], k.q[c]);
    // the speed next to a key (one sample, 10 ms, away) is small against the peak: the velocity
    // is continuous and zero at the key
    if (i > 0) {
      EXPECT_LT(speed(tr, i - 1), 0.05 * peak) << "before t = " << k.time;
    }
    if (i + 1 < tr.sample_count()) {
      EXPECT_LT(speed(tr, i), 0.05 * peak) << "after t = " << k.time;
    }
  }
}

// true when one of describe_segment's lines contains `text`
bool described(const SegmentReport& s, const std::string& text) {
  for (const std::string& line : describe_segment(s))
    if (line.find(text) != std::string::npos) return true;
  return false;
}

TEST(TimelineRender, PandaTaskSpaceFollowsTheLineWithinTolerance) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  ASSERT_EQ(tr.sample_count(), 251u);
  ASSERT_EQ(tr.segments.size(), 2u);
  const Model& m = *p.model;
  State fk(m);
  const ObjectiveParams<double>& tcp = p.setup.objectives[p.tcp].objective.params;
  for (std::size_t i = 0; i < tr.sample_count(); ++i) {
    EXPECT_TRUE(tr.converged[i]) << tr.times[i];
    // our own check: the TCP on the straight line / slerp at every sample
    eval_fk(m, std::vector<double>(tr.row(i), tr.row(i) + m.coord_count), {}, fk);
    const Transform<double> at = objective_point(m, tcp, fk.body_q);
    const Transform<double> want = sample_target(tl, p.tcp, tr.times[i]);
    EXPECT_LE(length(at.p - want.p), p.settings.tol_position * 1.001) << tr.times[i];
    EXPECT_LE(length(quat_log(conjugate(want.q) * at.q)), p.settings.tol_rotation * 1.001)
        << tr.times[i];
  }
  for (const SegmentReport& s : tr.segments) {
    EXPECT_FALSE(s.flagged()) << s.key;
    EXPECT_LE(s.max_position_error, p.settings.tol_position);
  }
  expect_within_limits(m, tr);
  expect_continuous_at_keys(tl, tr);
}

// the scene's joint locks reach the task-space solves: a locked wrist stays where each segment
// starts (the warm start) at every inner sample
TEST(TimelineRender, PandaTaskSpaceHonoursTheScenesJointLocks) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  const Model& m = *p.model;
  const int j7 = m.find_joint("panda_joint7");
  const int c7 = m.joint_q_start[j7];
  ASSERT_NE(tl.keys[0].q[c7], tl.keys[1].q[c7]);
  p.setup.locked_joints = {j7};
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  int inner = 0;
  for (std::size_t i = 0; i < tr.sample_count(); ++i) {
    const int seg = tl.segment_at(tr.times[i]);
    bool on_key = false;
    for (const Keyframe& k : tl.keys) on_key = on_key || k.time == tr.times[i];
    if (on_key) continue;
    EXPECT_EQ(tr.row(i)[c7], tl.keys[seg].q[c7]) << "t = " << tr.times[i];
    ++inner;
  }
  EXPECT_GT(inner, 200);
}

TEST(TimelineRender, PandaJointSpaceIsTheCubicWithinLimits) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kJoint);
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  std::vector<double> q;
  for (std::size_t i = 0; i < tr.sample_count(); ++i) {
    sample_joint_space(*p.model, tl, tr.times[i], q);
    for (int c = 0; c < tr.coord_count; ++c) EXPECT_DOUBLE_EQ(tr.row(i)[c], q[c]);
  }
  expect_within_limits(*p.model, tr);
  expect_continuous_at_keys(tl, tr);
  EXPECT_EQ(tr.flagged_segments(), 0);
  EXPECT_GT(tr.segments[0].max_velocity_ratio, 0);
  EXPECT_FALSE(tr.segments[0].fastest_joint.empty());
}

TEST(TimelineRender, HumanoidTaskSpaceStanceChange) {
  Preset p = load_preset("humanoid");
  ASSERT_GE(p.tcp, 0);
  Timeline tl;
  tl.keys.push_back(solved_key(p, 0.0, {0, 0, 0}, Interpolation::kTask));
  tl.keys.push_back(solved_key(p, 1.5, {0.0, 0.12, 0.0}, Interpolation::kTask));
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  EXPECT_EQ(tr.segments[0].ik_failures, 0);
  EXPECT_FALSE(tr.segments[0].flagged());
  EXPECT_LE(tr.segments[0].max_position_error, p.settings.tol_position);
  expect_within_limits(*p.model, tr);
}

// A humanoid reaching forward and down with its left hand on a joint segment: both keys hold the
// hard feet on their targets, but the legs and the floating base follow the keys' joint values,
// so the feet slide in between; the segment says which foot and by how much. The hand's target
// moves between the keys and is not checked (a joint segment does not follow its line), nor is
// a foot whose target moves.
TEST(TimelineRender, FlagsAHardTargetThatSlidesOnAJointSegment) {
  Preset p = load_preset("humanoid");
  const int left_foot = 0, right_foot = 1;
  p.tcp = 2;  // the left hand
  ASSERT_EQ(p.setup.objectives[p.tcp].objective.name, "left hand");
  Timeline tl;
  tl.keys.push_back(solved_key(p, 0.0, {0, 0, 0}, Interpolation::kJoint));
  tl.keys.push_back(solved_key(p, 1.5, {0.25, 0.0, -0.25}, Interpolation::kJoint));
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  const SegmentReport& s = tr.segments[0];
  ASSERT_TRUE(s.slides_hard());
  EXPECT_TRUE(s.flagged());
  EXPECT_TRUE(s.slid == "left foot" || s.slid == "right foot") << s.slid;
  EXPECT_GT(s.first_slide, tl.keys[0].time);  // the keys themselves hold the feet
  EXPECT_LT(s.first_slide, tl.keys[1].time);
  EXPECT_GT(s.max_slide_position, p.settings.tol_position);
  EXPECT_TRUE(described(s, "the hard objective '" + s.slid +
                               "' has the same target at both keys but slides off it at"));
  // the feet measured on their own against the first key's targets
  State fk(*p.model);
  double largest = 0;
  for (std::size_t i = 0; i < tr.sample_count(); ++i) {
    eval_fk(*p.model, std::vector<double>(tr.row(i), tr.row(i) + tr.coord_count), {}, fk);
    for (int o : {left_foot, right_foot})
      largest = std::max(
          largest,
          length(objective_point(*p.model, p.setup.objectives[o].objective.params, fk.body_q).p -
                 tl.keys[0].targets[o].p));
  }
  EXPECT_NEAR(largest, s.max_slide_position, 1e-9);

  // feet whose targets move between the keys are not held: not checked
  for (int o : {left_foot, right_foot})
    tl.keys[1].targets[o].p = tl.keys[1].targets[o].p + Vec3<double>{0.01, 0, 0};
  tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings, *make_cpu_solver(),
                       &p.setup);
  EXPECT_FALSE(tr.segments[0].slides_hard());
}

TEST(TimelineRender, FlagsTooFastSegmentsAndUnreachableTargets) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kJoint);
  tl.keys[1].time = 0.05;  // the same motion in 50 ms
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  EXPECT_TRUE(tr.segments[0].too_fast());
  EXPECT_FALSE(tr.segments[1].too_fast());
  EXPECT_EQ(tr.flagged_segments(), 1);
  // a target 2 m away in the middle of a task segment: IK fails there, the key after it is kept
  tl = pick_and_place(p, Interpolation::kTask);
  tl.keys[1].targets[p.tcp].p = tl.keys[1].targets[p.tcp].p + Vec3<double>{2, 0, 0};
  tr = render_timeline(p.model, p.setup.objectives, tl, 50, p.settings, *make_cpu_solver(),
                       &p.setup);
  EXPECT_TRUE(tr.segments[0].ik_failed());
  EXPECT_GT(tr.segments[0].first_failure, 0);
  EXPECT_LT(tr.segments[0].first_failure, 1);
  EXPECT_GT(tr.segments[0].max_position_error, 0.1);
  // the snap at the unreachable key says so, and no advice is to give the segment more time
  EXPECT_FALSE(tr.segments[0].arrival.targets_reached);
  EXPECT_TRUE(described(tr.segments[0], "key 1's targets are out of reach"));
  EXPECT_TRUE(described(tr.segments[0], "samples, first at t = "));
  EXPECT_TRUE(described(tr.segments[0], "; bring key 1's targets within reach"));
  EXPECT_FALSE(described(tr.segments[0], "more time"));
}

// Keys that meet their targets on either side of the Panda's base (tool down, 15 cm up, 0.9 m
// apart, stored from the workbench): the targets' straight line runs through the base, where IK
// fails, and IK arrives at key 1 stuck short of its targets. The keys are reachable, the path is
// not: the messages say so and advise a key between or a joint segment, not "bring the targets
// within reach".
TEST(TimelineRender, APathThroughWhatTheRobotCannotReachIsNotAKeyOutOfReach) {
  Preset p = load_preset("panda");
  const Model& m = *p.model;
  auto key = [&](double t, const std::vector<double>& arm, Vec3<double> at) {
    Keyframe k;
    k.time = t;
    k.interpolation = Interpolation::kTask;
    k.q = p.setup.q;
    for (int j = 0; j < 7; ++j)
      k.q[m.joint_q_start[m.find_joint("panda_joint" + std::to_string(j + 1))]] = arm[j];
    targets_at_key(m, p.setup.objectives, k);
    k.targets[p.tcp] = {at, {1, 0, 0, 0}};
    return k;
  };
  Timeline tl;
  tl.keys.push_back(
      key(0, {0, 0.0320551, 0, -2.5652580, 0, 2.5973131, 0.7853982}, {0.45, 0, 0.15}));
  tl.keys.push_back(
      key(2, {1.5054617, 0.5770697, 1.4610620, -2.4930434, -0.8688182, 2.3518027, -1.8580202},
          {-0.45, 0.05, 0.15}));
  const Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                        *make_cpu_solver(), &p.setup);
  const SegmentReport& s = tr.segments[0];
  EXPECT_TRUE(s.ik_failed());
  ASSERT_TRUE(s.arrives_with_jump());
  EXPECT_FALSE(s.arrival.targets_reached);
  EXPECT_FALSE(s.arrival.key_misses_targets);
  EXPECT_FALSE(s.departure.key_misses_targets);
  EXPECT_TRUE(described(s, "key 1 meets its targets, but IK along the segment stops"));
  EXPECT_TRUE(described(s,
                        "the targets' path between the keys leaves the robot's reach: add a "
                        "key between (a pose on the way that the robot reaches), or make the "
                        "segment a joint segment"));
  // the speed of the jumps inside the segment points at the IK failure, not at the targets
  EXPECT_TRUE(s.too_fast());
  EXPECT_TRUE(described(s, "IK does not converge on this segment (said above): see to that first"));
  EXPECT_FALSE(described(s, "within reach"));
  EXPECT_FALSE(described(s, "out of reach"));
}

// A key whose joint values do not meet its targets (the targets moved, the joints not): IK
// arrives at the targets and the robot snaps to the key's joint values, and leaves them again as
// the next segment starts. Both ends are flagged as jumps naming the key; the snap itself is not
// a joint moving too fast, and the speed of what follows a jump is not advice to give the
// segment more time.
TEST(TimelineRender, FlagsTheJumpsAtAKeyWhoseJointValuesMissItsTargets) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  tl.keys[1].q = tl.keys[0].q;
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  const SegmentReport into = tr.segments[0], out = tr.segments[1];
  EXPECT_TRUE(into.arrives_with_jump());
  EXPECT_TRUE(into.arrival.key_misses_targets);
  EXPECT_GT(into.arrival.key_position_error, 0.2);
  EXPECT_FALSE(into.departs_with_jump());
  EXPECT_TRUE(out.departs_with_jump());
  EXPECT_TRUE(out.departure.key_misses_targets);
  EXPECT_FALSE(out.arrives_with_jump());
  EXPECT_FALSE(into.too_fast()) << into.fastest_joint;  // the snap into key 1 is the jump
  // leaving key 1, IK's first samples still move fast (the posture settles after the snap)
  ASSERT_TRUE(out.too_fast());
  EXPECT_GT(out.fastest_time, tl.keys[1].time);
  EXPECT_LT(out.fastest_time, tl.keys[1].time + 0.05);
  EXPECT_TRUE(described(out, "after the jump at key 1: remove the jump first"));
  for (const SegmentReport* s : {&into, &out}) {
    EXPECT_TRUE(s->flagged());
    EXPECT_FALSE(s->ik_failed()) << s->key;
    EXPECT_TRUE(described(*s, "key 1's joint values miss its targets")) << s->key;
    EXPECT_FALSE(described(*s, "more time")) << s->key;
  }
  // a small miss (the target 15 mm above the key's hand, a snap of about 0.04 rad) is a jump too,
  // not a joint too fast
  tl = pick_and_place(p, Interpolation::kTask);
  tl.keys[1].targets[p.tcp].p = tl.keys[1].targets[p.tcp].p + Vec3<double>{0, 0, 0.015};
  tr = render_timeline(p.model, p.setup.objectives, tl, 1000, p.settings, *make_cpu_solver(),
                       &p.setup);
  EXPECT_TRUE(tr.segments[0].arrives_with_jump());
  EXPECT_LT(tr.segments[0].arrival.gap, 0.1);
  EXPECT_TRUE(tr.segments[1].departs_with_jump());
  EXPECT_FALSE(tr.segments[0].too_fast());
  EXPECT_FALSE(tr.segments[1].too_fast());
}

// A key whose elbow was clamped into its limit (a scene opened after the limits changed; a
// review's story-8 key): the segment leaving it starts IK from the nearly straight arm and stays
// stuck short of every sample's target. Its targets are reachable (a search from seeds meets
// them), so the messages name the key's joint values, not targets out of reach or a path the
// robot cannot follow (both said before), at either end of the segment.
TEST(TimelineRender, ASegmentStuckOnAKeysJointValuesNamesTheKeyNotTheReach) {
  Preset p = load_preset("panda");
  const Model& m = *p.model;
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  const int elbow = m.find_joint("panda_joint4");
  tl.keys[1].q[m.joint_q_start[elbow]] = m.dof_upper[m.joint_qd_start[elbow]];
  const Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                        *make_cpu_solver(), &p.setup);
  const SegmentReport& s = tr.segments[1];
  ASSERT_TRUE(s.ik_failed());
  ASSERT_TRUE(s.departs_with_jump());
  EXPECT_FALSE(s.departure.targets_reached);
  EXPECT_TRUE(s.departure.key_misses_targets);
  EXPECT_TRUE(s.departure.targets_reachable);
  EXPECT_TRUE(described(s, "key 1's joint values miss its targets"));
  EXPECT_TRUE(described(s, "which a search from seeds meets"));
  EXPECT_TRUE(described(s, "store key 1 again from a pose that meets its targets"));
  EXPECT_FALSE(described(s, "out of reach"));
  EXPECT_FALSE(described(s, "within reach"));
  EXPECT_FALSE(described(s, "leaves the region"));
  EXPECT_FALSE(described(s, "path between the keys"));
  if (s.arrives_with_jump() && !s.arrival.targets_reached) {
    EXPECT_TRUE(described(s, "store key 1 again first"));
  }
  const nlohmann::json j = segment_to_json(s);
  EXPECT_TRUE(j["departure"]["targets_reachable"].get<bool>());
  // the segment into the key names the key's joint values as before
  EXPECT_TRUE(described(tr.segments[0], "key 1's joint values miss its targets"));
}

// A joint segment does not solve, so nothing keeps its hard objectives: a sphere where the hand
// passes halfway through the Panda's first (joint) segment, with a hard world collision, flags
// the segment at the samples inside it (both keys are clear); a key placed inside the sphere is
// named as breaking the objective, not as out of reach
TEST(TimelineRender, FlagsJointSegmentsAndKeysThatBreakAHardObjective) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kJoint);
  std::vector<double> mid(tl.keys[0].q.size());
  for (std::size_t c = 0; c < mid.size(); ++c) mid[c] = 0.5 * (tl.keys[0].q[c] + tl.keys[1].q[c]);
  State fk(*p.model);
  eval_fk(*p.model, mid, {}, fk);
  Obstacle ball;
  ball.name = "ball";
  ball.type = ShapeType::kSphere;
  ball.radius = 0.04;
  ball.pose.p = fk.body_q[p.model->find_body("panda_hand")].p;
  p.setup.collision = make_collision_world(*p.model, {}, {ball});
  PlacedObjective wall;
  wall.objective.params.type = ObjectiveType::kWorldCollision;
  wall.objective.params.hard = 1;
  wall.objective.params.margin = 0.01;
  wall.objective.name = "keep out";
  p.setup.objectives.push_back(wall);
  for (Keyframe& k : tl.keys) targets_at_key(*p.model, p.setup.objectives, k);
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  const SegmentReport& s = tr.segments[0];
  EXPECT_TRUE(s.breaks_hard());
  EXPECT_TRUE(s.flagged());
  EXPECT_EQ(s.broken, "keep out");
  EXPECT_GT(s.first_break, tl.keys[0].time);
  EXPECT_LT(s.first_break, tl.keys[1].time);
  EXPECT_GT(s.max_break, 0.04);  // the hand's capsule reaches the sphere's centre
  EXPECT_TRUE(described(s, "the hard objective 'keep out' is broken at"));
  EXPECT_EQ(s.broken_unit, " m");  // the distance's unit said (it was a bare number)
  char by[64];
  std::snprintf(by, sizeof by, "(by up to %.3g m)", s.max_break);
  EXPECT_TRUE(described(s, by));

  // task segments: a key inside the sphere is the cause of its jump
  tl = pick_and_place(p, Interpolation::kTask);
  tl.keys[1].q = mid;
  for (Keyframe& k : tl.keys) targets_at_key(*p.model, p.setup.objectives, k);
  tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings, *make_cpu_solver(),
                       &p.setup);
  ASSERT_TRUE(tr.segments[0].arrives_with_jump());
  EXPECT_EQ(tr.segments[0].arrival.key_breaks, "keep out");
  EXPECT_TRUE(
      described(tr.segments[0], "key 1's joint values break the hard objective 'keep out'"));
}

// A joint the scene locks but the keys give different values cannot move in between: the robot
// snaps at the next key, and the report names the locked joint.
TEST(TimelineRender, FlagsALockedJointThatTheKeysMove) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  p.setup.locked_joints = {p.model->find_joint("panda_joint7")};
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  const SegmentReport& s = tr.segments[0];
  EXPECT_TRUE(s.arrives_with_jump());
  EXPECT_EQ(s.arrival.locked_joint, "panda_joint7");
  EXPECT_FALSE(s.arrival.key_misses_targets);
  EXPECT_FALSE(s.departs_with_jump());
  EXPECT_TRUE(described(s, "joint 'panda_joint7' is locked and key 1 gives it another value"));
}

// A key stored on another branch of the same targets (the UR5e's elbow the other way): IK
// follows the targets on the branch it started on, so it meets the key's targets with another
// configuration and the robot flips at the key.
TEST(TimelineRender, FlagsAnArrivalOnAnotherBranchOfTheKeysTargets) {
  Preset p = load_preset("ur5e");
  Timeline tl;
  tl.keys.push_back(solved_key(p, 0.0, {0, 0, 0}, Interpolation::kTask));
  tl.keys.push_back(solved_key(p, 1.0, {0.05, 0.1, -0.05}, Interpolation::kTask));
  const Model& m = *p.model;
  const int elbow = m.joint_q_start[m.find_joint("elbow_joint")];
  // the other elbow: from the key with the elbow bent the other way
  IkProblem problem = make_problem(p.model, p.setup.objectives, 1, &p.setup.collision);
  problem.set_target_pose(p.tcp, 0, tl.keys[1].targets[p.tcp]);
  std::vector<double> seed = tl.keys[1].q;
  seed[elbow] = -seed[elbow];
  SolverSettings s = p.settings;
  s.max_iterations = 500;
  s.n_seeds = 1;
  SolveResult r;
  make_cpu_solver()->solve(problem, s, seed, r);
  ASSERT_TRUE(r.problems[0].converged);
  ASSERT_LT(r.problems[0].q[elbow] * tl.keys[1].q[elbow], 0) << "the same elbow";
  tl.keys[1].q = r.problems[0].q;
  Trajectory tr = render_timeline(p.model, p.setup.objectives, tl, 100, p.settings,
                                  *make_cpu_solver(), &p.setup);
  const SegmentReport& seg = tr.segments[0];
  EXPECT_TRUE(seg.arrives_with_jump());
  EXPECT_FALSE(seg.arrival.key_misses_targets);
  EXPECT_TRUE(seg.arrival.locked_joint.empty());
  EXPECT_GT(seg.arrival.gap, 0.5);
  EXPECT_FALSE(seg.departs_with_jump());
  EXPECT_TRUE(described(seg, "IK meets key 1's targets with another configuration"));
}

// Task segments' joint speeds are measured over spans of at least kSpeedSpan: a fine rate, or a
// key a hair off the sample grid, gives the speeds of the coarse rate, not IK's convergence
// steps over microseconds.
TEST(TimelineRender, TaskSpeedsDoNotDependOnTheRate) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  auto ratio = [&](const Timeline& t, double rate) {
    Trajectory tr = render_timeline(p.model, p.setup.objectives, t, rate, p.settings,
                                    *make_cpu_solver(), &p.setup);
    EXPECT_EQ(tr.flagged_segments(), 0) << rate;
    double v = 0;
    for (const SegmentReport& s : tr.segments) v = std::max(v, s.max_velocity_ratio);
    return v;
  };
  const double at_100 = ratio(tl, 100);
  ASSERT_GT(at_100, 0.1);
  EXPECT_LT(ratio(tl, 10000), 1.1 * at_100);
  Timeline off_grid = tl;
  off_grid.keys[1].time += 1e-8;
  EXPECT_LT(ratio(off_grid, 100), 1.1 * at_100);
}

// the workbench renders with its own settings, whose frames take 2 posture steps at most: the
// render settles the posture fully all the same, so its export is ikwb animate's (whose settings
// have no cap) and a coarse rate does not leave the posture short between keys
TEST(TimelineRender, TheWorkbenchsSettleCapDoesNotReachTheRender) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  SolverSettings capped = p.settings, full = p.settings;
  capped.settle_iterations = 2;
  full.settle_iterations = 0;
  for (double rate : {10.0, 100.0}) {
    Trajectory a = render_timeline(p.model, p.setup.objectives, tl, rate, capped,
                                   *make_cpu_solver(), &p.setup);
    Trajectory b =
        render_timeline(p.model, p.setup.objectives, tl, rate, full, *make_cpu_solver(), &p.setup);
    EXPECT_EQ(a.q, b.q) << rate;
    EXPECT_EQ(a.flagged_segments(), 0) << rate;
  }
}

// joint keys of a continuous joint either side of its +-pi seam: the samples turn the short way
// (0.28 rad in 1 s, within the turntable's 2 rad/s), in (-pi, pi]
TEST(TimelineRender, AContinuousJointCrossesItsSeamTheShortWay) {
  auto model = load_urdf_file(IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf").model;
  const int c = model->joint_q_start[model->find_joint("turntable")];
  Timeline tl;
  for (double angle : {3.0, -3.0}) {
    Keyframe k;
    k.time = tl.keys.size();
    k.q = model->middle_configuration();
    k.q[c] = angle;
    tl.keys.push_back(k);
  }
  Trajectory tr = render_timeline(model, {}, tl, 100, SolverSettings(), *make_cpu_solver());
  for (std::size_t i = 0; i < tr.sample_count(); ++i) {
    const double v = tr.row(i)[c];
    EXPECT_TRUE(v > -M_PI && v <= M_PI) << v;
    EXPECT_LE(std::fabs(std::remainder(v - 3.0, 2 * M_PI)), 2 * M_PI - 6.0 + 1e-12) << v;
  }
  EXPECT_EQ(tr.segments[0].fastest_joint, "turntable");
  EXPECT_NEAR(tr.segments[0].max_velocity_ratio, 1.5 * (2 * M_PI - 6.0) / 2, 1e-9);
  EXPECT_FALSE(tr.segments[0].too_fast());
}

TEST(TimelineRender, RejectsKeysThatDoNotFit) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kJoint);
  auto solver = make_cpu_solver();
  EXPECT_THROW(render_timeline(p.model, p.setup.objectives, Timeline{}, 100, p.settings, *solver),
               std::invalid_argument);
  Timeline short_q = tl;
  short_q.keys[1].q.pop_back();
  EXPECT_THROW(render_timeline(p.model, p.setup.objectives, short_q, 100, p.settings, *solver),
               std::invalid_argument);
  EXPECT_THROW(render_timeline(p.model, p.setup.objectives, tl, -1, p.settings, *solver),
               std::invalid_argument);
}

TEST(TimelineRender, SceneFormRoundTripsOnTheModel) {
  Preset p = load_preset("panda");
  Timeline tl = pick_and_place(p, Interpolation::kTask);
  Scene scene;
  scene.robot = "panda";
  for (const PlacedObjective& o : p.setup.objectives)
    scene.objectives.push_back(objective_to_scene(*p.model, o));
  scene.timeline = timeline_to_scene(*p.model, tl, p.setup.objectives);
  Scene read = parse_scene(scene_to_json(scene).dump(), "s.json", "");
  std::vector<std::string> warnings;
  Timeline back = timeline_on_model(*p.model, read, p.setup, warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(back.keys.size(), tl.keys.size());
  for (std::size_t k = 0; k < tl.keys.size(); ++k) {
    EXPECT_EQ(back.keys[k].time, tl.keys[k].time);
    EXPECT_EQ(back.keys[k].interpolation, tl.keys[k].interpolation);
    for (int c = 0; c < p.model->coord_count; ++c)
      EXPECT_NEAR(back.keys[k].q[c], tl.keys[k].q[c], 1e-12);
    EXPECT_NEAR(length(back.keys[k].targets[p.tcp].p - tl.keys[k].targets[p.tcp].p), 0, 1e-12);
  }
  // an unknown joint in a key is a warning; the others still apply
  read.timeline.keys[0].joint_q["no_such_joint"] = {1.0};
  warnings.clear();
  timeline_on_model(*p.model, read, p.setup, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no_such_joint"), std::string::npos);
  // targets past the objectives, and a pose for an objective without a target: warnings
  read.timeline.keys[0].joint_q.erase("no_such_joint");
  // (the Panda's preset: a pose, then the posture and the joint limits, which have none)
  read.timeline.keys[0].targets.assign(p.setup.objectives.size() + 1, transform_identity<double>());
  warnings.clear();
  timeline_on_model(*p.model, read, p.setup, warnings);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("4 targets for 3 objectives"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("targets[1]: objective 1 (posture) has no target: ignored"),
            std::string::npos)
      << warnings[1];
  EXPECT_NE(warnings[2].find("targets[2]"), std::string::npos) << warnings[2];
  // a list that stops short warns too; the objective left out takes its met target
  read.timeline.keys[0].targets.assign(1, transform_identity<double>());
  read.timeline.keys[0].targets[0] = std::nullopt;
  warnings.clear();
  timeline_on_model(*p.model, read, p.setup, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("timeline key 0: 1 target for 3 objectives: the others take"),
            std::string::npos)
      << warnings[0];
}

// a key's joints go into the limits in force (the scene's joint_limits where it has them), and
// a ball or free joint's quaternion is renormalised; one with no rotation (zero) is a warning and
// the joint keeps the scene's value
TEST(TimelineRender, KeysTakeTheScenesLimitsAndUnitQuaternions) {
  Preset p = load_preset("humanoid");
  const Model& m = *p.model;
  Scene scene;
  scene.robot = "humanoid";
  scene.floating_base = true;
  scene.joint_limits["left_elbow_joint"] = {-0.5, 0.0};
  SceneSetup setup = resolve_scene(m, scene);
  scene.timeline.keys.resize(2);
  scene.timeline.keys[0].time = 0;
  scene.timeline.keys[0].joint_q["left_elbow_joint"] = {-1.5};
  scene.timeline.keys[0].joint_q["root_joint"] = {0, 0, 0.9, 0, 0, 0, 2};
  scene.timeline.keys[1].time = 1;
  scene.timeline.keys[1].joint_q["root_joint"] = {0, 0, 0.9, 0, 0, 0, 0};
  std::vector<std::string> warnings;
  Timeline tl = timeline_on_model(m, scene, setup, warnings);
  ASSERT_EQ(tl.keys.size(), 2u);
  const int elbow = m.joint_q_start[m.find_joint("left_elbow_joint")];
  EXPECT_EQ(tl.keys[0].q[elbow], -0.5);
  const int root = m.joint_q_start[m.find_joint("root_joint")];
  EXPECT_EQ(tl.keys[0].q[root + 6], 1.0);
  for (int c = 0; c < 7; ++c) EXPECT_EQ(tl.keys[1].q[root + c], setup.q[root + c]) << c;
  ASSERT_EQ(warnings.size(), 2u);
  // the elbow moved into the scene's limits is named
  EXPECT_EQ(warnings[0],
            "timeline key 0: joint 'left_elbow_joint': -1.5 is beyond its limits, set "
            "to -0.5");
  EXPECT_NE(warnings[1].find("timeline key 1: joint 'root_joint': its quaternion has no rotation"),
            std::string::npos)
      << warnings[1];
}

// the summary names the first ten flagged segments and counts the rest (a 10,000-key timeline
// listed 2,951 numbers in one line)
// on_fixed_step's last row: a last key on the grid is that row (at 1e5 s and 1e6 Hz the step's
// product rounds a hair over an integer, and a ceil of it added a row 1 us past the key), a key
// 1e-10 s past a grid time too (sample_times puts the key there), and a key between grid
// times gets one row after it holding it
TEST(TimelineRender, FixedStepRowsEndAtOrJustAfterTheLastKey) {
  struct Case {
    double first, last, rate;
    std::size_t rows;
    double end;
  };
  for (const Case& c : {Case{1e5, 1e5 + 0.001, 1e6, 1001, 1e5 + 1000 / 1e6},
                        Case{0, 2.0000000001, 100, 201, 2.0}, Case{0, 1.005, 100, 102, 1.01}}) {
    Timeline tl;
    tl.keys.resize(2);
    tl.keys[0].time = c.first;
    tl.keys[1].time = c.last;
    Trajectory tr;
    tr.coord_count = 1;
    tr.times = sample_times(tl, c.rate);
    for (std::size_t i = 0; i < tr.times.size(); ++i) {
      tr.q.push_back(double(i));
      tr.converged.push_back(1);
    }
    const Trajectory f = on_fixed_step(tr, c.rate);
    ASSERT_EQ(f.sample_count(), c.rows) << c.last;
    EXPECT_EQ(f.times.back(), c.end) << c.last;
    EXPECT_EQ(f.q.back(), tr.q.back()) << c.last << ": the last key's row";
    EXPECT_TRUE(f.fixed_step);
    for (std::size_t k = 0; k < f.sample_count(); ++k)
      ASSERT_EQ(f.times[k], c.first + double(k) / c.rate) << k;
  }
}

TEST(TimelineRender, FlaggedSummaryNamesTheFirstTen) {
  Trajectory tr;
  for (int k = 0; k < 40; ++k) {
    SegmentReport s;
    s.key = k;
    s.ik_failures = k % 2;
    tr.segments.push_back(s);
  }
  EXPECT_EQ(flagged_summary(tr),
            "20 of 40 segments flagged (segments 1, 3, 5, 7, 9, 11, 13, 15, 17, 19 and 10 more)");
  tr.segments.resize(4);
  EXPECT_EQ(flagged_summary(tr), "2 of 4 segments flagged (segments 1, 3)");
}

}  // namespace
}  // namespace ikwb
