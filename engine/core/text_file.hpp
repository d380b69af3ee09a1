// Reading a description file whole (URDF, MJCF, SRDF, scene, script) without reading what is
// not one: /dev/zero or gigabytes of a binary file were read to the end (8 GB resident in 10 s)
// before the parser could name the first NUL byte.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace ikwb {

// the largest description file read (a URDF chain of 400,000 joints is about 150 MB)
constexpr std::size_t kMaxTextFileBytes = std::size_t(1) << 30;

// Appends what `in` holds to `text`, in pieces of 1 MiB. The read stops after the piece in which
// a NUL byte appears (text files hold none: the caller's parser names it where it is) and after
// kMaxTextFileBytes; false for the second, and for a read error. A file that ends is read whole.
bool read_text_stream(std::istream& in, std::string& text);

}  // namespace ikwb
