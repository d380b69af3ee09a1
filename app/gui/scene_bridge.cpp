// Scenes and presets <-> AppState: robot, configuration, objectives (with "current" targets) and
// solver settings (engine/core/scene.hpp holds the file format; this maps it onto the workbench).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/gui/app_state.hpp"
#include "app/gui/timeline_edit.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "solver/scene_problem.hpp"
#include "solver/settings.hpp"

namespace ikwb::gui {

namespace {

// package folders as a scene keeps them: absolute, so the scene opens from any folder
std::vector<std::string> absolute_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    std::filesystem::path a = std::filesystem::absolute(p, ec);
    out.push_back(ec ? p : a.lexically_normal().string());
  }
  return out;
}

bool finite_number(const nlohmann::json& v) {
  return v.is_number() && std::isfinite(v.get<double>());
}

// the scene camera's usable keys; each bad or unknown one is left out with a warning naming it
nlohmann::json valid_camera(const nlohmann::json& c, std::vector<std::string>& warnings) {
  nlohmann::json out = nlohmann::json::object();
  if (c.is_null()) return out;
  if (!c.is_object()) {
    warnings.push_back("camera: expected an object with target, distance, yaw, pitch; ignored");
    return out;
  }
  for (const auto& [key, v] : c.items()) {
    bool ok = false;
    std::string expected;
    if (key == "target") {
      ok = v.is_array() && v.size() == 3 && std::all_of(v.begin(), v.end(), finite_number) &&
           std::all_of(v.begin(), v.end(),
                       [](const nlohmann::json& x) { return std::abs(x.get<double>()) <= 1e6; });
      expected = "[x, y, z], numbers within 1e6 (m)";
    } else if (key == "distance") {
      ok = finite_number(v) && v.get<double>() > 0 && v.get<double>() <= 1e6;
      expected = "a number > 0 and <= 1e6 (m)";
    } else if (key == "yaw" || key == "pitch") {
      ok = finite_number(v) && std::abs(v.get<double>()) <= 1e6;
      expected = "a number within 1e6 (rad)";
    } else {
      warnings.push_back("camera." + key + ": unknown key (target, distance, yaw, pitch); ignored");
      continue;
    }
    if (ok)
      out[key] = v;
    else
      warnings.push_back("camera." + key + ": expected " + expected + ", got " + v.dump() +
                         "; ignored");
  }
  return out;
}

}  // namespace

bool AppState::apply_scene(const Scene& scene, const std::string& file, bool recovery) {
  namespace fs = std::filesystem;
  // the robot first: a failure leaves everything as it was
  UrdfOptions options = urdf_options;
  options.floating_base = scene.floating_base;
  options.xacro_args = scene.xacro_args;
  for (auto it = scene.package_paths.rbegin(); it != scene.package_paths.rend(); ++it)
    if (std::find(options.package_paths.begin(), options.package_paths.end(), *it) ==
        options.package_paths.end())
      options.package_paths.insert(options.package_paths.begin(), *it);
  std::string path = resolve_robot(scene.robot);
  LoadResult loaded;
  try {
    loaded = load_scene_robot(file, scene.robot, options);
  } catch (const std::exception& e) {
    error(std::string("could not open the scene's robot: ") + e.what());
    return false;
  }
  urdf_options.package_paths = options.package_paths;  // found once, they help later opens too
  robot_options = options;
  // a script's camera keys given before any robot wait here, and hold over the scene's own
  // (a preset without a camera wiped them)
  const nlohmann::json waiting = model ? nlohmann::json::object() : scene_camera;
  install_model(std::move(loaded), path);
  apply_scene_content(scene, file);
  std::vector<std::string> camera_warnings;
  scene_camera = valid_camera(scene.camera, camera_warnings);
  scene_camera.update(waiting);
  for (const std::string& w : camera_warnings) warn(file.empty() ? w : file + ": " + w);
  note_edit("open scene");
  const std::string from = recovery       ? "restored the previous session from " + file + ": "
                           : file.empty() ? "opened "
                                          : "opened the scene " + file + ": ";
  info(from + robot_title + " with " + std::to_string(objectives.size()) + " objectives");
  return true;
}

bool AppState::restore_scene(const Scene& scene, const std::string& what) {
  std::error_code ec;
  std::filesystem::path robot = std::filesystem::absolute(robot_path, ec);
  bool same = model && scene.robot == (ec ? robot_path : robot.lexically_normal().string()) &&
              scene.floating_base == robot_options.floating_base &&
              scene.xacro_args == robot_options.xacro_args &&
              absolute_paths(scene.package_paths) == absolute_paths(robot_options.package_paths);
  // the step's solver settings come back (History makes a changed setting a step of its own);
  // the backend, a choice about this machine, stays
  const Backend backend = settings.backend;
  if (!same) {
    if (!apply_scene(scene)) return false;
    settings.backend = backend;
    last_edit = what;
    return true;
  }
  // the selected obstacle stays selected (by name) when the step still has it
  const int sel = selected_obstacle();
  const std::string sel_name = sel >= 0 ? obstacles[sel].name : "";
  objectives.clear();
  selection = {};
  hover = {};
  held_joint = -1;
  rest_q = model->neutral_configuration();
  structure_dirty_ = true;
  // the frame step and the frame budget are not undo steps
  const double kept_step = frame_step, kept_budget = frame_budget_ms;
  const bool kept_panel = timeline.show_panel;
  apply_scene_content(scene, "", true);
  timeline.show_panel = kept_panel;  // a window's layout is not an edit
  settings.backend = backend;
  frame_step = kept_step;
  frame_budget_ms = kept_budget;
  if (!sel_name.empty()) select_obstacle(find_obstacle(sel_name));
  note_edit(what);
  return true;
}

void AppState::apply_scene_content(const Scene& scene, const std::string& file, bool quiet) {
  // a warning about the robot file (its collision geometry's) names that file already
  auto note = [&](const std::string& w) {
    const bool named = file.empty() || w.rfind(model->source_path + ": ", 0) == 0;
    if (!quiet) warn(named ? w : file + ": " + w);
  };
  if (!quiet)
    for (const std::string& w : scene.warnings) warn(w);  // named with the file already
  SceneSetup setup = resolve_scene(*model, scene, true);
  for (const std::string& w : setup.warnings) note(w);
  scene_left_out = setup.left_out;
  const nlohmann::json& hold = scene.extra.value("hold_adopted", nlohmann::json(false));
  hold_adopted = hold.is_boolean() && hold.get<bool>();
  adopted_frame = frame;
  rest_q = setup.rest_q;
  dof_lower = setup.dof_lower;
  dof_upper = setup.dof_upper;
  locked_joints = setup.locked_joints;
  set_configuration(setup.q);
  obstacles = scene.obstacles;
  srdf = scene.srdf;
  collision_world_ = std::move(setup.collision);
  collision_pairs = scene.collision_pairs;
  refresh_pair_defaults();

  // a scene opens the same whatever was open before: its solver settings apply over the
  // workbench's defaults, as its frame budget does (the backend, a choice about this machine,
  // stays)
  const Backend backend = settings.backend;
  settings = interactive_solver_settings();
  settings.backend = backend;
  std::vector<std::string> solver_warnings;
  apply_solver_json(scene.solver, settings, solver_warnings);
  for (const std::string& w : solver_warnings) note(w);
  const nlohmann::json& step = scene.extra.value("frame_step", nlohmann::json(0.0));
  if (step.is_number() && step.get<double>() >= 0 && std::isfinite(step.get<double>()))
    frame_step = step.get<double>();
  else
    note("extra.frame_step: expected a number >= 0 (rad or m per frame); the bound stays off");
  const nlohmann::json& budget =
      scene.extra.value("frame_budget_ms", nlohmann::json(kDefaultFrameBudgetMs));
  if (budget.is_number() && budget.get<double>() >= 0 && std::isfinite(budget.get<double>())) {
    frame_budget_ms = budget.get<double>();
  } else {
    frame_budget_ms = kDefaultFrameBudgetMs;
    note(
        "extra.frame_budget_ms: expected a number >= 0 (ms per frame, 0: none); the default "
        "budget stays");
  }

  for (PlacedObjective& placed : setup.objectives) {
    objectives.emplace_back();
    WorkbenchObjective& o = objectives.back();
    o.spec = o.accepted = std::move(placed.objective);
    o.target = placed.target;
  }
  for (int i = 0; i < int(objectives.size()) && selection.objective < 0; ++i)
    if (objectives[i].has_target()) selection.objective = i;
  structure_dirty_ = true;
  timeline_from_scene(*this, scene, setup, quiet);
}

Scene AppState::make_scene() const {
  Scene s;
  if (!model) return s;
  const Model& m = *model;
  std::error_code ec;
  std::filesystem::path robot = std::filesystem::absolute(robot_path, ec);
  s.robot = ec ? robot_path : robot.lexically_normal().string();  // no "dir/../" left
  s.floating_base = robot_options.floating_base;
  s.package_paths = absolute_paths(robot_options.package_paths);
  s.xacro_args = robot_options.xacro_args;
  s.joint_q = joint_map(m, joint_q);
  s.rest = joint_map(m, rest_q);
  for (const WorkbenchObjective& o : objectives)
    s.objectives.push_back(objective_to_scene(m, {o.spec, o.target}));
  s.obstacles = obstacles;
  s.srdf = srdf;
  s.collision_pairs = collision_pairs;
  s.solver = solver_settings_json(settings);
  if (frame_step > 0) s.extra["frame_step"] = frame_step;
  s.extra["frame_budget_ms"] = scene_frame_budget_ms();
  joint_settings_to_scene(m, dof_lower, dof_upper, locked_joints, s);
  s.timeline = timeline_for_scene(*this);
  if (timeline.loop) s.extra["timeline_loop"] = true;
  if (timeline.speed != 1) s.extra["timeline_speed"] = timeline.speed;
  // an adopted seed's branch held by the solve (undo and redo of an adoption bring it back)
  if (hold_adopted) s.extra["hold_adopted"] = true;
  return s;
}

}  // namespace ikwb::gui
