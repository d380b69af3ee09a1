// Tests for read_text_stream (engine/core/text_file.hpp): a file is read whole, and a stream
// that is not text stops at the first piece with a NUL byte, so /dev/zero given as a robot or a
// scene is refused at once by its parser (it was read until the memory ran out).
#include "engine/core/text_file.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/endless_stream.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

TEST(TextFile, AFileIsReadWhole) {
  const std::string body = std::string(3 << 20, 'x') + "\nend";
  std::istringstream in(body);
  std::string text = "kept:";
  ASSERT_TRUE(read_text_stream(in, text));
  EXPECT_EQ(text, "kept:" + body);
}

TEST(TextFile, ANulByteEndsTheReadAfterItsPiece) {
  test::EndlessBuffer zeros('\0');
  std::istream in(&zeros);
  std::string text;
  EXPECT_TRUE(read_text_stream(in, text));
  EXPECT_EQ(text.size(), std::size_t(1) << 20);
  EXPECT_LE(zeros.pieces(), (1 << 20) / test::EndlessBuffer::kPieceBytes + 1);
}

TEST(TextFile, DevZeroAsARobotIsRefusedAtItsFirstByte) {
  try {
    load_urdf_file("/dev/zero");
    FAIL() << "/dev/zero loaded as a robot";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("NUL byte at offset 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ikwb
