// CPU picking: a world ray against the model's triangles (the same per-body meshes the renderer
// draws). Bodies are culled by bounding spheres and visited nearest first, so a few tens of
// thousands of triangles pick well within a frame.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "engine/core/model.hpp"
#include "engine/render/camera.hpp"

namespace ikwb::render {

struct PickHit {
  int body = -1;                // -1: nothing hit
  float distance = 0;           // along the ray, world units
  glm::vec3 point{0.0f};        // world
  glm::vec3 local_point{0.0f};  // body frame (for attaching targets to the clicked spot)
  glm::vec3 normal{0.0f};       // world, unit, facing the ray origin
  bool hit() const { return body >= 0; }
};

class Picker {
 public:
  // keeps a copy of the triangles of each body (body frame)
  void set_meshes(std::vector<MeshData> body_meshes);
  void set_model(const Model& model, bool collision = false);
  int body_count() const { return int(bodies_.size()); }

  // nearest hit with any body at poses body_q (body_count). body_mask (body_count, nonzero =
  // pickable) may be null.
  PickHit pick(const Ray& ray, const std::vector<Transform<double>>& body_q,
               const std::vector<uint8_t>* body_mask = nullptr) const;

 private:
  struct Body {
    std::vector<glm::vec3> vertices;  // body frame
    std::vector<uint32_t> indices;
    glm::vec3 centre{0.0f};  // bounding sphere, body frame
    float radius = -1;       // < 0: no triangles
  };
  std::vector<Body> bodies_;
};

// ray / triangle intersection (Moller-Trumbore, both sides); distance along the ray or < 0
float intersect_triangle(const Ray& ray, const glm::vec3& a, const glm::vec3& b,
                         const glm::vec3& c);
// entry distance of a ray into a sphere (0 when the origin is inside), or < 0 when it misses
float intersect_sphere(const Ray& ray, const glm::vec3& centre, float radius);

}  // namespace ikwb::render
