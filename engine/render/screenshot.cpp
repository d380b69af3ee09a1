// Framebuffer read-back and PNG writing (stb_image_write from libstb).
#include "engine/render/screenshot.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>

#include <epoxy/gl.h>
#include <stb_image_write.h>

#include "engine/core/output_target.hpp"

namespace ikwb::render {

std::vector<uint8_t> read_pixels_rgba(int width, int height, int x, int y) {
  if (width <= 0 || height <= 0) return {};
  std::vector<uint8_t> rows(std::size_t(width) * std::size_t(height) * 4);
  GLint pack_alignment = 4, pack_buffer = 0;
  glGetIntegerv(GL_PACK_ALIGNMENT, &pack_alignment);
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x, y, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
  glPixelStorei(GL_PACK_ALIGNMENT, pack_alignment);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(pack_buffer));
  // GL rows run bottom to top; images top to bottom
  std::size_t stride = std::size_t(width) * 4;
  std::vector<uint8_t> tmp(stride);
  for (int r = 0; r < height / 2; ++r) {
    uint8_t* a = rows.data() + std::size_t(r) * stride;
    uint8_t* b = rows.data() + std::size_t(height - 1 - r) * stride;
    std::memcpy(tmp.data(), a, stride);
    std::memcpy(a, b, stride);
    std::memcpy(b, tmp.data(), stride);
  }
  return rows;
}

bool save_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
              std::string* error) {
  auto fail = [&](const std::string& what) {
    if (error) *error = "cannot write PNG '" + path + "': " + what;
    return false;
  };
  if (width <= 0 || height <= 0) return fail("empty image");
  if (rgba.size() != std::size_t(width) * std::size_t(height) * 4)
    return fail("pixel buffer size does not match " + std::to_string(width) + "x" +
                std::to_string(height) + " RGBA");
  if (path.empty()) return fail("the path is empty");
  const OutputTarget out = output_target(path);
  if (out.in_place) {
    if (!stbi_write_png(out.path.c_str(), width, height, 4, rgba.data(), width * 4))
      return fail("write failed");
    return true;
  }
  if (const std::string refusal = replace_refusal(out.path); !refusal.empty()) return fail(refusal);
  std::string tmp = out.path + ".tmp";
  if (!stbi_write_png(tmp.c_str(), width, height, 4, rgba.data(), width * 4)) {
    std::remove(tmp.c_str());
    return fail("write failed (folder missing or not writable?)");
  }
  ::chmod(tmp.c_str(), mode_t(replacement_mode(out.path)));
  if (std::rename(tmp.c_str(), out.path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return fail("rename failed");
  }
  return true;
}

}  // namespace ikwb::render
