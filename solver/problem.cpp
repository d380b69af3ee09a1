#include "solver/problem.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace ikwb {

namespace {

bool finite3(const Vec3<double>& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

Quat<double> checked_unit(const Quat<double>& q, const std::string& what) {
  if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z) || !std::isfinite(q.w))
    throw std::invalid_argument(what + ": quaternion has NaN or infinite values");
  double n = quat_norm(q);
  if (std::fabs(n - 1.0) > 1e-3)
    throw std::invalid_argument(what + ": quaternion (x, y, z, w) is not unit (norm " +
                                std::to_string(n) + ")");
  return normalize(q);
}

// per-axis weights apply only to kinds that have such rows (the others keep 1, 1, 1)
Objective make_objective(ObjectiveType type, int link, Vec3<double> offset,
                         const ObjectiveOptions& options) {
  const ObjectiveKind& kind = objective_kind(type);
  Objective o;
  o.params.type = type;
  o.params.link = link;
  o.params.offset = offset;
  o.params.weight = options.weight;
  o.params.hard = options.hard;
  o.params.margin = default_margin(type);
  if (kind.has(kFieldPositionWeights)) o.params.position_weights = options.position_weights;
  if (kind.has(kFieldRotationWeights)) o.params.rotation_weights = options.rotation_weights;
  return o;
}

// a process-wide counter: ids are never reused, so equal ids mean the same world
uint64_t next_collision_world_id() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

// The model's default world and its id, built once for the problems on a model (a 2,047-link
// tree's pair list took 0.1 s, built again for every target of `ikwb solve --sequential`). The
// worlds of the last few models are kept while their models live; the next problem made drops
// those of models gone.
std::pair<std::shared_ptr<const CollisionWorld>, uint64_t> default_collision_world(
    const std::shared_ptr<const Model>& model) {
  struct Kept {
    std::weak_ptr<const Model> model;
    std::shared_ptr<const CollisionWorld> world;
    uint64_t id;
  };
  constexpr std::size_t kModelsKept = 4;
  static std::mutex mutex;
  static std::vector<Kept> kept;
  std::lock_guard<std::mutex> lock(mutex);
  kept.erase(
      std::remove_if(kept.begin(), kept.end(), [](const Kept& k) { return k.model.expired(); }),
      kept.end());
  for (const Kept& k : kept)
    if (k.model.lock() == model) return {k.world, k.id};
  if (kept.size() == kModelsKept) kept.erase(kept.begin());
  kept.push_back({model,
                  std::make_shared<const CollisionWorld>(make_collision_world(*model, {}, {})),
                  next_collision_world_id()});
  return {kept.back().world, kept.back().id};
}

}  // namespace

std::string default_objective_name(const Model& m, const Objective& o) {
  const ObjectiveParams<double>& p = o.params;
  auto body = [&](int b) { return b >= 0 && b < m.body_count ? m.body_name[b] : std::string("?"); };
  switch (p.type) {
    case ObjectiveType::kLookAt:
      return "look_at " + body(p.link) + (p.link_b >= 0 ? " at " + body(p.link_b) : "");
    case ObjectiveType::kPosition:
    case ObjectiveType::kRotation:
    case ObjectiveType::kPose:
    case ObjectiveType::kAxisAlign:
    case ObjectiveType::kPositionBox:
    case ObjectiveType::kOrientationCone:
    case ObjectiveType::kManipulability:
      return std::string(objective_kind(p.type).name) + " " + body(p.link);
    case ObjectiveType::kJointLimits:
      return "joint limits";
    case ObjectiveType::kRelativeBall:
      return "ball " + body(p.link) + " - " + body(p.link_b);
    case ObjectiveType::kRelativeFixed:
      return "fixed " + body(p.link) + " - " + body(p.link_b);
    case ObjectiveType::kMinDistance:
      return "distance " + body(p.link) + " - " + body(p.link_b);
    default:
      return objective_kind(p.type).name;
  }
}

bool Objective::has_target() const {
  const ObjectiveKind& kind = objective_kind(params.type);
  return kind.has_target() && !(kind.has(kFieldTargetLink) && params.link_b >= 0);
}

IkProblem::IkProblem(std::shared_ptr<const Model> model, int problem_count)
    : model_(std::move(model)), problem_count_(problem_count) {
  if (!model_) throw std::invalid_argument("IkProblem: model is null");
  if (problem_count < 1)
    throw std::invalid_argument("IkProblem: problem_count must be >= 1, got " +
                                std::to_string(problem_count));
  dof_lower_ = model_->dof_lower;
  dof_upper_ = model_->dof_upper;
  std::tie(collision_, collision_id_) = default_collision_world(model_);
}

void IkProblem::check_objective(int i, const char* what) const {
  if (i < 0 || i >= objective_count())
    throw std::invalid_argument(std::string(what) + ": objective index " + std::to_string(i) +
                                " out of range [0, " + std::to_string(objective_count()) + ")");
}

void IkProblem::check_problem(int p, const char* what) const {
  if (p < 0 || p >= problem_count_)
    throw std::invalid_argument(std::string(what) + ": problem index " + std::to_string(p) +
                                " out of range [0, " + std::to_string(problem_count_) + ")");
}

void IkProblem::check_link(int link, const char* what) const {
  if (link < 0 || link >= model_->body_count)
    throw std::invalid_argument(std::string(what) + ": link index " + std::to_string(link) +
                                " out of range [0, " + std::to_string(model_->body_count) + ")");
}

void IkProblem::check_objective_spec(Objective& o, const char* what) const {
  const ObjectiveKind& kind = objective_kind(o.params.type);
  const std::string w(what);
  ObjectiveParams<double>& p = o.params;
  if (!std::isfinite(p.weight) || p.weight < 0)
    throw std::invalid_argument(w + ": weight must be finite and >= 0, got " +
                                std::to_string(p.weight));
  if (!finite3(p.offset) || !finite3(p.offset_b))
    throw std::invalid_argument(w + ": offset has NaN or infinite values");
  for (const Vec3<double>& a : {p.position_weights, p.rotation_weights})
    if (!finite3(a) || a.x < 0 || a.y < 0 || a.z < 0)
      throw std::invalid_argument(w + ": per-axis weights must be finite and >= 0");
  if (kind.has(kFieldLink)) check_link(p.link, (w + " link").c_str());
  if (kind.has(kFieldLinkB) || (kind.has(kFieldTargetLink) && p.link_b != -1))
    check_link(p.link_b, (w + " link_b").c_str());
  if (kind.has(kFieldDistance) && (!std::isfinite(p.distance) || p.distance < 0))
    throw std::invalid_argument(w + ": distance must be finite and >= 0");
  if (kind.has(kFieldMargin) && !(std::isfinite(p.margin) && p.margin >= 0 && p.margin <= 1e3))
    throw std::invalid_argument(w + ": margin must be finite, >= 0 and <= 1e3 m");
  // axes and directions are stored normalised; a zero one has no direction
  // (scaled by its largest component first: the square of 1e200 overflowed, and the vector
  // came out zero)
  auto unit = [&](Vec3<double>& v, const char* name) {
    const double big = std::max({std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
    if (!finite3(v) || !(big > 0))
      throw std::invalid_argument(w + ": " + name + " must be a finite, non-zero vector");
    const Vec3<double> s = (1.0 / big) * v;
    const double l = length(s);
    if (!(l * big > 1e-12))
      throw std::invalid_argument(w + ": " + name + " must be a finite, non-zero vector");
    v = (1.0 / l) * s;
  };
  if (kind.has(kFieldAxis)) unit(p.axis, "axis");
  if (kind.has(kFieldDirection)) unit(p.direction, "direction");
  if (kind.has(kFieldCone) && !(p.cone >= 0 && p.cone <= 3.141592653589793))
    throw std::invalid_argument(w + ": cone must be an angle in [0, pi] rad");
  if (kind.has(kFieldRelative)) {
    if (!finite3(p.relative.p)) throw std::invalid_argument(w + ": relative has NaN");
    p.relative.q = checked_unit(p.relative.q, w + " relative");
  }
  if (p.hard && !kind.has(kFieldHard))
    throw std::invalid_argument(w + ": a " + kind.name + " objective cannot be hard");
  if (p.null_space && !kind.has(kFieldNullSpace))
    throw std::invalid_argument(w + ": only a posture objective can act in the null space");
  if (kind.has(kFieldRest)) {
    if (o.rest_q.empty()) o.rest_q = model_->neutral_configuration();
    if (int(o.rest_q.size()) != model_->coord_count)
      throw std::invalid_argument(
          w + ": rest_q has " + std::to_string(o.rest_q.size()) +
          " values, expected joint_coord_count = " + std::to_string(model_->coord_count));
    for (double v : o.rest_q)
      if (!std::isfinite(v)) throw std::invalid_argument(w + ": rest_q has NaN or inf");
  }
  if (p.type == ObjectiveType::kCustom) {
    if (!o.custom || o.custom->dim <= 0) throw std::invalid_argument(w + ": dim must be > 0");
    if (!o.custom->residual) throw std::invalid_argument(w + ": residual function is empty");
  }
  if (kind.has(kFieldContacts)) {
    if (o.points.empty() || int(o.points.size()) > kMaxContactPoints)
      throw std::invalid_argument(w + ": needs 1 to " + std::to_string(kMaxContactPoints) +
                                  " contact points, got " + std::to_string(o.points.size()));
    for (const LinkPoint<double>& lp : o.points) {
      check_link(lp.link, (w + " contact link").c_str());
      if (!finite3(lp.offset))
        throw std::invalid_argument(w + ": a contact point has NaN or infinite values");
    }
  } else {
    o.points.clear();
  }
  if (kind.has(kFieldMinMeasure) && !(std::isfinite(p.min_measure) && p.min_measure >= 0))
    throw std::invalid_argument(w + ": min_measure must be finite and >= 0");
  if (kind.has(kFieldBox))
    for (int k = 0; k < 3; ++k)
      if (std::isnan(p.box_lower[k]) || std::isnan(p.box_upper[k]) ||
          p.box_lower[k] > p.box_upper[k] || p.box_lower[k] == HUGE_VAL ||
          p.box_upper[k] == -HUGE_VAL)
        throw std::invalid_argument(w + ": box axis " + std::to_string(k) +
                                    " needs lower <= upper (lower may be -inf, upper +inf)");
  p.dim = p.type == ObjectiveType::kCustom ? o.custom->dim
                                           : kind.dim(model_->dof_count, int(o.points.size()));
  if (o.name.empty()) o.name = default_objective_name(*model_, o);
}

int IkProblem::add_objective(Objective o) {
  return add_checked(std::move(o), "add_objective");
}

int IkProblem::add_checked(Objective o, const char* what) {
  check_objective_spec(o, what);
  objectives_.push_back(std::move(o));
  relayout();
  // new objective's targets start at the identity for every problem
  return objective_count() - 1;
}

void IkProblem::set_objective(int index, Objective o) {
  check_objective(index, "set_objective");
  check_objective_spec(o, "set_objective");
  const bool same_layout = o.params.dim == objectives_[index].params.dim &&
                           o.points.size() == objectives_[index].points.size();
  o.params.start = objectives_[index].params.start;
  o.params.point_start = objectives_[index].params.point_start;
  o.params.point_count = int(o.points.size());
  objectives_[index] = std::move(o);
  if (!same_layout) {
    relayout();
    return;
  }
  const Objective& cur = objectives_[index];
  params_[index] = cur.params;
  std::copy(cur.points.begin(), cur.points.end(), points_.begin() + cur.params.point_start);
  if (!cur.rest_q.empty())
    std::copy(cur.rest_q.begin(), cur.rest_q.end(),
              rest_.begin() + std::size_t(index) * model_->coord_count);
  ++version_;
}

void IkProblem::relayout() {
  const int nq = model_->coord_count;
  std::vector<Transform<double>> old_targets = std::move(targets_);
  int old_count = params_.empty() ? 0 : int(old_targets.size()) / problem_count_;
  params_.clear();
  rest_.assign(std::size_t(objectives_.size()) * nq, 0.0);
  targets_.assign(objectives_.size() * std::size_t(problem_count_), transform_identity<double>());
  residual_count_ = 0;
  points_.clear();
  for (std::size_t i = 0; i < objectives_.size(); ++i) {
    Objective& o = objectives_[i];
    o.params.start = residual_count_;
    residual_count_ += o.params.dim;
    o.params.point_start = int(points_.size());
    o.params.point_count = int(o.points.size());
    points_.insert(points_.end(), o.points.begin(), o.points.end());
    params_.push_back(o.params);
    if (!o.rest_q.empty()) std::copy(o.rest_q.begin(), o.rest_q.end(), rest_.begin() + i * nq);
  }
  // carry targets over by objective identity: objectives keep their order, the removed
  // one (if any) is handled by remove_objective before calling us
  for (int i = 0; i < std::min(old_count, objective_count()); ++i)
    for (int p = 0; p < problem_count_; ++p)
      targets_[i * problem_count_ + p] = old_targets[i * problem_count_ + p];
  ++structure_version_;
  ++version_;
}

int IkProblem::add_position(int link, Vec3<double> offset, const ObjectiveOptions& options) {
  return add_checked(make_objective(ObjectiveType::kPosition, link, offset, options),
                     "add_position");
}

int IkProblem::add_rotation(int link, const ObjectiveOptions& options) {
  return add_checked(make_objective(ObjectiveType::kRotation, link, {0, 0, 0}, options),
                     "add_rotation");
}

int IkProblem::add_pose(int link, Vec3<double> offset, const ObjectiveOptions& options) {
  return add_checked(make_objective(ObjectiveType::kPose, link, offset, options), "add_pose");
}

int IkProblem::add_joint_limits(const ObjectiveOptions& options) {
  return add_checked(make_objective(ObjectiveType::kJointLimits, -1, {0, 0, 0}, options),
                     "add_joint_limits");
}

int IkProblem::add_posture(std::vector<double> rest_q, const PostureOptions& options) {
  Objective o = make_objective(ObjectiveType::kPosture, -1, {0, 0, 0}, {options.weight});
  o.params.null_space = options.null_space;
  o.rest_q = std::move(rest_q);
  return add_checked(std::move(o), "add_posture");
}

int IkProblem::add_relative_ball(int link_a, Vec3<double> offset_a, int link_b,
                                 Vec3<double> offset_b, const ObjectiveOptions& options) {
  Objective o = make_objective(ObjectiveType::kRelativeBall, link_a, offset_a, options);
  o.params.link_b = link_b;
  o.params.offset_b = offset_b;
  return add_checked(std::move(o), "add_relative_ball");
}

int IkProblem::add_relative_fixed(int link_a, int link_b, const Transform<double>& relative,
                                  const ObjectiveOptions& options) {
  Objective o = make_objective(ObjectiveType::kRelativeFixed, link_a, {0, 0, 0}, options);
  o.params.link_b = link_b;
  o.params.relative = relative;
  return add_checked(std::move(o), "add_relative_fixed");
}

int IkProblem::add_min_distance(int link_a, Vec3<double> offset_a, int link_b,
                                Vec3<double> offset_b, double distance,
                                const ObjectiveOptions& options) {
  Objective o = make_objective(ObjectiveType::kMinDistance, link_a, offset_a, options);
  o.params.link_b = link_b;
  o.params.offset_b = offset_b;
  o.params.distance = distance;
  return add_checked(std::move(o), "add_min_distance");
}

int IkProblem::add_custom(CustomObjective custom, const ObjectiveOptions& options) {
  Objective o = make_objective(ObjectiveType::kCustom, -1, {0, 0, 0}, options);
  o.custom = std::make_shared<CustomObjective>(std::move(custom));
  return add_checked(std::move(o), "add_custom");
}

void IkProblem::remove_objective(int index) {
  check_objective(index, "remove_objective");
  std::vector<Transform<double>> keep;
  for (int i = 0; i < objective_count(); ++i)
    if (i != index)
      for (int p = 0; p < problem_count_; ++p) keep.push_back(targets_[i * problem_count_ + p]);
  objectives_.erase(objectives_.begin() + index);
  targets_ = std::move(keep);
  relayout();
}

void IkProblem::set_target_position(int objective, int problem, const Vec3<double>& p) {
  check_objective(objective, "set_target_position");
  check_problem(problem, "set_target_position");
  if (!finite3(p))
    throw std::invalid_argument("set_target_position: target position has NaN or inf values");
  targets_[objective * problem_count_ + problem].p = p;
  ++version_;
}

void IkProblem::set_target_positions(int objective, const std::vector<Vec3<double>>& p) {
  check_objective(objective, "set_target_positions");
  if (int(p.size()) != problem_count_)
    throw std::invalid_argument(
        "set_target_positions: got " + std::to_string(p.size()) +
        " positions, expected problem_count = " + std::to_string(problem_count_));
  for (const auto& v : p)
    if (!finite3(v))
      throw std::invalid_argument("set_target_positions: target position has NaN or inf values");
  for (int i = 0; i < problem_count_; ++i) targets_[objective * problem_count_ + i].p = p[i];
  ++version_;
}

void IkProblem::set_target_rotation(int objective, int problem, const Quat<double>& q) {
  check_objective(objective, "set_target_rotation");
  check_problem(problem, "set_target_rotation");
  targets_[objective * problem_count_ + problem].q = checked_unit(q, "set_target_rotation");
  ++version_;
}

void IkProblem::set_target_pose(int objective, int problem, const Transform<double>& x) {
  check_objective(objective, "set_target_pose");
  check_problem(problem, "set_target_pose");
  if (!finite3(x.p))
    throw std::invalid_argument("set_target_pose: target position has NaN or inf values");
  targets_[objective * problem_count_ + problem] = {x.p, checked_unit(x.q, "set_target_pose")};
  ++version_;
}

void IkProblem::set_target_poses(int objective, const std::vector<Transform<double>>& x) {
  check_objective(objective, "set_target_poses");
  if (int(x.size()) != problem_count_)
    throw std::invalid_argument(
        "set_target_poses: got " + std::to_string(x.size()) +
        " poses, expected problem_count = " + std::to_string(problem_count_));
  std::vector<Transform<double>> checked;
  for (const auto& t : x) {
    if (!finite3(t.p))
      throw std::invalid_argument("set_target_poses: target position has NaN or inf values");
    checked.push_back({t.p, checked_unit(t.q, "set_target_poses")});
  }
  for (int i = 0; i < problem_count_; ++i) targets_[objective * problem_count_ + i] = checked[i];
  ++version_;
}

const Transform<double>& IkProblem::target(int objective, int problem) const {
  check_objective(objective, "target");
  check_problem(problem, "target");
  return targets_[objective * problem_count_ + problem];
}

void IkProblem::set_weight(int objective, double weight) {
  check_objective(objective, "set_weight");
  if (!std::isfinite(weight) || weight < 0)
    throw std::invalid_argument("set_weight: weight must be finite and >= 0, got " +
                                std::to_string(weight));
  objectives_[objective].params.weight = params_[objective].weight = weight;
  ++version_;
}

void IkProblem::set_axis_weights(int objective, const Vec3<double>& position,
                                 const Vec3<double>& rotation) {
  check_objective(objective, "set_axis_weights");
  if (!finite3(position) || !finite3(rotation) || position.x < 0 || position.y < 0 ||
      position.z < 0 || rotation.x < 0 || rotation.y < 0 || rotation.z < 0)
    throw std::invalid_argument("set_axis_weights: weights must be finite and >= 0");
  auto& p = objectives_[objective].params;
  p.position_weights = position;
  p.rotation_weights = rotation;
  params_[objective] = p;
  ++version_;
}

void IkProblem::set_hard(int objective, bool hard) {
  check_objective(objective, "set_hard");
  objectives_[objective].params.hard = params_[objective].hard = hard;
  ++version_;
}

void IkProblem::set_enabled(int objective, bool enabled) {
  check_objective(objective, "set_enabled");
  objectives_[objective].params.enabled = params_[objective].enabled = enabled;
  ++version_;
}

void IkProblem::set_rest(int objective, const std::vector<double>& rest_q) {
  check_objective(objective, "set_rest");
  if (int(rest_q.size()) != model_->coord_count)
    throw std::invalid_argument(
        "set_rest: rest_q has " + std::to_string(rest_q.size()) +
        " values, expected joint_coord_count = " + std::to_string(model_->coord_count));
  for (double v : rest_q)
    if (!std::isfinite(v)) throw std::invalid_argument("set_rest: rest_q has NaN or inf");
  objectives_[objective].rest_q = rest_q;
  std::copy(rest_q.begin(), rest_q.end(), rest_.begin() + std::size_t(objective) * rest_q.size());
  ++version_;
}

void IkProblem::set_name(int objective, const std::string& name) {
  check_objective(objective, "set_name");
  objectives_[objective].name = name;
}

const Objective& IkProblem::objective(int index) const {
  check_objective(index, "objective");
  return objectives_[index];
}

void IkProblem::set_dof_mask(const std::vector<uint8_t>& mask) {
  if (!mask.empty() && int(mask.size()) != model_->dof_count)
    throw std::invalid_argument(
        "set_dof_mask: mask has " + std::to_string(mask.size()) +
        " values, expected joint_dof_count = " + std::to_string(model_->dof_count));
  dof_mask_ = mask;
  ++version_;
}

void IkProblem::set_dof_limits(const std::vector<double>& lower, const std::vector<double>& upper) {
  const int nv = model_->dof_count;
  if (int(lower.size()) != nv || int(upper.size()) != nv)
    throw std::invalid_argument(
        "set_dof_limits: lower and upper need joint_dof_count = " + std::to_string(nv) +
        " values, got " + std::to_string(lower.size()) + " and " + std::to_string(upper.size()));
  for (int d = 0; d < nv; ++d)
    if (std::isnan(lower[d]) || std::isnan(upper[d]) || lower[d] > upper[d])
      throw std::invalid_argument("set_dof_limits: dof " + std::to_string(d) + " has lower " +
                                  std::to_string(lower[d]) + " > upper " +
                                  std::to_string(upper[d]) + " (or NaN)");
  if (lower == dof_lower_ && upper == dof_upper_) return;
  dof_lower_ = lower;
  dof_upper_ = upper;
  ++version_;
}

ProblemView<double> IkProblem::view() const {
  ProblemView<double> v;
  v.model = model_->view();
  v.dof_lower = dof_lower_.data();
  v.dof_upper = dof_upper_.data();
  v.objectives = params_.data();
  v.objective_count = objective_count();
  v.problem_count = problem_count_;
  v.residual_count = residual_count_;
  v.targets = targets_.data();
  v.rest_q = rest_.data();
  v.points = points_.data();
  v.collision = collision_view(*collision_);
  return v;
}

void IkProblem::set_collision_world(CollisionWorld world) {
  for (const LinkCapsule<double>& c : world.capsules) check_link(c.body, "set_collision_world");
  int nc = int(world.capsules.size());
  for (int i : world.self_pairs)
    if (i < 0 || i >= nc)
      throw std::invalid_argument("set_collision_world: self pair capsule index out of range");
  for (int i : world.world_capsules)
    if (i < 0 || i >= nc)
      throw std::invalid_argument("set_collision_world: world capsule index out of range");
  if (world.self_pairs.size() % 2)
    throw std::invalid_argument("set_collision_world: self_pairs must hold index pairs");
  collision_ = std::make_shared<const CollisionWorld>(std::move(world));
  collision_id_ = next_collision_world_id();
  ++version_;
}

void IkProblem::share_collision_world(const IkProblem& other) {
  if (other.model_ != model_)
    throw std::invalid_argument("share_collision_world: the other problem is on another model");
  collision_ = other.collision_;
  collision_id_ = other.collision_id_;
}

bool IkProblem::has_custom() const {
  for (const auto& o : objectives_)
    if (o.params.type == ObjectiveType::kCustom) return true;
  return false;
}

double position_reach(const IkProblem& problem) {
  const Model& m = problem.model();
  double reach = 0;
  for (const ObjectiveParams<double>& o : problem.param_array()) {
    if (!o.enabled || o.link < 0 ||
        (o.type != ObjectiveType::kPose && o.type != ObjectiveType::kPosition))
      continue;
    // the path's joints from the link up; the lengths below each moving joint, kept at the
    // topmost one (what lies above it, such as a robot's placement in the world, moves nothing)
    double below = length(o.offset), at_top = 0;
    for (int body = o.link; body >= 0;) {
      const int j = m.body_joint[body];
      if (j < 0) break;
      below += length(m.joint_X_c[j].p);
      if (JointType(m.joint_type[j]) != JointType::kFixed) at_top = below;
      below += length(m.joint_X_p[j].p);
      body = m.joint_parent[j];
    }
    reach = std::max(reach, at_top);
  }
  return reach;
}

double damping_scale(const IkProblem& problem) {
  const double reach = position_reach(problem);
  if (reach == 0 || reach >= kDampedReach) return 1.0;
  // (a reach under 0.1 mm, such as a point on its link's joint axis, counts as 0.1 mm)
  const double r = std::max(reach, 1e-4) / kDampedReach;
  return r * r;
}

std::vector<int> objective_fk_joints(const IkProblem& problem) {
  const Model& m = problem.model();
  std::vector<uint8_t> read(m.body_count, 0);
  auto mark = [&](int body) {  // the body and its ancestors
    while (body >= 0 && !read[body]) {
      read[body] = 1;
      const int j = m.body_joint[body];
      body = j >= 0 ? m.joint_parent[j] : -1;
    }
  };
  for (const ObjectiveParams<double>& o : problem.param_array()) {
    if (!o.enabled || o.null_space) continue;
    const BodiesRead bodies = bodies_read(o.type);
    if (bodies == BodiesRead::kAll) return {};
    if (bodies == BodiesRead::kNone) continue;
    mark(o.link);
    mark(o.link_b);
  }
  std::vector<int> joints;
  for (int j = 0; j < m.joint_count; ++j)
    if (read[m.joint_child[j]]) joints.push_back(j);
  if (int(joints.size()) == m.joint_count) return {};
  return joints;
}

std::vector<uint8_t> objective_seeded_dofs(const IkProblem& problem) {
  return objective_seeded_dofs(problem.model(), objective_fk_joints(problem));
}

std::vector<uint8_t> objective_seeded_dofs(const Model& m, const std::vector<int>& joints) {
  if (joints.empty()) return {};
  std::vector<uint8_t> seeded(std::size_t(m.dof_count), 0);
  auto mark = [&](int j) {
    for (int d = m.joint_qd_start[j]; d < m.joint_qd_start[j + 1]; ++d) seeded[d] = 1;
  };
  for (int j : joints) {
    mark(j);
    if (m.joint_mimic[j] >= 0) mark(m.joint_mimic[j]);
  }
  return seeded;
}

}  // namespace ikwb
