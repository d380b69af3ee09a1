// The structured LM step (solver/lm_step.hpp): the dense step's normal matrix is the plain
// J^T J bit for bit; the row-space step solves the same system as a reference dense solve to a
// stated tolerance, on random problems of the every-joint-type model with frozen and clamped
// dofs and Marquardt scaling; whole solves agree step for step; a long chain solves in row
// space, converges, and its time budget stops a solve inside its iterations.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/test_models.hpp"
#include "solver/backend_common.hpp"
#include "solver/lm_row.hpp"
#include "solver/lm_step.hpp"
#include "solver/problem.hpp"
#include "solver/solver.hpp"
#include "solver/solver_test_util.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

// a chain of n revolute joints (z, y, z, ...) with links of reach / (n + 1) along x, limits
// +-1.5 rad, and a tip body
Model long_chain(int n, double reach = 2.0) {
  ModelBuilder b;
  b.model().name = "chain";
  const double link = reach / (n + 1);
  int parent = b.add_body("base");
  b.add_joint({"base_fixed", JointType::kFixed, -1, parent});
  for (int i = 0; i < n; ++i) {
    int child = b.add_body("link" + std::to_string(i + 1), 0.1, {link / 2, 0, 0});
    JointSpec j{"j" + std::to_string(i + 1), JointType::kRevolute, parent, child,
                test::tf(i == 0 ? 0.0 : link, 0, 0)};
    j.axis = i % 2 == 0 ? Vec3<double>{0, 0, 1} : Vec3<double>{0, 1, 0};
    j.lower = -1.5, j.upper = 1.5;
    b.add_joint(j);
    parent = child;
  }
  int tip = b.add_body("tip", 0.01);
  b.add_joint({"tip_fixed", JointType::kFixed, parent, tip, test::tf(link, 0, 0)});
  return b.finalize();
}

// One row's weighted rows and Jacobian at q, and the buffers of both steps.
struct StepFixture {
  const IkProblem& pr;
  ProblemView<double> pv;
  int nv, nr, m;
  std::vector<double> q, r, scratch, J, al;
  std::vector<Transform<double>> body;
  std::vector<int> row_col, rows, cols;

  StepFixture(const IkProblem& p, const std::vector<double>& q0) : pr(p), pv(p.view()), q(q0) {
    nv = pv.model.dof_count, nr = pv.residual_count;
    r.assign(nr, 0.0), scratch.assign(nr, 0.0), al.assign(nr, 0.0);
    J.assign(std::size_t(nr) * nv, 0.0);
    body.assign(pv.model.body_count, transform_identity<double>());
    row_col.assign(nr, 0), rows.assign(nr, 0), cols.assign(nv, 0);
    m = lm_classify_rows(pv, row_col.data(), rows.data());
    builtin_residual(pv, 0, al.data(), 100.0, q.data(), body.data(), r.data());
    builtin_jacobian(pv, 0, al.data(), 100.0, q.data(), body.data(), scratch.data(), J.data());
  }

  // a system of the given kind over freshly sized buffers
  struct Buffers {
    std::vector<double> A, L, g, diag;
  };
  LmSystem<double> system(LmStep kind, Buffers& b, const uint8_t* dof_free) {
    b.A.assign(std::size_t(nv) * nv, 0.0);
    b.L.assign(std::size_t(std::max(nv * nv, m * (m + 1))), 0.0);
    b.g.assign(nv, 0.0);
    b.diag.assign(3 * nv, 0.0);
    LmSystem<double> s;
    s.kind = kind;
    s.nv = nv, s.nr = nr, s.m = m;
    s.J = J.data();
    s.dof_free = dof_free;
    s.A = b.A.data(), s.L = b.L.data(), s.g = b.g.data(), s.diag = b.diag.data();
    s.row_col = row_col.data(), s.rows = rows.data(), s.cols = cols.data();
    return s;
  }
};

// every objective kind that fills rows: tasks on several links, a relative pair, the centre of
// mass, a posture (ball and free rotation rows are 3 x 3 blocks) and the joint limits
IkProblem zoo_problem(std::shared_ptr<const Model> model, const std::vector<double>& q,
                      std::mt19937& rng) {
  IkProblem pr(model, 1);
  auto poses = test::body_poses(*model, q);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  auto moved = [&](const Transform<double>& x) {
    return Transform<double>{x.p + Vec3<double>{u(rng), u(rng), u(rng)},
                             quat_exp(Vec3<double>{u(rng), u(rng), u(rng)}) * x.q};
  };
  int c = model->find_body("c"), g = model->find_body("g"), h = model->find_body("h");
  int o = pr.add_pose(c, {0.05, 0.0, 0.1});
  pr.set_target_pose(o, 0, moved(poses[c]));
  o = pr.add_position(g, {0.0, 0.1, 0.0});
  pr.set_target_position(o, 0, moved(poses[g]).p);
  pr.add_relative_ball(c, {0, 0, 0}, h, {0, 0, 0}, ObjectiveOptions{0.5});
  Objective com;
  com.params.type = ObjectiveType::kCom;
  o = pr.add_objective(com);
  pr.set_target_position(o, 0, test::body_poses(*model, q)[0].p);
  std::vector<double> rest = test::random_configuration(*model, rng);
  pr.add_posture(rest, PostureOptions{0.3});
  pr.add_joint_limits(ObjectiveOptions{2.0});
  return pr;
}

// the reference: (J^T J + lambda D) x = b with dofs of `out` (and frozen ones) handled as the
// dense step's matrix does, solved by Eigen
// J^T J with frozen dofs' rows and columns the identity's
Eigen::MatrixXd reference_normal(const StepFixture& f, const uint8_t* dof_free) {
  const int nv = f.nv;
  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> J(
      f.J.data(), f.nr, nv);
  Eigen::MatrixXd A = J.transpose() * J;
  for (int a = 0; a < nv; ++a)
    if (dof_free && !dof_free[a]) {
      A.row(a).setZero(), A.col(a).setZero();
      A(a, a) = 1.0;
    }
  return A;
}

Eigen::VectorXd reference_solve(const StepFixture& f, double lambda, bool marquardt,
                                const uint8_t* dof_free, const std::vector<double>& out,
                                const Eigen::VectorXd& b) {
  const int nv = f.nv;
  const Eigen::MatrixXd A = reference_normal(f, dof_free);
  Eigen::MatrixXd M = A;
  for (int a = 0; a < nv; ++a) M(a, a) += lambda * (marquardt ? std::max(A(a, a), 1e-9) : 1.0);
  for (int a = 0; a < nv; ++a)
    if (out[a] > 0) {
      M.row(a).setZero(), M.col(a).setZero();
      M(a, a) = 1.0;
    }
  return M.ldlt().solve(b);
}

TEST(LmStep, ClassifiesPostureAndLimitRowsAsDiagonal) {
  auto model = std::make_shared<const Model>(test::all_joint_types());
  std::mt19937 rng(3);
  std::vector<double> q = test::random_configuration(*model, rng);
  IkProblem pr = zoo_problem(model, q, rng);
  StepFixture f(pr, q);
  // pose 6 + position 3 + relative ball 3 + com 3 + the posture's ball and free rotations 3 + 3
  EXPECT_EQ(f.m, 21);
  int diagonal = 0;
  for (int k = 0; k < f.nr; ++k) diagonal += f.row_col[k] >= 0;
  EXPECT_EQ(diagonal, f.nr - f.m);
  // every diagonal row has its one non-zero where it says
  for (int k = 0; k < f.nr; ++k) {
    if (f.row_col[k] < 0) continue;
    for (int a = 0; a < f.nv; ++a) {
      if (a != f.row_col[k]) {
        EXPECT_EQ(f.J[k * f.nv + a], 0.0) << "row " << k << " col " << a;
      }
    }
  }
}

// lm_build's dense A (its lower triangle, the one it forms) and g against the plain products,
// element for element, over the rows not set aside (kRowAside)
void expect_plain_normal_matrix(StepFixture& f, const std::string& what) {
  StepFixture::Buffers b;
  LmSystem<double> s = f.system(LmStep::kDense, b, nullptr);
  lm_build(s, f.r.data());
  auto in = [&](int k) { return f.row_col[k] != kRowAside; };
  for (int a = 0; a < f.nv; ++a) {
    double ga = 0;
    for (int k = 0; k < f.nr; ++k) ga += in(k) ? f.J[k * f.nv + a] * f.r[k] : 0.0;
    EXPECT_EQ(b.g[a], ga) << what << ": g " << a;
    for (int c = 0; c <= a; ++c) {
      double t = 0;
      for (int k = 0; k < f.nr; ++k) t += in(k) ? f.J[k * f.nv + a] * f.J[k * f.nv + c] : 0.0;
      EXPECT_EQ(b.A[a * f.nv + c], t) << what << ": A " << a << "," << c;
    }
  }
}

TEST(LmStep, DenseNormalMatrixIsThePlainProductBitForBit) {
  auto model = std::make_shared<const Model>(test::all_joint_types());
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> q = test::random_configuration(*model, rng);
    IkProblem pr = zoo_problem(model, q, rng);
    StepFixture f(pr, q);
    expect_plain_normal_matrix(f, "zoo " + std::to_string(trial));
    // general rows set aside (their rows left in J here) stay out of A and g: the first, one in
    // the middle of a block of four, and the last
    for (int i : {0, 5, f.m - 1}) f.row_col[f.rows[i]] = kRowAside;
    expect_plain_normal_matrix(f, "zoo " + std::to_string(trial) + ", rows set aside");
  }
  // the arm sizes (6 to 8 dofs) take their own unrolled path: a pose target, a posture and the
  // limits (general and diagonal rows)
  for (int n : {6, 7, 8}) {
    auto chain = std::make_shared<const Model>(long_chain(n, 1.0));
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<double> q = test::random_configuration(*chain, rng);
      IkProblem pr(chain, 1);
      const int tip = chain->find_body("tip");
      const int o = pr.add_pose(tip, {0.02, 0.0, 0.0});
      pr.set_target_pose(o, 0, {{0.3, 0.4, 0.2}, quat_exp(Vec3<double>{0.3, -0.2, 0.5})});
      pr.add_posture(test::random_configuration(*chain, rng), PostureOptions{0.3});
      pr.add_joint_limits(ObjectiveOptions{2.0});
      StepFixture f(pr, q);
      ASSERT_EQ(f.nv, n);
      expect_plain_normal_matrix(f, std::to_string(n) + " dofs, trial " + std::to_string(trial));
      f.row_col[f.rows[2]] = kRowAside;
      expect_plain_normal_matrix(f, std::to_string(n) + " dofs, a row set aside");
    }
  }
}

// Both steps against the reference, to 1e-9 relative (the systems are well conditioned: the
// damping is at least 1e-3): with and without Marquardt scaling, frozen dofs and a clamped set;
// both take a fixed dof's column of A out of the others' right-hand side alike (lm_take_fixed)
TEST(LmStep, RowSpaceAndDenseStepsSolveTheSameSystem) {
  auto model = std::make_shared<const Model>(test::all_joint_types());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const double tol = 1e-9;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<double> q = test::random_configuration(*model, rng);
    IkProblem pr = zoo_problem(model, q, rng);
    StepFixture f(pr, q);
    const int nv = f.nv;
    const double lambda = std::pow(10.0, -3.0 + 4.0 * u01(rng));
    const bool marquardt = trial % 2 == 1;
    std::vector<uint8_t> free_mask(nv, 1);
    std::vector<double> out(nv, 0.0);
    for (int a = 0; a < nv; ++a) {
      if (trial % 3 == 1 && u01(rng) < 0.2) free_mask[a] = 0;
      if (trial % 4 >= 2 && u01(rng) < 0.2) out[a] = 1.0;
    }
    const uint8_t* dof_free = trial % 3 == 1 ? free_mask.data() : nullptr;
    const double* exclude = trial % 4 >= 2 ? out.data() : nullptr;
    Eigen::VectorXd rhs(nv);
    for (int a = 0; a < nv; ++a) rhs[a] = u01(rng) - 0.5;

    // a posture step v: the right-hand side off the frozen and excluded dofs
    Eigen::VectorXd v = rhs;
    for (int a = 0; a < nv; ++a)
      if ((dof_free && !dof_free[a]) || (exclude && exclude[a] > 0)) v[a] = 0.0;
    std::vector<double> x[2], null[2], pred(2), fixed[2];
    // a dof's step fixed (a limit stop): the others' right-hand side loses its column of A. It
    // is one of the excluded dofs where there are (lm_limit_rhs), never a frozen one
    // (lm_mark_limits skips them)
    auto fixable = [&](int a) { return !(dof_free && !dof_free[a]); };
    int c = -1;
    for (int a = 0; a < nv && c < 0; ++a)
      if (fixable(a) && exclude && exclude[a] > 0) c = a;
    for (int a = 0; a < nv && c < 0; ++a)
      if (fixable(a)) c = a;
    ASSERT_GE(c, 0);
    const double delta = 0.3;
    const LmStep kinds[2] = {LmStep::kDense, LmStep::kRowSpace};
    StepFixture::Buffers bufs[2];
    for (int i = 0; i < 2; ++i) {
      LmSystem<double> s = f.system(kinds[i], bufs[i], dof_free);
      lm_build(s, f.r.data());
      ASSERT_TRUE(lm_factor(s, lambda, marquardt, exclude)) << "trial " << trial;
      x[i].assign(rhs.data(), rhs.data() + nv);
      for (int a = 0; a < nv; ++a)
        if (exclude && exclude[a] > 0) x[i][a] = 0.0;  // as the clamped step's right-hand side
      lm_solve(s, x[i].data());
      // a pass of the null-space projection: (A + lambda D)^-1 (lambda D v)
      null[i].assign(nv, 0.0);
      for (int a = 0; a < nv; ++a) null[i][a] = lm_dof_damping(s, lambda, marquardt, a) * v[a];
      lm_solve(s, null[i].data());
      pred[i] = lm_model_decrease(s, rhs.data());
      fixed[i].assign(rhs.data(), rhs.data() + nv);
      lm_take_fixed(s, c, delta, fixed[i].data());
    }
    const Eigen::MatrixXd A = reference_normal(f, dof_free);
    for (int i = 0; i < 2; ++i)
      for (int a = 0; a < nv; ++a)
        if (a != c && fixable(a) && !(exclude && exclude[a] > 0)) {
          EXPECT_NEAR(fixed[i][a], rhs[a] - A(a, c) * delta, tol * (1.0 + A.cwiseAbs().maxCoeff()))
              << "trial " << trial << (i ? " row space" : " dense") << " dof " << a;
        }
    // g: the dense step's sums and the row-space step's agree to rounding
    test::expect_matrix_near(bufs[1].g, bufs[0].g, nv, tol, "g");
    Eigen::VectorXd b = rhs;
    for (int a = 0; a < nv; ++a)
      if (exclude && exclude[a] > 0) b[a] = 0.0;
    Eigen::VectorXd ref = reference_solve(f, lambda, marquardt, dof_free, out, b);
    std::vector<double> want(ref.data(), ref.data() + nv);
    const double scale = ref.lpNorm<Eigen::Infinity>();
    for (int i = 0; i < 2; ++i)
      for (int a = 0; a < nv; ++a)
        EXPECT_NEAR(x[i][a], want[a], tol * (1.0 + scale))
            << "trial " << trial << (i ? " row space" : " dense") << " dof " << a;
    // it is v - M^-1 A v, M the damped matrix of the included dofs
    Eigen::VectorXd Av = reference_normal(f, dof_free) * v;
    for (int a = 0; a < nv; ++a)
      if (out[a] > 0) Av[a] = 0.0;
    Eigen::VectorXd proj = v - reference_solve(f, lambda, marquardt, dof_free, out, Av);
    const double proj_scale = proj.lpNorm<Eigen::Infinity>();
    for (int i = 0; i < 2; ++i)
      for (int a = 0; a < nv; ++a)
        EXPECT_NEAR(null[i][a], proj[a], tol * (1.0 + proj_scale))
            << "trial " << trial << (i ? " row space" : " dense") << " dof " << a;
    EXPECT_NEAR(pred[1], pred[0], tol * (1.0 + std::fabs(pred[0])));
  }
}

// General rows filling scattered columns (lm_add_rows skips the columns a block leaves empty),
// in blocks of 1 to 4 rows, beyond the sizes with a fixed-size build: A's lower triangle and g
// are the plain products bit for bit, and the columns no row fills stay zero.
TEST(LmStep, ScatteredRowsNormalMatrixIsThePlainProduct) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const int nv = 41;
  for (int trial = 0; trial < 24; ++trial) {
    const int nr = 1 + trial % 12;
    std::bernoulli_distribution fill(trial < 12 ? 0.25 : 0.6);
    std::vector<double> J(std::size_t(nr) * nv, 0.0), r(nr);
    for (int k = 0; k < nr; ++k) {
      r[k] = value(rng);
      for (int a = 0; a < nv; ++a)
        if (a % 7 != 3 && fill(rng)) J[k * nv + a] = value(rng);  // column 3 + 7i: never filled
    }
    std::vector<int> row_col(nr, kRowGeneral), rows(nr), cols(lm_cols_capacity(nv));
    for (int k = 0; k < nr; ++k) rows[k] = k;
    std::vector<double> A(nv * nv, 7.0), L(nv * nv), g(nv), diag(3 * nv);
    LmSystem<double> s;
    s.kind = LmStep::kDense;
    s.nv = nv, s.nr = nr, s.m = nr;
    s.J = J.data();
    s.A = A.data(), s.L = L.data(), s.g = g.data(), s.diag = diag.data();
    s.row_col = row_col.data(), s.rows = rows.data(), s.cols = cols.data();
    lm_build(s, r.data());
    for (int a = 0; a < nv; ++a) {
      double ga = 0;
      for (int k = 0; k < nr; ++k) ga += J[k * nv + a] * r[k];
      EXPECT_EQ(g[a], ga) << "trial " << trial << " g " << a;
      for (int c = 0; c <= a; ++c) {
        double t = 0;
        for (int k = 0; k < nr; ++k) t += J[k * nv + a] * J[k * nv + c];
        EXPECT_EQ(A[a * nv + c], t) << "trial " << trial << " A " << a << "," << c;
      }
    }
  }
}

// The GPU solves in float: there the two steps agree to 1e-4 of the step's size.
TEST(LmStep, FloatStepsAgree) {
  auto model = std::make_shared<const Model>(test::all_joint_types());
  std::mt19937 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> qd = test::random_configuration(*model, rng);
    IkProblem pr = zoo_problem(model, qd, rng);
    TypedProblem<float> tp(pr);
    const ProblemView<float>& pv = tp.view;
    const int nv = pv.model.dof_count, nr = pv.residual_count;
    std::vector<float> q(qd.begin(), qd.end()), r(nr), scratch(nr), J(std::size_t(nr) * nv),
        al(nr, 0.0f);
    std::vector<Transform<float>> body(pv.model.body_count, transform_identity<float>());
    builtin_residual(pv, 0, al.data(), 100.0f, q.data(), body.data(), r.data());
    builtin_jacobian(pv, 0, al.data(), 100.0f, q.data(), body.data(), scratch.data(), J.data());
    std::vector<int> row_col(nr), rows(nr), cols(nv);
    const int m = lm_classify_rows(pv, row_col.data(), rows.data());
    std::vector<float> x[2];
    for (int i = 0; i < 2; ++i) {
      std::vector<float> A(nv * nv), L(std::max(nv * nv, m * (m + 1))), g(nv), diag(3 * nv);
      LmSystem<float> s;
      s.kind = i ? LmStep::kRowSpace : LmStep::kDense;
      s.nv = nv, s.nr = nr, s.m = m;
      s.J = J.data();
      s.A = A.data(), s.L = L.data(), s.g = g.data(), s.diag = diag.data();
      s.row_col = row_col.data(), s.rows = rows.data(), s.cols = cols.data();
      lm_build(s, r.data());
      ASSERT_TRUE(lm_factor(s, 1e-2f, trial % 2 == 1, (const float*)nullptr));
      x[i] = g;
      for (float& v : x[i]) v = -v;
      lm_solve(s, x[i].data());
    }
    float scale = 0;
    for (float v : x[0]) scale = std::max(scale, std::fabs(v));
    for (int a = 0; a < nv; ++a)
      EXPECT_NEAR(x[1][a], x[0][a], 1e-4f * (1.0f + scale)) << "trial " << trial << " dof " << a;
  }
}

// Runs lm_solve_row with the given step on problem p of pr from q0.
struct Solve {
  RowStatus<double> st;
  std::vector<double> q;
};
Solve solve_row(const IkProblem& pr, int p, const std::vector<double>& q0, LmConfig<double> cfg,
                uint64_t deadline_ns = ~uint64_t(0)) {
  const Model& m = pr.model();
  const int nq = m.coord_count, nv = m.dof_count, nr = pr.residual_count();
  std::vector<double> q = q0, qt(nq), r(nr), rt(nr), J(std::size_t(nr) * nv), A(nv * nv),
                      L(std::max(nv * nv, nr * (nr + 1))), g(nv), dq(nv), tmp(nv), al(nr),
                      diag(3 * nv);
  std::vector<int> row_col(nr), rows(nr), cols(nv);
  std::vector<Transform<double>> bq(m.body_count, transform_identity<double>()), bqt = bq;
  ProblemView<double> pv = pr.view();
  std::vector<double> latent(
      lm_latent_capacity(lm_latent_rows(pv.objectives, pv.objective_count), nv) + 1);
  RowBuffers<double> b{q.data(),      qt.data(),   bq.data(),      bqt.data(),  r.data(),
                       rt.data(),     J.data(),    A.data(),       L.data(),    g.data(),
                       dq.data(),     tmp.data(),  al.data(),      nullptr,     nullptr,
                       0.0,           diag.data(), row_col.data(), rows.data(), cols.data(),
                       latent.data(), nullptr,     nullptr,        deadline_ns};
  AnalyticEvaluator<double> ev;
  ev.pv = pv;
  ev.problem = p;
  Solve s;
  lm_solve_row(ev, pv, cfg, b, s.st);
  s.q.assign(b.q, b.q + nq);
  return s;
}

// The same LM iteration with either step on the Panda (8 dofs, a 6-row pose): both converge;
// a solve of up to 30 iterations takes as many with either and ends at the same configuration
// (longer ones crawl along limits of a redundant arm, where rounding may pick another solution).
TEST(LmStep, WholeSolvesAgreeWithEitherStep) {
  auto model = std::make_shared<const Model>(test::panda());
  const int tcp = model->find_body("panda_hand_tcp");
  auto targets = test::reachable_poses(*model, tcp, 20, 11);
  IkProblem pr(model, int(targets.size()));
  int o = pr.add_pose(tcp);
  pr.set_target_poses(o, targets);
  pr.add_joint_limits(ObjectiveOptions{0.1});
  LmConfig<double> cfg;
  cfg.tol_position = 1e-6, cfg.tol_rotation = 1e-6;
  cfg.polish_iterations = 1;
  int both = 0, short_solves = 0;
  for (int p = 0; p < pr.problem_count(); ++p) {
    cfg.step = LmStep::kDense;
    Solve d = solve_row(pr, p, model->middle_configuration(), cfg);
    cfg.step = LmStep::kRowSpace;
    Solve rs = solve_row(pr, p, model->middle_configuration(), cfg);
    EXPECT_EQ(d.st.converged, rs.st.converged) << "problem " << p;
    if (!d.st.converged || !rs.st.converged) continue;
    ++both;
    if (d.st.iterations > 30) continue;
    ++short_solves;
    EXPECT_EQ(d.st.iterations, rs.st.iterations) << "problem " << p;
    EXPECT_LT(test::max_abs_diff(d.q, rs.q), 1e-6) << "problem " << p;
  }
  EXPECT_GE(both, 14);  // one attempt, no restarts: 16 of the 20 converge
  EXPECT_GE(short_solves, 12);
}

// Two Panda arms on a torso that floats (a free joint): 6 + 14 dofs, two branches on one base.
Model floating_two_pandas() {
  ModelBuilder b;
  b.model().name = "floating_two_pandas";
  int torso = b.add_body("torso", 10.0);
  b.add_joint({"torso_free", JointType::kFree, -1, torso});
  int left = b.add_body("left_link0");
  b.add_joint({"left_mount", JointType::kFixed, torso, left, test::tf(0, 0.3, 0)});
  test::add_panda_chain(b, left, "left_");
  int right = b.add_body("right_link0");
  b.add_joint({"right_mount", JointType::kFixed, torso, right, test::tf(0, -0.3, 0)});
  test::add_panda_chain(b, right, "right_");
  return b.finalize();
}

// On a tree (two arms on a floating torso), pose rows on both hands, a posture and the joint
// limits couple each dof only with its ancestors: the dense step takes the tree factor and
// solves the system as the reference does. A centre-of-mass row couples the two arms: the plain
// factor then, to the same answer.
TEST(LmStep, DenseStepTakesTheTreeFactorOnATree) {
  auto model = std::make_shared<const Model>(floating_two_pandas());
  const int nv = model->dof_count;
  ASSERT_EQ(nv, 20);
  std::vector<int> parent(nv), depth(nv);
  // the deepest dofs, the hands' last, have the base's six and six of their arm's above them
  ASSERT_EQ(lm_dof_parents(model->view(), parent.data(), depth.data()), 13);
  for (int d = 0; d < nv; ++d) {
    // the base's six dofs in a row, each arm's first dof on the base's last, then its chain
    const int want = d == 6 || d == 13 ? 5 : d - 1;
    EXPECT_EQ(parent[d], want) << "dof " << d;
    EXPECT_EQ(depth[d], d < 13 ? d : d - 7) << "dof " << d;
  }
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  const std::vector<double> q = test::random_configuration(*model, rng);
  const auto poses = test::body_poses(*model, q);
  for (bool com : {false, true}) {
    IkProblem pr(model, 1);
    for (const char* tcp : {"left_hand_tcp", "right_hand_tcp"}) {
      const int b = model->find_body(tcp);
      const int o = pr.add_pose(b);
      Transform<double> t = poses[b];
      t.p = t.p + Vec3<double>{0.05, -0.02, 0.03};
      pr.set_target_pose(o, 0, t);
    }
    pr.add_posture(test::random_configuration(*model, rng), PostureOptions{0.3});
    pr.add_joint_limits(ObjectiveOptions{2.0});
    if (com) {
      Objective c;
      c.params.type = ObjectiveType::kCom;
      const int o = pr.add_objective(c);
      pr.set_target_position(o, 0, poses[0].p + Vec3<double>{0.1, 0, 0});
    }
    StepFixture f(pr, q);
    StepFixture::Buffers buf;
    LmSystem<double> s = f.system(LmStep::kDense, buf, nullptr);
    std::vector<int> tree(2 * nv);
    s.dofs = {tree.data(), tree.data() + nv,
              lm_dof_parents(f.pv.model, tree.data(), tree.data() + nv)};
    lm_build(s, f.r.data());
    const double lambda = 1e-3;
    // none left out; a base dof and one of each arm's left out of the step (their rows and
    // columns the identity's), with Marquardt's damping
    std::vector<double> out(nv, 0.0);
    for (bool excluding : {false, true}) {
      const std::string what = std::string(com ? "com" : "tree") + (excluding ? ", out" : "");
      if (excluding) out[2] = out[9] = out[19] = 1.0;
      ASSERT_TRUE(lm_factor(s, lambda, excluding, excluding ? out.data() : nullptr)) << what;
      EXPECT_EQ(s.tree, !com) << what;
      Eigen::VectorXd rhs(nv);
      for (int a = 0; a < nv; ++a) rhs[a] = u(rng);
      std::vector<double> x(rhs.data(), rhs.data() + nv);
      std::vector<double> y(nv), x2 = x;
      for (int a = 0; a < nv; ++a) y[a] = u(rng);
      std::vector<double> y2 = y;
      lm_solve(s, x.data());
      lm_solve(s, y.data());
      // two right-hand sides in one solve (one walk with the tree factor): the same, bit for bit
      lm_solve_pair(s, x2.data(), y2.data());
      EXPECT_EQ(x2, x) << what;
      EXPECT_EQ(y2, y) << what;
      Eigen::VectorXd ref = reference_solve(f, lambda, excluding, nullptr, out, rhs);
      const double scale = ref.lpNorm<Eigen::Infinity>();
      for (int a = 0; a < nv; ++a)
        EXPECT_NEAR(x[a], ref[a], 1e-9 * (1.0 + scale)) << what << ", dof " << a;
    }
  }
}

TEST(LmStep, AutoPicksRowSpaceWhenGeneralRowsAreAtMostHalfTheDofs) {
  EXPECT_EQ(lm_resolve_step(LmStep::kAuto, 8, 6), LmStep::kDense);       // Panda pose
  EXPECT_EQ(lm_resolve_step(LmStep::kAuto, 12, 6), LmStep::kRowSpace);   // 12-joint chain pose
  EXPECT_EQ(lm_resolve_step(LmStep::kAuto, 34, 32), LmStep::kDense);     // humanoid preset
  EXPECT_EQ(lm_resolve_step(LmStep::kAuto, 300, 6), LmStep::kRowSpace);  // chain pose
  EXPECT_EQ(lm_resolve_step(LmStep::kRowSpace, 4, 6), LmStep::kDense);   // would not fit in L
  EXPECT_EQ(lm_resolve_step(LmStep::kDense, 300, 6), LmStep::kDense);
}

// A 2000-joint chain (the dense step would factor 2000 x 2000 matrices and allocate two of
// them a thread): every reachable pose target converges through the CPU backend.
TEST(LmStep, LongChainSolvesAndConverges) {
  auto model = std::make_shared<const Model>(long_chain(2000));
  const int tip = model->find_body("tip");
  std::mt19937 rng(13);
  std::vector<Transform<double>> targets;
  std::uniform_real_distribution<double> u(-0.45, 0.45);
  for (int i = 0; i < 3; ++i) {
    std::vector<double> q(model->coord_count);
    for (double& v : q) v = u(rng);
    targets.push_back(test::link_pose(*model, q, tip));
  }
  IkProblem pr(model, int(targets.size()));
  int o = pr.add_pose(tip);
  pr.set_target_poses(o, targets);
  SolverSettings s;
  s.max_iterations = 60;
  s.max_restarts = 5;
  s.stall_window = 10;
  s.threads = 1;
  auto solver = make_cpu_solver();
  SolveResult res;
  solver->solve(pr, s, model->middle_configuration(), res);
  for (int p = 0; p < pr.problem_count(); ++p) {
    EXPECT_TRUE(res.problems[p].converged) << "target " << p;
    EXPECT_LT(res.problems[p].position_error, 1e-4);
    EXPECT_LT(res.problems[p].rotation_error, 1e-3);
    test::expect_within_limits(*model, res.problems[p].q, 1e-12);
  }
}

// A deadline already passed stops an attempt inside its iterations (LM and the row driver's
// budget), where fixed iterations would otherwise run them all, once it has taken a step: a
// budget that one iteration outlasts still takes one (else the workbench's robot never moved),
// and an attempt whose steps are all rejected stops after kStepsBeforeTheClock iterations
TEST(LmStep, DeadlineStopsTheIterations) {
  auto model = std::make_shared<const Model>(long_chain(64));
  IkProblem pr(model, 1);
  int o = pr.add_position(model->find_body("tip"));
  pr.set_target_position(o, 0, {5.0, 0.0, 0.0});  // out of reach: never converges
  LmConfig<double> cfg;
  cfg.max_iterations = 1000;
  cfg.fixed_iterations = true;
  Solve free_run = solve_row(pr, 0, model->middle_configuration(), cfg);
  EXPECT_EQ(free_run.st.iterations, 1000);
  // stretched out toward it: no step lowers the error
  Solve stopped = solve_row(pr, 0, model->middle_configuration(), cfg, 0);
  EXPECT_EQ(stopped.st.iterations, kStepsBeforeTheClock);
  // within reach, the first step is taken and the deadline stops the attempt after it
  pr.set_target_position(o, 0, {1.0, 0.6, 0.2});
  stopped = solve_row(pr, 0, model->middle_configuration(), cfg, 0);
  EXPECT_EQ(stopped.st.iterations, 1);
}

}  // namespace
}  // namespace ikwb
