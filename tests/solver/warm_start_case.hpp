// The workbench's next frame as a solver test case, shared by the CUDA kernel bodies' host test
// (row_driver_test.cpp) and the GPU test (tests/gpu/cuda_solver_test.cpp): a hard hand pose of
// the Panda against a posture that pulls it, solved once on the CPU in float from the middle
// configuration, then its targets moved 1 cm.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "solver/solver.hpp"

namespace ikwb::test {

struct WarmStartCase {
  IkProblem problem;
  SolverSettings settings;  // 3 Roberts seeds, 2 restarts
  WarmStart warm;           // each problem's multipliers after the first solve, its penalty
  std::vector<double> q;    // (problems x coord_count) where the first solve left each one
  bool converged = true;    // every problem of the first solve converged
  double force = 0;         // the largest multiplier: the force the hard rows hold
};

// targets: one reachable pose of `tcp` per problem
inline WarmStartCase panda_warm_start_case(std::shared_ptr<Model> model, int tcp,
                                           std::vector<Transform<double>> targets) {
  WarmStartCase c{IkProblem(model, int(targets.size())), {}, {}, {}};
  const int obj = c.problem.add_pose(tcp, {0, 0, 0}, {1.0, true});
  c.problem.add_posture({}, {0.5});
  c.problem.set_target_poses(obj, targets);
  c.settings.n_seeds = 3;
  c.settings.max_restarts = 2;
  c.settings.sampler = Sampler::kRoberts;
  SolverSettings first_settings = c.settings;
  first_settings.use_float = true;
  first_settings.threads = 1;
  SolveResult first;
  make_cpu_solver()->solve(c.problem, first_settings, model->middle_configuration(), first);
  for (const ProblemResult& r : first.problems) {
    c.converged = c.converged && r.converged;
    c.warm.multipliers.insert(c.warm.multipliers.end(), r.multipliers.begin(), r.multipliers.end());
    c.q.insert(c.q.end(), r.q.begin(), r.q.end());
  }
  c.warm.penalty = first.problems[0].penalty;
  for (double l : c.warm.multipliers) c.force = std::max(c.force, std::abs(l));
  for (Transform<double>& t : targets) t.p.x += 0.01;
  c.problem.set_target_poses(obj, targets);
  return c;
}

}  // namespace ikwb::test
