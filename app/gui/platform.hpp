// The platform layer, as Dear ImGui's backends split it: GLFW (window, events), the OpenGL
// context and Dear ImGui's context with its GLFW and OpenGL3 backends. init / new_frame /
// render / present / shutdown; the frame loop (workbench.cpp) owns everything else.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace ikwb::gui {

struct PlatformOptions {
  int width = 1280, height = 720;  // window size, window pixels
  int msaa = 4;                    // multisample count (0 off)
  // off on Mesa's software rasterisers, where multisampling costs several times the frame,
  // unless the samples were asked for
  bool msaa_asked = false;
  bool debug_context = false;  // a debug OpenGL context (KHR_debug messages)
  bool vsync = true;           // wait for the display between frames
  // no window and no display server: an EGL pbuffer of width x height (headless_context.hpp);
  // no events, the frame's input comes from a script
  bool headless = false;
};

// the sizes of one frame
struct PlatformFrame {
  int window_w = 0, window_h = 0;            // window pixels (ImGui's and the layout's units)
  int framebuffer_w = 0, framebuffer_h = 0;  // framebuffer pixels
  bool visible() const { return framebuffer_w > 0 && framebuffer_h > 0 && window_w > 0; }
  bool waited = false;  // new_frame waited for events (frame times then include the wait)
  bool woke = false;    // ... and an event ended the wait before its time
  // framebuffer pixels per window pixel
  float pixel_scale() const { return window_w > 0 ? float(framebuffer_w) / float(window_w) : 1; }
};

class HeadlessContext;

class Platform {
 public:
  Platform();
  ~Platform();
  // GLFW, a window with an OpenGL 3.3 core context, Dear ImGui's context (no .ini file) and its
  // GLFW and OpenGL3 backends (headless: the EGL context and the OpenGL3 backend only); false
  // and *error when there is no display or no context
  bool init(const PlatformOptions& options, std::string* error);
  bool should_close() const;
  // polls events, or waits up to wait_s seconds for one (a window only), and starts the backends'
  // frame (before ImGui::NewFrame); this frame's sizes
  PlatformFrame new_frame(double wait_s = 0);
  // clears the framebuffer before the 3D view draws
  void clear(const PlatformFrame& frame);
  // draws ImGui's draw data (after ImGui::Render) over the 3D view
  void render(const PlatformFrame& frame);
  // shows the frame (reads of this frame's pixels come before)
  void present();
  void set_title(const std::string& title);
  // files dropped on the window since the last call (GLFW's drop callback)
  std::vector<std::string> take_dropped();
  void shutdown();

 private:
  GLFWwindow* window_ = nullptr;
  std::unique_ptr<HeadlessContext> headless_;
  int headless_w_ = 0, headless_h_ = 0;
  std::chrono::steady_clock::time_point last_frame_{};
};

}  // namespace ikwb::gui
