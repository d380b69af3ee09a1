// Settings and data conversions every backend shares, so the CPU and CUDA backends cannot
// drift apart: SolverSettings -> LmConfig and RowDriverConfig, objective parameters in another
// scalar, float joint limits, the whole problem in the scalar a backend solves in, and the
// per-row results of the row driver turned into a SolveResult.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "solver/lm_row.hpp"
#include "solver/row_driver.hpp"
#include "solver/solver.hpp"

namespace ikwb {

template <class T>
LmConfig<T> make_lm_config(const SolverSettings& s) {
  LmConfig<T> c;
  c.max_iterations = s.max_iterations;
  c.fixed_iterations = s.fixed_iterations;
  c.tol_position = T(s.tol_position);
  c.tol_rotation = T(s.tol_rotation);
  c.tol_constraint = T(s.tol_constraint);
  c.lambda_init = T(s.lambda_init);
  c.marquardt = s.marquardt_scaling;
  c.hard_limits = s.hard_joint_limits;
  c.al_inner_iterations = s.al_inner_iterations;
  c.mu_init = T(s.al_mu_init);
  c.mu_growth = T(s.al_mu_growth);
  c.mu_max = T(s.al_mu_max);
  c.null_space_gain = T(s.null_space_gain);
  c.settle_iterations = s.settle_iterations;
  c.max_step = T(s.max_step);
  c.stall_window = s.stall_window;
  c.polish_iterations = s.polish_iterations;
  return c;
}

// Longest time budget applied (about 11.6 days); a longer one (or a non-finite one, which
// validate_settings rejects) runs without a budget, so the conversion to ns and start + budget
// stay exact.
constexpr double kMaxTimeBudgetS = 1e6;

// (the LM's initial damping scaled to the problem's lever arm: damping_scale)
template <class T>
RowDriverConfig<T> make_row_driver_config(const SolverSettings& s, const IkProblem& problem) {
  RowDriverConfig<T> c;
  c.lm = make_lm_config<T>(s);
  c.lm.lambda_init = T(s.lambda_init * damping_scale(problem));
  c.n_seeds = s.n_seeds;
  c.max_restarts = s.max_restarts;
  c.sampler = s.sampler;
  c.restart_sampler =
      s.sampler == SeedSampler::kRoberts ? SeedSampler::kRoberts : SeedSampler::kUniform;
  c.sigma = T(s.gaussian_sigma);
  c.rng_seed = s.rng_seed;
  c.time_budget_ns = s.time_budget_s > 0 && s.time_budget_s <= kMaxTimeBudgetS
                         ? uint64_t(std::ceil(s.time_budget_s * 1e9))
                         : 0;
  c.all_seeds = (s.solve_all_seeds || s.prefer_closest || s.n_seeds == 1) ? 1 : 0;
  c.prefer_closest = s.prefer_closest ? 1 : 0;
  c.lm.turn_over = s.turn_over_limits && !s.prefer_closest;
  return c;
}

template <class T>
ObjectiveParams<T> convert_params(const ObjectiveParams<double>& o) {
  ObjectiveParams<T> p;
  p.type = o.type;
  p.hard = o.hard;
  p.enabled = o.enabled;
  p.null_space = o.null_space;
  p.link = o.link;
  p.link_b = o.link_b;
  p.offset = cast<T>(o.offset);
  p.offset_b = cast<T>(o.offset_b);
  p.relative = cast<T>(o.relative);
  p.distance = T(o.distance);
  p.weight = T(o.weight);
  p.position_weights = cast<T>(o.position_weights);
  p.rotation_weights = cast<T>(o.rotation_weights);
  p.axis = cast<T>(o.axis);
  p.direction = cast<T>(o.direction);
  p.cone = T(o.cone);
  p.box_lower = cast<T>(o.box_lower);
  p.box_upper = cast<T>(o.box_upper);
  p.margin = T(o.margin);
  p.min_measure = T(o.min_measure);
  p.point_start = o.point_start;
  p.point_count = o.point_count;
  p.start = o.start;
  p.dim = o.dim;
  return p;
}

// Joint limits in float rounded inward (and infinities clamped to +-1e35): a float q within
// them is within the double limits too. upper selects the rounding direction.
inline std::vector<float> float_limits(const std::vector<double>& limits, bool upper) {
  std::vector<float> out;
  out.reserve(limits.size());
  for (double x : limits) {
    float f = float(std::min(std::max(x, -1e35), 1e35));
    if (!upper && double(f) < x) f = std::nextafter(f, 1e35f);
    if (upper && double(f) > x) f = std::nextafter(f, -1e35f);
    out.push_back(f);
  }
  return out;
}

// The problem in scalar T: a view of the problem's own arrays for double, converted copies
// for float; FK of only the bodies the objectives read (objective_fk_joints).
template <class T>
struct TypedProblem {
  std::unique_ptr<ModelArrays<T>> arrays;
  std::vector<ObjectiveParams<T>> params;
  std::vector<Transform<T>> targets;
  std::vector<T> rest, lower, upper;
  std::vector<LinkPoint<T>> points;
  std::vector<LinkCapsule<T>> capsules;
  std::vector<CollisionShape<T>> obstacles;
  std::vector<int> fk_joints;
  std::vector<uint8_t> dof_seeded;
  ProblemView<T> view;

  TypedProblem(const TypedProblem&) = delete;
  TypedProblem& operator=(const TypedProblem&) = delete;
  explicit TypedProblem(const IkProblem& p) {
    if constexpr (std::is_same_v<T, double>) {
      view = p.view();
    } else {
      const Model& m = p.model();
      arrays = std::make_unique<ModelArrays<T>>(m);
      for (const auto& o : p.param_array()) params.push_back(convert_params<T>(o));
      for (const auto& t : p.target_array()) targets.push_back(cast<T>(t));
      for (double v : p.rest_array()) rest.push_back(T(v));
      for (const auto& lp : p.point_array()) points.push_back({lp.link, cast<T>(lp.offset)});
      if constexpr (std::is_same_v<T, float>) {
        lower = float_limits(p.dof_lower(), false);
        upper = float_limits(p.dof_upper(), true);
      }
      view.model = arrays->view;
      view.dof_lower = lower.data();
      view.dof_upper = upper.data();
      view.objectives = params.data();
      view.objective_count = p.objective_count();
      view.problem_count = p.problem_count();
      view.residual_count = p.residual_count();
      view.targets = targets.data();
      view.rest_q = rest.data();
      view.points = points.data();
      const CollisionWorld& w = p.collision_world();
      for (const LinkCapsule<double>& c : w.capsules)
        capsules.push_back({c.body, cast<T>(c.p0), cast<T>(c.p1), T(c.radius)});
      for (const CollisionShape<double>& o : w.obstacles)
        obstacles.push_back({o.type, cast<T>(o.pose), cast<T>(o.size)});
      view.collision = collision_view(w, capsules.data(), obstacles.data());
    }
    fk_joints = objective_fk_joints(p);
    if (!fk_joints.empty()) {
      view.fk_joints = fk_joints.data();
      view.fk_joint_count = int(fk_joints.size());
    }
    dof_seeded = objective_seeded_dofs(p.model(), fk_joints);
    if (!dof_seeded.empty()) view.dof_seeded = dof_seeded.data();
  }
};

// Fills result from the row driver's outputs: row_q (n_batch x coord_count, in the scalar Q the
// backend keeps them in), rows (n_batch) and picks (problem_count), with row_lambda (n_batch x
// residual_count, or null: none kept) each row's final multipliers. Rows that did not run read
// as q zero, cost infinite, not converged, no multipliers.
// Every configuration a solve hands back has its periodic joints' angles (a continuous joint's,
// row_kinematics.hpp) wrapped into (-pi, pi] here: both backends' results pass through this one
// place on their way to every client (`ikwb solve` files, Python, the workbench, timeline
// renders), while the rows solve on unwrapped angles. The wrap leaves the configuration, and so
// FK, as it was; a continuous joint that a mimic joint follows by a fraction of a turn is not
// periodic and is handed back as solved.
template <class Q, class T>
void fill_solve_result(const IkProblem& problem, int n_seeds, const Q* row_q,
                       const RowResult<T>* rows, const ProblemPick* picks, SolveResult& res,
                       const double* row_lambda = nullptr) {
  const int P = problem.problem_count(), S = n_seeds, nq = problem.model().coord_count;
  const std::size_t n_batch = std::size_t(P) * S;
  res.n_seeds = S;
  res.row_q.assign(n_batch * nq, 0.0);
  res.row_cost.assign(n_batch, std::numeric_limits<double>::infinity());
  res.row_converged.assign(n_batch, 0);
  res.row_penalty.assign(n_batch, 0.0);
  res.row_violation.assign(n_batch, 0.0);
  const int n_res = problem.residual_count();
  if (row_lambda)
    res.row_multipliers.assign(row_lambda, row_lambda + n_batch * std::size_t(n_res));
  else
    res.row_multipliers.clear();
  const ModelView<double> model = problem.model().view();
  for (std::size_t row = 0; row < n_batch; ++row) {
    if (!rows[row].ran) {
      // a row that does not count (the GPU runs every row) holds no force either
      if (row_lambda)
        std::fill_n(res.row_multipliers.begin() + std::ptrdiff_t(row * n_res), n_res, 0.0);
      continue;
    }
    for (int i = 0; i < nq; ++i) res.row_q[row * nq + i] = double(row_q[row * nq + i]);
    wrap_row(model, res.row_q.data() + row * nq);
    res.row_cost[row] = double(rows[row].eval.soft_cost);
    res.row_converged[row] = rows[row].converged;
    res.row_penalty[row] = double(rows[row].penalty);
    res.row_violation[row] = double(rows[row].eval.violation);
  }
  res.problems.assign(P, ProblemResult());
  for (int p = 0; p < P; ++p) {
    ProblemResult& pr = res.problems[p];
    const std::size_t row = std::size_t(p) * S + picks[p].seed;
    const RowResult<T>& r = rows[row];
    pr.q.assign(res.row_q.begin() + row * nq, res.row_q.begin() + (row + 1) * nq);
    pr.position_error = double(r.eval.position_error);
    pr.rotation_error = double(r.eval.rotation_error);
    pr.constraint_violation = double(r.eval.violation);
    pr.cost = double(r.eval.soft_cost);
    pr.iterations = r.iterations;
    pr.total_iterations = picks[p].total_iterations;
    pr.seed = picks[p].seed;
    pr.converged = r.converged != 0;
    pr.settling = r.settling != 0;
    pr.damping = double(r.damping);
    pr.penalty = double(r.penalty);
    const int nr = problem.residual_count();
    if (row_lambda) pr.multipliers.assign(row_lambda + row * nr, row_lambda + (row + 1) * nr);
  }
}

}  // namespace ikwb
