// Tests of eval_fk / eval_fk_batch / eval_ik and the branch helpers (engine/core/fk.hpp), and
// of fk_row / fk_row_masked (engine/core/row_kinematics.hpp) behind them.
//
// Tolerances (double precision throughout):
//  - poses against hand-computed values or an independent Eigen implementation: a chain of
//    ~10 compositions of O(1..50) values accumulates a few hundred ulps at most, so 1e-12.
//  - eval_ik round trips: one inverse transform and an atan2 per joint, so 1e-12 for
//    coordinates; recovered velocities subtract twists of magnitude |omega| |r| ~ 100 at the
//    far floating base, so 1e-11.
//  - body_qd against central finite differences of FK (step h = 1e-6): truncation
//    O(h^2 |x'''|) ~ 1e-10, rounding eps |x| / h ~ 1e-8 for points 50 m from the origin, so 1e-7.
//  - float FK against double: float eps 6e-8 over ~10 compositions of values up to ~5 m, so
//    2e-5.
//  - "bit-for-bit" rules (preserved bodies, batched vs unbatched) are compared with memcmp.
#include "engine/core/fk.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "core/kinematics_checks.hpp"
#include "core/temp_files.hpp"
#include "core/test_models.hpp"
#include "engine/core/mjcf_loader.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

using test::all_joint_types;
using test::near3;
using test::near_tf;
using test::planar_arm;
using test::random_configuration;
using test::random_state;
using test::random_velocity;
using test::same_bytes;
using test::same_rotation;
using test::tf;
using test::two_robots;

constexpr double kPose = 1e-12;
constexpr double kIkVel = 1e-11;
constexpr double kFd = 1e-7;
constexpr double kFdStep = 1e-6;
constexpr double kFloat = 2e-5;

// ---------------------------------------------------------------------------------------------
// independent reference: homogeneous transforms with Eigen, straight from the model arrays

Eigen::Isometry3d iso(const Transform<double>& x) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.translation() << x.p.x, x.p.y, x.p.z;
  t.linear() = Eigen::Quaterniond(x.q.w, x.q.x, x.q.y, x.q.z).normalized().toRotationMatrix();
  return t;
}

std::vector<Eigen::Isometry3d> reference_fk(const Model& m, const std::vector<double>& q) {
  std::vector<Eigen::Isometry3d> out(m.body_count, Eigen::Isometry3d::Identity());
  for (int j = 0; j < m.joint_count; ++j) {
    int src = m.joint_mimic[j];
    double s = src >= 0
                   ? m.joint_mimic_multiplier[j] * q[m.joint_q_start[src]] + m.joint_mimic_offset[j]
                   : (m.joint_q_start[j] < m.coord_count ? q[m.joint_q_start[j]] : 0.0);
    Eigen::Vector3d axis(m.joint_axis[j].x, m.joint_axis[j].y, m.joint_axis[j].z);
    const double* c = q.data() + m.joint_q_start[j];
    Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
    switch (JointType(m.joint_type[j])) {
      case JointType::kRevolute:
      case JointType::kContinuous:
        x.linear() = Eigen::AngleAxisd(s, axis).toRotationMatrix();
        break;
      case JointType::kPrismatic:
        x.translation() = s * axis;
        break;
      case JointType::kBall:
        x.linear() = Eigen::Quaterniond(c[3], c[0], c[1], c[2]).normalized().toRotationMatrix();
        break;
      case JointType::kFree:
        x.translation() << c[0], c[1], c[2];
        x.linear() = Eigen::Quaterniond(c[6], c[3], c[4], c[5]).normalized().toRotationMatrix();
        break;
      case JointType::kPlanar: {
        // the plane: the joint frame's xy plane turned by the shortest arc from z to the axis
        Eigen::Matrix3d r =
            Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), axis).toRotationMatrix();
        x.translation() = c[0] * r.col(0) + c[1] * r.col(1);
        x.linear() = Eigen::AngleAxisd(c[2], axis).toRotationMatrix();
        break;
      }
      default:
        break;
    }
    int p = m.joint_parent[j];
    Eigen::Isometry3d parent = p >= 0 ? out[p] : Eigen::Isometry3d::Identity();
    out[m.joint_child[j]] = parent * iso(m.joint_X_p[j]) * x * iso(m.joint_X_c[j]).inverse();
  }
  return out;
}

::testing::AssertionResult matches_reference(const Transform<double>& x, const Eigen::Isometry3d& r,
                                             double tol) {
  double dp = (iso(x).translation() - r.translation()).norm();
  double dr = (iso(x).linear() - r.linear()).norm();
  if (dp <= tol && dr <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "position error " << dp << ", rotation error " << dr;
}

// ---------------------------------------------------------------------------------------------
// hand-computed poses

TEST(Fk, PlanarArmMatchesHandComputedPose) {
  Model m = planar_arm();
  State s(m);
  std::vector<double> q = {0.3, -0.5, 0.9};
  eval_fk(m, q, {}, s);
  double a1 = 0.3, a2 = 0.3 - 0.5, a3 = 0.3 - 0.5 + 0.9;
  Vec3<double> tip{std::cos(a1) + 0.8 * std::cos(a2) + 0.5 * std::cos(a3),
                   std::sin(a1) + 0.8 * std::sin(a2) + 0.5 * std::sin(a3), 0.1};
  EXPECT_TRUE(near3(s.body_q[m.find_body("tip")].p, tip, kPose));
  Quat<double> r = s.body_q[m.find_body("tip")].q;
  EXPECT_NEAR(2 * std::atan2(r.z, r.w), a3, kPose);
  EXPECT_TRUE(near3(s.body_q[m.find_body("base")].p, {0, 0, 0}, 0));
  EXPECT_TRUE(near3(s.body_q[m.find_body("link1")].p, {0, 0, 0.1}, kPose));
}

TEST(Fk, OffAxisRevolute) {
  // half a turn about (1, 1, 0): x -> y, y -> x, z -> -z; joint frame 1 m up
  ModelBuilder b;
  int a = b.add_body("a");
  JointSpec j{"j", JointType::kRevolute, -1, a, tf(0, 0, 1)};
  j.axis = {1, 1, 0};
  b.add_joint(j);
  Model m = b.finalize();
  Transform<double> x = test::poses(m, {M_PI})[a];
  EXPECT_TRUE(near3(transform_point(x, {1, 0, 0}), {0, 1, 1}, kPose));
  EXPECT_TRUE(near3(transform_point(x, {0, 0, 1}), {0, 0, 0}, kPose));
}

TEST(Fk, RevoluteUnderRpyOrigin) {
  // roll 90 degrees turns the joint's z axis into world -y; a quarter turn about it takes the
  // child's x to joint y, which the roll maps to world z
  ModelBuilder b;
  int a = b.add_body("a");
  JointSpec j{"j", JointType::kRevolute, -1, a, tf(0, 0, 0, M_PI / 2, 0, 0)};
  j.axis = {0, 0, 1};
  b.add_joint(j);
  Model m = b.finalize();
  Transform<double> x = test::poses(m, {M_PI / 2})[a];
  EXPECT_TRUE(near3(transform_point(x, {1, 0, 0}), {0, 0, 1}, kPose));
  EXPECT_TRUE(near3(transform_point(x, {0, 0, 1}), {0, -1, 0}, kPose));
}

TEST(Fk, PrismaticUnderRpyOrigin) {
  // pitch 90 degrees turns the joint's z axis into world x
  ModelBuilder b;
  int a = b.add_body("a");
  JointSpec j{"j", JointType::kPrismatic, -1, a, tf(0, 1, 0, 0, M_PI / 2, 0)};
  j.axis = {0, 0, 1};
  b.add_joint(j);
  Model m = b.finalize();
  EXPECT_TRUE(near3(test::poses(m, {0.5})[a].p, {0.5, 1, 0}, kPose));
  EXPECT_TRUE(near3(test::poses(m, {-0.25})[a].p, {-0.25, 1, 0}, kPose));
}

TEST(Fk, ChildAnchorIsTheRotationCentre) {
  // the joint sits at the child's point (1, 0, 0): that point stays at the joint origin
  ModelBuilder b;
  int a = b.add_body("a");
  JointSpec j{"j", JointType::kRevolute, -1, a, tf(0, 0, 0), tf(1, 0, 0)};
  j.axis = {0, 0, 1};
  b.add_joint(j);
  Model m = b.finalize();
  Transform<double> x = test::poses(m, {M_PI / 2})[a];
  EXPECT_TRUE(near3(x.p, {0, -1, 0}, kPose));
  EXPECT_TRUE(near3(transform_point(x, {1, 0, 0}), {0, 0, 0}, kPose));
  EXPECT_TRUE(near3(transform_point(x, {2, 0, 0}), {0, 1, 0}, kPose));
}

TEST(Fk, ChildFrameIdentityTestTakesSignedZerosOnly) {
  // joint_child_frame_is_identity decides whether FK and the Jacobian skip the child frame:
  // -0 counts as zero; the smallest denormal and NaN do not (they take the general path)
  ModelBuilder b;
  int a = b.add_body("a");
  b.add_joint({"j", JointType::kRevolute, -1, a, tf(0, 0, 0), tf(0, 0, 0)});
  Model m = b.finalize();
  Transform<double>* xc = const_cast<Transform<double>*>(m.view().joint_X_c);
  const int j = m.body_joint[a];
  EXPECT_TRUE(joint_child_frame_is_identity(m.view(), j));
  xc[j].p.y = -0.0;
  xc[j].q.z = -0.0;
  EXPECT_TRUE(joint_child_frame_is_identity(m.view(), j));
  xc[j].q.x = std::numeric_limits<double>::denorm_min();
  EXPECT_FALSE(joint_child_frame_is_identity(m.view(), j));
  xc[j].q.x = 0.0;
  xc[j].p.z = std::nan("");
  EXPECT_FALSE(joint_child_frame_is_identity(m.view(), j));
  ModelView<float> f{};
  Transform<float> xf = {{0.0f, -0.0f, 0.0f}, {-0.0f, 0.0f, 0.0f, 1.0f}};
  f.joint_X_c = &xf;
  EXPECT_TRUE(joint_child_frame_is_identity(f, 0));
  xf.p.x = std::numeric_limits<float>::denorm_min();
  EXPECT_FALSE(joint_child_frame_is_identity(f, 0));
}

TEST(Fk, FixedJointMidChainAndBranch) {
  ModelBuilder b;
  int l1 = b.add_body("l1"), l2 = b.add_body("l2"), l3 = b.add_body("l3"), l4 = b.add_body("l4");
  JointSpec j1{"j1", JointType::kRevolute, -1, l1};
  j1.axis = {0, 0, 1};
  b.add_joint(j1);
  b.add_joint({"fix", JointType::kFixed, l1, l2, tf(1, 0, 0, 0, 0, M_PI / 2)});
  JointSpec j3{"j3", JointType::kRevolute, l2, l3, tf(1, 0, 0)};
  j3.axis = {0, 0, 1};
  b.add_joint(j3);
  JointSpec j4{"j4", JointType::kRevolute, l1, l4, tf(0, 0, 1)};
  j4.axis = {1, 0, 0};
  b.add_joint(j4);
  Model m = b.finalize();
  ASSERT_EQ(m.coord_count, 3);
  std::vector<Transform<double>> x = test::poses(m, {M_PI / 2, 0.3, M_PI / 2});
  EXPECT_TRUE(near3(x[l2].p, {0, 1, 0}, kPose));
  EXPECT_TRUE(near_tf(x[l2], {{0, 1, 0}, quat_from_rpy(0.0, 0.0, M_PI)}, kPose));
  EXPECT_TRUE(near_tf(x[l3], {{-1, 1, 0}, quat_from_rpy(0.0, 0.0, M_PI + 0.3)}, kPose));
  EXPECT_TRUE(near3(x[l4].p, {0, 0, 1}, kPose));
  EXPECT_TRUE(near3(transform_point(x[l4], {0, 1, 0}), {0, 0, 2}, kPose));
  EXPECT_TRUE(near3(transform_point(x[l4], {1, 0, 0}), {0, 1, 1}, kPose));
}

TEST(Fk, BallWithChildAnchor) {
  // joint at the child's point (0, 0, -0.5), a quarter turn about x (y -> z, z -> -y)
  ModelBuilder b;
  int a = b.add_body("a");
  b.add_joint({"ball", JointType::kBall, -1, a, tf(0, 0, 1), tf(0, 0, -0.5)});
  Model m = b.finalize();
  double s = std::sin(M_PI / 4), c = std::cos(M_PI / 4);
  Transform<double> x = test::poses(m, {s, 0, 0, c})[a];
  EXPECT_TRUE(near3(x.p, {0, -0.5, 1}, kPose));
  EXPECT_TRUE(near3(transform_point(x, {0, 0, -0.5}), {0, 0, 1}, kPose));
  // unnormalised coordinates are normalised
  Transform<double> x2 = test::poses(m, {3 * s, 0, 0, 3 * c})[a];
  EXPECT_TRUE(near_tf(x, x2, kPose));
}

TEST(Fk, FreeJointInRotatedParentFrame) {
  // the free joint's position is expressed in its (yawed) parent frame
  ModelBuilder b;
  int a = b.add_body("a");
  b.add_joint({"free", JointType::kFree, -1, a, tf(10, 0, 0, 0, 0, M_PI / 2)});
  Model m = b.finalize();
  double s = std::sin(M_PI / 4), c = std::cos(M_PI / 4);
  Transform<double> x = test::poses(m, {1, 2, 3, 0, 0, s, c})[a];
  EXPECT_TRUE(near3(x.p, {8, 1, 3}, kPose));
  EXPECT_TRUE(near3(transform_point(x, {1, 0, 0}), {7, 1, 3}, kPose));
}

TEST(Fk, MimicJoints) {
  // j1 = 2 q0 + 0.1 (revolute z); j2 = -0.5 q3 + 0.3 along (1, 0.5, 0)/|.| under a 0.2 roll
  Model m = test::mimic_chain();
  ASSERT_EQ(m.coord_count, 2);
  double q0 = 0.4, q3 = -0.6;
  std::vector<Transform<double>> x = test::poses(m, {q0, q3});
  Transform<double> l1{{0, 0, 0.5}, quat_from_rpy(0.0, 0.0, q0)};
  EXPECT_TRUE(near_tf(x[0], l1, kPose));
  Transform<double> x_j1 = l1 * tf(1, 0, 0, 0, 0.3, 0) *
                           Transform<double>{{0, 0, 0}, quat_from_rpy(0.0, 0.0, 2 * q0 + 0.1)} *
                           inverse(tf(0.1, 0, 0));
  EXPECT_TRUE(near_tf(x[1], x_j1, kPose));
  double d = -0.5 * q3 + 0.3;
  Vec3<double> axis = (1.0 / std::sqrt(1.25)) * Vec3<double>{1, 0.5, 0};
  Transform<double> x_j2 =
      x_j1 * tf(1, 0, 0, 0.2, 0, 0) * Transform<double>{d * axis, {0, 0, 0, 1}};
  EXPECT_TRUE(near_tf(x[2], x_j2, kPose));
}

TEST(Fk, PandaChainKnownPoses) {
  Model m = test::panda_chain();
  int flange = m.find_body("panda_link8");
  // zero configuration, by hand: x = a4 + a5 + a7 = 0.0825 - 0.0825 + 0.088,
  // z = d1 + d3 + d5 - d_flange = 0.333 + 0.316 + 0.384 - 0.107, flange z axis down
  Transform<double> x = test::poses(m, std::vector<double>(7, 0.0))[flange];
  EXPECT_TRUE(near3(x.p, {0.088, 0, 0.926}, kPose));
  EXPECT_TRUE(near3(rotate(x.q, Vec3<double>{0, 0, 1}), {0, 0, -1}, kPose));
  // the "ready" pose of Franka's tools: flange at about (0.307, 0, 0.590)
  Transform<double> r =
      test::poses(m, {0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4})[flange];
  EXPECT_TRUE(near3(r.p, {0.307, 0, 0.590}, 1e-3));
  EXPECT_TRUE(near3(rotate(r.q, Vec3<double>{0, 0, 1}), {0, 0, -1}, kPose));
}

TEST(Fk, EveryModelMatchesEigenReference) {
  std::mt19937 rng(11);
  for (const auto& [name, m] : test::test_model_set()) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<double> q = random_configuration(m, rng);
      // unnormalised quaternions must be normalised by FK
      for (int j = 0; j < m.joint_count; ++j) {
        JointType t = JointType(m.joint_type[j]);
        int qs = m.joint_q_start[j] + (t == JointType::kFree ? 3 : 0);
        if (t == JointType::kBall || t == JointType::kFree)
          for (int k = 0; k < 4; ++k) q[qs + k] *= 1.7;
      }
      std::vector<Transform<double>> x = test::poses(m, q);
      std::vector<Eigen::Isometry3d> r = reference_fk(m, q);
      for (int b = 0; b < m.body_count; ++b)
        EXPECT_TRUE(matches_reference(x[b], r[b], kPose)) << name << " body " << m.body_name[b];
    }
  }
}

TEST(Fk, FkRowMatchesEvalFkAndFloatPath) {
  std::mt19937 rng(12);
  for (const auto& [name, m] : test::test_model_set()) {
    ModelArrays<float> mf(m);
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<double> q = random_configuration(m, rng);
      std::vector<Transform<double>> x(m.body_count, transform_identity<double>());
      fk_row(m.view(), q.data(), x.data());
      std::vector<Transform<double>> want = test::poses(m, q);
      // the same code, but inlined in two places the compiler may fuse multiply-adds
      // differently (FMA with -march=x86-64-v3): equal to rounding
      for (int b = 0; b < m.body_count; ++b)
        EXPECT_TRUE(near_tf(x[b], want[b], 1e-14)) << name << " " << m.body_name[b];
      if (name == "zoo_far" || name == "anchored_free") continue;  // too far for float metres
      std::vector<float> qf(q.begin(), q.end());
      std::vector<Transform<float>> xf(m.body_count, transform_identity<float>());
      fk_row(mf.view, qf.data(), xf.data());
      for (int b = 0; b < m.body_count; ++b)
        EXPECT_TRUE(near_tf(cast<double>(xf[b]), want[b], kFloat)) << name << " body " << b;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// velocities: body_qd = (v_com_world, omega_world)

TEST(FkVelocity, PlanarArmMatchesHandDerivative) {
  Model m = planar_arm();
  State s(m);
  std::vector<double> q = {0.3, -0.5, 0.9}, qd = {0.7, -1.1, 0.4};
  eval_fk(m, q, qd, s);
  double a1 = q[0], a12 = q[0] + q[1], a123 = a12 + q[2];
  double w1 = qd[0], w12 = qd[0] + qd[1], w123 = w12 + qd[2];
  auto v_at = [&](double r3) {
    return Vec3<double>{-std::sin(a1) * w1 - 0.8 * std::sin(a12) * w12 - r3 * std::sin(a123) * w123,
                        std::cos(a1) * w1 + 0.8 * std::cos(a12) * w12 + r3 * std::cos(a123) * w123,
                        0};
  };
  int l3 = m.find_body("link3"), tip = m.find_body("tip");
  EXPECT_TRUE(near3(s.body_qd[l3].lin, v_at(0.25), kPose));  // COM at 0.25 along link3
  EXPECT_TRUE(near3(s.body_qd[tip].lin, v_at(0.5), kPose));
  EXPECT_TRUE(near3(s.body_qd[l3].ang, {0, 0, w123}, kPose));
  EXPECT_TRUE(near3(s.body_qd[tip].ang, {0, 0, w123}, kPose));
  EXPECT_TRUE(near3(s.body_qd[m.find_body("base")].lin, {0, 0, 0}, 0));
  EXPECT_TRUE(near3(s.body_qd[m.find_body("link1")].lin,
                    {-0.5 * std::sin(a1) * w1, 0.5 * std::cos(a1) * w1, 0}, kPose));
}

TEST(FkVelocity, MatchesFiniteDifferencesForEveryJointType) {
  std::mt19937 rng(13);
  for (const auto& [name, m] : test::test_model_set()) {
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<double> q = random_configuration(m, rng);
      std::vector<double> qd = random_velocity(m, rng);
      State s(m);
      eval_fk(m, q, qd, s);
      for (int b = 0; b < m.body_count; ++b) {
        Spatial<double> fd = test::fd_point_twist(m, q, qd, b, m.body_com[b], kFdStep);
        EXPECT_TRUE(near3(s.body_qd[b].lin, fd.lin, kFd)) << name << " body " << m.body_name[b];
        EXPECT_TRUE(near3(s.body_qd[b].ang, fd.ang, kFd)) << name << " body " << m.body_name[b];
      }
    }
  }
}

TEST(FkVelocity, EachJointTypeAlone) {
  // one dof at a time, so a wrong column cannot hide behind others
  std::mt19937 rng(14);
  Model m = all_joint_types(true, {50.0, -40.0, 30.0});
  std::vector<double> q = random_configuration(m, rng);
  for (int d = 0; d < m.dof_count; ++d) {
    std::vector<double> qd(m.dof_count, 0.0);
    qd[d] = 1.3;
    State s(m);
    eval_fk(m, q, qd, s);
    for (int b = 0; b < m.body_count; ++b) {
      Spatial<double> fd = test::fd_point_twist(m, q, qd, b, m.body_com[b], kFdStep);
      EXPECT_TRUE(near3(s.body_qd[b].lin, fd.lin, kFd)) << "dof " << d << " body " << b;
      EXPECT_TRUE(near3(s.body_qd[b].ang, fd.ang, kFd)) << "dof " << d << " body " << b;
    }
  }
}

// Pose of joint j's child when its parent moves rigidly with the twist stored in `s` (COM
// velocity, world angular velocity) and the coordinates along qd, for time t; only j is
// re-evaluated.
// a joint_mask of joint j alone (branch_joint_mask would add the joints that mimic it)
std::vector<uint8_t> only_joint(const Model& m, int j) {
  std::vector<uint8_t> mask(m.joint_count, 0);
  mask[j] = 1;
  return mask;
}

Transform<double> child_pose_at(const Model& m, State s, int j, const std::vector<double>& q,
                                const std::vector<double>& qd, double t) {
  int p = m.joint_parent[j];
  if (p >= 0) {
    Vec3<double> com = transform_point(s.body_q[p], m.body_com[p]);
    Quat<double> r = quat_exp(t * s.body_qd[p].ang) * s.body_q[p].q;
    s.body_q[p] = {com + t * s.body_qd[p].lin - rotate(r, m.body_com[p]), r};
  }
  std::vector<uint8_t> jm = only_joint(m, j);
  FkOptions o;
  o.joint_mask = &jm;
  eval_fk(m, test::step(m, q, qd, t), {}, s, o);
  return s.body_q[m.joint_child[j]];
}

TEST(FkVelocity, ChildTwistFollowsArbitraryParentTwist) {
  // every joint, with parents in arbitrary poses and twists (as preserved by masks or filters)
  std::mt19937 rng(15);
  for (const auto& [name, m] : test::test_model_set()) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<double> q = random_configuration(m, rng);
      std::vector<double> qd = random_velocity(m, rng);
      State before = random_state(m, rng);
      for (int j = 0; j < m.joint_count; ++j) {
        State s = before;
        std::vector<uint8_t> jm = only_joint(m, j);
        FkOptions o;
        o.joint_mask = &jm;
        eval_fk(m, q, qd, s, o);
        int c = m.joint_child[j];
        Transform<double> xp = child_pose_at(m, before, j, q, qd, kFdStep);
        Transform<double> xm = child_pose_at(m, before, j, q, qd, -kFdStep);
        Vec3<double> v = (0.5 / kFdStep) *
                         (transform_point(xp, m.body_com[c]) - transform_point(xm, m.body_com[c]));
        Vec3<double> w = (0.5 / kFdStep) * test::rotation_delta(xp.q, xm.q);
        EXPECT_TRUE(near3(s.body_qd[c].lin, v, kFd)) << name << " joint " << m.joint_name[j];
        EXPECT_TRUE(near3(s.body_qd[c].ang, w, kFd)) << name << " joint " << m.joint_name[j];
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// integrate_row / difference_row: the (+) and (-) used by the finite differences above

// coordinates equal, quaternions up to sign
void expect_same_coordinates(const Model& m, const std::vector<double>& got,
                             const std::vector<double>& want, double tol, const std::string& what) {
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0) continue;
    int qs = m.joint_q_start[j];
    JointType t = JointType(m.joint_type[j]);
    int rot = t == JointType::kBall ? qs : (t == JointType::kFree ? qs + 3 : -1);
    int end = rot >= 0 ? rot : m.joint_q_start[j + 1];
    for (int k = qs; k < end; ++k)
      EXPECT_NEAR(got[k], want[k], tol) << what << " " << m.joint_name[j];
    if (rot >= 0) {
      Quat<double> a{got[rot], got[rot + 1], got[rot + 2], got[rot + 3]};
      Quat<double> b{want[rot], want[rot + 1], want[rot + 2], want[rot + 3]};
      EXPECT_TRUE(same_rotation(a, b, tol)) << what << " " << m.joint_name[j];
    }
  }
}

TEST(Integrate, DifferenceInvertsIntegrate) {
  std::mt19937 rng(19);
  for (const auto& [name, m] : test::test_model_set()) {
    ModelView<double> v = m.view();
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<double> a = random_configuration(m, rng), b = random_configuration(m, rng);
      // b (+) (a (-) b) = a, rotations up to the quaternion sign, a periodic joint's angle up to
      // a turn (wrapped back into a's (-pi, pi])
      std::vector<double> d(m.dof_count), back = b;
      difference_row(v, a.data(), b.data(), d.data());
      integrate_row(v, b.data(), d.data(), 1.0, back.data());
      wrap_row(v, back.data());
      expect_same_coordinates(m, back, a, kPose, name);
      // (b (+) dq) (-) b = dq for steps whose rotations stay below pi
      std::vector<double> dq = random_velocity(m, rng, 0.5), moved(m.coord_count);
      integrate_row(v, b.data(), dq.data(), 1.0, moved.data());
      difference_row(v, moved.data(), b.data(), d.data());
      for (int k = 0; k < m.dof_count; ++k) EXPECT_NEAR(d[k], dq[k], kPose) << name;
    }
  }
}

TEST(Integrate, DifferenceTakesAPeriodicJointsShortestTurn) {
  Model m = all_joint_types();
  ModelView<double> v = m.view();
  const int cont = m.find_joint("cont"), rev = m.find_joint("rev");
  const int qc = m.joint_q_start[cont], dc = m.joint_qd_start[cont];
  const int qr = m.joint_q_start[rev], dr = m.joint_qd_start[rev];
  std::vector<double> a = m.neutral_configuration(), b = a, d(m.dof_count), step(m.dof_count);
  auto difference = [&](double ac, double bc) {
    a[qc] = ac, b[qc] = bc;
    difference_row(v, a.data(), b.data(), d.data());
    return d[dc];
  };
  // 3.1 and -3.1 rad are 0.08 rad apart across pi, not 6.2 rad apart through 0
  EXPECT_NEAR(difference(3.1, -3.1), 6.2 - 2 * M_PI, kPose);
  EXPECT_NEAR(difference(-3.1, 3.1), 2 * M_PI - 6.2, kPose);
  // half a turn either way is +pi; a difference within it is the plain one, bit for bit
  EXPECT_EQ(difference(M_PI / 2, -M_PI / 2), M_PI);
  EXPECT_EQ(difference(-M_PI / 2, M_PI / 2), M_PI);
  EXPECT_EQ(difference(0.7, -1.1), 0.7 - -1.1);
  // angles many turns out (answers of old solves) the same
  EXPECT_NEAR(difference(7.48, -12.0), 19.48 - 6 * M_PI, kPose);
  // b (+) d lands on a up to whole turns
  std::vector<double> back = b;
  integrate_row(v, b.data(), d.data(), 1.0, back.data());
  EXPECT_NEAR(std::remainder(back[qc] - a[qc], 2 * M_PI), 0.0, kPose);
  // a limited revolute joint has no other way round
  a[qr] = 1.9, b[qr] = -1.9;
  difference_row(v, a.data(), b.data(), d.data());
  EXPECT_EQ(d[dr], 3.8);
  // the step that took b to a is the one taken, however long
  a[qc] = 3.1, b[qc] = -3.1;
  step_row(v, a.data(), b.data(), step.data());
  EXPECT_EQ(step[dc], 3.1 - -3.1);
  EXPECT_EQ(step[dr], 3.8);
}

// a planar joint's turn (its third coordinate) is periodic, its in-plane offsets are not (a
// mobile base turned past pi is pulled back the short way)
TEST(Integrate, APlanarJointsTurnTakesTheShortestWay) {
  Model m = all_joint_types();
  ModelView<double> v = m.view();
  const int planar = m.find_joint("planar");
  ASSERT_GE(planar, 0);
  const int qp = m.joint_q_start[planar], dp = m.joint_qd_start[planar];
  std::vector<double> a = m.neutral_configuration(), b = a, d(m.dof_count), step(m.dof_count);
  a[qp] = 3.1, a[qp + 1] = -3.1, a[qp + 2] = 3.1;
  b[qp] = -3.1, b[qp + 1] = 3.1, b[qp + 2] = -3.1;
  difference_row(v, a.data(), b.data(), d.data());
  EXPECT_EQ(d[dp], 6.2);
  EXPECT_EQ(d[dp + 1], -6.2);
  EXPECT_NEAR(d[dp + 2], 6.2 - 2 * M_PI, kPose);
  step_row(v, a.data(), b.data(), step.data());
  EXPECT_EQ(step[dp + 2], 6.2);
  // answers are handed back with the turn in (-pi, pi], the offsets as they are
  std::vector<double> q = a;
  q[qp] = q[qp + 2] = 7.0;
  wrap_row(v, q.data());
  EXPECT_EQ(q[qp], 7.0);
  EXPECT_NEAR(q[qp + 2], 7.0 - 2 * M_PI, kPose);
}

// tests/data/robots/turntable_arm.urdf: continuous joints, one followed by a mimic at -1 (still
// periodic), one by a mimic at half its angle (not)
std::shared_ptr<const Model> turntable_arm() {
  return load_urdf_file(IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf").model;
}

TEST(Integrate, ASourceOfAFractionalMimicIsNotPeriodic) {
  auto m = turntable_arm();
  const int turntable = m->find_joint("turntable"), spinner = m->find_joint("spinner");
  ASSERT_TRUE(m->joint_periodic[turntable]);
  ASSERT_FALSE(m->joint_periodic[spinner]);
  std::vector<double> a = m->neutral_configuration(), b = a, d(m->dof_count);
  a[m->joint_q_start[turntable]] = a[m->joint_q_start[spinner]] = 3.1;
  b[m->joint_q_start[turntable]] = b[m->joint_q_start[spinner]] = -3.1;
  difference_row(m->view(), a.data(), b.data(), d.data());
  EXPECT_NEAR(d[m->joint_qd_start[turntable]], 6.2 - 2 * M_PI, kPose);
  // the gear is a quarter turn from where it was at 3.1 - 2 pi: the long way is the only way
  EXPECT_EQ(d[m->joint_qd_start[spinner]], 3.1 - -3.1);
}

TEST(Integrate, WrappingKeepsThePoses) {
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> turns(-3, 3);
  auto arm = turntable_arm();
  std::vector<test::NamedModel> models = test::test_model_set();
  models.push_back({"turntable_arm", *arm});
  for (const auto& [name, m] : models) {
    ModelView<double> v = m.view();
    for (int trial = 0; trial < 10; ++trial) {
      // every continuous joint's and planar joint's angle some turns and a bit out of (-pi, pi]
      std::vector<double> q = random_configuration(m, rng);
      for (int j = 0; j < m.joint_count; ++j) {
        const JointType t = JointType(m.joint_type[j]);
        if (t == JointType::kContinuous && m.joint_mimic[j] < 0)
          q[m.joint_q_start[j]] += 2 * M_PI * turns(rng) + 0.5;
        if (t == JointType::kPlanar) q[m.joint_q_start[j] + 2] += 2 * M_PI * turns(rng) + 0.5;
      }
      std::vector<double> wrapped = q;
      wrap_row(v, wrapped.data());
      for (int j = 0; j < m.joint_count; ++j) {
        if (m.joint_mimic[j] >= 0) continue;
        for (int k = m.joint_q_start[j]; k < m.joint_q_start[j + 1]; ++k) {
          if (periodic_coord(v, j) == k) {
            EXPECT_TRUE(wrapped[k] > -M_PI && wrapped[k] <= M_PI) << name << " " << wrapped[k];
            EXPECT_NEAR(std::remainder(wrapped[k] - q[k], 2 * M_PI), 0.0, kPose) << name;
          } else {
            EXPECT_EQ(wrapped[k], q[k]) << name << " " << m.joint_name[j];
          }
        }
      }
      State s(m), sw(m);
      eval_fk(m, q, {}, s);
      eval_fk(m, wrapped, {}, sw);
      for (int b = 0; b < m.body_count; ++b)
        EXPECT_TRUE(near_tf(sw.body_q[b], s.body_q[b], kPose)) << name << " " << m.body_name[b];
    }
  }
}

TEST(Integrate, InPlaceKeepsQuaternionsUnitAndScalesTheStep) {
  std::mt19937 rng(20);
  Model m = all_joint_types();
  ModelView<double> v = m.view();
  std::vector<double> q = random_configuration(m, rng), dq = random_velocity(m, rng, 3.0);
  std::vector<double> half = q, twice = q;
  integrate_row(v, q.data(), dq.data(), 0.5, half.data());
  std::vector<double> dq2 = dq;
  for (double& x : dq2) x *= 0.5;
  integrate_row(v, q.data(), dq2.data(), 1.0, twice.data());
  expect_same_coordinates(m, half, twice, kPose, "scale");
  std::vector<double> in_place = q;
  for (int i = 0; i < 50; ++i) integrate_row(v, in_place.data(), dq.data(), 0.1, in_place.data());
  for (int j : {m.find_joint("root_free"), m.find_joint("ball")}) {
    int qs = m.joint_q_start[j] + (j == 0 ? 3 : 0);
    Quat<double> r{in_place[qs], in_place[qs + 1], in_place[qs + 2], in_place[qs + 3]};
    EXPECT_NEAR(quat_norm(r), 1.0, 1e-15);
  }
  // 1-dof joints add, free positions add in the parent frame
  int rev = m.joint_q_start[m.find_joint("rev")];
  EXPECT_NEAR(in_place[rev], q[rev] + 5.0 * dq[m.joint_qd_start[m.find_joint("rev")]], kPose);
  EXPECT_NEAR(in_place[1], q[1] + 5.0 * dq[1], kPose);
}

// ---------------------------------------------------------------------------------------------
// batched evaluation

// The rows are computed four at a time in the lanes of one vector (engine/core/lanes.hpp) and the
// rest one at a time: of eleven rows, 0-3 and 4-7 take the lanes and 8-10 the scalar path. Row 1
// has a joint angle of 1e6 rad, beyond the lanes' reduction, so that joint's sines and cosines in
// rows 0-3 come from the scalar code.
TEST(FkBatch, EqualsRowByRow) {
  std::mt19937 rng(16);
  for (const auto& [name, m] : test::test_model_set()) {
    const int n = 11;
    std::vector<double> q, qd;
    std::vector<Transform<double>> bq;
    std::vector<Spatial<double>> bqd;
    std::vector<State> rows;
    for (int r = 0; r < n; ++r) {
      std::vector<double> qr = random_configuration(m, rng), qdr = random_velocity(m, rng);
      q.insert(q.end(), qr.begin(), qr.end());
      qd.insert(qd.end(), qdr.begin(), qdr.end());
      rows.push_back(random_state(m, rng));
      bq.insert(bq.end(), rows.back().body_q.begin(), rows.back().body_q.end());
      bqd.insert(bqd.end(), rows.back().body_qd.begin(), rows.back().body_qd.end());
    }
    for (int j = 0; j < m.joint_count; ++j)
      if (JointType(m.joint_type[j]) == JointType::kRevolute) {
        q[m.coord_count + m.joint_q_start[j]] = 1e6;
        break;
      }
    // with a joint mask and a flag filter, so preserved values are compared as well
    std::vector<uint8_t> jm(m.joint_count, 1);
    jm[m.joint_count / 2] = 0;
    for (int variant = 0; variant < 2; ++variant) {
      FkOptions o;
      if (variant == 1) {
        o.joint_mask = &jm;
        o.body_flag_filter = kBodyDynamic;
      }
      std::vector<Transform<double>> bq2 = bq;
      std::vector<Spatial<double>> bqd2 = bqd;
      eval_fk_batch(m, n, q, qd, bq2, bqd2, o);
      for (int r = 0; r < n; ++r) {
        State s = rows[r];
        std::vector<double> qr(q.begin() + r * m.coord_count, q.begin() + (r + 1) * m.coord_count);
        std::vector<double> qdr(qd.begin() + r * m.dof_count, qd.begin() + (r + 1) * m.dof_count);
        eval_fk(m, qr, qdr, s, o);
        for (int b = 0; b < m.body_count; ++b) {
          EXPECT_TRUE(same_bytes(bq2[r * m.body_count + b], s.body_q[b])) << name << " row " << r;
          EXPECT_TRUE(same_bytes(bqd2[r * m.body_count + b], s.body_qd[b])) << name << " row " << r;
        }
      }
    }
    // poses only: body_qd may be empty
    std::vector<Transform<double>> bq3 = bq;
    std::vector<Spatial<double>> none;
    eval_fk_batch(m, n, q, {}, bq3, none);
    for (int r = 0; r < n; ++r) {
      std::vector<double> qr(q.begin() + r * m.coord_count, q.begin() + (r + 1) * m.coord_count);
      std::vector<Transform<double>> x = test::poses(m, qr);
      for (int b = 0; b < m.body_count; ++b)
        EXPECT_TRUE(same_bytes(bq3[r * m.body_count + b], x[b])) << name << " row " << r;
    }
  }
}

// A row that is not finite gives not-finite poses in its own row only: the rows sharing its
// vector keep their values
TEST(FkBatch, ANanRowLeavesTheRowsBesideIt) {
  std::mt19937 rng(17);
  const Model m = test::panda_chain();
  const int n = 4;
  std::vector<double> q;
  for (int r = 0; r < n; ++r) {
    std::vector<double> qr = random_configuration(m, rng);
    q.insert(q.end(), qr.begin(), qr.end());
  }
  q[2 * m.coord_count] = std::nan("");
  std::vector<Transform<double>> bq(std::size_t(n) * m.body_count, transform_identity<double>());
  std::vector<Spatial<double>> none;
  eval_fk_batch(m, n, q, {}, bq, none);
  for (int r = 0; r < n; ++r) {
    std::vector<double> qr(q.begin() + r * m.coord_count, q.begin() + (r + 1) * m.coord_count);
    std::vector<Transform<double>> x = test::poses(m, qr);
    const Transform<double>& tip = bq[std::size_t(r + 1) * m.body_count - 1];
    if (r == 2) {
      EXPECT_TRUE(std::isnan(tip.p.x));
      continue;
    }
    for (int b = 0; b < m.body_count; ++b)
      EXPECT_TRUE(same_bytes(bq[r * m.body_count + b], x[b])) << "row " << r;
  }
}

TEST(FkBatch, ZeroRowsAndSizeErrors) {
  Model m = all_joint_types();
  std::vector<Transform<double>> bq;
  std::vector<Spatial<double>> bqd;
  EXPECT_NO_THROW(eval_fk_batch(m, 0, {}, {}, bq, bqd));
  auto expect_error = [&](const char* fragment, auto&& call) {
    try {
      call();
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  std::vector<double> q2(2 * m.coord_count, 0.0), qd2(2 * m.dof_count, 0.0);
  std::vector<Transform<double>> bq2(2 * m.body_count);
  std::vector<Spatial<double>> bqd2(2 * m.body_count);
  expect_error("n_batch", [&] { eval_fk_batch(m, -1, q2, qd2, bq2, bqd2); });
  expect_error("joint_q", [&] { eval_fk_batch(m, 3, q2, qd2, bq2, bqd2); });
  std::vector<double> qd_bad(2 * m.dof_count + 1, 0.0);
  expect_error("joint_qd", [&] { eval_fk_batch(m, 2, q2, qd_bad, bq2, bqd2); });
  std::vector<Transform<double>> bq_bad(m.body_count);
  expect_error("body_q", [&] { eval_fk_batch(m, 2, q2, qd2, bq_bad, bqd2); });
  std::vector<Spatial<double>> bqd_bad(m.body_count);
  expect_error("body_qd", [&] { eval_fk_batch(m, 2, q2, qd2, bq2, bqd_bad); });
}

// ---------------------------------------------------------------------------------------------
// eval_ik: body state back to joint coordinates

TEST(EvalIk, RoundTripsCoordinatesAndVelocities) {
  std::mt19937 rng(17);
  for (const auto& [name, m] : test::test_model_set()) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<double> q = random_configuration(m, rng), qd = random_velocity(m, rng);
      State s(m);
      eval_fk(m, q, qd, s);
      // no previous values: angles unwrap near the middle of the limits (the Panda's joint 6
      // reaches 3.75 rad) or near 0 (unlimited joints, sampled in [-pi, pi])
      std::vector<double> q_back(m.coord_count, std::nan("")), qd_back;
      eval_ik(m, s, q_back, &qd_back);
      expect_same_coordinates(m, q_back, q, kPose, name);
      // previous values a few turns away: unwrapped back to them, but for a limited joint to
      // its value within the limits, and for a joint with a mimic that slides with it or turns
      // a fraction of a turn (mimic_chain's j3 moves the prismatic j2) to the one pose's value
      auto told_apart = [&](int j) {
        for (int jm = 0; jm < m.joint_count; ++jm)
          if (m.joint_mimic[jm] == j &&
              (JointType(m.joint_type[jm]) == JointType::kPrismatic ||
               m.joint_mimic_multiplier[jm] != std::nearbyint(m.joint_mimic_multiplier[jm])))
            return true;
        return false;
      };
      std::vector<double> q_prev = q;
      for (int j = 0; j < m.joint_count; ++j) {
        JointType t = JointType(m.joint_type[j]);
        bool angle = t == JointType::kRevolute || t == JointType::kContinuous;
        if (angle && m.joint_mimic[j] < 0) q_prev[m.joint_q_start[j]] += 4 * M_PI + 0.5;
      }
      eval_ik(m, s, q_prev);
      for (int j = 0; j < m.joint_count; ++j) {
        JointType t = JointType(m.joint_type[j]);
        bool angle = t == JointType::kRevolute || t == JointType::kContinuous;
        if (angle && m.joint_mimic[j] < 0) {
          int qs = m.joint_q_start[j];
          const double turns = m.has_limits(m.joint_qd_start[j]) || told_apart(j) ? 0.0 : 4 * M_PI;
          EXPECT_NEAR(q_prev[qs], q[qs] + turns, kPose) << name << " " << m.joint_name[j];
        }
      }
      ASSERT_EQ(int(qd_back.size()), m.dof_count);
      for (int d = 0; d < m.dof_count; ++d) EXPECT_NEAR(qd_back[d], qd[d], kIkVel) << name;
      // and FK of what came back reproduces the state
      State s2(m);
      eval_fk(m, q_back, qd_back, s2);
      for (int b = 0; b < m.body_count; ++b) {
        EXPECT_TRUE(near_tf(s2.body_q[b], s.body_q[b], kPose)) << name;
        EXPECT_TRUE(near3(s2.body_qd[b].lin, s.body_qd[b].lin, kIkVel)) << name;
        EXPECT_TRUE(near3(s2.body_qd[b].ang, s.body_qd[b].ang, kIkVel)) << name;
      }
    }
  }
}

TEST(EvalIk, QuaternionsComeBackUpToSign) {
  Model m = all_joint_types();
  std::vector<double> q = m.neutral_configuration();
  int ball = m.joint_q_start[m.find_joint("ball")];
  Quat<double> r = normalize(Quat<double>{0.3, -0.2, 0.1, -0.9});  // w < 0
  q[ball] = r.x, q[ball + 1] = r.y, q[ball + 2] = r.z, q[ball + 3] = r.w;
  State s(m);
  eval_fk(m, q, {}, s);
  std::vector<double> back = m.neutral_configuration();
  eval_ik(m, s, back);
  Quat<double> got{back[ball], back[ball + 1], back[ball + 2], back[ball + 3]};
  EXPECT_TRUE(same_rotation(got, r, kPose));
  EXPECT_NEAR(quat_norm(got), 1.0, kPose);
}

TEST(EvalIk, RevoluteAnglesUnwrapNearThePreviousValue) {
  Model m = all_joint_types();
  int cont = m.joint_q_start[m.find_joint("cont")];
  int rev = m.joint_q_start[m.find_joint("rev")];
  std::vector<double> q = m.neutral_configuration();
  q[cont] = 5.0;
  q[rev] = 1.9;
  State s(m);
  eval_fk(m, q, {}, s);
  auto recover = [&](double prev_cont, double prev_rev) {
    std::vector<double> back = m.neutral_configuration();
    back[cont] = prev_cont;
    back[rev] = prev_rev;
    eval_ik(m, s, back);
    return std::make_pair(back[cont], back[rev]);
  };
  EXPECT_NEAR(recover(4.8, 2.0).first, 5.0, kPose);
  EXPECT_NEAR(recover(0.0, 2.0).first, 5.0 - 2 * M_PI, kPose);
  EXPECT_NEAR(recover(17.0, 2.0).first, 5.0 + 4 * M_PI, kPose);
  EXPECT_NEAR(recover(0.0, 1.0).second, 1.9, kPose);
  // a limited joint takes the value within its limits ([-2, 2]) when there is one, however far
  // the previous value: 1.9 - 2 pi and 1.9 + 2 pi are outside
  EXPECT_NEAR(recover(0.0, 1.9 - 2 * M_PI).second, 1.9, kPose);
  EXPECT_NEAR(recover(0.0, 8.0).second, 1.9, kPose);
  q[rev] = -1.9;
  eval_fk(m, q, {}, s);
  EXPECT_NEAR(recover(0.0, 1.9).second, -1.9, kPose);  // 2 pi - 1.9 is nearer 1.9, and outside
  q[rev] = 1.9;

  // across the +-pi seam: the representative nearest the previous value
  q[cont] = M_PI - 1e-3;
  eval_fk(m, q, {}, s);
  EXPECT_NEAR(recover(3.1, 0.0).first, M_PI - 1e-3, kPose);
  EXPECT_NEAR(recover(-3.1, 0.0).first, -M_PI - 1e-3, kPose);
}

TEST(EvalIk, MimicsThatTurnAFractionOrSlideTellTheTurnsApart) {
  // j1 (continuous) drives b1 at half its angle and s1 by 0.1 m a radian: j1 + 2 pi is another
  // pose, so its own bodies cannot give its turn; the mimics' bodies do, whatever the previous
  // value. The limited r1 (range over a turn) drives b2 at a third of its angle.
  const std::shared_ptr<const Model> m = load_urdf_string(R"(<robot name="m">
    <link name="base"/><link name="a"/><link name="b"/><link name="c"/>
    <link name="d"/><link name="e"/>
    <joint name="j1" type="continuous"><parent link="base"/><child link="a"/>
      <axis xyz="0 0 1"/></joint>
    <joint name="b1" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/>
      <axis xyz="0 1 0"/><limit lower="-10" upper="10" effort="1" velocity="1"/>
      <mimic joint="j1" multiplier="0.5" offset="0.1"/></joint>
    <joint name="s1" type="prismatic"><parent link="a"/><child link="c"/><axis xyz="1 0 0"/>
      <limit lower="-10" upper="10" effort="1" velocity="1"/>
      <mimic joint="j1" multiplier="0.1"/></joint>
    <joint name="r1" type="revolute"><parent link="base"/><child link="d"/><axis xyz="1 0 0"/>
      <limit lower="-7" upper="7" effort="1" velocity="1"/></joint>
    <joint name="b2" type="revolute"><parent link="d"/><child link="e"/><origin xyz="0 1 0"/>
      <axis xyz="0 0 1"/><limit lower="-10" upper="10" effort="1" velocity="1"/>
      <mimic joint="r1" multiplier="0.3333333333333333"/></joint>
  </robot>)",
                                                          "mimic_turns.urdf", "")
                                             .model;
  const int j1 = m->joint_q_start[m->find_joint("j1")];
  const int r1 = m->joint_q_start[m->find_joint("r1")];
  for (double a : {4.0, -5.5, 0.3, 9.0}) {
    std::vector<double> q = m->neutral_configuration();
    q[j1] = a;
    q[r1] = std::clamp(-a, -7.0, 7.0);
    State s(*m);
    eval_fk(*m, q, {}, s);
    for (double prev : {std::nan(""), 0.0, a + 2 * M_PI, -20.0}) {
      std::vector<double> back(m->coord_count, prev);
      eval_ik(*m, s, back);
      EXPECT_NEAR(back[j1], q[j1], kPose) << "angle " << a << ", previous " << prev;
      EXPECT_NEAR(back[r1], q[r1], kPose) << "angle " << a << ", previous " << prev;
      State again(*m);
      eval_fk(*m, back, {}, again);
      for (int b = 0; b < m->body_count; ++b)
        EXPECT_TRUE(near_tf(again.body_q[b], s.body_q[b], kPose)) << m->body_name[b];
    }
  }
}

TEST(EvalIk, SignsOfBodyQuaternionsDoNotMatter) {
  // q and -q are the same pose; with no previous value (NaN) angles land in [-pi, pi]
  std::mt19937 rng(32);
  for (const auto& [name, m] : test::test_model_set()) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<double> q = random_configuration(m, rng);
      State s(m);
      eval_fk(m, q, {}, s);
      for (auto& x : s.body_q)
        if (rng() % 2) x.q = {-x.q.x, -x.q.y, -x.q.z, -x.q.w};
      std::vector<double> back(m.coord_count, std::nan(""));
      eval_ik(m, s, back);
      expect_same_coordinates(m, back, q, kPose, name);
    }
  }
}

TEST(EvalIk, RefreshesStaleCoordinatesBeforeABranchEdit) {
  // the workflow of the seed: eval_ik, edit one joint, masked FK of its branch
  std::mt19937 rng(18);
  Model m = all_joint_types();
  std::vector<double> q_true = random_configuration(m, rng), qd = random_velocity(m, rng);
  State s(m);
  eval_fk(m, q_true, qd, s);
  State before = s;
  std::vector<double> q = random_configuration(m, rng);  // stale
  eval_ik(m, s, q);
  // the same poses (a continuous joint's angle unwraps near the stale value, so it may differ
  // from q_true by whole turns)
  State refreshed(m);
  eval_fk(m, q, qd, refreshed);
  for (int b = 0; b < m.body_count; ++b)
    EXPECT_TRUE(near_tf(refreshed.body_q[b], s.body_q[b], kPose)) << "refresh " << m.body_name[b];
  int ball = m.find_joint("ball");
  int qs = m.joint_q_start[ball];
  Quat<double> r = normalize(quat_exp(Vec3<double>{0.2, 0.1, -0.3}) *
                             Quat<double>{q[qs], q[qs + 1], q[qs + 2], q[qs + 3]});
  q[qs] = r.x, q[qs + 1] = r.y, q[qs + 2] = r.z, q[qs + 3] = r.w;
  std::vector<uint8_t> jm = branch_joint_mask(m, ball, true);
  FkOptions o;
  o.joint_mask = &jm;
  eval_fk(m, q, qd, s, o);
  State full(m);
  eval_fk(m, q, qd, full);
  for (int b = 0; b < m.body_count; ++b) {
    bool in_branch = jm[m.body_joint[b]];
    const State& want = in_branch ? full : before;
    if (in_branch) {
      EXPECT_TRUE(near_tf(s.body_q[b], want.body_q[b], kPose)) << m.body_name[b];
      EXPECT_TRUE(near3(s.body_qd[b].lin, want.body_qd[b].lin, kPose)) << m.body_name[b];
    } else {
      EXPECT_TRUE(same_bytes(s.body_q[b], want.body_q[b])) << m.body_name[b];
      EXPECT_TRUE(same_bytes(s.body_qd[b], want.body_qd[b])) << m.body_name[b];
    }
  }
}

TEST(EvalIk, SizeErrors) {
  Model m = all_joint_types();
  State s(m);
  std::vector<double> q_bad(m.coord_count - 1, 0.0);
  EXPECT_THROW(eval_ik(m, s, q_bad), ModelError);
  std::vector<double> q = m.neutral_configuration();
  State wrong(planar_arm());
  try {
    eval_ik(m, wrong, q);
    ADD_FAILURE() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("body_q"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// eval_fk rules of the seed: articulation mask / indices, flag filter, joint mask

struct Scenario {
  Model m = two_robots();
  std::vector<double> q, qd;
  State full{m};    // FK of q, qd from scratch
  State before{m};  // arbitrary existing state
  explicit Scenario(unsigned seed) {
    std::mt19937 rng(seed);
    q = random_configuration(m, rng);
    qd = random_velocity(m, rng);
    eval_fk(m, q, qd, full);
    before = random_state(m, rng);
  }
  int body(const char* n) const { return m.find_body(n); }
  int joint(const char* n) const { return m.find_joint(n); }
};

// which bodies kept their previous bytes (pose and twist) and which equal `full` bit for bit
void expect_bodies(const Scenario& sc, const State& s, const std::vector<int>& preserved,
                   const std::vector<int>& updated) {
  for (int b : preserved) {
    EXPECT_TRUE(same_bytes(s.body_q[b], sc.before.body_q[b])) << sc.m.body_name[b];
    EXPECT_TRUE(same_bytes(s.body_qd[b], sc.before.body_qd[b])) << sc.m.body_name[b];
  }
  for (int b : updated) {
    EXPECT_TRUE(same_bytes(s.body_q[b], sc.full.body_q[b])) << sc.m.body_name[b];
    EXPECT_TRUE(same_bytes(s.body_qd[b], sc.full.body_qd[b])) << sc.m.body_name[b];
  }
}

const std::vector<int> kArm = {0, 1, 2, 3, 4};
const std::vector<int> kFloater = {5, 6, 7};

TEST(FkRules, ArticulationMask) {
  Scenario sc(21);
  ASSERT_EQ(sc.m.articulation_count, 2);
  ASSERT_EQ(sc.body("fl_root"), 5);
  std::vector<uint8_t> mask = {0, 1};
  FkOptions o;
  o.mask = &mask;
  State s = sc.before;
  eval_fk(sc.m, sc.q, sc.qd, s, o);
  expect_bodies(sc, s, kArm, kFloater);
  mask = {1, 0};
  s = sc.before;
  eval_fk(sc.m, sc.q, sc.qd, s, o);
  expect_bodies(sc, s, kFloater, kArm);
  mask = {0, 0};
  s = sc.before;
  eval_fk(sc.m, sc.q, sc.qd, s, o);
  expect_bodies(sc, s, {0, 1, 2, 3, 4, 5, 6, 7}, {});
}

TEST(FkRules, ArticulationIndices) {
  Scenario sc(22);
  std::vector<int> idx = {1};
  FkOptions o;
  o.indices = &idx;
  State s = sc.before;
  eval_fk(sc.m, sc.q, sc.qd, s, o);
  expect_bodies(sc, s, kArm, kFloater);
  idx = {0, 1, 1};
  s = sc.before;
  eval_fk(sc.m, sc.q, sc.qd, s, o);
  expect_bodies(sc, s, {}, {0, 1, 2, 3, 4, 5, 6, 7});
  idx = {};
  s = sc.before;
  eval_fk(sc.m, sc.q, sc.qd, s, o);
  expect_bodies(sc, s, {0, 1, 2, 3, 4, 5, 6, 7}, {});
}

TEST(FkRules, ArticulationsAreIndependentRobots) {
  // the combined model gives each robot exactly what its own model gives
  std::mt19937 rng(23);
  Model both = two_robots(), arm = two_robots(1), floater = two_robots(2);
  std::vector<double> qa = random_configuration(arm, rng), qf = random_configuration(floater, rng);
  std::vector<double> va = random_velocity(arm, rng), vf = random_velocity(floater, rng);
  std::vector<double> q = qa, qd = va;
  q.insert(q.end(), qf.begin(), qf.end());
  qd.insert(qd.end(), vf.begin(), vf.end());
  State s(both), sa(arm), sf(floater);
  eval_fk(both, q, qd, s);
  eval_fk(arm, qa, va, sa);
  eval_fk(floater, qf, vf, sf);
  for (int b = 0; b < arm.body_count; ++b) {
    EXPECT_TRUE(same_bytes(s.body_q[b], sa.body_q[b]));
    EXPECT_TRUE(same_bytes(s.body_qd[b], sa.body_qd[b]));
  }
  for (int b = 0; b < floater.body_count; ++b) {
    EXPECT_TRUE(same_bytes(s.body_q[arm.body_count + b], sf.body_q[b]));
    EXPECT_TRUE(same_bytes(s.body_qd[arm.body_count + b], sf.body_qd[b]));
  }
}

void expect_error_naming(const char* fragment, const std::function<void()>& call) {
  try {
    call();
    ADD_FAILURE() << "no error for " << fragment;
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(FkRules, ArgumentErrorsNameTheArgumentAndWriteNothing) {
  Scenario sc(24);
  const Model& m = sc.m;
  State s = sc.before;
  std::vector<uint8_t> mask = {1, 1};
  std::vector<int> idx = {0};
  FkOptions both;
  both.mask = &mask;
  both.indices = &idx;
  try {
    eval_fk(m, sc.q, sc.qd, s, both);
    ADD_FAILURE() << "mask and indices together must be an error";
  } catch (const ModelError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("mask"), std::string::npos) << msg;
    EXPECT_NE(msg.find("indices"), std::string::npos) << msg;
  }
  std::vector<uint8_t> short_mask = {1};
  FkOptions om;
  om.mask = &short_mask;
  expect_error_naming("mask (articulation_count)", [&] { eval_fk(m, sc.q, sc.qd, s, om); });
  std::vector<int> bad_idx = {2};
  FkOptions oi;
  oi.indices = &bad_idx;
  expect_error_naming("indices", [&] { eval_fk(m, sc.q, sc.qd, s, oi); });
  std::vector<uint8_t> short_jm(m.joint_count - 1, 1);
  FkOptions oj;
  oj.joint_mask = &short_jm;
  expect_error_naming("joint_mask (joint_count)", [&] { eval_fk(m, sc.q, sc.qd, s, oj); });
  std::vector<double> q_bad(m.coord_count + 1, 0.0), qd_bad(m.dof_count + 1, 0.0);
  expect_error_naming("joint_q (joint_coord_count)", [&] { eval_fk(m, q_bad, sc.qd, s); });
  expect_error_naming("joint_qd (joint_dof_count)", [&] { eval_fk(m, sc.q, qd_bad, s); });
  State wrong(planar_arm());
  expect_error_naming("body_q", [&] { eval_fk(m, sc.q, sc.qd, wrong); });
  State half = sc.before;
  half.body_qd.pop_back();
  expect_error_naming("body_qd", [&] { eval_fk(m, sc.q, sc.qd, half); });
  // nothing was written by the failed calls
  expect_bodies(sc, s, {0, 1, 2, 3, 4, 5, 6, 7}, {});
}

TEST(FkRules, EmptyJointQdLeavesVelocitiesAlone) {
  Scenario sc(25);
  State s = sc.before;
  eval_fk(sc.m, sc.q, {}, s);
  for (int b = 0; b < sc.m.body_count; ++b) {
    EXPECT_TRUE(same_bytes(s.body_q[b], sc.full.body_q[b]));
    EXPECT_TRUE(same_bytes(s.body_qd[b], sc.before.body_qd[b]));
  }
}

TEST(FkRules, FlagFilterPreservesNonMatchingBodiesWhichStillActAsParents) {
  Scenario sc(26);
  const Model& m = sc.m;
  int l1 = sc.body("arm_l1"), l2 = sc.body("arm_l2"), l3 = sc.body("arm_l3");
  int tool = sc.body("arm_tool");
  ASSERT_EQ(m.body_flags[l2], kBodyKinematic);

  // dynamic only: the kinematic l2 keeps its values, l3 and the tool hang off them
  FkOptions od;
  od.body_flag_filter = kBodyDynamic;
  State s = sc.before;
  eval_fk(m, sc.q, sc.qd, s, od);
  expect_bodies(sc, s, {l2}, {0, l1, 5, 6, 7});
  for (int b : {l3, tool}) {
    Transform<double> rel = inverse(s.body_q[l2]) * s.body_q[b];
    Transform<double> want = inverse(sc.full.body_q[l2]) * sc.full.body_q[b];
    EXPECT_TRUE(near_tf(rel, want, kPose)) << m.body_name[b];
  }
  // l3's twist is consistent with the preserved twist of l2
  int j3 = sc.joint("arm_j3");
  Transform<double> xp = child_pose_at(m, sc.before, j3, sc.q, sc.qd, kFdStep);
  Transform<double> xm = child_pose_at(m, sc.before, j3, sc.q, sc.qd, -kFdStep);
  EXPECT_TRUE(near3(s.body_qd[l3].ang, (0.5 / kFdStep) * test::rotation_delta(xp.q, xm.q), kFd));
  EXPECT_TRUE(near3(
      s.body_qd[l3].lin,
      (0.5 / kFdStep) * (transform_point(xp, m.body_com[l3]) - transform_point(xm, m.body_com[l3])),
      kFd));

  // kinematic only: just l2, computed from the preserved l1
  FkOptions ok;
  ok.body_flag_filter = kBodyKinematic;
  s = sc.before;
  eval_fk(m, sc.q, sc.qd, s, ok);
  expect_bodies(sc, s, {0, l1, l3, tool, 5, 6, 7}, {});
  Transform<double> rel = inverse(s.body_q[l1]) * s.body_q[l2];
  EXPECT_TRUE(near_tf(rel, inverse(sc.full.body_q[l1]) * sc.full.body_q[l2], kPose));

  // no flags: nothing
  FkOptions on;
  on.body_flag_filter = 0;
  s = sc.before;
  eval_fk(m, sc.q, sc.qd, s, on);
  expect_bodies(sc, s, {0, 1, 2, 3, 4, 5, 6, 7}, {});
}

TEST(FkRules, JointMaskLeavesUnselectedChildrenBitForBit) {
  Scenario sc(27);
  const Model& m = sc.m;
  int j2 = sc.joint("arm_j2");
  int l2 = sc.body("arm_l2");
  // start from the full FK of q, then change every coordinate and update j2 only
  std::mt19937 rng(99);
  std::vector<double> q1 = random_configuration(m, rng), qd1 = random_velocity(m, rng);
  std::vector<uint8_t> jm(m.joint_count, 0);
  jm[j2] = 1;
  FkOptions o;
  o.joint_mask = &jm;
  State s = sc.full;
  eval_fk(m, q1, qd1, s, o);
  // expected: full FK of q with only j2's coordinate (and dof) taken from q1
  std::vector<double> q_mix = sc.q, qd_mix = sc.qd;
  q_mix[m.joint_q_start[j2]] = q1[m.joint_q_start[j2]];
  qd_mix[m.joint_qd_start[j2]] = qd1[m.joint_qd_start[j2]];
  State mix(m);
  eval_fk(m, q_mix, qd_mix, mix);
  for (int b = 0; b < m.body_count; ++b) {
    const State& want = b == l2 ? mix : sc.full;
    EXPECT_TRUE(same_bytes(s.body_q[b], want.body_q[b])) << m.body_name[b];
    EXPECT_TRUE(same_bytes(s.body_qd[b], want.body_qd[b])) << m.body_name[b];
  }
  // l2 did move; l3 and the tool (not selected) are now stale on purpose
  EXPECT_FALSE(same_bytes(s.body_q[l2], sc.full.body_q[l2]));
}

TEST(FkRules, SelectedJointsUseTheParentsCurrentState) {
  Scenario sc(28);
  const Model& m = sc.m;
  int fix = sc.joint("arm_fix"), j1 = sc.joint("arm_j1"), j3 = sc.joint("arm_j3");
  int tool_fix = sc.joint("arm_tool_fix");
  int l1 = sc.body("arm_l1"), l2 = sc.body("arm_l2"), l3 = sc.body("arm_l3");
  int tool = sc.body("arm_tool");
  // all but j2 selected: base and l1 updated, l2 preserved, l3 computed from the preserved l2,
  // and the tool from the freshly updated l3
  std::vector<uint8_t> jm(m.joint_count, 0);
  jm[fix] = jm[j1] = jm[j3] = jm[tool_fix] = 1;
  FkOptions o;
  o.joint_mask = &jm;
  State s = sc.before;
  eval_fk(m, sc.q, sc.qd, s, o);
  expect_bodies(sc, s, {l2, 5, 6, 7}, {0, l1});
  EXPECT_TRUE(near_tf(inverse(s.body_q[l2]) * s.body_q[l3],
                      inverse(sc.full.body_q[l2]) * sc.full.body_q[l3], kPose));
  EXPECT_TRUE(near_tf(inverse(s.body_q[l3]) * s.body_q[tool],
                      inverse(sc.full.body_q[l3]) * sc.full.body_q[tool], kPose));
  // the tool's twist follows l3's new twist rigidly (fixed joint)
  Vec3<double> com3 = transform_point(s.body_q[l3], m.body_com[l3]);
  Vec3<double> com_t = transform_point(s.body_q[tool], m.body_com[tool]);
  EXPECT_TRUE(near3(s.body_qd[tool].ang, s.body_qd[l3].ang, kPose));
  EXPECT_TRUE(near3(s.body_qd[tool].lin, s.body_qd[l3].lin + cross(s.body_qd[l3].ang, com_t - com3),
                    kPose));
}

TEST(FkRules, JointMaskIntersectsArticulationFilterAndFlags) {
  Scenario sc(29);
  const Model& m = sc.m;
  int l3 = sc.body("arm_l3"), c1 = sc.body("fl_c1");
  std::vector<uint8_t> jm(m.joint_count, 0);
  jm[sc.joint("arm_j2")] = jm[sc.joint("arm_j3")] = jm[sc.joint("fl_rev")] = 1;

  // with the arm masked out only the floater's revolute updates
  std::vector<uint8_t> mask = {0, 1};
  FkOptions o1;
  o1.joint_mask = &jm;
  o1.mask = &mask;
  State s = sc.before;
  eval_fk(m, sc.q, sc.qd, s, o1);
  expect_bodies(sc, s, {0, 1, 2, 3, 4, 5, 7}, {});
  EXPECT_TRUE(near_tf(inverse(s.body_q[5]) * s.body_q[c1],
                      inverse(sc.full.body_q[5]) * sc.full.body_q[c1], kPose));

  // with indices {0}: the floater's selected joint is out, the arm's are in
  std::vector<int> idx = {0};
  FkOptions o2;
  o2.joint_mask = &jm;
  o2.indices = &idx;
  s = sc.before;
  eval_fk(m, sc.q, sc.qd, s, o2);
  expect_bodies(sc, s, {0, 1, 4, 5, 6, 7}, {});
  EXPECT_FALSE(same_bytes(s.body_q[l3], sc.before.body_q[l3]));

  // with the dynamic filter the kinematic child of j2 is skipped, j3 still runs
  FkOptions o3;
  o3.joint_mask = &jm;
  o3.body_flag_filter = kBodyDynamic;
  s = sc.before;
  eval_fk(m, sc.q, sc.qd, s, o3);
  expect_bodies(sc, s, {0, 1, 2, 4, 5, 7}, {});
  EXPECT_TRUE(near_tf(inverse(s.body_q[2]) * s.body_q[l3],
                      inverse(sc.full.body_q[2]) * sc.full.body_q[l3], kPose));
}

TEST(FkRules, BranchEditWithAndWithoutDescendants) {
  std::mt19937 rng(30);
  Model m = all_joint_types();
  std::vector<double> q = random_configuration(m, rng), qd = random_velocity(m, rng);
  State s0(m);
  eval_fk(m, q, qd, s0);
  int pris = m.find_joint("pris");
  std::vector<double> q1 = q;
  q1[m.joint_q_start[pris]] += 0.1;
  State full(m);
  eval_fk(m, q1, qd, full);
  for (bool with : {true, false}) {
    std::vector<uint8_t> jm = branch_joint_mask(m, pris, with);
    FkOptions o;
    o.joint_mask = &jm;
    State s = s0;
    eval_fk(m, q1, qd, s, o);
    for (int b = 0; b < m.body_count; ++b) {
      // the selected bodies see unchanged parents, so they match full FK bit for bit
      const State& want = jm[m.body_joint[b]] ? full : s0;
      EXPECT_TRUE(same_bytes(s.body_q[b], want.body_q[b])) << m.body_name[b] << " " << with;
      EXPECT_TRUE(same_bytes(s.body_qd[b], want.body_qd[b])) << m.body_name[b] << " " << with;
    }
  }
}

TEST(FkRules, BodiesWithoutAJointAreLeftAlone) {
  ModelBuilder b;
  int a = b.add_body("a");
  b.add_body("loose");
  b.add_joint({"j", JointType::kRevolute, -1, a});
  Model m = b.finalize();
  std::mt19937 rng(31);
  State s = random_state(m, rng);
  State before = s;
  eval_fk(m, {0.3}, {1.0}, s);
  EXPECT_TRUE(same_bytes(s.body_q[1], before.body_q[1]));
  EXPECT_TRUE(same_bytes(s.body_qd[1], before.body_qd[1]));
  EXPECT_FALSE(same_bytes(s.body_q[0], before.body_q[0]));
}

TEST(Branch, JointDescendants) {
  Model m = all_joint_types();
  // tree: free(0) -> rev(1) -> pris(2) -> ball(3) -> cont(4) -> fixed_mid(5) -> mimic(7)
  //                                   -> planar(8)
  //                         -> branch(6)
  EXPECT_EQ(joint_descendants(m, 0), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(joint_descendants(m, 1), (std::vector<int>{2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(joint_descendants(m, 2), (std::vector<int>{3, 4, 5, 7, 8}));
  EXPECT_EQ(joint_descendants(m, 3), (std::vector<int>{4, 5, 7}));
  EXPECT_EQ(joint_descendants(m, 5), (std::vector<int>{7}));
  // the mimic joint follows "branch" through its coordinate, not the tree
  EXPECT_EQ(joint_descendants(m, 6), (std::vector<int>{}));
  EXPECT_EQ(joint_descendants(m, 7), (std::vector<int>{}));
  EXPECT_EQ(joint_descendants(m, 8), (std::vector<int>{}));
  EXPECT_THROW(joint_descendants(m, 9), ModelError);
  EXPECT_THROW(joint_descendants(m, -1), ModelError);

  Model two = two_robots();
  EXPECT_EQ(joint_descendants(two, two.find_joint("arm_j1")), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(joint_descendants(two, two.find_joint("fl_free")), (std::vector<int>{6, 7}));
}

TEST(Branch, BranchJointMask) {
  Model m = all_joint_types();
  EXPECT_EQ(branch_joint_mask(m, 3, true), (std::vector<uint8_t>{0, 0, 0, 1, 1, 1, 0, 1, 0}));
  EXPECT_EQ(branch_joint_mask(m, 3, false), (std::vector<uint8_t>{0, 0, 0, 1, 0, 0, 0, 0, 0}));
  // the mimic joint (7) moves with "branch" (6): it joins its mask
  EXPECT_EQ(branch_joint_mask(m, 6, true), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(branch_joint_mask(m, 6, false), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 1, 1, 0}));
  EXPECT_THROW(branch_joint_mask(m, 9, true), ModelError);
}

// a floating root placed turned a quarter turn about x (--floating-base: its free joint's
// coordinates are relative to that placement): the body below it (0.5 m along the
// root's -y, so 0.5 m below it in the world) reaches under the ground at the neutral
// configuration; standing lifts the root along the world's z (through its turned frame) until
// the lowest sphere touches z = 0, and leaves x and y alone
TEST(StandingConfiguration, LiftsAFloatingRootAlongTheWorldZ) {
  test::TempDir dir;
  const std::string path = dir.write("floating.xml", R"(<mujoco model="t"><worldbody>
  <body name="base" pos="0.5 0.2 0" quat="0.7071067811865476 0.7071067811865476 0 0">
    <geom type="sphere" size="0.1"/>
    <body name="leg" pos="0 -0.5 0">
      <joint name="knee" type="hinge" axis="1 0 0" range="-1 1"/>
      <geom type="sphere" size="0.05"/>
    </body>
  </body>
</worldbody></mujoco>)");
  UrdfOptions floating;
  floating.floating_base = true;  // the root's coordinates: its pose relative to the file's
  const std::shared_ptr<const Model> model = load_mjcf_file(path, floating).model;
  const Model& m = *model;
  State s(m);
  eval_fk(m, m.neutral_configuration(), {}, s);
  const int base = m.find_body("base"), leg = m.find_body("leg");
  ASSERT_NEAR(s.body_q[leg].p.z, -0.5, 1e-12);
  eval_fk(m, standing_configuration(m), {}, s);
  EXPECT_NEAR(s.body_q[leg].p.z, 0.05, 1e-9);  // the leg's sphere (radius 0.05) on the ground
  EXPECT_NEAR(s.body_q[base].p.z, 0.55, 1e-9);
  EXPECT_NEAR(s.body_q[base].p.x, 0.5, 1e-12);
  EXPECT_NEAR(s.body_q[base].p.y, 0.2, 1e-12);
  // a URDF's own floating joint below a fixed `world` link floats from the world too (the H1's
  // legs stood through the grid): lifted the same way
  const std::shared_ptr<const Model> h1 = load_urdf_string(R"(<robot name="h">
  <link name="world"/>
  <link name="pelvis"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  <link name="foot"><collision><geometry><sphere radius="0.05"/></geometry></collision></link>
  <joint name="float" type="floating"><parent link="world"/><child link="pelvis"/></joint>
  <joint name="leg" type="fixed"><parent link="pelvis"/><child link="foot"/>
    <origin xyz="0 0 -0.9"/></joint>
</robot>)",
                                                           "h.urdf", "")
                                              .model;
  State hs(*h1);
  eval_fk(*h1, standing_configuration(*h1), {}, hs);
  EXPECT_NEAR(hs.body_q[h1->find_body("foot")].p.z, 0.05, 1e-9);
  EXPECT_NEAR(hs.body_q[h1->find_body("pelvis")].p.z, 0.95, 1e-9);
  // a box sole stands on its face: the capsule fitted to the box (a radius of its section's
  // half-diagonal) reaches 2 cm below it, and the robot floated that high above the grid; a
  // tilted cylinder stands on its lower rim
  auto pelvis_height = [&](const std::string& shape) {
    const std::shared_ptr<const Model> r = load_urdf_string(R"(<robot name="b">
  <link name="pelvis"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  <link name="foot"><collision>)" + shape + R"(</collision></link>
  <joint name="leg" type="fixed"><parent link="pelvis"/><child link="foot"/>
    <origin xyz="0 0 -0.9"/></joint>
</robot>)",
                                                            "b.urdf", "", floating)
                                               .model;
    State rs(*r);
    eval_fk(*r, standing_configuration(*r), {}, rs);
    return rs.body_q[r->find_body("pelvis")].p.z;
  };
  EXPECT_NEAR(pelvis_height(R"(<origin xyz="0.035 0 -0.03"/>
    <geometry><box size="0.24 0.088 0.064"/></geometry>)"),
              0.9 + 0.03 + 0.032, 1e-9);
  EXPECT_NEAR(pelvis_height(R"(<origin xyz="0.3 0 -0.03" rpy="0.5 0 0"/>
    <geometry><cylinder radius="0.05" length="0.2"/></geometry>)"),
              0.9 + 0.03 + 0.1 * std::cos(0.5) + 0.05 * std::sin(0.5), 1e-9);
  // a fixed-base robot opens at its neutral configuration
  const std::shared_ptr<const Model> arm =
      load_urdf_file(IKWB_SOURCE_DIR "/assets/robots/panda/panda.urdf").model;
  EXPECT_EQ(standing_configuration(*arm), arm->neutral_configuration());
}

}  // namespace
}  // namespace ikwb
