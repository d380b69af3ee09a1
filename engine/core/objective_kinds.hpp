// The objective kinds, declared once. A row of the kind table says what a kind is called in
// scene files and scripts, what the workbench labels it, which parameters it reads (by scene
// key), where its position and rotation error rows sit, and its defaults. The scene reader and
// writer, the IK problem (solver/problem.hpp), the scene-to-problem mapping
// (solver/scene_problem.hpp) and the workbench (Objectives panel row, 3D overlay, state dump,
// script `add`) all work from this table; a kind's residual and Jacobian rows are its cases in
// solver/objectives.hpp (__host__ __device__, shared by both backends).
//
// Plain data, no solver types: engine/core reads scenes without the solver.
#pragma once

#include <cstdint>
#include <string>

namespace ikwb {

enum class ObjectiveType : int8_t {
  kPosition = 0,       // point on a link at a target position (3 rows)
  kRotation = 1,       // link orientation at a target, log-map error (3 rows)
  kPose = 2,           // position then rotation (6 rows)
  kJointLimits = 3,    // inequality, one row per dof: max(q - upper, lower - q) <= 0
  kPosture = 4,        // dof-space difference to a rest configuration (dof_count rows)
  kRelativeBall = 5,   // point on link a coincides with point on link b (3 rows)
  kRelativeFixed = 6,  // link b keeps a fixed pose relative to link a (6 rows)
  kMinDistance = 7,    // inequality: distance(point a, point b) >= distance (1 row)
  kCustom = 8,         // user residual (CPU only): rows filled by the backend
  kCom = 9,            // the model's centre of mass at a target point (3 rows)
  kLookAt = 10,  // a link axis points at a target point (or link_b's point), within a cone (3 rows)
  kAxisAlign = 11,  // a link axis parallel to a world direction, within a cone (3 rows)
  // inequality, the closest capsule pairs of the robot: margin - distance <= 0 (8 rows)
  kSelfCollision = 12,
  // inequality, the closest robot capsule / obstacle pairs: margin - distance <= 0 (8 rows)
  kWorldCollision = 13,
  kSupportPolygon = 14,   // inequality: the CoM over the contacts' convex hull (a row per point)
  kPositionBox = 15,      // inequality: a link point inside a box in a target frame (3 rows)
  kOrientationCone = 16,  // inequality: angle(link orientation, target) <= cone (1 row)
  kManipulability = 17,   // inequality: Yoshikawa measure >= min_measure (1 row + 3 inactive)
};

// residual rows of a collision objective: one per pair among the closest ones
constexpr int kCollisionRows = 8;

// The parameters a kind reads, named by their scene keys. Every kind also has "type", "name",
// "weight", "hard" and "enabled".
enum ObjectiveField : uint32_t {
  kFieldLink = 1u << 0,             // "link": body name (a body index in the solver)
  kFieldOffset = 1u << 1,           // "offset": point on link, link frame, m
  kFieldLinkB = 1u << 2,            // "link_b": the second body
  kFieldOffsetB = 1u << 3,          // "offset_b": point on link_b, link_b frame, m
  kFieldDistance = 1u << 4,         // "distance": m, >= 0
  kFieldRelative = 1u << 5,         // "relative": pose of link_b in link's frame, or "current"
  kFieldTarget = 1u << 6,           // "target": world pose, or "current" (the link's pose)
  kFieldNullSpace = 1u << 7,        // "null_space": applied in the task's null space
  kFieldPositionWeights = 1u << 8,  // "position_weights": per world axis, position rows
  kFieldRotationWeights = 1u << 9,  // "rotation_weights": per world axis, rotation rows
  kFieldRest = 1u << 10,            // reads the scene's "rest" configuration
  kFieldHard = 1u << 11,            // may be a hard constraint (else soft only)
  kFieldAxis = 1u << 12,            // "axis": direction in the link frame (normalised)
  kFieldDirection = 1u << 13,       // "direction": world direction (normalised)
  kFieldCone = 1u << 14,            // "cone": rad in [0, pi], a tolerance about the direction
  // with kFieldTarget: only the target's position is read (a point; its orientation is kept
  // but ignored), e.g. the centre of mass or the point a link looks at
  kFieldTargetPoint = 1u << 15,
  // with kFieldTarget: the target is a frame whose position and orientation are both read,
  // though the kind has no position or rotation error rows (position_box)
  kFieldTargetFrame = 1u << 16,
  // with kFieldTarget: only the target's orientation is read (orientation_cone)
  kFieldTargetOrientation = 1u << 17,
  kFieldContacts = 1u << 18,    // "contacts": [{"link", "points": [[x, y, z], ...]}]
  kFieldMargin = 1u << 19,      // "margin": m, >= 0 (default per kind: default_margin)
  kFieldBox = 1u << 20,         // "lower", "upper": per target axis, m (null: open)
  kFieldMinMeasure = 1u << 21,  // "min_measure": >= 0
  // optional "link_b" and "offset_b": the target point is that point of link_b, moving with the
  // robot, instead of the world target (look_at: the head follows a hand)
  kFieldTargetLink = 1u << 22,
};

struct ObjectiveKind {
  ObjectiveType type;
  const char* name;   // scene "type" and the script's `add` keyword
  const char* label;  // shown in the workbench
  uint32_t fields;    // ObjectiveField bits
  int position_row;   // first raw row of the position error, -1 when none
  int rotation_row;   // first raw row of the rotation error, -1 when none
  int rows;           // residual rows; -1: one per dof, -2: one per contact point
  bool in_scenes;     // written to and read from scene files
  bool addable;       // added from the Objectives panel or a script without a scene
  bool unique;        // at most one per problem
  double weight;      // default weight
  bool hard;          // default mode

  bool has(uint32_t field) const { return (fields & field) == field; }
  // an objective of this kind has a world target (drawn with a gizmo). It is placed where the
  // objective is met (solver/objective_report.hpp objective_met_target): the link point and
  // orientation for link kinds, the centre of mass for com (which has a target but no link),
  // a point along the axis for look_at.
  bool has_target() const { return has(kFieldTarget); }
  // the target's position / orientation is read (a gizmo moves / turns it)
  bool target_position() const {
    return has_target() && (position_row >= 0 || has(kFieldTargetPoint) || has(kFieldTargetFrame));
  }
  bool target_orientation() const {
    return has_target() && !has(kFieldTargetPoint) &&
           (rotation_row >= 0 || has(kFieldTargetFrame) || has(kFieldTargetOrientation));
  }
  // relates two links (no target)
  bool is_pair() const { return has(kFieldLinkB); }
  // reads "link_b" / "offset_b": a pair, or a target that may follow a link
  bool reads_link_b() const { return has(kFieldLinkB) || has(kFieldTargetLink); }
  // residual rows for a model with dof_count dofs (and point_count contact points)
  int dim(int dof_count, int point_count = 0) const {
    return rows == -1 ? dof_count : (rows == -2 ? point_count : rows);
  }
};

// every kind; rows are kept in ObjectiveType order, so the index is usually int(type)
const ObjectiveKind* objective_kinds();
int objective_kind_count();
const ObjectiveKind& objective_kind(ObjectiveType type);
// by scene name; null when unknown
const ObjectiveKind* find_objective_kind(const std::string& name);
// "position, rotation, ..." (the scene names), for error messages
std::string objective_kind_names();
// The body poses an objective of a kind reads: none (posture, joint limits), its "link" and
// "link_b" (FK reaches them through their ancestors), or every body's (the centre of mass, the
// support polygon's, the collision kinds' capsules, custom rows). The CPU backend computes FK
// only for the bodies its problem's objectives read (solver/backend_common.hpp).
enum class BodiesRead : int8_t { kNone, kLinks, kAll };
BodiesRead bodies_read(ObjectiveType type);

// the margin (m) an objective of this kind gets when none is given: 2 cm inside a support
// polygon, 1 cm clearance for the collision kinds; 0 for kinds without a margin
double default_margin(ObjectiveType type);

// The unit of a kind's residual rows other than its position and rotation error rows (which are
// m and rad): m (distances, the centre of mass, boxes), rad (cones and axes), per dof (posture
// and joint limits: rad for a dof about an axis, m for one along it), or none of their own
// (manipulability's measure, custom rows).
enum class RowUnit : int8_t { kMetre, kRadian, kPerDof, kNone };
RowUnit row_unit(ObjectiveType type);

}  // namespace ikwb
