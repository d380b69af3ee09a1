// The 3D view: camera controls (left-drag orbit, right/middle-drag pan, wheel zoom, F frames the
// robot), link and obstacle hover and click picking, target markers, obstacles, and the gizmo of
// the selected objective or obstacle (W / E translate / rotate, L world / local, Ctrl snaps). Reads
// InputState only, and only when ImGui does not want the mouse or keyboard; edits go to AppState.
// Draws through engine/render.
#pragma once

#include <string>

#include "app/gui/app_state.hpp"
#include "app/gui/input.hpp"
#include "app/gui/timeline_view.hpp"
#include "app/gui/visuals.hpp"
#include "engine/render/camera.hpp"
#include "engine/render/gizmo.hpp"
#include "engine/render/picking.hpp"
#include "engine/render/renderer.hpp"

namespace ikwb::gui {

struct ViewOptions {
  bool grid = true;
  bool world_axes = true;
  bool targets = true;       // target markers and error lines
  bool link_frames = false;  // axes of every link
  bool hints = true;         // the controls hint line
};

class Viewport3D {
 public:
  render::Camera camera;
  render::Gizmo gizmo;
  render::Viewport rect;  // the view in window pixels (top-left origin)
  ViewOptions options;
  Visuals visuals;             // residuals, limits, seed ghosts, branch edit highlights
  TimelineView timeline_view;  // key ghosts and the tool's path

  // GL set-up (the context must be current); false and *error on failure
  bool init(std::string* error);
  void shutdown();

  // uploads the robot when it changed, frames it (or applies the scene's camera) and shows its
  // skeleton when its meshes do not show its structure (Visuals::skeleton_for_robot)
  void sync_model(AppState& app);
  // Reacts to this frame's input: camera, hover, picking, selection and gizmo drags (which set
  // the selected objective's target). Call after the panels (ImGui::NewFrame has run).
  void handle_input(AppState& app, const InputState& in, bool ui_wants_mouse,
                    bool ui_wants_keyboard);
  // labels, status and banners on ImGui's background draw list, and the link context menu;
  // call after the solve, before ImGui::Render
  void draw_ui(AppState& app);
  // draws the scene into the bound framebuffer (window of fb_height framebuffer pixels)
  void render(const AppState& app, int fb_height, float fb_scale);

  // fits the robot and the enabled objectives' targets and tool points into the view (F)
  void frame_robot(const AppState& app);
  // objective whose gizmo is shown (-1: none) and the gizmo mode it uses
  int gizmo_objective(const AppState& app) const;
  // obstacle whose gizmo is shown (-1: none): the selected one (AppState::selected_obstacle)
  int gizmo_obstacle(const AppState& app) const;
  render::GizmoMode effective_mode(const AppState& app) const;
  // user's translate / rotate choice (W / E)
  render::GizmoMode user_mode = render::GizmoMode::kTranslate;
  bool dragging_gizmo() const { return drag_ == Drag::kGizmo; }

  // A pixel of the view where picking hits `body` (automation: "click this link"); tries the
  // body's mesh vertices nudged towards its centre, nearest the centre first. False when no
  // pixel of it is visible.
  bool link_screen_point(const AppState& app, int body, glm::vec2* out) const;
  // the same for seed ghost k (automation: "click this ghost"); the click adopts the seed
  bool ghost_screen_point(const AppState& app, int k, glm::vec2* out) const;
  // the ghost a click at `mouse` picks: nearer than the robot (-1: none)
  int ghost_under(const AppState& app, glm::vec2 mouse) const;
  // a target marker or the gizmo's handle at mouse, which a click picks before any ghost
  bool takes_click_before_ghosts(const AppState& app, glm::vec2 mouse) const;

  const render::Renderer& renderer() const { return renderer_; }
  const render::Picker& picker() const { return picker_; }

 private:
  enum class Drag { kNone, kGizmo, kOrbit, kPan, kBranch };
  void update_gizmo_pose(const AppState& app);
  void hover(AppState& app, const InputState& in);
  void click(AppState& app, int button);
  int target_under(const AppState& app, glm::vec2 mouse) const;

  // the gizmo's handles (the selected target's, size_px from it) all project into the view
  bool gizmo_in_view(const AppState& app) const;
  // zooms out (about the view's centre) until gizmo_in_view, within kMaxDistance
  void zoom_out_to_gizmo(const AppState& app);
  // the ground grid's cell (m): the power of ten nearest a tenth of the robot's size
  // (AppState::robot_extent; 0.1 m for the shipped robots, a 2 cm arm's 1 mm, a 50 m crane's 10 m)
  float grid_spacing(const AppState& app) const;

  render::Renderer renderer_;
  render::Picker picker_;
  uint64_t model_version_ = 0;
  uint64_t objectives_added_ = 0;  // AppState::objectives_added at the last input
  Drag drag_ = Drag::kNone;
  int drag_button_ = -1;
  glm::vec2 press_at_{0.0f};
  bool moved_ = false;      // the pressed mouse travelled past the click threshold
  Hover pressed_on_;        // what was under the mouse when the button went down
  int pressed_ghost_ = -1;  // the seed ghost under the mouse then
  // branch edit handle drag: value at the press, the handle parameter last frame, the total
  double branch_start_ = 0, branch_last_ = 0, branch_total_ = 0;
  Vec3<double> hover_point_{0, 0, 0};    // picked point on the hovered link, link frame
  Vec3<double> pressed_point_{0, 0, 0};  // the same when the button went down
  Vec3<double> context_point_{0, 0, 0};  // the right-clicked point (for "add at this point")
  int context_body_ = -1;
  bool open_context_ = false;
};

}  // namespace ikwb::gui
