// Tests for the Messages panel (app/gui/panels_messages.cpp) and the log behind it: a message
// longer than ImGui can draw in one text (16-bit vertex indices, four vertices a character:
// about 16,400 characters) is kept cut, so the panel renders it (the workbench aborted on a
// bad file's 30,000-character token quoted in its error), and it says how much was cut.
#include <gtest/gtest.h>

#include <string>

#include "app/gui/panels.hpp"
#include "headless_imgui.hpp"

namespace ikwb::gui {
namespace {

using MessagesPanel = ikwb::test::HeadlessImGui;

TEST_F(MessagesPanel, AMessageTooLongToDrawIsKeptCutAndRenders) {
  AppState app;
  const std::string token(30000, '1');
  app.log(Message::kError, "cannot read robot.urdf: bad number '" + token + "x'");
  ASSERT_EQ(app.messages.size(), 1u);
  const std::string& kept = app.messages.back().text;
  EXPECT_LT(kept.size(), 2200u);
  EXPECT_EQ(kept.rfind("cannot read robot.urdf: bad number '111", 0), 0u) << kept.substr(0, 80);
  EXPECT_NE(kept.find("more characters; the whole message is on standard error"),
            std::string::npos);
  Viewport3D view;
  Ui ui(app, view);
  ImGui::NewFrame();
  draw_messages_panel(ui, ImVec2(0, 0), ImVec2(600, 400));
  ImGui::Render();  // ImGui asserts here on a draw list past 65,536 vertices
  EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, 0);
}

// a cut never splits a character: the text stays valid UTF-8
TEST_F(MessagesPanel, ACutMessageEndsOnACharacterBoundary) {
  AppState app;
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "\xc3\xa9";  // é, two bytes
  app.log(Message::kWarning, "x" + text);             // the cut falls inside a character
  const std::string& kept = app.messages.back().text;
  const std::size_t end = kept.find(" ... (");
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ((end - 1) % 2, 0u) << "the cut split a two-byte character";
}

}  // namespace
}  // namespace ikwb::gui
