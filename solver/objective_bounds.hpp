// Row math of the tolerance kinds (issue 15), __host__ __device__, included by
// solver/objectives.hpp; both backends run it. Both are inequalities (g <= 0 is met).
//
// position_box: the link point p, expressed in the target frame (R_t, t), stays inside the box
//   [box_lower, box_upper] (per axis; -inf / +inf leave a side open). Three rows, one per
//   target axis k: g_k = max(l_k - hi_k, lo_k - l_k) with l = R_t^T (p - t): the distance
//   outside the nearer face (negative inside). Jacobian: the active side's sign times
//   (R_t e_k) . dp.
// orientation_cone: the angle between the link's orientation and the target's,
//   theta = |log(R R_t^T)|, stays below `cone`. One row g = theta - cone. Since
//   J_l^{-1}(e)^T e = e, d theta = (e / theta) . omega: the angular columns projected on the
//   error axis. At theta = 0 the row is -cone and its Jacobian zero.
#pragma once

#include "engine/core/row_kinematics.hpp"

namespace ikwb {

// position_box rows (3) of point p against a target frame
template <class T, class S>
IKWB_HD void box_residual(const Transform<T>& target, const Vec3<T>& lo, const Vec3<T>& hi,
                          const Vec3<S>& p, S* r) {
  Vec3<S> l = rotate(conjugate(cast<S>(target.q)), p - cast<S>(target.p));
  for (int k = 0; k < 3; ++k) {
    S above = l[k] - S(hi[k]), below = S(lo[k]) - l[k];
    r[k] = above > below ? above : below;
  }
}

// the sign of row k's active side (+1: the upper face, -1: the lower), 0 when both are open
template <class T>
IKWB_HD T box_side(const Transform<T>& target, const Vec3<T>& lo, const Vec3<T>& hi,
                   const Vec3<T>& p, int k) {
  Vec3<T> l = rotate(conjugate(target.q), p - target.p);
  bool open_hi = !(hi[k] < T(1e30)), open_lo = !(lo[k] > T(-1e30));
  if (open_hi && open_lo) return T(0);
  if (open_hi) return T(-1);
  if (open_lo) return T(1);
  return (l[k] - hi[k]) > (lo[k] - l[k]) ? T(1) : T(-1);
}

// adds scale * dot(n, axis) of the angular columns to row (visit_body_columns functor)
template <class T>
struct AngularProjection {
  Vec3<T> n;
  T* row = nullptr;
  IKWB_HD void operator()(int dof, bool angular, const Vec3<T>& axis, const Vec3<T>&, T scale) {
    if (angular) row[dof] += scale * dot(n, axis);
  }
};

}  // namespace ikwb
