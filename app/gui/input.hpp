// The input the workbench reacts to in one frame: mouse position and buttons, wheel, keys and
// modifiers, in GLFW terms (window pixels, top-left origin; GLFW key codes, as ImGui 1.86 uses).
//
// Interactive runs fill it from ImGui's io after the GLFW backend's new-frame call (so ImGui and
// the 3D view see the same events); script runs write it instead, and apply_to_io() hands it to
// ImGui exactly as the GLFW callbacks would. The viewport reads only this struct.
#pragma once

#include <array>
#include <bitset>

#include <glm/glm.hpp>

struct ImGuiIO;

namespace ikwb::gui {

constexpr int kMouseButtons = 3;  // left, right, middle (GLFW_MOUSE_BUTTON_1..3)
constexpr int kKeyCount = 512;    // GLFW key codes, as io.KeysDown

struct InputState {
  glm::vec2 mouse{-1e9f, -1e9f};  // window pixels; far away when the cursor is outside
  std::array<bool, kMouseButtons> down{};
  float wheel = 0;              // steps this frame, > 0 away from the user
  std::bitset<kKeyCount> keys;  // held keys (GLFW_KEY_*)
  bool ctrl = false, shift = false, alt = false, super = false;

  // edges against the previous frame (set by begin_frame)
  std::array<bool, kMouseButtons> pressed{}, released{};
  std::bitset<kKeyCount> keys_pressed;
  glm::vec2 mouse_delta{0.0f};

  bool key_pressed(int key) const { return key >= 0 && key < kKeyCount && keys_pressed[key]; }
  bool mouse_valid() const { return mouse.x > -1e8f && mouse.y > -1e8f; }
};

// copies this frame's events from io (interactive runs)
void read_from_io(const ImGuiIO& io, InputState& in);
// writes the state into io as the GLFW backend would (script runs): mouse, buttons, wheel, keys
// and modifiers. The state is the whole input, so a focus change on the display (another window
// opened on the same X server) does not release its keys: io.AppFocusLost is cleared.
void apply_to_io(const InputState& in, ImGuiIO& io);
// computes the edges of `in` against `prev` (the previous frame's state)
void compute_edges(const InputState& prev, InputState& in);

}  // namespace ikwb::gui
