// Where a program's output file goes. Outputs are written to a temporary file beside the target
// and renamed over it, so a failed write leaves the old file intact; that is right for a regular
// file and wrong for anything else a user may name: `--out /dev/null` run as root would replace
// the device with a regular file, a named pipe would never see the data, and a symbolic link
// would be replaced by a file instead of its target being written.
#pragma once

#include <string>
#include <vector>

namespace ikwb {

struct OutputTarget {
  std::string path;       // what to write or rename over
  bool in_place = false;  // write to `path` directly (no temporary file, no rename)
};

// For `path`: a device, pipe or socket (an existing file that is not a regular file or a
// folder) is written in place; a symbolic link to an existing file stands for that file (so the
// link stays a link), one to nothing yet is written through (which creates its target); anything
// else (a regular file, a new name, a folder, which then fails to be replaced) as given.
OutputTarget output_target(const std::string& path);

// For a target written through a temporary file renamed over it: "" when it may be replaced,
// else why not. A folder is refused (the rename would fail only after the work), and so is a
// file the user cannot write (write-protected; root can write any), as the shell's `>` refuses
// it, although the rename could replace it.
std::string replace_refusal(const std::string& target);
// The permission bits for the temporary file that replaces `target`: the existing file's (a
// private file stays private), for a new file 0666 less the process umask (as open(2) gives).
unsigned replacement_mode(const std::string& target);

// Whether two output paths name one file (the same path however written, or links to it).
bool same_output(const std::string& a, const std::string& b);

// An input of a command, by the option that names it ("--q") and its path.
struct NamedInput {
  std::string option;
  std::string path;
};

// Throws std::invalid_argument naming both when output `out` (given by `out_option`) is one of
// the inputs: writing it would replace what the command reads (an output of "-", a device or a
// pipe is never one). Inputs with an empty path are skipped.
void refuse_output_over_inputs(const std::string& out_option, const std::string& out,
                               const std::vector<NamedInput>& inputs);

}  // namespace ikwb
