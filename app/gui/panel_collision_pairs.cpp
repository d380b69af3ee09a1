// The Collision pairs window: every self pair that can be checked (both links have capsules and
// are not welded together), with a checkbox that turns it on or off for the collision objectives
// (AppState::set_collision_pair: an undoable edit saved in the scene's "collision_pairs"), why a
// pair is off by default (joined by a joint, or the SRDF), and its distance when it is among the
// closest pairs; a button turns off the pairs that overlap at the current pose.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/length_text.hpp"
#include "app/gui/visuals.hpp"

namespace ikwb::gui {

namespace {

// the checkable pairs of a model and those the defaults check without an SRDF
struct PairList {
  const Model* model = nullptr;
  uint64_t version = 0;
  std::vector<std::pair<int, int>> pairs;  // sorted
  std::vector<std::pair<int, int>> unjoined;
};

const PairList& pair_list(const AppState& app) {
  static PairList list;
  if (list.model != app.model.get() || list.version != app.model_version) {
    list = {};
    list.model = app.model.get();
    list.version = app.model_version;
    const Model& m = *app.model;
    for (int a = 0; a < m.body_count; ++a)
      for (int b = a + 1; b < m.body_count; ++b)
        if (checkable_pair(m, a, b)) list.pairs.push_back({a, b});
    list.unjoined = self_collision_pairs(m);
  }
  return list;
}

bool listed(const std::vector<std::pair<int, int>>& sorted, std::pair<int, int> p) {
  return std::binary_search(sorted.begin(), sorted.end(), p);
}

}  // namespace

void draw_collision_pairs_window(AppState& app, bool* open) {
  if (!*open) return;
  ImGui::SetNextWindowSize(ImVec2(440, 420), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos(ImVec2(320, 120), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Collision pairs", open)) {
    ImGui::End();
    return;
  }
  if (!app.model) {
    ImGui::TextDisabled("no robot");
    ImGui::End();
    return;
  }
  const Model& m = *app.model;
  const PairList& list = pair_list(app);
  int checked = 0;
  for (auto [a, b] : list.pairs) checked += app.collision_pair_checked(a, b);
  const int edited = int(app.collision_pairs.disabled.size() + app.collision_pairs.enabled.size());
  ImGui::Text("%d of %d pairs checked, %d edited", checked, int(list.pairs.size()), edited);
  ImGui::SameLine();
  if (ImGui::SmallButton("Reset edits") && edited > 0) {
    app.collision_pairs = {};
    app.rebuild_collision_world();
    app.note_edit("collision pairs reset");
  }
  int overlapping = 0;
  for (const BodyDistance& d : app.collisions.pairs)
    overlapping += d.obstacle < 0 && d.contact.distance < 0;
  if (overlapping > 0) {
    char label[64];
    std::snprintf(label, sizeof label, "Turn off overlapping (%d %s)", overlapping,
                  overlapping == 1 ? "pair" : "pairs");
    if (ImGui::SmallButton(label)) app.turn_off_overlapping_pairs();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Stops checking the self pairs that overlap at this pose: fitted capsules can cover\n"
          "more than the links (a gripper's fingers at rest), and a self-collision objective\n"
          "would push them apart. One undo step, saved with the scene.");
  }
  static ImGuiTextFilter filter;
  static bool edited_only = false;
  filter.Draw("filter", ImGui::GetContentRegionAvail().x * 0.6f);
  ImGui::SameLine();
  ImGui::Checkbox("edited only", &edited_only);
  ImGui::Separator();

  std::vector<int> rows;
  for (int i = 0; i < int(list.pairs.size()); ++i) {
    auto [a, b] = list.pairs[i];
    bool on = app.collision_pair_checked(a, b);
    if (edited_only && on == app.collision_pair_default(a, b)) continue;
    std::string label = m.body_name[a] + " - " + m.body_name[b];
    if (!filter.PassFilter(label.c_str())) continue;
    rows.push_back(i);
  }
  ImGui::BeginChild("pairs");
  ImGuiListClipper clipper;
  clipper.Begin(int(rows.size()));
  while (clipper.Step()) {
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      auto [a, b] = list.pairs[rows[r]];
      bool on = app.collision_pair_checked(a, b);
      const bool by_default = app.collision_pair_default(a, b);
      std::string label = m.body_name[a] + " - " + m.body_name[b];
      ImGui::PushID(rows[r]);
      if (ImGui::Checkbox(label.c_str(), &on)) app.set_collision_pair(a, b, on);
      ImGui::PopID();
      // why the default differs, whether this pair is edited, and its distance when listed
      std::string note;
      if (!by_default) note = listed(list.unjoined, {a, b}) ? "srdf" : "joined by a joint";
      if (on != by_default) note += note.empty() ? "edited" : ", edited";
      for (const BodyDistance& d : app.collisions.pairs)
        if (d.obstacle < 0 && std::min(d.body_a, d.body_b) == a &&
            std::max(d.body_a, d.body_b) == b) {
          note += (note.empty() ? "" : ", ") +
                  length_text(d.contact.distance, LengthUnit::kMillimetre, 1);
        }
      if (!note.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("(%s)", note.c_str());
      }
    }
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace ikwb::gui
