// The interactive workbench (`ikwb`, `ikwb gui [ROBOT.urdf] [options]`): a GLFW window with the
// 3D view and ImGui panels, a live IK solve every frame, and script automation for tests.
#pragma once

namespace ikwb {

// Parses the command line (argv[1] may be "gui"), opens the window and runs the frame loop until
// the window closes, the script ends or --frames is reached. Returns the process exit status:
// 0, 1 (a window / GL failure, a failed script, or a robot or scene named on the command line
// that did not load in a run with --script or --frames) or 2 (bad command line or script
// syntax).
int run_workbench(int argc, char** argv);

}  // namespace ikwb
