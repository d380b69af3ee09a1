// ikwb: the IK Workbench. With no arguments, `gui` or a robot (`ikwb ROBOT.urdf`) it opens the
// workbench; the other subcommands are the command line front end (see `ikwb help`).
#include <cstdio>

#include "app/cli/commands.hpp"

#if defined(IKWB_WITH_GUI)
#include "app/gui/workbench.hpp"
#endif
#if defined(IKWB_HAVE_CUDA)
#include "kernels/cuda_backend.hpp"
#endif

int main(int argc, char** argv) {
#if defined(IKWB_HAVE_CUDA)
  ikwb::register_cuda_backend();
#endif
  if (ikwb::opens_workbench(argc, argv)) {
#if defined(IKWB_WITH_GUI)
    return ikwb::run_workbench(argc, argv);
#else
    std::fprintf(stderr, "ikwb: this build has no workbench (configured without the app)\n");
    return 2;
#endif
  }
  return ikwb::run_cli(argc, argv);
}
