#include "solver/scene_problem.hpp"

#include <algorithm>

#include "engine/core/fk.hpp"
#include "solver/objective_report.hpp"

namespace ikwb {

void apply_joint_map(const Model& m, const JointMap& values, const std::string& what,
                     std::vector<double>& q, std::vector<std::string>& warnings) {
  for (const auto& [name, v] : values) {
    int j = m.find_joint(name);
    if (j < 0) {
      warnings.push_back(what + ": unknown joint '" + name + "' ignored");
      continue;
    }
    int n = m.joint_q_start[j + 1] - m.joint_q_start[j];
    if (int(v.size()) != n) {
      warnings.push_back(what + ": joint '" + name + "' takes " + std::to_string(n) +
                         " values, got " + std::to_string(v.size()));
      continue;
    }
    std::copy(v.begin(), v.end(), q.begin() + m.joint_q_start[j]);
  }
}

JointMap joint_map(const Model& m, const std::vector<double>& q) {
  JointMap out;
  for (int j = 0; j < m.joint_count; ++j) {
    int a = m.joint_q_start[j], b = m.joint_q_start[j + 1];
    if (b > a) out[m.joint_name[j]] = std::vector<double>(q.begin() + a, q.begin() + b);
  }
  return out;
}

void clamp_to_limits(const Model& m, std::vector<double>& q) {
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0 || joint_type_coord_count(JointType(m.joint_type[j])) != 1) continue;
    int d = m.joint_qd_start[j];
    double& v = q[m.joint_q_start[j]];
    v = std::min(std::max(v, m.dof_lower[d]), m.dof_upper[d]);
  }
}

bool objective_from_scene(const Model& m, const SceneObjective& so,
                          const std::vector<Transform<double>>& body_q,
                          const std::vector<double>& rest_q, PlacedObjective* out,
                          std::string* error) {
  const ObjectiveKind* kind = find_objective_kind(so.type);
  if (!kind) {
    *error = "unknown objective type '" + so.type + "'";
    return false;
  }
  Objective o;
  ObjectiveParams<double>& p = o.params;
  p.type = kind->type;
  if (kind->has(kFieldLink)) {
    p.link = m.find_body(so.link);
    if (p.link < 0) {
      *error = "unknown link '" + so.link + "'";
      return false;
    }
  }
  if (kind->has(kFieldLinkB)) {
    p.link_b = m.find_body(so.link_b);
    if (p.link_b < 0 || p.link_b == p.link) {
      *error = "link_b '" + so.link_b + "' unknown or the same as link";
      return false;
    }
  }
  if (kind->has(kFieldOffset)) p.offset = so.offset;
  if (kind->has(kFieldOffsetB)) p.offset_b = so.offset_b;
  if (kind->has(kFieldDistance)) p.distance = so.distance;
  if (kind->has(kFieldAxis)) p.axis = so.axis;
  if (kind->has(kFieldDirection)) p.direction = so.direction;
  if (kind->has(kFieldCone)) p.cone = so.cone;
  if (kind->has(kFieldMargin)) p.margin = so.margin;
  if (kind->has(kFieldPositionWeights)) p.position_weights = so.position_weights;
  if (kind->has(kFieldRotationWeights)) p.rotation_weights = so.rotation_weights;
  if (kind->has(kFieldNullSpace)) p.null_space = so.null_space;
  if (kind->has(kFieldHard)) p.hard = so.hard;
  if (kind->has(kFieldRest)) o.rest_q = rest_q;
  if (kind->has(kFieldRelative))
    p.relative = so.relative_current ? inverse(body_q[p.link]) * body_q[p.link_b] : so.relative;
  p.weight = so.weight;
  p.enabled = so.enabled;
  o.name = so.name.empty() ? default_objective_name(m, o) : so.name;
  out->objective = std::move(o);
  out->target = transform_identity<double>();
  if (kind->has_target())
    out->target = so.target_current ? objective_met_target(m, p, body_q) : so.target;
  return true;
}

SceneObjective objective_to_scene(const Model& m, const PlacedObjective& placed) {
  const Objective& o = placed.objective;
  const ObjectiveParams<double>& p = o.params;
  const ObjectiveKind& kind = objective_kind(p.type);
  SceneObjective so;
  so.type = kind.name;
  so.name = o.name;
  if (kind.has(kFieldLink) && p.link >= 0) so.link = m.body_name[p.link];
  if (kind.has(kFieldLinkB) && p.link_b >= 0) so.link_b = m.body_name[p.link_b];
  so.offset = p.offset;
  so.offset_b = p.offset_b;
  so.distance = p.distance;
  so.axis = p.axis;
  so.direction = p.direction;
  so.cone = p.cone;
  so.margin = p.margin;
  so.weight = p.weight;
  so.position_weights = p.position_weights;
  so.rotation_weights = p.rotation_weights;
  so.hard = p.hard;
  so.enabled = p.enabled;
  so.null_space = p.null_space;
  so.target_current = !kind.has_target();
  so.target = placed.target;
  so.relative_current = !kind.has(kFieldRelative);
  so.relative = p.relative;
  return so;
}

SceneSetup resolve_scene(const Model& m, const Scene& scene) {
  SceneSetup s;
  s.rest_q = m.neutral_configuration();
  apply_joint_map(m, scene.rest, "rest", s.rest_q, s.warnings);
  s.q = s.rest_q;
  apply_joint_map(m, scene.joint_q, "joint_q", s.q, s.warnings);
  clamp_to_limits(m, s.q);
  State fk(m);
  eval_fk(m, s.q, {}, fk);
  for (std::size_t i = 0; i < scene.objectives.size(); ++i) {
    PlacedObjective placed;
    std::string error;
    if (objective_from_scene(m, scene.objectives[i], fk.body_q, s.rest_q, &placed, &error))
      s.objectives.push_back(std::move(placed));
    else
      s.warnings.push_back("objective " + std::to_string(i) + " (" + scene.objectives[i].type +
                           "): " + error + ", skipped");
  }
  s.collision = scene_collision_world(m, scene, s.warnings);
  bool collides = false;
  for (const PlacedObjective& o : s.objectives) {
    ObjectiveType t = o.objective.params.type;
    collides |= t == ObjectiveType::kSelfCollision || t == ObjectiveType::kWorldCollision;
  }
  if (collides)
    s.warnings.insert(s.warnings.end(), m.collision.warnings.begin(), m.collision.warnings.end());
  return s;
}

CollisionWorld scene_collision_world(const Model& m, const Scene& scene,
                                     std::vector<std::string>& warnings) {
  std::vector<std::pair<int, int>> disabled;
  if (!scene.srdf.empty()) {
    try {
      disabled = disabled_body_pairs(m, load_srdf(scene.srdf));
    } catch (const std::runtime_error& e) {
      warnings.push_back(std::string("srdf: ") + e.what() + "; no pairs disabled");
    }
  }
  return make_collision_world(m, disabled, scene.obstacles);
}

IkProblem make_problem(std::shared_ptr<const Model> model,
                       const std::vector<PlacedObjective>& objectives, int problem_count,
                       const CollisionWorld* collision) {
  IkProblem problem(std::move(model), problem_count);
  if (collision) problem.set_collision_world(*collision);
  for (const PlacedObjective& placed : objectives) {
    int i = problem.add_objective(placed.objective);
    if (objective_kind(placed.objective.params.type).has_target())
      problem.set_target_poses(i, std::vector<Transform<double>>(problem_count, placed.target));
  }
  return problem;
}

}  // namespace ikwb
