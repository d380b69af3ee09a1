#include "engine/core/fk.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/core/lanes.hpp"
#include "engine/core/mesh.hpp"

namespace ikwb {

namespace {

void check_size(const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw ModelError(std::string(what) + ": expected " + std::to_string(want) + " values, got " +
                     std::to_string(got));
}

// revolute angle from a joint-motion quaternion about a unit axis, unwrapped near `near`
// (q and -q give angles 2 pi apart); among the angles within [lower, upper] when there are any
// (1e-9 rad of slack for the round-off of an angle at a limit)
double revolute_angle(const Quat<double>& q, const Vec3<double>& axis, double near,
                      double lower = -INFINITY, double upper = INFINITY) {
  constexpr double kTurn = 2.0 * M_PI, kSlack = 1e-9;
  const double a = 2.0 * std::atan2(q.x * axis.x + q.y * axis.y + q.z * axis.z, q.w);
  double k = std::round((near - a) / kTurn);
  if (std::isfinite(lower) && std::isfinite(upper)) {
    const double k_low = std::ceil((lower - kSlack - a) / kTurn);
    const double k_high = std::floor((upper + kSlack - a) / kTurn);
    if (k_low <= k_high) k = std::clamp(k, k_low, k_high);
  }
  return a + kTurn * k;
}

// The joint coordinate of a 1-dof joint from its relative motion x_j (a revolute's angle in
// (-2 pi, 2 pi], a prismatic's offset)
double scalar_coordinate(const Transform<double>& x_j, const Vec3<double>& axis, JointType type) {
  if (type == JointType::kPrismatic) return dot(x_j.p, axis);
  return 2.0 * std::atan2(x_j.q.x * axis.x + x_j.q.y * axis.y + x_j.q.z * axis.z, x_j.q.w);
}

// joint j's motion relative to its parent frame, from the body poses
Transform<double> joint_relative_motion(const Model& model, int j,
                                        const Transform<double>* body_q) {
  const Transform<double> x_wpj = joint_parent_frame(model.view(), j, body_q);
  return inverse(x_wpj) * (body_q[model.joint_child[j]] * model.joint_X_c[j]);
}

// A revolute joint's own bodies give its angle up to whole turns; a mimic joint that slides with
// it, or turns a fraction of a turn with it, tells the turns apart. Among theta + 2 pi n within
// [lower, upper], the angle whose mimics (`mimics`, each following joint j) reproduce their
// bodies' poses best, the closest to `near` among equally good ones. theta: the angle nearest
// `near` (revolute_angle).
double turn_from_mimics(const Model& model, const std::vector<int>& mimics,
                        const Transform<double>* body_q, double theta, double near, double lower,
                        double upper) {
  constexpr double kTurn = 2.0 * M_PI, kSlack = 1e-9, kSame = 1e-9;
  constexpr int kTurns = 64;  // candidates either side: a multiplier's denominator up to 64
  std::vector<double> measured(mimics.size());
  for (std::size_t i = 0; i < mimics.size(); ++i) {
    const int jm = mimics[i];
    measured[i] = scalar_coordinate(joint_relative_motion(model, jm, body_q), model.joint_axis[jm],
                                    JointType(model.joint_type[jm]));
  }
  double best = theta, best_miss = INFINITY;
  for (int n = -kTurns; n <= kTurns; ++n) {
    const double t = theta + kTurn * n;
    if (t < lower - kSlack || t > upper + kSlack) continue;
    double miss = 0;
    for (std::size_t i = 0; i < mimics.size(); ++i) {
      const int jm = mimics[i];
      const double v =
          model.joint_mimic_multiplier[jm] * t + model.joint_mimic_offset[jm] - measured[i];
      miss += JointType(model.joint_type[jm]) == JointType::kPrismatic ? std::abs(v)
                                                                       : std::abs(wrap_angle(v));
    }
    if (miss < best_miss - kSame ||
        (miss < best_miss + kSame && std::abs(t - near) < std::abs(best - near))) {
      best = t;
      best_miss = std::min(miss, best_miss);
    }
  }
  return best;
}

// for each joint, the mimic joints that tell its turns apart: those that slide with it or turn
// by a multiplier that is not a whole number (empty when the model has none)
std::vector<std::vector<int>> turn_telling_mimics(const Model& model) {
  std::vector<std::vector<int>> out;
  for (int jm = 0; jm < model.joint_count; ++jm) {
    const int src = model.joint_mimic[jm];
    if (src < 0) continue;
    const double k = model.joint_mimic_multiplier[jm];
    if (JointType(model.joint_type[jm]) != JointType::kPrismatic && k == std::nearbyint(k))
      continue;
    out.resize(model.joint_count);
    out[src].push_back(jm);
  }
  return out;
}

// the joint selection of eval_fk's filters, or an empty one (every joint) without any
std::vector<uint8_t> selection_or_all(const Model& m, const FkOptions& o, const char* caller) {
  if (!o.mask && !o.indices && !o.joint_mask) return {};
  return fk_joint_selection(m, o, caller);
}

const uint8_t* data_or_null(const std::vector<uint8_t>& v) {
  return v.empty() ? nullptr : v.data();
}

// kLanes rows of a batch in the lanes of Lanes4 (lanes.hpp): each row's coordinates (and
// rates) and current body states gathered into its lane, one fk_row_masked for all of them, the
// states scattered back. Every lane takes the scalar call's operations, so the rows get the
// values kLanes scalar calls give, bit for bit.
class LaneRows {
 public:
  LaneRows(const Model& m, bool vel)
      : nq_(m.coord_count),
        nv_(m.dof_count),
        nb_(m.body_count),
        q_(nq_),
        qd_(vel ? nv_ : 0),
        body_q_(nb_),
        body_qd_(vel ? nb_ : 0) {}

  // rows r .. r + kLanes - 1 of the batch's arrays (row-major, as eval_fk_batch takes them)
  void run(const ModelView<double>& v, std::size_t r, const double* q, const double* qd,
           const uint8_t* sel, int filter, Transform<double>* body_q, Spatial<double>* body_qd) {
    const bool vel = !qd_.empty();
    for (int l = 0; l < kLanes; ++l) {
      const std::size_t row = r + std::size_t(l);
      for (int i = 0; i < nq_; ++i) q_[i].set_lane(l, q[row * nq_ + i]);
      for (int i = 0; vel && i < nv_; ++i) qd_[i].set_lane(l, qd[row * nv_ + i]);
      for (int b = 0; b < nb_; ++b) {
        put(body_q_[b], l, body_q[row * nb_ + b]);
        if (vel) put(body_qd_[b], l, body_qd[row * nb_ + b]);
      }
    }
    fk_row_masked(v, q_.data(), vel ? qd_.data() : nullptr, sel, filter, body_q_.data(),
                  vel ? body_qd_.data() : nullptr);
    for (int l = 0; l < kLanes; ++l) {
      const std::size_t row = r + std::size_t(l);
      for (int b = 0; b < nb_; ++b) {
        body_q[row * nb_ + b] = get(body_q_[b], l);
        if (vel) body_qd[row * nb_ + b] = get(body_qd_[b], l);
      }
    }
  }

 private:
  static void put(Vec3<Lanes4>& d, int l, const Vec3<double>& s) {
    d.x.set_lane(l, s.x), d.y.set_lane(l, s.y), d.z.set_lane(l, s.z);
  }
  static void put(Transform<Lanes4>& d, int l, const Transform<double>& s) {
    put(d.p, l, s.p);
    d.q.x.set_lane(l, s.q.x), d.q.y.set_lane(l, s.q.y), d.q.z.set_lane(l, s.q.z);
    d.q.w.set_lane(l, s.q.w);
  }
  static void put(Spatial<Lanes4>& d, int l, const Spatial<double>& s) {
    put(d.lin, l, s.lin);
    put(d.ang, l, s.ang);
  }
  static Vec3<double> get(const Vec3<Lanes4>& s, int l) {
    return {s.x.lane(l), s.y.lane(l), s.z.lane(l)};
  }
  static Transform<double> get(const Transform<Lanes4>& s, int l) {
    return {get(s.p, l), {s.q.x.lane(l), s.q.y.lane(l), s.q.z.lane(l), s.q.w.lane(l)}};
  }
  static Spatial<double> get(const Spatial<Lanes4>& s, int l) {
    return {get(s.lin, l), get(s.ang, l)};
  }

  int nq_, nv_, nb_;
  std::vector<Lanes4> q_, qd_;
  std::vector<Transform<Lanes4>> body_q_;
  std::vector<Spatial<Lanes4>> body_qd_;
};

}  // namespace

std::vector<uint8_t> fk_joint_selection(const Model& m, const FkOptions& o, const char* caller) {
  const std::string c = caller;
  if (o.mask && o.indices) throw ModelError(c + ": give either mask or indices, not both");
  std::vector<uint8_t> art(m.articulation_count, o.mask || o.indices ? 0 : 1);
  if (o.mask) {
    check_size((c + " mask (articulation_count)").c_str(), o.mask->size(), m.articulation_count);
    for (int a = 0; a < m.articulation_count; ++a) art[a] = (*o.mask)[a] ? 1 : 0;
  }
  if (o.indices) {
    for (int a : *o.indices) {
      if (a < 0 || a >= m.articulation_count)
        throw ModelError(c + " indices: articulation " + std::to_string(a) + " out of range [0, " +
                         std::to_string(m.articulation_count) + ")");
      art[a] = 1;
    }
  }
  if (o.joint_mask)
    check_size((c + " joint_mask (joint_count)").c_str(), o.joint_mask->size(), m.joint_count);
  std::vector<uint8_t> sel(m.joint_count, 0);
  for (int a = 0; a < m.articulation_count; ++a) {
    if (!art[a]) continue;
    for (int j = m.articulation_start[a]; j < m.articulation_start[a + 1]; ++j)
      sel[j] = !o.joint_mask || (*o.joint_mask)[j] ? 1 : 0;
  }
  return sel;
}

State::State(const Model& m)
    : body_q(m.body_count, transform_identity<double>()),
      body_qd(m.body_count, Spatial<double>{zero3<double>(), zero3<double>()}) {}

void eval_fk(const Model& model, const std::vector<double>& joint_q,
             const std::vector<double>& joint_qd, State& state, const FkOptions& options) {
  check_size("eval_fk joint_q (joint_coord_count)", joint_q.size(), model.coord_count);
  if (!joint_qd.empty())
    check_size("eval_fk joint_qd (joint_dof_count)", joint_qd.size(), model.dof_count);
  check_size("eval_fk state.body_q (body_count)", state.body_q.size(), model.body_count);
  check_size("eval_fk state.body_qd (body_count)", state.body_qd.size(), model.body_count);
  std::vector<uint8_t> sel = selection_or_all(model, options, "eval_fk");
  fk_row_masked(model.view(), joint_q.data(), joint_qd.empty() ? nullptr : joint_qd.data(),
                data_or_null(sel), options.body_flag_filter, state.body_q.data(),
                joint_qd.empty() ? nullptr : state.body_qd.data());
}

void eval_fk_batch(const Model& model, int n_batch, const std::vector<double>& joint_q,
                   const std::vector<double>& joint_qd, std::vector<Transform<double>>& body_q,
                   std::vector<Spatial<double>>& body_qd, const FkOptions& options) {
  if (n_batch < 0) throw ModelError("eval_fk_batch: n_batch must be >= 0");
  std::size_t nb = std::size_t(n_batch);
  check_size("eval_fk_batch joint_q (n_batch x joint_coord_count)", joint_q.size(),
             nb * model.coord_count);
  bool vel = !joint_qd.empty();
  if (vel) {
    check_size("eval_fk_batch joint_qd (n_batch x joint_dof_count)", joint_qd.size(),
               nb * model.dof_count);
    check_size("eval_fk_batch body_qd (n_batch x body_count)", body_qd.size(),
               nb * model.body_count);
  }
  check_size("eval_fk_batch body_q (n_batch x body_count)", body_q.size(), nb * model.body_count);
  std::vector<uint8_t> sel = selection_or_all(model, options, "eval_fk");
  fk_rows(model, nb, joint_q.data(), vel ? joint_qd.data() : nullptr, data_or_null(sel),
          options.body_flag_filter, body_q.data(), vel ? body_qd.data() : nullptr);
}

void fk_rows(const Model& model, std::size_t n, const double* joint_q, const double* joint_qd,
             const uint8_t* joint_selected, int body_flag_filter, Transform<double>* body_q,
             Spatial<double>* body_qd) {
  const ModelView<double> v = model.view();
  const bool vel = joint_qd != nullptr;
  std::size_t r = 0;
  if (n >= std::size_t(kLanes)) {
    LaneRows lanes(model, vel);
    for (; r + kLanes <= n; r += kLanes)
      lanes.run(v, r, joint_q, joint_qd, joint_selected, body_flag_filter, body_q, body_qd);
  }
  for (; r < n; ++r)
    fk_row_masked(v, joint_q + r * model.coord_count,
                  vel ? joint_qd + r * model.dof_count : nullptr, joint_selected, body_flag_filter,
                  body_q + r * model.body_count, vel ? body_qd + r * model.body_count : nullptr);
}

void eval_ik(const Model& model, const State& state, std::vector<double>& joint_q,
             std::vector<double>* joint_qd) {
  check_size("eval_ik joint_q (joint_coord_count)", joint_q.size(), model.coord_count);
  check_size("eval_ik state.body_q (body_count)", state.body_q.size(), model.body_count);
  if (joint_qd) {
    check_size("eval_ik state.body_qd (body_count)", state.body_qd.size(), model.body_count);
    joint_qd->assign(model.dof_count, 0.0);
  }
  ModelView<double> m = model.view();
  // the poses with unit quaternions: one 0.1 % long put a slide's coordinate 0.13 mm off (its
  // relative translation scales with the squared norm)
  std::vector<Transform<double>> body_q = state.body_q;
  for (Transform<double>& x : body_q) x.q = normalize_unless_unit(x.q);
  const std::vector<std::vector<int>> telling = turn_telling_mimics(model);
  for (int j = 0; j < model.joint_count; ++j) {
    if (model.joint_mimic[j] >= 0) continue;
    JointType type = JointType(model.joint_type[j]);
    if (type == JointType::kFixed) continue;
    int child = model.joint_child[j], parent = model.joint_parent[j];
    int qs = model.joint_q_start[j], ds = model.joint_qd_start[j];
    Transform<double> x_wpj = joint_parent_frame(m, j, body_q.data());
    Transform<double> x_wcj = body_q[child] * model.joint_X_c[j];
    Transform<double> x_j = inverse(x_wpj) * x_wcj;
    const Vec3<double>& axis = model.joint_axis[j];
    switch (type) {
      case JointType::kRevolute:
      case JointType::kContinuous: {
        // no usable previous value: unwrap near the middle of the limits (0 when unlimited)
        const bool limited = model.has_limits(ds);
        double near = joint_q[qs];
        if (!std::isfinite(near))
          near = limited ? 0.5 * (model.dof_lower[ds] + model.dof_upper[ds]) : 0.0;
        const double lower = limited ? model.dof_lower[ds] : -INFINITY;
        const double upper = limited ? model.dof_upper[ds] : INFINITY;
        joint_q[qs] = revolute_angle(x_j.q, axis, near, lower, upper);
        if (!telling.empty() && !telling[j].empty())
          joint_q[qs] =
              turn_from_mimics(model, telling[j], body_q.data(), joint_q[qs], near, lower, upper);
        break;
      }
      case JointType::kPrismatic:
        joint_q[qs] = dot(x_j.p, axis);
        break;
      case JointType::kBall: {
        Quat<double> r = normalize(x_j.q);
        joint_q[qs] = r.x, joint_q[qs + 1] = r.y, joint_q[qs + 2] = r.z, joint_q[qs + 3] = r.w;
        break;
      }
      case JointType::kPlanar: {
        // the part of the relative pose the joint can produce: in-plane offset, angle about
        // the normal (unwrapped near the previous value, or 0)
        Vec3<double> e1, e2;
        planar_axes(axis, e1, e2);
        double near = std::isfinite(joint_q[qs + 2]) ? joint_q[qs + 2] : 0.0;
        joint_q[qs] = dot(x_j.p, e1), joint_q[qs + 1] = dot(x_j.p, e2);
        joint_q[qs + 2] = revolute_angle(x_j.q, axis, near);
        break;
      }
      case JointType::kFree: {
        Quat<double> r = normalize(x_j.q);
        joint_q[qs] = x_j.p.x, joint_q[qs + 1] = x_j.p.y, joint_q[qs + 2] = x_j.p.z;
        joint_q[qs + 3] = r.x, joint_q[qs + 4] = r.y, joint_q[qs + 5] = r.z, joint_q[qs + 6] = r.w;
        break;
      }
      default:
        break;
    }
    if (!joint_qd) continue;
    // relative twist of the child at the anchor, seen in the X_wpj frame
    Vec3<double> anchor = x_wcj.p;
    Vec3<double> v_p = zero3<double>(), w_p = zero3<double>(), com_p = zero3<double>();
    if (parent >= 0) {
      v_p = state.body_qd[parent].lin;
      w_p = state.body_qd[parent].ang;
      com_p = transform_point(body_q[parent], model.body_com[parent]);
    }
    Vec3<double> com_c = transform_point(body_q[child], model.body_com[child]);
    const Spatial<double>& tc = state.body_qd[child];
    Vec3<double> w_rel = rotate_inv(x_wpj.q, tc.ang - w_p);
    Vec3<double> v_rel = rotate_inv(
        x_wpj.q, (tc.lin + cross(tc.ang, anchor - com_c)) - (v_p + cross(w_p, anchor - com_p)));
    std::vector<double>& qd = *joint_qd;
    switch (type) {
      case JointType::kRevolute:
      case JointType::kContinuous:
        qd[ds] = dot(w_rel, axis);
        break;
      case JointType::kPrismatic:
        qd[ds] = dot(v_rel, axis);
        break;
      case JointType::kBall:
        for (int k = 0; k < 3; ++k) qd[ds + k] = w_rel[k];
        break;
      case JointType::kFree:
        for (int k = 0; k < 3; ++k) qd[ds + k] = v_rel[k], qd[ds + 3 + k] = w_rel[k];
        break;
      case JointType::kPlanar: {
        Vec3<double> e1, e2;
        planar_axes(axis, e1, e2);
        qd[ds] = dot(v_rel, e1), qd[ds + 1] = dot(v_rel, e2), qd[ds + 2] = dot(w_rel, axis);
        break;
      }
      default:
        break;
    }
  }
}

std::vector<int> joint_descendants(const Model& model, int joint) {
  if (joint < 0 || joint >= model.joint_count)
    throw ModelError("joint_descendants: joint index " + std::to_string(joint) + " out of range");
  std::vector<uint8_t> below(model.joint_count, 0);
  std::vector<int> out;
  below[joint] = 1;
  for (int j = joint + 1; j < model.joint_count; ++j) {
    int a = model.joint_ancestor[j];
    if (a >= 0 && below[a]) {
      below[j] = 1;
      out.push_back(j);
    }
  }
  return out;
}

std::vector<uint8_t> branch_joint_mask(const Model& model, int joint, bool with_descendants) {
  std::vector<uint8_t> mask(model.joint_count, 0);
  if (joint < 0 || joint >= model.joint_count)
    throw ModelError("branch_joint_mask: joint index " + std::to_string(joint) + " out of range");
  // a joint that mimics a selected one moves with it: it joins, with its descendants when
  // those are asked for, until no more join (a mimic of a mimic)
  std::vector<int> add = {joint};
  while (!add.empty()) {
    const int a = add.back();
    add.pop_back();
    if (mask[a]) continue;
    mask[a] = 1;
    if (with_descendants)
      for (int j : joint_descendants(model, a)) add.push_back(j);
    for (int j = 0; j < model.joint_count; ++j)
      if (model.joint_mimic[j] >= 0 && mask[model.joint_mimic[j]]) add.push_back(j);
  }
  return mask;
}

std::vector<double> point_jacobian_world(const Model& model,
                                         const std::vector<Transform<double>>& body_q, int body,
                                         const Vec3<double>& offset) {
  check_size("point_jacobian_world body_q (body_count)", body_q.size(), model.body_count);
  if (body < 0 || body >= model.body_count)
    throw ModelError("point_jacobian_world: body index " + std::to_string(body) + " out of range");
  std::vector<double> jac(6 * std::size_t(model.dof_count), 0.0);
  Vec3<double> x = transform_point(body_q[body], offset);
  point_jacobian(model.view(), body_q.data(), body, x, jac.data(), jac.data() + 3 * model.dof_count,
                 model.dof_count);
  return jac;
}

namespace {

// The lowest world z of shape g on a body at pose x; +inf when the shape cannot say (a mesh that
// was not loaded). Boxes by their corners, spheres and cylinders exactly, meshes by their vertices.
double lowest_z(const Geometry& g, const Transform<double>& x) {
  const Transform<double> w = x * g.origin;
  switch (g.type) {
    case GeometryType::kSphere:
      return w.p.z - g.size.x;
    case GeometryType::kCylinder: {
      // the rim of the lower end: its centre less the radius times the axis's horizontal part
      const Vec3<double> axis = rotate(w.q, Vec3<double>{0.0, 0.0, 1.0});
      const double rim = g.size.x * std::sqrt(std::max(0.0, 1.0 - axis.z * axis.z));
      return w.p.z - 0.5 * g.size.y * std::abs(axis.z) - rim;
    }
    case GeometryType::kBox: {
      double lowest = HUGE_VAL;
      for (int c = 0; c < 8; ++c) {
        const Vec3<double> corner{(c & 1 ? 0.5 : -0.5) * g.size.x, (c & 2 ? 0.5 : -0.5) * g.size.y,
                                  (c & 4 ? 0.5 : -0.5) * g.size.z};
        lowest = std::min(lowest, transform_point(w, corner).z);
      }
      return lowest;
    }
    case GeometryType::kMesh: {
      if (!g.mesh) return HUGE_VAL;
      double lowest = HUGE_VAL;
      const std::vector<float>& p = g.mesh->positions;
      for (std::size_t i = 0; i + 2 < p.size(); i += 3) {
        const Vec3<double> v{p[i] * g.mesh_scale.x, p[i + 1] * g.mesh_scale.y,
                             p[i + 2] * g.mesh_scale.z};
        lowest = std::min(lowest, transform_point(w, v).z);
      }
      return lowest;
    }
  }
  return HUGE_VAL;
}

// The lowest world z of body b at pose x: its collision shapes (its visuals when it has none);
// where those cannot say, its collision capsules; else its origin.
double body_lowest_z(const Model& m, int b, const Transform<double>& x) {
  const std::vector<Geometry>& shapes =
      !m.body_collisions[b].empty() ? m.body_collisions[b] : m.body_visuals[b];
  double lowest = HUGE_VAL;
  for (const Geometry& g : shapes) lowest = std::min(lowest, lowest_z(g, x));
  if (std::isfinite(lowest)) return lowest;
  if (m.collision.body_first.empty() || m.collision.body_first[b] == m.collision.body_first[b + 1])
    return x.p.z;
  for (int c = m.collision.body_first[b]; c < m.collision.body_first[b + 1]; ++c) {
    const LinkCapsule<double>& cap = m.collision.capsules[c];
    lowest = std::min(
        lowest, std::min(transform_point(x, cap.p0).z, transform_point(x, cap.p1).z) - cap.radius);
  }
  return lowest;
}

}  // namespace

std::vector<double> standing_configuration(const Model& m) {
  return standing_configuration(m, m.neutral_configuration());
}

std::vector<double> standing_configuration(const Model& m, std::vector<double> q,
                                           const std::vector<int>* roots) {
  check_size("standing_configuration q (joint_coord_count)", q.size(), m.coord_count);
  State s(m);
  eval_fk(m, q, {}, s);
  // a free joint floats from the world when every joint above it is fixed (a URDF's floating
  // joint below a fixed `world` link: the H1's legs stood through the grid)
  auto floats_from_world = [&](int j) {
    for (int a = m.joint_ancestor[j]; a >= 0; a = m.joint_ancestor[a])
      if (m.joint_qd_start[a + 1] > m.joint_qd_start[a]) return false;
    return true;
  };
  for (int j = 0; j < m.joint_count; ++j) {
    if (JointType(m.joint_type[j]) != JointType::kFree || !floats_from_world(j)) continue;
    if (roots && std::find(roots->begin(), roots->end(), j) == roots->end()) continue;
    double lowest = HUGE_VAL;
    for (int b = 0; b < m.body_count; ++b) {
      int root = m.body_joint[b];
      while (root >= 0 && root != j) root = m.joint_ancestor[root];
      if (root != j) continue;
      lowest = std::min(lowest, body_lowest_z(m, b, s.body_q[b]));
    }
    if (!std::isfinite(lowest) || lowest >= 0) continue;
    // the free joint's translation is in its parent-side frame (where the file places the root)
    const Vec3<double> up = rotate_inv(m.joint_X_p[j].q, Vec3<double>{0.0, 0.0, -lowest});
    double* c = q.data() + m.joint_q_start[j];
    c[0] += up.x;
    c[1] += up.y;
    c[2] += up.z;
  }
  return q;
}

}  // namespace ikwb
