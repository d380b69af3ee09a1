// One batch row of the CUDA backend's solve, and the per-problem choice of the best seed.
//
// __host__ __device__ like the math they call (solver/lm_row.hpp, solver/sampler.hpp), so the
// kernels in solve_launch.cu and the host checks in tests/gpu run the very same code. The
// semantics mirror solver/cpu_backend.cpp (CpuSolver::run) line by line: seed sampling,
// restart sequence numbers, best attempt per row, which seeds count as run, and the best seed
// per problem. Only float: the GPU solves in single precision.
#pragma once

#include <chrono>
#include <cstdint>

#include "solver/lm_row.hpp"
#include "solver/sampler.hpp"

namespace ikwb::cuda {

// Everything a solve reads besides the problem data; lives in device memory (uploaded with
// the targets every solve), so a captured graph does not depend on the settings.
struct SolveConfig {
  LmConfig<float> lm;
  int problem_count = 0;
  int n_seeds = 1;
  int max_restarts = 0;
  SeedSampler sampler = SeedSampler::kNone;
  SeedSampler restart_sampler = SeedSampler::kUniform;  // uniform, or roberts with roberts
  int8_t all_seeds = 1;       // every seed runs; else seeds stop at the first converged one
  int8_t prefer_closest = 0;  // among converged seeds pick the one closest to q_init
  int8_t has_dof_mask = 0;    // dof_free is given
  float sigma = 0.3f;         // gaussian sampler
  uint64_t rng_seed = 0;
  uint64_t time_budget_ns = 0;  // per row from its start, 0 = none
  int null_objective = -1;      // posture objective applied in the null space, or -1
  float null_weight = 0.0f;
};

// Offsets (in floats) of one row's buffers inside its scratch block, and the block's stride.
struct RowScratchLayout {
  int q, q_trial, seed, init;  // (nq) each
  int body_q, body_q_trial;    // (nb) Transform<float> each, 7 floats per body
  int r, r_trial, al;          // (nr) each
  int J;                       // (nr x nv)
  int A, L;                    // (nv x nv) each
  int g, dq, tmp;              // (nv) each
  int stride;                  // floats per row, odd (see row_scratch_layout)
};

// The stride is odd so that in shared memory the threads of a warp, each reading the same
// element of its own row, hit 32 distinct banks.
IKWB_HD RowScratchLayout row_scratch_layout(int nq, int nv, int nr, int nb) {
  const int tf = int(sizeof(Transform<float>) / sizeof(float));
  RowScratchLayout l;
  int at = 0;
  l.q = at, at += nq;
  l.q_trial = at, at += nq;
  l.seed = at, at += nq;
  l.init = at, at += nq;
  l.body_q = at, at += nb * tf;
  l.body_q_trial = at, at += nb * tf;
  l.r = at, at += nr;
  l.r_trial = at, at += nr;
  l.al = at, at += nr;
  l.J = at, at += nr * nv;
  l.A = at, at += nv * nv;
  l.L = at, at += nv * nv;
  l.g = at, at += nv;
  l.dq = at, at += nv;
  l.tmp = at, at += nv;
  l.stride = at | 1;
  return l;
}

// What the solve reports per row (the row's best attempt) and which rows count as run.
struct RowResult {
  RowEval<float> eval;
  int iterations = 0;  // over all attempts (restarts included)
  uint8_t converged = 0;
  uint8_t ran = 0;  // set by pick_problem_seed
};

struct ProblemPick {
  int seed = 0;
  int total_iterations = 0;
};

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

// merit for picking among unconverged attempts and seeds (as cpu_backend.cpp's merit)
IKWB_HD double row_merit(const RowEval<float>& e) {
  return double(e.soft_cost) + 1e4 * double(e.violation) * double(e.violation) +
         double(e.position_error) + double(e.rotation_error);
}

// Solves batch row `row` (problem row / n_seeds, seed row % n_seeds) with its restarts and
// writes the best attempt's configuration to q_out (nq) and its evaluation to *out.
// q_init: (problem_count x nq); scratch: one row block laid out as `l`; dof_free: (nv) or null.
IKWB_HD void solve_row_attempts(const ProblemView<float>& pv, const SolveConfig& c,
                                const uint8_t* dof_free, const float* q_init, int row,
                                float* scratch, const RowScratchLayout& l, float* q_out,
                                RowResult* out) {
  const ModelView<float>& m = pv.model;
  const int nq = m.coord_count, S = c.n_seeds;
  const int p = row / S, seed = row % S;
  float* init = scratch + l.init;
  float* seed_q = scratch + l.seed;
  Transform<float>* body_q = reinterpret_cast<Transform<float>*>(scratch + l.body_q);
  Transform<float>* body_q_trial = reinterpret_cast<Transform<float>*>(scratch + l.body_q_trial);

  // bodies without a joint keep the identity, as in the CPU workspaces
  for (int b = 0; b < m.body_count; ++b) {
    body_q[b] = transform_identity<float>();
    body_q_trial[b] = transform_identity<float>();
  }
  for (int i = 0; i < nq; ++i) init[i] = q_init[std::size_t(p) * nq + i];

  AnalyticEvaluator<float> ev;
  ev.pv = pv;
  ev.problem = p;
  const uint64_t start = row_clock_ns();
  const uint64_t no_deadline = ~uint64_t(0);
  const uint64_t deadline = c.time_budget_ns > 0 && c.time_budget_ns < no_deadline - start
                                ? start + c.time_budget_ns
                                : no_deadline;

  RowEval<float> best_eval;
  bool best_converged = false, have_best = false;
  int iterations = 0;
  for (int attempt = 0; attempt <= c.max_restarts; ++attempt) {
    // restart sequence numbers as in the CPU backend: seeds first, then each seed's restarts
    uint32_t sequence =
        attempt == 0 ? uint32_t(seed) : uint32_t(S + seed * c.max_restarts + attempt - 1);
    sample_seed(m, pv.dof_lower, pv.dof_upper, attempt == 0 ? c.sampler : c.restart_sampler,
                c.sigma, c.rng_seed, p, sequence, init, seed_q, scratch + l.tmp, dof_free);
    for (int i = 0; i < nq; ++i) scratch[l.q + i] = seed_q[i];

    RowBuffers<float> b;
    b.q = scratch + l.q;
    b.q_trial = scratch + l.q_trial;
    b.body_q = body_q;
    b.body_q_trial = body_q_trial;
    b.r = scratch + l.r;
    b.r_trial = scratch + l.r_trial;
    b.J = scratch + l.J;
    b.A = scratch + l.A;
    b.L = scratch + l.L;
    b.g = scratch + l.g;
    b.dq = scratch + l.dq;
    b.tmp = scratch + l.tmp;
    b.al_lambda = scratch + l.al;
    b.dof_free = dof_free;
    b.null_rest = c.null_objective >= 0 ? pv.rest_q + c.null_objective * nq : nullptr;
    b.null_weight = c.null_objective >= 0 ? c.null_weight : 0.0f;

    RowStatus<float> st;
    lm_solve_row(ev, pv, c.lm, b, st);
    iterations += st.iterations;

    // keep the best attempt: converged first, then the lower merit
    bool better = !have_best || (st.converged && !best_converged) ||
                  (st.converged == best_converged && row_merit(st.eval) < row_merit(best_eval));
    if (better) {
      best_eval = st.eval;
      best_converged = st.converged;
      for (int i = 0; i < nq; ++i) q_out[i] = b.q[i];
      have_best = true;
    }
    if (st.converged || row_clock_ns() >= deadline) break;
  }
  out->eval = best_eval;
  out->iterations = iterations;
  out->converged = best_converged ? 1 : 0;
  out->ran = 1;
}

// Picks problem p's seed from its rows (p * n_seeds ...). With all_seeds off the CPU backend
// runs seeds one after another and stops at the first converged one: the rows after it are
// marked as not run (their ran flag cleared) and take no part, exactly as there.
// row_q: (n_batch x nq); q_init: (problem_count x nq); diff: (nv) scratch.
IKWB_HD void pick_problem_seed(const ModelView<float>& m, const SolveConfig& c, int p,
                               const float* q_init, const float* row_q, RowResult* rows,
                               float* diff, ProblemPick* out) {
  const int S = c.n_seeds, nq = m.coord_count, nv = m.dof_count;
  // which seeds count as run
  bool running = true;
  for (int seed = 0; seed < S; ++seed) {
    RowResult& r = rows[std::size_t(p) * S + seed];
    r.ran = running ? 1 : 0;
    if (!c.all_seeds && running && r.converged) running = false;
  }
  // converged first; then the closest (prefer_closest) or the lowest merit
  int best = -1, total = 0;
  double best_key = 0.0;
  bool best_converged = false;
  for (int seed = 0; seed < S; ++seed) {
    std::size_t row = std::size_t(p) * S + seed;
    const RowResult& r = rows[row];
    if (!r.ran) continue;
    total += r.iterations;
    bool conv = r.converged != 0;
    double key = row_merit(r.eval);
    if (conv && c.prefer_closest) {
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
  out->seed = best < 0 ? 0 : best;
  out->total_iterations = total;
}

}  // namespace ikwb::cuda
