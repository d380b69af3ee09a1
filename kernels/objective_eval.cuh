// Objective rows of one configuration (device helper of objective_eval_launch.cu).
#pragma once

#include "solver/lm_row.hpp"

namespace ikwb::cuda {

// Rows of every built-in objective of `problem` at q: raw (objective_residual /
// objective_jacobian) or weighted (builtin_residual / builtin_jacobian with multipliers
// al_lambda and penalty mu). body_q (body_count) and raw (residual_count) are scratch;
// r (residual_count) and J (residual_count x dof_count) are written in full.
IKWB_HD void objective_rows(const ProblemView<float>& pv, int problem, bool weighted,
                            const float* al_lambda, float mu, const float* q,
                            Transform<float>* body_q, float* raw, float* r, float* J) {
  const int nv = pv.model.dof_count, nr = pv.residual_count;
  for (int b = 0; b < pv.model.body_count; ++b) body_q[b] = transform_identity<float>();
  for (int k = 0; k < nr; ++k) r[k] = 0.0f;
  for (int k = 0; k < nr * nv; ++k) J[k] = 0.0f;
  if (weighted) {
    builtin_residual(pv, problem, al_lambda, mu, q, body_q, r);
    builtin_jacobian(pv, problem, al_lambda, mu, q, body_q, raw, J);
    return;
  }
  fk_row(pv.model, q, body_q);
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<float>& o = pv.objectives[oi];
    if (o.type == ObjectiveType::kCustom) continue;
    objective_residual(pv, oi, problem, q, body_q, r + o.start);
    objective_jacobian(pv, oi, problem, q, body_q, J + o.start * nv, nv);
  }
}

}  // namespace ikwb::cuda
