// SolveProgress: the bar on a terminal, and elsewhere a plain line once an interval has passed,
// driven here with made-up elapsed times.
#include "app/cli/solve_progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ikwb {
namespace {

// what `to` has been given so far
std::string written(std::FILE* to) {
  std::fflush(to);
  std::rewind(to);
  std::string text;
  for (int c; (c = std::fgetc(to)) != EOF;) text += char(c);
  return text;
}

// away from a terminal (a log file, a pipe): one line each time another interval has passed, none
// in between, none once every target is done (the summary follows), and no carriage returns
TEST(SolveProgress, ALogGetsALineEachInterval) {
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  SolveProgress progress(log, false, 1000, 10);
  progress.update(100, 4);
  EXPECT_EQ(written(log), "");
  progress.update(300, 10.5);
  progress.update(400, 15);
  EXPECT_EQ(written(log),
            "solving: 300 of 1000 targets done (30.0%) after 10.5 s, 29 solves/s, about 24 s "
            "left\n");
  progress.update(900, 31);  // a solver call that took longer than an interval: one line
  progress.update(950, 39);
  progress.update(1000, 45);
  progress.finish();
  EXPECT_EQ(written(log),
            "solving: 300 of 1000 targets done (30.0%) after 10.5 s, 29 solves/s, about 24 s "
            "left\n"
            "solving: 900 of 1000 targets done (90.0%) after 31.0 s, 29 solves/s, about 3 s "
            "left\n");
  std::fclose(log);

  // slow solves (a huge robot, a long budget): the rate keeps two decimals
  std::FILE* slow = std::tmpfile();
  ASSERT_NE(slow, nullptr);
  SolveProgress slow_progress(slow, false, 4, 10);
  slow_progress.update(2, 12);
  EXPECT_EQ(written(slow),
            "solving: 2 of 4 targets done (50.0%) after 12.0 s, 0.17 solves/s, about 12 s left\n");
  std::fclose(slow);
}

// on a terminal: the bar, redrawn in place after a call at most every kBarInterval (calls of
// one target each redrew it 50,000 times) and after the last, and a line end at the finish
TEST(SolveProgress, ATerminalGetsTheBar) {
  std::FILE* tty = std::tmpfile();
  ASSERT_NE(tty, nullptr);
  SolveProgress progress(tty, true, 1000, 10);
  progress.update(500, 1);
  progress.update(501, 1 + kBarInterval / 2);
  progress.update(1000, 2);
  progress.finish();
  EXPECT_EQ(written(tty),
            "\r[###############               ] 500/1000  500 solves/s"
            "\r[##############################] 1000/1000  500 solves/s\n");
  std::fclose(tty);
}

}  // namespace
}  // namespace ikwb
