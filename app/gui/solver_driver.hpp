// The one place the workbench calls the IK solver: a bounded solve per frame, warm-started from
// the current configuration, with a seed policy that keeps the robot from flipping, backend
// selection through make_solver (CUDA when usable) and a fallback to the CPU on errors.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/app_state.hpp"
#include "app/gui/seed_pool.hpp"
#include "solver/compromise.hpp"
#include "solver/solver.hpp"

namespace ikwb::gui {

class SolverDriver {
 public:
  SolverDriver() = default;
  SolverDriver(const SolverDriver&) = delete;
  SolverDriver& operator=(const SolverDriver&) = delete;
  // stops a running explanation (its future then waits one test solve at most)
  ~SolverDriver();

  // checks CUDA once and fills app.solve.cuda_available / cuda_reason
  void init(AppState& app);

  // The workbench's frame step, the one place edits meet the solver (the loop and the tests
  // call it): FK when a joint edit moves targets, app.sync(), this frame's bounded solve when
  // there is work, FK once at the kept configuration, and each objective's status from the
  // solver's residual rows (app.evaluate()).
  //
  // Without a frame budget (app.frame_budget_ms 0) the solve runs every seed for
  // app.settings.max_iterations iterations, all drawn afresh around app.joint_q. With one, the
  // warm start (seed 0 from app.joint_q) runs first with the whole budget as its time budget;
  // when it converges (polish included) the frame stops there, unless seed ghosts are shown
  // (app.want_alternatives: the pool then goes on while it has work). Otherwise the time left
  // advances the other seeds, a pool kept across frames (seed_pool.hpp: each seed a slice of
  // iterations from where it stopped, taking turns when the time does not reach them all). Either
  // way the seed policy is the same: it keeps the closest converged seed; with none converged it
  // keeps the warm start, unless the robot has been stuck for a while and another seed (one
  // advanced this frame) is much better. It updates app.joint_q, app.solve (app.solve.budget: how
  // the budget was spent), app.last_result (every seed's state: with a budget, the pool's seeds
  // where they stand) and the solve timing, and is skipped when nothing changed since a settled
  // result; a result whose null-space posture is still settling (settle_iterations, a few a
  // frame in the workbench) counts as changed, so the posture settles over the next frames.
  // The budget bounds the solve only (within about one LM iteration); FK, the
  // objectives' status and drawing come on top.
  //
  // Once the robot rests (a frame that starts idle: settled, and nothing changed since), the
  // compromise of that solution is explained once, on a worker thread (solver/compromise.hpp, a
  // few CPU solves): when it is done and the robot still rests there, each objective gets its
  // status, blocked_by and pulled_by, and app.solve its explain_ms. Any change (a drag, an
  // edit, a solve that moves the robot) clears the explanation until the robot rests again; a
  // frame never waits for one.
  //
  // A scene opened with its own configuration (app.rest_on_opened) is shown as it was saved:
  // the first frame rests there (rest_here) instead of solving on from it, so a best effort
  // saved where the solver left it does not move on to another compromise when reopened.
  void step_frame(AppState& app);

 private:
  // this frame's solve; true when it ran and changed app.joint_q
  bool solve(AppState& app);
  // the two ways a frame solves (solve's comment); both set kept_seed_ and frame_
  void solve_all_seeds(AppState& app, const IkProblem& problem);
  void solve_budgeted(AppState& app, const IkProblem& problem);
  // app.solve's errors, progress, settled and stall count after the solve and evaluate()
  void update_status(AppState& app);
  // a log warning, once per problem version, when the solver settled with a hard objective
  // violated (hard objectives that cannot all hold, or one beyond reach)
  void warn_broken_hard(AppState& app);
  void ensure_solver(AppState& app);
  bool idle(const AppState& app) const;
  // rests on app.joint_q as a settled solve would (app.solve and the objectives' missed flags
  // from evaluate()), so the next frames are idle until something changes
  void rest_here(AppState& app);
  // what app.solve now describes (the problem, configuration and settings idle() compares with)
  void remember_rest_point(const AppState& app);
  // starts explaining the resting solution, takes a finished explanation of it, or clears a
  // stale one (not rested)
  void explain(AppState& app, bool rested);

  std::unique_ptr<IkSolver> solver_;
  Backend solver_for_ = Backend::kCpu;  // backend requested when solver_ was made
  std::string note_;

  // what the last solve saw, to detect an unchanged problem
  uint64_t serial_ = 0, version_ = 0;
  std::vector<double> q_after_;
  SolverSettings settings_;
  bool have_last_ = false;
  bool same_problem_ = false;  // this frame solved the problem the last frame solved
  double budget_ms_ = 0;       // the frame budget of the last solve (a change wakes a resting one)
  int kept_seed_ = 0;
  uint64_t warned_serial_ = 0, warned_version_ = 0;  // the problem warn_broken_hard last named
  int settling_frames_ = 0;  // consecutive frames on one problem that ended settling
  // consecutive frames on one problem whose solve moved no dof by more than kStillMotion: a best
  // effort has settled only once the robot stands still (update_status)
  int still_frames_ = 0;
  // consecutive frames whose kept seed ended with a hard objective off (on one problem): a best
  // effort rests on a frame that holds them unless none of the last kRestFrames did (hard rows
  // against hands pulled out of reach swing in and out of tolerance from frame to frame, and
  // the solver rested on a frame with the feet 0.35 mm off, for good)
  int hard_off_frames_ = 0;
  // the combined task error, the kept seed's soft cost and its hard violation after the last
  // frame that made progress (update_status)
  double progress_error_ = 0;
  double progress_cost_ = 0;
  double progress_violation_ = 0;  // the kept seed's hard violation then
  // this frame's solve as update_status reports it
  struct FrameSolve {
    int iterations = 0;        // of the kept seed
    int total_iterations = 0;  // over every seed that ran
    double seconds = 0;
    bool settling = false;  // the kept seed converged with its null-space posture still settling
    double moved = 0;       // the largest change of a dof (rad or m) the solve made
    std::vector<double> q_before;  // the configuration the solve began from
  };
  FrameSolve frame_;
  SeedPool pool_;
  SolveResult warm_;  // the budgeted solve's warm start
  // what warm_ solved: the robot (AppState::model_version) and which objectives were enabled
  // hard ones (its damping is carried into the next frame only while they stay,
  // kWarmDampingFloor)
  uint64_t warm_model_ = 0;
  std::vector<int> warm_hard_;
  // the penalty the next frame's hard objectives start with (0: the settings'): the kept seed's
  // when it ended unconverged, so a solve that stops short of its hard objectives (a target out
  // of reach pulling against them) weighs them more frame after frame instead of starting over.
  // Where the hard objectives held, within kCarriedPenalty of the settings' (the multipliers,
  // rebased, hold the forces); where they did not, as it was: rebased to a lower penalty each
  // frame, the multipliers of hard rows that cannot all hold took the penalty's force mu c into
  // them frame after frame and grew without bound (the Panda's hard tool pose dragged 45 cm out
  // of reach ended 251 mm and 112 deg off, the least violation being 35 mm and 0.5 deg)
  double penalty_ = 0;
  // the multipliers the next frame's warm start begins with: the kept seed's, whether it
  // converged or not (the forces its hard objectives held against the soft ones), with the
  // penalty it ended at (the solve rebases them to penalty_ or the settings')
  WarmStart carried_;
  // the kept seed's augmented-Lagrangian state after this frame's solve (each path sets it):
  // its penalty, multipliers and whether it converged. It was read from the best seed's result,
  // so a kept warm start whose best was another seed began each frame from the settings'
  // penalty and no multipliers, and stayed where that left it (a humanoid's hard hand and feet
  // 17-27 mm off for 300 frames against a soft posture)
  struct KeptState {
    double penalty = 0;
    std::vector<double> multipliers;
    bool converged = false;
    bool hard_off = false;  // its hard objectives ended beyond tol_constraint
    double violation = 0;   // how far (the largest over its hard objectives)
  };
  KeptState kept_state_;
  uint64_t penalty_serial_ = 0;  // the problem both are of
  // settings for this frame's solve: the app's, the hard objectives' penalty carried over
  SolverSettings frame_settings(const AppState& app) const;
  // what this frame's warm start (seed 0) continues from: carried_ while the problem is its
  const WarmStart& frame_warm_start(const AppState& app) const;

  // what an explanation is of: the problem, the configuration and the settings
  struct ExplainKey {
    uint64_t serial = 0, version = 0;
    std::vector<double> q;
    SolverSettings settings;
  };
  bool explained_ = false;  // the objectives' explanation is of explained_key_
  ExplainKey explained_key_;
  std::future<CompromiseReport> pending_;  // running on a worker thread, of pending_key_
  ExplainKey pending_key_;
  // set to stop pending_ once the robot no longer rests on what it explains: the test solves
  // of a scene with 209 objectives took one of the two cores for 20 s, and the frames of a drag
  // begun meanwhile took 56 ms (median) instead of 44-48
  std::shared_ptr<std::atomic<bool>> pending_stop_;
};

// whether two settings solve the same way
bool same_settings(const SolverSettings& a, const SolverSettings& b);

}  // namespace ikwb::gui
