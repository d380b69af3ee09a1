// Runs an `ikwb` subcommand in-process with stdout and stderr captured (shared by the CLI tests).
#pragma once

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace ikwb::test {

struct CmdResult {
  int code = 0;
  std::string out, err;
};

// args[0] is the subcommand name
inline CmdResult run_command(int (*cmd)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  CmdResult r;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  r.code = cmd(int(args.size()), argv.data());
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

// a CSV field as a number (NaN when it is not one)
inline double number(const std::string& s) {
  double v = NAN;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace ikwb::test
