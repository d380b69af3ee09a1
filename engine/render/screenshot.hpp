// Screenshots: read the bound framebuffer into RGBA8 rows (top row first) and write PNG files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ikwb::render {

// width x height RGBA8 pixels of the current read framebuffer starting at (x, y) (GL lower-left
// origin), returned top row first (image order). Needs a current GL context; read before
// swapping buffers when reading the default framebuffer.
std::vector<uint8_t> read_pixels_rgba(int width, int height, int x = 0, int y = 0);

// writes rgba (width x height x 4, top row first) as a PNG, atomically (temporary file, then
// rename). Returns false and fills *error on failure.
bool save_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba,
              std::string* error = nullptr);

}  // namespace ikwb::render
