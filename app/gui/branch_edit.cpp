// Masked-FK branch edit mode (see branch_edit.hpp).
#include "app/gui/branch_edit.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>

#include "app/gui/app_state.hpp"
#include "app/gui/length_text.hpp"
#include "app/gui/panels.hpp"
#include "engine/render/glm_convert.hpp"
#include "engine/render/overlay.hpp"

namespace ikwb::gui {

namespace {

constexpr double kDeg = 57.29577951308232;

void joint_range(const Model& m, int joint, double* lo, double* hi) {
  int d = m.joint_qd_start[joint];
  *lo = m.dof_lower[d];
  *hi = m.dof_upper[d];
  const bool prismatic = JointType(m.joint_type[joint]) == JointType::kPrismatic;
  if (!std::isfinite(*lo)) *lo = prismatic ? -1.0 : -M_PI;
  if (!std::isfinite(*hi)) *hi = prismatic ? 1.0 : M_PI;
}

// The bodies that moved from where `shown` showed them (beyond the round trip's 1 mm), as one
// warning that begins with `what`: the one that moved most and how far, and which others moved
// (a review's class watched the hand, and only the wrist was named)
void warn_of_moved_bodies(AppState& app, const State& shown, const std::string& what) {
  const Model& m = *app.model;
  std::vector<std::pair<double, int>> moved;  // (distance, body)
  for (int i = 0; i < m.body_count && i < int(shown.body_q.size()); ++i) {
    const double d = length(app.fk.body_q[i].p - shown.body_q[i].p);
    if (d > 1e-3) moved.push_back({d, i});
  }
  if (moved.empty()) return;
  std::sort(moved.begin(), moved.end(), std::greater<>());
  const std::string how_far = length_text(moved[0].first, LengthUnit::kMillimetre, 1);
  std::string others;
  const std::size_t named = std::min<std::size_t>(moved.size(), 4);
  for (std::size_t k = 1; k < named; ++k)
    others += (k > 1 ? ", '" : ", as did '") + m.body_name[moved[k].second] + "'";
  if (moved.size() > named) others += " and " + std::to_string(moved.size() - named) + " more";
  app.warn(what + ": the joints cannot hold the bodies as they were shown; '" +
           m.body_name[moved[0].second] + "' moved " + how_far + " to where its joints put it" +
           others);
}

}  // namespace

bool branch_editable(const Model& m, int joint) {
  return joint >= 0 && joint < m.joint_count && m.joint_mimic[joint] < 0 &&
         joint_type_coord_count(JointType(m.joint_type[joint])) == 1;
}

int branch_joint_for_body(const Model& m, int body) {
  if (body < 0 || body >= m.body_count) return -1;
  for (int j = m.body_joint[body]; j >= 0; j = m.joint_ancestor[j])
    if (branch_editable(m, j)) return j;
  return -1;
}

bool begin_branch_edit(AppState& app, int joint) {
  if (!app.model || !branch_editable(*app.model, joint)) {
    app.warn("branch edit: pick a joint with one coordinate");
    return false;
  }
  BranchEdit& b = app.branch;
  if (!b.active || b.model_version != app.model_version) {
    const bool follow = b.descendants_follow;
    b = BranchEdit();
    b.active = true;
    b.descendants_follow = follow;
    b.model_version = app.model_version;
    b.state = app.fk;
    b.joint_qd.assign(app.model->dof_count, 0.0);
  }
  b.joint = joint;
  b.joint_mask.clear();
  b.updated.clear();
  app.held_joint = -1;
  app.info("branch edit: " + app.model->joint_name[joint]);
  return true;
}

void end_branch_edit(AppState& app, bool for_undo) {
  BranchEdit& b = app.branch;
  if (!b.active) return;
  b.active = false;
  if (app.model && b.model_version == app.model_version) {
    eval_ik(*app.model, b.state, app.joint_q);
    app.update_fk();
    // bodies kept in place against their joints (descendants that did not follow) go where the
    // joints put them
    if (!for_undo) warn_of_moved_bodies(app, b.state, "left branch edit");
    const Model& m = *app.model;
    // entering and leaving without an edit changes nothing, and is no undo step
    if (app.targets_follow_joints && b.edits > 0) {
      for (std::size_t i = 0; i < app.objectives.size(); ++i)
        if (app.objectives[i].has_target()) app.objectives[i].target = app.link_point_pose(int(i));
      if (branch_editable(m, b.joint)) app.rest_at(m.joint_q_start[b.joint]);
    }
    if (b.edits > 0) app.note_edit("branch edit");
  }
  b.joint_mask.clear();
  b.updated.clear();
}

void set_branch_follow(AppState& app, bool follow) {
  BranchEdit& b = app.branch;
  const bool was = b.descendants_follow;
  b.descendants_follow = follow;
  if (!follow || was || !b.active || b.edits == 0 || !app.model ||
      b.model_version != app.model_version)
    return;
  // Bodies preserved against their joints go where the joints put them now, with the message
  // leaving the mode gives: a following edit moved the hand shown as preserved 130 mm on a
  // 1-degree turn, with no word.
  const Model& m = *app.model;
  const State shown = b.state;
  b.joint_qd.assign(m.dof_count, 0.0);
  eval_ik(m, b.state, app.joint_q, &b.joint_qd);
  eval_fk(m, app.joint_q, b.joint_qd, b.state);
  b.joint_mask.clear();
  b.updated.clear();
  app.update_fk();
  warn_of_moved_bodies(app, shown, "descendants follow again");
}

double branch_value(const AppState& app) {
  const BranchEdit& b = app.branch;
  if (!app.model || !branch_editable(*app.model, b.joint)) return 0;
  return app.joint_q[app.model->joint_q_start[b.joint]];
}

std::string branch_clamp_message(const AppState& app, double asked) {
  const BranchEdit& b = app.branch;
  if (!app.model || !branch_editable(*app.model, b.joint) || app.model->joint_periodic[b.joint])
    return "";
  const Model& m = *app.model;
  const double set = branch_value(app);
  if (std::abs(set - asked) <= 1e-12) return "";
  const bool metres = JointType(m.joint_type[b.joint]) == JointType::kPrismatic;
  char text[160];
  std::snprintf(text, sizeof text,
                metres ? "%.4g m is beyond its %s limit, set to %.4g m"
                       : "%.4g deg is beyond its %s limit, set to %.4g deg",
                metres ? asked : asked * kDeg, asked > set ? "upper" : "lower",
                metres ? set : set * kDeg);
  return "branch edit: joint " + m.joint_name[b.joint] + ": " + text;
}

bool branch_set(AppState& app, double value, double dt) {
  BranchEdit& b = app.branch;
  if (!b.active || !app.model || b.model_version != app.model_version ||
      !branch_editable(*app.model, b.joint))
    return false;
  const Model& m = *app.model;
  const int j = b.joint;
  // refresh stale coordinates and velocities from the displayed bodies
  b.joint_qd.assign(m.dof_count, 0.0);
  eval_ik(m, b.state, app.joint_q, &b.joint_qd);
  double lo, hi;
  joint_range(m, j, &lo, &hi);
  const int qs = m.joint_q_start[j], d = m.joint_qd_start[j];
  const double old = app.joint_q[qs];
  // a periodic joint turns on past +-pi (its angle kept in (-pi, pi], as answers are)
  const bool periodic = m.joint_periodic[j];
  app.joint_q[qs] = periodic ? wrap_angle(value) : std::clamp(value, lo, hi);
  const double change = periodic ? wrap_angle(app.joint_q[qs] - old) : app.joint_q[qs] - old;
  b.joint_qd[d] = dt > 0 ? change / dt : 0.0;
  b.joint_mask = branch_joint_mask(m, j, b.descendants_follow);
  FkOptions options;
  options.joint_mask = &b.joint_mask;
  eval_fk(m, app.joint_q, b.joint_qd, b.state, options);
  // the joints below a preserved branch read what the bodies now show: the panels and the dump
  // gave the values before this edit (the elbow's hand kept, its wrist angle one edit behind)
  if (!b.descendants_follow) {
    const double set = app.joint_q[qs];
    eval_ik(m, b.state, app.joint_q, nullptr);
    app.joint_q[qs] = set;
  }
  b.updated.assign(m.body_count, 0);
  for (int k = 0; k < m.joint_count; ++k)
    if (b.joint_mask[k]) b.updated[m.joint_child[k]] = 1;
  ++b.edits;
  app.update_fk();
  return true;
}

bool branch_handle_frame(const AppState& app, glm::vec3* centre, glm::vec3* axis, glm::vec3* zero) {
  const BranchEdit& b = app.branch;
  if (!b.active || !app.model || !branch_editable(*app.model, b.joint)) return false;
  const Model& m = *app.model;
  const int parent = m.joint_parent[b.joint];
  const auto& body_q = app.fk.body_q;
  Transform<double> f =
      parent >= 0 && parent < int(body_q.size()) ? body_q[parent] : transform_identity<double>();
  f = f * m.joint_X_p[b.joint];
  *centre = render::to_glm(f.p);
  *axis = glm::normalize(render::to_glm(rotate(f.q, m.joint_axis[b.joint])));
  *zero = glm::normalize(render::to_glm(rotate(f.q, joint_zero_directions(m)[b.joint])));
  return true;
}

std::vector<Vec3<double>> joint_zero_directions(const Model& m) {
  // p (child body frame) in joint j's frame, less its part along the axis
  auto across = [&](int j, const Vec3<double>& p) {
    const Vec3<double> v = transform_point(inverse(m.joint_X_c[j]), p);
    return v - dot(v, m.joint_axis[j]) * m.joint_axis[j];
  };
  constexpr double kOffAxis = 1e-4;  // m: closer to the axis says nothing of the link's way
  std::vector<Vec3<double>> zero(m.joint_count);
  std::vector<char> found(m.joint_count, 0);
  for (int k = 0; k < m.joint_count; ++k) {
    const int body = m.joint_parent[k];
    const int j = body >= 0 ? m.body_joint[body] : -1;
    if (j < 0 || found[j]) continue;
    const Vec3<double> v = across(j, m.joint_X_p[k].p);
    if (length(v) > kOffAxis) zero[j] = (1.0 / length(v)) * v, found[j] = 1;
  }
  for (int j = 0; j < m.joint_count; ++j) {
    if (found[j]) continue;
    const Vec3<double> v = across(j, m.body_com[m.joint_child[j]]);
    zero[j] = length(v) > kOffAxis
                  ? (1.0 / length(v)) * v
                  : render::to_vec3(render::any_perpendicular(render::to_glm(m.joint_axis[j])));
  }
  return zero;
}

bool branch_handle_param(const AppState& app, const render::Camera& cam,
                         const render::Viewport& rect, glm::vec2 mouse, bool hit_test,
                         double* param) {
  glm::vec3 c, axis, zero;
  if (!branch_handle_frame(app, &c, &axis, &zero)) return false;
  const Model& m = *app.model;
  const render::Ray ray = cam.ray_from_pixel(mouse.x, mouse.y, rect);
  const float wpp = cam.world_per_pixel(c, rect);
  if (JointType(m.joint_type[app.branch.joint]) == JointType::kPrismatic) {
    // closest point of the mouse ray to the axis line c + t axis
    const glm::vec3 w = c - ray.origin;
    const float bdot = glm::dot(axis, ray.dir), denom = 1.0f - bdot * bdot;
    if (denom < 1e-6f) return false;
    const float t = (bdot * glm::dot(ray.dir, w) - glm::dot(axis, w)) / denom;
    const float s = glm::dot(ray.dir, w + t * axis);
    const float miss = glm::length(ray.origin + s * ray.dir - (c + t * axis));
    double lo, hi;
    joint_range(m, app.branch.joint, &lo, &hi);
    if (hit_test && (miss > 10.0f * wpp || t < lo - 0.05 || t > hi + 0.05)) return false;
    *param = t;
    return true;
  }
  // the mouse ray on the plane of the ring
  const float dn = glm::dot(ray.dir, axis);
  if (std::abs(dn) < 1e-4f) return false;
  const float s = glm::dot(c - ray.origin, axis) / dn;
  if (s <= 0) return false;
  const glm::vec3 h = ray.origin + s * ray.dir - c;
  const float r = glm::length(h), radius = kBranchHandlePx * wpp;
  if (hit_test && (r < 0.6f * radius || r > 1.3f * radius)) return false;
  if (r < 1e-9f) return false;
  *param = std::atan2(glm::dot(glm::cross(zero, h), axis), glm::dot(zero, h));
  return true;
}

void draw_branch_panel(Ui& ui, ImVec2 pos) {
  AppState& app = ui.app;
  BranchEdit& b = app.branch;
  if (!b.active || !app.model) return;
  const Model& m = *app.model;
  ImGui::SetNextWindowPos(pos, ImGuiCond_Always, ImVec2(0.0f, 1.0f));
  ImGui::SetNextWindowBgAlpha(0.85f);
  // it folds to its title bar (the arrow), which leaves the arm it covered in view for a slide
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings;
  if (ImGui::Begin("Branch edit (masked FK)", nullptr, flags)) {
    ImGui::SetNextItemWidth(180);
    if (ImGui::BeginCombo("Joint", b.joint >= 0 ? m.joint_name[b.joint].c_str() : "-")) {
      for (int j = 0; j < m.joint_count; ++j)
        if (branch_editable(m, j) && ImGui::Selectable(m.joint_name[j].c_str(), j == b.joint))
          begin_branch_edit(app, j);
      ImGui::EndCombo();
    }
    bool follow = b.descendants_follow;
    if (ImGui::Checkbox("Descendants follow", &follow)) set_branch_follow(app, follow);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "On: mask = the joint and its descendants (the branch moves rigidly).\n"
          "Off: mask = the joint alone; descendants keep their poses exactly.");
    if (branch_editable(m, b.joint)) {
      double lo, hi;
      joint_range(m, b.joint, &lo, &hi);
      const bool angular = JointType(m.joint_type[b.joint]) != JointType::kPrismatic;
      const LengthField length = length_field(app.robot_extent);
      const double scale = angular ? kDeg : length.per_metre;
      float v = float(branch_value(app) * scale);
      ImGui::SetNextItemWidth(180);
      if (ImGui::SliderFloat("Value", &v, float(lo * scale), float(hi * scale),
                             angular ? "%.1f deg" : length.format().c_str()))
        branch_set(app, double(v) / scale);
    }
    int updated = 0;
    for (uint8_t u : b.updated) updated += u;
    ImGui::TextDisabled("updated %d, preserved %d bodies; solver paused", updated,
                        b.updated.empty() ? m.body_count : m.body_count - updated);
    if (ImGui::Button("Leave branch edit")) end_branch_edit(app);
  }
  ImGui::End();
}

}  // namespace ikwb::gui
