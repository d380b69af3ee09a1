// The other seeds of the workbench's budgeted frame solve (SolverDriver with a frame budget):
// n_seeds - 1 configurations drawn once by the settings' sampler around the robot, then
// advanced a slice of iterations at a time from where they stopped, over as many frames as it
// takes, instead of being drawn and solved afresh every frame.
//
// A slice is one seed's solve of settings.max_iterations iterations (what every seed got per
// frame without a budget) from its configuration, with no restarts (a spent pool is redrawn
// instead) and the time left in the frame as its time budget. The LM's damping and multipliers
// start afresh each slice, as the warm start's do each frame; only the configuration carries
// over. A seed is spent after kPoolSlices slices without converging, or when its LM stopped
// short of its slice on its own (stalled at a local minimum). Converged seeds stay: they are
// branches, and after a drag they continue against the new targets.
//
// A new pool is drawn when there is none for this problem (robot, objectives added or
// removed: IkProblem rebuilt), when a setting that draws seeds changes (n_seeds, sampler,
// gaussian_sigma, rng_seed), or when every seed is spent. A drag (targets moved, weights
// edited) keeps the pool: its seeds are stale, but still spread over the robot's branches, so
// they keep advancing against the new targets.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

#include "solver/solver.hpp"

namespace ikwb::gui {

// slices a seed may run without converging before it is spent
constexpr int kPoolSlices = 8;

struct PoolSeed {
  std::vector<double> q;                                  // where it stands (coord_count)
  int iterations = 0;                                     // since the pool was drawn
  double cost = std::numeric_limits<double>::infinity();  // at q, after its last slice
  bool converged = false;                                 // after its last slice
  bool spent = false;
  // this frame: whether it advanced, and its slice's result (the solver's own numbers)
  bool advanced = false;
  ProblemResult slice;
};

// what one frame's advance did
struct PoolStep {
  int seeds = 0;       // seeds advanced
  int iterations = 0;  // over them
  double seconds = 0;  // wall time
};

class SeedPool {
 public:
  using Clock = std::chrono::steady_clock;

  // Draws a fresh pool around q when needed (see above). serial: AppState::problem_serial();
  // rng_seed: the sampler's seed for a new draw. True when it drew one.
  bool prepare(const IkProblem& problem, uint64_t serial, const SolverSettings& settings,
               const std::vector<double>& q, uint64_t rng_seed);
  // Advances the seeds one slice each, starting after the last one advanced (so seeds take
  // turns when the time does not reach them all), each at most once, until every unspent seed
  // has advanced or the clock reaches `deadline`. Clears every seed's `advanced` first.
  PoolStep advance(IkSolver& solver, const IkProblem& problem, const SolverSettings& settings,
                   Clock::time_point deadline);
  // a frame that does not advance the pool: no seed has `advanced` (their slices are of an
  // earlier frame, whose targets may have moved since)
  void rest();
  // forgets the pool (the next prepare draws one)
  void clear();

  const std::vector<PoolSeed>& seeds() const { return seeds_; }
  // the pool was drawn for the problem of this serial (AppState::problem_serial())
  bool drawn_for(uint64_t serial) const { return drawn_ && serial_ == serial; }
  uint64_t generation() const { return generation_; }  // pools drawn since start
  // seeds are left to advance for the problem of this serial: none drawn for it yet, or one
  // neither converged nor spent (a spent pool has none: it is redrawn only by a solve)
  bool has_work(uint64_t serial) const;

 private:
  bool exhausted() const;  // every seed spent (an empty pool, of n_seeds 1, never is)

  std::vector<PoolSeed> seeds_;
  int next_ = 0;  // the seed whose turn it is
  uint64_t generation_ = 0;
  // what the pool was drawn for
  bool drawn_ = false;
  uint64_t serial_ = 0;
  SolverSettings drawn_with_;
  SolveResult result_;  // a slice's, reused
};

}  // namespace ikwb::gui
