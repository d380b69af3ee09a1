// `ikwb fk ROBOT.urdf --q Q.csv --out POSES.csv [--com COM.csv]`: world pose of every body for
// each configuration of a file, and the model's centre of mass.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "app/cli/cli_args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/robot_args.hpp"
#include "app/cli/trajectory_io.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/output_target.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/objective_whole_body.hpp"

namespace ikwb {

namespace {

constexpr const char* kSummary =
    "World pose of every body for each configuration in Q.csv.\n"
    "Q.csv: one configuration per line, joint_coord_count comma-separated numbers in q_start\n"
    "order (see `ikwb info`; quaternions x,y,z,w); blank lines and lines starting with # are\n"
    "skipped. A first line without numbers is a header naming each coordinate once, in any\n"
    "order (joint names; NAME_0, NAME_1, ... for a ball, free or planar joint, as `ikwb\n"
    "animate` writes them): the columns are read by name; columns of fixed and mimic joints\n"
    "(ROS joint_states list them) are left out.\n"
    "A robot without coordinates takes an empty file: its one configuration.\n"
    "POSES.csv: config,body,x,y,z,qx,qy,qz,qw, one row per configuration (0-based) and body.\n"
    "COM.csv: config,x,y,z,mass: the centre of mass (world, the com objective's\n"
    "sum_i m_i X_i com_i / sum_i m_i) and the total mass (kg), one row per configuration.";

// One note when configurations put a joint of one coordinate (revolute, prismatic) outside its
// limits: FK computes them as given, but a file of another robot's configurations, or degrees
// read as radians, gives poses the robot cannot take without a word. The count and the first.
void note_outside_limits(const Model& m, const NumericTable& q,
                         const std::vector<uint8_t>& unsolved, const std::string& q_path) {
  // a value written at a limit and read back lands within this (rad or m)
  constexpr double kSlack = 1e-9;
  std::size_t rows = 0;
  std::string first;
  for (std::size_t i = 0; i < q.row_count(); ++i) {
    if (unsolved[i]) continue;
    bool outside = false;
    for (int j = 0; j < m.joint_count; ++j) {
      const int c = m.joint_q_start[j], d = m.joint_qd_start[j];
      if (m.joint_q_start[j + 1] - c != 1 || m.joint_qd_start[j + 1] - d != 1) continue;
      const double v = q.rows[i][c];
      if (!(v < m.dof_lower[d] - kSlack || v > m.dof_upper[d] + kSlack)) continue;
      if (first.empty())
        first = q_path + ":" + std::to_string(q.lines[i]) + ", " + m.joint_name[j] + " = " +
                format_double(v) + " outside [" + format_double(m.dof_lower[d]) + ", " +
                format_double(m.dof_upper[d]) + "]";
      outside = true;
      break;
    }
    rows += outside ? 1 : 0;
  }
  if (rows > 0)
    std::fprintf(stderr,
                 "fk: note: %zu of %zu configurations put a joint outside its limits, computed "
                 "as given (the first: %s)\n",
                 rows, q.row_count(), first.c_str());
}

}  // namespace

int cmd_fk(int argc, char** argv) {
  ArgParser args("ikwb fk", kSummary);
  args.add_positional("ROBOT.urdf", "robot description, or a shipped robot's name");
  args.add_required_option("q", "Q.csv", "joint configurations ('-' for standard input)");
  args.add_required_option("out", "POSES.csv", "output file ('-' for standard output)");
  args.add_option("com", "COM.csv", "also write the centre of mass of each configuration");
  add_robot_options(args);
  try {
    args.parse(argc, argv);
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb fk: %s\n%s", e.what(), args.short_usage().c_str());
    return 2;
  }
  if (args.help_requested()) {
    std::printf("%s", args.usage().c_str());
    return 0;
  }
  UrdfOptions opt = read_robot_options(args);
  std::string q_path = args.get("q"), out_path = args.get("out");
  std::string com_path = args.has("com") ? args.get("com") : "";
  try {
    const std::vector<NamedInput> inputs = {{"ROBOT.urdf", resolve_robot(args.get("ROBOT.urdf"))},
                                            {"--q", q_path}};
    refuse_output_over_inputs("--out", out_path, inputs);
    refuse_output_over_inputs("--com", com_path, inputs);
    LoadResult r = load_robot_file(resolve_robot(args.get("ROBOT.urdf")), opt);
    print_warnings(r.warnings);
    const Model& m = *r.model;

    // rows of targets `ikwb solve` skipped (all nan) keep their place as nan poses
    std::vector<uint8_t> unsolved;
    NumericTable q = read_configurations_csv(q_path, m, &unsolved);
    if (q.row_count() == 0) throw CsvError(q_path + ": no configurations");
    const std::size_t skipped = std::size_t(std::count(unsolved.begin(), unsolved.end(), 1));
    note_outside_limits(m, q, unsolved, q_path);

    // (a device such as /dev/null may take both)
    if (!com_path.empty() && com_path != "-" && !output_target(com_path).in_place &&
        same_output(out_path, com_path))
      throw CsvError("--out and --com name the same file (" + com_path + ")");
    if (out_path == "-" && com_path == "-")
      throw CsvError("--out and --com are both standard output ('-'): give one of them a file");
    // every output is opened before any is written: a run that fails leaves none
    CsvWriter out(out_path);
    std::unique_ptr<CsvWriter> com;
    if (!com_path.empty()) com = std::make_unique<CsvWriter>(com_path);
    out.row({"config", "body", "x", "y", "z", "qx", "qy", "qz", "qw"});
    if (com) com->row({"config", "x", "y", "z", "mass"});
    ModelView<double> view = m.view();
    double mass = 0;
    for (double w : m.body_mass) mass += w > 0 ? w : 0;
    if (com && !(mass > 0))
      print_warnings(
          {"the robot has no mass (no body has one): COM.csv holds the mean of "
           "the bodies' centres, with mass 0"});
    State state(m);
    const Transform<double> no_pose{{NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}};
    for (std::size_t i = 0; i < q.row_count(); ++i) {
      if (!unsolved[i]) eval_fk(m, q.rows[i], {}, state);
      for (int b = 0; b < m.body_count; ++b) {
        const Transform<double>& x = unsolved[i] ? no_pose : state.body_q[b];
        out.field(static_cast<long long>(i)).field(m.body_name[b]);
        out.field(x.p.x).field(x.p.y).field(x.p.z);
        out.field(x.q.x).field(x.q.y).field(x.q.z).field(x.q.w);
        out.end_row();
      }
      if (!com) continue;
      Vec3<double> c = unsolved[i] ? no_pose.p : center_of_mass(view, state.body_q.data());
      com->field(static_cast<long long>(i)).field(c.x).field(c.y).field(c.z).field(mass);
      com->end_row();
    }
    if (skipped > 0)
      std::fprintf(stderr,
                   "fk: %zu row%s of targets ikwb solve skipped (coordinates nan) written as nan "
                   "poses\n",
                   skipped, skipped == 1 ? "" : "s");
    out.finish();
    if (com) com->finish();
    out.close();
    if (com) com->close();
    // on standard error when a CSV goes to standard output, which then holds only the CSV
    std::fprintf(out_path == "-" || com_path == "-" ? stderr : stdout,
                 "fk: %zu configuration%s x %d bodies written to %s\n", q.row_count(),
                 q.row_count() == 1 ? "" : "s", m.body_count,
                 out_path == "-" ? "standard output" : out_path.c_str());
  } catch (const std::bad_alloc&) {
    return report_out_of_memory("ikwb fk", "the configurations of " + q_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ikwb fk: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace ikwb
