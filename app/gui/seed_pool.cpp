// The budgeted solve's pool of seeds: drawn by the sampler, advanced slice by slice.
#include "app/gui/seed_pool.hpp"

#include <algorithm>

#include "solver/sampler.hpp"

namespace ikwb::gui {

namespace {

// the settings that decide which seeds a draw makes
bool same_draw(const SolverSettings& a, const SolverSettings& b) {
  return a.n_seeds == b.n_seeds && a.sampler == b.sampler && a.gaussian_sigma == b.gaussian_sigma &&
         a.rng_seed == b.rng_seed;
}

}  // namespace

void SeedPool::clear() {
  seeds_.clear();
  drawn_ = false;
  next_ = 0;
}

void SeedPool::rest() {
  for (PoolSeed& s : seeds_) s.advanced = false;
}

bool SeedPool::exhausted() const {
  return !seeds_.empty() &&
         std::all_of(seeds_.begin(), seeds_.end(), [](const PoolSeed& s) { return s.spent; });
}

bool SeedPool::has_work(uint64_t serial) const {
  if (!drawn_for(serial)) return true;
  return std::any_of(seeds_.begin(), seeds_.end(),
                     [](const PoolSeed& s) { return !s.spent && !s.converged; });
}

bool SeedPool::prepare(const IkProblem& problem, uint64_t serial, const SolverSettings& settings,
                       const std::vector<double>& q, uint64_t rng_seed) {
  const Model& m = problem.model();
  if (drawn_ && serial == serial_ && same_draw(settings, drawn_with_) &&
      int(q.size()) == m.coord_count && !exhausted())
    return false;
  // seed k of the pool is the sampler's seed k + 1 (seed 0 is the warm start)
  const int count = std::max(settings.n_seeds - 1, 0);
  seeds_.assign(count, PoolSeed());
  std::vector<double> scratch(m.dof_count);
  const uint8_t* dof_free = problem.dof_mask().empty() ? nullptr : problem.dof_mask().data();
  for (int k = 0; k < count; ++k) {
    seeds_[k].q.resize(m.coord_count);
    sample_seed(m.view(), problem.dof_lower().data(), problem.dof_upper().data(), settings.sampler,
                settings.gaussian_sigma, rng_seed, 0, uint32_t(k + 1), q.data(), seeds_[k].q.data(),
                scratch.data(), dof_free);
  }
  drawn_ = true;
  serial_ = serial;
  drawn_with_ = settings;
  next_ = 0;
  ++generation_;
  return true;
}

PoolStep SeedPool::advance(IkSolver& solver, const IkProblem& problem,
                           const SolverSettings& settings, Clock::time_point deadline) {
  PoolStep step;
  const auto start = Clock::now();
  rest();
  // one seed's slice: the frame's iterations from where it stands, no restarts, no sampling
  SolverSettings slice = settings;
  slice.n_seeds = 1;
  slice.sampler = Sampler::kNone;
  slice.max_restarts = 0;
  const int count = int(seeds_.size());
  for (int turn = 0; turn < count; ++turn) {
    PoolSeed& s = seeds_[(next_ + turn) % count];
    if (s.spent) continue;
    const auto now = Clock::now();
    if (now >= deadline) {
      next_ = (next_ + turn) % count;
      step.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      return step;
    }
    slice.time_budget_s = std::chrono::duration<double>(deadline - now).count();
    solver.solve(problem, slice, s.q, result_);
    const ProblemResult& r = result_.problems[0];
    s.q = r.q;
    s.iterations += r.iterations;
    s.cost = r.cost;
    s.converged = r.converged;
    s.advanced = true;
    s.slice = r;
    // short of its slice without converging, and not for want of time: stalled
    const bool stalled = !r.converged && r.iterations < slice.max_iterations &&
                         !settings.fixed_iterations && Clock::now() < deadline;
    s.spent = !r.converged && (stalled || s.iterations >= kPoolSlices * settings.max_iterations);
    ++step.seeds;
    step.iterations += r.iterations;
  }
  // every unspent seed advanced: next frame starts from the same one
  step.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return step;
}

}  // namespace ikwb::gui
