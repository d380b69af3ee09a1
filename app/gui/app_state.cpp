// AppState: robot loading, configuration edits, objectives and the sync point with IkProblem.
// Scene mapping (apply_scene / make_scene) lives in scene_bridge.cpp.
#include "app/gui/app_state.hpp"
#include "app/gui/length_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/core/fk.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "solver/objective_support.hpp"
#include "solver/scene_problem.hpp"
#include "solver/timeline_render.hpp"

namespace ikwb::gui {

namespace {

constexpr std::size_t kMaxMessages = 1000;
// A message is kept (and shown) up to this many bytes; the whole of it goes to standard error.
// ImGui draws a text with 16-bit vertex indices, four vertices a character: a message of about
// 16,400 characters (a file's 30,000-character token quoted in its error, every joint of a 3,000
// joint robot listed) aborted the workbench.
constexpr std::size_t kMaxMessageBytes = 2000;
constexpr int kMaxWarningsShown = 8;
// the size (m, AppState::robot_extent) from which a new objective takes the default margins
// whole; the smallest shipped robot, the quadruped, is 0.66 m across its link origins
constexpr double kMarginsFullFrom = 0.5;
// a robot smaller than this (m, the same measure) is told what the position tolerance is to it
constexpr double kSmallRobot = 0.1;
// the diagonal (m) of the bounds of the link origins and the collision capsules at body_q (link
// origins alone made a 1.15 m boom whose joints sit together 50 mm across)
double robot_size(const Model& m, const std::vector<Transform<double>>& body_q) {
  if (body_q.empty()) return 0;
  Vec3<double> lo = body_q[0].p, hi = lo;
  auto grow = [&](const Vec3<double>& p, double r) {
    lo = {std::min(lo.x, p.x - r), std::min(lo.y, p.y - r), std::min(lo.z, p.z - r)};
    hi = {std::max(hi.x, p.x + r), std::max(hi.y, p.y + r), std::max(hi.z, p.z + r)};
  };
  for (const Transform<double>& x : body_q) grow(x.p, 0);
  for (const LinkCapsule<double>& c : m.collision.capsules) {
    grow(transform_point(body_q[c.body], c.p0), c.radius);
    grow(transform_point(body_q[c.body], c.p1), c.radius);
  }
  return length(hi - lo);
}

// a default margin, scaled down on a robot under kMarginsFullFrom across
double scaled_margin(double margin, double robot_extent) {
  return robot_extent > 0 ? margin * std::min(1.0, robot_extent / kMarginsFullFrom) : margin;
}

// the fields an edit can change (the solver fills start, dim and a default name)
bool same_points(const std::vector<LinkPoint<double>>& a, const std::vector<LinkPoint<double>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].link != b[i].link || a[i].offset.x != b[i].offset.x ||
        a[i].offset.y != b[i].offset.y || a[i].offset.z != b[i].offset.z)
      return false;
  return true;
}

bool same_objective(const Objective& a, const Objective& b) {
  const ObjectiveParams<double>&x = a.params, &y = b.params;
  auto same3 = [](const Vec3<double>& u, const Vec3<double>& v) {
    return u.x == v.x && u.y == v.y && u.z == v.z;
  };
  return x.type == y.type && x.hard == y.hard && x.enabled == y.enabled &&
         x.null_space == y.null_space && x.link == y.link && x.link_b == y.link_b &&
         same3(x.offset, y.offset) && same3(x.offset_b, y.offset_b) &&
         same3(x.relative.p, y.relative.p) && x.relative.q.x == y.relative.q.x &&
         x.relative.q.y == y.relative.q.y && x.relative.q.z == y.relative.q.z &&
         x.relative.q.w == y.relative.q.w && x.distance == y.distance && x.weight == y.weight &&
         same3(x.position_weights, y.position_weights) &&
         same3(x.rotation_weights, y.rotation_weights) && same3(x.axis, y.axis) &&
         same3(x.direction, y.direction) && x.cone == y.cone && x.margin == y.margin &&
         x.min_measure == y.min_measure && same3(x.box_lower, y.box_lower) &&
         same3(x.box_upper, y.box_upper) && a.rest_q == b.rest_q && a.name == b.name &&
         same_points(a.points, b.points);
}

// equal up to the rounding of IkProblem's quaternion renormalisation
bool same_transform(const Transform<double>& a, const Transform<double>& b) {
  const double e = 1e-12;
  return std::abs(a.p.x - b.p.x) <= e && std::abs(a.p.y - b.p.y) <= e &&
         std::abs(a.p.z - b.p.z) <= e && std::abs(a.q.x - b.q.x) <= e &&
         std::abs(a.q.y - b.q.y) <= e && std::abs(a.q.z - b.q.z) <= e &&
         std::abs(a.q.w - b.q.w) <= e;
}

}  // namespace

SolverSettings interactive_solver_settings() {
  SolverSettings s;
  s.backend = Backend::kCpu;
  s.optimizer = Optimizer::kLevenbergMarquardt;
  s.jacobian = JacobianMode::kAnalytic;
  s.sampler = Sampler::kGaussian;
  s.gaussian_sigma = 0.3;
  s.n_seeds = 8;
  s.max_iterations = 15;
  s.settle_iterations = kInteractiveSettleIterations;
  s.prefer_closest = true;
  s.hard_joint_limits = true;
  return s;
}

AppState::AppState() : settings(interactive_solver_settings()) {}

// ---- messages ---------------------------------------------------------------------------------

void AppState::log(Message::Level level, const std::string& text) {
  if (messages.size() >= kMaxMessages) messages.erase(messages.begin(), messages.begin() + 100);
  std::string kept = text;
  if (kept.size() > kMaxMessageBytes) {
    std::size_t cut = kMaxMessageBytes;
    while (cut > 0 && (static_cast<unsigned char>(kept[cut]) & 0xC0) == 0x80) --cut;
    kept.resize(cut);
    kept += " ... (" + std::to_string(text.size() - cut) +
            " more characters; the whole message is on standard error)";
  }
  messages.push_back({level, kept, frame, seconds_since_start()});
  if (level == Message::kError) ++errors_logged;
  if (level != Message::kInfo || kept.size() != text.size())
    std::fprintf(stderr, "ikwb: %s: %s\n",
                 level == Message::kError     ? "error"
                 : level == Message::kWarning ? "warning"
                                              : "info",
                 text.c_str());
}

const Message* AppState::banner_error() const {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (seconds_since_start() - it->time > kBannerSeconds || it->time < banner_after_) break;
    if (it->level == Message::kError) return &*it;
  }
  return nullptr;
}

void AppState::note_edit(const std::string& what) {
  ++edit_serial;
  last_edit = what;
}

void AppState::note_weight_set(int i) {
  note_edit("set weight");
  if (i < 0 || i >= int(objectives.size()) || told_null_space_weight) return;
  const WorkbenchObjective& o = objectives[i];
  if (o.type() != ObjectiveType::kPosture || !o.spec.params.null_space) return;
  told_null_space_weight = true;
  info("'" + o.name() +
       "' works in the null space (\"null\" on): its weight sets how fast it settles in what "
       "the other objectives leave free, never how far a target gives way; turn \"null\" off to "
       "trade the targets against it by weight");
}

// ---- robot ------------------------------------------------------------------------------------

bool AppState::load_robot(const std::string& path_or_name) {
  std::string path = resolve_robot(path_or_name);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    error("could not open robot: " + robot_not_found(path_or_name));
    return false;
  }
  LoadResult loaded;
  try {
    loaded = load_robot_file(path, urdf_options);
  } catch (const std::exception& e) {
    error(std::string("could not open robot: ") + e.what());
    return false;
  }
  robot_options = urdf_options;
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
  banner_after_ = seconds_since_start();
  model = std::move(loaded.model);
  robot_path = path;
  robot_title = model->name.empty() ? std::filesystem::path(path).stem().string() : model->name;
  load_warnings = std::move(loaded.warnings);
  for (std::size_t i = 0; i < load_warnings.size() && int(i) < kMaxWarningsShown; ++i)
    warn(load_warnings[i]);
  if (int(load_warnings.size()) > kMaxWarningsShown)
    warn(std::to_string(load_warnings.size() - kMaxWarningsShown) + " more load warnings");
  rest_q = standing_configuration(*model);
  joint_q = rest_q;
  dof_lower = model->dof_lower;
  dof_upper = model->dof_upper;
  locked_joints.clear();
  fk = State(*model);
  // a robot a few centimetres across: the position tolerance is a large part of it (0.1 mm of
  // an 18 mm arm, solves "converged" 0.1 mm off), said once, with where to set it
  eval_fk(*model, rest_q, {}, fk);
  robot_extent = robot_size(*model, fk.body_q);
  if (robot_extent > 0 && robot_extent < kSmallRobot) {
    char share[32];
    std::snprintf(share, sizeof share, "%.2g%%", 100 * settings.tol_position / robot_extent);
    info(robot_title + " is " + length_text(robot_extent, LengthUnit::kMillimetre, 1) +
         " across: the position tolerance, " +
         length_text(settings.tol_position, LengthUnit::kMillimetre, 2) + ", is " + share +
         " of that; the Solver panel sets a tighter one");
  }
  objectives.clear();
  obstacles.clear();
  srdf.clear();
  collision_world_ = make_collision_world(*model, {}, {});
  collision_pairs = {};
  collisions = {};
  refresh_pair_defaults();
  selection = {};
  hover = {};
  held_joint = -1;
  // a branch edit belongs to the robot it started on (its joint and bodies are that robot's)
  if (branch.active) info("branch edit ended: another robot was opened");
  const bool follow = branch.descendants_follow;
  branch = BranchEdit();
  branch.descendants_follow = follow;
  SolveStatus fresh;
  fresh.cuda_available = solve.cuda_available;
  fresh.cuda_reason = solve.cuda_reason;
  solve = fresh;
  last_result = {};
  structure_dirty_ = true;
  ++model_version;
  fk_dirty_ = true;
  follow_pending_ = false;
  note_edit("open robot");
}

// ---- configuration ----------------------------------------------------------------------------

void AppState::update_fk() {
  if (!model) return;
  fk_dirty_ = false;
  if (branch.active && branch.model_version == model_version) {
    fk = branch.state;
  } else {
    branch.active = false;
    eval_fk(*model, joint_q, {}, fk);
  }
  if (follow_pending_) follow_joints();
}

void AppState::ensure_fk() {
  if (fk_dirty_ || follow_pending_) update_fk();
}

void AppState::follow_joints() {
  follow_pending_ = false;
  for (std::size_t i = 0; i < objectives.size(); ++i)
    if (objectives[i].has_target()) objectives[i].target = link_point_pose(int(i));
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
  const std::string beyond = beyond_limit(joint, k, value);
  if (!beyond.empty() && beyond != clamp_warning_) warn(beyond);
  clamp_warning_ = beyond;
  joint_q[model->joint_q_start[joint] + k] = std::min(std::max(value, dof_lower[d]), dof_upper[d]);
  held_joint = joint;
  fk_dirty_ = true;
  follow_pending_ = follow_pending_ || targets_follow_joints;
  if (targets_follow_joints) rest_at(model->joint_q_start[joint] + k);
}

void AppState::rest_at(int coord) {
  const std::size_t c = std::size_t(coord);
  if (int(rest_q.size()) == model->coord_count) rest_q[c] = joint_q[c];
  for (WorkbenchObjective& o : objectives) {
    if (!o.kind().has(kFieldRest)) continue;
    if (int(o.spec.rest_q.size()) != model->coord_count)
      o.spec.rest_q = model->neutral_configuration();
    o.spec.rest_q[c] = joint_q[c];
  }
}

std::string AppState::beyond_limit(int joint, int k, double value) const {
  const int d = model->joint_qd_start[joint] + k;
  const bool above = value > dof_upper[d];
  if (!above && value >= dof_lower[d]) return "";
  const JointType type = JointType(model->joint_type[joint]);
  const bool metres = type == JointType::kPrismatic || (type == JointType::kPlanar && k < 2);
  auto show = [metres](double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, metres ? "%.4g m" : "%.4g deg", metres ? v : v * 180 / M_PI);
    return std::string(buf);
  };
  return "joint " + model->joint_name[joint] + ": " + show(value) + " is beyond its " +
         (above ? "upper" : "lower") + " limit, set to " +
         show(above ? dof_upper[d] : dof_lower[d]);
}

void AppState::set_configuration(const std::vector<double>& q) {
  if (!model || int(q.size()) != model->coord_count) return;
  joint_q = q;
  clamp_to_limits(*model, dof_lower, dof_upper, joint_q);
  fk_dirty_ = true;
}

// ---- objectives -------------------------------------------------------------------------------

Objective AppState::new_objective(ObjectiveType type, int link, Vec3<double> offset) const {
  const ObjectiveKind& kind = objective_kind(type);
  Objective o;
  o.params.type = type;
  o.params.weight = kind.weight;
  o.params.hard = kind.hard;
  // the default margins suit robots 0.5 m across and more (every shipped one); a smaller
  // robot's shrink with it (a micro arm 18 mm across folded up to keep its links 10 mm apart)
  o.params.margin = scaled_margin(default_margin(type), robot_extent);
  if (kind.has(kFieldLink)) o.params.link = link;
  if (kind.has(kFieldOffset)) o.params.offset = offset;
  if (kind.has(kFieldRest)) o.rest_q = rest_q;
  // a tolerance cone of 10 degrees; a manipulability floor at half the link's measure now
  if (type == ObjectiveType::kOrientationCone) o.params.cone = 10.0 / 57.29577951308232;
  if (type == ObjectiveType::kManipulability && model && link >= 0 && link < model->body_count &&
      int(fk.body_q.size()) == model->body_count) {
    Vec3<double> p = transform_point(fk.body_q[link], offset);
    o.params.min_measure = 0.5 * manipulability_measure(model->view(), fk.body_q.data(), link, p);
  }
  // a support polygon over the links standing lowest now (the feet: within kStandingHeight of
  // the lowest), each with the corners of its lowest face, as a scene's contact link without
  // points gets
  if (type == ObjectiveType::kSupportPolygon && model &&
      int(fk.body_q.size()) == model->body_count) {
    struct Face {
      int link;
      std::vector<Vec3<double>> points;
      double z;
    };
    std::vector<Face> faces;
    for (int b = 0; b < model->body_count; ++b) {
      Face f{b, lowest_face_points(*model, b, fk.body_q), HUGE_VAL};
      for (const Vec3<double>& p : f.points)
        f.z = std::min(f.z, transform_point(fk.body_q[b], p).z);
      if (!f.points.empty()) faces.push_back(std::move(f));
    }
    std::sort(faces.begin(), faces.end(), [](const Face& a, const Face& b) { return a.z < b.z; });
    for (const Face& f : faces) {
      if (f.z > faces[0].z + kStandingHeight ||
          o.points.size() + f.points.size() > std::size_t(kMaxContactPoints))
        break;
      for (const Vec3<double>& p : f.points) o.points.push_back({f.link, p});
    }
  }
  return o;
}

void AppState::check_support_margin(int index) {
  if (index < 0 || index >= int(objectives.size())) return;
  ensure_fk();
  Objective named = objectives[std::size_t(index)].spec;
  named.name = objectives[std::size_t(index)].name();
  std::vector<std::string> warnings;
  warn_support_margin(std::size_t(index), named, fk.body_q, "this configuration", warnings);
  for (const std::string& w : warnings) warn(w);
}

int AppState::add_objective(Objective spec) {
  if (!model) return -1;
  const ObjectiveKind& kind = objective_kind(spec.params.type);
  if (kind.has(kFieldLink) && (spec.params.link < 0 || spec.params.link >= model->body_count)) {
    error(std::string("a ") + kind.name + " objective needs a link: select one");
    return -1;
  }
  if (kind.unique)
    for (const WorkbenchObjective& o : objectives)
      if (o.type() == spec.params.type) {
        warn(std::string("the ") + kind.label + " objective exists already");
        return -1;
      }
  // the solver's own checks, with its messages
  try {
    IkProblem check(model);
    check.add_objective(spec);
    spec = check.objective(0);
  } catch (const std::exception& e) {
    error(std::string("objective not added: ") + e.what());
    return -1;
  }
  // a name of its own: explanations, target files (NAME.x columns) and the panels tell the
  // objectives apart by it
  const std::string base = spec.name;
  auto taken = [&](const std::string& name) {
    return std::any_of(objectives.begin(), objectives.end(),
                       [&](const WorkbenchObjective& o) { return o.name() == name; });
  };
  for (int k = 2; taken(spec.name); ++k) spec.name = base + " " + std::to_string(k);
  ensure_fk();
  objectives.emplace_back();
  objectives.back().spec = objectives.back().accepted = std::move(spec);
  int index = int(objectives.size()) - 1;
  ++objectives_added;
  if (kind.has_target()) {
    objectives[index].target = link_point_pose(index);
    selection.objective = index;
  }
  structure_dirty_ = true;
  refit_key_targets();
  info("added " + objectives[index].name() + " objective");
  if (spec.params.type == ObjectiveType::kSelfCollision)
    warn_overlapping_pairs(objectives[index].spec.params.margin);
  // the links it cannot see (meshes that did not load: Menagerie's G1 without its mesh files
  // has no torso, and an arm through it read every pair outside the margin), as a scene with
  // it warns when it is opened
  if (spec.params.type == ObjectiveType::kSelfCollision ||
      spec.params.type == ObjectiveType::kWorldCollision)
    for (const std::string& w : model->collision.warnings)
      warn(objectives[index].name() + ": " + w);
  // a target that leaves dofs free, on a robot without a posture: those dofs drift with every
  // drag (the same target, another configuration), which a null-space posture prevents. Only
  // the dofs that move its link count (a wide tree's 994 other dofs were said to drift).
  bool posture = false;
  for (const WorkbenchObjective& o : objectives) posture |= o.type() == ObjectiveType::kPosture;
  const int pinned = kind.dim(model->dof_count);
  int moving = model->dof_count;
  if (kind.has(kFieldLink)) {
    moving = 0;
    for (int j = model->body_joint[objectives[index].link()]; j >= 0; j = model->joint_ancestor[j])
      moving += model->joint_qd_start[j + 1] - model->joint_qd_start[j];
  }
  if (kind.has_target() && !posture && moving > pinned) {
    const int free = moving - pinned;
    info(
        std::to_string(free) +
        (free == 1 ? " dof is left free by it and drifts" : " dofs are left free by it and drift") +
        " as you drag: add a posture objective with \"null\" on to hold them where they are");
  }
  note_edit("add objective");
  return index;
}

void AppState::warn_overlapping_pairs(double margin) {
  if (int(fk.body_q.size()) != model->body_count) return;
  int overlapping = 0, near = 0;
  const BodyDistance* deepest = nullptr;
  const std::vector<BodyDistance> d =
      closest_distances(collision_world_, fk.body_q.data(), kCollisionPairsListed, margin);
  for (const BodyDistance& e : d) {
    if (e.obstacle >= 0 || e.contact.distance >= margin) continue;
    (e.contact.distance < 0 ? overlapping : near) += 1;
    if (!deepest || e.contact.distance < deepest->contact.distance) deepest = &e;
  }
  if (!deepest) return;
  const std::string pair =
      model->body_name[deepest->body_a] + " - " + model->body_name[deepest->body_b];
  if (overlapping == 0) {
    // links that sit within the margin by design (a 46 mm finger's, 4 mm apart, against the
    // 10 mm default) were pushed apart with nothing saying why
    warn(std::to_string(near) + (near == 1 ? " pair is" : " pairs are") + " closer than the " +
         length_text(margin, LengthUnit::kMillimetre, 1) + " margin at this pose already (" + pair +
         ", " + length_text(deepest->contact.distance, LengthUnit::kMillimetre, 1) +
         "): the solve will push them apart; where links sit that close by design, lower the "
         "objective's margin (Objectives panel; `set I margin D` in a script)");
    return;
  }
  const std::string depth = length_text(-deepest->contact.distance, LengthUnit::kMillimetre, 1);
  warn(std::to_string(overlapping) + (overlapping == 1 ? " pair overlaps" : " pairs overlap") +
       " at this pose already (deepest: " + pair + ", " + depth +
       "): fitted capsules can cover more than the links, and the solve will push them apart. "
       "Turn such pairs off (View > Collision pairs, \"Turn off overlapping\"; the script's "
       "`pair overlapping off` or `pair A B off`) or give an SRDF (`ikwb check ROBOT "
       "--sample-pairs 10000 --out ROBOT.srdf` writes one)");
}

void AppState::remove_objective(int index) {
  if (index < 0 || index >= int(objectives.size())) return;
  std::string name = objectives[index].name();
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
  refit_key_targets();
  info("removed " + name + " objective");
  note_edit("remove objective");
}

void AppState::refit_key_targets() {
  // (keys of a robot replaced since are dropped when the timeline is next used)
  if (!model || timeline.timeline.keys.empty() || timeline.model_version != model_version) return;
  std::vector<PlacedObjective> placed;
  for (const WorkbenchObjective& o : objectives) placed.push_back({o.spec, o.target});
  for (Keyframe& k : timeline.timeline.keys) targets_at_key(*model, placed, k);
}

void AppState::select_link(int body) {
  selection.body = body;
  if (body < 0) return;
  int cur = selection.objective;
  if (cur >= 0 && cur < int(objectives.size()) && objectives[cur].link() == body) return;
  for (int i = 0; i < int(objectives.size()); ++i)
    if (objectives[i].link() == body) {
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

void AppState::set_look_at_link(int index, int body) {
  if (!model || index < 0 || index >= int(objectives.size())) return;
  ObjectiveParams<double>& p = objectives[index].spec.params;
  if (!objectives[index].kind().has(kFieldTargetLink) || body >= model->body_count) return;
  ensure_fk();
  if (body < 0 && p.link_b >= 0 && p.link_b < int(fk.body_q.size()))
    objectives[index].target.p = transform_point(fk.body_q[p.link_b], p.offset_b);
  if (body != p.link_b) p.offset_b = {0, 0, 0};
  p.link_b = body < 0 ? -1 : body;
}

Transform<double> AppState::link_point_pose(int index) const {
  if (!model || index < 0 || index >= int(objectives.size())) return transform_identity<double>();
  return objective_met_target(*model, objectives[index].spec.params, fk.body_q);
}

void AppState::evaluate() {
  if (!model) return;
  ensure_fk();
  update_collisions();
  if (!problem_ || problem_->objective_count() != int(objectives.size())) return;
  std::vector<ObjectiveReport> reports =
      report_objectives(*problem_, 0, joint_q, fk.body_q, settings, &status_memo_);
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    ObjectiveStatus& s = objectives[i].status;
    static_cast<ObjectiveReport&>(s) = reports[i];
    s.missed = s.pursued && !s.reached && solve.settled && !joints_set_elsewhere();
  }
}

bool AppState::all_reached() const {
  for (const WorkbenchObjective& o : objectives)
    if (o.status.pursued && !o.status.reached) return false;
  return true;
}

bool AppState::joints_set_elsewhere() const {
  return timeline.hold || branch.active;
}

bool AppState::solver_paused() const {
  return !live_solve || joints_set_elsewhere();
}

const char* AppState::solve_state() const {
  if (timeline.playing && timeline.hold) return "playing";
  if (solver_paused()) return "paused";
  if (objectives.empty()) return "idle";
  // the solver converges on its task errors and hard rows: a soft inequality traded off against
  // them (a soft balance leaning out for a hand) is missed all the same
  if (solve.converged) return all_reached() ? "converged" : "best effort";
  if (solve.settled) return all_reached() ? "settled" : "best effort";
  return "solving";
}

// ---- sync point -------------------------------------------------------------------------------

void AppState::sync() {
  if (!model) {
    problem_.reset();
    return;
  }
  if (structure_dirty_ || !problem_ || synced_model_version_ != model_version) {
    problem_ = std::make_unique<IkProblem>(model);
    problem_->set_collision_world(collision_world_);
    for (std::size_t k = 0; k < objectives.size();) {
      WorkbenchObjective& o = objectives[k];
      int i = -1;
      try {
        i = problem_->add_objective(o.spec);
      } catch (const std::exception& e) {
        // an edit refused in the frame that also added or removed an objective; an objective
        // added with values the solver refuses has no accepted state to go back to
        try {
          i = problem_->add_objective(o.accepted);
          error(std::string("edit of ") + o.name() + " undone: " + e.what());
        } catch (const std::exception&) {
          error(std::string("objective ") + o.name() + " not added: " + e.what());
          // the indices after it move down by one, as remove_objective does
          for (int* i : {&selection.objective, &hover.objective})
            *i = *i == int(k) ? -1 : *i > int(k) ? *i - 1 : *i;
          objectives.erase(objectives.begin() + std::ptrdiff_t(k));
          continue;
        }
      }
      o.spec = o.accepted = problem_->objective(i);
      ++k;
    }
    ++problem_serial_;
    synced_model_version_ = model_version;
    structure_dirty_ = false;
    collision_dirty_ = false;
  }
  IkProblem& p = *problem_;
  // an obstacle was added, moved, resized or removed: same rows, new world
  if (collision_dirty_) {
    p.set_collision_world(collision_world_);
    collision_dirty_ = false;
  }
  for (int i = 0; i < int(objectives.size()); ++i) {
    WorkbenchObjective& o = objectives[i];
    // the solver's copy is canonical (normalised quaternions, default names, row layout)
    if (!same_objective(p.objective(i), o.spec)) {
      try {
        p.set_objective(i, o.spec);
      } catch (const std::exception& e) {
        error(std::string("edit of ") + o.name() + " undone: " + e.what());
      }
      o.spec = o.accepted = p.objective(i);
    }
    if (o.has_target() && !same_transform(p.target(i, 0), o.target))
      p.set_target_pose(i, 0, o.target);
  }
  std::vector<double> lower, upper;
  solve_limits(&lower, &upper);
  p.set_dof_limits(lower, upper);
  // locked joints, and a joint held by hand, stay exactly where they are; the solver moves the
  // others
  std::vector<int> frozen = locked_joints;
  if (held_joint >= 0) frozen.push_back(held_joint);
  std::vector<uint8_t> mask = lock_mask(*model, frozen);
  if (mask != p.dof_mask()) p.set_dof_mask(mask);
}

void AppState::solve_limits(std::vector<double>* lower, std::vector<double>* upper) const {
  *lower = dof_lower;
  *upper = dof_upper;
  if (!(frame_step > 0) || !model) return;
  for (int j = 0; j < model->joint_count; ++j) {
    if (model->joint_mimic[j] >= 0 || joint_type_dof_count(JointType(model->joint_type[j])) != 1)
      continue;
    const int d = model->joint_qd_start[j];
    const double q = joint_q[model->joint_q_start[j]];
    // a configuration outside its limits (set by hand) gets the step from the nearer limit
    (*lower)[d] = std::min(std::max(dof_lower[d], q - frame_step), dof_upper[d]);
    (*upper)[d] = std::max(std::min(dof_upper[d], q + frame_step), (*lower)[d]);
  }
}

std::vector<int> AppState::step_bound_joints(const std::vector<double>& q_before) const {
  std::vector<int> out;
  if (!(frame_step > 0) || !model || q_before.size() != joint_q.size()) return out;
  for (int j = 0; j < model->joint_count; ++j) {
    if (model->joint_mimic[j] >= 0 || joint_type_dof_count(JointType(model->joint_type[j])) != 1)
      continue;
    const int i = model->joint_q_start[j];
    // a periodic joint's answer comes back in (-pi, pi]: its move is the shorter way round
    const double move =
        model->joint_periodic[j] ? wrap_angle(joint_q[i] - q_before[i]) : joint_q[i] - q_before[i];
    if (std::abs(move) >= frame_step * (1 - 1e-9)) out.push_back(j);
  }
  return out;
}

// ---- live limits and locks ----------------------------------------------------------------------

bool AppState::set_joint_limits(int joint, double lower, double upper) {
  if (!model || joint < 0 || joint >= model->joint_count || model->joint_mimic[joint] >= 0 ||
      joint_type_dof_count(JointType(model->joint_type[joint])) != 1) {
    error("joint limits: joint " + std::to_string(joint) + " is not a moving 1-dof joint");
    return false;
  }
  const std::string& name = model->joint_name[joint];
  if (std::isnan(lower) || std::isnan(upper) || lower > upper) {
    error("joint limits of " + name + ": lower must not be above upper");
    return false;
  }
  if (JointType(model->joint_type[joint]) == JointType::kContinuous &&
      (std::isfinite(lower) || std::isfinite(upper))) {
    error("joint limits of " + name + ": a continuous joint has none");
    return false;
  }
  const std::string mimics = mimic_limits_problem(joint, lower, upper);
  if (!mimics.empty()) {
    error("joint limits of " + name + ": " + mimics);
    return false;
  }
  const double asked_lower = lower, asked_upper = upper;
  keep_mimic_limits(*model, joint, &lower, &upper);
  // said (the limit bars stay within the file's limits, which keep them already: the script's
  // `limits`, a scene's)
  if (lower != asked_lower || upper != asked_upper) {
    char range[64];
    std::snprintf(range, sizeof range, "[%.6g, %.6g]", lower + 0.0, upper + 0.0);
    info("joint limits of " + name + ": kept within " + range + ", which keeps " +
         mimics_within_limits_text(*model, joint));
  }
  int d = model->joint_qd_start[joint];
  dof_lower[d] = lower;
  dof_upper[d] = upper;
  double& v = joint_q[model->joint_q_start[joint]];
  v = std::min(std::max(v, lower), upper);
  fk_dirty_ = true;
  return true;
}

std::string AppState::mimic_limits_problem(int joint, double lower, double upper) const {
  if (keep_mimic_limits(*model, joint, &lower, &upper)) return "";
  return "no value within these limits keeps " + mimics_within_limits_text(*model, joint);
}

void AppState::reset_joint_limits(int joint) {
  if (!model || joint < 0 || joint >= model->joint_count) return;
  for (int d = model->joint_qd_start[joint]; d < model->joint_qd_start[joint + 1]; ++d)
    set_joint_limits(joint, model->dof_lower[d], model->dof_upper[d]);
}

void AppState::set_joint_locked(int joint, bool locked) {
  if (!model || joint < 0 || joint >= model->joint_count) return;
  auto it = std::find(locked_joints.begin(), locked_joints.end(), joint);
  if (locked && it == locked_joints.end()) locked_joints.push_back(joint);
  if (!locked && it != locked_joints.end()) locked_joints.erase(it);
}

bool AppState::joint_locked(int joint) const {
  return std::find(locked_joints.begin(), locked_joints.end(), joint) != locked_joints.end();
}

// ---- collision pairs ----------------------------------------------------------------------------

void AppState::refresh_pair_defaults() {
  default_pairs_.clear();
  if (!model) return;
  std::vector<std::pair<int, int>> srdf_pairs;
  if (!srdf.empty()) {
    try {
      std::vector<std::string> warned;
      srdf_pairs = disabled_body_pairs(*model, load_srdf(srdf), warned, srdf);
    } catch (const std::runtime_error&) {
    }
    // (problems and skipped entries were reported when the collision world was built)
  }
  default_pairs_ = self_collision_pairs(*model, srdf_pairs);
  std::sort(default_pairs_.begin(), default_pairs_.end());
}

void AppState::rebuild_collision_world() {
  if (!model) return;
  Scene s;
  s.srdf = srdf;
  s.obstacles = obstacles;
  s.collision_pairs = collision_pairs;
  std::vector<std::string> warnings;
  try {
    collision_world_ = scene_collision_world(*model, s, warnings);
  } catch (const std::exception& e) {
    error(std::string("collision world: ") + e.what());
  }
  for (const std::string& w : warnings) warn(w);
  refresh_pair_defaults();
  structure_dirty_ = true;
}

bool AppState::collision_pair_default(int a, int b) const {
  return std::binary_search(default_pairs_.begin(), default_pairs_.end(),
                            std::make_pair(std::min(a, b), std::max(a, b)));
}

namespace {

bool names_pair(const LinkPair& p, const std::string& a, const std::string& b) {
  return (p.first == a && p.second == b) || (p.first == b && p.second == a);
}

bool lists_pair(const std::vector<LinkPair>& list, const std::string& a, const std::string& b) {
  for (const LinkPair& p : list)
    if (names_pair(p, a, b)) return true;
  return false;
}

}  // namespace

bool AppState::collision_pair_checked(int a, int b) const {
  if (!model || !checkable_pair(*model, a, b)) return false;
  const std::string &na = model->body_name[a], &nb = model->body_name[b];
  if (collision_pair_default(a, b)) return !lists_pair(collision_pairs.disabled, na, nb);
  return lists_pair(collision_pairs.enabled, na, nb);
}

bool AppState::set_collision_pair(int a, int b, bool checked) {
  if (!model || !checkable_pair(*model, a, b)) {
    std::string what = model && a >= 0 && b >= 0 && a < model->body_count && b < model->body_count
                           ? model->body_name[a] + " - " + model->body_name[b]
                           : std::to_string(a) + " - " + std::to_string(b);
    error("collision pair " + what +
          " cannot be checked (a link without collision capsules, or links welded together)");
    return false;
  }
  if (a > b) std::swap(a, b);
  if (collision_pair_checked(a, b) == checked) return true;
  edit_collision_pair(a, b, checked);
  rebuild_collision_world();
  note_edit("collision pair " + model->body_name[a] + " - " + model->body_name[b] +
            (checked ? " on" : " off"));
  return true;
}

void AppState::edit_collision_pair(int a, int b, bool checked) {
  if (a > b) std::swap(a, b);
  const std::string &na = model->body_name[a], &nb = model->body_name[b];
  auto drop = [&](std::vector<LinkPair>& list) {
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const LinkPair& p) { return names_pair(p, na, nb); }),
               list.end());
  };
  drop(collision_pairs.disabled);
  drop(collision_pairs.enabled);
  if (checked != collision_pair_default(a, b))
    (checked ? collision_pairs.enabled : collision_pairs.disabled).push_back({na, nb});
}

std::vector<std::pair<int, int>> AppState::overlapping_pairs() const {
  std::vector<std::pair<int, int>> pairs;
  if (!model || int(fk.body_q.size()) != model->body_count) return pairs;
  for (const BodyDistance& d :
       closest_distances(collision_world_, fk.body_q.data(), kCollisionPairsListed, 0.0))
    if (d.obstacle < 0 && d.contact.distance < 0)
      pairs.push_back({std::min(d.body_a, d.body_b), std::max(d.body_a, d.body_b)});
  return pairs;
}

int AppState::turn_off_overlapping_pairs() {
  const std::vector<std::pair<int, int>> pairs = overlapping_pairs();
  if (pairs.empty()) return 0;
  std::string names;
  for (auto [a, b] : pairs) {
    edit_collision_pair(a, b, false);
    names += (names.empty() ? "" : ", ") + model->body_name[a] + " - " + model->body_name[b];
  }
  rebuild_collision_world();
  const std::string count = std::to_string(pairs.size()) +
                            (pairs.size() == 1 ? " overlapping pair" : " overlapping pairs");
  note_edit(count + " off");
  info(count + " no longer checked: " + names);
  return int(pairs.size());
}

void AppState::update_collisions() {
  CollisionStatus c;
  c.margin = scaled_margin(c.margin, robot_extent);
  bool any = false;
  for (const WorkbenchObjective& o : objectives) {
    if (!o.enabled() ||
        (o.type() != ObjectiveType::kSelfCollision && o.type() != ObjectiveType::kWorldCollision))
      continue;
    c.margin = any ? std::max(c.margin, o.spec.params.margin) : o.spec.params.margin;
    any = true;
  }
  c.objective = any;
  if (model && int(fk.body_q.size()) == model->body_count) {
    c.pairs =
        closest_distances(collision_world_, fk.body_q.data(), kCollisionPairsListed, c.margin);
    for (const BodyDistance& d : c.pairs) {
      c.penetrating_count += d.contact.distance < 0;
      c.near_count += d.contact.distance >= 0 && d.contact.distance < c.margin;
    }
  }
  collisions = std::move(c);
}

}  // namespace ikwb::gui
