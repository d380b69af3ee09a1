// An ImGui context that runs frames without a window or a renderer (the font atlas is built on the
// CPU), for tests of what a panel draws: the text it renders (ImGui's log, a line per row) and
// whether any of it runs past the right edge of its window, where ImGui clips it.
#pragma once

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <functional>
#include <string>

#include "app/gui/theme.hpp"

namespace ikwb::test {

class HeadlessImGui : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 720);
    io.DeltaTime = 1.0f / 60.0f;
    if (themed_) gui::apply_theme();  // the workbench's font and style: its text widths
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(ctx_); }

  // runs one frame of draw(); returns the text it rendered (logged "to the clipboard", which
  // hands it to io.SetClipboardTextFn)
  std::string frame_text(const std::function<void()>& draw) {
    std::string text;
    ImGuiIO& io = ImGui::GetIO();
    io.ClipboardUserData = &text;
    io.SetClipboardTextFn = [](void* user, const char* t) { *static_cast<std::string*>(user) = t; };
    ImGui::NewFrame();
    ImGui::LogToClipboard();
    draw();
    ImGui::LogFinish();
    ImGui::EndFrame();
    return text;
  }

  // how far the content of the windows whose name starts with `prefix` (child windows included:
  // "Objectives/##objectives_...") reached past the right edge of their clip rectangle in the
  // last frame (px; <= 0: nothing is cut there)
  static float overflow_right(const std::string& prefix) {
    float worst = -1e30f;
    for (ImGuiWindow* w : GImGui->Windows)
      if (std::string(w->Name).rfind(prefix, 0) == 0 && w->Active)
        worst = std::max(worst, w->DC.CursorMaxPos.x - w->InnerClipRect.Max.x);
    return worst;
  }

  ImGuiContext* ctx_ = nullptr;
  bool themed_ = true;  // set false in a constructor for ImGui's own font and style
};

}  // namespace ikwb::test
