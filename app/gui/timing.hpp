// Frame and solve time counters: the samples since the last reset (the newest 25k-50k in long
// sessions), summarised as percentiles for the UI, the state dump and `--stats`.
#pragma once

#include <string>
#include <vector>

namespace ikwb::gui {

struct Percentiles {
  int count = 0;
  long total = 0;  // samples since the last reset, of which the newest `count` are summarised
  double median = 0, p90 = 0, p99 = 0, mean = 0, min = 0, max = 0;
};

// nearest-rank percentiles of the samples (all zero when empty)
Percentiles summarize(std::vector<double> samples);

class FrameStats {
 public:
  void add_frame_ms(double ms);
  void add_solve_ms(double ms);
  void reset();

  Percentiles frame() const;
  Percentiles solve() const;
  // the most recent samples (oldest first) for the UI's plot
  std::vector<float> recent_frame_ms(int n) const;
  // frames per second over the recent frames
  double fps() const;
  double last_frame_ms() const { return frame_ms_.empty() ? 0 : frame_ms_.back(); }

 private:
  std::vector<double> frame_ms_, solve_ms_;
  long frames_ = 0, solves_ = 0;  // since the last reset
};

// seconds since the program started (steady clock)
double seconds_since_start();

// "frame_ms: n 300, median 6.10, p90 7.90, p99 9.40, mean 6.30 (min 5.20, max 11.00)"; values
// below 1 ms with three decimals, below 0.1 ms with four ("solve_ms: n 297, median 0.0377, ...");
// when older samples were let go, "n 46589 (the newest of 71507)"
std::string format_percentiles(const std::string& name, const Percentiles& p);

}  // namespace ikwb::gui
