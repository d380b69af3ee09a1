// Frame and solve time counters and their percentiles.
#include "app/gui/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace ikwb::gui {

Percentiles summarize(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    std::size_t i = std::size_t(std::ceil(q * double(v.size())));
    return v[std::min(v.size() - 1, i > 0 ? i - 1 : 0)];
  };
  p.count = int(v.size());
  p.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  p.p90 = rank(0.90);
  p.p99 = rank(0.99);
  p.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  p.min = v.front();
  p.max = v.back();
  return p;
}

namespace {

const auto kStart = std::chrono::steady_clock::now();

// keeps memory flat in long sessions: the oldest half goes when the cap is reached
constexpr std::size_t kMaxSamples = 50000;

void push_capped(std::vector<double>& v, double x) {
  if (v.size() >= kMaxSamples) v.erase(v.begin(), v.begin() + kMaxSamples / 2);
  v.push_back(x);
}

}  // namespace

void FrameStats::add_frame_ms(double ms) {
  push_capped(frame_ms_, ms);
  ++frames_;
}
void FrameStats::add_solve_ms(double ms) {
  push_capped(solve_ms_, ms);
  ++solves_;
}

void FrameStats::reset() {
  frame_ms_.clear();
  solve_ms_.clear();
  frames_ = solves_ = 0;
}

Percentiles FrameStats::frame() const {
  Percentiles p = summarize(frame_ms_);
  p.total = frames_;
  return p;
}

Percentiles FrameStats::solve() const {
  Percentiles p = summarize(solve_ms_);
  p.total = solves_;
  return p;
}

std::vector<float> FrameStats::recent_frame_ms(int n) const {
  std::size_t k = std::min<std::size_t>(frame_ms_.size(), std::size_t(std::max(n, 0)));
  return std::vector<float>(frame_ms_.end() - std::ptrdiff_t(k), frame_ms_.end());
}

double FrameStats::fps() const {
  std::size_t k = std::min<std::size_t>(frame_ms_.size(), 60);
  if (k == 0) return 0;
  double sum = std::accumulate(frame_ms_.end() - std::ptrdiff_t(k), frame_ms_.end(), 0.0);
  return sum > 0 ? 1000.0 * double(k) / sum : 0;
}

double seconds_since_start() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - kStart).count();
}

namespace {

// a time in ms with at least three significant digits below 1 ms (a budgeted solve takes
// 0.03-0.2 ms, which two decimals would leave one digit of)
std::string ms_text(double ms) {
  const int decimals = std::abs(ms) >= 1 ? 2 : std::abs(ms) >= 0.1 ? 3 : 4;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, ms);
  return buf;
}

}  // namespace

std::string format_percentiles(const std::string& name, const Percentiles& p) {
  // a long session's oldest samples are let go: said (a run of 71,507 frames printed n 46,589)
  const std::string of =
      p.total > p.count ? " (the newest of " + std::to_string(p.total) + ")" : std::string();
  return name + ": n " + std::to_string(p.count) + of + ", median " + ms_text(p.median) + ", p90 " +
         ms_text(p.p90) + ", p99 " + ms_text(p.p99) + ", mean " + ms_text(p.mean) + " (min " +
         ms_text(p.min) + ", max " + ms_text(p.max) + ")";
}

}  // namespace ikwb::gui
