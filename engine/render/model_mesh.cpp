// Builds per-body meshes from a Model's geometry: primitive tessellation, mesh scale and origin,
// colours; placeholders for missing meshes.
#include "engine/render/model_mesh.hpp"

#include <cmath>

#include "engine/render/glm_convert.hpp"
#include "engine/render/primitives.hpp"

namespace ikwb::render {

namespace {

MeshData shape_mesh(const Geometry& g, bool& missing) {
  missing = false;
  switch (g.type) {
    case GeometryType::kBox:
      return make_box(float(g.size.x), float(g.size.y), float(g.size.z));
    case GeometryType::kCylinder:
      return make_cylinder(float(g.size.x), float(g.size.y));
    case GeometryType::kSphere:
      return make_sphere(float(g.size.x));
    case GeometryType::kMesh:
      if (!drawn_as_placeholder(g)) {
        MeshData m = *g.mesh;
        if (m.normals.size() != m.positions.size()) compute_normals(m);
        return m;
      }
      break;
  }
  missing = true;
  return make_box(kPlaceholderSize, kPlaceholderSize, kPlaceholderSize);
}

}  // namespace

bool drawn_as_placeholder(const Geometry& g) {
  return g.type == GeometryType::kMesh && (!g.mesh || g.placeholder || g.mesh->indices.empty());
}

MeshData geometry_mesh(const Geometry& g) {
  bool missing = false;
  MeshData m = shape_mesh(g, missing);
  glm::vec3 scale(1.0f);
  if (g.type == GeometryType::kMesh && !missing) scale = to_glm(g.mesh_scale);
  glm::mat4 origin = to_glm(g.origin);
  glm::mat3 rot(origin);
  // normals transform by the inverse transpose of diag(scale)
  glm::vec3 inv_scale(1.0f);
  for (int k = 0; k < 3; ++k) inv_scale[k] = scale[k] != 0.0f ? 1.0f / scale[k] : 1.0f;
  std::size_t n = m.vertex_count();
  for (std::size_t i = 0; i < n; ++i) {
    float* p = &m.positions[3 * i];
    float* nn = &m.normals[3 * i];
    glm::vec3 pw = glm::vec3(origin * glm::vec4(scale * glm::vec3(p[0], p[1], p[2]), 1.0f));
    glm::vec3 nw = rot * (inv_scale * glm::vec3(nn[0], nn[1], nn[2]));
    float len = glm::length(nw);
    nw = len > 0.0f ? nw / len : glm::vec3(0.0f, 0.0f, 1.0f);
    for (int k = 0; k < 3; ++k) p[k] = pw[k], nn[k] = nw[k];
  }
  // a mirroring scale flips the winding: restore counter-clockwise outward faces
  if (scale.x * scale.y * scale.z < 0.0f) {
    for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3)
      std::swap(m.indices[t + 1], m.indices[t + 2]);
  }
  if (m.colors.size() != 4 * n) {
    const float* c = missing ? kPlaceholderColor : g.rgba.data();
    m.colors.resize(4 * n);
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < 4; ++k) m.colors[4 * i + k] = c[k];
  }
  return m;
}

MeshData missing_visual_stand_in(const Model& model, int body) {
  MeshData out;
  if (body < 0 || body >= int(model.body_collisions.size())) return out;
  for (const Geometry& g : model.body_collisions[std::size_t(body)]) {
    if (drawn_as_placeholder(g)) continue;
    MeshData m = geometry_mesh(g);
    for (std::size_t i = 0; i < m.vertex_count(); ++i)
      for (int k = 0; k < 4; ++k) m.colors[4 * i + k] = kPlaceholderColor[k];
    append_mesh(out, m);
  }
  return out;
}

std::vector<MeshData> build_body_meshes(const Model& model, bool collision) {
  std::vector<MeshData> out(model.body_count);
  const auto& geoms = collision ? model.body_collisions : model.body_visuals;
  for (int b = 0; b < model.body_count && b < int(geoms.size()); ++b) {
    bool stood_in = false;  // the body's collision shapes stand in for its missing meshes
    for (const Geometry& g : geoms[b]) {
      if (!collision && drawn_as_placeholder(g)) {
        if (stood_in) continue;
        MeshData shapes = missing_visual_stand_in(model, b);
        if (!shapes.positions.empty()) {
          append_mesh(out[b], shapes);
          stood_in = true;
          continue;
        }
      }
      append_mesh(out[b], geometry_mesh(g));
    }
  }
  return out;
}

bool world_bounds(const std::vector<MeshData>& body_meshes,
                  const std::vector<Transform<double>>& body_q, glm::vec3& bounds_min,
                  glm::vec3& bounds_max) {
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  bool any = false;
  for (std::size_t b = 0; b < body_meshes.size() && b < body_q.size(); ++b) {
    glm::mat4 x = to_glm(body_q[b]);
    const std::vector<float>& p = body_meshes[b].positions;
    for (std::size_t i = 0; i + 2 < p.size(); i += 3) {
      glm::vec3 w = glm::vec3(x * glm::vec4(p[i], p[i + 1], p[i + 2], 1.0f));
      lo = glm::min(lo, w);
      hi = glm::max(hi, w);
      any = true;
    }
  }
  if (any) {
    bounds_min = lo;
    bounds_max = hi;
  }
  return any;
}

}  // namespace ikwb::render
