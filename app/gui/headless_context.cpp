// EGL device platform context (see headless_context.hpp).
#include "app/gui/headless_context.hpp"

#include <dlfcn.h>
#include <epoxy/egl.h>

#include <cstdio>
#include <vector>

namespace ikwb::gui {

namespace {

std::string egl_error(const char* step) {
  char code[16];
  std::snprintf(code, sizeof code, "0x%04x", unsigned(eglGetError()));
  return std::string(step) + " failed (EGL error " + code + ")";
}

bool has_extension(const char* list, const std::string& name) {
  const std::string s = list ? list : "";
  for (size_t at = s.find(name); at != std::string::npos; at = s.find(name, at + 1)) {
    const bool starts = at == 0 || s[at - 1] == ' ';
    const bool ends = at + name.size() == s.size() || s[at + name.size()] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

// the displays to try, in order: each EGL device, else Mesa's surfaceless platform
std::vector<EGLDisplay> candidate_displays() {
  std::vector<EGLDisplay> displays;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (has_extension(client, "EGL_EXT_device_enumeration") &&
      has_extension(client, "EGL_EXT_platform_device")) {
    EGLint count = 0;
    EGLDeviceEXT devices[16];
    if (eglQueryDevicesEXT(16, devices, &count))
      for (EGLint i = 0; i < count; ++i) {
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        if (d != EGL_NO_DISPLAY) displays.push_back(d);
      }
  }
  if (has_extension(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay d =
        eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) displays.push_back(d);
  }
  return displays;
}

}  // namespace

bool HeadlessContext::create(int width, int height, int samples, bool debug, std::string* error) {
  destroy();
  // epoxy ends the process when it cannot load libEGL: look for it first
  if (!dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL)) {
    *error = "headless: libEGL.so.1 not found (install libegl1 and a GPU or Mesa EGL driver)";
    return false;
  }
  const std::vector<EGLDisplay> displays = candidate_displays();
  if (displays.empty()) {
    *error = "headless: EGL offers no device and no surfaceless display";
    return false;
  }
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE,
                                      EGL_PBUFFER_BIT,
                                      EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_BIT,
                                      EGL_RED_SIZE,
                                      8,
                                      EGL_GREEN_SIZE,
                                      8,
                                      EGL_BLUE_SIZE,
                                      8,
                                      EGL_ALPHA_SIZE,
                                      8,
                                      EGL_DEPTH_SIZE,
                                      24,
                                      EGL_SAMPLE_BUFFERS,
                                      samples > 0 ? 1 : 0,
                                      EGL_SAMPLES,
                                      samples > 0 ? samples : 0,
                                      EGL_NONE};
  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                       3,
                                       EGL_CONTEXT_MINOR_VERSION,
                                       3,
                                       EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                       EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                       EGL_CONTEXT_OPENGL_FORWARD_COMPATIBLE,
                                       EGL_TRUE,
                                       EGL_CONTEXT_OPENGL_DEBUG,
                                       debug ? EGL_TRUE : EGL_FALSE,
                                       EGL_NONE};
  const EGLint surface_attributes[] = {EGL_WIDTH, width, EGL_HEIGHT, height, EGL_NONE};
  // the last failure is the one reported when no display gives a context
  std::string why;
  for (EGLDisplay d : displays) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(d, &major, &minor)) {
      why = egl_error("eglInitialize");
      continue;
    }
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(d, config_attributes, &config, 1, &configs) || configs < 1) {
      why = samples > 0 ? "no RGBA8 pbuffer config with " + std::to_string(samples) + " samples"
                        : "no RGBA8 pbuffer config with a 24-bit depth buffer";
      eglTerminate(d);
      continue;
    }
    EGLSurface surface = eglCreatePbufferSurface(d, config, surface_attributes);
    EGLContext context = EGL_NO_CONTEXT;
    if (surface == EGL_NO_SURFACE) {
      why = egl_error("eglCreatePbufferSurface");
    } else if (!eglBindAPI(EGL_OPENGL_API)) {
      why = egl_error("eglBindAPI(OpenGL)");
    } else if ((context = eglCreateContext(d, config, EGL_NO_CONTEXT, context_attributes)) ==
               EGL_NO_CONTEXT) {
      why = egl_error("eglCreateContext(3.3 core)");
    } else if (!eglMakeCurrent(d, surface, surface, context)) {
      why = egl_error("eglMakeCurrent");
    } else {
      display_ = d;
      surface_ = surface;
      context_ = context;
      return true;
    }
    if (context != EGL_NO_CONTEXT) eglDestroyContext(d, context);
    if (surface != EGL_NO_SURFACE) eglDestroySurface(d, surface);
    eglTerminate(d);
  }
  *error = "headless: no EGL display gave an OpenGL 3.3 core context: " + why;
  return false;
}

void HeadlessContext::swap() {
  if (display_) eglSwapBuffers(display_, surface_);
}

void HeadlessContext::destroy() {
  if (!display_) return;
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display_, context_);
  eglDestroySurface(display_, surface_);
  eglTerminate(display_);
  display_ = surface_ = context_ = nullptr;
}

}  // namespace ikwb::gui
