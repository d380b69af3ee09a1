// OpenGL helpers shared by the renderer: KHR_debug error counting, shader program building,
// and a guard that saves and restores the GL state the renderer touches (ImGui draws after us).
// Everything here needs a current OpenGL context (3.3 core or later) and libepoxy.
#pragma once

#include <string>
#include <vector>

#include <epoxy/gl.h>

namespace ikwb::render {

// Enables debug output (GL 4.3 or KHR_debug) with a synchronous callback that counts
// GL_DEBUG_TYPE_ERROR messages and keeps the last few messages. Returns false when the context
// offers neither; poll_gl_errors() still counts errors then. Safe to call more than once.
bool install_gl_debug_output();
// errors seen since start (or the last reset), from the callback or poll_gl_errors()
int gl_error_count();
void reset_gl_error_count();
// the most recent error and high-severity messages, oldest first (at most 32)
std::vector<std::string> gl_error_messages();
// Drains glGetError(). Flags are counted only when the debug callback reported nothing since the
// last poll (so one error is not counted twice). Returns the number of flags drained.
int poll_gl_errors(const char* where = nullptr);

// Compiles and links a program from vertex, optional geometry (null) and fragment sources.
// Returns 0 and fills `error` (naming the stage and the compiler log) on failure.
GLuint build_program(const char* name, const char* vertex, const char* geometry,
                     const char* fragment, std::string& error);

// Saves the state the renderer changes on construction and restores it on destruction:
// viewport, scissor, depth, blend, cull face, colour mask, program, VAO and array buffer.
class GlStateGuard {
 public:
  GlStateGuard();
  ~GlStateGuard();
  GlStateGuard(const GlStateGuard&) = delete;
  GlStateGuard& operator=(const GlStateGuard&) = delete;

 private:
  GLint viewport_[4], scissor_box_[4];
  GLboolean scissor_test_, depth_test_, depth_mask_, blend_, cull_face_, color_mask_[4];
  GLint depth_func_, blend_src_rgb_, blend_dst_rgb_, blend_src_alpha_, blend_dst_alpha_;
  GLint blend_eq_rgb_, blend_eq_alpha_, program_, vao_, array_buffer_;
  GLfloat clear_color_[4];
  GLdouble clear_depth_;
};

}  // namespace ikwb::render
