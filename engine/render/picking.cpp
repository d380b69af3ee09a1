// Ray picking against per-body triangles: sphere cull, nearest-first, Moller-Trumbore.
#include "engine/render/picking.hpp"

#include <algorithm>
#include <cmath>

#include "engine/render/glm_convert.hpp"
#include "engine/render/model_mesh.hpp"

namespace ikwb::render {

float intersect_triangle(const Ray& ray, const glm::vec3& a, const glm::vec3& b,
                         const glm::vec3& c) {
  glm::vec3 e1 = b - a, e2 = c - a;
  glm::vec3 pv = glm::cross(ray.dir, e2);
  float det = glm::dot(e1, pv);
  if (std::abs(det) < 1e-12f) return -1.0f;
  float inv = 1.0f / det;
  glm::vec3 tv = ray.origin - a;
  float u = glm::dot(tv, pv) * inv;
  if (u < 0.0f || u > 1.0f) return -1.0f;
  glm::vec3 qv = glm::cross(tv, e1);
  float v = glm::dot(ray.dir, qv) * inv;
  if (v < 0.0f || u + v > 1.0f) return -1.0f;
  return glm::dot(e2, qv) * inv;
}

float intersect_sphere(const Ray& ray, const glm::vec3& centre, float radius) {
  glm::vec3 oc = ray.origin - centre;
  float b = glm::dot(oc, ray.dir);
  float c = glm::dot(oc, oc) - radius * radius;
  if (c <= 0.0f) return 0.0f;
  float disc = b * b - c;
  if (disc < 0.0f || b > 0.0f) return -1.0f;
  return -b - std::sqrt(disc);
}

void Picker::set_meshes(std::vector<MeshData> body_meshes) {
  bodies_.clear();
  bodies_.resize(body_meshes.size());
  for (std::size_t i = 0; i < body_meshes.size(); ++i) {
    const MeshData& m = body_meshes[i];
    Body& b = bodies_[i];
    b.vertices.resize(m.vertex_count());
    for (std::size_t v = 0; v < m.vertex_count(); ++v)
      b.vertices[v] = glm::vec3(m.positions[3 * v], m.positions[3 * v + 1], m.positions[3 * v + 2]);
    b.indices = m.indices;
    if (b.vertices.empty() || b.indices.empty()) continue;
    // sphere around the box centre: cheap and tight enough for culling
    glm::vec3 lo = b.vertices[0], hi = b.vertices[0];
    for (const glm::vec3& v : b.vertices) lo = glm::min(lo, v), hi = glm::max(hi, v);
    b.centre = 0.5f * (lo + hi);
    float r2 = 0.0f;
    for (const glm::vec3& v : b.vertices) r2 = std::max(r2, glm::dot(v - b.centre, v - b.centre));
    b.radius = std::sqrt(r2) * 1.0001f + 1e-6f;
  }
}

void Picker::set_model(const Model& model, bool collision) {
  set_meshes(build_body_meshes(model, collision));
}

PickHit Picker::pick(const Ray& ray, const std::vector<Transform<double>>& body_q,
                     const std::vector<uint8_t>* body_mask) const {
  // bodies whose bounding sphere the ray enters, nearest entry first
  std::vector<std::pair<float, int>> order;
  int n = std::min(int(bodies_.size()), int(body_q.size()));
  for (int i = 0; i < n; ++i) {
    if (bodies_[i].radius < 0.0f) continue;
    if (body_mask && (i >= int(body_mask->size()) || !(*body_mask)[i])) continue;
    glm::vec3 c = to_glm(transform_point(body_q[i], cast<double>(to_vec3(bodies_[i].centre))));
    float t = intersect_sphere(ray, c, bodies_[i].radius);
    if (t >= 0.0f) order.push_back({t, i});
  }
  std::sort(order.begin(), order.end());

  PickHit best;
  float best_t = INFINITY;
  for (const auto& [entry, i] : order) {
    if (entry > best_t) break;
    const Body& b = bodies_[i];
    // ray into the body frame (rigid transform: distances are preserved)
    Transform<double> inv = inverse(body_q[i]);
    Ray local{to_glm(transform_point(inv, to_vec3(ray.origin))),
              glm::normalize(to_glm(rotate(inv.q, to_vec3(ray.dir))))};
    int best_tri = -1;
    for (std::size_t t = 0; t + 2 < b.indices.size(); t += 3) {
      float d = intersect_triangle(local, b.vertices[b.indices[t]], b.vertices[b.indices[t + 1]],
                                   b.vertices[b.indices[t + 2]]);
      if (d > 0.0f && d < best_t) best_t = d, best_tri = int(t);
    }
    if (best_tri < 0) continue;
    const glm::vec3& a = b.vertices[b.indices[best_tri]];
    glm::vec3 nl = glm::cross(b.vertices[b.indices[best_tri + 1]] - a,
                              b.vertices[b.indices[best_tri + 2]] - a);
    glm::vec3 nw = glm::normalize(to_glm(rotate(body_q[i].q, to_vec3(nl))));
    if (glm::dot(nw, ray.dir) > 0.0f) nw = -nw;
    best.body = i;
    best.distance = best_t;
    best.local_point = local.at(best_t);
    best.point = ray.at(best_t);
    best.normal = nw;
  }
  return best;
}

}  // namespace ikwb::render
