#include "engine/core/mesh_loader.hpp"

#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>
#include <vector>

namespace ikwb {

namespace fs = std::filesystem;

namespace {

struct CacheEntry {
  std::uintmax_t size = 0;
  fs::file_time_type mtime;
  std::weak_ptr<const MeshData> mesh;
};

std::mutex g_cache_mutex;
std::map<std::string, CacheEntry> g_cache;

struct MaterialColor {
  bool has = false;
  float rgba[4] = {0.7f, 0.7f, 0.7f, 1.0f};
};

MaterialColor material_color(const aiMaterial* mat) {
  MaterialColor c;
  if (!mat) return c;
  aiString name;
  // assimp gives colourless formats a material of this name: not a colour from the file
  if (mat->Get(AI_MATKEY_NAME, name) == AI_SUCCESS &&
      std::string(name.C_Str()) == AI_DEFAULT_MATERIAL_NAME)
    return c;
  aiColor4D d;
  if (mat->Get(AI_MATKEY_COLOR_DIFFUSE, d) != AI_SUCCESS) return c;
  float opacity = 1.0f;
  if (mat->Get(AI_MATKEY_OPACITY, opacity) != AI_SUCCESS) opacity = 1.0f;
  c.has = true;
  c.rgba[0] = d.r, c.rgba[1] = d.g, c.rgba[2] = d.b;
  c.rgba[3] = std::isfinite(opacity) && opacity > 0.0f && opacity <= 1.0f ? opacity : d.a;
  return c;
}

struct Builder {
  const aiScene* scene;
  MeshData out;
  bool any_color = false;
  std::size_t triangles = 0;
  std::string error;
};

// pass 1: count triangles of every mesh instance, and whether any colour exists
void count(Builder& b, const aiNode* node) {
  for (unsigned i = 0; i < node->mNumMeshes; ++i) {
    const aiMesh* mesh = b.scene->mMeshes[node->mMeshes[i]];
    if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    b.triangles += mesh->mNumFaces;
    if (mesh->HasVertexColors(0) || material_color(b.scene->mMaterials[mesh->mMaterialIndex]).has)
      b.any_color = true;
  }
  for (unsigned c = 0; c < node->mNumChildren; ++c) count(b, node->mChildren[c]);
}

// Vertices whose normal is missing or zero (binary STL exporters often write zeros) get the
// area-weighted mean of their faces' normals.
void repair_normals(MeshData& out, uint32_t first_vertex, std::size_t first_index,
                    const std::vector<char>& degenerate) {
  const std::vector<float>& p = out.positions;
  for (std::size_t t = first_index; t < out.indices.size(); t += 3) {
    uint32_t i[3] = {out.indices[t], out.indices[t + 1], out.indices[t + 2]};
    if (!degenerate[i[0] - first_vertex] && !degenerate[i[1] - first_vertex] &&
        !degenerate[i[2] - first_vertex])
      continue;
    float e1[3], e2[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = p[3 * i[1] + k] - p[3 * i[0] + k];
      e2[k] = p[3 * i[2] + k] - p[3 * i[0] + k];
    }
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
    for (uint32_t v : i)
      if (degenerate[v - first_vertex])
        for (int k = 0; k < 3; ++k) out.normals[3 * v + k] += n[k];
  }
  for (std::size_t d = 0; d < degenerate.size(); ++d) {
    if (!degenerate[d]) continue;
    float* n = &out.normals[3 * (first_vertex + d)];
    float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (std::isfinite(len) && len > 0) {
      for (int k = 0; k < 3; ++k) n[k] /= len;
    } else {
      n[0] = 0, n[1] = 0, n[2] = 1;
    }
  }
}

// pass 2: append every triangle with the accumulated node transform applied
void append(Builder& b, const aiNode* node, const aiMatrix4x4& parent) {
  aiMatrix4x4 xf = parent * node->mTransformation;
  aiMatrix3x3 normal_xf = aiMatrix3x3(xf);
  bool mirrored = normal_xf.Determinant() < 0;
  normal_xf.Inverse().Transpose();
  for (unsigned i = 0; i < node->mNumMeshes; ++i) {
    const aiMesh* mesh = b.scene->mMeshes[node->mMeshes[i]];
    if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    uint32_t base = uint32_t(b.out.positions.size() / 3);
    std::size_t first_index = b.out.indices.size();
    std::vector<char> degenerate(mesh->mNumVertices, 0);
    bool any_degenerate = false;
    MaterialColor mc = material_color(b.scene->mMaterials[mesh->mMaterialIndex]);
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      aiVector3D p = xf * mesh->mVertices[v];
      b.out.positions.insert(b.out.positions.end(), {p.x, p.y, p.z});
      aiVector3D n = mesh->HasNormals() ? normal_xf * mesh->mNormals[v] : aiVector3D(0, 0, 0);
      float len = n.Length();
      if (std::isfinite(len) && len > 1e-20f) {
        n /= len;
      } else {
        n = aiVector3D(0, 0, 0);
        degenerate[v] = 1;
        any_degenerate = true;
      }
      b.out.normals.insert(b.out.normals.end(), {n.x, n.y, n.z});
      if (!b.any_color) continue;
      if (mesh->HasVertexColors(0)) {
        const aiColor4D& c = mesh->mColors[0][v];
        b.out.colors.insert(b.out.colors.end(), {c.r, c.g, c.b, c.a});
      } else {
        b.out.colors.insert(b.out.colors.end(), mc.rgba, mc.rgba + 4);
      }
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;
      uint32_t a = face.mIndices[0], c1 = face.mIndices[1], c2 = face.mIndices[2];
      if (a >= mesh->mNumVertices || c1 >= mesh->mNumVertices || c2 >= mesh->mNumVertices) {
        b.error = "a face refers to a vertex that does not exist";
        return;
      }
      // a mirroring node transform flips the winding; keep triangles front-facing
      if (mirrored) std::swap(c1, c2);
      b.out.indices.insert(b.out.indices.end(), {base + a, base + c1, base + c2});
    }
    if (any_degenerate) repair_normals(b.out, base, first_index, degenerate);
  }
  for (unsigned c = 0; c < node->mNumChildren && b.error.empty(); ++c)
    append(b, node->mChildren[c], xf);
}

// Cameras and lights mean nothing in a robot's mesh, and some exporters write several under one
// name, which aiProcess_ValidateDataStructure rejects (the UR10 Collada meshes of
// example-robot-data): they go before the post-processing and its validation run.
void drop_cameras_and_lights(aiScene* scene) {
  for (unsigned i = 0; i < scene->mNumCameras; ++i) delete scene->mCameras[i];
  delete[] scene->mCameras;
  scene->mCameras = nullptr;
  scene->mNumCameras = 0;
  for (unsigned i = 0; i < scene->mNumLights; ++i) delete scene->mLights[i];
  delete[] scene->mLights;
  scene->mLights = nullptr;
  scene->mNumLights = 0;
}

std::shared_ptr<const MeshData> read_mesh(const std::string& path, std::uintmax_t size,
                                          std::string* error) {
  auto fail = [&](const std::string& what) {
    if (error) *error = path + ": " + what;
    return std::shared_ptr<const MeshData>();
  };
  if (size == 0) return fail("empty file");
  if (size > kMaxMeshFileBytes)
    return fail("file too large (" + std::to_string(size >> 20) + " MiB, limit " +
                std::to_string(kMaxMeshFileBytes >> 20) + " MiB)");
  Assimp::Importer importer;
  // URDF meshes are Z-up already; the Collada unit scale still applies
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  // no aiProcess_JoinIdenticalVertices: it dominates load time on large meshes. SortByPType
  // splits point and line primitives into meshes of their own, which are skipped below.
  const unsigned flags = aiProcess_Triangulate | aiProcess_GenSmoothNormals |
                         aiProcess_SortByPType | aiProcess_ValidateDataStructure;
  const aiScene* raw = importer.ReadFile(path, 0);
  if (!raw) return fail(std::string("cannot be read (") + importer.GetErrorString() + ")");
  drop_cameras_and_lights(const_cast<aiScene*>(raw));
  const aiScene* scene = importer.ApplyPostProcessing(flags);
  if (!scene) return fail(std::string("cannot be read (") + importer.GetErrorString() + ")");
  if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) || !scene->mRootNode)
    return fail("incomplete scene");
  Builder b{scene, {}, false, 0, {}};
  count(b, scene->mRootNode);
  if (b.triangles == 0) return fail("no triangles");
  if (b.triangles > kMaxMeshTriangles)
    return fail(std::to_string(b.triangles) + " triangles, over the limit of " +
                std::to_string(kMaxMeshTriangles));
  b.out.indices.reserve(3 * b.triangles);
  append(b, scene->mRootNode, aiMatrix4x4());
  if (!b.error.empty()) return fail(b.error);
  if (b.out.indices.empty()) return fail("no triangles");
  for (float v : b.out.positions)
    if (!std::isfinite(v)) return fail("non-finite vertex coordinates");
  return std::make_shared<const MeshData>(std::move(b.out));
}

}  // namespace

std::shared_ptr<const MeshData> load_mesh(const std::string& path, std::string* error) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    if (error) *error = path + ": not a file";
    return nullptr;
  }
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec) size = 0;
  fs::file_time_type mtime = fs::last_write_time(path, ec);
  std::string key = fs::weakly_canonical(path, ec).string();
  if (key.empty()) key = path;
  {
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    auto it = g_cache.find(key);
    if (it != g_cache.end() && it->second.size == size && it->second.mtime == mtime) {
      if (auto mesh = it->second.mesh.lock()) return mesh;
    }
  }
  // read outside the lock: two threads may load the same file once each, which is harmless
  std::shared_ptr<const MeshData> mesh = read_mesh(path, size, error);
  if (mesh) {
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    g_cache[key] = CacheEntry{size, mtime, mesh};
  }
  return mesh;
}

void clear_mesh_cache() {
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  g_cache.clear();
}

}  // namespace ikwb
