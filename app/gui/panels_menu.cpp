// Menu bar, panel layout, the Open URDF dialog and the shared file / robot actions.
#include <algorithm>
#include <ctime>
#include <filesystem>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/gui/panels.hpp"
#include "app/gui/recent_files.hpp"
#include "app/gui/session.hpp"
#include "app/gui/session_ui.hpp"
#include "engine/core/robot_path.hpp"

namespace ikwb::gui {

void compute_layout(Layout& l, float w, float h, float menu_height, const VisualOptions& visuals) {
  l.display_w = w;
  l.display_h = h;
  l.menu_height = menu_height;
  float left = l.show_left ? l.left_width : 0;
  float right = l.show_right ? l.right_width : 0;
  if (left + right > 0.5f * w) {
    const float narrow = 0.5f * w / (left + right);
    left = std::floor(left * narrow);
    right = std::floor(right * narrow);
  }
  l.left = left;
  l.right = right;
  float width = std::max(w - left - right, 64.0f);
  // the strip under the 3D view: messages on the left, residuals on the right
  float bottom = l.show_messages ? l.messages_height : 0;
  float residuals_w = 0;
  if (visuals.residual_panel) {
    bottom = std::max(bottom, std::min(l.residuals_height, 0.4f * (h - menu_height)));
    residuals_w = l.show_messages ? std::min(l.residuals_width, 0.5f * width) : width;
  }
  const float timeline =
      l.show_timeline ? std::min(l.timeline_height, 0.35f * (h - menu_height)) : 0;
  l.view = {left, menu_height, width, std::max(h - menu_height - bottom - timeline, 64.0f)};
  l.timeline = {left, l.view.y + l.view.height, l.show_timeline ? width : 0, timeline};
  float strip_y = l.timeline.y + l.timeline.height;
  l.messages = {left, strip_y, l.show_messages ? width - residuals_w : 0, bottom};
  l.residuals = {left + width - residuals_w, strip_y, residuals_w, bottom};
}

bool begin_panel(const char* name, ImVec2 pos, ImVec2 size) {
  ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(size, ImGuiCond_Always);
  return ImGui::Begin(name, nullptr,
                      ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                          ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                          ImGuiWindowFlags_NoBringToFrontOnFocus);
}

std::string default_screenshot_name() {
  std::time_t t = std::time(nullptr);
  char stem[64];
  std::strftime(stem, sizeof stem, "ikwb_screenshot_%Y%m%d_%H%M%S", std::localtime(&t));
  // two in one second: the second gets _2 (it replaced the first, a lecture's slide lost)
  std::string name = std::string(stem) + ".png";
  std::error_code ec;
  for (int k = 2; std::filesystem::exists(name, ec); ++k)
    name = std::string(stem) + "_" + std::to_string(k) + ".png";
  return name;
}

bool open_urdf(Ui& ui, const std::string& path) {
  if (path.empty()) {
    ui.open_urdf.error = "type the path of a URDF file";
    return false;
  }
  std::size_t before = ui.app.messages.size();
  if (ui.app.load_robot(path)) {
    ui.open_urdf.error.clear();
    if (ui.session) {
      ui.session->recent.add(path);
      mark_saved(ui);
    }
    return true;
  }
  ui.open_urdf.error =
      ui.app.messages.size() > before ? ui.app.messages.back().text : "could not open " + path;
  return false;
}

// a robot opened is a new untitled scene with nothing unsaved (a script's first `robot` read
// unsaved with nothing to undo)
bool open_robot(Ui& ui, const std::string& name) {
  if (!ui.app.open_robot_preset(name)) return false;
  if (ui.session) mark_saved(ui);
  return true;
}

void link_context_items(AppState& app, int body, const Vec3<double>* point) {
  if (!app.model || body < 0 || body >= app.model->body_count) return;
  ImGui::TextDisabled("%s", app.model->body_name[body].c_str());
  ImGui::Separator();
  for (ObjectiveType k :
       {ObjectiveType::kPose, ObjectiveType::kPosition, ObjectiveType::kRotation}) {
    std::string item = std::string("Add ") + objective_kind(k).name + " objective";
    if (ImGui::MenuItem(item.c_str())) {
      app.selection.body = body;
      app.add_objective(app.new_objective(k, body));
    }
  }
  if (point) {
    // a target attached to the clicked spot of the link
    if (ImGui::MenuItem("Add position objective here")) {
      app.selection.body = body;
      app.add_objective(app.new_objective(ObjectiveType::kPosition, body, *point));
    }
    if (ImGui::MenuItem("Add pose objective here")) {
      app.selection.body = body;
      app.add_objective(app.new_objective(ObjectiveType::kPose, body, *point));
    }
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Select link")) app.select_link(body);
}

void draw_open_urdf_dialog(Ui& ui) {
  OpenUrdfState& st = ui.open_urdf;
  if (st.open_popup) {
    ImGui::OpenPopup("Open URDF");
    st.open_popup = false;
  }
  // a path chosen in zenity fills the field
  std::string picked;
  if (st.picker.poll(&picked) && !picked.empty()) {
    std::snprintf(st.path, sizeof st.path, "%s", picked.c_str());
  }
  ImGui::SetNextWindowSize(ImVec2(560, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Open URDF", nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  ImGui::TextUnformatted("URDF file (a path, or a shipped robot's name):");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  bool enter =
      ImGui::InputText("##path", st.path, sizeof st.path, ImGuiInputTextFlags_EnterReturnsTrue);
  // package:// search folders, starting from the command line's
  if (!st.package_paths_loaded) {
    std::string joined;
    for (const std::string& p : ui.app.urdf_options.package_paths)
      joined += (joined.empty() ? "" : ":") + p;
    std::snprintf(st.package_paths, sizeof st.package_paths, "%s", joined.c_str());
    st.package_paths_loaded = true;
  }
  ImGui::TextDisabled("package:// folders (':'-separated, e.g. your ROS workspace's src):");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputText("##packages", st.package_paths, sizeof st.package_paths)) {
    std::vector<std::string> paths;
    std::string cur;
    for (const char* c = st.package_paths;; ++c) {
      if (*c == ':' || *c == '\0') {
        if (!cur.empty()) paths.push_back(cur);
        cur.clear();
        if (!*c) break;
      } else {
        cur += *c;
      }
    }
    ui.app.urdf_options.package_paths = paths;
  }
  if (FileDialog::available() && !ui.script_mode) {
    ImGui::BeginDisabled(st.picker.busy());
    if (ImGui::Button(st.picker.busy() ? "Choosing..." : "Browse...")) st.picker.start("Open URDF");
    ImGui::EndDisabled();
    ImGui::SameLine();
  }
  if (ImGui::Button("Open", ImVec2(90, 0)) || enter) {
    if (replace_scene(ui, st.path, [&] { return open_urdf(ui, st.path); }))
      ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(90, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) {
    st.error.clear();
    ImGui::CloseCurrentPopup();
  }
  if (!st.error.empty()) {
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.42f, 1.0f));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(st.error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::TextDisabled("The current robot is unchanged.");
  }
  ImGui::EndPopup();
}

void draw_menu_bar(Ui& ui) {
  AppState& app = ui.app;
  Viewport3D& view = ui.view;
  ImGuiIO& io = ImGui::GetIO();
  // global shortcuts
  if (!io.WantCaptureKeyboard) {
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_O)) ui.open_urdf.open_popup = true;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q)) ui.quit = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_F12)) ui.screenshot_path = default_screenshot_name();
  }
  session_shortcuts(ui);
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open URDF...", "Ctrl+O")) ui.open_urdf.open_popup = true;
    if (ImGui::BeginMenu("Robots")) {
      for (const RobotEntry& r : ui.catalog) {
        if (ImGui::MenuItem(r.title.c_str()))
          replace_scene(ui, r.title, [&] { return open_robot(ui, r.name); });
        if (!r.description.empty() && ImGui::IsItemHovered())
          ImGui::SetTooltip("%s", r.description.c_str());
      }
      if (ui.catalog.empty()) ImGui::TextDisabled("no robots found in the assets folder");
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Recent", ui.session && !ui.session->recent.files.empty())) {
      std::string chosen;
      for (const std::string& f : ui.session->recent.files) {
        if (ImGui::MenuItem(std::filesystem::path(f).filename().string().c_str())) chosen = f;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.c_str());
      }
      ImGui::EndMenu();
      if (!chosen.empty()) replace_scene(ui, chosen, [&] { return open_any_file(ui, chosen); });
    }
    draw_session_file_items(ui);
    ImGui::Separator();
    if (ImGui::MenuItem("Save screenshot", "F12")) ui.screenshot_path = default_screenshot_name();
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) ui.quit = true;
    ImGui::EndMenu();
  }
  draw_edit_menu(ui);
  draw_scene_menu(ui);
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Robot and joints", nullptr, &ui.layout.show_left);
    ImGui::MenuItem("Objectives and solver", nullptr, &ui.layout.show_right);
    ImGui::MenuItem("Messages", nullptr, &ui.layout.show_messages);
    ImGui::Separator();
    ImGui::MenuItem("Grid", nullptr, &view.options.grid);
    ImGui::MenuItem("World axes", nullptr, &view.options.world_axes);
    ImGui::MenuItem("Targets and errors", nullptr, &view.options.targets);
    ImGui::MenuItem("Link frames", nullptr, &view.options.link_frames);
    if (ImGui::MenuItem("Skeleton", nullptr, view.visuals.options.skeleton))
      view.visuals.choose_skeleton(!view.visuals.options.skeleton);
    ImGui::MenuItem("Controls hint", nullptr, &view.options.hints);
    ImGui::Separator();
    VisualOptions& vo = view.visuals.options;
    ImGui::MenuItem("Residual vectors", nullptr, &vo.residuals);
    ImGui::MenuItem("Residuals panel", nullptr, &vo.residual_panel);
    ImGui::MenuItem("Joint limits", nullptr, &vo.limits);
    ImGui::MenuItem("Seed ghosts", nullptr, &vo.ghosts);
    ImGui::MenuItem("Timeline", nullptr, &app.timeline.show_panel);
    ImGui::MenuItem("Velocities (branch edit)", nullptr, &vo.velocities);
    ImGui::MenuItem("Collision shapes", nullptr, &vo.collision_shapes);
    ImGui::MenuItem("Near collisions", nullptr, &vo.near_collisions);
    ImGui::MenuItem("Collision pairs", nullptr, &vo.collision_pairs);
    bool branch = app.branch.active;
    if (ImGui::MenuItem("Branch edit (masked FK)", nullptr, &branch, app.model != nullptr)) {
      if (!branch)
        end_branch_edit(app);
      else
        begin_branch_edit(app, branch_joint_for_body(*app.model, app.selection.body >= 0
                                                                     ? app.selection.body
                                                                     : app.model->body_count - 1));
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Frame robot", "F")) view.frame_robot(app);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Demos")) {
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(asset_dir()) / "demos", ec))
      if (e.path().extension() == ".txt") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    for (const std::string& n : names)
      if (ImGui::MenuItem(n.c_str())) ui.demo_request = n;
    if (names.empty()) ImGui::TextDisabled("no demos in assets/demos");
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Gizmo")) {
    if (ImGui::MenuItem("Translate", "W", view.user_mode == render::GizmoMode::kTranslate))
      view.user_mode = render::GizmoMode::kTranslate;
    if (ImGui::MenuItem("Rotate", "E", view.user_mode == render::GizmoMode::kRotate))
      view.user_mode = render::GizmoMode::kRotate;
    bool local = view.gizmo.space == render::GizmoSpace::kLocal;
    if (ImGui::MenuItem("Local axes", "L", local))
      view.gizmo.space = local ? render::GizmoSpace::kWorld : render::GizmoSpace::kLocal;
    ImGui::Separator();
    ImGui::TextDisabled("Snapping while Ctrl is held");
    float step_mm = float(view.gizmo.snap_translate * 1000.0);
    if (ImGui::SliderFloat("step (mm)", &step_mm, 1.0f, 100.0f, "%.0f"))
      view.gizmo.snap_translate = step_mm / 1000.0;
    float step_deg = float(view.gizmo.snap_rotate * 57.29577951308232);
    if (ImGui::SliderFloat("step (deg)", &step_deg, 1.0f, 90.0f, "%.0f"))
      view.gizmo.snap_rotate = step_deg / 57.29577951308232;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Solver")) {
    ImGui::MenuItem("Live solve", nullptr, &app.live_solve);
    if (ImGui::MenuItem("Reset to rest posture")) app.set_configuration(app.rest_q);
    ImGui::EndMenu();
  }
  // right-aligned status
  char status[160];
  std::snprintf(status, sizeof status, "%s  |  %s  |  %.0f FPS", app.solve.backend.c_str(),
                app.solve_state(), app.stats.fps());
  float w = ImGui::CalcTextSize(status).x;
  ImGui::SameLine(ImGui::GetWindowWidth() - w - 16);
  ImGui::TextDisabled("%s", status);
  ImGui::EndMainMenuBar();
}

void draw_panels(Ui& ui) {
  draw_menu_bar(ui);
  const Layout& l = ui.layout;
  float top = l.menu_height;
  float h = l.display_h - top;
  if (l.show_left) {
    float tree_h = std::floor(h * 0.46f);
    draw_robot_panel(ui, ImVec2(0, top), ImVec2(l.left, tree_h));
    draw_joints_panel(ui, ImVec2(0, top + tree_h), ImVec2(l.left, h - tree_h));
  }
  if (l.show_right) {
    float x = l.display_w - l.right;
    float obj_h = std::floor(h * 0.44f);
    draw_objectives_panel(ui, ImVec2(x, top), ImVec2(l.right, obj_h));
    draw_solver_panel(ui, ImVec2(x, top + obj_h), ImVec2(l.right, h - obj_h));
  }
  if (l.messages.width > 0)
    draw_messages_panel(ui, ImVec2(l.messages.x, l.messages.y),
                        ImVec2(l.messages.width, l.messages.height));
  if (l.residuals.width > 0)
    draw_residuals_panel(ui.app, ui.view.visuals, ImVec2(l.residuals.x, l.residuals.y),
                         ImVec2(l.residuals.width, l.residuals.height),
                         &ui.view.visuals.options.residual_panel);
  const render::Viewport& v = l.view;
  draw_branch_panel(ui, ImVec2(v.x + 10, v.y + v.height - 34));
  draw_open_urdf_dialog(ui);
  draw_session_windows(ui);
  draw_timeline_panel(ui);
  draw_collision_pairs_window(ui.app, &ui.view.visuals.options.collision_pairs);
}

}  // namespace ikwb::gui
