// Tests for app/cli/solver_args: one option per entry of the settings table, every one parsed
// into its member, today's spellings and their meanings kept, bad values named by flag, and
// --help listing each with its help text.
#include "app/cli/solver_args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "solver/settings_values.hpp"

namespace ikwb {
namespace {

SolverSettings read(std::vector<std::string> args, const SolverSettings& defaults = {}) {
  ArgParser p("ikwb test", "Test command.");
  add_solver_options(p);
  args.insert(args.begin(), "test");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  p.parse(int(argv.size()), argv.data());
  return read_solver_options(p, defaults);
}

// the message of the CliError read() throws
std::string error_of(std::vector<std::string> args) {
  try {
    read(std::move(args));
  } catch (const CliError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SolverArgs, EveryFlagSetsItsSetting) {
  for (const SettingInfo& info : solver_settings_table()) {
    SCOPED_TRACE(info.flag);
    const SolverSettings defaults;
    std::vector<std::string> args = {"--" + std::string(info.flag)};
    if (info.kind() != SettingKind::kBool) args.push_back(test::other_text(info, defaults));
    SolverSettings expected = defaults;
    ASSERT_TRUE(set_setting_json(info, test::other_value(info, defaults), expected, nullptr));
    if (expected.n_seeds > 1) expected.sampler = Sampler::kRoberts;  // seeds without a sampler
    EXPECT_EQ(read(args), expected);
  }
}

TEST(SolverArgs, TodaysSpellingsKeepTheirMeaning) {
  SolverSettings s = read({"--seeds",      "8",
                           "--iterations", "60",
                           "--polish",     "2",
                           "--tol-pos",    "1e-5",
                           "--tol-rot",    "2e-3",
                           "--budget-ms",  "5",
                           "--rng-seed",   "7",
                           "--restarts",   "50",
                           "--stall",      "10",
                           "--threads",    "1",
                           "--float",      "--soft-limits",
                           "--backend",    "cpu",
                           "--optimizer",  "lbfgs",
                           "--jacobian",   "fd"});
  EXPECT_EQ(s.n_seeds, 8);
  EXPECT_EQ(s.sampler, Sampler::kRoberts);  // more than one seed, no --sampler
  EXPECT_EQ(s.max_iterations, 60);
  EXPECT_EQ(s.polish_iterations, 2);
  EXPECT_DOUBLE_EQ(s.tol_position, 1e-5);
  EXPECT_DOUBLE_EQ(s.tol_rotation, 2e-3);
  EXPECT_DOUBLE_EQ(s.time_budget_s, 0.005);
  EXPECT_EQ(s.rng_seed, 7u);
  EXPECT_EQ(s.max_restarts, 50);
  EXPECT_EQ(s.stall_window, 10);
  EXPECT_EQ(s.threads, 1);
  EXPECT_TRUE(s.use_float);
  EXPECT_FALSE(s.hard_joint_limits);
  EXPECT_EQ(s.optimizer, Optimizer::kLbfgs);
  EXPECT_EQ(s.jacobian, JacobianMode::kFiniteDifference);
  EXPECT_EQ(read({"--seeds", "8", "--sampler", "none"}).sampler, Sampler::kNone);
  // the command's defaults stay where no option is given
  SolverSettings defaults;
  defaults.max_restarts = 50;
  EXPECT_EQ(read({"--polish", "0"}, defaults).max_restarts, 50);
}

TEST(SolverArgs, BadValuesNameTheFlag) {
  EXPECT_EQ(error_of({"--iterations", "0"}),
            "option '--iterations': '0' is not an integer from 1 to 100000");
  EXPECT_EQ(error_of({"--seeds", "many"}),
            "option '--seeds': 'many' is not an integer from 1 to 4096");
  EXPECT_EQ(error_of({"--backend", "gpu"}), "option '--backend': 'gpu' is not one of cpu, cuda");
  EXPECT_EQ(error_of({"--tol-pos", "-1"}),
            "option '--tol-pos': '-1' is not a number from 1e-12 to 1");
  EXPECT_EQ(error_of({"--budget-ms", "x"}),
            "option '--budget-ms': 'x' is not a number from 0 to 1e+07");
}

TEST(SolverArgs, HelpListsEveryOption) {
  ArgParser p("ikwb test", "Test command.");
  add_solver_options(p);
  const std::string usage = p.usage();
  for (const SettingInfo& info : solver_settings_table()) {
    std::string synopsis = "--" + std::string(info.flag);
    if (info.kind() != SettingKind::kBool) synopsis += " " + std::string(info.value_name);
    EXPECT_NE(usage.find(synopsis), std::string::npos) << synopsis;
    EXPECT_NE(usage.find(info.flag_help()), std::string::npos) << info.flag;
  }
  EXPECT_NE(usage.find("--soft-limits           do not project onto the joint limits"),
            std::string::npos);
}

}  // namespace
}  // namespace ikwb
