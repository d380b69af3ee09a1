// Solver and robot visualisation for the 3D view and the residuals panel: error vectors and
// rotation errors per objective, joints coloured by distance to their limits with limit arcs
// (revolute) and segments (prismatic), every seed's final configuration as a translucent ghost,
// branch edit highlights and body velocity arrows, the robot's skeleton, and the per-frame residual
// history.
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <imgui.h>
#include <glm/glm.hpp>

#include "app/gui/app_state.hpp"
#include "engine/render/camera.hpp"
#include "engine/render/overlay.hpp"
#include "engine/render/picking.hpp"
#include "engine/render/renderer.hpp"

namespace ikwb::gui {

struct VisualOptions {
  bool ghosts = false;            // every seed's solution as a ghost robot
  bool residuals = true;          // error vectors and rotation errors in the 3D view
  bool limits = false;            // limit colours, arcs and segments
  bool velocities = false;        // body velocity arrows (branch edit)
  bool residual_panel = true;     // the residuals panel
  bool collision_shapes = false;  // every link's collision capsules, translucent
  bool near_collisions = true;    // pairs within the margin: segments, penetrating links red
  bool collision_pairs = false;   // the Collision pairs window (turn self pairs on or off)
  bool skeleton = false;          // joint origins joined by segments, over the meshes
};

// one frame of the residual history
struct ResidualSample {
  int frame = 0;
  std::vector<float> norms;  // per objective (residual_norm)
  float cost = 0;
  int iterations = 0;  // over all seeds
};

// Position of a 1-coordinate joint within its live limits (AppState::dof_lower / dof_upper): 0
// at the lower, 1 at the upper; NaN when the joint has no finite limits or not one coordinate.
double limit_fraction(const AppState& app, int joint);
// within 1e-6 of the range (or exactly) at a limit
bool at_limit(const AppState& app, int joint);
// 0 in the middle of the range, 1 at a limit (0 without limits)
float limit_closeness(const AppState& app, int joint);
// support polygons, position boxes, orientation cones and velocity ellipsoids of the enabled
// objectives of those kinds (visuals_whole_body.cpp)
void draw_whole_body_overlays(render::Overlay& ov, const render::Camera& cam,
                              const render::Viewport& rect, const AppState& app);
// the collision capsules (options.collision_shapes) and the pairs closer than the margin
// (options.near_collisions) from AppState::collisions (visuals_collision.cpp)
void draw_collision_overlays(render::Overlay& ov, const AppState& app,
                             const VisualOptions& options);
// The robot's kinematic structure at body poses body_q (world): a segment from each body's joint
// origin (its own origin at a root without a joint) to the origin of each joint it is the parent
// of, and the joint origins. A joint's origin is its frame on the child side, so a prismatic
// joint's segment stretches with it. (visuals_skeleton.cpp)
struct Skeleton {
  std::vector<glm::vec3> segments;  // pairs; none of zero length
  std::vector<glm::vec3> moving;    // origins of the joints that are not fixed
  std::vector<glm::vec3> fixed;     // origins of fixed joints, and of roots without a joint
};
Skeleton robot_skeleton(const Model& model, const std::vector<Transform<double>>& body_q);
// The body whose skeleton is under screen point `mouse` (the picking of a robot drawn without
// meshes): a joint's marker within 10 px picks the joint's child, else a segment within 6 px
// picks the body it runs along; -1 for none. *local receives the point in that body's frame.
int skeleton_body_at(const Model& model, const std::vector<Transform<double>>& body_q,
                     const render::Camera& camera, const render::Viewport& rect, glm::vec2 mouse,
                     Vec3<double>* local);
// Why the robot's visuals do not show its structure, for the message that turns the skeleton on:
// "ROBOT has no visual geometry" or "ROBOT: 3 of 12 visual meshes could not be loaded (magenta
// placeholders)"; "" when its visuals draw it.
std::string skeleton_reason(const Model& model, const std::string& robot_title);
// the skeleton at the current FK, drawn on top of everything (it is meant to be seen through the
// meshes): dark-edged light segments, amber markers at moving joints, small grey ones at fixed
// joints
void draw_skeleton(render::Overlay& ov, const AppState& app);
// near (orange) / penetrating (red) / clear (grey) colour of a pair distance against the margin
glm::vec4 collision_color(double distance, double margin, float alpha = 1.0f);
// "link_a - link_b" or "link - obstacle NAME"
std::string collision_pair_label(const AppState& app, const BodyDistance& d);
// an objective's residual: position error (m) + rotation error (rad) for a kind with a target
// (hard or soft alike), else its violation (inequalities, hard relative rows) or deviation
double residual_norm(const WorkbenchObjective& o);
// how far objective o is from its target in the units of its rows: "12.3 mm" for a position,
// "4.5 deg" for a rotation (and an orientation cone's violation), both for a pose; in mm the
// violation of a distance (min_distance, the collisions, a support polygon's margin); another
// kind's violation as a plain number
std::string miss_text(const WorkbenchObjective& o);
// an objective out of reach (ObjectiveStatus::out_of_reach) with a position row, as the view
// labels it: "out of reach by 36.2 cm" (in cm, as the Objectives panel), then the error where
// other objectives hold it further back (", 38.0 cm short") and a pose's rotation error
// (", 3.6 deg off"); the position error was repeated in mm ("by 361.8 mm, 361.8 mm short")
std::string out_of_reach_text(const WorkbenchObjective& o);
// green (0) -> yellow -> red (1)
glm::vec4 magnitude_color(float t, float alpha = 1.0f);
// an objective's status, as its target marker and label show it: green when reached, red when
// the solver settled short of it, amber while it solves or when it is traded off (reachable);
// grey when it is off or not pursued (weight 0)
glm::vec4 status_color(const WorkbenchObjective& o);
// the colour of the miss in the view at its link: the status colour once the solver settled
// short of it (a miss of 0.6 mm is as missed as one of 6 cm), while it still solves (or the
// timeline sets the joints) the size of the miss (magnitude_color, 10 cm red; a hard
// objective's at least yellow); grey when it is not pursued
glm::vec4 miss_label_color(const WorkbenchObjective& o);

class Visuals {
 public:
  static constexpr int kHistory = 240;  // frames kept
  VisualOptions options;
  int hovered_ghost = -1;  // set by the 3D view's hover

  // per frame after FK: appends the residual sample and refreshes the ghosts
  void record(const AppState& app);
  // for a robot just opened: turns the skeleton on, with a message saying why, when the robot's
  // visuals do not show its structure (skeleton_reason); on one whose visuals do, a skeleton
  // turned on that way goes back to the user's choice from before
  void skeleton_for_robot(AppState& app);
  // the user's choice (View > Skeleton, `view skeleton`): the next robot keeps it
  void choose_skeleton(bool on);
  const std::deque<ResidualSample>& history() const { return history_; }
  int ghost_count() const { return int(ghosts_.size()); }
  const std::vector<Transform<double>>& ghost_body_q(int k) const { return ghosts_[k]; }
  // the ghost hit nearest along the ray, closer than max_distance (-1: none, or ghosts hidden);
  // a converged one first, as the unconverged pile up in front of the solutions (a review's
  // clicks on a blue ghost adopted a red one in 4 of 5)
  int pick_ghost(const render::Picker& picker, const render::Ray& ray, float max_distance,
                 const AppState& app) const;
  // the ghost whose label (draw_labels, the frame before) is at the mouse, or -1
  int ghost_label_at(glm::vec2 mouse) const;
  // the ghost labels draw_labels placed: (ghost, box min x, min y, max x, max y in pixels)
  const std::vector<std::pair<int, ImVec4>>& ghost_labels() const { return ghost_labels_; }
  // body tints and highlights of the robot (limits, branch edit)
  void style_robot(const AppState& app, render::DrawStyle& style) const;
  // the ghosts (after the opaque robot)
  void draw_ghosts(render::Renderer& r, const AppState& app) const;
  // error vectors, rotation errors, limit arcs and segments, velocity arrows
  void draw_overlays(render::Overlay& ov, const render::Camera& cam, const render::Viewport& rect,
                     const AppState& app) const;
  // ghost cost labels and residual values in the view
  void draw_labels(ImDrawList* dl, const render::Camera& cam, const render::Viewport& rect,
                   const AppState& app) const;

 private:
  std::deque<ResidualSample> history_;
  std::vector<std::vector<Transform<double>>> ghosts_;
  std::vector<double> ghost_q_;  // the rows the ghosts were computed from
  // the ghost labels draw_labels placed (ghost, box min x, min y, max x, max y)
  mutable std::vector<std::pair<int, ImVec4>> ghost_labels_;
  uint64_t ghost_model_ = 0;
  bool skeleton_auto_ = false;    // options.skeleton was turned on for the robot's sake
  bool skeleton_choice_ = false;  // the user's choice from before that
};

// the seed rows of the last solve (problem 0): count, and a row's configuration
int seed_count(const AppState& app);
std::vector<double> seed_q(const AppState& app, int k);
// sets joint_q to seed k's solution (leaves branch edit mode); false when there is no such seed
bool adopt_seed(AppState& app, int k);

// The residuals panel's history plot draws the series of at most this many objectives, those
// with the largest residuals now: a scene of 209 objectives drew 209 series of 240 frames (50,000
// segments) each frame, 14 ms of its 39 ms frames under software OpenGL, and so many
// overlapping lines in six colours told nothing apart
constexpr int kPlottedSeries = 12;
// the objectives whose history the plot draws, in index order: all, or the kPlottedSeries
// enabled ones with the largest residual norms now
std::vector<int> plotted_objectives(const AppState& app);
// the residuals panel: a bar per objective (those scrolled out of view take their place only),
// the history of the plotted_objectives, total cost and iterations
void draw_residuals_panel(const AppState& app, const Visuals& vis, ImVec2 pos, ImVec2 size,
                          bool* open);
// the Collision pairs window (panel_collision_pairs.cpp): a checkbox per self pair that can be
// checked, with a filter; edits go through AppState::set_collision_pair
void draw_collision_pairs_window(AppState& app, bool* open);

}  // namespace ikwb::gui
