#include "engine/core/text_file.hpp"

#include <cstring>
#include <vector>

namespace ikwb {

bool read_text_stream(std::istream& in, std::string& text) {
  std::vector<char> piece(std::size_t(1) << 20);
  while (in.read(piece.data(), std::streamsize(piece.size())) || in.gcount() > 0) {
    const std::size_t n = std::size_t(in.gcount());
    text.append(piece.data(), n);
    if (std::memchr(piece.data(), '\0', n)) return true;
    if (text.size() > kMaxTextFileBytes) return false;
  }
  return !in.bad();
}

}  // namespace ikwb
