// The `ikwb` command line front end: one function per subcommand, dispatched by run_cli.
#pragma once

namespace ikwb {

// dispatches argv[1]; returns the process exit code
int run_cli(int argc, char** argv);

// subcommands; argv[0] is the subcommand name
int cmd_info(int argc, char** argv);
int cmd_fk(int argc, char** argv);
int cmd_solve(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_animate(int argc, char** argv);
int cmd_check(int argc, char** argv);

}  // namespace ikwb
