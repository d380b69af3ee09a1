// Joints panel: a slider per 1-dof joint within its limits (degrees for revolute joints), with a
// bar that turns orange then red near a limit; ball and free joints are listed read-only.
#include <algorithm>
#include <cmath>

#include "app/gui/panels.hpp"

namespace ikwb::gui {

namespace {

constexpr double kDeg = 57.29577951308232;

// 0 in the middle of the range, 1 at a limit
float limit_closeness(double v, double lo, double hi) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return 0.0f;
  double t = (v - lo) / (hi - lo);
  return float(std::clamp(std::abs(2.0 * t - 1.0), 0.0, 1.0));
}

ImVec4 closeness_color(float c) {
  if (c > 0.95f) return ImVec4(0.93f, 0.32f, 0.28f, 1.0f);
  if (c > 0.8f) return ImVec4(0.96f, 0.64f, 0.22f, 1.0f);
  return ImVec4(0.33f, 0.6f, 0.92f, 1.0f);
}

}  // namespace

void draw_joints_panel(Ui& ui, ImVec2 pos, ImVec2 size) {
  AppState& app = ui.app;
  if (!begin_panel("Joints", pos, size) || !app.model) {
    ImGui::End();
    return;
  }
  const Model& m = *app.model;
  ImGui::Checkbox("Targets follow", &app.targets_follow_joints);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "On: moving a joint moves the objectives' targets with the robot.\n"
        "Off: the joint is held and the solver moves the others to keep the targets.");
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 46);
  if (ImGui::SmallButton("Rest")) {
    app.set_configuration(app.rest_q);
    app.note_edit("rest posture");
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to the rest posture");
  ImGui::Separator();

  ImGui::BeginChild("##joints", ImVec2(0, 0), false);
  for (int j = 0; j < m.joint_count; ++j) {
    JointType type = JointType(m.joint_type[j]);
    if (type == JointType::kFixed || m.joint_mimic[j] >= 0) continue;
    ImGui::PushID(j);
    // the joint's name is part of the slider's text (printf format: '%' doubled)
    std::string name;
    for (char ch : m.joint_name[j]) name += ch == '%' ? std::string("%%") : std::string(1, ch);
    ImGui::SetNextItemWidth(-1);
    int qs = m.joint_q_start[j];
    if (joint_type_coord_count(type) == 1) {
      int d = m.joint_qd_start[j];
      double lo = m.dof_lower[d], hi = m.dof_upper[d];
      if (!std::isfinite(lo) || !std::isfinite(hi)) {
        lo = type == JointType::kPrismatic ? -1.0 : -M_PI;
        hi = type == JointType::kPrismatic ? 1.0 : M_PI;
      }
      const bool angular = type != JointType::kPrismatic;
      const double scale = angular ? kDeg : 1000.0;
      float v = float(app.joint_q[qs] * scale);
      float c = limit_closeness(app.joint_q[qs], m.dof_lower[d], m.dof_upper[d]);
      ImVec4 col = closeness_color(c);
      ImGui::PushStyleColor(ImGuiCol_SliderGrab, ImVec4(col.x, col.y, col.z, 0.55f));
      ImGui::PushStyleColor(ImGuiCol_SliderGrabActive, col);
      ImGui::PushStyleVar(ImGuiStyleVar_GrabMinSize, 5.0f);
      std::string format = name + (angular ? "   %.1f\xc2\xb0" : "   %.1f mm");
      if (ImGui::SliderFloat("##q", &v, float(lo * scale), float(hi * scale), format.c_str())) {
        // in branch edit mode the slider edits through the masked FK path
        if (!app.branch.active)
          app.set_joint(j, double(v) / scale);
        else if (j == app.branch.joint || begin_branch_edit(app, j))
          branch_set(app, double(v) / scale);
      }
      if (ImGui::IsItemHovered() && !ImGui::IsItemActive())
        ImGui::SetTooltip("%s (%s)\nlimits %.1f .. %.1f %s", m.joint_name[j].c_str(),
                          joint_type_name(type), lo * scale, hi * scale, angular ? "deg" : "mm");
      if (ImGui::IsItemActive() && !app.branch.active) app.held_joint = j;
      if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set joint");
      ImGui::PopStyleVar();
      ImGui::PopStyleColor(2);
      // limit bar under the slider
      ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
      double t = (app.joint_q[qs] - lo) / (hi - lo);
      ImDrawList* dl = ImGui::GetWindowDrawList();
      dl->AddRectFilled(ImVec2(a.x, b.y - 2), ImVec2(a.x + float(t) * (b.x - a.x), b.y),
                        ImGui::ColorConvertFloat4ToU32(ImVec4(col.x, col.y, col.z, 0.8f)));
      // a joint at a limit is flagged; the branch edit joint is marked
      if (at_limit(m, app.joint_q, j))
        dl->AddText(ImVec2(b.x - 44, a.y + 2), IM_COL32(255, 90, 80, 255), "LIMIT");
      if (app.branch.active && app.branch.joint == j)
        dl->AddRect(a, b, IM_COL32(90, 220, 110, 255), 3.0f, 0, 1.5f);
    } else if (type == JointType::kPlanar) {
      // x and y dragged in millimetres (unlimited), the angle on a slider
      ImGui::TextUnformatted(m.joint_name[j].c_str());
      const char* formats[3] = {"x   %.1f mm", "y   %.1f mm", "angle   %.1f\xc2\xb0"};
      for (int k = 0; k < 3; ++k) {
        ImGui::PushID(k);
        ImGui::SetNextItemWidth(-1);
        const double scale = k < 2 ? 1000.0 : kDeg;
        float v = float(app.joint_q[qs + k] * scale);
        bool changed = k < 2 ? ImGui::DragFloat("##p", &v, 1.0f, 0.0f, 0.0f, formats[k])
                             : ImGui::SliderFloat("##p", &v, -180.0f, 180.0f, formats[k]);
        if (changed) app.set_joint_coordinate(j, k, double(v) / scale);
        if (ImGui::IsItemActive()) app.held_joint = j;
        if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set joint");
        ImGui::PopID();
      }
    } else {
      int n = joint_type_coord_count(type);
      std::string values;
      char buf[32];
      for (int k = 0; k < n; ++k) {
        std::snprintf(buf, sizeof buf, "%s%.3f", k ? " " : "", app.joint_q[qs + k]);
        values += buf;
      }
      ImGui::TextDisabled("%s (%s)", m.joint_name[j].c_str(), joint_type_name(type));
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "%s\n%s", values.c_str(),
            type == JointType::kFree ? "x y z, then the quaternion x y z w" : "quaternion x y z w");
    }
    ImGui::PopID();
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace ikwb::gui
