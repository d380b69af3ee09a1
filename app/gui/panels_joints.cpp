// Joints panel: a slider per 1-dof joint within its live limits (degrees for revolute joints),
// with a bar that turns orange then red near a limit; a lock per joint (the solver leaves a
// locked joint where it is); under each slider but a continuous joint's (it has no limits) the
// limits bar, whose ends drag to edit the live limits (beyond the robot file's is allowed and
// flagged; right-click resets). Ball and free joints are listed read-only.
#include <algorithm>
#include <cmath>

#include "app/gui/length_text.hpp"
#include "app/gui/panels.hpp"
#include "solver/scene_problem.hpp"

namespace ikwb::gui {

namespace {

constexpr double kDeg = 57.29577951308232;

ImVec4 closeness_color(float c) {
  if (c > 0.95f) return ImVec4(0.93f, 0.32f, 0.28f, 1.0f);
  if (c > 0.8f) return ImVec4(0.96f, 0.64f, 0.22f, 1.0f);
  return ImVec4(0.33f, 0.6f, 0.92f, 1.0f);
}

// A padlock toggle (16 x 16): closed and amber when locked. Returns true when clicked.
bool lock_button(bool locked) {
  ImVec2 p = ImGui::GetCursorScreenPos();
  bool clicked = ImGui::InvisibleButton("##lock", ImVec2(16, 18));
  ImU32 col = locked ? IM_COL32(245, 165, 60, 255)
                     : (ImGui::IsItemHovered() ? IM_COL32(200, 200, 200, 255)
                                               : IM_COL32(120, 120, 120, 255));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(p.x + 3, p.y + 8), ImVec2(p.x + 13, p.y + 16), col, 1.5f);
  // the shackle: closed over the body, or swung open to the right
  float sx = locked ? p.x + 8 : p.x + 11;
  dl->PathArcTo(ImVec2(sx, p.y + 7), 3.5f, 3.14159f, 2.0f * 3.14159f, 8);
  dl->PathStroke(col, false, 1.6f);
  dl->AddLine(ImVec2(sx - 3.5f, p.y + 7), ImVec2(sx - 3.5f, p.y + 9), col, 1.6f);
  if (locked) dl->AddLine(ImVec2(sx + 3.5f, p.y + 7), ImVec2(sx + 3.5f, p.y + 9), col, 1.6f);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(locked ? "Locked: the solver leaves this joint where it is (click to free)"
                             : "Lock this joint (the solver leaves it where it is)");
  return clicked;
}

// The limits bar of a 1-dof joint: its range drawn over the robot file's, with handles at the
// live limits that drag them. Returns true while a handle moves (lo / hi updated); *released
// when a handle was let go this frame.
bool limits_bar(const char* id, double file_lo, double file_hi, double* lo, double* hi,
                double scale, int decimals, bool* released) {
  *released = false;
  const float width = ImGui::GetContentRegionAvail().x, height = 8.0f;
  ImVec2 a = ImGui::GetCursorScreenPos();
  // the bar spans the file's range (or +-pi / +-1 m without one) and a quarter more each side
  double base_lo = std::isfinite(file_lo) ? file_lo : -M_PI;
  double base_hi = std::isfinite(file_hi) ? file_hi : M_PI;
  double span = std::max(base_hi - base_lo, 1e-3);
  double v0 = std::min(base_lo, std::isfinite(*lo) ? *lo : base_lo) - 0.25 * span;
  double v1 = std::max(base_hi, std::isfinite(*hi) ? *hi : base_hi) + 0.25 * span;
  auto x_of = [&](double v) { return a.x + float((v - v0) / (v1 - v0)) * width; };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(a.x, a.y + 3), ImVec2(a.x + width, a.y + 5), IM_COL32(60, 60, 66, 255));
  dl->AddRectFilled(ImVec2(x_of(base_lo), a.y + 2), ImVec2(x_of(base_hi), a.y + 6),
                    IM_COL32(110, 110, 120, 255));
  const bool edited = *lo != file_lo || *hi != file_hi;
  const bool wider = *lo < file_lo || *hi > file_hi;
  ImU32 live = wider ? IM_COL32(245, 165, 60, 255) : IM_COL32(84, 153, 235, 255);
  double l = std::isfinite(*lo) ? *lo : v0, h = std::isfinite(*hi) ? *hi : v1;
  dl->AddRectFilled(ImVec2(x_of(l), a.y + 2), ImVec2(x_of(h), a.y + 6), live);
  bool moved = false;
  for (int side = 0; side < 2; ++side) {
    double* v = side ? hi : lo;
    float x = x_of(side ? h : l);
    ImGui::SetCursorScreenPos(ImVec2(x - 4, a.y));
    ImGui::PushID(side);
    ImGui::InvisibleButton(id, ImVec2(8, height));
    bool hot = ImGui::IsItemHovered() || ImGui::IsItemActive();
    *released = *released || ImGui::IsItemDeactivated();
    dl->AddRectFilled(ImVec2(x - 2, a.y), ImVec2(x + 2, a.y + height),
                      hot ? IM_COL32(255, 255, 255, 255) : IM_COL32(200, 200, 210, 255));
    if (ImGui::IsItemActive()) {
      double nv = v0 + double(ImGui::GetIO().MousePos.x - a.x) / width * (v1 - v0);
      nv = side ? std::max(nv, *lo) : std::min(nv, *hi);
      if (nv != *v) *v = nv, moved = true;
    }
    if (hot)
      ImGui::SetTooltip("%s limit %.*f (robot file %.*f)%s\nright-click the bar: reset",
                        side ? "upper" : "lower", decimals, *v * scale, decimals,
                        (side ? file_hi : file_lo) * scale,
                        edited ? (wider ? ", beyond the file's" : ", edited") : "");
    ImGui::PopID();
  }
  ImGui::SetCursorScreenPos(ImVec2(a.x, a.y + height + 2));
  ImGui::Dummy(ImVec2(width, 0));
  return moved;
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
    int qs = m.joint_q_start[j];
    if (lock_button(app.joint_locked(j))) {
      app.set_joint_locked(j, !app.joint_locked(j));
      app.note_edit(app.joint_locked(j) ? "lock joint" : "unlock joint");
    }
    ImGui::SameLine(0, 4);
    ImGui::SetNextItemWidth(-1);
    if (joint_type_coord_count(type) == 1) {
      int d = m.joint_qd_start[j];
      double lo = app.dof_lower[d], hi = app.dof_upper[d];
      // limits beyond 1e6 (a robot file's 1e200) are as good as none, and overflow the slider's
      // floats (ImGui asserts on an infinite range)
      if (!(std::fabs(lo) <= kMaxLength) || !(std::fabs(hi) <= kMaxLength)) {
        lo = type == JointType::kPrismatic ? -1.0 : -M_PI;
        hi = type == JointType::kPrismatic ? 1.0 : M_PI;
      }
      const bool angular = type != JointType::kPrismatic;
      const LengthField length = length_field(app.robot_extent);
      const double scale = angular ? kDeg : length.per_metre;
      float v = float(app.joint_q[qs] * scale);
      float c = limit_closeness(app, j);
      ImVec4 col = closeness_color(c);
      ImGui::PushStyleColor(ImGuiCol_SliderGrab, ImVec4(col.x, col.y, col.z, 0.55f));
      ImGui::PushStyleColor(ImGuiCol_SliderGrabActive, col);
      ImGui::PushStyleVar(ImGuiStyleVar_GrabMinSize, 5.0f);
      // a joint at a limit says so in its text (drawn over the slider, a badge hid the value)
      std::string format =
          (angular ? name + "   %.1f\xc2\xb0" : length.format(m.joint_name[j] + "   ")) +
          (at_limit(app, j) ? "  LIMIT" : "");
      if (ImGui::SliderFloat("##q", &v, float(lo * scale), float(hi * scale), format.c_str())) {
        // in branch edit mode the slider edits through the masked FK path
        if (!app.branch.active)
          app.set_joint(j, double(v) / scale);
        else if (j == app.branch.joint || begin_branch_edit(app, j))
          branch_set(app, double(v) / scale);
      }
      if (ImGui::IsItemHovered() && !ImGui::IsItemActive())
        ImGui::SetTooltip("%s (%s)\n%s %.*f .. %.*f %s", m.joint_name[j].c_str(),
                          joint_type_name(type),
                          type == JointType::kContinuous ? "no limits, angle in" : "limits",
                          angular ? 1 : length.decimals, lo * scale, angular ? 1 : length.decimals,
                          hi * scale, angular ? "deg" : length.unit);
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
      // the branch edit joint is marked
      if (app.branch.active && app.branch.joint == j)
        dl->AddRect(a, b, IM_COL32(90, 220, 110, 255), 3.0f, 0, 1.5f);
      // a continuous joint has no limits to edit (its angle comes back in (-180, 180] deg)
      if (type != JointType::kContinuous) {
        double live_lo = app.dof_lower[d], live_hi = app.dof_upper[d];
        bool released = false;
        if (limits_bar("##limits", m.dof_lower[d], m.dof_upper[d], &live_lo, &live_hi, scale,
                       angular ? 1 : length.decimals, &released))
          app.set_joint_limits(j, live_lo, live_hi);
        if (released) app.note_edit("set joint limits");
        ImVec2 bar_min(a.x, b.y + 1), bar_max(b.x, b.y + 12);
        if (ImGui::IsMouseHoveringRect(bar_min, bar_max) && ImGui::IsMouseClicked(1) &&
            limits_edited(m, d, live_lo, live_hi)) {
          app.reset_joint_limits(j);
          app.note_edit("reset joint limits");
        }
      }
    } else if (type == JointType::kPlanar) {
      // x and y dragged in the robot's length unit (unlimited), the angle on a slider
      ImGui::TextUnformatted(m.joint_name[j].c_str());
      const LengthField length = length_field(app.robot_extent);
      const std::string formats[3] = {length.format("x   "), length.format("y   "),
                                      "angle   %.1f\xc2\xb0"};
      for (int k = 0; k < 3; ++k) {
        ImGui::PushID(k);
        ImGui::SetNextItemWidth(-1);
        const double scale = k < 2 ? length.per_metre : kDeg;
        float v = float(app.joint_q[qs + k] * scale);
        bool changed =
            k < 2 ? ImGui::DragFloat("##p", &v, 2 * length.speed, 0.0f, 0.0f, formats[k].c_str())
                  : ImGui::SliderFloat("##p", &v, -180.0f, 180.0f, formats[k].c_str());
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
      // the coordinates, read only (the solver and the gizmos move them): a free joint's
      // position (m) on a line of its own, then the quaternion
      const double* c = app.joint_q.data() + qs;
      if (type == JointType::kFree) ImGui::TextDisabled("  xyz %.3f %.3f %.3f", c[0], c[1], c[2]);
      const double* quat = type == JointType::kFree ? c + 3 : c;
      ImGui::TextDisabled("  q %.3f %.3f %.3f %.3f", quat[0], quat[1], quat[2], quat[3]);
    }
    ImGui::PopID();
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace ikwb::gui
