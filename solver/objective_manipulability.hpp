// Row math of manipulability (issue 15), __host__ __device__, included by solver/objectives.hpp.
//
// Yoshikawa's measure of a link point p: w = sqrt(det(A)), A = J J^T, J the 3 x nv Jacobian of
// p's position (m per rad or m per m). w is the volume of the velocity ellipsoid and 0 at a
// singularity. The objective keeps w >= min_measure: one inequality row g = min_measure - w,
// plus three rows that always read -1 (inactive). They only lend the Jacobian pass its scratch:
// rows 0-2 first hold J, then adj(A) J / w column by column, and row 3 gathers dw.
//
// dw = tr(adj(A) dA) / (2 w) = sum_i (adj(A) c_i / w) . dc_i over the columns c_i of J. A column
// is a sum of contributions (mimic joints add to their source's dof), each an angular one
// a x (p - o) or a linear one a. Moving contribution k (angular velocity wk, point velocity
// uk(x)) changes contribution i by
//   wk x c_i                                   k nearer the root than i: i moves rigidly with k
//   a_i x (uk(p) - uk(o_i)) (angular i), 0     k in i's joint or beyond: only p (and, for a
//                                              linear dof of i's own joint, o_i) moves
// (ball, free and planar axes are fixed in the parent frame, visit_chain_columns). Where
// w < 1e-12 the direction is undefined and the Jacobian is zero.
#pragma once

#include "engine/core/row_kinematics.hpp"

namespace ikwb {

// symmetric 3 x 3 as xx, xy, xz, yy, yz, zz
template <class S>
struct Sym3 {
  S xx = S(0), xy = S(0), xz = S(0), yy = S(0), yz = S(0), zz = S(0);
  IKWB_HD void add_outer(const Vec3<S>& a, const Vec3<S>& b) {
    xx += a.x * b.x;
    xy += a.x * b.y;
    xz += a.x * b.z;
    yy += a.y * b.y;
    yz += a.y * b.z;
    zz += a.z * b.z;
  }
  IKWB_HD S det() const {
    return xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
  }
  // adjugate (symmetric) times v
  IKWB_HD Vec3<S> adj_apply(const Vec3<S>& v) const {
    S a = yy * zz - yz * yz, b = xz * yz - xy * zz, c = xy * yz - xz * yy;
    S d = xx * zz - xz * xz, e = xy * xz - xx * yz, f = xx * yy - xy * xy;
    return {a * v.x + b * v.y + c * v.z, b * v.x + d * v.y + e * v.z, c * v.x + e * v.y + f * v.z};
  }
};

// one column contribution, as visit_chain_columns reports it
template <class S>
struct ChainColumn {
  int step, dof;
  bool angular;
  Vec3<S> axis, anchor;
  S scale;
  IKWB_HD Vec3<S> velocity(const Vec3<S>& x) const {
    return angular ? cross(axis, x - anchor) : axis;
  }
};

// A = J J^T: sums every pair of contributions on the same dof (mimic joints share one)
template <class S>
struct OuterSum {
  Vec3<S> p;
  const ChainColumn<S>* outer = nullptr;
  Sym3<S>* a = nullptr;
  IKWB_HD void operator()(int step, int dof, bool angular, const Vec3<S>& axis,
                          const Vec3<S>& anchor, S scale) {
    if (dof != outer->dof) return;
    ChainColumn<S> c{step, dof, angular, axis, anchor, scale};
    a->add_outer(outer->scale * outer->velocity(p), scale * c.velocity(p));
  }
};

template <class T, class S>
struct OuterSumVisit {
  const ModelView<T>* m;
  const Transform<S>* body_q;
  int body;
  Vec3<S> p;
  Sym3<S> a;
  IKWB_HD void operator()(int step, int dof, bool angular, const Vec3<S>& axis,
                          const Vec3<S>& anchor, S scale) {
    ChainColumn<S> c{step, dof, angular, axis, anchor, scale};
    OuterSum<S> inner{p, &c, &a};
    visit_chain_columns(*m, body_q, body, inner);
  }
};

// the measure at p on `body`
template <class T, class S>
IKWB_HD S manipulability_measure(const ModelView<T>& m, const Transform<S>* body_q, int body,
                                 const Vec3<S>& p) {
  OuterSumVisit<T, S> v{&m, body_q, body, p, Sym3<S>()};
  visit_chain_columns(m, body_q, body, v);
  S d = v.a.det();
  return d > S(0) ? sqrt(d) : S(0);
}

// dw gathered into row g: for contribution k (outer) over every contribution i (inner),
// g[dof_k] += scale_k scale_i (M column of dof_i) . dc_i / dk, M = rows 0-2 (ld apart)
template <class T>
struct MeasureGradient {
  Vec3<T> p;
  const ChainColumn<T>* k = nullptr;
  const T* M = nullptr;
  int ld = 0;
  T* g = nullptr;
  IKWB_HD void operator()(int step, int dof, bool angular, const Vec3<T>& axis,
                          const Vec3<T>& anchor, T scale) {
    ChainColumn<T> i{step, dof, angular, axis, anchor, scale};
    Vec3<T> dc;
    if (k->step > i.step) {
      Vec3<T> wk = k->angular ? k->axis : zero3<T>();
      dc = cross(wk, i.velocity(p));
    } else if (angular) {
      Vec3<T> u = k->velocity(p);
      if (k->step == i.step && !k->angular) u = u - k->axis;
      dc = cross(axis, u);
    } else {
      return;
    }
    Vec3<T> mcol{M[dof], M[ld + dof], M[2 * ld + dof]};
    g[k->dof] += k->scale * scale * dot(mcol, dc);
  }
};

template <class T>
struct MeasureGradientVisit {
  const ModelView<T>* m;
  const Transform<T>* body_q;
  int body;
  Vec3<T> p;
  const T* M;
  int ld;
  T* g;
  IKWB_HD void operator()(int step, int dof, bool angular, const Vec3<T>& axis,
                          const Vec3<T>& anchor, T scale) {
    ChainColumn<T> k{step, dof, angular, axis, anchor, scale};
    MeasureGradient<T> inner{p, &k, M, ld, g};
    visit_chain_columns(*m, body_q, body, inner);
  }
};

// Jacobian rows (4 x nv, zeroed by the caller, ld apart) of the rows in the header comment.
// acc: a ColumnAccumulator (solver/objectives.hpp) with ld set; its lin rows are used.
template <class T, class Acc>
IKWB_HD void manipulability_jacobian(const ModelView<T>& m, const Transform<T>* body_q, int body,
                                     const Vec3<T>& p, T* J, Acc& acc) {
  const int nv = m.dof_count, ld = acc.ld;
  acc.x = p;
  acc.lin = J;
  visit_body_columns(m, body_q, body, acc);
  Sym3<T> a;
  for (int c = 0; c < nv; ++c) {
    Vec3<T> col{J[c], J[ld + c], J[2 * ld + c]};
    a.add_outer(col, col);
  }
  T d = a.det();
  T w = d > T(0) ? sqrt(d) : T(0);
  if (w < T(1e-12)) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < nv; ++c) J[r * ld + c] = T(0);
    return;
  }
  for (int c = 0; c < nv; ++c) {
    Vec3<T> mc = (T(1) / w) * a.adj_apply(Vec3<T>{J[c], J[ld + c], J[2 * ld + c]});
    for (int r = 0; r < 3; ++r) J[r * ld + c] = mc[r];
  }
  MeasureGradientVisit<T> v{&m, body_q, body, p, J, ld, J + 3 * ld};
  visit_chain_columns(m, body_q, body, v);
  // g = min_measure - w
  for (int c = 0; c < nv; ++c) {
    J[c] = -J[3 * ld + c];
    J[ld + c] = J[2 * ld + c] = J[3 * ld + c] = T(0);
  }
}

}  // namespace ikwb
