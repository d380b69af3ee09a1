// The CUDA backend's side of one batch row: the row's buffers in its scratch block, the call of
// the shared row driver (solver/row_driver.hpp) with LM on analytic rows, and which rows count
// as run before the shared best-seed choice. Only float: the GPU solves in single precision.
//
// __host__ __device__ like the driver, so the kernels in solve_launch.cu and the host test
// tests/solver/row_driver_test.cpp (built without nvcc) run the very same code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "solver/lm_row.hpp"
#include "solver/row_driver.hpp"

namespace ikwb::cuda {

// Everything a solve reads besides the problem data; lives in device memory (uploaded with the
// targets every solve), so a captured graph does not depend on the settings.
struct SolveConfig {
  RowDriverConfig<float> row;
  int8_t has_dof_mask = 0;  // dof_free is given
  // the hard rows' multipliers, as the CPU backend keeps them (WarmStart,
  // SolveResult::row_multipliers): with keep_multipliers (the problem has hard rows) each row's
  // kept attempt writes its final ones out, and with has_warm as well each problem's seed 0
  // begins from the solve's warm ones, reached at warm_penalty
  int8_t keep_multipliers = 0;
  int8_t has_warm = 0;
  float warm_penalty = 0;
};

// Offsets (in floats) of one row's buffers inside its scratch block, and the block's stride.
struct RowScratchLayout {
  int q, q_trial, seed, init;  // (nq) each
  int body_q, body_q_trial;    // (nb) Transform<float> each, 7 floats per body
  int r, r_trial, al;          // (nr) each
  int J;                       // (nr x nv)
  int A, L;                    // (nv x nv) each: either LM step fits (lm_resolve_step)
  int g, dq, tmp;              // (nv) each
  int diag;                    // (3 nv)
  int row_col, rows;           // (nr) ints each
  int cols;                    // (nv) ints
  int latent, latent_size;     // (latent_size = lm_latent_capacity) rows set aside, if any
  int stride;                  // floats per row, odd (see row_scratch_layout)
};

static_assert(sizeof(int) == sizeof(float), "int buffers share the float scratch block");

// The stride is odd so that in shared memory the threads of a warp, each reading the same
// element of its own row, hit 32 distinct banks. latent_rows: lm_latent_rows of the objectives.
IKWB_HD RowScratchLayout row_scratch_layout(int nq, int nv, int nr, int nb, int latent_rows) {
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
  l.diag = at, at += 3 * nv;
  l.row_col = at, at += nr;  // ints: as wide as a float
  l.rows = at, at += nr;
  l.cols = at, at += lm_cols_capacity(nv);
  l.latent_size = int(lm_latent_capacity(latent_rows, nv));
  l.latent = at, at += l.latent_size;
  l.stride = at | 1;
  return l;
}

// The local solve of each attempt on the GPU: LM on the analytic rows.
struct LmAnalyticSolve {
  AnalyticEvaluator<float> ev;
  const LmConfig<float>* cfg;
  IKWB_HD void operator()(RowBuffers<float>& b, RowStatus<float>& st) {
    lm_solve_row(ev, ev.pv, *cfg, b, st);
  }
};

// The row driver's buffers in one row block of scratch laid out as `l`, the bodies' poses set
// to the identity (bodies without a joint keep it, as in the CPU workspaces).
// dof_free: (nv) or null.
IKWB_HD RowBuffers<float> row_buffers(const ModelView<float>& m, float* scratch,
                                      const RowScratchLayout& l, const uint8_t* dof_free) {
  RowBuffers<float> b{};
  b.q = scratch + l.q;
  b.q_trial = scratch + l.q_trial;
  b.body_q = reinterpret_cast<Transform<float>*>(scratch + l.body_q);
  b.body_q_trial = reinterpret_cast<Transform<float>*>(scratch + l.body_q_trial);
  b.r = scratch + l.r;
  b.r_trial = scratch + l.r_trial;
  b.J = scratch + l.J;
  b.A = scratch + l.A;
  b.L = scratch + l.L;
  b.g = scratch + l.g;
  b.dq = scratch + l.dq;
  b.tmp = scratch + l.tmp;
  b.al_lambda = scratch + l.al;
  b.diag = scratch + l.diag;
  b.row_col = reinterpret_cast<int*>(scratch + l.row_col);
  b.rows = reinterpret_cast<int*>(scratch + l.rows);
  b.cols = reinterpret_cast<int*>(scratch + l.cols);
  b.latent = l.latent_size > 0 ? scratch + l.latent : nullptr;
  b.dof_free = dof_free;
  for (int i = 0; i < m.body_count; ++i) {
    b.body_q[i] = transform_identity<float>();
    b.body_q_trial[i] = transform_identity<float>();
  }
  return b;
}

// Batch row `row`'s multipliers as the CPU backend sets them up: none without hard rows; else
// the kept attempt's go to lambda (nr), and a problem's seed 0 starts from its warm ones.
// warm: (problem_count x nr), read with c.has_warm.
IKWB_HD RowMultipliers<float> row_multipliers(const ProblemView<float>& pv, const SolveConfig& c,
                                              int row, const float* warm, float* lambda) {
  RowMultipliers<float> mult;
  if (!c.keep_multipliers) return mult;
  mult.best = lambda;
  const int S = c.row.n_seeds;
  if (c.has_warm && row % S == 0) {
    mult.init = warm + std::size_t(row / S) * pv.residual_count;
    mult.penalty = c.warm_penalty;
  }
  return mult;
}

// Solves batch row `row` (problem row / n_seeds, seed row % n_seeds) with the row driver and
// writes the best attempt's configuration to q_out (nq), its evaluation to *out and its
// multipliers to lambda (nr, with c.keep_multipliers). Without a lane the kept attempt is
// finished too (finish_kept_attempt); with one (AttemptLane), only that lane's attempts run,
// lane 0 writes the row's deadline to *deadline_ns, and finish_row_attempt finishes the row
// once the lanes are combined.
// q_init: (problem_count x nq); warm: (problem_count x nr), read with c.has_warm; scratch: one
// row block laid out as `l`; dof_free: (nv) or null.
IKWB_HD void solve_row_attempts(const ProblemView<float>& pv, const SolveConfig& c,
                                const uint8_t* dof_free, const float* q_init, const float* warm,
                                int row, float* scratch, const RowScratchLayout& l, float* q_out,
                                float* lambda, RowResult<float>* out, AttemptLane lane = {},
                                uint64_t* deadline_ns = nullptr) {
  const ModelView<float>& m = pv.model;
  const int nq = m.coord_count, S = c.row.n_seeds;
  const int p = row / S, seed = row % S;
  const uint64_t deadline = row_deadline_ns(c.row.time_budget_ns);
  if (deadline_ns && lane.first == 0) *deadline_ns = deadline;
  RowBuffers<float> b = row_buffers(m, scratch, l, dof_free);
  float* init = scratch + l.init;
  for (int i = 0; i < nq; ++i) init[i] = q_init[std::size_t(p) * nq + i];

  LmAnalyticSolve lm{AnalyticEvaluator<float>{pv, p}, &c.row.lm};
  const RowMultipliers<float> mult = row_multipliers(pv, c, row, warm, lambda);
  *out = drive_row(pv, c.row, b, p, seed, init, scratch + l.seed, q_out, deadline, lm, lane, mult);
  if (lane.step == 1) finish_kept_attempt(pv, c.row, b, deadline, lm, *out, q_out, mult);
}

// Finishes batch row `row` once its attempt lanes are combined into q_out (nq), lambda (nr,
// with c.keep_multipliers) and *out (finish_kept_attempt), by deadline_ns (written by
// solve_row_attempts).
IKWB_HD void finish_row_attempt(const ProblemView<float>& pv, const SolveConfig& c,
                                const uint8_t* dof_free, int row, float* scratch,
                                const RowScratchLayout& l, float* q_out, float* lambda,
                                RowResult<float>* out, uint64_t deadline_ns) {
  if (!out->ran || out->converged) return;  // the buffers are not even laid out
  RowBuffers<float> b = row_buffers(pv.model, scratch, l, dof_free);
  LmAnalyticSolve lm{AnalyticEvaluator<float>{pv, row / c.row.n_seeds}, &c.row.lm};
  RowMultipliers<float> mult;
  if (c.keep_multipliers) mult.best = lambda;
  finish_kept_attempt(pv, c.row, b, deadline_ns, lm, *out, q_out, mult);
}

// Marks which of problem p's rows count as run. The GPU runs every row at once; with all_seeds
// off the CPU backend runs a problem's seeds one after another and stops at the first converged
// one, so the rows after it are marked as not run and take no part in the pick, exactly as
// there. rows: (n_batch).
IKWB_HD void mark_rows_run(const SolveConfig& c, int p, RowResult<float>* rows) {
  const int S = c.row.n_seeds;
  bool running = true;
  for (int seed = 0; seed < S; ++seed) {
    RowResult<float>& r = rows[std::size_t(p) * S + seed];
    r.ran = running ? 1 : 0;
    if (!c.row.all_seeds && running && r.converged) running = false;
  }
}

}  // namespace ikwb::cuda
