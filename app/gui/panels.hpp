// The workbench's ImGui panels: menu bar, robot tree, joints, objectives, solver and messages,
// laid out around the 3D view (ImGui 1.86 has no docking: fixed columns that View toggles).
// Panels edit AppState only; the frame's sync point applies the edits to the solver.
#pragma once

#include <string>
#include <vector>

#include <imgui.h>

#include "app/gui/app_state.hpp"
#include "app/gui/file_dialog.hpp"
#include "app/gui/robot_catalog.hpp"
#include "app/gui/viewport.hpp"

namespace ikwb::gui {

struct Session;  // session.hpp

struct Layout {
  bool show_left = true;       // robot tree and joints
  bool show_right = true;      // objectives and solver
  bool show_messages = true;   // log under the 3D view
  bool show_timeline = false;  // the Timeline panel, between the 3D view and the log
  float left_width = 280, right_width = 340, messages_height = 112;
  // the columns' widths as drawn (compute_layout): the set ones, narrowed together on a window
  // too small for them to leave the 3D view half its width (at 800 pixels the view had 180)
  float left = 280, right = 340;
  float timeline_height = 160;  // at most 35% of the space under the menu bar
  // the Residuals panel, under the 3D view at the right of the messages (height: at most 40%
  // of the space under the menu bar)
  float residuals_width = 360, residuals_height = 200;
  float menu_height = 20;  // from the font and style (compute_layout)
  float display_w = 1280, display_h = 720;
  // rectangles in window pixels; a hidden panel's has zero width
  render::Viewport view;  // the 3D view
  render::Viewport timeline, messages, residuals;
};

// The rectangles for a display of w x h window pixels: the columns View shows, the 3D view
// between them and, under it, the Timeline panel when shown (so it covers no part of the view,
// whose camera frames the rest) and the messages with (when visuals.residual_panel is on) the
// Residuals panel at their right.
void compute_layout(Layout& layout, float display_w, float display_h, float menu_height,
                    const VisualOptions& visuals);

struct OpenUrdfState {
  bool open_popup = false;  // request to open the dialog this frame
  char path[1024] = {};
  char package_paths[1024] = {};  // ':'-separated folders for package:// (--package-path)
  bool package_paths_loaded = false;
  std::string error;  // last failure, shown in the dialog
  FileDialog picker;  // zenity, when available and not scripted
};

// what the panels share for one frame
struct Ui {
  Ui(AppState& a, Viewport3D& v) : app(a), view(v) {}
  AppState& app;
  Viewport3D& view;
  Layout layout;
  OpenUrdfState open_urdf;
  std::vector<RobotEntry> catalog;
  ObjectiveType add_type = ObjectiveType::kPose;  // the Objectives panel's type choice
  std::size_t messages_seen = 0;                  // the Messages panel scrolls when this changes
  int objective_shown = -1;     // the selected objective the Objectives panel last scrolled to
  bool script_mode = false;     // no native dialogs
  bool quit = false;            // File > Quit
  std::string screenshot_path;  // a screenshot to take at the end of this frame
  Session* session = nullptr;   // scene files, undo, recovery (session.hpp)
  std::string demo_request;     // Demos menu: a demo (assets/demos) to run
};

// the menu bar, every visible panel and the dialogs
void draw_panels(Ui& ui);

void draw_menu_bar(Ui& ui);
void draw_robot_panel(Ui& ui, ImVec2 pos, ImVec2 size);
void draw_joints_panel(Ui& ui, ImVec2 pos, ImVec2 size);
void draw_objectives_panel(Ui& ui, ImVec2 pos, ImVec2 size);
void draw_solver_panel(Ui& ui, ImVec2 pos, ImVec2 size);
void draw_messages_panel(Ui& ui, ImVec2 pos, ImVec2 size);
void draw_open_urdf_dialog(Ui& ui);
// the Timeline window (panel_timeline.cpp), while AppState::timeline.show_panel is on
void draw_timeline_panel(Ui& ui);
// seconds between the time axis's ticks for `span` seconds over `width` pixels
double axis_tick_step(double span, float width);
// the Scene menu (add obstacles, the world_collision objective) and the Obstacles section of the
// Objectives panel (panel_obstacles.cpp)
void draw_scene_menu(Ui& ui);
void draw_obstacles_section(Ui& ui);

// File > Open URDF's action (the dialog's Open button and the script's open_urdf): loads the
// file, keeping the current robot and showing the error when it fails
bool open_urdf(Ui& ui, const std::string& path);
// File > Robots: a shipped robot with its preset
bool open_robot(Ui& ui, const std::string& name);
// items of a link's context menu (viewport right click, robot tree right click); `point` (link
// frame) offers objectives at the clicked spot
void link_context_items(AppState& app, int body, const Vec3<double>* point = nullptr);
// "ikwb_screenshot_YYYYmmdd_HHMMSS.png" in the working folder; "..._2.png" (and on) when taken
// again within the second
std::string default_screenshot_name();

// begins a fixed panel window at pos / size (no move, no resize, no collapse)
bool begin_panel(const char* name, ImVec2 pos, ImVec2 size);

}  // namespace ikwb::gui
