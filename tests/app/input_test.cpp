// Tests for app/gui/input: the script's input handed to ImGui survives a focus change on the
// display. With the GUI tests sharing one X server, a window opened by another test takes the
// focus; ImGui 1.86 then releases every key at its next NewFrame, and a script's one-frame tap
// (the timeline's K) was lost in that frame.
#include "app/gui/input.hpp"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <imgui.h>

namespace ikwb::gui {
namespace {

// an ImGui context that runs frames without a window or a renderer
class HeadlessImGui : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(640, 480);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(ctx_); }

  // one frame with `in` applied the way the workbench applies a script's input
  bool frame_sees_press(const InputState& in, bool focus_lost_before) {
    ImGuiIO& io = ImGui::GetIO();
    if (focus_lost_before) io.AddFocusEvent(false);
    apply_to_io(in, io);
    ImGui::NewFrame();
    const bool pressed = ImGui::IsKeyPressed(GLFW_KEY_K) && ImGui::GetIO().KeyShift == in.shift;
    ImGui::EndFrame();
    return pressed;
  }

  ImGuiContext* ctx_ = nullptr;
};

TEST_F(HeadlessImGui, ScriptTapIsSeenInTheFrameOfAFocusLoss) {
  InputState idle;
  EXPECT_FALSE(frame_sees_press(idle, false));
  InputState tap;
  tap.keys[GLFW_KEY_K] = true;
  tap.shift = true;
  EXPECT_TRUE(frame_sees_press(tap, true)) << "the focus loss released the script's key";
  EXPECT_FALSE(frame_sees_press(tap, false)) << "held, not pressed again";
  EXPECT_FALSE(frame_sees_press(idle, true));
  EXPECT_TRUE(frame_sees_press(tap, false)) << "released and pressed again";
}

}  // namespace
}  // namespace ikwb::gui
