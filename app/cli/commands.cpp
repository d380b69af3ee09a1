#include "app/cli/commands.hpp"

#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <string>

#include "app/cli/csv.hpp"
#include "engine/core/robot_path.hpp"

namespace ikwb {

namespace {

struct Subcommand {
  const char* name;
  int (*run)(int, char**);
};

constexpr Subcommand kSubcommands[] = {{"info", cmd_info},       {"fk", cmd_fk},
                                       {"solve", cmd_solve},     {"bench", cmd_bench},
                                       {"animate", cmd_animate}, {"check", cmd_check}};

void print_usage() {
  std::printf(
      "usage: ikwb [gui] [ROBOT.urdf] [options]    open the workbench (default)\n"
      "       ikwb info ROBOT.urdf [--json]         print the kinematic tree\n"
      "       ikwb fk ROBOT.urdf --q Q.csv --out POSES.csv [--com COM.csv]\n"
      "       ikwb solve ROBOT.urdf --link NAME --targets T.csv --out OUT.csv [options]\n"
      "       ikwb solve --scene SCENE.json [--targets T.csv] --out OUT.csv [options]\n"
      "       ikwb bench ROBOT.urdf --link NAME [options]\n"
      "       ikwb animate SCENE.json --out TRAJ.csv [--rate HZ] [--fixed-step] [options]\n"
      "       ikwb check ROBOT.urdf --q Q.csv [--scene S.json] [--srdf FILE]\n"
      "       ikwb check ROBOT.urdf --sample-pairs N [--out FILE.srdf]\n"
      "       ikwb --version\n"
      "Run a subcommand with --help for its options.\n");
}

bool ends_with(const std::string& s, const char* end) {
  const std::size_t n = std::strlen(end);
  return s.size() >= n && s.compare(s.size() - n, n, end) == 0;
}

}  // namespace

bool opens_workbench(int argc, char** argv) {
  if (argc < 2) return true;
  const std::string first = argv[1];
  if (first == "gui") return true;
  if (first.empty()) return false;
  if (first[0] == '-') return first != "-h" && first != "--help" && first != "--version";
  if (first == "help" || first == "version") return false;
  for (const Subcommand& s : kSubcommands)
    if (first == s.name) return false;
  std::error_code ec;
  return ends_with(first, ".urdf") || ends_with(first, ".xml") || ends_with(first, ".xacro") ||
         std::filesystem::is_regular_file(resolve_robot(first), ec);
}

int run_cli(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "--help")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  if (cmd == "--version" || cmd == "version") {
    std::printf("ikwb %s\n", IKWB_VERSION);
    return 0;
  }
  remove_temporary_outputs_on_interrupt();
  for (const Subcommand& s : kSubcommands) {
    if (cmd != s.name) continue;
    try {
      return s.run(argc - 1, argv + 1);
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "ikwb %s: out of memory\n", cmd.c_str());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ikwb %s: %s\n", cmd.c_str(), e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "ikwb: unknown command '%s'\n", cmd.c_str());
  print_usage();
  return 2;
}

int report_out_of_memory(const char* command, const std::string& what) {
  std::fprintf(stderr, "%s: out of memory allocating %s\n", command, what.c_str());
  return 1;
}

}  // namespace ikwb
