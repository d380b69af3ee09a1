// Objectives panel: add an objective (on the selected link for link kinds), and per objective
// its type and link, enable, weight (live), soft / hard, delete, and its current errors.
#include <cmath>

#include "app/gui/panels.hpp"

namespace ikwb::gui {

namespace {

constexpr double kDeg = 57.29577951308232;
const ImVec4 kGreen(0.4f, 0.85f, 0.5f, 1.0f);
const ImVec4 kAmber(1.0f, 0.72f, 0.3f, 1.0f);
const ImVec4 kRed(1.0f, 0.42f, 0.38f, 1.0f);

// by ObjectiveKind; the first five can be added here (pair objectives come from scenes)
const char* const kKindLabels[] = {"Position", "Rotation",      "Pose",           "Joint limits",
                                   "Posture",  "Relative ball", "Relative fixed", "Min distance"};
constexpr int kAddableKinds = 5;

void status_line(const ObjectiveUi& o) {
  const ObjectiveStatus& s = o.status;
  if (!o.enabled) {
    ImGui::TextDisabled("disabled");
    return;
  }
  ImVec4 col = s.reached ? kGreen : (s.out_of_reach ? kRed : kAmber);
  switch (o.kind) {
    case ObjectiveKind::kPosition:
    case ObjectiveKind::kRotation:
    case ObjectiveKind::kPose: {
      char buf[128] = "";
      int n = 0;
      if (o.kind != ObjectiveKind::kRotation)
        n += std::snprintf(buf + n, sizeof buf - n, "pos %.2f mm  ", 1000.0 * s.position_error);
      if (o.kind != ObjectiveKind::kPosition)
        std::snprintf(buf + n, sizeof buf - n, "rot %.2f\xc2\xb0", s.rotation_error * kDeg);
      ImGui::TextColored(col, "%s", buf);
      if (s.out_of_reach && o.kind != ObjectiveKind::kRotation)
        ImGui::TextColored(kRed, "out of reach by %.1f cm (best effort)", 100.0 * s.position_error);
      else if (s.out_of_reach)
        ImGui::TextColored(kRed, "not reachable (best effort)");
      break;
    }
    case ObjectiveKind::kJointLimits:
      if (s.reached)
        ImGui::TextColored(col, "all joints within limits");
      else
        ImGui::TextColored(col, "violation %.3f", s.error);
      break;
    case ObjectiveKind::kPosture:
      ImGui::TextColored(ImVec4(0.7f, 0.74f, 0.8f, 1.0f), "distance to rest %.3f", s.error);
      break;
    case ObjectiveKind::kRelativeBall:
      ImGui::TextColored(col, "gap %.2f mm", 1000.0 * s.position_error);
      break;
    case ObjectiveKind::kRelativeFixed:
      ImGui::TextColored(col, "pos %.2f mm  rot %.2f\xc2\xb0", 1000.0 * s.position_error,
                         s.rotation_error * kDeg);
      break;
    case ObjectiveKind::kMinDistance:
      if (s.reached)
        ImGui::TextColored(col, "at least %.0f mm apart", 1000.0 * o.distance);
      else
        ImGui::TextColored(col, "%.1f mm too close", 1000.0 * s.error);
      break;
  }
}

}  // namespace

void draw_objectives_panel(Ui& ui, ImVec2 pos, ImVec2 size) {
  AppState& app = ui.app;
  if (!begin_panel("Objectives", pos, size) || !app.model) {
    ImGui::End();
    return;
  }
  const Model& m = *app.model;

  // add row
  ImGui::SetNextItemWidth(116);
  ImGui::Combo("##kind", &ui.add_kind, kKindLabels, kAddableKinds);
  ImGui::SameLine();
  ObjectiveKind kind = ObjectiveKind(ui.add_kind);
  const bool needs_link = kind_has_link(kind);
  const bool have_link = app.selection.body >= 0;
  ImGui::BeginDisabled(needs_link && !have_link);
  if (ImGui::Button("Add")) app.add_objective(kind, app.selection.body);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (needs_link)
    ImGui::TextDisabled("%s", have_link ? ("on " + m.body_name[app.selection.body]).c_str()
                                        : "select a link first");
  ImGui::Separator();

  ImGui::BeginChild("##objectives", ImVec2(0, 0), false);
  if (app.objectives.empty())
    ImGui::TextDisabled(
        "No objectives. Select a link (click it), then Add,\nor right-click a link.");
  int remove = -1;
  for (int i = 0; i < int(app.objectives.size()); ++i) {
    ObjectiveUi& o = app.objectives[i];
    ImGui::PushID(i);
    if (ImGui::Checkbox("##on", &o.enabled)) app.note_edit("enable objective");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("enabled");
    ImGui::SameLine();
    std::string title = o.name;
    if (kind_is_pair(o.kind))
      title += "  (" + m.body_name[o.link] + ", " + m.body_name[o.link_b] + ")";
    else if (kind_has_link(o.kind) && o.link >= 0 &&
             o.name.find(m.body_name[o.link]) == std::string::npos)
      title += "  (" + m.body_name[o.link] + ")";
    const bool selected = app.selection.objective == i;
    if (ImGui::Selectable(title.c_str(), selected, 0,
                          ImVec2(ImGui::GetContentRegionAvail().x - 28, 0))) {
      app.selection.objective = i;
      if (o.link >= 0) app.selection.body = o.link;
    }
    if (ImGui::IsItemHovered() && o.link >= 0) app.hover.body = o.link;
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.45f, 0.16f, 0.16f, 0.8f));
    if (ImGui::SmallButton("x")) remove = i;
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("delete this objective");

    ImGui::Indent(28);
    ImGui::TextDisabled("%s", kKindLabels[int(o.kind)]);
    ImGui::SameLine(96);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
    float w = float(o.weight);
    if (ImGui::SliderFloat("##w", &w, 0.001f, 100.0f, "weight %.3g", ImGuiSliderFlags_Logarithmic))
      o.weight = std::max(0.0, double(w));
    if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set weight");
    ImGui::SameLine();
    if (o.kind == ObjectiveKind::kPosture) {
      if (ImGui::Checkbox("null", &o.null_space)) app.note_edit("posture null space");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("apply the posture in the null space of the other objectives");
    } else {
      if (ImGui::Checkbox("hard", &o.hard)) app.note_edit("soft / hard");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("hard: a constraint (augmented Lagrangian); soft: a weighted cost");
    }
    status_line(o);
    ImGui::Unindent(28);
    ImGui::Separator();
    ImGui::PopID();
  }
  ImGui::EndChild();
  ImGui::End();
  if (remove >= 0) app.remove_objective(remove);
}

}  // namespace ikwb::gui
