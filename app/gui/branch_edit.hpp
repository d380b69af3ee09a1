// Masked-FK branch edit mode (newton.eval_fk's joint_mask semantics): the app keeps the displayed
// body state while the mode is on; each edit refreshes the joint coordinates and velocities from
// that state (eval_ik), changes one joint's coordinate and runs FK for the joint alone, or for
// the joint and its descendants, so every other body keeps its pose and twist bit for bit. The
// solver is paused while the mode is on; leaving it refreshes from the bodies and runs full FK.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/core/fk.hpp"
#include "engine/render/camera.hpp"

struct ImVec2;

namespace ikwb::gui {

class AppState;
struct Ui;

struct BranchEdit {
  bool active = false;
  int joint = -1;  // edited joint (one coordinate)
  bool descendants_follow = true;
  uint64_t model_version = 0;       // the model the state belongs to
  State state;                      // the displayed body poses and twists while active
  std::vector<double> joint_qd;     // (dof_count) joint velocities after the last edit
  std::vector<uint8_t> joint_mask;  // (joint_count) the last edit's mask; empty before one
  std::vector<uint8_t> updated;     // (body_count) 1: written by the last edit
  int edits = 0;
};

// joints branch edit can change: one coordinate, not a mimic
bool branch_editable(const Model& m, int joint);
// the editable joint that moves `body` (its own joint, else the nearest editable ancestor), or -1
int branch_joint_for_body(const Model& m, int body);
// enters the mode on `joint` (or switches joint); false with a message when it is not editable
bool begin_branch_edit(AppState& app, int joint);
// leaves the mode: coordinates refreshed from the bodies (eval_ik), then normal FK; the edits
// are one undo step ("branch edit"). Bodies kept against their joints that move get a warning,
// unless for_undo (the undo that follows takes the edits back: the warning named a hand moved
// 492 mm that the undo then put back)
void end_branch_edit(AppState& app, bool for_undo = false);
// Turned on after edits that preserved descendants, those go where their joints put them at
// once (eval_ik, full FK), with a warning naming the bodies that moved, as leaving does.
void set_branch_follow(AppState& app, bool follow);
// The edit action (slider, 3D handle and script): eval_ik refresh, the joint's coordinate set to
// value (clamped into its limits; a periodic joint's wrapped into (-pi, pi]), masked FK with the
// joint velocity (value - old) / dt (a periodic joint's the shorter way round).
bool branch_set(AppState& app, double value, double dt = 1.0 / 60.0);
// the joint's current coordinate (from joint_q)
double branch_value(const AppState& app);
// after branch_set(app, asked): "" when the coordinate is `asked`, else a warning that it was
// beyond the joint's limit and where it was set (as the joint command's)
std::string branch_clamp_message(const AppState& app, double asked);

// The 3D handle at the edited joint: a ring about a revolute joint's axis (radius
// kBranchHandlePx pixels) or a segment along a prismatic joint's axis. *param is the mouse's
// angle about the axis (rad) or position along it (m); with hit_test, false unless the mouse is
// on the handle.
constexpr float kBranchHandlePx = 60.0f;
bool branch_handle_param(const AppState& app, const render::Camera& cam,
                         const render::Viewport& rect, glm::vec2 mouse, bool hit_test,
                         double* param);
// the handle's world frame: centre at the joint, axis, and the direction of coordinate 0
bool branch_handle_frame(const AppState& app, glm::vec3* centre, glm::vec3* axis, glm::vec3* zero);
// (joint_count) for each joint, the unit direction in its frame, perpendicular to its axis, in
// which its child link lies at coordinate 0: toward the child's first child joint off the axis,
// else its centre of mass, else any perpendicular (a link along the axis). The zero of the limit
// arcs and of the handle's ring, so that their spoke lies along the link (it was a quarter turn
// off on the planar arm, and the forbidden gap drawn beside the link).
std::vector<Vec3<double>> joint_zero_directions(const Model& m);

// floating controls over the 3D view while the mode is on (pos: its bottom-left corner)
void draw_branch_panel(Ui& ui, ImVec2 pos);

}  // namespace ikwb::gui
