// Progress of `ikwb solve` on standard error: on a terminal a bar redrawn in place after a
// solver call, at most ten times a second; elsewhere (a file, a pipe, a CI log, nohup) a plain line
// now and then, so a long job shows it is alive without filling its log.
#pragma once

#include <cstddef>
#include <cstdio>

namespace ikwb {

// seconds between two of the plain lines, and at least between two of the bar's redraws
inline constexpr double kProgressLineInterval = 10;
inline constexpr double kBarInterval = 0.1;

class SolveProgress {
 public:
  // total: the targets to solve; terminal: draw the bar (else the plain lines, one each time
  // another interval_s seconds have passed)
  SolveProgress(std::FILE* to, bool terminal, std::size_t total,
                double interval_s = kProgressLineInterval);
  // after `done` of the targets, elapsed_s seconds into the solve. A terminal gets (unless drawn
  // less than kBarInterval before, and targets are left)
  //   "\r[#########                     ] 60000/200000  6000 solves/s"
  // and otherwise, when another interval has passed and targets are left, one line
  //   "solving: 60000 of 200000 targets done (30.0%) after 10.0 s, 6000 solves/s, about 23 s left"
  void update(std::size_t done, double elapsed_s);
  // ends the bar's line (the summary then starts on its own)
  void finish();

 private:
  std::FILE* to_;
  bool terminal_;
  std::size_t total_;
  double interval_s_;
  double next_line_s_;     // when the next plain line is due
  double next_bar_s_ = 0;  // when the bar may be drawn again
};

}  // namespace ikwb
