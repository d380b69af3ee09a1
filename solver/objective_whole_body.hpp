// Row math of the whole-body objective kinds (issue 15): the centre of mass (com) and an axis of
// a link pointing along a direction within a cone (look_at, axis_align). __host__ __device__,
// included by solver/objectives.hpp; both backends run it.
//
// com: c(q) = sum_i m_i X_i(q) com_i / sum_i m_i over every body of the model (a model with no
//   mass at all counts every body as 1 kg, so the rows still mean something). Residual
//   c(q) - target (3 rows, world axes, per-axis position weights: x and y only for balance).
//   Jacobian: the mass-weighted sum of the bodies' COM point Jacobians.
//
// look_at / axis_align: a = the link's axis in world (unit), d = the wanted direction (unit):
//   look_at: from the link point towards the target position; axis_align: a world direction.
//   theta = angle(d, a), n = unit(d x a). Residual: the rotation vector (theta - cone) n that
//   takes the cone's nearest direction to a (zero inside the cone; 3 rows counted as rotation
//   rows, so the error is the angle beyond the cone in rad). Unlike the plain cross product
//   d x a (|.| = sin theta) it does not vanish when a points away from d, and its Jacobian is
//   smooth for theta in (cone, pi); roll about the axis stays free (its column is zero).
//   Edge cases: theta near 0 with cone 0 uses r = d x a (= theta n to O(theta^3)); a exactly
//   opposite d (theta = pi, n undefined) picks n perpendicular to d and the one-sided
//   derivative of theta, so a solver starting there still turns away; a look_at target at the
//   link point (no direction) gives zero rows.
// A look_at may look at a point of another link (link_b, offset_b) instead of its world target:
//   d then moves with both chains (ConeColumns' target pass).
#pragma once

#include "engine/core/objective_kinds.hpp"
#include "engine/core/row_kinematics.hpp"

namespace ikwb {

// Each body's share of the centre of mass: its mass (negative masses count as none), or 1 for
// every body of a model with no mass at all (so that its rows still mean something).
template <class T>
struct ComWeights {
  T total = T(0);
  bool massless = false;
  const T* mass = nullptr;
  IKWB_HD explicit ComWeights(const ModelView<T>& m) : mass(m.body_mass) {
    for (int b = 0; b < m.body_count; ++b) total += mass[b] > T(0) ? mass[b] : T(0);
    massless = !(total > T(0));
    if (massless) total = T(m.body_count);
  }
  IKWB_HD T weight(int b) const { return massless ? T(1) : (mass[b] > T(0) ? mass[b] : T(0)); }
};

// mass-weighted centre of mass of the model at body_q (world)
template <class T, class S>
IKWB_HD Vec3<S> center_of_mass(const ModelView<T>& m, const Transform<S>* body_q) {
  const ComWeights<T> cw(m);
  Vec3<S> c = zero3<S>();
  if (!(cw.total > T(0))) return c;
  for (int b = 0; b < m.body_count; ++b) {
    T w = cw.weight(b);
    if (w == T(0)) continue;
    c += S(w / cw.total) * transform_point(body_q[b], cast<S>(m.body_com[b]));
  }
  return c;
}

// Joints for which center_of_mass_jacobian keeps subtree sums on the stack (host); a larger
// model, and the device (no large per-thread arrays), sum each body's chain instead.
#if defined(__CUDA_ARCH__)
constexpr int kComSubtreeJoints = 1;
#else
constexpr int kComSubtreeJoints = 256;
#endif

// d(centre of mass)/d(dof) added by acc (a ColumnAccumulator whose lin rows are set). A joint
// moves every body of its subtree rigidly, so its columns act on the subtree's centre of mass
// with the subtree's share of the mass: one visit per joint, from subtree sums gathered leaves
// first (joint_ancestor[j] < j), instead of one visit per body along its whole chain. The two
// agree to rounding (tests/solver/center_of_mass_test.cpp).
template <class T, class Acc>
IKWB_HD void center_of_mass_jacobian(const ModelView<T>& m, const Transform<T>* body_q, Acc& acc) {
  const ComWeights<T> cw(m);
  const T total = cw.total;
  if (!(total > T(0))) return;
  if (m.joint_count > kComSubtreeJoints) {
    for (int b = 0; b < m.body_count; ++b) {
      T w = cw.weight(b);
      if (w == T(0)) continue;
      acc.x = transform_point(body_q[b], m.body_com[b]);
      acc.sign = w / total;
      visit_body_columns(m, body_q, b, acc);
    }
    return;
  }
  T mass[kComSubtreeJoints];          // the subtree's mass below joint j
  Vec3<T> moment[kComSubtreeJoints];  // its sum of mass times centre of mass
  for (int j = 0; j < m.joint_count; ++j) {
    const int b = m.joint_child[j];
    mass[j] = cw.weight(b);
    moment[j] = mass[j] * transform_point(body_q[b], m.body_com[b]);
  }
  DropStep<Acc> columns{acc};
  for (int j = m.joint_count - 1; j >= 0; --j) {
    const int parent = m.joint_ancestor[j];
    if (parent >= 0) {
      mass[parent] += mass[j];
      moment[parent] += moment[j];
    }
    if (!(mass[j] > T(0))) continue;
    acc.x = (T(1) / mass[j]) * moment[j];
    acc.sign = mass[j] / total;
    visit_joint_columns(m, body_q, j, 0, columns);
  }
}

template <class S>
IKWB_HD Vec3<S> unit_or_zero(const Vec3<S>& v) {
  S l = length(v);
  return l > S(0) ? (S(1) / l) * v : zero3<S>();
}

// a unit vector perpendicular to unit d (deterministic)
template <class S>
IKWB_HD Vec3<S> perpendicular(const Vec3<S>& d) {
  Vec3<S> e =
      (d.x < S(0) ? -d.x : d.x) < S(0.9) ? Vec3<S>{S(1), S(0), S(0)} : Vec3<S>{S(0), S(1), S(0)};
  return unit_or_zero(cross(d, e));
}

// below this sin(theta) the axis counts as along (or against) the direction
constexpr double kConeSinEps = 1e-6;

// the cone error (header comment) of unit axis a against unit direction d
template <class S, class C>
IKWB_HD Vec3<S> cone_error(const Vec3<S>& a, const Vec3<S>& d, C cone) {
  Vec3<S> v = cross(d, a);
  S c = dot(d, a);
  S s2 = dot(v, v);
  if (!(s2 > S(kConeSinEps * kConeSinEps)) && c > S(0)) return cone > C(0) ? zero3<S>() : v;
  S s = sqrt(s2);
  S phi = atan2(s, c) - S(cone);
  if (!(phi > S(0))) return zero3<S>();
  if (!(s2 > S(kConeSinEps * kConeSinEps))) return phi * perpendicular(d);
  return (phi / s) * v;
}

// Its differential for a change da of a and dd of d (linear in both). What depends on a and d
// alone (the angle, its atan2, the error's direction) is computed once for the Jacobian's
// columns: ConeDiff(a, d, cone)(da, dd).
template <class T>
struct ConeDiff {
  enum Kind { kZero, kAlong, kAgainst, kGeneral };
  Vec3<T> a, d, n;
  T c = T(0), s = T(0), s2 = T(0), phi_over_s = T(0);
  Kind kind = kZero;
  ConeDiff() = default;
  IKWB_HD ConeDiff(const Vec3<T>& a_, const Vec3<T>& d_, T cone) : a(a_), d(d_) {
    const Vec3<T> v = cross(d, a);
    c = dot(d, a);
    s2 = dot(v, v);
    if (!(s2 > T(kConeSinEps * kConeSinEps)) && c > T(0)) {
      kind = cone > T(0) ? kZero : kAlong;
      return;
    }
    s = sqrt(s2);
    const T phi = atan2(s, c) - cone;
    if (!(phi > T(0))) return;
    if (!(s2 > T(kConeSinEps * kConeSinEps))) {
      kind = kAgainst;
      n = perpendicular(d);
      return;
    }
    kind = kGeneral;
    n = (T(1) / s) * v;
    phi_over_s = phi / s;
  }
  IKWB_HD Vec3<T> operator()(const Vec3<T>& da, const Vec3<T>& dd) const {
    switch (kind) {
      case kAlong:
        return cross(dd, a) + cross(d, da);
      case kAgainst:
        return (dot(cross(n, a), da) - dot(cross(n, d), dd)) * n;
      case kGeneral: {
        const Vec3<T> dv = cross(dd, a) + cross(d, da);
        const T ds = dot(n, dv);
        const T dc = dot(dd, a) + dot(d, da);
        const T dtheta = (c * ds - s * dc) / (s2 + c * c);
        return dtheta * n + phi_over_s * (dv - ds * n);
      }
      default:
        return zero3<T>();
    }
  }
};

// The point a look_at objective looks at (world): its world target, or with link_b >= 0 the
// point offset_b of link_b (the head follows a hand)
template <class T, class S>
IKWB_HD Vec3<S> look_at_point(int link_b, const Vec3<T>& offset_b, const Vec3<T>& target,
                              const Transform<S>* body_q) {
  return link_b >= 0 ? transform_point(body_q[link_b], cast<S>(offset_b)) : cast<S>(target);
}

// The axis (world, unit) and wanted direction (world, unit) of a look_at / axis_align
// objective; false when the direction is undefined (a look_at target at the link point).
// target: the look_at point (world). *point: the link point (look_at), *dist: its distance to
// the target.
template <class T, class S>
IKWB_HD bool cone_vectors(ObjectiveType type, int link, const Vec3<T>& offset, const Vec3<T>& axis,
                          const Vec3<T>& direction, const Vec3<S>& target,
                          const Transform<S>* body_q, Vec3<S>* a, Vec3<S>* d, Vec3<S>* point,
                          S* dist) {
  *a = rotate(body_q[link].q, cast<S>(unit_or_zero(axis)));
  if (type == ObjectiveType::kAxisAlign) {
    *d = cast<S>(unit_or_zero(direction));
    *point = body_q[link].p;
    *dist = S(0);
    return true;
  }
  *point = transform_point(body_q[link], cast<S>(offset));
  Vec3<S> w = target - *point;
  *dist = length(w);
  if (!(*dist > S(0))) return false;
  *d = (S(1) / *dist) * w;
  return true;
}

// Jacobian columns of the cone error (visit_body_columns functor). Over the link's chain the
// link turns a (da = omega x a) and, for look_at, moves the link point
// (dd = -(I - d d^T) dp / dist). A look_at that follows link_b visits link_b's chain too, with
// target_pass set: there only the looked-at point moves (da = 0, dd = +(I - d d^T) dp / dist,
// dp the motion of that point); a dof on both chains gets both terms.
template <class T>
struct ConeColumns {
  Vec3<T> a, d, point;
  ConeDiff<T> diff;   // of the cone error at a, d
  T inv_dist = T(0);  // 0: d does not move with the link (axis_align)
  bool target_pass = false;
  T* J = nullptr;
  int ld = 0;
  IKWB_HD void operator()(int dof, bool angular, const Vec3<T>& axis, const Vec3<T>& anchor,
                          T scale) {
    Vec3<T> da = angular && !target_pass ? cross(axis, a) : zero3<T>();
    Vec3<T> dd = zero3<T>();
    if (inv_dist != T(0)) {
      Vec3<T> dp = angular ? cross(axis, point - anchor) : axis;
      dd = (target_pass ? inv_dist : -inv_dist) * (dp - dot(d, dp) * d);
    }
    Vec3<T> dr = diff(da, dd);
    for (int r = 0; r < 3; ++r) J[r * ld + dof] += scale * dr[r];
  }
};

}  // namespace ikwb
