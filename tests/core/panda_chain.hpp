// A 7-dof chain with the Franka Panda's kinematic dimensions, built in code (no meshes, made-up
// masses), shared by the FK tests and the FK benchmark.
#pragma once

#include <cmath>
#include <string>

#include "test_models.hpp"

namespace ikwb::test {

// 7 revolute joints placed like the Panda's URDF (Craig's modified DH: a, d, alpha), then the
// flange (0.107 m) and the hand (-45 degrees about z) as fixed joints
inline Model panda_chain() {
  struct Row {
    double x, y, z, roll, lower, upper;
  };
  const Row rows[7] = {{0, 0, 0.333, 0, -2.8973, 2.8973},
                       {0, 0, 0, -M_PI / 2, -1.7628, 1.7628},
                       {0, -0.316, 0, M_PI / 2, -2.8973, 2.8973},
                       {0.0825, 0, 0, M_PI / 2, -3.0718, -0.0698},
                       {-0.0825, 0.384, 0, -M_PI / 2, -2.8973, 2.8973},
                       {0, 0, 0, M_PI / 2, -0.0175, 3.7525},
                       {0.088, 0, 0, M_PI / 2, -2.8973, 2.8973}};
  ModelBuilder b;
  b.model().name = "panda7";
  int parent = b.add_body("panda_link0", 2.0);
  b.add_joint({"base", JointType::kFixed, -1, parent});
  for (int i = 0; i < 7; ++i) {
    int link = b.add_body("panda_link" + std::to_string(i + 1), 2.0, {0.0, -0.03, 0.05});
    JointSpec j{"panda_joint" + std::to_string(i + 1), JointType::kRevolute, parent, link,
                tf(rows[i].x, rows[i].y, rows[i].z, rows[i].roll, 0, 0)};
    j.axis = {0, 0, 1};
    j.lower = rows[i].lower, j.upper = rows[i].upper;
    b.add_joint(j);
    parent = link;
  }
  int flange = b.add_body("panda_link8", 0.1);
  b.add_joint({"panda_joint8", JointType::kFixed, parent, flange, tf(0, 0, 0.107)});
  int hand = b.add_body("panda_hand", 0.7, {0, 0, 0.04});
  b.add_joint({"panda_hand_joint", JointType::kFixed, flange, hand, tf(0, 0, 0, 0, 0, -M_PI / 4)});
  return b.finalize();
}

}  // namespace ikwb::test
