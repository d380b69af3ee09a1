// An IK problem set: problem_count base problems sharing one Model and one list of objectives,
// each problem with its own targets. Targets update in place without rebuilding anything;
// adding or removing objectives bumps structure_version() so backends re-upload.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/model.hpp"
#include "solver/dual.hpp"
#include "solver/objectives.hpp"

namespace ikwb {

// A user-defined objective (CPU backends only): a residual of `dim` rows as a function of the
// configuration q (coord_count) and the body poses (body_count) computed from it. Its Jacobian
// comes from autodiff when residual_dual is set, else from finite differences.
struct CustomObjective {
  int dim = 0;
  std::function<void(const Model&, const double* q, const Transform<double>* body_q, double* r)>
      residual;
  std::function<void(const Model&, const Dual<double>* q, const Transform<Dual<double>>* body_q,
                     Dual<double>* r)>
      residual_dual;
};

// Builds a CustomObjective from one generic callable f(model, q, body_q, r) that works for
// both double and Dual<double> (a lambda with auto parameters), so autodiff is available.
template <class F>
CustomObjective make_custom_objective(int dim, F f) {
  CustomObjective c;
  c.dim = dim;
  c.residual = [f](const Model& m, const double* q, const Transform<double>* x, double* r) {
    f(m, q, x, r);
  };
  c.residual_dual = [f](const Model& m, const Dual<double>* q, const Transform<Dual<double>>* x,
                        Dual<double>* r) { f(m, q, x, r); };
  return c;
}

// One objective, completely: the device-copyable parameters (kind, links, offsets, weights and
// per-axis weights, mode) plus what only the host needs. Scenes (solver/scene_problem.hpp), the
// workbench and the CLI edit this description and hand it to IkProblem as it is; which fields a
// kind reads is declared in engine/core/objective_kinds.hpp. Targets live in the IkProblem (one
// per problem).
struct Objective {
  ObjectiveParams<double> params;
  std::string name;                         // "" = a default from the kind and its links
  std::vector<double> rest_q;               // kPosture: rest configuration (coord_count; empty:
                                            // the model's neutral configuration)
  std::vector<LinkPoint<double>> points;    // kSupportPolygon: contact points (link frame)
  std::shared_ptr<CustomObjective> custom;  // kCustom

  // it has a world target (moved by a gizmo, one per problem): its kind has one, and it does
  // not look at a point of link_b instead (look_at with link_b >= 0)
  bool has_target() const;
};

// How an objective counts, for the add_* factories: a weighted cost (soft) or an
// augmented-Lagrangian constraint (hard), and the weights of its position and rotation rows per
// world axis (kinds that have such rows; 0 leaves an axis free).
struct ObjectiveOptions {
  double weight = 1.0;
  bool hard = false;
  Vec3<double> position_weights = {1, 1, 1};
  Vec3<double> rotation_weights = {1, 1, 1};
};
// a hard constraint (the default of objectives between two links)
inline ObjectiveOptions hard_constraint(double weight = 1.0) {
  return {weight, true};
}

struct PostureOptions {
  double weight = 0.1;
  // a step of its own projected into the task's null space instead of residual rows (LM; the
  // last enabled posture objective)
  bool null_space = false;
};

// "pose panda_hand", "ball a - b", "joint limits", ...
std::string default_objective_name(const Model& model, const Objective& objective);

class IkProblem {
 public:
  // model: shared, read-only; problem_count >= 1
  IkProblem(std::shared_ptr<const Model> model, int problem_count = 1);

  const Model& model() const { return *model_; }
  std::shared_ptr<const Model> model_ptr() const { return model_; }
  int problem_count() const { return problem_count_; }
  int objective_count() const { return int(objectives_.size()); }
  int residual_count() const { return residual_count_; }
  // changes whenever objectives are added or removed (targets and weights do not count)
  uint64_t structure_version() const { return structure_version_; }
  // changes on every edit (targets, weights, modes, objectives)
  uint64_t version() const { return version_; }

  // Adds any objective kind: checks the fields its kind reads (links in range, finite offsets,
  // weights >= 0, a unit relative quaternion, rest_q of coord_count values), fills params.dim
  // and a default name. Returns its index; throws std::invalid_argument naming the field.
  int add_objective(Objective objective);
  // Replaces objective `index` (same checks). Keeps the residual layout when the row count is
  // unchanged (weights, links, offsets, mode edited in place), else relays out.
  void set_objective(int index, Objective objective);

  // Objective factories (add_objective with one kind's fields): return the objective index. Links
  // are body indices; offsets are in the link frame. Targets start at the identity and are set with
  // set_target_*. Objectives on one link are soft by default, those between two links hard.
  int add_position(int link, Vec3<double> offset = {0, 0, 0}, const ObjectiveOptions& options = {});
  int add_rotation(int link, const ObjectiveOptions& options = {});
  int add_pose(int link, Vec3<double> offset = {0, 0, 0}, const ObjectiveOptions& options = {});
  int add_joint_limits(const ObjectiveOptions& options = {});
  // rest_q: coord_count values (empty: the model's neutral configuration)
  int add_posture(std::vector<double> rest_q = {}, const PostureOptions& options = {});
  int add_relative_ball(int link_a, Vec3<double> offset_a, int link_b, Vec3<double> offset_b,
                        const ObjectiveOptions& options = hard_constraint());
  // relative: pose of link_b's frame in link_a's frame to keep
  int add_relative_fixed(int link_a, int link_b, const Transform<double>& relative,
                         const ObjectiveOptions& options = hard_constraint());
  int add_min_distance(int link_a, Vec3<double> offset_a, int link_b, Vec3<double> offset_b,
                       double distance, const ObjectiveOptions& options = hard_constraint());
  int add_custom(CustomObjective custom, const ObjectiveOptions& options = {});
  void remove_objective(int index);

  // Targets (world frame). Quaternions x, y, z, w must be unit (within 1e-3; they are then
  // renormalised); NaN or infinite values are rejected. Throw std::invalid_argument naming
  // the argument.
  void set_target_position(int objective, int problem, const Vec3<double>& p);
  void set_target_positions(int objective, const std::vector<Vec3<double>>& p);
  void set_target_rotation(int objective, int problem, const Quat<double>& q);
  void set_target_pose(int objective, int problem, const Transform<double>& x);
  void set_target_poses(int objective, const std::vector<Transform<double>>& x);
  const Transform<double>& target(int objective, int problem) const;

  // Objective settings that keep the layout
  void set_weight(int objective, double weight);
  void set_axis_weights(int objective, const Vec3<double>& position, const Vec3<double>& rotation);
  void set_hard(int objective, bool hard);
  void set_enabled(int objective, bool enabled);
  void set_rest(int objective, const std::vector<double>& rest_q);
  void set_name(int objective, const std::string& name);
  const Objective& objective(int index) const;

  // Capsules, self-collision pairs and obstacles read by the collision objectives (default: the
  // model's capsules and pairs, no obstacles; engine/core/collision_geometry.hpp; built once a
  // model and shared by its problems). Keeps the layout; throws std::invalid_argument for
  // indices out of range.
  void set_collision_world(CollisionWorld world);
  // other's collision world and its id (a problem made from another on the same model: no copy,
  // and a backend's collision memo stays valid); throws std::invalid_argument for another model
  void share_collision_world(const IkProblem& other);
  const CollisionWorld& collision_world() const { return *collision_; }
  // the collision world's identity: unique to each world set by set_collision_world in this
  // process, and to each model's default world; a copy of the problem keeps it. Equal ids, same
  // world (a backend keeps its collision memo across solves by it)
  uint64_t collision_world_id() const { return collision_id_; }

  // dofs that may move (dof_count, nonzero = free); empty = all
  void set_dof_mask(const std::vector<uint8_t>& mask);
  const std::vector<uint8_t>& dof_mask() const { return dof_mask_; }
  bool dof_free(int dof) const { return dof_mask_.empty() || dof_mask_[dof]; }

  // The joint limits the solver keeps (dof_count each; -inf / +inf when unlimited). They start
  // as the model's and may be narrowed or widened (live limits, a scene's "joint_limits").
  // A continuous joint has none (the workbench, scenes and Python refuse them); finite values for
  // it bound one solve's motion only (the workbench's frame step, around where it is), and its
  // answer still comes back in (-pi, pi], where it may be a turn away from them.
  // Throws std::invalid_argument on wrong sizes, NaN or lower > upper (naming the dof).
  void set_dof_limits(const std::vector<double>& lower, const std::vector<double>& upper);
  const std::vector<double>& dof_lower() const { return dof_lower_; }
  const std::vector<double>& dof_upper() const { return dof_upper_; }

  // Flat arrays for backends: targets (objective_count x problem_count), rests
  // (objective_count x coord_count), params (objective_count).
  const std::vector<Transform<double>>& target_array() const { return targets_; }
  const std::vector<double>& rest_array() const { return rest_; }
  const std::vector<ObjectiveParams<double>>& param_array() const { return params_; }
  // every objective's contact points (params.point_start, point_count)
  const std::vector<LinkPoint<double>>& point_array() const { return points_; }
  // a view of the above in double precision (host pointers; valid until the next edit)
  ProblemView<double> view() const;
  bool has_custom() const;

 private:
  void check_objective_spec(Objective& o, const char* what) const;
  int add_checked(Objective o, const char* what);
  void check_objective(int objective, const char* what) const;
  void check_problem(int problem, const char* what) const;
  void check_link(int link, const char* what) const;
  void relayout();

  std::shared_ptr<const Model> model_;
  int problem_count_ = 1;
  std::vector<Objective> objectives_;
  std::vector<ObjectiveParams<double>> params_;
  std::vector<Transform<double>> targets_;
  std::vector<double> rest_;
  std::vector<uint8_t> dof_mask_;
  std::vector<double> dof_lower_, dof_upper_;
  std::vector<LinkPoint<double>> points_;
  std::shared_ptr<const CollisionWorld> collision_;
  uint64_t collision_id_ = 0;
  int residual_count_ = 0;
  uint64_t structure_version_ = 1;
  uint64_t version_ = 1;
};

// The lever arm of the problem's position rows (m): for each enabled pose or position objective,
// the lengths of the translations below the topmost moving joint on its link's path to the
// root (joint frames in their parents and children) plus its point's offset; the largest, or 0
// without such an objective. A revolute joint moves the point by about this much per radian.
double position_reach(const IkProblem& problem);
// The reach the default dampings were chosen on (m): every shipped robot's lever arms are this
// long or longer (the quadruped's feet 0.506 m, the arms' tools 1.0-1.3 m).
constexpr double kDampedReach = 0.5;
// The factor on the initial LM damping (lambda_init): (position_reach / kDampedReach)^2 below
// kDampedReach, else 1. The position rows' J^T J scales with the square of the lever arm while
// the damping does not: on a 2.6 mm arm the default 3e-2 damped every step away, and the
// restarts gave up on 56 of 300 reachable targets.
double damping_scale(const IkProblem& problem);

// The joints whose child bodies the problem's objectives read (bodies_read): each enabled
// objective's links and their ancestors, in model order. Empty when an objective reads every
// body or the list would hold every joint (FK then computes all of them).
std::vector<int> objective_fk_joints(const IkProblem& problem);

// Per dof (dof_count): 1 when an objective's rows can depend on it (a joint of
// objective_fk_joints, or the source of a mimic joint among them), 0 when none can (a gripper
// finger, the other arm). Seeds and restarts keep such a dof at its initial value instead of
// drawing it: nothing would pull a drawn value back. Empty when every dof counts.
std::vector<uint8_t> objective_seeded_dofs(const IkProblem& problem);
// the same from objective_fk_joints(problem), already at hand
std::vector<uint8_t> objective_seeded_dofs(const Model& model, const std::vector<int>& fk_joints);

}  // namespace ikwb
