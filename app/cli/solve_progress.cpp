#include "app/cli/solve_progress.hpp"

#include <cmath>
#include <string>

#include "app/cli/csv.hpp"

namespace ikwb {

SolveProgress::SolveProgress(std::FILE* to, bool terminal, std::size_t total, double interval_s)
    : to_(to),
      terminal_(terminal),
      total_(total),
      interval_s_(interval_s),
      next_line_s_(interval_s) {}

void SolveProgress::update(std::size_t done, double elapsed_s) {
  const double rate = elapsed_s > 0 ? double(done) / elapsed_s : 0.0;
  if (terminal_) {
    // at most kBarInterval apart, and the last (one target a call redrew 50,000 times: 3 MB)
    if (elapsed_s < next_bar_s_ && done < total_) return;
    next_bar_s_ = elapsed_s + kBarInterval;
    const int bar = int(30.0 * double(done) / double(total_));
    std::fprintf(to_, "\r[%s%s] %zu/%zu  %.0f solves/s", std::string(bar, '#').c_str(),
                 std::string(30 - bar, ' ').c_str(), done, total_, rate);
    std::fflush(to_);
    return;
  }
  if (elapsed_s < next_line_s_ || done >= total_) return;
  next_line_s_ = interval_s_ * (std::floor(elapsed_s / interval_s_) + 1);
  // a slow solve's rate keeps two decimals (0.17 solves/s, not 0)
  std::fprintf(to_, "solving: %zu of %zu targets done (%s%%) after %.1f s, %.*f solves/s", done,
               total_, format_percent(double(done) / double(total_), 1).c_str(), elapsed_s,
               rate < 10 ? 2 : 0, rate);
  if (rate > 0) std::fprintf(to_, ", about %.0f s left", double(total_ - done) / rate);
  std::fprintf(to_, "\n");
  std::fflush(to_);
}

void SolveProgress::finish() {
  if (terminal_ && total_ > 0) std::fprintf(to_, "\n");
}

}  // namespace ikwb
