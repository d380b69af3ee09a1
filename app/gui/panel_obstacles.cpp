// Obstacles in the panels: the Scene menu (add an obstacle of each type, the world_collision
// objective that makes the solver read them) and the Obstacles section of the Objectives panel
// (list, select, delete; the selected obstacle's name, type, size and pose). Every edit goes
// through AppState::set_obstacle, which refuses bad values with a message; a finished edit (a
// drag let go, Enter, a choice) is one undo step.
#include <cmath>
#include <cstring>
#include <string>

#include "app/gui/obstacle_view.hpp"
#include "app/gui/panels.hpp"

namespace ikwb::gui {

namespace {

constexpr double kDeg = 57.29577951308232;

struct TypeItem {
  ShapeType type;
  const char* label;
};
const TypeItem kTypes[] = {{ShapeType::kSphere, "Sphere"},
                           {ShapeType::kBox, "Box"},
                           {ShapeType::kCapsule, "Capsule"},
                           {ShapeType::kCylinder, "Cylinder"},
                           {ShapeType::kHalfSpace, "Floor (half-space)"}};

const char* type_label(ShapeType t) {
  for (const TypeItem& k : kTypes)
    if (k.type == t) return k.label;
  return "?";
}

void add_world_collision(AppState& app) {
  app.add_objective(app.new_objective(ObjectiveType::kWorldCollision));
}

// a row of doubles edited by dragging (min: the smallest value a drag or typed value may take)
bool drag_row(const char* id, double* v, int n, float speed, double min, double max,
              const char* format, const char* tip) {
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
  bool changed = ImGui::DragScalarN(id, ImGuiDataType_Double, v, n, speed, &min, &max, format,
                                    ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  return changed;
}

// the selected obstacle's fields; edits go to `edit`, *done when one finished this frame
bool obstacle_fields(Obstacle& edit, bool* done) {
  bool changed = false;
  auto finished = [&] { *done = *done || ImGui::IsItemDeactivatedAfterEdit(); };
  // type: a solid keeps its pose; a floor goes through the solid's position, normal along its z
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
  if (ImGui::BeginCombo("type", type_label(edit.type))) {
    for (const TypeItem& k : kTypes)
      if (ImGui::Selectable(k.label, k.type == edit.type) && k.type != edit.type) {
        Transform<double> at = obstacle_gizmo_pose(edit);
        edit.type = k.type;
        edit = obstacle_at_gizmo_pose(edit, at);
        changed = *done = true;
      }
    ImGui::EndCombo();
  }
  const double tiny = 1e-3, huge = 100;
  switch (edit.type) {
    case ShapeType::kBox:
      changed |= drag_row("size", &edit.size.x, 3, 0.002f, tiny, huge, "%.3f m",
                          "full extents along the obstacle's x, y, z");
      finished();
      break;
    case ShapeType::kSphere:
      changed |= drag_row("radius", &edit.radius, 1, 0.002f, tiny, huge, "%.3f m", "radius");
      finished();
      break;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder: {
      double rl[2] = {edit.radius, edit.length};
      if (drag_row("r, length", rl, 2, 0.002f, tiny, huge, "%.3f m",
                   "radius, and length along the obstacle's z (a capsule's without its caps)")) {
        edit.radius = rl[0];
        edit.length = rl[1];
        changed = true;
      }
      finished();
      break;
    }
    case ShapeType::kHalfSpace: {
      double n[3] = {edit.normal.x, edit.normal.y, edit.normal.z};
      if (drag_row("normal", n, 3, 0.01f, -1, 1, "%.2f",
                   "outward normal (normalised; the solid is normal . x <= offset)")) {
        Vec3<double> v{n[0], n[1], n[2]};
        double l = length(v);
        if (l > 1e-6) edit.normal = (1.0 / l) * v;
        changed = true;
      }
      finished();
      changed |= drag_row("offset", &edit.offset, 1, 0.002f, -1e3, 1e3, "%.3f m",
                          "the plane is normal . x = offset");
      finished();
      return changed;
    }
  }
  changed |= drag_row("position", &edit.pose.p.x, 3, 0.002f, -1e3, 1e3, "%.3f m",
                      "position of the obstacle's centre (world x, y, z)");
  finished();
  if (edit.type != ShapeType::kSphere) {
    Vec3<double> rpy = rpy_from_quat(edit.pose.q);
    double deg[3] = {rpy.x * kDeg, rpy.y * kDeg, rpy.z * kDeg};
    if (drag_row("rpy", deg, 3, 0.5f, -180, 180, "%.1f deg",
                 "orientation: roll, pitch, yaw about the world x, y, z (degrees)")) {
      edit.pose.q = quat_from_rpy(deg[0] / kDeg, deg[1] / kDeg, deg[2] / kDeg);
      changed = true;
    }
    finished();
  }
  return changed;
}

}  // namespace

void draw_scene_menu(Ui& ui) {
  AppState& app = ui.app;
  if (!ImGui::BeginMenu("Scene")) return;
  if (ImGui::BeginMenu("Add obstacle", app.model != nullptr)) {
    for (const TypeItem& k : kTypes)
      if (ImGui::MenuItem(k.label)) app.add_obstacle(app.new_obstacle(k.type));
    ImGui::EndMenu();
  }
  const int sel = app.selected_obstacle();
  if (ImGui::MenuItem("Delete selected obstacle", "Del", false, sel >= 0)) app.remove_obstacle(sel);
  ImGui::Separator();
  if (ImGui::MenuItem("Add world collision objective", nullptr, false,
                      app.model && !app.has_world_collision()))
    add_world_collision(app);
  ImGui::EndMenu();
}

void draw_obstacles_section(Ui& ui) {
  AppState& app = ui.app;
  std::string header = "Obstacles (" + std::to_string(app.obstacles.size()) + ")###obstacles";
  if (!ImGui::CollapsingHeader(header.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGui::PushID("obstacles");
  // add row
  static int add_type = 1;
  ImGui::SetNextItemWidth(116);
  ImGui::Combo(
      "##add_type", &add_type,
      [](void*, int i, const char** out) {
        *out = kTypes[i].label;
        return true;
      },
      nullptr, IM_ARRAYSIZE(kTypes));
  ImGui::SameLine();
  if (ImGui::Button("Add obstacle")) app.add_obstacle(app.new_obstacle(kTypes[add_type].type));
  if (!app.obstacles.empty() && !app.has_world_collision()) {
    ImGui::TextColored(ImVec4(1.0f, 0.72f, 0.3f, 1.0f), "ignored by the solver:");
    ImGui::SameLine();
    if (ImGui::SmallButton("Add world collision objective")) add_world_collision(app);
  }
  if (app.obstacles.empty()) ImGui::TextDisabled("No obstacles. Scene > Add obstacle.");

  int remove = -1;
  const int sel = app.selected_obstacle();
  // a newly selected obstacle (a click in the view, a new one) scrolls into sight
  static int shown = -1;
  const bool scroll = sel != shown;
  shown = sel;
  for (int i = 0; i < int(app.obstacles.size()); ++i) {
    const Obstacle& o = app.obstacles[i];
    ImGui::PushID(i);
    std::string title = o.name + "  (" + shape_type_name(o.type) + ")";
    if (ImGui::Selectable(title.c_str(), sel == i, 0,
                          ImVec2(ImGui::GetContentRegionAvail().x - 28, 0)))
      app.select_obstacle(i);
    if (ImGui::IsItemHovered()) app.hover.obstacle = i;
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.45f, 0.16f, 0.16f, 0.8f));
    if (ImGui::SmallButton("x")) remove = i;
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("delete this obstacle");
    if (sel == i && scroll) ImGui::SetScrollHereY(0.2f);
    if (sel == i) {
      ImGui::Indent(16);
      char name[128];
      std::snprintf(name, sizeof name, "%s", o.name.c_str());
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
      Obstacle edit = o;
      bool done = false, changed = false;
      if (ImGui::InputText("name", name, sizeof name, ImGuiInputTextFlags_EnterReturnsTrue)) {
        edit.name = name;
        changed = done = true;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("name (Enter renames)");
      changed |= obstacle_fields(edit, &done);
      // a refused edit (a name in use, a bad value) leaves the obstacle and notes no step
      const bool ok = !changed || app.set_obstacle(i, edit, "");
      if (done && ok) app.note_edit("edit obstacle");
      ImGui::Unindent(16);
    }
    ImGui::PopID();
  }
  ImGui::PopID();
  if (remove >= 0) app.remove_obstacle(remove);
}

}  // namespace ikwb::gui
