#include "solver/problem.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

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

int objective_dim(ObjectiveType t, const Model& m) {
  switch (t) {
    case ObjectiveType::kPosition:
    case ObjectiveType::kRotation:
    case ObjectiveType::kRelativeBall:
      return 3;
    case ObjectiveType::kPose:
    case ObjectiveType::kRelativeFixed:
      return 6;
    case ObjectiveType::kJointLimits:
    case ObjectiveType::kPosture:
      return m.dof_count;
    case ObjectiveType::kMinDistance:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

IkProblem::IkProblem(std::shared_ptr<const Model> model, int problem_count)
    : model_(std::move(model)), problem_count_(problem_count) {
  if (!model_) throw std::invalid_argument("IkProblem: model is null");
  if (problem_count < 1)
    throw std::invalid_argument("IkProblem: problem_count must be >= 1, got " +
                                std::to_string(problem_count));
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

int IkProblem::add(Objective o, int dim) {
  if (!std::isfinite(o.params.weight) || o.params.weight < 0)
    throw std::invalid_argument("objective weight must be finite and >= 0");
  if (!finite3(o.params.offset) || !finite3(o.params.offset_b))
    throw std::invalid_argument("objective offset has NaN or infinite values");
  o.params.dim = dim;
  objectives_.push_back(std::move(o));
  relayout();
  // new objective's targets start at the identity for every problem
  return objective_count() - 1;
}

void IkProblem::relayout() {
  const int nq = model_->coord_count;
  std::vector<Transform<double>> old_targets = std::move(targets_);
  int old_count = params_.empty() ? 0 : int(old_targets.size()) / problem_count_;
  params_.clear();
  rest_.assign(std::size_t(objectives_.size()) * nq, 0.0);
  targets_.assign(objectives_.size() * std::size_t(problem_count_), transform_identity<double>());
  residual_count_ = 0;
  for (std::size_t i = 0; i < objectives_.size(); ++i) {
    Objective& o = objectives_[i];
    o.params.start = residual_count_;
    residual_count_ += o.params.dim;
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

int IkProblem::add_position(int link, Vec3<double> offset, double weight, bool hard) {
  check_link(link, "add_position");
  Objective o;
  o.params.type = ObjectiveType::kPosition;
  o.params.link = link;
  o.params.offset = offset;
  o.params.weight = weight;
  o.params.hard = hard;
  o.name = "position " + model_->body_name[link];
  return add(std::move(o), 3);
}

int IkProblem::add_rotation(int link, double weight, bool hard) {
  check_link(link, "add_rotation");
  Objective o;
  o.params.type = ObjectiveType::kRotation;
  o.params.link = link;
  o.params.weight = weight;
  o.params.hard = hard;
  o.name = "rotation " + model_->body_name[link];
  return add(std::move(o), 3);
}

int IkProblem::add_pose(int link, Vec3<double> offset, double weight, bool hard) {
  check_link(link, "add_pose");
  Objective o;
  o.params.type = ObjectiveType::kPose;
  o.params.link = link;
  o.params.offset = offset;
  o.params.weight = weight;
  o.params.hard = hard;
  o.name = "pose " + model_->body_name[link];
  return add(std::move(o), 6);
}

int IkProblem::add_joint_limits(double weight, bool hard) {
  Objective o;
  o.params.type = ObjectiveType::kJointLimits;
  o.params.weight = weight;
  o.params.hard = hard;
  o.name = "joint limits";
  return add(std::move(o), objective_dim(ObjectiveType::kJointLimits, *model_));
}

int IkProblem::add_posture(std::vector<double> rest_q, double weight, bool null_space) {
  if (rest_q.empty()) rest_q = model_->neutral_configuration();
  if (int(rest_q.size()) != model_->coord_count)
    throw std::invalid_argument(
        "add_posture: rest_q has " + std::to_string(rest_q.size()) +
        " values, expected joint_coord_count = " + std::to_string(model_->coord_count));
  for (double v : rest_q)
    if (!std::isfinite(v)) throw std::invalid_argument("add_posture: rest_q has NaN or inf");
  Objective o;
  o.params.type = ObjectiveType::kPosture;
  o.params.weight = weight;
  o.params.null_space = null_space;
  o.rest_q = std::move(rest_q);
  o.name = "posture";
  return add(std::move(o), objective_dim(ObjectiveType::kPosture, *model_));
}

int IkProblem::add_relative_ball(int link_a, Vec3<double> offset_a, int link_b,
                                 Vec3<double> offset_b, double weight, bool hard) {
  check_link(link_a, "add_relative_ball link_a");
  check_link(link_b, "add_relative_ball link_b");
  Objective o;
  o.params.type = ObjectiveType::kRelativeBall;
  o.params.link = link_a;
  o.params.link_b = link_b;
  o.params.offset = offset_a;
  o.params.offset_b = offset_b;
  o.params.weight = weight;
  o.params.hard = hard;
  o.name = "ball " + model_->body_name[link_a] + " - " + model_->body_name[link_b];
  return add(std::move(o), 3);
}

int IkProblem::add_relative_fixed(int link_a, int link_b, const Transform<double>& relative,
                                  double weight, bool hard) {
  check_link(link_a, "add_relative_fixed link_a");
  check_link(link_b, "add_relative_fixed link_b");
  if (!finite3(relative.p)) throw std::invalid_argument("add_relative_fixed: relative has NaN");
  Objective o;
  o.params.type = ObjectiveType::kRelativeFixed;
  o.params.link = link_a;
  o.params.link_b = link_b;
  o.params.relative = {relative.p, checked_unit(relative.q, "add_relative_fixed relative")};
  o.params.weight = weight;
  o.params.hard = hard;
  o.name = "fixed " + model_->body_name[link_a] + " - " + model_->body_name[link_b];
  return add(std::move(o), 6);
}

int IkProblem::add_min_distance(int link_a, Vec3<double> offset_a, int link_b,
                                Vec3<double> offset_b, double distance, double weight, bool hard) {
  check_link(link_a, "add_min_distance link_a");
  check_link(link_b, "add_min_distance link_b");
  if (!std::isfinite(distance) || distance < 0)
    throw std::invalid_argument("add_min_distance: distance must be finite and >= 0");
  Objective o;
  o.params.type = ObjectiveType::kMinDistance;
  o.params.link = link_a;
  o.params.link_b = link_b;
  o.params.offset = offset_a;
  o.params.offset_b = offset_b;
  o.params.distance = distance;
  o.params.weight = weight;
  o.params.hard = hard;
  o.name = "distance " + model_->body_name[link_a] + " - " + model_->body_name[link_b];
  return add(std::move(o), 1);
}

int IkProblem::add_custom(CustomObjective custom, double weight, bool hard) {
  if (custom.dim <= 0) throw std::invalid_argument("add_custom: dim must be > 0");
  if (!custom.residual) throw std::invalid_argument("add_custom: residual function is empty");
  Objective o;
  o.params.type = ObjectiveType::kCustom;
  o.params.weight = weight;
  o.params.hard = hard;
  int dim = custom.dim;
  o.custom = std::make_shared<CustomObjective>(std::move(custom));
  o.name = "custom";
  return add(std::move(o), dim);
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

ProblemView<double> IkProblem::view() const {
  ProblemView<double> v;
  v.model = model_->view();
  v.dof_lower = model_->dof_lower.data();
  v.dof_upper = model_->dof_upper.data();
  v.objectives = params_.data();
  v.objective_count = objective_count();
  v.problem_count = problem_count_;
  v.residual_count = residual_count_;
  v.targets = targets_.data();
  v.rest_q = rest_.data();
  return v;
}

bool IkProblem::has_custom() const {
  for (const auto& o : objectives_)
    if (o.params.type == ObjectiveType::kCustom) return true;
  return false;
}

}  // namespace ikwb
