// `ikwb` dispatch: what opens the workbench (`ikwb ROBOT.urdf` as the usage says) and what is a
// subcommand or an unknown command.
#include "app/cli/commands.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/run_command.hpp"
#include "core/temp_files.hpp"

namespace ikwb {
namespace {

bool opens(std::vector<std::string> args) {
  args.insert(args.begin(), "ikwb");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return opens_workbench(int(argv.size()), argv.data());
}

TEST(Commands, ARobotFirstOpensTheWorkbench) {
  test::TempDir dir;
  const std::string urdf = dir.write("my_robot", "<robot name=\"r\"><link name=\"a\"/></robot>");
  EXPECT_TRUE(opens({}));
  EXPECT_TRUE(opens({"gui", "panda"}));
  EXPECT_TRUE(opens({"--robot", "ur5e"}));
  EXPECT_TRUE(opens({"panda"}));
  EXPECT_TRUE(opens({"robot.urdf", "--floating-base"}));
  EXPECT_TRUE(opens({"model.xml"}));
  EXPECT_TRUE(opens({"arm.urdf.xacro"}));
  EXPECT_TRUE(opens({urdf}));
  for (const char* cli : {"info", "fk", "solve", "bench", "animate", "check", "help", "-h",
                          "--help", "--version", "version", "slove", ""})
    EXPECT_FALSE(opens({cli, "panda"})) << cli;
}

TEST(Commands, AnUnknownCommandIsAnErrorWithTheUsage) {
  test::CmdResult r = test::run_command(run_cli, {"ikwb", "slove", "panda"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("ikwb: unknown command 'slove'"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("usage: ikwb [gui] [ROBOT.urdf] [options]"), std::string::npos) << r.out;
}

TEST(Commands, VersionPrintsTheProjectsVersion) {
  for (const char* flag : {"--version", "version"}) {
    test::CmdResult r = test::run_command(run_cli, {"ikwb", flag});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, std::string("ikwb ") + IKWB_TEST_VERSION + "\n");
  }
}

}  // namespace
}  // namespace ikwb
