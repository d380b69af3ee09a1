// Levenberg-Marquardt with an augmented-Lagrangian outer loop, for one batch row.
//
// __host__ __device__ and templated on the scalar and on an Evaluator, so the CPU backend
// (analytic, autodiff, finite-difference or custom rows) and the CUDA kernels (analytic rows)
// run the same iteration. An Evaluator provides:
//   RowEval<T> residual(const T* q, Transform<T>* body_q, T* r)   FK of q, then weighted rows
//   void jacobian(const T* q, const Transform<T>* body_q, T* scratch, T* J)
//                                                     weighted Jacobian at q (body_q from q)
// Both read the current multipliers and penalty (set_multipliers) for hard objectives.
#pragma once

#include <cfloat>
#include <chrono>
#include <cstdint>

#include "solver/lm_step.hpp"
#include "solver/objectives.hpp"

namespace ikwb {

// the largest finite value of the scalar (std::numeric_limits is not callable in device code)
template <class T>
IKWB_HD constexpr T largest_finite();
template <>
IKWB_HD constexpr float largest_finite<float>() {
  return FLT_MAX;
}
template <>
IKWB_HD constexpr double largest_finite<double>() {
  return DBL_MAX;
}

// the scalar's machine epsilon, likewise
template <class T>
IKWB_HD constexpr T machine_epsilon();
template <>
IKWB_HD constexpr float machine_epsilon<float>() {
  return FLT_EPSILON;
}
template <>
IKWB_HD constexpr double machine_epsilon<double>() {
  return DBL_EPSILON;
}

// nanoseconds from a monotonic clock: the GPU's global timer on the device
IKWB_HD uint64_t row_clock_ns() {
#if defined(__CUDA_ARCH__)
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
#endif
}

// what one residual evaluation reports besides the rows
template <class T>
struct RowEval {
  T cost = T(0);            // 0.5 |r|^2 of all rows (soft and augmented hard)
  T soft_cost = T(0);       // 0.5 |r|^2 of the soft rows only
  T position_error = T(0);  // max raw position error of task objectives (m)
  T rotation_error = T(0);  // max raw rotation error of task objectives (rad)
  T violation = T(0);       // max violation of hard objectives
  // 0.5 |r|^2 of the soft rows that no task error counts (a weighted posture, a soft inequality
  // in its margin, custom rows): a row within the tolerances whose pull is not 0 is not done
  // until that pull has settled (lm_solve_row)
  T pull = T(0);
};

// A stalled seed (LmConfig::stall_window): its cost has not fallen below this share of where it
// last did for the window's iterations. Checked every iteration (the window used to be checked
// only at its multiples, for a halving): measured over 3000 targets of the TRAC-IK protocol and
// 5000 of the batch protocol (`ikwb bench ROBOT --link L`, iterations per problem) with a
// window of 4, 0.7 took the Panda from 17.8 to 16.7 and 13.9 to 13.1, the UR5e from 24.9 to
// 23.4 and 20.6 to 19.1, the iiwa7 unchanged (10.9, 8.4); 0.5 and 0.6 were even on the Panda
// and worse on the UR5e, 0.8 with a window of 3 about even.
constexpr double kStallDecrease = 0.7;

// A stalled seed whose hard rows are violated by less than this many constraint tolerances
// updates its multipliers instead of stopping (lm_solve_row). Measured: a Panda target inside a
// hard 0.5 m keep-out distance (tests/python/test_adam.py) ends 1.1e-5 m inside it, against
// 1.1e-3 m when every stall stops the seed; the humanoid's whole-body solve (whole_body_bench)
// takes 74.1 iterations against 72.0 (1 seed: 58.0 against 56.1), while updating at every stall
// took 113 (88).
constexpr double kStallNearViolation = 100.0;

// A stalled seed's first multiplier update is also taken, at any violation, while the hard rows'
// augmented terms are under this share of the soft cost: the seed sits at the penalty's
// compromise with soft objectives that pull against the hard ones, not in a basin where they
// cannot hold. Measured: a planar arm's hard elbow with a soft hand target out of its reach gave
// every one of 50 restarts up at 1-3 cm of violation (above the near band) before any update,
// and the row kept the one attempt that held, stuck at a limit: 1.674 m from the target against
// 1.287 m without restarts (now 1.287 m). The humanoid's whole-body solve (whole_body_bench) takes
// 30.2 iterations against 29.3 (1 seed: 27.7 against 27.0); a share of 1 took 31.8 (30.0).
constexpr double kStallTradeShare = 0.1;

// the iterations an attempt runs whatever its deadline until it has accepted a step (a time
// budget shorter than one iteration stopped it before any step)
constexpr int kStepsBeforeTheClock = 8;

template <class T>
struct LmConfig {
  int max_iterations = 100;
  bool fixed_iterations = false;
  T tol_position = T(1e-4), tol_rotation = T(1e-3), tol_constraint = T(1e-4);
  T lambda_init = T(1e-3);
  bool marquardt = false;
  bool hard_limits = true;
  bool turn_over = false;  // turn joints held at a full turn's limit over (lm_turn_over_limits)
  int al_inner_iterations = 15;
  T mu_init = T(100), mu_growth = T(10), mu_max = T(1e8);
  T null_space_gain = T(0.5);
  // posture steps taken once the tolerances are met before the row stops with the null-space
  // posture still settling (0 = until it settles); rejected ones do not count, so a posture
  // that does not fit (its step shrinks to nothing) settles within one solve as without it
  int settle_iterations = 0;
  // largest change of any dof in one step (0 = none): a longer Gauss-Newton step is shortened
  // along its direction. Far from the solution the linear model holds only over a short
  // distance; without the cap such a step is rejected and the damping doubled over several
  // iterations until the step fits. Measured (the TRAC-IK protocol's targets and settings
  // without its time budget, docs/benchmarks.md "Shorter steps, earlier restarts"): 1 rad cut
  // the iterations per problem by 18 % on the Panda, 34 % on the UR5e and 13 % on the iiwa7;
  // 0.4 rad was slower than none, 0.8 to 1.0 about even.
  T max_step = T(0);
  // give up on a seed when this many iterations pass without the cost falling below
  // kStallDecrease of its value where it last did (0 = never), so restarts begin early instead
  // of crawling along a joint limit or a local minimum (checked every iteration)
  int stall_window = 0;
  // iterations still taken once the tolerances are met, each accepted only when it keeps them
  // met: near a solution LM converges quadratically, so one or two take a 1e-5 m answer to
  // rounding level for the cost of as many residual and Jacobian evaluations. Not applied to
  // a row that is within the tolerances from the start.
  int polish_iterations = 0;
  // how the step's normal equations are solved (solver/lm_step.hpp)
  LmStep step = LmStep::kAuto;
};

// Per-row buffers, sized from the problem: nq = coord_count, nv = dof_count, nr = residuals.
template <class T>
struct RowBuffers {
  T* q;                        // (nq) current configuration, in/out
  T* q_trial;                  // (nq)
  Transform<T>* body_q;        // (body_count) poses at q
  Transform<T>* body_q_trial;  // (body_count)
  T* r;                        // (nr) rows at q
  T* r_trial;                  // (nr)
  T* J;                        // (nr x nv) rows at q
  T* A;                        // (lm_a_capacity) J^T J, dense step
  T* L;                        // (lm_l_capacity) Cholesky factor of A + damping (dense), of the
                               // m x m row-space system
  T* g;                        // (nv) J^T r
  T* dq;                       // (nv)
  T* tmp;                      // (nv)
  T* al_lambda;                // (nr) multipliers of hard rows
  const uint8_t* dof_free;     // (nv) or null: frozen dofs get no step
  const T* null_rest;          // (nq) posture rest for a null-space posture objective, or null
  T null_weight;               // its weight
  T* diag = nullptr;           // (3 nv) row-space step's diagonals
  int* row_col = nullptr;      // (nr) each row's column (lm_classify_rows, kRowAside)
  int* rows = nullptr;         // (nr) the general rows
  int* cols = nullptr;         // (lm_cols_capacity) the step's column scratch
  // (lm_latent_capacity) the inactive rows set aside (lm_set_aside), or null: steps are then
  // taken without foreseeing the inequality rows they make active
  T* latent = nullptr;
  // (lm_latent_rows) the terms of the rows set aside without a Jacobian row (builtin_jacobian),
  // and the bodies' motion their linear models are evaluated with: both or neither, and none
  // without latent
  RowTerms<T>* terms = nullptr;
  MotionBuffers<T>* motion = nullptr;
  uint64_t deadline_ns = ~uint64_t(0);  // row_clock_ns time at which the solve stops
  // attempts run side by side (the CUDA backend's attempt lanes, row_driver.hpp): the lowest
  // attempt of the row that has converged, written by other threads; this attempt stops as
  // soon as it is below `attempt` (it can no longer be the one kept). Null: never.
  const unsigned* stop_after = nullptr;
  unsigned attempt = 0;
  // another attempt of the row follows this one (drive_row): a stall (LmConfig::stall_window)
  // ends this one to make room for it; the last attempt keeps its iterations instead
  bool restart_follows = true;
  // the row restarts (drive_row, max_restarts > 0: a batch solve): an attempt whose hard
  // objectives are still off at max_iterations goes on (kHardExtension). Off, the iteration count
  // is exact (the workbench's frames, which go on from frame to frame; a single attempt).
  bool hard_extension = false;
  // the row's kept attempt goes on (finish_kept_attempt): up to kFinishExtension times
  // max_iterations, until the cost flattens (kFinishFlat); no restart follows
  bool finishing = false;
  // (nr) the multipliers the solve starts from, or null: zeros (start_multipliers)
  const T* al_lambda_init = nullptr;
  // the penalty al_lambda_init was reached at (a warm start's, WarmStart::penalty), or 0: they
  // are taken as they are; another one is rebased to the solve's (rebase_multipliers)
  T al_penalty_init = T(0);
};

template <class T>
struct RowStatus {
  RowEval<T> eval;
  T lm_lambda = T(0);
  T mu = T(0);
  int iterations = 0;
  bool converged = false;
  bool settling = false;  // converged with the null-space posture not yet settled
};

// whether any of the nv dofs may move (dof_free null: all may); a row without one has nothing
// to iterate on: every seed and restart is its initial configuration
IKWB_HD bool has_free_dof(int nv, const uint8_t* dof_free) {
  for (int a = 0; a < nv; ++a)
    if (!dof_free || dof_free[a]) return true;
  return false;
}

// How lm_solve_row's damped step takes a dof at a hard limit (RowBuffers::tmp, lm_mark_limits):
// free, held on a limit, or stopped at its upper or lower limit
constexpr int kLimitFree = 0;
constexpr int kLimitHeld = 1;
constexpr int kLimitToUpper = 2;
constexpr int kLimitToLower = 3;

// Projects the 1-dof joints of q into their limits; frozen dofs (dof_free[d] == 0) stay put.
// True when a coordinate was moved, not counting those of dofs that the step stopped at a limit
// (limit_marks, nv or null: lm_mark_limits), which it may cross by a rounding.
template <class T>
IKWB_HD bool project_limits(const ModelView<T>& m, const T* lower, const T* upper, T* q,
                            const uint8_t* dof_free = nullptr, const T* limit_marks = nullptr) {
  bool clipped = false;
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    int d = m.joint_qd_start[j];
    if (dof_free && !dof_free[d]) continue;
    T& v = q[m.joint_q_start[j]];
    const bool stopped = limit_marks && limit_marks[d] >= T(kLimitToUpper);
    if (v < lower[d]) v = lower[d], clipped = clipped || !stopped;
    if (v > upper[d]) v = upper[d], clipped = clipped || !stopped;
  }
  return clipped;
}

// The largest t <= 1 with q + t dq inside the limits of every free one-dof joint (t >= 0; 1
// when no such joint's step leaves its limits).
template <class T>
IKWB_HD T boundary_fraction(const ModelView<T>& m, const T* lower, const T* upper, const T* q,
                            const T* dq, const uint8_t* dof_free) {
  T t = T(1);
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    const int d = m.joint_qd_start[j];
    if (dof_free && !dof_free[d]) continue;
    const T v = q[m.joint_q_start[j]], step = dq[d];
    if ((step > T(0) && v + t * step > upper[d]) || (step < T(0) && v + t * step < lower[d])) {
      const T to_limit = ((step > T(0) ? upper[d] : lower[d]) - v) / step;
      t = to_limit > T(0) ? to_limit : T(0);
    }
  }
  return t;
}

// max |v[a]| over n values
template <class T>
IKWB_HD T largest_magnitude(const T* v, int n) {
  T big = T(0);
  for (int a = 0; a < n; ++a) big = v[a] > big ? v[a] : (-v[a] > big ? -v[a] : big);
  return big;
}

// m = max(m, v) where a NaN stays: a row whose residual is not a number never reads as met
template <class T>
IKWB_HD void raise_to(T& m, T v) {
  if (v > m || v != v) m = v;
}

template <class T>
IKWB_HD bool row_converged(const RowEval<T>& e, const LmConfig<T>& c) {
  return e.position_error <= c.tol_position && e.rotation_error <= c.tol_rotation &&
         e.violation <= c.tol_constraint;
}

// The first position and rotation row of a task objective's rows (-1: none): the rows its
// position and rotation errors are read from. Other kinds have no task error.
template <class T>
IKWB_HD void task_error_rows(const ObjectiveParams<T>& o, int* first_pos, int* first_rot) {
  *first_pos = -1;
  *first_rot = -1;
  switch (o.type) {
    case ObjectiveType::kPosition:
    case ObjectiveType::kRelativeBall:
    case ObjectiveType::kCom:
      *first_pos = 0;
      break;
    case ObjectiveType::kRotation:
    case ObjectiveType::kLookAt:
    case ObjectiveType::kAxisAlign:
      *first_rot = 0;
      break;
    case ObjectiveType::kPose:
    case ObjectiveType::kRelativeFixed:
      *first_pos = 0;
      *first_rot = 3;
      break;
    default:
      break;
  }
}

// task errors and hard violations from an objective's raw rows. A soft objective's rows whose
// weight is zero (an axis left free, or weight 0) do not count toward its errors.
template <class T>
IKWB_HD void accumulate_row_eval(const ObjectiveParams<T>& o, const T* raw, RowEval<T>& e) {
  if (!o.enabled) return;
  int first_pos, first_rot;
  task_error_rows(o, &first_pos, &first_rot);
  T ps = T(0), rs = T(0);
  for (int k = 0; k < 3; ++k) {
    if (first_pos >= 0 && objective_row_counts(o, first_pos + k))
      ps += raw[first_pos + k] * raw[first_pos + k];
    if (first_rot >= 0 && objective_row_counts(o, first_rot + k))
      rs += raw[first_rot + k] * raw[first_rot + k];
  }
  raise_to(e.position_error, sqrt(ps));
  raise_to(e.rotation_error, sqrt(rs));
  if (o.hard) {
    T v = T(0);
    if (objective_is_inequality(o.type)) {
      for (int k = 0; k < o.dim; ++k) raise_to(v, raw[k]);
    } else {
      T s = T(0);
      for (int k = 0; k < o.dim; ++k)
        if (objective_row_counts(o, k)) s += raw[k] * raw[k];
      v = sqrt(s);
    }
    raise_to(e.violation, v);
  }
}

template <class T>
IKWB_HD void finish_row_cost(const ObjectiveParams<T>& o, const T* rows, RowEval<T>& e) {
  T s = T(0);
  for (int k = 0; k < o.dim; ++k) s += rows[k] * rows[k];
  e.cost += T(0.5) * s;
  if (o.hard) return;
  e.soft_cost += T(0.5) * s;
  int first_pos, first_rot;
  task_error_rows(o, &first_pos, &first_rot);
  if (first_pos < 0 && first_rot < 0) e.pull += T(0.5) * s;
}

// Weighted rows of all built-in objectives at q (FK into body_q), and what RowEval reports.
// Custom objectives are skipped (their rows are left as they are): CPU evaluators add them.
template <class T>
IKWB_HD_OUTLINED RowEval<T> builtin_residual(const ProblemView<T>& pv, int problem,
                                             const T* al_lambda, T mu, const T* q,
                                             Transform<T>* body_q, T* r) {
  fk_row_for(pv, q, body_q);
  RowEval<T> e;
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    if (o.type == ObjectiveType::kCustom) continue;
    T* ro = r + o.start;
    // disabled, or a null-space posture (a step of its own): zero rows, no error and no cost
    // (what apply_mode makes of a disabled objective's rows)
    if (!o.enabled || o.null_space) {
      for (int k = 0; k < o.dim; ++k) ro[k] = T(0);
      continue;
    }
    objective_residual(pv, oi, problem, q, body_q, ro);
    accumulate_row_eval(o, ro, e);
    apply_mode(o, al_lambda + o.start, mu, pv.model.dof_count, ro, (T*)nullptr, 0);
    finish_row_cost(o, ro, e);
  }
  return e;
}

// The rows of objective oi (a kind of objective_has_terms) as terms (row_terms.hpp), when every
// one of them is inactive at body_q: ro receives the rows' model values (apply_mode), Jo (o.dim
// rows of pv.model.dof_count) zeros, terms (o.dim) the rows' terms scaled as apply_mode scales
// the rows. False when a row is active (the terms are then cleared to none).
template <class T>
IKWB_HD bool defer_inactive_rows(const ProblemView<T>& pv, int oi, const T* lambda, T mu,
                                 const Transform<T>* body_q, T* ro, T* Jo, RowTerms<T>* terms) {
  const ObjectiveParams<T>& o = pv.objectives[oi];
  const int nv = pv.model.dof_count;
  objective_row_terms(pv, oi, body_q, ro, terms);
  for (int k = 0; k < o.dim; ++k) {
    if (!((o.hard ? ro[k] + lambda[k] / mu : ro[k]) > T(0))) continue;
    for (int i = 0; i < o.dim; ++i) terms[i].count = kTermsNone;
    return false;
  }
  for (int k = 0; k < o.dim; ++k) {
    for (int c = 0; c < nv; ++c) Jo[k * nv + c] = T(0);
    terms[k].scale(objective_row_scale(o, mu, k));
  }
  apply_mode(o, lambda, mu, nv, ro, Jo, nv);
  return true;
}

// Weighted analytic Jacobian of all built-in objectives at q (body_q from q). scratch
// (residual_count) receives the raw rows. terms (lm_latent_rows, in for_each_latent_row's
// order; or null): the rows of objective_has_terms kinds are written there instead of into J
// while all of an objective's rows are inactive (defer_inactive_rows), unless lm_offer_terms
// refused them; lm_set_aside reads them.
template <class T>
IKWB_HD_OUTLINED void builtin_jacobian(const ProblemView<T>& pv, int problem, const T* al_lambda,
                                       T mu, const T* q, const Transform<T>* body_q, T* scratch,
                                       T* J, RowTerms<T>* terms = nullptr) {
  int nv = pv.model.dof_count;
  int slot = 0;  // the objective's first latent row
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    RowTerms<T>* ot = terms ? terms + slot : nullptr;
    if (objective_predicts_activation(o.type)) slot += o.dim;
    if (o.type == ObjectiveType::kCustom) continue;
    T* ro = scratch + o.start;
    T* Jo = J + o.start * nv;
    if (!o.enabled || o.null_space) {
      // rows of no step (lm_classify_rows: kRowZero), as apply_mode leaves them: zero
      for (int k = 0; k < o.dim; ++k) {
        ro[k] = T(0);
        for (int c = 0; c < nv; ++c) Jo[k * nv + c] = T(0);
      }
      continue;
    }
    if (terms && objective_has_terms(o.type) && o.dim > 0 && ot->count != kTermsRefused &&
        defer_inactive_rows(pv, oi, al_lambda + o.start, mu, body_q, ro, Jo, ot))
      continue;
    objective_jacobian(pv, oi, problem, q, body_q, Jo, nv, ro);
    // a joint-limit row has one entry, on the diagonal (objective_jacobian)
    const bool diagonal = o.type == ObjectiveType::kJointLimits && o.dim == nv;
    apply_mode(o, al_lambda + o.start, mu, nv, ro, Jo, nv, diagonal);
  }
}

// The analytic evaluator used by the CPU backend (built-in objectives only) and the kernels.
template <class T>
struct AnalyticEvaluator {
  ProblemView<T> pv;
  int problem = 0;
  const T* al_lambda = nullptr;
  T mu = T(1);
  RowTerms<T>* terms = nullptr;  // RowBuffers::terms, or null: every row gets its Jacobian row
  IKWB_HD void set_multipliers(const T* lambda, T penalty) {
    al_lambda = lambda;
    mu = penalty;
  }
  IKWB_HD RowEval<T> residual(const T* q, Transform<T>* body_q, T* r) {
    return builtin_residual(pv, problem, al_lambda, mu, q, body_q, r);
  }
  IKWB_HD void jacobian(const T* q, const Transform<T>* body_q, T* scratch, T* J) {
    builtin_jacobian(pv, problem, al_lambda, mu, q, body_q, scratch, J, terms);
  }
};

template <class T>
IKWB_HD bool problem_has_hard(const ProblemView<T>& pv) {
  for (int oi = 0; oi < pv.objective_count; ++oi)
    if (pv.objectives[oi].hard && pv.objectives[oi].enabled && !pv.objectives[oi].null_space)
      return true;
  return false;
}

// The multipliers a local solve starts from, into lambda (nr): init's (nr, or null: none) on
// the enabled hard rows, 0 on the others (a row made soft since init was kept holds no force).
template <class T>
IKWB_HD void start_multipliers(const ProblemView<T>& pv, const T* init, T* lambda) {
  for (int i = 0; i < pv.residual_count; ++i) lambda[i] = T(0);
  if (!init) return;
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    if (!o.hard || !o.enabled) continue;
    for (int k = 0; k < o.dim; ++k) lambda[o.start + k] = init[o.start + k];
  }
}

// true when row_converged can judge the problem: it has an enabled task objective (position,
// rotation, pose, relative frames) or a hard one. Without any (only soft posture, limits,
// distances or custom rows) every iterate would pass, so the solver instead runs until the cost
// stops decreasing.
template <class T>
IKWB_HD bool problem_has_measure(const ProblemView<T>& pv) {
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    if (!o.enabled || o.null_space) continue;
    if (o.hard) return true;
    switch (o.type) {
      case ObjectiveType::kPosition:
      case ObjectiveType::kRotation:
      case ObjectiveType::kPose:
      case ObjectiveType::kRelativeBall:
      case ObjectiveType::kRelativeFixed:
        return true;
      default:
        break;
    }
  }
  return false;
}

// Active set for hard limits (lm_solve_row's damped step). How a free one-dof joint's dof takes
// the step w.dq (with the null-space posture's step posture added: nv, or null) at a limit, in
// w.tmp: kLimitFree; kLimitHeld on a limit the step pushes out (either step: both hold it), where
// it stays; kLimitToUpper / kLimitToLower carried across a limit it is not on, where it stops.
// The others are then solved again with these steps fixed (lm_limit_rhs). Before, a crossing step
// was clipped where the model had not taken it: its predicted decrease was often negative, and a
// dof 1e-6 rad from a limit cost three iterations (the clipped step rejected twice, a step to the
// boundary, then held), which left a retargeting row's warm attempt unconverged after its
// iterations and a restart put the arm on another branch.
//
// A dof is stopped at a limit that its step reaches within this share of the step: there the
// step cut at its first limit (to_boundary) would not move the row, and a stopped dof moves about
// as little as a held one, so the model's decrease stays. A step that carries dofs further
// across is clipped as before (and, rejected, cut at its first limit): stopping every dof a step
// carries across (share 1) left a null-space posture that presses a joint into its limit settled
// 0.02 rad short of it (Planar.NullSpacePostureIntoALimitSettles), where the clipped steps take
// it there.
constexpr double kLimitStopShare = 0.01;

// Marks the dofs the step holds or stops at a limit (above) that are not marked yet (with stop
// false, only those it holds: a step across a limit is then left to be clipped); fresh: all marks
// are cleared first. Returns how many were marked; *stopped counts those stopped.
template <class T>
IKWB_HD int lm_mark_limits(const ProblemView<T>& pv, RowBuffers<T>& w, const T* posture, bool fresh,
                           bool stop, int* stopped) {
  const ModelView<T>& m = pv.model;
  if (fresh)
    for (int a = 0; a < m.dof_count; ++a) w.tmp[a] = T(0);
  int marked = 0;
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    const int d = m.joint_qd_start[j];
    if (w.tmp[d] > T(0) || (w.dof_free && !w.dof_free[d])) continue;
    const T v = w.q[m.joint_q_start[j]], lo = pv.dof_lower[d], hi = pv.dof_upper[d];
    const T eps = T(1e-9) * (T(1) + (hi > lo ? hi - lo : T(0)));
    const T step = w.dq[d], both = posture ? step + posture[d] : step;
    int mark = kLimitFree;
    if ((v <= lo + eps && (step < T(0) || both < T(0))) ||
        (v >= hi - eps && (step > T(0) || both > T(0))))
      mark = kLimitHeld;
    else if (stop && v + both > hi && hi - v < T(kLimitStopShare) * both)
      mark = kLimitToUpper;
    else if (stop && v + both < lo && lo - v > T(kLimitStopShare) * both)
      mark = kLimitToLower;
    if (mark != kLimitFree) {
      w.tmp[d] = T(mark);
      ++marked;
      if (mark != kLimitHeld) ++*stopped;
    }
  }
  return marked;
}

// A revolute joint whose limits span a turn or more (a wrist's [-pi, pi], a UR arm's
// [-2 pi, 2 pi]) has the same pose a turn further on. One a stalled attempt leaves at a limit
// (within lm_mark_limits' eps) is turned over: a turn back inside its limits (up to the other
// limit), where the descent can go on past that limit's angle instead of a restart from
// elsewhere (a review's arm with a [-pi, pi] joint held at -pi, its answer at +3.1256: 4 of 200
// targets near that limit missed with the default restarts). Not a joint that a mimic follows a
// fraction of a turn or along a slide (a turn of it moves the mimic), nor a frozen one. Returns
// whether any joint turned.
template <class T>
IKWB_HD bool lm_turn_over_limits(const ProblemView<T>& pv, RowBuffers<T>& w) {
  const ModelView<T>& m = pv.model;
  const T turn = T(6.283185307179586);
  bool turned = false;
  for (int j = 0; j < m.joint_count; ++j) {
    if (JointType(m.joint_type[j]) != JointType::kRevolute || m.joint_mimic[j] >= 0) continue;
    const int d = m.joint_qd_start[j];
    const T lo = pv.dof_lower[d], hi = pv.dof_upper[d];
    if ((w.dof_free && !w.dof_free[d]) || !(hi - lo >= turn * T(1 - 1e-6)) ||
        !(hi - lo < largest_finite<T>()))
      continue;
    T& v = w.q[m.joint_q_start[j]];
    const T eps = T(1e-9) * (T(1) + (hi - lo));
    if (!(v <= lo + eps || v >= hi - eps)) continue;
    bool whole = true;  // a turn of it moves no mimic
    for (int k = 0; k < m.joint_count && whole; ++k) {
      if (m.joint_mimic[k] != j) continue;
      const T mult = m.joint_mimic_multiplier[k];
      whole = JointType(m.joint_type[k]) != JointType::kPrismatic && mult == T(int64_t(mult));
    }
    if (!whole) continue;
    v = v <= lo + eps ? (v + turn < hi ? v + turn : hi) : (v - turn > lo ? v - turn : lo);
    turned = true;
  }
  return turned;
}

// The step of each dof lm_mark_limits marked: 0 held, else to its limit
template <class T>
IKWB_HD T lm_limit_step(const ProblemView<T>& pv, const RowBuffers<T>& w, int joint) {
  const int d = pv.model.joint_qd_start[joint];
  const T v = w.q[pv.model.joint_q_start[joint]];
  if (w.tmp[d] == T(kLimitToUpper)) return pv.dof_upper[d] - v;
  if (w.tmp[d] == T(kLimitToLower)) return pv.dof_lower[d] - v;
  return T(0);
}

// The right-hand side of the damped step with the marked dofs' steps fixed, into w.dq: -g less
// the fixed steps' share of A dq for the others (sys factored without the marked dofs), the
// fixed steps themselves for the marked (the factor's identity rows keep them)
template <class T>
IKWB_HD void lm_limit_rhs(const ProblemView<T>& pv, const LmSystem<T>& sys, RowBuffers<T>& w) {
  const ModelView<T>& m = pv.model;
  for (int a = 0; a < m.dof_count; ++a) w.dq[a] = -w.g[a];
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    const T fixed = lm_limit_step(pv, w, j);
    if (fixed != T(0)) lm_take_fixed(sys, m.joint_qd_start[j], fixed, w.dq);
  }
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    const int d = m.joint_qd_start[j];
    if (w.tmp[d] > T(0)) w.dq[d] = lm_limit_step(pv, w, j);
  }
}

// the passes of lm_solve_row's damped step that stop dofs at limits and solve the others again:
// each pass's step may carry another dof across its limit; what crosses after the last is
// clipped (project_limits)
constexpr int kLimitPasses = 4;

// Inactive inequality rows and the LM step. A row of max(0, g) has no Jacobian row while g <= 0,
// so the Gauss-Newton model does not see a step coming that makes it active: the step is taken as
// if the row were not there, and when it crosses into the row (a pair of capsules into its
// margin) the cost rises far above the model's prediction, the step is rejected and the damping
// climbs until the steps are short enough to stop short of it. So the rows of the kinds of
// objective_predicts_activation are set aside while inactive, with their linear model (apply_mode
// keeps it): value v <= 0 and row j. A step dq whose v + j dq turns positive makes the row join
// the model, as a row of residual v and Jacobian j, and the step is solved again; the model's
// decrease then counts the row as max(0, v + j dq) (lm_joined_correction). Measured
// (docs/benchmarks.md, "Seeing a step activate a row"): the humanoid preset's drag had 19 % of its
// frames at 13 to 18 iterations, nearly all from self-collision rows turning active.

// states of a row set aside in RowBuffers::latent
constexpr int kLatentActive = 0;  // active at the iterate: in J as any other row
constexpr int kLatentAside = 1;   // inactive: its model is set aside, its row in J is zero
constexpr int kLatentJoined = 2;  // a step would make it active: back in J, in the step's model

// Rows that may be set aside: those of the objectives of objective_predicts_activation kinds.
template <class T>
IKWB_HD int lm_latent_rows(const ObjectiveParams<T>* objectives, int count) {
  int rows = 0;
  for (int oi = 0; oi < count; ++oi)
    if (objective_predicts_activation(objectives[oi].type)) rows += objectives[oi].dim;
  return rows;
}

// Elements of RowBuffers::latent: per row its Jacobian row (nv), its value and its state.
IKWB_HD long lm_latent_capacity(int latent_rows, int nv) {
  return long(latent_rows) * (nv + 2);
}

// f(slot, row) for each row that may be set aside, slot counting them in objective order
template <class T, class F>
IKWB_HD void for_each_latent_row(const ProblemView<T>& pv, F f) {
  int slot = 0;
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    if (!objective_predicts_activation(o.type)) continue;
    for (int k = 0; k < o.dim; ++k) f(slot++, o.start + k);
  }
}

// Sets the inactive rows aside at the iterate whose Jacobian the evaluator has just written:
// their model rows leave J (for w.latent, when there is one; a row with terms has none in J),
// their values come from scratch (apply_mode), and w.row_col marks them kRowAside until they
// join a step's model (lm_join_activated).
template <class T>
IKWB_HD void lm_set_aside(const ProblemView<T>& pv, const T* scratch, RowBuffers<T>& w) {
  const int nv = pv.model.dof_count;
  bool terms = false;  // a row set aside with terms: the motion columns at w.q are needed
  for_each_latent_row(pv, [&](int slot, int row) {
    T* s = w.latent ? w.latent + long(slot) * (nv + 2) : nullptr;
    if (scratch[row] > T(0)) {
      if (s) s[nv + 1] = T(kLatentActive);
      w.row_col[row] = kRowGeneral;
      return;
    }
    w.row_col[row] = kRowAside;
    T* Jk = w.J + long(row) * nv;
    if (w.terms && w.terms[slot].count >= 0) {
      terms = true;
    } else {
      for (int c = 0; c < nv; ++c) {
        if (s) s[c] = Jk[c];
        Jk[c] = T(0);
      }
    }
    if (!s) return;
    s[nv] = scratch[row];
    s[nv + 1] = T(kLatentAside);
  });
  if (terms && w.latent && w.motion) motion_columns(pv.model, w.body_q, *w.motion);
}

// Before a Jacobian: no row has terms until the evaluator writes them (builtin_jacobian), which
// it may for the rows of an objective that is inactive at the iterate (w.r, its weighted rows,
// all at most zero); the others' are refused (their Jacobian rows are wanted, no terms tried).
template <class T>
IKWB_HD void lm_offer_terms(const ProblemView<T>& pv, RowBuffers<T>& w) {
  if (!w.terms) return;
  int slot = 0;
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    if (!objective_predicts_activation(o.type)) continue;
    bool inactive = true;
    for (int k = 0; k < o.dim; ++k) inactive = inactive && !(w.r[o.start + k] > T(0));
    for (int k = 0; k < o.dim; ++k) w.terms[slot++].count = inactive ? kTermsNone : kTermsRefused;
  }
}

// Calls f(s, slot, row) for each latent row in `state` (kLatentAside or kLatentJoined): s is its
// slot in w.latent (nv + 2 values: its Jacobian row, its value, its state). None without
// w.latent.
template <class T, class F>
IKWB_HD void for_each_latent_in(const ProblemView<T>& pv, const RowBuffers<T>& w, T state, F f) {
  if (!w.latent) return;
  const int nv = pv.model.dof_count;
  for_each_latent_row(pv, [&](int slot, int row) {
    T* s = w.latent + long(slot) * (nv + 2);
    if (s[nv + 1] == state) f(s, slot, row);
  });
}

// start + j . v for the latent rows' j at the iterate (w.q): from the row kept in the slot, or
// from the row's terms and the bodies' motion along v (motion_along in half `half` of w.motion,
// whose columns lm_set_aside took at w.q).
template <class T>
struct LatentSlope {
  const ProblemView<T>& pv;
  const RowBuffers<T>& w;
  const T* v;
  int half;
  const Vec3<T>* motion = nullptr;
  IKWB_HD T operator()(const T* s, int slot, T start) {
    if (!w.terms || w.terms[slot].count < 0) {
      for (int c = 0; c < pv.model.dof_count; ++c) start += s[c] * v[c];
      return start;
    }
    if (!motion) motion = motion_along(pv.model, *w.motion, v, half);
    return start + terms_slope(w.terms[slot], motion, w.motion->com_velocity[half]);
  }
};

// Each set-aside row that the step dq makes active in its linear model joins the step's model:
// its row goes back into J (a row with terms gets its Jacobian row from them, kept in its slot
// from then on). Returns how many joined.
template <class T>
IKWB_HD int lm_join_activated(const ProblemView<T>& pv, const T* dq, RowBuffers<T>& w) {
  const int nv = pv.model.dof_count;
  int joined = 0;
  LatentSlope<T> slope{pv, w, dq, 0};
  for_each_latent_in(pv, w, T(kLatentAside), [&](T* s, int slot, int row) {
    if (!(slope(s, slot, s[nv]) > T(0))) return;
    if (w.terms && w.terms[slot].count >= 0) {
      terms_row(pv.model, *w.motion, w.terms[slot], s);
      w.terms[slot].count = kTermsNone;
    }
    s[nv + 1] = T(kLatentJoined);
    w.row_col[row] = kRowGeneral;
    T* Jk = w.J + long(row) * nv;
    for (int c = 0; c < nv; ++c) Jk[c] = s[c];
    ++joined;
  });
  return joined;
}

// How far along p (the null-space posture's step) the step dq + a p can go, a in [0, 1], before
// a row set aside (one that has not joined the step's model) turns active in its linear model;
// rows that dq alone makes active are the step's own join and do not count.
template <class T>
IKWB_HD T lm_posture_reach(const ProblemView<T>& pv, const T* dq, const T* p,
                           const RowBuffers<T>& w) {
  const int nv = pv.model.dof_count;
  T reach = T(1);
  LatentSlope<T> along_dq{pv, w, dq, 0};
  LatentSlope<T> along_p{pv, w, p, 1};
  for_each_latent_in(pv, w, T(kLatentAside), [&](const T* s, int slot, int) {
    const T v = along_dq(s, slot, s[nv]), vp = along_p(s, slot, T(0));
    if (v > T(0) || !(v + vp > T(0))) return;
    const T a = -v / vp;  // v <= 0 < v + vp, so vp > 0 and a in [0, 1)
    if (a < reach) reach = a;
  });
  return reach;
}

// Sets the joined rows aside again (their rows leave J): the next step starts from the active
// rows, so a row that joined for a step that was rejected does not pull the shorter steps after it
// toward its boundary.
template <class T>
IKWB_HD void lm_set_joined_aside(const ProblemView<T>& pv, RowBuffers<T>& w) {
  const int nv = pv.model.dof_count;
  for_each_latent_in(pv, w, T(kLatentJoined), [&](T* s, int, int row) {
    s[nv + 1] = T(kLatentAside);
    w.row_col[row] = kRowAside;
    T* Jk = w.J + long(row) * nv;
    for (int c = 0; c < nv; ++c) Jk[c] = T(0);
  });
}

// The normal equations again, with the joined rows' values as their residuals (w.r keeps 0 for
// them: they are inactive at the iterate).
template <class T>
IKWB_HD void lm_build_joined(const ProblemView<T>& pv, const LmSystem<T>& sys, RowBuffers<T>& w) {
  const int nv = pv.model.dof_count;
  for_each_latent_in(pv, w, T(kLatentJoined), [&](const T* s, int, int row) { w.r[row] = s[nv]; });
  lm_build(sys, w.r);
  for_each_latent_in(pv, w, T(kLatentJoined), [&](const T*, int, int row) { w.r[row] = T(0); });
}

// What lm_model_decrease counted wrongly for the joined rows: it took (v + j dq)^2 / 2 from
// v^2 / 2 where the rows are max(0, v + j dq)^2 / 2 and 0 at the iterate. Add it to the decrease.
template <class T>
IKWB_HD T lm_joined_correction(const ProblemView<T>& pv, const T* dq, const RowBuffers<T>& w) {
  const int nv = pv.model.dof_count;
  T c = T(0);
  for_each_latent_in(pv, w, T(kLatentJoined), [&](const T* s, int, int) {
    T v = s[nv];
    for (int a = 0; a < nv; ++a) v += s[a] * dq[a];
    c -= T(0.5) * s[nv] * s[nv];
    if (v < T(0)) c += T(0.5) * v * v;
  });
  return c;
}

// The null-space posture step is projected this many times with the damped projector
// N = I - (A + lambda D)^-1 A. Applied once, it leaves lambda / (s^2 + lambda) of each direction
// of A (singular value s) in the step: a weakly held task direction (s^2 near lambda) takes a large
// share of the posture's pull, and the task converges only as fast as lambda falls. Applied k times
// the share is (lambda / (s^2 + lambda))^k, while the null directions keep the whole step; each
// pass is one solve with the factor the step already has: N v = (A + lambda D)^-1 (lambda D v).
constexpr int kNullProjections = 3;

// Posture steps taken with the tolerances met are Gauss-Newton steps on the task too; when they
// leave every task error and violation within this share of its tolerance, they stand for the
// polish (lm_solve_row's polished). Measured (docs/benchmarks.md, "Posture steps as the
// polish"): the humanoid preset dragged 2 mm a frame ends its posture steps at 4e-9 m against
// 1e-4 m; the Panda's posture settling after a branch edit at 1.9e-6 m, which a polish takes to
// 2e-10 m (and undoes the 2e-5 rad the posture cost the edited joint).
constexpr double kPolishShare = 1e-3;

// A row within the tolerances whose soft rows outside the task errors still pull (RowEval::pull)
// ends once kPullFlat iterations in a row have each lowered its cost by less than kPullSettled
// of it: the weighted compromise has settled, where the tolerances hold or not.
constexpr double kPullSettled = 1e-3;
constexpr int kPullFlat = 2;

// The augmented Lagrangian's update, every al_inner_iterations (lm_solve_row, lbfgs_solve_row),
// with the hard rows' values r (sqrt(mu) (c + lambda / mu)): where the violation fell to a quarter
// of the last update's, the multipliers take lambda + mu c (sqrt(mu) r); else the penalty grows
// (up to mu_max) and the multipliers stay. Updated at every call, they grew by mu c at each
// update where the hard rows cannot all hold (a hard pose out of reach), and lambda / mu, the
// shift of the rows' target, moved each update further beyond the reach: the Panda's hard tool
// pose dragged 45 cm out ended 251 mm and 112 deg off in the workbench, where the soft
// objective ends 40 mm and 0.5 deg off, and a sequence along such a path jumped up to 2 rad a
// row. (The first update after a rebase is made whatever the violation did: lm_solve_row.)
// Kept where no progress is made, they bound the shift by lambda / mu_max, and the rows end as
// close as they can get (the penalty's least violation), the soft rows in the rest.
// resync: update the multipliers whatever the violation did (the penalty still grows where it
// did not fall).
template <class T>
IKWB_HD void al_update(const ProblemView<T>& pv, T violation, T last_violation,
                       const LmConfig<T>& cfg, const T* r, T* lambda, T& mu, bool resync = false) {
  const bool fell = violation <= T(0.25) * last_violation;
  if (fell || resync)
    for (int oi = 0; oi < pv.objective_count; ++oi) {
      const ObjectiveParams<T>& o = pv.objectives[oi];
      if (!o.hard || !o.enabled) continue;
      for (int k = 0; k < o.dim; ++k) lambda[o.start + k] = sqrt(mu) * r[o.start + k];
    }
  if (!fell && mu < cfg.mu_max) mu = mu * cfg.mu_growth;
}

// Multipliers reached at penalty `from` (w.al_lambda), for a solve that begins at w.q with
// penalty `to`: rebased so that every hard row holds the force it held there. That force is
// lambda + from c (sqrt(from) r, what a multiplier update would set; max(0, .) on an inequality
// row), and lambda + (from - to) c keeps it at the penalty `to`. Taken as they were, a lower
// penalty lets the hard rows give way where the soft ones pull against them: the workbench's
// warm start, begun each frame at a tenth of the penalty the last one ended with, let the
// humanoid's hard feet and balance go from 0.19 to 1.8 mm off in its first step, its next
// multiplier update overshot, and it cycled between two states 0.19 and 0.25 mm off frame after
// frame (SolverDriver, AWarmStartAtALowerPenaltyHoldsItsHardRows). A hard objective whose
// multipliers are all zero held no force where they were reached (it was off or soft then, or
// nothing pulled against it, where its violation is about zero anyway) and begins from zero:
// rebased, the humanoid's hard balance turned on again 2.4 cm off, where the frame before had
// kept a seed at penalty 1e5, began with a force of 1e5 x 2.4 cm that it had never held, and the
// hard feet gave way by up to 0.66 m for three frames (Panda,
// AHardObjectiveTurnedOnStartsFromNoForce). w.body_q, w.r: scratch.
template <class T, class Eval>
IKWB_HD void rebase_multipliers(Eval& ev, const ProblemView<T>& pv, T from, T to,
                                RowBuffers<T>& w) {
  ev.set_multipliers(w.al_lambda, from);
  ev.residual(w.q, w.body_q, w.r);
  // lambda + (from - to) c = (to / from) lambda + (1 - to / from) force, also where the force is
  // 0 (an inactive inequality row: lambda + to g stays <= 0)
  const T keep = to / from;
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    if (!o.hard || !o.enabled) continue;
    bool held = false;
    for (int k = 0; k < o.dim; ++k) held = held || w.al_lambda[o.start + k] != T(0);
    if (!held) continue;
    for (int k = 0; k < o.dim; ++k) {
      T& lambda = w.al_lambda[o.start + k];
      lambda = keep * lambda + (T(1) - keep) * sqrt(from) * w.r[o.start + k];
    }
  }
}

// An attempt of a row that restarts (RowBuffers::hard_extension) whose hard objectives are still
// off at its max_iterations goes on while they are, up to kHardExtension times as many in all:
// its augmented Lagrangian takes about 90 iterations to take the penalty from 100 to its cap (six
// updates of 15), and a humanoid's hard feet, hard hand and balance, which hold together, came
// back 0.9-1.9 mm off against a soft hand out of reach from every attempt of a batch solve's 60
// (a review's scene in tests/data/scenes; with 120 they hold to 5e-6). A row within its hard
// tolerances, or without hard objectives, stops where it did: a cap of 120 for every attempt
// doubled the time of a retargeting path whose weak null-space posture settles through every
// iteration.
constexpr int kHardExtension = 2;

// A kept attempt that goes on (RowBuffers::finishing) runs up to kFinishExtension times
// max_iterations, and stops once kFinishWindow iterations in a row lower its cost by less than
// kFinishFlat of it while its hard objectives hold (in float, a few units of rounding: 1e-9 is
// below float's resolution). A
// compromise of soft objectives that cannot all be met converges only linearly (its residual is
// not 0): the 24 Panda hands 1.7-3 m from their targets of
// Solver.RestartsFinishTheCompromiseTheyKeep, with a weighted posture, took 95 to 250 more
// iterations from where the batch solve's attempts stopped (one took 600; with 300 at most it
// stopped 3.5e-6 of its cost short), seen with a print in the driver; a review saw a humanoid's
// hand 2-4 m out end up to 2.3 % above its compromise without them.
constexpr int kFinishExtension = 10;
constexpr int kFinishWindow = 8;
constexpr double kFinishFlat = 1e-9;

// Runs up to cfg.max_iterations LM iterations from w.q (more while hard objectives are off,
// kHardExtension); st is initialised here. Each iteration is one trial step (accepted or
// rejected). The buffers are swapped as steps are
// accepted: on return w.q (and w.body_q, w.r) point at the final iterate and st holds its
// evaluation.
template <class T, class Eval>
IKWB_HD_OUTLINED void lm_solve_row(Eval& ev, const ProblemView<T>& pv, const LmConfig<T>& cfg,
                                   RowBuffers<T>& w, RowStatus<T>& st) {
  const ModelView<T>& m = pv.model;
  const int nv = m.dof_count, nq = m.coord_count, nr = pv.residual_count;
  const bool has_hard = problem_has_hard(pv);
  const bool early_exit = !cfg.fixed_iterations && problem_has_measure(pv);
  LmSystem<T> sys;
  sys.nv = nv;
  sys.nr = nr;
  sys.m = lm_classify_rows(pv, w.row_col, w.rows);
  sys.kind = lm_resolve_step(cfg.step, nv, sys.m);
  sys.J = w.J;
  sys.dof_free = w.dof_free;
  sys.A = w.A;
  sys.L = w.L;
  sys.g = w.g;
  sys.diag = w.diag;
  sys.row_col = w.row_col;
  sys.rows = w.rows;
  sys.cols = w.cols;
  if (sys.kind == LmStep::kDense && lm_tree_factor_pays(nv)) {
    sys.dofs.parent = w.cols;
    sys.dofs.depth = w.cols + nv;
    sys.dofs.stride = lm_dof_parents(m, w.cols, w.cols + nv);
  }
  // the clock is read every iteration on larger problems, every fourth on small ones (an
  // iteration of a 7-dof arm takes about as long as a few clock reads); not before a step was
  // accepted, within kStepsBeforeTheClock iterations, so that a budget one iteration outlasts
  // still moves the row (a 2,000-link chain with 2M collision pairs in a 4 ms frame budget took
  // no step in any frame, and never followed a drag: each frame's first step was rejected)
  const bool timed = w.deadline_ns != ~uint64_t(0);
  const int clock_mask = nv >= 32 ? 0 : 3;
  start_multipliers(pv, w.al_lambda_init, w.al_lambda);
  st.mu = cfg.mu_init;
  st.lm_lambda = cfg.lambda_init;
  st.iterations = 0;
  st.converged = false;
  T nu = T(2);
  if (cfg.hard_limits) project_limits(m, pv.dof_lower, pv.dof_upper, w.q, w.dof_free);
  // multipliers rebased at the start are taken at its targets, which may have moved since they
  // were reached (a dragged hard foot): the first update takes them as the force where the row
  // then stands, progress or not (al_update's rule alone held the foot one frame's step behind)
  bool rebased = false;
  if (has_hard && w.al_lambda_init && w.al_penalty_init > T(0) && w.al_penalty_init != st.mu) {
    rebase_multipliers(ev, pv, w.al_penalty_init, st.mu, w);
    rebased = true;
  }
  ev.set_multipliers(w.al_lambda, st.mu);
  // The Jacobian at w.q (w.r: its rows), inactive rows set aside. It is computed when the next
  // step is formed, so a row that stops at an iterate (converged after an accepted step) never
  // computes that iterate's.
  bool joined = false;         // rows joined the last step's model
  bool need_jacobian = true;   // w.J is not yet the Jacobian at w.q
  bool need_normal = true;     // the normal equations are not yet formed at w.q
  auto at_new_point = [&]() {  // w.q or the multipliers changed
    need_jacobian = true;
    need_normal = true;
    joined = false;
  };
  st.eval = ev.residual(w.q, w.body_q, w.r);
  // Null-space posture: each step adds null_scale * (its projected posture step); a rejected
  // step is retried without it and the scale shrinks. The posture is settled (null_done) when
  // its step gets negligible; until then a converged row keeps iterating toward the rest.
  bool null_done = w.null_rest == nullptr, use_null = !null_done;
  T null_scale = T(1);
  // Settling without a cap (settle_iterations 0: a batch row, a sequence's row, a timeline
  // sample; not a frame), the posture's step is boosted: 1.5 times longer after each accepted
  // step, up to a whole step to the rest (gain x scale x boost = 1), 0.6 times after a rejected
  // one (factors chosen on a Panda and a humanoid retargeting path: 2 / 0.5 wasted a third of the
  // steps on rejections, 1.25 / 0.8 grew too slowly). A weak posture (gain 0.005: 0.5 x weight
  // 0.01) moved its remaining distance in the task's null space by 0.5% a step and took a row
  // through every iteration it was allowed; the task's curvature now limits the steps (a boosted
  // step must keep the row within the tolerances)
  bool boosting = false;  // this iteration settles without a cap
  T settle_boost = T(1);
  const T null_gain = w.null_rest ? cfg.null_space_gain * w.null_weight : T(0);
  auto null_step_scale = [&]() { return boosting ? null_scale * settle_boost : null_scale; };
  int since_update = 0;
  T last_violation = st.eval.violation;
  T stall_cost = st.eval.cost;  // the cost where it last fell below kStallDecrease of this
  int stall_since = 0;          // ... at this iteration
  T stall_violation = largest_finite<T>();  // at the last stall that updated the multipliers
  T flat_cost = st.eval.cost;               // finishing: where the cost last fell by kFinishFlat
  int flat_since = 0;                       // ... at this iteration
  int settle_used = 0;                      // posture steps taken with the tolerances met
  bool settle_capped = false;  // settle_iterations ended the posture steps before it settled
  int polish_left = -1;        // >= 0 once the tolerances are met
  bool accepted = false;       // the last iteration accepted its step
  bool to_boundary = false;    // the last step, which met a limit, was rejected
  int limit_stops = 0;         // dofs the damped step stopped at a limit (lm_mark_limits)
  int pull_flat = -1;          // iterations met with a pull that barely lowered the cost (-1: not
                               // met with a pull)
  T pull_cost = T(0);          // the cost when pull_flat last counted
  bool moved = false;          // a step was accepted
  bool turned_over = false;    // a stall turned joints over (lm_turn_over_limits)
  // a step was accepted from an iterate within the tolerances (a posture step while settling):
  // if the row is then well within the tolerances (kPolishShare), those steps were its polish
  bool polished = false;
  auto polish_after = [&]() {
    if (!moved) return 0;
    const T share = T(kPolishShare);
    const bool well_within = st.eval.position_error <= share * cfg.tol_position &&
                             st.eval.rotation_error <= share * cfg.tol_rotation &&
                             st.eval.violation <= share * cfg.tol_constraint;
    return polished && well_within ? 0 : cfg.polish_iterations;
  };
  // The null-space posture's step N^k v into out (nv), with the factor in sys:
  // N = I - (A + lambda D)^-1 A = (A + lambda D)^-1 lambda D, v = -s k (q - rest); frozen dofs and
  // those held (held: nv, or null) take 0. With dq (the plain step's right-hand side, or null),
  // its first pass and the plain step share one solve.
  auto posture_step = [&](T* out, const T* held, T* dq) {
    posture_difference(m, w.q, w.null_rest, out);
    for (int a = 0; a < nv; ++a) {
      const bool free = (!w.dof_free || w.dof_free[a]) && !(held && held[a] > T(0));
      out[a] = free ? -null_step_scale() * cfg.null_space_gain * w.null_weight * out[a] : T(0);
    }
    for (int pass = 0; pass < kNullProjections; ++pass) {
      for (int a = 0; a < nv; ++a) out[a] *= lm_dof_damping(sys, st.lm_lambda, cfg.marquardt, a);
      if (pass == 0 && dq)
        lm_solve_pair(sys, dq, out);
      else
        lm_solve(sys, out);
    }
  };
  // the damped step again with the dofs marked in w.tmp (lm_mark_limits) fixed at their steps;
  // false when the damped matrix without them is not positive definite
  auto solve_marked = [&]() {
    if (!lm_factor(sys, st.lm_lambda, cfg.marquardt, w.tmp)) return false;
    lm_limit_rhs(pv, sys, w);
    if (use_null)
      posture_step(w.q_trial, w.tmp, w.dq);
    else
      lm_solve(sys, w.dq);
    return true;
  };
  // the damped step (A + lambda D) dq = -g, dofs on a hard limit that the step pushes out held,
  // those it carries just across one stopped there (lm_mark_limits); false when the damped
  // matrix is not positive definite. With the null-space posture on, its step (posture_step)
  // goes to q_trial (scratch until the trial point is formed). A dof on a limit that the step, or
  // the step with the posture's, pushes out is held for both: the posture's step is projected
  // again without it, as a dof the limit clips would carry the rest of the posture's step out of
  // the task's null space (a humanoid's hip on its limit moved the hands 0.1 mm a step, and the
  // row never settled).
  auto damped_step = [&]() {
    if (!lm_factor(sys, st.lm_lambda, cfg.marquardt, (const T*)nullptr)) return false;
    for (int a = 0; a < nv; ++a) w.dq[a] = -w.g[a];
    if (use_null)
      posture_step(w.q_trial, nullptr, w.dq);
    else
      lm_solve(sys, w.dq);
    limit_stops = 0;
    if (!cfg.hard_limits) return true;
    const T* posture = use_null ? w.q_trial : nullptr;
    // first the dofs on a limit that the step pushes out, held: a step of the others that lowers
    // the model, as one dof stopped at a limit after it does (the step cut where that dof meets
    // its limit lowers the damped model, and the others' step solved again lowers it further).
    // Each step solved again may push another dof on a limit out, or carry one across: it is
    // marked in turn (a dof pushed out and clipped made the step's model wrong, the step was
    // rejected, and the step cut at its first limit, that dof's, did not move)
    if (lm_mark_limits(pv, w, posture, true, false, &limit_stops) > 0 && !solve_marked())
      return false;
    if (to_boundary) return true;
    for (int pass = 0; pass < kLimitPasses; ++pass) {
      if (lm_mark_limits(pv, w, posture, false, true, &limit_stops) == 0) break;
      if (!solve_marked()) return false;
    }
    if (limit_stops > 0 && !(lm_model_decrease(sys, w.dq) > T(0))) {
      // several dofs stopped at once, and the model does not fall: the held step instead, cut
      // where its first dof meets a limit (to_boundary)
      limit_stops = 0;
      lm_mark_limits(pv, w, posture, true, false, &limit_stops);
      if (!solve_marked()) return false;
      to_boundary = true;
    }
    return true;
  };
  const int max_iterations =
      has_free_dof(nv, w.dof_free) ? cfg.max_iterations * (w.finishing ? kFinishExtension : 1) : 0;
  const int cap = has_hard && w.hard_extension && !cfg.fixed_iterations
                      ? kHardExtension * max_iterations
                      : max_iterations;
  for (int it = 0; it < cap; ++it) {
    if (it >= max_iterations && !(st.eval.violation > cfg.tol_constraint)) break;
    // out of time: the best so far stands
    if (timed && (moved || it >= kStepsBeforeTheClock) && (it & clock_mask) == clock_mask &&
        row_clock_ns() >= w.deadline_ns)
      break;
    // an earlier attempt of the row converged in another lane: this one cannot be kept
    if (w.stop_after && *static_cast<const volatile unsigned*>(w.stop_after) < w.attempt) break;
    // met, the posture settling: after settle_iterations posture steps the posture's next step
    // is left to the next solve (the row reports settling) without measuring it, and the row
    // ends here (its polish is the posture steps themselves, see polished)
    const bool settling = early_exit && !null_done && row_converged(st.eval, cfg);
    boosting = settling && cfg.settle_iterations == 0;
    if (settling && cfg.settle_iterations > 0 && settle_used >= cfg.settle_iterations) {
      settle_capped = true;
      null_done = true;
      use_null = false;
    }
    const bool last_accepted = accepted;
    accepted = false;
    // met while soft rows outside the task errors pull (RowEval::pull: a weighted posture, a
    // soft inequality in its margin): the tolerances alone do not end the row, or a weight
    // raised while the targets are met would never be obeyed; it goes on as an unconverged row
    // would (free to leave the tolerances, a trade-off) until kPullFlat iterations in a row
    // each lower the cost by less than kPullSettled of it
    const bool pulled_met = early_exit && row_converged(st.eval, cfg) && st.eval.pull > T(0);
    if (!pulled_met) {
      pull_flat = -1;
    } else {
      // a rejected step says nothing about the compromise (the damping is still finding the
      // step's size): it neither counts nor resets
      if (pull_flat < 0 || st.eval.cost < (T(1) - T(kPullSettled)) * pull_cost)
        pull_flat = 0;
      else if (last_accepted)
        ++pull_flat;
      pull_cost = st.eval.cost;
      if (pull_flat >= kPullFlat && null_done) {
        st.converged = true;
        break;
      }
    }
    if (early_exit && null_done && row_converged(st.eval, cfg) && !pulled_met) {
      // a row that has not moved since it started inside the tolerances is left exactly as it
      // is (a still target in the workbench keeps a still robot)
      if (polish_left < 0) polish_left = polish_after();
      if (polish_left == 0) {
        st.converged = true;
        break;
      }
      --polish_left;
    }
    if (st.eval.cost <= T(kStallDecrease) * stall_cost) {
      stall_cost = st.eval.cost;
      stall_since = it;
    } else if (cfg.stall_window > 0 && it - stall_since >= cfg.stall_window &&
               !cfg.fixed_iterations) {
      // stalled. With hard rows violated by less than kStallNearViolation tolerances (or at
      // the first stall, with their terms under kStallTradeShare of the soft cost) and the
      // penalty below its cap, the multipliers are updated now (the cost is measured anew)
      // instead of giving the seed up, while each such update leaves under a quarter of the
      // violation before it: a hard objective that conflicts with a soft one (a target inside a
      // keep-out distance) holds to its tolerance only once the penalty has grown. Else the
      // attempt is given up for the restart that follows it; the row's last attempt has none to
      // make room for and goes on (a slow convergence is still a convergence)
      const bool near =
          st.eval.violation > cfg.tol_constraint &&
          (st.eval.violation < T(kStallNearViolation) * cfg.tol_constraint ||
           (stall_violation == largest_finite<T>() &&
            st.eval.cost - st.eval.soft_cost < T(kStallTradeShare) * st.eval.soft_cost));
      if (has_hard && st.mu < cfg.mu_max && near && st.eval.violation < T(0.25) * stall_violation) {
        stall_violation = st.eval.violation;
        since_update = cfg.al_inner_iterations;
      } else if (w.restart_follows && !settling) {
        // (a row settling its posture is met, not stalled: its cost stays where it is); a joint
        // held at a limit a turn from its other one is turned over once (lm_turn_over_limits)
        // and the attempt goes on from there, the same pose
        if (turned_over || !cfg.turn_over || !cfg.hard_limits || !lm_turn_over_limits(pv, w)) break;
        turned_over = true;
        st.eval = ev.residual(w.q, w.body_q, w.r);
        at_new_point();
        stall_cost = flat_cost = st.eval.cost;
        stall_since = flat_since = it;
        st.lm_lambda = cfg.lambda_init;
        nu = T(2);
      }
    }
    // (a finish whose hard objectives are off goes on: the multiplier updates bring them back;
    // stopped flat there, a review's humanoid finishes left a foot off and were thrown away)
    if (w.finishing && !cfg.fixed_iterations) {
      const T flat = T(kFinishFlat) + T(8) * machine_epsilon<T>();
      if (st.eval.cost < (T(1) - flat) * flat_cost) {
        flat_cost = st.eval.cost;
        flat_since = it;
      } else if (it - flat_since >= kFinishWindow && !(st.eval.violation > cfg.tol_constraint)) {
        break;
      }
    }
    // augmented-Lagrangian update (al_update)
    if (has_hard && (since_update >= cfg.al_inner_iterations || st.lm_lambda > T(1e8))) {
      al_update(pv, st.eval.violation, last_violation, cfg, w.r, w.al_lambda, st.mu, rebased);
      rebased = false;
      last_violation = st.eval.violation;
      ev.set_multipliers(w.al_lambda, st.mu);
      st.eval = ev.residual(w.q, w.body_q, w.r);
      at_new_point();
      since_update = 0;
      // the cost is measured anew: the stall and flat windows start over from it
      stall_cost = flat_cost = st.eval.cost;
      stall_since = flat_since = it;
      st.lm_lambda = cfg.lambda_init;
      nu = T(2);
    }
    ++since_update;
    ++st.iterations;
    if (joined) {  // the last step was rejected with rows joined: they leave the model again
      lm_set_joined_aside(pv, w);
      joined = false;
      need_normal = true;
    }
    if (need_normal) {
      if (need_jacobian) {
        lm_offer_terms(pv, w);
        ev.jacobian(w.q, w.body_q, w.r_trial, w.J);
        lm_set_aside(pv, w.r_trial, w);
        need_jacobian = false;
      }
      // A = J^T J (or the row-space diagonals), g = J^T r
      lm_build(sys, w.r);
      need_normal = false;
    }
    // damped system (A + lambda D) dq = -g; rows set aside that the step makes active join
    // the model, and the step is solved again
    bool stepped = damped_step();
    if (stepped && lm_join_activated(pv, w.dq, w) > 0) {
      joined = true;
      lm_build_joined(pv, sys, w);
      stepped = damped_step();
    }
    if (!stepped) {
      st.lm_lambda *= nu;
      nu *= T(2);
      continue;
    }
    if (use_null) {
      // posture in the task null space: its step (damped_step) added to dq. A row set aside has
      // no Jacobian row to project the posture against, so a posture step that would make one
      // active (capsules into their margin, the centre of mass toward the support polygon's
      // edge) is cut where the row's linear model reaches zero: the posture comes to rest at
      // the edge instead of pushing in and being pulled back out by the steps after it
      const T reach = lm_posture_reach(pv, w.dq, w.q_trial, w);
      if (reach < T(1))
        for (int a = 0; a < nv; ++a) w.q_trial[a] *= reach;
      if (largest_magnitude(w.q_trial, nv) < T(1e-5) * null_step_scale()) {
        // settled: the posture is as close to the rest as the task allows
        null_done = true;
        use_null = false;
      } else {
        for (int a = 0; a < nv; ++a) w.dq[a] += w.q_trial[a];
      }
      // the posture ended (settled, or out of steps) on a row within the tolerances: the plain
      // step is the row's polish, or the row stops here when its posture steps polished it or
      // it has not moved
      if (null_done && early_exit && row_converged(st.eval, cfg) && !(st.eval.pull > T(0))) {
        polish_left = polish_after();
        if (polish_left == 0) {
          st.converged = true;
          break;
        }
        --polish_left;
      }
    }
    if (cfg.max_step > T(0)) {
      const T largest = largest_magnitude(w.dq, nv);
      if (largest > cfg.max_step) {
        const T shorten = cfg.max_step / largest;
        for (int a = 0; a < nv; ++a) w.dq[a] *= shorten;
      }
    }
    // A step that met a limit (dofs stopped at one, the others solved again: lm_mark_limits; or
    // clipped, which leaves the model's direction) can still raise the cost: with several dofs
    // stopped at once the model's decrease is not assured. After one such step is rejected the
    // next is the plain step (dofs on a limit held) cut where its first dof meets a limit, which
    // lowers the model, with the same damping (the dof is then held there). (A step already cut
    // to its first limit is not cut again: a rejection raises the damping.)
    if (to_boundary) {
      const T t = boundary_fraction(m, pv.dof_lower, pv.dof_upper, w.q, w.dq, w.dof_free);
      for (int a = 0; a < nv; ++a) w.dq[a] *= t;
    }
    for (int a = 0; a < nq; ++a) w.q_trial[a] = w.q[a];
    integrate_row(m, w.q, w.dq, T(1), w.q_trial);
    const bool clipped = cfg.hard_limits && project_limits(m, pv.dof_lower, pv.dof_upper, w.q_trial,
                                                           w.dof_free, (const T*)w.tmp);
    const bool met_limit = (clipped || limit_stops > 0) && !to_boundary;
    to_boundary = false;
    // predicted decrease of the quadratic model for the step actually taken
    step_row(m, w.q_trial, w.q, w.dq);
    T pred = lm_model_decrease(sys, w.dq) + lm_joined_correction(pv, w.dq, w);
    RowEval<T> trial = ev.residual(w.q_trial, w.body_q_trial, w.r_trial);
    T actual = st.eval.cost - trial.cost;
    bool finite = trial.cost == trial.cost && trial.cost <= largest_finite<T>();
    bool gain_ok = pred > T(0) && actual > T(1e-4) * pred;
    // a posture step may cost task accuracy only within the tolerances
    bool accept = finite && (gain_ok || (use_null && (actual >= -T(1e-12) * (T(1) + st.eval.cost) ||
                                                      row_converged(trial, cfg))));
    if (polish_left >= 0 && !row_converged(trial, cfg)) accept = false;
    if (!accept && use_null && boosting && settle_boost > T(1)) {
      // a boosted step too long for the task's curvature (the trial left the tolerances): the
      // posture again with a shorter one, from the same point
      settle_boost *= T(0.6);
      continue;
    }
    if (!accept && use_null) {
      // the posture motion disturbed the task (it is null only to first order, and the damped
      // projection leaks as lambda grows): take the plain LM step next, damping unchanged
      use_null = false;
      null_scale *= T(0.25);
      if (null_scale < T(1.0 / 64))  // it only fits when tiny: settled as far as it goes
        null_done = true;
      continue;
    }
    if (accept) {
      if (use_null && settling) ++settle_used;
      if (settling) polished = true;
      if (use_null) {
        // settled too when the step taken is negligible (the posture pushes into a limit)
        if (largest_magnitude(w.dq, nv) < T(1e-5)) null_done = true;
        if (null_scale < T(1))
          null_scale *= T(2);
        else if (boosting && T(1.5) * null_gain * null_step_scale() <= T(1))
          settle_boost *= T(1.5);
      }
      use_null = !null_done;
      if (gain_ok) {  // a step taken for the posture alone leaves the damping as it is
        T rho = actual / pred;
        T f = T(2) * rho - T(1);
        T shrink = T(1) - f * f * f;
        st.lm_lambda *= shrink > T(1) / T(3) ? shrink : T(1) / T(3);
        if (st.lm_lambda < T(1e-12)) st.lm_lambda = T(1e-12);
      }
      nu = T(2);
      moved = true;
      accepted = true;
      T* t = w.q;
      w.q = w.q_trial;
      w.q_trial = t;
      Transform<T>* tb = w.body_q;
      w.body_q = w.body_q_trial;
      w.body_q_trial = tb;
      T* tr = w.r;
      w.r = w.r_trial;
      w.r_trial = tr;
      st.eval = trial;
      at_new_point();
    } else if (met_limit) {
      to_boundary = true;
    } else {
      st.lm_lambda *= nu;
      nu *= T(2);
      // a rejected step far beyond any useful size (a target far out of reach makes r, and so
      // the Gauss-Newton step, huge): jump the damping to where the step is about one unit
      // (dq ~ -g / lambda) instead of doubling there over many rejections
      // (with max_step below 3 this is left to the shortened steps)
      T gg = T(0);
      for (int a = 0; a < nv; ++a) gg += w.g[a] * w.g[a];
      if (largest_magnitude(w.dq, nv) > T(3) && st.lm_lambda * st.lm_lambda < gg)
        st.lm_lambda = sqrt(gg);
      if (st.lm_lambda > T(1e12)) {
        // stalled at a local minimum of the current cost: stop, unless the iteration count is
        // fixed
        if ((!has_hard || st.mu >= cfg.mu_max) && !cfg.fixed_iterations) break;
        since_update = cfg.al_inner_iterations;
      }
    }
  }
  if (!st.converged && row_converged(st.eval, cfg)) st.converged = true;
  st.settling = st.converged && (!null_done || settle_capped);
}

}  // namespace ikwb
