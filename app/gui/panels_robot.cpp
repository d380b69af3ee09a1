// Robot panel: the robot's name, file and sizes, and its link tree (hover and click select links,
// right click adds objectives).
#include <functional>

#include "app/gui/panels.hpp"

namespace ikwb::gui {

namespace {

// children joints of each body (index body_count holds the world's)
std::vector<std::vector<int>> child_joints(const Model& m) {
  std::vector<std::vector<int>> c(m.body_count + 1);
  for (int j = 0; j < m.joint_count; ++j)
    c[m.joint_parent[j] < 0 ? m.body_count : m.joint_parent[j]].push_back(j);
  return c;
}

}  // namespace

void draw_robot_panel(Ui& ui, ImVec2 pos, ImVec2 size) {
  AppState& app = ui.app;
  if (!begin_panel("Robot", pos, size) || !app.model) {
    if (!app.model) ImGui::TextDisabled("No robot loaded: File > Open URDF");
    ImGui::End();
    return;
  }
  const Model& m = *app.model;
  ImGui::Text("%s", app.robot_title.c_str());
  ImGui::TextDisabled("%d links  %d joints  %d dofs", m.body_count, m.joint_count, m.dof_count);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", app.robot_path.c_str());
  if (!app.load_warnings.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.3f, 1.0f), "%zu warnings", app.load_warnings.size());
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(520.0f);
      for (std::size_t i = 0; i < app.load_warnings.size() && i < 12; ++i)
        ImGui::BulletText("%s", app.load_warnings[i].c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  ImGui::Separator();

  auto children = child_joints(m);
  ImGui::BeginChild("##tree", ImVec2(0, 0), false);
  ImGui::PushStyleVar(ImGuiStyleVar_IndentSpacing, 11.0f);
  std::function<void(int)> body_node = [&](int b) {
    const auto& kids = children[b];
    ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_OpenOnArrow | ImGuiTreeNodeFlags_DefaultOpen |
                               ImGuiTreeNodeFlags_SpanAvailWidth;
    if (kids.empty()) flags |= ImGuiTreeNodeFlags_Leaf | ImGuiTreeNodeFlags_NoTreePushOnOpen;
    if (app.selection.body == b) flags |= ImGuiTreeNodeFlags_Selected;
    int j = m.body_joint[b];
    bool has_objective = false;
    for (const WorkbenchObjective& o : app.objectives)
      has_objective = has_objective || o.link() == b;
    bool open = ImGui::TreeNodeEx((void*)(intptr_t)b, flags, "%s%s", m.body_name[b].c_str(),
                                  has_objective ? "  *" : "");
    if (ImGui::IsItemHovered()) {
      app.hover.body = b;
      if (j >= 0)
        ImGui::SetTooltip("joint %s (%s)", m.joint_name[j].c_str(),
                          joint_type_name(JointType(m.joint_type[j])));
    }
    if (ImGui::IsItemClicked(ImGuiMouseButton_Left) && !ImGui::IsItemToggledOpen())
      app.select_link(b);
    if (ImGui::BeginPopupContextItem()) {
      link_context_items(app, b);
      ImGui::EndPopup();
    }
    if (!kids.empty() && open) {
      for (int cj : kids) body_node(m.joint_child[cj]);
      ImGui::TreePop();
    }
  };
  for (int j : children[m.body_count]) body_node(m.joint_child[j]);
  ImGui::PopStyleVar();
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace ikwb::gui
