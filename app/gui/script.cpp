// Automation scripts: parsing, and replaying commands as menu actions or injected input (the
// gizmo drags are in script_drag.cpp, value parsing in script_args.cpp).
//
// [SECTION] Parsing
// [SECTION] Commands
#include "app/gui/script.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app/gui/script_args.hpp"
#include "app/gui/session.hpp"
#include "app/gui/visuals.hpp"
#include "engine/core/robot_path.hpp"

namespace ikwb::gui {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Parsing helpers
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// [SECTION] Parsing
// ---------------------------------------------------------------------------------------------

// the View menu's toggles by script name
const std::map<std::string, int>& view_flag_names() {
  static const std::map<std::string, int> n = {
      {"grid", 0},           {"axes", 1},        {"targets", 2},          {"frames", 3},
      {"hints", 4},          {"robot_panel", 5}, {"objectives_panel", 6}, {"messages", 7},
      {"ghosts", 8},         {"residuals", 9},   {"limits", 10},          {"velocities", 11},
      {"residual_panel", 12}};
  return n;
}

bool* view_flag(Ui& ui, int k) {
  bool* flags[] = {&ui.view.options.grid,
                   &ui.view.options.world_axes,
                   &ui.view.options.targets,
                   &ui.view.options.link_frames,
                   &ui.view.options.hints,
                   &ui.layout.show_left,
                   &ui.layout.show_right,
                   &ui.layout.show_messages,
                   &ui.view.visuals.options.ghosts,
                   &ui.view.visuals.options.residuals,
                   &ui.view.visuals.options.limits,
                   &ui.view.visuals.options.velocities,
                   &ui.view.visuals.options.residual_panel};
  return flags[k];
}

struct Arity {
  int min, max;  // argument counts after the command name (max -1: any)
};

const std::map<std::string, Arity>& commands() {
  static const std::map<std::string, Arity> c = {{"robot", {1, 1}},
                                                 {"load", {1, 1}},
                                                 {"open_urdf", {1, 1}},
                                                 {"scene", {1, 1}},
                                                 {"add", {1, -1}},
                                                 {"remove", {1, 1}},
                                                 {"select_objective", {1, 1}},
                                                 {"select_link", {1, 1}},
                                                 {"weight", {2, 2}},
                                                 {"hard", {2, 2}},
                                                 {"enable", {2, 2}},
                                                 {"target", {4, 8}},
                                                 {"joint", {2, 2}},
                                                 {"targets_follow", {1, 1}},
                                                 {"solver", {2, 2}},
                                                 {"live", {1, 1}},
                                                 {"gizmo", {1, 1}},
                                                 {"key", {1, 4}},
                                                 {"camera", {2, -1}},
                                                 {"frame", {0, 0}},
                                                 {"mouse_move", {2, 2}},
                                                 {"mouse_down", {0, 1}},
                                                 {"mouse_up", {0, 1}},
                                                 {"click", {2, 3}},
                                                 {"scroll", {1, 1}},
                                                 {"click_link", {1, 2}},
                                                 {"drag", {3, -1}},
                                                 {"drag_pose", {7, -1}},
                                                 {"wait", {1, 1}},
                                                 {"screenshot", {1, 1}},
                                                 {"dump", {1, 1}},
                                                 {"stats", {1, 1}},
                                                 {"expect", {1, 4}},
                                                 {"echo", {0, -1}},
                                                 {"view", {2, 2}},
                                                 {"quit", {0, 0}},
                                                 {"branch", {2, 2}},
                                                 {"branch_follow", {1, 1}},
                                                 {"branch_set", {2, 2}},
                                                 {"adopt_seed", {1, 1}},
                                                 {"click_ghost", {1, 1}},
                                                 {"demo", {1, 1}}};
  return c;
}

// the trailing "[frames K] [snap]" options of drag commands; returns the index after the amounts
int drag_options(const std::vector<std::string>& a, int from, int* frames, bool* snap,
                 std::string* error) {
  int end = int(a.size());
  for (int i = from; i < int(a.size()); ++i) {
    if (a[i] == "frames" || a[i] == "snap") {
      end = std::min(end, i);
      if (a[i] == "snap") {
        *snap = true;
      } else {
        int k;
        if (i + 1 >= int(a.size()) || !index_value(a[i + 1], &k) || k < 1) {
          *error = "'frames' needs a positive frame count";
          return -1;
        }
        *frames = k;
        ++i;
      }
    } else if (end < int(a.size())) {
      *error = "unexpected '" + a[i] + "' after the drag options";
      return -1;
    }
  }
  return end;
}

// checks the numbers of a command (names and files are checked when it runs)
std::string check_arguments(const std::vector<std::string>& a) {
  const std::string& c = a[0];
  double v;
  int i;
  bool b;
  auto need = [&](bool ok, const std::string& what) { return ok ? std::string() : what; };
  if (c == "remove" || c == "select_objective")
    return need(index_value(a[1], &i), "expected an objective index");
  if (c == "weight")
    return need(index_value(a[1], &i) && plain_number(a[2], &v) && v >= 0,
                "expected: weight INDEX VALUE (>= 0)");
  if (c == "hard" || c == "enable")
    return need(index_value(a[1], &i) && on_off(a[2], &b), "expected: " + c + " INDEX on|off");
  if (c == "branch" || c == "branch_follow")
    return need(on_off(a.back(), &b), "expected on or off");
  if (c == "branch_set")
    return need(joint_value(a[2], &v), "expected: branch_set JOINT VALUE[deg|mm]");
  if (c == "adopt_seed" || c == "click_ghost")
    return need(index_value(a[1], &i), "expected a seed index");
  if (c == "targets_follow" || c == "live") return need(on_off(a[1], &b), "expected on or off");
  if (c == "joint") return need(joint_value(a[2], &v), "expected: joint NAME VALUE[deg|mm]");
  if (c == "target") {
    if (a.size() != 5 && a.size() != 9) return "expected: target INDEX X Y Z [QX QY QZ QW]";
    bool ok = index_value(a[1], &i);
    for (std::size_t k = 2; k < a.size(); ++k)
      ok = ok && (k < 5 ? length_value(a[k], &v) : plain_number(a[k], &v));
    return need(ok, "expected numbers");
  }
  if (c == "mouse_move")
    return need(plain_number(a[1], &v) && plain_number(a[2], &v),
                "expected: mouse_move X Y (window pixels)");
  if (c == "click")
    return need(plain_number(a[1], &v) && plain_number(a[2], &v) &&
                    (a.size() < 4 || button_index(a[3]) >= 0),
                "expected: click X Y [left|right|middle]");
  if (c == "click_link")
    return need(a.size() < 3 || button_index(a[2]) >= 0, "expected: click_link NAME [button]");
  if (c == "mouse_down" || c == "mouse_up")
    return need(a.size() < 2 || button_index(a[1]) >= 0, "expected left, right or middle");
  if (c == "scroll") return need(plain_number(a[1], &v), "expected a number of wheel steps");
  if (c == "wait") return need(index_value(a[1], &i), "expected a frame count");
  if (c == "stats") return need(a[1] == "reset", "expected: stats reset");
  if (c == "view")
    return need(view_flag_names().count(a[1]) && on_off(a[2], &b),
                "expected: view grid|axes|targets|frames|hints|robot_panel|objectives_panel|"
                "messages|ghosts|residuals|limits|velocities|residual_panel on|off");
  if (c == "gizmo")
    return need(a[1] == "translate" || a[1] == "rotate" || a[1] == "world" || a[1] == "local",
                "expected translate, rotate, world or local");
  if (c == "key") {
    if (key_code(a[1]) < 0) return "unknown key '" + a[1] + "'";
    for (std::size_t k = 2; k < a.size(); ++k)
      if (a[k] != "ctrl" && a[k] != "shift" && a[k] != "alt")
        return "unknown modifier '" + a[k] + "' (ctrl, shift, alt)";
    return "";
  }
  if (c == "camera") {
    for (std::size_t k = 1; k < a.size(); ++k) {
      const std::string& key = a[k];
      int n = key == "target" ? 3 : 1;
      if (key != "yaw" && key != "pitch" && key != "distance" && key != "target" && key != "fov")
        return "unknown camera setting '" + key + "' (yaw, pitch, distance, target, fov)";
      for (int m = 1; m <= n; ++m)
        if (k + m >= a.size() ||
            !(key == "yaw" || key == "pitch" || key == "fov" ? angle_value(a[k + m], &v)
                                                             : length_value(a[k + m], &v)))
          return "camera " + key + " needs " + std::to_string(n) + " number(s)";
      k += n;
    }
    return "";
  }
  if (c == "drag" || c == "drag_pose") {
    int frames = 30;
    bool snap = false;
    std::string error;
    int end = drag_options(a, c == "drag" ? 3 : 2, &frames, &snap, &error);
    if (end < 0) return error;
    if (!index_value(a[1], &i)) return "expected an objective index";
    if (c == "drag_pose") {
      if (end != 8) return "expected: drag_pose INDEX DX DY DZ RX RY RZ [frames K] [snap]";
      for (int k = 2; k < 8; ++k)
        if (!(k < 5 ? length_value(a[k], &v) : angle_value(a[k], &v)))
          return "'" + a[k] + "' is not " + (k < 5 ? "a length" : "an angle");
      return "";
    }
    render::GizmoHandle h = render::gizmo_handle_from_name(a[2]);
    if (h == render::GizmoHandle::kNone) return "unknown gizmo handle '" + a[2] + "'";
    int amounts = end - 3;
    if (render::gizmo_handle_in_mode(h, render::GizmoMode::kRotate))
      return need(amounts == 1 && angle_value(a[3], &v), "a ring drag takes one angle");
    bool axis = h == render::GizmoHandle::kTranslateX || h == render::GizmoHandle::kTranslateY ||
                h == render::GizmoHandle::kTranslateZ;
    if (!(amounts == 3 || (axis && amounts == 1)))
      return "a translate drag takes DX DY DZ (or one distance along an axis handle)";
    for (int k = 3; k < end; ++k)
      if (!length_value(a[k], &v)) return "'" + a[k] + "' is not a length";
    return "";
  }
  if (c == "expect") {
    const std::string& what = a[1];
    if (what == "converged") return "";
    if (what == "robot") return need(a.size() == 3, "expected: expect robot NAME");
    if (what == "objectives" || what == "bodies")
      return need(a.size() == 3 && index_value(a[2], &i), "expected a count");
    if (what == "reached" || what == "out_of_reach")
      return need(a.size() == 3 && index_value(a[2], &i), "expected an objective index");
    if (what == "position_error" || what == "rotation_error")
      return need(a.size() == 5 && index_value(a[2], &i) && a[3] == "<" &&
                      (what == "position_error" ? length_value(a[4], &v) : angle_value(a[4], &v)),
                  "expected: expect " + what + " INDEX < VALUE");
    return "unknown expectation '" + what + "'";
  }
  return "";
}

}  // namespace

std::vector<ScriptCommand> parse_script(const std::string& text, const std::string& source) {
  std::vector<ScriptCommand> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::vector<std::string> a = tokenize(line);
    if (a.empty()) continue;
    auto where = [&]() { return source + ":" + std::to_string(n) + ": "; };
    if (is_session_command(a[0])) {
      std::string error = check_session_command(a);
      if (!error.empty()) throw ScriptError(where() + a[0] + ": " + error);
      out.push_back({n, a});
      continue;
    }
    auto it = commands().find(a[0]);
    if (it == commands().end()) throw ScriptError(where() + "unknown command '" + a[0] + "'");
    int count = int(a.size()) - 1;
    if (count < it->second.min || (it->second.max >= 0 && count > it->second.max))
      throw ScriptError(where() + "'" + a[0] + "' takes " + std::to_string(it->second.min) +
                        (it->second.max == it->second.min ? ""
                         : it->second.max < 0             ? " or more"
                                              : " to " + std::to_string(it->second.max)) +
                        " arguments, got " + std::to_string(count));
    std::string error = check_arguments(a);
    if (!error.empty()) throw ScriptError(where() + a[0] + ": " + error);
    out.push_back({n, a});
  }
  return out;
}

void ScriptRunner::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScriptError(path + ": cannot read the script");
  std::stringstream ss;
  ss << in.rdbuf();
  commands_ = parse_script(ss.str(), path);
  path_ = path;
  base_dir_ = std::filesystem::path(path).parent_path().string();
}

bool ScriptRunner::finished() const {
  return pc_ >= commands_.size() && drags_.empty() && wait_ == 0 && queue_.empty();
}

int ScriptRunner::line() const {
  return pc_ < commands_.size() ? commands_[pc_].line : 0;
}

void ScriptRunner::fail(int line, const std::string& what, AppState& app) {
  std::string msg = path_ + ":" + std::to_string(line) + ": " + what;
  failures_.push_back(msg);
  app.error("script: " + msg);
}

void ScriptRunner::fail(const ScriptCommand& c, const std::string& what, AppState& app) {
  fail(c.line, c.args[0] + ": " + what, app);
}

std::string ScriptRunner::input_path(const std::string& p) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::path(p).is_relative() && !base_dir_.empty() && fs::exists(fs::path(base_dir_) / p, ec))
    return (fs::path(base_dir_) / p).string();
  return p;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Commands
// ---------------------------------------------------------------------------------------------

void ScriptRunner::step(ScriptHost& host) {
  // one-frame input ends
  input_.wheel = 0;
  for (int k : tapped_) input_.keys[k] = false;
  if (!tapped_.empty()) input_.ctrl = input_.shift = input_.alt = false;
  tapped_.clear();

  bool yielded = false;
  if (!queue_.empty()) {
    queue_.front()(input_);
    queue_.erase(queue_.begin());
    yielded = true;
  } else if (wait_ > 0 && --wait_ > 0) {
    yielded = true;
  } else if (!drags_.empty()) {
    yielded = advance_drag(host);
  }
  while (!yielded && drags_.empty() && pc_ < commands_.size()) {
    const ScriptCommand& c = commands_[pc_++];
    yielded = execute(host, c);
  }
  host.input = input_;
}

bool ScriptRunner::execute(ScriptHost& host, const ScriptCommand& c) {
  Ui& ui = host.ui;
  AppState& app = ui.app;
  Viewport3D& view = ui.view;
  const std::vector<std::string>& a = c.args;
  const std::string& cmd = a[0];
  double v = 0;
  int i = 0;
  bool b = false;
  auto objective = [&](const std::string& s) -> ObjectiveUi* {
    index_value(s, &i);
    if (i < int(app.objectives.size())) return &app.objectives[i];
    fail(c, "no objective " + s + " (there are " + std::to_string(app.objectives.size()) + ")",
         app);
    return nullptr;
  };
  auto tap = [&](int key) {
    input_.keys[key] = true;
    tapped_.push_back(key);
  };

  // scene files, undo / redo, stored configurations, soak (session.cpp)
  if (is_session_command(cmd)) {
    std::vector<std::string> args = a;
    if (cmd == "open_scene" || cmd == "import_targets") args[1] = input_path(args[1]);
    std::string error;
    int frames = 0;
    run_session_command(ui, args, &error, &frames);
    if (!error.empty()) fail(c, error, app);
    wait_ = frames;
    return frames > 0;
  }

  // robots, files and scenes: the menus' own actions
  if (cmd == "robot") {
    if (!open_robot(ui, a[1])) fail(c, "could not open robot '" + a[1] + "'", app);
    return false;
  }
  if (cmd == "load" || cmd == "open_urdf") {
    open_urdf(ui, input_path(a[1]));
    return false;
  }
  if (cmd == "scene") {
    try {
      if (!app.apply_scene(load_scene(input_path(a[1])))) fail(c, "scene not applied", app);
    } catch (const std::exception& e) {
      fail(c, e.what(), app);
    }
    return false;
  }

  // objectives
  if (cmd == "add") {
    ObjectiveKind kind;
    if (!parse_objective_kind(a[1], &kind)) {
      fail(c, "unknown objective type '" + a[1] + "'", app);
      return false;
    }
    std::size_t k = 2;
    int link = -1;
    if (kind_has_link(kind)) {
      if (a.size() < 3 || !app.model || (link = app.model->find_body(a[2])) < 0) {
        fail(c, "unknown link '" + (a.size() < 3 ? std::string() : a[2]) + "'", app);
        return false;
      }
      k = 3;
    }
    Vec3<double> offset{0, 0, 0};
    double weight = -1;
    bool hard = false;
    for (; k < a.size(); ++k) {
      if (a[k] == "offset" && k + 3 < a.size() && length_value(a[k + 1], &offset.x) &&
          length_value(a[k + 2], &offset.y) && length_value(a[k + 3], &offset.z)) {
        k += 3;
      } else if (a[k] == "weight" && k + 1 < a.size() && plain_number(a[k + 1], &weight)) {
        ++k;
      } else if (a[k] == "hard") {
        hard = true;
      } else {
        fail(c, "unexpected '" + a[k] + "' (offset X Y Z, weight W, hard)", app);
        return false;
      }
    }
    int index = app.add_objective(kind, link, offset);
    if (index < 0) {
      fail(c, "objective not added", app);
      return false;
    }
    if (weight >= 0) app.objectives[index].weight = weight;
    app.objectives[index].hard = hard;
    return false;
  }
  if (cmd == "remove") {
    if (objective(a[1])) app.remove_objective(i);
    return false;
  }
  if (cmd == "select_objective") {
    if (ObjectiveUi* o = objective(a[1])) {
      app.selection.objective = i;
      app.selection.body = o->link;
    }
    return false;
  }
  if (cmd == "select_link") {
    int body = app.model ? app.model->find_body(a[1]) : -1;
    if (body < 0)
      fail(c, "unknown link '" + a[1] + "'", app);
    else
      app.select_link(body);
    return false;
  }
  if (cmd == "weight" || cmd == "hard" || cmd == "enable") {
    ObjectiveUi* o = objective(a[1]);
    if (!o) return false;
    if (cmd == "weight" && plain_number(a[2], &v)) o->weight = v;
    if (cmd == "hard" && on_off(a[2], &b)) o->hard = b;
    if (cmd == "enable" && on_off(a[2], &b)) o->enabled = b;
    app.note_edit(cmd);
    return false;
  }
  if (cmd == "target") {
    ObjectiveUi* o = objective(a[1]);
    if (!o) return false;
    Transform<double> t = o->target;
    length_value(a[2], &t.p.x);
    length_value(a[3], &t.p.y);
    length_value(a[4], &t.p.z);
    if (a.size() == 9) {
      Quat<double> q;
      plain_number(a[5], &q.x);
      plain_number(a[6], &q.y);
      plain_number(a[7], &q.z);
      plain_number(a[8], &q.w);
      if (!(quat_norm(q) > 1e-9)) {
        fail(c, "zero quaternion", app);
        return false;
      }
      t.q = q;
    }
    app.set_target(i, t);
    app.note_edit("target");
    return false;
  }

  // configuration and solver
  if (cmd == "joint") {
    int j = app.model ? app.model->find_joint(a[1]) : -1;
    if (j < 0) {
      fail(c, "unknown joint '" + a[1] + "'", app);
    } else if (joint_value(a[2], &v)) {
      app.set_joint(j, v);
      app.note_edit("set joint");
    }
    return false;
  }
  if (cmd == "targets_follow" || cmd == "live") {
    on_off(a[1], &b);
    (cmd == "live" ? app.live_solve : app.targets_follow_joints) = b;
    return false;
  }
  if (cmd == "solver") {
    nlohmann::json value;
    if (on_off(a[2], &b) && a[2] != "0" && a[2] != "1")
      value = b;
    else if (plain_number(a[2], &v))
      value = v;
    else
      value = a[2];
    std::vector<std::string> warnings;
    apply_solver_json({{a[1], value}}, app.settings, warnings);
    for (const std::string& w : warnings) fail(c, w, app);
    return false;
  }

  // branch edit, seeds and demos
  if (cmd == "branch") {
    on_off(a[2], &b);
    int j = app.model ? app.model->find_joint(a[1]) : -1;
    if (!b) {
      end_branch_edit(app);
    } else if (j < 0) {
      fail(c, "unknown joint '" + a[1] + "'", app);
    } else if (!begin_branch_edit(app, j)) {
      fail(c, "joint '" + a[1] + "' has not one coordinate", app);
    } else if (app.model->joint_child[j] >= 0) {
      app.selection.body = app.model->joint_child[j];
    }
    return false;
  }
  if (cmd == "branch_follow") {
    on_off(a[1], &b);
    set_branch_follow(app, b);
    return false;
  }
  if (cmd == "branch_set") {
    int j = app.model ? app.model->find_joint(a[1]) : -1;
    joint_value(a[2], &v);
    if (j < 0)
      fail(c, "unknown joint '" + a[1] + "'", app);
    else if (!app.branch.active || (j != app.branch.joint && !begin_branch_edit(app, j)))
      fail(c, "not in branch edit mode (branch JOINT on)", app);
    else if (!branch_set(app, v))
      fail(c, "edit not applied", app);
    return false;
  }
  if (cmd == "adopt_seed") {
    index_value(a[1], &i);
    if (!adopt_seed(app, i))
      fail(c, "no seed " + a[1] + " (there are " + std::to_string(seed_count(app)) + ")", app);
    return false;
  }
  if (cmd == "click_ghost") {
    index_value(a[1], &i);
    glm::vec2 px;
    if (!view.visuals.options.ghosts || i >= view.visuals.ghost_count()) {
      fail(c,
           "no ghost " + a[1] + " (view ghosts on; " + std::to_string(view.visuals.ghost_count()) +
               " ghosts)",
           app);
      return false;
    }
    if (!view.ghost_screen_point(app, i, &px)) {
      fail(c, "ghost " + a[1] + " is not visible apart from the robot", app);
      return false;
    }
    input_.mouse = px;
    queue_.push_back([](InputState& in) { in.down[0] = true; });
    queue_.push_back([](InputState& in) { in.down[0] = false; });
    return true;
  }
  if (cmd == "demo") {
    namespace fs = std::filesystem;
    fs::path file = fs::path(asset_dir()) / "demos" / (a[1] + ".txt");
    std::ifstream in(file);
    if (!in) {
      fail(c, "no demo '" + a[1] + "' (" + file.string() + ")", app);
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      std::vector<ScriptCommand> demo = parse_script(ss.str(), file.string());
      commands_.insert(commands_.begin() + std::ptrdiff_t(pc_), demo.begin(), demo.end());
    } catch (const ScriptError& e) {
      fail(c, e.what(), app);
    }
    return false;
  }

  // view and input
  if (cmd == "view") {
    on_off(a[2], view_flag(ui, view_flag_names().at(a[1])));
    return false;
  }
  if (cmd == "gizmo") {
    if (a[1] == "translate")
      tap(GLFW_KEY_W);
    else if (a[1] == "rotate")
      tap(GLFW_KEY_E);
    else if ((a[1] == "local") != (view.gizmo.space == render::GizmoSpace::kLocal))
      tap(GLFW_KEY_L);
    return true;
  }
  if (cmd == "key") {
    tap(key_code(a[1]));
    for (std::size_t k = 2; k < a.size(); ++k) {
      if (a[k] == "ctrl") {
        tap(GLFW_KEY_LEFT_CONTROL);
        input_.ctrl = true;
      } else if (a[k] == "shift") {
        tap(GLFW_KEY_LEFT_SHIFT);
        input_.shift = true;
      } else if (a[k] == "alt") {
        tap(GLFW_KEY_LEFT_ALT);
        input_.alt = true;
      }
    }
    return true;
  }
  if (cmd == "frame") {
    tap(GLFW_KEY_F);
    return true;
  }
  if (cmd == "camera") {
    for (std::size_t k = 1; k < a.size(); k += 2) {
      if (a[k] == "target") {
        double x, y, z;
        length_value(a[k + 1], &x);
        length_value(a[k + 2], &y);
        length_value(a[k + 3], &z);
        view.camera.target = glm::vec3(float(x), float(y), float(z));
        k += 2;
        continue;
      }
      if (a[k] == "distance")
        length_value(a[k + 1], &v);
      else
        angle_value(a[k + 1], &v);
      if (a[k] == "yaw") view.camera.yaw = float(v);
      if (a[k] == "pitch") view.camera.pitch = float(std::clamp(v, -1.55, 1.55));
      if (a[k] == "distance") view.camera.distance = float(std::max(v, 1e-3));
      if (a[k] == "fov") view.camera.fov_y = float(std::clamp(v, 0.1, 3.0));
    }
    return false;
  }
  if (cmd == "mouse_move") {
    plain_number(a[1], &v);
    input_.mouse.x = float(v);
    plain_number(a[2], &v);
    input_.mouse.y = float(v);
    return true;
  }
  if (cmd == "mouse_down" || cmd == "mouse_up") {
    input_.down[a.size() > 1 ? button_index(a[1]) : 0] = cmd == "mouse_down";
    return true;
  }
  if (cmd == "click") {
    plain_number(a[1], &v);
    input_.mouse.x = float(v);
    plain_number(a[2], &v);
    input_.mouse.y = float(v);
    int button = a.size() > 3 ? button_index(a[3]) : 0;
    queue_.push_back([button](InputState& in) { in.down[button] = true; });
    queue_.push_back([button](InputState& in) { in.down[button] = false; });
    return true;
  }
  if (cmd == "click_link") {
    int body = app.model ? app.model->find_body(a[1]) : -1;
    glm::vec2 px;
    if (body < 0) {
      fail(c, "unknown link '" + a[1] + "'", app);
      return false;
    }
    if (!view.link_screen_point(app, body, &px)) {
      fail(c, "link '" + a[1] + "' is not visible", app);
      return false;
    }
    input_.mouse = px;
    int button = a.size() > 2 ? button_index(a[2]) : 0;
    queue_.push_back([button](InputState& in) { in.down[button] = true; });
    queue_.push_back([button](InputState& in) { in.down[button] = false; });
    return true;
  }
  if (cmd == "scroll") {
    plain_number(a[1], &v);
    input_.wheel = float(v);
    return true;
  }
  if (cmd == "drag" || cmd == "drag_pose") {
    Drag base;
    index_value(a[1], &base.objective);
    base.line = c.line;
    std::string error;
    int end = drag_options(a, cmd == "drag" ? 3 : 2, &base.frames, &base.snap, &error);
    if (cmd == "drag") {
      Drag d = base;
      d.handle = render::gizmo_handle_from_name(a[2]);
      if (render::gizmo_handle_in_mode(d.handle, render::GizmoMode::kRotate)) {
        angle_value(a[3], &d.angle);
      } else if (end - 3 == 1) {
        length_value(a[3], &d.move.x);
        d.along_axis = true;
      } else {
        length_value(a[3], &d.move.x);
        length_value(a[4], &d.move.y);
        length_value(a[5], &d.move.z);
      }
      drags_.push_back(d);
    } else {
      // world axes: translations along X, Y, Z, then rotations about X, Y, Z
      if (view.gizmo.space == render::GizmoSpace::kLocal) tap(GLFW_KEY_L);
      const render::GizmoHandle moves[3] = {render::GizmoHandle::kTranslateX,
                                            render::GizmoHandle::kTranslateY,
                                            render::GizmoHandle::kTranslateZ};
      const render::GizmoHandle turns[3] = {render::GizmoHandle::kRotateX,
                                            render::GizmoHandle::kRotateY,
                                            render::GizmoHandle::kRotateZ};
      for (int k = 0; k < 3; ++k) {
        length_value(a[2 + k], &v);
        if (v == 0) continue;
        Drag d = base;
        d.handle = moves[k];
        d.move[k] = v;
        drags_.push_back(d);
      }
      for (int k = 0; k < 3; ++k) {
        angle_value(a[5 + k], &v);
        if (v == 0) continue;
        Drag d = base;
        d.handle = turns[k];
        d.angle = v;
        drags_.push_back(d);
      }
      if (drags_.empty()) return false;
    }
    // a space switch takes this frame; otherwise the first drag starts now
    if (tapped_.empty()) advance_drag(host);
    return true;
  }
  if (cmd == "wait") {
    index_value(a[1], &wait_);
    return wait_ > 0;
  }
  if (cmd == "screenshot") {
    ui.screenshot_path = a[1];
    return true;
  }
  if (cmd == "dump") {
    host.dump_path = a[1];
    return true;
  }
  if (cmd == "stats") {
    app.stats.reset();
    return false;
  }
  if (cmd == "echo") {
    std::string text;
    for (std::size_t k = 1; k < a.size(); ++k) text += (k > 1 ? " " : "") + a[k];
    app.info(text);
    return false;
  }
  if (cmd == "quit") {
    host.quit = true;
    pc_ = commands_.size();
    return true;
  }
  if (cmd == "expect") {
    const std::string& what = a[1];
    auto check = [&](bool ok, const std::string& actual) {
      if (!ok) {
        std::string text;
        for (std::size_t k = 1; k < a.size(); ++k) text += (k > 1 ? " " : "") + a[k];
        fail(c, text + " failed (" + actual + ")", app);
      }
    };
    if (what == "converged") {
      check(app.solve.converged, "not converged");
    } else if (what == "robot") {
      std::string stem = std::filesystem::path(app.robot_path).stem().string();
      check(app.robot_title == a[2] || stem == a[2], "robot is " + app.robot_title);
    } else if (what == "objectives") {
      index_value(a[2], &i);
      check(int(app.objectives.size()) == i, std::to_string(app.objectives.size()));
    } else if (what == "bodies") {
      index_value(a[2], &i);
      int n = app.model ? app.model->body_count : 0;
      check(n == i, std::to_string(n));
    } else if (ObjectiveUi* o = objective(a[2])) {
      const ObjectiveStatus& s = o->status;
      char actual[96];
      std::snprintf(actual, sizeof actual, "position error %.4g m, rotation error %.4g rad",
                    s.position_error, s.rotation_error);
      if (what == "reached") check(s.reached, actual);
      if (what == "out_of_reach") check(s.out_of_reach, actual);
      if (what == "position_error") {
        length_value(a[4], &v);
        check(s.position_error < v, actual);
      }
      if (what == "rotation_error") {
        angle_value(a[4], &v);
        check(s.rotation_error < v, actual);
      }
    }
    return false;
  }
  fail(c, "not handled", app);
  return false;
}

}  // namespace ikwb::gui
