// Mesh files MuJoCo 2.2.2 cannot read, replaced in its virtual file system: scan, conversion of
// ASCII STL, placeholder cubes in each format, refusals, and the grouped warnings.
#include "engine/core/mjcf_meshes.hpp"

#ifdef IKWB_HAVE_MUJOCO

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/mesh_loader.hpp"

namespace ikwb {

namespace fs = std::filesystem;

namespace {

// placeholder cubes' half edges: a first compile with large ones (so that any mesh scale leaves
// MuJoCo a volume and inertia it accepts) shows each mesh's scale; the final ones are sized to
// 2 mm cubes after it (8 mg at MuJoCo's default density)
constexpr double kProbeHalfSize = 0.5;
constexpr double kPlaceholderHalfSize = 1e-3;
constexpr std::uint32_t kMaxStlTriangles = 200000;  // MuJoCo 2.2.2 refuses more

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string extension(const std::string& path) {
  return lower(fs::path(path).extension().string());
}

template <class T>
void append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// a binary STL of the triangles (indices into positions, 3 floats a vertex)
std::string binary_stl(const std::vector<float>& positions, const std::vector<uint32_t>& indices) {
  std::string out(80, '\0');
  append(out, std::uint32_t(indices.size() / 3));
  for (std::size_t t = 0; t + 2 < indices.size(); t += 3) {
    for (int k = 0; k < 3; ++k) append(out, 0.0f);  // normal: MuJoCo computes its own
    for (int v = 0; v < 3; ++v)
      for (int k = 0; k < 3; ++k) append(out, positions[3 * indices[t + v] + k]);
    append(out, std::uint16_t(0));
  }
  return out;
}

// a cube of half edge h centred on the origin, its faces wound outward, as the format of
// `ext` (.stl, .obj, .msh) reads it
std::string placeholder_bytes(const std::string& ext, double h) {
  std::vector<float> v;
  for (int i = 0; i < 8; ++i)
    for (int bit : {4, 2, 1}) v.push_back(float(i & bit ? h : -h));
  const std::vector<uint32_t> faces = {1, 3, 2, 1, 2, 0, 4, 6, 7, 4, 7, 5, 4, 5, 1, 4, 1, 0,
                                       2, 3, 7, 2, 7, 6, 2, 6, 4, 2, 4, 0, 1, 5, 7, 1, 7, 3};
  if (ext == ".stl") return binary_stl(v, faces);
  std::string out;
  if (ext == ".obj") {
    for (std::size_t i = 0; i < v.size(); i += 3)
      out += "v " + std::to_string(v[i]) + " " + std::to_string(v[i + 1]) + " " +
             std::to_string(v[i + 2]) + "\n";
    for (std::size_t t = 0; t < faces.size(); t += 3)
      out += "f " + std::to_string(faces[t] + 1) + " " + std::to_string(faces[t + 1] + 1) + " " +
             std::to_string(faces[t + 2] + 1) + "\n";
    return out;
  }
  // .msh: vertex, normal, texture coordinate and face index counts, then the data
  for (int count : {8, 0, 0, int(faces.size() / 3)}) append(out, std::int32_t(count));
  for (float x : v) append(out, x);
  for (uint32_t f : faces) append(out, std::int32_t(f));
  return out;
}

// whether the file is a binary STL that MuJoCo 2.2.2 reads (its size matches its triangle count)
bool readable_binary_stl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[84];
  if (!in.read(header, sizeof header)) return false;
  std::uint32_t n;
  std::memcpy(&n, header + 80, sizeof n);
  std::error_code ec;
  return n >= 1 && n <= kMaxStlTriangles && fs::file_size(path, ec) == 84 + 50 * std::uintmax_t(n);
}

// whether an OBJ file has fewer than 4 vertices (MuJoCo 2.2.2 crashes on such a file)
bool obj_too_few_vertices(const std::string& path) {
  std::ifstream in(path);
  int vertices = 0;
  for (std::string line; vertices < 4 && std::getline(in, line);) {
    const std::size_t at = line.find_first_not_of(" \t");
    vertices += at != std::string::npos && line.compare(at, 2, "v ") == 0;
  }
  return vertices < 4;
}

// the list "a, b, c and N more" of the first three names
std::string first_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

}  // namespace

MjcfMeshFiles::MjcfMeshFiles(const MjcfSources& sources) : vfs_(std::make_unique<mjVFS>()) {
  mj_defaultVFS(vfs_.get());
  // the compiler settings that place mesh files: the last ones MuJoCo reads win
  std::string meshdir;
  bool strippath = false;
  for (const std::string& text : sources.texts)
    for (const StartTag& tag : start_tags(text, "compiler"))
      for (const TagAttribute& a : tag.attributes) {
        if (a.name == "meshdir") meshdir = a.value;
        if (a.name == "strippath") strippath = a.value == "true";
      }
  const fs::path folder = fs::path(sources.paths[0]).parent_path();
  for (const std::string& text : sources.texts)
    for (const StartTag& tag : start_tags(text, "mesh")) {
      std::string name, file;
      for (const TagAttribute& a : tag.attributes) {
        if (a.name == "name") name = a.value;
        if (a.name == "file") file = a.value;
      }
      if (file.empty()) continue;  // a default class's <mesh>, or vertices given inline
      fs::path path = strippath ? fs::path(file).filename() : fs::path(file);
      if (path.is_relative())
        path = fs::path(meshdir).is_absolute() ? meshdir / path : folder / meshdir / path;
      meshes_.push_back({name.empty() ? fs::path(file).stem().string() : name,
                         path.lexically_normal().string(), ""});
    }
  // what MuJoCo 2.2.2 cannot read (other formats it refuses by name: its own error says so)
  for (std::size_t i = 0; i < meshes_.size(); ++i) {
    const std::string path = meshes_[i].path, ext = extension(path);
    if (ext != ".stl" && ext != ".obj" && ext != ".msh") continue;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      const std::string dir = fs::path(path).parent_path().string();
      replace(i, "not found in " + (dir.empty() ? std::string("the current folder") : dir), "");
    } else if (ext == ".obj" && obj_too_few_vertices(path)) {
      replace(i, "with fewer than 4 vertices (MuJoCo 2.2.2 crashes on such files)", "");
    } else if (ext == ".stl" && !readable_binary_stl(path)) {
      // an ASCII STL, or one whose size does not match its triangle count
      std::string why;
      std::shared_ptr<const MeshData> mesh = load_mesh(path, &why);
      if (mesh && mesh->triangle_count() <= kMaxStlTriangles)
        replace(i, "", binary_stl(mesh->positions, mesh->indices));
      else
        replace(i,
                "neither binary STL nor convertible to it (" +
                    (mesh ? "over MuJoCo 2.2.2's 200000 triangles" : why) + ")",
                "");
    }
  }
  rebuild_vfs();
}

MjcfMeshFiles::~MjcfMeshFiles() {
  mj_deleteVFS(vfs_.get());
}

const mjVFS* MjcfMeshFiles::vfs() const {
  return files_.empty() ? nullptr : vfs_.get();
}

bool MjcfMeshFiles::has_placeholders() const {
  return std::any_of(meshes_.begin(), meshes_.end(),
                     [](const MjcfMesh& m) { return !m.problem.empty(); });
}

// Mesh `mesh` (and every mesh of its file) read from `converted`, or from a placeholder (empty)
// for `problem`. MuJoCo reads one replacement for every file of that name: where another folder
// has one too, both read a placeholder, and the other says why.
void MjcfMeshFiles::replace(std::size_t mesh, const std::string& problem, std::string converted) {
  const std::string path = meshes_[mesh].path;
  const std::string name = fs::path(path).filename().string();
  auto same_name = [&](const std::string& p) {
    return lower(fs::path(p).filename().string()) == lower(name);
  };
  auto file = std::find_if(files_.begin(), files_.end(),
                           [&](const Replacement& r) { return same_name(r.name); });
  if (file == files_.end()) file = files_.insert(files_.end(), {name, "", kProbeHalfSize});
  file->converted = problem.empty() ? std::move(converted) : "";
  for (const MjcfMesh& m : meshes_)
    if (same_name(m.path) && m.path != path) file->converted.clear();
  for (MjcfMesh& m : meshes_) {
    if (m.path == path) m.problem = problem;
    if (same_name(m.path) && m.problem.empty() && file->converted.empty())
      m.problem =
          "named like a replaced file in another folder (MuJoCo 2.2.2 finds files given "
          "in memory by their name alone)";
  }
}

void MjcfMeshFiles::rebuild_vfs() {
  mj_deleteVFS(vfs_.get());
  mj_defaultVFS(vfs_.get());
  for (const Replacement& r : files_) {
    const std::string bytes =
        r.converted.empty() ? placeholder_bytes(extension(r.name), r.half_size) : r.converted;
    if (mj_makeEmptyFileVFS(vfs_.get(), r.name.c_str(), int(bytes.size())) != 0) continue;
    std::memcpy(vfs_->filedata[mj_findFileVFS(vfs_.get(), r.name.c_str())], bytes.data(),
                bytes.size());
  }
}

bool MjcfMeshFiles::replace_refused(const std::string& error) {
  // MuJoCo 2.2.2's messages about a mesh it cannot compile, which name the mesh
  static const char* const kMeshRefusals[] = {"STL file '",
                                              "MSH file '",
                                              "OBJ file '",
                                              "mesh volume is too small",
                                              "mesh surface area",
                                              "mesh inertia",
                                              "faces have inconsistent orientation",
                                              "no vertices",
                                              "error removing vertices from mesh",
                                              "qhull error"};
  if (std::none_of(std::begin(kMeshRefusals), std::end(kMeshRefusals),
                   [&](const char* k) { return error.find(k) != std::string::npos; }))
    return false;
  const std::string name = message_field(error, "Object name = ", ',');
  auto mesh = std::find_if(meshes_.begin(), meshes_.end(),
                           [&](const MjcfMesh& m) { return m.name == name; });
  if (mesh == meshes_.end()) {
    // a mesh the scan missed: the path MuJoCo names
    const std::string path = message_field(error, " file '", '\'');
    if (path.empty()) return false;
    meshes_.push_back({name, path, ""});
    mesh = meshes_.end() - 1;
  }
  if (!mesh->problem.empty()) return false;  // a placeholder already
  std::string why = error.substr(0, error.find('\n'));
  if (why.rfind("Error: ", 0) == 0) why.erase(0, 7);
  replace(std::size_t(mesh - meshes_.begin()), "refused by MuJoCo 2.2.2 (" + why + ")", "");
  rebuild_vfs();
  return true;
}

void MjcfMeshFiles::size_placeholders(const mjModel* m) {
  for (Replacement& r : files_) r.half_size = 0;
  for (int id = 0; id < m->nmesh; ++id) {
    const MjcfMesh* mesh = placeholder(m, id);
    if (!mesh) continue;
    // the compiled cube's extents (centred, scaled) against the probe's: the mesh's scale
    double extent[3] = {0, 0, 0};
    for (int v = m->mesh_vertadr[id]; v < m->mesh_vertadr[id] + m->mesh_vertnum[id]; ++v)
      for (int k = 0; k < 3; ++k)
        extent[k] = std::max(extent[k], std::fabs(double(m->mesh_vert[3 * v + k])));
    const double scale = std::cbrt(extent[0] * extent[1] * extent[2]) / kProbeHalfSize;
    const std::string name = lower(fs::path(mesh->path).filename().string());
    for (Replacement& r : files_)
      if (lower(r.name) == name && scale > 0)
        r.half_size = std::max(r.half_size, kPlaceholderHalfSize / scale);
  }
  for (Replacement& r : files_)
    if (r.half_size == 0) r.half_size = kPlaceholderHalfSize;
  rebuild_vfs();
}

const MjcfMesh* MjcfMeshFiles::placeholder(const mjModel* m, int id) const {
  const char* name = mj_id2name(m, mjOBJ_MESH, id);
  for (const MjcfMesh& mesh : meshes_)
    if (name && mesh.name == name && !mesh.problem.empty()) return &mesh;
  return nullptr;
}

std::vector<std::string> MjcfMeshFiles::warnings(const mjModel* m, const Lost& lost) const {
  // per reason, in the files' order: the files, the robot's geoms (not the world's) that use
  // them, and those of them that collide
  struct Group {
    std::string problem;
    std::vector<std::string> files;
    int geoms = 0, colliding = 0;
  };
  std::vector<Group> groups;
  auto group = [&](const std::string& problem) -> Group& {
    for (Group& g : groups)
      if (g.problem == problem) return g;
    return groups.emplace_back(Group{problem, {}, 0, 0});
  };
  for (const MjcfMesh& mesh : meshes_) {
    if (mesh.problem.empty()) continue;
    std::vector<std::string>& files = group(mesh.problem).files;
    const std::string file = fs::path(mesh.path).filename().string();
    if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
  }
  for (int g = 0; g < m->ngeom; ++g) {
    const MjcfMesh* mesh = m->geom_type[g] == mjGEOM_MESH && m->geom_bodyid[g] != 0
                               ? placeholder(m, m->geom_dataid[g])
                               : nullptr;
    if (!mesh) continue;
    Group& in = group(mesh->problem);
    ++in.geoms;
    in.colliding += m->geom_contype[g] || m->geom_conaffinity[g];
  }
  std::vector<std::string> out;
  for (const Group& g : groups) {
    const std::size_t n = g.files.size();
    std::string line = std::to_string(n) + " mesh file" + (n == 1 ? " " : "s ") + g.problem + ": " +
                       first_names(g.files) + "; ";
    if (g.geoms == 0)
      line += std::string("no geom of the robot uses ") + (n == 1 ? "it" : "them");
    else
      line += std::to_string(g.geoms) + " geom" + (g.geoms == 1 ? "" : "s") +
              " shown as placeholder" + (g.geoms == 1 ? "" : "s");
    if (g.colliding == 1 && g.geoms == 1)
      line += ", which collides and gets no collision capsule";
    else if (g.colliding > 0)
      line += ", " + std::to_string(g.colliding) + " of them colliding without collision capsules";
    out.push_back(line + " (kinematics are unchanged)");
  }
  if (!lost.mass.empty())
    out.push_back(
        "the masses and inertias MuJoCo computes from the replaced meshes are missing from "
        "bodies " +
        first_names(lost.mass) + " (give them <inertial> elements, or the mesh files)");
  if (!lost.inertia.empty())
    out.push_back(
        "the inertias MuJoCo computes from the replaced meshes are missing from bodies " +
        first_names(lost.inertia) +
        " (their masses are the file's; give them <inertial> elements, or the mesh files)");
  return out;
}

}  // namespace ikwb

#endif
