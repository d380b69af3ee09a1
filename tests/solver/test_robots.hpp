// Robots built in code for the solver tests (independent of the URDF loader).
#pragma once

#include <cmath>

#include "engine/core/model.hpp"

namespace ikwb::test {

// Franka Emika Panda: joint origins and limits as published in franka_description, with the
// hand TCP 0.1034 m beyond the hand. Bodies: panda_link0..7, panda_hand_tcp.
inline Model panda() {
  const double pi = M_PI;
  struct J {
    double x, y, z, roll, lo, hi;
  } js[7] = {{0, 0, 0.333, 0, -2.8973, 2.8973},          {0, 0, 0, -pi / 2, -1.7628, 1.7628},
             {0, -0.316, 0, pi / 2, -2.8973, 2.8973},    {0.0825, 0, 0, pi / 2, -3.0718, -0.0698},
             {-0.0825, 0.384, 0, -pi / 2, -2.8973, 2.8973}, {0, 0, 0, pi / 2, -0.0175, 3.7525},
             {0.088, 0, 0, pi / 2, -2.8973, 2.8973}};
  ModelBuilder b;
  b.model().name = "panda";
  int prev = b.add_body("panda_link0");
  b.add_joint({"panda_base", JointType::kFixed, -1, prev});
  for (int i = 0; i < 7; ++i) {
    int body = b.add_body("panda_link" + std::to_string(i + 1));
    JointSpec s{"panda_joint" + std::to_string(i + 1), JointType::kRevolute, prev, body,
                {{js[i].x, js[i].y, js[i].z}, quat_from_rpy(js[i].roll, 0.0, 0.0)}};
    s.axis = {0, 0, 1};
    s.lower = js[i].lo;
    s.upper = js[i].hi;
    b.add_joint(s);
    prev = body;
  }
  int tcp = b.add_body("panda_hand_tcp");
  b.add_joint({"panda_tcp", JointType::kFixed, prev, tcp,
               {{0, 0, 0.107 + 0.1034}, quat_from_rpy(0.0, 0.0, -pi / 4)}});
  return b.finalize();
}

}  // namespace ikwb::test
