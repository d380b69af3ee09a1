// The fixture the GUI tests share: each test gets its own folder, runs the real `ikwb gui`
// binary there with a script (a real window under the current DISPLAY; tools/test.sh runs ctest
// under xvfb-run -a) and reads back its log and state dumps. Skipped without a display, unless
// the test runs the workbench headless (no display at all: an EGL context off screen).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace ikwb::test {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class GuiScript : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* display = std::getenv("DISPLAY");
    if (!headless_ && (!display || !*display)) GTEST_SKIP() << "no DISPLAY (run under xvfb-run -a)";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("ikwb_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
            std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) std::filesystem::remove_all(dir_);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // runs `ikwb gui --script` in the test folder; returns its exit status (the log is in log())
  int run(const std::string& script, const std::string& options = "") {
    std::ofstream(path("script.txt")) << script;
    return run_gui("--script script.txt " + options);
  }

  // runs `ikwb gui OPTIONS` in the test folder (no script unless the options name one); with
  // timeout_s, ends it after that many seconds (exit status 124, as `timeout` reports)
  int run_gui(const std::string& options, int timeout_s = 0) {
    std::string limit = timeout_s > 0 ? "timeout " + std::to_string(timeout_s) + " " : "";
    // headless: with no display to fall back on
    std::string env = headless_ ? "env -u DISPLAY " : "";
    std::string cmd = "cd \"" + dir_.string() + "\" && " + env + limit + "\"" + IKWB_BINARY_DIR +
                      "/ikwb\" gui " + options + " > log.txt 2>&1";
    int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  std::string log() const { return read_text(path("log.txt")); }

  nlohmann::json dump(const std::string& name) const {
    nlohmann::json j = nlohmann::json::parse(read_text(path(name)), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "no state dump " << name << " (or not JSON)\n" << log();
    return j;
  }

  // a script line that writes the state dump `name` into the test folder
  std::string dump_cmd(const std::string& name) const { return "dump " + path(name) + "\n"; }

  std::filesystem::path dir_;
  bool headless_ = false;  // set in the constructor of a headless test: no DISPLAY needed or used
};

}  // namespace ikwb::test
