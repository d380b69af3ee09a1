// L-BFGS for one batch row (CPU): minimises 0.5 |r(q)|^2 in dof space with the two-loop
// recursion and a strong-Wolfe line search (bracketing, then bisection zoom); hard objectives
// use the same augmented-Lagrangian rows and multiplier updates as the LM iteration, the
// penalty mu growing only at a minimum of the augmented cost (below).
//
// The recursion starts from the inverse Hessian gamma D^-1, D = diag(J^T J) at the iterate (the
// Gauss-Newton model's diagonal, floored at kLbfgsDiagonalFloor of its largest entry), instead
// of gamma I: the dofs' different scales (a floating base's metres beside joint radians, a hip
// under the stiff rows of hard feet beside a wrist) are taken out of what the few stored pairs
// have to learn, and a step without pairs is the diagonal Gauss-Newton step -D^-1 g. Measured
// (docs/benchmarks.md, "L-BFGS scaled by the Gauss-Newton diagonal"): the humanoid preset's
// hand dragged with 20 iterations a frame ended five of six drag segments 0.1-1.1 mm off
// instead of 5-67 mm; the arms' TRAC-IK protocol alike or better (Panda 99.6 % against 99.1 %
// in 154 against 162 iterations).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solver/lm_row.hpp"

namespace ikwb {

template <class T>
struct LbfgsBuffers {
  int memory = -1, nv = 0;
  std::vector<T> s, y;              // (memory x nv) step and gradient-change history, ring buffer
  std::vector<T> rho, alpha;        // (memory)
  std::vector<T> d, g_trial;        // (nv)
  std::vector<T> diag, diag_trial;  // (nv) the scaling D at the iterate and at the trial point
  std::vector<T> scratch;           // (residual_count) raw rows for Jacobian evaluations
  void resize(int nv_, int nr_, int memory_) {
    memory = std::max(memory_, 1);
    nv = nv_;
    s.assign(std::size_t(memory) * nv, T(0));
    y.assign(std::size_t(memory) * nv, T(0));
    rho.assign(memory, T(0));
    alpha.assign(memory, T(0));
    d.assign(nv, T(0));
    g_trial.assign(nv, T(0));
    diag.assign(nv, T(1));
    diag_trial.assign(nv, T(1));
    scratch.assign(nr_, T(0));
  }
};

// the scaling's floor, a share of its largest entry: a dof that no row moves gets a bounded
// step
constexpr double kLbfgsDiagonalFloor = 1e-6;

// g = J^T r with frozen dofs zeroed; diag (nv, or null): diag(J^T J) floored at
// kLbfgsDiagonalFloor of its largest entry, 1 for frozen dofs
template <class T>
void lbfgs_gradient(const T* J, const T* r, int nr, int nv, const uint8_t* dof_free, T* g,
                    T* diag = nullptr) {
  T top = T(0);
  for (int a = 0; a < nv; ++a) {
    T sum = T(0), sq = T(0);
    const bool free = !dof_free || dof_free[a];
    if (free)
      for (int k = 0; k < nr; ++k) {
        sum += J[k * nv + a] * r[k];
        sq += J[k * nv + a] * J[k * nv + a];
      }
    g[a] = sum;
    if (!diag) continue;
    diag[a] = free ? sq : T(1);
    if (free && sq > top) top = sq;
  }
  if (!diag) return;
  const T floor = std::max(T(kLbfgsDiagonalFloor) * top, std::numeric_limits<T>::min());
  for (int a = 0; a < nv; ++a)
    if (!(diag[a] >= floor)) diag[a] = floor;
}

template <class T, class Eval>
void lbfgs_solve_row(Eval& ev, const ProblemView<T>& pv, const LmConfig<T>& cfg, RowBuffers<T>& w,
                     LbfgsBuffers<T>& lb, RowStatus<T>& st) {
  const ModelView<T>& m = pv.model;
  const int nv = m.dof_count, nq = m.coord_count, nr = pv.residual_count;
  const bool has_hard = problem_has_hard(pv);
  const bool early_exit = !cfg.fixed_iterations && problem_has_measure(pv);
  const T c1 = T(1e-4), c2 = T(0.9);
  start_multipliers(pv, w.al_lambda_init, w.al_lambda);
  st.mu = cfg.mu_init;
  st.iterations = 0;
  st.converged = false;
  if (cfg.hard_limits) project_limits(m, pv.dof_lower, pv.dof_upper, w.q, w.dof_free);
  if (has_hard && w.al_lambda_init && w.al_penalty_init > T(0) && w.al_penalty_init != st.mu)
    rebase_multipliers(ev, pv, w.al_penalty_init, st.mu, w);
  ev.set_multipliers(w.al_lambda, st.mu);
  auto evaluate = [&](T* q, Transform<T>* body_q, T* r, T* g) {
    RowEval<T> e = ev.residual(q, body_q, r);
    ev.jacobian(q, body_q, lb.scratch.data(), w.J);
    lbfgs_gradient(w.J, r, nr, nv, w.dof_free, g, lb.diag.data());
    return e;
  };
  st.eval = evaluate(w.q, w.body_q, w.r, w.g);
  int stored = 0, head = 0;
  int since_update = 0;
  bool at_minimum = false;  // the line search found no decrease since the last update
  T last_violation = st.eval.violation;
  const bool timed = w.deadline_ns != ~uint64_t(0);
  const int max_iterations = has_free_dof(nv, w.dof_free) ? cfg.max_iterations : 0;
  for (int it = 0; it < max_iterations; ++it) {
    if (early_exit && row_converged(st.eval, cfg)) {
      st.converged = true;
      break;
    }
    // out of time: the best so far stands (the clock is read every fourth iteration)
    if (timed && (it & 3) == 3 && row_clock_ns() >= w.deadline_ns) break;
    if (has_hard && since_update >= cfg.al_inner_iterations) {
      // the multipliers are updated where the violation fell to a quarter of the last update's
      // (al_update); else mu grows, but only once the line search has found no decrease on the
      // current augmented cost (its minimum, as far as L-BFGS gets): al_inner_iterations leave
      // L-BFGS's inner solve far from its minimum, and growing mu on such a violation stiffened
      // the hard rows at every update
      const T mu_before = st.mu;
      if (at_minimum || st.eval.violation <= T(0.25) * last_violation)
        al_update(pv, st.eval.violation, last_violation, cfg, w.r, w.al_lambda, st.mu);
      at_minimum = false;
      last_violation = st.eval.violation;
      ev.set_multipliers(w.al_lambda, st.mu);
      st.eval = evaluate(w.q, w.body_q, w.r, w.g);
      // new multipliers shift the hard rows' values and leave their slopes, so the stored pairs
      // still sample the curvature; a larger mu steepens those rows and the pairs go
      if (st.mu != mu_before) stored = 0;
      since_update = 0;
    }
    ++since_update;
    ++st.iterations;
    // two-loop recursion: d = -H g
    T* d = lb.d.data();
    for (int a = 0; a < nv; ++a) d[a] = -w.g[a];
    for (int i = 0; i < stored; ++i) {
      int k = (head - 1 - i + lb.memory) % lb.memory;
      const T* s = &lb.s[std::size_t(k) * nv];
      const T* y = &lb.y[std::size_t(k) * nv];
      T a = T(0);
      for (int c = 0; c < nv; ++c) a += s[c] * d[c];
      a *= lb.rho[k];
      lb.alpha[k] = a;
      for (int c = 0; c < nv; ++c) d[c] -= a * y[c];
    }
    // the initial inverse Hessian gamma D^-1, gamma = s^T y / (y^T D^-1 y) of the newest pair
    const T* D = lb.diag.data();
    T gamma = T(1);
    if (stored > 0) {
      int k = (head - 1 + lb.memory) % lb.memory;
      const T* y = &lb.y[std::size_t(k) * nv];
      T yy = T(0);
      for (int c = 0; c < nv; ++c) yy += y[c] * y[c] / D[c];
      gamma = yy > T(0) ? T(1) / (lb.rho[k] * yy) : T(1);
    }
    for (int c = 0; c < nv; ++c) d[c] *= gamma / D[c];
    for (int i = stored - 1; i >= 0; --i) {
      int k = (head - 1 - i + lb.memory) % lb.memory;
      const T* s = &lb.s[std::size_t(k) * nv];
      const T* y = &lb.y[std::size_t(k) * nv];
      T b = T(0);
      for (int c = 0; c < nv; ++c) b += y[c] * d[c];
      b *= lb.rho[k];
      for (int c = 0; c < nv; ++c) d[c] += s[c] * (lb.alpha[k] - b);
    }
    T gd = T(0), dn = T(0);
    for (int c = 0; c < nv; ++c) gd += w.g[c] * d[c], dn += d[c] * d[c];
    if (!(gd < T(0))) {  // not a descent direction: the step without pairs
      gd = dn = T(0);
      for (int c = 0; c < nv; ++c) {
        d[c] = -w.g[c] / D[c];
        gd += w.g[c] * d[c];
        dn += d[c] * d[c];
      }
      stored = 0;
    }
    if (!(dn > T(0))) break;
    // strong-Wolfe line search on alpha, steps without pairs capped at 0.5 rad/m in dof norm
    T alpha = stored == 0 ? std::min(T(1), T(0.5) / std::sqrt(dn)) : T(1);
    T lo = T(0), hi = T(0);
    bool found = false;
    RowEval<T> trial;
    // a step without pairs may need many halvings (stiff rows after a penalty increase)
    const int max_ls = stored == 0 ? 40 : 12;
    for (int ls = 0; ls < max_ls; ++ls) {
      std::copy(w.q, w.q + nq, w.q_trial);
      integrate_row(m, w.q, d, alpha, w.q_trial);
      if (cfg.hard_limits) project_limits(m, pv.dof_lower, pv.dof_upper, w.q_trial, w.dof_free);
      trial = ev.residual(w.q_trial, w.body_q_trial, w.r_trial);
      bool finite = std::isfinite(double(trial.cost));
      if (!finite || trial.cost > st.eval.cost + c1 * alpha * gd) {
        hi = alpha;
      } else {
        ev.jacobian(w.q_trial, w.body_q_trial, lb.scratch.data(), w.J);
        lbfgs_gradient(w.J, w.r_trial, nr, nv, w.dof_free, lb.g_trial.data(), lb.diag_trial.data());
        T gtd = T(0);
        for (int c = 0; c < nv; ++c) gtd += lb.g_trial[c] * d[c];
        if (std::fabs(double(gtd)) <= -double(c2 * gd)) {
          found = true;
          break;
        }
        if (gtd > T(0)) {
          hi = alpha;
        } else {
          lo = alpha;
        }
        if (gtd <= T(0) && hi == T(0)) {
          alpha *= T(2);
          continue;
        }
        if (ls >= 6) {
          found = true;  // sufficient decrease holds: take it
          break;
        }
      }
      alpha = hi > T(0) ? T(0.5) * (lo + hi) : alpha * T(2);
    }
    if (!found) {
      if (stored == 0) {
        // even the step without pairs found no acceptable length: a minimum of the current
        // augmented cost; with hard objectives update the multipliers (as LM does), else stop
        if (!has_hard || st.mu >= cfg.mu_max || since_update <= 1) break;
        since_update = cfg.al_inner_iterations;
        at_minimum = true;
        continue;
      }
      stored = 0;
      continue;
    }
    // curvature pair from the step actually taken
    int k = head;
    T* s = &lb.s[std::size_t(k) * nv];
    T* y = &lb.y[std::size_t(k) * nv];
    step_row(m, w.q_trial, w.q, s);
    T sy = T(0);
    for (int c = 0; c < nv; ++c) {
      y[c] = lb.g_trial[c] - w.g[c];
      sy += s[c] * y[c];
    }
    if (sy > T(1e-12)) {
      lb.rho[k] = T(1) / sy;
      head = (head + 1) % lb.memory;
      stored = std::min(stored + 1, lb.memory);
    }
    std::swap(w.q, w.q_trial);
    std::swap(w.body_q, w.body_q_trial);
    std::swap(w.r, w.r_trial);
    std::copy(lb.g_trial.begin(), lb.g_trial.end(), w.g);
    std::swap(lb.diag, lb.diag_trial);
    st.eval = trial;
  }
  if (!st.converged && row_converged(st.eval, cfg)) st.converged = true;
}

}  // namespace ikwb
