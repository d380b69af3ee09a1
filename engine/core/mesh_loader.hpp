// Loads triangle meshes (STL, OBJ, DAE, glTF/GLB, ...) through assimp into MeshData.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "engine/core/mesh.hpp"

namespace ikwb {

// Limits past which a mesh is refused (the caller shows a placeholder instead).
constexpr std::size_t kMaxMeshFileBytes = std::size_t(512) << 20;
constexpr std::size_t kMaxMeshTriangles = 20'000'000;

// Loads the mesh file at `path` (a resolved file path, not a URI): every triangle of every node,
// with node transforms applied, in the file's units converted to metres where the format says
// (Collada <unit>); Collada up-axis conversion is skipped, as URDF expects. Polygons are
// triangulated; missing or zero normals (common in binary STL) are computed from the faces. colors
// is filled when the file has vertex colours or material diffuse colours, empty otherwise (STL, OBJ
// without .mtl). Returns null on failure and, when error is given, sets *error (empty file, corrupt
// data, no triangles, over the limits above). Never throws for bad files. Results are cached by
// path and shared while any caller holds them; a file whose size or modification time changed is
// read again. Thread-safe.
std::shared_ptr<const MeshData> load_mesh(const std::string& path, std::string* error);

// Drops every cached mesh (meshes still held by models stay alive).
void clear_mesh_cache();

}  // namespace ikwb
