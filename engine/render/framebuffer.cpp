// Off-screen framebuffer with optional MSAA and a single-sample resolve target for reading.
#include "engine/render/framebuffer.hpp"

#include <algorithm>

#include <epoxy/gl.h>

#include "engine/render/screenshot.hpp"

namespace ikwb::render {

namespace {

// colour and depth renderbuffers attached to a new framebuffer; 0 when incomplete
GLuint make_fbo(int w, int h, int samples, GLuint& color, GLuint* depth) {
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glGenRenderbuffers(1, &color);
  glBindRenderbuffer(GL_RENDERBUFFER, color);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, w, h);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  if (depth) {
    glGenRenderbuffers(1, depth);
    glBindRenderbuffer(GL_RENDERBUFFER, *depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH24_STENCIL8, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, *depth);
  }
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
  bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  return complete ? fbo : 0;
}

}  // namespace

bool OffscreenTarget::create(int width, int height, int samples, std::string* error) {
  destroy();
  if (width <= 0 || height <= 0) {
    if (error) *error = "off-screen target: size must be positive";
    return false;
  }
  GLint max_samples = 0, prev_draw = 0, prev_read = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev_draw);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev_read);
  samples_ = samples > 1 ? std::min(samples, int(max_samples)) : 0;
  width_ = width;
  height_ = height;
  GLuint color = 0, depth = 0;
  fbo_ = make_fbo(width, height, samples_, color, &depth);
  color_ = color;
  depth_ = depth;
  bool ok = fbo_ != 0;
  if (ok && samples_ > 0) {
    GLuint rc = 0;
    resolve_fbo_ = make_fbo(width, height, 0, rc, nullptr);
    resolve_color_ = rc;
    ok = resolve_fbo_ != 0;
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(prev_draw));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(prev_read));
  if (!ok) {
    destroy();
    if (error) *error = "off-screen target: framebuffer incomplete";
    return false;
  }
  return true;
}

void OffscreenTarget::destroy() {
  GLuint fbos[2] = {fbo_, resolve_fbo_};
  GLuint rbos[3] = {color_, depth_, resolve_color_};
  for (GLuint f : fbos)
    if (f) glDeleteFramebuffers(1, &f);
  for (GLuint r : rbos)
    if (r) glDeleteRenderbuffers(1, &r);
  fbo_ = color_ = depth_ = resolve_fbo_ = resolve_color_ = 0;
}

void OffscreenTarget::bind() {
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev_draw_);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev_read_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
}

void OffscreenTarget::unbind() {
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(prev_draw_));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(prev_read_));
}

std::vector<uint8_t> OffscreenTarget::read_rgba() {
  if (!fbo_) return {};
  GLint draw = 0, read = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read);
  GLuint source = fbo_;
  GLboolean scissor = glIsEnabled(GL_SCISSOR_TEST);
  if (resolve_fbo_) {
    // the blit is clipped by the scissor box: read the whole target
    glDisable(GL_SCISSOR_TEST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_fbo_);
    glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
    source = resolve_fbo_;
    if (scissor) glEnable(GL_SCISSOR_TEST);
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, source);
  std::vector<uint8_t> rgba = read_pixels_rgba(width_, height_);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(draw));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(read));
  return rgba;
}

}  // namespace ikwb::render
