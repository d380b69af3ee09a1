// The robot Model: immutable structure-of-arrays description of bodies and joints, built once
// (from URDF or with ModelBuilder) and then shared read-only by FK, the solver and the renderer.
#pragma once

#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/collision_geometry.hpp"
#include "engine/core/mesh.hpp"
#include "engine/core/row_kinematics.hpp"

namespace ikwb {

// A problem with a model or its input; the message names the file/argument and the problem.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "fixed", "revolute", ... (as in URDF; "free" for floating)
const char* joint_type_name(JointType t);

// The values [lower, upper] of a mimic joint's source that keep the mimic (multiplier k != 0,
// offset o) within [lo, hi]: the quotients (lo - o) / k and (hi - o) / k in order, each moved
// inward by the few ulps that keep k * q + o, fused or not, within [lo, hi] (from the quotient,
// a mimic at its source's narrowed limit ended 2e-16 past its own). An infinite bound stays so.
std::array<double, 2> mimic_source_range(double k, double o, double lo, double hi);

class Model;
// Narrows limits [*lower, *upper] asked for the 1-dof joint j to the values that keep the mimic
// joints following it within their own limits (Model::dof_mimic_lower / upper); false, leaving
// them as they are, when no value within them does. A continuous joint has no limits: left as
// they are (its angle, in (-pi, pi], keeps its mimics where the loader left it continuous).
bool keep_mimic_limits(const Model& m, int j, double* lower, double* upper);
// "its mimic joint 'a' within its limits", "its mimic joints 'a', 'b' within their limits":
// the mimic joints that follow joint j with limits it keeps (joint_mimic_limited), for messages
// about keep_mimic_limits.
std::string mimics_within_limits_text(const Model& m, int j);

enum class GeometryType { kBox, kCylinder, kSphere, kMesh };

struct Geometry {
  GeometryType type = GeometryType::kBox;
  Transform<double> origin = transform_identity<double>();  // geometry frame in body frame
  Vec3<double> size = {0, 0, 0};  // box: full extents; cylinder: radius, length, 0; sphere: r
  std::string mesh_uri;           // as written in the URDF
  std::string mesh_path;          // resolved file path, empty if not found
  Vec3<double> mesh_scale = {1, 1, 1};
  std::array<float, 4> rgba = {0.7f, 0.7f, 0.7f, 1.0f};
  bool has_color = false;  // rgba came from the URDF (material colour)
  std::string material_name;
  std::shared_ptr<const MeshData> mesh;  // loaded triangles (kMesh), null when missing
  bool placeholder = false;              // mesh could not be loaded: drawn as a small box
};

class Model {
 public:
  int joint_count = 0;
  int body_count = 0;
  int coord_count = 0;  // nq
  int dof_count = 0;    // nv
  int articulation_count = 0;

  // joints, topological order (joint_ancestor[j] < j)
  std::vector<std::string> joint_name;         // (joint_count)
  std::vector<int8_t> joint_type;              // (joint_count) JointType
  std::vector<int> joint_parent;               // (joint_count) parent body, -1 = world
  std::vector<int> joint_child;                // (joint_count) child body
  std::vector<int> joint_ancestor;             // (joint_count) parent joint, -1 at a root
  std::vector<Transform<double>> joint_X_p;    // (joint_count) joint frame in parent body
  std::vector<Transform<double>> joint_X_c;    // (joint_count) joint frame in child body
  std::vector<Vec3<double>> joint_axis;        // (joint_count) unit axis, joint frame
  std::vector<int> joint_q_start;              // (joint_count + 1)
  std::vector<int> joint_qd_start;             // (joint_count + 1)
  std::vector<int> joint_mimic;                // (joint_count) source joint or -1
  std::vector<double> joint_mimic_multiplier;  // (joint_count)
  std::vector<double> joint_mimic_offset;      // (joint_count)
  std::vector<int> joint_articulation;         // (joint_count)
  // (joint_count) 1 for a mimic joint whose own limits its source keeps (narrow_mimic_sources:
  // not one whose limits it refused), in dof_mimic_lower / upper
  std::vector<uint8_t> joint_mimic_limited;
  // (joint_count) 1 where the joint has an angle modulo a turn (periodic_coord): a continuous
  // joint, unless a mimic joint follows it with a multiplier that is not an integer, or slides
  // with it (then a turn more is another pose); a planar joint's turn. Set by finalize().
  std::vector<uint8_t> joint_periodic;
  // (coord_count) the configuration the robot file describes: zero and identity quaternions,
  // except an MJCF's qpos0 (its free joints' poses, its hinges' and slides' ref)
  std::vector<double> joint_q_home;

  // dofs
  std::vector<double> dof_lower;           // (dof_count) -inf when unlimited
  std::vector<double> dof_upper;           // (dof_count) +inf when unlimited
  std::vector<double> dof_velocity_limit;  // (dof_count) 0 when not given
  std::vector<double> dof_effort_limit;    // (dof_count) 0 when not given
  std::vector<int> dof_joint;              // (dof_count) owning joint
  // (dof_count) the values of a mimic joint's source that keep every mimic following it within
  // the mimic's own limits (the robot file's, where narrow_mimic_sources kept them), so that
  // limits set later (a scene's, the workbench's) keep them too; -inf / +inf where none limits it
  std::vector<double> dof_mimic_lower;
  std::vector<double> dof_mimic_upper;

  // articulations: joints [articulation_start[a], articulation_start[a + 1])
  std::vector<int> articulation_start;         // (articulation_count + 1)
  std::vector<std::string> articulation_name;  // (articulation_count)

  // bodies
  std::vector<std::string> body_name;               // (body_count)
  std::vector<int> body_joint;                      // (body_count) joint whose child it is, or -1
  std::vector<int> body_flags;                      // (body_count) BodyFlag bits
  std::vector<double> body_mass;                    // (body_count) kg
  std::vector<Vec3<double>> body_com;               // (body_count) centre of mass, body frame
  std::vector<std::array<double, 9>> body_inertia;  // (body_count) about the COM, body frame
  std::vector<std::vector<Geometry>> body_visuals;  // (body_count)
  std::vector<std::vector<Geometry>> body_collisions;  // (body_count)
  // capsules fitted to body_collisions (body_visuals where a body has none), by finalize()
  CollisionGeometry collision;

  std::string name;         // robot name
  std::string source_path;  // URDF it came from, empty when built in code

  ModelView<double> view() const;
  // -1 when not found
  int find_body(const std::string& name) const;
  int find_joint(const std::string& name) const;
  // joint_q_home with 1-dof joints clamped into their limits
  std::vector<double> neutral_configuration() const;
  // centre of the limits for limited joints, neutral elsewhere
  std::vector<double> middle_configuration() const;
  bool has_limits(int dof) const;
  // dof moves along an axis (m) rather than about one (rad): a prismatic joint's, a free
  // joint's first three, a planar joint's first two
  bool dof_is_linear(int dof) const;
};

// Same arrays as the Model's kinematic part converted to another scalar (float for the GPU and
// the float CPU path); owns its storage and hands out a ModelView<T>.
template <class T>
struct ModelArrays {
  std::vector<Transform<T>> joint_X_p, joint_X_c;
  std::vector<Vec3<T>> joint_axis, body_com;
  std::vector<T> joint_mimic_multiplier, joint_mimic_offset, body_mass;
  ModelView<T> view;

  explicit ModelArrays(const Model& m) {
    for (const auto& x : m.joint_X_p) joint_X_p.push_back(cast<T>(x));
    for (const auto& x : m.joint_X_c) joint_X_c.push_back(cast<T>(x));
    for (const auto& a : m.joint_axis) joint_axis.push_back(cast<T>(a));
    for (const auto& c : m.body_com) body_com.push_back(cast<T>(c));
    for (double v : m.body_mass) body_mass.push_back(T(v));
    for (double v : m.joint_mimic_multiplier) joint_mimic_multiplier.push_back(T(v));
    for (double v : m.joint_mimic_offset) joint_mimic_offset.push_back(T(v));
    ModelView<double> d = m.view();
    view.joint_count = d.joint_count;
    view.body_count = d.body_count;
    view.coord_count = d.coord_count;
    view.dof_count = d.dof_count;
    view.joint_type = d.joint_type;
    view.joint_parent = d.joint_parent;
    view.joint_child = d.joint_child;
    view.joint_ancestor = d.joint_ancestor;
    view.joint_q_start = d.joint_q_start;
    view.joint_qd_start = d.joint_qd_start;
    view.joint_mimic = d.joint_mimic;
    view.joint_periodic = d.joint_periodic;
    view.body_joint = d.body_joint;
    view.body_flags = d.body_flags;
    view.joint_X_p = joint_X_p.data();
    view.joint_X_c = joint_X_c.data();
    view.joint_axis = joint_axis.data();
    view.body_com = body_com.data();
    view.body_mass = body_mass.data();
    view.joint_mimic_multiplier = joint_mimic_multiplier.data();
    view.joint_mimic_offset = joint_mimic_offset.data();
  }
  ModelArrays(const ModelArrays&) = delete;
  ModelArrays& operator=(const ModelArrays&) = delete;
};

// Joint description for ModelBuilder::add_joint. Limits apply to 1-dof joints.
struct JointSpec {
  std::string name;
  JointType type = JointType::kFixed;
  int parent = -1;  // parent body, -1 = world
  int child = -1;   // child body
  Transform<double> X_p = transform_identity<double>();
  Transform<double> X_c = transform_identity<double>();
  Vec3<double> axis = {1, 0, 0};
  double lower = -1e300, upper = 1e300;  // unlimited when left as is
  double velocity = 0, effort = 0;
  int mimic = -1;  // source joint index
  double mimic_multiplier = 1, mimic_offset = 0;
};

// Builds a Model in code (tests, URDF loader, synthetic robots). Joints must be added in
// topological order: a joint's parent body is the world or the child of an earlier joint.
class ModelBuilder {
 public:
  int add_body(const std::string& name, double mass = 1.0, Vec3<double> com = {0, 0, 0},
               std::array<double, 9> inertia = {1, 0, 0, 0, 1, 0, 0, 0, 1},
               int flags = kBodyDynamic);
  int add_joint(const JointSpec& spec);
  // joint's coordinates where the robot file places it (Model::joint_q_home; an MJCF's qpos0);
  // joints without one are at zero and identity quaternions
  void set_home(int joint, std::vector<double> coords);
  // joints added from now on belong to a new articulation
  void begin_articulation(const std::string& name);
  std::vector<Geometry>& visuals(int body);
  std::vector<Geometry>& collisions(int body);
  Model& model() { return m_; }
  // validates and returns the finished model; throws ModelError naming the problem. A mimic
  // joint's own limits narrow its source's to the values that keep both (a gripper's second
  // finger); each narrowing, and limits that cannot be kept that way (the source continuous, or
  // no value of it within its limits keeping them: not enforced), is said in `notes`.
  Model finalize(std::vector<std::string>* notes = nullptr);

 private:
  Model m_;
  void narrow_mimic_sources(Model& m, std::vector<std::string>* notes) const;

  std::vector<std::pair<double, double>> limits_;
  std::vector<std::pair<double, double>> vel_eff_;
  std::vector<std::vector<double>> home_;
};

}  // namespace ikwb
