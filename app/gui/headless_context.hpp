// An OpenGL 3.3 core context with no window and no display server: EGL on the first device that
// gives one (EGL_EXT_platform_device; an NVIDIA GPU, or Mesa's software device), rendering into
// a pbuffer of the window's size. `ikwb gui --headless` runs scripts and --frames on it, on a
// machine with a GPU and no X server.
#pragma once

#include <string>

namespace ikwb::gui {

class HeadlessContext {
 public:
  HeadlessContext() = default;
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;
  ~HeadlessContext() { destroy(); }

  // makes a width x height pbuffer with `samples` samples per pixel (0 none) and its context
  // current; false and *error naming the step that failed (the state is then as before)
  bool create(int width, int height, int samples, bool debug, std::string* error);
  // ends the frame (eglSwapBuffers; reads of the frame's pixels come before)
  void swap();
  void destroy();

 private:
  void* display_ = nullptr;  // EGLDisplay
  void* surface_ = nullptr;  // EGLSurface
  void* context_ = nullptr;  // EGLContext
};

}  // namespace ikwb::gui
