#include "engine/core/mesh_loader.hpp"

#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/DefaultIOSystem.h>
#include <algorithm>
#include <array>
#include <assimp/Importer.hpp>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tinyxml2.h>

#include "engine/core/resource_path.hpp"

namespace ikwb {

namespace fs = std::filesystem;

namespace {

// The files a load read or looked for besides the mesh file (an OBJ's .mtl, textures), each with
// its modification time, file_time_type::min() where it does not exist: a cached mesh is read
// again when one of them changes (a .mtl edited, a missing texture added).
using SideFiles = std::vector<std::pair<std::string, fs::file_time_type>>;

fs::file_time_type stamp(const std::string& path) {
  std::error_code ec;
  fs::file_time_type t = fs::last_write_time(path, ec);
  return ec ? fs::file_time_type::min() : t;
}

struct CacheEntry {
  std::uintmax_t size = 0;
  fs::file_time_type mtime;
  std::weak_ptr<const MeshData> mesh;
  MissingMeshFiles missing;
  SideFiles side_files;
};

std::mutex g_cache_mutex;
std::map<std::string, CacheEntry> g_cache;

struct MaterialColor {
  bool has = false;
  float rgba[4] = {0.7f, 0.7f, 0.7f, 1.0f};
};

// materials_read: false where the materials are assimp's stand-ins (an OBJ whose .mtl was not
// read gets one of default grey for each name it uses), whose colour is not the file's
MaterialColor material_color(const aiMaterial* mat, bool materials_read) {
  MaterialColor c;
  if (!mat || !materials_read) return c;
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
  bool materials_read;
  // a mesh without normals in the file is shaded flat (glTF 2.0 asks it, 3.7.2.1), else smooth
  bool flat_normals;
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
    if (mesh->HasVertexColors(0) ||
        material_color(b.scene->mMaterials[mesh->mMaterialIndex], b.materials_read).has)
      b.any_color = true;
  }
  for (unsigned c = 0; c < node->mNumChildren; ++c) count(b, node->mChildren[c]);
}

float* face_normal(const std::vector<float>& p, const uint32_t* i, float* n) {
  float e1[3], e2[3];
  for (int k = 0; k < 3; ++k) {
    e1[k] = p[3 * i[1] + k] - p[3 * i[0] + k];
    e2[k] = p[3 * i[2] + k] - p[3 * i[0] + k];
  }
  n[0] = e1[1] * e2[2] - e1[2] * e2[1];
  n[1] = e1[2] * e2[0] - e1[0] * e2[2];
  n[2] = e1[0] * e2[1] - e1[1] * e2[0];
  return n;
}

void normalize_or_up(float* n) {
  const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (std::isfinite(len) && len > 0) {
    for (int k = 0; k < 3; ++k) n[k] /= len;
  } else {
    n[0] = 0, n[1] = 0, n[2] = 1;
  }
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
    float n[3];
    face_normal(p, i, n);
    for (uint32_t v : i)
      if (degenerate[v - first_vertex])
        for (int k = 0; k < 3; ++k) out.normals[3 * v + k] += n[k];
  }
  for (std::size_t d = 0; d < degenerate.size(); ++d)
    if (degenerate[d]) normalize_or_up(&out.normals[3 * (first_vertex + d)]);
}

// The vertices from first_vertex on, which the file gave no normals, get the area-weighted mean
// of the normals of the faces around their position: a file that repeats a vertex for each face
// (OBJ) is smoothed across them as one that shares it (PLY, where assimp's smoothing gave each
// vertex one face's normal: a box's top read dark).
void smooth_normals(MeshData& out, uint32_t first_vertex, std::size_t first_index) {
  struct Hash {
    std::size_t operator()(const std::array<float, 3>& p) const {
      std::size_t h = 0;
      for (float v : p) {
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        h = h * 1000003u ^ bits;
      }
      return h;
    }
  };
  const std::vector<float>& p = out.positions;
  const std::size_t n = p.size() / 3 - first_vertex;
  std::unordered_map<std::array<float, 3>, uint32_t, Hash> groups;
  std::vector<uint32_t> group(n);
  for (std::size_t v = 0; v < n; ++v) {
    const float* x = &p[3 * (first_vertex + v)];
    // + 0.0f: -0 and 0 are one place
    group[v] = groups
                   .emplace(std::array<float, 3>{x[0] + 0.0f, x[1] + 0.0f, x[2] + 0.0f},
                            uint32_t(groups.size()))
                   .first->second;
  }
  std::vector<float> sum(3 * groups.size(), 0.0f);
  for (std::size_t t = first_index; t < out.indices.size(); t += 3) {
    float f[3];
    face_normal(p, &out.indices[t], f);
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) sum[3 * group[out.indices[t + c] - first_vertex] + k] += f[k];
  }
  for (std::size_t v = 0; v < n; ++v) {
    float* normal = &out.normals[3 * (first_vertex + v)];
    for (int k = 0; k < 3; ++k) normal[k] = sum[3 * group[v] + k];
    normalize_or_up(normal);
  }
}

// The triangles from first_index on, whose vertices from first_vertex on the file gave no
// normals, each get vertices of their own with its face's normal (flat shading).
void flat_normals(MeshData& out, uint32_t first_vertex, std::size_t first_index) {
  const std::vector<float> positions(out.positions.begin() + 3 * first_vertex, out.positions.end());
  const bool colored = !out.colors.empty();
  const std::vector<float> colors =
      colored ? std::vector<float>(out.colors.begin() + 4 * first_vertex, out.colors.end())
              : std::vector<float>();
  out.positions.resize(3 * std::size_t(first_vertex));
  out.normals.resize(3 * std::size_t(first_vertex));
  if (colored) out.colors.resize(4 * std::size_t(first_vertex));
  uint32_t next = first_vertex;
  for (std::size_t t = first_index; t < out.indices.size(); t += 3) {
    for (int c = 0; c < 3; ++c) {
      const uint32_t old = out.indices[t + c] - first_vertex;
      out.positions.insert(out.positions.end(), &positions[3 * old], &positions[3 * old] + 3);
      if (colored) out.colors.insert(out.colors.end(), &colors[4 * old], &colors[4 * old] + 4);
      out.indices[t + c] = next++;
    }
    float f[3];
    normalize_or_up(face_normal(out.positions, &out.indices[t], f));
    for (int c = 0; c < 3; ++c) out.normals.insert(out.normals.end(), f, f + 3);
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
    MaterialColor mc = material_color(b.scene->mMaterials[mesh->mMaterialIndex], b.materials_read);
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      aiVector3D p = xf * mesh->mVertices[v];
      b.out.positions.insert(b.out.positions.end(), {p.x, p.y, p.z});
      aiVector3D n = mesh->HasNormals() ? normal_xf * mesh->mNormals[v] : aiVector3D(0, 0, 0);
      float len = n.Length();
      if (std::isfinite(len) && len > 1e-20f) {
        n /= len;
      } else if (mesh->HasNormals()) {
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
    if (!mesh->HasNormals())
      (b.flat_normals ? flat_normals : smooth_normals)(b.out, base, first_index);
    else if (any_degenerate)
      repair_normals(b.out, base, first_index, degenerate);
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

// Assimp's file access, recorded: the files an import read and those it looked for in vain.
// Assimp only logs a missing .mtl (to a process-wide logger) and goes on; this is per import, so
// thread-safe, and sees the paths after assimp's own retries (backslashes read as slashes, then
// the .mtl named like the OBJ).
class RecordingIOSystem : public Assimp::DefaultIOSystem {
 public:
  Assimp::IOStream* Open(const char* file, const char* mode) override {
    Assimp::IOStream* stream = DefaultIOSystem::Open(file, mode);
    std::vector<std::string>& list = stream ? opened : missed;
    if (std::find(list.begin(), list.end(), file) == list.end()) list.push_back(file);
    return stream;
  }
  std::vector<std::string> opened, missed;  // in the order first tried
};

// a path that a mesh file names, as a path here: Windows backslashes as separators, relative to
// the mesh file's folder
fs::path named_path(const fs::path& folder, std::string name) {
  std::replace(name.begin(), name.end(), '\\', '/');
  fs::path p(name);
  return (p.is_absolute() ? p : folder / p).lexically_normal();
}

// "'NAME' (looked for PATH, ...)", with a file that differs only in case when there is one
std::string describe_missing(const std::string& name, const std::vector<fs::path>& looked_for) {
  std::string out = "'" + name + "'";
  // C:\... or C:/...: a path on the machine that exported the mesh, never found here
  if (name.size() > 2 && std::isalpha(static_cast<unsigned char>(name[0])) && name[1] == ':' &&
      (name[2] == '\\' || name[2] == '/'))
    return out + " (a Windows path)";
  std::string other;
  for (std::size_t i = 0; i < looked_for.size(); ++i) {
    out += (i ? ", " : " (looked for ") + looked_for[i].string();
    const fs::path p =
        case_insensitive_file(looked_for[i].parent_path(), looked_for[i].filename().string());
    if (other.empty() && !p.empty()) other = "; " + p.string() + " differs only in case";
  }
  return out + other + ")";
}

// The .mtl files an OBJ names that assimp could not open, from its file access: a path it read
// under another spelling (backslashes) is not missing, nor is its guess of the .mtl named like
// the OBJ unless that is all it looked for.
std::vector<std::string> missing_material_libraries(const RecordingIOSystem& io,
                                                    const fs::path& obj) {
  const fs::path folder = obj.parent_path();
  const fs::path guess = fs::path(obj).replace_extension(".mtl");
  auto read = [&](const fs::path& p) {
    return std::any_of(io.opened.begin(), io.opened.end(),
                       [&](const std::string& f) { return named_path(folder, f) == p; });
  };
  std::vector<std::pair<fs::path, std::string>> missed;  // where looked for, name as written
  for (const std::string& f : io.missed) {
    const fs::path p = named_path(folder, f);
    if (read(p) ||
        std::any_of(missed.begin(), missed.end(), [&](const auto& m) { return m.first == p; }))
      continue;
    // assimp prefixes the OBJ's folder to the name the mtllib line gives
    std::string name = fs::path(f).lexically_relative(folder).string();
    missed.push_back({p, name.empty() ? f : name});
  }
  if (missed.size() > 1)
    missed.erase(std::remove_if(missed.begin(), missed.end(),
                                [&](const auto& m) { return m.first == guess; }),
                 missed.end());
  std::vector<std::string> out;
  for (const auto& [p, name] : missed) out.push_back(describe_missing(name, {p}));
  return out;
}

// The image files the materials name that do not exist, each once: looked for relative to each
// of `folders` (the mesh's, then those of the .mtl files read, which is where OBJ tools look). The
// files looked for go to side_files.
std::vector<std::string> missing_textures(const aiScene* scene,
                                          const std::vector<fs::path>& folders,
                                          SideFiles& side_files) {
  std::vector<std::string> out;
  std::vector<std::string> seen;
  for (unsigned m = 0; m < scene->mNumMaterials; ++m)
    for (int type = aiTextureType_NONE + 1; type <= AI_TEXTURE_TYPE_MAX; ++type)
      for (unsigned i = 0; i < scene->mMaterials[m]->GetTextureCount(aiTextureType(type)); ++i) {
        aiString texture;
        if (scene->mMaterials[m]->GetTexture(aiTextureType(type), i, &texture) != AI_SUCCESS ||
            scene->GetEmbeddedTexture(texture.C_Str()))
          continue;
        std::string name = texture.C_Str();
        // exporters quote names with spaces in a .mtl; assimp keeps the quotes
        if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
          name = name.substr(1, name.size() - 2);
        if (name.empty() || std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
        seen.push_back(name);
        std::vector<fs::path> looked_for;
        bool found = false;
        for (const fs::path& folder : folders) {
          const fs::path p = named_path(folder, name);
          if (std::find(looked_for.begin(), looked_for.end(), p) != looked_for.end()) continue;
          looked_for.push_back(p);
          side_files.push_back({p.string(), stamp(p.string())});
          std::error_code ec;
          found = found || fs::is_regular_file(p, ec);
        }
        if (!found) out.push_back(describe_missing(name, looked_for));
      }
  return out;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What makes an STL unreadable where assimp only says it could not tell the kind ("Failed to
// determine STL storage representation"): a binary STL is its 84-byte header and 50 bytes for
// each triangle the header counts, to the byte; an ASCII one begins "solid" in lower case. ""
// where neither says more (an ASCII STL assimp could not parse).
std::string stl_problem(const fs::path& file, std::uintmax_t size) {
  std::ifstream in(file, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  std::size_t start = head.find_first_not_of(" \t\r\n");
  const std::string word = lowercase(start == std::string::npos ? "" : head.substr(start, 5));
  // (UTF-8 in a solid's name is text too)
  const bool text = std::all_of(head.begin(), head.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return std::isprint(u) || std::isspace(u) || u >= 0x80;
  });
  if (word == "solid" && text) {
    // the first keyword not in lower case ("SOLID", or "FACET" after "solid": assimp found no
    // vertices in it); the words of the solid's name are not keywords
    if (head.compare(start, 5, "solid") != 0)
      return "an ASCII STL whose keywords are not in lower case (\"" + head.substr(start, 5) +
             "\"): they are read in lower case only";
    const std::size_t line_end = head.find_first_of("\r\n", start);
    std::istringstream words(line_end == std::string::npos ? "" : head.substr(line_end));
    for (std::string w; words >> w;) {
      const std::string low = lowercase(w);
      static const char* const kKeywords[] = {"solid",  "facet",   "normal",   "outer",   "loop",
                                              "vertex", "endloop", "endfacet", "endsolid"};
      if (low != w &&
          std::find(std::begin(kKeywords), std::end(kKeywords), low) != std::end(kKeywords))
        return "an ASCII STL whose keywords are not in lower case (\"" + w +
               "\"): they are read in lower case only";
    }
    return "";
  }
  auto bytes = [](std::uintmax_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); };
  auto triangles = [](std::uintmax_t n) {
    return std::to_string(n) + (n == 1 ? " triangle" : " triangles");
  };
  if (size < 84)
    return bytes(size) +
           ": shorter than a binary STL's 84-byte header, and not an ASCII STL (which begins "
           "\"solid\")";
  uint32_t count = 0;
  std::memcpy(&count, head.data() + 80, sizeof count);
  const std::uintmax_t expected = 84 + 50 * std::uintmax_t(count);
  const std::string says = "a binary STL whose header counts " + triangles(count) + " (" +
                           bytes(expected) + "), but the file has " + bytes(size);
  if (expected == size) return "";  // the size is right: assimp's own message
  if (expected > size) return says + ": cut short?";
  if ((size - 84) % 50 == 0)
    return says + ", " + triangles((size - 84) / 50) + ((size - 84) / 50 == 1 ? "'s" : "'") +
           " worth: a wrong count in its header?";
  return says + ", " + bytes(size - expected) + " more than its triangles";
}

// A COLLADA file's unit, its <asset>'s <unit meter="...">, read as XML (comments, spaces around
// '=', character references); 0 where the file does not say one this can read (assimp's own
// reading stands: 1 without a unit). In *problem what is wrong with it: a length that is not
// positive or not a number (assimp collapsed a mesh to a point at 0, mirrored it through the
// origin at -1, read "abc" and " 1e-3 " as 1, without a word). A decimal comma is read as
// assimp reads it ("0,001": 0.001).
double collada_unit(const fs::path& file, std::string* problem) {
  std::ifstream in(file, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  const std::size_t end = head.find("</asset>");
  if (end == std::string::npos) return 0;
  // the document up to its asset, closed
  const std::string text = head.substr(0, end + 8) + "</COLLADA>";
  tinyxml2::XMLDocument doc;
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) return 0;
  const tinyxml2::XMLElement* root = doc.RootElement();
  const tinyxml2::XMLElement* asset = root ? root->FirstChildElement("asset") : nullptr;
  // the last <unit>, as assimp takes it
  const tinyxml2::XMLElement* unit = asset ? asset->LastChildElement("unit") : nullptr;
  const char* value = unit ? unit->Attribute("meter") : nullptr;
  // an entity of the file's DTD, which tinyxml2 leaves as it is: assimp's reading stands
  if (!value || std::string(root->Name()) != "COLLADA" || std::strchr(value, '&')) return 0;
  std::string number = value;
  std::replace(number.begin(), number.end(), ',', '.');
  char* after = nullptr;
  const double meter = std::strtod(number.c_str(), &after);
  // a decimal number, as XML's xs:double writes it (strtod reads hex and "inf" too)
  const bool read = after != number.c_str() &&
                    std::string(after).find_first_not_of(" \t\r\n") == std::string::npos &&
                    number.find_first_not_of("0123456789+-.eE \t\r\n") == std::string::npos;
  if (read && std::isfinite(meter) && meter > 0) return meter;
  *problem = "its <unit meter=\"" + std::string(value) + "\"> is not a positive length in metres";
  return 0;
}

struct ReadResult {
  std::shared_ptr<const MeshData> mesh;
  MissingMeshFiles missing;
  SideFiles side_files;
};

ReadResult read_mesh(const std::string& path, std::uintmax_t size, std::string* error) {
  auto fail = [&](const std::string& what) {
    if (error) *error = path + ": " + what;
    return ReadResult();
  };
  if (size == 0) return fail("empty file");
  if (size > kMaxMeshFileBytes)
    return fail("file too large (" + std::to_string(size >> 20) + " MiB, limit " +
                std::to_string(kMaxMeshFileBytes >> 20) + " MiB)");
  Assimp::Importer importer;
  auto* io = new RecordingIOSystem;
  importer.SetIOHandler(io);  // the importer owns it
  // URDF meshes are Z-up already; the Collada unit scale still applies
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  // no aiProcess_JoinIdenticalVertices: it dominates load time on large meshes. SortByPType
  // splits point and line primitives into meshes of their own, which are skipped below.
  // The normals a file lacks are made here (smooth_normals, flat_normals): assimp's smoothing
  // gave each vertex a mesh shares among faces one face's normal.
  const unsigned flags =
      aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure;
  // absolute, so that the files assimp looks for beside it are too
  std::error_code ec;
  fs::path file = fs::absolute(path, ec).lexically_normal();
  if (ec) file = path;
  const std::string ext = lowercase(file.extension().string());
  std::string unit_problem;
  const double unit = ext == ".dae" ? collada_unit(file, &unit_problem) : 1;
  if (!unit_problem.empty()) return fail(unit_problem);
  const aiScene* raw = importer.ReadFile(file.string(), 0);
  if (!raw) {
    const std::string why = ext == ".stl" ? stl_problem(file, size) : "";
    return fail("cannot be read (" + (why.empty() ? importer.GetErrorString() : why) + ")");
  }
  drop_cameras_and_lights(const_cast<aiScene*>(raw));
  // assimp scales a COLLADA scene's root (its visual scene, which has no transform of its own)
  // by the unit as it read it: by ours instead
  if (ext == ".dae" && raw->mRootNode) {
    aiMatrix4x4& root = raw->mRootNode->mTransformation;
    if (unit > 0 &&
        root == aiMatrix4x4(root.a1, 0, 0, 0, 0, root.a1, 0, 0, 0, 0, root.a1, 0, 0, 0, 0, 1))
      aiMatrix4x4::Scaling(aiVector3D(ai_real(unit)), root);
  }
  const aiScene* scene = importer.ApplyPostProcessing(flags);
  if (!scene) {
    // (an ASCII STL with upper-case keywords fails here: "contains no vertices")
    const std::string why = ext == ".stl" ? stl_problem(file, size) : "";
    return fail("cannot be read (" + (why.empty() ? importer.GetErrorString() : why) + ")");
  }
  if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) || !scene->mRootNode)
    return fail("incomplete scene");

  // the files named beside the mesh: an OBJ's .mtl (read or not) and the textures, looked for
  // in the mesh's folder and those of the files read
  ReadResult r;
  std::vector<fs::path> folders = {file.parent_path()};
  bool read_beside = false;
  for (const std::string& f : io->opened) {
    const fs::path p = named_path(file.parent_path(), f);
    if (p == file) continue;
    read_beside = true;
    r.side_files.push_back({f, stamp(f)});
    if (std::find(folders.begin(), folders.end(), p.parent_path()) == folders.end())
      folders.push_back(p.parent_path());
  }
  for (const std::string& f : io->missed) r.side_files.push_back({f, fs::file_time_type::min()});
  const bool obj = ext == ".obj";
  if (obj) r.missing.material_libraries = missing_material_libraries(*io, file);
  r.missing.textures = missing_textures(scene, folders, r.side_files);

  Builder b{scene, !obj || read_beside, ext == ".gltf" || ext == ".glb", {}, false, 0, {}};
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
  r.mesh = std::make_shared<const MeshData>(std::move(b.out));
  return r;
}

}  // namespace

std::shared_ptr<const MeshData> load_mesh(const std::string& path, std::string* error,
                                          MissingMeshFiles* missing) {
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
    if (it != g_cache.end() && it->second.size == size && it->second.mtime == mtime &&
        std::all_of(it->second.side_files.begin(), it->second.side_files.end(),
                    [](const auto& f) { return stamp(f.first) == f.second; })) {
      if (auto mesh = it->second.mesh.lock()) {
        if (missing) *missing = it->second.missing;
        return mesh;
      }
    }
  }
  // read outside the lock: two threads may load the same file once each, which is harmless
  ReadResult r = read_mesh(path, size, error);
  if (r.mesh) {
    if (missing) *missing = r.missing;
    std::lock_guard<std::mutex> lock(g_cache_mutex);
    g_cache[key] = CacheEntry{size, mtime, r.mesh, std::move(r.missing), std::move(r.side_files)};
  }
  return r.mesh;
}

void clear_mesh_cache() {
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  g_cache.clear();
}

}  // namespace ikwb
