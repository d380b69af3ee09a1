#include "solver/compromise.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/core/fk.hpp"
#include "solver/objective_report.hpp"

namespace ikwb {

namespace {

constexpr const char* kStatusNames[] = {"reached", "traded_off", "out_of_reach", "blocked",
                                        "stopped_short"};
constexpr int kStatusCount = 5;

// The least number of seeds a test solve searches with when one seed from the solution does not
// reach the objective: a planar arm's target 1.2 m away read out of reach from the arm held
// straight (a singular start, where its descent is 0), and a local minimum at a joint limit read
// as the best a hard elbow allowed (1.674 m where 1.287 m is)
constexpr int kSearchSeeds = 8;
// and the most it takes from the settings' seeds: every seed of a search that fails runs to the
// end, and a blocked objective searches once per hard objective (a humanoid row with 256 seeds
// took 2 s to explain)
constexpr int kMostSearchSeeds = 16;

// An objective's raw rows at one configuration, with the weight each row counts with in the
// balance (0: inactive inequality row, axis of weight 0).
struct ObjectiveRows {
  bool present = false;  // enabled, not custom, not posture in the null space
  Eigen::VectorXd c;     // raw rows (dim)
  Eigen::MatrixXd J;     // raw Jacobian (dim x dof_count)
  Eigen::VectorXd w;     // row weights (soft); 1 for active rows of a hard objective
  Eigen::VectorXd g;     // its force in dof space: J^T W^2 c (hard: J^T W c, a direction)
};

std::vector<Transform<double>> body_poses(const Model& m, const std::vector<double>& q) {
  State s(m);
  eval_fk(m, q, {}, s);
  return s.body_q;
}

std::vector<ObjectiveRows> objective_rows(const IkProblem& problem, int pi,
                                          const std::vector<double>& q,
                                          const std::vector<Transform<double>>& body_q,
                                          const SolverSettings& settings) {
  const ProblemView<double> pv = problem.view();
  const int nv = problem.model().dof_count;
  std::vector<ObjectiveRows> rows(problem.objective_count());
  for (int oi = 0; oi < problem.objective_count(); ++oi) {
    const ObjectiveParams<double>& o = pv.objectives[oi];
    ObjectiveRows& r = rows[oi];
    if (!o.enabled || o.type == ObjectiveType::kCustom || o.null_space) continue;
    r.present = true;
    r.c = Eigen::VectorXd::Zero(o.dim);
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> J(o.dim, nv);
    objective_residual(pv, oi, pi, q.data(), body_q.data(), r.c.data());
    objective_jacobian(pv, oi, pi, q.data(), body_q.data(), J.data(), nv);
    r.J = J;
    r.w = Eigen::VectorXd::Zero(o.dim);
    const bool ineq = objective_is_inequality(o.type);
    for (int k = 0; k < o.dim; ++k) {
      if (o.hard) {
        r.w[k] = objective_row_counts(o, k) && (!ineq || r.c[k] > -settings.tol_constraint);
      } else {
        if (ineq && !(r.c[k] > 0)) r.c[k] = 0;
        r.w[k] = objective_row_weight(o, k);
      }
    }
    // a hard objective's force is unknown (its multipliers): the pulls project it out
    const Eigen::VectorXd wc = o.hard ? Eigen::VectorXd(r.w.cwiseProduct(r.c))
                                      : Eigen::VectorXd(r.w.cwiseProduct(r.w).cwiseProduct(r.c));
    r.g = r.J.transpose() * wc;
  }
  return rows;
}

// a 1-dof joint's coordinate is at (within tol of) its lower (-1) or upper (+1) limit in the
// problem (a scene's or the workbench's edited limits), else 0
int at_limit(const IkProblem& p, const std::vector<double>& q, int dof, double tol) {
  const Model& m = p.model();
  int j = m.dof_joint[dof];
  if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) return 0;
  double v = q[m.joint_q_start[j]];
  if (v <= p.dof_lower()[dof] + tol) return -1;
  if (v >= p.dof_upper()[dof] - tol) return 1;
  return 0;
}

// dofs that move freely at q: in the dof mask, and not held at a limit
std::vector<int> free_dofs(const IkProblem& problem, const std::vector<double>& q,
                           const SolverSettings& settings) {
  const Model& m = problem.model();
  std::vector<int> f;
  for (int d = 0; d < m.dof_count; ++d)
    if (problem.dof_free(d) && !(settings.hard_joint_limits && at_limit(problem, q, d, 1e-9) != 0))
      f.push_back(d);
  return f;
}

Eigen::VectorXd entries(const Eigen::VectorXd& v, const std::vector<int>& idx) {
  Eigen::VectorXd out(Eigen::Index(idx.size()));
  for (int i = 0; i < int(idx.size()); ++i) out[i] = v[idx[i]];
  return out;
}

// A basis of the motions of the free dofs that keep every active hard row but objective
// `except`'s (free.size() x r; the identity when there is none)
Eigen::MatrixXd hard_null_space(const std::vector<ObjectiveRows>& rows, const IkProblem& problem,
                                const std::vector<int>& free, int except) {
  std::vector<Eigen::VectorXd> hard;
  for (int oi = 0; oi < int(rows.size()); ++oi) {
    if (!rows[oi].present || oi == except || !problem.objective(oi).params.hard) continue;
    for (int k = 0; k < rows[oi].c.size(); ++k)
      if (rows[oi].w[k] > 0) hard.push_back(entries(rows[oi].J.row(k).transpose(), free));
  }
  const Eigen::Index f = Eigen::Index(free.size());
  if (hard.empty()) return Eigen::MatrixXd::Identity(f, f);
  Eigen::MatrixXd H(Eigen::Index(hard.size()), f);
  for (int h = 0; h < int(hard.size()); ++h) H.row(h) = hard[h].transpose();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(H, Eigen::ComputeFullV);
  const Eigen::VectorXd& sv = svd.singularValues();
  const double tol = 1e-9 * std::max(1.0, sv.size() ? sv[0] : 0.0);
  Eigen::Index rank = 0;
  while (rank < sv.size() && sv[rank] > tol) ++rank;
  return svd.matrixV().rightCols(f - rank);
}

// the unit of rows `rows` of an objective of this type (row_unit; a per-dof kind's row k is dof k)
ShareUnit rows_unit(const Model& m, ObjectiveType type, const std::vector<int>& rows) {
  switch (row_unit(type)) {
    case RowUnit::kMetre:
      return ShareUnit::kMetre;
    case RowUnit::kRadian:
      return ShareUnit::kRadian;
    case RowUnit::kNone:
      return ShareUnit::kNone;
    case RowUnit::kPerDof:
      break;
  }
  int linear = 0;
  for (int k : rows) linear += m.dof_is_linear(k) ? 1 : 0;
  if (linear == 0) return ShareUnit::kRadian;
  return linear == int(rows.size()) ? ShareUnit::kMetre : ShareUnit::kNone;
}

// the rows of objective k whose error the shares split: position rows, else rotation rows, else
// all of its rows; *unit receives their unit
std::vector<int> explained_rows(const Model& m, const ObjectiveParams<double>& o,
                                const ObjectiveRows& r, const ObjectiveReport& rep,
                                const SolverSettings& settings, ShareUnit* unit) {
  const ObjectiveKind& kind = objective_kind(o.type);
  int first = 0, count = int(r.c.size());
  bool own_rows = true;  // all of its rows, in the kind's own unit
  if (kind.position_row >= 0 &&
      (rep.position_error > settings.tol_position || kind.rotation_row < 0)) {
    first = kind.position_row;
    count = 3;
    *unit = ShareUnit::kMetre;
    own_rows = false;
  } else if (kind.rotation_row >= 0) {
    first = kind.rotation_row;
    count = 3;
    *unit = ShareUnit::kRadian;
    own_rows = false;
  }
  std::vector<int> out;
  for (int k = first; k < first + count; ++k)
    if (r.w[k] > 0) out.push_back(k);
  if (own_rows) {
    // the unit of the rows that err (a humanoid's joint limits have rows for its floating
    // base's unlimited dofs, which never do)
    std::vector<int> erring;
    for (int k : out)
      if (r.c[k] != 0) erring.push_back(k);
    *unit = rows_unit(m, o.type, erring);
  }
  return out;
}

// the largest share of an error by which the shares may miss adding up to it (see add_pulls)
constexpr double kBalanceMismatch = 0.5;

void add_pulls(int k, const IkProblem& problem, const std::vector<ObjectiveRows>& rows,
               const std::vector<int>& free, const ObjectiveReport& rep,
               const SolverSettings& settings, Explanation& ex) {
  const ObjectiveParams<double>& o = problem.objective(k).params;
  const ObjectiveRows& rk = rows[k];
  std::vector<int> weighted;
  for (int i = 0; i < rk.c.size(); ++i)
    if (rk.w[i] > 0) weighted.push_back(i);
  std::vector<int> sub = explained_rows(problem.model(), o, rk, rep, settings, &ex.unit);
  Eigen::VectorXd e(Eigen::Index(sub.size()));
  for (int i = 0; i < int(sub.size()); ++i) e[i] = rk.c[sub[i]];
  ex.error = e.norm();
  if (weighted.empty() || free.empty() || !(ex.error > 0)) return;
  const Eigen::MatrixXd N = hard_null_space(rows, problem, free, k);
  if (N.cols() == 0) return;
  Eigen::MatrixXd A(Eigen::Index(weighted.size()), Eigen::Index(free.size()));
  for (int i = 0; i < int(weighted.size()); ++i)
    A.row(i) = entries(rk.J.row(weighted[i]).transpose(), free).transpose();
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> At((A * N).transpose());
  const Eigen::VectorXd dir = e / ex.error;
  std::vector<Pull> pulls;
  for (int j = 0; j < int(rows.size()); ++j) {
    if (j == k || !rows[j].present || problem.objective(j).params.hard) continue;
    Eigen::VectorXd p = -At.solve(N.transpose() * entries(rows[j].g, free));  // weighted rows
    double share = 0;
    for (int i = 0; i < int(sub.size()); ++i) {
      int at = int(std::find(weighted.begin(), weighted.end(), sub[i]) - weighted.begin());
      double w = o.hard ? 1.0 : rk.w[sub[i]];
      share += p[at] / (w * w) * dir[i];
    }
    pulls.push_back({j, share});
  }
  // a hard objective's pulls are forces against a wall, not metres of its error: the pullers'
  // (positive) shares are scaled to add up to its violation. (Scaled to the net sum, helpers
  // included, a puller opposed by a helper read hundreds of times the violation.)
  double pulling = 0, total = 0;
  for (const Pull& p : pulls) pulling += std::max(p.share, 0.0), total += p.share;
  // the shares split the error only where the forces balance (a settled compromise with its
  // hard objectives held); far from it (hard objectives that cannot all hold, and spread their
  // violation) they read as metres many times the error: none are listed
  if (!o.hard && std::abs(total - ex.error) > kBalanceMismatch * ex.error) return;
  if (o.hard && pulling > 0)
    for (Pull& p : pulls) p.share *= ex.error / pulling;
  for (const Pull& p : pulls) {
    if (p.share > 0.01 * ex.error) ex.pulled_by.push_back(p);
    if (!o.hard && p.share < -0.01 * ex.error) ex.helped_by.push_back({p.objective, -p.share});
  }
  auto largest_first = [](const Pull& a, const Pull& b) { return a.share > b.share; };
  std::sort(ex.pulled_by.begin(), ex.pulled_by.end(), largest_first);
  std::sort(ex.helped_by.begin(), ex.helped_by.end(), largest_first);
}

void check_sizes(const IkProblem& problem, int pi, const std::vector<double>& q, const char* what) {
  if (int(q.size()) != problem.model().coord_count)
    throw std::invalid_argument(
        std::string(what) + ": q has " + std::to_string(q.size()) +
        " values, expected joint_coord_count = " + std::to_string(problem.model().coord_count));
  if (pi < 0 || pi >= problem.problem_count())
    throw std::invalid_argument(std::string(what) + ": problem index " + std::to_string(pi) +
                                " out of range");
}

// one problem of `problem` (its targets, dof mask, joint limits and collision world) as a
// problem set of its own
IkProblem single_problem(const IkProblem& problem, int pi) {
  IkProblem out(problem.model_ptr(), 1);
  out.share_collision_world(problem);
  out.set_dof_limits(problem.dof_lower(), problem.dof_upper());
  for (int oi = 0; oi < problem.objective_count(); ++oi) {
    out.add_objective(problem.objective(oi));
    out.set_target_pose(oi, 0, problem.target(oi, pi));
  }
  out.set_dof_mask(problem.dof_mask());
  return out;
}

// configuration `to` with the coordinates of the joints problem p locks (its dof mask) taken
// from `from`
std::vector<double> with_locked_joints(const IkProblem& p, std::vector<double> to,
                                       const std::vector<double>& from) {
  const Model& m = p.model();
  const std::vector<uint8_t>& mask = p.dof_mask();
  if (mask.empty()) return to;
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0) continue;
    bool locked = false;
    for (int d = m.joint_qd_start[j]; d < m.joint_qd_start[j + 1]; ++d) locked |= mask[d] == 0;
    if (!locked) continue;
    for (int c = m.joint_q_start[j]; c < m.joint_q_start[j + 1]; ++c)
      to[std::size_t(c)] = from[std::size_t(c)];
  }
  return to;
}

// thrown by TestSolver::solve once its stop is set; explain_compromise catches it
struct ExplainStopped {};

struct TestSolver {
  const IkProblem& base;
  const std::vector<double>& q;
  SolverSettings settings;
  std::unique_ptr<IkSolver> solver = make_cpu_solver();
  SolveResult result;
  int solves = 0;
  const std::atomic<bool>* stop = nullptr;

  TestSolver(const IkProblem& p, const std::vector<double>& q0, const SolverSettings& s,
             const std::atomic<bool>* stop_flag)
      : base(p), q(q0), settings(s), stop(stop_flag), seeds(s.n_seeds), sampler(s.sampler) {
    settings.backend = Backend::kCpu;
    settings.use_float = false;
    settings.n_seeds = 1;
    settings.sampler = Sampler::kNone;
    settings.max_restarts = 0;
    settings.stall_window = 0;
    settings.time_budget_s = 0;
    settings.fixed_iterations = false;
    settings.solve_all_seeds = false;
    settings.threads = 1;
    settings.max_iterations = std::max(settings.max_iterations, 100);
  }

  // the settings' seeds (each test solve runs one): the search for the best error without the
  // other soft objectives draws them (seeded)
  int seeds;
  Sampler sampler;

  // `base` with only the objectives in `keep` enabled
  IkProblem only(const std::vector<uint8_t>& keep) const {
    IkProblem p = base;
    for (int oi = 0; oi < p.objective_count(); ++oi)
      if (!keep[oi] && p.objective(oi).params.enabled) p.set_enabled(oi, false);
    return p;
  }

  // solves `base` with only the objectives in `keep` enabled (hard joint limits as `limits`, the
  // locked joints locked as `locks`) from q, or from `from` when given; returns the configuration
  // reached. seeded: with the settings' seeds and sampler, kSearchSeeds to kMostSearchSeeds
  // seeds (drawn uniformly within the limits when the settings name no sampler), the first at
  // the start
  std::vector<double> solve(const std::vector<uint8_t>& keep, bool limits, bool locks = true,
                            const std::vector<double>* from = nullptr, bool seeded = false) {
    if (stop && stop->load(std::memory_order_relaxed)) throw ExplainStopped{};
    SolverSettings s = settings;
    s.hard_joint_limits = limits && settings.hard_joint_limits;
    if (seeded) {
      s.n_seeds = std::clamp(seeds, kSearchSeeds, kMostSearchSeeds);
      s.sampler = sampler != Sampler::kNone ? sampler : Sampler::kUniform;
    }
    IkProblem p = only(keep);
    if (!locks) p.set_dof_mask({});
    solver->solve(p, s, from ? *from : q, result);
    ++solves;
    return result.problems[0].q;
  }

  // objective k at the end of a test solve with only `keep` enabled from q, and when that one
  // seed does not reach it, of a search from the seeds
  struct Found {
    std::vector<double> q;
    bool reached = false;
    std::vector<double> from_q;  // not reached: where the solve from q ended
  };
  Found search(int k, const std::vector<uint8_t>& keep, bool limits, bool locks = true) {
    Found f{solve(keep, limits, locks), false, {}};
    f.reached = reaches(k, f.q, keep);
    if (f.reached) return f;
    f.from_q = f.q;
    f.q = solve(keep, limits, locks, nullptr, true);
    f.reached = reaches(k, f.q, keep);
    return f;
  }

  // Where no balance of forces splits a blocked k's error (a wall takes the forces: a hand
  // behind a block, held 200 mm back by a weighted posture, named no puller), each other soft
  // objective is turned off alone, from q: what k wins is its share, the shares scaled to add up
  // to what turning them all off won (ex.error - ex.best_error)
  void pulls_by_removal(int k, const ObjectiveReport& settled, Explanation& ex) {
    const double won = pulled_error(ex.error, ex.best_error);
    if (!(won > 0.01 * ex.error)) return;
    const int n = base.objective_count();
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      const ObjectiveParams<double>& o = base.objective(j).params;
      if (j == k || o.hard || !o.enabled || !objective_pursued(o)) continue;
      std::vector<uint8_t> keep(n, 0);
      for (int i = 0; i < n; ++i) keep[i] = i != j && base.objective(i).params.enabled;
      const double e = error_at(k, solve(keep, true), keep, settled);
      if (!(ex.error - e > 0.01 * ex.error)) continue;
      ex.pulled_by.push_back({j, ex.error - e});
      sum += ex.error - e;
    }
    for (Pull& p : ex.pulled_by) p.share *= won / sum;
    std::sort(ex.pulled_by.begin(), ex.pulled_by.end(),
              [](const Pull& a, const Pull& b) { return a.share > b.share; });
  }

  // objective k is reached at qs while every hard objective enabled in `keep` holds there (a
  // test solve that meets k by breaking a wall, e.g. a target inside an obstacle, does not count)
  bool reaches(int k, const std::vector<double>& qs, const std::vector<uint8_t>& keep) const {
    const std::vector<ObjectiveReport> reps = reports(qs);
    return holds(k, reps, keep) && reps[k].reached;
  }

  // the two solves of search for an objective k not reached (from q, and from the seeds): the
  // one with the least error (error_at; NaN when neither holds the hard objectives in keep)
  struct Least {
    std::vector<double> q;
    double error = 0;
  };
  Least least_error(int k, const std::vector<uint8_t>& keep, bool limits, bool locks,
                    const ObjectiveReport& settled) {
    Least a{solve(keep, limits, locks)}, b{solve(keep, limits, locks, nullptr, true)};
    a.error = error_at(k, a.q, keep, settled);
    b.error = error_at(k, b.q, keep, settled);
    return b.error < a.error || std::isnan(a.error) ? b : a;
  }

  // objective k's error at qs, in the rows `settled` (its report at the solution explained) has
  // the explanation split; NaN when a hard objective in `keep` other than k does not hold there
  double error_at(int k, const std::vector<double>& qs, const std::vector<uint8_t>& keep,
                  const ObjectiveReport& settled) const {
    if (!holds(k, reports(qs), keep)) return std::numeric_limits<double>::quiet_NaN();
    const std::vector<ObjectiveRows> rows =
        objective_rows(base, 0, qs, body_poses(base.model(), qs), settings);
    ShareUnit unit;
    double sq = 0;
    for (int i :
         explained_rows(base.model(), base.objective(k).params, rows[k], settled, settings, &unit))
      sq += rows[k].c[i] * rows[k].c[i];
    return std::sqrt(sq);
  }

 private:
  std::vector<ObjectiveReport> reports(const std::vector<double>& qs) const {
    return report_objectives(base, 0, qs, body_poses(base.model(), qs), settings);
  }

  // every hard objective enabled in `keep` but k holds
  bool holds(int k, const std::vector<ObjectiveReport>& reps,
             const std::vector<uint8_t>& keep) const {
    for (int h = 0; h < int(reps.size()); ++h)
      if (h != k && keep[h] && base.objective(h).params.enabled && base.objective(h).params.hard &&
          !reps[h].reached)
        return false;
    return true;
  }
};

// joints at a limit at qs that objective k's descent would push past it; with `settled` (k's
// report at the solution explained), the descent of the rows its explanation measures only (a
// pose's position rows where only they are missed: a wrist on its limit that turns the hand
// but does not move its point keeps it no further)
void limit_blockers(int k, const IkProblem& p, const std::vector<double>& qs,
                    const SolverSettings& settings, std::vector<Blocker>& out,
                    const ObjectiveReport* settled = nullptr) {
  const Model& m = p.model();
  std::vector<ObjectiveRows> rows = objective_rows(p, 0, qs, body_poses(m, qs), settings);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(m.dof_count);
  if (rows[k].present && !settled) g = rows[k].g;
  if (rows[k].present && settled) {
    const ObjectiveRows& r = rows[k];
    ShareUnit unit;
    for (int i : explained_rows(m, p.objective(k).params, r, *settled, settings, &unit))
      g += r.J.row(i).transpose() * (r.w[i] * r.w[i] * r.c[i]);
  }
  for (int d = 0; d < m.dof_count; ++d) {
    // a locked joint at a limit is the lock's (named by lock_blockers), not the limits'
    if (!p.dof_free(d)) continue;
    int side = at_limit(p, qs, d, std::max(1e-9, settings.tol_constraint));
    // descent -g pushes past the upper limit (side 1) when g < 0, past the lower when g > 0
    // (a joint of several dofs is named once)
    const int j = m.dof_joint[d];
    if (side != 0 && side * g[d] < 0 &&
        std::none_of(out.begin(), out.end(), [&](const Blocker& b) { return b.joint == j; }))
      out.push_back({-1, j});
  }
}

// the locked joints that objective k's rows move at qs
void lock_blockers(int k, const IkProblem& p, const std::vector<double>& qs,
                   const SolverSettings& settings, std::vector<Blocker>& out) {
  const Model& m = p.model();
  std::vector<ObjectiveRows> rows = objective_rows(p, 0, qs, body_poses(m, qs), settings);
  if (!rows[k].present) return;
  const Eigen::VectorXd moved = rows[k].J.cwiseAbs().colwise().sum().transpose();
  for (int d = 0; d < m.dof_count; ++d)
    if (!p.dof_free(d) && moved[d] > 0 && (out.empty() || out.back().joint != m.dof_joint[d]))
      out.push_back({-1, m.dof_joint[d]});
}

// the hard objectives with an active row that moves a dof objective k's rows move, at qs
void coupled_hard(int k, const IkProblem& p, const std::vector<double>& qs,
                  const SolverSettings& settings, std::vector<Blocker>& out) {
  std::vector<ObjectiveRows> rows = objective_rows(p, 0, qs, body_poses(p.model(), qs), settings);
  if (!rows[k].present) return;
  const Eigen::VectorXd moved = rows[k].J.cwiseAbs().colwise().sum().transpose();
  for (int h = 0; h < int(rows.size()); ++h) {
    if (h == k || !rows[h].present || !p.objective(h).params.hard) continue;
    const Eigen::VectorXd touched =
        (rows[h].w.asDiagonal() * rows[h].J.cwiseAbs()).colwise().sum().transpose();
    if (moved.cwiseProduct(touched).sum() > 0) out.push_back({h, -1});
  }
}

// Where no wall alone stops objective k (or keeps it further), only their combination does: the
// hard objectives active where the first test solve settled (qs) that move a dof it moves, the
// locked joints it moves, and the joints at a limit there (settled as for limit_blockers).
void name_coupled_walls(int k, const IkProblem& p, const std::vector<double>& qs, bool any_locked,
                        const SolverSettings& settings, Explanation& ex,
                        const ObjectiveReport* settled = nullptr) {
  coupled_hard(k, p, qs, settings, ex.blocked_by);
  if (any_locked) lock_blockers(k, p, qs, settings, ex.blocked_by);
  limit_blockers(k, p, qs, settings, ex.blocked_by, settled);
}

// the enabled hard objectives of p but k
std::vector<int> hard_objectives(const IkProblem& p, int k) {
  std::vector<int> hard;
  for (int j = 0; j < p.objective_count(); ++j)
    if (j != k && p.objective(j).params.enabled && p.objective(j).params.hard) hard.push_back(j);
  return hard;
}

// the error below which a test solve's error counts as the same as another's, in unit: the
// solver's position or rotation tolerance (the constraint tolerance without a unit)
double tolerance(ShareUnit unit, const SolverSettings& settings) {
  return unit == ShareUnit::kMetre    ? settings.tol_position
         : unit == ShareUnit::kRadian ? settings.tol_rotation
                                      : settings.tol_constraint;
}

// A blocked objective's shares, from the balance of forces where it settled, are scaled to add
// up to what the test solves won without the other soft objectives (error - best_error): the
// rest of its error is the walls'. (Unscaled, a hand 93 mm short read as pulled by the
// self-collision 60 mm and the other hand 33 mm, where turning both off won 12 mm.)
void scale_pulls_to_win(Explanation& ex) {
  ex.helped_by.clear();  // the scaled pulls no longer add up with them
  if (!std::isfinite(ex.best_error) || ex.pulled_by.empty()) return;
  const double f = pulled_error(ex.error, ex.best_error) / ex.error;
  std::vector<Pull> kept;
  for (Pull p : ex.pulled_by) {
    p.share *= f;
    if (p.share > 0.01 * ex.error) kept.push_back(p);
  }
  ex.pulled_by = kept;
}

}  // namespace

double pulled_error(double error, double best_error) {
  return std::isfinite(best_error) ? std::clamp(error - best_error, 0.0, error) : error;
}

const char* to_string(ReachStatus s) {
  return kStatusNames[int(s)];
}

const char* to_string(ShareUnit u) {
  switch (u) {
    case ShareUnit::kMetre:
      return "m";
    case ShareUnit::kRadian:
      return "rad";
    case ShareUnit::kNone:
      break;
  }
  return "";
}

bool parse(const std::string& s, ReachStatus* out) {
  for (int i = 0; i < kStatusCount; ++i)
    if (s == kStatusNames[i]) {
      *out = ReachStatus(i);
      return true;
    }
  return false;
}

std::vector<Explanation> objective_pulls(const IkProblem& problem, int pi,
                                         const std::vector<double>& q,
                                         const SolverSettings& settings) {
  check_sizes(problem, pi, q, "objective_pulls");
  const std::vector<Transform<double>> body_q = body_poses(problem.model(), q);
  std::vector<ObjectiveReport> reps = report_objectives(problem, pi, q, body_q, settings);
  std::vector<ObjectiveRows> rows = objective_rows(problem, pi, q, body_q, settings);
  const std::vector<int> free = free_dofs(problem, q, settings);
  std::vector<Explanation> out(problem.objective_count());
  for (int k = 0; k < problem.objective_count(); ++k)
    if (rows[k].present && reps[k].pursued && !reps[k].reached)
      add_pulls(k, problem, rows, free, reps[k], settings, out[k]);
  return out;
}

namespace {

// explain_compromise's test solves: the status, blockers and pulls of every pursued objective of
// `one` not reached at q (reps: their reports there) into out.objectives
void explain_missed(const IkProblem& one, const std::vector<double>& q,
                    const SolverSettings& settings, std::vector<ObjectiveReport>& reps,
                    TestSolver& ts, CompromiseReport& out) {
  const int n = one.objective_count();
  const bool any_locked =
      std::find(one.dof_mask().begin(), one.dof_mask().end(), uint8_t(0)) != one.dof_mask().end();
  for (int k = 0; k < n; ++k) {
    const Objective& ok = one.objective(k);
    Explanation& ex = out.objectives[k];
    if (!reps[k].pursued || ok.custom || reps[k].reached) continue;
    // 1. the other soft objectives off, the hard ones kept
    std::vector<uint8_t> keep(n, 0);
    for (int j = 0; j < n; ++j) keep[j] = j == k || one.objective(j).params.hard;
    // reached with them off: traded off against them, and where nothing is found pulling
    // against it (no balance of forces, none whose removal alone wins anything) the solve
    // stopped short of it (a local minimum; a pose not solved yet)
    auto traded_off = [&]() {
      ex.status = ReachStatus::kTradedOff;
      if (ex.pulled_by.empty()) ts.pulls_by_removal(k, reps[k], ex);
      if (ex.pulled_by.empty()) ex.status = ReachStatus::kStoppedShort;
    };
    std::vector<double> kept = ts.solve(keep, true);
    if (ts.reaches(k, kept, keep)) {
      traded_off();
      continue;
    }
    // q itself is such a configuration where it holds the hard objectives: a test solve that
    // settles further (an H1 hand 33 mm off where the answer was 20 mm) is no best
    double best = std::fmin(ts.error_at(k, kept, keep, reps[k]), ts.error_at(k, q, keep, reps[k]));
    // past here the soft objectives do not stop k: the hard objectives and limits alone do. A
    // hard k's violation is theirs (hard objectives that cannot all hold spread it between
    // them), not its pullers', whose shares add_pulls scaled to the whole of it
    if (ok.params.hard) ex.pulled_by.clear();
    // 2. the objective alone, no joint limits, no joints locked
    std::vector<uint8_t> alone(n, 0);
    alone[k] = 1;
    const TestSolver::Found alone_found = ts.search(k, alone, false, false);
    // 1 again, from where the objective alone got (the locked joints where they stand): one
    // seed from q can settle in a local minimum far from it (a hand held 56 cm back by a
    // weighted posture) and would call a reachable target blocked, or read a worse best
    const std::vector<double> restart = with_locked_joints(one, alone_found.q, q);
    const std::vector<double> restarted = ts.solve(keep, true, true, &restart);
    if (alone_found.reached && ts.reaches(k, restarted, keep)) {
      traded_off();
      continue;
    }
    best = std::fmin(best, ts.error_at(k, restarted, keep, reps[k]));
    if (!alone_found.reached) {
      // out of reach: what turning the other soft objectives off wins is error - best (the
      // rest is beyond the robot's reach), as a blocked objective's. Where the hard objectives,
      // locks and limits keep it further than it gets alone, they are walls too (a hand whose
      // target is beyond its reach, held further back by a hard elbow): each tried alone with
      // it, as for blocked below. A test solve that does not hold its hard objectives (NaN)
      // shows nothing.
      ex.status = ReachStatus::kOutOfReach;
      const double reach = std::fmin(ts.error_at(k, alone_found.q, alone, reps[k]),
                                     ts.error_at(k, alone_found.from_q, alone, reps[k]));
      const double wall = std::max(0.01 * reach, tolerance(ex.unit, settings));
      auto further = [&](double e) { return e > reach + wall; };
      const bool walls = std::isfinite(reach) && further(best);
      // and from the seeds, as for blocked: both starts can settle short of what the walls allow
      if (walls)
        best = std::fmin(best,
                         ts.error_at(k, ts.solve(keep, true, true, nullptr, true), keep, reps[k]));
      ex.best_error = best;
      scale_pulls_to_win(ex);
      if (ex.pulled_by.empty() && !ok.params.hard) ts.pulls_by_removal(k, reps[k], ex);
      if (!walls || !further(best)) continue;
      if (any_locked) {
        const TestSolver::Least locked = ts.least_error(k, alone, false, true, reps[k]);
        if (further(locked.error)) lock_blockers(k, one, locked.q, settings, ex.blocked_by);
      }
      for (int h : hard_objectives(one, k)) {
        std::vector<uint8_t> pair = alone;
        pair[h] = 1;
        if (further(ts.least_error(k, pair, false, false, reps[k]).error))
          ex.blocked_by.push_back({h, -1});
      }
      if (settings.hard_joint_limits) {
        const TestSolver::Least limited = ts.least_error(k, alone, true, false, reps[k]);
        if (further(limited.error))
          limit_blockers(k, one, limited.q, settings, ex.blocked_by, &reps[k]);
      }
      if (ex.blocked_by.empty())
        name_coupled_walls(k, one, kept, any_locked, settings, ex, &reps[k]);
      continue;
    }
    // and from the seeds: both starts can settle against an obstacle (a hand behind a block on
    // a table, 130 mm short where a seed gets to 66 mm)
    const std::vector<double> seeded = ts.solve(keep, true, true, nullptr, true);
    if (ts.reaches(k, seeded, keep)) {
      traded_off();
      continue;
    }
    best = std::fmin(best, ts.error_at(k, seeded, keep, reps[k]));
    // 3. blocked: by the locked joints, by which hard objective, or by the joint limits (each
    // tried alone with the objective)
    ex.status = ReachStatus::kBlocked;
    ex.best_error = best;
    scale_pulls_to_win(ex);
    if (ex.pulled_by.empty()) ts.pulls_by_removal(k, reps[k], ex);
    if (any_locked) {
      const TestSolver::Found locked = ts.search(k, alone, false);
      if (!locked.reached) lock_blockers(k, one, locked.q, settings, ex.blocked_by);
    }
    for (int h : hard_objectives(one, k)) {
      std::vector<uint8_t> pair = alone;
      pair[h] = 1;
      if (!ts.search(k, pair, false, false).reached) ex.blocked_by.push_back({h, -1});
    }
    if (settings.hard_joint_limits) {
      const TestSolver::Found limited = ts.search(k, alone, true, false);
      if (!limited.reached) limit_blockers(k, one, limited.q, settings, ex.blocked_by);
    }
    if (ex.blocked_by.empty()) name_coupled_walls(k, one, kept, any_locked, settings, ex);
  }
}

}  // namespace

CompromiseReport explain_compromise(const IkProblem& problem, int pi, const std::vector<double>& q,
                                    const SolverSettings& settings, const std::atomic<bool>* stop) {
  auto t0 = std::chrono::steady_clock::now();
  check_sizes(problem, pi, q, "explain_compromise");
  CompromiseReport out;
  out.objectives = objective_pulls(problem, pi, q, settings);
  const IkProblem one = single_problem(problem, pi);
  std::vector<ObjectiveReport> reps =
      report_objectives(one, 0, q, body_poses(one.model(), q), settings);
  TestSolver ts(one, q, settings, stop);
  try {
    explain_missed(one, q, settings, reps, ts, out);
  } catch (const ExplainStopped&) {
    out.stopped = true;
  }
  out.solves = ts.solves;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string blocking_joint_text(const IkProblem& problem, int joint) {
  const Model& m = problem.model();
  bool locked = false;
  for (int d = m.joint_qd_start[joint]; d < m.joint_qd_start[joint + 1]; ++d)
    locked = locked || !problem.dof_free(d);
  return locked ? "locked joint " + m.joint_name[joint]
                : "joint " + m.joint_name[joint] + "'s limits";
}

}  // namespace ikwb
