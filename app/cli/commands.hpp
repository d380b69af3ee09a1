// The `ikwb` command line front end: one function per subcommand, dispatched by run_cli.
#pragma once

#include <string>

namespace ikwb {

// whether argv goes to the workbench: no arguments, `gui`, an option first (not --help), or a
// first argument that is not a subcommand but names a robot (an existing file, a shipped
// robot's name, or a path ending in .urdf, .xml or .xacro)
bool opens_workbench(int argc, char** argv);

// dispatches argv[1]; returns the process exit code
int run_cli(int argc, char** argv);

// subcommands; argv[0] is the subcommand name
int cmd_info(int argc, char** argv);
int cmd_fk(int argc, char** argv);
int cmd_solve(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_animate(int argc, char** argv);
int cmd_check(int argc, char** argv);

// "COMMAND: out of memory allocating WHAT" on standard error; returns the exit status (1)
int report_out_of_memory(const char* command, const std::string& what);

}  // namespace ikwb
