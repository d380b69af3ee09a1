// Scenes and presets <-> AppState: robot, configuration, objectives (with "current" targets) and
// solver settings (engine/core/scene.hpp holds the file format; this maps it onto the workbench).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/cli/robot_path.hpp"
#include "app/gui/app_state.hpp"
#include "solver/scene_problem.hpp"

namespace ikwb::gui {

nlohmann::json solver_settings_json(const SolverSettings& s) {
  return {{"backend", to_string(s.backend)},
          {"optimizer", to_string(s.optimizer)},
          {"jacobian", to_string(s.jacobian)},
          {"sampler", to_string(s.sampler)},
          {"n_seeds", s.n_seeds},
          {"iterations", s.max_iterations},
          {"polish", s.polish_iterations},
          {"gaussian_sigma", s.gaussian_sigma},
          {"damping", s.lambda_init},
          {"tol_position", s.tol_position},
          {"tol_rotation", s.tol_rotation},
          {"prefer_closest", s.prefer_closest},
          {"hard_joint_limits", s.hard_joint_limits},
          {"marquardt_scaling", s.marquardt_scaling},
          {"threads", s.threads}};
}

void apply_solver_json(const nlohmann::json& j, SolverSettings& s,
                       std::vector<std::string>& warnings) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const nlohmann::json& v = it.value();
    auto bad = [&]() { warnings.push_back("solver." + k + ": unusable value " + v.dump()); };
    auto number = [&](double lo, double hi, auto set) {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
          v.get<double>() > hi)
        return bad();
      set(v.get<double>());
    };
    auto flag = [&](bool& out) { v.is_boolean() ? void(out = v.get<bool>()) : bad(); };
    auto choice = [&](auto* out) {
      if (!v.is_string() || !parse(v.get<std::string>(), out)) bad();
    };
    if (k == "backend")
      choice(&s.backend);
    else if (k == "optimizer")
      choice(&s.optimizer);
    else if (k == "jacobian")
      choice(&s.jacobian);
    else if (k == "sampler")
      choice(&s.sampler);
    else if (k == "n_seeds")
      number(1, 4096, [&](double x) { s.n_seeds = int(x); });
    else if (k == "iterations")
      number(1, 10000, [&](double x) { s.max_iterations = int(x); });
    else if (k == "polish")
      number(0, 100, [&](double x) { s.polish_iterations = int(x); });
    else if (k == "gaussian_sigma")
      number(0, 10, [&](double x) { s.gaussian_sigma = x; });
    else if (k == "damping")
      number(1e-12, 1e6, [&](double x) { s.lambda_init = x; });
    else if (k == "tol_position")
      number(1e-12, 1, [&](double x) { s.tol_position = x; });
    else if (k == "tol_rotation")
      number(1e-12, 1, [&](double x) { s.tol_rotation = x; });
    else if (k == "threads")
      number(0, 1024, [&](double x) { s.threads = int(x); });
    else if (k == "prefer_closest")
      flag(s.prefer_closest);
    else if (k == "hard_joint_limits")
      flag(s.hard_joint_limits);
    else if (k == "marquardt_scaling")
      flag(s.marquardt_scaling);
    else
      warnings.push_back("solver." + k + ": unknown setting ignored");
  }
}

bool AppState::apply_scene(const Scene& scene) {
  namespace fs = std::filesystem;
  // the robot first: a failure leaves everything as it was
  UrdfOptions options = urdf_options;
  options.floating_base = scene.floating_base;
  for (auto it = scene.package_paths.rbegin(); it != scene.package_paths.rend(); ++it)
    if (std::find(options.package_paths.begin(), options.package_paths.end(), *it) ==
        options.package_paths.end())
      options.package_paths.insert(options.package_paths.begin(), *it);
  std::string path = resolve_robot(scene.robot);
  LoadResult loaded;
  try {
    loaded = load_urdf_file(path, options);
  } catch (const std::exception& e) {
    error(std::string("could not open the scene's robot: ") + e.what());
    return false;
  }
  urdf_options = options;
  install_model(std::move(loaded), path);
  apply_scene_content(scene);
  scene_camera = scene.camera;
  note_edit("open scene");
  info("opened " + robot_title + " with " + std::to_string(objectives.size()) + " objectives");
  return true;
}

bool AppState::restore_scene(const Scene& scene, const std::string& what) {
  std::error_code ec;
  std::filesystem::path robot = std::filesystem::absolute(robot_path, ec);
  bool same = model && scene.robot == (ec ? robot_path : robot.string()) &&
              scene.floating_base == urdf_options.floating_base &&
              scene.package_paths == urdf_options.package_paths;
  if (!same) {
    if (!apply_scene(scene)) return false;
    last_edit = what;
    return true;
  }
  objectives.clear();
  selection = {};
  hover = {};
  held_joint = -1;
  rest_q = model->neutral_configuration();
  structure_dirty_ = true;
  SolverSettings kept = settings;  // solver settings are not undo steps
  apply_scene_content(scene);
  settings = kept;
  note_edit(what);
  return true;
}

void AppState::apply_scene_content(const Scene& scene) {
  for (const std::string& w : scene.warnings) warn(w);
  SceneSetup setup = resolve_scene(*model, scene);
  for (const std::string& w : setup.warnings) warn(w);
  rest_q = setup.rest_q;
  set_configuration(setup.q);

  std::vector<std::string> solver_warnings;
  apply_solver_json(scene.solver, settings, solver_warnings);
  for (const std::string& w : solver_warnings) warn(w);

  for (PlacedObjective& placed : setup.objectives)
    objectives.push_back({std::move(placed.objective), placed.target, {}});
  for (int i = 0; i < int(objectives.size()) && selection.objective < 0; ++i)
    if (objectives[i].has_target()) selection.objective = i;
  structure_dirty_ = true;
}

Scene AppState::make_scene() const {
  Scene s;
  if (!model) return s;
  const Model& m = *model;
  std::error_code ec;
  std::filesystem::path robot = std::filesystem::absolute(robot_path, ec);
  s.robot = ec ? robot_path : robot.string();
  s.floating_base = urdf_options.floating_base;
  s.package_paths = urdf_options.package_paths;
  s.joint_q = joint_map(m, joint_q);
  s.rest = joint_map(m, rest_q);
  for (const WorkbenchObjective& o : objectives)
    s.objectives.push_back(objective_to_scene(m, {o.spec, o.target}));
  s.solver = solver_settings_json(settings);
  return s;
}

}  // namespace ikwb::gui
