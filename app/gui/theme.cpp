// Dark theme: neutral blue-grey panels, a blue accent, rounded widgets.
#include "app/gui/theme.hpp"

#include <imgui.h>

#include <filesystem>

namespace ikwb::gui {

namespace {

const char* const kFonts[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
};

}  // namespace

float apply_theme(float font_px) {
  ImGuiIO& io = ImGui::GetIO();
  float size = 13.0f;
  for (const char* path : kFonts) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    if (io.Fonts->AddFontFromFileTTF(path, font_px, &cfg)) {
      size = font_px;
      break;
    }
  }
  if (io.Fonts->Fonts.empty()) io.Fonts->AddFontDefault();

  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowPadding = ImVec2(10, 8);
  s.FramePadding = ImVec2(7, 3);
  s.ItemSpacing = ImVec2(8, 5);
  s.ItemInnerSpacing = ImVec2(6, 4);
  s.IndentSpacing = 14;
  s.ScrollbarSize = 11;
  s.GrabMinSize = 9;
  s.WindowBorderSize = 0;
  s.ChildBorderSize = 0;
  s.PopupBorderSize = 1;
  s.FrameBorderSize = 0;
  s.WindowRounding = 0;
  s.ChildRounding = 3;
  s.FrameRounding = 3;
  s.PopupRounding = 4;
  s.ScrollbarRounding = 6;
  s.GrabRounding = 3;
  s.TabRounding = 3;
  s.WindowTitleAlign = ImVec2(0.0f, 0.5f);

  ImVec4* c = s.Colors;
  const ImVec4 accent(0.30f, 0.56f, 0.92f, 1.0f);
  c[ImGuiCol_Text] = ImVec4(0.88f, 0.9f, 0.93f, 1.0f);
  c[ImGuiCol_TextDisabled] = ImVec4(0.53f, 0.56f, 0.61f, 1.0f);
  c[ImGuiCol_WindowBg] = ImVec4(0.105f, 0.113f, 0.128f, 0.98f);
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_PopupBg] = ImVec4(0.12f, 0.13f, 0.15f, 0.98f);
  c[ImGuiCol_Border] = ImVec4(0.24f, 0.26f, 0.3f, 0.8f);
  c[ImGuiCol_FrameBg] = ImVec4(0.17f, 0.185f, 0.21f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.22f, 0.24f, 0.28f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.26f, 0.29f, 0.34f, 1.0f);
  c[ImGuiCol_TitleBg] = ImVec4(0.085f, 0.09f, 0.1f, 1.0f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.085f, 0.09f, 0.1f, 1.0f);
  c[ImGuiCol_TitleBgCollapsed] = ImVec4(0.085f, 0.09f, 0.1f, 1.0f);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.085f, 0.09f, 0.1f, 1.0f);
  c[ImGuiCol_ScrollbarBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_ScrollbarGrab] = ImVec4(0.26f, 0.28f, 0.32f, 1.0f);
  c[ImGuiCol_CheckMark] = accent;
  c[ImGuiCol_SliderGrab] = accent;
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.45f, 0.68f, 1.0f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.2f, 0.22f, 0.26f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.26f, 0.36f, 0.5f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.3f, 0.45f, 0.68f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.22f, 0.32f, 0.47f, 0.85f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.38f, 0.56f, 0.8f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.3f, 0.45f, 0.68f, 1.0f);
  c[ImGuiCol_Separator] = ImVec4(0.22f, 0.24f, 0.28f, 1.0f);
  c[ImGuiCol_PlotLines] = accent;
  c[ImGuiCol_PlotHistogram] = accent;
  c[ImGuiCol_ModalWindowDimBg] = ImVec4(0.0f, 0.0f, 0.0f, 0.45f);
  return size;
}

}  // namespace ikwb::gui
