// Tests of the motion-subspace Jacobians: point_jacobian_world (fk.hpp) and visit_body_columns /
// point_jacobian (row_kinematics.hpp), against central finite differences of FK along
// q (+) t * e_k (integrate_row), for every joint type, mimics and far floating bases.
//
// Tolerances: central differences with h = 1e-6 have truncation error O(h^2 |x'''|) ~ 1e-10 and
// rounding error eps |x| / h ~ 1e-8 for points 50 m from the origin, so 1e-7. Products J qd
// against the twists of eval_fk are the same sums in another order: 1e-11 for values ~100.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/kinematics_checks.hpp"
#include "engine/core/fk.hpp"

namespace ikwb {
namespace {

using test::near3;
using test::random_configuration;

constexpr double kFd = 1e-7;
constexpr double kFdStep = 1e-6;
constexpr double kProduct = 1e-11;

Vec3<double> column(const std::vector<double>& jac, int row0, int ld, int c) {
  return {jac[(row0 + 0) * ld + c], jac[(row0 + 1) * ld + c], jac[(row0 + 2) * ld + c]};
}

TEST(Jacobian, PointJacobianMatchesFiniteDifferences) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (const auto& [name, m] : test::test_model_set()) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<double> q = random_configuration(m, rng);
      std::vector<Transform<double>> x = test::poses(m, q);
      for (int b = 0; b < m.body_count; ++b) {
        Vec3<double> offset{u(rng), u(rng), u(rng)};
        std::vector<double> jac = point_jacobian_world(m, x, b, offset);
        ASSERT_EQ(int(jac.size()), 6 * m.dof_count);
        for (int k = 0; k < m.dof_count; ++k) {
          std::vector<double> e(m.dof_count, 0.0);
          e[k] = 1.0;
          Spatial<double> fd = test::fd_point_twist(m, q, e, b, offset, kFdStep);
          EXPECT_TRUE(near3(column(jac, 0, m.dof_count, k), fd.lin, kFd))
              << name << " body " << m.body_name[b] << " dof " << k;
          EXPECT_TRUE(near3(column(jac, 3, m.dof_count, k), fd.ang, kFd))
              << name << " body " << m.body_name[b] << " dof " << k;
        }
      }
    }
  }
}

TEST(Jacobian, TimesVelocityEqualsBodyTwist) {
  std::mt19937 rng(42);
  for (const auto& [name, m] : test::test_model_set()) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<double> q = random_configuration(m, rng), qd = test::random_velocity(m, rng);
      State s(m);
      eval_fk(m, q, qd, s);
      for (int b = 0; b < m.body_count; ++b) {
        std::vector<double> jac = point_jacobian_world(m, s.body_q, b, m.body_com[b]);
        Vec3<double> v = zero3<double>(), w = zero3<double>();
        for (int k = 0; k < m.dof_count; ++k) {
          v += qd[k] * column(jac, 0, m.dof_count, k);
          w += qd[k] * column(jac, 3, m.dof_count, k);
        }
        EXPECT_TRUE(near3(v, s.body_qd[b].lin, kProduct)) << name << " " << m.body_name[b];
        EXPECT_TRUE(near3(w, s.body_qd[b].ang, kProduct)) << name << " " << m.body_name[b];
      }
    }
  }
}

struct Column {
  int dof;
  bool angular;
  Vec3<double> axis, anchor;
  double scale;
};

struct Recorder {
  std::vector<Column> cols;
  void operator()(int dof, bool angular, const Vec3<double>& axis, const Vec3<double>& anchor,
                  double scale) {
    cols.push_back({dof, angular, axis, anchor, scale});
  }
};

TEST(Jacobian, VisitBodyColumnsReportsMimicsWithTheirMultiplier) {
  Model m = test::mimic_chain();
  std::vector<double> q = {0.4, -0.6};
  std::vector<Transform<double>> x = test::poses(m, q);
  // l3 hangs below j0, j1 (mimic of j0) and j2 (prismatic mimic of j3): dof 0 twice, dof 1 once
  Recorder r;
  visit_body_columns(m.view(), x.data(), 2, r);
  ASSERT_EQ(r.cols.size(), 3u);
  EXPECT_EQ(r.cols[0].dof, 1);  // j2, nearest the body first
  EXPECT_FALSE(r.cols[0].angular);
  EXPECT_EQ(r.cols[0].scale, -0.5);
  EXPECT_EQ(r.cols[1].dof, 0);  // j1
  EXPECT_TRUE(r.cols[1].angular);
  EXPECT_EQ(r.cols[1].scale, 2.0);
  EXPECT_EQ(r.cols[2].dof, 0);  // j0
  EXPECT_EQ(r.cols[2].scale, 1.0);
  // j1's axis is the world z of its pitched parent frame, anchored at its child anchor
  EXPECT_TRUE(
      near3(r.cols[1].axis, rotate(x[0].q * m.joint_X_p[1].q, Vec3<double>{0, 0, 1}), 1e-15));
  EXPECT_TRUE(near3(r.cols[1].anchor, transform_point(x[1], m.joint_X_c[1].p), 1e-15));
  EXPECT_TRUE(near3(r.cols[2].anchor, {0, 0, 0.5}, 1e-15));
}

TEST(Jacobian, VisitBodyColumnsSkipsFixedJointsAndTheWorld) {
  Model m = test::planar_arm();
  std::vector<Transform<double>> x = test::poses(m, {0.1, 0.2, 0.3});
  Recorder r;
  visit_body_columns(m.view(), x.data(), m.find_body("tip"), r);
  ASSERT_EQ(r.cols.size(), 3u);
  EXPECT_EQ(r.cols[0].dof, 2);
  EXPECT_EQ(r.cols[2].dof, 0);
  Recorder none;
  visit_body_columns(m.view(), x.data(), m.find_body("base"), none);
  visit_body_columns(m.view(), x.data(), -1, none);
  EXPECT_TRUE(none.cols.empty());
}

TEST(Jacobian, FreeAndBallColumnsAreWorldAxesOfTheParentFrame) {
  // free root of the anchored model: linear columns are the rotated parent-frame axes, angular
  // columns turn about the child anchor
  Model m = test::anchored_free();
  std::mt19937 rng(43);
  std::vector<double> q = random_configuration(m, rng);
  std::vector<Transform<double>> x = test::poses(m, q);
  Recorder r;
  visit_body_columns(m.view(), x.data(), 0, r);
  ASSERT_EQ(r.cols.size(), 6u);
  Vec3<double> anchor = transform_point(x[0], m.joint_X_c[0].p);
  for (int k = 0; k < 3; ++k) {
    Vec3<double> e = zero3<double>();
    e[k] = 1;
    Vec3<double> axis = rotate(m.joint_X_p[0].q, e);
    EXPECT_EQ(r.cols[2 * k].dof, k);
    EXPECT_FALSE(r.cols[2 * k].angular);
    EXPECT_TRUE(near3(r.cols[2 * k].axis, axis, 1e-15));
    EXPECT_EQ(r.cols[2 * k + 1].dof, 3 + k);
    EXPECT_TRUE(r.cols[2 * k + 1].angular);
    EXPECT_TRUE(near3(r.cols[2 * k + 1].anchor, anchor, 1e-12));
  }
}

// point_jacobian inlined here against point_jacobian_world (the same code compiled in fk.cpp):
// the compiler schedules the two copies differently and may round a product's last bit
// differently (seen: 1 ulp of a 0.06 entry); entries are at most a few units, so 1e-14
constexpr double kSameSum = 1e-14;

TEST(Jacobian, PointJacobianLeadingDimensionAndNullRows) {
  Model m = test::all_joint_types();
  std::mt19937 rng(44);
  std::vector<double> q = random_configuration(m, rng);
  std::vector<Transform<double>> x = test::poses(m, q);
  int body = m.find_body("g");
  Vec3<double> offset{0.1, -0.2, 0.05};
  std::vector<double> want = point_jacobian_world(m, x, body, offset);
  Vec3<double> p = transform_point(x[body], offset);
  const int ld = m.dof_count + 3;
  std::vector<double> lin(3 * ld, 7.0), ang(3 * ld, 7.0);
  point_jacobian(m.view(), x.data(), body, p, lin.data(), ang.data(), ld);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < ld; ++c) {
      if (c < m.dof_count) {
        EXPECT_NEAR(lin[r * ld + c], want[r * m.dof_count + c], kSameSum);
        EXPECT_NEAR(ang[r * ld + c], want[(3 + r) * m.dof_count + c], kSameSum);
      } else {
        EXPECT_EQ(lin[r * ld + c], 7.0);  // padding is not touched
        EXPECT_EQ(ang[r * ld + c], 7.0);
      }
    }
  }
  std::vector<double> lin_only(3 * m.dof_count, 1.0), ang_only(3 * m.dof_count, 1.0);
  point_jacobian(m.view(), x.data(), body, p, lin_only.data(), static_cast<double*>(nullptr),
                 m.dof_count);
  point_jacobian(m.view(), x.data(), body, p, static_cast<double*>(nullptr), ang_only.data(),
                 m.dof_count);
  for (int i = 0; i < 3 * m.dof_count; ++i) {
    EXPECT_NEAR(lin_only[i], want[i], kSameSum);
    EXPECT_NEAR(ang_only[i], want[3 * m.dof_count + i], kSameSum);
  }
}

TEST(Jacobian, FloatJacobianMatchesDouble) {
  // float: eps 6e-8 over a handful of products of values ~5, so 1e-5
  Model m = test::all_joint_types();
  ModelArrays<float> mf(m);
  std::mt19937 rng(45);
  std::vector<double> q = random_configuration(m, rng);
  std::vector<Transform<double>> x = test::poses(m, q);
  std::vector<Transform<float>> xf;
  for (const auto& t : x) xf.push_back(cast<float>(t));
  int body = m.find_body("g");
  std::vector<double> want = point_jacobian_world(m, x, body, zero3<double>());
  std::vector<float> lin(3 * m.dof_count), ang(3 * m.dof_count);
  point_jacobian(mf.view, xf.data(), body, xf[body].p, lin.data(), ang.data(), m.dof_count);
  for (int i = 0; i < 3 * m.dof_count; ++i) {
    EXPECT_NEAR(lin[i], want[i], 1e-5);
    EXPECT_NEAR(ang[i], want[3 * m.dof_count + i], 1e-5);
  }
}

TEST(Jacobian, ArgumentErrors) {
  Model m = test::planar_arm();
  std::vector<Transform<double>> x = test::poses(m, {0, 0, 0});
  EXPECT_THROW(point_jacobian_world(m, x, -1, zero3<double>()), ModelError);
  EXPECT_THROW(point_jacobian_world(m, x, m.body_count, zero3<double>()), ModelError);
  x.pop_back();
  try {
    point_jacobian_world(m, x, 0, zero3<double>());
    ADD_FAILURE() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("body_q"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ikwb
