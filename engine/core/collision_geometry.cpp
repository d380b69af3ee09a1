#include "engine/core/collision_geometry.hpp"

#include <tinyxml2.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "engine/core/model.hpp"
#include "engine/core/text_file.hpp"

namespace ikwb {

namespace {

constexpr double kPi = 3.141592653589793;

// surface samples of a geometry element, in the element's own frame (origin not applied)
std::vector<Vec3<double>> element_samples(const Geometry& g) {
  std::vector<Vec3<double>> pts;
  switch (g.type) {
    case GeometryType::kBox: {
      Vec3<double> e = 0.5 * g.size;
      const int n = 4;
      for (int axis = 0; axis < 3; ++axis) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int side = -1; side <= 1; side += 2)
          for (int i = 0; i <= n; ++i)
            for (int j = 0; j <= n; ++j) {
              Vec3<double> p = zero3<double>();
              p[axis] = side * e[axis];
              p[u] = e[u] * (2.0 * i / n - 1);
              p[v] = e[v] * (2.0 * j / n - 1);
              pts.push_back(p);
            }
      }
      break;
    }
    case GeometryType::kCylinder: {
      double r = g.size.x, h = 0.5 * g.size.y;
      const int n = 24;
      for (int i = 0; i < n; ++i) {
        double a = 2 * kPi * i / n;
        for (double z : {-h, h}) pts.push_back({r * std::cos(a), r * std::sin(a), z});
      }
      pts.push_back({0, 0, -h});
      pts.push_back({0, 0, h});
      break;
    }
    case GeometryType::kSphere:
      pts.push_back({0, 0, 0});
      break;
    case GeometryType::kMesh: {
      if (!g.mesh || g.placeholder) break;
      // each vertex once: an STL's triangles repeat their corners (six times over, a large
      // mesh's fit took three times as long)
      const std::vector<float>& p = g.mesh->positions;
      std::vector<std::array<float, 3>> unique;
      unique.reserve(p.size() / 3);
      for (std::size_t i = 0; i + 2 < p.size(); i += 3)
        unique.push_back({p[i], p[i + 1], p[i + 2]});
      std::sort(unique.begin(), unique.end());
      unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
      for (const std::array<float, 3>& v : unique)
        pts.push_back({v[0] * g.mesh_scale.x, v[1] * g.mesh_scale.y, v[2] * g.mesh_scale.z});
      break;
    }
  }
  return pts;
}

// the eigenvectors of a covariance, unit, in Eigen's order (ascending eigenvalue)
std::vector<Vec3<double>> principal_axes(const Eigen::Matrix3d& cov) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(cov);
  std::vector<Vec3<double>> axes;
  for (int k = 0; k < 3; ++k) {
    const Eigen::Vector3d e = eig.eigenvectors().col(k);
    axes.push_back({e.x(), e.y(), e.z()});
  }
  return axes;
}

// vertex i of a mesh element as its scale places it
Eigen::Vector3d scaled_vertex(const Geometry& g, std::size_t i) {
  const std::vector<float>& p = g.mesh->positions;
  return Eigen::Vector3d(p[3 * i] * g.mesh_scale.x, p[3 * i + 1] * g.mesh_scale.y,
                         p[3 * i + 2] * g.mesh_scale.z);
}

// A mesh's principal axes of its surface (each triangle weighted by its area, integrated over
// it), which its tessellation does not tilt as it tilts those of the vertices: a 300 x 100 x 40
// mm box as an STL (each triangle's corners apart) got a capsule 60.4 mm in radius 2.4 degrees
// off its long side, against 53.9 mm from the same box with shared corners, and a bar with a
// finely tessellated boss on one face one 70 mm in radius, 2.5 times the volume (a review).
// Empty for what is not a mesh with triangles.
std::vector<Vec3<double>> surface_axes(const Geometry& g) {
  if (g.type != GeometryType::kMesh || !g.mesh || g.placeholder) return {};
  const std::vector<float>& p = g.mesh->positions;
  const std::vector<uint32_t>& idx = g.mesh->indices;
  // the surface's area, first moment and second moment about the origin: over a triangle of
  // area A with corners a, b, c, the integral of x x^T is A / 12 (a a^T + b b^T + c c^T + s s^T),
  // s = a + b + c
  double area = 0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
  for (std::size_t t = 0; t + 2 < idx.size(); t += 3) {
    if (std::max({idx[t], idx[t + 1], idx[t + 2]}) >= p.size() / 3) continue;
    const Eigen::Vector3d a = scaled_vertex(g, idx[t]), b = scaled_vertex(g, idx[t + 1]),
                          c = scaled_vertex(g, idx[t + 2]);
    const double A = 0.5 * (b - a).cross(c - a).norm();
    if (!(A > 0)) continue;
    const Eigen::Vector3d s = a + b + c;
    area += A;
    first += A / 3 * s;
    second +=
        A / 12 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  if (!(area > 0)) return {};
  const Eigen::Vector3d centroid = first / area;
  return principal_axes(second - area * centroid * centroid.transpose());
}

// The smallest circle holding 2D points (x, y pairs): its centre (Welzl's incremental method, the
// points in a fixed shuffled order; a circle through three points that lie on a line is taken
// through the two farthest apart)
std::array<double, 2> enclosing_circle_centre(std::vector<std::array<double, 2>> p) {
  struct Circle {
    double x = 0, y = 0, r2 = -1;
  };
  auto holds = [](const Circle& c, const std::array<double, 2>& q) {
    const double dx = q[0] - c.x, dy = q[1] - c.y;
    return dx * dx + dy * dy <= c.r2 * (1 + 1e-12) + 1e-300;
  };
  auto two = [](const std::array<double, 2>& a, const std::array<double, 2>& b) {
    Circle c{0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0};
    c.r2 = 0.25 * ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]));
    return c;
  };
  auto three = [&](const std::array<double, 2>& a, const std::array<double, 2>& b,
                   const std::array<double, 2>& c) {
    const double bx = b[0] - a[0], by = b[1] - a[1], cx = c[0] - a[0], cy = c[1] - a[1];
    const double d = 2 * (bx * cy - by * cx);
    const double scale = bx * bx + by * by + cx * cx + cy * cy;
    if (!(std::fabs(d) > 1e-12 * scale)) {
      Circle best = two(a, b);
      for (const Circle& k : {two(a, c), two(b, c)})
        if (k.r2 > best.r2) best = k;
      return best;
    }
    const double b2 = bx * bx + by * by, c2 = cx * cx + cy * cy;
    const double ux = (cy * b2 - by * c2) / d, uy = (bx * c2 - cx * b2) / d;
    return Circle{a[0] + ux, a[1] + uy, ux * ux + uy * uy};
  };
  std::shuffle(p.begin(), p.end(), std::mt19937(7));
  Circle c;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (holds(c, p[i])) continue;
    c = Circle{p[i][0], p[i][1], 0};
    for (std::size_t j = 0; j < i; ++j) {
      if (holds(c, p[j])) continue;
      c = two(p[i], p[j]);
      for (std::size_t k = 0; k < j; ++k)
        if (!holds(c, p[k])) c = three(p[i], p[j], p[k]);
    }
  }
  return {c.x, c.y};
}

// the centre of the smallest circle holding the points seen along unit axis `a`, from `c`
Vec3<double> enclosing_line_point(const std::vector<Vec3<double>>& pts, const Vec3<double>& c,
                                  const Vec3<double>& a) {
  const Vec3<double> u = any_perpendicular(a), v = cross(a, u);
  std::vector<std::array<double, 2>> seen;
  seen.reserve(pts.size());
  for (const auto& p : pts) seen.push_back({dot(p - c, u), dot(p - c, v)});
  const std::array<double, 2> centre = enclosing_circle_centre(std::move(seen));
  return c + centre[0] * u + centre[1] * v;
}

// A mesh's principal axes of its vertices as the file lists them, a triangle's corners each time
// (samples have each vertex once), and their centroid: the lines the fit took before, kept among
// the candidates so that no capsule grows (a review saw 10 of 700 random meshes 0.05-7.6 %
// larger without them). Empty for what is not a mesh.
std::vector<Vec3<double>> corner_axes(const Geometry& g, Vec3<double>* centroid) {
  if (g.type != GeometryType::kMesh || !g.mesh || g.placeholder) return {};
  const std::vector<float>& p = g.mesh->positions;
  const std::size_t n = p.size() / 3;
  if (n == 0) return {};
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < n; ++i) mean += scaled_vertex(g, i);
  mean /= double(n);
  *centroid = {mean.x(), mean.y(), mean.z()};
  Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
  for (std::size_t i = 0; i < n; ++i) {
    const Eigen::Vector3d d = scaled_vertex(g, i) - mean;
    cov += d * d.transpose();
  }
  return principal_axes(cov);
}

// the smallest capsule along unit axis `a` through `c` containing every point (radius r0 added)
void capsule_along(const std::vector<Vec3<double>>& pts, const Vec3<double>& c,
                   const Vec3<double>& a, double r0, Vec3<double>* p0, Vec3<double>* p1,
                   double* radius) {
  double rho = 0;
  for (const auto& p : pts) {
    Vec3<double> d = p - c;
    rho = std::max(rho, length(d - dot(d, a) * a));
  }
  double lo = 1e300, hi = -1e300;
  for (const auto& p : pts) {
    Vec3<double> d = p - c;
    double t = dot(d, a), rr = length(d - t * a);
    double reach = std::sqrt(std::max(0.0, rho * rho - rr * rr));
    hi = std::max(hi, t - reach);
    lo = std::min(lo, t + reach);
  }
  // every point's allowed interval of segment ends: the segment must span [lo, hi]
  if (lo > hi) lo = hi = 0.5 * (lo + hi);
  *p0 = c + lo * a;
  *p1 = c + hi * a;
  *radius = rho + r0;
}

double element_sdf(const Geometry& g, const std::vector<Vec3<double>>& samples,
                   const Vec3<double>& x) {
  CollisionShape<double> s;
  Vec3<double> n;
  switch (g.type) {
    case GeometryType::kBox:
      s.type = ShapeType::kBox;
      s.size = 0.5 * g.size;
      return point_sdf(s, x, &n);
    case GeometryType::kCylinder:
      s.type = ShapeType::kCylinder;
      s.size = {g.size.x, 0.5 * g.size.y, 0};
      return point_sdf(s, x, &n);
    case GeometryType::kSphere:
      s.type = ShapeType::kSphere;
      s.size = {g.size.x, 0, 0};
      return point_sdf(s, x, &n);
    default: {
      double best = 1e300;
      for (const auto& p : samples) best = std::min(best, length_sq(x - p));
      return std::sqrt(best);
    }
  }
}

// largest distance from the capsule's surface to the element (see the header)
double capsule_overshoot(const Geometry& g, const std::vector<Vec3<double>>& samples,
                         const Vec3<double>& p0, const Vec3<double>& p1, double r) {
  double worst = 0;
  Vec3<double> axis = p1 - p0;
  Vec3<double> u = length(axis) > 0 ? any_perpendicular(axis) : Vec3<double>{1, 0, 0};
  Vec3<double> v = length(axis) > 0 ? cross((1 / length(axis)) * axis, u) : Vec3<double>{0, 1, 0};
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz) {
        Vec3<double> d{double(dx), double(dy), double(dz)};
        if (length(d) == 0) continue;
        d = (1 / length(d)) * d;
        // each end's hemisphere facing away from the other end
        if (dot(d, axis) <= 0) worst = std::max(worst, element_sdf(g, samples, p0 + r * d));
        if (dot(d, axis) >= 0) worst = std::max(worst, element_sdf(g, samples, p1 + r * d));
      }
  for (int i = 0; i < 8; ++i) {
    double a = 2 * kPi * i / 8;
    Vec3<double> m = 0.5 * (p0 + p1) + r * (std::cos(a) * u + std::sin(a) * v);
    worst = std::max(worst, element_sdf(g, samples, m));
  }
  return worst;
}

// whether capsule a lies inside capsule b (within 1e-9 m): every point of a's segment is within
// b.radius - a.radius of b's segment (the distance to a segment is convex along a's segment, so
// its ends decide)
bool capsule_inside(const LinkCapsule<double>& a, const LinkCapsule<double>& b) {
  auto distance_to_b = [&](const Vec3<double>& x) {
    return capsule_capsule(x, x, 0.0, b.p0, b.p1, 0.0).distance;
  };
  return std::max(distance_to_b(a.p0), distance_to_b(a.p1)) + a.radius <= b.radius + 1e-9;
}

// Drops the capsules of [first, capsules.size()) (one body's) that lie inside another of them
// (of two equal ones the first is kept): a URDF's cylinder with a sphere at each end gave three
// capsules where one covers the others, and a contained capsule is never closer to anything
// than its container, so it only added pairs and repeated their rows.
void drop_contained(std::vector<LinkCapsule<double>>& capsules, std::vector<double>& fit_error,
                    std::size_t first) {
  const std::size_t n = capsules.size();
  std::vector<char> drop(n, 0);
  for (std::size_t i = first; i < n; ++i)
    for (std::size_t j = first; j < n && !drop[i]; ++j)
      if (j != i && capsule_inside(capsules[i], capsules[j]) &&
          (j < i || !capsule_inside(capsules[j], capsules[i])))
        drop[i] = 1;
  std::size_t kept = first;
  for (std::size_t i = first; i < n; ++i)
    if (!drop[i]) {
      capsules[kept] = capsules[i];
      fit_error[kept] = fit_error[i];
      ++kept;
    }
  capsules.resize(kept);
  fit_error.resize(kept);
}

// a capsule mesh made by the MJCF loader, its radius and length in size
bool is_exact_capsule(const Geometry& g) {
  return g.type == GeometryType::kMesh && g.mesh_uri == "capsule" && g.size.x > 0 &&
         g.mesh_scale.x == 1 && g.mesh_scale.y == 1 && g.mesh_scale.z == 1;
}

}  // namespace

bool fit_capsule(const Geometry& g, LinkCapsule<double>* capsule, double* fit_error) {
  std::vector<Vec3<double>> pts = element_samples(g);
  if (pts.empty()) return false;
  Vec3<double> p0 = zero3<double>(), p1 = zero3<double>();
  double radius = 0, err = 0;
  if (g.type == GeometryType::kSphere) {
    p0 = p1 = zero3<double>();
    radius = g.size.x;
    err = 0;
  } else if (is_exact_capsule(g)) {
    // an MJCF capsule (axis z, size: radius and length) is itself: fitted to its tessellation
    // it came out 3.3 mm off its axis and 3.3 mm fatter, its distances 3-7 mm short
    p0 = {0, 0, -0.5 * g.size.y};
    p1 = {0, 0, 0.5 * g.size.y};
    radius = g.size.x;
    err = 0;
  } else {
    Vec3<double> c = zero3<double>();
    for (const auto& p : pts) c += p;
    c = (1.0 / pts.size()) * c;
    Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
    for (const auto& p : pts) {
      Eigen::Vector3d d(p.x - c.x, p.y - c.y, p.z - c.z);
      cov += d * d.transpose();
    }
    std::vector<Vec3<double>> axes = principal_axes(cov);
    Vec3<double> corner_centroid = c;
    const std::vector<Vec3<double>> corners = corner_axes(g, &corner_centroid);
    for (const std::vector<Vec3<double>>& more : {surface_axes(g), corners})
      axes.insert(axes.end(), more.begin(), more.end());
    for (const Vec3<double>& e : {Vec3<double>{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
      if (std::none_of(axes.begin(), axes.end(),
                       [&](const Vec3<double>& a) { return std::fabs(dot(a, e)) > 1 - 1e-12; }))
        axes.push_back(e);
    // each axis through the samples' centroid, and through the centre of the smallest circle
    // holding them seen along it (through the centroid alone, a bar with a finely tessellated
    // boss on one face got a radius 27 mm too large)
    double best = 1e300;
    auto try_line = [&](const Vec3<double>& through, const Vec3<double>& a) {
      Vec3<double> q0, q1;
      double r;
      capsule_along(pts, through, a, 0, &q0, &q1, &r);
      double volume = kPi * r * r * (length(q1 - q0) + 4.0 / 3.0 * r);
      if (volume < best) best = volume, p0 = q0, p1 = q1, radius = r;
    };
    for (const Vec3<double>& a : axes) {
      try_line(c, a);
      try_line(enclosing_line_point(pts, c, a), a);
    }
    for (const Vec3<double>& a : corners) try_line(corner_centroid, a);
    err = capsule_overshoot(g, pts, p0, p1, radius);
  }
  // an element that is a point (a mesh with every vertex in one place as scaled, a shape of
  // size 0) has nothing to fit: a capsule of radius 0 there collided although the load said
  // nothing of it does
  if (!(radius > 0) && length(p1 - p0) == 0) return false;
  capsule->p0 = transform_point(g.origin, p0);
  capsule->p1 = transform_point(g.origin, p1);
  capsule->radius = radius;
  *fit_error = err;
  return true;
}

CollisionGeometry fit_collision_geometry(const Model& model) {
  CollisionGeometry out;
  out.body_first.assign(model.body_count + 1, 0);
  // the warnings name the robot file: a scene that uses collisions passes them on
  const std::string file = model.source_path.empty() ? "" : model.source_path + ": ";
  // links that fall back to their visuals, and the elements without a loaded mesh (one line
  // each: a robot whose meshes are missing has one per link)
  std::vector<std::string> from_visuals, meshless_links;
  std::string meshless_element;
  int meshless = 0;
  std::vector<std::string> points;  // elements that are a point
  for (int b = 0; b < model.body_count; ++b) {
    out.body_first[b] = out.capsule_count();
    bool from_visual = model.body_collisions[b].empty();
    const std::vector<Geometry>& elements =
        from_visual ? model.body_visuals[b] : model.body_collisions[b];
    if (from_visual && !elements.empty()) from_visuals.push_back(model.body_name[b]);
    for (std::size_t k = 0; k < elements.size(); ++k) {
      LinkCapsule<double> c;
      double err;
      if (!fit_capsule(elements[k], &c, &err)) {
        const Geometry& g = elements[k];
        if (g.type != GeometryType::kMesh || (g.mesh && !g.placeholder)) {
          points.push_back("link '" + model.body_name[b] + "' " +
                           (from_visual ? "visual " : "collision ") + std::to_string(k));
          continue;
        }
        if (meshless_links.empty() || meshless_links.back() != model.body_name[b])
          meshless_links.push_back(model.body_name[b]);
        meshless_element = (from_visual ? "visual " : "collision ") + std::to_string(k);
        ++meshless;
        continue;
      }
      c.body = b;
      out.capsules.push_back(c);
      out.fit_error.push_back(err);
    }
    drop_contained(out.capsules, out.fit_error, std::size_t(out.body_first[b]));
  }
  out.body_first[model.body_count] = out.capsule_count();
  auto links = [](const std::vector<std::string>& names) {
    std::string list = names.size() == 1 ? "link " : "links ";
    for (std::size_t i = 0; i < names.size() && i < 3; ++i)
      list += (i ? ", '" : "'") + names[i] + "'";
    if (names.size() > 3) list += " and " + std::to_string(names.size() - 3) + " more";
    return list;
  };
  // in the file's own terms: an MJCF body's geoms that do not collide (contype and conaffinity
  // 0) are its visuals here (a review's MJCF read "no <collision>", a URDF's words)
  std::string ext = std::filesystem::path(model.source_path).extension().string();
  for (char& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  const bool mjcf = ext == ".xml" || ext == ".mjcf";
  const bool one = from_visuals.size() == 1;
  if (!from_visuals.empty() && mjcf)
    out.warnings.push_back(file + links(from_visuals) + (one ? " has" : " have") +
                           " no colliding geom (contype and conaffinity 0): " +
                           (one ? "its" : "their") + " visual geoms are used for collisions");
  else if (one)
    out.warnings.push_back(file + links(from_visuals) +
                           " has no <collision>: its <visual> is used for collisions");
  else if (!from_visuals.empty())
    out.warnings.push_back(file + links(from_visuals) +
                           " have no <collision>: their <visual> elements are used for collisions");
  if (meshless == 1)
    out.warnings.push_back(file + links(meshless_links) + ": " + meshless_element +
                           " has no loaded mesh; it is not used for collisions");
  else if (meshless > 1)
    out.warnings.push_back(file + std::to_string(meshless) + " elements of " +
                           links(meshless_links) +
                           " have no loaded mesh; they are not used for collisions");
  if (!points.empty()) {
    std::string list;
    for (std::size_t i = 0; i < points.size() && i < 3; ++i) list += (i ? ", " : "") + points[i];
    if (points.size() > 3) list += " and " + std::to_string(points.size() - 3) + " more";
    out.warnings.push_back(file + list + (points.size() == 1 ? " is a point" : " are points") +
                           " (a mesh with every vertex in one place, or a shape of size 0): not "
                           "used for collisions");
  }
  return out;
}

std::vector<int> rigid_groups(const Model& model) {
  std::vector<int> group(model.body_count);
  for (int b = 0; b < model.body_count; ++b) group[b] = b;
  // joints are in topological order: a child joined by a fixed joint takes its parent's group
  for (int j = 0; j < model.joint_count; ++j) {
    int p = model.joint_parent[j], c = model.joint_child[j];
    if (p >= 0 && JointType(model.joint_type[j]) == JointType::kFixed) group[c] = group[p];
  }
  return group;
}

std::vector<std::pair<int, int>> self_collision_pairs(
    const Model& model, const std::vector<std::pair<int, int>>& disabled) {
  const CollisionGeometry& cg = model.collision;
  std::vector<int> group = rigid_groups(model);
  // the groups joined by moving joints, as a graph; a group without capsules (a link without
  // geometry between two joints, MJCF's BODY/JOINT bodies between one body's joints) is taken
  // out and its neighbours joined to each other, as MoveIt's setup assistant does: what is left
  // joined is adjacent. Taken out one by one, a hub without geometry (a root with 2,000
  // children) joined its neighbours pairwise again and again (31 s); the same is each connected
  // run of groups without capsules joining the shaped groups around it, found once.
  std::vector<std::vector<int>> edges(model.body_count);
  for (int j = 0; j < model.joint_count; ++j) {
    const int p = model.joint_parent[j], c = model.joint_child[j];
    if (p < 0 || group[c] == group[p]) continue;
    edges[group[p]].push_back(group[c]);
    edges[group[c]].push_back(group[p]);
  }
  std::vector<char> shaped(model.body_count, 0);
  for (int b = 0; b < model.body_count; ++b)
    if (cg.body_first[b] != cg.body_first[b + 1]) shaped[group[b]] = 1;
  // sorted lists, searched for each of up to n^2 / 2 body pairs (sets cost 0.5 s a problem on a
  // tree of 2,000 links)
  std::vector<std::pair<int, int>> adjacent, skip;
  for (int g = 0; g < model.body_count; ++g)
    if (shaped[g])
      for (int h : edges[g])
        if (shaped[h]) adjacent.push_back({std::min(g, h), std::max(g, h)});
  std::vector<char> seen(model.body_count, 0);
  std::vector<int> border_stamp(model.body_count, -1);
  for (int g = 0; g < model.body_count; ++g) {
    if (shaped[g] || seen[g] || edges[g].empty()) continue;
    std::vector<int> stack = {g}, border;
    seen[g] = 1;
    while (!stack.empty()) {
      const int at = stack.back();
      stack.pop_back();
      for (int h : edges[at]) {
        if (shaped[h]) {
          if (border_stamp[h] != g) border.push_back(h);
          border_stamp[h] = g;
        } else if (!seen[h]) {
          seen[h] = 1;
          stack.push_back(h);
        }
      }
    }
    for (std::size_t i = 0; i < border.size(); ++i)
      for (std::size_t k = i + 1; k < border.size(); ++k)
        adjacent.push_back({std::min(border[i], border[k]), std::max(border[i], border[k])});
  }
  for (auto [a, b] : disabled) skip.push_back({std::min(a, b), std::max(a, b)});
  for (std::vector<std::pair<int, int>>* list : {&adjacent, &skip}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  auto listed = [](const std::vector<std::pair<int, int>>& list, int a, int b) {
    return std::binary_search(list.begin(), list.end(), std::pair{std::min(a, b), std::max(a, b)});
  };
  std::vector<std::pair<int, int>> out;
  for (int a = 0; a < model.body_count; ++a) {
    if (cg.body_first[a] == cg.body_first[a + 1]) continue;
    for (int b = a + 1; b < model.body_count; ++b) {
      if (cg.body_first[b] == cg.body_first[b + 1]) continue;
      int ga = group[a], gb = group[b];
      if (ga == gb || listed(adjacent, ga, gb) || listed(skip, a, b)) continue;
      out.push_back({a, b});
    }
  }
  return out;
}

std::vector<DisabledPair> parse_srdf(const std::string& xml, const std::string& source_name) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw std::runtime_error(source_name + ": not valid XML (" + std::string(doc.ErrorStr()) + ")");
  const tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  if (!robot) throw std::runtime_error(source_name + ": no <robot> element");
  std::vector<DisabledPair> out;
  for (const tinyxml2::XMLElement* e = robot->FirstChildElement("disable_collisions"); e;
       e = e->NextSiblingElement("disable_collisions")) {
    const char* l1 = e->Attribute("link1");
    const char* l2 = e->Attribute("link2");
    const char* reason = e->Attribute("reason");
    if (!l1 || !l2)
      throw std::runtime_error(source_name + ":" + std::to_string(e->GetLineNum()) +
                               ": <disable_collisions> needs link1 and link2");
    out.push_back({l1, l2, reason ? reason : ""});
  }
  return out;
}

std::vector<DisabledPair> load_srdf(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error(path + ": is a directory, not an SRDF file");
  std::ifstream in(path, std::ios::binary);
  std::string text;
  if (!in || !read_text_stream(in, text))
    throw std::runtime_error(path + (in.bad() || !in.is_open()
                                         ? ": cannot be read"
                                         : ": larger than 1 GiB, not an SRDF"));
  return parse_srdf(text, path);
}

std::vector<std::pair<int, int>> disabled_body_pairs(const Model& model,
                                                     const std::vector<DisabledPair>& pairs,
                                                     std::vector<std::string>& warnings,
                                                     const std::string& source) {
  std::vector<std::pair<int, int>> out;
  std::string skipped;
  int skipped_count = 0;
  for (const DisabledPair& d : pairs) {
    int a = model.find_body(d.link1), b = model.find_body(d.link2);
    if (a >= 0 && b >= 0) {
      out.push_back({a, b});
      continue;
    }
    if (++skipped_count <= 5)
      skipped += std::string(skipped.empty() ? "" : ", ") + d.link1 + " - " + d.link2 + " (no '" +
                 (a < 0 ? d.link1 : d.link2) + "')";
  }
  if (skipped_count > 0)
    warnings.push_back((source.empty() ? "" : source + ": ") + std::to_string(skipped_count) +
                       " <disable_collisions> " +
                       (skipped_count == 1 ? "entry names" : "entries name") + " a link robot '" +
                       model.name + "' lacks, skipped: " + skipped +
                       (skipped_count > 5 ? ", ..." : "") + "; the other " +
                       std::to_string(out.size()) + " are disabled");
  return out;
}

std::string srdf_text(const Model& model, const std::vector<DisabledPair>& pairs) {
  std::string s = "<?xml version=\"1.0\"?>\n<robot name=\"" + model.name + "\">\n";
  for (const DisabledPair& d : pairs)
    s += "  <disable_collisions link1=\"" + d.link1 + "\" link2=\"" + d.link2 + "\" reason=\"" +
         d.reason + "\"/>\n";
  return s + "</robot>\n";
}

namespace {

// the smallest capsule distance between two bodies at body_q
double body_pair_distance(const Model& model, const Transform<double>* body_q, int a, int b) {
  const CollisionGeometry& cg = model.collision;
  double best = 1e300;
  for (int i = cg.body_first[a]; i < cg.body_first[a + 1]; ++i)
    for (int k = cg.body_first[b]; k < cg.body_first[b + 1]; ++k) {
      const LinkCapsule<double>& x = cg.capsules[i];
      const LinkCapsule<double>& y = cg.capsules[k];
      Contact<double> c = capsule_capsule(
          transform_point(body_q[a], x.p0), transform_point(body_q[a], x.p1), x.radius,
          transform_point(body_q[b], y.p0), transform_point(body_q[b], y.p1), y.radius);
      best = std::min(best, c.distance);
    }
  return best;
}

}  // namespace

std::vector<double> sample_collision_rates(const Model& model,
                                           const std::vector<std::pair<int, int>>& pairs,
                                           int samples, unsigned seed) {
  std::vector<double> hits(pairs.size(), 0.0);
  if (samples <= 0) return hits;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  ModelView<double> mv = model.view();
  std::vector<Transform<double>> body_q(model.body_count);
  for (int s = 0; s < samples; ++s) {
    std::vector<double> q = model.neutral_configuration();
    for (int d = 0; d < model.dof_count; ++d) {
      int j = model.dof_joint[d];
      JointType t = JointType(model.joint_type[j]);
      if (model.joint_mimic[j] >= 0 || joint_type_dof_count(t) != 1) continue;
      double lo = model.has_limits(d) ? model.dof_lower[d] : -kPi;
      double hi = model.has_limits(d) ? model.dof_upper[d] : kPi;
      q[model.joint_q_start[j]] = lo + (hi - lo) * u(rng);
    }
    fk_row(mv, q.data(), body_q.data());
    for (std::size_t k = 0; k < pairs.size(); ++k)
      if (body_pair_distance(model, body_q.data(), pairs[k].first, pairs[k].second) < 0)
        hits[k] += 1;
  }
  for (double& h : hits) h /= samples;
  return hits;
}

std::vector<DisabledPair> sampled_disabled_pairs(const Model& model, int samples, unsigned seed,
                                                 double always) {
  std::vector<std::pair<int, int>> pairs = self_collision_pairs(model);
  std::vector<double> rate = sample_collision_rates(model, pairs, samples, seed);
  ModelView<double> mv = model.view();
  std::vector<double> q0 = model.neutral_configuration();
  std::vector<Transform<double>> body_q(model.body_count);
  fk_row(mv, q0.data(), body_q.data());
  std::vector<DisabledPair> out;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    auto [a, b] = pairs[k];
    const char* reason = nullptr;
    if (body_pair_distance(model, body_q.data(), a, b) < 0)
      reason = "Default";
    else if (rate[k] >= always)
      reason = "Always";
    else if (rate[k] == 0)
      reason = "Never";
    if (reason) out.push_back({model.body_name[a], model.body_name[b], reason});
  }
  return out;
}

const char* shape_type_name(ShapeType type) {
  switch (type) {
    case ShapeType::kSphere:
      return "sphere";
    case ShapeType::kCapsule:
      return "capsule";
    case ShapeType::kBox:
      return "box";
    case ShapeType::kCylinder:
      return "cylinder";
    case ShapeType::kHalfSpace:
      return "half_space";
  }
  return nullptr;
}

bool parse_shape_type(const std::string& name, ShapeType* type) {
  for (ShapeType t : {ShapeType::kSphere, ShapeType::kCapsule, ShapeType::kBox,
                      ShapeType::kCylinder, ShapeType::kHalfSpace})
    if (name == shape_type_name(t)) {
      *type = t;
      return true;
    }
  return false;
}

void check_obstacle(const Obstacle& o) {
  std::string w = o.name.empty() ? "the obstacle" : "obstacle '" + o.name + "'";
  auto positive = [&](double v, const char* field) {
    if (!(std::isfinite(v) && v > 0 && v <= kMaxLength))
      throw std::invalid_argument(w + ": " + field + " must be in (0, 1e6] m");
  };
  switch (o.type) {
    case ShapeType::kBox:
      positive(o.size.x, "size[0]");
      positive(o.size.y, "size[1]");
      positive(o.size.z, "size[2]");
      break;
    case ShapeType::kSphere:
      positive(o.radius, "radius");
      break;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder:
      positive(o.radius, "radius");
      positive(o.length, "length");
      break;
    case ShapeType::kHalfSpace:
      if (!(std::abs(length(o.normal) - 1) < 1e-3))
        throw std::invalid_argument(w + ": normal must be a unit vector");
      if (!std::isfinite(o.offset) || std::abs(o.offset) > kMaxLength)
        throw std::invalid_argument(w + ": offset must be finite, within 1e6 m");
      return;
  }
  const Transform<double>& x = o.pose;
  for (int k = 0; k < 3; ++k)
    if (!std::isfinite(x.p[k]) || std::abs(x.p[k]) > kMaxLength)
      throw std::invalid_argument(w + ": pose.position must be finite, within 1e6 m");
  if (!(std::abs(quat_norm(x.q) - 1) < 1e-3))
    throw std::invalid_argument(w + ": pose.orientation must be a unit quaternion (x, y, z, w)");
}

CollisionShape<double> obstacle_shape(const Obstacle& o) {
  CollisionShape<double> s;
  s.type = o.type;
  s.pose = {o.pose.p, normalize(o.pose.q)};
  switch (o.type) {
    case ShapeType::kBox:
      s.size = 0.5 * o.size;
      break;
    case ShapeType::kSphere:
      s.size = {o.radius, 0, 0};
      break;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder:
      s.size = {o.radius, 0.5 * o.length, 0};
      break;
    case ShapeType::kHalfSpace: {
      Vec3<double> n = (1 / length(o.normal)) * o.normal;
      // the shortest rotation taking +z to n (a half turn about x for -z)
      Quat<double> q = n.z > -1 + 1e-9 ? normalize(Quat<double>{-n.y, n.x, 0, 1 + n.z})
                                       : Quat<double>{1, 0, 0, 0};
      s.pose = {o.offset * n, q};
      break;
    }
  }
  return s;
}

bool checkable_pair(const Model& model, int a, int b) {
  const CollisionGeometry& cg = model.collision;
  if (a < 0 || b < 0 || a >= model.body_count || b >= model.body_count || a == b) return false;
  if (cg.body_first[a] == cg.body_first[a + 1] || cg.body_first[b] == cg.body_first[b + 1])
    return false;
  std::vector<int> group = rigid_groups(model);
  return group[a] != group[b];
}

std::vector<std::pair<int, int>> named_body_pairs(const Model& model,
                                                  const std::vector<LinkPair>& pairs,
                                                  const std::string& where,
                                                  std::vector<std::string>& warnings) {
  std::vector<std::pair<int, int>> out;
  for (const auto& [la, lb] : pairs) {
    const std::string what = where + ": pair (" + la + ", " + lb + ")";
    int a = model.find_body(la), b = model.find_body(lb);
    if (a < 0 || b < 0) {
      warnings.push_back(what + ": unknown link '" + (a < 0 ? la : lb) + "', ignored");
      continue;
    }
    if (!checkable_pair(model, a, b)) {
      warnings.push_back(what + ": cannot be checked (a link without collision capsules, or " +
                         "links welded together), ignored");
      continue;
    }
    out.push_back({std::min(a, b), std::max(a, b)});
  }
  return out;
}

CollisionWorld make_collision_world(const Model& model,
                                    const std::vector<std::pair<int, int>>& disabled,
                                    const std::vector<Obstacle>& obstacles,
                                    const std::vector<std::pair<int, int>>& enabled) {
  const CollisionGeometry& cg = model.collision;
  CollisionWorld w;
  w.capsules = cg.capsules;
  // in order, without repeats (a sorted list: a set of 2 million pairs took 0.5 s a problem)
  std::vector<std::pair<int, int>> body_pairs = self_collision_pairs(model, disabled);
  for (auto [a, b] : enabled)
    if (checkable_pair(model, a, b)) body_pairs.push_back({std::min(a, b), std::max(a, b)});
  std::sort(body_pairs.begin(), body_pairs.end());
  body_pairs.erase(std::unique(body_pairs.begin(), body_pairs.end()), body_pairs.end());
  for (auto [a, b] : body_pairs)
    for (int i = cg.body_first[a]; i < cg.body_first[a + 1]; ++i)
      for (int k = cg.body_first[b]; k < cg.body_first[b + 1]; ++k) {
        w.self_pairs.push_back(i);
        w.self_pairs.push_back(k);
      }
  // bodies some dof moves: a non-fixed joint on the path to the world
  std::vector<char> moves(model.body_count, 0);
  for (int j = 0; j < model.joint_count; ++j) {
    int p = model.joint_parent[j], c = model.joint_child[j];
    moves[c] = (p >= 0 && moves[p]) || JointType(model.joint_type[j]) != JointType::kFixed;
  }
  for (int i = 0; i < cg.capsule_count(); ++i)
    if (moves[cg.capsules[i].body]) w.world_capsules.push_back(i);
  for (const Obstacle& o : obstacles) {
    check_obstacle(o);
    w.obstacles.push_back(obstacle_shape(o));
    w.obstacle_names.push_back(o.name);
  }
  return w;
}

std::vector<BodyDistance> closest_distances(const CollisionWorld& world,
                                            const Transform<double>* body_q, int max_count,
                                            double within) {
  // every capsule's end points in the world once (the pairs share capsules)
  const int n = int(world.capsules.size());
  std::vector<Vec3<double>> ends(2 * std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const LinkCapsule<double>& c = world.capsules[i];
    ends[2 * i] = transform_point(body_q[c.body], c.p0);
    ends[2 * i + 1] = transform_point(body_q[c.body], c.p1);
  }
  // The closest capsule pair of each body pair / body-obstacle pair, found by key: body_a, then
  // body_b or (top bit set) the obstacle. order: the pair's place in the world's order (self
  // pairs first, then each world capsule's obstacles), for ties.
  struct Entry {
    BodyDistance d;
    long order;
  };
  std::vector<Entry> out;
  std::unordered_map<std::uint64_t, int> index;
  auto keep = [&](const BodyDistance& d, long order) {
    const std::uint32_t second =
        d.obstacle >= 0 ? 0x80000000u | std::uint32_t(d.obstacle) : std::uint32_t(d.body_b);
    const std::uint64_t key = std::uint64_t(std::uint32_t(d.body_a)) << 32 | second;
    auto [it, inserted] = index.try_emplace(key, int(out.size()));
    if (inserted) {
      out.push_back({d, order});
      return;
    }
    Entry& e = out[it->second];
    if (d.contact.distance < e.d.contact.distance ||
        (d.contact.distance == e.d.contact.distance && order < e.order))
      e.d = d;
    e.order = std::min(e.order, order);
  };
  const int self_count = world.self_pair_count();
  for (std::size_t w = 0; w < world.world_capsules.size(); ++w) {
    const int i = world.world_capsules[w];
    for (std::size_t o = 0; o < world.obstacles.size(); ++o) {
      BodyDistance d;
      d.body_a = world.capsules[i].body;
      d.obstacle = int(o);
      d.contact =
          capsule_shape(ends[2 * i], ends[2 * i + 1], world.capsules[i].radius, world.obstacles[o]);
      keep(d, self_count + long(w * world.obstacles.size() + o));
    }
  }
  auto measure = [&](int k) {
    const int i = world.self_pairs[2 * k], j = world.self_pairs[2 * k + 1];
    BodyDistance d;
    d.body_a = world.capsules[i].body;
    d.body_b = world.capsules[j].body;
    d.contact = capsule_capsule(ends[2 * i], ends[2 * i + 1], world.capsules[i].radius, ends[2 * j],
                                ends[2 * j + 1], world.capsules[j].radius);
    keep(d, k);
  };
  if (max_count <= 0) {
    for (int k = 0; k < self_count; ++k) measure(k);
  } else {
    // A capsule lies within its bounding sphere (centre the segment's middle, radius half its
    // length plus its own), so the spheres' gap bounds a self pair's distance from below. The
    // pairs of the 2 max_count smallest bounds are measured first; then the max_count-th
    // closest body pair so far (an upper bound of the answer's) and `within` give the cutoff,
    // and of the rest only pairs whose bound is within it are measured: the others can neither
    // enter the answer nor change an entry of it.
    std::vector<Vec3<double>> centre(n);
    std::vector<double> reach(n);
    for (int i = 0; i < n; ++i) {
      centre[i] = 0.5 * (ends[2 * i] + ends[2 * i + 1]);
      reach[i] = 0.5 * length(ends[2 * i + 1] - ends[2 * i]) + world.capsules[i].radius;
    }
    std::vector<std::pair<double, int>> bound(self_count);
    for (int k = 0; k < self_count; ++k) {
      const int i = world.self_pairs[2 * k], j = world.self_pairs[2 * k + 1];
      bound[k] = {length(centre[i] - centre[j]) - reach[i] - reach[j], k};
    }
    const int first = std::min(self_count, 2 * max_count);
    if (first > 0) std::nth_element(bound.begin(), bound.begin() + (first - 1), bound.end());
    for (int s = 0; s < first; ++s) measure(bound[s].second);
    double cutoff = std::numeric_limits<double>::infinity();
    if (int(out.size()) >= max_count) {
      std::vector<double> d;
      for (const Entry& e : out) d.push_back(e.d.contact.distance);
      std::nth_element(d.begin(), d.begin() + (max_count - 1), d.end());
      cutoff = std::max(d[max_count - 1], within);
    }
    for (int s = first; s < self_count; ++s)
      if (bound[s].first <= cutoff) measure(bound[s].second);
  }
  std::sort(out.begin(), out.end(), [](const Entry& x, const Entry& y) {
    return x.d.contact.distance < y.d.contact.distance ||
           (x.d.contact.distance == y.d.contact.distance && x.order < y.order);
  });
  std::vector<BodyDistance> result;
  for (const Entry& e : out) {
    if (max_count > 0 && int(result.size()) >= max_count && !(e.d.contact.distance < within)) break;
    result.push_back(e.d);
  }
  return result;
}

}  // namespace ikwb
