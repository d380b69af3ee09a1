// `ikwb info ROBOT.urdf [--json]`: the kinematic tree, joints and bodies of a robot.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/cli_args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/robot_args.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {

namespace {

// limits of a joint for display: only 1-dof joints with their own coordinate have them
bool joint_limits(const Model& m, int j, double* lo, double* hi) {
  if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) return false;
  int d = m.joint_qd_start[j];
  *lo = m.dof_lower[d];
  *hi = m.dof_upper[d];
  return true;
}

// the world frame in parentheses: a URDF's root link is often named world too (ROS's fixed
// frame; the UR5e's), and its root joint read "world" to "world"
constexpr const char* kWorldFrame = "(world)";

std::string parent_name(const Model& m, int j) {
  return m.joint_parent[j] < 0 ? kWorldFrame : m.body_name[m.joint_parent[j]];
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string limit_text(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return fmt("%.6g", v);
}

nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json info_json(const Model& m, const std::vector<std::string>& warnings) {
  using nlohmann::json;
  json out;
  out["name"] = m.name;
  out["source"] = m.source_path;
  out["joint_count"] = m.joint_count;
  out["body_count"] = m.body_count;
  out["joint_coord_count"] = m.coord_count;
  out["joint_dof_count"] = m.dof_count;
  json joints = json::array();
  for (int j = 0; j < m.joint_count; ++j) {
    json jo;
    jo["index"] = j;
    jo["name"] = m.joint_name[j];
    jo["type"] = joint_type_name(JointType(m.joint_type[j]));
    jo["parent"] = m.joint_parent[j] < 0 ? json(nullptr) : json(m.body_name[m.joint_parent[j]]);
    jo["child"] = m.body_name[m.joint_child[j]];
    jo["q_start"] = m.joint_q_start[j];
    jo["qd_start"] = m.joint_qd_start[j];
    jo["coord_count"] = m.joint_q_start[j + 1] - m.joint_q_start[j];
    jo["dof_count"] = m.joint_qd_start[j + 1] - m.joint_qd_start[j];
    double lo = 0, hi = 0;
    bool limited = joint_limits(m, j, &lo, &hi);
    jo["lower"] = limited ? finite_or_null(lo) : json(nullptr);
    jo["upper"] = limited ? finite_or_null(hi) : json(nullptr);
    // the axis a joint moves about or along (a planar joint: its plane's normal), in its frame;
    // fixed, ball and free joints have none, whatever the file wrote
    const JointType type = JointType(m.joint_type[j]);
    const Vec3<double>& a = m.joint_axis[j];
    const bool has_axis =
        type != JointType::kFixed && type != JointType::kBall && type != JointType::kFree;
    jo["axis"] = has_axis ? json{a.x, a.y, a.z} : json(nullptr);
    if (m.joint_mimic[j] >= 0) {
      jo["mimic"] = {{"joint", m.joint_name[m.joint_mimic[j]]},
                     {"multiplier", m.joint_mimic_multiplier[j]},
                     {"offset", m.joint_mimic_offset[j]}};
    } else {
      jo["mimic"] = nullptr;
    }
    joints.push_back(std::move(jo));
  }
  out["joints"] = std::move(joints);
  json bodies = json::array();
  for (int b = 0; b < m.body_count; ++b) {
    const Vec3<double>& c = m.body_com[b];
    int pj = m.body_joint[b];
    bodies.push_back({{"index", b},
                      {"name", m.body_name[b]},
                      {"parent_joint", pj < 0 ? json(nullptr) : json(m.joint_name[pj])},
                      {"mass", m.body_mass[b]},
                      {"com", {c.x, c.y, c.z}},
                      {"visual_count", m.body_visuals[b].size()},
                      {"collision_count", m.body_collisions[b].size()}});
  }
  out["bodies"] = std::move(bodies);
  out["warnings"] = warnings;
  return out;
}

// The columns a UTF-8 string takes on a terminal: one a code point, two for the East Asian
// wide ranges and emoji, none for combining marks (a name in Japanese or with an emoji lines up
// with the ASCII ones). Bytes that are not UTF-8 count one each.
std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    if (i + std::size_t(len) > s.size()) break;
    uint32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += std::size_t(len);
    if (cp >= 0x300 && cp <= 0x36F) continue;  // combining diacritical marks
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
                      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
    w += wide ? 2 : 1;
  }
  return w;
}

// rows of cells printed as left-aligned columns
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], display_width(r[c]));
    }
  for (const auto& r : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < r.size(); ++c)
      line +=
          " " + r[c] + (c + 1 < r.size() ? std::string(width[c] - display_width(r[c]), ' ') : "");
    std::printf("%s\n", line.c_str());
  }
}

void print_text(const Model& m) {
  std::printf("robot '%s'%s%s\n", m.name.c_str(), m.source_path.empty() ? "" : " from ",
              m.source_path.c_str());
  std::printf("joint_coord_count %d  joint_dof_count %d  joints %d  bodies %d\n", m.coord_count,
              m.dof_count, m.joint_count, m.body_count);

  std::printf("\ntree:\n  %s\n", kWorldFrame);
  std::vector<std::vector<int>> children(m.body_count + 1);
  for (int j = 0; j < m.joint_count; ++j) children[m.joint_parent[j] + 1].push_back(j);
  // depth first with a stack of (joint, depth): a chain of 50,000 links overflowed the call
  // stack of a recursive walk. The indent stops at kIndentLevels; deeper lines say their depth.
  constexpr int kIndentLevels = 32;
  std::vector<std::pair<int, int>> stack;
  for (auto j = children[0].rbegin(); j != children[0].rend(); ++j) stack.push_back({*j, 1});
  while (!stack.empty()) {
    const auto [j, depth] = stack.back();
    stack.pop_back();
    const int c = m.joint_child[j];
    std::string note = m.joint_name[j] + ": " + joint_type_name(JointType(m.joint_type[j]));
    if (m.joint_mimic[j] >= 0) note += ", mimics " + m.joint_name[m.joint_mimic[j]];
    const std::string indent(2 * std::min(depth, kIndentLevels) + 2, ' ');
    const std::string level = depth > kIndentLevels ? "[depth " + std::to_string(depth) + "] " : "";
    std::printf("%s%s%s  (%s)\n", indent.c_str(), level.c_str(), m.body_name[c].c_str(),
                note.c_str());
    for (auto k = children[c + 1].rbegin(); k != children[c + 1].rend(); ++k)
      stack.push_back({*k, depth + 1});
  }

  std::printf("\njoints:\n");
  std::vector<std::vector<std::string>> rows = {
      {"#", "name", "type", "parent", "child", "q_start", "qd_start", "lower", "upper", "mimic"}};
  for (int j = 0; j < m.joint_count; ++j) {
    double lo = 0, hi = 0;
    bool limited = joint_limits(m, j, &lo, &hi);
    std::string mimic = "-";
    if (m.joint_mimic[j] >= 0) {
      mimic = mimic_formula(m.joint_name[m.joint_mimic[j]], m.joint_mimic_multiplier[j],
                            m.joint_mimic_offset[j]);
    }
    rows.push_back({std::to_string(j), m.joint_name[j], joint_type_name(JointType(m.joint_type[j])),
                    parent_name(m, j), m.body_name[m.joint_child[j]],
                    std::to_string(m.joint_q_start[j]), std::to_string(m.joint_qd_start[j]),
                    limited ? limit_text(lo) : "-", limited ? limit_text(hi) : "-", mimic});
  }
  print_table(rows);

  std::printf("\nbodies:\n");
  rows = {{"#", "name", "parent_joint", "mass", "com"}};
  for (int b = 0; b < m.body_count; ++b) {
    const Vec3<double>& c = m.body_com[b];
    int pj = m.body_joint[b];
    rows.push_back({std::to_string(b), m.body_name[b], pj < 0 ? "-" : m.joint_name[pj],
                    fmt("%.6g", m.body_mass[b]),
                    fmt("%.6g", c.x) + " " + fmt("%.6g", c.y) + " " + fmt("%.6g", c.z)});
  }
  print_table(rows);
}

// each body's "capsules": [{"p0": [x, y, z], "p1": [...], "radius": r}] in its frame (m)
void add_capsules(const Model& m, nlohmann::json& out) {
  using nlohmann::json;
  const CollisionGeometry& g = m.collision;
  for (int b = 0; b < m.body_count; ++b) {
    json list = json::array();
    for (int c = g.body_first[b]; c < g.body_first[b + 1]; ++c) {
      const LinkCapsule<double>& k = g.capsules[c];
      list.push_back({{"p0", {k.p0.x, k.p0.y, k.p0.z}},
                      {"p1", {k.p1.x, k.p1.y, k.p1.z}},
                      {"radius", k.radius}});
    }
    out["bodies"][b]["capsules"] = std::move(list);
  }
}

void print_capsules(const Model& m) {
  const CollisionGeometry& g = m.collision;
  std::printf("\ncapsules (link frame, m):\n");
  std::vector<std::vector<std::string>> rows = {{"link", "p0", "p1", "radius"}};
  auto point = [](const Vec3<double>& p) {
    return fmt("%.6g", p.x) + " " + fmt("%.6g", p.y) + " " + fmt("%.6g", p.z);
  };
  for (int b = 0; b < m.body_count; ++b)
    for (int c = g.body_first[b]; c < g.body_first[b + 1]; ++c)
      rows.push_back({m.body_name[b], point(g.capsules[c].p0), point(g.capsules[c].p1),
                      fmt("%.6g", g.capsules[c].radius)});
  print_table(rows);
}

}  // namespace

int cmd_info(int argc, char** argv) {
  ArgParser args("ikwb info", "Prints the kinematic tree, joints and bodies of a robot.");
  args.add_positional("ROBOT.urdf", "robot description, or a shipped robot's name");
  args.add_flag("json",
                "print one JSON object instead of text (a joint's axis in its frame; null for "
                "fixed, ball and free joints)");
  args.add_flag("capsules",
                "read the collision meshes and list the capsules fitted to each link (what "
                "`check` and the collision objectives test): ends p0, p1 in the link's frame "
                "(m) and radius");
  args.add_flag("meshes",
                "read every mesh file, as the workbench does, and warn of what they lack (a file "
                "that cannot be read, an OBJ's missing .mtl, missing textures, a size in "
                "millimetres); without it mesh files are only looked for");
  add_robot_options(args);
  try {
    args.parse(argc, argv);
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb info: %s\n%s", e.what(), args.short_usage().c_str());
    return 2;
  }
  if (args.help_requested()) {
    std::printf("%s", args.usage().c_str());
    return 0;
  }
  UrdfOptions opt = read_robot_options(args, args.has("meshes")     ? MeshFiles::kAll
                                             : args.has("capsules") ? MeshFiles::kCollision
                                                                    : MeshFiles::kNone);
  opt.warn_unread_meshes = true;  // a description of the file names its missing meshes
  LoadResult r;
  try {
    r = load_robot_file(resolve_robot(args.get("ROBOT.urdf")), opt);
  } catch (const ModelError& e) {
    std::fprintf(stderr, "ikwb info: %s\n", e.what());
    return 1;
  }
  print_warnings(r.warnings);
  const bool capsules = args.has("capsules");
  // the capsule fit's own warnings (a visual used for collisions, an element without a loaded
  // mesh) that loading did not give, in the JSON's list too (a capsule list left empty read
  // without its reason there)
  std::vector<std::string> warnings = r.warnings;
  if (capsules)
    for (const std::string& w : r.model->collision.warnings)
      if (std::find(r.warnings.begin(), r.warnings.end(), w) == r.warnings.end()) {
        print_warnings({w});
        warnings.push_back(w);
      }
  if (args.has("json")) {
    nlohmann::json out = info_json(*r.model, warnings);
    if (capsules) add_capsules(*r.model, out);
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    print_text(*r.model);
    if (capsules) print_capsules(*r.model);
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace ikwb
