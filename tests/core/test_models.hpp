// Small models built in code, shared by the core and solver tests.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "engine/core/model.hpp"

namespace ikwb::test {

inline Transform<double> tf(double x, double y, double z, double roll = 0, double pitch = 0,
                            double yaw = 0) {
  return {{x, y, z}, quat_from_rpy(roll, pitch, yaw)};
}

// planar 3-link arm: three revolute z joints, links of length 1, 0.8, 0.5 along x, and a tip
inline Model planar_arm() {
  ModelBuilder b;
  b.model().name = "planar3";
  int base = b.add_body("base");
  int l1 = b.add_body("link1", 1.0, {0.5, 0, 0});
  int l2 = b.add_body("link2", 1.0, {0.4, 0, 0});
  int l3 = b.add_body("link3", 1.0, {0.25, 0, 0});
  int tip = b.add_body("tip", 0.1);
  b.add_joint({"base_joint", JointType::kFixed, -1, base});
  JointSpec j1{"j1", JointType::kRevolute, base, l1, tf(0, 0, 0.1)};
  j1.axis = {0, 0, 1};
  j1.lower = -2.8, j1.upper = 2.8;
  b.add_joint(j1);
  JointSpec j2{"j2", JointType::kRevolute, l1, l2, tf(1, 0, 0)};
  j2.axis = {0, 0, 1};
  j2.lower = -2.8, j2.upper = 2.8;
  b.add_joint(j2);
  JointSpec j3{"j3", JointType::kRevolute, l2, l3, tf(0.8, 0, 0)};
  j3.axis = {0, 0, 1};
  j3.lower = -2.8, j3.upper = 2.8;
  b.add_joint(j3);
  b.add_joint({"tip_joint", JointType::kFixed, l3, tip, tf(0.5, 0, 0)});
  return b.finalize();
}

// every joint type on one branching tree, with off-axis axes, rpy origins and child anchors;
// the planar joint's normal is off-axis too;
// the root is a free joint placed far from the origin
inline Model all_joint_types(bool floating = true, Vec3<double> base = {3.0, -2.0, 1.5},
                             bool planar = true) {
  ModelBuilder b;
  b.model().name = "zoo";
  int root = b.add_body("root", 2.0, {0.05, -0.02, 0.1});
  int a = b.add_body("a", 1.0, {0.1, 0.0, 0.02});
  int bb = b.add_body("b", 1.0, {0.0, 0.1, 0.0});
  int c = b.add_body("c", 0.5, {0.02, 0.03, 0.2});
  int d = b.add_body("d", 0.5, {0.0, 0.0, 0.1});
  int e = b.add_body("e", 0.3, {0.1, 0.1, 0.0});
  int f = b.add_body("f", 0.2, {0.0, 0.05, 0.05});
  int g = b.add_body("g", 0.2, {0.01, 0.0, 0.0});
  if (floating) {
    b.add_joint({"root_free", JointType::kFree, -1, root, tf(base.x, base.y, base.z, 0.1, 0, 0)});
  } else {
    b.add_joint({"root_fixed", JointType::kFixed, -1, root, tf(base.x, base.y, base.z)});
  }
  JointSpec ja{"rev",
               JointType::kRevolute,
               root,
               a,
               tf(0.2, 0.1, 0.3, 0.3, -0.2, 0.5),
               tf(0.01, 0.02, -0.03, 0.1, 0.2, 0.0)};
  ja.axis = {0.3, -0.5, 0.8};
  ja.lower = -2, ja.upper = 2;
  b.add_joint(ja);
  JointSpec jb{"pris", JointType::kPrismatic, a, bb, tf(0.0, 0.4, 0.0, 0.0, 0.7, 0.0)};
  jb.axis = {1, 1, 0};
  jb.lower = -0.3, jb.upper = 0.5;
  b.add_joint(jb);
  JointSpec jc{
      "ball", JointType::kBall, bb, c, tf(0.1, 0.0, 0.25, -0.4, 0.0, 0.2), tf(0.0, 0.0, -0.05)};
  b.add_joint(jc);
  JointSpec jd{"cont", JointType::kContinuous, c, d, tf(0.0, 0.0, 0.4)};
  jd.axis = {0, 1, 0};
  b.add_joint(jd);
  b.add_joint({"fixed_mid", JointType::kFixed, d, e, tf(0.1, 0.0, 0.1, 0.0, 0.0, 1.0)});
  JointSpec jf{"branch", JointType::kRevolute, a, f, tf(0.0, -0.3, 0.1)};
  jf.axis = {0, 0, 1};
  jf.lower = -1.5, jf.upper = 1.5;
  int jfi = b.add_joint(jf);
  JointSpec jg{"mimic", JointType::kRevolute, e, g, tf(0.2, 0.0, 0.0)};
  jg.axis = {1, 0, 0};
  jg.lower = -3, jg.upper = 3;
  jg.mimic = jfi;
  jg.mimic_multiplier = -0.5;
  jg.mimic_offset = 0.1;
  b.add_joint(jg);
  if (!planar) return b.finalize();
  int h = b.add_body("h", 0.2, {0.03, -0.02, 0.04});
  JointSpec jh{"planar",
               JointType::kPlanar,
               bb,
               h,
               tf(-0.1, 0.2, 0.05, 0.2, 0.1, -0.3),
               tf(0.02, 0.0, -0.01, 0.0, 0.3, 0.0)};
  jh.axis = {0.2, -0.6, 0.7};
  b.add_joint(jh);
  return b.finalize();
}

// a random configuration: 1-dof joints inside their limits (or +-pi), random unit quaternions
inline std::vector<double> random_configuration(const Model& m, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<double> q = m.neutral_configuration();
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0) continue;
    int qs = m.joint_q_start[j], ds = m.joint_qd_start[j];
    switch (JointType(m.joint_type[j])) {
      case JointType::kRevolute:
      case JointType::kPrismatic:
      case JointType::kContinuous: {
        double lo = m.has_limits(ds) ? m.dof_lower[ds] : -M_PI;
        double hi = m.has_limits(ds) ? m.dof_upper[ds] : M_PI;
        q[qs] = lo + (hi - lo) * 0.5 * (u(rng) + 1.0);
        break;
      }
      case JointType::kPlanar:
        q[qs] = 0.5 * u(rng), q[qs + 1] = 0.5 * u(rng), q[qs + 2] = M_PI * u(rng);
        break;
      case JointType::kFree:
        for (int k = 0; k < 3; ++k) q[qs + k] += 0.5 * u(rng);
        qs += 3;
        [[fallthrough]];
      case JointType::kBall: {
        Quat<double> r = normalize(Quat<double>{n(rng), n(rng), n(rng), n(rng)});
        q[qs] = r.x, q[qs + 1] = r.y, q[qs + 2] = r.z, q[qs + 3] = r.w;
        break;
      }
      default:
        break;
    }
  }
  return q;
}

}  // namespace ikwb::test
