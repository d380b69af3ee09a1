// GL debug output, error counting, program building and state save / restore.
#include "engine/render/gl_util.hpp"

#include <atomic>
#include <cstdio>
#include <deque>
#include <mutex>

namespace ikwb::render {

namespace {

std::atomic<int> g_error_count{0};
std::atomic<int> g_callback_errors{0};  // errors reported by the callback, never reset
int g_callback_errors_at_poll = 0;
bool g_debug_installed = false;
std::mutex g_messages_mutex;
std::deque<std::string> g_messages;

void remember(std::string message) {
  std::lock_guard<std::mutex> lock(g_messages_mutex);
  g_messages.push_back(std::move(message));
  while (g_messages.size() > 32) g_messages.pop_front();
}

const char* error_name(GLenum e) {
  switch (e) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    default:
      return "GL error";
  }
}

void GLAPIENTRY debug_callback(GLenum source, GLenum type, GLuint id, GLenum severity,
                               GLsizei length, const GLchar* message, const void* /*user*/) {
  // compile failures arrive as errors too (Mesa); build_program reports those itself
  if (source == GL_DEBUG_SOURCE_SHADER_COMPILER) return;
  bool error = type == GL_DEBUG_TYPE_ERROR;
  if (!error && severity != GL_DEBUG_SEVERITY_HIGH) return;
  std::string text =
      std::string(error ? "GL error " : "GL warning ") + std::to_string(id) + ": " +
      (length >= 0 ? std::string(message, std::size_t(length)) : std::string(message));
  if (error) {
    ++g_error_count;
    ++g_callback_errors;
    std::fprintf(stderr, "ikwb render: %s\n", text.c_str());
  }
  remember(std::move(text));
}

GLuint compile_stage(GLenum stage, const char* source, const char* program_name,
                     const char* stage_name, std::string& error) {
  GLuint s = glCreateShader(stage);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetShaderiv(s, GL_INFO_LOG_LENGTH, &len);
    std::string log(std::size_t(len > 0 ? len : 1), '\0');
    glGetShaderInfoLog(s, len, nullptr, log.data());
    error = std::string("shader '") + program_name + "' (" + stage_name +
            ") failed to compile: " + log.c_str();
    glDeleteShader(s);
    return 0;
  }
  return s;
}

}  // namespace

bool install_gl_debug_output() {
  if (g_debug_installed) return true;
  if (epoxy_gl_version() < 43 && !epoxy_has_gl_extension("GL_KHR_debug")) return false;
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(debug_callback, nullptr);
  glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
  g_debug_installed = true;
  return true;
}

int gl_error_count() {
  return g_error_count.load();
}

void reset_gl_error_count() {
  g_error_count = 0;
  std::lock_guard<std::mutex> lock(g_messages_mutex);
  g_messages.clear();
}

std::vector<std::string> gl_error_messages() {
  std::lock_guard<std::mutex> lock(g_messages_mutex);
  return std::vector<std::string>(g_messages.begin(), g_messages.end());
}

int poll_gl_errors(const char* where) {
  int drained = 0;
  for (GLenum e = glGetError(); e != GL_NO_ERROR && drained < 16; e = glGetError()) {
    ++drained;
    int reported = g_callback_errors.load();
    if (reported == g_callback_errors_at_poll) {
      ++g_error_count;
      std::string text = std::string(error_name(e)) + (where ? std::string(" in ") + where : "");
      std::fprintf(stderr, "ikwb render: %s\n", text.c_str());
      remember(std::move(text));
    }
  }
  g_callback_errors_at_poll = g_callback_errors.load();
  return drained;
}

GLuint build_program(const char* name, const char* vertex, const char* geometry,
                     const char* fragment, std::string& error) {
  GLuint vs = compile_stage(GL_VERTEX_SHADER, vertex, name, "vertex", error);
  if (!vs) return 0;
  GLuint gs = 0;
  if (geometry) {
    gs = compile_stage(GL_GEOMETRY_SHADER, geometry, name, "geometry", error);
    if (!gs) {
      glDeleteShader(vs);
      return 0;
    }
  }
  GLuint fs = compile_stage(GL_FRAGMENT_SHADER, fragment, name, "fragment", error);
  if (!fs) {
    glDeleteShader(vs);
    if (gs) glDeleteShader(gs);
    return 0;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  if (gs) glAttachShader(p, gs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs);
  if (gs) glDeleteShader(gs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetProgramiv(p, GL_INFO_LOG_LENGTH, &len);
    std::string log(std::size_t(len > 0 ? len : 1), '\0');
    glGetProgramInfoLog(p, len, nullptr, log.data());
    error = std::string("shader '") + name + "' failed to link: " + log.c_str();
    glDeleteProgram(p);
    return 0;
  }
  return p;
}

GlStateGuard::GlStateGuard() {
  glGetIntegerv(GL_VIEWPORT, viewport_);
  glGetIntegerv(GL_SCISSOR_BOX, scissor_box_);
  scissor_test_ = glIsEnabled(GL_SCISSOR_TEST);
  depth_test_ = glIsEnabled(GL_DEPTH_TEST);
  glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask_);
  glGetIntegerv(GL_DEPTH_FUNC, &depth_func_);
  blend_ = glIsEnabled(GL_BLEND);
  glGetIntegerv(GL_BLEND_SRC_RGB, &blend_src_rgb_);
  glGetIntegerv(GL_BLEND_DST_RGB, &blend_dst_rgb_);
  glGetIntegerv(GL_BLEND_SRC_ALPHA, &blend_src_alpha_);
  glGetIntegerv(GL_BLEND_DST_ALPHA, &blend_dst_alpha_);
  glGetIntegerv(GL_BLEND_EQUATION_RGB, &blend_eq_rgb_);
  glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &blend_eq_alpha_);
  cull_face_ = glIsEnabled(GL_CULL_FACE);
  glGetBooleanv(GL_COLOR_WRITEMASK, color_mask_);
  glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao_);
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &array_buffer_);
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear_color_);
  glGetDoublev(GL_DEPTH_CLEAR_VALUE, &clear_depth_);
}

GlStateGuard::~GlStateGuard() {
  auto set = [](GLenum cap, GLboolean on) { on ? glEnable(cap) : glDisable(cap); };
  glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  glScissor(scissor_box_[0], scissor_box_[1], scissor_box_[2], scissor_box_[3]);
  set(GL_SCISSOR_TEST, scissor_test_);
  set(GL_DEPTH_TEST, depth_test_);
  glDepthMask(depth_mask_);
  glDepthFunc(GLenum(depth_func_));
  set(GL_BLEND, blend_);
  glBlendFuncSeparate(GLenum(blend_src_rgb_), GLenum(blend_dst_rgb_), GLenum(blend_src_alpha_),
                      GLenum(blend_dst_alpha_));
  glBlendEquationSeparate(GLenum(blend_eq_rgb_), GLenum(blend_eq_alpha_));
  set(GL_CULL_FACE, cull_face_);
  glColorMask(color_mask_[0], color_mask_[1], color_mask_[2], color_mask_[3]);
  glUseProgram(GLuint(program_));
  glBindVertexArray(GLuint(vao_));
  glBindBuffer(GL_ARRAY_BUFFER, GLuint(array_buffer_));
  glClearColor(clear_color_[0], clear_color_[1], clear_color_[2], clear_color_[3]);
  glClearDepth(clear_depth_);
}

}  // namespace ikwb::render
