// IK objectives as plain data, and their residual and analytic Jacobian rows for one batch row.
//
// Shared by the CPU backend and kernels/: everything below is __host__ __device__ over raw
// pointers. Each objective owns residual rows [start, start + dim) of a row's residual vector
// (total residual_count) and the same rows of its Jacobian (residual_count x dof_count,
// row-major). Functions here produce *raw* rows: the constraint value c (or, for inequality
// objectives, g with g <= 0 meaning satisfied) and its Jacobian with respect to the dof step
// (the same dof convention as integrate_row). apply_mode() then turns them into weighted soft
// rows or augmented-Lagrangian rows for hard objectives.
#pragma once

#include "engine/core/objective_kinds.hpp"
#include "engine/core/row_kinematics.hpp"
#include "solver/objective_bounds.hpp"
#include "solver/objective_collision.hpp"
#include "solver/objective_manipulability.hpp"
#include "solver/objective_support.hpp"
#include "solver/objective_whole_body.hpp"

namespace ikwb {

// Objective parameters for one objective of a problem set.
template <class T>
struct ObjectiveParams {
  ObjectiveType type = ObjectiveType::kPosition;
  int8_t hard = 0;        // augmented-Lagrangian constraint instead of weighted cost
  int8_t enabled = 1;     // disabled objectives write zero rows
  int8_t null_space = 0;  // posture only: applied in the task null space instead of as rows
  int link = -1;          // body of the point / frame (link a for relative objectives)
  int link_b = -1;  // second body (relative objectives, min distance; look_at: looks at its point)
  Vec3<T> offset = {0, 0, 0};                         // point on link, link frame
  Vec3<T> offset_b = {0, 0, 0};                       // point on link_b, link_b frame
  Transform<T> relative = {{0, 0, 0}, {0, 0, 0, 1}};  // kRelativeFixed: frame b in frame a
  T distance = 0;                                     // kMinDistance
  T weight = 1;                                       // scales residual and Jacobian rows (soft)
  Vec3<T> position_weights = {1, 1, 1};               // per world axis, position rows
  Vec3<T> rotation_weights = {1, 1, 1};               // per world axis, rotation rows
  Vec3<T> axis = {0, 0, 1};                           // look_at, axis_align: link frame, unit
  Vec3<T> direction = {0, 0, -1};                     // axis_align: world, unit
  T cone = 0;                                         // look_at, axis_align, orientation_cone: rad
  Vec3<T> box_lower = {-0.05, -0.05, -0.05};          // position_box: bounds in the target frame, m
  Vec3<T> box_upper = {0.05, 0.05, 0.05};             // (-inf / +inf: open sides)
  // m, >= 0: support_polygon keeps the CoM this far inside the polygon, the collision kinds keep
  // this clearance; objectives made by make_objective / the workbench take default_margin(type)
  T margin = 0;
  T min_measure = 0;    // manipulability: the least Yoshikawa measure, >= 0
  int point_start = 0;  // support_polygon: its contact points in ProblemView::points
  int point_count = 0;
  int start = 0;  // first residual row
  int dim = 0;    // residual rows
};

IKWB_HD bool objective_is_inequality(ObjectiveType t) {
  return t == ObjectiveType::kJointLimits || t == ObjectiveType::kMinDistance ||
         t == ObjectiveType::kSupportPolygon || t == ObjectiveType::kPositionBox ||
         t == ObjectiveType::kOrientationCone || t == ObjectiveType::kManipulability ||
         t == ObjectiveType::kSelfCollision || t == ObjectiveType::kWorldCollision;
}

// Inequality kinds whose inactive rows keep their Jacobian row (apply_mode), so that the LM step
// sees a step coming that would make them active (lm_solve_row). Not the joint limits: their rows
// are diagonal, and hard limits keep an active set of their own (lm_mark_limits).
IKWB_HD bool objective_predicts_activation(ObjectiveType t) {
  return objective_is_inequality(t) && t != ObjectiveType::kJointLimits;
}

// The data one batch row's objectives read, in host or device memory.
template <class T>
struct ProblemView {
  ModelView<T> model;
  const T* dof_lower = nullptr;                    // (dof_count) -inf when unlimited
  const T* dof_upper = nullptr;                    // (dof_count) +inf when unlimited
  const ObjectiveParams<T>* objectives = nullptr;  // (objective_count)
  int objective_count = 0;
  int problem_count = 0;
  int residual_count = 0;
  const Transform<T>* targets = nullptr;  // (objective_count x problem_count) world targets
  const T* rest_q = nullptr;              // (objective_count x coord_count) posture rests
  const LinkPoint<T>* points = nullptr;   // contact points of all objectives (point_start)
  CollisionView<T> collision;             // capsules, pairs and obstacles (collision kinds)
  // (fk_joint_count) the joints whose child bodies the objectives read (bodies_read), in
  // model order; null: every joint. The residual's FK computes only those (fk_row_for).
  const int* fk_joints = nullptr;
  int fk_joint_count = 0;
  // (dof_count) objective_seeded_dofs: 0 where no objective depends on the dof, whose seeds
  // then keep its initial value; null: every dof is drawn
  const uint8_t* dof_seeded = nullptr;
};

// FK of the bodies the problem's objectives read into body_q (fk_joints), or of every body
template <class T, class S>
IKWB_HD void fk_row_for(const ProblemView<T>& pv, const S* q, Transform<S>* body_q) {
  fk_row_joints(pv.model, q, body_q, pv.fk_joints,
                pv.fk_joints ? pv.fk_joint_count : pv.model.joint_count);
}

// Accumulates motion-subspace columns into Jacobian rows (see visit_body_columns):
// lin rows get sign * d(point)/d(dof), ang rows sign * axis for angular dofs (sign *
// rotate(rot, axis) when rotated), proj (one row) sign * dot(dir, d(point)/d(dof)).
template <class S>
struct ColumnAccumulator {
  Vec3<S> x;
  S* lin = nullptr;
  S* ang = nullptr;
  S* proj = nullptr;
  int ld = 0;
  S sign = S(1);
  bool rotated = false;  // ang rows take rotate(rot, axis) instead of the axis itself
  Quat<S> rot = {S(0), S(0), S(0), S(1)};
  Vec3<S> dir = {S(0), S(0), S(0)};
  IKWB_HD void operator()(int dof, bool angular, const Vec3<S>& axis, const Vec3<S>& anchor,
                          S scale) {
    S s = sign * scale;
    Vec3<S> dl = angular ? cross(axis, x - anchor) : axis;
    if (lin)
      for (int r = 0; r < 3; ++r) lin[r * ld + dof] += s * dl[r];
    if (ang && angular) {
      const Vec3<S> a = rotated ? rotate(rot, axis) : axis;
      for (int r = 0; r < 3; ++r) ang[r * ld + dof] += s * a[r];
    }
    if (proj) proj[dof] += s * dot(dir, dl);
  }
};

template <class T, class S>
IKWB_HD Vec3<S> world_point(const Transform<S>* body_q, int body, const Vec3<T>& offset) {
  return transform_point(body_q[body], cast<S>(offset));
}

// world rotation error e = log(R_a R_b^T) (rotation taking b to a, in world)
template <class S>
IKWB_HD Vec3<S> rotation_error(const Quat<S>& a, const Quat<S>& b) {
  return quat_log(a * conjugate(b));
}

// A posture's rows (dof_count): q (-) rest, but for a free joint's position, which stays 0 (a
// floating base's place is where the feet or the task put it, not a posture: a humanoid's walk
// retargeted in sequence, its base pulled back toward where it started in the null space, leaned
// further with every metre walked, 0.27 rad at the torso after 11 m). Its orientation is kept
// (an upright base).
template <class T, class S, class U>
IKWB_HD void posture_difference(const ModelView<T>& m, const S* q, const U* rest, S* out) {
  difference_row(m, q, rest, out);
  for (int j = 0; j < m.joint_count; ++j)
    if (JointType(m.joint_type[j]) == JointType::kFree)
      for (int k = 0; k < 3; ++k) out[m.joint_qd_start[j] + k] = S(0);
}

// Raw residual rows of objective o for problem `problem` at configuration q with body poses
// body_q (from fk_row of q). Writes o.dim values to r (the objective's first row).
template <class T, class S>
IKWB_HD void objective_residual(const ProblemView<T>& pv, int oi, int problem, const S* q,
                                const Transform<S>* body_q, S* r) {
  const ObjectiveParams<T>& o = pv.objectives[oi];
  const ModelView<T>& m = pv.model;
  const Transform<T>& tgt = pv.targets[oi * pv.problem_count + problem];
  switch (o.type) {
    case ObjectiveType::kPosition:
    case ObjectiveType::kPose: {
      Vec3<S> e = world_point(body_q, o.link, o.offset) - cast<S>(tgt.p);
      for (int k = 0; k < 3; ++k) r[k] = e[k];
      if (o.type == ObjectiveType::kPose) {
        Vec3<S> er = rotation_error(body_q[o.link].q, cast<S>(tgt.q));
        for (int k = 0; k < 3; ++k) r[3 + k] = er[k];
      }
      break;
    }
    case ObjectiveType::kRotation: {
      Vec3<S> er = rotation_error(body_q[o.link].q, cast<S>(tgt.q));
      for (int k = 0; k < 3; ++k) r[k] = er[k];
      break;
    }
    case ObjectiveType::kJointLimits:
      for (int d = 0; d < m.dof_count; ++d) r[d] = S(-1);
      for (int j = 0; j < m.joint_count; ++j) {
        if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1)
          continue;
        int d = m.joint_qd_start[j];
        T lo = pv.dof_lower[d], hi = pv.dof_upper[d];
        if (!(lo > T(-1e30)) || !(hi < T(1e30))) continue;
        S v = q[m.joint_q_start[j]];
        S above = v - S(hi), below = S(lo) - v;
        r[d] = above > below ? above : below;
      }
      break;
    case ObjectiveType::kPosture:
      posture_difference(m, q, pv.rest_q + oi * m.coord_count, r);
      break;
    case ObjectiveType::kRelativeBall: {
      Vec3<S> e = world_point(body_q, o.link, o.offset) - world_point(body_q, o.link_b, o.offset_b);
      for (int k = 0; k < 3; ++k) r[k] = e[k];
      break;
    }
    case ObjectiveType::kRelativeFixed: {
      Transform<S> want_b = body_q[o.link] * cast<S>(o.relative);
      Vec3<S> e = body_q[o.link_b].p - want_b.p;
      Vec3<S> er = rotation_error(body_q[o.link_b].q, want_b.q);
      for (int k = 0; k < 3; ++k) r[k] = e[k], r[3 + k] = er[k];
      break;
    }
    case ObjectiveType::kMinDistance: {
      Vec3<S> d = world_point(body_q, o.link, o.offset) - world_point(body_q, o.link_b, o.offset_b);
      r[0] = S(o.distance) - length(d);
      break;
    }
    case ObjectiveType::kCom: {
      Vec3<S> e = center_of_mass(m, body_q) - cast<S>(tgt.p);
      for (int k = 0; k < 3; ++k) r[k] = e[k];
      break;
    }
    case ObjectiveType::kLookAt:
    case ObjectiveType::kAxisAlign: {
      Vec3<S> a, d, point;
      S dist;
      bool follows = o.type == ObjectiveType::kLookAt && o.link_b >= 0;
      Vec3<S> e = zero3<S>();
      Vec3<S> at = look_at_point(follows ? o.link_b : -1, o.offset_b, tgt.p, body_q);
      if (cone_vectors(o.type, o.link, o.offset, o.axis, o.direction, at, body_q, &a, &d, &point,
                       &dist))
        e = cone_error(a, d, o.cone);
      for (int k = 0; k < 3; ++k) r[k] = e[k];
      break;
    }
    case ObjectiveType::kSupportPolygon:
      support_residual(pv.points + o.point_start, o.point_count, o.margin, body_q,
                       center_of_mass(m, body_q), r);
      break;
    case ObjectiveType::kPositionBox:
      box_residual(tgt, o.box_lower, o.box_upper, world_point(body_q, o.link, o.offset), r);
      break;
    case ObjectiveType::kOrientationCone:
      r[0] = length(rotation_error(body_q[o.link].q, cast<S>(tgt.q))) - S(o.cone);
      break;
    case ObjectiveType::kManipulability:
      r[0] = S(o.min_measure) -
             manipulability_measure(m, body_q, o.link, world_point(body_q, o.link, o.offset));
      r[1] = r[2] = r[3] = S(-1);
      break;
    case ObjectiveType::kSelfCollision:
    case ObjectiveType::kWorldCollision:
      collision_residual(pv.collision, o.type == ObjectiveType::kSelfCollision, o.margin, body_q,
                         r);
      break;
    default:
      break;
  }
}

// Analytic Jacobian rows (o.dim x dof_count, row-major, leading dimension ld) of the raw
// residual of objective o, at q / body_q. Rows are overwritten. raw (or null) receives the raw
// rows as objective_residual writes them; the collision kinds then search their closest pairs
// once for both (the search is most of their cost), and support_polygon finds its hull and
// centre of mass once for both.
template <class T>
IKWB_HD void objective_jacobian(const ProblemView<T>& pv, int oi, int problem, const T* q,
                                const Transform<T>* body_q, T* J, int ld, T* raw = nullptr) {
  const ObjectiveParams<T>& o = pv.objectives[oi];
  const ModelView<T>& m = pv.model;
  const bool collision =
      o.type == ObjectiveType::kSelfCollision || o.type == ObjectiveType::kWorldCollision;
  if (raw && !collision && o.type != ObjectiveType::kSupportPolygon)
    objective_residual(pv, oi, problem, q, body_q, raw);
  const Transform<T>& tgt = pv.targets[oi * pv.problem_count + problem];
  int nv = m.dof_count;
  for (int r = 0; r < o.dim; ++r)
    for (int c = 0; c < nv; ++c) J[r * ld + c] = T(0);
  ColumnAccumulator<T> acc;
  acc.ld = ld;
  switch (o.type) {
    case ObjectiveType::kPosition:
    case ObjectiveType::kPose:
    case ObjectiveType::kRotation: {
      bool has_pos = o.type != ObjectiveType::kRotation;
      acc.x = world_point(body_q, o.link, o.offset);
      acc.lin = has_pos ? J : nullptr;
      T* rot_rows = has_pos ? (o.type == ObjectiveType::kPose ? J + 3 * ld : nullptr) : J;
      acc.ang = rot_rows;
      visit_body_columns(m, body_q, o.link, acc);
      if (rot_rows) {
        // exact rotation Jacobian: d log(R R_t^T) = J_l^{-1}(e) omega (e: the raw rows'
        // rotation error when they were just computed)
        const int e_row = has_pos ? 3 : 0;
        const Vec3<T> e = raw ? Vec3<T>{raw[e_row], raw[e_row + 1], raw[e_row + 2]}
                              : rotation_error(body_q[o.link].q, tgt.q);
        const So3LeftJacobianInv<T> jl_inv(e);
        for (int c = 0; c < nv; ++c) {
          Vec3<T> w{rot_rows[c], rot_rows[ld + c], rot_rows[2 * ld + c]};
          Vec3<T> jw = jl_inv.apply(w);
          for (int k = 0; k < 3; ++k) rot_rows[k * ld + c] = jw[k];
        }
      }
      break;
    }
    case ObjectiveType::kJointLimits:
      for (int j = 0; j < m.joint_count; ++j) {
        if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1)
          continue;
        int d = m.joint_qd_start[j];
        T lo = pv.dof_lower[d], hi = pv.dof_upper[d];
        if (!(lo > T(-1e30)) || !(hi < T(1e30))) continue;
        T v = q[m.joint_q_start[j]];
        J[d * ld + d] = (v - hi) > (lo - v) ? T(1) : T(-1);
      }
      break;
    case ObjectiveType::kPosture: {
      const T* rest = pv.rest_q + oi * m.coord_count;
      for (int j = 0; j < m.joint_count; ++j) {
        if (m.joint_mimic[j] >= 0) continue;
        JointType t = JointType(m.joint_type[j]);
        int ds = m.joint_qd_start[j], qs = m.joint_q_start[j];
        int nd = joint_type_dof_count(t);
        if (nd == 1 || t == JointType::kPlanar) {
          for (int k = 0; k < nd; ++k) J[(ds + k) * ld + ds + k] = T(1);
        } else if (nd > 1) {
          const int off = t == JointType::kFree ? 3 : 0;  // a free joint's position: zero rows
          Quat<T> a{q[qs + off], q[qs + off + 1], q[qs + off + 2], q[qs + off + 3]};
          Quat<T> b{rest[qs + off], rest[qs + off + 1], rest[qs + off + 2], rest[qs + off + 3]};
          const So3LeftJacobianInv<T> jl_inv(rotation_error(normalize(a), normalize(b)));
          for (int c = 0; c < 3; ++c) {
            Vec3<T> w = zero3<T>();
            w[c] = T(1);
            Vec3<T> jw = jl_inv.apply(w);
            for (int k = 0; k < 3; ++k) J[(ds + off + k) * ld + ds + off + c] = jw[k];
          }
        }
      }
      break;
    }
    case ObjectiveType::kRelativeBall: {
      acc.lin = J;
      acc.x = world_point(body_q, o.link, o.offset);
      visit_body_columns(m, body_q, o.link, acc);
      acc.x = world_point(body_q, o.link_b, o.offset_b);
      acc.sign = T(-1);
      visit_body_columns(m, body_q, o.link_b, acc);
      break;
    }
    case ObjectiveType::kRelativeFixed: {
      // position: p_b - X_a * p_rel; rotation: e = log(R_b (R_a R_rel)^T),
      // de = J_l^{-1}(e) (w_b - R_E w_a) with R_E = exp(e)
      Transform<T> want_b = body_q[o.link] * o.relative;
      Vec3<T> e = rotation_error(body_q[o.link_b].q, want_b.q);
      acc.lin = J;
      acc.ang = J + 3 * ld;
      acc.x = body_q[o.link_b].p;
      visit_body_columns(m, body_q, o.link_b, acc);
      acc.x = want_b.p;
      acc.sign = T(-1);
      acc.rotated = true;
      acc.rot = body_q[o.link_b].q * conjugate(want_b.q);
      visit_body_columns(m, body_q, o.link, acc);
      T* rot_rows = J + 3 * ld;
      const So3LeftJacobianInv<T> jl_inv(e);
      for (int c = 0; c < nv; ++c) {
        Vec3<T> w{rot_rows[c], rot_rows[ld + c], rot_rows[2 * ld + c]};
        Vec3<T> jw = jl_inv.apply(w);
        for (int k = 0; k < 3; ++k) rot_rows[k * ld + c] = jw[k];
      }
      break;
    }
    case ObjectiveType::kMinDistance: {
      Vec3<T> xa = world_point(body_q, o.link, o.offset);
      Vec3<T> xb = world_point(body_q, o.link_b, o.offset_b);
      Vec3<T> d = xa - xb;
      T len = length(d);
      if (!(len > T(0))) break;
      // g = distance - |xa - xb|: dg = -n . (dxa - dxb)
      acc.proj = J;
      acc.dir = (T(1) / len) * d;
      acc.sign = T(-1);
      acc.x = xa;
      visit_body_columns(m, body_q, o.link, acc);
      acc.sign = T(1);
      acc.x = xb;
      visit_body_columns(m, body_q, o.link_b, acc);
      break;
    }
    case ObjectiveType::kCom:
      acc.lin = J;
      center_of_mass_jacobian(m, body_q, acc);
      break;
    case ObjectiveType::kLookAt:
    case ObjectiveType::kAxisAlign: {
      ConeColumns<T> cc;
      T dist;
      bool follows = o.type == ObjectiveType::kLookAt && o.link_b >= 0;
      Vec3<T> at = look_at_point(follows ? o.link_b : -1, o.offset_b, tgt.p, body_q);
      if (!cone_vectors(o.type, o.link, o.offset, o.axis, o.direction, at, body_q, &cc.a, &cc.d,
                        &cc.point, &dist))
        break;
      cc.diff = ConeDiff<T>(cc.a, cc.d, o.cone);
      cc.inv_dist = o.type == ObjectiveType::kLookAt ? T(1) / dist : T(0);
      cc.J = J;
      cc.ld = ld;
      visit_body_columns(m, body_q, o.link, cc);
      if (follows) {
        cc.target_pass = true;
        cc.point = at;
        visit_body_columns(m, body_q, o.link_b, cc);
      }
      break;
    }
    case ObjectiveType::kSupportPolygon:
      support_jacobian(m, pv.points + o.point_start, o.point_count, body_q,
                       center_of_mass(m, body_q), J, acc, o.margin, raw);
      break;
    case ObjectiveType::kPositionBox: {
      Vec3<T> x = world_point(body_q, o.link, o.offset);
      acc.x = x;
      for (int k = 0; k < 3; ++k) {
        T side = box_side(tgt, o.box_lower, o.box_upper, x, k);
        if (side == T(0)) continue;
        Vec3<T> e = zero3<T>();
        e[k] = side;
        acc.proj = J + k * ld;
        acc.dir = rotate(tgt.q, e);
        visit_body_columns(m, body_q, o.link, acc);
      }
      break;
    }
    case ObjectiveType::kOrientationCone: {
      Vec3<T> e = rotation_error(body_q[o.link].q, tgt.q);
      T theta = length(e);
      if (!(theta > T(0))) break;
      AngularProjection<T> ap{(T(1) / theta) * e, J};
      visit_body_columns(m, body_q, o.link, ap);
      break;
    }
    case ObjectiveType::kManipulability:
      manipulability_jacobian(m, body_q, o.link, world_point(body_q, o.link, o.offset), J, acc);
      break;
    case ObjectiveType::kSelfCollision:
    case ObjectiveType::kWorldCollision:
      collision_jacobian(m, pv.collision, o.type == ObjectiveType::kSelfCollision, body_q, J, ld,
                         o.margin, raw);
      break;
    default:
      break;
  }
}

// Kinds whose rows objective_row_terms writes as terms (row_terms.hpp): lm_solve_row sets them
// aside without Jacobian rows while they are inactive.
IKWB_HD bool objective_has_terms(ObjectiveType t) {
  return t == ObjectiveType::kSupportPolygon || t == ObjectiveType::kSelfCollision ||
         t == ObjectiveType::kWorldCollision;
}

// Raw rows of objective oi (a kind of objective_has_terms) at body_q into raw, and each row's
// terms into terms (o.dim).
template <class T>
IKWB_HD void objective_row_terms(const ProblemView<T>& pv, int oi, const Transform<T>* body_q,
                                 T* raw, RowTerms<T>* terms) {
  const ObjectiveParams<T>& o = pv.objectives[oi];
  if (o.type == ObjectiveType::kSupportPolygon)
    support_terms(pv.points + o.point_start, o.point_count, o.margin, body_q,
                  center_of_mass(pv.model, body_q), raw, terms);
  else
    collision_terms(pv.collision, o.type == ObjectiveType::kSelfCollision, o.margin, body_q, raw,
                    terms);
}

// the per-axis weight of objective o's row k: position_weights / rotation_weights for the rows
// of a position or rotation, 1 for the other rows. 0 leaves the row out, soft or hard.
template <class T>
IKWB_HD T objective_axis_weight(const ObjectiveParams<T>& o, int k) {
  switch (o.type) {
    case ObjectiveType::kPosition:
    case ObjectiveType::kRelativeBall:
    case ObjectiveType::kCom:
      return o.position_weights[k];
    case ObjectiveType::kRotation:
      return o.rotation_weights[k];
    case ObjectiveType::kPose:
    case ObjectiveType::kRelativeFixed:
      return k < 3 ? o.position_weights[k] : o.rotation_weights[k - 3];
    default:
      return T(1);
  }
}

// per-row weight of objective o's row k (soft objectives)
template <class T>
IKWB_HD T objective_row_weight(const ObjectiveParams<T>& o, int k) {
  return o.weight * objective_axis_weight(o, k);
}

// row k of objective o counts (in its errors, its violation and its step): a soft row of
// non-zero weight; a hard row whose axis is not left free (a hard objective's weights only say
// which axes it holds: it holds them exactly, whatever their size)
template <class T>
IKWB_HD bool objective_row_counts(const ObjectiveParams<T>& o, int k) {
  return (o.hard ? objective_axis_weight(o, k) : objective_row_weight(o, k)) != T(0);
}

// objective o is pursued: enabled, and one of its rows counts (a soft objective of weight 0, or
// one whose every axis weight is 0, pulls nowhere and is not)
template <class T>
IKWB_HD bool objective_pursued(const ObjectiveParams<T>& o) {
  if (!o.enabled) return false;
  for (int k = 0; k < o.dim; ++k)
    if (objective_row_counts(o, k)) return true;
  return false;
}

// the factor apply_mode turns raw row k of objective o into a least-squares row with
template <class T>
IKWB_HD T objective_row_scale(const ObjectiveParams<T>& o, T mu, int k) {
  if (o.hard) return objective_axis_weight(o, k) != T(0) ? sqrt(mu) : T(0);
  return objective_row_weight(o, k);
}

// Turns raw rows (r and, when J is non-null, J) of objective o into least-squares rows:
//   soft equality     r = w c                         J = w dc
//   soft inequality   r = w max(0, g)                 J = w dg where g > 0
//   hard equality     r = sqrt(mu) (c + lambda/mu)    J = sqrt(mu) dc
//   hard inequality   r = sqrt(mu) max(0, g + lambda/mu)
// (a row whose axis weight is 0, soft or hard, gets zeros: objective_row_scale)
// lambda: the objective's multipliers (dim), mu: the penalty. Disabled objectives get zeros.
// An inactive inequality row (g, or g + lambda/mu, <= 0) has a zero Jacobian row, except with J
// for the kinds of objective_predicts_activation: there it keeps w dg (sqrt(mu) dg), and r the
// row's value before the max, w g (sqrt(mu) (g + lambda/mu)) <= 0: the linear model of the row,
// which lm_solve_row sets aside and uses when a step would make the row active. diagonal: row k
// of J has no entry besides column k (a joint-limit row), and only that one is read and written.
template <class T, class S>
IKWB_HD void apply_mode(const ObjectiveParams<T>& o, const T* lambda, T mu, int nv, S* r, T* J,
                        int ld, bool diagonal = false) {
  const bool ineq = objective_is_inequality(o.type);
  const bool keep_model = J && objective_predicts_activation(o.type);
  for (int k = 0; k < o.dim; ++k) {
    S v = r[k];
    T scale;
    bool active = true;
    if (!o.enabled) {
      v = S(0);
      scale = T(0);
    } else {
      if (o.hard) v = v + S(lambda[k] / mu);
      if (ineq && !(v > S(0)) && !keep_model) {
        v = S(0);
        active = false;
      }
      scale = objective_row_scale(o, mu, k);
      v = S(scale) * v;
    }
    r[k] = v;
    if (J && diagonal) {
      J[k * ld + k] = active ? scale * J[k * ld + k] : T(0);
    } else if (J) {
      T* row = J + k * ld;
      for (int c = 0; c < nv; ++c) row[c] = active ? scale * row[c] : T(0);
    }
  }
}

}  // namespace ikwb
