// Obstacles in the 3D view: tessellated solids into the overlay, ray picking by sphere tracing
// the obstacle's signed distance, and gizmo poses (see obstacle_view.hpp).
#include "app/gui/obstacle_view.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "engine/render/glm_convert.hpp"
#include "engine/render/primitives.hpp"

namespace ikwb::gui {

const glm::vec4 kObstacleColor{0.58f, 0.52f, 0.95f, 0.4f};

namespace {

constexpr float kFloorHalf = 1.5f;  // half side of the drawn floor square, m (at least)

// beyond this many obstacles the round ones are drawn with half the segments each way
constexpr int kManyObstacles = 200;

// the obstacle's mesh in its own frame (shapes along local z, as the solver reads them), with
// `segments` around its axis
MeshData obstacle_mesh(const Obstacle& o, int segments) {
  switch (o.type) {
    case ShapeType::kBox:
      return render::make_box(float(o.size.x), float(o.size.y), float(o.size.z));
    case ShapeType::kSphere:
      return render::make_sphere(float(o.radius), segments, segments / 2);
    case ShapeType::kCapsule:
      return render::make_capsule(float(o.radius), float(o.length), segments, segments / 2);
    case ShapeType::kCylinder:
      return render::make_cylinder(float(o.radius), float(o.length), segments);
    case ShapeType::kHalfSpace:
      break;
  }
  return {};
}

// obstacle_mesh, made once per shape and size (a scene of 2,000 spheres tessellated every one
// of them every frame); the cache is emptied when it holds many sizes
const MeshData& cached_obstacle_mesh(const Obstacle& o, int segments) {
  using Key = std::tuple<int, double, double, double, double, double, int>;
  static std::map<Key, MeshData> cache;
  const Key key{int(o.type), o.size.x, o.size.y, o.size.z, o.radius, o.length, segments};
  auto at = cache.find(key);
  if (at != cache.end()) return at->second;
  if (cache.size() >= 1024) cache.clear();
  return cache.emplace(key, obstacle_mesh(o, segments)).first->second;
}

// the rotation taking +z to the unit vector n
Quat<double> rotation_to(const Vec3<double>& n) {
  Vec3<double> z{0, 0, 1};
  double c = dot(z, n);
  if (c < -1 + 1e-12) return {1, 0, 0, 0};
  Vec3<double> a = cross(z, n);
  return normalize(Quat<double>{a.x, a.y, a.z, 1 + c});
}

// front faces of a mesh at `pose`, shaded by a headlight from the eye, added to tris / colors
void solid(const MeshData& mesh, const glm::mat4& pose, const glm::vec3& eye,
           const glm::vec4& color, std::vector<glm::vec3>& tris, std::vector<glm::vec4>& colors) {
  const glm::mat3 rot(pose);
  for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    glm::vec3 p[3];
    for (int k = 0; k < 3; ++k) {
      const float* v = &mesh.positions[3 * mesh.indices[t + k]];
      p[k] = glm::vec3(pose * glm::vec4(v[0], v[1], v[2], 1.0f));
    }
    glm::vec3 n = glm::cross(p[1] - p[0], p[2] - p[0]);
    float len = glm::length(n);
    if (len < 1e-12f) continue;
    n /= len;
    glm::vec3 to_eye = glm::normalize(eye - p[0]);
    float facing = glm::dot(n, to_eye);
    if (facing <= 0) continue;
    // smooth normals where the mesh has them (spheres, capsule and cylinder sides)
    for (int k = 0; k < 3; ++k) {
      uint32_t i = mesh.indices[t + k];
      float lit = facing;
      if (mesh.normals.size() == mesh.positions.size()) {
        glm::vec3 vn =
            rot * glm::vec3(mesh.normals[3 * i], mesh.normals[3 * i + 1], mesh.normals[3 * i + 2]);
        lit = std::max(0.0f, glm::dot(glm::normalize(vn), to_eye));
      }
      tris.push_back(p[k]);
      colors.push_back(glm::vec4(glm::vec3(color) * (0.45f + 0.55f * lit), color.a));
    }
  }
}

// the twelve edges of a box (outline of a selected box)
void box_edges(render::Overlay& ov, const Obstacle& o, const glm::mat4& pose,
               const glm::vec4& color) {
  glm::vec3 h = 0.5f * render::to_glm(o.size);
  auto corner = [&](int i) {
    glm::vec3 c((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
    return glm::vec3(pose * glm::vec4(c, 1.0f));
  };
  for (int i = 0; i < 8; ++i)
    for (int b = 1; b < 8; b <<= 1)
      if (!(i & b)) ov.line(corner(i), corner(i | b), color, 1.5f, true);
}

}  // namespace

Transform<double> obstacle_gizmo_pose(const Obstacle& o) {
  if (o.type != ShapeType::kHalfSpace) return o.pose;
  Vec3<double> n = o.normal;
  double l = length(n);
  if (l > 0) n = (1.0 / l) * n;
  return {o.offset * n, rotation_to(n)};
}

Obstacle obstacle_at_gizmo_pose(const Obstacle& o, const Transform<double>& pose) {
  Obstacle out = o;
  Transform<double> t = {pose.p, normalize(pose.q)};
  if (o.type != ShapeType::kHalfSpace) {
    out.pose = t;
    return out;
  }
  out.normal = rotate(t.q, Vec3<double>{0, 0, 1});
  out.offset = dot(out.normal, t.p);
  return out;
}

Vec3<double> rpy_from_quat(const Quat<double>& q) {
  // R = Rz(yaw) Ry(pitch) Rx(roll)
  double sp = 2 * (q.w * q.y - q.z * q.x);
  sp = std::min(1.0, std::max(-1.0, sp));
  double roll = std::atan2(2 * (q.w * q.x + q.y * q.z), 1 - 2 * (q.x * q.x + q.y * q.y));
  double yaw = std::atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z));
  return {roll, std::asin(sp), yaw};
}

void draw_obstacles(render::Overlay& ov, const render::Camera& camera, const AppState& app,
                    int selected, int hovered) {
  const glm::vec3 eye = camera.eye();
  const int segments = int(app.obstacles.size()) > kManyObstacles ? 12 : 24;
  std::vector<glm::vec3> tris;
  std::vector<glm::vec4> colors;
  for (int i = 0; i < int(app.obstacles.size()); ++i) {
    const Obstacle& o = app.obstacles[i];
    glm::vec4 color = kObstacleColor;
    if (i == hovered) color.a += 0.1f;
    if (i == selected) color = glm::vec4(0.72f, 0.66f, 1.0f, 0.45f);
    const glm::vec4 edge(0.85f, 0.8f, 1.0f, i == selected ? 0.95f : 0.5f);
    if (o.type == ShapeType::kHalfSpace) {
      // a square of the plane around the camera's target, and its normal
      Transform<double> g = obstacle_gizmo_pose(o);
      glm::vec3 n = render::to_glm(rotate(g.q, Vec3<double>{0, 0, 1}));
      glm::vec3 c = camera.target - glm::dot(camera.target - render::to_glm(g.p), n) * n;
      glm::vec3 u = render::any_perpendicular(n), v = glm::cross(n, u);
      float h = std::max(kFloorHalf, 1.5f * camera.distance);
      glm::vec3 a = c - h * u - h * v, b = c + h * u - h * v, d = c + h * u + h * v,
                e = c - h * u + h * v;
      glm::vec4 fill = color;
      fill.a *= 0.35f;
      ov.quad(a, b, d, e, fill, true);
      ov.polyline({a, b, d, e}, edge, 1.5f, true, true);
      continue;
    }
    const glm::mat4 pose = render::to_glm(o.pose);
    solid(cached_obstacle_mesh(o, segments), pose, eye, color, tris, colors);
    if (o.type == ShapeType::kBox) box_edges(ov, o, pose, edge);
  }
  if (!tris.empty()) ov.triangles(tris, colors, true);
}

int pick_obstacle(const AppState& app, const render::Ray& ray, float max_distance,
                  float* distance) {
  int best = -1;
  double best_t = max_distance;
  const Vec3<double> origin = render::to_vec3(ray.origin), dir = render::to_vec3(ray.dir);
  for (int i = 0; i < int(app.obstacles.size()); ++i) {
    const Obstacle& o = app.obstacles[i];
    if (o.type == ShapeType::kHalfSpace) continue;
    const CollisionShape<double> shape = obstacle_shape(o);
    // sphere tracing: the signed distance never overestimates the free distance along the ray
    double t = 0;
    for (int step = 0; step < 128 && t < best_t; ++step) {
      Vec3<double> n;
      double d = point_sdf(shape, origin + t * dir, &n);
      if (d < 1e-4 * std::max(1.0, t)) {
        best = i;
        best_t = t;
        break;
      }
      t += d;
    }
  }
  if (distance) *distance = float(best_t);
  return best;
}

}  // namespace ikwb::gui
