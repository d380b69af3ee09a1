#include "engine/core/scene.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/core/objective_kinds.hpp"
#include "engine/core/output_target.hpp"
#include "engine/core/text_file.hpp"

namespace ikwb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// JSON nesting accepted in scene files (scenes need fewer than 10 levels)
constexpr int kMaxSceneDepth = 256;

// reading helpers: every error names the JSON path
struct Reader {
  std::string source;
  std::vector<std::string>* warnings;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw SceneError((source.empty() ? "" : source + ": ") + where + ": " + what);
  }
  double number(const json& j, const std::string& where) const {
    if (!j.is_number()) fail(where, "expected a number");
    double v = j.get<double>();
    if (!std::isfinite(v)) fail(where, "NaN or infinite value");
    return v;
  }
  std::vector<double> numbers(const json& j, const std::string& where, int n = -1) const {
    if (!j.is_array()) fail(where, "expected an array of numbers");
    if (n >= 0 && int(j.size()) != n)
      fail(where, "expected " + std::to_string(n) + " numbers, got " + std::to_string(j.size()));
    std::vector<double> v;
    for (std::size_t i = 0; i < j.size(); ++i)
      v.push_back(number(j[i], where + "[" + std::to_string(i) + "]"));
    return v;
  }
  // three numbers within kMaxLength: a position, an offset, a size, a direction
  Vec3<double> vec3(const json& j, const std::string& where) const {
    const Vec3<double> v = any_vec3(j, where);
    for (double x : {v.x, v.y, v.z})
      if (std::fabs(x) > kMaxLength) fail(where, "magnitude above 1e6 (" + json(x).dump() + ")");
    return v;
  }
  // three numbers of any finite size (per-axis weights)
  Vec3<double> any_vec3(const json& j, const std::string& where) const {
    std::vector<double> v = numbers(j, where, 3);
    return {v[0], v[1], v[2]};
  }
  Quat<double> unit_quat(const json& j, const std::string& where) const {
    std::vector<double> v = numbers(j, where, 4);
    Quat<double> q{v[0], v[1], v[2], v[3]};
    double n = quat_norm(q);
    if (std::fabs(n - 1.0) > 1e-3)
      fail(where, "quaternion (x, y, z, w) is not unit (norm " + std::to_string(n) + ")");
    return normalize_unless_unit(q);
  }
  std::string string(const json& j, const std::string& where) const {
    if (!j.is_string()) fail(where, "expected a string");
    return j.get<std::string>();
  }
  bool boolean(const json& j, const std::string& where) const {
    if (!j.is_boolean()) fail(where, "expected true or false");
    return j.get<bool>();
  }
  Transform<double> pose(const json& j, const std::string& where) const {
    if (!j.is_object()) fail(where, "expected {\"position\": [...], \"orientation\": [...]}");
    Transform<double> x = transform_identity<double>();
    if (j.contains("position")) x.p = vec3(j["position"], where + ".position");
    if (j.contains("orientation")) x.q = unit_quat(j["orientation"], where + ".orientation");
    return x;
  }
  std::map<std::string, std::vector<double>> joint_map(const json& j,
                                                       const std::string& where) const {
    if (!j.is_object()) fail(where, "expected an object of joint name -> value(s)");
    std::map<std::string, std::vector<double>> out;
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string w = where + "." + it.key();
      if (it.value().is_array())
        out[it.key()] = numbers(it.value(), w);
      else
        out[it.key()] = {number(it.value(), w)};
    }
    return out;
  }
};

json vec_json(const Vec3<double>& v) {
  return json::array({v.x, v.y, v.z});
}
json pose_json(const Transform<double>& x) {
  return {{"position", vec_json(x.p)}, {"orientation", json::array({x.q.x, x.q.y, x.q.z, x.q.w})}};
}
json joint_map_json(const std::map<std::string, std::vector<double>>& m) {
  json j = json::object();
  for (const auto& [name, v] : m) j[name] = v.size() == 1 ? json(v[0]) : json(v);
  return j;
}
// a bound, or null when open (JSON has no infinity)
json bound_json(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}
json bounds_json(const Vec3<double>& v) {
  return json::array({bound_json(v.x), bound_json(v.y), bound_json(v.z)});
}

// [x, y, z] of numbers or nulls (null: `open`, an infinity)
Vec3<double> read_bounds(const Reader& r, const json& j, const std::string& where, double open) {
  if (!j.is_array() || j.size() != 3) r.fail(where, "expected [x, y, z] (numbers or null)");
  Vec3<double> v;
  for (int k = 0; k < 3; ++k)
    v[k] = j[k].is_null() ? open : r.number(j[k], where + "[" + std::to_string(k) + "]");
  return v;
}

std::vector<SceneContact> read_contacts(const Reader& r, const json& j, const std::string& where) {
  if (!j.is_array() || j.empty())
    r.fail(where, "expected a non-empty array of {\"link\", \"points\"}");
  std::vector<SceneContact> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    const json& c = j[i];
    if (!c.is_object() || !c.contains("link"))
      r.fail(w, "expected {\"link\": NAME, \"points\": [...]}");
    SceneContact sc;
    sc.link = r.string(c["link"], w + ".link");
    if (c.contains("points")) {
      const json& ps = c["points"];
      if (!ps.is_array() || ps.empty())
        r.fail(w + ".points", "expected a non-empty array of [x, y, z]");
      for (std::size_t k = 0; k < ps.size(); ++k)
        sc.points.push_back(r.vec3(ps[k], w + ".points[" + std::to_string(k) + "]"));
    }
    out.push_back(std::move(sc));
  }
  return out;
}

SceneObjective read_objective(const Reader& r, const json& j, const std::string& where) {
  if (!j.is_object()) r.fail(where, "expected an object");
  SceneObjective o;
  static const char* const known[] = {"type",
                                      "name",
                                      "link",
                                      "link_b",
                                      "offset",
                                      "offset_b",
                                      "distance",
                                      "weight",
                                      "hard",
                                      "enabled",
                                      "null_space",
                                      "target",
                                      "relative",
                                      "position_weights",
                                      "rotation_weights",
                                      "axis",
                                      "direction",
                                      "cone",
                                      "contacts",
                                      "margin",
                                      "lower",
                                      "upper",
                                      "min_measure"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok)
      r.warnings->push_back(r.source + ": " + where + "." + it.key() + ": unknown key ignored");
  }
  if (!j.contains("type")) r.fail(where, "missing \"type\"");
  o.type = r.string(j["type"], where + ".type");
  const ObjectiveKind* kind = find_objective_kind(o.type);
  if (!kind)
    r.fail(where + ".type",
           "unknown objective type '" + o.type + "' (known: " + objective_kind_names() + ")");
  if (j.contains("name")) o.name = r.string(j["name"], where + ".name");
  if (j.contains("link")) o.link = r.string(j["link"], where + ".link");
  if (j.contains("link_b")) o.link_b = r.string(j["link_b"], where + ".link_b");
  if (j.contains("offset")) o.offset = r.vec3(j["offset"], where + ".offset");
  if (j.contains("offset_b")) o.offset_b = r.vec3(j["offset_b"], where + ".offset_b");
  if (j.contains("distance")) o.distance = r.number(j["distance"], where + ".distance");
  if (j.contains("weight")) o.weight = r.number(j["weight"], where + ".weight");
  if (j.contains("axis")) o.axis = r.vec3(j["axis"], where + ".axis");
  if (j.contains("direction")) o.direction = r.vec3(j["direction"], where + ".direction");
  if (j.contains("cone")) o.cone = r.number(j["cone"], where + ".cone");
  o.margin = default_margin(kind->type);
  if (j.contains("margin")) o.margin = r.number(j["margin"], where + ".margin");
  if (!(o.margin >= 0 && o.margin <= 1e3)) r.fail(where + ".margin", "must be in [0, 1e3] m");
  if (o.cone < 0 || o.cone > 3.141592653589793)
    r.fail(where + ".cone", "must be an angle in [0, pi] rad");
  for (auto [v, key] :
       {std::pair<const Vec3<double>*, const char*>{&o.axis, "axis"}, {&o.direction, "direction"}})
    if (v->x == 0 && v->y == 0 && v->z == 0) r.fail(where + "." + key, "must not be zero");
  // weights and measures past 1e6 overflow the solver's cost (squared residuals times weight)
  if (!(o.weight >= 0 && o.weight <= kMaxWeight))
    r.fail(where + ".weight", "must be within [0, 1e6]");
  // read only where the kind reads them: elsewhere the key is a warning whatever it holds
  if (j.contains("contacts") && kind->has(kFieldContacts))
    o.contacts = read_contacts(r, j["contacts"], where + ".contacts");
  if (j.contains("min_measure")) o.min_measure = r.number(j["min_measure"], where + ".min_measure");
  if (!(o.min_measure >= 0 && o.min_measure <= kMaxWeight))
    r.fail(where + ".min_measure", "must be within [0, 1e6]");
  if (j.contains("lower")) o.lower = read_bounds(r, j["lower"], where + ".lower", -HUGE_VAL);
  if (j.contains("upper")) o.upper = read_bounds(r, j["upper"], where + ".upper", HUGE_VAL);
  for (int k = 0; k < 3; ++k)
    if (o.lower[k] > o.upper[k])
      r.fail(where + ".lower", "must not be above upper (axis " + std::to_string(k) + ")");
  if (o.distance < 0) r.fail(where + ".distance", "must be >= 0");
  if (j.contains("position_weights"))
    o.position_weights = r.any_vec3(j["position_weights"], where + ".position_weights");
  if (j.contains("rotation_weights"))
    o.rotation_weights = r.any_vec3(j["rotation_weights"], where + ".rotation_weights");
  for (auto [v, key] :
       {std::pair<const Vec3<double>*, const char*>{&o.position_weights, "position_weights"},
        {&o.rotation_weights, "rotation_weights"}})
    if (!(v->x >= 0 && v->y >= 0 && v->z >= 0))
      r.fail(where + "." + key, "must be >= 0 on every axis");
  if (j.contains("hard")) o.hard = r.boolean(j["hard"], where + ".hard");
  if (j.contains("enabled")) o.enabled = r.boolean(j["enabled"], where + ".enabled");
  if (j.contains("null_space")) o.null_space = r.boolean(j["null_space"], where + ".null_space");
  if (j.contains("target")) {
    const json& t = j["target"];
    if (t.is_string()) {
      if (t.get<std::string>() != "current")
        r.fail(where + ".target", "expected \"current\" or a pose object");
      o.target_current = true;
    } else {
      o.target = r.pose(t, where + ".target");
      o.target_current = false;
    }
  }
  if (j.contains("relative")) {
    const json& t = j["relative"];
    if (t.is_string() && t.get<std::string>() == "current") {
      o.relative_current = true;
    } else {
      o.relative = r.pose(t, where + ".relative");
      o.relative_current = false;
    }
  }
  // a key the kind does not read is ignored (and lost on saving): say so now, whatever its
  // value (an "axis" on a pose objective does nothing even when it is the default one). "hard"
  // only when it differs from the default: every objective is written with it
  const SceneObjective d;
  const struct {
    uint32_t field;
    const char* key;
    bool set;
  } unused[] = {
      {kFieldLinkB, "link_b", j.contains("link_b")},
      {kFieldOffset, "offset", j.contains("offset")},
      {kFieldOffsetB, "offset_b", j.contains("offset_b")},
      {kFieldDistance, "distance", j.contains("distance")},
      {kFieldAxis, "axis", j.contains("axis")},
      {kFieldDirection, "direction", j.contains("direction")},
      {kFieldCone, "cone", j.contains("cone")},
      {kFieldPositionWeights, "position_weights", j.contains("position_weights")},
      {kFieldRotationWeights, "rotation_weights", j.contains("rotation_weights")},
      {kFieldNullSpace, "null_space", j.contains("null_space")},
      {kFieldHard, "hard", o.hard != d.hard},
      {kFieldTarget, "target", j.contains("target")},
      {kFieldRelative, "relative", j.contains("relative")},
      {kFieldContacts, "contacts", j.contains("contacts")},
      {kFieldMargin, "margin", j.contains("margin")},
      {kFieldBox, "lower", j.contains("lower") || j.contains("upper")},
      {kFieldMinMeasure, "min_measure", j.contains("min_measure")},
  };
  auto reads = [kind](uint32_t field) {
    return kind->has(field) ||
           ((field == kFieldLinkB || field == kFieldOffsetB) && kind->reads_link_b());
  };
  for (const auto& u : unused)
    if (u.set && !reads(u.field))
      r.warnings->push_back(r.source + ": " + where + "." + u.key + ": not used by a " + o.type +
                            " objective, ignored");
  // every objective is written with its "hard" (the other keys only where the kind reads them):
  // ignored, it is dropped, so the scene is written as it is used and reads back without the
  // warning
  if (!reads(kFieldHard)) o.hard = d.hard;
  if (kind->has(kFieldLink) && o.link.empty())
    r.fail(where, "objective '" + o.type + "' needs a \"link\"");
  if (kind->has(kFieldLinkB) && o.link_b.empty())
    r.fail(where, "objective '" + o.type + "' needs a \"link_b\"");
  if (kind->has(kFieldContacts) && o.contacts.empty())
    r.fail(where, "objective '" + o.type + "' needs \"contacts\"");
  return o;
}

Obstacle read_obstacle(const Reader& r, const json& j, const std::string& where) {
  if (!j.is_object()) r.fail(where, "expected an object");
  static const char* const known[] = {"name",   "type",   "size",   "radius",
                                      "length", "normal", "offset", "pose"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok)
      r.warnings->push_back(r.source + ": " + where + "." + it.key() + ": unknown key ignored");
  }
  Obstacle o;
  if (!j.contains("type"))
    r.fail(where, "missing \"type\" (sphere, capsule, box, cylinder, half_space)");
  std::string type = r.string(j["type"], where + ".type");
  if (!parse_shape_type(type, &o.type))
    r.fail(where + ".type",
           "unknown obstacle type '" + type + "' (sphere, capsule, box, cylinder, half_space)");
  if (j.contains("name")) o.name = r.string(j["name"], where + ".name");
  // the keys each type needs; the others would be lost on saving
  std::vector<const char*> needs;
  switch (o.type) {
    case ShapeType::kBox:
      needs = {"size", "pose"};
      break;
    case ShapeType::kSphere:
      needs = {"radius", "pose"};
      break;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder:
      needs = {"radius", "length", "pose"};
      break;
    case ShapeType::kHalfSpace:
      needs = {"normal", "offset"};
      break;
  }
  for (const char* k : {"size", "radius", "length", "normal", "offset", "pose"}) {
    bool needed = false;
    for (const char* n : needs) needed = needed || std::strcmp(n, k) == 0;
    if (needed && !j.contains(k) && std::strcmp(k, "offset") != 0 && std::strcmp(k, "pose") != 0)
      r.fail(where, "a " + type + " obstacle needs \"" + k + "\"");
    if (!needed && j.contains(k))
      r.warnings->push_back(r.source + ": " + where + "." + k + ": not used by a " + type +
                            " obstacle, ignored");
  }
  if (j.contains("size")) o.size = r.vec3(j["size"], where + ".size");
  if (j.contains("radius")) o.radius = r.number(j["radius"], where + ".radius");
  if (j.contains("length")) o.length = r.number(j["length"], where + ".length");
  if (j.contains("normal")) o.normal = r.vec3(j["normal"], where + ".normal");
  if (j.contains("offset")) o.offset = r.number(j["offset"], where + ".offset");
  if (j.contains("pose")) o.pose = r.pose(j["pose"], where + ".pose");
  if (o.type == ShapeType::kHalfSpace) {
    // any length but zero, normalised here with the offset, so that the solid is still
    // normal . x <= offset (normal [0, 0, 2], offset 1: z <= 0.5)
    const double n = length(o.normal);
    if (!(n > 0)) r.fail(where + ".normal", "is zero: a half space needs a direction (any length)");
    o.normal = (1 / n) * o.normal;
    o.offset /= n;
    // (the plane's distance from the origin: a short normal with a small offset puts it far)
    if (!(std::abs(o.offset) <= 1e6))
      r.fail(where + ".offset",
             "offset / |normal| must be within 1e6 m (the plane's distance from the origin)");
  }
  try {
    check_obstacle(o);
  } catch (const std::invalid_argument& e) {
    r.fail(where, e.what());
  }
  return o;
}

json obstacle_json(const Obstacle& o) {
  json j;
  j["name"] = o.name;
  j["type"] = shape_type_name(o.type);
  switch (o.type) {
    case ShapeType::kBox:
      j["size"] = vec_json(o.size);
      break;
    case ShapeType::kSphere:
      j["radius"] = o.radius;
      break;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder:
      j["radius"] = o.radius;
      j["length"] = o.length;
      break;
    case ShapeType::kHalfSpace:
      j["normal"] = vec_json(o.normal);
      j["offset"] = o.offset;
      return j;
  }
  j["pose"] = pose_json(o.pose);
  return j;
}

// "collision_pairs": {"disabled": [[A, B], ...], "enabled": [...]}
std::vector<LinkPair> read_link_pairs(const Reader& r, const json& j, const std::string& where) {
  if (!j.is_array()) r.fail(where, "expected an array of [link_a, link_b] pairs");
  std::vector<LinkPair> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    if (!j[i].is_array() || j[i].size() != 2) r.fail(w, "expected [link_a, link_b]");
    LinkPair p{r.string(j[i][0], w + "[0]"), r.string(j[i][1], w + "[1]")};
    if (p.first.empty() || p.second.empty()) r.fail(w, "empty link name");
    if (p.first == p.second)
      r.fail(w, "pair (" + p.first + ", " + p.second + ") names one link twice");
    out.push_back(p);
  }
  return out;
}

bool same_pair(const LinkPair& a, const LinkPair& b) {
  return (a.first == b.first && a.second == b.second) ||
         (a.first == b.second && a.second == b.first);
}

void read_collision_pairs(const Reader& r, const json& j, Scene& s) {
  if (!j.is_object())
    r.fail("collision_pairs", "expected an object with \"disabled\" and \"enabled\"");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "disabled" && it.key() != "enabled")
      r.warnings->push_back(r.source + ": collision_pairs." + it.key() + ": unknown key ignored");
  CollisionPairEdits& e = s.collision_pairs;
  if (j.contains("disabled"))
    e.disabled = read_link_pairs(r, j["disabled"], "collision_pairs.disabled");
  if (j.contains("enabled"))
    e.enabled = read_link_pairs(r, j["enabled"], "collision_pairs.enabled");
  for (const LinkPair& d : e.disabled)
    for (const LinkPair& n : e.enabled)
      if (same_pair(d, n))
        r.fail("collision_pairs",
               "pair (" + d.first + ", " + d.second + ") is both disabled and enabled");
}

json link_pairs_json(const std::vector<LinkPair>& pairs) {
  json a = json::array();
  for (const LinkPair& p : pairs) a.push_back({p.first, p.second});
  return a;
}

// A scene's absolute file path (its robot, its SRDF: saving writes them absolute) that is gone,
// found again from the scene's folder: the path's last parts under the folder or one of its
// three nearest ancestors, the nearest folder and the longest part first (a project folder moved
// with its scenes: /old/proj/robots/r.urdf is /new/proj/robots/r.urdf for a scene in
// /new/proj/scenes). Unchanged, without a warning, when it exists or nothing matches.
std::string found_again(const Reader& r, const std::string& path, const std::string& base_dir,
                        const std::string& key) {
  std::error_code ec;
  const fs::path p(path);
  if (base_dir.empty() || !p.is_absolute() || fs::exists(p, ec)) return path;
  std::vector<fs::path> parts(p.begin(), p.end());
  fs::path folder = fs::absolute(base_dir, ec).lexically_normal();
  for (int up = 0; up < 4 && !folder.empty(); ++up, folder = folder.parent_path()) {
    for (std::size_t k = std::min<std::size_t>(4, parts.size() - 1); k >= 1; --k) {
      fs::path tail;
      for (std::size_t i = parts.size() - k; i < parts.size(); ++i) tail /= parts[i];
      const fs::path candidate = (folder / tail).lexically_normal();
      if (fs::is_regular_file(candidate, ec)) {
        r.warnings->push_back(r.source + ": " + key + ": " + path + " is not there; using " +
                              candidate.string() +
                              ", found from the scene's folder (was the folder moved?)");
        return candidate.string();
      }
    }
    if (folder == folder.root_path()) break;
  }
  return path;
}

// "obstacles", "srdf" and "collision_pairs" of a scene
void read_collision_keys(const Reader& r, const json& j, const std::string& base_dir, Scene& s) {
  if (j.contains("obstacles")) {
    const json& o = j["obstacles"];
    if (!o.is_array()) r.fail("obstacles", "expected an array");
    for (std::size_t i = 0; i < o.size(); ++i) {
      const std::string where = "obstacles[" + std::to_string(i) + "]";
      Obstacle ob = read_obstacle(r, o[i], where);
      // a name tells obstacles apart in the workbench, `ikwb check` and the residuals
      if (ob.name.empty()) ob.name = "obstacle " + std::to_string(i);
      for (std::size_t k = 0; k < s.obstacles.size(); ++k)
        if (s.obstacles[k].name == ob.name)
          r.warnings->push_back(r.source + ": " + where + ".name: '" + ob.name +
                                "' also names obstacles[" + std::to_string(k) +
                                "]; their distances cannot be told apart");
      s.obstacles.push_back(std::move(ob));
    }
  }
  if (j.contains("srdf")) {
    s.srdf = r.string(j["srdf"], "srdf");
    if (!s.srdf.empty() && !base_dir.empty() && fs::path(s.srdf).is_relative())
      s.srdf = (fs::path(base_dir) / s.srdf).lexically_normal().string();
    if (!s.srdf.empty()) s.srdf = found_again(r, s.srdf, base_dir, "srdf");
  }
  if (j.contains("collision_pairs")) read_collision_pairs(r, j["collision_pairs"], s);
}

void write_collision_keys(const Scene& s, json& j) {
  if (!s.obstacles.empty()) {
    json a = json::array();
    for (const Obstacle& o : s.obstacles) a.push_back(obstacle_json(o));
    j["obstacles"] = a;
  }
  if (!s.srdf.empty()) j["srdf"] = s.srdf;
  if (!s.collision_pairs.empty())
    j["collision_pairs"] = {{"disabled", link_pairs_json(s.collision_pairs.disabled)},
                            {"enabled", link_pairs_json(s.collision_pairs.enabled)}};
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& source_name,
                  const std::string& base_dir, bool forgiving_timeline) {
  json j;
  // a key given twice in one object: JSON keeps the last, and the first is lost without a word
  // unless it is named (the path of keys to it, arrays as "[]")
  std::vector<std::string> duplicates;
  struct Level {
    bool object = false;
    std::set<std::string> keys;
    std::string key;  // the object's key being read
  };
  std::vector<Level> levels;
  auto path_here = [&]() {  // the path of keys to where the parse is, arrays as "[]"
    std::string path;
    for (const Level& e : levels)
      path += e.object ? (path.empty() ? "" : ".") + e.key : std::string("[]");
    return path;
  };
  try {
    // deeper documents are refused while parsing: copying, comparing or writing a json value
    // recurses once per level and would overflow the stack
    j = json::parse(text, [&](int depth, json::parse_event_t event, json& parsed) {
      if (depth > kMaxSceneDepth)
        throw SceneError(source_name + ": not valid JSON (nested more than " +
                         std::to_string(kMaxSceneDepth) + " levels deep)");
      switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
          levels.push_back({event == json::parse_event_t::object_start, {}, {}});
          break;
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
          if (!levels.empty()) levels.pop_back();
          break;
        case json::parse_event_t::value:
          // a NUL inside a string ("\u0000") ended every message that quoted it there: a robot
          // name's error read "ikwb solve: 'pan", without the file
          if (parsed.is_string() &&
              parsed.get_ref<const std::string&>().find('\0') != std::string::npos) {
            const std::string path = path_here();
            throw SceneError(source_name + ": " + (path.empty() ? "top level" : path) +
                             ": a string holds a NUL character (\\u0000)");
          }
          break;
        case json::parse_event_t::key: {
          if (levels.empty() || !parsed.is_string()) break;
          if (parsed.get_ref<const std::string&>().find('\0') != std::string::npos)
            throw SceneError(source_name + ": a key holds a NUL character (\\u0000)");
          Level& l = levels.back();
          l.key = parsed.get<std::string>();
          if (l.keys.insert(l.key).second) break;
          duplicates.push_back(source_name + ": " + path_here() +
                               ": the key appears more than once; the last value is used");
          break;
        }
        default:
          break;
      }
      return true;
    });
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for numbers past the double range (1e400)
    throw SceneError(source_name + ": not valid JSON (" + e.what() + ")");
  }
  Scene s;
  s.warnings = duplicates;
  Reader r{source_name, &s.warnings};
  if (!j.is_object()) r.fail("top level", "expected a JSON object");
  if (j.contains("version")) {
    const json& v = j["version"];
    if (!v.is_number_integer()) r.fail("version", "expected an integer");
    // compared before narrowing to int: 4294967297 must not wrap around to 1
    if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(kSceneVersion)
                               : v.get<int64_t>() > kSceneVersion)
      r.fail("version", "written by a newer IK Workbench (version " + v.dump() +
                            ", this one reads up to " + std::to_string(kSceneVersion) + ")");
    if (v.get<int64_t>() < 1) r.fail("version", "unknown version " + v.dump());
    s.version = int(v.get<int64_t>());
  } else {
    s.warnings.push_back(source_name + ": no \"version\"; read as version 1");
  }
  static const char* const known[] = {
      "format",       "version",    "robot",     "floating_base", "package_paths",   "joint_q",
      "rest",         "objectives", "solver",    "camera",        "extra",           "joint_locks",
      "joint_limits", "timeline",   "obstacles", "srdf",          "collision_pairs", "xacro_args"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) s.warnings.push_back(source_name + ": " + it.key() + ": unknown key ignored");
  }
  if (!j.contains("robot")) r.fail("robot", "missing (a URDF path or a shipped robot's name)");
  s.robot = r.string(j["robot"], "robot");
  if (s.robot.empty()) r.fail("robot", "empty");
  // a robot file (a path, or a file name with a robot file's extension) is relative to the
  // scene's folder; a bare name is a shipped robot's
  auto ends_with = [&](const char* ext) {
    const std::size_t n = std::strlen(ext);
    return s.robot.size() > n && s.robot.compare(s.robot.size() - n, n, ext) == 0;
  };
  bool is_path = s.robot.find('/') != std::string::npos || ends_with(".urdf") ||
                 ends_with(".xacro") || ends_with(".xml");
  if (is_path && !base_dir.empty() && fs::path(s.robot).is_relative())
    s.robot = (fs::path(base_dir) / s.robot).lexically_normal().string();
  if (is_path) s.robot = found_again(r, s.robot, base_dir, "robot");
  if (j.contains("floating_base")) s.floating_base = r.boolean(j["floating_base"], "floating_base");
  if (j.contains("package_paths")) {
    const json& p = j["package_paths"];
    if (!p.is_array()) r.fail("package_paths", "expected an array of strings");
    for (std::size_t i = 0; i < p.size(); ++i)
      s.package_paths.push_back(r.string(p[i], "package_paths[" + std::to_string(i) + "]"));
  }
  if (j.contains("xacro_args")) {
    const json& a = j["xacro_args"];
    if (!a.is_array()) r.fail("xacro_args", "expected an array of \"NAME:=VALUE\" strings");
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string where = "xacro_args[" + std::to_string(i) + "]";
      std::string v = r.string(a[i], where);
      if (v.find(":=") == std::string::npos || v.find(":=") == 0)
        r.fail(where, "expected \"NAME:=VALUE\", got \"" + v + "\"");
      s.xacro_args.push_back(std::move(v));
    }
  }
  if (j.contains("joint_q")) s.joint_q = r.joint_map(j["joint_q"], "joint_q");
  if (j.contains("rest")) s.rest = r.joint_map(j["rest"], "rest");
  if (j.contains("joint_locks")) {
    const json& l = j["joint_locks"];
    if (!l.is_array()) r.fail("joint_locks", "expected an array of joint names");
    for (std::size_t i = 0; i < l.size(); ++i)
      s.joint_locks.push_back(r.string(l[i], "joint_locks[" + std::to_string(i) + "]"));
  }
  if (j.contains("joint_limits")) {
    const json& l = j["joint_limits"];
    if (!l.is_object())
      r.fail("joint_limits", "expected an object of joint name -> [lower, upper]");
    for (auto it = l.begin(); it != l.end(); ++it) {
      const std::string w = "joint_limits." + it.key();
      const json& v = it.value();
      if (!v.is_array() || v.size() != 2) r.fail(w, "expected [lower, upper] (numbers or null)");
      std::array<double, 2> b{v[0].is_null() ? -HUGE_VAL : r.number(v[0], w + "[0]"),
                              v[1].is_null() ? HUGE_VAL : r.number(v[1], w + "[1]")};
      for (int k = 0; k < 2; ++k)
        if (std::isfinite(b[k]) && std::fabs(b[k]) > kMaxLength)
          r.fail(w + "[" + std::to_string(k) + "]",
                 "magnitude above 1e6 (" + json(b[k]).dump() + "); null for no limit");
      if (b[0] > b[1]) r.fail(w, "lower is above upper");
      s.joint_limits[it.key()] = b;
    }
  }
  if (j.contains("objectives")) {
    const json& o = j["objectives"];
    if (!o.is_array()) r.fail("objectives", "expected an array");
    for (std::size_t i = 0; i < o.size(); ++i)
      s.objectives.push_back(read_objective(r, o[i], "objectives[" + std::to_string(i) + "]"));
  }
  read_collision_keys(r, j, base_dir, s);
  if (j.contains("solver")) {
    if (!j["solver"].is_object()) r.fail("solver", "expected an object");
    s.solver = j["solver"];
  }
  if (j.contains("camera")) {
    if (!j["camera"].is_object()) r.fail("camera", "expected an object");
    s.camera = j["camera"];
  }
  if (j.contains("extra")) {
    if (j["extra"].is_object())
      s.extra = j["extra"];
    else
      s.warnings.push_back(source_name + ": extra: expected an object; ignored");
  }
  if (j.contains("timeline")) {
    try {
      s.timeline = timeline_from_json(j["timeline"], source_name);
    } catch (const SceneError& e) {
      if (!forgiving_timeline) throw;
      s.warnings.push_back(std::string(e.what()) + "; the scene is read without its timeline");
    }
  }
  return s;
}

Scene load_scene(const std::string& path, bool forgiving_timeline) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw SceneError(path + ": is a directory, not a scene file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot open the file (" + std::strerror(errno) + ")");
  std::string text;
  if (!read_text_stream(in, text))
    throw SceneError(path + (in.bad() ? ": read error" : ": larger than 1 GiB, not a scene file"));
  fs::path dir = fs::absolute(fs::path(path)).parent_path();
  return parse_scene(text, path, dir.string(), forgiving_timeline);
}

SceneObjective parse_scene_objective(const json& objective, const std::string& where) {
  std::vector<std::string> warnings;
  return read_objective(Reader{"", &warnings}, objective, where);
}

json scene_objective_to_json(const SceneObjective& o) {
  const ObjectiveKind* kind = find_objective_kind(o.type);
  if (!kind)
    throw SceneError("scene: objective '" + o.name + "' has unknown type '" + o.type + "'");
  json oj;
  oj["type"] = o.type;
  if (!o.name.empty()) oj["name"] = o.name;
  if (kind->has(kFieldLink)) oj["link"] = o.link;
  if (kind->has(kFieldOffset)) oj["offset"] = vec_json(o.offset);
  if (kind->has(kFieldLinkB)) oj["link_b"] = o.link_b;
  if (kind->has(kFieldOffsetB)) oj["offset_b"] = vec_json(o.offset_b);
  if (kind->has(kFieldTargetLink) && !o.link_b.empty()) {
    oj["link_b"] = o.link_b;
    oj["offset_b"] = vec_json(o.offset_b);
  }
  if (kind->has(kFieldDistance)) oj["distance"] = o.distance;
  if (kind->has(kFieldAxis)) oj["axis"] = vec_json(o.axis);
  if (kind->has(kFieldDirection)) oj["direction"] = vec_json(o.direction);
  if (kind->has(kFieldCone)) oj["cone"] = o.cone;
  if (kind->has(kFieldContacts)) {
    json cs = json::array();
    for (const SceneContact& c : o.contacts) {
      json cj;
      cj["link"] = c.link;
      if (!c.points.empty()) {
        cj["points"] = json::array();
        for (const Vec3<double>& p : c.points) cj["points"].push_back(vec_json(p));
      }
      cs.push_back(cj);
    }
    oj["contacts"] = cs;
  }
  if (kind->has(kFieldMargin)) oj["margin"] = o.margin;
  if (kind->has(kFieldBox)) {
    oj["lower"] = bounds_json(o.lower);
    oj["upper"] = bounds_json(o.upper);
  }
  if (kind->has(kFieldMinMeasure)) oj["min_measure"] = o.min_measure;
  oj["weight"] = o.weight;
  if (kind->has(kFieldPositionWeights)) oj["position_weights"] = vec_json(o.position_weights);
  if (kind->has(kFieldRotationWeights)) oj["rotation_weights"] = vec_json(o.rotation_weights);
  oj["hard"] = o.hard;
  oj["enabled"] = o.enabled;
  if (kind->has(kFieldNullSpace)) oj["null_space"] = o.null_space;
  if (kind->has(kFieldTarget))
    oj["target"] = o.target_current ? json("current") : pose_json(o.target);
  if (kind->has(kFieldRelative))
    oj["relative"] = o.relative_current ? json("current") : pose_json(o.relative);
  return oj;
}

json scene_to_json(const Scene& s) {
  json j;
  j["format"] = "ikwb-scene";
  j["version"] = kSceneVersion;
  j["robot"] = s.robot;
  j["floating_base"] = s.floating_base;
  if (!s.package_paths.empty()) j["package_paths"] = s.package_paths;
  if (!s.xacro_args.empty()) j["xacro_args"] = s.xacro_args;
  j["joint_q"] = joint_map_json(s.joint_q);
  if (!s.rest.empty()) j["rest"] = joint_map_json(s.rest);
  if (!s.joint_locks.empty()) j["joint_locks"] = s.joint_locks;
  if (!s.joint_limits.empty()) {
    json l = json::object();
    for (const auto& [name, b] : s.joint_limits) l[name] = {bound_json(b[0]), bound_json(b[1])};
    j["joint_limits"] = l;
  }
  json objs = json::array();
  for (const auto& o : s.objectives) objs.push_back(scene_objective_to_json(o));
  j["objectives"] = objs;
  write_collision_keys(s, j);
  j["solver"] = s.solver;
  j["camera"] = s.camera;
  if (!s.extra.empty()) j["extra"] = s.extra;
  if (!s.timeline.keys.empty()) j["timeline"] = timeline_to_json(s.timeline);
  return j;
}

namespace {

// write(2) all of text to fd; false (errno set) when a write fails
bool write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= std::size_t(n);
  }
  return true;
}

}  // namespace

void write_file_atomic(const std::string& given, const std::string& text) {
  if (given.empty()) throw SceneError("the output path is empty");
  const OutputTarget out = output_target(given);
  const std::string& path = out.path;
  if (out.in_place) {
    // a device, pipe or socket (or a link to nothing yet): no temporary file to rename over it
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw SceneError(given + ": cannot open (" + std::strerror(errno) + ")");
    const bool written = write_all(fd, text);
    const int err = errno;
    if (close(fd) != 0 || !written)
      throw SceneError(given + ": write failed (" + std::strerror(written ? errno : err) + ")");
    return;
  }
  if (const std::string refusal = replace_refusal(path); !refusal.empty())
    throw SceneError(given + ": " + refusal);
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0)
    throw SceneError(path + ": cannot create a temporary file in " + dir.string() + " (" +
                     std::strerror(errno) + ")");
  auto fail = [&](const std::string& what) {
    int err = errno;
    close(fd);
    std::remove(name.data());
    throw SceneError(path + ": " + what + " (" + std::strerror(err) + "); the old file is intact");
  };
  if (!write_all(fd, text)) fail("write failed");
  if (fsync(fd) != 0) fail("flush to disk failed");
  fchmod(fd, mode_t(replacement_mode(path)));
  if (close(fd) != 0) {
    std::remove(name.data());
    throw SceneError(path + ": close failed; the old file is intact");
  }
  if (std::rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    std::remove(name.data());
    throw SceneError(path + ": cannot replace the file (" + std::strerror(err) +
                     "); the old file is intact");
  }
}

void save_scene(const std::string& path, const Scene& scene) {
  std::string text;
  try {
    text = scene_to_json(scene).dump(2) + "\n";
  } catch (const json::exception& e) {
    // strings that are not UTF-8 (a Latin-1 file name) cannot be written as JSON
    throw SceneError(path + ": cannot be written (" + e.what() + "); the old file is intact");
  }
  write_file_atomic(path, text);
}

}  // namespace ikwb
