// Each objective's state at a configuration, read from its own residual rows: the numbers the
// solver tests convergence with (solver/lm_row.hpp), judged with the solver's tolerances. The
// workbench's panel, overlays, state dump and the CLI's scene solve show these instead of
// recomputing errors of their own.
#pragma once

#include <vector>

#include "solver/collision_memo.hpp"
#include "solver/solver.hpp"

namespace ikwb {

struct ObjectiveReport {
  // the link point and the link's orientation (world), for kinds with a link ("link" of a pair);
  // the centre of mass for com (objective_point)
  Transform<double> current = transform_identity<double>();
  // the errors are the rows' own, whatever the objective's weight: a soft objective of weight 0
  // reports how far it is (its axis weights still leave axes out)
  double position_error = 0;  // m, norm of the position rows (axes of weight 0 left out)
  double rotation_error = 0;  // rad, norm of the rotation rows (axes of weight 0 left out)
  double violation = 0;       // inequalities: largest row > 0 (joint limits: past a limit;
                              // min_distance: how much closer than `distance`); hard
                              // equalities: norm of the rows
  double deviation = 0;       // posture: |q - rest| in dof space (a preference, never "missed")
  bool reached = true;        // within tol_position, tol_rotation and tol_constraint
  // the solve pulls toward it (objective_pursued): false when disabled, and for a soft objective
  // of weight 0, which is never missed or best effort, whatever its errors
  bool pursued = true;
};

// Reports every objective of `problem` at configuration q (coord_count) with body poses body_q
// (body_count, eval_fk of q). Disabled objectives are reported too (reached says nothing about
// them). Custom objectives report zeros. Throws std::invalid_argument on wrong sizes.
// memo (or null) keeps the collision objectives' searches from one call to the next, for a
// caller that reports a moving robot again and again (the workbench, every frame): the same
// answers, most of them from the last search's pair list instead of a search of every pair.
std::vector<ObjectiveReport> report_objectives(const IkProblem& problem, int problem_index,
                                               const std::vector<double>& q,
                                               const std::vector<Transform<double>>& body_q,
                                               const SolverSettings& tolerances,
                                               CollisionMemoStore<double>* memo = nullptr);

// What objective p acts on at body_q (body_count): its link point and the link's orientation,
// the centre of mass (identity orientation) for com; identity for kinds without either.
Transform<double> objective_point(const Model& m, const ObjectiveParams<double>& p,
                                  const std::vector<Transform<double>>& body_q);
// The target that objective p meets at body_q: objective_point, except for look_at: the point
// 1 m from the link point along the link's axis (so the axis looks at it), same orientation.
// Where a new target starts and what a scene's "current" target means.
Transform<double> objective_met_target(const Model& m, const ObjectiveParams<double>& p,
                                       const std::vector<Transform<double>>& body_q);

// true when every pursued objective is reached
bool all_reached(const IkProblem& problem, const std::vector<ObjectiveReport>& reports);

}  // namespace ikwb
