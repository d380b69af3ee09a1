#include "app/cli/solver_args.hpp"

#include <cmath>

#include "app/cli/csv.hpp"

namespace ikwb {

void add_solver_options(ArgParser& a) {
  a.add_option("backend", "cpu|cuda", "solver backend (cuda falls back to cpu with a notice)");
  a.add_option("optimizer", "lm|lbfgs", "Levenberg-Marquardt (default) or L-BFGS");
  a.add_option("jacobian", "MODE", "analytic (default), autodiff, fd, mixed");
  a.add_option("seeds", "N", "seeds per target (seed 0 is the initial configuration)");
  a.add_option("sampler", "NAME", "none, gaussian, uniform, roberts");
  a.add_option("iterations", "N", "iterations per seed and restart");
  a.add_option("polish", "N", "iterations kept after the tolerances are met (default 1)");
  a.add_option("restarts", "N", "re-seed unconverged seeds up to N times");
  a.add_option("stall", "N", "restart a seed whose cost has not halved in N iterations");
  a.add_option("tol-pos", "M", "position tolerance in metres");
  a.add_option("tol-rot", "RAD", "rotation tolerance in radians");
  a.add_option("budget-ms", "MS", "time budget per target for restarts (0 = none)");
  a.add_option("threads", "N", "CPU threads (0 = all cores)");
  a.add_option("rng-seed", "N", "sampler seed (runs are deterministic for a given value)");
  a.add_flag("float", "solve in single precision on the CPU");
  a.add_flag("soft-limits", "do not project onto the joint limits after each step");
}

SolverSettings read_solver_options(const ArgParser& a, SolverSettings s) {
  auto choice = [&](const char* name, auto* out) {
    if (!a.has(name)) return;
    if (!parse(a.get(name), out))
      throw CliError("--" + std::string(name) + ": unknown value '" + a.get(name) + "'");
  };
  choice("backend", &s.backend);
  choice("optimizer", &s.optimizer);
  choice("jacobian", &s.jacobian);
  choice("sampler", &s.sampler);
  s.n_seeds = int(a.get_int("seeds", s.n_seeds));
  s.max_iterations = int(a.get_int("iterations", s.max_iterations));
  s.polish_iterations = int(a.get_int("polish", s.polish_iterations));
  s.max_restarts = int(a.get_int("restarts", s.max_restarts));
  s.stall_window = int(a.get_int("stall", s.stall_window));
  s.tol_position = a.get_double("tol-pos", s.tol_position);
  s.tol_rotation = a.get_double("tol-rot", s.tol_rotation);
  s.time_budget_s = a.get_double("budget-ms", s.time_budget_s * 1e3) * 1e-3;
  s.threads = int(a.get_int("threads", s.threads));
  s.rng_seed = uint64_t(a.get_int("rng-seed", (long long)s.rng_seed));
  if (a.has("float")) s.use_float = true;
  if (a.has("soft-limits")) s.hard_joint_limits = false;
  if (s.n_seeds > 1 && s.sampler == Sampler::kNone && !a.has("sampler"))
    s.sampler = Sampler::kRoberts;
  try {
    validate_settings(s);
  } catch (const std::invalid_argument& e) {
    throw CliError(e.what());
  }
  return s;
}

Vec3<double> parse_vec3(const std::string& name, const std::string& text) {
  std::vector<std::string> f = split_csv_line(text);
  Vec3<double> v{0, 0, 0};
  if (f.size() != 3) throw CliError("--" + name + ": expected X,Y,Z, got '" + text + "'");
  for (int i = 0; i < 3; ++i) {
    char* end = nullptr;
    v[i] = std::strtod(f[i].c_str(), &end);
    if (end == f[i].c_str() || *end || !std::isfinite(v[i]))
      throw CliError("--" + name + ": '" + f[i] + "' is not a finite number");
  }
  return v;
}

}  // namespace ikwb
