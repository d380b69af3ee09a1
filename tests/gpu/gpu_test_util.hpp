// Shared helpers of the GPU tests: skipping without a device, and small comparisons. (The CUDA
// solve's kernel bodies run on the host in tests/solver/row_driver_test.cpp, without a GPU.)
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/test_models.hpp"
#include "engine/core/fk.hpp"
#include "kernels/cuda_backend.hpp"
#include "solver/solver.hpp"
#include "solver/test_robots.hpp"

// skips the current test when no CUDA device is usable (no driver, no device, no kernel
// image); fails it instead when IKWB_REQUIRE_GPU is set (run_gpu_checks.sh on a GPU machine)
#define IKWB_REQUIRE_CUDA()                                                                  \
  do {                                                                                       \
    std::string ikwb_why_;                                                                   \
    if (!::ikwb::cuda_device_usable(&ikwb_why_)) {                                           \
      if (::ikwb::test::gpu_required())                                                      \
        GTEST_FAIL() << "IKWB_REQUIRE_GPU is set, but no usable CUDA device: " << ikwb_why_; \
      GTEST_SKIP() << "no usable CUDA device: " << ikwb_why_;                                \
    }                                                                                        \
  } while (0)

namespace ikwb::test {

// IKWB_REQUIRE_GPU is set and not "0": a missing device is an error, not a skip
inline bool gpu_required() {
  const char* v = std::getenv("IKWB_REQUIRE_GPU");
  return v && *v && std::string(v) != "0";
}

// pose of `link` at configuration q (double)
inline Transform<double> link_pose(const Model& m, const std::vector<double>& q, int link) {
  State st(m);
  eval_fk(m, q, {}, st);
  return st.body_q[link];
}

// angle of the rotation between two unit quaternions
inline double rotation_angle(const Quat<double>& a, const Quat<double>& b) {
  return length(quat_log(normalize(a * conjugate(b))));
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// n reachable pose targets of `link`: FK of random configurations within the limits
inline std::vector<Transform<double>> reachable_poses(const Model& m, int link, int n,
                                                      unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Transform<double>> out;
  for (int i = 0; i < n; ++i) out.push_back(link_pose(m, random_configuration(m, rng), link));
  return out;
}

// the Panda and its hand frame
struct PandaHand {
  std::shared_ptr<Model> model = std::make_shared<Model>(panda());
  int tcp = model->find_body("panda_hand_tcp");

  // n problems, each one pose objective of the hand at a reachable target (seeded)
  IkProblem pose_problem(int n, unsigned seed) const {
    IkProblem problem(model, n);
    int obj = problem.add_pose(tcp);
    problem.set_target_poses(obj, reachable_poses(*model, tcp, n, seed));
    return problem;
  }
};

}  // namespace ikwb::test
