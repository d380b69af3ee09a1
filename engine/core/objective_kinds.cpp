#include "engine/core/objective_kinds.hpp"

namespace ikwb {

namespace {

constexpr uint32_t kLinkPoint = kFieldLink | kFieldOffset | kFieldTarget | kFieldHard;
constexpr uint32_t kPair = kFieldLink | kFieldOffset | kFieldLinkB | kFieldOffsetB | kFieldHard;

// clang-format off
const ObjectiveKind kKinds[] = {
  // type                          name              label             fields                                                      pos rot rows scene  add   unique weight hard
  {ObjectiveType::kPosition,      "position",       "Position",       kLinkPoint | kFieldPositionWeights,                          0, -1,  3, true,  true,  false, 1.0,  false},
  {ObjectiveType::kRotation,      "rotation",       "Rotation",       kFieldLink | kFieldTarget | kFieldHard | kFieldRotationWeights,
                                                                                                                                   -1,  0,  3, true,  true,  false, 1.0,  false},
  {ObjectiveType::kPose,          "pose",           "Pose",           kLinkPoint | kFieldPositionWeights | kFieldRotationWeights,  0,  3,  6, true,  true,  false, 1.0,  false},
  {ObjectiveType::kJointLimits,   "joint_limits",   "Joint limits",   kFieldHard,                                                 -1, -1, -1, true,  true,  true,  1.0,  false},
  {ObjectiveType::kPosture,       "posture",        "Posture",        kFieldRest | kFieldNullSpace,                               -1, -1, -1, true,  true,  false, 0.01, false},
  {ObjectiveType::kRelativeBall,  "relative_ball",  "Relative ball",  kPair | kFieldPositionWeights,                               0, -1,  3, true,  false, false, 1.0,  true},
  {ObjectiveType::kRelativeFixed, "relative_fixed", "Relative fixed", kFieldLink | kFieldLinkB | kFieldRelative | kFieldHard | kFieldPositionWeights | kFieldRotationWeights,
                                                                                                                                    0,  3,  6, true,  false, false, 1.0,  true},
  {ObjectiveType::kMinDistance,   "min_distance",   "Min distance",   kPair | kFieldDistance,                                     -1, -1,  1, true,  false, false, 1.0,  true},
  {ObjectiveType::kCustom,        "custom",         "Custom",         kFieldHard,                                                 -1, -1,  0, false, false, false, 1.0,  false},
  {ObjectiveType::kCom,           "com",            "Centre of mass", kFieldTarget | kFieldTargetPoint | kFieldPositionWeights | kFieldHard,
                                                                                                                                    0, -1,  3, true,  true,  false, 1.0,  false},
  {ObjectiveType::kLookAt,        "look_at",        "Look at",        kLinkPoint | kFieldTargetPoint | kFieldAxis | kFieldCone | kFieldTargetLink,
                                                                                                                                   -1,  0,  3, true,  true,  false, 1.0,  false},
  {ObjectiveType::kAxisAlign,     "axis_align",     "Axis align",     kFieldLink | kFieldAxis | kFieldDirection | kFieldCone | kFieldHard,
                                                                                                                                   -1,  0,  3, true,  true,  false, 1.0,  false},
  {ObjectiveType::kSelfCollision, "self_collision", "Self collision", kFieldMargin | kFieldHard,                               -1, -1, kCollisionRows, true,  true,  true,  1.0,  true},
  {ObjectiveType::kWorldCollision, "world_collision", "World collision", kFieldMargin | kFieldHard,                            -1, -1, kCollisionRows, true,  true,  true,  1.0,  true},
  {ObjectiveType::kSupportPolygon, "support_polygon", "Support polygon", kFieldContacts | kFieldMargin | kFieldHard,               -1, -1, -2, true,  false, false, 1.0,  true},
  {ObjectiveType::kPositionBox,   "position_box",   "Position box",   kLinkPoint | kFieldTargetFrame | kFieldBox,                 -1, -1,  3, true,  true,  false, 1.0,  true},
  {ObjectiveType::kOrientationCone, "orientation_cone", "Orientation cone", kFieldLink | kFieldTarget | kFieldTargetOrientation | kFieldCone | kFieldHard,
                                                                                                                                   -1, -1,  1, true,  true,  false, 1.0,  true},
  {ObjectiveType::kManipulability, "manipulability", "Manipulability", kFieldLink | kFieldOffset | kFieldMinMeasure | kFieldHard,           -1, -1,  4, true,  true,  false, 1.0,  false},
};
// clang-format on

constexpr int kKindCount = int(sizeof(kKinds) / sizeof(kKinds[0]));

}  // namespace

const ObjectiveKind* objective_kinds() {
  return kKinds;
}

int objective_kind_count() {
  return kKindCount;
}

const ObjectiveKind& objective_kind(ObjectiveType type) {
  int i = int(type);
  if (i >= 0 && i < kKindCount && kKinds[i].type == type) return kKinds[i];
  for (const ObjectiveKind& k : kKinds)
    if (k.type == type) return k;
  return kKinds[int(ObjectiveType::kCustom)];
}

const ObjectiveKind* find_objective_kind(const std::string& name) {
  for (const ObjectiveKind& k : kKinds)
    if (k.in_scenes && name == k.name) return &k;
  return nullptr;
}

std::string objective_kind_names() {
  std::string out;
  for (const ObjectiveKind& k : kKinds) {
    if (!k.in_scenes) continue;
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

BodiesRead bodies_read(ObjectiveType type) {
  switch (type) {
    case ObjectiveType::kJointLimits:
    case ObjectiveType::kPosture:
      return BodiesRead::kNone;
    case ObjectiveType::kPosition:
    case ObjectiveType::kRotation:
    case ObjectiveType::kPose:
    case ObjectiveType::kRelativeBall:
    case ObjectiveType::kRelativeFixed:
    case ObjectiveType::kMinDistance:
    case ObjectiveType::kLookAt:
    case ObjectiveType::kAxisAlign:
    case ObjectiveType::kPositionBox:
    case ObjectiveType::kOrientationCone:
    case ObjectiveType::kManipulability:
      return BodiesRead::kLinks;
    case ObjectiveType::kCustom:
    case ObjectiveType::kCom:
    case ObjectiveType::kSelfCollision:
    case ObjectiveType::kWorldCollision:
    case ObjectiveType::kSupportPolygon:
      return BodiesRead::kAll;
  }
  return BodiesRead::kAll;
}

double default_margin(ObjectiveType type) {
  switch (type) {
    case ObjectiveType::kSupportPolygon:
      return 0.02;
    case ObjectiveType::kSelfCollision:
    case ObjectiveType::kWorldCollision:
      return 0.01;
    default:
      return 0;
  }
}

RowUnit row_unit(ObjectiveType type) {
  switch (type) {
    case ObjectiveType::kPosition:
    case ObjectiveType::kPose:
    case ObjectiveType::kRelativeBall:
    case ObjectiveType::kRelativeFixed:
    case ObjectiveType::kMinDistance:
    case ObjectiveType::kCom:
    case ObjectiveType::kSelfCollision:
    case ObjectiveType::kWorldCollision:
    case ObjectiveType::kSupportPolygon:
    case ObjectiveType::kPositionBox:
      return RowUnit::kMetre;
    case ObjectiveType::kRotation:
    case ObjectiveType::kLookAt:
    case ObjectiveType::kAxisAlign:
    case ObjectiveType::kOrientationCone:
      return RowUnit::kRadian;
    case ObjectiveType::kJointLimits:
    case ObjectiveType::kPosture:
      return RowUnit::kPerDof;
    case ObjectiveType::kCustom:
    case ObjectiveType::kManipulability:
      return RowUnit::kNone;
  }
  return RowUnit::kNone;
}

}  // namespace ikwb
