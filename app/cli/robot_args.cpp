#include "app/cli/robot_args.hpp"

namespace ikwb {

void add_robot_options(ArgParser& args) {
  args.add_flag("floating-base", "attach the root link with a free joint");
  args.add_option("package-path", "DIR", "search folder for package:// URIs", true);
  args.add_flag("strict",
                "refuse files with faults that are otherwise repaired with a warning (commas "
                "between numbers, inverted limits, junk after </robot>, a <mimic> of a missing "
                "joint, xacro leftovers)");
}

UrdfOptions read_robot_options(const ArgParser& args) {
  UrdfOptions opt;
  opt.floating_base = args.has("floating-base");
  opt.package_paths = args.get_all("package-path");
  opt.strict = args.has("strict");
  opt.load_meshes = false;
  return opt;
}

}  // namespace ikwb
