// Triangle meshes in plain CPU buffers (no OpenGL here): what the loaders produce and the
// renderer uploads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ikwb {

struct MeshData {
  std::vector<float> positions;  // (vertex_count x 3) in the mesh file's frame, metres
  std::vector<float> normals;    // (vertex_count x 3) unit normals
  std::vector<float> colors;     // (vertex_count x 4) rgba from the file's materials, or empty
  std::vector<uint32_t> indices;  // (triangle_count x 3)
  std::size_t vertex_count() const { return positions.size() / 3; }
  std::size_t triangle_count() const { return indices.size() / 3; }
};

}  // namespace ikwb
