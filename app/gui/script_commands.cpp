// The script's commands: one table (at the end) of name, argument counts, parse-time check and
// run function; README.md ("Automation scripts"), docs/sessions.md and docs/visuals.md describe
// them. Menu actions call the menus' own functions; mouse and key actions write the runner's
// input.
//
// [SECTION] Helpers
// [SECTION] Robots, files and scenes
// [SECTION] Objectives
// [SECTION] Configuration and solver
// [SECTION] Branch edit, seeds and demos
// [SECTION] View and input
// [SECTION] Gizmo drags
// [SECTION] Outputs and checks
// [SECTION] Session: scene files, undo, stored configurations, diagnostics
// [SECTION] The table
#include "app/gui/script_commands.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app/gui/diagnostics.hpp"
#include "app/gui/recent_files.hpp"
#include "app/gui/scene_files.hpp"
#include "app/gui/script_args.hpp"
#include "app/gui/script_objectives.hpp"
#include "app/gui/session.hpp"
#include "app/gui/stored_configs.hpp"
#include "app/gui/visuals.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/spatial.hpp"

namespace ikwb::gui {

namespace {

// frames until a tapped key has acted on the view (gizmo local / world toggles with L)
constexpr int kKeyFrames = 2;

using Args = std::vector<std::string>;
using Turn = ScriptRunner::Turn;

// ---------------------------------------------------------------------------------------------
// [SECTION] Helpers
// ---------------------------------------------------------------------------------------------

std::string need(bool ok, const std::string& what) {
  return ok ? std::string() : what;
}

// the View menu's toggles by script name
const std::map<std::string, int>& view_flag_names() {
  // clang-format off
  static const std::map<std::string, int> n = {
      {"grid", 0},           {"axes", 1},        {"targets", 2},          {"frames", 3},
      {"hints", 4},          {"robot_panel", 5}, {"objectives_panel", 6}, {"messages", 7},
      {"ghosts", 8},         {"residuals", 9},   {"limits", 10},          {"velocities", 11},
      {"residual_panel", 12},
      {"collision_shapes", 13}, {"near_collisions", 14}, {"collision_pairs", 15},
      {"skeleton", 16}};
  // clang-format on
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
                   &ui.view.visuals.options.residual_panel,
                   &ui.view.visuals.options.collision_shapes,
                   &ui.view.visuals.options.near_collisions,
                   &ui.view.visuals.options.collision_pairs,
                   &ui.view.visuals.options.skeleton};
  return flags[k];
}

// the trailing "[frames K] [snap]" options of drag commands; returns the index after the amounts
int drag_options(const Args& a, int from, int* frames, bool* snap, std::string* error) {
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

// the argument words joined by spaces (echo, expect's report)
std::string joined(const Args& a) {
  std::string text;
  for (std::size_t k = 1; k < a.size(); ++k) text += (k > 1 ? " " : "") + a[k];
  return text;
}

std::string check_objective_index(const Args& a) {
  int i;
  return need(index_value(a[1], &i), "expected an objective index");
}

std::string check_on_off(const Args& a) {
  bool b;
  return need(on_off(a[1], &b), "expected on or off");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Robots, files and scenes
// ---------------------------------------------------------------------------------------------

bool run_robot(Turn& t) {
  const Args& a = t.args();
  if (!open_robot(t.ui(), a[1])) t.fail("could not open robot '" + a[1] + "'");
  return false;
}

bool run_open_urdf(Turn& t) {
  open_urdf(t.ui(), t.input_path(t.args()[1]));
  return false;
}

// as File > Open scene: the scene's stored configurations and the session's scene path come
// along (open_scene without a session's recent list)
bool run_scene(Turn& t) {
  if (!open_scene_file(t.ui(), t.input_path(t.args()[1]))) t.fail("scene not opened");
  return false;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Objectives
// ---------------------------------------------------------------------------------------------

bool run_add(Turn& t) {
  std::string error;
  if (!script_add_objective(t.app(), t.args(), &error)) t.fail(error);
  return false;
}

bool run_set(Turn& t) {
  std::string error;
  if (!script_set_objective(t.app(), t.args(), &error)) t.fail(error);
  return false;
}

bool run_remove(Turn& t) {
  int i;
  if (t.objective(t.args()[1], &i)) t.app().remove_objective(i);
  return false;
}

bool run_select_objective(Turn& t) {
  AppState& app = t.app();
  int i;
  if (WorkbenchObjective* o = t.objective(t.args()[1], &i)) {
    app.selection.objective = i;
    app.selection.body = o->link();
  }
  return false;
}

bool run_select_link(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int body = app.model ? app.model->find_body(a[1]) : -1;
  if (body < 0)
    t.fail("unknown link '" + a[1] + "'");
  else
    app.select_link(body);
  return false;
}

std::string check_weight(const Args& a) {
  int i;
  double v;
  return need(index_value(a[1], &i) && plain_number(a[2], &v) && v >= 0 && v <= kMaxWeight,
              "expected: weight INDEX VALUE (0 to 1e6)");
}

std::string check_index_on_off(const Args& a) {
  int i;
  bool b;
  return need(index_value(a[1], &i) && on_off(a[2], &b), "expected: " + a[0] + " INDEX on|off");
}

// weight, hard and enable
bool run_objective_setting(Turn& t) {
  const Args& a = t.args();
  int i;
  WorkbenchObjective* o = t.objective(a[1], &i);
  if (!o) return false;
  double v;
  bool b;
  if (a[0] == "weight" && plain_number(a[2], &v)) o->spec.params.weight = v;
  if (a[0] == "hard" && on_off(a[2], &b)) o->spec.params.hard = b;
  if (a[0] == "enable" && on_off(a[2], &b)) o->spec.params.enabled = b;
  if (a[0] == "weight")
    t.app().note_weight_set(i);
  else
    t.app().note_edit(a[0]);
  return false;
}

std::string check_target(const Args& a) {
  if (a.size() != 5 && a.size() != 9) return "expected: target INDEX X Y Z [QX QY QZ QW]";
  int i;
  double v;
  bool ok = index_value(a[1], &i), near = true;
  for (std::size_t k = 2; k < a.size(); ++k) {
    ok = ok && (k < 5 ? length_value(a[k], &v) : plain_number(a[k], &v));
    near = near && (k >= 5 || !ok || std::fabs(v) <= kMaxLength);
  }
  if (!ok) return "expected numbers";
  if (!near) return "a target position within 1e6 m per axis";
  if (a.size() == 9) {
    // as the command line's T.csv: a quaternion is unit to 1e-3 (typed values round)
    double q[4];
    for (int k = 0; k < 4; ++k) plain_number(a[std::size_t(5 + k)], &q[k]);
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (std::fabs(norm - 1.0) > 1e-3)
      return "the quaternion QX QY QZ QW is not unit (norm " + std::to_string(norm) + ")";
  }
  return "";
}

bool run_target(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int i;
  WorkbenchObjective* o = t.objective(a[1], &i);
  if (!o) return false;
  Transform<double> target = o->target;
  length_value(a[2], &target.p.x);
  length_value(a[3], &target.p.y);
  length_value(a[4], &target.p.z);
  if (a.size() == 9) {
    Quat<double> q;
    plain_number(a[5], &q.x);
    plain_number(a[6], &q.y);
    plain_number(a[7], &q.z);
    plain_number(a[8], &q.w);
    if (!(quat_norm(q) > 1e-9)) {
      t.fail("zero quaternion");
      return false;
    }
    target.q = q;
  }
  app.set_target(i, target);
  app.note_edit("target");
  return false;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Configuration and solver
// ---------------------------------------------------------------------------------------------

std::string check_joint(const Args& a) {
  double v;
  // within 1e6 as a target's position: 1e308 deg was taken and said to be "inf deg"
  return need(joint_value(a[2], &v) && std::fabs(v) <= kMaxLength,
              "expected: joint NAME VALUE[deg|mm], within 1e6 (rad or m)");
}

// value s of joint j in the joint's own unit: a length for a prismatic joint, an angle for the
// others (a plain number is either); a unit of the other kind fails the command
bool joint_value_of(Turn& t, int j, const std::string& s, double* out) {
  const std::string& name = t.app().model->joint_name[j];
  if (JointType(t.app().model->joint_type[j]) == JointType::kPrismatic) {
    if (length_value(s, out)) return true;
    t.fail("joint '" + name + "' is prismatic: give a length (m, cm, mm or a plain number)");
  } else {
    if (angle_value(s, out)) return true;
    t.fail("joint '" + name + "' turns: give an angle (rad, deg or a plain number)");
  }
  return false;
}

bool run_joint(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int j = app.model ? app.model->find_joint(a[1]) : -1;
  double v;
  if (j < 0) {
    t.fail("unknown joint '" + a[1] + "'");
    return false;
  }
  if (joint_value_of(t, j, a[2], &v)) {
    app.set_joint(j, v);
    app.note_edit("set joint");
  }
  return false;
}

// lock NAME on|off
bool run_lock(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int j = app.model ? app.model->find_joint(a[1]) : -1;
  bool on = false;
  on_off(a[2], &on);
  if (j < 0) {
    t.fail("unknown joint '" + a[1] + "'");
  } else {
    app.set_joint_locked(j, on);
    app.note_edit(on ? "lock joint" : "unlock joint");
  }
  return false;
}

// frame_step VALUE|off: the frame step bound (a joint value: rad, or with deg / mm suffixes)
std::string check_frame_step(const Args& a) {
  double v;
  return need(a[1] == "off" || (joint_value(a[1], &v) && v >= 0),
              "expected: frame_step VALUE (>= 0, as for joint: rad, m, deg or mm) | off");
}

bool run_frame_step(Turn& t) {
  double v = 0;
  if (t.args()[1] != "off") joint_value(t.args()[1], &v);
  t.app().frame_step = v;
  return false;
}

// frame_budget MS|off: the frame budget in ms (off: 0, every seed solved every frame)
std::string check_frame_budget(const Args& a) {
  double v;
  return need(a[1] == "off" || (plain_number(a[1], &v) && v >= 0),
              "expected: frame_budget MS (>= 0; 0 or off: no budget)");
}

bool run_frame_budget(Turn& t) {
  double v = 0;
  if (t.args()[1] != "off") plain_number(t.args()[1], &v);
  t.app().frame_budget_ms = v;
  t.choose_budget();
  return false;
}

std::string check_pair(const Args& a) {
  bool b;
  if (a.size() == 3)
    return need(a[1] == "overlapping" && a[2] == "off",
                "expected: pair LINK_A LINK_B on|off, or pair overlapping off");
  return need(on_off(a.back(), &b), "expected on or off");
}

// pair LINK_A LINK_B on|off: checks a self collision pair or stops checking it;
// pair overlapping off: stops checking the self pairs that overlap at the current pose
bool run_pair(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  if (a.size() == 3) {
    if (app.turn_off_overlapping_pairs() == 0) t.app().info("no self pair overlaps at this pose");
    return false;
  }
  int ba = app.model ? app.model->find_body(a[1]) : -1;
  int bb = app.model ? app.model->find_body(a[2]) : -1;
  bool on = false;
  on_off(a[3], &on);
  if (ba < 0 || bb < 0)
    t.fail("unknown link '" + (ba < 0 ? a[1] : a[2]) + "'");
  else if (!app.set_collision_pair(ba, bb, on))
    t.fail("the pair " + a[1] + " - " + a[2] + " cannot be checked");
  return false;
}

// limits NAME LOWER UPPER (as joint values: deg / mm suffixes; "inf" / "-inf" open a side) or
// limits NAME reset
std::string check_limits(const Args& a) {
  double v;
  if (a.size() == 3 && a[2] == "reset") return "";
  auto bound = [&](const std::string& s) {
    return s == "inf" || s == "-inf" || (joint_value(s, &v) && std::fabs(v) <= kMaxLength);
  };
  return need(a.size() == 4 && bound(a[2]) && bound(a[3]),
              "expected: limits NAME LOWER UPPER (values as for joint, within 1e6, or inf / "
              "-inf for none) | limits NAME reset");
}

bool run_limits(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int j = app.model ? app.model->find_joint(a[1]) : -1;
  if (j < 0) {
    t.fail("unknown joint '" + a[1] + "'");
    return false;
  }
  if (a[2] == "reset") {
    app.reset_joint_limits(j);
    app.note_edit("reset joint limits");
    return false;
  }
  auto bound = [](const std::string& s) {
    double v = 0;
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    joint_value(s, &v);
    return v;
  };
  // checked here, so that the script's failure is the one message (set_joint_limits would log
  // its own as well)
  const Model& m = *app.model;
  if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) {
    t.fail("joint '" + a[1] + "' is not a moving 1-dof joint");
    return false;
  }
  const double lower = bound(a[2]), upper = bound(a[3]);
  if (lower > upper) {
    t.fail("joint '" + a[1] + "': lower limit " + a[2] + " is above upper limit " + a[3]);
    return false;
  }
  if (JointType(m.joint_type[j]) == JointType::kContinuous &&
      (std::isfinite(lower) || std::isfinite(upper))) {
    t.fail("joint '" + a[1] + "' is continuous: it has no limits");
    return false;
  }
  const std::string mimics = app.mimic_limits_problem(j, lower, upper);
  if (!mimics.empty()) {
    t.fail("joint '" + a[1] + "': " + mimics);
    return false;
  }
  if (app.set_joint_limits(j, lower, upper)) app.note_edit("set joint limits");
  return false;
}

// targets_follow and live
bool run_toggle(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  bool b = false;
  on_off(a[1], &b);
  (a[0] == "live" ? app.live_solve : app.targets_follow_joints) = b;
  return false;
}

bool run_solver(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  nlohmann::json value;
  bool b;
  double v;
  if (on_off(a[2], &b) && a[2] != "0" && a[2] != "1")
    value = b;
  else if (plain_number(a[2], &v))
    value = v;
  else
    value = a[2];
  std::vector<std::string> warnings;
  apply_solver_json({{a[1], value}}, app.settings, warnings);
  for (const std::string& w : warnings) t.fail(w);
  return false;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Branch edit, seeds and demos
// ---------------------------------------------------------------------------------------------

std::string check_last_on_off(const Args& a) {
  bool b;
  return need(on_off(a.back(), &b), "expected on or off");
}

bool run_branch(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  bool b = false;
  on_off(a[2], &b);
  int j = app.model ? app.model->find_joint(a[1]) : -1;
  if (!b) {
    end_branch_edit(app);
  } else if (j < 0) {
    t.fail("unknown joint '" + a[1] + "'");
  } else if (!begin_branch_edit(app, j)) {
    t.fail("joint '" + a[1] + "' has not one coordinate");
  } else if (app.model->joint_child[j] >= 0) {
    app.selection.body = app.model->joint_child[j];
  }
  return false;
}

bool run_branch_follow(Turn& t) {
  bool b = false;
  on_off(t.args()[1], &b);
  set_branch_follow(t.app(), b);
  return false;
}

std::string check_branch_set(const Args& a) {
  double v;
  return need(joint_value(a[2], &v), "expected: branch_set JOINT VALUE[deg|mm]");
}

bool run_branch_set(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int j = app.model ? app.model->find_joint(a[1]) : -1;
  double v = 0;
  if (j < 0)
    t.fail("unknown joint '" + a[1] + "'");
  else if (!joint_value_of(t, j, a[2], &v))
    return false;
  else if (!app.branch.active || (j != app.branch.joint && !begin_branch_edit(app, j)))
    t.fail("not in branch edit mode (branch JOINT on)");
  else if (!branch_set(app, v))
    t.fail("edit not applied");
  else if (const std::string clamped = branch_clamp_message(app, v); !clamped.empty())
    app.warn(clamped);
  return false;
}

std::string check_seed_index(const Args& a) {
  int i;
  return need(index_value(a[1], &i), "expected a seed index");
}

bool run_adopt_seed(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int i = 0;
  index_value(a[1], &i);
  if (!adopt_seed(app, i))
    t.fail("no seed " + a[1] + " (there are " + std::to_string(seed_count(app)) + ")");
  return false;
}

bool run_click_ghost(Turn& t) {
  AppState& app = t.app();
  Viewport3D& view = t.view();
  const Args& a = t.args();
  int i = 0;
  index_value(a[1], &i);
  glm::vec2 px;
  if (!view.visuals.options.ghosts) {
    t.fail("the ghosts are hidden: `view ghosts on` first");
    return false;
  }
  if (i >= view.visuals.ghost_count()) {
    t.fail("no ghost " + a[1] + " (" + std::to_string(view.visuals.ghost_count()) + " ghosts)");
    return false;
  }
  if (!view.ghost_screen_point(app, i, &px)) {
    t.fail("ghost " + a[1] + " is not visible apart from the robot");
    return false;
  }
  t.input().mouse = px;
  t.click(0);
  return true;
}

// a demo that is not there is a syntax error, found before the window opens (a misspelt name
// surfaced only when its line ran, maybe hours into a looping show), with the demos there are
std::string check_demo(const Args& a) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(asset_dir()) / "demos";
  std::error_code ec;
  if (fs::is_regular_file(folder / (a[1] + ".txt"), ec)) return "";
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder, ec))
    if (e.path().extension() == ".txt") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return "no demo '" + a[1] + "' in " + folder.string() +
         (list.empty() ? "" : " (there are: " + list + ")");
}

// a looping demo (a trade show's all-day run): the script from its first command again, after a
// frame (a script of nothing else does not spin within one)
bool run_repeat(Turn& t) {
  t.restart();
  return true;
}

bool run_demo(Turn& t) {
  namespace fs = std::filesystem;
  const Args& a = t.args();
  fs::path file = fs::path(asset_dir()) / "demos" / (a[1] + ".txt");
  std::ifstream in(file);
  if (!in) {
    t.fail("no demo '" + a[1] + "' (" + file.string() + ")");
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    t.insert(parse_script(ss.str(), file.string()));
  } catch (const ScriptError& e) {
    t.fail(e.what());
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] View and input
// ---------------------------------------------------------------------------------------------

std::string check_view(const Args& a) {
  bool b;
  // the names in view_flag order
  std::vector<std::string> names(view_flag_names().size());
  for (const auto& [name, k] : view_flag_names()) names[k] = name;
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : "|") + name;
  return need(view_flag_names().count(a[1]) && on_off(a[2], &b),
              "expected: view " + list + " on|off");
}

bool run_view(Turn& t) {
  const Args& a = t.args();
  bool* flag = view_flag(t.ui(), view_flag_names().at(a[1]));
  on_off(a[2], flag);
  // the user's choice, which the next robot keeps (Visuals::skeleton_for_robot)
  if (a[1] == "skeleton") t.view().visuals.choose_skeleton(*flag);
  return false;
}

std::string check_gizmo(const Args& a) {
  return need(a[1] == "translate" || a[1] == "rotate" || a[1] == "world" || a[1] == "local",
              "expected translate, rotate, world or local");
}

bool run_gizmo(Turn& t) {
  const Args& a = t.args();
  if (a[1] == "translate")
    t.tap(GLFW_KEY_W);
  else if (a[1] == "rotate")
    t.tap(GLFW_KEY_E);
  else if ((a[1] == "local") != (t.view().gizmo.space == render::GizmoSpace::kLocal)) {
    // L toggles: the next command must see the space it set (two `gizmo` lines in a row
    // would otherwise both toggle), so wait until the frames have taken the key
    t.tap(GLFW_KEY_L);
    t.wait(kKeyFrames);
  }
  return true;
}

std::string check_key(const Args& a) {
  if (key_code(a[1]) < 0) return "unknown key '" + a[1] + "'";
  for (std::size_t k = 2; k < a.size(); ++k)
    if (a[k] != "ctrl" && a[k] != "shift" && a[k] != "alt")
      return "unknown modifier '" + a[k] + "' (ctrl, shift, alt)";
  return "";
}

bool run_key(Turn& t) {
  const Args& a = t.args();
  InputState& in = t.input();
  t.tap(key_code(a[1]));
  for (std::size_t k = 2; k < a.size(); ++k) {
    if (a[k] == "ctrl") {
      t.tap(GLFW_KEY_LEFT_CONTROL);
      in.ctrl = true;
    } else if (a[k] == "shift") {
      t.tap(GLFW_KEY_LEFT_SHIFT);
      in.shift = true;
    } else if (a[k] == "alt") {
      t.tap(GLFW_KEY_LEFT_ALT);
      in.alt = true;
    }
  }
  return true;
}

bool run_frame(Turn& t) {
  t.tap(GLFW_KEY_F);
  return true;
}

std::string check_camera(const Args& a) {
  double v;
  for (std::size_t k = 1; k < a.size(); ++k) {
    const std::string& key = a[k];
    int n = key == "target" ? 3 : 1;
    if (key != "yaw" && key != "pitch" && key != "distance" && key != "target" && key != "fov")
      return "unknown camera setting '" + key + "' (yaw, pitch, distance, target, fov)";
    for (int m = 1; m <= n; ++m) {
      if (k + m >= a.size() ||
          !(key == "yaw" || key == "pitch" || key == "fov" ? angle_value(a[k + m], &v)
                                                           : length_value(a[k + m], &v)))
        return "camera " + key + " needs " + std::to_string(n) + " number(s)";
      // what a scene's camera takes (scene_bridge.cpp): the camera's floats overflowed beyond
      if (key == "target" && !(std::fabs(v) <= kMaxLength))
        return "camera target must be within 1e6 m per axis";
    }
    // the ranges the camera keeps (a value outside was clamped without a word)
    if (key == "distance" && !(v > 0 && v <= kMaxLength))
      return "camera distance must be > 0 and <= 1e6 m";
    if (key == "yaw" && !(std::fabs(v) <= kMaxLength)) return "camera yaw must be within 1e6 rad";
    if (key == "fov" && !(v >= 0.1 && v <= 3.0))
      return "camera fov must be within 0.1 and 3.0 rad (5.7 to 171.9 deg)";
    if (key == "pitch" && !(std::fabs(v) <= 1.55))
      return "camera pitch must be within -1.55 and 1.55 rad (+-88.8 deg)";
    k += n;
  }
  return "";
}

// A robot or scene opened earlier in this frame is framed (or takes the scene's camera) when the
// viewport takes its model, after the script's turn: the viewport takes it now, so that framing
// does not undo this command. Before any robot, the keys wait with the scene's camera keys for
// the first one (AppState::scene_camera).
bool run_camera(Turn& t) {
  AppState& app = t.app();
  t.view().sync_model(app);
  render::Camera& camera = t.view().camera;
  nlohmann::json* waiting = app.model ? nullptr : &app.scene_camera;
  const Args& a = t.args();
  double v = 0;
  for (std::size_t k = 1; k < a.size(); k += 2) {
    if (a[k] == "target") {
      double x, y, z;
      length_value(a[k + 1], &x);
      length_value(a[k + 2], &y);
      length_value(a[k + 3], &z);
      camera.target = glm::vec3(float(x), float(y), float(z));
      if (waiting) (*waiting)["target"] = {x, y, z};
      k += 2;
      continue;
    }
    if (a[k] == "distance")
      length_value(a[k + 1], &v);
    else
      angle_value(a[k + 1], &v);
    if (a[k] == "yaw") camera.yaw = float(v);
    if (a[k] == "pitch") camera.pitch = float(std::clamp(v, -1.55, 1.55));
    if (a[k] == "distance") camera.distance = float(std::max(v, 1e-3));
    if (a[k] == "fov") camera.fov_y = float(std::clamp(v, 0.1, 3.0));
    if (waiting && a[k] != "fov")
      (*waiting)[a[k]] = a[k] == "yaw"     ? camera.yaw
                         : a[k] == "pitch" ? camera.pitch
                                           : camera.distance;
  }
  return false;
}

std::string check_mouse_move(const Args& a) {
  double v;
  return need(plain_number(a[1], &v) && plain_number(a[2], &v),
              "expected: mouse_move X Y (window pixels)");
}

bool run_mouse_move(Turn& t) {
  const Args& a = t.args();
  double v = 0;
  plain_number(a[1], &v);
  t.input().mouse.x = float(v);
  plain_number(a[2], &v);
  t.input().mouse.y = float(v);
  return true;
}

std::string check_button(const Args& a) {
  return need(a.size() < 2 || button_index(a[1]) >= 0, "expected left, right or middle");
}

// mouse_down and mouse_up
bool run_mouse_button(Turn& t) {
  const Args& a = t.args();
  t.input().down[a.size() > 1 ? button_index(a[1]) : 0] = a[0] == "mouse_down";
  return true;
}

std::string check_click(const Args& a) {
  double v;
  return need(
      plain_number(a[1], &v) && plain_number(a[2], &v) && (a.size() < 4 || button_index(a[3]) >= 0),
      "expected: click X Y [left|right|middle]");
}

bool run_click(Turn& t) {
  const Args& a = t.args();
  double v = 0;
  plain_number(a[1], &v);
  t.input().mouse.x = float(v);
  plain_number(a[2], &v);
  t.input().mouse.y = float(v);
  t.click(a.size() > 3 ? button_index(a[3]) : 0);
  return true;
}

std::string check_click_link(const Args& a) {
  return need(a.size() < 3 || button_index(a[2]) >= 0, "expected: click_link NAME [button]");
}

bool run_click_link(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  int body = app.model ? app.model->find_body(a[1]) : -1;
  glm::vec2 px;
  if (body < 0) {
    t.fail("unknown link '" + a[1] + "'");
    return false;
  }
  if (!t.view().link_screen_point(app, body, &px)) {
    t.fail("link '" + a[1] + "' is not visible");
    return false;
  }
  t.input().mouse = px;
  t.click(a.size() > 2 ? button_index(a[2]) : 0);
  return true;
}

std::string check_scroll(const Args& a) {
  double v;
  return need(plain_number(a[1], &v), "expected a number of wheel steps");
}

bool run_scroll(Turn& t) {
  double v = 0;
  plain_number(t.args()[1], &v);
  t.input().wheel = float(v);
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Gizmo drags
// ---------------------------------------------------------------------------------------------

std::string check_drag(const Args& a) {
  const bool pose = a[0] == "drag_pose";
  int frames = 30, i;
  bool snap = false;
  double v;
  std::string error;
  int end = drag_options(a, pose ? 2 : 3, &frames, &snap, &error);
  if (end < 0) return error;
  if (!index_value(a[1], &i)) return "expected an objective index";
  if (pose) {
    if (end != 8) return "expected: drag_pose INDEX DX DY DZ RX RY RZ [frames K] [snap]";
    for (int k = 2; k < 8; ++k) {
      if (!(k < 5 ? length_value(a[k], &v) : angle_value(a[k], &v)))
        return "'" + a[k] + "' is not " + (k < 5 ? "a length" : "an angle");
      if (k < 5 && !(std::fabs(v) <= kMaxLength)) return "a drag moves at most 1e6 m per axis";
    }
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
  for (int k = 3; k < end; ++k) {
    if (!length_value(a[k], &v)) return "'" + a[k] + "' is not a length";
    // as far as a target may be (a drag beyond leaves the screen and moved nothing)
    if (!(std::fabs(v) <= kMaxLength)) return "a drag moves at most 1e6 m per axis";
  }
  return "";
}

// the objective, frames and snap of a drag command; *end: the index after its amounts
ScriptRunner::Drag drag_base(const Turn& t, int* end) {
  const Args& a = t.args();
  ScriptRunner::Drag base;
  index_value(a[1], &base.objective);
  base.line = t.command.line;
  std::string error;
  *end = drag_options(a, a[0] == "drag" ? 3 : 2, &base.frames, &base.snap, &error);
  return base;
}

bool run_drag(Turn& t) {
  const Args& a = t.args();
  int end;
  ScriptRunner::Drag d = drag_base(t, &end);
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
  t.add_drag(d);
  t.start_drags();
  return true;
}

// world axes: translations along X, Y, Z, then rotations about X, Y, Z
bool run_drag_pose(Turn& t) {
  const Args& a = t.args();
  int end;
  const ScriptRunner::Drag base = drag_base(t, &end);
  if (t.view().gizmo.space == render::GizmoSpace::kLocal) t.tap(GLFW_KEY_L);
  const render::GizmoHandle moves[3] = {render::GizmoHandle::kTranslateX,
                                        render::GizmoHandle::kTranslateY,
                                        render::GizmoHandle::kTranslateZ};
  const render::GizmoHandle turns[3] = {
      render::GizmoHandle::kRotateX, render::GizmoHandle::kRotateY, render::GizmoHandle::kRotateZ};
  double v = 0;
  for (int k = 0; k < 3; ++k) {
    length_value(a[2 + k], &v);
    if (v == 0) continue;
    ScriptRunner::Drag d = base;
    d.handle = moves[k];
    d.move[k] = v;
    t.add_drag(d);
  }
  for (int k = 0; k < 3; ++k) {
    angle_value(a[5 + k], &v);
    if (v == 0) continue;
    ScriptRunner::Drag d = base;
    d.handle = turns[k];
    d.angle = v;
    t.add_drag(d);
  }
  if (!t.has_drags()) return false;
  t.start_drags();
  return true;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Outputs and checks
// ---------------------------------------------------------------------------------------------

std::string check_wait(const Args& a) {
  int i;
  return need(index_value(a[1], &i), "expected a frame count");
}

bool run_wait(Turn& t) {
  int frames = 0;
  index_value(t.args()[1], &frames);
  t.wait(frames);
  return frames > 0;
}

bool run_screenshot(Turn& t) {
  t.ui().screenshot_path = t.args()[1];
  return true;
}

bool run_dump(Turn& t) {
  t.host.dump_path = t.args()[1];
  return true;
}

std::string check_stats(const Args& a) {
  return need(a[1] == "reset", "expected: stats reset");
}

bool run_stats(Turn& t) {
  t.app().stats.reset();
  return false;
}

bool run_echo(Turn& t) {
  t.app().info(joined(t.args()));
  return false;
}

bool run_quit(Turn& t) {
  t.host.quit = true;
  t.stop();
  return true;
}

std::string check_expect(const Args& a) {
  const std::string& what = a[1];
  int i;
  double v;
  if (what == "converged") return "";
  if (what == "robot") return need(a.size() == 3, "expected: expect robot NAME");
  if (what == "objectives" || what == "bodies")
    return need(a.size() == 3 && index_value(a[2], &i), "expected a count");
  if (what == "reached" || what == "out_of_reach")
    return need(a.size() == 3 && index_value(a[2], &i), "expected an objective index");
  if (what == "status") {
    ReachStatus st;
    return need(
        a.size() == 4 && index_value(a[2], &i) && (a[3] == "not_pursued" || parse(a[3], &st)),
        "expected: expect status INDEX "
        "reached|traded_off|stopped_short|out_of_reach|blocked|not_pursued");
  }
  if (what == "position_error" || what == "rotation_error")
    return need(a.size() == 5 && index_value(a[2], &i) && a[3] == "<" &&
                    (what == "position_error" ? length_value(a[4], &v) : angle_value(a[4], &v)),
                "expected: expect " + what + " INDEX < VALUE");
  return "unknown expectation '" + what + "'";
}

bool run_expect(Turn& t) {
  AppState& app = t.app();
  const Args& a = t.args();
  const std::string& what = a[1];
  auto check = [&](bool ok, const std::string& actual) {
    if (!ok) t.fail(joined(a) + " failed (" + actual + ")");
  };
  int i = 0;
  double v = 0;
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
  } else if (WorkbenchObjective* o = t.objective(a[2], &i)) {
    const ObjectiveStatus& s = o->status;
    char actual[96];
    std::snprintf(actual, sizeof actual, "position error %.4g m, rotation error %.4g rad",
                  s.position_error, s.rotation_error);
    if (what == "reached") check(s.reached, actual);
    // an objective is explained once the robot rests (SolverDriver::step_frame)
    const std::string status_word = !s.pursued    ? "not_pursued"
                                    : s.explained ? to_string(s.status)
                                    : s.reached   ? "reached"
                                                  : "not explained yet";
    if (what == "status") check(status_word == a[3], "status " + status_word + ", " + actual);
    if (what == "out_of_reach") check(s.out_of_reach(), "status " + status_word + ", " + actual);
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

// ---------------------------------------------------------------------------------------------
// [SECTION] Session: scene files, undo, stored configurations, diagnostics
// ---------------------------------------------------------------------------------------------

// the session, or nullptr and a failure
Session* session(Turn& t) {
  if (!t.ui().session) t.fail("no session");
  return t.ui().session;
}

// a session action that did not succeed fails the command with `what`
void succeeded(Turn& t, bool ok, const std::string& what) {
  if (!ok) t.fail(what);
}

bool run_save_scene(Turn& t) {
  if (session(t)) succeeded(t, save_scene_file(t.ui(), t.args()[1]), "scene not saved");
  return false;
}

// a file dropped on the window (the same handler as GLFW's drop callback)
bool run_drop(Turn& t) {
  succeeded(t, open_any_file(t.ui(), t.input_path(t.args()[1])), "file not opened");
  return false;
}

bool run_open_scene(Turn& t) {
  if (session(t))
    succeeded(t, open_scene_file(t.ui(), t.input_path(t.args()[1])), "scene not opened");
  return false;
}

bool run_undo(Turn& t) {
  if (session(t)) succeeded(t, session_undo(t.ui()), "nothing to undo");
  return false;
}

bool run_redo(Turn& t) {
  if (session(t)) succeeded(t, session_redo(t.ui()), "nothing to redo");
  return false;
}

bool run_store(Turn& t) {
  if (session(t)) succeeded(t, store_configuration(t.ui()), "no robot");
  return false;
}

std::string check_restore_config(const Args& a) {
  int i;
  return need(index_value(a[1], &i), "expected: restore_config INDEX");
}

bool run_restore_config(Turn& t) {
  const Args& a = t.args();
  int i = 0;
  if (session(t))
    succeeded(t, index_value(a[1], &i) && restore_stored(t.ui(), i),
              "configuration " + a[1] + " not restored");
  return false;
}

std::string check_delete_config(const Args& a) {
  int i;
  return need(index_value(a[1], &i), "expected: delete_config INDEX");
}

bool run_delete_config(Turn& t) {
  const Args& a = t.args();
  int i = 0;
  if (session(t))
    succeeded(t, index_value(a[1], &i) && delete_stored(t.ui(), i),
              "configuration " + a[1] + " not deleted");
  return false;
}

bool run_export_configs(Turn& t) {
  if (session(t)) succeeded(t, export_configs(t.ui(), t.args()[1]), "configurations not exported");
  return false;
}

bool run_import_targets(Turn& t) {
  if (session(t))
    succeeded(t, import_targets(t.ui(), t.input_path(t.args()[1])), "no targets imported");
  return false;
}

std::string check_apply_target(const Args& a) {
  int i;
  return need(index_value(a[1], &i) && (a.size() < 3 || index_value(a[2], &i)),
              "expected: apply_target INDEX [OBJECTIVE]");
}

bool run_apply_target(Turn& t) {
  const Args& a = t.args();
  int i = 0, j = -1;
  bool ok = index_value(a[1], &i) && (a.size() < 3 || index_value(a[2], &j));
  if (session(t)) succeeded(t, ok && apply_imported(t.ui(), i, j), "target not applied");
  return false;
}

bool run_restore_recovery(Turn& t) {
  if (session(t)) succeeded(t, restore_recovery(t.ui()), "recovery file not restored");
  return false;
}

std::string check_soak(const Args& a) {
  int frames, seed;
  return need(
      index_value(a[1], &frames) && frames >= 1 && (a.size() < 3 || index_value(a[2], &seed)),
      "expected: soak FRAMES [SEED]");
}

// the script waits for the soak to end
bool run_soak(Turn& t) {
  const Args& a = t.args();
  int frames = 0, seed = 1;
  index_value(a[1], &frames);
  if (a.size() > 2) index_value(a[2], &seed);
  if (!start_soak(t.host.soak, t.app(), frames, uint64_t(seed))) {
    t.fail("soak not started");
    return false;
  }
  t.wait(frames + 1);
  return true;
}

bool run_crash(Turn&) {
  crash_now();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The table
// ---------------------------------------------------------------------------------------------

const ScriptCommandSpec kCommands[] = {
    // robots, files and scenes
    {"robot", 1, 1, nullptr, run_robot},
    {"load", 1, 1, nullptr, run_open_urdf},
    {"open_urdf", 1, 1, nullptr, run_open_urdf},
    {"scene", 1, 1, nullptr, run_scene},
    // objectives
    {"add", 1, -1, nullptr, run_add},
    {"set", 3, -1, nullptr, run_set},
    {"remove", 1, 1, check_objective_index, run_remove},
    {"select_objective", 1, 1, check_objective_index, run_select_objective},
    {"select_link", 1, 1, nullptr, run_select_link},
    {"weight", 2, 2, check_weight, run_objective_setting},
    {"hard", 2, 2, check_index_on_off, run_objective_setting},
    {"enable", 2, 2, check_index_on_off, run_objective_setting},
    {"target", 4, 8, check_target, run_target},
    // configuration and solver
    {"joint", 2, 2, check_joint, run_joint},
    {"lock", 2, 2, check_last_on_off, run_lock},
    {"limits", 2, 3, check_limits, run_limits},
    {"frame_step", 1, 1, check_frame_step, run_frame_step},
    {"frame_budget", 1, 1, check_frame_budget, run_frame_budget},
    {"pair", 2, 3, check_pair, run_pair},
    {"targets_follow", 1, 1, check_on_off, run_toggle},
    {"live", 1, 1, check_on_off, run_toggle},
    {"solver", 2, 2, nullptr, run_solver},
    // branch edit, seeds and demos
    {"branch", 2, 2, check_last_on_off, run_branch},
    {"branch_follow", 1, 1, check_last_on_off, run_branch_follow},
    {"branch_set", 2, 2, check_branch_set, run_branch_set},
    {"adopt_seed", 1, 1, check_seed_index, run_adopt_seed},
    {"click_ghost", 1, 1, check_seed_index, run_click_ghost},
    {"demo", 1, 1, check_demo, run_demo},
    {"repeat", 0, 0, nullptr, run_repeat},
    // view and input
    {"view", 2, 2, check_view, run_view},
    {"gizmo", 1, 1, check_gizmo, run_gizmo},
    {"key", 1, 4, check_key, run_key},
    {"frame", 0, 0, nullptr, run_frame},
    {"camera", 2, -1, check_camera, run_camera},
    {"mouse_move", 2, 2, check_mouse_move, run_mouse_move},
    {"mouse_down", 0, 1, check_button, run_mouse_button},
    {"mouse_up", 0, 1, check_button, run_mouse_button},
    {"click", 2, 3, check_click, run_click},
    {"click_link", 1, 2, check_click_link, run_click_link},
    {"scroll", 1, 1, check_scroll, run_scroll},
    {"drag", 3, -1, check_drag, run_drag},
    {"drag_pose", 7, -1, check_drag, run_drag_pose},
    // outputs and checks
    {"wait", 1, 1, check_wait, run_wait},
    {"screenshot", 1, 1, nullptr, run_screenshot},
    {"dump", 1, 1, nullptr, run_dump},
    {"stats", 1, 1, check_stats, run_stats},
    {"echo", 0, -1, nullptr, run_echo},
    {"quit", 0, 0, nullptr, run_quit},
    {"expect", 1, 4, check_expect, run_expect},
    // session (docs/sessions.md)
    {"save_scene", 1, 1, nullptr, run_save_scene},
    {"open_scene", 1, 1, nullptr, run_open_scene},
    {"drop", 1, 1, nullptr, run_drop},
    {"undo", 0, 0, nullptr, run_undo},
    {"redo", 0, 0, nullptr, run_redo},
    {"store", 0, 0, nullptr, run_store},
    {"restore_config", 1, 1, check_restore_config, run_restore_config},
    {"delete_config", 1, 1, check_delete_config, run_delete_config},
    {"export_configs", 1, 1, nullptr, run_export_configs},
    {"import_targets", 1, 1, nullptr, run_import_targets},
    {"apply_target", 1, 2, check_apply_target, run_apply_target},
    {"restore_recovery", 0, 0, nullptr, run_restore_recovery},
    {"soak", 1, 2, check_soak, run_soak},
    {"crash", 0, 0, nullptr, run_crash},
};

}  // namespace

const ScriptCommandSpec* find_script_command(const std::string& name) {
  for (const ScriptCommandSpec& c : kCommands)
    if (name == c.name) return &c;
  if (const ScriptCommandSpec* c = find_timeline_script_command(name)) return c;
  return find_obstacle_script_command(name);
}

}  // namespace ikwb::gui
