// The LM iteration of one batch row (solver/lm_row.hpp) driven directly: Cholesky helpers,
// limit projection and the active set, convergence reporting, the augmented-Lagrangian loop,
// stall detection, fixed iterations and the null-space posture step.
#include "solver/lm_row.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "core/test_models.hpp"
#include "solver/problem.hpp"
#include "solver/solver_test_util.hpp"

namespace ikwb {
namespace {

// Owns the buffers of one row and runs lm_solve_row with the analytic evaluator.
struct RowRunner {
  const IkProblem& pr;
  std::vector<double> q, q_trial, r, r_trial, J, A, L, g, dq, tmp, al, diag, latent;
  std::vector<int> row_col, rows, cols;
  std::vector<Transform<double>> body_q, body_q_trial;
  std::vector<uint8_t> mask;
  RowStatus<double> st;
  std::vector<double> result;
  int residuals = 0;    // residual evaluations of the last run (the start, then each trial point)
  int jacobians = 0;    // Jacobian evaluations of the last run
  bool foresee = true;  // inactive rows set aside (RowBuffers::latent), else none
  bool restart_follows = true;  // RowBuffers::restart_follows

  explicit RowRunner(const IkProblem& p) : pr(p) {
    const Model& m = p.model();
    int nq = m.coord_count, nv = m.dof_count, nr = p.residual_count();
    for (auto* v : {&q, &q_trial}) v->assign(nq, 0.0);
    for (auto* v : {&r, &r_trial, &al}) v->assign(nr, 0.0);
    J.assign(std::size_t(nr) * nv, 0.0);
    A.assign(std::size_t(nv) * nv, 0.0);
    L = A;
    for (auto* v : {&g, &dq, &tmp}) v->assign(nv, 0.0);
    diag.assign(3 * nv, 0.0);
    row_col.assign(nr, 0);
    rows.assign(nr, 0);
    cols.assign(lm_cols_capacity(nv), 0);
    const auto& params = p.param_array();
    latent.assign(lm_latent_capacity(lm_latent_rows(params.data(), int(params.size())), nv), 0.0);
    body_q.assign(m.body_count, transform_identity<double>());
    body_q_trial = body_q;
  }

  RowStatus<double> run(const std::vector<double>& q0, const LmConfig<double>& cfg, int problem = 0,
                        int null_objective = -1) {
    q = q0;
    RowBuffers<double> b{q.data(),      q_trial.data(),
                         body_q.data(), body_q_trial.data(),
                         r.data(),      r_trial.data(),
                         J.data(),      A.data(),
                         L.data(),      g.data(),
                         dq.data(),     tmp.data(),
                         al.data(),     mask.empty() ? nullptr : mask.data(),
                         nullptr,       0.0,
                         diag.data(),   row_col.data(),
                         rows.data(),   cols.data()};
    b.latent = foresee && !latent.empty() ? latent.data() : nullptr;
    b.restart_follows = restart_follows;
    ProblemView<double> pv = pr.view();
    if (null_objective >= 0) {
      b.null_rest = pv.rest_q + null_objective * pr.model().coord_count;
      b.null_weight = pv.objectives[null_objective].weight;
    }
    struct Counting : AnalyticEvaluator<double> {
      int* count = nullptr;
      int* jacobian_count = nullptr;
      RowEval<double> residual(const double* x, Transform<double>* poses, double* rows) {
        ++*count;
        return AnalyticEvaluator<double>::residual(x, poses, rows);
      }
      void jacobian(const double* x, const Transform<double>* poses, double* rows, double* J) {
        ++*jacobian_count;
        AnalyticEvaluator<double>::jacobian(x, poses, rows, J);
      }
    } ev;
    ev.pv = pv;
    ev.problem = problem;
    residuals = jacobians = 0;
    ev.count = &residuals;
    ev.jacobian_count = &jacobians;
    lm_solve_row(ev, pv, cfg, b, st);
    result.assign(b.q, b.q + q.size());
    return st;
  }
};

struct Planar : ::testing::Test {
  std::shared_ptr<Model> model = std::make_shared<Model>(test::planar_arm());
  int tip = model->find_body("tip");
  std::vector<double> q0{0.3, 0.4, 0.5};
};

// A x = b with A = B^T B + 0.1 I (B and x uniform in [-1, 1]): symmetric positive definite
struct SpdSystem {
  std::vector<double> A, x, b;
};
SpdSystem random_spd_system(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  SpdSystem s{std::vector<double>(n * n, 0.0), std::vector<double>(n), std::vector<double>(n, 0.0)};
  std::vector<double> B(n * n);
  for (double& v : B) v = u(rng);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) s.A[i * n + j] += B[k * n + i] * B[k * n + j];
  for (int i = 0; i < n; ++i) s.A[i * n + i] += 0.1;
  for (double& v : s.x) v = u(rng);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) s.b[i] += s.A[i * n + j] * s.x[j];
  return s;
}

TEST(Cholesky, SolvesSpdSystems) {
  std::mt19937 rng(1);
  const int n = 6;
  SpdSystem sys = random_spd_system(n, rng);
  std::vector<double> L = sys.A, b = sys.b;
  ASSERT_TRUE(cholesky_factor(L.data(), n));
  cholesky_solve(L.data(), n, b.data());
  for (int i = 0; i < n; ++i) EXPECT_NEAR(b[i], sys.x[i], 1e-10);
  // not positive definite
  std::vector<double> M = {1, 2, 2, 1};
  EXPECT_FALSE(cholesky_factor(M.data(), 2));
  std::vector<double> Z = {0, 0, 0, 1};
  EXPECT_FALSE(cholesky_factor(Z.data(), 2));
}

// A system of tree pattern (parent: each dof's parent): `rows` random rows that each move one
// chain, from a dof to the root, plus `diagonal` on A's diagonal; b = A x for a random x; the
// dofs' depths and the packed stride.
struct TreeSystem {
  std::vector<double> A, x, b;
  std::vector<int> depth;
  int stride = 1;
};

TreeSystem tree_system(const std::vector<int>& parent, int rows, double diagonal,
                       std::mt19937& rng) {
  const int n = int(parent.size());
  std::uniform_real_distribution<double> u(-1, 1);
  TreeSystem t;
  t.A.assign(n * n, 0.0);
  for (int k = 0; k < rows; ++k) {
    std::vector<double> row(n, 0.0);
    for (int d = k % n; d >= 0; d = parent[d]) row[d] = u(rng);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) t.A[a * n + b] += row[a] * row[b];
  }
  for (int a = 0; a < n; ++a) t.A[a * n + a] += diagonal;
  t.x.resize(n);
  for (double& v : t.x) v = u(rng);
  t.b.assign(n, 0.0);
  for (int a = 0; a < n; ++a)
    for (int c = 0; c < n; ++c) t.b[a] += t.A[a * n + c] * t.x[c];
  t.depth.resize(n);
  for (int d = 0; d < n; ++d) {
    t.depth[d] = parent[d] < 0 ? 0 : t.depth[parent[d]] + 1;
    t.stride = std::max(t.stride, t.depth[d] + 1);
  }
  return t;
}

// A matrix that couples each dof only with its ancestors (a floating base's six dofs, then
// three branches listed breadth first, as a URDF loader lists them): the tree factor solves it,
// and the pattern check tells it from a matrix with a term across two branches.
TEST(Cholesky, TreeFactorSolvesTreePatternSystems) {
  const std::vector<int> parent = {-1, 0, 1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 9, 10, 12};
  const int n = int(parent.size());
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const TreeSystem sys = tree_system(parent, 3 * n, 0.1, rng);
  const std::vector<double>& A = sys.A;
  const std::vector<double>& x = sys.x;
  std::vector<double> b = sys.b;
  const int stride = sys.stride;
  ASSERT_TRUE(lm_tree_pattern(A.data(), n, parent.data()));
  const DofTree t{parent.data(), sys.depth.data(), stride};
  // packed: each row its diagonal, then its ancestors' entries nearest first
  std::vector<double> L(n * stride, 0.0);
  tree_pack(A.data(), n, t, L.data());
  EXPECT_EQ(L[14 * stride + 0], A[14 * n + 14]);
  EXPECT_EQ(L[14 * stride + 1], A[14 * n + 12]);
  EXPECT_EQ(L[14 * stride + 2], A[14 * n + 9]);
  EXPECT_EQ(L[14 * stride + 3], A[14 * n + 6]);
  EXPECT_EQ(L[14 * stride + 4], A[14 * n + 5]);
  ASSERT_TRUE(tree_factor(L.data(), n, t));
  tree_solve(L.data(), n, t, b.data());
  for (int a = 0; a < n; ++a) EXPECT_NEAR(b[a], x[a], 1e-9) << a;
  // two right-hand sides in one walk: each the solve of its own, bit for bit
  std::vector<double> b1(n), b2(n);
  for (int a = 0; a < n; ++a) b1[a] = u(rng), b2[a] = u(rng);
  std::vector<double> one1 = b1, one2 = b2;
  tree_solve(L.data(), n, t, one1.data());
  tree_solve(L.data(), n, t, one2.data());
  double* const both[2] = {b1.data(), b2.data()};
  tree_solve_many<double, 2>(L.data(), n, t, both);
  for (int a = 0; a < n; ++a) {
    EXPECT_EQ(b1[a], one1[a]) << a;
    EXPECT_EQ(b2[a], one2[a]) << a;
  }
  // dofs 9 and 10 are on different branches
  std::vector<double> across = A;
  across[10 * n + 9] = across[9 * n + 10] = 0.01;
  EXPECT_FALSE(lm_tree_pattern(across.data(), n, parent.data()));
  // unless one of them is left out of the step (the term's column, or its row)
  for (int d : {9, 10}) {
    std::vector<double> out(n, 0.0);
    out[d] = 1.0;
    EXPECT_TRUE(lm_tree_pattern(across.data(), n, parent.data(), out.data())) << d;
  }
  // not positive definite
  std::vector<double> not_spd = A;
  not_spd[14 * n + 14] = -1.0;
  tree_pack(not_spd.data(), n, t, L.data());
  EXPECT_FALSE(tree_factor(L.data(), n, t));
}

// A 100-dof chain with a 30-dof branch from its middle (ancestor lists up to 99 long, past the
// 64 the factor once kept on its stack): solved to rounding, the packed rows 100 wide.
TEST(Cholesky, TreeFactorTakesDeepChains) {
  const int n = 130;
  std::vector<int> parent(n);
  for (int d = 0; d < n; ++d) parent[d] = d == 0 ? -1 : d == 100 ? 49 : d - 1;
  std::mt19937 rng(8);
  const TreeSystem sys = tree_system(parent, 2 * n, 1.0, rng);
  const std::vector<double>& A = sys.A;
  const std::vector<double>& x = sys.x;
  std::vector<double> b = sys.b;
  const int stride = sys.stride;
  ASSERT_EQ(stride, 100);
  ASSERT_TRUE(lm_tree_pattern(A.data(), n, parent.data()));
  const DofTree t{parent.data(), sys.depth.data(), stride};
  std::vector<double> L(n * stride, 0.0);
  tree_pack(A.data(), n, t, L.data());
  ASSERT_TRUE(tree_factor(L.data(), n, t));
  tree_solve(L.data(), n, t, b.data());
  // the largest error is 8e-15 with this seed; 1e-12 leaves room for other rounding, while a
  // wrong entry or pivot gives errors of the order of x itself
  for (int a = 0; a < n; ++a) EXPECT_NEAR(b[a], x[a], 1e-12) << a;
}

// The n x n system in Real through cholesky_factor / cholesky_solve (the constant-index code for
// the arm sizes 6 to 8, the right-looking factor from kRightLookingFrom on) and through the loops
// with a run-time size: the two bit for bit, and the solution within tol of sys.x.
template <class Real>
void expect_factor_equals_the_loop(const SpdSystem& sys, int n, double tol) {
  std::vector<Real> L(sys.A.begin(), sys.A.end()), b(sys.b.begin(), sys.b.end());
  std::vector<Real> L_loop = L, b_loop = b;
  ASSERT_TRUE(cholesky_factor(L.data(), n));
  ASSERT_TRUE(cholesky_factor_sized(L_loop.data(), n));
  EXPECT_EQ(L, L_loop) << n;
  cholesky_solve(L.data(), n, b.data());
  cholesky_solve_sized(L_loop.data(), n, b_loop.data());
  EXPECT_EQ(b, b_loop) << n;
  for (int i = 0; i < n; ++i) EXPECT_NEAR(b[i], sys.x[i], tol) << n;
}

// the unrolled sizes (6 to 8) and the right-looking factor of the large ones give bit for bit
// what the loop with a run-time size gives, and solve every size to rounding
TEST(Cholesky, UnrolledSizesEqualTheLoop) {
  std::mt19937 rng(2);
  for (int n = 1; n <= 12; ++n)
    expect_factor_equals_the_loop<double>(random_spd_system(n, rng), n, 1e-9);
  for (int n : {kRightLookingFrom, 34, 61})
    expect_factor_equals_the_loop<double>(random_spd_system(n, rng), n, 1e-9);
  std::vector<double> not_spd(64, 0.0);
  for (int i = 0; i < 8; ++i) not_spd[i * 8 + i] = i == 5 ? -1.0 : 1.0;
  EXPECT_FALSE(cholesky_factor(not_spd.data(), 8));
}

// the same in float, the precision of the batch protocol and of the GPU. A = B^T B + 0.1 I
// (random_spd_system) has a condition number of about 100 at most: float errors near 1e-5.
TEST(Cholesky, UnrolledSizesEqualTheLoopInFloat) {
  std::mt19937 rng(3);
  for (int n = 6; n <= 8; ++n)
    expect_factor_equals_the_loop<float>(random_spd_system(n, rng), n, 1e-3);
}

TEST(ProjectLimits, ClampsLimitedOneDofJointsOnly) {
  Model m = test::all_joint_types();
  std::mt19937 rng(4);
  std::vector<double> q = test::random_configuration(m, rng);
  int rev = m.find_joint("rev"), pris = m.find_joint("pris"), cont = m.find_joint("cont");
  q[m.joint_q_start[rev]] = 5.0;
  q[m.joint_q_start[pris]] = -5.0;
  q[m.joint_q_start[cont]] = 9.0;
  std::vector<double> before = q;
  project_limits(m.view(), m.dof_lower.data(), m.dof_upper.data(), q.data());
  EXPECT_EQ(q[m.joint_q_start[rev]], m.dof_upper[m.joint_qd_start[rev]]);
  EXPECT_EQ(q[m.joint_q_start[pris]], m.dof_lower[m.joint_qd_start[pris]]);
  EXPECT_EQ(q[m.joint_q_start[cont]], 9.0);                // continuous: no limits
  for (int i = 0; i < 7; ++i) EXPECT_EQ(q[i], before[i]);  // free root
  // frozen dofs are left alone
  std::vector<uint8_t> mask(m.dof_count, 1);
  mask[m.joint_qd_start[rev]] = 0;
  q = before;
  project_limits(m.view(), m.dof_lower.data(), m.dof_upper.data(), q.data(), mask.data());
  EXPECT_EQ(q[m.joint_q_start[rev]], 5.0);
  EXPECT_EQ(q[m.joint_q_start[pris]], m.dof_lower[m.joint_qd_start[pris]]);
}

TEST(BoundaryFraction, StopsTheStepWhereTheFirstDofMeetsItsLimit) {
  Model m = test::all_joint_types();
  std::mt19937 rng(5);
  std::vector<double> q = test::random_configuration(m, rng);
  const int rev = m.find_joint("rev"), pris = m.find_joint("pris"), cont = m.find_joint("cont");
  const int r = m.joint_qd_start[rev], p = m.joint_qd_start[pris], c = m.joint_qd_start[cont];
  q[m.joint_q_start[rev]] = m.dof_upper[r] - 0.1;
  q[m.joint_q_start[pris]] = m.dof_lower[p] + 0.05;
  std::vector<double> dq(m.dof_count, 0.0);
  const double* lo = m.dof_lower.data();
  const double* hi = m.dof_upper.data();
  EXPECT_EQ(boundary_fraction(m.view(), lo, hi, q.data(), dq.data(), nullptr), 1.0);
  dq[r] = 0.05;  // inside: the whole step
  EXPECT_EQ(boundary_fraction(m.view(), lo, hi, q.data(), dq.data(), nullptr), 1.0);
  dq[r] = 0.4;  // a quarter of it reaches the upper limit
  EXPECT_NEAR(boundary_fraction(m.view(), lo, hi, q.data(), dq.data(), nullptr), 0.25, 1e-12);
  dq[p] = -0.5;  // the prismatic joint's lower limit comes first, at a tenth
  EXPECT_NEAR(boundary_fraction(m.view(), lo, hi, q.data(), dq.data(), nullptr), 0.1, 1e-12);
  dq[c] = 100.0;  // a continuous joint has no limit to meet
  EXPECT_NEAR(boundary_fraction(m.view(), lo, hi, q.data(), dq.data(), nullptr), 0.1, 1e-12);
  // a frozen dof does not move
  std::vector<uint8_t> mask(m.dof_count, 1);
  mask[p] = 0;
  EXPECT_NEAR(boundary_fraction(m.view(), lo, hi, q.data(), dq.data(), mask.data()), 0.25, 1e-12);
  // a dof already past its limit allows no step
  q[m.joint_q_start[rev]] = m.dof_upper[r] + 0.01;
  EXPECT_EQ(boundary_fraction(m.view(), lo, hi, q.data(), dq.data(), mask.data()), 0.0);
}

TEST(RowConverged, UsesEveryTolerance) {
  LmConfig<double> c;
  c.tol_position = 1e-3, c.tol_rotation = 1e-2, c.tol_constraint = 1e-4;
  RowEval<double> e;
  EXPECT_TRUE(row_converged(e, c));
  e.position_error = 2e-3;
  EXPECT_FALSE(row_converged(e, c));
  e.position_error = 1e-3;
  e.rotation_error = 2e-2;
  EXPECT_FALSE(row_converged(e, c));
  e.rotation_error = 0;
  e.violation = 2e-4;
  EXPECT_FALSE(row_converged(e, c));
}

// a residual that is not a number (a NaN configuration, a custom objective's NaN) is never met:
// the errors keep it whatever rows come after it (a NaN seed read as converged with 0 errors)
TEST(RowConverged, ANaNRowIsNeverMet) {
  LmConfig<double> c;
  ObjectiveParams<double> pos, hard;
  pos.type = ObjectiveType::kPosition;
  pos.dim = 3;
  hard = pos;
  hard.hard = 1;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double bad[3] = {nan, 0, 0}, good[3] = {1e-9, 0, 0};
  RowEval<double> e;
  accumulate_row_eval(pos, bad, e);
  accumulate_row_eval(pos, good, e);
  EXPECT_TRUE(std::isnan(e.position_error));
  EXPECT_FALSE(row_converged(e, c));
  RowEval<double> h;
  accumulate_row_eval(hard, good, h);
  accumulate_row_eval(hard, bad, h);
  EXPECT_TRUE(std::isnan(h.violation));
  EXPECT_FALSE(row_converged(h, c));
}

TEST(RowEval, ReportsTaskErrorsAndViolations) {
  ObjectiveParams<double> pos;
  pos.type = ObjectiveType::kPose;
  pos.dim = 6;
  double raw[6] = {3, 4, 0, 0, 0.5, 0};
  RowEval<double> e;
  accumulate_row_eval(pos, raw, e);
  EXPECT_DOUBLE_EQ(e.position_error, 5.0);
  EXPECT_DOUBLE_EQ(e.rotation_error, 0.5);
  EXPECT_EQ(e.violation, 0.0);  // soft

  ObjectiveParams<double> lim;
  lim.type = ObjectiveType::kJointLimits;
  lim.dim = 3;
  lim.hard = 1;
  double g[3] = {-1, 0.2, 0.05};
  accumulate_row_eval(lim, g, e);
  EXPECT_DOUBLE_EQ(e.violation, 0.2);
  EXPECT_DOUBLE_EQ(e.position_error, 5.0);

  ObjectiveParams<double> ball;
  ball.type = ObjectiveType::kRelativeBall;
  ball.dim = 3;
  ball.hard = 1;
  double b[3] = {0, 0.6, 0.8};
  accumulate_row_eval(ball, b, e);
  EXPECT_DOUBLE_EQ(e.violation, 1.0);

  ObjectiveParams<double> off = ball;
  off.enabled = 0;
  double big[3] = {100, 0, 0};
  accumulate_row_eval(off, big, e);
  EXPECT_DOUBLE_EQ(e.violation, 1.0);
  EXPECT_DOUBLE_EQ(e.position_error, 5.0);
}

TEST(RowEval, ZeroWeightAxesDoNotCount) {
  ObjectiveParams<double> pose;
  pose.type = ObjectiveType::kPose;
  pose.dim = 6;
  pose.position_weights = {1, 1, 0};
  pose.rotation_weights = {0, 2, 0};
  double raw[6] = {3, 4, 100, 7, 0.5, 9};
  RowEval<double> e;
  accumulate_row_eval(pose, raw, e);
  EXPECT_DOUBLE_EQ(e.position_error, 5.0);
  EXPECT_DOUBLE_EQ(e.rotation_error, 0.5);
  // a hard objective holds the axes of non-zero weight, whatever their size or the objective's
  // weight; its violation is their rows' norm
  pose.hard = 1;
  pose.weight = 0;
  RowEval<double> h;
  accumulate_row_eval(pose, raw, h);
  EXPECT_DOUBLE_EQ(h.position_error, 5.0);
  EXPECT_DOUBLE_EQ(h.rotation_error, 0.5);
  EXPECT_DOUBLE_EQ(h.violation, std::sqrt(25.0 + 0.25));
  // a soft objective of weight 0 reports nothing
  ObjectiveParams<double> zero;
  zero.type = ObjectiveType::kPosition;
  zero.dim = 3;
  zero.weight = 0;
  RowEval<double> z;
  accumulate_row_eval(zero, raw, z);
  EXPECT_EQ(z.position_error, 0.0);
}

TEST_F(Planar, HasHardAndHasMeasure) {
  IkProblem pr(model);
  EXPECT_FALSE(problem_has_hard(pr.view()));
  EXPECT_FALSE(problem_has_measure(pr.view()));
  int post = pr.add_posture();
  pr.add_joint_limits();
  EXPECT_FALSE(problem_has_measure(pr.view()));  // soft posture and limits: no task error
  int lim_hard = pr.add_joint_limits({1.0, true});
  EXPECT_TRUE(problem_has_hard(pr.view()));
  EXPECT_TRUE(problem_has_measure(pr.view()));
  pr.set_enabled(lim_hard, false);
  EXPECT_FALSE(problem_has_hard(pr.view()));
  EXPECT_FALSE(problem_has_measure(pr.view()));
  pr.add_position(tip);
  EXPECT_TRUE(problem_has_measure(pr.view()));
  (void)post;
}

TEST_F(Planar, ConvergesOnAReachableTarget) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.2, 1.1, 0.1});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.tol_position = 1e-10;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_TRUE(st.converged);
  EXPECT_LE(st.eval.position_error, 1e-10);
  EXPECT_LT(st.iterations, 30);
  EXPECT_NEAR(test::link_pose(*model, run.result, tip).p.x, 1.2, 1e-10);
  EXPECT_NEAR(st.eval.cost, 0.5 * st.eval.position_error * st.eval.position_error, 1e-20);
}

TEST_F(Planar, FixedIterationsDoNotStopAtConvergence) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.2, 1.1, 0.1});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 40;
  int early = run.run(q0, cfg).iterations;
  cfg.fixed_iterations = true;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_GT(st.iterations, early);
  EXPECT_TRUE(st.converged);  // reported from the final iterate
}

// polishing: the extra iterations after the tolerances are met take a loose answer to rounding
// level (LM is quadratic near a solution) and cost exactly that many iterations
TEST_F(Planar, PolishSharpensAConvergedAnswer) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.2, 1.1, 0.1});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.tol_position = 1e-3;
  RowStatus<double> loose = run.run(q0, cfg);
  ASSERT_TRUE(loose.converged);
  ASSERT_GT(loose.eval.position_error, 1e-9);  // else the test shows nothing
  cfg.polish_iterations = 2;
  RowStatus<double> sharp = run.run(q0, cfg);
  EXPECT_TRUE(sharp.converged);
  EXPECT_EQ(sharp.iterations, loose.iterations + 2);
  EXPECT_LT(sharp.eval.position_error, 1e-9);
  // started from its loose answer, a row is already converged and stays exactly where it is
  LmConfig<double> loose_cfg = cfg;
  loose_cfg.polish_iterations = 0;
  run.run(q0, loose_cfg);
  std::vector<double> q_loose = run.result;
  RowStatus<double> still = run.run(q_loose, cfg);
  EXPECT_EQ(still.iterations, 0);
  EXPECT_EQ(run.result, q_loose);
}

// a weighted posture pulls away from the target: the tolerances met on the way do not end the
// row (RowEval::pull), which goes on to the weighted minimum, outside the tolerance: traded off,
// as a run of fixed iterations finds it; started at a point within the tolerance, the same
// (the answer does not depend on where the solve started)
TEST_F(Planar, AWeightedPostureIsObeyedPastTheTolerances) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.2, 1.1, 0.1});
  pr.add_posture({0.0, 0.0, 0.0}, {0.2});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.tol_position = 0.06;
  cfg.max_iterations = 200;
  cfg.fixed_iterations = true;
  const double minimum = run.run(q0, cfg).eval.position_error;
  ASSERT_GT(minimum, 0.06);  // the cost's minimum is outside
  cfg.fixed_iterations = false;
  cfg.polish_iterations = 10;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_FALSE(st.converged);
  EXPECT_NEAR(st.eval.position_error, minimum, 1e-6);
  // from the target itself (the posture off first)
  IkProblem alone(model);
  alone.set_target_position(alone.add_position(tip), 0, {1.2, 1.1, 0.1});
  RowRunner reach(alone);
  ASSERT_TRUE(reach.run(q0, cfg).converged);
  st = run.run(reach.result, cfg);
  EXPECT_FALSE(st.converged);
  EXPECT_NEAR(st.eval.position_error, minimum, 1e-6);
}

// a target a million kilometres away: the Gauss-Newton step is huge and rejected, and the
// damping jumps to a useful size at once, so the arm stretches straight toward the target well
// within 30 iterations (doubling the damping up from 1e-3 instead needs about 40)
TEST_F(Planar, FarTargetStretchesTheArmTowardIt) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  const double angle = 40 * M_PI / 180, far = 1e9;
  pr.set_target_position(o, 0, {far * std::cos(angle), far * std::sin(angle), 0.1});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 30;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_FALSE(st.converged);
  Vec3<double> p = test::link_pose(*model, run.result, tip).p;
  EXPECT_NEAR(std::atan2(p.y, p.x), angle, 1e-4);
  EXPECT_NEAR(std::hypot(p.x, p.y), 2.3, 1e-6);  // fully stretched: 1 + 0.8 + 0.5 m
}

TEST_F(Planar, ZeroIterationsReportTheStart) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  Vec3<double> x = test::link_pose(*model, q0, tip).p;
  pr.set_target_position(o, 0, x);
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 0;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_EQ(st.iterations, 0);
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(run.result, q0);
}

// a target that needs a joint beyond its limit: the hard limit holds (active set), and the
// solution is the best reachable point
TEST_F(Planar, ActiveLimitHolds) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  // straight arm rotated by 3 rad: needs j1 = 3 > 2.8
  pr.set_target_position(o, 0, {2.3 * std::cos(3.0), 2.3 * std::sin(3.0), 0.1});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 200;
  RowStatus<double> st = run.run({2.5, 0.1, -0.1}, cfg);
  EXPECT_FALSE(st.converged);
  test::expect_within_limits(*model, run.result);
  EXPECT_EQ(run.result[0], 2.8);  // sits exactly on the limit
  // best effort: the remaining error is the distance the limited arm cannot cover
  Vec3<double> x = test::link_pose(*model, run.result, tip).p;
  EXPECT_LT(length(x - pr.target(o, 0).p), 0.5);
}

// A step that carries a dof across a limit it is just short of stops it there, and the other
// dofs take the rest of the step (lm_mark_limits): the first iteration lands j1 on its limit and
// lowers the error. Clipped where the model had not taken it, that step raised the cost and was
// rejected, and two more iterations went by (a step to the boundary, then the dof held) before
// the tip moved.
TEST_F(Planar, AStepAcrossALimitStopsThereAndTheOthersGoOn) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  // the tip turned 0.05 rad further about the base than where the start has it: the step turns j1
  // past its limit, and the other two joints can reach it with j1 on it
  pr.set_target_position(o, 0, test::link_point(*model, {2.85, 0.8, 0.6}, tip, {0, 0, 0}));
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 1;
  cfg.fixed_iterations = true;
  const std::vector<double> start{2.8 - 1e-6, 0.8, 0.6};
  const double before = length(test::link_pose(*model, start, tip).p - pr.target(o, 0).p);
  RowStatus<double> one = run.run(start, cfg);
  EXPECT_EQ(run.result[0], 2.8);
  EXPECT_LT(one.eval.position_error, 0.5 * before);
  cfg.max_iterations = 60;
  cfg.fixed_iterations = false;
  RowStatus<double> st = run.run(start, cfg);
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(run.result[0], 2.8);
  test::expect_within_limits(*model, run.result);
}

TEST_F(Planar, HardPositionWithConflictingSoftPosture) {
  IkProblem pr(model);
  int o = pr.add_position(tip, {0, 0, 0}, {1.0, true});
  pr.set_target_position(o, 0, {1.0, 1.2, 0.1});
  pr.add_posture({1.5, -1.0, 1.0}, {1.0});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 300;
  cfg.tol_constraint = 1e-8;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_TRUE(st.converged);
  EXPECT_LE(st.eval.violation, 1e-8);
  EXPECT_GT(st.mu, cfg.mu_init - 1);  // the penalty never shrinks
  EXPECT_GT(st.eval.soft_cost, 1e-2);
  // the multipliers approach the constraint force: lambda = -(posture gradient) projected
  // on the constraint rows, nonzero here
  double lam = std::fabs(run.al[0]) + std::fabs(run.al[1]);
  EXPECT_GT(lam, 1e-3);
}

TEST_F(Planar, HardLimitObjectiveWithoutProjection) {
  // limits as a hard inequality objective (no projection): they hold to tol_constraint
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {2.3 * std::cos(3.0), 2.3 * std::sin(3.0), 0.1});
  pr.add_joint_limits({1.0, true});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.hard_limits = false;
  cfg.max_iterations = 400;
  cfg.tol_constraint = 1e-6;
  RowStatus<double> st = run.run({2.5, 0.1, -0.1}, cfg);
  EXPECT_LE(st.eval.violation, 1e-6);
  test::expect_within_limits(*model, run.result, 1e-6);
  // soft limits only: the arm goes past the limit
  IkProblem soft(model);
  int s = soft.add_position(tip);
  soft.set_target_position(s, 0, pr.target(o, 0).p);
  soft.add_joint_limits({0.1});
  RowRunner run2(soft);
  run2.run({2.5, 0.1, -0.1}, cfg);
  EXPECT_GT(run2.result[0], 2.8 + 1e-3);
}

TEST_F(Planar, StallWindowGivesUpEarly) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {5.0, 0.0, 0.1});  // out of reach
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 500;
  cfg.stall_window = 5;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_FALSE(st.converged);
  // the cost falls while the arm stretches toward the target, then stays far from zero: given
  // up 5 iterations after it last fell below kStallDecrease of where it stood before
  const int given_up = st.iterations;
  EXPECT_LE(given_up, 10);
  // the window is checked at every iteration, against the cost where it last fell below
  // kStallDecrease of the one before: the same row stopped after k iterations gives the costs
  LmConfig<double> upto = cfg;
  upto.stall_window = 0;
  upto.max_iterations = 0;
  double since_cost = run.run(q0, upto).eval.cost;  // the start
  int since = 0, expected = -1;
  for (int k = 1; k <= 20 && expected < 0; ++k) {
    upto.max_iterations = k;
    const double c = run.run(q0, upto).eval.cost;
    if (c <= kStallDecrease * since_cost) {
      since_cost = c;
      since = k;
    } else if (k - since >= 5) {
      expected = k;
    }
  }
  EXPECT_EQ(given_up, expected);
  // without the window the row runs until LM stalls, stretched out toward the target
  cfg.stall_window = 0;
  st = run.run(q0, cfg);
  EXPECT_GT(st.iterations, given_up + 5);
  EXPECT_NEAR(st.eval.position_error, std::sqrt(25.0) - 2.3, 1e-6);
  // a stall gives an attempt up for the restart that follows it; the row's last attempt has
  // none (RowBuffers::restart_follows) and goes on as without the window, to the same end
  cfg.stall_window = 5;
  run.restart_follows = false;
  const RowStatus<double> last = run.run(q0, cfg);
  EXPECT_EQ(last.iterations, st.iterations);
  EXPECT_EQ(last.eval.cost, st.eval.cost);
}

// fixed iterations run exactly max_iterations, also past the point where LM stalls (damping
// over 1e12) at the best reachable point of an out-of-reach target
TEST_F(Planar, FixedIterationsRunOnAfterAStall) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {5.0, 0.0, 0.1});  // out of reach
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 300;
  ASSERT_LT(run.run(q0, cfg).iterations, 300);  // it stalls without fixed iterations
  cfg.fixed_iterations = true;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_EQ(st.iterations, 300);
  EXPECT_FALSE(st.converged);
  EXPECT_NEAR(st.eval.position_error, 5.0 - 2.3, 1e-6);
  test::expect_finite(run.result);
}

// soft rows that give no task error (posture only) are still minimised
TEST_F(Planar, PostureOnlyProblemIsSolved) {
  IkProblem pr(model);
  std::vector<double> rest{0.7, -0.2, 1.1};
  pr.add_posture(rest, {1.0});
  RowRunner run(pr);
  LmConfig<double> cfg;
  RowStatus<double> st = run.run(q0, cfg);
  EXPECT_GT(st.iterations, 0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(run.result[i], rest[i], 1e-8);
  EXPECT_TRUE(st.converged);
}

TEST_F(Planar, DofMaskFreezesInTheIteration) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.0, 1.2, 0.1});
  RowRunner run(pr);
  run.mask = {1, 0, 1};
  LmConfig<double> cfg;
  run.run(q0, cfg);
  EXPECT_EQ(run.result[1], q0[1]);
  EXPECT_NE(run.result[0], q0[0]);
}

// the null-space posture step moves toward the rest only where the task allows: the task
// still converges and the distance to the rest shrinks compared to the plain solve
TEST_F(Planar, NullSpacePostureKeepsTheTask) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.0, 1.2, 0.1});  // 2-d task, 3 joints: one redundant dof
  std::vector<double> rest{1.2, -0.3, 0.9};
  int post = pr.add_posture(rest, {1.0, true});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.tol_position = 1e-9;
  cfg.max_iterations = 300;
  RowStatus<double> st = run.run(q0, cfg, 0, post);
  EXPECT_TRUE(st.converged);
  EXPECT_LE(st.eval.position_error, 1e-9);
  EXPECT_LT(st.eval.soft_cost, 1e-15);  // null-space posture adds no rows
  std::vector<double> with = run.result;
  // marked hard it is still a null-space step: no constraint rows, no violation
  pr.set_hard(post, true);
  EXPECT_FALSE(problem_has_hard(pr.view()));
  RowStatus<double> st_hard = run.run(q0, cfg, 0, post);
  EXPECT_TRUE(st_hard.converged);
  EXPECT_EQ(st_hard.eval.violation, 0.0);
  EXPECT_EQ(run.result, with);
  pr.set_enabled(post, false);
  run.run(q0, cfg);
  double dw = test::norm(test::difference(*model, with, rest));
  double dn = test::norm(test::difference(*model, run.result, rest));
  EXPECT_LT(dw, dn - 0.05);
  // and it reaches the constrained optimum: the best over the self-motion manifold, found by
  // a soft posture with a tiny weight and a hard task
  IkProblem ref(model);
  int ro = ref.add_position(tip, {0, 0, 0}, {1.0, true});
  ref.set_target_position(ro, 0, pr.target(o, 0).p);
  ref.add_posture(rest, {1.0});
  RowRunner run_ref(ref);
  LmConfig<double> rc = cfg;
  rc.tol_constraint = 1e-10;
  run_ref.run(q0, rc);
  double dr = test::norm(test::difference(*model, run_ref.result, rest));
  EXPECT_NEAR(dw, dr, 1e-3);
}

// Posture steps taken with the tolerances met are Gauss-Newton steps on the task too. Small
// ones (a pose nudged off a settled one, as in a workbench drag) leave the task well within
// its tolerance (kPolishShare), as a polish would: once the posture ends (settled, or out of
// settle_iterations) the row stops at the iteration that measured it, without another trial
// point. Large ones (far from the rest) leave a task error of 2e-5 m; then a plain step
// polishes it. A row that starts converged and settled stays exactly where it is.
TEST_F(Planar, SmallPostureStepsWithinTheTolerancesAreThePolish) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.0, 1.2, 0.1});
  int post = pr.add_posture({1.2, -0.3, 0.9}, {1.0, true});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 300;
  cfg.polish_iterations = 1;
  // far from the rest, two posture steps: the plain step after them is a trial point too
  cfg.settle_iterations = 2;
  RowStatus<double> far = run.run(q0, cfg, 0, post);
  ASSERT_TRUE(far.converged);
  EXPECT_TRUE(far.settling);
  EXPECT_EQ(run.residuals, far.iterations + 1);  // the start, then a trial point an iteration
  EXPECT_LT(far.eval.position_error, 1e-9);
  // settled at this target
  cfg.settle_iterations = 0;
  RowStatus<double> settled = run.run(q0, cfg, 0, post);
  ASSERT_TRUE(settled.converged);
  ASSERT_FALSE(settled.settling);
  const std::vector<double> q_settled = run.result;
  RowStatus<double> again = run.run(q_settled, cfg, 0, post);
  EXPECT_TRUE(again.converged);
  EXPECT_FALSE(again.settling);
  EXPECT_EQ(again.iterations, 1);  // measured the posture's step, took none
  EXPECT_EQ(run.result, q_settled);
  // nudged 1 mrad a joint off the settled pose: a task step, then a posture step that leaves
  // the task error at 4e-9 m; out of settle steps, the row stops there, its posture's next
  // step neither measured nor taken (no Jacobian, factor or trial point after the last step)
  std::vector<double> nudged = q_settled;
  for (double& v : nudged) v += 1e-3;
  cfg.settle_iterations = 1;
  RowStatus<double> near = run.run(nudged, cfg, 0, post);
  ASSERT_TRUE(near.converged);
  EXPECT_TRUE(near.settling);
  EXPECT_EQ(near.iterations, 2);
  EXPECT_EQ(run.residuals, near.iterations + 1);  // the start, then a trial point an iteration
  EXPECT_EQ(run.jacobians, near.iterations);      // none at the last iterate
  EXPECT_LT(near.eval.position_error, 1e-8);
}

// a rest beyond a joint limit: the posture step is clipped by the projection each time, and
// the row stops once the step taken is negligible instead of running to max_iterations
TEST_F(Planar, NullSpacePostureIntoALimitSettles) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {-0.31, -0.336, 0.1});
  int post = pr.add_posture({1.19, 3.05, 2.42}, {1.0, true});  // j2 beyond its limit (2.8)
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 500;
  RowStatus<double> st = run.run(q0, cfg, 0, post);
  EXPECT_TRUE(st.converged);
  EXPECT_LT(st.iterations, 30);  // 14 here; without the check it crawls on for 50+
  test::expect_within_limits(*model, run.result);
  EXPECT_GT(run.result[1], 2.79);  // pressed against the limit
}

// A soft min-distance row keeps the tip 0.3 m from a point 0.2 m from its target. From q0 the
// first Gauss-Newton step carries the tip deep into that margin, where the row (inactive at q0,
// so without a Jacobian row) costs far more than the model predicted. Set aside with its linear
// model, the row joins the step's model as soon as a step would make it active: the same
// compromise in 34 trial points instead of 120, which rejected steps while the damping climbed.
TEST_F(Planar, RowsAStepWouldActivateJoinItsModel) {
  IkProblem pr(model);
  int o = pr.add_position(tip);
  pr.set_target_position(o, 0, {1.0, 1.2, 0.1});
  pr.add_min_distance(tip, {0, 0, 0}, 0, {1.0, 1.0, 0.1}, 0.3, {10.0, false});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.max_iterations = 200;
  RowStatus<double> seen = run.run(q0, cfg);
  const int seen_residuals = run.residuals;
  const std::vector<double> q_seen = run.result;
  run.foresee = false;
  RowStatus<double> unseen = run.run(q0, cfg);
  EXPECT_LT(2 * seen_residuals, run.residuals);
  // the same compromise: the tip pressed into the margin, 0.2 m short of the target's pull
  EXPECT_NEAR(seen.eval.cost, unseen.eval.cost, 1e-9 * unseen.eval.cost);
  const double d =
      length(test::link_point(*model, q_seen, tip, {0, 0, 0}) - Vec3<double>{1.0, 1.0, 0.1});
  EXPECT_GT(d, 0.2);
  EXPECT_LT(d, 0.3);
}

// A soft min-distance row keeps the elbow a margin from the point where the null-space posture
// would take it, from the task's solution without the posture (the task met, as in a drag).
// The posture's steps move the elbow along the task's self-motion toward that point; the row
// is set aside while inactive, so the posture is not projected against it, and a step that
// would carry the elbow into the margin is cut where the row's linear model reaches zero
// (lm_posture_reach). The posture settles at the margin's edge; without the cut it pushed 1.1 mm
// into it, where the row and the posture's next steps balance.
TEST_F(Planar, PostureStepsStopAtTheEdgeOfARowSetAside) {
  const int elbow = model->find_body("link2");
  const Vec3<double> target{1.0, 1.2, 0.1};
  const std::vector<double> rest{1.2, -0.3, 0.9};
  LmConfig<double> cfg;
  cfg.max_iterations = 300;
  // where the posture takes the elbow, and where the task alone leaves it
  IkProblem free(model);
  free.set_target_position(free.add_position(tip), 0, target);
  const int free_post = free.add_posture(rest, {1.0, true});
  RowRunner run_free(free);
  ASSERT_TRUE(run_free.run(q0, cfg, 0, free_post).converged);
  const Vec3<double> pulled = test::link_point(*model, run_free.result, elbow, {0, 0, 0});
  ASSERT_TRUE(run_free.run(q0, cfg).converged);
  const std::vector<double> q_task = run_free.result;
  const double margin = 0.5 * length(pulled - test::link_point(*model, q_task, elbow, {0, 0, 0}));
  ASSERT_GT(margin, 0.05);

  IkProblem pr(model);
  pr.set_target_position(pr.add_position(tip), 0, target);
  pr.add_min_distance(elbow, {0, 0, 0}, 0, pulled, margin, {10.0, false});
  const int post = pr.add_posture(rest, {1.0, true});
  RowRunner run(pr);
  RowStatus<double> st = run.run(q_task, cfg, 0, post);
  ASSERT_TRUE(st.converged);
  EXPECT_FALSE(st.settling);
  EXPECT_LT(st.eval.position_error, cfg.tol_position);
  const double d = length(test::link_point(*model, run.result, elbow, {0, 0, 0}) - pulled);
  EXPECT_GE(d, margin - 1e-6);  // at the edge of the margin (0.19 um in), not pressed into it
  EXPECT_LT(d, margin + 1e-6);  // and as far as the margin lets the posture go
}

// The planar arm with two soft min-distance rows (latent slots 0 and 1), their Jacobian rows
// J, and row buffers with room to set them aside
struct LatentRows : ::testing::Test {
  static constexpr int nv = 3;
  IkProblem pr{std::make_shared<Model>(test::planar_arm())};
  ProblemView<double> pv;
  std::vector<double> J{1.0, 2.0, 0.0, 3.0, 0.0, 1.0},
      r = std::vector<double>(2, 0.0), latent = std::vector<double>(lm_latent_capacity(2, nv));
  std::vector<int> row_col = std::vector<int>(2), rows = std::vector<int>(2);
  RowBuffers<double> w{};
  // at the iterate: row 0 inactive (value -0.5), row 1 active (value 0.25)
  const double scratch[2] = {-0.5, 0.25};

  void SetUp() override {
    pr.add_min_distance(1, {0, 0, 0}, 4, {0, 0, 0}, 0.1, {1.0, false});
    pr.add_min_distance(2, {0, 0, 0}, 4, {0, 0, 0}, 0.1, {1.0, false});
    pv = pr.view();
    ASSERT_EQ(lm_latent_rows(pv.objectives, pv.objective_count), 2);
    w.J = J.data();
    w.r = r.data();
    w.latent = latent.data();
    ASSERT_EQ(lm_classify_rows(pv, row_col.data(), rows.data()), 2);
    w.row_col = row_col.data();
  }
};

// lm_join_activated takes back the set-aside rows whose linear model a step makes positive, and
// lm_joined_correction turns the model decrease of a joined row (v + j dq)^2 into max(0, .)^2.
TEST_F(LatentRows, JoinWhenTheStepMakesThemActive) {
  lm_set_aside(pv, scratch, w);
  EXPECT_EQ(J, (std::vector<double>{0.0, 0.0, 0.0, 3.0, 0.0, 1.0}));
  EXPECT_EQ(row_col, (std::vector<int>{kRowAside, kRowGeneral}));  // the dense build skips row 0
  // a step that keeps row 0 inactive: -0.5 + 0.1 + 0.2 < 0
  const double short_step[3] = {0.1, 0.1, 0.0};
  EXPECT_EQ(lm_join_activated(pv, short_step, w), 0);
  EXPECT_EQ(lm_joined_correction(pv, short_step, w), 0.0);
  // one that activates it: -0.5 + 0.3 + 0.6 = 0.4; it joins, its row back in J
  const double long_step[3] = {0.3, 0.3, 5.0};
  EXPECT_EQ(lm_join_activated(pv, long_step, w), 1);
  EXPECT_EQ(J, (std::vector<double>{1.0, 2.0, 0.0, 3.0, 0.0, 1.0}));
  EXPECT_EQ(row_col, (std::vector<int>{kRowGeneral, kRowGeneral}));
  EXPECT_EQ(lm_join_activated(pv, long_step, w), 0);  // joined once
  // the model took 0.4^2 / 2 from 0.5^2 / 2; the row's true model goes from 0 to 0.4^2 / 2
  EXPECT_DOUBLE_EQ(lm_joined_correction(pv, long_step, w), -0.125);
  // for a step after which the joined row is inactive again (-0.5 + 0.1 = -0.4), its model
  // went from 0.5^2 / 2 to 0.4^2 / 2, and truly from 0 to 0
  const double back_step[3] = {0.1, 0.0, 0.0};
  EXPECT_DOUBLE_EQ(lm_joined_correction(pv, back_step, w), -0.125 + 0.08);
  // a rejected step's joined rows leave J again
  lm_set_joined_aside(pv, w);
  EXPECT_EQ(J, (std::vector<double>{0.0, 0.0, 0.0, 3.0, 0.0, 1.0}));
  EXPECT_EQ(row_col, (std::vector<int>{kRowAside, kRowGeneral}));
  // without a buffer the inactive rows still leave J
  w.latent = nullptr;
  J = {1.0, 2.0, 0.0, 3.0, 0.0, 1.0};
  lm_set_aside(pv, scratch, w);
  EXPECT_EQ(J, (std::vector<double>{0.0, 0.0, 0.0, 3.0, 0.0, 1.0}));
  EXPECT_EQ(lm_join_activated(pv, long_step, w), 0);
}

// lm_posture_reach: the share of the posture's step p that keeps every set-aside row's linear model
// at or below zero along dq + a p; rows that dq alone makes active are the step's own join.
TEST_F(LatentRows, PostureStepsReachTheEdgeOfARowSetAside) {
  lm_set_aside(pv, scratch, w);          // row 0 set aside, row 1 active
  const double dq[3] = {0.1, 0.1, 0.0};  // row 0's model: -0.5 + 0.3 = -0.2
  const double none[3] = {0.0, 0.0, 0.0}, within[3] = {0.2, 0.0, 0.0}, beyond[3] = {0.3, 0.0, 0.0};
  EXPECT_EQ(lm_posture_reach(pv, dq, none, w), 1.0);
  EXPECT_EQ(lm_posture_reach(pv, dq, within, w), 1.0);               // -0.2 + 0.2 = 0: not active
  EXPECT_DOUBLE_EQ(lm_posture_reach(pv, dq, beyond, w), 2.0 / 3.0);  // -0.2 + 0.3 a = 0
  // row 1 is active at the iterate: the posture's projection sees its Jacobian row already
  const double along_row1[3] = {0.0, 0.0, 100.0};
  EXPECT_EQ(lm_posture_reach(pv, dq, along_row1, w), 1.0);
  // a step that activates row 0 by itself: the step's join, not the posture's doing
  const double long_step[3] = {0.3, 0.3, 0.0};
  EXPECT_EQ(lm_posture_reach(pv, long_step, beyond, w), 1.0);
  // once joined, the row is in the step's model and the posture is projected against it
  ASSERT_EQ(lm_join_activated(pv, long_step, w), 1);
  EXPECT_EQ(lm_posture_reach(pv, dq, beyond, w), 1.0);
  // without a buffer nothing is set aside
  w.latent = nullptr;
  EXPECT_EQ(lm_posture_reach(pv, dq, beyond, w), 1.0);
}

static_assert(largest_finite<float>() == std::numeric_limits<float>::max());
static_assert(largest_finite<double>() == std::numeric_limits<double>::max());

// A step is judged by whether its cost is finite, however large. A slider halfway to a target
// 1e151 m away (damping 1 halves the Gauss-Newton step) still leaves a cost above 1e300.
TEST(LmLargeCosts, FiniteCostsAreAcceptedHoweverLarge) {
  ModelBuilder b;
  int base = b.add_body("base");
  int slider = b.add_body("slider", 1.0);
  b.add_joint({"base_joint", JointType::kFixed, -1, base});
  JointSpec x{"x", JointType::kPrismatic, base, slider, test::tf(0, 0, 0)};
  x.axis = {1, 0, 0};
  b.add_joint(x);
  auto model = std::make_shared<Model>(b.finalize());
  const double far = 1e151;
  IkProblem pr(model);
  int o = pr.add_position(slider);
  pr.set_target_position(o, 0, {far, 0, 0});
  RowRunner run(pr);
  LmConfig<double> cfg;
  cfg.lambda_init = 1.0;
  cfg.max_iterations = 50;
  RowStatus<double> st = run.run({0.0}, cfg);
  EXPECT_LT(st.eval.position_error, 1e-9 * far);
  EXPECT_NEAR(run.result[0], far, 1e-9 * far);
}

}  // namespace
}  // namespace ikwb
