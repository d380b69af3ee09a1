// Collision geometry of a robot: one capsule (a sphere when its segment is a point) fitted to
// each <collision> element of each link, the pairs of links that are checked against each other,
// SRDF <disable_collisions> lists, and obstacles in the world.
//
// Fit. The element's surface is sampled (box: its corners and a grid on its faces; cylinder: its
// two rims and its caps; sphere: exact; mesh: its vertices, scaled) in the body frame. For each
// candidate axis (the samples' three principal axes, a mesh's surface's, area-weighted, and the
// element frame's x, y, z), through the samples' centroid and through the centre of the
// smallest circle holding them seen along it, the smallest capsule along that line that contains
// every sample is found (radius: the largest distance of a sample from the axis; segment: the
// shortest along the axis that keeps every sample within that radius); the capsule of least
// volume is kept (a mesh's tessellation does not tilt or inflate it). Capsules are
// therefore conservative (they contain the sampled geometry). fit_error is how far the capsule
// reaches beyond the geometry: the largest signed distance from a point of the capsule's surface
// (a sample of 26 directions from each end and 8 around the middle) to the element, measured
// with the exact signed distance for boxes, cylinders and spheres and as the distance to the
// nearest vertex for meshes (an upper bound). A sphere fits exactly; a cylinder longer than its
// diameter reaches its radius past each end cap; a flat box gets a capsule as thick as its
// cross-section's diagonal.
// A capsule inside another capsule of the same link (a cylinder's capsule covers the spheres a
// URDF puts at its ends) is dropped: it is never closer to anything than the one containing it.
// Links without <collision> elements use their <visual> ones (with a warning); a mesh that could
// not be loaded is skipped with a warning.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/distance.hpp"

namespace ikwb {

class Model;
struct Geometry;

// A capsule fixed to a body: segment p0-p1 in the body frame, radius (m).
template <class T>
struct LinkCapsule {
  int body = -1;
  Vec3<T> p0 = {T(0), T(0), T(0)}, p1 = {T(0), T(0), T(0)};
  T radius = T(0);
};

// The fitted capsules of a model, cached in Model::collision by ModelBuilder::finalize.
struct CollisionGeometry {
  std::vector<LinkCapsule<double>> capsules;  // (capsule_count) grouped by body, body order;
                                              // none inside another of its body
  std::vector<double> fit_error;              // (capsule_count) m, see the header
  std::vector<int> body_first;                // (body_count + 1) capsules of body b:
                                              // [body_first[b], body_first[b + 1])
  std::vector<std::string> warnings;          // fallbacks to visuals, skipped meshes
  int capsule_count() const { return int(capsules.size()); }
};

// One capsule fitted to one geometry element (body frame; body left at -1). False when the
// element has nothing to fit (a mesh that was not loaded, an empty mesh, one that is a point).
bool fit_capsule(const Geometry& geometry, LinkCapsule<double>* capsule, double* fit_error);
// Fits every body's collision elements (visual ones when a body has none).
CollisionGeometry fit_collision_geometry(const Model& model);

// Rigidly joined bodies: bodies connected through fixed joints share a group (-1 for a body that
// has no collision geometry is not special: every body gets a group). (body_count)
std::vector<int> rigid_groups(const Model& model);

// Body pairs (a < b) that are checked for self collision: both have capsules, they are not
// joined by fixed joints (same rigid group) and they are not adjacent: parent and child across
// a moving joint (between their rigid groups), where a group without capsules counts as
// removed and its neighbours as joined (MoveIt's "adjacent with no geometry links between
// them": the links either side of a geometry-less link, and its children with each other).
// disabled: more pairs to skip, by body index.
std::vector<std::pair<int, int>> self_collision_pairs(
    const Model& model, const std::vector<std::pair<int, int>>& disabled = {});

// An SRDF's <disable_collisions link1="A" link2="B" reason="R"/> entries.
struct DisabledPair {
  std::string link1, link2, reason;
};
// Throws std::runtime_error naming the file and the problem (unreadable, bad XML, no <robot>,
// an entry without link1 or link2).
std::vector<DisabledPair> load_srdf(const std::string& path);
std::vector<DisabledPair> parse_srdf(const std::string& xml, const std::string& source_name);
// Body index pairs of the entries. An entry naming a link the robot lacks is skipped (MoveIt
// skips it too; a stale name after a rename no longer turns every pair back on), with one
// warning in `warnings` listing the skipped entries (and `source`, the SRDF file, when given).
std::vector<std::pair<int, int>> disabled_body_pairs(const Model& model,
                                                     const std::vector<DisabledPair>& pairs,
                                                     std::vector<std::string>& warnings,
                                                     const std::string& source = "");
// An SRDF document listing the pairs (the output of `ikwb check --sample-pairs`).
std::string srdf_text(const Model& model, const std::vector<DisabledPair>& pairs);

// The fraction of `samples` configurations (uniform within the joint limits, unlimited joints
// within [-pi, pi], seeded) in which each body pair collides (distance < 0). (pairs.size())
std::vector<double> sample_collision_rates(const Model& model,
                                           const std::vector<std::pair<int, int>>& pairs,
                                           int samples, unsigned seed);
// MoveIt setup assistant style: pairs colliding in at least `always` of the samples ("Always"),
// or in none ("Never"), or in the rest configuration ("Default"), as SRDF entries.
std::vector<DisabledPair> sampled_disabled_pairs(const Model& model, int samples, unsigned seed,
                                                 double always = 0.95);

// An obstacle as scene files write it.
struct Obstacle {
  std::string name;
  ShapeType type = ShapeType::kBox;
  Vec3<double> size = {0.1, 0.1, 0.1};  // box: full extents (m)
  double radius = 0.05;                 // sphere, capsule, cylinder
  double length = 0.1;                  // capsule (segment), cylinder: along the frame's z
  Vec3<double> normal = {0, 0, 1};      // half-space: outward unit normal, world
  double offset = 0;                    // half-space: the plane is normal . x = offset
  Transform<double> pose = transform_identity<double>();  // world (not used by half-spaces)
};
// "sphere", "capsule", "box", "cylinder", "half_space"; null when unknown
const char* shape_type_name(ShapeType type);
bool parse_shape_type(const std::string& name, ShapeType* type);
// Checks sizes (> 0, finite), the unit normal and quaternion; throws std::invalid_argument
// naming the obstacle and the field.
void check_obstacle(const Obstacle& obstacle);
// the solver's shape (half extents, half lengths; half-space as a pose)
CollisionShape<double> obstacle_shape(const Obstacle& obstacle);

// Everything the collision objectives read, for one model and one scene, in the flat form the
// row math takes (solver/objective_collision.hpp).
struct CollisionWorld {
  std::vector<LinkCapsule<double>> capsules;      // (capsule_count) the model's
  std::vector<int> self_pairs;                    // (self_pair_count x 2) capsule indices
  std::vector<int> world_capsules;                // capsules on bodies that some dof moves
  std::vector<CollisionShape<double>> obstacles;  // world
  std::vector<std::string> obstacle_names;
  int self_pair_count() const { return int(self_pairs.size() / 2); }
};
// Self pairs: self_collision_pairs less `disabled`, plus `enabled` (body pairs checked even when
// joined by a joint or disabled; pairs that cannot be checked, with a body without capsules or
// rigidly joined, are left out).
CollisionWorld make_collision_world(const Model& model,
                                    const std::vector<std::pair<int, int>>& disabled,
                                    const std::vector<Obstacle>& obstacles,
                                    const std::vector<std::pair<int, int>>& enabled = {});

// A scene's edits to the self pairs by link name (scene key "collision_pairs"), relative to the
// default pairs less the SRDF's: `disabled` pairs are not checked, `enabled` ones are (even when
// the defaults or the SRDF skip them).
using LinkPair = std::pair<std::string, std::string>;
struct CollisionPairEdits {
  std::vector<LinkPair> disabled, enabled;
  bool empty() const { return disabled.empty() && enabled.empty(); }
};
// Body pairs (a < b) of named pairs; a pair naming an unknown link, or one that can never be
// checked (a link without capsules, links welded together), is skipped with a warning naming
// the pair and `where` ("collision_pairs.disabled").
std::vector<std::pair<int, int>> named_body_pairs(const Model& model,
                                                  const std::vector<LinkPair>& pairs,
                                                  const std::string& where,
                                                  std::vector<std::string>& warnings);
// Whether a body pair can be checked at all: both have capsules and they are not welded
// together by fixed joints.
bool checkable_pair(const Model& model, int a, int b);

// The distance between two bodies, or a body and an obstacle, at given body poses.
struct BodyDistance {
  int body_a = -1;
  int body_b = -1;    // -1: obstacle
  int obstacle = -1;  // index into the world's obstacles, -1: a self pair
  Contact<double> contact;
};
// Per body pair (self) and per body and obstacle, the closest capsule pair, sorted by distance
// (ties in the world's pair order: self pairs, then each world capsule's obstacles). All of them
// when max_count is 0; otherwise the max_count closest and every further one closer than
// `within` (the self pairs beyond those are not measured). body_q: (body_count) world poses.
std::vector<BodyDistance> closest_distances(
    const CollisionWorld& world, const Transform<double>* body_q, int max_count = 0,
    double within = -std::numeric_limits<double>::infinity());

}  // namespace ikwb
