// GLFW, the OpenGL context and Dear ImGui's backends (see platform.hpp).
#include "app/gui/platform.hpp"

#include "app/gui/headless_context.hpp"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

namespace ikwb::gui {

namespace {

// paths dropped on the window, collected by GLFW's callback until the frame loop takes them
std::vector<std::string> g_dropped;

void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) g_dropped.emplace_back(paths[i]);
}

void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "ikwb: GLFW error %d: %s\n", code, text);
}

// glfwInit, retried for up to a second when a display is named: an X server that has just
// started, or is busy accepting other clients, can refuse a connection for a moment
bool init_glfw() {
  const char* display = std::getenv("DISPLAY");
  const int attempts = display && *display ? 6 : 1;
  for (int a = 0; a < attempts; ++a) {
    if (glfwInit()) return true;
    if (a + 1 < attempts) {
      std::fprintf(stderr, "ikwb gui: display %s not ready, retrying\n", display);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  return false;
}

GLFWwindow* open_window(int width, int height, int samples, bool debug) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, debug ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SAMPLES, samples);
  GLFWwindow* w = glfwCreateWindow(width, height, "IK Workbench", nullptr, nullptr);
  if (w) glfwMakeContextCurrent(w);
  return w;
}

// Mesa's CPU rasterisers (Xvfb, CI)
bool software_renderer() {
  const char* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  std::string s = r ? r : "";
  return s.find("llvmpipe") != std::string::npos || s.find("softpipe") != std::string::npos ||
         s.find("swrast") != std::string::npos;
}

// Dear ImGui's context with no .ini file, and its backends (no GLFW backend without a window);
// false and *error when the OpenGL3 backend cannot load OpenGL (it loads through libGL.so.1)
bool init_imgui(GLFWwindow* window, std::string* error) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  if (window) ImGui_ImplGlfw_InitForOpenGL(window, true);
  if (ImGui_ImplOpenGL3_Init("#version 330")) return true;
  *error = "Dear ImGui's OpenGL3 backend could not load OpenGL (libGL.so.1 missing?)";
  if (window) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  return false;
}

}  // namespace

Platform::Platform() = default;
Platform::~Platform() = default;

bool Platform::init(const PlatformOptions& o, std::string* error) {
  int msaa = std::max(o.msaa, 0);
  if (o.headless) {
    headless_ = std::make_unique<HeadlessContext>();
    bool made = headless_->create(o.width, o.height, msaa, o.debug_context, error);
    if (made && msaa > 0 && !o.msaa_asked && software_renderer()) {
      msaa = 0;
      made = headless_->create(o.width, o.height, msaa, o.debug_context, error);
    }
    if (!made) {
      headless_.reset();
      return false;
    }
    if (msaa > 0) glEnable(GL_MULTISAMPLE);
    headless_w_ = o.width;
    headless_h_ = o.height;
    if (init_imgui(nullptr, error)) return true;
    headless_.reset();
    return false;
  }

  // window and GL context
  glfwSetErrorCallback(glfw_error);
  if (!init_glfw()) {
    *error = "cannot open a window (no display? try xvfb-run -a, or --headless with --script)";
    return false;
  }
  window_ = open_window(o.width, o.height, msaa, o.debug_context);
  if (window_ && msaa > 0 && !o.msaa_asked && software_renderer()) {
    glfwDestroyWindow(window_);
    msaa = 0;
    window_ = open_window(o.width, o.height, msaa, o.debug_context);
  }
  if (!window_) {
    *error = "no OpenGL 3.3 core context";
    glfwTerminate();
    return false;
  }
  glfwSwapInterval(o.vsync ? 1 : 0);
  glfwSetDropCallback(window_, on_drop);
  if (msaa > 0) glEnable(GL_MULTISAMPLE);

  if (init_imgui(window_, error)) return true;
  glfwDestroyWindow(window_);
  glfwTerminate();
  window_ = nullptr;
  return false;
}

bool Platform::should_close() const {
  return !headless_ && glfwWindowShouldClose(window_);
}

PlatformFrame Platform::new_frame(double wait_s) {
  if (headless_) {
    // what ImGui's GLFW backend would set: the pbuffer's size and the time since the last frame
    const auto now = std::chrono::steady_clock::now();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(headless_w_), float(headless_h_));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = last_frame_ == std::chrono::steady_clock::time_point{}
                       ? 1.0f / 60.0f
                       : std::max(std::chrono::duration<float>(now - last_frame_).count(), 1e-5f);
    last_frame_ = now;
    ImGui_ImplOpenGL3_NewFrame();
    return {headless_w_, headless_h_, headless_w_, headless_h_};
  }
  PlatformFrame f;
  if (wait_s > 0) {
    const auto before = std::chrono::steady_clock::now();
    glfwWaitEventsTimeout(wait_s);
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    f.waited = true;
    f.woke = waited < 0.9 * wait_s;
  } else {
    glfwPollEvents();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  glfwGetWindowSize(window_, &f.window_w, &f.window_h);
  glfwGetFramebufferSize(window_, &f.framebuffer_w, &f.framebuffer_h);
  return f;
}

void Platform::clear(const PlatformFrame& f) {
  glViewport(0, 0, f.framebuffer_w, f.framebuffer_h);
  glClearColor(0.08f, 0.085f, 0.095f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

void Platform::render(const PlatformFrame& f) {
  if (f.visible()) ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Platform::present() {
  if (headless_)
    headless_->swap();
  else
    glfwSwapBuffers(window_);
}

std::vector<std::string> Platform::take_dropped() {
  return std::exchange(g_dropped, {});
}

void Platform::set_title(const std::string& title) {
  if (window_) glfwSetWindowTitle(window_, title.c_str());
}

void Platform::shutdown() {
  ImGui_ImplOpenGL3_Shutdown();
  if (window_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  if (headless_) {
    headless_.reset();
    return;
  }
  glfwDestroyWindow(window_);
  glfwTerminate();
  window_ = nullptr;
}

}  // namespace ikwb::gui
