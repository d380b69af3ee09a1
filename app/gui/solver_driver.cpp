// Per-frame solve: backend choice and fallback, the bounded warm-started solve (every seed, or
// the warm start then the seed pool within the frame budget), seed policy, and "settled"
// detection (converged, or a best effort that no longer improves).
#include "app/gui/solver_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "app/gui/visuals.hpp"
#include "solver/row_driver.hpp"

namespace ikwb::gui {

namespace {

// frames without progress (on an unchanged problem) before another seed may replace the warm
// start, and before the solver rests on a best effort
constexpr int kEscapeFrames = 10;
constexpr int kRestFrames = 30;
// another seed must beat the warm start's cost by this factor to replace it
constexpr double kEscapeGain = 0.5;
// progress: the task error or the soft cost fell by this fraction below where it stood when
// either last did (a crawl of 1.9 % a frame is progress over two frames; measured against the
// frame before, it read as stalled and the robot rested after kRestFrames while still closing
// in; and a soft trade-off lowers the cost while a hand's error grows); a best effort that made
// none for kSettledFrames frames has settled
constexpr double kProgress = 0.02;
constexpr int kSettledFrames = 3;
// ... and moved no dof by more than this (rad or m) in as many frames: a best effort still
// moving is not settled. A humanoid's soft trade-off made under 2 % progress a frame while it
// swung dofs up to 0.03 rad a frame, and the state switched between solving and best effort 7
// times in 18 frames (a timeline key taken the frame it read settled stored a pose still on
// its way). After kRestFrames without progress it settles moving or not, so a best effort that
// keeps swinging still comes to rest.
constexpr double kStillMotion = 1e-4;
// a frame whose solve reports the posture settling but moved no dof by more than this
// (rad or m) has settled too: the posture's steps cannot go on (each is undone to keep the
// task), far below the 1e-5 step at which the solver calls a posture settled
constexpr double kSettleMotion = 1e-8;
// The budgeted warm start begins with the LM damping the last one ended with, held within
// [kWarmDampingFloor x damping, damping]: a drag's first step from a converged pose is then
// nearly Gauss-Newton instead of damped as if the target had jumped, and a frame that ended
// with the damping raised (a jump, a row turning active) passes that on. Measured
// (docs/benchmarks.md, "Posture steps that stop at an edge, the warm start's damping"): the
// humanoid preset's left hand dragged 2 mm a frame took 3.57 iterations a frame over 288
// frames from 1e-3, 3.18 with a floor of 1/10, 3.22 with 1/100; the Panda's unchanged (2.82).
// Only while the hard objectives stand as they did: after a hard objective is turned on or off
// (or an objective made hard or soft), and after a frame that left a hard objective off, the
// warm start begins from the setting. The humanoid's hard balance turned on again 2.4 cm off
// took a near Gauss-Newton first step from the 1e-4 its converged frames had left, and the feet
// came 12 cm off, the hand 0.59 m; the frame after, still pulling the balance in, did the same
// from the damping the first had ended with. A soft objective turned on or off leaves the hard
// rows as they were and keeps it.
constexpr double kWarmDampingFloor = 0.1;

// the indices of the enabled hard objectives: the rows the augmented Lagrangian holds (a soft
// objective added or turned on or off leaves them)
std::vector<int> hard_objectives(const AppState& app) {
  std::vector<int> hard;
  for (std::size_t i = 0; i < app.objectives.size(); ++i)
    if (app.objectives[i].enabled() && app.objectives[i].spec.params.hard) hard.push_back(int(i));
  return hard;
}
// The penalty a frame's hard objectives start with is the last kept seed's, at most this many
// times the settings' initial one: the multipliers carried over hold the forces, and a penalty
// carried up to its 1e8 cap left the frames crawling (the balance_vs_reach demo's hand reached
// its compromise after 150 frames at 1e8, 75 at 1e4 = 100 x the default 100). The multipliers
// go with the penalty they were reached at (WarmStart::penalty), so that the solve rebases them
// to the lower one it begins at and the hard rows hold where they stood.
constexpr double kCarriedPenalty = 100;

struct TaskErrors {
  double position = 0;  // m, largest over pursued objectives with a target
  double rotation = 0;  // rad
  double combined() const { return position + 0.1 * rotation; }  // 0.1 m per radian
};

// from the objectives' status (the solver's residual rows at the last evaluate())
TaskErrors task_errors(const AppState& app) {
  TaskErrors e;
  for (const WorkbenchObjective& o : app.objectives) {
    if (!o.status.pursued || !o.has_target()) continue;
    e.position = std::max(e.position, o.status.position_error);
    e.rotation = std::max(e.rotation, o.status.rotation_error);
  }
  return e;
}

// a status of no solve this frame: settled where the robot is, with its task errors
void set_resting(SolveStatus& st, const TaskErrors& e, bool converged) {
  st.settled = true;
  st.converged = converged;
  st.settling = false;
  st.iterations = 0;
  st.total_iterations = 0;
  st.solve_ms = 0;
  st.position_error = e.position;
  st.rotation_error = e.rotation;
}

// The seed policy: the solver's pick when it converged (the closest converged seed); else the
// warm start (seed 0), unless the robot has been stuck for kEscapeFrames and the pick beats the
// warm start's cost by kEscapeGain. r: this frame's rows (row_cost).
int keep_seed(int pick, bool pick_converged, const SolveResult& r, int stalled_frames) {
  if (pick_converged) return pick;
  if (stalled_frames >= kEscapeFrames && r.row_cost[pick] < kEscapeGain * r.row_cost[0])
    return pick;
  return 0;
}

// The settings the seeds are drawn with: once the robot has been stuck for kEscapeFrames on an
// unchanged problem (this frame's too: the count is the last problem's until the status after
// this solve), over the whole joint range (uniform) instead of about where it stands (a
// review's iiwa stayed 74 mm from a reachable target with its wrist on a limit, every seed drawn
// within the gaussian's 0.3 rad of it, where a seed of another branch reaches it)
SolverSettings seeds_settings(SolverSettings s, const AppState& app, bool same_problem) {
  if (same_problem && app.solve.stalled_frames >= kEscapeFrames && s.sampler != Sampler::kNone)
    s.sampler = Sampler::kUniform;
  return s;
}

}  // namespace

bool same_settings(const SolverSettings& a, const SolverSettings& b) {
  return a == b;  // every entry of the settings table (solver/settings.hpp), so every member
}

SolverDriver::~SolverDriver() {
  if (pending_stop_) pending_stop_->store(true);
}

void SolverDriver::init(AppState& app) {
  std::string reason;
  app.solve.cuda_available = cuda_available(&reason);
  app.solve.cuda_reason = app.solve.cuda_available ? "" : reason;
}

void SolverDriver::ensure_solver(AppState& app) {
  if (solver_ && solver_for_ == app.settings.backend) return;
  std::string reason;
  solver_ = make_solver(app.settings.backend, &reason);
  solver_for_ = app.settings.backend;
  note_ = solver_->backend() == app.settings.backend ? "" : reason;
  if (!note_.empty()) app.warn(note_);
}

bool SolverDriver::idle(const AppState& app) const {
  if (!have_last_ || !app.solve.settled) return false;
  if (!app.solve.converged && app.solve.stalled_frames < kRestFrames) return false;
  if (!app.solve.converged && kept_state_.hard_off && hard_off_frames_ < kRestFrames) return false;
  if (app.solve.settling && settling_frames_ < kRestFrames) return false;
  if (app.want_alternatives && app.frame_budget_ms > 0 && pool_.has_work(app.problem_serial()))
    return false;
  return serial_ == app.problem_serial() && version_ == app.problem()->version() &&
         q_after_ == app.joint_q && same_settings(settings_, app.settings) &&
         budget_ms_ == app.frame_budget_ms;
}

void SolverDriver::step_frame(AppState& app) {
  app.ensure_fk();  // a joint set by hand moves the targets before the solver sees them
  app.sync();
  if (app.rest_on_opened && app.problem()) {
    app.rest_on_opened = false;
    app.evaluate();
    rest_here(app);
    explain(app, false);
    return;
  }
  const bool rested = idle(app);
  const bool ran = solve(app);
  app.evaluate();
  if (ran) update_status(app);
  explain(app, rested && !ran && !app.solve.as_opened);
}

void SolverDriver::explain(AppState& app, bool rested) {
  rested = rested && app.problem();
  ExplainKey now;
  if (rested) now = {app.problem_serial(), app.problem()->version(), app.joint_q, app.settings};
  auto same = [](const ExplainKey& a, const ExplainKey& b) {
    return a.serial == b.serial && a.version == b.version && a.q == b.q &&
           same_settings(a.settings, b.settings);
  };
  // a finished explanation counts only while the robot still rests on what it explained
  if (pending_.valid() && pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    CompromiseReport r;
    try {
      r = pending_.get();
    } catch (const std::exception& e) {
      app.error(std::string("explaining the solution failed: ") + e.what());
    }
    if (r.stopped) {
      ++app.solve.explanations_stopped;
    } else if (rested && same(pending_key_, now)) {
      for (std::size_t i = 0; i < app.objectives.size() && i < r.objectives.size(); ++i) {
        ObjectiveStatus& s = app.objectives[i].status;
        s.explained = true;
        s.status = r.objectives[i].status;
        s.blocked_by = r.objectives[i].blocked_by;
        s.pulled_by = r.objectives[i].pulled_by;
        s.helped_by = r.objectives[i].helped_by;
        s.unit = r.objectives[i].unit;
        s.share_error = r.objectives[i].error;
        s.best_error = r.objectives[i].best_error;
      }
      app.solve.explain_ms = r.seconds * 1e3;
      app.solve.explain_solves = r.solves;
      ++app.solve.explanations;
      explained_ = true;
      explained_key_ = pending_key_;
    }
  }
  // one running for what the robot no longer rests on ends at its next test solve
  if (pending_.valid() && !(rested && same(pending_key_, now))) pending_stop_->store(true);
  if (!rested) {
    if (!explained_) return;
    explained_ = false;
    for (WorkbenchObjective& o : app.objectives) {
      o.status.explained = false;
      o.status.status = ReachStatus::kReached;
      o.status.blocked_by.clear();
      o.status.pulled_by.clear();
      o.status.helped_by.clear();
      o.status.best_error = std::numeric_limits<double>::quiet_NaN();
    }
    return;
  }
  // one at a time: an outdated one still running (stopped above) is waited for
  if ((explained_ && same(explained_key_, now)) || pending_.valid()) return;
  pending_key_ = now;
  pending_stop_ = std::make_shared<std::atomic<bool>>(false);
  pending_ = std::async(std::launch::async, [problem = *app.problem(), q = app.joint_q,
                                             settings = app.settings, stop = pending_stop_]() {
    return explain_compromise(problem, 0, q, settings, stop.get());
  });
}

bool SolverDriver::solve(AppState& app) {
  SolveStatus& st = app.solve;
  st.ran = false;
  st.step_bound.clear();  // held back this frame: none unless this frame's solve binds
  // an edit ends the pose shown as opened, whether a solve follows or not (live solving off)
  if (st.as_opened && (!app.problem() || serial_ != app.problem_serial() ||
                       version_ != app.problem()->version() || q_after_ != app.joint_q))
    st.as_opened = false;
  if (!app.model || !app.problem() || app.problem()->objective_count() == 0 ||
      app.solver_paused()) {
    // nothing of the last solve describes the robot now: its cost neither (a timeline playing
    // moves the robot without a solve; the cost plot stood at the last live solve's)
    set_resting(st, task_errors(app), false);
    st.cost = std::numeric_limits<double>::quiet_NaN();
    return false;
  }
  if (idle(app)) return false;
  st.as_opened = false;
  ensure_solver(app);
  const IkProblem& problem = *app.problem();
  same_problem_ = have_last_ && serial_ == app.problem_serial() && version_ == problem.version() &&
                  same_settings(settings_, app.settings);
  // an adopted seed's branch is kept until the problem changes (a target moved, an edit)
  if (!same_problem_ && app.adopted_frame != app.frame) app.hold_adopted = false;

  try {
    if (app.frame_budget_ms > 0)
      solve_budgeted(app, problem);
    else
      solve_all_seeds(app, problem);
  } catch (const std::exception& e) {
    if (solver_->backend() == Backend::kCuda) {
      // keep the scene, continue on the CPU
      app.error(std::string("CUDA solver failed (") + e.what() + "); switched to the CPU backend");
      app.settings.backend = Backend::kCpu;
      solver_ = make_cpu_solver();
      solver_for_ = Backend::kCpu;
      note_ = std::string("CUDA failed: ") + e.what();
      return false;
    }
    app.error(std::string("solve failed: ") + e.what() + "; live solving paused");
    app.live_solve = false;
    return false;
  }
  const SolveResult& r = app.last_result;
  if (kept_state_.converged)
    penalty_ = 0;
  else if (kept_state_.hard_off)
    penalty_ = kept_state_.penalty;
  else
    penalty_ = std::min(kept_state_.penalty, kCarriedPenalty * app.settings.al_mu_init);
  carried_.multipliers = kept_state_.multipliers;
  carried_.penalty = kept_state_.penalty;
  penalty_serial_ = app.problem_serial();
  const int nq = problem.model().coord_count;
  frame_.q_before = app.joint_q;
  const std::vector<double>& q_before = frame_.q_before;
  app.set_configuration(std::vector<double>(r.row_q.begin() + std::ptrdiff_t(kept_seed_) * nq,
                                            r.row_q.begin() + std::ptrdiff_t(kept_seed_ + 1) * nq));
  std::vector<double> change(problem.model().dof_count);
  difference_row(problem.model().view(), app.joint_q.data(), q_before.data(), change.data());
  double moved = 0;
  for (double d : change) moved = std::max(moved, std::abs(d));
  frame_.settling = frame_.settling && moved > kSettleMotion;
  frame_.moved = moved;
  st.step_bound = app.step_bound_joints(q_before);
  return true;
}

SolverSettings SolverDriver::frame_settings(const AppState& app) const {
  SolverSettings s = app.settings;
  if (penalty_ > s.al_mu_init && penalty_serial_ == app.problem_serial())
    s.al_mu_init = std::min(penalty_, s.al_mu_max);
  return s;
}

const WarmStart& SolverDriver::frame_warm_start(const AppState& app) const {
  static const WarmStart kNone;
  const IkProblem& problem = *app.problem();
  const bool fits = carried_.multipliers.size() ==
                    std::size_t(problem.problem_count()) * problem.residual_count();
  return penalty_serial_ == app.problem_serial() && fits ? carried_ : kNone;
}

void SolverDriver::solve_all_seeds(AppState& app, const IkProblem& problem) {
  SolverSettings s = seeds_settings(frame_settings(app), app, same_problem_);
  s.rng_seed = app.settings.rng_seed + uint64_t(app.frame);
  solver_->solve(problem, s, app.joint_q, frame_warm_start(app), app.last_result);
  const SolveResult& r = app.last_result;
  const ProblemResult& best = r.problems[0];
  kept_seed_ =
      app.hold_adopted ? 0 : keep_seed(best.seed, best.converged, r, app.solve.stalled_frames);
  // the kept row's own state, also where it is not the best one (the rows' arrays)
  const std::size_t row = std::size_t(kept_seed_);
  const std::size_t nr = std::size_t(problem.residual_count());
  kept_state_.converged = r.row_converged[row] != 0;
  // the kept row's own violation: a warm start kept while another seed was the best read as
  // holding its hard objectives, and the next frame capped its penalty (the humanoid's hard feet
  // and hand left 0.4 mm off for good, with a warning that they could not all hold)
  const double violation = r.row_violation[row];
  kept_state_.hard_off = violation > app.settings.tol_constraint;
  kept_state_.violation = violation;
  kept_state_.penalty = r.row_penalty[row];
  if (r.row_multipliers.size() == std::size_t(r.n_seeds) * nr)
    kept_state_.multipliers.assign(r.row_multipliers.begin() + std::ptrdiff_t(row * nr),
                                   r.row_multipliers.begin() + std::ptrdiff_t((row + 1) * nr));
  else
    kept_state_.multipliers.clear();
  frame_.iterations = kept_seed_ == best.seed ? best.iterations : app.settings.max_iterations;
  frame_.settling = kept_seed_ == best.seed && best.settling;
  frame_.total_iterations = best.total_iterations;
  frame_.seconds = r.solve_seconds;
  app.solve.budget = {};
  pool_.clear();  // a budget turned on again starts with a fresh pool
}

void SolverDriver::solve_budgeted(AppState& app, const IkProblem& problem) {
  using Clock = SeedPool::Clock;
  // a budget beyond any frame (typed in by hand) still makes a representable deadline
  const double budget_ms = std::min(app.frame_budget_ms, 1e9);
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double, std::milli>(budget_ms));
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  BudgetStatus& b = app.solve.budget;
  b = {};
  b.on = true;
  b.budget_ms = app.frame_budget_ms;

  // the warm start, with the whole budget, from the damping the last one ended with
  SolverSettings s = frame_settings(app);
  s.n_seeds = 1;
  s.time_budget_s = budget_ms * 1e-3;
  std::vector<int> hard = hard_objectives(app);
  if (!warm_.problems.empty() && warm_.problems[0].damping > 0 &&
      !(warm_.problems[0].constraint_violation > app.settings.tol_constraint) &&
      warm_model_ == app.model_version && warm_hard_ == hard)
    s.lambda_init =
        std::clamp(warm_.problems[0].damping, kWarmDampingFloor * s.lambda_init, s.lambda_init);
  warm_model_ = app.model_version;
  warm_hard_ = std::move(hard);
  b.warm_damping = s.lambda_init;
  solver_->solve(problem, s, app.joint_q, frame_warm_start(app), warm_);
  const ProblemResult& warm = warm_.problems[0];
  b.warm_ms = ms_since(start);
  b.warm_iterations = warm.iterations;
  b.stopped_converged = warm.converged && !app.want_alternatives;

  // not converged, or alternatives wanted (seed ghosts): the time left advances the pool. Only
  // seeds advanced this frame are picked from: a pool seed kept a frame before, its slice
  // converged for targets since moved, stood at the robot's configuration and won every pick
  // (prefer_closest) while the warm start followed the drag (the hand stayed 10 cm behind).
  PoolStep step;
  if (!warm.converged || app.want_alternatives) {
    pool_.prepare(problem, app.problem_serial(), seeds_settings(app.settings, app, same_problem_),
                  app.joint_q, app.settings.rng_seed + uint64_t(app.frame));
    step = pool_.advance(*solver_, problem, app.settings, deadline);
  } else {
    pool_.rest();
  }
  b.pool_seeds = step.seeds;
  b.pool_ms = step.seconds * 1e3;
  b.pool_iterations = step.iterations;

  // every seed's state: the warm start, then the pool's seeds where they stand
  static const std::vector<PoolSeed> kNoPool;
  const std::vector<PoolSeed>& pool =
      pool_.drawn_for(app.problem_serial()) ? pool_.seeds() : kNoPool;
  SolveResult& r = app.last_result;
  const int n = 1 + int(pool.size());
  r.n_seeds = n;
  r.row_q = warm.q;
  r.row_cost.assign(1, warm.cost);
  r.row_converged.assign(1, warm.converged);
  for (const PoolSeed& p : pool) {
    r.row_q.insert(r.row_q.end(), p.q.begin(), p.q.end());
    r.row_cost.push_back(p.cost);
    r.row_converged.push_back(p.converged);
    b.pool_seed_iterations.push_back(p.iterations);
  }
  b.pool_generation = pool_.generation();

  // the seed policy over the seeds that ran this frame (the solver's pick among them)
  std::vector<RowResult<double>> rows(n);
  auto row_of = [](const ProblemResult& p) {
    RowResult<double> row;
    row.eval.soft_cost = p.cost;
    row.eval.position_error = p.position_error;
    row.eval.rotation_error = p.rotation_error;
    row.eval.violation = p.constraint_violation;
    row.iterations = p.iterations;
    row.converged = p.converged;
    row.ran = 1;
    return row;
  };
  rows[0] = row_of(warm);
  for (int k = 0; k < int(pool.size()); ++k)
    if (pool[k].advanced) rows[k + 1] = row_of(pool[k].slice);
  std::vector<double> diff(problem.model().dof_count);
  const ProblemPick pick = pick_problem_seed(problem.model().view(), n, app.settings.prefer_closest,
                                             app.settings.tol_constraint, 0, app.joint_q.data(),
                                             r.row_q.data(), rows.data(), diff.data());
  const ProblemResult& picked = pick.seed == 0 ? warm : pool[pick.seed - 1].slice;
  r.problems.assign(1, picked);
  r.problems[0].seed = pick.seed;
  r.problems[0].total_iterations = pick.total_iterations;
  kept_seed_ =
      app.hold_adopted ? 0 : keep_seed(pick.seed, picked.converged, r, app.solve.stalled_frames);

  const ProblemResult& kept = kept_seed_ == 0 ? warm : pool[kept_seed_ - 1].slice;
  kept_state_ = {kept.penalty, kept.multipliers, kept.converged,
                 kept.constraint_violation > app.settings.tol_constraint,
                 kept.constraint_violation};
  frame_.iterations = kept.iterations;
  frame_.settling = kept.settling;
  frame_.total_iterations = pick.total_iterations;
  frame_.seconds = ms_since(start) * 1e-3;
  r.solve_seconds = frame_.seconds;
  b.left_ms = std::max(0.0, budget_ms - ms_since(start));
}

void SolverDriver::rest_here(AppState& app) {
  SolveStatus& st = app.solve;
  const TaskErrors e = task_errors(app);
  std::string missed;
  for (WorkbenchObjective& o : app.objectives) {
    o.status.missed = o.status.pursued && !o.status.reached;
    if (o.status.missed) missed += (missed.empty() ? "'" : ", '") + o.name() + "' " + miss_text(o);
  }
  st.ran = false;
  set_resting(st, e, missed.empty());
  st.as_opened = true;
  st.cost = std::numeric_limits<double>::quiet_NaN();  // the next solve's
  st.stalled_frames = kRestFrames;
  hard_off_frames_ = kRestFrames;  // shown as it stands, hard objectives held or not
  st.seed = 0;
  settling_frames_ = 0;
  progress_error_ = e.combined();
  progress_cost_ = HUGE_VAL;  // the cost is the next solve's
  progress_violation_ = HUGE_VAL;
  kept_seed_ = 0;
  penalty_ = 0;
  carried_ = {};
  remember_rest_point(app);
  if (!missed.empty())
    app.info("shown as opened, " + missed +
             " off: the solver goes on from here at the next edit (a drag, a weight)");
}

void SolverDriver::remember_rest_point(const AppState& app) {
  serial_ = app.problem_serial();
  version_ = app.problem()->version();
  q_after_ = app.joint_q;
  settings_ = app.settings;
  budget_ms_ = app.frame_budget_ms;
  have_last_ = true;
}

void SolverDriver::warn_broken_hard(AppState& app) {
  // only a best effort the solve rests on, the frame it stops solving (idle): a frame that
  // merely made little progress may be on its way (a hard foot a tenth of a millimetre off
  // while the hands still move), and a frame it calls converged passes, whatever a report's
  // rounding says
  if (app.solve.converged || app.solve.stalled_frames < kRestFrames ||
      hard_off_frames_ < kRestFrames)
    return;
  std::string broken;
  int count = 0;
  for (const WorkbenchObjective& o : app.objectives)
    if (o.enabled() && o.spec.params.hard && o.status.missed) {
      broken += (broken.empty() ? "'" : ", '") + o.name() + "' " + miss_text(o);
      ++count;
    }
  const uint64_t serial = app.problem_serial(), version = app.problem()->version();
  if (count == 0 || (serial == warned_serial_ && version == warned_version_)) return;
  warned_serial_ = serial, warned_version_ = version;
  // on an adopted seed's branch the solve does not look elsewhere: the targets may hold on
  // another (a review adopted an unconverged ghost and read that the feet could not hold)
  if (app.hold_adopted)
    app.warn(std::string(count > 1 ? "hard objectives do" : "a hard objective does") +
             " not hold on the adopted seed's branch: " + broken +
             " off; another seed may hold it (drag a target, or adopt a converged ghost, to "
             "solve from every seed again)");
  else if (count > 1)
    app.warn("hard objectives cannot all hold here: " + broken +
             " off; the solver spreads the violation between them (make one soft, or move its "
             "target)");
  else
    app.warn("a hard objective cannot hold here: " + broken +
             " off (out of reach, or against the joint limits and the other objectives)");
}

void SolverDriver::update_status(AppState& app) {
  SolveStatus& st = app.solve;
  const SolveResult& r = app.last_result;
  const int keep = kept_seed_;
  // the last frame had settled at a best effort on this problem (it was not idle: it has not
  // rested long enough)
  const bool settled_short = same_problem_ && st.settled && !st.converged;
  TaskErrors after = task_errors(app);
  // a changed problem (a drag) always counts as progress
  const double cost = r.row_cost[keep];
  // hard objectives still off and closing in count too: the soft cost of hands pulled far out of
  // reach crept 0.1% a frame while the multipliers brought the feet back, and the solver rested
  // with the feet 0.35 mm off for good and a warning that they could not hold
  const double violation = kept_state_.violation;
  const bool hard_closing = violation > app.settings.tol_constraint &&
                            violation < (1.0 - kProgress) * progress_violation_;
  const bool progress = !same_problem_ || after.combined() < (1.0 - kProgress) * progress_error_ ||
                        cost < (1.0 - kProgress) * progress_cost_ || hard_closing;
  if (progress) {
    progress_error_ = after.combined();
    progress_cost_ = cost;
    progress_violation_ = violation;
  }
  // settled short of its targets, the robot stays where it stands unless the solve makes
  // progress: in a flat trade-off each frame's multipliers moved the humanoid up to 0.02 rad to a
  // pose neither closer nor cheaper, after it had stood still (kStillMotion)
  const bool held =
      settled_short && !progress && !r.row_converged[keep] && frame_.moved > kStillMotion;
  if (held) {
    app.set_configuration(frame_.q_before);
    app.evaluate();
    after = task_errors(app);
    frame_.moved = 0;
    st.step_bound.clear();  // no step was taken
  }

  st.ran = true;
  st.converged = bool(r.row_converged[keep]);
  st.seed = keep;
  st.iterations = frame_.iterations;
  st.total_iterations = frame_.total_iterations;
  if (!held) st.cost = r.row_cost[keep];  // (held: the last one's, where the robot stands)
  st.position_error = after.position;
  st.rotation_error = after.rotation;
  st.solve_ms = frame_.seconds * 1e3;
  st.backend = to_string(solver_->backend());
  st.backend_note = note_;
  st.settling = st.converged && frame_.settling;
  settling_frames_ = st.settling && same_problem_ ? settling_frames_ + 1 : 0;
  hard_off_frames_ = !kept_state_.hard_off ? 0 : same_problem_ ? hard_off_frames_ + 1 : 1;
  // stuck frames count only while the problem stays the same (never during a drag)
  if (st.converged || !same_problem_ || progress || keep != 0)
    st.stalled_frames = 0;
  else
    ++st.stalled_frames;
  still_frames_ = frame_.moved <= kStillMotion && same_problem_ ? still_frames_ + 1 : 0;
  st.settled = st.converged ||
               (st.stalled_frames >= kSettledFrames && still_frames_ >= kSettledFrames) ||
               st.stalled_frames >= kRestFrames;
  for (WorkbenchObjective& o : app.objectives)
    o.status.missed = o.status.pursued && !o.status.reached && st.settled;
  warn_broken_hard(app);
  app.stats.add_solve_ms(st.solve_ms);

  remember_rest_point(app);
}

}  // namespace ikwb::gui
