// Robots built in code for the solver tests (independent of the URDF loader).
#pragma once

#include <cmath>
#include <string>

#include "engine/core/model.hpp"

namespace ikwb::test {

// Appends a Panda arm (joints 1..7 and the hand TCP) to `parent` (its link0); names get `prefix`
// (bodies prefix + "link1".."link7", prefix + "hand_tcp"), its lengths times `scale`. Returns the
// TCP body.
inline int add_panda_chain(ModelBuilder& b, int parent, const std::string& prefix,
                           double scale = 1.0) {
  const double pi = M_PI;
  struct J {
    double x, y, z, roll, lo, hi;
  } js[7] = {{0, 0, 0.333, 0, -2.8973, 2.8973},
             {0, 0, 0, -pi / 2, -1.7628, 1.7628},
             {0, -0.316, 0, pi / 2, -2.8973, 2.8973},
             {0.0825, 0, 0, pi / 2, -3.0718, -0.0698},
             {-0.0825, 0.384, 0, -pi / 2, -2.8973, 2.8973},
             {0, 0, 0, pi / 2, -0.0175, 3.7525},
             {0.088, 0, 0, pi / 2, -2.8973, 2.8973}};
  int prev = parent;
  for (int i = 0; i < 7; ++i) {
    int body = b.add_body(prefix + "link" + std::to_string(i + 1));
    JointSpec s{
        prefix + "joint" + std::to_string(i + 1),
        JointType::kRevolute,
        prev,
        body,
        {{scale * js[i].x, scale * js[i].y, scale * js[i].z}, quat_from_rpy(js[i].roll, 0.0, 0.0)}};
    s.axis = {0, 0, 1};
    s.lower = js[i].lo;
    s.upper = js[i].hi;
    b.add_joint(s);
    prev = body;
  }
  int tcp = b.add_body(prefix + "hand_tcp");
  b.add_joint({prefix + "tcp",
               JointType::kFixed,
               prev,
               tcp,
               {{0, 0, scale * (0.107 + 0.1034)}, quat_from_rpy(0.0, 0.0, -pi / 4)}});
  return tcp;
}

// Franka Emika Panda: joint origins and limits as published in franka_description, with the
// hand TCP 0.1034 m beyond the hand. Bodies: panda_link0..7, panda_hand_tcp.
// `scale` multiplies every length (a Panda of 5 mm for 0.005).
inline Model panda(double scale = 1.0) {
  ModelBuilder b;
  b.model().name = "panda";
  int base = b.add_body("panda_link0");
  b.add_joint({"panda_base", JointType::kFixed, -1, base});
  add_panda_chain(b, base, "panda_", scale);
  return b.finalize();
}

// A planar arm of two links, 1.0 and 0.6 m, both joints about z within +-3.1 rad: its tip
// reaches 0.4 to 1.6 m from the base. Bodies: base, link1, link2 (the elbow: link 1's end),
// tip; joints j1, j2 (at the base and the elbow), jtip.
inline Model planar_arm2() {
  ModelBuilder b;
  b.model().name = "arm2";
  int prev = b.add_body("base");
  b.add_joint({"root", JointType::kFixed, -1, prev});
  const double x[2] = {0.0, 1.0};
  for (int i = 0; i < 2; ++i) {
    int body = b.add_body("link" + std::to_string(i + 1));
    JointSpec s{"j" + std::to_string(i + 1),
                JointType::kRevolute,
                prev,
                body,
                {{x[i], 0, 0}, {0, 0, 0, 1}}};
    s.axis = {0, 0, 1};
    s.lower = -3.1;
    s.upper = 3.1;
    b.add_joint(s);
    prev = body;
  }
  int tip = b.add_body("tip");
  b.add_joint({"jtip", JointType::kFixed, prev, tip, {{0.6, 0, 0}, {0, 0, 0, 1}}});
  return b.finalize();
}

// Two Panda arms on one torso (14 dofs): the left arm's link0 at y = +0.3, the right's at
// y = -0.3, both facing +x. Bodies: torso, left_link0..7, left_hand_tcp, right_...
inline Model two_pandas() {
  ModelBuilder b;
  b.model().name = "two_pandas";
  int torso = b.add_body("torso");
  b.add_joint({"torso_base", JointType::kFixed, -1, torso, {{0, 0, 0.5}, {0, 0, 0, 1}}});
  int left = b.add_body("left_link0");
  b.add_joint({"left_mount", JointType::kFixed, torso, left, {{0, 0.3, 0}, {0, 0, 0, 1}}});
  add_panda_chain(b, left, "left_");
  int right = b.add_body("right_link0");
  b.add_joint({"right_mount", JointType::kFixed, torso, right, {{0, -0.3, 0}, {0, 0, 0, 1}}});
  add_panda_chain(b, right, "right_");
  return b.finalize();
}

}  // namespace ikwb::test
