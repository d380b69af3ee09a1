// A row's derivative as a few point terms, and the motion of every body along one dof vector.
// __host__ __device__, included by solver/objectives.hpp; both backends compile it.
//
// The rows of the support polygon and of the collision kinds each move with at most three
// points: a row's derivative is
//   dg . v = sum_t dir_t . xdot_t(v)
// over its terms t, xdot_t(v) the velocity of the term's point along the dof vector v (the centre
// of mass for a term without a body). LM sets such rows aside while they are inactive and only
// asks where a step takes their linear model (lm_row.hpp), so their terms answer that at the
// cost of one pass over the joints per step (body_motion) instead of a Jacobian row per
// iteration; a row that a step makes active gets its Jacobian row from the same terms
// (terms_row).
#pragma once

#include "engine/core/row_kinematics.hpp"
#include "solver/objective_whole_body.hpp"

namespace ikwb {

// the most terms one row has (a support polygon edge: the centre of mass and two contact points)
constexpr int kRowTermCap = 3;

// count of a row without terms (its Jacobian row is kept instead): kTermsNone, which lets an
// evaluator write them, or kTermsRefused (the row is active: its Jacobian row is wanted)
constexpr int kTermsNone = -1;
constexpr int kTermsRefused = -2;

// One row's terms: clear(), then add() each (a kind adds at most kRowTermCap a row).
template <class T>
struct RowTerms {
  int count = kTermsNone;
  int body[kRowTermCap];   // the point's body, -1 for the centre of mass
  Vec3<T> x[kRowTermCap];  // the point (world), unused for the centre of mass
  Vec3<T> dir[kRowTermCap];
  IKWB_HD void clear() { count = 0; }
  IKWB_HD void add(int b, const Vec3<T>& point, const Vec3<T>& d) {
    if (count >= kRowTermCap) return;
    body[count] = b;
    x[count] = point;
    dir[count] = d;
    ++count;
  }
  IKWB_HD void scale(T s) {
    for (int t = 0; t < count; ++t) dir[t] = s * dir[t];
  }
};

// One motion-subspace column of the model at a configuration (visit_joint_columns): along dof
// `dof`, the child body of joint `joint` (and its subtree) moves with angular velocity w and the
// velocity v0 of the point at the world origin moving with it, per unit of the dof, on top of the
// motion of the joint's ancestors. A point x of the body then moves by cross(w, x) + v0, and the
// centre of mass by com (the subtree's share of the mass moving so).
template <class T>
struct MotionColumn {
  int joint, dof;
  Vec3<T> w, v0, com;
};

// the most columns one joint has (a free joint)
constexpr int kMaxJointColumns = 6;

// The bodies' motion along dof vectors at one configuration, for the terms of rows set aside:
// the columns once per configuration (motion_columns), then one pass over them per dof vector
// (motion_along), kept for the last vector of each of two halves.
template <class T>
struct MotionBuffers {
  int count = -1;                      // columns at the current configuration, -1: none yet
  MotionColumn<T>* columns = nullptr;  // (kMaxJointColumns joint_count)
  int* joint_first = nullptr;          // (joint_count + 1) each joint's first column
  T* subtree_mass = nullptr;           // (joint_count) scratch: a joint's subtree's mass share
  Vec3<T>* subtree_moment = nullptr;   // (joint_count) and its share times centre of mass
  Vec3<T>* motion = nullptr;           // (4 body_count) body_motion of the two halves' vectors
  T* along = nullptr;                  // (2 dof_count) the vectors
  bool held[2] = {false, false};       // a half holds a vector's motion at this configuration
  Vec3<T> com_velocity[2];             // the centre of mass's velocity along each
};

// Every joint's columns at body_q, parents first (joint_ancestor[j] < j), into mb; forgets the
// motion held.
template <class T>
IKWB_HD void motion_columns(const ModelView<T>& m, const Transform<T>* body_q,
                            MotionBuffers<T>& mb) {
  int n = 0;
  for (int j = 0; j < m.joint_count; ++j) {
    mb.joint_first[j] = n;
    auto add = [&](int, int dof, bool angular, const Vec3<T>& axis, const Vec3<T>& anchor,
                   T scale) {
      MotionColumn<T>& c = mb.columns[n++];
      c.joint = j;
      c.dof = dof;
      c.w = angular ? scale * axis : zero3<T>();
      c.v0 = angular ? scale * cross(anchor, axis) : scale * axis;
    };
    visit_joint_columns(m, body_q, j, 0, add);
  }
  mb.joint_first[m.joint_count] = n;
  mb.count = n;
  // each joint's subtree (leaves first), as center_of_mass_jacobian gathers it
  const ComWeights<T> cw(m);
  const T inv_total = cw.total > T(0) ? T(1) / cw.total : T(0);
  for (int j = 0; j < m.joint_count; ++j) {
    const int b = m.joint_child[j];
    mb.subtree_mass[j] = inv_total * cw.weight(b);
    mb.subtree_moment[j] = mb.subtree_mass[j] * transform_point(body_q[b], m.body_com[b]);
  }
  for (int j = m.joint_count - 1; j >= 0; --j) {
    const int a = m.joint_ancestor[j];
    if (a < 0) continue;
    mb.subtree_mass[a] += mb.subtree_mass[j];
    mb.subtree_moment[a] += mb.subtree_moment[j];
  }
  for (int i = 0; i < n; ++i) {
    MotionColumn<T>& c = mb.columns[i];
    c.com = cross(c.w, mb.subtree_moment[c.joint]) + mb.subtree_mass[c.joint] * c.v0;
  }
  mb.held[0] = mb.held[1] = false;
}

// The bodies' motion along the dof vector v from mb's columns: motion (2 body_count) holds w then
// v0 for each body (zero for a body no joint moves). A body's motion is its parent joint's
// ancestors' plus that joint's columns times v, as its Jacobian columns are its joint chain's
// (visit_chain_columns).
template <class T>
IKWB_HD void body_motion(const ModelView<T>& m, const MotionBuffers<T>& mb, const T* v,
                         Vec3<T>* motion) {
  for (int b = 0; b < 2 * m.body_count; ++b) motion[b] = zero3<T>();
  for (int j = 0; j < m.joint_count; ++j) {
    const int body = m.joint_child[j], a = m.joint_ancestor[j];
    Vec3<T> w = zero3<T>(), v0 = zero3<T>();
    if (a >= 0) {
      w = motion[2 * m.joint_child[a]];
      v0 = motion[2 * m.joint_child[a] + 1];
    }
    for (int i = mb.joint_first[j]; i < mb.joint_first[j + 1]; ++i) {
      const MotionColumn<T>& c = mb.columns[i];
      w += v[c.dof] * c.w;
      v0 += v[c.dof] * c.v0;
    }
    motion[2 * body] = w;
    motion[2 * body + 1] = v0;
  }
}

// The bodies' motion along v (body_motion), in half `half` of mb (0 or 1): computed unless that
// half already holds v's at this configuration. Also sets mb.com_velocity[half].
template <class T>
IKWB_HD const Vec3<T>* motion_along(const ModelView<T>& m, MotionBuffers<T>& mb, const T* v,
                                    int half) {
  const int nv = m.dof_count;
  T* held = mb.along + half * nv;
  Vec3<T>* motion = mb.motion + 2 * half * m.body_count;
  bool same = mb.held[half];
  for (int c = 0; same && c < nv; ++c) same = held[c] == v[c];
  if (same) return motion;
  body_motion(m, mb, v, motion);
  Vec3<T> com = zero3<T>();
  for (int i = 0; i < mb.count; ++i) com += v[mb.columns[i].dof] * mb.columns[i].com;
  mb.com_velocity[half] = com;
  for (int c = 0; c < nv; ++c) held[c] = v[c];
  mb.held[half] = true;
  return motion;
}

// the velocity of point x moving with body b (body_motion), zero for b < 0
template <class T>
IKWB_HD Vec3<T> point_velocity(const Vec3<T>* motion, int b, const Vec3<T>& x) {
  if (b < 0) return zero3<T>();
  return cross(motion[2 * b], x) + motion[2 * b + 1];
}

// dg . v of a row from its terms; motion and com_velocity: motion_along v
template <class T>
IKWB_HD T terms_slope(const RowTerms<T>& t, const Vec3<T>* motion, const Vec3<T>& com_velocity) {
  T s = T(0);
  for (int k = 0; k < t.count; ++k)
    s += dot(t.dir[k], t.body[k] < 0 ? com_velocity : point_velocity(motion, t.body[k], t.x[k]));
  return s;
}

// The row's Jacobian row (dof_count values) from its terms and mb's columns at the row's
// configuration: a point term adds dir . (cross(w, x) + v0) for each column of its body's joint
// chain, a centre of mass term dir . com for every column.
template <class T>
IKWB_HD void terms_row(const ModelView<T>& m, const MotionBuffers<T>& mb, const RowTerms<T>& t,
                       T* row) {
  for (int c = 0; c < m.dof_count; ++c) row[c] = T(0);
  for (int k = 0; k < t.count; ++k) {
    const Vec3<T>& dir = t.dir[k];
    if (t.body[k] < 0) {
      for (int i = 0; i < mb.count; ++i) row[mb.columns[i].dof] += dot(dir, mb.columns[i].com);
      continue;
    }
    for (int j = m.body_joint[t.body[k]]; j >= 0; j = m.joint_ancestor[j])
      for (int i = mb.joint_first[j]; i < mb.joint_first[j + 1]; ++i) {
        const MotionColumn<T>& c = mb.columns[i];
        row[c.dof] += dot(dir, cross(c.w, t.x[k]) + c.v0);
      }
  }
}

}  // namespace ikwb
