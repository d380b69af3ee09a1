// Forward kinematics (eval_fk), its inverse conversion (eval_ik), branch queries, and the world
// Jacobian of a point on a link. Semantics of eval_fk follow Newton's newton.eval_fk.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/model.hpp"

namespace ikwb {

// Body state written by eval_fk: world pose and twist of each body.
struct State {
  std::vector<Transform<double>> body_q;  // (body_count) body frame in world
  std::vector<Spatial<double>> body_qd;   // (body_count) (v_com_world, omega_world)
  // identity poses and zero twists for every body of the model
  explicit State(const Model& m = Model());
};

struct FkOptions {
  // per articulation (articulation_count), nonzero = evaluate; null = all
  const std::vector<uint8_t>* mask = nullptr;
  // articulation indices to evaluate; null = all. Giving both mask and indices is an error.
  const std::vector<int>* indices = nullptr;
  // BodyFlag bits: bodies whose flags do not match keep their existing state
  int body_flag_filter = kBodyAll;
  // per joint (joint_count), nonzero = update the child body; null = all joints.
  // Descendants are not added automatically.
  const std::vector<uint8_t>* joint_mask = nullptr;
};

// Updates state.body_q / body_qd from joint_q (coord_count) and joint_qd (dof_count; may be
// empty, then velocities are left untouched). Throws ModelError on wrong sizes or both filters.
void eval_fk(const Model& model, const std::vector<double>& joint_q,
             const std::vector<double>& joint_qd, State& state, const FkOptions& options = {});

// Batched: joint_q (n_batch x coord_count), joint_qd (n_batch x dof_count, or empty),
// body_q (n_batch x body_count), body_qd (n_batch x body_count, or empty when joint_qd is).
// The same filters apply to every row.
void eval_fk_batch(const Model& model, int n_batch, const std::vector<double>& joint_q,
                   const std::vector<double>& joint_qd, std::vector<Transform<double>>& body_q,
                   std::vector<Spatial<double>>& body_qd, const FkOptions& options = {});

// eval_fk_batch's rows on raw arrays whose sizes the caller has checked: n rows of coord_count
// coordinates in joint_q, of dof_count rates in joint_qd (or null: poses only), of body_count
// poses in body_q and twists in body_qd (null with joint_qd); joint_selected (joint_count, from
// fk_joint_selection) or null for every joint. Four rows at a time in the lanes of one vector
// (lanes.hpp), the same values as one row at a time.
void fk_rows(const Model& model, std::size_t n, const double* joint_q, const double* joint_qd,
             const uint8_t* joint_selected, int body_flag_filter, Transform<double>* body_q,
             Spatial<double>* body_qd);

// The per-joint selection (joint_count, nonzero = update) that mask / indices / joint_mask
// make together, after eval_fk's argument checks; caller names the function in messages.
std::vector<uint8_t> fk_joint_selection(const Model& model, const FkOptions& options,
                                        const char* caller = "eval_fk");

// Inverse conversion (not a solver): joint coordinates and velocities of every joint from the
// body poses and twists in state. joint_q (coord_count) is read as well as written: revolute
// angles are unwrapped to the value closest to the one already there (where that is not
// finite: closest to the middle of the limits, or to 0 when unlimited), among the values within
// the joint's limits when one is; a joint that a mimic joint follows along a slide, or with a
// multiplier that is not a whole number, takes the turn the mimic's bodies show (of 64 either
// side). joint_qd (dof_count) is written when non-null. Mimic joints have no coordinates and are
// skipped.
void eval_ik(const Model& model, const State& state, std::vector<double>& joint_q,
             std::vector<double>* joint_qd = nullptr);

// The neutral configuration with each floating root (a free joint with only fixed joints, or
// none, above it) lifted until the lowest point of its bodies is on z = 0 (of their collision
// shapes, or their visuals where a body has none: boxes by their corners, spheres and cylinders
// exactly, loaded meshes by their vertices; else the collision capsules fitted to them, which
// reach below a box foot; else the body's origin): where the workbench opens a floating robot,
// which at its neutral configuration stands at the origin with its legs through the ground grid.
// Nothing is lowered.
std::vector<double> standing_configuration(const Model& model);
// The same from configuration q (coord_count): its floating roots lifted, the rest as it is.
// Only the roots in `roots` (floating roots as above; all of them when null) are lifted.
std::vector<double> standing_configuration(const Model& model, std::vector<double> q,
                                           const std::vector<int>* roots = nullptr);

// joints below joint j in the tree (not j itself), in topological order
std::vector<int> joint_descendants(const Model& model, int joint);
// joint_mask selecting j and, when with_descendants, everything below it; and every joint that
// mimics a selected one (it moves with it), with its descendants when with_descendants
std::vector<uint8_t> branch_joint_mask(const Model& model, int joint, bool with_descendants);

// World Jacobian (6 x dof_count, row-major: 3 linear rows, then 3 angular rows) of the point
// with coordinates `offset` in `body`'s frame, at the poses in body_q (body_count).
std::vector<double> point_jacobian_world(const Model& model,
                                         const std::vector<Transform<double>>& body_q, int body,
                                         const Vec3<double>& offset);

}  // namespace ikwb
