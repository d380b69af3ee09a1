// The batched IK solver interface: settings, per-problem results, and the backends behind one
// API (cpu: solver/cpu_backend.*, cuda: kernels/).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "solver/problem.hpp"
#include "solver/sampler.hpp"

namespace ikwb {

enum class Backend { kCpu, kCuda };
enum class Optimizer { kLevenbergMarquardt, kLbfgs };
enum class JacobianMode { kAnalytic, kAutodiff, kFiniteDifference, kMixed };
using Sampler = SeedSampler;

const char* to_string(Backend b);
const char* to_string(Optimizer o);
const char* to_string(JacobianMode j);
const char* to_string(Sampler s);
// parse the names above ("cpu", "lm", "lbfgs", "analytic", "roberts", ...); false if unknown
// (these and to_string live in solver/settings.cpp, next to the settings table)
bool parse(const std::string& s, Backend* out);
bool parse(const std::string& s, Optimizer* out);
bool parse(const std::string& s, JacobianMode* out);
bool parse(const std::string& s, Sampler* out);

// Every member has one entry in the settings table (solver/settings.hpp): its scene key,
// command line flag, panel label, range and help. Add a member there too, or it won't compile.
struct SolverSettings {
  // LM: the least-squares optimiser (Levenberg-Marquardt, or L-BFGS), iterations, tolerances
  Optimizer optimizer = Optimizer::kLevenbergMarquardt;
  JacobianMode jacobian = JacobianMode::kAnalytic;
  int max_iterations = 100;        // per seed (and per restart)
  bool fixed_iterations = false;   // run exactly max_iterations, no early exit
  int polish_iterations = 1;       // LM iterations still taken after the tolerances are met
                                   // (each kept only if they stay met; LM only); 0 = stop
  double tol_position = 1e-4;      // m, position / pose / relative objectives
  double tol_rotation = 1e-3;      // rad
  double lambda_init = 1e-3;       // LM damping
  bool marquardt_scaling = false;  // damp with diag(J^T J) instead of the identity
  bool hard_joint_limits = true;   // project onto the limits after each step
  double null_space_gain = 0.5;    // posture objectives applied in the null space (LM only)
  int settle_iterations = 0;       // null-space posture steps a seed takes once the tolerances
                                   // are met (0 = until it settles); a seed stopped before its
                                   // posture settled reports settling
  double max_step = 1.0;           // largest change of any dof in one LM step, rad (or m); a
                                   // longer step is shortened along its direction (0 = none)
  int lbfgs_memory = 8;

  // augmented Lagrangian: the outer loop that enforces hard objectives
  double tol_constraint = 1e-4;  // hard-constraint violation
  int al_inner_iterations = 15;  // LM iterations between multiplier updates
  double al_mu_init = 100.0;     // initial penalty
  double al_mu_growth = 10.0;
  double al_mu_max = 1e8;

  // sampling and restarts: how many seeds, drawn how, restarted when, and which one wins
  int n_seeds = 1;  // seeds per problem; seed 0 is always the initial q
  Sampler sampler = Sampler::kNone;
  double gaussian_sigma = 0.3;   // rad (or m) for the gaussian sampler
  uint64_t rng_seed = 0;         // samplers are deterministic for a given value; a problem
                                 // draws the same seeds alone or anywhere in a batch
  int max_restarts = 0;          // re-seed an unconverged seed (uniform) up to this many times
  int stall_window = 0;          // restart a seed when this many iterations pass without its
                                 // cost falling below kStallDecrease (solver/lm_row.hpp) of
                                 // where it last did (0 = never)
  double time_budget_s = 0;      // per problem; 0 = none (restarts, and the iterations of the
                                 // attempt running, stop when it runs out; `ikwb solve`: 1 s)
  bool prefer_closest = false;   // among converged seeds keep the one closest to the initial q
  bool solve_all_seeds = false;  // run every seed to the end (ghosts); else a problem stops at
                                 // its first converged seed (prefer_closest implies this)
  // with restarts, a revolute joint whose limits span a turn, held at one by a stalled attempt,
  // is turned over once instead of the attempt given up (solver/lm_row.hpp,
  // lm_turn_over_limits); not with prefer_closest, nor along a path (`--sequential`), where the
  // turn would be a jump of the joint between rows
  bool turn_over_limits = true;

  // execution: where and how the batch runs
  Backend backend = Backend::kCpu;
  int threads = 0;         // CPU threads; 0 = hardware concurrency
  bool use_float = false;  // CPU backend in float instead of double
};

struct ProblemResult {
  std::vector<double> q;            // best seed's configuration (coord_count)
  double position_error = 0;        // m, max over position-type objectives (unweighted; axes of
                                    // weight 0 left out)
  double rotation_error = 0;        // rad, max over rotation-type objectives
  double constraint_violation = 0;  // max over hard objectives
  double cost = 0;                  // soft cost 0.5 |r|^2 of the best seed
  int iterations = 0;               // of the best seed (restarts included)
  int total_iterations = 0;         // over all seeds of the problem
  int seed = 0;                     // which seed won
  bool converged = false;           // task errors and violations within the tolerances (with
                                    // only soft posture/limit/distance/custom rows: the cost
                                    // stopped decreasing)
  bool settling = false;            // converged, but the best seed stopped before its null-space
                                    // posture settled (settle_iterations, or out of iterations
                                    // or time): another solve from q moves it on
  double damping = 0;               // the LM damping the best seed ended with (0 from L-BFGS):
                                    // where a warm start from q may begin (the workbench's does)
  double penalty = 0;  // the augmented-Lagrangian penalty mu the best seed ended with (the hard
                       // objectives' weight): where a warm start may begin while they are not
                       // yet met (the workbench's does)
  // (residual_count) the augmented-Lagrangian multipliers the best seed ended with: the force
  // each hard row holds against the soft ones (0 on the other rows), where a warm start begins
  // (WarmStart). Empty when the problem has no hard objective, and from the CUDA backend.
  std::vector<double> multipliers;
};

// What a solve may start from besides the initial configuration: the state the last solve of
// the same problem ended in (the workbench's next frame). The multipliers matter where hard and
// soft objectives pull against each other: a solve that starts them at zero spends its first
// iterations letting the hard rows give way, and one of a few iterations a frame (the
// workbench's) comes back to the same compromise every frame instead of going on toward the
// answer.
struct WarmStart {
  // (problem_count x residual_count) the hard rows' multipliers (ProblemResult::multipliers)
  // each problem's seed 0 begins from, on the attempt that starts at q_init (restarts and other
  // seeds begin at zero); empty: zeros. Both backends.
  std::vector<double> multipliers;
  // the penalty the multipliers were reached at (ProblemResult::penalty), or 0: they are taken
  // as they are. A solve that begins at another penalty (SolverSettings::al_mu_init) rebases
  // them so that the hard rows hold the same force at q_init (rebase_multipliers in lm_row.hpp)
  double penalty = 0;
};

struct SolveResult {
  std::vector<ProblemResult> problems;  // (problem_count)
  // every seed's final state, row = problem * n_seeds + seed
  int n_seeds = 0;
  std::vector<double> row_q;           // (n_batch x coord_count)
  std::vector<double> row_cost;        // (n_batch)
  std::vector<uint8_t> row_converged;  // (n_batch)
  // (n_batch) the augmented-Lagrangian penalty each row ended with, and (n_batch x
  // residual_count) its hard rows' multipliers: where a warm start from that row's q may begin
  // (the workbench keeps another row than the best one). The multipliers are empty without
  // hard objectives.
  std::vector<double> row_penalty;
  std::vector<double> row_multipliers;
  // (n_batch) each row's largest hard violation (its ProblemResult::constraint_violation)
  std::vector<double> row_violation;
  double solve_seconds = 0;
};

class IkSolver {
 public:
  virtual ~IkSolver() = default;
  // Solves every problem. q_init is coord_count values (shared by all problems) or
  // problem_count x coord_count. Throws std::invalid_argument on bad input (sizes, NaN).
  void solve(const IkProblem& problem, const SolverSettings& settings,
             const std::vector<double>& q_init, SolveResult& result) {
    solve(problem, settings, q_init, WarmStart(), result);
  }
  // The same, continuing from warm (validate_warm_start).
  virtual void solve(const IkProblem& problem, const SolverSettings& settings,
                     const std::vector<double>& q_init, const WarmStart& warm,
                     SolveResult& result) = 0;
  virtual Backend backend() const = 0;
};

std::unique_ptr<IkSolver> make_cpu_solver();
// the CUDA backend registers its factory here (kernels/ is linked only into programs that
// want it); it returns null and sets *reason when no device is usable
using CudaSolverFactory = std::unique_ptr<IkSolver> (*)(std::string* reason);
void set_cuda_solver_factory(CudaSolverFactory factory);
// the CUDA solver when built with CUDA and a device is usable; otherwise the CPU solver, and
// *reason says why (no driver, no device, not built with CUDA, an error)
std::unique_ptr<IkSolver> make_solver(Backend backend, std::string* reason);
// true when a CUDA device is usable; *reason says why not
bool cuda_available(std::string* reason);

// A seed is restarted when its cost has not fallen below kStallDecrease (solver/lm_row.hpp) of
// where it last did in this many iterations, wherever targets are solved with restarts (`ikwb
// solve`, the benchmark protocols, Python). Measured (`ikwb bench ROBOT --stall N`, iters
// column): with the halving checked every 5 iterations, 5 against 10 took the Panda's TRAC-IK
// protocol from 22.4 to 18.8 iterations per problem, the UR5e from 33.5 to 29.8, the iiwa7 from
// 12.1 to 11.9; checked every iteration against 0.7, a window of 4 took them to 16.7, 23.4 and
// 10.9 (5: 17.4, 23.8, 10.8), and the humanoid's whole-body solve (whole_body_bench, 16 seeds)
// from 88.7 to 72.0. Success stayed 100 %.
constexpr int kRestartStallWindow = 4;

// The initial LM damping of solves that start far from the answer (`ikwb solve` from the middle
// of the limits, uniform restarts, the benchmark protocols); SolverSettings keeps 1e-3 for the
// workbench, whose warm start is a few millimetres away. Measured (docs/benchmarks.md, "Shorter
// steps, earlier restarts"): TRAC-IK protocol iterations per problem 1e-3 -> 3e-2: Panda 18.8 ->
// 17.7, UR5e 29.8 -> 24.8, iiwa7 11.9 -> 11.0; whole_body_bench's 16-seed humanoid solve 260 ->
// 180. A warm start 2 mm away takes 3.1 iterations at 1e-3 and 5.1 at 3e-2.
constexpr double kColdStartDamping = 3e-2;

// The settings of `ikwb solve` before a scene or the command line changes them (README
// "Command line"): the one seed, up to 50 uniform restarts, 60 iterations, the stall window
// and the damping above and a time budget of 1 s per target.
SolverSettings batch_solve_settings();

// A scene saved by the workbench carries its settings per frame (20 iterations, no restarts, no
// stall window, posture steps, no time budget); a batch solve from them stops short (a hard foot
// read traded off after 20 iterations) and runs 30-40 times slower on targets far from the
// scene's pose. Lifts those of s below batch_solve_settings() to it, except the settings `given`
// says the caller sets itself (by scene key: iterations, restarts, stall, settle_iterations,
// budget_ms). Returns what was lifted, as "iterations 60", ... (empty: nothing).
std::vector<std::string> lift_per_frame_settings(
    SolverSettings& s, const std::function<bool(const std::string& key)>& given = nullptr);

// A scene's prefer_closest is the workbench's (every seed runs each frame anyway, for the
// ghosts); in a batch of independent rows it runs every seed of every row to its end, restarts
// and all, to keep the converged answer closest to the start: the humanoid stance preset's 16
// seeds made a row of arm targets about 300 times slower than its first seed, which converged
// from the scene's configuration in 5 iterations. Turned off for such a batch (the seeds one
// after another until one converges) unless `given` (the caller set it); a sequential solve
// keeps it (a row whose warm attempt fails keeps the closest of its seeds' answers). True when
// it was turned off.
bool lift_prefer_closest(SolverSettings& s, bool sequential, bool given);
// what lift_prefer_closest did, for a note
constexpr const char* kPreferClosestLifted =
    "prefer_closest is off for independent rows: each row's seeds are tried one after another "
    "until one converges, not all to the end for the answer closest to the start (about n_seeds "
    "times the work)";

// The initial damping of a start a few millimetres from the answer (SolverSettings' default,
// the workbench's warm start).
constexpr double kWarmStartDamping = 1e-3;

// One row of a sequence (`ikwb solve --sequential`, Python's Scene.solve(sequential=True)), from
// `previous`, the answer to the row before, and its result (whose hard rows' multipliers it takes
// back in): first one attempt from there as the workbench's frames begin, with the damping of a
// warm start (at most kWarmStartDamping); only when that does not converge, the settings' seeds
// and restarts, in the time the settings' budget has left. From the batch damping alone a warm
// attempt against a joint limit stalled (a humanoid's foot: 6.8e-4 m after 500 iterations where
// 1e-3 converges in 4) and a restart jumped branches, 3.1 rad in one frame of a smooth path.
// The restarts' answer is kept only where it is of a higher tier than the attempt's (converged,
// or holding the hard objectives): a compromise moves on from the row before. Where the row
// before was such a compromise too and this row's attempt holds the hard objectives, the
// restarts are skipped but for every kCompromiseRestarts-th row in a row; compromise_rows counts
// those skipped (the caller keeps it from row to row, 0 at the first).
// `result` holds the row's answer; its iterations count both solves. cold: `previous` is a start
// of no standing (no answer, no guess of the user's: a default pose), so between answers of the
// same tier the one of lower cost is kept (the start's compromise was kept at 20 times the cost
// of the restarts' own). back_in (or null): the sequence's last converged answer; where the
// restarts are skipped and the attempt does not converge, one attempt from there follows at the
// 1st, 2nd, 4th, 8th ... such row in a row, kept where it converges (a path coming back within
// reach).
constexpr int kCompromiseRestarts = 32;
void solve_from_previous(IkSolver& solver, const IkProblem& problem, const SolverSettings& settings,
                         const std::vector<double>& previous, const ProblemResult& previous_result,
                         int& compromise_rows, SolveResult& result, bool cold = false,
                         const std::vector<double>* back_in = nullptr);

// shared input checks for every backend: sizes, finiteness; returns q_init per problem
std::vector<double> expand_initial(const IkProblem& problem, const std::vector<double>& q_init);
void validate_settings(const SolverSettings& s);
// warm's multipliers are empty or problem_count x residual_count finite values, and its penalty
// finite and >= 0; else std::invalid_argument naming warm.multipliers or warm.penalty
void validate_warm_start(const IkProblem& problem, const WarmStart& warm);

}  // namespace ikwb
