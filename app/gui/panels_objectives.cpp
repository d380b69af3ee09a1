// Objectives panel: add an objective (on the selected link for kinds with a link), and per
// objective a row drawn from its kind's fields (engine/core/objective_kinds.hpp): enable, name
// and links, weight and per-axis weights (live), soft / hard or null space, distance, delete,
// and its status from the solver's residual rows, and once settled why it is not reached and
// who pulls against it.
#include <cmath>
#include <string>

#include "app/gui/length_text.hpp"
#include "app/gui/panels.hpp"
#include "app/gui/typed_field.hpp"
#include "engine/core/scene.hpp"

namespace ikwb::gui {

namespace {

constexpr double kDeg = 57.29577951308232;
const ImVec4 kGreen(0.4f, 0.85f, 0.5f, 1.0f);
const ImVec4 kAmber(1.0f, 0.72f, 0.3f, 1.0f);
const ImVec4 kRed(1.0f, 0.42f, 0.38f, 1.0f);
const ImVec4 kGrey(0.7f, 0.74f, 0.8f, 1.0f);

// "1.4 mm", "0.8°", or "0.0012" (a share without a unit)
std::string share_text(double share, ShareUnit unit) {
  char buf[32];
  if (unit == ShareUnit::kRadian)
    std::snprintf(buf, sizeof buf, "%.2f\xc2\xb0", share * kDeg);
  else if (unit == ShareUnit::kMetre)
    return length_text(share, LengthUnit::kMillimetre, 1);
  else
    std::snprintf(buf, sizeof buf, "%.3g", share);
  return buf;
}

// text in a colour, wrapped at the panel's edge: an explanation names links and objectives,
// however long
void wrapped_text(const ImVec4& color, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// what turning the other soft objectives down can win for a blocked or out of reach objective,
// at most: its error less the least the test solves without them reached
// (Explanation::best_error)
std::string best_error_text(const ObjectiveStatus& s) {
  const double win = s.share_error - s.best_error;
  if (!(win > 0.01 * s.share_error))
    return "as close as it gets: the other soft objectives hold back nothing";
  return "the other soft objectives turned down win at most " + share_text(win, s.unit) + " (" +
         share_text(s.best_error, s.unit) + " at best)";
}

// the hard objectives and joints that block an objective (or keep it further), by name
std::string blockers_text(const AppState& app, const ObjectiveStatus& s) {
  std::string by;
  for (const Blocker& b : s.blocked_by) {
    if (!by.empty()) by += ", ";
    by += b.objective >= 0 ? app.objectives[b.objective].name()
          : app.problem()  ? blocking_joint_text(*app.problem(), b.joint)
                           : "joint " + app.model->joint_name[b.joint] + "'s limits";
  }
  return by;
}

// the next item, `width` wide, goes on the line of the last one when it fits there, else on the
// next line
void same_line_if_fits(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right)
    ImGui::SameLine();
}

// why a settled objective is not reached (SolverDriver's explanation, solver/compromise.hpp):
// the status word, what blocks it, and one button per objective pulling against it that
// selects that objective; all of it wrapped within the panel
void explanation_lines(AppState& app, const WorkbenchObjective& o) {
  const ObjectiveStatus& s = o.status;
  if (app.solve.as_opened) {
    wrapped_text(kAmber, "shown as opened: the solver goes on from here at the next edit");
    return;
  }
  if (!s.explained) {
    wrapped_text(kAmber, "best effort; checking why it is not reached...");
    return;
  }
  if (s.status == ReachStatus::kOutOfReach) {
    wrapped_text(kRed, o.kind().position_row >= 0
                           ? "out of reach by " +
                                 length_text(s.out_of_reach_by(), LengthUnit::kCentimetre, 1) +
                                 " (best effort)"
                           : "not reachable (best effort)");
    if (!s.blocked_by.empty())
      wrapped_text(kRed, "kept further from it than it gets alone by " + blockers_text(app, s));
    if (std::isfinite(s.best_error)) wrapped_text(kGrey, best_error_text(s));
  } else if (s.status == ReachStatus::kStoppedShort) {
    wrapped_text(kAmber,
                 "stopped short: reachable with the other soft objectives off, and nothing "
                 "pulls against it here (a local minimum or a saddle: drag the target or the "
                 "robot past it, or adopt a seed that gets further)");
  } else if (s.status == ReachStatus::kBlocked) {
    const std::string by = blockers_text(app, s);
    wrapped_text(kRed, "blocked by " + (by.empty() ? std::string("the constraints") : by));
    if (std::isfinite(s.best_error)) wrapped_text(kGrey, best_error_text(s));
  } else if (s.status == ReachStatus::kTradedOff) {
    wrapped_text(kAmber, "traded off: reachable, held back by");
  }
  if (s.pulled_by.empty()) return;
  if (s.status != ReachStatus::kTradedOff) wrapped_text(kGrey, "pulled by");
  for (const Pull& p : s.pulled_by) {
    const std::string text = app.objectives[p.objective].name() + " " + share_text(p.share, s.unit);
    same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    if (ImGui::SmallButton((text + "##pull" + std::to_string(p.objective)).c_str())) {
      app.selection.objective = p.objective;
      const int link = app.objectives[p.objective].link();
      if (link >= 0) app.selection.body = link;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "%s accounts for %s of the error; click to select it (turn its weight down)",
          app.objectives[p.objective].name().c_str(), share_text(p.share, s.unit).c_str());
  }
  // the listed shares can add up to more than the error: the helpers, by name, and the others
  // help by the difference
  std::string helped;
  for (const Pull& p : s.helped_by)
    helped += (helped.empty() ? "helped by " : ", ") + app.objectives[p.objective].name() + " " +
              share_text(p.share, s.unit);
  const double unnamed = s.unnamed_help();
  if (unnamed > 0.01 * s.share_error)
    helped += (helped.empty() ? "helped by the others by " : ", the others by ") +
              share_text(unnamed, s.unit);
  if (!helped.empty()) wrapped_text(kGrey, helped);
}

// where the rows of a collision kind, a support polygon or a position box stand against their
// bound. The violation is the largest row: the margin less the closest pair's distance (a
// collision kind), the margin less the centre of mass's depth inside the polygon (a support
// polygon), the distance outside the box; > 0 is inside the margin, or outside the box.
// (in metres on a robot whose length fields are, as its margin field: LengthField)
std::string clearance_text(const WorkbenchObjective& o, const LengthField& length) {
  const double v = o.status.violation, margin = o.spec.params.margin;
  auto mm = [&](double metres) {
    return length.per_metre == 1 ? length_text(metres, LengthUnit::kMetre, length.decimals)
                                 : length_text(metres, LengthUnit::kMillimetre, 1);
  };
  // the margin as set: "10 mm", "2.5 mm", "360 µm" (no ".0")
  std::string set = mm(margin);
  if (const std::size_t zero = set.find(".0 "); zero != std::string::npos) set.erase(zero, 2);
  const std::string the_margin = "the " + set + " margin";
  switch (o.type()) {
    case ObjectiveType::kSelfCollision:
    case ObjectiveType::kWorldCollision:
      if (v > margin) return "a pair penetrates by " + mm(v - margin);
      if (v > 0) return "a pair " + mm(v) + " inside " + the_margin;
      return "every pair outside " + the_margin;
    case ObjectiveType::kSupportPolygon:
      if (v > margin) return "CoM " + mm(v - margin) + " outside the polygon";
      if (v > 0) return "CoM " + mm(v) + " inside " + the_margin;
      return "CoM inside, clear of " + the_margin;
    default:
      return v > 0 ? mm(v) + " outside the box" : "inside the box";
  }
}

void status_line(AppState& app, const WorkbenchObjective& o) {
  const ObjectiveStatus& s = o.status;
  if (!o.enabled()) {
    ImGui::TextDisabled("disabled");
    return;
  }
  const ObjectiveKind& kind = o.kind();
  if (kind.has(kFieldRest)) {
    ImGui::TextColored(kGrey, "distance to rest %.3f", s.deviation);
    return;
  }
  const bool stuck = s.missed && (!s.explained || !reachable(s.status));
  // a soft objective of weight 0 is not pursued: its errors are shown, in grey, as a measure
  ImVec4 col = !s.pursued ? kGrey : s.reached ? kGreen : (stuck ? kRed : kAmber);
  char buf[160] = "";
  int n = 0;
  if (kind.position_row >= 0)
    n += std::snprintf(buf + n, sizeof buf - n, "%s %s  ", kind.is_pair() ? "gap" : "pos",
                       length_text(s.position_error, LengthUnit::kMillimetre, 2).c_str());
  if (kind.rotation_row >= 0)
    n += std::snprintf(buf + n, sizeof buf - n, "rot %.2f\xc2\xb0  ", s.rotation_error * kDeg);
  if (kind.has(kFieldDistance) && s.violation > 0)
    std::snprintf(buf + n, sizeof buf - n, "%s too close",
                  length_text(s.violation, LengthUnit::kMillimetre, 1).c_str());
  else if (kind.has(kFieldDistance))
    std::snprintf(buf + n, sizeof buf - n, "at least %s apart",
                  length_text(o.spec.params.distance, LengthUnit::kMillimetre, 0).c_str());
  else if (kind.type == ObjectiveType::kJointLimits && s.violation > 0)
    std::snprintf(buf + n, sizeof buf - n, "violation %.3f", s.violation);
  else if (kind.type == ObjectiveType::kJointLimits)
    std::snprintf(buf + n, sizeof buf - n, "all joints within limits");
  else if (kind.type == ObjectiveType::kOrientationCone)
    std::snprintf(buf + n, sizeof buf - n,
                  s.violation > 0 ? "%.2f\xc2\xb0 beyond the cone" : "within the cone",
                  s.violation * kDeg);
  else if (kind.type == ObjectiveType::kManipulability)
    std::snprintf(buf + n, sizeof buf - n,
                  s.violation > 0 ? "%.4f below the floor" : "above the floor", s.violation);
  else if (objective_is_inequality(kind.type))
    std::snprintf(buf + n, sizeof buf - n, "%s",
                  clearance_text(o, length_field(app.robot_extent)).c_str());
  wrapped_text(col, buf);
  if (!s.pursued) ImGui::TextColored(kGrey, "weight 0: not pursued");
  if (s.missed) explanation_lines(app, o);
}

// per-axis weights of the position or rotation rows: three small drags (0 leaves an axis free)
bool axis_weights(const char* label, Vec3<double>& w) {
  float v[3] = {float(w.x), float(w.y), float(w.z)};
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
  bool changed = ImGui::DragFloat3(label, v, 0.01f, 0.0f, 10.0f, "%.2f");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("weights of the world x, y and z rows (0 leaves that axis free)");
  if (changed)
    w = {std::max(0.0, double(v[0])), std::max(0.0, double(v[1])), std::max(0.0, double(v[2]))};
  return changed;
}

// what a look_at looks at: its target (a gizmo) or a point of another link, which it follows
// (AppState::set_look_at_link)
void look_at_link_row(AppState& app, WorkbenchObjective& o) {
  const Model& m = *app.model;
  ObjectiveParams<double>& p = o.spec.params;
  const bool follows = p.link_b >= 0 && p.link_b < m.body_count;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
  if (ImGui::BeginCombo("looks at", follows ? m.body_name[p.link_b].c_str() : "its target")) {
    const int index = int(&o - app.objectives.data());
    if (ImGui::Selectable("its target", !follows) && follows) {
      app.set_look_at_link(index, -1);
      app.note_edit("look at target");
    }
    for (int b = 0; b < m.body_count; ++b) {
      if (b == p.link) continue;
      if (ImGui::Selectable(m.body_name[b].c_str(), b == p.link_b) && b != p.link_b) {
        app.set_look_at_link(index, b);
        app.note_edit("look at link");
      }
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the point the axis points at: the target, or a link it follows");
  if (!follows) return;
  float f[3] = {float(p.offset_b.x), float(p.offset_b.y), float(p.offset_b.z)};
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
  if (ImGui::DragFloat3("at offset", f, 0.005f, -2.0f, 2.0f, "%.3f m"))
    p.offset_b = {f[0], f[1], f[2]};
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the point on that link, in its frame");
  if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set look-at offset");
}

// The field just drawn edits `value` (stored unit) through its float copy `edited` (shown
// unit, value / scale); changed: what the widget returned. Applies a value within [lo, hi]
// (stored unit) and refuses another (TypedField, one at a time: one field is active).
void checked_field(AppState& app, const char* what, bool changed, float edited, double lo,
                   double hi, double scale, double& value) {
  static TypedField field;
  if (ImGui::IsItemActivated()) field.activate(value);
  if (changed && field.change(double(edited) * scale, lo, hi)) value = double(edited) * scale;
  std::string message;
  if (ImGui::IsItemDeactivated() && field.leave(what, scale, value, message)) app.error(message);
}

// the editable fields of one objective, from its kind
void field_rows(AppState& app, WorkbenchObjective& o) {
  const ObjectiveKind& kind = o.kind();
  ObjectiveParams<double>& p = o.spec.params;
  // the slider after the kind's label, at 96 px where the label fits ("Centre of mass" was cut
  // to "Centre of r" under the slider)
  const ImGuiStyle& style = ImGui::GetStyle();
  const float label_x = ImGui::GetCursorPosX();
  ImGui::TextDisabled("%s", kind.label);
  ImGui::SameLine(
      std::max(96.0f, label_x + ImGui::CalcTextSize(kind.label).x + style.ItemSpacing.x));
  // room for the "hard" (or "null") checkbox after it
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() -
                          style.ItemInnerSpacing.x - ImGui::CalcTextSize("hard").x -
                          style.ItemSpacing.x);
  float w = float(p.weight);
  const bool weighed =
      ImGui::SliderFloat("##w", &w, 0.001f, 100.0f, "weight %.3g", ImGuiSliderFlags_Logarithmic);
  checked_field(app, "weight", weighed, w, 0.0, kMaxWeight, 1.0, p.weight);
  // a null-space posture never pulls a target: its weight sets only how fast it settles
  if (p.null_space && kind.has(kFieldNullSpace) && ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "in the null space (\"null\" on) the posture moves only what the other objectives leave "
        "free: its weight sets how fast it settles there, never how far a target gives way. "
        "Turn \"null\" off to trade the targets against it by weight.");
  if (ImGui::IsItemDeactivatedAfterEdit()) app.note_weight_set(int(&o - app.objectives.data()));
  ImGui::SameLine();
  if (kind.has(kFieldNullSpace)) {
    bool null_space = p.null_space;
    if (ImGui::Checkbox("null", &null_space)) {
      p.null_space = null_space;
      app.note_edit("posture null space");
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "on: the posture moves only in the null space of the other objectives (it never pulls "
          "a target; the weight sets how fast it settles); off: residual rows weighed against "
          "the targets by the weight");
  } else if (kind.has(kFieldHard)) {
    bool hard = p.hard;
    if (ImGui::Checkbox("hard", &hard)) {
      p.hard = hard;
      app.note_edit("soft / hard");
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("hard: a constraint (augmented Lagrangian); soft: a weighted cost");
  }
  const LengthField length = length_field(app.robot_extent);
  const std::string in_unit = std::string(" (") + length.unit + ")";
  if (kind.has(kFieldDistance)) {
    float d = length.value(p.distance);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
    const bool moved = ImGui::DragFloat("##distance", &d, length.speed, 0.0f,
                                        length.value(drag_reach(2.0, app.robot_extent)),
                                        length.format("distance ").c_str());
    checked_field(app, ("distance" + in_unit).c_str(), moved, d, 0.0, kMaxLength,
                  1 / length.per_metre, p.distance);
    if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set distance");
  }
  // look_at / axis_align: the link axis, the world direction (any length, the solver normalises;
  // a zero vector is refused and undone) and the cone in degrees
  auto vector_row = [&](const char* id, const char* tip, Vec3<double>& v) {
    float f[3] = {float(v.x), float(v.y), float(v.z)};
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
    if (ImGui::DragFloat3(id, f, 0.01f, -1.0f, 1.0f, "%.2f")) v = {f[0], f[1], f[2]};
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit(std::string("set ") + (id + 2));
  };
  if (kind.has(kFieldAxis)) vector_row("##axis", "axis in the link frame (x, y, z)", p.axis);
  if (kind.has(kFieldTargetLink)) look_at_link_row(app, o);
  if (kind.has(kFieldDirection))
    vector_row("##direction", "world direction the axis aligns with", p.direction);
  if (kind.has(kFieldCone)) {
    float c = float(p.cone * 57.29577951308232);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
    if (ImGui::DragFloat("##cone", &c, 0.2f, 0.0f, 180.0f, "cone %.1f deg"))
      p.cone = std::min(std::max(0.0, double(c)), 180.0) / 57.29577951308232;
    if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set cone");
  }
  if (kind.has(kFieldMargin)) {
    float v = length.value(p.margin);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
    const bool moved = ImGui::DragFloat("##margin", &v, length.speed, 0.0f,
                                        length.value(drag_reach(0.5, app.robot_extent)),
                                        length.format("margin ").c_str());
    checked_field(app, ("margin" + in_unit).c_str(), moved, v, 0.0, 1e3, 1 / length.per_metre,
                  p.margin);
    if (ImGui::IsItemDeactivatedAfterEdit()) {
      app.note_edit("set margin");
      app.check_support_margin(int(&o - app.objectives.data()));
    }
  }
  if (kind.has(kFieldMinMeasure)) {
    float v = float(p.min_measure);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
    const bool moved =
        ImGui::DragFloat("##min_measure", &v, 0.001f, 0.0f, 10.0f, "least measure %.4f");
    checked_field(app, "least measure", moved, v, 0.0, kMaxWeight, 1.0, p.min_measure);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Yoshikawa measure sqrt(det(J J^T)) of the link point's position "
          "Jacobian; now %.4f",
          p.min_measure - o.status.violation);
    if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set least measure");
  }
  if (kind.has(kFieldBox)) {
    // the box in the robot's length unit in the target frame; a side at 10 m (10 times a
    // larger robot's size) or past counts as open
    const float open = length.value(drag_reach(10.0, app.robot_extent));
    for (int side = 0; side < 2; ++side) {
      Vec3<double>& b = side ? p.box_upper : p.box_lower;
      float f[3];
      for (int k = 0; k < 3; ++k)
        f[k] = std::isfinite(b[k]) ? length.value(b[k]) : (side ? open : -open);
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 64);
      if (ImGui::DragFloat3(side ? "upper" : "lower", f, 2 * length.speed, -open, open,
                            length.format().c_str())) {
        for (int k = 0; k < 3; ++k)
          b[k] = std::fabs(f[k]) >= open ? (side ? HUGE_VAL : -HUGE_VAL) : length.metres(f[k]);
        for (int k = 0; k < 3; ++k)
          if (p.box_lower[k] > p.box_upper[k]) (side ? p.box_lower : p.box_upper)[k] = b[k];
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("box %s bounds in the target frame (x, y, z); +-%.0f %s: open",
                          side ? "upper" : "lower", double(open), length.unit);
      if (ImGui::IsItemDeactivatedAfterEdit()) app.note_edit("set box");
    }
  }
  if (kind.has(kFieldPositionWeights) && axis_weights("pos axes", p.position_weights))
    app.note_edit("set axis weights");
  if (kind.has(kFieldRotationWeights) && axis_weights("rot axes", p.rotation_weights))
    app.note_edit("set axis weights");
}

}  // namespace

void draw_objectives_panel(Ui& ui, ImVec2 pos, ImVec2 size) {
  AppState& app = ui.app;
  if (!begin_panel("Objectives", pos, size) || !app.model) {
    ImGui::End();
    return;
  }
  const Model& m = *app.model;

  // add row: the kinds that need no second link
  const ObjectiveKind& add_kind = objective_kind(ui.add_type);
  ImGui::SetNextItemWidth(116);
  if (ImGui::BeginCombo("##kind", add_kind.label)) {
    for (int k = 0; k < objective_kind_count(); ++k) {
      const ObjectiveKind& kind = objective_kinds()[k];
      if (!kind.addable) continue;
      if (ImGui::Selectable(kind.label, kind.type == ui.add_type)) ui.add_type = kind.type;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  const bool needs_link = add_kind.has(kFieldLink);
  const bool have_link = app.selection.body >= 0;
  ImGui::BeginDisabled(needs_link && !have_link);
  if (ImGui::Button("Add")) app.add_objective(app.new_objective(ui.add_type, app.selection.body));
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
  if (app.selection.objective < 0) ui.objective_shown = -1;
  for (int i = 0; i < int(app.objectives.size()); ++i) {
    WorkbenchObjective& o = app.objectives[i];
    const ObjectiveParams<double>& p = o.spec.params;
    ImGui::PushID(i);
    bool enabled = o.enabled();
    if (ImGui::Checkbox("##on", &enabled)) {
      o.spec.params.enabled = enabled;
      app.note_edit("enable objective");
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("enabled");
    ImGui::SameLine();
    std::string title = o.name();
    if (o.kind().is_pair())
      title += "  (" + m.body_name[p.link] + ", " + m.body_name[p.link_b] + ")";
    else if (p.link >= 0 && title.find(m.body_name[p.link]) == std::string::npos)
      title += "  (" + m.body_name[p.link] + ")";
    const bool selected = app.selection.objective == i;
    // room for the delete button after it
    const float delete_width = ImGui::CalcTextSize("x").x + 2 * ImGui::GetStyle().FramePadding.x +
                               ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::Selectable(title.c_str(), selected, 0,
                          ImVec2(ImGui::GetContentRegionAvail().x - delete_width, 0))) {
      app.selection.objective = i;
      if (p.link >= 0) app.selection.body = p.link;
    }
    // an objective selected elsewhere (a click on its link or target, a script) is scrolled into
    // view, its title at the top with its status under it
    if (selected && ui.objective_shown != i) {
      const float status_bottom =
          ImGui::GetItemRectMax().y + 3 * ImGui::GetFrameHeightWithSpacing();
      if (!ImGui::IsItemVisible() ||
          status_bottom > ImGui::GetWindowPos().y + ImGui::GetWindowHeight())
        ImGui::SetScrollHereY(0.0f);
      ui.objective_shown = i;
    }
    if (ImGui::IsItemHovered() && p.link >= 0) app.hover.body = p.link;
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.45f, 0.16f, 0.16f, 0.8f));
    if (ImGui::SmallButton("x")) remove = i;
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("delete this objective");

    ImGui::Indent(28);
    field_rows(app, o);
    status_line(app, o);
    ImGui::Unindent(28);
    ImGui::Separator();
    ImGui::PopID();
  }
  draw_obstacles_section(ui);
  ImGui::EndChild();
  ImGui::End();
  if (remove >= 0) app.remove_objective(remove);
}

}  // namespace ikwb::gui
