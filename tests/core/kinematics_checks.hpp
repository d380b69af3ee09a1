// Checks shared by the core kinematics tests: comparisons with readable failure messages,
// random states, and central finite differences along q(t) = q (+) t * dq (integrate_row).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/panda_chain.hpp"
#include "core/test_models.hpp"
#include "engine/core/fk.hpp"

namespace ikwb::test {

inline std::string str(const Vec3<double>& a) {
  std::ostringstream s;
  s.precision(17);
  s << "(" << a.x << ", " << a.y << ", " << a.z << ")";
  return s.str();
}

inline ::testing::AssertionResult near3(const Vec3<double>& a, const Vec3<double>& b, double tol) {
  double err = length(a - b);
  if (err <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << str(a) << " vs " << str(b) << ": error " << err << " > " << tol;
}

// world-frame rotation taking b to a: log(a * b^-1)
inline Vec3<double> rotation_delta(const Quat<double>& a, const Quat<double>& b) {
  return quat_log(normalize(a) * conjugate(normalize(b)));
}

// poses compared by position and by the angle of the relative rotation
inline ::testing::AssertionResult near_tf(const Transform<double>& a, const Transform<double>& b,
                                          double tol) {
  double dp = length(a.p - b.p);
  double dr = length(rotation_delta(a.q, b.q));
  if (dp <= tol && dr <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "p " << str(a.p) << " vs " << str(b.p) << " (error " << dp
                                       << "), rotation error " << dr << " > " << tol;
}

// quaternions equal up to sign
inline ::testing::AssertionResult same_rotation(const Quat<double>& a, const Quat<double>& b,
                                                double tol) {
  double d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  double s = d < 0 ? -1.0 : 1.0;
  double err =
      std::sqrt(sqr(a.x - s * b.x) + sqr(a.y - s * b.y) + sqr(a.z - s * b.z) + sqr(a.w - s * b.w));
  if (err <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "quaternions differ by " << err << " > " << tol;
}

template <class A>
bool same_bytes(const A& a, const A& b) {
  return std::memcmp(&a, &b, sizeof(A)) == 0;
}

inline std::vector<double> random_velocity(const Model& m, std::mt19937& rng, double scale = 1) {
  std::normal_distribution<double> n(0.0, scale);
  std::vector<double> qd(m.dof_count);
  for (double& v : qd) v = n(rng);
  return qd;
}

inline Transform<double> random_transform(std::mt19937& rng, double spread = 2.0) {
  std::uniform_real_distribution<double> u(-spread, spread);
  std::normal_distribution<double> n(0.0, 1.0);
  return {{u(rng), u(rng), u(rng)}, normalize(Quat<double>{n(rng), n(rng), n(rng), n(rng)})};
}

// a state with recognisable arbitrary values, to see what eval_fk leaves alone
inline State random_state(const Model& m, std::mt19937& rng) {
  State s(m);
  std::normal_distribution<double> n(0.0, 1.0);
  for (auto& x : s.body_q) x = random_transform(rng);
  for (auto& t : s.body_qd) t = {{n(rng), n(rng), n(rng)}, {n(rng), n(rng), n(rng)}};
  return s;
}

// q (+) t * dq
inline std::vector<double> step(const Model& m, const std::vector<double>& q,
                                const std::vector<double>& dq, double t) {
  std::vector<double> out = q;
  integrate_row(m.view(), q.data(), dq.data(), t, out.data());
  return out;
}

inline std::vector<Transform<double>> poses(const Model& m, const std::vector<double>& q) {
  State s(m);
  eval_fk(m, q, {}, s);
  return s.body_q;
}

// Central differences of the point `offset` of `body` (body frame) along q (+) t * dq:
// its world linear velocity and the body's world angular velocity.
inline Spatial<double> fd_point_twist(const Model& m, const std::vector<double>& q,
                                      const std::vector<double>& dq, int body,
                                      const Vec3<double>& offset, double h) {
  Transform<double> xp = poses(m, step(m, q, dq, h))[body];
  Transform<double> xm = poses(m, step(m, q, dq, -h))[body];
  Vec3<double> lin = (1.0 / (2 * h)) * (transform_point(xp, offset) - transform_point(xm, offset));
  Vec3<double> ang = (1.0 / (2 * h)) * rotation_delta(xp.q, xm.q);
  return {lin, ang};
}

// Mimic joints that follow an ancestor (their Jacobian columns add up with the source's) and a
// joint further down the chain.
inline Model mimic_chain() {
  ModelBuilder b;
  b.model().name = "mimic_chain";
  int l1 = b.add_body("l1", 1.0, {0.3, 0.0, 0.0});
  int l2 = b.add_body("l2", 1.0, {0.2, 0.1, 0.0});
  int l3 = b.add_body("l3", 1.0, {0.0, 0.0, 0.2});
  int l4 = b.add_body("l4", 1.0, {0.1, 0.1, 0.1});
  JointSpec j0{"j0", JointType::kRevolute, -1, l1, tf(0, 0, 0.5)};
  j0.axis = {0, 0, 1};
  b.add_joint(j0);
  JointSpec j1{"j1", JointType::kRevolute, l1, l2, tf(1, 0, 0, 0, 0.3, 0), tf(0.1, 0, 0)};
  j1.axis = {0, 0, 1};
  j1.mimic = 0, j1.mimic_multiplier = 2.0, j1.mimic_offset = 0.1;
  b.add_joint(j1);
  JointSpec j2{"j2", JointType::kPrismatic, l2, l3, tf(1, 0, 0, 0.2, 0, 0)};
  j2.axis = {1, 0.5, 0};
  j2.mimic = 3, j2.mimic_multiplier = -0.5, j2.mimic_offset = 0.3;
  b.add_joint(j2);
  JointSpec j3{"j3", JointType::kRevolute, l3, l4, tf(0.5, 0, 0)};
  j3.axis = {0, 1, 0};
  b.add_joint(j3);
  return b.finalize();
}

// A free body far from the origin whose joint frames sit off its origin (rpy parent frame,
// child anchor, COM offset), with a revolute child that has its own anchor, and below that a
// second free joint (a floating tool on a moving parent).
inline Model anchored_free() {
  ModelBuilder b;
  b.model().name = "anchored_free";
  int root = b.add_body("root", 2.0, {0.3, -0.2, 0.1});
  int arm = b.add_body("arm", 1.0, {0.1, 0.1, 0.1});
  int tool = b.add_body("tool", 0.3, {0.02, -0.05, 0.1});
  b.add_joint({"free", JointType::kFree, -1, root, tf(40, -25, 12, 0.4, -0.3, 1.2),
               tf(0.2, 0.1, -0.3, 0.5, 0.2, -0.1)});
  JointSpec j{"hinge", JointType::kRevolute,       root,
              arm,     tf(0.5, 0, 0.1, 0, 0.3, 0), tf(0, 0.1, 0, 0.2, 0, 0)};
  j.axis = {0, 0.6, 0.8};
  b.add_joint(j);
  b.add_joint({"tool_free", JointType::kFree, arm, tool, tf(0.3, -0.1, 0.2, -0.3, 0.5, 0.1),
               tf(0.05, 0, -0.1, 0, 0, 0.7)});
  return b.finalize();
}

// Two robots in one model. Articulation "arm": fixed base, revolute z, revolute y, prismatic,
// fixed tool; its second link is kinematic. Articulation "floater": a free root with a revolute
// and a ball child. part: 0 both, 1 the arm only, 2 the floater only.
inline Model two_robots(int part = 0) {
  ModelBuilder b;
  b.model().name = "pair";
  const std::array<double, 9> eye = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (part != 2) {
    b.begin_articulation("arm");
    int base = b.add_body("arm_base");
    int l1 = b.add_body("arm_l1", 1.0, {0.2, 0, 0});
    int l2 = b.add_body("arm_l2", 1.0, {0.1, 0.05, 0}, eye, kBodyKinematic);
    int l3 = b.add_body("arm_l3", 1.0, {0, 0, 0.1});
    int tool = b.add_body("arm_tool", 0.1, {0, 0, 0.02});
    b.add_joint({"arm_fix", JointType::kFixed, -1, base, tf(0, 0, 0.1)});
    JointSpec j1{"arm_j1", JointType::kRevolute, base, l1, tf(0, 0, 0.2)};
    j1.axis = {0, 0, 1};
    b.add_joint(j1);
    JointSpec j2{"arm_j2", JointType::kRevolute, l1, l2, tf(0.5, 0, 0, 0.3, 0, 0)};
    j2.axis = {0, 1, 0};
    b.add_joint(j2);
    JointSpec j3{"arm_j3", JointType::kPrismatic, l2,
                 l3,       tf(0.4, 0, 0),         tf(0, 0, -0.1, 0.2, 0, 0.3)};
    j3.axis = {1, 0.2, 0};
    b.add_joint(j3);
    b.add_joint({"arm_tool_fix", JointType::kFixed, l3, tool, tf(0, 0, 0.3)});
  }
  if (part != 1) {
    b.begin_articulation("floater");
    int root = b.add_body("fl_root", 1.0, {0.1, 0, 0});
    int c1 = b.add_body("fl_c1", 0.5, {0, 0.1, 0});
    int c2 = b.add_body("fl_c2", 0.5, {0, 0, 0.1});
    b.add_joint({"fl_free", JointType::kFree, -1, root, tf(2, 1, 0.5)});
    JointSpec r{"fl_rev", JointType::kRevolute, root, c1, tf(0.3, 0, 0)};
    r.lower = -2, r.upper = 2;
    b.add_joint(r);
    b.add_joint({"fl_ball", JointType::kBall, c1, c2, tf(0, 0.2, 0), tf(0, 0, -0.1)});
  }
  return b.finalize();
}

struct NamedModel {
  std::string name;
  Model model;
};

// every test model, covering all joint types, mimics, anchors and far floating bases
inline std::vector<NamedModel> test_model_set() {
  std::vector<NamedModel> out;
  out.push_back({"planar_arm", planar_arm()});
  out.push_back({"zoo", all_joint_types()});
  out.push_back({"zoo_far", all_joint_types(true, {50.0, -40.0, 30.0})});
  out.push_back({"zoo_fixed", all_joint_types(false)});
  out.push_back({"mimic_chain", mimic_chain()});
  out.push_back({"anchored_free", anchored_free()});
  out.push_back({"two_robots", two_robots()});
  out.push_back({"panda_chain", panda_chain()});
  return out;
}

}  // namespace ikwb::test
