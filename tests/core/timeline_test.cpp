// Tests for engine/core/timeline: the easing, sample times (keys included, no drift), blends of
// every joint type (quaternions stay unit, limits kept), key insertion and retiming, and the
// scene form's JSON round trip and errors.
#include "engine/core/timeline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

#include "engine/core/scene.hpp"
#include "test_models.hpp"

namespace ikwb {
namespace {

Keyframe key(double t, std::vector<double> q, Interpolation i = Interpolation::kJoint) {
  Keyframe k;
  k.time = t;
  k.q = std::move(q);
  k.interpolation = i;
  return k;
}

TEST(Timeline, EaseHasZeroVelocityAtBothEnds) {
  EXPECT_DOUBLE_EQ(ease(0), 0);
  EXPECT_DOUBLE_EQ(ease(1), 1);
  EXPECT_DOUBLE_EQ(ease(0.5), 0.5);
  EXPECT_DOUBLE_EQ(ease_rate(0), 0);
  EXPECT_DOUBLE_EQ(ease_rate(1), 0);
  for (double u = 0.05; u < 1; u += 0.1) {
    const double h = 1e-6;
    EXPECT_NEAR(ease_rate(u), (ease(u + h) - ease(u - h)) / (2 * h), 1e-6) << u;
    EXPECT_GE(ease(u + 0.01), ease(u));  // monotone: no overshoot past the keys
  }
}

TEST(Timeline, SampleTimesIncludeTheKeysAndDoNotDrift) {
  Timeline tl;
  tl.keys = {key(0, {0}), key(0.333, {1}), key(1.0, {2}), key(2.05, {3})};
  std::vector<double> t = sample_times(tl, 10);
  for (const Keyframe& k : tl.keys)
    EXPECT_NE(std::find(t.begin(), t.end(), k.time), t.end()) << k.time;
  for (std::size_t i = 1; i < t.size(); ++i) EXPECT_GT(t[i], t[i - 1]);
  // 0, 0.1, ..., 2.0 (21) plus 0.333 and 2.05; 1.0 is a grid point
  EXPECT_EQ(t.size(), 23u);
  EXPECT_EQ(t.back(), 2.05);
  // 10 s at 100 Hz: k / rate from the start, the last grid point exactly 10
  tl.keys = {key(0, {0}), key(10, {1})};
  t = sample_times(tl, 100);
  ASSERT_EQ(t.size(), 1001u);
  EXPECT_EQ(t[700], 7.0);
  EXPECT_EQ(t.back(), 10.0);
  EXPECT_THROW(sample_times(tl, 0), std::invalid_argument);
  EXPECT_THROW(sample_times(tl, NAN), std::invalid_argument);
  EXPECT_THROW(sample_times(tl, 1e9, 1000), std::invalid_argument);
}

TEST(Timeline, InsertKeepsOrderAndRetimeRefusesACollision) {
  Timeline tl;
  EXPECT_EQ(tl.segment_at(1), -1);
  EXPECT_EQ(tl.insert(key(1, {1})), 0);
  EXPECT_EQ(tl.insert(key(3, {3})), 1);
  EXPECT_EQ(tl.insert(key(2, {2})), 1);
  EXPECT_EQ(tl.insert(key(2, {5})), 1);  // same time: replaced
  ASSERT_EQ(tl.keys.size(), 3u);
  EXPECT_EQ(tl.keys[1].q[0], 5);
  EXPECT_EQ(tl.segment_at(0), 0);
  EXPECT_EQ(tl.segment_at(2.5), 1);
  EXPECT_EQ(tl.segment_at(3), 1);
  EXPECT_EQ(tl.segment_at(9), 1);
  EXPECT_EQ(tl.key_at(2 + 1e-10), 1);
  EXPECT_EQ(tl.key_at(2.5), -1);
  EXPECT_EQ(tl.retime(0, 2), -1);
  EXPECT_EQ(tl.retime(0, 4), 2);
  EXPECT_EQ(tl.keys[0].time, 2);
  EXPECT_EQ(tl.keys[2].q[0], 1);
}

TEST(Timeline, JointSpaceIsContinuousWithZeroVelocityAtKeys) {
  Model m = test::planar_arm();
  Timeline tl;
  std::vector<double> a(m.coord_count, 0.2), b(m.coord_count, -0.4), c(m.coord_count, 0.9);
  tl.keys = {key(0, a), key(1.5, b), key(2.0, c)};
  std::vector<double> q0, q1, q2;
  const double h = 1e-5;
  for (const Keyframe& k : tl.keys) {
    sample_joint_space(m, tl, k.time, q0);
    for (int i = 0; i < m.coord_count; ++i) EXPECT_DOUBLE_EQ(q0[i], k.q[i]);
    sample_joint_space(m, tl, k.time - h, q1);
    sample_joint_space(m, tl, k.time + h, q2);
    for (int i = 0; i < m.coord_count; ++i) {
      // position continuous, velocity zero from both sides
      EXPECT_NEAR(q1[i], k.q[i], 1e-8);
      EXPECT_NEAR(q2[i], k.q[i], 1e-8);
      EXPECT_NEAR((k.q[i] - q1[i]) / h, 0, 1e-3);
      EXPECT_NEAR((q2[i] - k.q[i]) / h, 0, 1e-3);
    }
  }
}

TEST(Timeline, BlendsEveryJointTypeWithinLimitsAndUnitQuaternions) {
  Model m = test::all_joint_types();
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> a = test::random_configuration(m, rng);
    std::vector<double> b = test::random_configuration(m, rng);
    std::vector<double> q;
    for (double s : {0.0, 0.25, 0.5, 0.9, 1.0}) {
      blend_configurations(m, a, b, s, q);
      for (int j = 0; j < m.joint_count; ++j) {
        JointType t = JointType(m.joint_type[j]);
        int k = m.joint_q_start[j];
        if (t == JointType::kBall || t == JointType::kFree) {
          int qk = k + (t == JointType::kFree ? 3 : 0);
          double n = std::sqrt(q[qk] * q[qk] + q[qk + 1] * q[qk + 1] + q[qk + 2] * q[qk + 2] +
                               q[qk + 3] * q[qk + 3]);
          EXPECT_NEAR(n, 1, 1e-12);
        } else if (joint_type_coord_count(t) == 1) {
          int d = m.joint_qd_start[j];
          EXPECT_GE(q[k], m.dof_lower[d] - 1e-12);
          EXPECT_LE(q[k], m.dof_upper[d] + 1e-12);
        }
      }
    }
    blend_configurations(m, a, b, 1.0, q);
    for (int i = 0; i < m.coord_count; ++i) EXPECT_NEAR(std::fabs(q[i]), std::fabs(b[i]), 1e-9);
  }
}

// a continuous joint from 3 rad to -3 rad turns 0.28 rad across pi, its angle in (-pi, pi]
TEST(Timeline, AContinuousJointBlendsTheShortWayRound) {
  Model m = test::all_joint_types();
  const int c = m.joint_q_start[m.find_joint("cont")];
  std::vector<double> a = m.neutral_configuration(), b = a, q;
  a[c] = 3.0;
  b[c] = -3.0;
  for (double s : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    blend_configurations(m, a, b, s, q);
    EXPECT_NEAR(std::remainder(q[c] - (3.0 + s * (2 * M_PI - 6.0)), 2 * M_PI), 0.0, 1e-12) << s;
    EXPECT_TRUE(q[c] > -M_PI && q[c] <= M_PI) << s << " " << q[c];
  }
  // within half a turn, the plain blend
  b[c] = 1.0;
  blend_configurations(m, a, b, 0.25, q);
  EXPECT_EQ(q[c], 3.0 + 0.25 * (1.0 - 3.0));
  // a planar joint's turn the same, its offsets along the line
  const int p = m.joint_q_start[m.find_joint("planar")];
  a = m.neutral_configuration(), b = a;
  a[p] = a[p + 2] = 3.0;
  b[p] = b[p + 2] = -3.0;
  blend_configurations(m, a, b, 0.5, q);
  EXPECT_EQ(q[p], 0.0);
  EXPECT_NEAR(std::fabs(q[p + 2]), M_PI, 1e-12);
}

TEST(Timeline, PoseBlendIsALineAndASlerp) {
  Transform<double> a{{0, 0, 0}, quat_identity<double>()};
  Transform<double> b{{1, 2, -2}, quat_from_axis_angle(Vec3<double>{0, 0, 1}, 1.2)};
  Transform<double> mid = blend_poses(a, b, 0.5);
  EXPECT_NEAR(mid.p.x, 0.5, 1e-12);
  EXPECT_NEAR(mid.p.z, -1, 1e-12);
  Vec3<double> r = quat_log(mid.q);
  EXPECT_NEAR(r.z, 0.6, 1e-12);
  // b and -b are one rotation: the blend takes the short way either way
  Transform<double> neg = b;
  neg.q = {-b.q.x, -b.q.y, -b.q.z, -b.q.w};
  EXPECT_NEAR(quat_log(blend_poses(a, neg, 0.5).q).z, 0.6, 1e-12);
}

TEST(Timeline, SceneTimelineRoundTrips) {
  const std::string text = R"({"version": 1, "robot": "panda", "timeline": {"keys": [
      {"time": 0, "joint_q": {"j1": 0.5, "ball": [0, 0, 0, 1]},
       "targets": [{"position": [1, 2, 3], "orientation": [0, 0, 0, 1]}, null]},
      {"time": 1.5, "interpolation": "task", "joint_q": {"j1": -0.5}, "targets": []}]}})";
  Scene s = parse_scene(text, "t.json", "");
  ASSERT_EQ(s.timeline.keys.size(), 2u);
  EXPECT_EQ(s.timeline.keys[1].interpolation, Interpolation::kTask);
  EXPECT_EQ(s.timeline.keys[0].joint_q.at("ball").size(), 4u);
  ASSERT_EQ(s.timeline.keys[0].targets.size(), 2u);
  EXPECT_TRUE(s.timeline.keys[0].targets[0].has_value());
  EXPECT_FALSE(s.timeline.keys[0].targets[1].has_value());
  Scene back = parse_scene(scene_to_json(s).dump(), "back.json", "");
  EXPECT_EQ(scene_to_json(back), scene_to_json(s));
  EXPECT_EQ(back.timeline.keys[0].targets[0]->p.z, 3);
  EXPECT_TRUE(back.warnings.empty() || back.warnings[0].find("timeline") == std::string::npos);
  // no keys: no "timeline" key written
  Scene plain = parse_scene(R"({"version": 1, "robot": "panda"})", "p.json", "");
  EXPECT_FALSE(scene_to_json(plain).contains("timeline"));
}

// a key's target may leave out its orientation (the identity) or its position (the origin), as
// an objective's target may
TEST(Timeline, KeyTargetsTakeDefaultsForAMissingPart) {
  Scene s = parse_scene(R"({"version": 1, "robot": "panda", "timeline": {"keys": [{"time": 0,
      "targets": [{"position": [0.4, 0.2, 0.4]}, {"orientation": [0, 0, 1, 0]}]}]}})",
                        "s.json", "");
  const std::vector<std::optional<Transform<double>>>& t = s.timeline.keys[0].targets;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]->p.y, 0.2);
  EXPECT_EQ(t[0]->q.w, 1.0);
  EXPECT_EQ(t[1]->p.x, 0.0);
  EXPECT_EQ(t[1]->q.z, 1.0);
}

// a timeline too long for the rate: the error gives the keys' span and the way out
TEST(Timeline, TooManySamplesNamesTheSpan) {
  Timeline tl;
  tl.keys.resize(2);
  tl.keys[1].time = 1e300;
  try {
    sample_times(tl, 100, 1000);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "the keys span 1e+300 s (0 to 1e+300 s); at 100 Hz that is more than 1000 samples: "
              "lower the rate or bring the keys closer");
  }
}

TEST(Timeline, BadSceneTimelinesNameThePlace) {
  auto error = [](const std::string& timeline) {
    try {
      parse_scene(R"({"version": 1, "robot": "panda", "timeline": )" + timeline + "}", "s.json",
                  "");
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"keys": [{"time": 1}, {"time": 0.5}]})"),
            "s.json: timeline.keys[1].time: must be after the previous key's time");
  EXPECT_EQ(error(R"({"keys": [{"time": 1}, {"time": 1.000000000001}]})"),
            "s.json: timeline.keys[1].time: must be at least 1e-9 s after the previous key's "
            "time (closer keys are one key)");
  EXPECT_EQ(error(R"({"keys": [{"time": -1}]})"),
            "s.json: timeline.keys[0].time: must be in [0, 1e6] s");
  EXPECT_EQ(error(R"({"keys": [{"time": 1e300}]})"),
            "s.json: timeline.keys[0].time: must be in [0, 1e6] s");
  EXPECT_EQ(error(R"({"keys": [{}]})"), "s.json: timeline.keys[0]: missing \"time\"");
  EXPECT_EQ(error(R"({"keys": [{"time": 0, "interpolation": "cubic"}]})"),
            "s.json: timeline.keys[0].interpolation: expected \"joint\" or \"task\"");
  EXPECT_EQ(error(R"({"keys": [{"time": 0, "targets": [{"position": [1, 2]}]}]})"),
            "s.json: timeline.keys[0].targets[0].position: expected an array of 3 numbers");
  EXPECT_EQ(error(R"({"keys": [{"time": 0, "targets": [{"position": [1, 2e6, 3]}]}]})"),
            "s.json: timeline.keys[0].targets[0].position: magnitude above 1e6");
  EXPECT_EQ(error(R"({"keys": [{"time": 0, "targets": [{}]}]})"),
            "s.json: timeline.keys[0].targets[0]: expected {\"position\": [x, y, z], "
            "\"orientation\": [x, y, z, w]} or null");
  EXPECT_EQ(error(R"({"keys": [{"time": 0, "targets": [{"position": [1, 2, 3], "rot": 1}]}]})"),
            "s.json: timeline.keys[0].targets[0].rot: unknown key (position, orientation)");
  EXPECT_EQ(error(R"({"keys": [{"time": 0, "joint_q": {"j1": "a"}}]})"),
            "s.json: timeline.keys[0].joint_q.j1: expected a number");
  EXPECT_EQ(error(R"({"keys": [{"time": 0, "speed": 2}]})"),
            "s.json: timeline.keys[0].speed: unknown key (time, interpolation, joint_q, targets)");
  EXPECT_EQ(error(R"([])"), "s.json: timeline: expected an object with \"keys\"");
}

}  // namespace
}  // namespace ikwb
