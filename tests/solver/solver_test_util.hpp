// Helpers shared by the solver tests: FK of one configuration, raw objective rows and their
// Jacobians three ways (analytic, central finite differences, dual numbers), random dof steps.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/test_models.hpp"
#include "engine/core/fk.hpp"
#include "solver/dual.hpp"
#include "solver/objectives.hpp"
#include "solver/problem.hpp"

namespace ikwb::test {

inline std::vector<Transform<double>> body_poses(const Model& m, const std::vector<double>& q) {
  State s(m);
  eval_fk(m, q, {}, s);
  return s.body_q;
}

inline Transform<double> link_pose(const Model& m, const std::vector<double>& q, int link) {
  return body_poses(m, q)[link];
}

inline Vec3<double> link_point(const Model& m, const std::vector<double>& q, int link,
                               const Vec3<double>& offset) {
  return transform_point(link_pose(m, q, link), offset);
}

// rotation angle between two unit quaternions
inline double rotation_angle(const Quat<double>& a, const Quat<double>& b) {
  return length(quat_log(a * conjugate(b)));
}

// q (+) scale * dq
inline std::vector<double> integrate(const Model& m, const std::vector<double>& q,
                                     const std::vector<double>& dq, double scale = 1.0) {
  std::vector<double> out = q;
  integrate_row(m.view(), q.data(), dq.data(), scale, out.data());
  return out;
}

// a (-) b in dof space
inline std::vector<double> difference(const Model& m, const std::vector<double>& a,
                                      const std::vector<double>& b) {
  std::vector<double> out(m.dof_count, 0.0);
  difference_row(m.view(), a.data(), b.data(), out.data());
  return out;
}

inline double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

inline std::vector<double> random_dofs(const Model& m, std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> d(m.dof_count);
  for (double& x : d) x = u(rng);
  return d;
}

// every 1-dof joint with limits inside them, to the tolerance `tol`
inline void expect_within_limits(const Model& m, const std::vector<double>& q, double tol = 0) {
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    int d = m.joint_qd_start[j];
    double v = q[m.joint_q_start[j]];
    EXPECT_GE(v, m.dof_lower[d] - tol) << m.joint_name[j];
    EXPECT_LE(v, m.dof_upper[d] + tol) << m.joint_name[j];
  }
}

inline void expect_finite(const std::vector<double>& v) {
  for (double x : v) EXPECT_TRUE(std::isfinite(x));
}

// pose targets of `link` (point `offset`) at n random configurations within the limits
inline std::vector<Transform<double>> reachable_poses(const Model& m, int link, int n,
                                                      unsigned seed,
                                                      Vec3<double> offset = {0, 0, 0}) {
  std::mt19937 rng(seed);
  std::vector<Transform<double>> out;
  for (int i = 0; i < n; ++i) {
    Transform<double> x = link_pose(m, random_configuration(m, rng), link);
    out.push_back({transform_point(x, offset), x.q});
  }
  return out;
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// Raw rows of objective `oi` (problem `p`) at q.
inline std::vector<double> raw_rows(const ProblemView<double>& pv, int oi, int p,
                                    const std::vector<double>& q) {
  std::vector<Transform<double>> body(pv.model.body_count, transform_identity<double>());
  fk_row(pv.model, q.data(), body.data());
  std::vector<double> r(pv.objectives[oi].dim);
  objective_residual(pv, oi, p, q.data(), body.data(), r.data());
  return r;
}

// Analytic raw Jacobian (dim x nv, row-major).
inline std::vector<double> analytic_jacobian(const ProblemView<double>& pv, int oi, int p,
                                             const std::vector<double>& q) {
  const int nv = pv.model.dof_count;
  std::vector<Transform<double>> body(pv.model.body_count, transform_identity<double>());
  fk_row(pv.model, q.data(), body.data());
  std::vector<double> J(std::size_t(pv.objectives[oi].dim) * nv, 7.0);  // must be overwritten
  objective_jacobian(pv, oi, p, q.data(), body.data(), J.data(), nv);
  return J;
}

// Central finite differences along the dof convention: (r(q (+) h e_k) - r(q (-) h e_k)) / 2h.
inline std::vector<double> fd_jacobian(const ProblemView<double>& pv, int oi, int p,
                                       const std::vector<double>& q, double h) {
  const int nv = pv.model.dof_count, dim = pv.objectives[oi].dim;
  std::vector<double> J(std::size_t(dim) * nv), step(nv, 0.0), qp = q, qm = q;
  for (int k = 0; k < nv; ++k) {
    step.assign(nv, 0.0);
    step[k] = 1.0;
    integrate_row(pv.model, q.data(), step.data(), h, qp.data());
    integrate_row(pv.model, q.data(), step.data(), -h, qm.data());
    std::vector<double> rp = raw_rows(pv, oi, p, qp), rm = raw_rows(pv, oi, p, qm);
    for (int r = 0; r < dim; ++r) J[r * nv + k] = (rp[r] - rm[r]) / (2 * h);
  }
  return J;
}

// Forward-mode dual numbers: column k is d/dt r(q (+) t e_k) at t = 0.
inline std::vector<double> dual_jacobian(const ProblemView<double>& pv, int oi, int p,
                                         const std::vector<double>& q) {
  using D = Dual<double>;
  const int nv = pv.model.dof_count, nq = pv.model.coord_count, dim = pv.objectives[oi].dim;
  std::vector<double> J(std::size_t(dim) * nv);
  std::vector<D> dq(nq), out(nq), step(nv), r(dim);
  std::vector<Transform<D>> body(pv.model.body_count, transform_identity<D>());
  for (int k = 0; k < nv; ++k) {
    for (int i = 0; i < nq; ++i) dq[i] = D(q[i]);
    for (int i = 0; i < nv; ++i) step[i] = D(0.0, i == k ? 1.0 : 0.0);
    out = dq;
    integrate_row(pv.model, dq.data(), step.data(), D(1.0), out.data());
    fk_row(pv.model, out.data(), body.data());
    objective_residual(pv, oi, p, out.data(), body.data(), r.data());
    for (int i = 0; i < dim; ++i) J[i * nv + k] = r[i].d;
  }
  return J;
}

// |a - b| <= tol * (1 + |b|) element-wise, with a message naming the entry
inline void expect_matrix_near(const std::vector<double>& a, const std::vector<double>& b, int cols,
                               double tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], tol * (1.0 + std::fabs(b[i])))
        << what << " row " << i / cols << " col " << i % cols;
}

}  // namespace ikwb::test
