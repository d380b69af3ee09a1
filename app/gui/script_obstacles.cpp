// The script's `obstacle` command (README "Automation scripts", docs/collision.md): add, move,
// resize, retype, rename, remove, select and gizmo-drag obstacles through the same AppState
// functions as the Scene menu and the Obstacles panel (each change one undo step). Registered
// beside the main table (script_commands.cpp).
//
//   obstacle add TYPE NAME [X Y Z]            sphere, box, capsule, cylinder, half_space (floor)
//   obstacle move NAME X Y Z [QX QY QZ QW]    a half-space: its plane through the point
//   obstacle size NAME R | R L | SX SY SZ     sphere | capsule, cylinder | box
//   obstacle plane NAME NX NY NZ OFFSET       half-space
//   obstacle type NAME TYPE
//   obstacle rename NAME NEW_NAME
//   obstacle remove NAME
//   obstacle select NAME
//   obstacle drag NAME HANDLE AMOUNTS... [frames K] [snap]   (as `drag`, on the obstacle's gizmo)
#include <cmath>

#include "app/cli/csv.hpp"
#include "app/gui/obstacle_view.hpp"
#include "app/gui/script_args.hpp"
#include "app/gui/script_commands.hpp"

namespace ikwb::gui {

namespace {

using Args = std::vector<std::string>;
using Turn = ScriptRunner::Turn;

const char* kUsage =
    "expected: obstacle add TYPE NAME [X Y Z] | move NAME X Y Z [QX QY QZ QW] | size NAME "
    "VALUES | plane NAME NX NY NZ OFFSET | type NAME TYPE | rename NAME NEW | remove NAME | "
    "select NAME | drag NAME HANDLE AMOUNTS [frames K] [snap]";

// a shape type by scene name; "floor" is a half-space
bool type_value(const std::string& s, ShapeType* type) {
  if (s == "floor") {
    *type = ShapeType::kHalfSpace;
    return true;
  }
  return parse_shape_type(s, type);
}

// arguments [from, to) are lengths (numbers with optional mm / cm / m)
std::string lengths(const Args& a, std::size_t from, std::size_t to) {
  double v;
  for (std::size_t k = from; k < to && k < a.size(); ++k)
    if (!length_value(a[k], &v)) return "'" + a[k] + "' is not a length";
  return "";
}

// the drag's handle, amounts and options; *end: the index after the amounts
std::string parse_drag(const Args& a, ScriptRunner::Drag* d, std::size_t* end) {
  d->handle = render::gizmo_handle_from_name(a[3]);
  if (d->handle == render::GizmoHandle::kNone) return "unknown gizmo handle '" + a[3] + "'";
  *end = a.size();
  for (std::size_t i = 4; i < a.size(); ++i) {
    if (a[i] == "snap") {
      d->snap = true;
      *end = std::min(*end, i);
    } else if (a[i] == "frames") {
      int k;
      if (i + 1 >= a.size() || !index_value(a[i + 1], &k) || k < 1)
        return "'frames' needs a positive frame count";
      d->frames = k;
      *end = std::min(*end, i);
      ++i;
    } else if (*end < a.size()) {
      return "unexpected '" + a[i] + "' after the drag options";
    }
  }
  const std::size_t amounts = *end - 4;
  if (render::gizmo_handle_in_mode(d->handle, render::GizmoMode::kRotate)) {
    if (amounts != 1 || !angle_value(a[4], &d->angle)) return "a ring drag takes one angle";
    return "";
  }
  const bool axis = d->handle == render::GizmoHandle::kTranslateX ||
                    d->handle == render::GizmoHandle::kTranslateY ||
                    d->handle == render::GizmoHandle::kTranslateZ;
  if (!(amounts == 3 || (axis && amounts == 1)))
    return "a translate drag takes DX DY DZ (or one distance along an axis handle)";
  std::string bad = lengths(a, 4, *end);
  if (!bad.empty()) return bad;
  for (std::size_t k = 0; k < amounts; ++k) length_value(a[4 + k], &d->move[int(k)]);
  d->along_axis = amounts == 1;
  return "";
}

std::string check_obstacle_command(const Args& a) {
  const std::string& sub = a[1];
  const std::size_t n = a.size() - 2;  // after the subcommand
  ShapeType type;
  if (sub == "add") {
    if (n != 2 && n != 5) return kUsage;
    if (!type_value(a[2], &type))
      return "unknown obstacle type '" + a[2] + "' (sphere, box, capsule, cylinder, half_space)";
    if (a[3].empty()) return "an obstacle's name must not be empty";
    return lengths(a, 4, a.size());
  }
  if (sub == "move") {
    if (n != 4 && n != 8) return kUsage;
    std::string bad = lengths(a, 3, 6);
    double v;
    for (std::size_t k = 6; k < a.size() && bad.empty(); ++k)
      if (!plain_number(a[k], &v)) bad = "'" + a[k] + "' is not a number";
    return bad;
  }
  if (sub == "size") return n >= 2 && n <= 4 ? lengths(a, 3, a.size()) : kUsage;
  if (sub == "plane") {
    if (n != 5) return kUsage;
    double v;
    for (std::size_t k = 3; k < 6; ++k)
      if (!plain_number(a[k], &v)) return "'" + a[k] + "' is not a number";
    return lengths(a, 6, 7);
  }
  if (sub == "type") {
    if (n != 2) return kUsage;
    return type_value(a[3], &type) ? "" : "unknown obstacle type '" + a[3] + "'";
  }
  if (sub == "rename") return n == 2 ? "" : kUsage;
  if (sub == "remove" || sub == "select") return n == 1 ? "" : kUsage;
  if (sub == "drag") {
    if (n < 3) return kUsage;
    ScriptRunner::Drag d;
    std::size_t end;
    return parse_drag(a, &d, &end);
  }
  return "unknown obstacle command '" + sub + "'; " + kUsage;
}

bool run_obstacle(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  const std::string& sub = a[1];
  if (sub == "add") {
    ShapeType type;
    type_value(a[2], &type);
    Obstacle o = app.new_obstacle(type, a[3]);
    if (a.size() == 7) {
      Vec3<double> p;
      for (int k = 0; k < 3; ++k) length_value(a[4 + k], &p[k]);
      if (type == ShapeType::kHalfSpace)
        o.offset = dot(o.normal, p);
      else
        o.pose.p = p;
    }
    if (app.add_obstacle(o) < 0) t.fail("obstacle '" + a[3] + "' not added");
    return false;
  }
  const int i = app.find_obstacle(a[2]);
  if (i < 0) {
    t.fail("no obstacle named '" + a[2] + "'");
    return false;
  }
  Obstacle o = app.obstacles[i];
  if (sub == "remove") {
    app.remove_obstacle(i);
    return false;
  }
  if (sub == "select") {
    app.select_obstacle(i);
    return false;
  }
  if (sub == "drag") {
    ScriptRunner::Drag d;
    std::size_t end;
    parse_drag(a, &d, &end);
    d.obstacle = a[2];
    d.line = t.command.line;
    t.add_drag(d);
    t.start_drags();
    return true;
  }
  std::string what = "edit obstacle";
  if (sub == "move") {
    Transform<double> pose = obstacle_gizmo_pose(o);
    for (int k = 0; k < 3; ++k) length_value(a[3 + k], &pose.p[k]);
    if (a.size() == 10) {
      Quat<double> q;
      plain_number(a[6], &q.x);
      plain_number(a[7], &q.y);
      plain_number(a[8], &q.z);
      plain_number(a[9], &q.w);
      // as a scene's obstacle pose: unit within 1e-3 (a typo is not turned into a rotation)
      if (!(std::abs(quat_norm(q) - 1) <= 1e-3)) {
        t.fail("the quaternion (x, y, z, w) is not unit (norm " + format_double(quat_norm(q)) +
               ")");
        return false;
      }
      pose.q = q;
    }
    o = obstacle_at_gizmo_pose(o, pose);
    what = "move obstacle";
  } else if (sub == "size") {
    const std::size_t n = a.size() - 3;
    std::vector<double> v(n);
    for (std::size_t k = 0; k < n; ++k) length_value(a[3 + k], &v[k]);
    const std::size_t want = o.type == ShapeType::kBox         ? 3
                             : o.type == ShapeType::kSphere    ? 1
                             : o.type == ShapeType::kHalfSpace ? 0
                                                               : 2;
    if (n != want) {
      t.fail(want == 0 ? "a half_space has no size (obstacle plane NAME NX NY NZ OFFSET)"
                       : std::string("a ") + shape_type_name(o.type) + " takes " +
                             std::to_string(want) + " size values");
      return false;
    }
    if (o.type == ShapeType::kBox) o.size = {v[0], v[1], v[2]};
    if (want <= 2) o.radius = v[0];
    if (want == 2) o.length = v[1];
  } else if (sub == "plane") {
    if (o.type != ShapeType::kHalfSpace) {
      t.fail("obstacle '" + o.name + "' is not a half_space");
      return false;
    }
    Vec3<double> n;
    for (int k = 0; k < 3; ++k) plain_number(a[3 + k], &n[k]);
    // any length: the solid normal . x <= offset, kept with the normal normalised
    const double l = length(n);
    if (!(l > 1e-12)) {
      t.fail("the plane's normal must not be zero");
      return false;
    }
    o.normal = (1.0 / l) * n;
    length_value(a[6], &o.offset);
    o.offset /= l;
  } else if (sub == "type") {
    ShapeType type;
    type_value(a[3], &type);
    Transform<double> at = obstacle_gizmo_pose(o);
    o.type = type;
    o = obstacle_at_gizmo_pose(o, at);
  } else if (sub == "rename") {
    o.name = a[3];
  }
  if (!app.set_obstacle(i, o, what)) t.fail("obstacle '" + a[2] + "' unchanged");
  return false;
}

const ScriptCommandSpec kObstacleCommands[] = {
    {"obstacle", 2, -1, check_obstacle_command, run_obstacle},
};

}  // namespace

const ScriptCommandSpec* find_obstacle_script_command(const std::string& name) {
  for (const ScriptCommandSpec& c : kObstacleCommands)
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace ikwb::gui
