// Host side of the CUDA solve, shared by CudaSolver and the host checks in tests/gpu: what the
// GPU supports, the problem converted to float exactly as the device receives it, the
// SolveConfig built from SolverSettings, and per-row device results turned into a SolveResult.
#pragma once

#include <vector>

#include "kernels/row_solve.cuh"
#include "solver/backend_common.hpp"
#include "solver/solver.hpp"

namespace ikwb::cuda {

// Throws std::invalid_argument naming the reason when the problem or the settings need the
// CPU backend: custom objectives, the L-BFGS optimiser, or a batch too large to index.
void check_gpu_support(const IkProblem& problem, const SolverSettings& s);

// Longest time budget the GPU applies (about 11.6 days); a longer one (or a non-finite one,
// which validate_settings rejects) runs without a budget.
constexpr double kMaxTimeBudgetS = 1e6;

// LmConfig and seeding settings as CpuSolver::run sets them up (float); time_budget_ns is 0
// (none) for budgets over kMaxTimeBudgetS
SolveConfig make_solve_config(const IkProblem& problem, const SolverSettings& s);

// The problem in float on the host: the arrays the device gets, with a host ProblemView.
using FloatProblem = TypedProblem<float>;

// Fills result from the per-row outputs of a solve: row_q (n_batch x coord_count), rows
// (n_batch, ran flags set by pick_problem_seed), picks (problem_count). Rows that did not run
// read as in the CPU backend: q zero, cost infinite, not converged.
void fill_solve_result(const IkProblem& problem, int n_seeds, const float* row_q,
                       const RowResult* rows, const ProblemPick* picks, SolveResult& result);

}  // namespace ikwb::cuda
