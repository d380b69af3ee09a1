// Objective rows evaluated on the GPU at given configurations: the path the GPU tests use to
// check the shared objective code (solver/objectives.hpp, solver/lm_row.hpp) on the device
// against the CPU, and a diagnostic for new objectives.
#pragma once

#include <vector>

#include "solver/problem.hpp"

namespace ikwb {

enum class ObjectiveRows {
  kRaw,       // objective_residual / objective_jacobian: constraint values before weights/modes
  kWeighted,  // builtin_residual / builtin_jacobian: the rows LM uses (zero multipliers); the
              // Jacobian row of an inactive inequality row is its linear model (apply_mode)
};

// q: (n_rows x coord_count) configurations; problem_index: (n_rows) base problem of each row.
// Writes residual (n_rows x residual_count) and jacobian (n_rows x residual_count x dof_count,
// row-major per row) in float. mu is the augmented-Lagrangian penalty for hard objectives
// (kWeighted). Rows of custom objectives are zero. Throws std::invalid_argument on wrong sizes
// or problem indices, std::runtime_error on a CUDA error.
void eval_objective_rows_cuda(const IkProblem& problem, const std::vector<float>& q,
                              const std::vector<int>& problem_index, ObjectiveRows kind, float mu,
                              std::vector<float>& residual, std::vector<float>& jacobian);

}  // namespace ikwb
