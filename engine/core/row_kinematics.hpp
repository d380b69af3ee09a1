// Flat, read-only view of a Model's kinematic arrays, and the per-row kinematics both backends
// share: joint transforms, forward kinematics of one configuration, motion-subspace Jacobian
// columns, and per-joint integration of a dof-space step.
//
// Everything here is __host__ __device__ over raw pointers (host memory for the CPU backend,
// device memory for kernels/). Conventions, for every joint j:
//   X_wpj = X_wp * joint_X_p[j]         world pose of the joint frame on the parent side
//   X_wc  = X_wpj * X_j(q) * inv(joint_X_c[j])
// Joint coordinates (q) and dofs (qd, and IK steps):
//   revolute/continuous  q: angle about joint_axis                    dof: angular rate
//   prismatic            q: offset along joint_axis                   dof: linear rate
//   ball                 q: quaternion x,y,z,w                        dof: angular velocity
//                                                                      in the X_wpj frame
//   free                 q: position (X_wpj frame) + quaternion xyzw  dof: linear velocity of
//                                                                      the joint origin, then
//                                                                      angular velocity, both
//                                                                      in the X_wpj frame
//   planar               q: x, y along the plane axes e1, e2, then    dof: the rates of x, y
//                           the angle about joint_axis (the plane's    and the angle
//                           normal); X_j = translate(x e1 + y e2) * rotate(axis, angle)
//                           (planar_axes: e1, e2 = x, y of the joint frame when the axis is z)
// Ball and free steps rotate about the child joint origin (the anchor), never the COM.
// A mimic joint has no coordinates of its own: q = multiplier * q[source] + offset.
// A periodic joint's angle (joint_periodic: a continuous joint, unless a mimic joint follows it
// by a fraction of a turn or along a slide; a planar joint's turn, its third coordinate) is the
// same configuration a turn either way: differences take the shortest turn (difference_row),
// and answers are handed back in (-pi, pi] (wrap_row).
#pragma once

#include <cstdint>
#include <cstring>

#include "engine/core/spatial.hpp"

// FK's per-joint steps (joint_local_pose, joint_child_pose) are inlined into its loop on the
// host too: GCC kept them as calls once the loop had a second instantiation in a translation
// unit, and FK took a fifth longer (docs/benchmarks.md, "The factor without square roots").
#if defined(__CUDACC__)
#define IKWB_HD_FK_STEP IKWB_HD
#else
#define IKWB_HD_FK_STEP inline __attribute__((always_inline))
#endif

namespace ikwb {

enum class JointType : int8_t {
  kFixed = 0,
  kRevolute = 1,
  kContinuous = 2,
  kPrismatic = 3,
  kBall = 4,
  kFree = 5,
  kPlanar = 6,
};

IKWB_HD int joint_type_coord_count(JointType t) {
  switch (t) {
    case JointType::kRevolute:
    case JointType::kContinuous:
    case JointType::kPrismatic:
      return 1;
    case JointType::kBall:
      return 4;
    case JointType::kFree:
      return 7;
    case JointType::kPlanar:
      return 3;
    default:
      return 0;
  }
}

IKWB_HD int joint_type_dof_count(JointType t) {
  switch (t) {
    case JointType::kRevolute:
    case JointType::kContinuous:
    case JointType::kPrismatic:
      return 1;
    case JointType::kBall:
      return 3;
    case JointType::kFree:
      return 6;
    case JointType::kPlanar:
      return 3;
    default:
      return 0;
  }
}

// The in-plane axes of a planar joint with unit normal n (joint frame): x and y turned by the
// shortest rotation that takes z to n (a half turn about x when n = -z).
template <class S>
IKWB_HD void planar_axes(const Vec3<S>& n, Vec3<S>& e1, Vec3<S>& e2) {
  Quat<S> r = n.z > S(-1) + S(1e-6) ? normalize(Quat<S>{-n.y, n.x, S(0), S(1) + n.z})
                                    : Quat<S>{S(1), S(0), S(0), S(0)};
  e1 = rotate(r, Vec3<S>{S(1), S(0), S(0)});
  e2 = rotate(r, Vec3<S>{S(0), S(1), S(0)});
}

// Body flags (bit set), as Newton's BodyFlags.
enum BodyFlag : int { kBodyDynamic = 1, kBodyKinematic = 2, kBodyAll = 3 };

template <class T>
struct ModelView {
  int joint_count = 0;
  int body_count = 0;
  int coord_count = 0;                        // nq
  int dof_count = 0;                          // nv
  const int8_t* joint_type = nullptr;         // (joint_count) JointType
  const int* joint_parent = nullptr;          // (joint_count) parent body, -1 = world
  const int* joint_child = nullptr;           // (joint_count) child body
  const int* joint_ancestor = nullptr;        // (joint_count) parent joint, -1 at a root
  const Transform<T>* joint_X_p = nullptr;    // (joint_count) joint frame in parent body
  const Transform<T>* joint_X_c = nullptr;    // (joint_count) joint frame in child body
  const Vec3<T>* joint_axis = nullptr;        // (joint_count) unit axis in the joint frame
  const int* joint_q_start = nullptr;         // (joint_count + 1) first coordinate
  const int* joint_qd_start = nullptr;        // (joint_count + 1) first dof
  const int* joint_mimic = nullptr;           // (joint_count) source joint, -1 if none
  const T* joint_mimic_multiplier = nullptr;  // (joint_count)
  const T* joint_mimic_offset = nullptr;      // (joint_count)
  const uint8_t* joint_periodic = nullptr;    // (joint_count) 1: an angle modulo a turn
  const int* body_joint = nullptr;            // (body_count) joint whose child it is, or -1
  const Vec3<T>* body_com = nullptr;          // (body_count) centre of mass in body frame
  const T* body_mass = nullptr;               // (body_count) kg (the com objective)
  const int* body_flags = nullptr;            // (body_count) BodyFlag bits
};

// planar_axes of joint j's normal in the model's scalar, given in S (they depend on the model
// only, so a scalar that holds several rows at once needs no branch of its own for them)
template <class T, class S>
IKWB_HD void joint_planar_axes(const ModelView<T>& m, int j, Vec3<S>& e1, Vec3<S>& e2) {
  Vec3<T> a1, a2;
  planar_axes(m.joint_axis[j], a1, a2);
  e1 = cast<S>(a1);
  e2 = cast<S>(a2);
}

// scalar coordinate of a 1-dof joint, following a mimic source when there is one
template <class T, class S>
IKWB_HD S joint_scalar_coord(const ModelView<T>& m, int j, const S* q) {
  int src = m.joint_mimic[j];
  if (src >= 0) {
    return S(m.joint_mimic_multiplier[j]) * q[m.joint_q_start[src]] + S(m.joint_mimic_offset[j]);
  }
  return q[m.joint_q_start[j]];
}

// X_j(q): the motion of joint j's child frame relative to its parent frame
template <class T, class S>
IKWB_HD Transform<S> joint_motion(const ModelView<T>& m, int j, const S* q) {
  JointType type = JointType(m.joint_type[j]);
  Vec3<S> axis = cast<S>(m.joint_axis[j]);
  switch (type) {
    case JointType::kRevolute:
    case JointType::kContinuous:
      return {zero3<S>(), quat_from_axis_angle(axis, joint_scalar_coord(m, j, q))};
    case JointType::kPrismatic:
      return {joint_scalar_coord(m, j, q) * axis, quat_identity<S>()};
    case JointType::kBall: {
      const S* c = q + m.joint_q_start[j];
      return {zero3<S>(), normalize(Quat<S>{c[0], c[1], c[2], c[3]})};
    }
    case JointType::kFree: {
      const S* c = q + m.joint_q_start[j];
      return {Vec3<S>{c[0], c[1], c[2]}, normalize(Quat<S>{c[3], c[4], c[5], c[6]})};
    }
    case JointType::kPlanar: {
      const S* c = q + m.joint_q_start[j];
      Vec3<S> e1, e2;
      joint_planar_axes(m, j, e1, e2);
      return {c[0] * e1 + c[1] * e2, quat_from_axis_angle(axis, c[2])};
    }
    default:
      return transform_identity<S>();
  }
}

// world pose of joint j's parent-side frame, from the parent body's pose
template <class T, class S>
IKWB_HD Transform<S> joint_parent_frame(const ModelView<T>& m, int j, const Transform<S>* body_q) {
  int p = m.joint_parent[j];
  Transform<S> xp = cast<S>(m.joint_X_p[j]);
  return p >= 0 ? body_q[p] * xp : xp;
}

// the bits of x with its sign bit dropped: zero exactly for +0 and -0
template <class T>
IKWB_HD uint64_t magnitude_bits(T x) {
  static_assert(sizeof(T) == 8 || sizeof(T) == 4, "a float or a double");
  if constexpr (sizeof(T) == 8) {
    uint64_t b;
    memcpy(&b, &x, 8);
    return b << 1;
  } else {
    uint32_t b;
    memcpy(&b, &x, 4);
    return uint64_t(b << 1);
  }
}

// true when joint j's child frame X_c is the identity, as URDF child frames always are: its
// translation and the vector part of its rotation all zero, found by or-ing their bits (no
// floating-point chain and one branch; every FK and Jacobian column asks; NaN is not zero)
template <class T>
IKWB_HD bool joint_child_frame_is_identity(const ModelView<T>& m, int j) {
  const Transform<T>& xc = m.joint_X_c[j];
  return (magnitude_bits(xc.p.x) | magnitude_bits(xc.p.y) | magnitude_bits(xc.p.z) |
          magnitude_bits(xc.q.x) | magnitude_bits(xc.q.y) | magnitude_bits(xc.q.z)) == 0;
}

// pose of joint j's child body in its parent body's frame: X_p * X_j(q) * inv(X_c), composed
// without the products that are identities for the joint type (no rotation for a prismatic
// joint, no translation for a revolute one, nothing for a fixed one) and without inv(X_c) when
// X_c is the identity. It does not depend on the parent's pose, so FK's chain of dependent
// products (each body waits for its parent) is one composition per joint. A revolute joint's
// rotation is (sin_half * axis, cos_half), the sine and cosine of half its angle.
template <class T, class S>
IKWB_HD_FK_STEP Transform<S> joint_local_pose(const ModelView<T>& m, int j, const S* q, S sin_half,
                                              S cos_half) {
  Transform<S> x = cast<S>(m.joint_X_p[j]);
  switch (JointType(m.joint_type[j])) {
    case JointType::kFixed:
      break;
    case JointType::kRevolute:
    case JointType::kContinuous:
      x.q = x.q * Quat<S>{sin_half * S(m.joint_axis[j].x), sin_half * S(m.joint_axis[j].y),
                          sin_half * S(m.joint_axis[j].z), cos_half};
      break;
    case JointType::kPrismatic:
      x.p = x.p + rotate(x.q, joint_scalar_coord(m, j, q) * cast<S>(m.joint_axis[j]));
      break;
    default:
      x = x * joint_motion(m, j, q);
      break;
  }
  if (joint_child_frame_is_identity(m, j)) return x;
  return x * inverse(cast<S>(m.joint_X_c[j]));
}

// sin_half and cos_half of joint_local_pose: of half the angle of a revolute joint, 0 and 1
// for other joints
template <class T, class S>
IKWB_HD void joint_half_angle_sincos(const ModelView<T>& m, int j, const S* q, S& sin_half,
                                     S& cos_half) {
  JointType type = JointType(m.joint_type[j]);
  if (type == JointType::kRevolute || type == JointType::kContinuous) {
    sin_cos(joint_scalar_coord(m, j, q) * S(0.5), sin_half, cos_half);
  } else {
    sin_half = S(0);
    cos_half = S(1);
  }
}

// world pose of joint j's child body from its local pose: body_q[parent] * local (local itself
// at a root)
template <class T, class S>
IKWB_HD_FK_STEP Transform<S> joint_child_pose(const ModelView<T>& m, int j,
                                              const Transform<S>* body_q,
                                              const Transform<S>& local) {
  int p = m.joint_parent[j];
  return p >= 0 ? body_q[p] * local : local;
}

// FK runs over blocks of this many joints: first the sines and cosines of the block's revolute
// joints (independent of each other, so several are in flight at once), then the chain of
// local poses and compositions. Computing each sine just before its composition left the chain
// waiting on it. One joint at a time on the device (a block would live in local memory).
#if defined(__CUDA_ARCH__)
constexpr int kFkJointBlock = 1;
#else
constexpr int kFkJointBlock = 16;
#endif

// forward kinematics of one configuration over the n joints listed in joints (in model order,
// each joint's ancestors listed before it), or of the first n joints when joints is null: their
// child bodies' poses into body_q (body_count) from q (coord_count); other bodies are left as
// they are
template <class T, class S>
IKWB_HD void fk_row_joints(const ModelView<T>& m, const S* q, Transform<S>* body_q,
                           const int* joints, int n) {
  S sin_half[kFkJointBlock], cos_half[kFkJointBlock];
  for (int i0 = 0; i0 < n; i0 += kFkJointBlock) {
    const int c = n - i0 < kFkJointBlock ? n - i0 : kFkJointBlock;
    for (int k = 0; k < c; ++k) {
      const int j = joints ? joints[i0 + k] : i0 + k;
      joint_half_angle_sincos(m, j, q, sin_half[k], cos_half[k]);
    }
    for (int k = 0; k < c; ++k) {
      const int j = joints ? joints[i0 + k] : i0 + k;
      body_q[m.joint_child[j]] =
          joint_child_pose(m, j, body_q, joint_local_pose(m, j, q, sin_half[k], cos_half[k]));
    }
  }
}

// forward kinematics of one configuration: body_q (body_count) from q (coord_count).
// Bodies without a joint are left untouched.
template <class T, class S>
IKWB_HD void fk_row(const ModelView<T>& m, const S* q, Transform<S>* body_q) {
  fk_row_joints(m, q, body_q, static_cast<const int*>(nullptr), m.joint_count);
}

// Visits the motion-subspace columns of joint j (none for a fixed joint): for each of its dofs,
// f(step, dof, angular, world_axis, world_anchor, scale). An angular column moves a world point x
// by scale * axis x (x - anchor); a linear one by scale * axis. A mimic joint reports its source's
// dof with the mimic multiplier as scale, so callers must accumulate (+=). Ball, free and planar
// axes are fixed in the joint's parent frame (integrate_joint's left-multiplied convention).
template <class T, class S, class F>
IKWB_HD void visit_joint_columns(const ModelView<T>& m, const Transform<S>* body_q, int j, int step,
                                 F& f) {
  JointType type = JointType(m.joint_type[j]);
  if (type == JointType::kFixed) return;
  int src = m.joint_mimic[j];
  int dof = m.joint_qd_start[src >= 0 ? src : j];
  S scale = src >= 0 ? S(m.joint_mimic_multiplier[j]) : S(1);
  const bool axial = type == JointType::kRevolute || type == JointType::kContinuous ||
                     type == JointType::kPrismatic;
  if (axial && joint_child_frame_is_identity(m, j)) {
    // the joint frame is the child's, and a joint's own motion leaves its axis where it was:
    // the axis turned by the child's orientation, the anchor at the child's origin (no parent
    // frame to compose)
    const Transform<S>& x_child = body_q[m.joint_child[j]];
    f(step, dof, type != JointType::kPrismatic, rotate(x_child.q, cast<S>(m.joint_axis[j])),
      x_child.p, scale);
    return;
  }
  Transform<S> x_wpj = joint_parent_frame(m, j, body_q);
  Transform<S> x_c = cast<S>(m.joint_X_c[j]);
  Vec3<S> anchor = transform_point(body_q[m.joint_child[j]], x_c.p);
  switch (type) {
    case JointType::kRevolute:
    case JointType::kContinuous:
      f(step, dof, true, rotate(x_wpj.q, cast<S>(m.joint_axis[j])), anchor, scale);
      break;
    case JointType::kPrismatic:
      f(step, dof, false, rotate(x_wpj.q, cast<S>(m.joint_axis[j])), anchor, scale);
      break;
    case JointType::kBall:
      for (int k = 0; k < 3; ++k) {
        Vec3<S> e = zero3<S>();
        e[k] = S(1);
        f(step, dof + k, true, rotate(x_wpj.q, e), anchor, S(1));
      }
      break;
    case JointType::kFree:
      for (int k = 0; k < 3; ++k) {
        Vec3<S> e = zero3<S>();
        e[k] = S(1);
        Vec3<S> w = rotate(x_wpj.q, e);
        f(step, dof + k, false, w, anchor, S(1));
        f(step, dof + 3 + k, true, w, anchor, S(1));
      }
      break;
    case JointType::kPlanar: {
      Vec3<S> n = cast<S>(m.joint_axis[j]), e1, e2;
      planar_axes(n, e1, e2);
      f(step, dof, false, rotate(x_wpj.q, e1), anchor, S(1));
      f(step, dof + 1, false, rotate(x_wpj.q, e2), anchor, S(1));
      f(step, dof + 2, true, rotate(x_wpj.q, n), anchor, S(1));
      break;
    }
    default:
      break;
  }
}

// Visits the motion-subspace columns that move body `body` (visit_joint_columns of each moving
// ancestor joint), from the body's own joint towards the root: step counts the joints visited
// (0 = the body's; a larger step is nearer the root).
template <class T, class S, class F>
IKWB_HD void visit_chain_columns(const ModelView<T>& m, const Transform<S>* body_q, int body,
                                 F& f) {
  int j = body >= 0 ? m.body_joint[body] : -1;
  for (int step = 0; j >= 0; j = m.joint_ancestor[j], ++step)
    visit_joint_columns(m, body_q, j, step, f);
}

// visit_chain_columns without the step: f(dof, angular, world_axis, world_anchor, scale)
template <class F>
struct DropStep {
  F& f;
  template <class S>
  IKWB_HD void operator()(int, int dof, bool angular, const Vec3<S>& axis, const Vec3<S>& anchor,
                          S scale) {
    f(dof, angular, axis, anchor, scale);
  }
};
template <class T, class S, class F>
IKWB_HD void visit_body_columns(const ModelView<T>& m, const Transform<S>* body_q, int body, F& f) {
  DropStep<F> g{f};
  visit_chain_columns(m, body_q, body, g);
}

// Writes the world Jacobian of point x (world coordinates, rigidly attached to `body`) with
// respect to the dofs: lin (3 rows) and ang (3 rows), each row `ld` wide, row-major. Either
// pointer may be null. Rows are zeroed first.
template <class T, class S>
struct PointJacobianWriter {
  Vec3<S> x;
  S* lin;
  S* ang;
  int ld;
  IKWB_HD void operator()(int dof, bool angular, const Vec3<S>& axis, const Vec3<S>& anchor,
                          S scale) {
    Vec3<S> dl = angular ? cross(axis, x - anchor) : axis;
    for (int r = 0; r < 3; ++r) {
      if (lin) lin[r * ld + dof] += scale * dl[r];
      if (ang && angular) ang[r * ld + dof] += scale * axis[r];
    }
  }
};

template <class T, class S>
IKWB_HD void point_jacobian(const ModelView<T>& m, const Transform<S>* body_q, int body,
                            const Vec3<S>& x, S* lin, S* ang, int ld) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < m.dof_count; ++c) {
      if (lin) lin[r * ld + c] = S(0);
      if (ang) ang[r * ld + c] = S(0);
    }
  }
  PointJacobianWriter<T, S> w{x, lin, ang, ld};
  visit_body_columns(m, body_q, body, w);
}

// q_out = q_in (+) dq for one joint: additive for 1-dof and planar joints, exponential map for ball
// and free rotations (left-multiplied, in the X_wpj frame); quaternions stay normalised. Mimic and
// fixed joints have nothing to integrate. q_in and q_out may alias.
template <class T, class S>
IKWB_HD void integrate_joint(const ModelView<T>& m, int j, const S* q_in, const S* dq, S scale,
                             S* q_out) {
  if (m.joint_mimic[j] >= 0) return;
  int qs = m.joint_q_start[j];
  int ds = m.joint_qd_start[j];
  switch (JointType(m.joint_type[j])) {
    case JointType::kRevolute:
    case JointType::kContinuous:
    case JointType::kPrismatic:
      q_out[qs] = q_in[qs] + scale * dq[ds];
      break;
    case JointType::kPlanar:
      for (int k = 0; k < 3; ++k) q_out[qs + k] = q_in[qs + k] + scale * dq[ds + k];
      break;
    case JointType::kBall: {
      Quat<S> r{q_in[qs], q_in[qs + 1], q_in[qs + 2], q_in[qs + 3]};
      Vec3<S> w{scale * dq[ds], scale * dq[ds + 1], scale * dq[ds + 2]};
      Quat<S> n = normalize(quat_exp(w) * r);
      q_out[qs] = n.x, q_out[qs + 1] = n.y, q_out[qs + 2] = n.z, q_out[qs + 3] = n.w;
      break;
    }
    case JointType::kFree: {
      for (int k = 0; k < 3; ++k) q_out[qs + k] = q_in[qs + k] + scale * dq[ds + k];
      Quat<S> r{q_in[qs + 3], q_in[qs + 4], q_in[qs + 5], q_in[qs + 6]};
      Vec3<S> w{scale * dq[ds + 3], scale * dq[ds + 4], scale * dq[ds + 5]};
      Quat<S> n = normalize(quat_exp(w) * r);
      q_out[qs + 3] = n.x, q_out[qs + 4] = n.y, q_out[qs + 5] = n.z, q_out[qs + 6] = n.w;
      break;
    }
    default:
      break;
  }
}

// q_out = q_in (+) scale * dq for every joint. The 1-dof joints are added here (integrate_joint,
// with its case for every joint type, is not inlined: the call cost a 7-dof arm's LM step about
// 40 instructions a joint); the others go to integrate_joint.
template <class T, class S>
IKWB_HD void integrate_row(const ModelView<T>& m, const S* q_in, const S* dq, S scale, S* q_out) {
  for (int j = 0; j < m.joint_count; ++j) {
    const JointType type = JointType(m.joint_type[j]);
    if (type == JointType::kFixed || m.joint_mimic[j] >= 0) continue;
    if (type == JointType::kRevolute || type == JointType::kContinuous ||
        type == JointType::kPrismatic) {
      const int qs = m.joint_q_start[j];
      q_out[qs] = q_in[qs] + scale * dq[m.joint_qd_start[j]];
    } else {
      integrate_joint(m, j, q_in, dq, scale, q_out);
    }
  }
}

// How a joint-space difference takes a periodic joint's angle (ModelView::joint_periodic): as
// the shortest turn between the two configurations, or as the step integrate_row took (which
// may be longer than half a turn: LM's predicted decrease and L-BFGS's curvature pairs need the
// step their linear model was taken along).
enum class PeriodicAngle : int8_t { kShortestTurn, kAsStepped };

// dof-space difference a (-) b for every joint, so that b (+) out = a (rotations: log(a b^-1),
// a periodic joint's angle as `angle` says). b may have another scalar type than a (a
// dual-number a against a plain rest pose b).
template <PeriodicAngle angle, class T, class S, class U>
IKWB_HD void joint_space_difference(const ModelView<T>& m, const S* a, const U* b, S* out) {
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0) continue;
    int qs = m.joint_q_start[j];
    int ds = m.joint_qd_start[j];
    switch (JointType(m.joint_type[j])) {
      case JointType::kRevolute:
      case JointType::kContinuous:
      case JointType::kPrismatic:
        out[ds] = a[qs] - S(b[qs]);
        if (angle == PeriodicAngle::kShortestTurn && m.joint_periodic[j])
          out[ds] = wrap_angle(out[ds]);
        break;
      case JointType::kPlanar:
        for (int k = 0; k < 3; ++k) out[ds + k] = a[qs + k] - S(b[qs + k]);
        if (angle == PeriodicAngle::kShortestTurn) out[ds + 2] = wrap_angle(out[ds + 2]);
        break;
      case JointType::kBall:
      case JointType::kFree: {
        int off = 0;
        if (JointType(m.joint_type[j]) == JointType::kFree) {
          for (int k = 0; k < 3; ++k) out[ds + k] = a[qs + k] - S(b[qs + k]);
          off = 3;
        }
        Quat<S> qa{a[qs + off], a[qs + off + 1], a[qs + off + 2], a[qs + off + 3]};
        Quat<S> qb{S(b[qs + off]), S(b[qs + off + 1]), S(b[qs + off + 2]), S(b[qs + off + 3])};
        Vec3<S> d = quat_log(normalize(qa) * conjugate(normalize(qb)));
        for (int k = 0; k < 3; ++k) out[ds + off + k] = d[k];
        break;
      }
      default:
        break;
    }
  }
}

// a (-) b, the difference of two configurations (dof_count): a periodic joint's angle the
// shortest turn, in (-pi, pi], as Pinocchio's difference of an unbounded revolute joint (a
// posture pulls a continuous joint at 3.1 rad toward -3.1 rad across pi, 0.08 rad)
template <class T, class S, class U>
IKWB_HD void difference_row(const ModelView<T>& m, const S* a, const U* b, S* out) {
  joint_space_difference<PeriodicAngle::kShortestTurn>(m, a, b, out);
}

// the step (dof_count) that took b to a = b (+) step, a periodic joint's angle as it was stepped
template <class T, class S>
IKWB_HD void step_row(const ModelView<T>& m, const S* a, const S* b, S* out) {
  joint_space_difference<PeriodicAngle::kAsStepped>(m, a, b, out);
}

// the coordinate of joint j's periodic angle (joint_periodic): a 1-dof joint's only one, a
// planar joint's third; -1 for a joint without one
template <class T>
IKWB_HD int periodic_coord(const ModelView<T>& m, int j) {
  if (!m.joint_periodic[j]) return -1;
  return m.joint_q_start[j] + (JointType(m.joint_type[j]) == JointType::kPlanar ? 2 : 0);
}

// q (coord_count) with each periodic joint's angle brought into (-pi, pi] by whole turns: the
// same configuration (FK gives the same poses; a body's quaternion may change sign)
template <class T, class S>
IKWB_HD void wrap_row(const ModelView<T>& m, S* q) {
  for (int j = 0; j < m.joint_count; ++j)
    if (const int k = periodic_coord(m, j); k >= 0) q[k] = wrap_angle(q[k]);
}

// twist of joint j's child body (body_qd[child]) from its parent's twist, the child's new pose
// x_wc and the joint's rates (fk_row_masked with velocities)
template <class T, class S>
IKWB_HD void fk_joint_twist(const ModelView<T>& m, int j, const S* qd, const Transform<S>& x_wc,
                            const Transform<S>* body_q, Spatial<S>* body_qd) {
  int child = m.joint_child[j];
  int parent = m.joint_parent[j];
  Transform<S> x_wpj = joint_parent_frame(m, j, body_q);
  // parent twist at its COM (world frame), zero for the world
  Vec3<S> v_p = zero3<S>(), w_p = zero3<S>(), com_p = zero3<S>();
  if (parent >= 0) {
    v_p = body_qd[parent].lin;
    w_p = body_qd[parent].ang;
    com_p = transform_point(body_q[parent], cast<S>(m.body_com[parent]));
  }
  Vec3<S> anchor = transform_point(x_wc, cast<S>(m.joint_X_c[j].p));
  // joint-relative velocity of the anchor and angular velocity, world frame
  Vec3<S> v_rel = zero3<S>(), w_rel = zero3<S>();
  int src = m.joint_mimic[j];
  int ds = m.joint_qd_start[src >= 0 ? src : j];
  S rate = S(0);
  if (joint_type_dof_count(JointType(m.joint_type[j])) == 1)
    rate = src >= 0 ? S(m.joint_mimic_multiplier[j]) * qd[ds] : qd[ds];
  Vec3<S> axis_w = rotate(x_wpj.q, cast<S>(m.joint_axis[j]));
  switch (JointType(m.joint_type[j])) {
    case JointType::kRevolute:
    case JointType::kContinuous:
      w_rel = rate * axis_w;
      break;
    case JointType::kPrismatic:
      v_rel = rate * axis_w;
      break;
    case JointType::kBall:
      w_rel = rotate(x_wpj.q, Vec3<S>{qd[ds], qd[ds + 1], qd[ds + 2]});
      break;
    case JointType::kFree:
      v_rel = rotate(x_wpj.q, Vec3<S>{qd[ds], qd[ds + 1], qd[ds + 2]});
      w_rel = rotate(x_wpj.q, Vec3<S>{qd[ds + 3], qd[ds + 4], qd[ds + 5]});
      break;
    case JointType::kPlanar: {
      Vec3<S> e1, e2;
      joint_planar_axes(m, j, e1, e2);
      v_rel = rotate(x_wpj.q, qd[ds] * e1 + qd[ds + 1] * e2);
      w_rel = qd[ds + 2] * axis_w;
      break;
    }
    default:
      break;
  }
  Vec3<S> w_c = w_p + w_rel;
  Vec3<S> v_anchor = v_p + cross(w_p, anchor - com_p) + v_rel;
  Vec3<S> com_c = transform_point(x_wc, cast<S>(m.body_com[child]));
  body_qd[child] = Spatial<S>{v_anchor + cross(w_c, com_c - anchor), w_c};
}

// Masked forward kinematics of one configuration with velocities (eval_fk semantics).
// joint_selected (joint_count, nonzero = update) already combines the articulation filter and
// joint_mask; a selected joint whose child body does not match flag_filter is skipped too.
// A skipped joint leaves its child's body_q and body_qd untouched; an updated child reads its
// parent's current state, whether preserved or updated in this call. qd (dof_count) and
// body_qd may be null (poses only). body_qd is (v_com_world, omega_world).
template <class T, class S>
IKWB_HD void fk_row_masked(const ModelView<T>& m, const S* q, const S* qd,
                           const uint8_t* joint_selected, int flag_filter, Transform<S>* body_q,
                           Spatial<S>* body_qd) {
  S sin_half[kFkJointBlock], cos_half[kFkJointBlock];
  for (int j0 = 0; j0 < m.joint_count; j0 += kFkJointBlock) {
    const int n = m.joint_count - j0 < kFkJointBlock ? m.joint_count - j0 : kFkJointBlock;
    // the block's sines and cosines, then its updated joints in order (as fk_row)
    for (int k = 0; k < n; ++k)
      if (!joint_selected || joint_selected[j0 + k])
        joint_half_angle_sincos(m, j0 + k, q, sin_half[k], cos_half[k]);
    for (int k = 0; k < n; ++k) {
      const int j = j0 + k;
      if (joint_selected && !joint_selected[j]) continue;
      int child = m.joint_child[j];
      if (!(m.body_flags[child] & flag_filter)) continue;
      Transform<S> x_wc =
          joint_child_pose(m, j, body_q, joint_local_pose(m, j, q, sin_half[k], cos_half[k]));
      body_q[child] = x_wc;
      if (qd && body_qd) fk_joint_twist(m, j, qd, x_wc, body_q, body_qd);
    }
  }
}

}  // namespace ikwb
