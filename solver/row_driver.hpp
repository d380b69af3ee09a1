// The per-row driver of the IK solve, one implementation for the CPU backend
// (solver/cpu_backend.cpp) and the CUDA kernels (kernels/row_solve.cuh): the seed of each
// attempt, restarts, the merit that ranks attempts and seeds, the best attempt of a row, the
// null-space posture a row steps toward, and the best seed of a problem.
//
// __host__ __device__ and templated on the scalar like lm_solve_row, over plain structs and raw
// pointers; the local solve of one attempt is a callable (LM on the GPU; LM or L-BFGS on the
// CPU), so each backend keeps only its buffers, thread mapping and launches.
#pragma once

#include <cstdint>

#include "solver/lm_row.hpp"
#include "solver/sampler.hpp"

namespace ikwb {

// Everything the row driver reads besides the problem data; plain, so the CUDA backend keeps it
// in device memory (a captured graph then does not depend on the settings).
template <class T>
struct RowDriverConfig {
  LmConfig<T> lm;  // the local solve of each attempt
  int n_seeds = 1;
  int max_restarts = 0;
  SeedSampler sampler = SeedSampler::kNone;             // attempt 0 of every seed
  SeedSampler restart_sampler = SeedSampler::kUniform;  // restarts: uniform, or roberts
  T sigma = T(0.3);                                     // gaussian sampler
  uint64_t rng_seed = 0;
  uint64_t time_budget_ns = 0;  // restarts stop when it runs out; 0 = none
  int8_t all_seeds = 1;         // every seed runs; else seeds stop at the first converged one
  int8_t prefer_closest = 0;    // among converged seeds pick the one closest to q_init
};

// What a row reports: its best attempt, and whether it ran at all.
template <class T>
struct RowResult {
  RowEval<T> eval;
  int iterations = 0;  // over all attempts (restarts included)
  int attempt = 0;     // the attempt kept (0: the seed itself, k: its k-th restart)
  uint8_t converged = 0;
  uint8_t settling = 0;  // converged, the null-space posture not yet settled (RowStatus)
  uint8_t ran = 0;
  T damping = T(0);  // the LM damping the kept attempt ended with (0 from L-BFGS)
  T penalty = T(0);  // the augmented-Lagrangian penalty mu it ended with
};

struct ProblemPick {
  int seed = 0;
  int total_iterations = 0;  // over the seeds that ran
};

// the row_clock_ns time budget_ns from now; none (the largest time) for a budget of 0 or one
// that would overflow
IKWB_HD uint64_t row_deadline_ns(uint64_t budget_ns) {
  const uint64_t none = ~uint64_t(0);
  if (budget_ns == 0) return none;
  const uint64_t start = row_clock_ns();
  return budget_ns < none - start ? start + budget_ns : none;
}

// merit for picking among unconverged attempts and seeds: the soft cost the weights define (what
// LM minimises) plus a heavy price on violations. The task errors are not added: unweighted
// metres and radians outweighed the cost of a compromise between objectives that cannot all be
// met, and picked the attempt whose worst error was smallest over the one the weights ask for.
template <class T>
IKWB_HD double row_merit(const RowEval<T>& e) {
  return double(e.soft_cost) + 1e4 * double(e.violation) * double(e.violation);
}

// The tier an attempt or seed is picked by before its merit: converged (2), else holding every
// hard objective within tol_constraint (1), else 0. Within a tier the merit (or, converged, the
// attempt order or closeness) decides. The merit alone priced a violation too cheaply against a
// soft objective out of reach: a humanoid's hand 0.9 m beyond its reach along a path, feet hard,
// kept attempts whose feet were 0.3-0.4 mm off (tolerance 0.1 mm) for a hand a few mm nearer, on
// 13 of 300 targets solved apart and 6 of 300 in sequence; a hard objective is what an answer
// keeps, so an attempt that keeps them wins over one that trades them away.
template <class T>
IKWB_HD int pick_tier(bool converged, const RowEval<T>& e, T tol_constraint) {
  return converged ? 2 : e.violation <= tol_constraint ? 1 : 0;
}

// the posture objective applied in the null space of the task: the last enabled one, or -1
template <class T>
IKWB_HD int null_space_posture(const ProblemView<T>& pv) {
  int found = -1;
  for (int oi = 0; oi < pv.objective_count; ++oi) {
    const ObjectiveParams<T>& o = pv.objectives[oi];
    if (o.type == ObjectiveType::kPosture && o.null_space && o.enabled) found = oi;
  }
  return found;
}

// sampler sequence number of an attempt: the seeds first (attempt 0 of seed s is s), then each
// seed's restarts in turn, so no two attempts of a problem draw the same sample
IKWB_HD uint32_t attempt_sequence(int seed, int attempt, int n_seeds, int max_restarts) {
  return attempt == 0 ? uint32_t(seed) : uint32_t(n_seeds + seed * max_restarts + attempt - 1);
}

// Attempts of one row run side by side (the CUDA backend's attempt lanes): lane `first` of
// `step` lanes runs attempts first, first + step, ... Each attempt's start is drawn from its own
// sequence number (attempt_sequence), so an attempt computes the same in any lane; the lanes'
// results combine (combine_attempt_lanes) into exactly the row one lane running every attempt
// in turn gives, when no time budget cuts it short.
//   stop_after: the row's lowest converged attempt (the largest unsigned while none has),
//               lowered atomically by the lane that converges; a lane starts no attempt above
//               it and stops one running when it drops below (RowBuffers::stop_after)
//   attempt_iterations (max_restarts + 1): each attempt's iterations, written by its lane
struct AttemptLane {
  int first = 0;
  int step = 1;
  unsigned* stop_after = nullptr;
  int* attempt_iterations = nullptr;
};

// A row's hard-row multipliers (nr each, either null): those its attempt from the seed itself
// starts from (a warm start's, WarmStart), and where the kept attempt's final ones are copied;
// and the penalty init was reached at (0: unknown, init taken as it is; RowBuffers).
template <class T>
struct RowMultipliers {
  const T* init = nullptr;
  T* best = nullptr;
  T penalty = T(0);
};

// lowers *stop_after to attempt (atomically on the device)
IKWB_HD void lower_stop_after(unsigned* stop_after, unsigned attempt) {
#if defined(__CUDA_ARCH__)
  atomicMin(stop_after, attempt);
#else
  if (attempt < *stop_after) *stop_after = attempt;
#endif
}

// buffers for an attempt of problem `problem` that stops at deadline_ns, with the null-space
// posture filled in (null_space_posture)
template <class T>
IKWB_HD RowBuffers<T> attempt_buffers(const ProblemView<T>& pv, const RowBuffers<T>& buffers,
                                      uint64_t deadline_ns) {
  RowBuffers<T> b = buffers;
  b.deadline_ns = deadline_ns;  // a long attempt stops inside its iterations too
  const int null_obj = null_space_posture(pv);
  b.null_rest = null_obj >= 0 ? pv.rest_q + null_obj * pv.model.coord_count : nullptr;
  b.null_weight = null_obj >= 0 ? pv.objectives[null_obj].weight : T(0);
  return b;
}

// keeps attempt (st, q, al_lambda) in best when no attempt is kept yet or it is better: by tier
// (pick_tier), then the lower merit
template <class T>
IKWB_HD void keep_if_better(const RowDriverConfig<T>& c, const RowStatus<T>& st, int attempt,
                            const T* q, const T* al_lambda, int nq, int nr, RowResult<T>& best,
                            T* best_q, T* best_lambda) {
  const int tier = pick_tier(st.converged, st.eval, c.lm.tol_constraint);
  const int best_tier = pick_tier(best.converged != 0, best.eval, c.lm.tol_constraint);
  if (best.ran &&
      (tier < best_tier || (tier == best_tier && !(row_merit(st.eval) < row_merit(best.eval)))))
    return;
  best.eval = st.eval;
  best.converged = st.converged ? 1 : 0;
  best.settling = st.settling ? 1 : 0;
  best.damping = st.lm_lambda;
  best.penalty = st.mu;
  best.attempt = attempt;
  best.ran = 1;
  for (int i = 0; i < nq; ++i) best_q[i] = q[i];
  if (best_lambda)
    for (int i = 0; i < nr; ++i) best_lambda[i] = al_lambda[i];
}

// Solves seed `seed` of problem `problem`: samples the attempt's start, runs local_solve, and
// restarts from a new sample until an attempt converges, max_restarts are spent or row_clock_ns
// reaches deadline_ns. Returns the best attempt (converged first, then the lower merit) with the
// iterations of all attempts; its configuration is copied to best_q, and its multipliers to
// multipliers.best. With a lane, only that lane's attempts (AttemptLane).
//   buffers: the row's LM buffers; each attempt starts from a copy (local_solve swaps the
//            pointers), with buffers.q set to the seed, the null-space posture and the
//            deadline filled in;
//            buffers.tmp is also the sampler's scratch
//   init (nq): the problem's initial configuration; seed_q (nq): scratch; best_q (nq): out
//   local_solve(RowBuffers<T>& b, RowStatus<T>& st): one local solve from b.q
template <class T, class LocalSolve>
IKWB_HD RowResult<T> drive_row(const ProblemView<T>& pv, const RowDriverConfig<T>& c,
                               const RowBuffers<T>& buffers, int problem, int seed, const T* init,
                               T* seed_q, T* best_q, uint64_t deadline_ns, LocalSolve& local_solve,
                               AttemptLane lane = {}, RowMultipliers<T> multipliers = {}) {
  const ModelView<T>& m = pv.model;
  const int nq = m.coord_count;
  RowBuffers<T> start = attempt_buffers(pv, buffers, deadline_ns);
  RowResult<T> best;
  start.stop_after = lane.stop_after;
  for (int attempt = lane.first; attempt <= c.max_restarts; attempt += lane.step) {
    if (lane.stop_after &&
        *static_cast<const volatile unsigned*>(lane.stop_after) < unsigned(attempt))
      break;
    start.attempt = unsigned(attempt);
    // a restart starts somewhere else: the warm start's forces are not its own
    start.al_lambda_init = attempt == 0 ? multipliers.init : nullptr;
    start.al_penalty_init = attempt == 0 ? multipliers.penalty : T(0);
    sample_seed(m, pv.dof_lower, pv.dof_upper, attempt == 0 ? c.sampler : c.restart_sampler,
                c.sigma, c.rng_seed, problem,
                attempt_sequence(seed, attempt, c.n_seeds, c.max_restarts), init, seed_q, start.tmp,
                start.dof_free);
    // a dof no objective depends on keeps its initial value (a gripper finger, the other arm)
    restore_frozen(m, pv.dof_seeded, init, seed_q);
    for (int i = 0; i < nq; ++i) start.q[i] = seed_q[i];
    RowBuffers<T> b = start;
    b.restart_follows = attempt < c.max_restarts;
    b.hard_extension = c.max_restarts > 0;
    RowStatus<T> st;
    local_solve(b, st);
    best.iterations += st.iterations;
    if (lane.attempt_iterations) lane.attempt_iterations[attempt] = st.iterations;

    keep_if_better(c, st, attempt, b.q, b.al_lambda, nq, pv.residual_count, best, best_q,
                   multipliers.best);
    if (st.converged && lane.stop_after) lower_stop_after(lane.stop_after, unsigned(attempt));
    if (st.converged || row_clock_ns() >= deadline_ns) break;
    if (!has_free_dof(m.dof_count, start.dof_free)) break;  // a restart would start there again
  }
  return best;
}

// Goes on with a row that restarts (max_restarts > 0: a batch solve, iterations not fixed) when
// none of its attempts converged: the kept attempt (drive_row, or the lanes combined:
// combine_attempt_lanes) was given up at a stall for a restart, or stopped at its iteration
// count, short of the compromise it was approaching. A new local solve from best_q with no
// restart following (RowBuffers::finishing: LM runs up to kFinishExtension times the iterations,
// twice that while hard objectives are off, until the cost flattens; L-BFGS one more attempt of
// its iterations), from the hard rows' multipliers it ended with where they were kept
// (multipliers.best, rebased from its penalty to the initial one; without hard rows none are
// kept); it replaces the kept one when it is better (keep_if_better), and its
// iterations count. Without it (Solver.RestartsFinishTheCompromiseTheyKeep) 11 of 24 planar arms
// and 23 of 24 Pandas with soft targets out of reach ended up to 2.8 % and 2.4 % above the cost a
// further solve from their answers reaches. Nothing runs once deadline_ns has passed. buffers,
// deadline_ns and local_solve as in drive_row.
template <class T, class LocalSolve>
IKWB_HD void finish_kept_attempt(const ProblemView<T>& pv, const RowDriverConfig<T>& c,
                                 const RowBuffers<T>& buffers, uint64_t deadline_ns,
                                 LocalSolve& local_solve, RowResult<T>& best, T* best_q,
                                 RowMultipliers<T> multipliers = {}) {
  if (!best.ran || best.converged || c.max_restarts == 0 || c.lm.fixed_iterations ||
      row_clock_ns() >= deadline_ns)
    return;
  const int nq = pv.model.coord_count;
  RowBuffers<T> b = attempt_buffers(pv, buffers, deadline_ns);
  b.al_lambda_init = multipliers.best;
  b.al_penalty_init = multipliers.best ? best.penalty : T(0);
  b.restart_follows = false;
  b.hard_extension = true;
  b.finishing = true;
  for (int i = 0; i < nq; ++i) b.q[i] = best_q[i];
  RowStatus<T> st;
  local_solve(b, st);
  const int iterations = best.iterations + st.iterations;
  // the continuation is the same attempt
  keep_if_better(c, st, best.attempt, b.q, b.al_lambda, nq, pv.residual_count, best, best_q,
                 multipliers.best);
  best.iterations = iterations;
}

// The row that one lane running every attempt in turn gives, from the lanes' rows (lanes: the
// `step` results of drive_row with AttemptLane first 0 ... step - 1; a lane that ran no attempt
// has ran 0): the lowest converged attempt, else by tier (pick_tier with tol_constraint) and
// then the lowest merit (the earlier attempt among equals), with the iterations of the attempts
// up to the kept converged one (of all when none converged). Returns the lane whose result and
// configuration are the row's.
template <class T>
IKWB_HD int combine_attempt_lanes(const RowResult<T>* lanes, int step,
                                  const int* attempt_iterations, int max_restarts, T tol_constraint,
                                  RowResult<T>* out) {
  int kept = -1;
  for (int a = 0; a < step; ++a) {
    const RowResult<T>& r = lanes[a];
    if (!r.ran) continue;
    if (kept < 0) {
      kept = a;
      continue;
    }
    const RowResult<T>& k = lanes[kept];
    const int tr = pick_tier(r.converged != 0, r.eval, tol_constraint);
    const int tk = pick_tier(k.converged != 0, k.eval, tol_constraint);
    bool better;
    if (tr != tk) {
      better = tr > tk;
    } else if (r.converged) {
      better = r.attempt < k.attempt;
    } else {
      const double mr = row_merit(r.eval), mk = row_merit(k.eval);
      better = mr < mk || (mr == mk && r.attempt < k.attempt);
    }
    if (better) kept = a;
  }
  if (kept < 0) {
    *out = RowResult<T>{};
    return 0;
  }
  *out = lanes[kept];
  const int last = out->converged ? out->attempt : max_restarts;
  out->iterations = 0;
  for (int j = 0; j <= last; ++j) out->iterations += attempt_iterations[j];
  out->ran = 1;
  return kept;
}

// Picks problem p's seed among its rows p * n_seeds ... that ran: by tier (pick_tier with
// tol_constraint: converged first); then the lowest merit, or among converged seeds with
// prefer_closest the one closest to q_init.
// Q is the scalar the configurations are kept in (double on the CPU, float on the GPU).
//   row_q: (n_batch x nq); q_init: (problem_count x nq); rows: (n_batch); diff: (nv) scratch
template <class Q, class T>
IKWB_HD ProblemPick pick_problem_seed(const ModelView<Q>& m, int n_seeds, bool prefer_closest,
                                      T tol_constraint, int p, const Q* q_init, const Q* row_q,
                                      const RowResult<T>* rows, Q* diff) {
  const int nq = m.coord_count, nv = m.dof_count;
  ProblemPick pick;
  int best = -1;
  double best_key = 0.0;
  int best_tier = 0;
  for (int seed = 0; seed < n_seeds; ++seed) {
    const std::size_t row = std::size_t(p) * n_seeds + seed;
    const RowResult<T>& r = rows[row];
    if (!r.ran) continue;
    pick.total_iterations += r.iterations;
    const bool conv = r.converged != 0;
    const int tier = pick_tier(conv, r.eval, tol_constraint);
    double key = row_merit(r.eval);
    if (conv && prefer_closest) {
      difference_row(m, row_q + row * nq, q_init + std::size_t(p) * nq, diff);
      key = 0.0;
      for (int d = 0; d < nv; ++d) key += double(diff[d]) * double(diff[d]);
    }
    if (best < 0 || tier > best_tier || (tier == best_tier && key < best_key)) {
      best = seed;
      best_key = key;
      best_tier = tier;
    }
  }
  pick.seed = best < 0 ? 0 : best;
  return pick;
}

}  // namespace ikwb
