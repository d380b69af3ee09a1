// InputState <-> ImGui io (1.86 input API: io.MouseDown[], io.KeysDown[] with GLFW key codes).
#include "app/gui/input.hpp"

#include <imgui.h>

#include <cfloat>

namespace ikwb::gui {

void read_from_io(const ImGuiIO& io, InputState& in) {
  const bool valid = io.MousePos.x > -1e8f && io.MousePos.y > -1e8f;
  in.mouse = valid ? glm::vec2(io.MousePos.x, io.MousePos.y) : glm::vec2(-1e9f);
  for (int b = 0; b < kMouseButtons; ++b) in.down[b] = io.MouseDown[b];
  in.wheel = io.MouseWheel;
  for (int k = 0; k < kKeyCount; ++k) in.keys[k] = io.KeysDown[k];
  in.ctrl = io.KeyCtrl;
  in.shift = io.KeyShift;
  in.alt = io.KeyAlt;
  in.super = io.KeySuper;
}

void apply_to_io(const InputState& in, ImGuiIO& io) {
  io.MousePos = in.mouse_valid() ? ImVec2(in.mouse.x, in.mouse.y) : ImVec2(-FLT_MAX, -FLT_MAX);
  for (int b = 0; b < kMouseButtons; ++b) io.MouseDown[b] = in.down[b];
  for (int b = kMouseButtons; b < IM_ARRAYSIZE(io.MouseDown); ++b) io.MouseDown[b] = false;
  io.MouseWheel = in.wheel;
  io.MouseWheelH = 0;
  for (int k = 0; k < kKeyCount; ++k) io.KeysDown[k] = in.keys[k];
  io.KeyCtrl = in.ctrl;
  io.KeyShift = in.shift;
  io.KeyAlt = in.alt;
  io.KeySuper = in.super;
  // ImGui::NewFrame() releases every key after a focus loss (io.AddFocusEvent(false)); a script's
  // tap would be lost whenever another window took the display's focus in that frame
  io.AppFocusLost = false;
}

void compute_edges(const InputState& prev, InputState& in) {
  for (int b = 0; b < kMouseButtons; ++b) {
    in.pressed[b] = in.down[b] && !prev.down[b];
    in.released[b] = !in.down[b] && prev.down[b];
  }
  in.keys_pressed = in.keys & ~prev.keys;
  in.mouse_delta = in.mouse_valid() && prev.mouse_valid() ? in.mouse - prev.mouse : glm::vec2(0.0f);
}

}  // namespace ikwb::gui
