#include "app/cli/commands.hpp"

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace ikwb {

namespace {
void print_usage() {
  std::printf(
      "usage: ikwb [gui] [ROBOT.urdf] [options]    open the workbench (default)\n"
      "       ikwb info ROBOT.urdf [--json]         print the kinematic tree\n"
      "       ikwb fk ROBOT.urdf --q Q.csv --out POSES.csv\n"
      "       ikwb solve ROBOT.urdf --link NAME --targets T.csv --out OUT.csv [options]\n"
      "       ikwb bench ROBOT.urdf --link NAME [options]\n"
      "       ikwb animate SCENE.json --out TRAJ.csv [--rate HZ]\n"
      "       ikwb check ROBOT.urdf --q Q.csv [--scene S.json] [--srdf FILE]\n"
      "Run a subcommand with --help for its options.\n");
}
}  // namespace

int run_cli(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "--help")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  try {
    if (cmd == "info") return cmd_info(argc - 1, argv + 1);
    if (cmd == "fk") return cmd_fk(argc - 1, argv + 1);
    if (cmd == "solve") return cmd_solve(argc - 1, argv + 1);
    if (cmd == "bench") return cmd_bench(argc - 1, argv + 1);
    if (cmd == "animate") return cmd_animate(argc - 1, argv + 1);
    if (cmd == "check") return cmd_check(argc - 1, argv + 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ikwb %s: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "ikwb: unknown command '%s'\n", cmd.c_str());
  print_usage();
  return 2;
}

}  // namespace ikwb
