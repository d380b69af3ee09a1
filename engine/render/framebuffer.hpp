// Off-screen render target (colour + depth renderbuffers, optionally multisampled) for
// screenshots of a fixed size and for tests that must not depend on a visible window.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ikwb::render {

class OffscreenTarget {
 public:
  OffscreenTarget() = default;
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;
  // the destructor makes no GL calls: call destroy() while the context is current

  // (re)creates a width x height target with `samples` MSAA samples (<= 1: none; clamped to
  // GL_MAX_SAMPLES). Returns false and fills *error on failure.
  bool create(int width, int height, int samples = 4, std::string* error = nullptr);
  void destroy();
  // binds the target for drawing and reading (remembers the previous bindings)
  void bind();
  // restores the framebuffer bindings saved by bind()
  void unbind();
  // resolves multisampling and returns RGBA8 pixels, top row first; keeps bindings as they were
  std::vector<uint8_t> read_rgba();

  int width() const { return width_; }
  int height() const { return height_; }
  int samples() const { return samples_; }
  bool valid() const { return fbo_ != 0; }

 private:
  unsigned fbo_ = 0, color_ = 0, depth_ = 0;
  unsigned resolve_fbo_ = 0, resolve_color_ = 0;
  int width_ = 0, height_ = 0, samples_ = 0;
  int prev_draw_ = 0, prev_read_ = 0;
};

}  // namespace ikwb::render
