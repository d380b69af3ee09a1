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

// merit for picking among unconverged attempts and seeds: soft cost plus a heavy price on
// violations, plus the task errors
template <class T>
IKWB_HD double row_merit(const RowEval<T>& e) {
  return double(e.soft_cost) + 1e4 * double(e.violation) * double(e.violation) +
         double(e.position_error) + double(e.rotation_error);
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

// Solves seed `seed` of problem `problem`: samples the attempt's start, runs local_solve, and
// restarts from a new sample until an attempt converges, max_restarts are spent or row_clock_ns
// reaches deadline_ns. Returns the best attempt (converged first, then the lower merit) with the
// iterations of all attempts; its configuration is copied to best_q.
//   buffers: the row's LM buffers; each attempt starts from a copy (local_solve swaps the
//            pointers), with buffers.q set to the seed, the null-space posture and the
//            deadline filled in;
//            buffers.tmp is also the sampler's scratch
//   init (nq): the problem's initial configuration; seed_q (nq): scratch; best_q (nq): out
//   local_solve(RowBuffers<T>& b, RowStatus<T>& st): one local solve from b.q
template <class T, class LocalSolve>
IKWB_HD RowResult<T> drive_row(const ProblemView<T>& pv, const RowDriverConfig<T>& c,
                               const RowBuffers<T>& buffers, int problem, int seed, const T* init,
                               T* seed_q, T* best_q, uint64_t deadline_ns,
                               LocalSolve& local_solve) {
  const ModelView<T>& m = pv.model;
  const int nq = m.coord_count;
  RowBuffers<T> start = buffers;
  start.deadline_ns = deadline_ns;  // a long attempt stops inside its iterations too
  const int null_obj = null_space_posture(pv);
  start.null_rest = null_obj >= 0 ? pv.rest_q + null_obj * nq : nullptr;
  start.null_weight = null_obj >= 0 ? pv.objectives[null_obj].weight : T(0);

  RowResult<T> best;
  bool have_best = false;
  for (int attempt = 0; attempt <= c.max_restarts; ++attempt) {
    sample_seed(m, pv.dof_lower, pv.dof_upper, attempt == 0 ? c.sampler : c.restart_sampler,
                c.sigma, c.rng_seed, problem,
                attempt_sequence(seed, attempt, c.n_seeds, c.max_restarts), init, seed_q, start.tmp,
                start.dof_free);
    for (int i = 0; i < nq; ++i) start.q[i] = seed_q[i];
    RowBuffers<T> b = start;
    RowStatus<T> st;
    local_solve(b, st);
    best.iterations += st.iterations;

    // keep the best attempt: converged first, then the lower merit
    const bool best_converged = best.converged != 0;
    if (!have_best || (st.converged && !best_converged) ||
        (st.converged == best_converged && row_merit(st.eval) < row_merit(best.eval))) {
      best.eval = st.eval;
      best.converged = st.converged ? 1 : 0;
      best.settling = st.settling ? 1 : 0;
      best.damping = st.lm_lambda;
      best.penalty = st.mu;
      for (int i = 0; i < nq; ++i) best_q[i] = b.q[i];
      have_best = true;
    }
    if (st.converged || row_clock_ns() >= deadline_ns) break;
  }
  best.ran = 1;
  return best;
}

// Picks problem p's seed among its rows p * n_seeds ... that ran: converged first; then the
// lowest merit, or among converged seeds with prefer_closest the one closest to q_init.
// Q is the scalar the configurations are kept in (double on the CPU, float on the GPU).
//   row_q: (n_batch x nq); q_init: (problem_count x nq); rows: (n_batch); diff: (nv) scratch
template <class Q, class T>
IKWB_HD ProblemPick pick_problem_seed(const ModelView<Q>& m, int n_seeds, bool prefer_closest,
                                      int p, const Q* q_init, const Q* row_q,
                                      const RowResult<T>* rows, Q* diff) {
  const int nq = m.coord_count, nv = m.dof_count;
  ProblemPick pick;
  int best = -1;
  double best_key = 0.0;
  bool best_converged = false;
  for (int seed = 0; seed < n_seeds; ++seed) {
    const std::size_t row = std::size_t(p) * n_seeds + seed;
    const RowResult<T>& r = rows[row];
    if (!r.ran) continue;
    pick.total_iterations += r.iterations;
    const bool conv = r.converged != 0;
    double key = row_merit(r.eval);
    if (conv && prefer_closest) {
      difference_row(m, row_q + row * nq, q_init + std::size_t(p) * nq, diff);
      key = 0.0;
      for (int d = 0; d < nv; ++d) key += double(diff[d]) * double(diff[d]);
    }
    if (best < 0 || (conv && !best_converged) || (conv == best_converged && key < best_key)) {
      best = seed;
      best_key = key;
      best_converged = conv;
    }
  }
  pick.seed = best < 0 ? 0 : best;
  return pick;
}

}  // namespace ikwb
