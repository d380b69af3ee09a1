// Host side of the CUDA solve, shared by CudaSolver and the host test of the kernel bodies
// (tests/solver/row_driver_test.cpp): what the GPU supports, the problem converted to
// float exactly as the device receives it, and the SolveConfig built from SolverSettings. The
// per-row results become a SolveResult through fill_solve_result (solver/backend_common.hpp).
#pragma once

#include <algorithm>

#include "kernels/row_solve.cuh"
#include "solver/backend_common.hpp"
#include "solver/solver.hpp"

namespace ikwb::cuda {

// Throws std::invalid_argument naming the reason when the problem or the settings need the
// CPU backend: custom objectives, the L-BFGS optimiser, or a batch too large to index.
void check_gpu_support(const IkProblem& problem, const SolverSettings& s);

// The row driver's settings as the CPU backend sets them up, in float, whether the dof mask
// applies, and whether the rows keep multipliers and begin from warm's (validate_warm_start).
inline SolveConfig make_solve_config(const IkProblem& problem, const SolverSettings& s,
                                     const WarmStart& warm) {
  SolveConfig c;
  c.row = make_row_driver_config<float>(s, problem);
  c.has_dof_mask = problem.dof_mask().empty() ? 0 : 1;
  ProblemView<double> objectives;
  objectives.objectives = problem.param_array().data();
  objectives.objective_count = int(problem.param_array().size());
  c.keep_multipliers = problem_has_hard(objectives) ? 1 : 0;
  c.has_warm = c.keep_multipliers && !warm.multipliers.empty() ? 1 : 0;
  c.warm_penalty = float(warm.penalty);
  return c;
}

// How many threads run each batch row's attempts side by side (AttemptLane): enough to give the
// GPU about `rows_in_flight` threads when the batch alone leaves it short, never more than the
// row's attempts (max_restarts + 1) or kMaxAttemptLanes; 1 without restarts.
constexpr int kMaxAttemptLanes = 16;
inline int attempt_lanes(int rows, int max_restarts, int rows_in_flight) {
  if (max_restarts <= 0 || rows <= 0) return 1;
  return std::clamp(rows_in_flight / rows, 1, std::min(max_restarts + 1, kMaxAttemptLanes));
}

// The problem in float on the host: the arrays the device gets, with a host ProblemView.
using FloatProblem = TypedProblem<float>;

}  // namespace ikwb::cuda
