// Scenes and presets <-> AppState: robot, configuration, objectives (with "current" targets) and
// solver settings (engine/core/scene.hpp holds the file format; this maps it onto the workbench).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/gui/app_state.hpp"
#include "engine/core/robot_path.hpp"

namespace ikwb::gui {

namespace {

// writes a joint map (joint name -> coordinates) into q; unknown joints or wrong sizes warn
void apply_joint_map(const Model& m, const std::map<std::string, std::vector<double>>& values,
                     const char* what, std::vector<double>& q, AppState& app) {
  for (const auto& [name, v] : values) {
    int j = m.find_joint(name);
    if (j < 0) {
      app.warn(std::string(what) + ": unknown joint '" + name + "' ignored");
      continue;
    }
    int n = m.joint_q_start[j + 1] - m.joint_q_start[j];
    if (int(v.size()) != n) {
      app.warn(std::string(what) + ": joint '" + name + "' takes " + std::to_string(n) +
               " values, got " + std::to_string(v.size()));
      continue;
    }
    std::copy(v.begin(), v.end(), q.begin() + m.joint_q_start[j]);
  }
}

std::map<std::string, std::vector<double>> joint_map(const Model& m, const std::vector<double>& q) {
  std::map<std::string, std::vector<double>> out;
  for (int j = 0; j < m.joint_count; ++j) {
    int a = m.joint_q_start[j], b = m.joint_q_start[j + 1];
    if (b > a) out[m.joint_name[j]] = std::vector<double>(q.begin() + a, q.begin() + b);
  }
  return out;
}

}  // namespace

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
  const Model& m = *model;
  for (const std::string& w : scene.warnings) warn(w);

  // configuration: rest posture, then the scene's joint values
  apply_joint_map(m, scene.rest, "rest", rest_q, *this);
  joint_q = rest_q;
  apply_joint_map(m, scene.joint_q, "joint_q", joint_q, *this);
  set_configuration(joint_q);

  // solver settings
  std::vector<std::string> solver_warnings;
  apply_solver_json(scene.solver, settings, solver_warnings);
  for (const std::string& w : solver_warnings) warn(w);

  // objectives ("current" targets at the link pose of this configuration)
  for (std::size_t i = 0; i < scene.objectives.size(); ++i) {
    const SceneObjective& so = scene.objectives[i];
    ObjectiveKind kind;
    if (!parse_objective_kind(so.type, &kind)) {
      warn("objective " + std::to_string(i) + " (" + so.type +
           "): not supported by the workbench yet, skipped");
      continue;
    }
    int link = -1, link_b = -1;
    if (kind_has_link(kind) || kind_is_pair(kind)) {
      link = m.find_body(so.link);
      if (link < 0) {
        warn("objective " + std::to_string(i) + ": unknown link '" + so.link + "', skipped");
        continue;
      }
    }
    if (kind_is_pair(kind)) {
      link_b = m.find_body(so.link_b);
      if (link_b < 0 || link_b == link) {
        warn("objective " + std::to_string(i) + ": link_b '" + so.link_b +
             "' unknown or the same as link, skipped");
        continue;
      }
    }
    ObjectiveUi o;
    o.kind = kind;
    o.name = so.name.empty() ? std::string(objective_kind_name(kind)) : so.name;
    o.link = link;
    o.offset = so.offset;
    o.link_b = link_b;
    o.offset_b = so.offset_b;
    o.distance = so.distance;
    // relative_fixed "current": the relative pose of the scene's configuration
    if (kind == ObjectiveKind::kRelativeFixed)
      o.relative = so.relative_current ? inverse(fk.body_q[link]) * fk.body_q[link_b] : so.relative;
    o.weight = so.weight;
    o.hard = so.hard;
    o.enabled = so.enabled;
    o.null_space = so.null_space;
    if (kind == ObjectiveKind::kPosture) o.rest_q = rest_q;
    objectives.push_back(o);
    int index = int(objectives.size()) - 1;
    if (kind_has_link(kind))
      objectives[index].target = so.target_current ? link_point_pose(index) : so.target;
  }
  for (int i = 0; i < int(objectives.size()) && selection.objective < 0; ++i)
    if (kind_has_link(objectives[i].kind)) selection.objective = i;
  update_objective_status();
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
  for (const ObjectiveUi& o : objectives) {
    SceneObjective so;
    so.type = objective_kind_name(o.kind);
    so.name = o.name;
    if (o.link >= 0) so.link = m.body_name[o.link];
    if (o.link_b >= 0) so.link_b = m.body_name[o.link_b];
    so.offset = o.offset;
    so.offset_b = o.offset_b;
    so.distance = o.distance;
    so.relative_current = false;
    so.relative = o.relative;
    so.weight = o.weight;
    so.hard = o.hard;
    so.enabled = o.enabled;
    so.null_space = o.null_space;
    so.target_current = !kind_has_link(o.kind);
    so.target = o.target;
    s.objectives.push_back(so);
  }
  s.solver = solver_settings_json(settings);
  return s;
}

}  // namespace ikwb::gui
