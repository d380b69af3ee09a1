// CPU triangles of a Model's visual (or collision) geometry, merged per body and expressed in
// the body frame: geometry origins and mesh scales are baked in, every vertex has a colour.
// The renderer uploads these and the picker ray-casts against the same triangles.
#pragma once

#include <vector>

#include <glm/glm.hpp>

#include "engine/core/model.hpp"

namespace ikwb::render {

// edge of the box drawn for a mesh that could not be loaded
constexpr float kPlaceholderSize = 0.05f;
// its colour (magenta: "missing")
constexpr float kPlaceholderColor[4] = {0.85f, 0.2f, 0.75f, 1.0f};

// whether g is drawn as the placeholder box: a mesh that is missing, unreadable or empty
bool drawn_as_placeholder(const Geometry& g);

// triangles of one Geometry in the body frame. Colours: the mesh's own vertex colours when it
// has them, else the geometry's rgba (URDF material or the loader's default).
MeshData geometry_mesh(const Geometry& g);

// what stands in for body's visual meshes that could not be loaded: its collision shapes that
// could, in the placeholder's magenta (a missing head drawn as a 5 cm cube hid inside the neck,
// and a figure silently lost its head); empty when it has none
MeshData missing_visual_stand_in(const Model& model, int body);

// (body_count) meshes in body frames; bodies without geometry get an empty mesh. A visual mesh
// that could not be loaded is drawn as missing_visual_stand_in, or the placeholder box where
// that is empty.
std::vector<MeshData> build_body_meshes(const Model& model, bool collision = false);

// world axis-aligned bounds of all meshes at poses body_q (body_count); false when there are
// no vertices (min / max untouched)
bool world_bounds(const std::vector<MeshData>& body_meshes,
                  const std::vector<Transform<double>>& body_q, glm::vec3& bounds_min,
                  glm::vec3& bounds_max);

}  // namespace ikwb::render
