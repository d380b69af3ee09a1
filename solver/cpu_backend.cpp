// CPU backend: batch rows (problem x seed) spread over a thread pool, each row run by the row
// driver the CUDA kernels share (solver/row_driver.hpp: seeds, restarts, best attempt, best
// seed) around the shared LM iteration (solver/lm_row.hpp) or L-BFGS (solver/lbfgs.hpp), with
// the Jacobian from analytic rows, dual numbers or finite differences. Buffers live in
// per-thread workspaces sized once per problem shape: nothing is allocated inside the
// iterations.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "solver/backend_common.hpp"
#include "solver/collision_memo.hpp"
#include "solver/dual.hpp"
#include "solver/lbfgs.hpp"
#include "solver/lm_row.hpp"
#include "solver/row_driver.hpp"
#include "solver/solver.hpp"
#include "solver/thread_pool.hpp"

namespace ikwb {

namespace {

using Clock = std::chrono::steady_clock;

// Per-thread buffers, sized from the problem shape.
template <class T>
struct Workspace {
  int nq = -1, nv = -1, nr = -1, nb = -1;
  long a_cap = -1, l_cap = -1, latent_cap = -1;
  std::vector<T> q, q_trial, r, r_trial, J, A, L, g, dq, tmp, al, seed, best_q, init, diag;
  std::vector<T> al_init, best_al;  // (nr) the row's starting and kept multipliers
  std::vector<T> latent;            // the inactive rows the LM step sets aside (lm_set_aside)
  std::vector<RowTerms<T>> terms;   // their terms (builtin_jacobian), one per latent row
  // the bodies' motion for the rows' terms (latent rows only; MotionBuffers points into these)
  std::vector<MotionColumn<T>> motion_columns;
  std::vector<int> motion_joint_first;
  std::vector<T> motion_scalars;
  std::vector<Vec3<T>> motion_vectors;
  MotionBuffers<T> motion;
  std::vector<int> row_col, rows, cols;
  std::vector<Transform<T>> body_q, body_q_trial;
  // Jacobian by finite differences or dual numbers
  std::vector<T> q_pert, r_plus, r_minus, step;
  std::vector<Transform<T>> body_pert;
  std::vector<Dual<T>> dual_q, dual_q_out, dual_step, dual_r;
  std::vector<Transform<Dual<T>>> dual_body;
  // the closest collision pairs of the last search (objective_collision.hpp)
  CollisionMemoStore<T> memo;
  // custom objectives run in double
  std::vector<double> cq, cr;
  std::vector<Transform<double>> cbody;
  LbfgsBuffers<T> lbfgs;

  // a_cap_, l_cap_, latent_cap_: elements of A, L and latent the LM step needs (lm_a_capacity,
  // lm_l_capacity, lm_latent_capacity)
  void resize(int nq_, int nv_, int nr_, int nb_, int memory, long a_cap_, long l_cap_,
              long latent_cap_) {
    if (nq_ == nq && nv_ == nv && nr_ == nr && nb_ == nb && lbfgs.memory == memory &&
        a_cap_ == a_cap && l_cap_ == l_cap && latent_cap_ == latent_cap)
      return;
    nq = nq_, nv = nv_, nr = nr_, nb = nb_, a_cap = a_cap_, l_cap = l_cap_;
    latent_cap = latent_cap_;
    latent.assign(std::size_t(latent_cap), T(0));
    terms.assign(std::size_t(latent_cap / (nv + 2)), RowTerms<T>());
    const std::size_t mb = latent_cap > 0 ? std::size_t(nb) : 0;  // joint_count <= nb
    motion_columns.assign(kMaxJointColumns * mb, {});
    motion_scalars.assign(mb + (mb ? 2 * nv : 0), T(0));
    motion_vectors.assign(5 * mb, zero3<T>());
    motion_joint_first.assign(mb + 1, 0);
    motion.columns = motion_columns.data();
    motion.joint_first = motion_joint_first.data();
    motion.subtree_mass = motion_scalars.data();
    motion.along = motion_scalars.data() + mb;
    motion.subtree_moment = motion_vectors.data();
    motion.motion = motion_vectors.data() + mb;
    for (auto* v : {&q, &q_trial, &seed, &best_q, &init, &q_pert}) v->assign(nq, T(0));
    for (auto* v : {&r, &r_trial, &al, &al_init, &best_al, &r_plus, &r_minus}) v->assign(nr, T(0));
    J.assign(std::size_t(nr) * nv, T(0));
    A.assign(std::size_t(a_cap), T(0));
    L.assign(std::size_t(l_cap), T(0));
    for (auto* v : {&g, &dq, &tmp, &step}) v->assign(nv, T(0));
    diag.assign(std::size_t(3) * nv, T(0));
    row_col.assign(nr, 0);
    rows.assign(nr, 0);
    cols.assign(lm_cols_capacity(nv), 0);
    body_q.assign(nb, transform_identity<T>());
    body_q_trial = body_q;
    body_pert = body_q;
    dual_q.assign(nq, Dual<T>());
    dual_q_out.assign(nq, Dual<T>());
    dual_step.assign(nv, Dual<T>());
    dual_r.assign(nr, Dual<T>());
    dual_body.assign(nb, transform_identity<Dual<T>>());
    cq.assign(nq, 0.0);
    cr.assign(nr, 0.0);
    cbody.assign(nb, transform_identity<double>());
    lbfgs.resize(nv, nr, memory);
  }

  RowBuffers<T> buffers(const uint8_t* dof_free) {
    RowBuffers<T> b;
    b.q = q.data();
    b.q_trial = q_trial.data();
    b.body_q = body_q.data();
    b.body_q_trial = body_q_trial.data();
    b.r = r.data();
    b.r_trial = r_trial.data();
    b.J = J.data();
    b.A = A.data();
    b.L = L.data();
    b.g = g.data();
    b.dq = dq.data();
    b.tmp = tmp.data();
    b.al_lambda = al.data();
    b.dof_free = dof_free;
    b.null_rest = nullptr;
    b.null_weight = T(0);
    b.diag = diag.data();
    b.row_col = row_col.data();
    b.rows = rows.data();
    b.cols = cols.data();
    b.latent = latent.empty() ? nullptr : latent.data();
    b.terms = terms.empty() ? nullptr : terms.data();
    b.motion = latent.empty() ? nullptr : &motion;
    return b;
  }
};

// Residuals and Jacobians on the CPU: built-in rows, custom rows, and every Jacobian mode.
template <class T>
struct CpuEvaluator {
  const IkProblem* problem;
  const ProblemView<T>* pv;
  int prob = 0;
  JacobianMode mode = JacobianMode::kAnalytic;
  Workspace<T>* w;
  const T* al_lambda = nullptr;
  T mu = T(1);
  bool has_custom = false;

  void set_multipliers(const T* lambda, T penalty) {
    al_lambda = lambda;
    mu = penalty;
  }

  // raw rows of the custom objectives at q / body_q
  void custom_raw(const T* q, const Transform<T>* body_q, T* r) {
    const Model& m = problem->model();
    for (int i = 0; i < m.coord_count; ++i) w->cq[i] = double(q[i]);
    for (int b = 0; b < m.body_count; ++b) w->cbody[b] = cast<double>(body_q[b]);
    for (int oi = 0; oi < pv->objective_count; ++oi) {
      const ObjectiveParams<T>& o = pv->objectives[oi];
      if (o.type != ObjectiveType::kCustom) continue;
      double* out = w->cr.data() + o.start;
      problem->objective(oi).custom->residual(m, w->cq.data(), w->cbody.data(), out);
      for (int k = 0; k < o.dim; ++k) r[o.start + k] = T(out[k]);
    }
  }

  // raw rows of every objective (built-in and custom) at q, FK included
  void all_raw(const T* q, Transform<T>* body_q, T* r) {
    fk_row(pv->model, q, body_q);
    for (int oi = 0; oi < pv->objective_count; ++oi)
      if (pv->objectives[oi].type != ObjectiveType::kCustom)
        objective_residual(*pv, oi, prob, q, body_q, r + pv->objectives[oi].start);
    if (has_custom) custom_raw(q, body_q, r);
  }

  RowEval<T> residual(const T* q, Transform<T>* body_q, T* r) {
    RowEval<T> e = builtin_residual(*pv, prob, al_lambda, mu, q, body_q, r);
    if (!has_custom) return e;
    custom_raw(q, body_q, r);
    for (int oi = 0; oi < pv->objective_count; ++oi) {
      const ObjectiveParams<T>& o = pv->objectives[oi];
      if (o.type != ObjectiveType::kCustom) continue;
      accumulate_row_eval(o, r + o.start, e);
      apply_mode(o, al_lambda + o.start, mu, pv->model.dof_count, r + o.start, (T*)nullptr, 0);
      finish_row_cost(o, r + o.start, e);
    }
    return e;
  }

  // raw Jacobian columns of the selected objectives (all, or custom only) by central
  // finite differences of all_raw
  void fd_columns(const T* q, bool custom_only, T* J) {
    const int nv = pv->model.dof_count, nq = pv->model.coord_count;
    const T h = std::is_same_v<T, float> ? T(1e-3) : T(1e-6);
    for (int k = 0; k < nv; ++k) {
      std::fill(w->step.begin(), w->step.end(), T(0));
      w->step[k] = h;
      for (int i = 0; i < nq; ++i) w->q_pert[i] = q[i];
      integrate_row(pv->model, q, w->step.data(), T(1), w->q_pert.data());
      all_raw(w->q_pert.data(), w->body_pert.data(), w->r_plus.data());
      for (int i = 0; i < nq; ++i) w->q_pert[i] = q[i];
      integrate_row(pv->model, q, w->step.data(), T(-1), w->q_pert.data());
      all_raw(w->q_pert.data(), w->body_pert.data(), w->r_minus.data());
      for (int oi = 0; oi < pv->objective_count; ++oi) {
        const ObjectiveParams<T>& o = pv->objectives[oi];
        if (custom_only && o.type != ObjectiveType::kCustom) continue;
        for (int rr = o.start; rr < o.start + o.dim; ++rr)
          J[rr * nv + k] = (w->r_plus[rr] - w->r_minus[rr]) / (T(2) * h);
      }
    }
  }

  // raw Jacobian columns by forward-mode dual numbers (one pass per dof); custom objectives
  // take part when they have a dual residual and T is double, else they are left alone
  bool dual_columns(const T* q, bool custom_only, T* J) {
    const Model& model = problem->model();
    const int nv = pv->model.dof_count, nq = pv->model.coord_count;
    bool custom_done = true;
    for (int k = 0; k < nv; ++k) {
      for (int i = 0; i < nq; ++i) w->dual_q[i] = Dual<T>(q[i]);
      for (int i = 0; i < nv; ++i) w->dual_step[i] = Dual<T>(T(0), i == k ? T(1) : T(0));
      w->dual_q_out = w->dual_q;
      integrate_row(pv->model, w->dual_q.data(), w->dual_step.data(), Dual<T>(T(1)),
                    w->dual_q_out.data());
      fk_row(pv->model, w->dual_q_out.data(), w->dual_body.data());
      for (int oi = 0; oi < pv->objective_count; ++oi) {
        const ObjectiveParams<T>& o = pv->objectives[oi];
        Dual<T>* r = w->dual_r.data() + o.start;
        if (o.type == ObjectiveType::kCustom) {
          const auto& c = problem->objective(oi).custom;
          if constexpr (std::is_same_v<T, double>) {
            if (c->residual_dual) {
              c->residual_dual(model, w->dual_q_out.data(), w->dual_body.data(), r);
            } else {
              custom_done = false;
              continue;
            }
          } else {
            custom_done = false;
            continue;
          }
        } else if (custom_only) {
          continue;
        } else {
          objective_residual(*pv, oi, prob, w->dual_q_out.data(), w->dual_body.data(), r);
        }
        for (int rr = 0; rr < o.dim; ++rr) J[(o.start + rr) * nv + k] = r[rr].d;
      }
    }
    return custom_done;
  }

  void jacobian(const T* q, const Transform<T>* body_q, T* scratch, T* J) {
    const int nv = pv->model.dof_count;
    bool analytic = mode == JacobianMode::kAnalytic || mode == JacobianMode::kMixed;
    if (analytic) {
      builtin_jacobian(*pv, prob, al_lambda, mu, q, body_q, scratch, J,
                       w->terms.empty() ? nullptr : w->terms.data());
      if (!has_custom) return;
      if (!dual_columns(q, true, J)) fd_columns(q, true, J);
    } else if (mode == JacobianMode::kAutodiff) {
      if (!dual_columns(q, false, J)) fd_columns(q, true, J);
    } else {
      fd_columns(q, false, J);
    }
    // raw rows for the mode transform (analytic built-in rows are already transformed)
    for (int oi = 0; oi < pv->objective_count; ++oi)
      if (pv->objectives[oi].type != ObjectiveType::kCustom)
        objective_residual(*pv, oi, prob, q, body_q, scratch + pv->objectives[oi].start);
    if (has_custom) custom_raw(q, body_q, scratch);
    for (int oi = 0; oi < pv->objective_count; ++oi) {
      const ObjectiveParams<T>& o = pv->objectives[oi];
      if (analytic && o.type != ObjectiveType::kCustom) continue;
      ObjectiveParams<T> eff = o;
      if (o.null_space) eff.enabled = 0;
      apply_mode(eff, al_lambda + o.start, mu, nv, scratch + o.start, J + o.start * nv, nv);
    }
  }
};

// A float solve judges its rows within float's rounding (about 1e-7 m a metre from the origin):
// at tolerances near that, rows flagged converged missed them in double (1193 of 1409 UR5e
// targets at 1e-7). Each problem's kept configuration is judged again in double: its errors,
// violation and converged flag are double's. (Custom objectives: left as the solve judged them.)
void rescore_in_double(const IkProblem& problem, const SolverSettings& s, SolveResult& res) {
  if (problem.has_custom()) return;
  TypedProblem<double> tp(problem);
  const ProblemView<double>& pv = tp.view;
  if (!problem_has_measure(pv)) return;
  const LmConfig<double> cfg = make_row_driver_config<double>(s, problem).lm;
  std::vector<Transform<double>> body(std::size_t(problem.model().body_count));
  std::vector<double> r(std::size_t(problem.residual_count())), lambda(r.size(), 0.0);
  for (int p = 0; p < int(res.problems.size()); ++p) {
    ProblemResult& pr = res.problems[p];
    const RowEval<double> e =
        builtin_residual(pv, p, lambda.data(), 1.0, pr.q.data(), body.data(), r.data());
    pr.position_error = e.position_error;
    pr.rotation_error = e.rotation_error;
    pr.constraint_violation = e.violation;
    pr.converged = row_converged(e, cfg);
  }
}

class CpuSolver : public IkSolver {
 public:
  Backend backend() const override { return Backend::kCpu; }

  void solve(const IkProblem& problem, const SolverSettings& s, const std::vector<double>& q_init,
             const WarmStart& warm, SolveResult& result) override {
    validate_settings(s);
    validate_warm_start(problem, warm);
    std::vector<double> q0 = expand_initial(problem, q_init);
    int threads = s.threads > 0 ? s.threads : hardware_threads();
    if (!pool_ || pool_->size() != std::max(threads, 1))
      pool_ = std::make_unique<ThreadPool>(threads);
    auto t0 = Clock::now();
    if (s.use_float) {
      run<float>(problem, s, q0, warm, result, f_);
      rescore_in_double(problem, s, result);
    } else
      run<double>(problem, s, q0, warm, result, d_);
    result.solve_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  }

 private:
  template <class T>
  void run(const IkProblem& problem, const SolverSettings& s, const std::vector<double>& q0,
           const WarmStart& warm, SolveResult& res, std::vector<Workspace<T>>& works) {
    TypedProblem<T> tp(problem);
    const ProblemView<T>& pv = tp.view;
    const Model& model = problem.model();
    const int P = problem.problem_count(), S = s.n_seeds, nq = model.coord_count;
    const int nv = model.dof_count, nr = problem.residual_count();
    const RowDriverConfig<T> cfg = make_row_driver_config<T>(s, problem);
    // the LM step's buffers: dense A and L, or the row-space system's (a long chain with a
    // few task rows never holds an nv x nv matrix)
    std::vector<int> row_col(nr), general(nr);
    const int m = lm_classify_rows(pv, row_col.data(), general.data());
    const LmStep step = lm_resolve_step(cfg.lm.step, nv, m);
    works.resize(pool_->size());
    for (auto& w : works)
      w.resize(nq, nv, nr, model.body_count, s.lbfgs_memory, lm_a_capacity(step, nv),
               lm_l_capacity(step, nv, m),
               lm_latent_capacity(lm_latent_rows(pv.objectives, pv.objective_count), nv));
    const bool has_custom = problem.has_custom();
    const uint8_t* dof_free = problem.dof_mask().empty() ? nullptr : problem.dof_mask().data();
    // each thread's evaluator reads the problem through its own view, whose collision searches
    // are kept in that thread's memo (kept from the last solve when it had the same world)
    bool collides = false;
    for (int oi = 0; oi < pv.objective_count; ++oi) {
      const ObjectiveType t = pv.objectives[oi].type;
      collides =
          collides || t == ObjectiveType::kSelfCollision || t == ObjectiveType::kWorldCollision;
    }
    std::vector<ProblemView<T>> thread_views(works.size(), pv);
    if (collides)
      for (std::size_t i = 0; i < works.size(); ++i)
        thread_views[i].collision.memo =
            works[i].memo.use(pv.collision, problem.collision_world_id(), model.body_count);

    std::vector<RowResult<T>> rows(std::size_t(P) * S);
    std::vector<double> row_q(std::size_t(P) * S * nq, 0.0);
    // each row's final multipliers, kept only where a hard row holds any
    const bool hard = problem_has_hard(pv);
    std::vector<double> row_lambda(hard ? std::size_t(P) * S * nr : 0, 0.0);

    // solves one seed (with its restarts) of one problem in worker `wi`'s workspace
    auto solve_row = [&](int p, int seed, int wi, uint64_t deadline_ns) {
      Workspace<T>& w = works[wi];
      for (int i = 0; i < nq; ++i) w.init[i] = T(q0[std::size_t(p) * nq + i]);
      CpuEvaluator<T> ev{&problem, &thread_views[wi], p, s.jacobian, &w};
      ev.has_custom = has_custom;
      auto local_solve = [&](RowBuffers<T>& b, RowStatus<T>& st) {
        if (s.optimizer == Optimizer::kLbfgs)
          lbfgs_solve_row(ev, pv, cfg.lm, b, w.lbfgs, st);
        else
          lm_solve_row(ev, pv, cfg.lm, b, st);
      };
      std::size_t row = std::size_t(p) * S + seed;
      RowMultipliers<T> mult;
      if (hard) {
        mult.best = w.best_al.data();
        if (seed == 0 && !warm.multipliers.empty()) {
          for (int i = 0; i < nr; ++i) w.al_init[i] = T(warm.multipliers[std::size_t(p) * nr + i]);
          mult.init = w.al_init.data();
          mult.penalty = T(warm.penalty);
        }
      }
      rows[row] = drive_row(pv, cfg, w.buffers(dof_free), p, seed, w.init.data(), w.seed.data(),
                            w.best_q.data(), deadline_ns, local_solve, AttemptLane{}, mult);
      finish_kept_attempt(pv, cfg, w.buffers(dof_free), deadline_ns, local_solve, rows[row],
                          w.best_q.data(), mult);
      for (int i = 0; i < nq; ++i) row_q[row * nq + i] = double(w.best_q[i]);
      if (hard)
        for (int i = 0; i < nr; ++i) row_lambda[row * nr + i] = double(w.best_al[i]);
    };

    if (cfg.all_seeds) {
      pool_->parallel_for(P * S, [&](int row, int wi) {
        solve_row(row / S, row % S, wi, row_deadline_ns(cfg.time_budget_ns));
      });
    } else {
      // a problem's seeds one after another, sharing one deadline, until one converges
      pool_->parallel_for(P, [&](int p, int wi) {
        const uint64_t deadline_ns = row_deadline_ns(cfg.time_budget_ns);
        for (int seed = 0; seed < S; ++seed) {
          solve_row(p, seed, wi, deadline_ns);
          if (rows[std::size_t(p) * S + seed].converged || row_clock_ns() >= deadline_ns) break;
        }
      });
    }

    std::vector<ProblemPick> picks(P);
    std::vector<double> diff(nv);
    for (int p = 0; p < P; ++p)
      picks[p] = pick_problem_seed(model.view(), S, cfg.prefer_closest != 0, cfg.lm.tol_constraint,
                                   p, q0.data(), row_q.data(), rows.data(), diff.data());
    fill_solve_result(problem, S, row_q.data(), rows.data(), picks.data(), res,
                      hard ? row_lambda.data() : nullptr);
  }

  std::unique_ptr<ThreadPool> pool_;
  std::vector<Workspace<double>> d_;
  std::vector<Workspace<float>> f_;
};

}  // namespace

std::unique_ptr<IkSolver> make_cpu_solver() {
  return std::make_unique<CpuSolver>();
}

}  // namespace ikwb
