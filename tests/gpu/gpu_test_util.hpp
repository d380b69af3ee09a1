// Shared helpers of the GPU tests: skipping without a device, running the CUDA solve's kernel
// bodies on the host, and small comparisons.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/test_models.hpp"
#include "engine/core/fk.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/row_solve.cuh"
#include "kernels/solve_host.hpp"
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

// The CUDA backend's solve with its kernel bodies (solve_row_attempts, pick_problem_seed) run
// on the host over every row, with the same float conversion and SolveConfig: checks the
// semantics of the device code against the CPU backend on machines without a GPU.
inline SolveResult solve_kernel_bodies_on_host(const IkProblem& problem, const SolverSettings& s,
                                               const std::vector<double>& q_init) {
  validate_settings(s);
  cuda::check_gpu_support(problem, s);
  std::vector<double> q0 = expand_initial(problem, q_init);
  cuda::FloatProblem fp(problem);
  cuda::SolveConfig c = cuda::make_solve_config(problem, s);
  const Model& m = problem.model();
  const int P = problem.problem_count(), S = s.n_seeds, n = P * S, nq = m.coord_count;
  cuda::RowScratchLayout l =
      cuda::row_scratch_layout(nq, m.dof_count, problem.residual_count(), m.body_count);
  std::vector<float> scratch(l.stride), row_q(std::size_t(n) * nq), diff(m.dof_count + 1);
  std::vector<float> qf(q0.begin(), q0.end());
  std::vector<uint8_t> dof_free(m.dof_count, 1);
  for (int d = 0; d < m.dof_count; ++d) dof_free[d] = problem.dof_free(d) ? 1 : 0;
  std::vector<cuda::RowResult> rows(n);
  std::vector<cuda::ProblemPick> picks(P);
  // each row starts from NaN-filled buffers, as uninitialised shared memory on the device
  // could be: a read before a write shows up as a wrong result
  for (int row = 0; row < n; ++row) {
    std::fill(scratch.begin(), scratch.end(), std::numeric_limits<float>::quiet_NaN());
    cuda::solve_row_attempts(fp.view, c, c.has_dof_mask ? dof_free.data() : nullptr, qf.data(), row,
                             scratch.data(), l, row_q.data() + std::size_t(row) * nq, &rows[row]);
  }
  for (int p = 0; p < P; ++p)
    cuda::pick_problem_seed(fp.view.model, c, p, qf.data(), row_q.data(), rows.data(), diff.data(),
                            &picks[p]);
  SolveResult r;
  cuda::fill_solve_result(problem, S, row_q.data(), rows.data(), picks.data(), r);
  return r;
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
