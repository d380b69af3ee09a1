#include "solver/solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ikwb {

namespace {
CudaSolverFactory g_cuda_factory = nullptr;
}  // namespace

SolverSettings batch_solve_settings() {
  SolverSettings s;
  s.max_restarts = 50;
  s.max_iterations = 60;
  s.stall_window = kRestartStallWindow;
  s.lambda_init = kColdStartDamping;
  s.time_budget_s = 1.0;  // a huge robot gives its best after a second (--budget-ms)
  return s;
}

void solve_from_previous(IkSolver& solver, const IkProblem& problem, const SolverSettings& settings,
                         const std::vector<double>& previous, const ProblemResult& previous_result,
                         int& compromise_rows, SolveResult& result, bool cold,
                         const std::vector<double>* back_in) {
  SolverSettings warm = settings;
  warm.n_seeds = 1;
  warm.max_restarts = 0;
  warm.solve_all_seeds = false;
  warm.lambda_init = std::min(settings.lambda_init, kWarmStartDamping);
  WarmStart start;
  if (problem.problem_count() == 1 &&
      int(previous_result.multipliers.size()) == problem.residual_count())
    start.multipliers = previous_result.multipliers;
  solver.solve(problem, warm, previous, start, result);
  auto tier = [&](const ProblemResult& r) {
    return r.converged ? 2 : r.constraint_violation <= settings.tol_constraint ? 1 : 0;
  };
  // A compromise moving on (soft targets that cannot all be met, a weighted posture holding a
  // hand back): the row before did not converge, so its restarts found no converged answer
  // either, and this row's attempt holds the hard objectives as that one did. Its restarts would
  // only be kept if they converged, and cost 10-20 times the attempt (a dual arm's tools held
  // apart as their targets meet: 35.1 ms a row against 1.7): they are left out, but for
  // every kCompromiseRestarts-th such row in a row, which looks again for a converged answer
  // the attempts cannot reach from where they are.
  bool all = true, skipped = false;
  for (const ProblemResult& p : result.problems) {
    const bool moving_on = !previous_result.converged && tier(previous_result) == 1 &&
                           tier(p) == 1 && compromise_rows + 1 < kCompromiseRestarts;
    skipped = skipped || (!p.converged && moving_on);
    all = all && (p.converged || moving_on);
  }
  if (all) {
    compromise_rows = skipped ? compromise_rows + 1 : 0;
    // one attempt from the sequence's last converged answer, where this row's does not converge
    // either: a path back within reach (one target out of reach on a path left the next 31
    // reachable ones unconverged, each moving on from the stretch of the row before); kept only
    // where it converges. At the 1st, 2nd, 4th, 8th ... row of such a run: a compromise that
    // moves on for good pays it a few times, not at every row
    const bool power_of_two = (compromise_rows & (compromise_rows - 1)) == 0;
    if (skipped && power_of_two && back_in && !back_in->empty() && *back_in != previous) {
      SolveResult again;
      solver.solve(problem, warm, *back_in, WarmStart{}, again);
      bool back = false;
      for (std::size_t i = 0; i < result.problems.size(); ++i) {
        ProblemResult& p = result.problems[i];
        const int spent_before = p.total_iterations;
        if (p.converged || !again.problems[i].converged) {
          p.iterations += again.problems[i].total_iterations;
          p.total_iterations += again.problems[i].total_iterations;
          continue;
        }
        p = again.problems[i];
        p.iterations += spent_before;
        p.total_iterations += spent_before;
        back = true;
      }
      result.solve_seconds += again.solve_seconds;
      if (back) compromise_rows = 0;
    }
    return;
  }
  compromise_rows = 0;
  const double spent = result.solve_seconds;
  std::vector<int> warm_iterations;
  for (const ProblemResult& p : result.problems) warm_iterations.push_back(p.total_iterations);
  SolverSettings rest = settings;
  if (settings.time_budget_s > 0)
    rest.time_budget_s = std::max(settings.time_budget_s - spent, 0.1 * settings.time_budget_s);
  SolveResult from_previous = result;
  solver.solve(problem, rest, previous, start, result);
  // The restarts' answer replaces the one from the row before only where it is of a higher tier
  // (converged, or holding the hard objectives where that one does not; pick_tier): a row that
  // cannot meet every objective (soft targets held apart by a hard minimum distance, a hand out of
  // reach) is a compromise either way, and the restarts' own compromise, found on another branch
  // with a slightly lower cost, jumped a dual arm's joints up to 5.1 rad between rows 1 cm apart
  // in 18 of 60 rows, where the compromise from the row before moves on with the targets.
  for (std::size_t i = 0; i < result.problems.size(); ++i) {
    ProblemResult& p = result.problems[i];
    const ProblemResult& w = from_previous.problems[i];
    const int rest_iterations = p.iterations, rest_total = p.total_iterations;
    const bool better = tier(p) > tier(w) || (cold && tier(p) == tier(w) && p.cost < w.cost);
    if (!better) p = w;
    p.iterations = warm_iterations[i] + rest_iterations;
    p.total_iterations = warm_iterations[i] + rest_total;
  }
  result.solve_seconds += spent;
}

std::vector<std::string> lift_per_frame_settings(
    SolverSettings& s, const std::function<bool(const std::string& key)>& given) {
  const SolverSettings batch = batch_solve_settings();
  std::vector<std::string> lifted;
  auto lift = [&](bool below, const std::string& key, const std::string& to_text, auto* value,
                  auto to) {
    if (!below || (given && given(key))) return;
    lifted.push_back(key + " " + to_text);
    *value = to;
  };
  lift(s.max_iterations < batch.max_iterations, "iterations", std::to_string(batch.max_iterations),
       &s.max_iterations, batch.max_iterations);
  lift(s.max_restarts < batch.max_restarts, "restarts", std::to_string(batch.max_restarts),
       &s.max_restarts, batch.max_restarts);
  lift(s.stall_window == 0, "stall", std::to_string(batch.stall_window), &s.stall_window,
       batch.stall_window);
  lift(s.settle_iterations > 0, "settle_iterations", "0 (until settled)", &s.settle_iterations,
       batch.settle_iterations);
  lift(!(s.time_budget_s > 0), "budget_ms", std::to_string(int(batch.time_budget_s * 1e3)),
       &s.time_budget_s, batch.time_budget_s);
  return lifted;
}

bool lift_prefer_closest(SolverSettings& s, bool sequential, bool given) {
  if (sequential || given || !s.prefer_closest || s.n_seeds < 2) return false;
  s.prefer_closest = false;
  return true;
}

void validate_settings(const SolverSettings& s) {
  auto bad = [](const std::string& what) {
    throw std::invalid_argument("solver settings: " + what);
  };
  auto positive = [&](double v, const char* name) {
    if (!(v > 0)) bad(std::string(name) + " must be > 0, got " + std::to_string(v));
  };
  if (s.n_seeds < 1) bad("n_seeds must be >= 1, got " + std::to_string(s.n_seeds));
  if (s.max_iterations < 0)
    bad("max_iterations must be >= 0, got " + std::to_string(s.max_iterations));
  if (s.max_restarts < 0) bad("max_restarts must be >= 0, got " + std::to_string(s.max_restarts));
  if (s.polish_iterations < 0)
    bad("polish_iterations must be >= 0, got " + std::to_string(s.polish_iterations));
  if (s.stall_window < 0) bad("stall_window must be >= 0, got " + std::to_string(s.stall_window));
  if (s.settle_iterations < 0)
    bad("settle_iterations must be >= 0 (0 = until it settles), got " +
        std::to_string(s.settle_iterations));
  if (s.threads < 0) bad("threads must be >= 0, got " + std::to_string(s.threads));
  positive(s.tol_position, "tol_position");
  positive(s.tol_rotation, "tol_rotation");
  positive(s.tol_constraint, "tol_constraint");
  if (!(s.lambda_init > 0) || !std::isfinite(s.lambda_init))
    bad("lambda_init must be finite and > 0");
  if (!(s.gaussian_sigma >= 0) || !std::isfinite(s.gaussian_sigma))
    bad("gaussian_sigma must be finite and >= 0");
  if (s.lbfgs_memory < 1) bad("lbfgs_memory must be >= 1");
  if (s.al_inner_iterations < 1) bad("al_inner_iterations must be >= 1");
  if (!(s.al_mu_init > 0) || !std::isfinite(s.al_mu_init)) bad("al_mu_init must be finite and > 0");
  if (!(s.al_mu_growth >= 1) || !std::isfinite(s.al_mu_growth))
    bad("al_mu_growth must be finite and >= 1");
  if (!(s.al_mu_max > 0)) bad("al_mu_max must be > 0");
  if (!(s.null_space_gain >= 0) || !std::isfinite(s.null_space_gain))
    bad("null_space_gain must be finite and >= 0");
  if (!(s.max_step >= 0) || !std::isfinite(s.max_step))
    bad("max_step must be finite and >= 0 (0 = no limit), got " + std::to_string(s.max_step));
  if (!(s.time_budget_s >= 0) || !std::isfinite(s.time_budget_s))
    bad("time_budget_s must be finite and >= 0 (0 = no budget), got " +
        std::to_string(s.time_budget_s));
}

std::vector<double> expand_initial(const IkProblem& problem, const std::vector<double>& q_init) {
  const Model& m = problem.model();
  const std::size_t nq = m.coord_count, P = problem.problem_count();
  std::vector<double> q;
  if (q_init.size() == nq) {
    q.reserve(nq * P);
    for (std::size_t p = 0; p < P; ++p) q.insert(q.end(), q_init.begin(), q_init.end());
  } else if (q_init.size() == nq * P) {
    q = q_init;
  } else {
    throw std::invalid_argument(
        "solve: q_init has " + std::to_string(q_init.size()) +
        " values, expected joint_coord_count = " + std::to_string(nq) +
        " or problem_count x joint_coord_count = " + std::to_string(nq * P));
  }
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (std::isfinite(q[i])) continue;
    // name the problem (when there are several rows) and the joint of the coordinate
    const int c = int(i % nq);
    int j = 0;
    while (j + 1 < m.joint_count && m.joint_q_start[j + 1] <= c) ++j;
    std::ostringstream msg;
    msg << "solve: q_init has a non-finite value (" << q[i] << ") at ";
    if (q_init.size() != nq) msg << "problem " << i / nq << ", ";
    msg << "coordinate " << c << " (joint '" << m.joint_name[j] << "')";
    throw std::invalid_argument(msg.str());
  }
  // quaternion coordinates are renormalised so a slightly drifted input still works
  for (std::size_t p = 0; p < P; ++p) {
    double* row = q.data() + p * nq;
    for (int j = 0; j < m.joint_count; ++j) {
      JointType t = JointType(m.joint_type[j]);
      if (m.joint_mimic[j] >= 0 || (t != JointType::kBall && t != JointType::kFree)) continue;
      double* c = row + m.joint_q_start[j] + (t == JointType::kFree ? 3 : 0);
      Quat<double> r{c[0], c[1], c[2], c[3]};
      if (!(quat_norm(r) > 1e-9))
        throw std::invalid_argument("solve: q_init has a zero quaternion for joint '" +
                                    m.joint_name[j] + "'");
      r = normalize(r);
      c[0] = r.x, c[1] = r.y, c[2] = r.z, c[3] = r.w;
    }
  }
  return q;
}

void validate_warm_start(const IkProblem& problem, const WarmStart& warm) {
  if (!(std::isfinite(warm.penalty) && warm.penalty >= 0))
    throw std::invalid_argument("solve: warm.penalty must be finite and >= 0, got " +
                                std::to_string(warm.penalty));
  const std::vector<double>& l = warm.multipliers;
  if (l.empty()) return;
  const std::size_t expected = std::size_t(problem.problem_count()) * problem.residual_count();
  if (l.size() != expected)
    throw std::invalid_argument(
        "solve: warm.multipliers has " + std::to_string(l.size()) +
        " values, expected problem_count x residual_count = " + std::to_string(expected));
  for (std::size_t i = 0; i < l.size(); ++i)
    if (!std::isfinite(l[i]))
      throw std::invalid_argument("solve: warm.multipliers has a non-finite value at " +
                                  std::to_string(i));
}

void set_cuda_solver_factory(CudaSolverFactory factory) {
  g_cuda_factory = factory;
}

namespace {

// Why there is no CUDA backend to make: the configure step's verdict (CMakeLists.txt,
// IKWB_CUDA_STATUS) when it did not build one, else that this program does not register it
// (only the ikwb command does; app/main.cpp).
std::string no_cuda_backend_reason() {
  const std::string status = IKWB_CUDA_BUILD_STATUS;
  if (status.rfind("not built", 0) == 0) return "this build has no CUDA backend (" + status + ")";
  return "this program does not register the CUDA backend (the ikwb command does)";
}

}  // namespace

bool cuda_available(std::string* reason) {
  if (!g_cuda_factory) {
    if (reason) *reason = no_cuda_backend_reason();
    return false;
  }
  std::string why;
  auto s = g_cuda_factory(&why);
  if (!s && reason) *reason = why;
  return bool(s);
}

std::unique_ptr<IkSolver> make_solver(Backend backend, std::string* reason) {
  if (backend == Backend::kCuda) {
    std::string why = no_cuda_backend_reason();
    if (g_cuda_factory) {
      auto s = g_cuda_factory(&why);
      if (s) return s;
    }
    if (reason) *reason = "CUDA unavailable: " + why + "; using the CPU backend";
  }
  return make_cpu_solver();
}

}  // namespace ikwb
