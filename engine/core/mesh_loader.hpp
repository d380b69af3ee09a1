// Loads triangle meshes (STL, OBJ, DAE, glTF/GLB, ...) through assimp into MeshData.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/mesh.hpp"

namespace ikwb {

// Limits past which a mesh is refused (the caller shows a placeholder instead).
constexpr std::size_t kMaxMeshFileBytes = std::size_t(512) << 20;
constexpr std::size_t kMaxMeshTriangles = 20'000'000;

// Files that a mesh file names but that are not there. The mesh loads without them; each entry
// is "'NAME' (looked for PATH)", NAME as the mesh file writes it, with a note when a file there
// differs only in case.
struct MissingMeshFiles {
  // .mtl material libraries of an OBJ (its mtllib lines). When none of them is read, the
  // materials are assimp's stand-ins and give no colours.
  std::vector<std::string> material_libraries;
  // image files that the materials name, of any texture type (none is drawn by the renderer);
  // textures embedded in the file are not files
  std::vector<std::string> textures;
  bool empty() const { return material_libraries.empty() && textures.empty(); }
};

// Loads the mesh file at `path` (a resolved file path, not a URI): every triangle of every node,
// with node transforms applied, in the file's units converted to metres where the format says
// (Collada <unit>); Collada up-axis conversion is skipped, as URDF expects. Polygons are
// triangulated; missing or zero normals (common in binary STL) are computed from the faces. colors
// is filled when the file has vertex colours or material diffuse colours, empty otherwise (STL, OBJ
// whose .mtl is not read). Returns null on failure and, when error is given, sets *error (empty
// file, corrupt data, no triangles, over the limits above). On success, when missing is given, sets
// *missing to the files the mesh names but lacks. Never throws for bad files. Results are cached by
// path and shared while any caller holds them (a cached load reports the same missing files); a
// file whose size or modification time changed is read again. Thread-safe.
std::shared_ptr<const MeshData> load_mesh(const std::string& path, std::string* error,
                                          MissingMeshFiles* missing = nullptr);

// Drops every cached mesh (meshes still held by models stay alive).
void clear_mesh_cache();

}  // namespace ikwb
