// Each objective's state at a configuration, read from its own residual rows: the numbers the
// solver tests convergence with (solver/lm_row.hpp), judged with the solver's tolerances. The
// workbench's panel, overlays, state dump and the CLI's scene solve show these instead of
// recomputing errors of their own.
#pragma once

#include <vector>

#include "solver/solver.hpp"

namespace ikwb {

struct ObjectiveReport {
  // the link point and the link's orientation (world), for kinds with a link ("link" of a pair)
  Transform<double> current = transform_identity<double>();
  double position_error = 0;  // m, norm of the position rows (axes of weight 0 left out)
  double rotation_error = 0;  // rad, norm of the rotation rows (axes of weight 0 left out)
  double violation = 0;       // inequalities: largest row > 0 (joint limits: past a limit;
                              // min_distance: how much closer than `distance`); hard
                              // equalities: norm of the rows
  double deviation = 0;       // posture: |q - rest| in dof space (a preference, never "missed")
  bool reached = true;        // within tol_position, tol_rotation and tol_constraint
};

// Reports every objective of `problem` at configuration q (coord_count) with body poses body_q
// (body_count, eval_fk of q). Disabled objectives are reported too (reached says nothing about
// them). Custom objectives report zeros. Throws std::invalid_argument on wrong sizes.
std::vector<ObjectiveReport> report_objectives(const IkProblem& problem, int problem_index,
                                               const std::vector<double>& q,
                                               const std::vector<Transform<double>>& body_q,
                                               const SolverSettings& tolerances);

// true when every enabled objective is reached
bool all_reached(const IkProblem& problem, const std::vector<ObjectiveReport>& reports);

}  // namespace ikwb
