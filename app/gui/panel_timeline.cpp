// The Timeline window: play / pause, loop and speed; a time axis with the keys (click to select,
// drag to retime), the segments coloured by interpolation (red where flagged) and the playhead
// (click or drag to scrub); the selected key's time and interpolation; key ghosts; export and
// import of trajectories. Every action calls timeline_edit.hpp, as the script does.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/gui/panels.hpp"
#include "app/gui/timeline_edit.hpp"
#include "app/gui/timeline_view.hpp"

namespace ikwb::gui {

namespace {

const ImU32 kAxisColor = IM_COL32(90, 92, 100, 255);
const ImU32 kJointColor = IM_COL32(90, 150, 235, 255);
const ImU32 kTaskColor = IM_COL32(95, 200, 120, 255);
const ImU32 kFlaggedColor = IM_COL32(235, 80, 70, 255);
const ImU32 kKeyColor = IM_COL32(235, 190, 70, 255);
const ImU32 kSelectedColor = IM_COL32(255, 120, 30, 255);
const ImU32 kPlayheadColor = IM_COL32(240, 240, 245, 255);

// what the mouse does on the axis across frames
struct AxisDrag {
  int key = -1;     // a key being dragged (retimed on release)
  double time = 0;  // where it would go
  bool scrubbing = false;
};

void draw_diamond(ImDrawList* dl, ImVec2 c, float r, ImU32 col) {
  dl->AddQuadFilled({c.x, c.y - r}, {c.x + r, c.y}, {c.x, c.y + r}, {c.x - r, c.y}, col);
}

}  // namespace

double axis_tick_step(double span, float width) {
  // 1, 2 or 5 times a power of ten seconds, at least 1 s, with ticks at least kMinTickPx apart
  // (a tick a second drew a million of them each frame for keys a million seconds apart)
  constexpr float kMinTickPx = 6.0f;
  const double least = span * kMinTickPx / std::max(width, 1.0f);
  for (double decade = 1;; decade *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (m * decade >= least || !std::isfinite(least)) return m * decade;
}

namespace {

// the time axis: segments, keys, playhead; mouse: select / retime keys, scrub
void draw_axis(AppState& app, AxisDrag& drag) {
  TimelineState& t = app.timeline;
  const std::vector<Keyframe>& keys = t.timeline.keys;
  const float w = std::max(ImGui::GetContentRegionAvail().x, 100.0f), h = 30.0f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##axis", ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const double span = std::max({1.0, play_end(app) * 1.05, t.playhead * 1.05});
  const float pad = 8.0f, y = p0.y + h * 0.5f;
  auto x_of = [&](double time) { return p0.x + pad + float(time / span) * (w - 2 * pad); };
  auto time_of = [&](float x) {
    return std::max(0.0, double(x - p0.x - pad) / (w - 2 * pad) * span);
  };

  dl->AddLine({p0.x + pad, y}, {p0.x + w - pad, y}, kAxisColor, 2.0f);
  const double step = axis_tick_step(span, w - 2 * pad);
  const long ticks = long(span / step);
  for (long i = 0; i <= ticks; ++i) {
    const double s = double(i) * step;
    dl->AddLine({x_of(s), y + 6}, {x_of(s), y + 11}, kAxisColor);
    char label[24];
    std::snprintf(label, sizeof label, "%g", s);
    if (ticks <= 20 || i % 5 == 0) dl->AddText({x_of(s) + 2, y + 3}, kAxisColor, label);
  }
  const bool rendered = t.rendered_serial == t.serial && t.render_error.empty();
  auto segment_color = [&](std::size_t k) {
    const bool flagged =
        rendered && k < t.trajectory.segments.size() && t.trajectory.segments[k].flagged();
    return flagged                                         ? kFlaggedColor
           : keys[k].interpolation == Interpolation::kTask ? kTaskColor
                                                           : kJointColor;
  };
  // a run of segments of one colour is one line (10,000 keys drew 10,000 lines, and as many
  // diamonds below, into a thousand pixels: 38 ms frames under software OpenGL)
  for (std::size_t k = 0; k + 1 < keys.size();) {
    const ImU32 col = segment_color(k);
    std::size_t end = k + 1;
    while (end + 1 < keys.size() && segment_color(end) == col) ++end;
    dl->AddLine({x_of(keys[k].time), y}, {x_of(keys[end].time), y}, col, 4.0f);
    k = end;
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  for (int k = 0; k < int(keys.size()); ++k)
    if (ImGui::IsItemHovered() && std::fabs(mouse.x - x_of(keys[k].time)) < 7 &&
        std::fabs(mouse.y - y) < 10)
      hovered = k;
  // a key within a pixel of the last one drawn is covered by it: not drawn again (the selected,
  // hovered and dragged ones always are)
  float last_x = -1e30f;
  for (int k = 0; k < int(keys.size()); ++k) {
    const double time = k == drag.key ? drag.time : keys[k].time;
    const float x = x_of(time);
    const bool marked = k == t.selected || k == hovered || k == drag.key;
    if (!marked && std::fabs(x - last_x) < 1.0f) continue;
    draw_diamond(dl, {x, y}, k == hovered ? 8.0f : 6.5f,
                 k == t.selected ? kSelectedColor : kKeyColor);
    if (!marked) last_x = x;
  }
  dl->AddLine({x_of(t.playhead), p0.y + 2}, {x_of(t.playhead), p0.y + h - 2}, kPlayheadColor, 2.0f);

  // press on a key: select it (and drag it); press elsewhere: scrub
  if (ImGui::IsItemActivated()) {
    if (hovered >= 0) {
      select_key(app, hovered);
      drag = {hovered, keys[hovered].time, false};
    } else {
      drag = {-1, 0, true};
    }
  }
  if (ImGui::IsItemActive()) {
    if (drag.key >= 0 && ImGui::IsMouseDragging(0, 2.0f))
      drag.time = std::round(time_of(mouse.x) * 100) / 100;  // 10 ms steps
    if (drag.scrubbing) scrub(app, time_of(mouse.x));
  }
  if (ImGui::IsItemDeactivated()) {
    if (drag.key >= 0 && drag.key < int(keys.size()) && drag.time != keys[drag.key].time)
      retime_key(app, drag.key, drag.time);
    drag = {};
  }
  if (hovered >= 0)
    ImGui::SetTooltip("key %d at %.2f s (%s segment); drag to retime", hovered, keys[hovered].time,
                      to_string(keys[hovered].interpolation));
}

void draw_selected_key(AppState& app) {
  TimelineState& t = app.timeline;
  if (t.selected < 0 || t.selected >= int(t.timeline.keys.size())) {
    ImGui::TextDisabled("Click a key to edit it; K adds one at the playhead.");
    return;
  }
  const int k = t.selected;
  Keyframe& key = t.timeline.keys[k];
  ImGui::Text("Key %d", k);
  ImGui::SameLine();
  double time = key.time;
  ImGui::SetNextItemWidth(90);
  if (ImGui::InputDouble("s##keytime", &time, 0.1, 1.0, "%.2f",
                         ImGuiInputTextFlags_EnterReturnsTrue))
    retime_key(app, k, time);
  if (k + 1 < int(t.timeline.keys.size())) {
    ImGui::SameLine();
    int mode = key.interpolation == Interpolation::kTask ? 1 : 0;
    ImGui::SetNextItemWidth(130);
    if (ImGui::Combo("to next key", &mode, "joint space\0task space\0"))
      set_interpolation(app, k, mode ? Interpolation::kTask : Interpolation::kJoint);
  }
  ImGui::SameLine();
  if (ImGui::Button("Delete key")) delete_key(app, k);
}

void draw_files(AppState& app) {
  TimelineState& t = app.timeline;
  static char export_path[512] = "trajectory.csv";
  static char import_path[512] = "";
  ImGui::SetNextItemWidth(200);
  ImGui::InputText("##export", export_path, sizeof export_path);
  ImGui::SameLine();
  double rate = t.export_rate;
  ImGui::SetNextItemWidth(70);
  ImGui::InputDouble("Hz", &rate, 0, 0, "%.0f");
  ImGui::SameLine();
  bool fixed_step = t.export_fixed_step;
  ImGui::Checkbox("fixed step", &fixed_step);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "rows only at 1/rate steps, for a simulator or an animation: a key between two rows\n"
        "gets no row of its own, and the last row holds the last key");
  t.export_fixed_step = fixed_step;
  ImGui::SameLine();
  // with a motion imported the keys are still what is written
  if (ImGui::Button(t.motion_path.empty() ? "Export###export" : "Export the keys###export"))
    export_trajectory(app, export_path, rate, fixed_step);
  ImGui::SetNextItemWidth(200);
  ImGui::InputText("##import", import_path, sizeof import_path);
  ImGui::SameLine();
  if (ImGui::Button("Import motion")) import_motion(app, import_path);
  if (!t.motion_path.empty()) {
    ImGui::SameLine();
    if (ImGui::Button("Back to the timeline")) clear_motion(app);
  }
}

}  // namespace

void draw_timeline_panel(Ui& ui) {
  AppState& app = ui.app;
  TimelineState& t = app.timeline;
  if (!t.show_panel || !app.model) return;
  // its band under the 3D view (compute_layout), so it covers none of the view
  const render::Viewport& r = ui.layout.timeline;
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(r.width, r.height), ImGuiCond_Always);
  if (!ImGui::Begin("Timeline", &t.show_panel,
                    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                        ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  static AxisDrag drag;
  if (ImGui::Button(t.playing ? "Pause" : "Play")) play(app, !t.playing);
  ImGui::SameLine();
  ImGui::Checkbox("Loop", &t.loop);
  ImGui::SameLine();
  // "2.25 / 3.00 s at [1.00x]": the playhead, then the speed it plays at
  ImGui::Text("%.2f / %.2f s at", t.playhead, play_end(app));
  ImGui::SameLine();
  float speed = float(t.speed);
  ImGui::SetNextItemWidth(90);
  if (ImGui::SliderFloat("##speed", &speed, 0.05f, 1.0f, "%.2fx")) t.speed = speed;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("playback speed (1x: real time)");
  ImGui::SameLine();
  if (ImGui::Button("Add key (K)")) add_key_at_playhead(app);
  ImGui::SameLine();
  ImGui::Checkbox("Ghosts", &t.show_ghosts);
  if (t.show_ghosts && int(t.timeline.keys.size()) > kMaxKeyGhosts && ImGui::IsItemHovered())
    ImGui::SetTooltip("the %d keys nearest the playhead of %d (and the selected one)",
                      kMaxKeyGhosts, int(t.timeline.keys.size()));
  if (!t.motion_path.empty()) ImGui::TextDisabled("Playing the motion %s", t.motion_path.c_str());
  draw_axis(app, drag);
  draw_selected_key(app);
  draw_files(app);
  ImGui::End();
}

}  // namespace ikwb::gui
