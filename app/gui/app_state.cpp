// AppState: robot loading, configuration edits, objectives and the sync point with IkProblem.
// Scene mapping (apply_scene / make_scene) lives in scene_bridge.cpp.
#include "app/gui/app_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/core/robot_path.hpp"

namespace ikwb::gui {

namespace {

constexpr std::size_t kMaxMessages = 1000;
constexpr int kMaxWarningsShown = 8;
constexpr double kReachedPosition = 1e-3;    // m
constexpr double kReachedRotation = 0.0087;  // rad (half a degree)

struct KindName {
  ObjectiveKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {{ObjectiveKind::kPosition, "position"},
                                   {ObjectiveKind::kRotation, "rotation"},
                                   {ObjectiveKind::kPose, "pose"},
                                   {ObjectiveKind::kJointLimits, "joint_limits"},
                                   {ObjectiveKind::kPosture, "posture"},
                                   {ObjectiveKind::kRelativeBall, "relative_ball"},
                                   {ObjectiveKind::kRelativeFixed, "relative_fixed"},
                                   {ObjectiveKind::kMinDistance, "min_distance"}};

// equal up to the rounding of IkProblem's quaternion renormalisation
bool same_transform(const Transform<double>& a, const Transform<double>& b) {
  const double e = 1e-12;
  return std::abs(a.p.x - b.p.x) <= e && std::abs(a.p.y - b.p.y) <= e &&
         std::abs(a.p.z - b.p.z) <= e && std::abs(a.q.x - b.q.x) <= e &&
         std::abs(a.q.y - b.q.y) <= e && std::abs(a.q.z - b.q.z) <= e &&
         std::abs(a.q.w - b.q.w) <= e;
}

// clamps 1-dof coordinates into their limits
void clamp_to_limits(const Model& m, std::vector<double>& q) {
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_coord_count(JointType(m.joint_type[j])) != 1) continue;
    int d = m.joint_qd_start[j];
    double& v = q[m.joint_q_start[j]];
    v = std::min(std::max(v, m.dof_lower[d]), m.dof_upper[d]);
  }
}

}  // namespace

const char* objective_kind_name(ObjectiveKind k) {
  for (const KindName& n : kKindNames)
    if (n.kind == k) return n.name;
  return "pose";
}

bool parse_objective_kind(const std::string& s, ObjectiveKind* out) {
  for (const KindName& n : kKindNames) {
    if (s == n.name) {
      *out = n.kind;
      return true;
    }
  }
  return false;
}

bool kind_has_link(ObjectiveKind k) {
  return k == ObjectiveKind::kPosition || k == ObjectiveKind::kRotation ||
         k == ObjectiveKind::kPose;
}

bool kind_is_pair(ObjectiveKind k) {
  return k == ObjectiveKind::kRelativeBall || k == ObjectiveKind::kRelativeFixed ||
         k == ObjectiveKind::kMinDistance;
}

SolverSettings interactive_solver_settings() {
  SolverSettings s;
  s.backend = Backend::kCpu;
  s.optimizer = Optimizer::kLevenbergMarquardt;
  s.jacobian = JacobianMode::kAnalytic;
  s.sampler = Sampler::kGaussian;
  s.gaussian_sigma = 0.3;
  s.n_seeds = 8;
  s.max_iterations = 15;
  s.prefer_closest = true;
  s.hard_joint_limits = true;
  return s;
}

AppState::AppState() : settings(interactive_solver_settings()) {}

// ---- messages ---------------------------------------------------------------------------------

void AppState::log(Message::Level level, const std::string& text) {
  if (messages.size() >= kMaxMessages) messages.erase(messages.begin(), messages.begin() + 100);
  messages.push_back({level, text, frame, seconds_since_start()});
  if (level != Message::kInfo)
    std::fprintf(stderr, "ikwb: %s: %s\n", level == Message::kError ? "error" : "warning",
                 text.c_str());
}

void AppState::note_edit(const std::string& what) {
  ++edit_serial;
  last_edit = what;
}

// ---- robot ------------------------------------------------------------------------------------

bool AppState::load_robot(const std::string& path_or_name) {
  std::string path = resolve_robot(path_or_name);
  LoadResult loaded;
  try {
    loaded = load_urdf_file(path, urdf_options);
  } catch (const std::exception& e) {
    error(std::string("could not open robot: ") + e.what());
    return false;
  }
  install_model(std::move(loaded), path);
  info("loaded " + robot_title + " (" + std::to_string(model->body_count) + " links, " +
       std::to_string(model->dof_count) + " dofs) from " + path);
  return true;
}

bool AppState::open_robot_preset(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path preset = fs::path(asset_dir()) / "robots" / name / "preset.json";
  std::error_code ec;
  if (!fs::is_regular_file(preset, ec)) return load_robot(name);
  Scene scene;
  try {
    scene = load_scene(preset.string());
  } catch (const std::exception& e) {
    error(e.what());
    return false;
  }
  return apply_scene(scene);
}

void AppState::install_model(LoadResult loaded, const std::string& path) {
  model = std::move(loaded.model);
  robot_path = path;
  robot_title = model->name.empty() ? std::filesystem::path(path).stem().string() : model->name;
  load_warnings = std::move(loaded.warnings);
  for (std::size_t i = 0; i < load_warnings.size() && int(i) < kMaxWarningsShown; ++i)
    warn(load_warnings[i]);
  if (int(load_warnings.size()) > kMaxWarningsShown)
    warn(std::to_string(load_warnings.size() - kMaxWarningsShown) + " more load warnings");
  rest_q = model->neutral_configuration();
  joint_q = rest_q;
  fk = State(*model);
  objectives.clear();
  selection = {};
  hover = {};
  held_joint = -1;
  SolveStatus fresh;
  fresh.cuda_available = solve.cuda_available;
  fresh.cuda_reason = solve.cuda_reason;
  solve = fresh;
  last_result = {};
  structure_dirty_ = true;
  ++model_version;
  update_fk();
  note_edit("open robot");
}

// ---- configuration ----------------------------------------------------------------------------

void AppState::update_fk() {
  if (!model) return;
  if (branch.active && branch.model_version == model_version) {
    fk = branch.state;
    return;
  }
  branch.active = false;
  eval_fk(*model, joint_q, {}, fk);
}

void AppState::set_joint(int joint, double value) {
  if (!model || joint < 0 || joint >= model->joint_count) return;
  if (model->joint_mimic[joint] >= 0 ||
      joint_type_coord_count(JointType(model->joint_type[joint])) != 1)
    return;
  set_joint_coordinate(joint, 0, value);
}

void AppState::set_joint_coordinate(int joint, int k, double value) {
  if (!model || joint < 0 || joint >= model->joint_count || model->joint_mimic[joint] >= 0) return;
  JointType type = JointType(model->joint_type[joint]);
  const bool scalar = joint_type_coord_count(type) == 1;
  if (!(scalar && k == 0) && !(type == JointType::kPlanar && k >= 0 && k < 3)) return;
  if (!std::isfinite(value)) return;
  int d = model->joint_qd_start[joint] + k;
  joint_q[model->joint_q_start[joint] + k] =
      std::min(std::max(value, model->dof_lower[d]), model->dof_upper[d]);
  held_joint = joint;
  update_fk();
  if (targets_follow_joints)
    for (std::size_t i = 0; i < objectives.size(); ++i)
      if (kind_has_link(objectives[i].kind)) objectives[i].target = link_point_pose(int(i));
}

void AppState::set_configuration(const std::vector<double>& q) {
  if (!model || int(q.size()) != model->coord_count) return;
  joint_q = q;
  clamp_to_limits(*model, joint_q);
  update_fk();
}

// ---- objectives -------------------------------------------------------------------------------

int AppState::add_objective(ObjectiveKind kind, int link, Vec3<double> offset) {
  if (!model) return -1;
  if (kind_is_pair(kind)) {
    error(std::string("a ") + objective_kind_name(kind) + " objective comes from a scene file");
    return -1;
  }
  if (kind_has_link(kind) && (link < 0 || link >= model->body_count)) {
    error(std::string("a ") + objective_kind_name(kind) + " objective needs a link: select one");
    return -1;
  }
  if (kind == ObjectiveKind::kJointLimits) {
    for (const ObjectiveUi& o : objectives)
      if (o.kind == kind) {
        warn("the joint limits objective exists already");
        return -1;
      }
  }
  ObjectiveUi o;
  o.kind = kind;
  o.link = kind_has_link(kind) ? link : -1;
  o.offset = kind_has_link(kind) ? offset : Vec3<double>{0, 0, 0};
  o.weight = kind == ObjectiveKind::kPosture ? 0.01 : 1.0;
  o.name = kind_has_link(kind)
               ? std::string(objective_kind_name(kind)) + " " + model->body_name[link]
               : (kind == ObjectiveKind::kPosture ? "posture" : "joint limits");
  if (kind == ObjectiveKind::kPosture) o.rest_q = rest_q;
  objectives.push_back(o);
  int index = int(objectives.size()) - 1;
  if (kind_has_link(kind)) {
    objectives[index].target = link_point_pose(index);
    selection.objective = index;
  }
  structure_dirty_ = true;
  update_objective_status();
  info("added " + o.name + " objective");
  note_edit("add objective");
  return index;
}

void AppState::remove_objective(int index) {
  if (index < 0 || index >= int(objectives.size())) return;
  std::string name = objectives[index].name;
  objectives.erase(objectives.begin() + index);
  auto fix = [&](int& i) {
    if (i == index)
      i = -1;
    else if (i > index)
      --i;
  };
  fix(selection.objective);
  fix(hover.objective);
  structure_dirty_ = true;
  info("removed " + name + " objective");
  note_edit("remove objective");
}

void AppState::select_link(int body) {
  selection.body = body;
  if (body < 0) return;
  int cur = selection.objective;
  if (cur >= 0 && cur < int(objectives.size()) && objectives[cur].link == body) return;
  for (int i = 0; i < int(objectives.size()); ++i)
    if (objectives[i].link == body) {
      selection.objective = i;
      return;
    }
}

void AppState::set_target(int index, const Transform<double>& target) {
  if (index < 0 || index >= int(objectives.size())) return;
  Transform<double> t = target;
  t.q = normalize(t.q);
  objectives[index].target = t;
}

Transform<double> AppState::link_point_pose(int index) const {
  const ObjectiveUi& o = objectives[index];
  if (!model || o.link < 0 || o.link >= int(fk.body_q.size())) return transform_identity<double>();
  const Transform<double>& x = fk.body_q[o.link];
  return {transform_point(x, o.offset), x.q};
}

void AppState::update_objective_status() {
  if (!model) return;
  const Model& m = *model;
  // within the solver's tolerances, or too close to see (a soft posture may keep a link a
  // fraction of a millimetre off its target)
  const double tol_p = std::max(2 * settings.tol_position, kReachedPosition);
  const double tol_r = std::max(2 * settings.tol_rotation, kReachedRotation);
  std::vector<double> diff(m.dof_count);
  for (int i = 0; i < int(objectives.size()); ++i) {
    ObjectiveUi& o = objectives[i];
    ObjectiveStatus& s = o.status;
    s = ObjectiveStatus{};
    switch (o.kind) {
      case ObjectiveKind::kPosition:
      case ObjectiveKind::kRotation:
      case ObjectiveKind::kPose: {
        s.current = link_point_pose(i);
        if (o.kind != ObjectiveKind::kRotation) s.position_error = length(s.current.p - o.target.p);
        if (o.kind != ObjectiveKind::kPosition)
          s.rotation_error = length(quat_log(s.current.q * conjugate(o.target.q)));
        s.reached = s.position_error <= tol_p && s.rotation_error <= tol_r;
        break;
      }
      case ObjectiveKind::kJointLimits:
        for (int j = 0; j < m.joint_count; ++j) {
          if (m.joint_mimic[j] >= 0 || joint_type_coord_count(JointType(m.joint_type[j])) != 1)
            continue;
          int d = m.joint_qd_start[j];
          double v = joint_q[m.joint_q_start[j]];
          s.error = std::max({s.error, v - m.dof_upper[d], m.dof_lower[d] - v});
        }
        s.reached = s.error <= 1e-6;
        break;
      case ObjectiveKind::kPosture: {
        if (int(o.rest_q.size()) != m.coord_count) break;
        difference_row(m.view(), joint_q.data(), o.rest_q.data(), diff.data());
        double sum = 0;
        for (double v : diff) sum += v * v;
        s.error = std::sqrt(sum);
        break;
      }
      case ObjectiveKind::kRelativeBall:
      case ObjectiveKind::kRelativeFixed:
      case ObjectiveKind::kMinDistance: {
        const Transform<double>& xa = fk.body_q[o.link];
        const Transform<double>& xb = fk.body_q[o.link_b];
        s.current = {transform_point(xa, o.offset), xa.q};
        if (o.kind == ObjectiveKind::kRelativeFixed) {
          Transform<double> want = xa * o.relative;
          s.position_error = length(xb.p - want.p);
          s.rotation_error = length(quat_log(xb.q * conjugate(want.q)));
        } else {
          double d = length(transform_point(xb, o.offset_b) - s.current.p);
          if (o.kind == ObjectiveKind::kRelativeBall)
            s.position_error = d;
          else
            s.error = std::max(0.0, o.distance - d);
        }
        s.reached = s.position_error <= tol_p && s.rotation_error <= tol_r && s.error <= tol_p;
        break;
      }
    }
    s.out_of_reach = o.enabled && !s.reached && solve.settled;
  }
}

bool AppState::all_reached() const {
  for (const ObjectiveUi& o : objectives)
    if (o.enabled && !o.status.reached) return false;
  return true;
}

const char* AppState::solve_state() const {
  if (!live_solve) return "paused";
  if (objectives.empty()) return "idle";
  if (solve.converged) return "converged";
  if (solve.settled) return all_reached() ? "settled" : "best effort";
  return "solving";
}

// ---- sync point -------------------------------------------------------------------------------

void AppState::sync() {
  if (!model) {
    problem_.reset();
    return;
  }
  // the null-space flag has no setter: changing it rebuilds like adding an objective
  bool rebuild = structure_dirty_ || !problem_ || synced_model_version_ != model_version;
  for (int i = 0; !rebuild && i < int(objectives.size()); ++i)
    rebuild = objectives[i].kind == ObjectiveKind::kPosture &&
              bool(problem_->objective(i).params.null_space) != objectives[i].null_space;
  if (rebuild) {
    problem_ = std::make_unique<IkProblem>(model);
    ++problem_serial_;
    synced_model_version_ = model_version;
    structure_dirty_ = false;
  }
  IkProblem& p = *problem_;
  for (int i = 0; i < int(objectives.size()); ++i) {
    const ObjectiveUi& o = objectives[i];
    if (rebuild) {
      switch (o.kind) {
        case ObjectiveKind::kPosition:
          p.add_position(o.link, o.offset, o.weight, o.hard);
          break;
        case ObjectiveKind::kRotation:
          p.add_rotation(o.link, o.weight, o.hard);
          break;
        case ObjectiveKind::kPose:
          p.add_pose(o.link, o.offset, o.weight, o.hard);
          break;
        case ObjectiveKind::kJointLimits:
          p.add_joint_limits(o.weight, o.hard);
          break;
        case ObjectiveKind::kRelativeBall:
          p.add_relative_ball(o.link, o.offset, o.link_b, o.offset_b, o.weight, o.hard);
          break;
        case ObjectiveKind::kRelativeFixed:
          p.add_relative_fixed(o.link, o.link_b, o.relative, o.weight, o.hard);
          break;
        case ObjectiveKind::kMinDistance:
          p.add_min_distance(o.link, o.offset, o.link_b, o.offset_b, o.distance, o.weight, o.hard);
          break;
        case ObjectiveKind::kPosture:
          p.add_posture(o.rest_q, o.weight, o.null_space);
          break;
      }
      p.set_name(i, o.name);
    }
    const ObjectiveParams<double>& params = p.objective(i).params;
    if (params.weight != o.weight) p.set_weight(i, o.weight);
    if (bool(params.hard) != o.hard) p.set_hard(i, o.hard);
    if (bool(params.enabled) != o.enabled) p.set_enabled(i, o.enabled);
    if (kind_has_link(o.kind) && !same_transform(p.target(i, 0), o.target))
      p.set_target_pose(i, 0, o.target);
  }
  // a joint held by hand stays exactly where the slider puts it; the solver moves the others
  std::vector<uint8_t> mask;
  if (held_joint >= 0) {
    mask.assign(model->dof_count, 1);
    for (int d = model->joint_qd_start[held_joint]; d < model->joint_qd_start[held_joint + 1]; ++d)
      mask[d] = 0;
  }
  if (mask != p.dof_mask()) p.set_dof_mask(mask);
}

}  // namespace ikwb::gui
