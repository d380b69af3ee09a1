// Messages panel: the log of infos, warnings and errors, newest at the bottom, each wrapped to
// the panel's width so a long reason can be read whole.
#include "app/gui/panels.hpp"

namespace ikwb::gui {

void draw_messages_panel(Ui& ui, ImVec2 pos, ImVec2 size) {
  AppState& app = ui.app;
  if (!begin_panel("Messages", pos, size)) {
    ImGui::End();
    return;
  }
  ImGui::BeginChild("##log", ImVec2(0, 0), false);
  ImGui::PushTextWrapPos(0.0f);
  for (const Message& m : app.messages) {
    ImVec4 col = m.level == Message::kError     ? ImVec4(1.0f, 0.45f, 0.42f, 1.0f)
                 : m.level == Message::kWarning ? ImVec4(1.0f, 0.75f, 0.35f, 1.0f)
                                                : ImVec4(0.72f, 0.75f, 0.8f, 1.0f);
    ImGui::PushStyleColor(ImGuiCol_Text, col);
    ImGui::TextUnformatted(m.text.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PopTextWrapPos();
  // follow new messages
  if (app.messages.size() != ui.messages_seen) {
    ImGui::SetScrollHereY(1.0f);
    ui.messages_seen = app.messages.size();
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace ikwb::gui
