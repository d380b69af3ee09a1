#include "kernels/solve_host.hpp"

#include <climits>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/device_model.hpp"
#include "solver/backend_common.hpp"

namespace ikwb::cuda {

void check_gpu_support(const IkProblem& problem, const SolverSettings& s) {
  for (int oi = 0; oi < problem.objective_count(); ++oi) {
    const Objective& o = problem.objective(oi);
    if (o.params.type == ObjectiveType::kCustom)
      throw std::invalid_argument(
          "CUDA backend: custom objectives run on the CPU only (objective " + std::to_string(oi) +
          (o.name.empty() ? "" : " '" + o.name + "'") + "); use the CPU backend for this problem");
  }
  if (s.optimizer != Optimizer::kLevenbergMarquardt)
    throw std::invalid_argument(
        "CUDA backend: only Levenberg-Marquardt runs on the GPU; L-BFGS needs the CPU backend");
  long long rows = (long long)problem.problem_count() * s.n_seeds;
  if (rows > INT_MAX / 2)
    throw std::invalid_argument("CUDA backend: problem_count x n_seeds = " + std::to_string(rows) +
                                " rows is too many for one solve");
}

SolveConfig make_solve_config(const IkProblem& problem, const SolverSettings& s) {
  SolveConfig c;
  c.lm = make_lm_config<float>(s);
  c.problem_count = problem.problem_count();
  c.n_seeds = s.n_seeds;
  c.max_restarts = s.max_restarts;
  c.sampler = s.sampler;
  c.restart_sampler =
      s.sampler == SeedSampler::kRoberts ? SeedSampler::kRoberts : SeedSampler::kUniform;
  c.all_seeds = (s.solve_all_seeds || s.prefer_closest || s.n_seeds == 1) ? 1 : 0;
  c.prefer_closest = s.prefer_closest ? 1 : 0;
  c.has_dof_mask = problem.dof_mask().empty() ? 0 : 1;
  c.sigma = float(s.gaussian_sigma);
  c.rng_seed = s.rng_seed;
  // budgets over kMaxTimeBudgetS mean none: the conversion to ns and start + budget stay exact
  c.time_budget_ns = s.time_budget_s > 0 && s.time_budget_s <= kMaxTimeBudgetS
                         ? uint64_t(std::ceil(s.time_budget_s * 1e9))
                         : 0;
  // the last enabled null-space posture objective, as in the CPU backend
  for (int oi = 0; oi < problem.objective_count(); ++oi) {
    const ObjectiveParams<double>& o = problem.objective(oi).params;
    if (o.type == ObjectiveType::kPosture && o.null_space && o.enabled) {
      c.null_objective = oi;
      c.null_weight = float(o.weight);
    }
  }
  return c;
}

void fill_solve_result(const IkProblem& problem, int n_seeds, const float* row_q,
                       const RowResult* rows, const ProblemPick* picks, SolveResult& res) {
  const int P = problem.problem_count(), S = n_seeds, nq = problem.model().coord_count;
  const std::size_t n_batch = std::size_t(P) * S;
  res.n_seeds = S;
  res.row_q.assign(n_batch * nq, 0.0);
  res.row_cost.assign(n_batch, std::numeric_limits<double>::infinity());
  res.row_converged.assign(n_batch, 0);
  for (std::size_t row = 0; row < n_batch; ++row) {
    if (!rows[row].ran) continue;
    for (int i = 0; i < nq; ++i) res.row_q[row * nq + i] = double(row_q[row * nq + i]);
    res.row_cost[row] = double(rows[row].eval.soft_cost);
    res.row_converged[row] = rows[row].converged;
  }
  res.problems.assign(P, ProblemResult());
  for (int p = 0; p < P; ++p) {
    ProblemResult& pr = res.problems[p];
    const std::size_t row = std::size_t(p) * S + picks[p].seed;
    const RowResult& r = rows[row];
    pr.q.assign(res.row_q.begin() + row * nq, res.row_q.begin() + (row + 1) * nq);
    pr.position_error = double(r.eval.position_error);
    pr.rotation_error = double(r.eval.rotation_error);
    pr.constraint_violation = double(r.eval.violation);
    pr.cost = double(r.eval.soft_cost);
    pr.iterations = r.iterations;
    pr.total_iterations = picks[p].total_iterations;
    pr.seed = picks[p].seed;
    pr.converged = r.converged != 0;
  }
}

}  // namespace ikwb::cuda
