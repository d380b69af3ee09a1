#include "solver/scene_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/fk.hpp"
#include "solver/objective_report.hpp"
#include "solver/objective_whole_body.hpp"
#include "solver/objectives.hpp"

namespace ikwb {

void apply_joint_map(const Model& m, const JointMap& values, const std::string& what,
                     std::vector<double>& q, std::vector<std::string>& warnings) {
  for (const auto& [name, v] : values) {
    int j = m.find_joint(name);
    if (j < 0) {
      warnings.push_back(what + ": unknown joint '" + name + "' ignored");
      continue;
    }
    int n = m.joint_q_start[j + 1] - m.joint_q_start[j];
    if (int(v.size()) != n) {
      warnings.push_back(what + ": joint '" + name + "' takes " + std::to_string(n) +
                         " values, got " + std::to_string(v.size()));
      continue;
    }
    // a ball or free joint's rotation: renormalised; none (a zero quaternion, NaN) is refused
    const JointType t = JointType(m.joint_type[j]);
    if (t == JointType::kBall || t == JointType::kFree) {
      const std::size_t at = t == JointType::kFree ? 3 : 0;
      const Quat<double> r{v[at], v[at + 1], v[at + 2], v[at + 3]};
      if (!(quat_norm(r) > 1e-9) || !std::isfinite(quat_norm(r))) {
        warnings.push_back(what + ": joint '" + name +
                           "': its quaternion has no rotation (zero or not finite), ignored");
        continue;
      }
      std::copy(v.begin(), v.end(), q.begin() + m.joint_q_start[j]);
      const Quat<double> u = normalize_unless_unit(r);
      double* c = q.data() + m.joint_q_start[j] + at;
      c[0] = u.x, c[1] = u.y, c[2] = u.z, c[3] = u.w;
      continue;
    }
    std::copy(v.begin(), v.end(), q.begin() + m.joint_q_start[j]);
  }
}

JointMap joint_map(const Model& m, const std::vector<double>& q) {
  JointMap out;
  for (int j = 0; j < m.joint_count; ++j) {
    int a = m.joint_q_start[j], b = m.joint_q_start[j + 1];
    if (b > a) out[m.joint_name[j]] = std::vector<double>(q.begin() + a, q.begin() + b);
  }
  return out;
}

void clamp_to_limits(const Model& m, std::vector<double>& q) {
  clamp_to_limits(m, m.dof_lower, m.dof_upper, q);
}

void clamp_to_limits(const Model& m, const std::vector<double>& lower,
                     const std::vector<double>& upper, std::vector<double>& q) {
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_coord_count(JointType(m.joint_type[j])) != 1) continue;
    int d = m.joint_qd_start[j];
    double& v = q[m.joint_q_start[j]];
    v = std::min(std::max(v, lower[d]), upper[d]);
  }
}

namespace {
constexpr double kLimitRounding = 1e-9;  // rad or m
// a value in messages: 3.1416, not 3.141593
std::string printf_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5g", v);
  return buf;
}
}  // namespace

int clamp_to_limits_named(const Model& m, const std::vector<double>& lower,
                          const std::vector<double>& upper, std::vector<double>& q,
                          const std::string& where, std::vector<std::string>& warnings) {
  const std::vector<double> given = q;
  clamp_to_limits(m, lower, upper, q);
  int moved = 0;
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_coord_count(JointType(m.joint_type[j])) != 1) continue;
    const std::size_t c = std::size_t(m.joint_q_start[j]);
    // a value a rounding past its limit (a file's last digit) is moved without a word: the
    // warning read "2.8973 is beyond its limits, set to 2.8973"
    if (std::fabs(q[c] - given[c]) <= kLimitRounding) continue;
    warnings.push_back(where + ": joint '" + m.joint_name[j] + "': " + printf_number(given[c]) +
                       " is beyond its limits, set to " + printf_number(q[c]));
    ++moved;
  }
  return moved;
}

namespace {

// the shape's points that may touch the floor, in its own frame: a box's or a bounding box's
// eight corners, a sphere's centre (the radius is handled by the caller)
std::vector<Vec3<double>> shape_corners(const Geometry& g) {
  Vec3<double> lo{0, 0, 0}, hi{0, 0, 0};
  switch (g.type) {
    case GeometryType::kBox:
      hi = 0.5 * g.size;
      lo = -hi;
      break;
    case GeometryType::kCylinder:
      hi = {g.size.x, g.size.x, 0.5 * g.size.y};
      lo = -hi;
      break;
    case GeometryType::kSphere:
      return {{0, 0, 0}};
    case GeometryType::kMesh: {
      if (!g.mesh || g.mesh->vertex_count() == 0) return {};
      const auto& p = g.mesh->positions;
      lo = hi = {p[0] * g.mesh_scale.x, p[1] * g.mesh_scale.y, p[2] * g.mesh_scale.z};
      for (std::size_t i = 0; i < g.mesh->vertex_count(); ++i)
        for (int k = 0; k < 3; ++k) {
          double v = p[3 * i + k] * g.mesh_scale[k];
          lo[k] = std::min(lo[k], v);
          hi[k] = std::max(hi[k], v);
        }
      break;
    }
  }
  std::vector<Vec3<double>> out;
  for (int c = 0; c < 8; ++c)
    out.push_back({c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z});
  return out;
}

// The part of the convex polygon (xy, counter-clockwise) where a . (x, y) <= c, in place
void clip_half_plane(std::vector<Vec3<double>>& poly, double ax, double ay, double c) {
  std::vector<Vec3<double>> out;
  const std::size_t n = poly.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3<double>& p = poly[i];
    const Vec3<double>& q = poly[(i + 1) % n];
    const double fp = ax * p.x + ay * p.y - c, fq = ax * q.x + ay * q.y - c;
    if (fp <= 0) out.push_back(p);
    if ((fp < 0 && fq > 0) || (fp > 0 && fq < 0)) {
      const double t = fp / (fp - fq);
      out.push_back({p.x + t * (q.x - p.x), p.y + t * (q.y - p.y), 0});
    }
  }
  poly = std::move(out);
}

// The widest margin a support polygon allows: the radius of the largest circle inside the hull
// the solver's rows see (support_hull of the contact points at body_q; the support_polygon rows,
// g_i = n_i . (c - a_i) + margin <= 0, all hold somewhere only up to it); -1 when the hull has no
// area (the margin does not apply). Bisection on the margin, each step clipping the hull by
// every edge moved inward by it (to 1e-6 of the polygon's size).
double support_margin_room(const std::vector<LinkPoint<double>>& points,
                           const std::vector<Transform<double>>& body_q) {
  std::vector<Vec3<double>> world(kMaxContactPoints);
  std::vector<int> hull(kMaxContactPoints);
  const int h =
      support_hull(points.data(), int(points.size()), body_q.data(), world.data(), hull.data());
  if (h < 3) return -1;
  std::vector<Vec3<double>> poly;
  for (int i = 0; i < h; ++i) poly.push_back({world[hull[i]].x, world[hull[i]].y, 0});
  double extent = 0;
  for (const Vec3<double>& p : poly)
    for (const Vec3<double>& q : poly) extent = std::max(extent, std::hypot(p.x - q.x, p.y - q.y));
  auto room_for = [&](double margin) {
    std::vector<Vec3<double>> inner = poly;
    for (int e = 0; e < h && !inner.empty(); ++e) {
      const Vec3<double>& a = poly[e];
      const Vec3<double>& b = poly[(e + 1) % h];
      const double len = std::hypot(b.x - a.x, b.y - a.y);
      if (len == 0) continue;
      const double nx = (b.y - a.y) / len, ny = -(b.x - a.x) / len;  // outward
      clip_half_plane(inner, nx, ny, nx * a.x + ny * a.y - margin);
    }
    return !inner.empty();
  };
  double lo = 0, hi = extent;
  while (hi - lo > 1e-6 * extent) {
    const double mid = 0.5 * (lo + hi);
    (room_for(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

std::vector<Vec3<double>> lowest_face_points(const Model& m, int link,
                                             const std::vector<Transform<double>>& body_q) {
  if (link < 0 || link >= m.body_count) return {};
  const std::vector<Geometry>& shapes =
      !m.body_collisions[link].empty() ? m.body_collisions[link] : m.body_visuals[link];
  const Transform<double>& x = body_q[link];
  struct Bottom {
    std::vector<Vec3<double>> points;  // link frame
    double z;                          // world height
  };
  std::vector<Bottom> bottoms;  // each shape's
  for (const Geometry& g : shapes) {
    std::vector<Vec3<double>> corners = shape_corners(g);
    if (corners.empty()) continue;
    Transform<double> in_link = g.origin;
    if (g.type == GeometryType::kSphere) {
      // the lowest point of the sphere, in the link frame
      Vec3<double> down = rotate(conjugate(x.q), Vec3<double>{0, 0, -g.size.x});
      Vec3<double> p = transform_point(in_link, corners[0]) + down;
      bottoms.push_back({{p}, transform_point(x, p).z});
      continue;
    }
    // the face of the box whose outward normal points most downwards in the world
    Transform<double> world = x * in_link;
    int axis = 0, side = 0;
    double most_down = HUGE_VAL;
    for (int k = 0; k < 3; ++k) {
      Vec3<double> e{0, 0, 0};
      e[k] = 1;
      double nz = rotate(world.q, e).z;
      if (nz < most_down) most_down = nz, axis = k, side = 1;
      if (-nz < most_down) most_down = -nz, axis = k, side = 0;
    }
    Bottom face{{}, HUGE_VAL};
    for (const Vec3<double>& c : corners) {
      bool on_side = side ? c[axis] >= corners[7][axis] : c[axis] <= corners[0][axis];
      if (!on_side) continue;
      Vec3<double> p = transform_point(in_link, c);
      face.points.push_back(p);
      face.z = std::min(face.z, transform_point(x, p).z);
    }
    bottoms.push_back(std::move(face));
  }
  if (bottoms.empty()) return {};
  // every shape whose lowest point stands as low as the lowest's: a sole of four spheres (MuJoCo
  // Menagerie's G1) gave its first toe sphere alone, and two feet a line the centre of mass was
  // held on; a shape kSoleHeight above it (a bumper, an ankle) is not stood on
  double lowest = HUGE_VAL;
  for (const Bottom& b : bottoms) lowest = std::min(lowest, b.z);
  std::vector<Vec3<double>> points;
  int standing = 0;
  for (const Bottom& b : bottoms)
    if (b.z < lowest + kSoleHeight) {
      points.insert(points.end(), b.points.begin(), b.points.end());
      ++standing;
    }
  if (standing == 1) return points;
  // several shapes: the corners of their outline, which is all a support polygon reads
  std::vector<Vec3<double>> world(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) world[i] = transform_point(x, points[i]);
  std::vector<int> hull(points.size());
  const int h = convex_hull_xy(world.data(), int(points.size()), hull.data());
  std::vector<Vec3<double>> outline;
  for (int i = 0; i < h; ++i) outline.push_back(points[std::size_t(hull[std::size_t(i)])]);
  return outline;
}

bool objective_from_scene(const Model& m, const SceneObjective& so,
                          const std::vector<Transform<double>>& body_q,
                          const std::vector<double>& rest_q, PlacedObjective* out,
                          std::string* error) {
  const ObjectiveKind* kind = find_objective_kind(so.type);
  if (!kind) {
    *error = "unknown objective type '" + so.type + "'";
    return false;
  }
  Objective o;
  ObjectiveParams<double>& p = o.params;
  p.type = kind->type;
  if (kind->has(kFieldLink)) {
    p.link = m.find_body(so.link);
    if (p.link < 0) {
      *error = "unknown link '" + so.link + "'";
      return false;
    }
  }
  if (kind->has(kFieldLinkB)) {
    p.link_b = m.find_body(so.link_b);
    if (p.link_b < 0 || p.link_b == p.link) {
      *error = "link_b '" + so.link_b + "' unknown or the same as link";
      return false;
    }
  }
  if (kind->has(kFieldTargetLink) && !so.link_b.empty()) {
    p.link_b = m.find_body(so.link_b);
    if (p.link_b < 0) {
      *error = "unknown link_b '" + so.link_b + "'";
      return false;
    }
    // a point fixed to the link itself stays where it is in the link's frame: the objective
    // would be met always or never, whatever the robot does
    if (p.link_b == p.link) {
      *error = "link_b '" + so.link_b + "' is the link itself (a point of its own it always or " +
               "never looks at)";
      return false;
    }
    p.offset_b = so.offset_b;
  }
  if (kind->has(kFieldOffset)) p.offset = so.offset;
  if (kind->has(kFieldOffsetB)) p.offset_b = so.offset_b;
  if (kind->has(kFieldDistance)) p.distance = so.distance;
  if (kind->has(kFieldAxis)) p.axis = so.axis;
  if (kind->has(kFieldDirection)) p.direction = so.direction;
  if (kind->has(kFieldCone)) p.cone = so.cone;
  if (kind->has(kFieldMargin)) p.margin = so.margin;
  if (kind->has(kFieldPositionWeights)) p.position_weights = so.position_weights;
  if (kind->has(kFieldRotationWeights)) p.rotation_weights = so.rotation_weights;
  if (kind->has(kFieldNullSpace)) p.null_space = so.null_space;
  if (kind->has(kFieldMinMeasure)) p.min_measure = so.min_measure;
  if (kind->has(kFieldBox)) p.box_lower = so.lower, p.box_upper = so.upper;
  if (kind->has(kFieldContacts)) {
    for (const SceneContact& c : so.contacts) {
      int link = m.find_body(c.link);
      if (link < 0) {
        *error = "unknown contact link '" + c.link + "'";
        return false;
      }
      std::vector<Vec3<double>> pts =
          c.points.empty() ? lowest_face_points(m, link, body_q) : c.points;
      if (pts.empty()) {
        *error = "contact link '" + c.link + "' has no points and no collision or visual shape";
        return false;
      }
      for (const Vec3<double>& pt : pts) o.points.push_back({link, pt});
    }
    if (int(o.points.size()) > kMaxContactPoints) {
      *error = std::to_string(o.points.size()) + " contact points, at most " +
               std::to_string(kMaxContactPoints);
      return false;
    }
  }
  if (kind->has(kFieldHard)) p.hard = so.hard;
  if (kind->has(kFieldRest)) o.rest_q = rest_q;
  if (kind->has(kFieldRelative))
    p.relative = so.relative_current ? inverse(body_q[p.link]) * body_q[p.link_b] : so.relative;
  p.weight = so.weight;
  p.enabled = so.enabled;
  o.name = so.name.empty() ? default_objective_name(m, o) : so.name;
  out->objective = std::move(o);
  out->target = transform_identity<double>();
  if (kind->has_target())
    out->target = so.target_current ? objective_met_target(m, p, body_q) : so.target;
  return true;
}

SceneObjective objective_to_scene(const Model& m, const PlacedObjective& placed) {
  const Objective& o = placed.objective;
  const ObjectiveParams<double>& p = o.params;
  const ObjectiveKind& kind = objective_kind(p.type);
  SceneObjective so;
  so.type = kind.name;
  so.name = o.name;
  if (kind.has(kFieldLink) && p.link >= 0) so.link = m.body_name[p.link];
  if (kind.reads_link_b() && p.link_b >= 0) so.link_b = m.body_name[p.link_b];
  so.offset = p.offset;
  so.offset_b = p.offset_b;
  so.distance = p.distance;
  so.axis = p.axis;
  so.direction = p.direction;
  so.cone = p.cone;
  so.margin = p.margin;
  so.min_measure = p.min_measure;
  so.lower = p.box_lower;
  so.upper = p.box_upper;
  for (const LinkPoint<double>& lp : o.points) {
    const std::string& name = m.body_name[lp.link];
    if (so.contacts.empty() || so.contacts.back().link != name) so.contacts.push_back({name, {}});
    so.contacts.back().points.push_back(lp.offset);
  }
  so.weight = p.weight;
  so.position_weights = p.position_weights;
  so.rotation_weights = p.rotation_weights;
  so.hard = p.hard;
  so.enabled = p.enabled;
  so.null_space = p.null_space;
  so.target_current = !kind.has_target();
  so.target = placed.target;
  so.relative_current = !kind.has(kFieldRelative);
  so.relative = p.relative;
  return so;
}

void warn_support_margin(std::size_t index, const Objective& o,
                         const std::vector<Transform<double>>& body_q, const char* where,
                         std::vector<std::string>& warnings) {
  const ObjectiveParams<double>& p = o.params;
  if (p.type != ObjectiveType::kSupportPolygon || !p.enabled || !(p.margin > 0)) return;
  const double room = support_margin_room(o.points, body_q);
  if (room >= 0 && p.margin <= room) return;
  char margin[32], allowed[32];
  std::snprintf(margin, sizeof margin, "%.4g m", p.margin);
  std::snprintf(allowed, sizeof allowed, "%.4g m", room);
  const std::string text =
      room < 0 ? std::string("its contacts make a point or a line at ") + where +
                     ", not a polygon: the margin " + margin +
                     " does not apply, and the centre of mass is held over them"
               : std::string("margin ") + margin + " is more than its support polygon allows at " +
                     where + " (" + allowed +
                     "): no centre of mass is that far inside every edge, and the balance cannot "
                     "hold unless the contacts spread";
  warnings.push_back("objective " + std::to_string(index) +
                     (o.name.empty() ? "" : " \"" + o.name + "\"") + " (support_polygon): " + text);
}

namespace {

std::string bounds_text(double lo, double hi) {
  char text[64];
  std::snprintf(text, sizeof text, "[%.6g, %.6g]", lo + 0.0, hi + 0.0);  // + 0.0: no -0
  return text;
}

// Narrows the source of mimic joint j (lower / upper: dof_count, as the scene has them so far) to
// the values that keep j within b, as ModelBuilder::narrow_mimic_sources narrows a URDF mimic's;
// "" when done, else why not (a continuous source, no value or one value of it in range).
std::string narrow_mimic_source(const Model& m, int j, const std::array<double, 2>& b,
                                std::vector<double>& lower, std::vector<double>& upper) {
  const int src = m.joint_mimic[j];
  const double k = m.joint_mimic_multiplier[j], o = m.joint_mimic_offset[j];
  if (JointType(m.joint_type[src]) == JointType::kContinuous || m.joint_periodic[src])
    return "its source is continuous, and has no limits";
  if (k == 0) return "it does not move (multiplier 0)";
  const auto [lo, hi] = mimic_source_range(k, o, b[0], b[1]);
  const int d = m.joint_qd_start[src];
  const double n_lo = std::max(lower[d], lo), n_hi = std::min(upper[d], hi);
  if (!(n_lo <= n_hi)) return "no value of its source within its limits keeps these";
  lower[d] = n_lo;
  upper[d] = n_hi;
  return "";
}

}  // namespace

SceneSetup resolve_scene(const Model& m, const Scene& scene, bool stand) {
  SceneSetup s;
  s.rest_q = m.neutral_configuration();
  apply_joint_map(m, scene.rest, "rest", s.rest_q, s.warnings);
  s.q = s.rest_q;
  apply_joint_map(m, scene.joint_q, "joint_q", s.q, s.warnings);
  s.left_out = int(s.warnings.size());  // each a value ignored
  if (stand) {
    // the floating roots the scene leaves where the file puts them (standing_configuration
    // lifts the free joints of these that float from the world)
    std::vector<int> roots;
    for (int j = 0; j < m.joint_count; ++j)
      if (JointType(m.joint_type[j]) == JointType::kFree && !scene.joint_q.count(m.joint_name[j]))
        roots.push_back(j);
    if (!roots.empty()) {
      const std::vector<double> before = s.q;
      s.q = standing_configuration(m, s.q, &roots);
      for (int j : roots)
        if (!scene.rest.count(m.joint_name[j]))
          for (int c = m.joint_q_start[j]; c < m.joint_q_start[j] + 3; ++c)
            s.rest_q[std::size_t(c)] += s.q[std::size_t(c)] - before[std::size_t(c)];
    }
  }
  s.dof_lower = m.dof_lower;
  s.dof_upper = m.dof_upper;
  for (const auto& [name, b] : scene.joint_limits) {
    int j = m.find_joint(name);
    if (j >= 0 && m.joint_mimic[j] >= 0) continue;  // below, once their sources' are in
    if (j < 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) {
      s.warnings.push_back("joint_limits: '" + name +
                           "' is not a moving 1-dof joint of the robot, ignored");
      ++s.left_out;
      continue;
    }
    if (JointType(m.joint_type[j]) == JointType::kContinuous &&
        (std::isfinite(b[0]) || std::isfinite(b[1]))) {
      s.warnings.push_back("joint_limits: '" + name + "' is continuous: it has no limits, ignored");
      ++s.left_out;
      continue;
    }
    // the mimic joints that follow it keep their own limits (a scene that widened the source
    // left them up to its new limits past theirs)
    double lo = b[0], hi = b[1];
    if (!keep_mimic_limits(m, j, &lo, &hi)) {
      s.warnings.push_back("joint_limits: '" + name + "' " + bounds_text(b[0], b[1]) +
                           " has no value that keeps " + mimics_within_limits_text(m, j) +
                           ", ignored");
      ++s.left_out;
      continue;
    }
    const int d = m.joint_qd_start[j];
    s.dof_lower[d] = lo;
    s.dof_upper[d] = hi;
    if (limits_edited(m, d, b[0], b[1]) && (b[0] < m.dof_lower[d] || b[1] > m.dof_upper[d]))
      s.warnings.push_back("joint_limits: '" + name + "' reaches beyond the robot file's limits" +
                           (lo != b[0] || hi != b[1]
                                ? "; it is kept within " + bounds_text(lo, hi) + ", which keeps " +
                                      mimics_within_limits_text(m, j)
                                : std::string()));
  }
  // a mimic joint's limits narrow its source's, as a URDF mimic's <limit> does (they were
  // ignored, the warning calling the joint one that does not move)
  for (const auto& [name, b] : scene.joint_limits) {
    const int j = m.find_joint(name);
    if (j < 0 || m.joint_mimic[j] < 0) continue;
    const int src = m.joint_mimic[j];
    const std::string why = narrow_mimic_source(m, j, b, s.dof_lower, s.dof_upper);
    if (!why.empty()) {
      s.warnings.push_back("joint_limits: '" + name + "' follows '" + m.joint_name[src] +
                           "' (mimic): " + why + ", ignored");
      ++s.left_out;
    }
  }
  for (const std::string& name : scene.joint_locks) {
    int j = m.find_joint(name);
    if (j < 0 || m.joint_mimic[j] >= 0 || m.joint_qd_start[j + 1] == m.joint_qd_start[j]) {
      s.warnings.push_back("joint_locks: '" + name +
                           "' is not a moving joint of the robot, ignored");
      ++s.left_out;
      continue;
    }
    s.locked_joints.push_back(j);
  }
  s.left_out += clamp_to_limits_named(m, s.dof_lower, s.dof_upper, s.q, "joint_q", s.warnings);
  State fk(m);
  eval_fk(m, s.q, {}, fk);
  for (std::size_t i = 0; i < scene.objectives.size(); ++i) {
    PlacedObjective placed;
    std::string error;
    if (objective_from_scene(m, scene.objectives[i], fk.body_q, s.rest_q, &placed, &error)) {
      warn_support_margin(i, placed.objective, fk.body_q, "the scene's configuration", s.warnings);
      s.objectives.push_back(std::move(placed));
    } else {
      s.warnings.push_back("objective " + std::to_string(i) + " (" + scene.objectives[i].type +
                           "): " + error + ", skipped");
      ++s.left_out;
    }
  }
  // a robot without mass has the mean of its bodies' centres for a centre of mass
  // (center_of_mass), as `ikwb fk --com` warns; the objectives that read it say so once
  double mass = 0;
  for (double w : m.body_mass) mass += w > 0 ? w : 0;
  for (std::size_t i = 0; i < s.objectives.size() && !(mass > 0); ++i) {
    const ObjectiveParams<double>& p = s.objectives[i].objective.params;
    if (!p.enabled || (p.type != ObjectiveType::kCom && p.type != ObjectiveType::kSupportPolygon))
      continue;
    s.warnings.push_back(
        std::string("the robot has no mass (no body has one): the centre of "
                    "mass its com and support_polygon objectives hold is the "
                    "mean of the bodies' centres"));
    break;
  }
  s.collision = scene_collision_world(m, scene, s.warnings, &s.srdf_unread);
  bool collides = false;
  for (const PlacedObjective& o : s.objectives) {
    ObjectiveType t = o.objective.params.type;
    collides |= t == ObjectiveType::kSelfCollision || t == ObjectiveType::kWorldCollision;
  }
  if (collides)
    s.warnings.insert(s.warnings.end(), m.collision.warnings.begin(), m.collision.warnings.end());
  return s;
}

CollisionWorld scene_collision_world(const Model& m, const Scene& scene,
                                     std::vector<std::string>& warnings, std::string* srdf_unread) {
  std::vector<std::pair<int, int>> disabled;
  if (!scene.srdf.empty()) {
    try {
      disabled = disabled_body_pairs(m, load_srdf(scene.srdf), warnings, scene.srdf);
    } catch (const std::runtime_error& e) {
      warnings.push_back(std::string("srdf: ") + e.what() + "; no pairs disabled");
      if (srdf_unread) *srdf_unread = e.what();
    }
  }
  const CollisionPairEdits& edits = scene.collision_pairs;
  std::vector<std::pair<int, int>> off =
      named_body_pairs(m, edits.disabled, "collision_pairs.disabled", warnings);
  std::vector<std::pair<int, int>> on =
      named_body_pairs(m, edits.enabled, "collision_pairs.enabled", warnings);
  disabled.insert(disabled.end(), off.begin(), off.end());
  return make_collision_world(m, disabled, scene.obstacles, on);
}

void require_placed_objectives(const Model& m, const Scene& scene, const SceneSetup& setup,
                               const std::string& scene_path, const char* command) {
  if (setup.objectives.size() >= scene.objectives.size()) return;
  State fk(m);
  eval_fk(m, setup.q, {}, fk);
  for (std::size_t i = 0; i < scene.objectives.size(); ++i) {
    const SceneObjective& o = scene.objectives[i];
    PlacedObjective placed;
    std::string error;
    if (!objective_from_scene(m, o, fk.body_q, setup.rest_q, &placed, &error))
      throw SceneError(scene_path + ": objective " + std::to_string(i) +
                       (o.name.empty() ? "" : " \"" + o.name + "\"") + " (" + o.type +
                       "): " + error + " (the workbench skips it; " + command + " does not)");
  }
}

void require_solvable_scene(const Model& m, const Scene& scene, const SceneSetup& setup,
                            const std::string& scene_path, const char* command) {
  require_placed_objectives(m, scene, setup, scene_path, command);
  // the SRDF's pairs are those self_collision leaves out (links that touch by construction):
  // checked without them a humanoid's preset converged nowhere (0 of 100 rows)
  if (!setup.srdf_unread.empty())
    for (const SceneObjective& o : scene.objectives)
      if (o.enabled && o.type == "self_collision")
        throw SceneError(scene_path + ": srdf: " + setup.srdf_unread +
                         ": its disabled pairs are the ones " +
                         (o.name.empty() ? std::string("the self_collision objective")
                                         : "objective \"" + o.name + "\" (self_collision)") +
                         " leaves out, such as neighbouring links that touch "
                         "(the workbench warns and checks every pair; " +
                         command + " does not: give the file, or turn the objective off)");
  bool enabled = false;
  for (const SceneObjective& o : scene.objectives) enabled = enabled || o.enabled;
  if (enabled) {
    // enabled objectives that pull nowhere (soft ones of weight 0, or every axis weight 0): a
    // solve of them reported every row solved with errors of 0, the joints as they were
    std::string unpursued;
    for (const PlacedObjective& p : setup.objectives) {
      ObjectiveParams<double> params = p.objective.params;  // its rows, as a problem counts them
      params.dim = objective_kind(params.type).dim(m.dof_count, int(p.objective.points.size()));
      if (objective_pursued(params)) return;
      if (p.objective.params.enabled)
        unpursued += (unpursued.empty() ? "" : ", ") + ("\"" + p.objective.name + "\"");
    }
    throw SceneError(scene_path + ": no enabled objective pulls anywhere (" + unpursued +
                     ": weight 0, or every axis weight 0): nothing to solve (give one a "
                     "weight)");
  }
  // a misspelt "objectives" is an unknown key the reader ignored: named here, where it matters
  std::string ignored;
  for (const std::string& w : scene.warnings)
    if (w.find(": unknown key ignored") != std::string::npos)
      ignored += (ignored.empty() ? " (" : "; ") + w;
  throw SceneError(scene_path +
                   (scene.objectives.empty()
                        ? ": the scene has no objectives: nothing to solve" +
                              (ignored.empty() ? "" : ignored + ")")
                        : ": every objective of the scene is disabled: nothing to solve"));
}

IkProblem make_problem(std::shared_ptr<const Model> model,
                       const std::vector<PlacedObjective>& objectives, int problem_count,
                       const CollisionWorld* collision) {
  IkProblem problem(std::move(model), problem_count);
  if (collision) problem.set_collision_world(*collision);
  for (const PlacedObjective& placed : objectives) {
    int i = problem.add_objective(placed.objective);
    if (objective_kind(placed.objective.params.type).has_target())
      problem.set_target_poses(i, std::vector<Transform<double>>(problem_count, placed.target));
  }
  return problem;
}

std::vector<uint8_t> lock_mask(const Model& m, const std::vector<int>& locked) {
  if (locked.empty()) return {};
  std::vector<uint8_t> mask(m.dof_count, 1);
  for (int j : locked)
    for (int d = m.joint_qd_start[j]; d < m.joint_qd_start[j + 1]; ++d) mask[d] = 0;
  return mask;
}

std::vector<double> starts_near_targets(const IkProblem& problem, const std::vector<double>& q) {
  const Model& m = problem.model();
  const int nq = m.coord_count;
  if (m.joint_count == 0 || JointType(m.joint_type[0]) != JointType::kFree ||
      m.joint_parent[0] != -1 || int(q.size()) != nq)
    return q;
  // the objectives whose target is where a point goes: a link point (pose, position) or the
  // centre of mass; each world axis only where its position weight is not 0 (a foot free in z,
  // a centre of mass held over the feet in x and y only)
  std::vector<int> placed;
  for (int i = 0; i < problem.objective_count(); ++i) {
    const ObjectiveParams<double>& p = problem.objective(i).params;
    const bool point =
        p.type == ObjectiveType::kCom || (p.link >= 0 && objective_kind(p.type).position_row >= 0);
    if (p.enabled && (p.hard || p.weight > 0) && point && problem.objective(i).has_target())
      placed.push_back(i);
  }
  if (placed.empty()) return q;
  State fk(m);
  eval_fk(m, q, {}, fk);
  std::vector<Vec3<double>> at(placed.size());
  for (std::size_t k = 0; k < placed.size(); ++k) {
    const ObjectiveParams<double>& p = problem.objective(placed[k]).params;
    at[k] = p.type == ObjectiveType::kCom
                ? center_of_mass(m.view(), fk.body_q.data())
                : transform_point(fk.body_q[std::size_t(p.link)], p.offset);
  }
  const int base = m.joint_q_start[0];  // x, y, z, then the quaternion
  std::vector<double> starts;
  for (int r = 0; r < problem.problem_count(); ++r) {
    Vec3<double> mean{0, 0, 0};
    for (int c = 0; c < 3; ++c) {
      double sum = 0;
      int count = 0;
      for (std::size_t k = 0; k < placed.size(); ++k) {
        if (!(problem.objective(placed[k]).params.position_weights[c] > 0)) continue;
        sum += problem.target(placed[k], r).p[c] - at[k][c];
        ++count;
      }
      mean[c] = count > 0 ? sum / count : 0.0;
    }
    if (length(mean) <= kFarTargets && starts.empty()) continue;
    if (starts.empty()) {  // the rows before this one start at q
      starts.reserve(std::size_t(problem.problem_count()) * std::size_t(nq));
      for (int before = 0; before < r; ++before) starts.insert(starts.end(), q.begin(), q.end());
    }
    starts.insert(starts.end(), q.begin(), q.end());
    if (length(mean) > kFarTargets)
      for (int c = 0; c < 3; ++c) starts[std::size_t(r) * nq + base + c] += mean[c];
  }
  return starts.empty() ? q : starts;
}

void apply_joint_settings(const SceneSetup& setup, IkProblem& problem) {
  if (!setup.dof_lower.empty()) problem.set_dof_limits(setup.dof_lower, setup.dof_upper);
  problem.set_dof_mask(lock_mask(problem.model(), setup.locked_joints));
}

bool limits_edited(const Model& m, int dof, double lower, double upper) {
  return lower != m.dof_lower[dof] || upper != m.dof_upper[dof];
}

void joint_settings_to_scene(const Model& m, const std::vector<double>& lower,
                             const std::vector<double>& upper, const std::vector<int>& locked,
                             Scene& scene) {
  scene.joint_locks.clear();
  for (int j : locked) scene.joint_locks.push_back(m.joint_name[j]);
  scene.joint_limits.clear();
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
    int d = m.joint_qd_start[j];
    if (d < int(lower.size()) && limits_edited(m, d, lower[d], upper[d]))
      scene.joint_limits[m.joint_name[j]] = {lower[d], upper[d]};
  }
}

}  // namespace ikwb
