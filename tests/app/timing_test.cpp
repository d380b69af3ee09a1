// Tests for app/gui/timing: percentiles and the frame counters.
#include "app/gui/timing.hpp"

#include <gtest/gtest.h>

namespace ikwb::gui {
namespace {

TEST(Timing, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  Percentiles p = summarize(v);
  EXPECT_EQ(p.count, 100);
  EXPECT_DOUBLE_EQ(p.median, 50.5);
  EXPECT_DOUBLE_EQ(p.p90, 90);
  EXPECT_DOUBLE_EQ(p.p99, 99);
  EXPECT_DOUBLE_EQ(p.mean, 50.5);
  EXPECT_DOUBLE_EQ(p.min, 1);
  EXPECT_DOUBLE_EQ(p.max, 100);
  EXPECT_EQ(summarize({}).count, 0);
  EXPECT_DOUBLE_EQ(summarize({3.0}).p99, 3.0);
}

TEST(Timing, FrameStatsRecentAndReset) {
  FrameStats s;
  for (int i = 0; i < 200; ++i) s.add_frame_ms(10.0);
  s.add_solve_ms(1.5);
  EXPECT_NEAR(s.fps(), 100.0, 1e-9);
  EXPECT_EQ(s.recent_frame_ms(50).size(), 50u);
  EXPECT_DOUBLE_EQ(s.solve().max, 1.5);
  EXPECT_EQ(s.frame().count, 200);
  EXPECT_EQ(s.frame().total, 200);
  // beyond the cap the oldest half goes, and the summary says which samples it holds
  for (int i = 0; i < 60000; ++i) s.add_frame_ms(10.0);
  EXPECT_EQ(s.frame().total, 60200);
  EXPECT_LT(s.frame().count, 60200);
  EXPECT_NE(format_percentiles("frame_ms", s.frame())
                .find("frame_ms: n " + std::to_string(s.frame().count) +
                      " (the newest of 60200), median"),
            std::string::npos);
  s.reset();
  EXPECT_EQ(s.frame().total, 0);
  EXPECT_EQ(s.frame().count, 0);
  EXPECT_EQ(s.solve().count, 0);
  EXPECT_NE(format_percentiles("frame_ms", summarize({1, 2, 3})).find("frame_ms: n 3, median 2.00"),
            std::string::npos);
  // a budgeted solve's sub-millisecond times keep three significant digits
  EXPECT_NE(format_percentiles("solve_ms", summarize({0.0377, 0.0412, 0.215}))
                .find("solve_ms: n 3, median 0.0412, p90 0.215"),
            std::string::npos);
}

TEST(Timing, LongSessionsKeepMemoryFlat) {
  FrameStats s;
  for (int i = 0; i < 200000; ++i) s.add_frame_ms(1.0);
  EXPECT_LE(s.frame().count, 50000);
  EXPECT_GE(s.frame().count, 25000);
}

}  // namespace
}  // namespace ikwb::gui
