// A stream buffer that never ends (a character device such as /dev/zero): one byte over and
// over without a line end, counting the pieces read, for tests of readers that must stop.
#pragma once

#include <streambuf>
#include <string>

namespace ikwb::test {

class EndlessBuffer : public std::streambuf {
 public:
  explicit EndlessBuffer(char c) : piece_(4096, c) {}
  long pieces() const { return pieces_; }
  static constexpr long kPieceBytes = 4096;

 protected:
  int_type underflow() override {
    ++pieces_;
    setg(piece_.data(), piece_.data(), piece_.data() + piece_.size());
    return traits_type::to_int_type(piece_[0]);
  }

 private:
  std::string piece_;
  long pieces_ = 0;
};

}  // namespace ikwb::test
