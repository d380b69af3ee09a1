// Tests for engine/render/screenshot: PNG writing (no GL needed).
#include "engine/render/screenshot.hpp"

#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include <algorithm>

namespace ikwb::render {
namespace {

TEST(Screenshot, PngRoundTrip) {
  std::vector<uint8_t> rgba(8 * 4 * 4);
  for (std::size_t i = 0; i < rgba.size(); ++i) rgba[i] = uint8_t(i * 7);
  std::string path = ::testing::TempDir() + "ikwb_render_roundtrip.png";
  ASSERT_TRUE(save_png(path, 8, 4, rgba));
  int w = 0, h = 0, n = 0;
  unsigned char* back = stbi_load(path.c_str(), &w, &h, &n, 4);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(w, 8);
  EXPECT_EQ(h, 4);
  EXPECT_TRUE(std::equal(rgba.begin(), rgba.end(), back));
  stbi_image_free(back);
  std::string error;
  EXPECT_FALSE(save_png("/nonexistent-folder/x.png", 8, 4, rgba, &error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace ikwb::render
