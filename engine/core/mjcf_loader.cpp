// MJCF -> Model through MuJoCo's own compiler (mj_loadXML), read from the compiled mjModel:
//   bodies in MuJoCo's tree order; a body's joints become a chain of joints (a body with k
//   joints gets k - 1 massless intermediate bodies named BODY/JOINT), each joint's frame at its
//   anchor (jnt_pos) so hinge and ball rotate about it as in mj_kinematics; a body without
//   joints is fixed to its parent. Quaternions come w first from MuJoCo and are stored w last.
//   Geoms become visuals (and collision shapes when they collide); equality couplings of two
//   scalar joints with a linear polynomial become mimic joints; named sites become massless
//   bodies fixed to theirs.
#include "engine/core/mjcf_loader.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>

#include "engine/core/mjcf_meshes.hpp"
#include "engine/core/mjcf_text.hpp"
#include "engine/core/name_text.hpp"

#ifdef IKWB_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace ikwb {

bool mjcf_supported() {
#ifdef IKWB_HAVE_MUJOCO
  return true;
#else
  return false;
#endif
}

#ifndef IKWB_HAVE_MUJOCO

LoadResult load_mjcf_file(const std::string& path, const UrdfOptions&) {
  throw ModelError(path +
                   ": MJCF files need MuJoCo (Debian's libmujoco-dev); this build has "
                   "none (tools/setup.sh installs it)");
}

#else

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// two site or geom orientations differ where 1 - |q1 . q2| is above this (about 3e-6 rad)
constexpr double kQuatTolerance = 1e-12;
// the mass repair_for_newer's compiler bound gives a massless moving body (kg)
constexpr double kBoundMass = 1e-9;

Quat<double> quat_wxyz(const mjtNum* q) {
  return normalize(Quat<double>{q[1], q[2], q[3], q[0]});
}
Vec3<double> vec3(const mjtNum* v) {
  return {v[0], v[1], v[2]};
}

std::string name_of(const mjModel* m, int type, int id, const char* prefix) {
  const char* n = mj_id2name(m, type, id);
  if (n && *n) return n;
  // an unnamed element's name, unless the file gives another element that name
  const std::string made = std::string(prefix) + std::to_string(id);
  std::string name = made;
  for (int k = 2; mj_name2id(m, type, name.c_str()) >= 0; ++k)
    name = made + "_unnamed" + (k > 2 ? std::to_string(k) : "");
  return name;
}

// a capsule (half_length > 0) or a unit sphere as triangles, axis z
std::shared_ptr<MeshData> round_mesh(double radius, double half_length) {
  auto mesh = std::make_shared<MeshData>();
  const int rings = 8, segments = 16;  // per hemisphere, around
  for (int half = 0; half < 2; ++half) {
    const double z0 = half == 0 ? half_length : -half_length;
    for (int r = 0; r <= rings; ++r) {
      double polar = (half == 0 ? 0.0 : M_PI / 2) + (M_PI / 2) * r / rings;
      for (int s = 0; s <= segments; ++s) {
        double az = 2 * M_PI * s / segments;
        double nx = std::sin(polar) * std::cos(az), ny = std::sin(polar) * std::sin(az),
               nz = std::cos(polar);
        mesh->positions.insert(mesh->positions.end(),
                               {float(radius * nx), float(radius * ny), float(z0 + radius * nz)});
        mesh->normals.insert(mesh->normals.end(), {float(nx), float(ny), float(nz)});
      }
    }
  }
  const uint32_t row = segments + 1, rows = 2 * (rings + 1);
  for (uint32_t r = 0; r + 1 < rows; ++r)
    for (uint32_t s = 0; s < uint32_t(segments); ++s) {
      uint32_t a = r * row + s, b = a + row;
      mesh->indices.insert(mesh->indices.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  return mesh;
}

std::shared_ptr<MeshData> compiled_mesh(const mjModel* m, int id) {
  auto mesh = std::make_shared<MeshData>();
  const int v0 = m->mesh_vertadr[id], nv = m->mesh_vertnum[id];
  mesh->positions.assign(m->mesh_vert + 3 * v0, m->mesh_vert + 3 * (v0 + nv));
  mesh->normals.assign(m->mesh_normal + 3 * v0, m->mesh_normal + 3 * (v0 + nv));
  const int f0 = m->mesh_faceadr[id], nf = m->mesh_facenum[id];
  for (int k = 3 * f0; k < 3 * (f0 + nf); ++k) mesh->indices.push_back(uint32_t(m->mesh_face[k]));
  return mesh;
}

// a geom as our geometry (a placeholder where its mesh is one of meshes'); false for what is not
// drawn (planes, height fields)
bool to_geometry(const mjModel* m, int g, const MjcfMeshFiles& meshes, Geometry* out) {
  Geometry geo;
  geo.origin = {vec3(m->geom_pos + 3 * g), quat_wxyz(m->geom_quat + 4 * g)};
  const mjtNum* size = m->geom_size + 3 * g;
  // a material's colour when the geom has one (MuJoCo draws it so), else the geom's own
  const int mat = m->geom_matid[g];
  const float* rgba = mat >= 0 ? m->mat_rgba + 4 * mat : m->geom_rgba + 4 * g;
  geo.rgba = {rgba[0], rgba[1], rgba[2], rgba[3]};
  geo.has_color = true;
  switch (m->geom_type[g]) {
    case mjGEOM_SPHERE:
      geo.type = GeometryType::kSphere;
      geo.size = {size[0], 0, 0};
      break;
    case mjGEOM_BOX:
      geo.type = GeometryType::kBox;
      geo.size = {2 * size[0], 2 * size[1], 2 * size[2]};  // MuJoCo: half sizes
      break;
    case mjGEOM_CYLINDER:
      geo.type = GeometryType::kCylinder;
      geo.size = {size[0], 2 * size[1], 0};
      break;
    case mjGEOM_CAPSULE:
      geo.type = GeometryType::kMesh;
      geo.mesh = round_mesh(size[0], size[1]);
      geo.mesh_uri = "capsule";
      geo.size = {size[0], 2 * size[1], 0};  // radius, length: fit_capsule takes it as it is
      break;
    case mjGEOM_ELLIPSOID:
      geo.type = GeometryType::kMesh;
      geo.mesh = round_mesh(1.0, 0.0);
      geo.mesh_scale = {size[0], size[1], size[2]};
      geo.mesh_uri = "ellipsoid";
      break;
    case mjGEOM_MESH:
      geo.type = GeometryType::kMesh;
      geo.placeholder = meshes.placeholder(m, m->geom_dataid[g]) != nullptr;
      if (!geo.placeholder) geo.mesh = compiled_mesh(m, m->geom_dataid[g]);
      geo.mesh_uri = name_of(m, mjOBJ_MESH, m->geom_dataid[g], "mesh");
      break;
    default:
      return false;
  }
  *out = std::move(geo);
  return true;
}

// a scalar joint coupling q1 = c0 + c1 q2 (MuJoCo: q1 - ref1 = poly(q2 - ref2)) as a mimic
void linear_coupling(const mjModel* m, int e, double* mult, double* off) {
  const mjtNum* c = m->eq_data + mjNEQDATA * e;
  const double ref1 = m->qpos0[m->jnt_qposadr[m->eq_obj1id[e]]];
  const double ref2 = m->qpos0[m->jnt_qposadr[m->eq_obj2id[e]]];
  *mult = c[1];
  *off = ref1 + c[0] - c[1] * ref2;
}

// equality e in messages: its kind and its name (its index when it has none)
std::string equality_label(const mjModel* m, int e) {
  static const char* const kinds[] = {"connect", "weld", "joint", "tendon", "distance"};
  const int t = m->eq_type[e];
  const char* name = mj_id2name(m, mjOBJ_EQUALITY, e);
  return std::string(t >= 0 && t < 5 ? kinds[t] : "an") + " equality " +
         (name && *name ? "'" + printable_name(name) + "'" : std::to_string(e));
}

// why equality e cannot be a mimic coupling (linear_coupling), "" when it can
std::string uncarried_equality(const mjModel* m, int e) {
  if (m->eq_type[e] != mjEQ_JOINT) return "only joint couplings are";
  const char* j1 = mj_id2name(m, mjOBJ_JOINT, m->eq_obj1id[e]);
  const std::string n1 = j1 ? "'" + std::string(j1) + "'" : "joint1";
  if (m->eq_obj2id[e] < 0) return "it holds joint " + n1 + " at a constant (no joint2)";
  if (m->jnt_type[m->eq_obj1id[e]] < mjJNT_SLIDE || m->jnt_type[m->eq_obj2id[e]] < mjJNT_SLIDE)
    return "it couples a ball or free joint (only hinge and slide joints are)";
  const mjtNum* c = m->eq_data + mjNEQDATA * e;
  if (c[2] != 0 || c[3] != 0 || c[4] != 0)
    return "its polycoef is not linear (only a0 and a1 carry over)";
  return "";
}

// couplings of couplings (c follows b, b follows a) become couplings of the final source, as
// URDF mimic chains are folded: q_c = m1 (m2 q_a + o2) + o1; a cycle is an error
void fold_mimic_chains(Model& mm) {
  for (int j = 0; j < mm.joint_count; ++j) {
    int steps = 0;
    while (mm.joint_mimic[j] >= 0 && mm.joint_mimic[mm.joint_mimic[j]] >= 0) {
      const int src = mm.joint_mimic[j];
      if (++steps > mm.joint_count)
        throw ModelError("joint equalities form a cycle through joint '" + mm.joint_name[j] + "'");
      mm.joint_mimic_offset[j] += mm.joint_mimic_multiplier[j] * mm.joint_mimic_offset[src];
      mm.joint_mimic_multiplier[j] *= mm.joint_mimic_multiplier[src];
      mm.joint_mimic[j] = mm.joint_mimic[src];
    }
  }
}

// [SECTION] repairs of the file's text

namespace fs = std::filesystem;

// Where the corrected copies go: beside their files, hidden, so that relative paths in them
// resolve as in the originals; where that folder cannot be written (a read-only install), in a
// temporary folder, with the folders MuJoCo reads meshes and textures from made absolute.
struct Copies {
  std::vector<fs::path> paths;  // one per source, in MjcfSources order
  fs::path temp_folder;         // empty beside the files
};

Copies plan_copies(const MjcfSources& s, const fs::path& temp_folder) {
  Copies c{{}, temp_folder};
  for (std::size_t i = 0; i < s.paths.size(); ++i) {
    const fs::path file = fs::absolute(s.paths[i]);
    c.paths.push_back(temp_folder.empty()
                          ? file.parent_path() / ("." + file.filename().string() + ".ikwb-" +
                                                  std::to_string(getpid()))
                          : temp_folder / (std::to_string(i) + "_" + file.filename().string()));
  }
  return c;
}

// One replacement in a source's text.
struct TextEdit {
  std::size_t begin, end;
  std::string text;
};

// The edits that make a copy in a temporary folder read what the original reads: <compiler>'s
// meshdir, texturedir and assetdir relative to the main file's folder become absolute, and the
// main file gets meshdir and texturedir of that folder when no source names them.
std::vector<TextEdit> absolute_folders(const MjcfSources& s, std::size_t i, const fs::path& dir) {
  static const char* const kFolders[] = {"meshdir", "texturedir", "assetdir"};
  std::vector<TextEdit> edits;
  for (const StartTag& tag : start_tags(s.texts[i], "compiler"))
    for (const TagAttribute& a : tag.attributes)
      if (std::find(std::begin(kFolders), std::end(kFolders), a.name) != std::end(kFolders))
        edits.push_back({a.begin, a.end, a.name + "=\"" + (dir / a.value).string() + "/\""});
  if (i != 0) return edits;
  std::string missing;
  for (const char* folder : {"meshdir", "texturedir"}) {
    bool named = false;
    for (const std::string& text : s.texts)
      for (const StartTag& tag : start_tags(text, "compiler"))
        for (const TagAttribute& a : tag.attributes)
          named = named || a.name == folder || a.name == "assetdir";
    if (!named) missing += std::string(" ") + folder + "=\"" + dir.string() + "/\"";
  }
  if (missing.empty()) return edits;
  const std::size_t m = s.texts[0].find("<mujoco");
  if (m != std::string::npos) {
    const std::size_t after = s.texts[0].find('>', m) + 1;
    edits.push_back({after, after, "<compiler" + missing + "/>"});
  }
  return edits;
}

// writes every source's corrected copy, its includes naming the copies (relative to the main
// copy's folder: MuJoCo 2.2.2 puts that folder before an include's path, even an absolute one);
// false on a failure
bool write_copies(const MjcfSources& s, const Copies& c) {
  const fs::path dir = fs::absolute(s.paths[0]).parent_path();
  for (std::size_t i = 0; i < s.paths.size(); ++i) {
    std::vector<TextEdit> edits;
    for (const StartTag& tag : start_tags(s.texts[i], "include"))
      for (const TagAttribute& a : tag.attributes) {
        const auto k = std::find(s.paths.begin(), s.paths.end(),
                                 (fs::path(s.paths[0]).parent_path() / a.value).string());
        if (a.name == "file" && k != s.paths.end())
          edits.push_back({a.begin, a.end,
                           "file=\"" +
                               c.paths[std::size_t(k - s.paths.begin())]
                                   .lexically_relative(c.paths[0].parent_path())
                                   .string() +
                               "\""});
      }
    if (!c.temp_folder.empty())
      for (TextEdit& e : absolute_folders(s, i, dir)) edits.push_back(std::move(e));
    std::sort(edits.begin(), edits.end(),
              [](const TextEdit& a, const TextEdit& b) { return a.begin > b.begin; });
    std::string text = s.texts[i];
    for (const TextEdit& e : edits) text.replace(e.begin, e.end - e.begin, e.text);
    std::ofstream out(c.paths[i], std::ios::binary);
    out << text;
    if (!out.flush()) return false;
  }
  return true;
}

void remove_copies(const Copies& c) {
  std::error_code ec;
  for (const fs::path& p : c.paths) fs::remove(p, ec);
  if (!c.temp_folder.empty()) fs::remove_all(c.temp_folder, ec);
}

// Writes the corrected copies beside the files, or where that fails in a new temporary folder;
// false when neither can be written.
bool write_copies_somewhere(const MjcfSources& s, Copies* c) {
  *c = plan_copies(s, {});
  if (write_copies(s, *c)) return true;
  remove_copies(*c);
  std::error_code ec;
  fs::path temp = fs::temp_directory_path(ec);
  if (ec) return false;
  for (int n = 0;; ++n) {
    const fs::path folder =
        temp / ("ikwb-mjcf-" + std::to_string(getpid()) + "-" + std::to_string(n));
    if (fs::create_directory(folder, ec)) {
      temp = folder;
      break;
    }
    if (ec || n > 100) return false;
  }
  *c = plan_copies(s, temp);
  if (write_copies(s, *c)) return true;
  remove_copies(*c);
  return false;
}

// Drops from every <element> of the sources the attributes `pick` chooses, with one warning per
// attribute name: where it is first (its file and its own line; a start tag may span several)
// and in how many more places; false when there is none.
template <class Pick>
bool drop_attributes(MjcfSources& s, const std::string& element, Pick pick,
                     std::vector<std::string>& warnings) {
  struct Found {
    std::string name, where;
    std::size_t source;
    int count;
  };
  std::vector<Found> found;
  for (std::size_t i = 0; i < s.paths.size(); ++i) {
    std::string& text = s.texts[i];
    // from the end, so that earlier positions stay valid (newlines stay: lines do too)
    const std::vector<StartTag> tags = start_tags(text, element);
    for (auto t = tags.rbegin(); t != tags.rend(); ++t)
      for (auto a = t->attributes.rbegin(); a != t->attributes.rend(); ++a) {
        if (!pick(*a)) continue;
        const std::string where = s.paths[i] + ":" + std::to_string(line_of(text, a->begin));
        auto f = std::find_if(found.begin(), found.end(),
                              [&](const Found& x) { return x.name == a->name; });
        if (f == found.end()) {
          found.push_back({a->name, where, i, 1});
        } else {
          ++f->count;
          if (f->source == i) f->where = where;  // earlier in the same file
        }
        text.erase(a->begin, a->end - a->begin);
      }
  }
  for (const Found& f : found) {
    // a mesh's `inertia` chooses how the mass of a body weighed from it is computed (a review's
    // shell mesh weighed 0.93 kg for 55.5 kg): kinematics stay, masses and the centre of mass
    // may not
    const bool weighs = element == "mesh" && f.name == "inertia";
    warnings.push_back(
        f.where + ": attribute '" + f.name + "' on <" + element +
        "> is newer than MuJoCo 2.2.2 and cannot change kinematics" +
        (weighs ? "" : " or appearance") + ": ignored" +
        (f.count > 1 ? " here and in " + std::to_string(f.count - 1) + " more place" +
                           (f.count > 2 ? "s" : "")
                     : "") +
        (weighs ? "; the masses and centres of mass of bodies weighed from these meshes are "
                  "MuJoCo 2.2.2's (from their volume; an <inertial> gives a body its own)"
                : ""));
  }
  return !found.empty();
}

// " (and 2 more: 'j2', 'j3')": the other joints of the sources with a range and no `limited`
// outside the <default> section (MuJoCo names the first it meets; unnamed ones are counted), or
// "" when there are none, or when a default class sets `limited` (the joints of its class may
// hold already)
std::string more_ranges_without_limited(const MjcfSources& s, const std::string& named) {
  auto has = [](const StartTag& t, const char* a) {
    return std::any_of(t.attributes.begin(), t.attributes.end(),
                       [&](const TagAttribute& x) { return x.name == a; });
  };
  std::vector<std::string> others;
  int unnamed = 0;
  for (const std::string& text : s.texts) {
    // the <default> section: from its first start tag to its last end tag
    const std::size_t from = text.find("<default"), to = text.rfind("</default>");
    for (const StartTag& j : start_tags(text, "joint")) {
      const bool in_defaults =
          from != std::string::npos && to != std::string::npos && j.begin > from && j.begin < to;
      if (in_defaults) {
        if (has(j, "limited")) return "";
        continue;
      }
      if (!has(j, "range") || has(j, "limited")) continue;
      const auto name = std::find_if(j.attributes.begin(), j.attributes.end(),
                                     [](const TagAttribute& a) { return a.name == "name"; });
      if (name == j.attributes.end())
        ++unnamed;
      else if (name->value != named)
        others.push_back("'" + name->value + "'");
    }
  }
  if (unnamed > 0)
    others.push_back(std::to_string(unnamed) + " unnamed" + (unnamed == 1 ? "" : " ones"));
  const std::size_t count = others.size() - (unnamed > 0) + std::size_t(unnamed);
  if (count == 0) return "";
  std::string list;
  for (std::size_t i = 0; i < others.size() && i < 6; ++i) list += (i ? ", " : "") + others[i];
  if (others.size() > 6) list += ", ...";
  return " (and " + std::to_string(count) + " more: " + list + ")";
}

// One refusal of MuJoCo 2.2.2 for what newer MuJoCo added, repaired in the sources when it
// cannot change kinematics or appearance, with a warning: attributes on <mesh> (`inertia`: how
// its inertia is computed, `maxhullvert`: MuJoCo's collision hull), <joint> (`actuatorfrcrange`,
// `actuatorgravcomp`: actuation), <body> (`gravcomp`: gravity compensation, dynamics), the
// <visual> and <actuator> sections' elements (how the viewer draws, how motors act) and <option>
// keywords (simulation settings) are dropped wherever they are; a joint range without `limited`
// is a limit, as newer MuJoCo reads it (autolimits). false when the refusal is something else.
bool repair_for_newer(const std::string& error, MjcfSources& s,
                      std::vector<std::string>& warnings) {
  const std::string element = message_field(error, "Element '", '\'');
  // attributes="..." on the main file's <compiler> (a <compiler> of its own when it has none, or
  // one that sets the first attribute already)
  // (tags in comments are not the file's: one there took the attributes, and the retry warned
  // again)
  auto add_to_compiler = [&](const std::string& first, const std::string& attributes) {
    std::string& text = s.texts[0];
    const std::vector<StartTag> compilers = start_tags(text, "compiler");
    const bool set = !compilers.empty() &&
                     std::any_of(compilers[0].attributes.begin(), compilers[0].attributes.end(),
                                 [&](const TagAttribute& a) { return a.name == first; });
    if (compilers.empty() || set) {
      const std::vector<StartTag> root = start_tags(text, "mujoco");
      if (root.empty()) return false;
      text.insert(text.find('>', root[0].begin) + 1, "<compiler " + attributes + "/>");
    } else {
      text.insert(compilers[0].begin + 9, " " + attributes);
    }
    return true;
  };
  if (error.find("has `range` but not `limited`") != std::string::npos) {
    if (!add_to_compiler("autolimits", "autolimits=\"true\"")) return false;
    // the joint MuJoCo names, and where it is
    const std::string joint = message_field(error, "Object name = ", ',');
    const std::string line = message_field(error, "line = ", ',');
    warnings.push_back(s.paths[0] + (line.empty() || line == "0" ? "" : ":" + line) + ": joint " +
                       (joint.empty() ? "" : "'" + joint + "' ") + "has a range without `limited`" +
                       more_ranges_without_limited(s, joint) +
                       ": joint ranges without `limited` are read as limits, as newer MuJoCo "
                       "does (compiler autolimits)" +
                       included_fault_place(error, s));
    return true;
  }
  if (error.find("mass and inertia of moving bodies must be larger than mjMINVAL") !=
      std::string::npos) {
    // a file for kinematics alone (as a URDF without <inertial>): MuJoCo's compiler bounds give
    // its massless bodies a negligible mass; poses do not depend on masses
    // (the warning, naming the bodies, comes after the compile: load_mjcf_file)
    return add_to_compiler("boundmass", "boundmass=\"1e-9\" boundinertia=\"1e-12\"");
  }
  const std::string keyword = message_field(error, "invalid keyword: '", '\'');
  if (element == "option" && !keyword.empty()) {
    return drop_attributes(
        s, element, [&](const TagAttribute& a) { return a.value == keyword; }, warnings);
  }
  const std::string attribute = message_field(error, "unrecognized attribute: '", '\'');
  // elements whose settings only draw (the <visual> section) or actuate (the <actuator> section)
  static const char* const visual[] = {
      "global",   "quality",  "headlight",   "map",    "scale",    "rgba",   "general", "motor",
      "position", "velocity", "intvelocity", "damper", "cylinder", "muscle", "adhesion"};
  bool harmless = (element == "mesh" && (attribute == "inertia" || attribute == "maxhullvert")) ||
                  (element == "joint" &&
                   (attribute == "actuatorfrcrange" || attribute == "actuatorgravcomp")) ||
                  (element == "body" && attribute == "gravcomp");
  for (const char* v : visual) harmless = harmless || (element == v && !attribute.empty());
  // alignfree / align "false" are newer MuJoCo's defaults, which move nothing ("true" moves free
  // bodies' frames and is refused, with a hint)
  if ((element == "compiler" && attribute == "alignfree") ||
      (element == "freejoint" && attribute == "align")) {
    harmless = true;
    for (const std::string& text : s.texts)
      for (const StartTag& tag : start_tags(text, element))
        for (const TagAttribute& a : tag.attributes)
          if (a.name == attribute && a.value != "false") harmless = false;
  }
  return harmless &&
         drop_attributes(
             s, element, [&](const TagAttribute& a) { return a.name == attribute; }, warnings);
}

// mj_loadXML, with what is printed on stderr meanwhile held back in *said: MuJoCo's qhull prints
// 50 lines and more of diagnostics there for a mesh it refuses (a flat one), which the load's
// warnings say in one line.
mjModel* load_xml(const std::string& file, const mjVFS* vfs, char* error, int size,
                  std::string* said) {
  static std::mutex held;  // one stderr
  std::lock_guard<std::mutex> lock(held);
  std::fflush(stderr);
  FILE* text = std::tmpfile();
  const int saved = text ? ::dup(2) : -1;
  if (saved >= 0) ::dup2(::fileno(text), 2);
  mjModel* m = mj_loadXML(file.c_str(), vfs, error, size);
  if (saved >= 0) {
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::rewind(text);
    char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, text)) > 0;) said->append(chunk, n);
  }
  if (text) std::fclose(text);
  return m;
}

// mj_loadXML of `path` (read as `sources`) with the mesh files MuJoCo cannot read given in
// memory (meshes), retrying after each mesh it refuses (MjcfMeshFiles::replace_refused) and
// after repair_for_newer (refused when strict); the repairs' retries read corrected copies of the
// file and of those it includes (write_copies_somewhere). With placeholders, a second compile
// with them at their final size (MjcfMeshFiles::size_placeholders) finds the bodies whose mass
// or inertia MuJoCo computes from them (*lost). Null and *error when MuJoCo refuses the file.
mjModel* compile(const std::string& path, bool strict, MjcfSources& sources, MjcfMeshFiles& meshes,
                 std::vector<std::string>& warnings, MjcfMeshFiles::Lost* lost,
                 std::string* error) {
  char buf[1024] = "";
  Copies copies;
  std::string file = path;
  mjModel* m = nullptr;
  int repairs = 0;
  for (;;) {
    std::string said;
    m = load_xml(file, meshes.vfs(), buf, sizeof buf, &said);
    const bool replaced = !m && meshes.replace_refused(buf);
    // qhull's diagnostics of a mesh it refused: the warnings say so
    if (!replaced || !std::strstr(buf, "qhull error")) std::fputs(said.c_str(), stderr);
    if (m) break;
    *error = buf;
    if (replaced) continue;
    if (++repairs > 32 || !repair_for_newer(*error, sources, warnings)) break;
    if (strict) {
      *error += " (--strict: not repaired)";
      break;
    }
    remove_copies(copies);
    if (!write_copies_somewhere(sources, &copies)) {
      *error += " (could not write a corrected copy beside the file or in a temporary folder)";
      break;
    }
    file = copies.paths[0].string();
  }
  if (m && meshes.has_placeholders()) {
    // the placeholders at their final size; the bodies whose masses change take them from them
    meshes.size_placeholders(m);
    mjModel* sized = mj_loadXML(file.c_str(), meshes.vfs(), buf, sizeof buf);
    for (int b = 1; sized && b < m->nbody; ++b)
      if (m->body_mass[b] != sized->body_mass[b])
        lost->mass.push_back(name_of(m, mjOBJ_BODY, b, "body_"));
      else if (!std::equal(m->body_inertia + 3 * b, m->body_inertia + 3 * b + 3,
                           sized->body_inertia + 3 * b))
        lost->inertia.push_back(name_of(m, mjOBJ_BODY, b, "body_"));
    mj_deleteModel(m);
    m = sized;
    if (!m) *error = buf;
  }
  remove_copies(copies);
  return m;
}

// Sites and geoms that set an orientation of their own (own_orientations) where a default class
// sets one too, read as the MJCF reference has it (the element's own attribute wins) from the
// sources compiled again without the <default> sections' site and geom orientations
// (strip_default_orientations), so that each is MuJoCo's own reading of the element's attribute
// (fused static bodies, the compiler's settings in document order, a class's fromto, a mesh's
// frame); an unnamed geom is found by a name given for that compile (name_own_orientations).
// Empty when no class sets a site or geom orientation, or that compile fails.
struct OwnFrames {
  std::vector<OwnOrientation> sites, geoms;
  // by site name: w, x, y, z relative to its body
  std::map<std::string, std::array<mjtNum, 4> > site_quats;
  // by geom id (the same in both compiles): its entry of `geoms`, its pos, then w, x, y, z
  // relative to its body
  struct GeomFrame {
    std::size_t entry = 0;
    std::array<mjtNum, 7> frame{};
  };
  std::map<int, GeomFrame> geom_frames;
  // the second compile's every geom's frame (pos, w x y z) and every body's mass, inertial frame
  // (ipos, iquat w x y z) and principal inertia; empty without one
  std::vector<std::array<mjtNum, 7> > all_geoms;
  std::vector<std::array<mjtNum, 11> > bodies;
};

constexpr const char* kOwnGeomPrefix = "ikwb_own_orientation_geom_";

OwnFrames own_frames(const MjcfSources& sources, MjcfMeshFiles& meshes) {
  OwnFrames own;
  own.sites = own_orientations(sources, "site");
  own.geoms = own_orientations(sources, "geom");
  own.sites.erase(std::remove_if(own.sites.begin(), own.sites.end(),
                                 [](const OwnOrientation& o) { return o.name.empty(); }),
                  own.sites.end());
  MjcfSources plain = sources;
  const bool sites = !own.sites.empty() && strip_default_orientations(plain, "site");
  const bool geoms = !own.geoms.empty() && strip_default_orientations(plain, "geom");
  if (!sites && !geoms) return own;
  // a prefix no name of the file starts with (one that did dropped every geom's own frame)
  std::string prefix = kOwnGeomPrefix;
  while (std::any_of(plain.texts.begin(), plain.texts.end(),
                     [&](const std::string& t) { return t.find(prefix) != std::string::npos; }))
    prefix += "_";
  name_own_orientations(plain, "geom", prefix);
  Copies copies;
  if (write_copies_somewhere(plain, &copies)) {
    char error[1024] = "";
    if (mjModel* m =
            mj_loadXML(copies.paths[0].string().c_str(), meshes.vfs(), error, sizeof error)) {
      for (const OwnOrientation& o : own.sites) {
        const int st = mj_name2id(m, mjOBJ_SITE, o.name.c_str());
        if (st >= 0)
          own.site_quats[o.name] = {m->site_quat[4 * st], m->site_quat[4 * st + 1],
                                    m->site_quat[4 * st + 2], m->site_quat[4 * st + 3]};
      }
      for (std::size_t k = 0; geoms && k < own.geoms.size(); ++k) {
        const std::string name =
            own.geoms[k].name.empty() ? prefix + std::to_string(k) : own.geoms[k].name;
        const int g = mj_name2id(m, mjOBJ_GEOM, name.c_str());
        if (g < 0) continue;
        OwnFrames::GeomFrame& f = own.geom_frames[g];
        f.entry = k;
        std::copy(m->geom_pos + 3 * g, m->geom_pos + 3 * g + 3, f.frame.begin());
        std::copy(m->geom_quat + 4 * g, m->geom_quat + 4 * g + 4, f.frame.begin() + 3);
      }
      own.all_geoms.resize(std::size_t(m->ngeom));
      for (int g = 0; g < m->ngeom; ++g) {
        std::copy(m->geom_pos + 3 * g, m->geom_pos + 3 * g + 3, own.all_geoms[g].begin());
        std::copy(m->geom_quat + 4 * g, m->geom_quat + 4 * g + 4, own.all_geoms[g].begin() + 3);
      }
      own.bodies.resize(std::size_t(m->nbody));
      for (int i = 0; i < m->nbody; ++i) {
        std::array<mjtNum, 11>& x = own.bodies[std::size_t(i)];
        x[0] = m->body_mass[i];
        std::copy(m->body_ipos + 3 * i, m->body_ipos + 3 * i + 3, x.begin() + 1);
        std::copy(m->body_iquat + 4 * i, m->body_iquat + 4 * i + 4, x.begin() + 4);
        std::copy(m->body_inertia + 3 * i, m->body_inertia + 3 * i + 3, x.begin() + 8);
      }
      mj_deleteModel(m);
    }
  }
  remove_copies(copies);
  return own;
}

// 1 - |q1 . q2| of two quaternions (w, x, y, z): 0 for the same rotation
double quat_gap(const mjtNum* a, const mjtNum* b) {
  return 1 - std::fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
}

// whether geom g turns to its own orientation (OwnFrames: it sets one, and its class another)
bool turns_to_own(const mjModel* m, const OwnFrames& own, int g) {
  const auto f = own.geom_frames.find(g);
  return f != own.geom_frames.end() &&
         quat_gap(m->geom_quat + 4 * g, f->second.frame.data() + 3) > kQuatTolerance;
}

// The mass properties of body i where a geom of it turns to its own orientation and MuJoCo
// computes them from its geoms (the two compiles give it different ones): the second compile's,
// when it reads every other geom of the body as the first does (else null: it stripped a class's
// orientation that a geom without its own keeps, and neither compile is right; *mixed is set).
// Null where nothing turns, or the file gives the body's inertial. (A mesh geom turned to its
// own orientation left its body's centre of mass 5 cm where the class had it, a review.)
const std::array<mjtNum, 11>* own_inertial(const mjModel* m, const OwnFrames& own, int i,
                                           bool* mixed) {
  if (own.bodies.empty()) return nullptr;
  bool turns = false, same_others = true;
  for (int g = m->body_geomadr[i]; g >= 0 && g < m->body_geomadr[i] + m->body_geomnum[i]; ++g) {
    if (turns_to_own(m, own, g)) {
      turns = true;
      continue;
    }
    const mjtNum* other = own.all_geoms[std::size_t(g)].data();
    for (int k = 0; k < 3; ++k) same_others = same_others && m->geom_pos[3 * g + k] == other[k];
    same_others = same_others && quat_gap(m->geom_quat + 4 * g, other + 3) <= kQuatTolerance;
  }
  const std::array<mjtNum, 11>& x = own.bodies[std::size_t(i)];
  bool differs =
      m->body_mass[i] != x[0] || quat_gap(m->body_iquat + 4 * i, x.data() + 4) > kQuatTolerance;
  for (int k = 0; k < 3; ++k)
    differs = differs || m->body_ipos[3 * i + k] != x[1 + std::size_t(k)] ||
              m->body_inertia[3 * i + k] != x[8 + std::size_t(k)];
  if (!turns || !differs) return nullptr;
  if (!same_others) {
    *mixed = true;
    return nullptr;
  }
  return &x;
}

// [SECTION] floating base

// The name of the free joint --floating-base puts above the root body ("root_joint", or
// "root_joint_N" when the file uses that name). Throws unless <worldbody> holds one body and it
// is fixed to the world.
std::string floating_root_name(const mjModel* m) {
  std::vector<std::string> roots;
  int root = -1;
  for (int i = 1; i < m->nbody; ++i)
    if (m->body_parentid[i] == 0) roots.push_back(name_of(m, mjOBJ_BODY, root = i, "body_"));
  if (roots.size() != 1) {
    std::string names;
    for (const std::string& n : roots) names += (names.empty() ? "" : ", ") + n;
    throw ModelError("--floating-base needs one root body in <worldbody>; the file has " +
                     std::to_string(roots.size()) + (names.empty() ? "" : " (" + names + ")"));
  }
  if (m->body_jntnum[root] > 0) {
    const int j = m->body_jntadr[root];
    throw ModelError(
        "--floating-base: root body '" + roots[0] + "' " +
        (m->jnt_type[j] == mjJNT_FREE
             ? "already has a free joint ('" + name_of(m, mjOBJ_JOINT, j, "joint_") +
                   "'): it floats without --floating-base"
             : "has joints of its own; only a root fixed to the world can be made floating"));
  }
  std::string name = "root_joint";
  for (int n = 1; mj_name2id(m, mjOBJ_JOINT, name.c_str()) >= 0; ++n)
    name = "root_joint_" + std::to_string(n);
  return name;
}

}  // namespace

LoadResult load_mjcf_file(const std::string& path, const UrdfOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ModelError(path + ": is a directory");
  std::vector<std::string> warnings;
  std::string why;
  MjcfSources sources = read_sources(path);
  if (const std::string bad = bad_number_attribute(sources); !bad.empty()) throw ModelError(bad);
  MjcfMeshFiles meshes(sources);
  MjcfMeshFiles::Lost lost;
  mjModel* m = compile(path, options.strict, sources, meshes, warnings, &lost, &why);
  if (!m) {
    for (char& ch : why)
      if (ch == '\n') ch = ' ';
    // elements of newer MuJoCo that make or move bodies cannot be dropped: say which version
    // they need, and what to write instead
    const std::string element = message_field(why, "Element '", '\'');
    static const std::pair<const char*, const char*> newer[] = {
        {"frame", "it places what it holds, so it cannot be left out: move its pos/quat into them"},
        {"replicate",
         "it repeats what it holds at offsets, so it cannot be left out: write the copies out"},
        {"attach", "it brings in another model: write that model's bodies into this file"},
        {"flexcomp", "a deformable body, which the workbench does not pose: remove it"},
        {"flex", "a deformable body, which the workbench does not pose: remove it"}};
    std::string hint;
    for (const auto& [name, what] : newer)
      if (why.find("unrecognized element") != std::string::npos && element == name)
        hint =
            " (<" + element + "> is newer than MuJoCo 2.2.2, which this build reads; " + what + ")";
    // attributes of newer MuJoCo that move bodies or weigh them, which cannot be dropped either
    const std::string attribute = message_field(why, "unrecognized attribute: '", '\'');
    if ((element == "compiler" && attribute == "alignfree") ||
        (element == "freejoint" && attribute == "align"))
      hint = " ('" + attribute + "' on <" + element +
             "> is newer than MuJoCo 2.2.2, which this build reads; it moves free bodies' frames "
             "to their centres of mass, so it cannot be left out: remove it to have the frames "
             "as the file writes them)";
    if (why.find("typeinertia currently only available for meshes") != std::string::npos)
      hint =
          " (shellinertia on a geom that is not a mesh is newer than MuJoCo 2.2.2, which this "
          "build reads; it weighs the geom as a shell, so it cannot be left out: remove it, "
          "and give its body an <inertial> where the mass matters)";
    if (why.find("Unknown mesh file type") != std::string::npos)
      hint =
          " (MuJoCo 2.2.2, which this build reads, reads STL, OBJ and MSH meshes: convert it to "
          "one of these)";
    while (!why.empty() && why.back() == ' ') why.pop_back();
    throw ModelError(path + ": MuJoCo could not load the file: " + why + hint +
                     unknown_class_hint(why, sources) + included_fault_place(why, sources));
  }
  auto warn = [&](const std::string& w) { warnings.push_back(path + ": " + w); };
  for (const std::string& w : meshes.warnings(m, lost)) warn(w);
  // geoms of the world body (a Menagerie scene.xml's floor) are not the robot's: said, with what
  // takes their place (a review's knees went below a floor that was silently left out)
  if (m->body_geomnum[0] > 0) {
    static const char* const kType[] = {"plane",     "hfield",   "sphere", "capsule",
                                        "ellipsoid", "cylinder", "box",    "mesh"};
    std::string names;
    const int first = m->body_geomadr[0], n = m->body_geomnum[0];
    for (int g = first; g < first + std::min(n, 4); ++g) {
      const int type = m->geom_type[g];
      names += (names.empty() ? "'" : ", '") + name_of(m, mjOBJ_GEOM, g, "geom_") + "' " +
               (type >= 0 && type < 8 ? kType[type] : "geom");
    }
    if (n > 4) names += " and " + std::to_string(n - 4) + " more";
    warn("the world's geoms (" + names +
         ") are not part of the robot and are not carried over: add them as obstacles to "
         "collide with them (the Obstacles panel, or `obstacle add floor NAME` in a script; "
         "docs/collision.md)");
  }
  // the bodies the compiler's bound weighed (repair_for_newer), by name: a warning that named
  // none did not tell a file for kinematics alone from a body whose mass was left out
  {
    constexpr int kListed = 8;
    std::string names;
    int count = 0;
    for (int i = 1; i < m->nbody; ++i)
      if (m->body_mass[i] == kBoundMass && count++ < kListed)
        names += (names.empty() ? "'" : ", '") +
                 printable_name(name_of(m, mjOBJ_BODY, i, "body_")) + "'";
    if (count > kListed) names += " and " + std::to_string(count - kListed) + " more";
    if (count > 0)
      warn(std::to_string(count) + (count == 1 ? " moving body has" : " moving bodies have") +
           " no mass or inertia (" + names +
           "): MuJoCo needs them to compile the file, and its bounds give them 1e-9 kg and "
           "1e-12 kg m^2 (compiler boundmass, boundinertia); kinematics are unchanged, and " +
           (count == 1 ? "it stays" : "they stay") + " massless here");
  }
  if (m->ntendon > 0) {
    std::string names;
    for (int t = 0; t < m->ntendon; ++t)
      names += (t ? ", '" : "'") + printable_name(name_of(m, mjOBJ_TENDON, t, "tendon_")) + "'";
    warn((m->ntendon == 1 ? "the tendon " + names + " is" : "the tendons " + names + " are") +
         " not carried over (kinematics only)");
  }

  ModelBuilder b;
  // the model's name is the first of MuJoCo's names
  b.model().name =
      m->names[0] ? std::string(m->names) : std::filesystem::path(path).stem().string();
  std::vector<int> body_of(m->nbody, -1);  // MuJoCo body -> our body (its last frame)
  std::vector<int> joint_of(m->njnt, -1);  // MuJoCo joint -> our joint
  std::vector<int> last_joint_body(m->nbody, -1);
  // a name the loader makes up (a jointless body's NAME_weld, a multi-joint body's BODY/JOINT),
  // with 2, 3, ... appended while the file or the model already has it: the file's own names
  // stay as they are (a file with a joint 'r_weld' beside a jointless body 'r' was refused as
  // "duplicate joint name 'r_weld'")
  auto made_up_name = [&](const std::string& base, mjtObj type) {
    // (a site becomes a link of its name too: a made-up body took a site's 'b/x')
    auto taken = [&](const std::string& n) {
      return mj_name2id(m, type, n.c_str()) >= 0 ||
             (type == mjOBJ_BODY && mj_name2id(m, mjOBJ_SITE, n.c_str()) >= 0) ||
             (type == mjOBJ_BODY ? b.model().find_body(n) : b.model().find_joint(n)) >= 0;
    };
    std::string name = base;
    for (int k = 2; taken(name); ++k) name = base + std::to_string(k);
    return name;
  };
  try {
    const std::string free_root = options.floating_base ? floating_root_name(m) : "";
    // sites' and geoms' own orientations where a class sets one (below), and the mass
    // properties of bodies MuJoCo computes from such geoms
    const OwnFrames own = own_frames(sources, meshes);
    std::string mixed_bodies;
    for (int i = 1; i < m->nbody; ++i) {
      const std::string name = name_of(m, mjOBJ_BODY, i, "body_");
      const int parent = m->body_parentid[i] == 0 ? -1 : body_of[m->body_parentid[i]];
      Transform<double> offset = {vec3(m->body_pos + 3 * i), quat_wxyz(m->body_quat + 4 * i)};
      const int first = m->body_jntadr[i], count = m->body_jntnum[i];
      int prev = parent;
      Transform<double> carry = offset;  // from prev's frame to the next joint's parent side
      for (int k = 0; k < std::max(count, 1); ++k) {
        const bool last = k + 1 >= count;
        const int jid = count > 0 ? first + k : -1;
        std::string body_name =
            last ? name
                 : made_up_name(name + "/" + name_of(m, mjOBJ_JOINT, jid, "joint_"), mjOBJ_BODY);
        int body;
        // a body without mass, or with just the mass the compiler's bound gives
        // (repair_for_newer's boundmass), stays massless, its centre of mass at its origin
        // (MuJoCo leaves its inertial frame where the body is in its parent's frame, and a
        // chain of such bodies had its centre of mass where none of them is); a mass of the
        // file's own, however small, is kept
        bool mixed = false;
        const std::array<mjtNum, 11>* turned = last ? own_inertial(m, own, i, &mixed) : nullptr;
        if (mixed)
          mixed_bodies += (mixed_bodies.empty() ? "'" : ", '") + printable_name(name) + "'";
        const mjtNum mass = turned ? (*turned)[0] : m->body_mass[i];
        if (last && mass > 0 && mass != kBoundMass) {
          const mjtNum* in = turned ? turned->data() + 8 : m->body_inertia + 3 * i;
          Quat<double> iq = quat_wxyz(turned ? turned->data() + 4 : m->body_iquat + 4 * i);
          // rotate the principal inertia into the body frame: R diag(I) R^T
          std::array<double, 9> inertia{};
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
              double s = 0;
              for (int a = 0; a < 3; ++a) {
                Vec3<double> e{double(a == 0), double(a == 1), double(a == 2)};
                Vec3<double> col = rotate(iq, e);
                s += col[r] * in[a] * col[c];
              }
              inertia[3 * r + c] = s;
            }
          body = b.add_body(body_name, mass,
                            vec3(turned ? turned->data() + 1 : m->body_ipos + 3 * i), inertia);
        } else {
          body = b.add_body(body_name, 0.0, {0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0});
        }
        JointSpec s;
        std::vector<double> home;  // qpos0 as our coordinates
        s.parent = prev;
        s.child = body;
        if (jid < 0) {
          // --floating-base: the root's coordinates are its pose relative to the file's
          const bool floating = parent < 0 && !free_root.empty();
          s.name = floating ? free_root : made_up_name(name + "_weld", mjOBJ_JOINT);
          s.type = floating ? JointType::kFree : JointType::kFixed;
          s.X_p = carry;
        } else {
          s.name = name_of(m, mjOBJ_JOINT, jid, "joint_");
          const Vec3<double> anchor = vec3(m->jnt_pos + 3 * jid);
          const Transform<double> at_anchor = {anchor, {0, 0, 0, 1}};
          s.axis = vec3(m->jnt_axis + 3 * jid);  // unit (the compiler normalises it)
          const mjtNum* qpos0 = m->qpos0 + m->jnt_qposadr[jid];
          const double ref = qpos0[0];
          switch (m->jnt_type[jid]) {
            case mjJNT_FREE:
              // qpos is the body's world pose: no parent offset; the file's pose is its home
              s.type = JointType::kFree;
              if (parent < 0)
                home = {qpos0[0], qpos0[1], qpos0[2], qpos0[4], qpos0[5], qpos0[6], qpos0[3]};
              s.X_p = parent < 0 ? transform_identity<double>() : carry;
              if (parent >= 0) warn("free joint " + s.name + " below the world: kept as free");
              break;
            case mjJNT_BALL:
              s.type = JointType::kBall;
              home = {qpos0[1], qpos0[2], qpos0[3], qpos0[0]};
              s.X_p = carry * at_anchor;
              s.X_c = at_anchor;
              if (m->jnt_limited[jid]) {
                char cone[32];
                std::snprintf(cone, sizeof cone, "%.4g", m->jnt_range[2 * jid + 1]);
                warn("ball joint " + s.name + ": its range (" + cone +
                     " rad from the reference) is not enforced; ball joints are unlimited here");
              }
              break;
            case mjJNT_SLIDE:
              s.type = JointType::kPrismatic;
              home = {ref};
              s.X_p = carry * at_anchor * Transform<double>{(-ref) * s.axis, {0, 0, 0, 1}};
              s.X_c = at_anchor;
              break;
            default:  // hinge
              s.type = JointType::kRevolute;
              home = {ref};
              s.X_p = carry * at_anchor *
                      Transform<double>{{0, 0, 0}, quat_from_axis_angle(s.axis, -ref)};
              s.X_c = at_anchor;
              break;
          }
          if (s.type == JointType::kRevolute || s.type == JointType::kPrismatic) {
            s.lower = m->jnt_limited[jid] ? m->jnt_range[2 * jid] : -kInf;
            s.upper = m->jnt_limited[jid] ? m->jnt_range[2 * jid + 1] : kInf;
            if (!m->jnt_limited[jid] && s.type == JointType::kRevolute)
              s.type = JointType::kContinuous;
          }
        }
        int j = b.add_joint(s);
        if (!home.empty()) b.set_home(j, std::move(home));
        if (jid >= 0) joint_of[jid] = j;
        // the next joint of this body starts at this one's child frame (the body's frame)
        prev = body;
        carry = transform_identity<double>();
      }
      body_of[i] = prev;
    }
    // geoms: those that collide are the collision shapes; those that do not are drawn (robot
    // files keep visual meshes apart from collision shapes), and a body with only colliding
    // geoms is drawn with those. A site's or geom's own orientation attribute wins over its
    // default class's, as the MJCF reference has it (MuJoCo 2.2.2 kept a class's euler over the
    // element's own axisangle, xyaxes, zaxis or quat, turning a review's sites 7.6 to 120
    // degrees); those turned so are named in one warning
    std::vector<std::string> own_sites, own_geoms;  // "'NAME' (ATTRIBUTE, FILE:LINE)"
    auto own_item = [](const OwnOrientation& o, const std::string& what) {
      return what + " (" + o.attribute + ", " + o.place + ")";
    };
    std::vector<std::vector<Geometry> > drawn(m->nbody), colliding(m->nbody);
    for (int g = 0; g < m->ngeom; ++g) {
      const int mb = m->geom_bodyid[g];
      Geometry geo;
      if (mb == 0 || !to_geometry(m, g, meshes, &geo)) continue;  // world geoms (the floor), planes
      const auto its_own = own.geom_frames.find(g);
      if (its_own != own.geom_frames.end() &&
          quat_gap(m->geom_quat + 4 * g, its_own->second.frame.data() + 3) > kQuatTolerance) {
        const mjtNum* f = its_own->second.frame.data();
        geo.origin = {vec3(f), quat_wxyz(f + 3)};
        const OwnOrientation& o = own.geoms[its_own->second.entry];
        own_geoms.push_back(own_item(
            o, o.name.empty() ? "#" + std::to_string(g - m->body_geomadr[mb] + 1) + " of body '" +
                                    printable_name(name_of(m, mjOBJ_BODY, mb, "body_")) + "'"
                              : "'" + printable_name(o.name) + "'"));
      }
      const bool collides = m->geom_contype[g] || m->geom_conaffinity[g];
      (collides ? colliding : drawn)[mb].push_back(std::move(geo));
    }
    for (int i = 1; i < m->nbody; ++i) {
      std::vector<Geometry>& visuals = b.visuals(body_of[i]);
      for (const Geometry& g : drawn[i].empty() ? colliding[i] : drawn[i])
        if (g.rgba[3] > 0) visuals.push_back(g);
      b.collisions(body_of[i]) = std::move(colliding[i]);
    }
    // equality constraints: linear couplings of two scalar joints become mimic joints
    Model& mm = b.model();
    for (int e = 0; e < m->neq; ++e) {
      if (!m->eq_active[e]) continue;  // active="false": it does not hold, as in MuJoCo
      const std::string why = uncarried_equality(m, e);
      if (!why.empty()) {
        warn(equality_label(m, e) + " not carried over: " + why);
        continue;
      }
      double mult = 1, off = 0;
      linear_coupling(m, e, &mult, &off);
      const int j = joint_of[m->eq_obj1id[e]];
      if (mm.joint_mimic[j] >= 0) {
        warn(equality_label(m, e) + " not carried over: joint '" + mm.joint_name[j] +
             "' already follows '" + mm.joint_name[mm.joint_mimic[j]] + "'");
        continue;
      }
      mm.joint_mimic[j] = joint_of[m->eq_obj2id[e]];
      mm.joint_mimic_multiplier[j] = mult;
      mm.joint_mimic_offset[j] = off;
    }
    fold_mimic_chains(mm);
    // named sites (tool points, attachment frames) as massless bodies fixed to their body, so
    // they can be targets; a site on the world is left out, a name a body already has gets
    // "_site" appended (a warning says so), and the fixed joint is NAME_weld unless a joint has
    // that name (then NAME_weld2, ...); a site's own orientation wins over its class's (above)
    for (int st = 0; st < m->nsite; ++st) {
      const char* raw = mj_id2name(m, mjOBJ_SITE, st);
      const int mb = m->site_bodyid[st];
      if (!raw || !*raw || mb == 0) continue;
      std::string name = raw;
      if (b.model().find_body(name) >= 0) {
        std::string renamed = name + "_site";
        for (int k = 2; b.model().find_body(renamed) >= 0; ++k)
          renamed = name + "_site" + std::to_string(k);
        warn("site '" + name + "' shares its name with a body: loaded as '" + renamed + "'");
        name = renamed;
      }
      JointSpec s;
      s.name = name + "_weld";
      for (int k = 2; b.model().find_joint(s.name) >= 0; ++k)
        s.name = name + "_weld" + std::to_string(k);
      s.type = JointType::kFixed;
      s.parent = body_of[mb];
      s.child = b.add_body(name, 0.0, {0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0});
      const mjtNum* quat = m->site_quat + 4 * st;
      const auto its_own = own.site_quats.find(raw);
      if (its_own != own.site_quats.end() &&
          quat_gap(quat, its_own->second.data()) > kQuatTolerance) {
        quat = its_own->second.data();
        const auto mine = std::find_if(own.sites.begin(), own.sites.end(),
                                       [&](const OwnOrientation& o) { return o.name == raw; });
        own_sites.push_back(own_item(*mine, "'" + printable_name(raw) + "'"));
      }
      s.X_p = {vec3(m->site_pos + 3 * st), quat_wxyz(quat)};
      b.add_joint(s);
    }
    if (!own_sites.empty() || !own_geoms.empty()) {
      auto listed = [](const std::vector<std::string>& items, const std::string& one,
                       const std::string& many) {
        std::string text = items.size() == 1 ? one : many;
        for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ", " : " ") + items[i];
        return text;
      };
      const bool one = own_sites.size() + own_geoms.size() == 1;
      std::string what = own_sites.empty() ? "" : listed(own_sites, "the site", "the sites");
      if (!own_geoms.empty())
        what += (what.empty() ? "" : " and ") + listed(own_geoms, "the geom", "the geoms");
      warn(what + (one ? " sets its" : " set their") +
           " own orientation and a default class another: MuJoCo 2.2.2 took the class's; here " +
           (one ? "it takes" : "each takes") +
           " its own, as the MJCF reference says (and newer MuJoCo does)");
    }
    if (!mixed_bodies.empty())
      warn("the mass properties of body " + mixed_bodies +
           ", which MuJoCo computes from its geoms, stay MuJoCo 2.2.2's: of its geoms some take "
           "their own orientation and others their class's; give the body an <inertial>");
  } catch (const ModelError& e) {
    mj_deleteModel(m);
    throw ModelError(path + ": " + e.what());
  }
  mj_deleteModel(m);
  LoadResult result;
  Model model;
  // before finalize: the collision geometry's warnings name the file
  b.model().source_path = std::filesystem::absolute(path, ec).lexically_normal().string();
  std::vector<std::string> notes;
  try {
    model = b.finalize(&notes);
  } catch (const ModelError& e) {
    throw ModelError(path + ": " + e.what());
  }
  for (const std::string& n : notes) warnings.push_back(path + ": " + n);
  result.model = std::make_shared<const Model>(std::move(model));
  result.warnings = std::move(warnings);
  return result;
}

#endif

}  // namespace ikwb
