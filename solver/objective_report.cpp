#include "solver/objective_report.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "solver/lm_row.hpp"

namespace ikwb {

std::vector<ObjectiveReport> report_objectives(const IkProblem& problem, int problem_index,
                                               const std::vector<double>& q,
                                               const std::vector<Transform<double>>& body_q,
                                               const SolverSettings& tol,
                                               CollisionMemoStore<double>* memo) {
  const Model& m = problem.model();
  if (int(q.size()) != m.coord_count)
    throw std::invalid_argument(
        "report_objectives: q has " + std::to_string(q.size()) +
        " values, expected joint_coord_count = " + std::to_string(m.coord_count));
  if (int(body_q.size()) != m.body_count)
    throw std::invalid_argument("report_objectives: body_q has " + std::to_string(body_q.size()) +
                                " poses, expected body_count = " + std::to_string(m.body_count));
  if (problem_index < 0 || problem_index >= problem.problem_count())
    throw std::invalid_argument("report_objectives: problem index " +
                                std::to_string(problem_index) + " out of range");
  ProblemView<double> pv = problem.view();
  if (memo && pv.collision.capsule_count > 0)
    pv.collision.memo = memo->use(pv.collision, problem.collision_world_id(), m.body_count);
  std::vector<ObjectiveReport> out(problem.objective_count());
  std::vector<double> raw;
  for (int oi = 0; oi < problem.objective_count(); ++oi) {
    const ObjectiveParams<double>& o = pv.objectives[oi];
    ObjectiveReport& rep = out[oi];
    rep.current = objective_point(m, o, body_q);
    if (o.type == ObjectiveType::kCustom) continue;
    raw.assign(o.dim, 0.0);
    objective_residual(pv, oi, problem_index, q.data(), body_q.data(), raw.data());

    // errors and a hard objective's violation exactly as the solver's convergence test counts
    // them (disabled objectives too, and a soft one's at weight 1: how far it is from its target
    // when its weight is 0)
    ObjectiveParams<double> counted = o;
    counted.enabled = 1;
    if (!o.hard) counted.weight = 1;
    rep.pursued = objective_pursued(o);
    RowEval<double> e;
    accumulate_row_eval(counted, raw.data(), e);
    rep.position_error = e.position_error;
    rep.rotation_error = e.rotation_error;
    if (objective_is_inequality(o.type)) {
      for (double v : raw) rep.violation = std::max(rep.violation, v);
    } else if (o.hard) {
      rep.violation = e.violation;
    }
    if (o.type == ObjectiveType::kPosture) {
      double s = 0;
      for (double v : raw) s += v * v;
      rep.deviation = std::sqrt(s);
    }
    rep.reached = rep.position_error <= tol.tol_position &&
                  rep.rotation_error <= tol.tol_rotation && rep.violation <= tol.tol_constraint;
  }
  return out;
}

Transform<double> objective_point(const Model& m, const ObjectiveParams<double>& p,
                                  const std::vector<Transform<double>>& body_q) {
  if (int(body_q.size()) != m.body_count) return transform_identity<double>();
  if (p.type == ObjectiveType::kCom)
    return {center_of_mass(m.view(), body_q.data()), quat_identity<double>()};
  if (p.link < 0 || p.link >= m.body_count) return transform_identity<double>();
  const Transform<double>& x = body_q[p.link];
  return {transform_point(x, p.offset), x.q};
}

Transform<double> objective_met_target(const Model& m, const ObjectiveParams<double>& p,
                                       const std::vector<Transform<double>>& body_q) {
  Transform<double> t = objective_point(m, p, body_q);
  if (p.type == ObjectiveType::kLookAt && p.link >= 0 && p.link < int(body_q.size()))
    t.p = t.p + rotate(body_q[p.link].q, unit_or_zero(p.axis));
  return t;
}

bool all_reached(const IkProblem& problem, const std::vector<ObjectiveReport>& reports) {
  for (int i = 0; i < int(reports.size()) && i < problem.objective_count(); ++i)
    if (reports[i].pursued && !reports[i].reached) return false;
  return true;
}

}  // namespace ikwb
