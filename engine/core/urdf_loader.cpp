// URDF -> Model in three steps:
//   1. pre-scan the XML with tinyxml2: every check urdfdom skips or reports only through
//      console_bridge (bad numbers, tree shape, limits, mimic sources), with line numbers.
//      Recoverable defects are removed from the document (urdfdom gives up on the rest of a
//      link at its first bad visual) and become warnings;
//   2. parse the cleaned document with urdfdom, capturing its console_bridge messages;
//   3. build the Model breadth-first from the root link, resolve and load meshes.
#include "engine/core/urdf_loader.hpp"

#include <console_bridge/console.h>
#include <pthread.h>
#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "engine/core/mesh_loader.hpp"
#include "engine/core/resource_path.hpp"
#include "engine/core/text_file.hpp"

namespace ikwb {

namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLAttribute;
using tinyxml2::XMLElement;

// [SECTION] messages

struct Messages {
  std::string file;
  std::vector<std::string> warnings;
  bool strict = false;  // repairs are errors

  std::string where(int line) const { return line > 0 ? file + ":" + std::to_string(line) : file; }
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw ModelError(where(line) + ": " + what);
  }
  void warn(int line, const std::string& what) { warnings.push_back(where(line) + ": " + what); }
  // a common fault that other tools accept, repaired as they do: a warning naming the repair,
  // or an error with --strict
  void repair(int line, const std::string& fault, const std::string& repair) {
    if (strict) fail(line, fault + " (--strict: not repaired)");
    warn(line, fault + ": " + repair);
  }
};

std::string in_quotes(const std::string& s) {
  return "'" + s + "'";
}

// an axis shorter than this is no axis (the model's own bound); one whose length is further
// than kUnitAxisTolerance from 1 is not a unit vector rounded (0.7071 0.7071 0 is one)
constexpr double kZeroAxis = 1e-9;
constexpr double kUnitAxisTolerance = 1e-3;

// how to load a file that still needs xacro
constexpr const char* kRunXacro =
    "expand the file with `xacro FILE > FILE.urdf` and open that, or open it under a .xacro "
    "name, which ikwb expands with xacro";

// [SECTION] numbers

// one finite number, the whole token (locale independent)
bool parse_number(const std::string& tok, double* out) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b != e && *b == '+') ++b;
  double v = 0;
  auto r = std::from_chars(b, e, v);
  if (r.ec != std::errc() || r.ptr != e || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// what an element looks like in messages: <origin xyz="0 abc 0">
std::string describe(const XMLElement* e, const char* attr) {
  const char* v = e->Attribute(attr);
  return "<" + std::string(e->Name()) + " " + attr + "=\"" + (v ? v : "") + "\">";
}

// Reads attribute `attr` of e as exactly n finite numbers into out. Returns false when the
// attribute is absent (out untouched); throws when it is present but malformed or when a value
// is larger in magnitude than max_abs.
bool read_numbers(Messages& msg, XMLElement* e, const char* attr, int n, double* out,
                  const std::string& context, double max_abs = HUGE_VAL) {
  const char* text = e->Attribute(attr);
  if (!text) return false;
  std::string spaced = text;
  const bool commas = spaced.find(',') != std::string::npos;
  // tabs and line breaks are spaces in an attribute (XML's attribute-value normalisation);
  // urdfdom splits on spaces only, so the attribute is written back with spaces
  const bool breaks = spaced.find_first_of("\t\r\n") != std::string::npos;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  for (char& ch : spaced)
    if (ch == '\t' || ch == '\r' || ch == '\n') ch = ' ';
  std::istringstream ss(spaced);
  std::vector<double> vals;
  std::string tok;
  while (ss >> tok) {
    double v;
    if (!parse_number(tok, &v)) {
      const bool xacro = spaced.find("${") != std::string::npos;
      msg.fail(e->GetLineNum(), context + describe(e, attr) + ": " + in_quotes(tok) +
                                    " is not a finite number" +
                                    (xacro ? std::string(" (it looks like an unexpanded xacro "
                                                         "expression: ") +
                                                 kRunXacro + ")"
                                           : ""));
    }
    if (std::fabs(v) > max_abs) {
      msg.fail(e->GetLineNum(), context + describe(e, attr) + ": " + in_quotes(tok) +
                                    " is out of range (magnitude above 1e6)");
    }
    vals.push_back(v);
  }
  // origins written with a fourth number (a quaternion's w, or a typo); with commas, more
  // numbers than expected are decimal commas (0,25 for 0.25), never repaired
  const bool extra =
      n == 3 && int(vals.size()) > n && e->Name() == std::string("origin") && !commas;
  if (int(vals.size()) != n && !extra) {
    msg.fail(e->GetLineNum(), context + describe(e, attr) + ": expected " + std::to_string(n) +
                                  (n == 1 ? " number" : " numbers") + ", found " +
                                  std::to_string(vals.size()) +
                                  (commas ? " (decimal commas? numbers take a point, 0.25, and "
                                            "are separated by spaces)"
                                          : ""));
  }
  if (commas || extra) {
    const std::string fault =
        context + describe(e, attr) + ": " +
        (extra ? std::to_string(vals.size()) + " numbers" : std::string("commas between numbers"));
    msg.repair(e->GetLineNum(), fault, extra ? "the first three used" : "read as spaces");
    vals.resize(n);
  }
  if (commas || extra || breaks) {
    std::ostringstream fixed;
    fixed.precision(17);
    for (int i = 0; i < n; ++i) fixed << (i ? " " : "") << vals[i];
    e->SetAttribute(attr, fixed.str().c_str());
  }
  std::copy(vals.begin(), vals.end(), out);
  return true;
}

void check_numbers(Messages& msg, XMLElement* e, std::initializer_list<const char*> attrs,
                   const std::string& context) {
  for (const char* a : attrs) {
    double v;
    read_numbers(msg, e, a, 1, &v, context);
  }
}

// [SECTION] xacro leftovers

// Fails at the first element in the xacro namespace (<xacro:include>, <xacro:macro>, a macro
// call, <xacro:if>, ...) below `e`: urdfdom skips them silently and would load what is left.
// <xacro:arg> stays (repair_text reads its default).
void reject_xacro_elements(Messages& msg, const XMLElement* e,
                           const std::set<std::string>& prefixes) {
  const std::string name = e->Name();
  const std::size_t colon = name.find(':');
  if (colon != std::string::npos && prefixes.count(name.substr(0, colon)) &&
      name.compare(colon + 1, std::string::npos, "arg") != 0)
    msg.fail(e->GetLineNum(), "<" + name + ">: an unexpanded xacro file (the robot would be " +
                                  "what is left without its xacro elements): " + kRunXacro);
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement())
    reject_xacro_elements(msg, c, prefixes);
}

// the xacro namespace's prefixes: "xacro" and any other the <robot> element binds to it
std::set<std::string> xacro_prefixes(const XMLElement* robot) {
  std::set<std::string> prefixes = {"xacro"};
  for (const tinyxml2::XMLAttribute* a = robot->FirstAttribute(); a; a = a->Next()) {
    const std::string name = a->Name();
    if (name.rfind("xmlns:", 0) == 0 &&
        std::string(a->Value()).find("wiki/xacro") != std::string::npos)
      prefixes.insert(name.substr(6));
  }
  return prefixes;
}

// [SECTION] pre-scan

struct XmlGeometry {
  int line = 0;
  bool dropped = false;  // removed from the document with a warning
  // visuals only: the <material> name and its inline <color>, if any
  std::string material_name;
  bool has_inline_color = false;
  std::array<float, 4> inline_rgba = {0, 0, 0, 1};
};

struct XmlLink {
  std::string name;
  int line = 0;
  std::vector<XmlGeometry> visuals, collisions;  // the ones kept, in document order
  int parent_joint = -1;                         // index into Prescan::joints
};

struct XmlJoint {
  std::string name, type, parent, child, mimic;
  int line = 0;
  bool unlimited = false;  // inverted limits read as "no limits"
};

struct XmlMaterial {
  int line = 0;
  bool has_color = false, has_texture = false;
  std::array<float, 4> rgba = {0, 0, 0, 1};
};

struct Prescan {
  std::string robot_name;
  std::vector<XmlLink> links;
  std::map<std::string, int> link_index;
  std::vector<XmlJoint> joints;
  std::map<std::string, int> joint_index;
  std::map<std::string, XmlMaterial> materials;               // robot level
  std::map<std::string, std::array<float, 4>> inline_colors;  // first inline definition
  int depth = 0;            // joints from the root link to the deepest link (check_tree)
  std::string after_robot;  // the first element after </robot>, ignored ("" none)
};

void check_origin(Messages& msg, XMLElement* parent, const std::string& context) {
  XMLElement* o = parent->FirstChildElement("origin");
  if (!o) return;
  double v[3];
  read_numbers(msg, o, "xyz", 3, v, context, kMaxLength);
  read_numbers(msg, o, "rpy", 3, v, context);
}

// <color rgba> of a material element: numbers must parse; out-of-range values are clamped
// (in the document too, as urdfdom rejects them)
bool read_color(Messages& msg, XMLElement* mat, const std::string& context,
                std::array<float, 4>* rgba) {
  XMLElement* c = mat->FirstChildElement("color");
  if (!c) return false;
  double v[4];
  if (!read_numbers(msg, c, "rgba", 4, v, context)) {
    msg.warn(c->GetLineNum(), context + "<color> has no rgba attribute; ignored");
    return false;
  }
  bool clamped = false;
  for (int k = 0; k < 4; ++k) {
    double x = std::min(1.0, std::max(0.0, v[k]));
    clamped |= x != v[k];
    (*rgba)[k] = float(x);
  }
  if (clamped) {
    msg.warn(c->GetLineNum(),
             context + describe(c, "rgba") + ": components must lie in [0, 1]; clamped");
    std::string fixed;
    for (int k = 0; k < 4; ++k) fixed += (k ? " " : "") + std::to_string((*rgba)[k]);
    c->SetAttribute("rgba", fixed.c_str());
  }
  return true;
}

// validates one <visual> or <collision>; a recoverable defect drops it with a warning
XmlGeometry scan_geometry(Messages& msg, Prescan& ps, XMLElement* e, const std::string& link_name,
                          bool visual) {
  XmlGeometry g;
  g.line = e->GetLineNum();
  std::string context = "link " + in_quotes(link_name) + ": ";
  std::string kind = visual ? "visual" : "collision";
  check_origin(msg, e, context);
  auto drop = [&](int line, const std::string& why) {
    msg.warn(line, context + kind + " dropped: " + why);
    g.dropped = true;
  };
  XMLElement* geom = e->FirstChildElement("geometry");
  XMLElement* shape = geom ? geom->FirstChildElement() : nullptr;
  if (!geom) {
    drop(g.line, "no <geometry>");
  } else if (!shape) {
    drop(geom->GetLineNum(), "<geometry> has no shape");
  } else {
    std::string type = shape->Name();
    int sl = shape->GetLineNum();
    double v[3];
    // a size below zero (a sign lost in editing) is no shape: dropped, not taken as its magnitude
    auto negative = [&](const char* attr, int n) {
      for (int k = 0; k < n; ++k)
        if (v[k] < 0) {
          drop(sl, "<" + type + "> " + attr + " " + in_quotes(shape->Attribute(attr)) +
                       (n == 1 ? " is negative" : " has a negative value"));
          return true;
        }
      return false;
    };
    if (type == "box") {
      if (!read_numbers(msg, shape, "size", 3, v, context, kMaxLength))
        drop(sl, "<box> has no size");
      else
        negative("size", 3);
    } else if (type == "sphere") {
      if (!read_numbers(msg, shape, "radius", 1, v, context, kMaxLength))
        drop(sl, "<sphere> has no radius");
      else
        negative("radius", 1);
    } else if (type == "cylinder") {
      bool r =
          read_numbers(msg, shape, "radius", 1, v, context, kMaxLength) && !negative("radius", 1);
      bool l =
          read_numbers(msg, shape, "length", 1, v, context, kMaxLength) && !negative("length", 1);
      if ((!r || !l) && !g.dropped) drop(sl, "<cylinder> needs both radius and length");
    } else if (type == "mesh") {
      const char* fn = shape->Attribute("filename");
      if (!fn || !*fn) drop(sl, "<mesh> has no filename");
      // a zero scale flattens the mesh to nothing (a plane or a point): no shape to draw or
      // collide with
      if (read_numbers(msg, shape, "scale", 3, v, context, kMaxLength) && !g.dropped &&
          (v[0] == 0 || v[1] == 0 || v[2] == 0))
        drop(sl, "<mesh> scale " + in_quotes(shape->Attribute("scale")) +
                     " has a zero component (the mesh would be flat)");
    } else {
      drop(sl, "unknown shape <" + type + ">");
    }
  }
  if (!visual) return g;
  XMLElement* mat = e->FirstChildElement("material");
  if (!mat) return g;
  const char* name = mat->Attribute("name");
  if (!name) {
    if (!g.dropped) drop(mat->GetLineNum(), "<material> has no name attribute");
    return g;
  }
  g.material_name = name;
  std::array<float, 4> rgba;
  if (read_color(msg, mat, context, &rgba)) {
    g.has_inline_color = true;
    g.inline_rgba = rgba;
    // urdfdom lets later visuals refer to an inline material by name
    if (!g.dropped && !g.material_name.empty()) ps.inline_colors.emplace(g.material_name, rgba);
  }
  return g;
}

// A second child element of a kind the element takes once (urdfdom reads the first, silently),
// each a repair; `context` ("joint 'j': ") names the element
void repeated_children(Messages& msg, const XMLElement* e, const std::string& context,
                       std::initializer_list<const char*> once) {
  for (const char* kind : once) {
    const XMLElement* first = e->FirstChildElement(kind);
    for (const XMLElement* more = first ? first->NextSiblingElement(kind) : nullptr; more;
         more = more->NextSiblingElement(kind))
      msg.repair(more->GetLineNum(),
                 context + "a second <" + kind + "> (the first on line " +
                     std::to_string(first->GetLineNum()) + ")",
                 "ignored; the first is used");
  }
}

void scan_link(Messages& msg, Prescan& ps, XMLElement* e) {
  XmlLink link;
  link.line = e->GetLineNum();
  const char* name = e->Attribute("name");
  if (!name || !*name) msg.fail(link.line, "<link> without a name");
  link.name = name;
  auto [it, fresh] = ps.link_index.emplace(link.name, int(ps.links.size()));
  if (!fresh) {
    msg.fail(link.line, "duplicate link name " + in_quotes(link.name) + " (first defined on line " +
                            std::to_string(ps.links[it->second].line) + ")");
  }
  std::string context = "link " + in_quotes(link.name) + ": ";
  repeated_children(msg, e, context, {"inertial"});
  for (const XMLElement* inner = e->FirstChildElement("link"); inner;
       inner = inner->NextSiblingElement("link"))
    msg.repair(inner->GetLineNum(), context + "a <link> inside it (links are children of <robot>)",
               "ignored");
  if (XMLElement* in = e->FirstChildElement("inertial")) {
    check_origin(msg, in, context);
    XMLElement* mass = in->FirstChildElement("mass");
    double m = 0;
    if (!mass || !read_numbers(msg, mass, "value", 1, &m, context))
      msg.fail(in->GetLineNum(), context + "<inertial> has no <mass value=...>");
    if (m < 0) msg.fail(mass->GetLineNum(), context + "negative mass " + mass->Attribute("value"));
    XMLElement* inertia = in->FirstChildElement("inertia");
    if (!inertia) msg.fail(in->GetLineNum(), context + "<inertial> has no <inertia>");
    for (const char* a : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}) {
      double v;
      if (!read_numbers(msg, inertia, a, 1, &v, context))
        msg.fail(inertia->GetLineNum(), context + "<inertia> has no " + a + " attribute");
    }
  }
  std::vector<XMLElement*> dropped;
  for (const char* kind : {"visual", "collision"}) {
    bool visual = std::string(kind) == "visual";
    for (XMLElement* v = e->FirstChildElement(kind); v; v = v->NextSiblingElement(kind)) {
      XmlGeometry g = scan_geometry(msg, ps, v, link.name, visual);
      if (g.dropped)
        dropped.push_back(v);
      else
        (visual ? link.visuals : link.collisions).push_back(g);
    }
  }
  for (XMLElement* d : dropped) e->DeleteChild(d);
  ps.links.push_back(std::move(link));
}

// returns false when the material is useless and should leave the document
bool scan_material(Messages& msg, Prescan& ps, XMLElement* e) {
  const char* name = e->Attribute("name");
  if (!name || !*name) msg.fail(e->GetLineNum(), "<material> without a name");
  std::string context = "material " + in_quotes(name) + ": ";
  XmlMaterial m;
  m.line = e->GetLineNum();
  m.has_color = read_color(msg, e, context, &m.rgba);
  const XMLElement* t = e->FirstChildElement("texture");
  m.has_texture = t && t->Attribute("filename");
  auto [it, fresh] = ps.materials.emplace(name, m);
  if (!fresh) {
    msg.fail(m.line, "duplicate material name " + in_quotes(name) + " (first defined on line " +
                         std::to_string(it->second.line) + ")");
  }
  if (!m.has_color && !m.has_texture) {
    msg.warn(m.line, context + "has neither <color rgba> nor <texture filename>; ignored");
    return false;
  }
  return true;
}

// joint checks that need only the joint element (links are checked after all are known)
void scan_joint(Messages& msg, Prescan& ps, XMLElement* e) {
  XmlJoint j;
  j.line = e->GetLineNum();
  const char* name = e->Attribute("name");
  if (!name || !*name) msg.fail(j.line, "<joint> without a name");
  j.name = name;
  auto [it, fresh] = ps.joint_index.emplace(j.name, int(ps.joints.size()));
  if (!fresh) {
    msg.fail(j.line, "duplicate joint name " + in_quotes(j.name) + " (first defined on line " +
                         std::to_string(ps.joints[it->second].line) + ")");
  }
  std::string context = "joint " + in_quotes(j.name) + ": ";
  repeated_children(msg, e, context,
                    {"origin", "parent", "child", "axis", "limit", "mimic", "dynamics",
                     "calibration", "safety_controller"});
  const char* type = e->Attribute("type");
  if (!type) msg.fail(j.line, context + "no type attribute");
  j.type = type;
  if (j.type == "spherical") {
    // pybullet's extension: a ball joint; urdfdom reads it as floating, mapped back in step 3
    msg.warn(j.line, context +
                         "spherical joint (pybullet's URDF extension) loaded as a ball "
                         "joint; its <limit>, if any, is ignored");
    e->SetAttribute("type", "floating");
  }
  static const std::set<std::string> known = {"fixed",    "revolute", "continuous", "prismatic",
                                              "floating", "planar",   "spherical"};
  if (!known.count(j.type)) {
    msg.fail(
        j.line,
        context + "unknown joint type " + in_quotes(j.type) +
            " (expected fixed, revolute, continuous, prismatic, floating, planar or spherical)");
  }
  for (const char* role : {"parent", "child"}) {
    const XMLElement* r = e->FirstChildElement(role);
    const char* link = r ? r->Attribute("link") : nullptr;
    if (!link || !*link) msg.fail(j.line, context + "no <" + role + " link=...>");
    (std::string(role) == "parent" ? j.parent : j.child) = link;
  }
  if (j.parent == j.child)
    msg.fail(j.line, context + "connects link " + in_quotes(j.child) + " to itself");
  check_origin(msg, e, context);

  bool one_dof = j.type == "revolute" || j.type == "continuous" || j.type == "prismatic";
  if (XMLElement* axis = e->FirstChildElement("axis")) {
    double a[3];
    // (a planar joint's axis is its plane's normal)
    if (read_numbers(msg, axis, "xyz", 3, a, context) && (one_dof || j.type == "planar")) {
      const double n = std::hypot(a[0], a[1], a[2]);  // (1e200 1e200 0 is not inf long)
      // (the bound the model's own check has)
      if (n < kZeroAxis)
        msg.fail(axis->GetLineNum(), context + "zero axis " + describe(axis, "xyz"));
      // the URDF says it should be a unit vector; one off by more than rounding is normalised,
      // as ROS's tools do, and said (a prismatic axis "0 0 3" moves 1 m per unit of q, not 3 m)
      if (std::fabs(n - 1) > kUnitAxisTolerance) {
        char length[32];
        std::snprintf(length, sizeof length, "%.6g", n);
        msg.repair(
            axis->GetLineNum(),
            context + describe(axis, "xyz") + " is not a unit vector (length " + length + ")",
            std::string("normalised, as Pinocchio and KDL read it") +
                (j.type == "planar"      ? " (the plane's normal)"
                 : j.type == "prismatic" ? ": q is metres along the unit axis"
                                         : ": q is radians about the unit axis"));
      }
    }
  }
  XMLElement* limit = e->FirstChildElement("limit");
  bool needs_limit = j.type == "revolute" || j.type == "prismatic";
  if (needs_limit && !limit) {
    msg.fail(j.line, context + j.type +
                         " joint without <limit> (give lower, upper, effort and velocity" +
                         (j.type == "revolute" ? ", or use a continuous joint)" : ")"));
  }
  if (limit) {
    check_numbers(msg, limit, {"lower", "upper", "effort", "velocity"}, context);
    if (!limit->Attribute("effort") || !limit->Attribute("velocity")) {
      msg.fail(limit->GetLineNum(),
               context + "<limit> needs effort and velocity attributes (URDF requires them)");
    }
    double lo = 0, hi = 0;
    read_numbers(msg, limit, "lower", 1, &lo, context);
    read_numbers(msg, limit, "upper", 1, &hi, context);
    if (needs_limit && lo > hi) {
      // an absent bound is 0 (URDF's default)
      auto shown = [&](const char* a) {
        const char* v = limit->Attribute(a);
        return v ? std::string(v) : std::string("0 (default)");
      };
      msg.repair(
          limit->GetLineNum(),
          context + "inverted limits: lower " + shown("lower") + " > upper " + shown("upper"),
          "the joint is unlimited (as pybullet reads it)");
      j.unlimited = true;
    }
    // URDF's default of 0 for an absent bound, as urdfdom reads it, with a warning where it
    // leaves the joint no range: such a joint is locked, and only a clamped edit said so
    if (needs_limit && lo == hi && (!limit->Attribute("lower") || !limit->Attribute("upper")))
      msg.warn(limit->GetLineNum(),
               context + "<limit> without " +
                   (limit->Attribute("lower")   ? "upper"
                    : limit->Attribute("upper") ? "lower"
                                                : "lower and upper") +
                   ": an absent bound is 0 (URDF's default), so the joint's range is [0, 0] "
                   "and it cannot move");
  }
  if (XMLElement* mimic = e->FirstChildElement("mimic")) {
    const char* src = mimic->Attribute("joint");
    if (!src || !*src) msg.fail(mimic->GetLineNum(), context + "<mimic> has no joint attribute");
    j.mimic = src;
    if (j.mimic == j.name) msg.fail(mimic->GetLineNum(), context + "mimics itself");
    check_numbers(msg, mimic, {"multiplier", "offset"}, context);
  }
  if (XMLElement* d = e->FirstChildElement("dynamics"))
    check_numbers(msg, d, {"damping", "friction"}, context);
  if (XMLElement* s = e->FirstChildElement("safety_controller"))
    check_numbers(msg, s, {"soft_lower_limit", "soft_upper_limit", "k_position", "k_velocity"},
                  context);
  if (XMLElement* c = e->FirstChildElement("calibration"))
    check_numbers(msg, c, {"rising", "falling", "reference_position"}, context);
  ps.joints.push_back(std::move(j));
}

// --floating-base puts a free joint above the root link: refused where a floating joint below
// the root already lets the robot float (it would float twice over, 12 dofs for 6), and a
// warning for a root link named world (ROS's fixed world frame, which would float with the robot)
void check_floating_root(Messages& msg, const Prescan& ps, int root) {
  const XmlLink& r = ps.links[std::size_t(root)];
  for (const XmlJoint& j : ps.joints)
    if (j.parent == r.name && j.type == "floating")
      msg.fail(j.line, "--floating-base: joint " + in_quotes(j.name) + " (floating) already lets " +
                           in_quotes(j.child) + " float from the root link " + in_quotes(r.name) +
                           ": the robot floats without --floating-base");
  if (r.name == "world")
    msg.warn(r.line,
             "--floating-base: the root link 'world' floats, and everything below it (a "
             "root link named world is usually the fixed world frame; without "
             "--floating-base the robot is fixed to it)");
}

// whole-document checks: references, tree shape; returns the root link index
// urdfdom's parser and its model's destructor recurse once per link of a chain, about 62 bytes
// of stack a link: a chain of 135,000 ran the 8 MB of the main thread out, and the program with
// it. Runs fn on a thread whose stack fits a tree `depth` joints deep (directly for a shallow
// one); its exception is rethrown here. False when such a thread could not start.
constexpr int kDeepTree = 20000;
bool on_deep_stack(int depth, const std::function<void()>& fn) {
  if (depth <= kDeepTree) {
    fn();
    return true;
  }
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t(depth) * 256 + (std::size_t(8) << 20));
  pthread_t thread;
  const int failed = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        Job& j = *static_cast<Job*>(p);
        try {
          (*j.fn)();
        } catch (...) {
          j.error = std::current_exception();
        }
        return nullptr;
      },
      &job);
  pthread_attr_destroy(&attr);
  if (failed) return false;
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
  return true;
}

// urdfdom's model of a tree `depth` joints deep, parsed and released on a stack that fits it
class UrdfTree {
 public:
  UrdfTree(const char* xml, int depth) : depth_(depth) {
    if (!on_deep_stack(depth, [&] { model_ = urdf::parseURDF(xml); }))
      throw std::runtime_error("a tree " + std::to_string(depth) +
                               " joints deep needs a thread with a larger stack to parse, and "
                               "none could start");
  }
  ~UrdfTree() {
    // with no thread to release it on, the model is left (a leak, not a crash)
    if (!on_deep_stack(depth_, [&] { model_.reset(); }))
      new urdf::ModelInterfaceSharedPtr(std::move(model_));
  }
  UrdfTree(const UrdfTree&) = delete;
  UrdfTree& operator=(const UrdfTree&) = delete;
  explicit operator bool() const { return bool(model_); }
  const urdf::ModelInterface* operator->() const { return model_.get(); }

 private:
  int depth_;
  urdf::ModelInterfaceSharedPtr model_;
};

int check_tree(Messages& msg, Prescan& ps) {
  for (int ji = 0; ji < int(ps.joints.size()); ++ji) {
    XmlJoint& j = ps.joints[ji];
    std::string context = "joint " + in_quotes(j.name) + ": ";
    for (const std::string* l : {&j.parent, &j.child}) {
      if (!ps.link_index.count(*l))
        msg.fail(j.line, context + (l == &j.parent ? "parent" : "child") + " link " +
                             in_quotes(*l) + " is not defined");
    }
    if (!j.mimic.empty() && !ps.joint_index.count(j.mimic)) {
      // as parsers that ignore <mimic> read it (Pinocchio's default): the joint moves on its own
      const std::string fault =
          context + "mimics joint " + in_quotes(j.mimic) + ", which is not defined";
      if (msg.strict) msg.fail(j.line, fault + " (--strict: not repaired)");
      msg.warn(j.line, fault + "; the <mimic> is ignored");
      j.mimic.clear();
    }
    XmlLink& child = ps.links[ps.link_index[j.child]];
    if (child.parent_joint >= 0) {
      const XmlJoint& other = ps.joints[child.parent_joint];
      msg.fail(j.line, "link " + in_quotes(child.name) + " is the child of two joints, " +
                           in_quotes(other.name) + " (line " + std::to_string(other.line) +
                           ") and " + in_quotes(j.name) + " (line " + std::to_string(j.line) + ")");
    }
    child.parent_joint = ji;
  }
  std::vector<int> roots;
  for (int l = 0; l < int(ps.links.size()); ++l)
    if (ps.links[l].parent_joint < 0) roots.push_back(l);
  if (roots.empty()) {
    msg.fail(0, "no root link: every link is the child of a joint, so the joints form a cycle");
  }
  if (roots.size() > 1) {
    std::string names;
    for (int r : roots) names += (names.empty() ? "" : ", ") + in_quotes(ps.links[r].name);
    msg.fail(0, "several root links (" + names +
                    "): a URDF must be one tree; connect them with joints" +
                    (ps.after_robot.empty() ? "" : " (" + ps.after_robot + " is ignored)"));
  }
  // links not below the root sit on a cycle (each link has at most one parent); reached: the
  // link's depth + 1
  std::vector<int> reached(ps.links.size(), 0);
  std::map<std::string, std::vector<int>> children;
  for (int ji = 0; ji < int(ps.joints.size()); ++ji)
    children[ps.joints[ji].parent].push_back(ps.link_index[ps.joints[ji].child]);
  std::deque<int> queue = {roots[0]};
  reached[roots[0]] = 1;
  while (!queue.empty()) {
    int l = queue.front();
    queue.pop_front();
    for (int c : children[ps.links[l].name])
      if (!reached[c]) reached[c] = reached[l] + 1, queue.push_back(c);
  }
  ps.depth = *std::max_element(reached.begin(), reached.end()) - 1;
  std::string cyc;
  for (int l = 0; l < int(ps.links.size()); ++l)
    if (!reached[l]) cyc += (cyc.empty() ? "" : ", ") + in_quotes(ps.links[l].name);
  if (!cyc.empty()) {
    msg.fail(0, "the joints form a cycle through links " + cyc +
                    " (not connected to the root link " + in_quotes(ps.links[roots[0]].name) + ")");
  }
  return roots[0];
}

// [SECTION] urdfdom with console_bridge captured

class ConsoleCapture : public console_bridge::OutputHandler {
 public:
  ConsoleCapture() : lock_(mutex()), level_(console_bridge::getLogLevel()) {
    console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_WARN);
    console_bridge::useOutputHandler(this);
  }
  ~ConsoleCapture() override {
    console_bridge::restorePreviousOutputHandler();
    console_bridge::setLogLevel(level_);
  }
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) messages.push_back(text);
  }
  std::string joined() const {
    std::string out;
    for (const auto& m : messages) out += (out.empty() ? "" : "; ") + m;
    return out;
  }
  std::vector<std::string> messages;

 private:
  // console_bridge's handler is process-wide
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> lock_;
  console_bridge::LogLevel level_;
};

// [SECTION] building the model

Transform<double> to_transform(const urdf::Pose& p) {
  return {{p.position.x, p.position.y, p.position.z},
          normalize(Quat<double>{p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w})};
}

// inertia about the COM in the body frame: R I R^T, R the inertial frame's rotation
std::array<double, 9> body_inertia(const urdf::Inertial& in) {
  double i[9] = {in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz};
  double r[9];
  quat_to_matrix(to_transform(in.origin).q, r);
  std::array<double, 9> out{};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double s = 0;
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) s += r[a * 3 + k] * i[k * 3 + l] * r[b * 3 + l];
      out[a * 3 + b] = s;
    }
  return out;
}

struct Loader {
  Messages& msg;
  const Prescan& ps;
  const UrdfOptions& opt;
  std::string base_dir;
  std::map<std::string, std::string> failed_meshes;       // uri -> resolved path; warned once
  std::set<std::string> huge_warned;                      // mesh URIs warned about for their size
  std::map<std::string, MissingMeshFiles> missing_files;  // mesh path -> files it lacks
  std::set<std::string> missing_warned;  // mesh paths warned about for the files they lack
  // meshes not found after the first of their package or folder (whose warning says where it
  // was searched), by package or folder ("of package 'NAME'", "in 'FOLDER'"): one line for
  // each at the end, not one per mesh (a robot from a missing workspace has dozens)
  std::vector<std::pair<std::string, std::vector<std::string>>> unfound;

  // read_mesh: read a mesh file (else only resolve its path)
  Geometry geometry(const urdf::GeometrySharedPtr& src, const urdf::Pose& origin,
                    const std::string& owner, int line, bool read_mesh) {
    Geometry g;
    g.origin = to_transform(origin);
    switch (src->type) {
      case urdf::Geometry::BOX: {
        const auto& b = static_cast<const urdf::Box&>(*src);
        g.type = GeometryType::kBox;
        g.size = {b.dim.x, b.dim.y, b.dim.z};
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& c = static_cast<const urdf::Cylinder&>(*src);
        g.type = GeometryType::kCylinder;
        g.size = {c.radius, c.length, 0};
        break;
      }
      case urdf::Geometry::SPHERE: {
        g.type = GeometryType::kSphere;
        g.size = {static_cast<const urdf::Sphere&>(*src).radius, 0, 0};
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& m = static_cast<const urdf::Mesh&>(*src);
        g.type = GeometryType::kMesh;
        g.mesh_uri = m.filename;
        g.mesh_scale = {m.scale.x, m.scale.y, m.scale.z};
        load_mesh_into(g, owner, line, read_mesh);
        break;
      }
    }
    return g;
  }

  void load_mesh_into(Geometry& g, const std::string& owner, int line, bool read) {
    auto failed = failed_meshes.find(g.mesh_uri);
    if (failed != failed_meshes.end()) {
      g.mesh_path = failed->second;
      g.placeholder = true;
      return;
    }
    std::string err;
    g.mesh_path = resolve_resource(g.mesh_uri, base_dir, opt.package_paths, &err);
    if (!g.mesh_path.empty() && read) {
      MissingMeshFiles missing;
      g.mesh = load_mesh(g.mesh_path, &err, &missing);
      if (!g.mesh) err = "cannot be loaded: " + err;
      if (g.mesh) warn_if_huge(g, owner, line);
      if (!missing.empty()) missing_files[g.mesh_path] = std::move(missing);
    }
    if (g.mesh_path.empty() || (read && !g.mesh)) {
      g.placeholder = true;
      // a mesh that is not read (the command line's visuals; every mesh where nothing checks
      // collisions) is nothing to warn about: `ikwb solve` warned of two missing packages on
      // every run. Not remembered as failed either, so that a geometry that reads it warns.
      if (!read && !opt.warn_unread_meshes) return;
      failed_meshes.emplace(g.mesh_uri, g.mesh_path);
      const std::string group = g.mesh_path.empty() ? unfound_group(g.mesh_uri) : "";
      if (!group.empty()) {
        auto known = std::find_if(unfound.begin(), unfound.end(),
                                  [&](const auto& u) { return u.first == group; });
        if (known != unfound.end()) {
          known->second.push_back(fs::path(g.mesh_uri).filename().string());
          return;
        }
        unfound.push_back({group, {}});
      }
      msg.warn(line,
               owner + ": mesh " + in_quotes(g.mesh_uri) + ": " + err +
                   (read ? "; shown as a placeholder" : "; the workbench shows a placeholder"));
    }
  }

  // A mesh that spans more than kHugeMesh m as scaled: most likely CAD output in millimetres
  // without the scale that makes it metres (a 300 m robot, framed by the camera from 481 m
  // away); or none at all. Once per mesh file.
  void warn_if_huge(const Geometry& g, const std::string& owner, int line) {
    constexpr double kHugeMesh = 10.0;
    const std::vector<float>& p = g.mesh->positions;
    if (p.empty() || !huge_warned.insert(g.mesh_uri).second) return;
    double extent = 0;
    for (int axis = 0; axis < 3; ++axis) {
      float lo = p[axis], hi = p[axis];
      for (std::size_t i = axis; i < p.size(); i += 3)
        lo = std::min(lo, p[i]), hi = std::max(hi, p[i]);
      extent = std::max(extent, (double(hi) - lo) * std::fabs(g.mesh_scale[axis]));
    }
    if (extent == 0) {
      msg.warn(line, owner + ": mesh " + in_quotes(g.mesh_uri) +
                         " is a point as scaled (every vertex in one place): nothing of it is "
                         "drawn or collides");
      return;
    }
    if (!(extent > kHugeMesh)) return;
    char size[32];
    std::snprintf(size, sizeof size, "%.3g m", extent);
    msg.warn(line, owner + ": mesh " + in_quotes(g.mesh_uri) + " is " + size +
                       " across as scaled: if the file is in millimetres, give it "
                       "scale=\"0.001 0.001 0.001\"");
  }

  // The files a visual's mesh names but lacks (an OBJ's .mtl, textures), once per mesh file,
  // with what is drawn instead: the renderer draws no textures, and a mesh's own colours win
  // over the visual's (so call this after color()).
  void warn_missing_files(const Geometry& g, const std::string& owner, int line) {
    auto m = missing_files.find(g.mesh_path);
    if (!g.mesh || m == missing_files.end() || !missing_warned.insert(g.mesh_path).second) return;
    const std::string urdf_color = g.has_color
                                       ? "its URDF material colour"
                                       : "the default grey (the <visual> has no <material> colour)";
    const std::string what = owner + ": mesh " + in_quotes(g.mesh_uri) + ": ";
    const bool colored = !g.mesh->colors.empty();
    if (!m->second.material_libraries.empty())
      msg.warn(line,
               what +
                   listed("material library", "material libraries", m->second.material_libraries) +
                   " not found; drawn in " +
                   (colored ? "the colours of the materials that were found" : urdf_color));
    if (!m->second.textures.empty())
      msg.warn(line, what + listed("texture", "textures", m->second.textures) +
                         " not found; the workbench draws no textures (the mesh shows " +
                         (colored ? "its materials' colours" : urdf_color) +
                         " either way), but viewers that draw them will miss it");
  }

  // "texture 'a.png' (...)", "textures 'a.png' (...), 'b.png' (...)": the first three of many
  static std::string listed(const std::string& one, const std::string& many,
                            const std::vector<std::string>& files) {
    constexpr std::size_t kShown = 3;
    std::string out = files.size() == 1 ? one : many;
    for (std::size_t i = 0; i < files.size() && i < kShown; ++i) out += (i ? ", " : " ") + files[i];
    if (files.size() > kShown) out += " and " + std::to_string(files.size() - kShown) + " more";
    return out;
  }

  // where a mesh that is not found was looked for: its package, or the folder its path names
  // (the topmost one that does not exist, when that folder does not); "" for other URIs
  std::string unfound_group(const std::string& uri) const {
    const std::string package = resource_package(uri);
    if (!package.empty()) return "of package " + in_quotes(package);
    const std::string file = resource_file_path(uri, base_dir);
    if (file.empty()) return "";
    fs::path folder = fs::path(file).parent_path().lexically_normal();
    if (folder.empty()) folder = ".";
    std::error_code ec;
    if (fs::is_directory(folder, ec)) return "in " + in_quotes(folder.string());
    fs::path missing = folder;
    for (fs::path up = folder.parent_path(); !up.empty() && up != missing && !fs::exists(up, ec);
         up = up.parent_path())
      missing = up;
    return "under " + in_quotes(missing.string()) + " (which does not exist)";
  }

  // the line for each package or folder with more than one mesh not found: how many more, and
  // the first few file names (visual and collision meshes often share theirs)
  void warn_unfound() {
    for (const auto& [group, files] : unfound) {
      if (files.empty()) continue;
      std::vector<std::string> names;
      for (const std::string& f : files)
        if (std::find(names.begin(), names.end(), f) == names.end()) names.push_back(f);
      std::string list;
      for (std::size_t i = 0; i < names.size() && i < 3; ++i) list += (i ? ", " : "") + names[i];
      if (names.size() > 3) list += ", ...";
      const std::size_t n = files.size();
      msg.warn(0, std::to_string(n) + " more mesh" + (n == 1 ? " " : "es ") + group +
                      " not found either (" + list + "); shown as placeholders");
    }
  }

  // colour of a visual: inline <color>, else robot-level material, else a material of that
  // name defined inline by another visual
  void color(Geometry& g, const XmlGeometry& x, const std::string& owner) {
    g.material_name = x.material_name;
    if (x.has_inline_color) {
      g.rgba = x.inline_rgba, g.has_color = true;
      return;
    }
    if (x.material_name.empty()) return;
    auto m = ps.materials.find(x.material_name);
    if (m != ps.materials.end()) {
      if (m->second.has_color) g.rgba = m->second.rgba, g.has_color = true;
      return;
    }
    auto c = ps.inline_colors.find(x.material_name);
    if (c != ps.inline_colors.end()) {
      g.rgba = c->second, g.has_color = true;
      return;
    }
    msg.warn(x.line, owner + ": material " + in_quotes(x.material_name) + " is not defined");
  }
};

// [SECTION] text repairs

int line_of(const std::string& text, std::size_t pos) {
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(pos), '\n'));
}

// the default of <xacro:arg name="NAME" default="..."/> in the file, if any
bool xacro_arg_default(const std::string& text, const std::string& name, std::string* out) {
  const std::string key = "name=\"" + name + "\"";
  for (std::size_t at = text.find("<xacro:arg"); at != std::string::npos;
       at = text.find("<xacro:arg", at + 1)) {
    std::size_t end = text.find('>', at);
    if (end == std::string::npos) return false;
    std::string tag = text.substr(at, end - at);
    std::size_t d = tag.find("default=\"");
    if (tag.find(key) == std::string::npos || d == std::string::npos) continue;
    d += 9;
    *out = tag.substr(d, tag.find('"', d) - d);
    return true;
  }
  return false;
}

// What a xacro substitution left in a URDF stands for: $(optenv NAME DEFAULT...) the variable
// or the default, $(env NAME) the variable, $(arg NAME) the last of the xacro arguments given
// for NAME (args: NAME:=VALUE; used[i] set for each one taken) or else the default of its
// <xacro:arg> in the file, $(find PKG) package://PKG. Anything else needs xacro.
std::string expand_substitutions(const std::string& text, Messages& msg,
                                 const std::vector<std::string>& args, std::vector<bool>& used) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find("$("); at != std::string::npos; at = text.find("$(", from)) {
    std::size_t close = text.find(')', at);
    const int line = line_of(text, at);
    if (close == std::string::npos) msg.fail(line, "unterminated substitution '$('");
    const std::string expr = text.substr(at, close + 1 - at);
    std::istringstream words(text.substr(at + 2, close - at - 2));
    std::string verb, name, word, value;
    words >> verb >> name;
    std::vector<std::string> rest;
    while (words >> word) rest.push_back(word);
    const char* env = name.empty() ? nullptr : std::getenv(name.c_str());
    int given = -1;  // the last value of the name stands; every one given for it is used
    for (std::size_t i = 0; verb == "arg" && i < args.size(); ++i)
      if (args[i].compare(0, name.size() + 2, name + ":=") == 0) {
        given = int(i);
        used[i] = true;
      }
    if (given >= 0) {
      value = args[given].substr(name.size() + 2);
    } else if (verb == "optenv") {
      if (env) {
        value = env;
      } else {
        for (std::size_t i = 0; i < rest.size(); ++i) value += (i ? " " : "") + rest[i];
      }
    } else if (verb == "env" && env) {
      value = env;
    } else if (verb == "arg" && xacro_arg_default(text, name, &value)) {
    } else if (verb == "find" && !name.empty()) {
      value = "package://" + name;
    } else {
      msg.fail(line, "xacro substitution " + in_quotes(expr) +
                         " cannot be resolved here: expand the file with xacro first");
    }
    msg.repair(line, "xacro substitution " + in_quotes(expr), "replaced by " + in_quotes(value));
    out += text.substr(from, at - from) + value;
    from = close + 1;
  }
  return out + text.substr(from);
}

// Text-level repairs: what follows </robot> when it is not XML (a trailing NUL, garbage), and
// substitutions a xacro run left behind (expand_substitutions; xacro arguments no $(arg NAME)
// used get a warning).
std::string repair_text(const std::string& xml, Messages& msg,
                        const std::vector<std::string>& args) {
  std::string text = xml;
  std::size_t end = text.rfind("</robot>");
  if (end != std::string::npos) {
    end += 8;
    std::size_t next = text.find_first_not_of(" \t\r\n", end);
    if (next != std::string::npos &&
        (text[next] != '<' || text.find('\0', next) != std::string::npos)) {
      msg.repair(line_of(text, next),
                 std::to_string(text.size() - end) + " bytes that are not XML after </robot>",
                 "ignored");
      text.resize(end);
    }
  }
  std::vector<bool> used(args.size(), false);
  // only in XML: a file that is none (a README, a program) is reported as not a URDF by the
  // parser, not for the $( it happens to hold
  const std::size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  const std::size_t first = text.find_first_not_of(" \t\r\n", bom);
  const bool is_xml = first != std::string::npos && text[first] == '<';
  if (is_xml && text.find("$(") != std::string::npos)
    text = expand_substitutions(text, msg, args, used);
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!used[i])
      msg.warn(0, "xacro argument '" + args[i] + "' not used (not a .xacro file, and no $(arg " +
                      args[i].substr(0, args[i].find(":=")) + ") in it)");
  return text;
}

// The elements still open where the XML text ends, outermost first, each its name and the line
// it opens on, by a scan of the tags (comments, CDATA, declarations and quoted attribute values
// skipped): what a file cut short leaves unclosed.
std::vector<std::pair<std::string, int>> open_at_end(const std::string& xml) {
  std::vector<std::pair<std::string, int>> open;
  int line = 1;
  std::size_t i = 0;
  const std::size_t n = xml.size();
  auto skip_past = [&](const char* end) {
    std::size_t e = xml.find(end, i);
    std::size_t stop = e == std::string::npos ? n : e + std::strlen(end);
    line +=
        int(std::count(xml.begin() + std::ptrdiff_t(i), xml.begin() + std::ptrdiff_t(stop), '\n'));
    i = stop;
  };
  while (i < n) {
    if (xml[i] != '<') {
      if (xml[i++] == '\n') ++line;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      skip_past("-->");
    } else if (xml.compare(i, 9, "<![CDATA[") == 0) {
      skip_past("]]>");
    } else if (xml.compare(i, 2, "<?") == 0) {
      skip_past("?>");
    } else if (xml.compare(i, 2, "<!") == 0) {
      skip_past(">");
    } else {
      const bool closing = xml.compare(i, 2, "</") == 0;
      const int at = line;
      std::size_t k = i + (closing ? 2 : 1);
      std::size_t name_end = k;
      while (name_end < n && !std::isspace(static_cast<unsigned char>(xml[name_end])) &&
             xml[name_end] != '>' && xml[name_end] != '/')
        ++name_end;
      const std::string name = xml.substr(k, name_end - k);
      char quote = 0;  // inside an attribute value
      bool self_closing = false;
      for (k = name_end; k < n; ++k) {
        const char c = xml[k];
        if (c == '\n') ++line;
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '>') {
          self_closing = xml[k - 1] == '/';
          break;
        }
      }
      if (k >= n) {  // the text ends inside this tag
        if (!closing) open.push_back({name, at});
        break;
      }
      i = k + 1;
      if (closing) {
        if (!open.empty()) open.pop_back();
      } else if (!self_closing) {
        open.push_back({name, at});
      }
    }
  }
  return open;
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ModelError(path + ": is a directory, not a URDF file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open file (" + std::strerror(errno) + ")");
  std::string text;
  if (!read_text_stream(in, text))
    throw ModelError(path + (in.bad() ? ": read error" : ": larger than 1 GiB, not a URDF file"));
  return text;
}

LoadResult load(const std::string& xml_in, const std::string& source_name,
                const std::string& base_dir, const std::string& source_path,
                const UrdfOptions& opt) {
  Messages msg{source_name, {}, opt.strict};

  // 1. pre-scan: repairs of the raw text, then the XML
  const std::string xml = repair_text(xml_in, msg, opt.xacro_args);
  if (std::size_t nul = xml.find('\0'); nul != std::string::npos) {
    int line = 1 + int(std::count(xml.begin(), xml.begin() + std::ptrdiff_t(nul), '\n'));
    msg.fail(line, "malformed XML: NUL byte at offset " + std::to_string(nul) +
                       " (a binary file, or UTF-16?)");
  }
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS) {
    // ErrorStr() reads "Error=XML_ERROR_X ErrorID=.. Line number=N: detail"
    std::string what = doc.ErrorName();
    if (what.rfind("XML_ERROR_", 0) == 0) what = what.substr(10);
    std::transform(what.begin(), what.end(), what.begin(),
                   [](char c) { return c == '_' ? ' ' : char(std::tolower(c)); });
    std::string full = doc.ErrorStr() ? doc.ErrorStr() : "";
    std::size_t detail = full.find(": ", full.find("Line number"));
    if (detail != std::string::npos) what += " (" + full.substr(detail + 2) + ")";
    // elements left open at the end, the error on the last line or on the line of the innermost
    // of them (where tinyxml2 puts an element that never closes): the file was cut short
    const int last_line = 1 + int(std::count(xml.begin(), xml.end(), '\n'));
    const std::vector<std::pair<std::string, int>> open = open_at_end(xml);
    if (!open.empty() && doc.ErrorID() != tinyxml2::XML_ERROR_MISMATCHED_ELEMENT &&
        (doc.ErrorLineNum() >= last_line - 1 || doc.ErrorLineNum() == open.back().second)) {
      what = "the file ends inside";
      for (std::size_t k = open.size(); k-- > 0;)
        what += std::string(k + 1 < open.size() ? " in" : "") + " <" + open[k].first + "> (line " +
                std::to_string(open[k].second) + ")";
      what += "; was it cut short?";
    }
    // a file that is no XML at all: most often a scene (JSON) or some other text given in
    // place of the robot
    const std::size_t first = xml.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (xml[first] == '{' || xml[first] == '['))
      what += "; this looks like JSON, not a URDF (a scene file opens with --scene)";
    else if (first != std::string::npos && xml[first] != '<')
      what += "; the file does not start with '<' (is it a URDF?)";
    msg.fail(doc.ErrorLineNum(), "malformed XML: " + what);
  }
  XMLElement* robot = doc.RootElement();
  if (!robot || std::string(robot->Name()) != "robot") {
    msg.fail(robot ? robot->GetLineNum() : 0,
             std::string("no <robot> element") +
                 (robot ? " (the document element is <" + std::string(robot->Name()) + ">)" : ""));
  }
  // tinyxml2 keeps entity references unexpanded and urdfdom's parser then loses the document
  for (const tinyxml2::XMLNode* n = doc.FirstChild(); n; n = n->NextSibling()) {
    if (n->ToUnknown() && std::string(n->Value()).find("ENTITY") != std::string::npos)
      msg.fail(n->GetLineNum(), "DTD entity declarations (<!ENTITY ...>) are not supported");
  }
  reject_xacro_elements(msg, robot, xacro_prefixes(robot));
  Prescan ps;
  const char* robot_name = robot->Attribute("name");
  if (!robot_name || !*robot_name) msg.fail(robot->GetLineNum(), "<robot> has no name attribute");
  ps.robot_name = robot_name;
  std::vector<XMLElement*> useless;
  for (XMLElement* e = robot->FirstChildElement("material"); e;
       e = e->NextSiblingElement("material"))
    if (!scan_material(msg, ps, e)) useless.push_back(e);
  for (XMLElement* e : useless) robot->DeleteChild(e);
  for (XMLElement* e = robot->FirstChildElement("link"); e; e = e->NextSiblingElement("link"))
    scan_link(msg, ps, e);
  if (ps.links.empty()) msg.fail(robot->GetLineNum(), "<robot> has no <link>");
  for (XMLElement* e = robot->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint"))
    scan_joint(msg, ps, e);
  // elements after </robot> (a <joint> there left its child a second root, with no word of it):
  // each named (after the robot's own warnings, in line order), and refused with --strict as the
  // text after it is
  for (const XMLElement* extra = robot->NextSiblingElement(); extra;
       extra = extra->NextSiblingElement()) {
    const XMLAttribute* name = extra->FindAttribute("name");
    const std::string what = "<" + std::string(extra->Name()) +
                             (name ? " name=" + in_quotes(name->Value()) : std::string()) +
                             "> after the <robot> element";
    msg.repair(extra->GetLineNum(), what, "ignored");
    if (ps.after_robot.empty())
      ps.after_robot = what + " (line " + std::to_string(extra->GetLineNum()) + ")";
  }
  int root = check_tree(msg, ps);
  if (opt.floating_base) check_floating_root(msg, ps, root);
  tinyxml2::XMLPrinter cleaned;
  doc.Print(&cleaned);

  // 2. urdfdom
  std::unique_ptr<UrdfTree> urdf;
  std::string urdf_messages;
  {
    ConsoleCapture capture;
    try {
      urdf = std::make_unique<UrdfTree>(cleaned.CStr(), ps.depth);
      if (!*urdf) urdf.reset();
    } catch (const std::exception& e) {
      capture.messages.push_back(e.what());
    }
    urdf_messages = capture.joined();
  }
  if (!urdf) {
    msg.fail(0, "urdfdom could not parse the file: " +
                    (urdf_messages.empty() ? std::string("no reason given") : urdf_messages));
  }

  // 3. breadth-first order from the root link, children in document order
  std::vector<int> link_order = {root};
  std::vector<int> joint_order;
  std::vector<std::vector<int>> child_joints(ps.links.size());
  for (int ji = 0; ji < int(ps.joints.size()); ++ji)
    child_joints[ps.link_index.at(ps.joints[ji].parent)].push_back(ji);
  for (std::size_t k = 0; k < link_order.size(); ++k) {
    for (int ji : child_joints[link_order[k]]) {
      joint_order.push_back(ji);
      link_order.push_back(ps.link_index.at(ps.joints[ji].child));
    }
  }
  std::vector<int> body_of_link(ps.links.size(), -1);
  std::vector<int> index_of_joint(ps.joints.size(), -1);
  // mimic joints followed to their final source: the source, q = multiplier q_source + offset
  struct Folded {
    std::string source;
    double multiplier, offset;
  };
  std::map<std::string, Folded> folded;
  for (int k = 0; k < int(link_order.size()); ++k) body_of_link[link_order[k]] = k;
  for (int k = 0; k < int(joint_order.size()); ++k) index_of_joint[joint_order[k]] = k + 1;

  ModelBuilder b;
  Model& m = b.model();
  m.name = ps.robot_name;
  m.source_path = source_path;
  b.begin_articulation(ps.robot_name);
  Loader loader{msg, ps, opt, base_dir, {}, {}, {}, {}, {}};

  for (int li : link_order) {
    const XmlLink& xl = ps.links[li];
    urdf::LinkConstSharedPtr link = (*urdf)->getLink(xl.name);
    if (!link) msg.fail(xl.line, "urdfdom lost link " + in_quotes(xl.name));
    double mass = 0;
    Vec3<double> com = zero3<double>();
    std::array<double, 9> inertia{};
    if (link->inertial) {
      mass = link->inertial->mass;
      const auto& p = link->inertial->origin.position;
      com = {p.x, p.y, p.z};
      inertia = body_inertia(*link->inertial);
      for (double v : inertia) {
        if (!std::isfinite(v))
          msg.fail(xl.line, "link " + in_quotes(xl.name) +
                                ": <inertia> too large (the rotated inertia overflows)");
      }
    }
    int body = b.add_body(xl.name, mass, com, inertia);
    std::string owner = "link " + in_quotes(xl.name);

    const std::vector<XmlGeometry>& kept_visuals = xl.visuals;
    const std::vector<XmlGeometry>& kept_collisions = xl.collisions;
    if (kept_visuals.size() != link->visual_array.size() ||
        kept_collisions.size() != link->collision_array.size()) {
      msg.warn(xl.line, owner + ": urdfdom dropped visual or collision elements" +
                            (urdf_messages.empty() ? std::string() : " (" + urdf_messages + ")"));
    }
    bool matched = kept_visuals.size() == link->visual_array.size();
    // a link without collision geometry is checked with its visuals (fit_collision_geometry):
    // their meshes are read even when only collision meshes are asked for
    const bool visuals_collide =
        std::none_of(link->collision_array.begin(), link->collision_array.end(),
                     [](const urdf::CollisionSharedPtr& c) { return c && c->geometry; });
    for (std::size_t k = 0; k < link->visual_array.size(); ++k) {
      const auto& v = link->visual_array[k];
      if (!v || !v->geometry) continue;
      int line = matched ? kept_visuals[k].line : xl.line;
      Geometry g = loader.geometry(v->geometry, v->origin, owner + " visual", line,
                                   opt.load_meshes && (opt.load_visual_meshes || visuals_collide));
      if (matched) loader.color(g, kept_visuals[k], owner);
      loader.warn_missing_files(g, owner + " visual", line);
      b.visuals(body).push_back(std::move(g));
    }
    for (std::size_t k = 0; k < link->collision_array.size(); ++k) {
      const auto& c = link->collision_array[k];
      if (!c || !c->geometry) continue;
      int line = k < kept_collisions.size() ? kept_collisions[k].line : xl.line;
      b.collisions(body).push_back(
          loader.geometry(c->geometry, c->origin, owner + " collision", line, opt.load_meshes));
    }
  }
  loader.warn_unfound();

  // root joint from the world, named so it cannot clash with a URDF joint
  JointSpec rj;
  rj.name = "root_joint";
  for (int n = 1; ps.joint_index.count(rj.name); ++n) rj.name = "root_joint_" + std::to_string(n);
  rj.type = opt.floating_base ? JointType::kFree : JointType::kFixed;
  rj.child = 0;
  b.add_joint(rj);

  for (int ji : joint_order) {
    const XmlJoint& xj = ps.joints[ji];
    urdf::JointConstSharedPtr j = (*urdf)->getJoint(xj.name);
    if (!j) msg.fail(xj.line, "urdfdom lost joint " + in_quotes(xj.name));
    std::string context = "joint " + in_quotes(xj.name) + ": ";
    JointSpec s;
    s.name = xj.name;
    s.parent = body_of_link[ps.link_index.at(xj.parent)];
    s.child = body_of_link[ps.link_index.at(xj.child)];
    s.X_p = to_transform(j->parent_to_joint_origin_transform);
    s.axis = {j->axis.x, j->axis.y, j->axis.z};
    switch (j->type) {
      case urdf::Joint::FIXED:
        s.type = JointType::kFixed;
        break;
      case urdf::Joint::REVOLUTE:
        s.type = JointType::kRevolute;
        break;
      case urdf::Joint::CONTINUOUS:
        s.type = JointType::kContinuous;
        break;
      case urdf::Joint::PRISMATIC:
        s.type = JointType::kPrismatic;
        break;
      case urdf::Joint::FLOATING:
        s.type = xj.type == "spherical" ? JointType::kBall : JointType::kFree;
        break;
      case urdf::Joint::PLANAR:
        // motion in the plane normal to <axis> (the URDF spec, as Drake reads it; Pinocchio
        // and MoveIt always take the joint frame's xy plane, which is the same for axis z)
        s.type = JointType::kPlanar;
        break;
      default:
        msg.fail(xj.line, context + "unsupported joint type " + in_quotes(xj.type));
    }
    if (j->limits) {
      if ((s.type == JointType::kRevolute || s.type == JointType::kPrismatic) && !xj.unlimited) {
        s.lower = j->limits->lower;
        s.upper = j->limits->upper;
      }
      s.velocity = j->limits->velocity;
      s.effort = j->limits->effort;
    }
    if (!xj.mimic.empty() && xj.type == "fixed") {
      // a fixed joint has no coordinate to drive (real URDFs, e.g. Talos, carry such tags)
      msg.warn(xj.line, context + "fixed joint has a <mimic>; ignored");
    } else if (!xj.mimic.empty()) {
      // follow a chain of mimics to its final source: q = a (c q_src + d) + b; a joint already
      // followed to its source ends the walk (a chain of n mimics then loads in n steps, not n^2)
      double mult = j->mimic ? j->mimic->multiplier : 1.0;
      double off = j->mimic ? j->mimic->offset : 0.0;
      std::set<std::string> seen = {xj.name};
      std::string src = xj.mimic;
      for (;;) {
        if (!seen.insert(src).second)
          msg.fail(xj.line, context + "mimic joints form a cycle through " + in_quotes(src));
        const auto known = folded.find(src);
        if (known != folded.end()) {
          off = mult * known->second.offset + off;
          mult = mult * known->second.multiplier;
          src = known->second.source;
          break;
        }
        const XmlJoint& xs = ps.joints[ps.joint_index.at(src)];
        if (xs.mimic.empty()) break;
        urdf::JointConstSharedPtr sj = (*urdf)->getJoint(src);
        double c = sj && sj->mimic ? sj->mimic->multiplier : 1.0;
        double d = sj && sj->mimic ? sj->mimic->offset : 0.0;
        off = mult * d + off;
        mult = mult * c;
        src = xs.mimic;
      }
      auto one_dof = [](const std::string& t) {
        return t == "revolute" || t == "continuous" || t == "prismatic";
      };
      const XmlJoint& xs = ps.joints[ps.joint_index.at(src)];
      if (!one_dof(xj.type) || !one_dof(xs.type)) {
        msg.fail(xj.line, context + xj.type + " joint mimics " + in_quotes(src) + " (" + xs.type +
                              "): only revolute, continuous and prismatic joints can " +
                              "mimic or be mimicked");
      }
      s.mimic = index_of_joint[ps.joint_index.at(src)];
      s.mimic_multiplier = mult;
      s.mimic_offset = off;
      folded[xj.name] = {src, mult, off};
    }
    b.add_joint(s);
  }

  LoadResult result;
  std::vector<std::string> notes;
  try {
    result.model = std::make_shared<const Model>(b.finalize(&notes));
  } catch (const ModelError& e) {
    msg.fail(0, e.what());
  }
  for (const std::string& n : notes) msg.warn(0, n);
  result.warnings = std::move(msg.warnings);
  return result;
}

}  // namespace

LoadResult load_urdf_file(const std::string& path, const UrdfOptions& options) {
  std::string xml = read_file(path);
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) abs = path;
  return load(xml, path, abs.parent_path().string(), abs.lexically_normal().string(), options);
}

LoadResult load_urdf_string(const std::string& xml, const std::string& source_name,
                            const std::string& base_dir, const UrdfOptions& options,
                            const std::string& source_path) {
  return load(xml, source_name, base_dir, source_path, options);
}

}  // namespace ikwb
