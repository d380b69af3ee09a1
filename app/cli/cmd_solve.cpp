// `ikwb solve ROBOT.urdf --link NAME --targets T.csv --out OUT.csv`: batch IK over a file of
// position or pose targets, in chunks, with a progress line and a per-target result row.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "app/cli/cli_args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/solver_args.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {

namespace {

constexpr const char* kSummary =
    "Inverse kinematics for every target of T.csv.\n"
    "T.csv: one target a line, x,y,z (position) or x,y,z,qx,qy,qz,qw (pose, unit quaternion),\n"
    "world frame; the first valid line decides which. Blank lines and # comments are skipped.\n"
    "A malformed line is reported with its line number and gets a row with converged=0.\n"
    "OUT.csv: converged,pos_err,rot_err,iterations,q0,q1,... (q in q_start order), one row per\n"
    "target in order. Defaults: seed at the middle of the limits, up to 50 uniform restarts\n"
    "(a seed whose cost has not halved in 10 iterations is restarted), tolerances 1e-4 m and\n"
    "1e-3 rad.";

struct TargetLine {
  int line = 0;
  bool ok = false;
  Transform<double> pose = transform_identity<double>();
};

// reads targets leniently: bad lines are reported and kept as failures
std::vector<TargetLine> read_targets(const std::string& path, int* columns) {
  std::ifstream in(path);
  if (!in) throw CsvError(path + ": cannot open the file");
  std::vector<TargetLine> out;
  std::string text;
  int line = 0;
  *columns = 0;
  while (std::getline(in, text)) {
    ++line;
    std::size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos || text[first] == '#') continue;
    std::vector<std::string> f = split_csv_line(text);
    if (!f.empty() && f.back().empty() && f.size() > 1) f.pop_back();
    TargetLine t;
    t.line = line;
    std::vector<double> v;
    std::string problem;
    for (const auto& s : f) {
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (s.empty() || end == s.c_str() || *end) {
        problem = "'" + s + "' is not a number";
        break;
      }
      if (!std::isfinite(d)) {
        problem = "NaN or infinite value";
        break;
      }
      v.push_back(d);
    }
    if (problem.empty()) {
      int n = int(v.size());
      if (n != 3 && n != 7) {
        problem = "expected 3 (x,y,z) or 7 (x,y,z,qx,qy,qz,qw) values, got " + std::to_string(n);
      } else if (*columns != 0 && n != *columns) {
        problem = "expected " + std::to_string(*columns) + " values like the first target, got " +
                  std::to_string(n);
      } else {
        *columns = n;
        t.pose.p = {v[0], v[1], v[2]};
        if (n == 7) {
          Quat<double> q{v[3], v[4], v[5], v[6]};
          double norm = quat_norm(q);
          if (std::fabs(norm - 1.0) > 1e-3)
            problem = "quaternion is not unit (norm " + std::to_string(norm) + ")";
          else
            t.pose.q = normalize(q);
        }
      }
    }
    if (problem.empty()) {
      t.ok = true;
    } else if (out.empty() && problem.find("not a number") != std::string::npos) {
      continue;  // a header line before any target
    } else {
      std::fprintf(stderr, "%s:%d: %s; this target is skipped\n", path.c_str(), line,
                   problem.c_str());
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace

int cmd_solve(int argc, char** argv) {
  ArgParser args("ikwb solve", kSummary);
  args.add_positional("ROBOT.urdf", "robot description, or a shipped robot's name");
  args.add_option("link", "NAME", "link whose frame (plus --offset) goes to the targets");
  args.add_option("offset", "X,Y,Z", "point in the link frame (default 0,0,0)");
  args.add_option("targets", "T.csv", "targets");
  args.add_option("out", "OUT.csv", "results ('-' for standard output)");
  args.add_option("chunk", "N", "targets per solver call (default 4096)");
  args.add_flag("floating-base", "attach the root link with a free joint");
  args.add_option("package-path", "DIR", "search folder for package:// URIs", true);
  add_solver_options(args);
  SolverSettings settings;
  std::string link_name, targets_path, out_path;
  Vec3<double> offset{0, 0, 0};
  int chunk = 4096;
  try {
    args.parse(argc, argv);
    if (args.help_requested()) {
      std::printf("%s", args.usage().c_str());
      return 0;
    }
    link_name = args.require("link");
    targets_path = args.require("targets");
    out_path = args.require("out");
    if (args.has("offset")) offset = parse_vec3("offset", args.get("offset"));
    chunk = int(args.get_int("chunk", chunk));
    if (chunk < 1) throw CliError("--chunk must be >= 1");
    SolverSettings defaults;
    defaults.max_restarts = 50;
    defaults.max_iterations = 60;
    defaults.stall_window = 10;
    settings = read_solver_options(args, defaults);
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb solve: %s\n%s", e.what(), args.usage().c_str());
    return 2;
  }

  try {
    UrdfOptions opt;
    opt.floating_base = args.has("floating-base");
    opt.package_paths = args.get_all("package-path");
    opt.load_meshes = false;
    LoadResult robot = load_urdf_file(resolve_robot(args.get("ROBOT.urdf")), opt);
    for (const auto& w : robot.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const Model& m = *robot.model;
    int link = m.find_body(link_name);
    if (link < 0) {
      std::string names;
      for (const auto& n : m.body_name) names += (names.empty() ? "" : ", ") + n;
      throw CliError("unknown link '" + link_name + "'; links are: " + names);
    }
    int columns = 0;
    std::vector<TargetLine> targets = read_targets(targets_path, &columns);
    std::string reason;
    auto solver = make_solver(settings.backend, &reason);
    if (!reason.empty()) std::fprintf(stderr, "note: %s\n", reason.c_str());

    std::vector<int> valid;
    for (int i = 0; i < int(targets.size()); ++i)
      if (targets[i].ok) valid.push_back(i);
    std::vector<ProblemResult> results(targets.size());
    const bool tty = isatty(fileno(stderr));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<double> q0 = m.middle_configuration();
    SolveResult res;
    for (std::size_t begin = 0; begin < valid.size(); begin += chunk) {
      int n = int(std::min<std::size_t>(chunk, valid.size() - begin));
      IkProblem problem(robot.model, n);
      int obj = columns == 7 ? problem.add_pose(link, offset) : problem.add_position(link, offset);
      for (int i = 0; i < n; ++i) problem.set_target_pose(obj, i, targets[valid[begin + i]].pose);
      solver->solve(problem, settings, q0, res);
      for (int i = 0; i < n; ++i) results[valid[begin + i]] = res.problems[i];
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::size_t done = begin + n;
      if (tty) {
        int bar = int(30.0 * double(done) / double(valid.size()));
        std::fprintf(stderr, "\r[%s%s] %zu/%zu  %.0f solves/s", std::string(bar, '#').c_str(),
                     std::string(30 - bar, ' ').c_str(), done, valid.size(),
                     dt > 0 ? double(done) / dt : 0.0);
        std::fflush(stderr);
      }
    }
    if (tty && !valid.empty()) std::fprintf(stderr, "\n");
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    CsvWriter out(out_path);
    out.field("converged").field("pos_err").field("rot_err").field("iterations");
    for (int i = 0; i < m.coord_count; ++i) out.field("q" + std::to_string(i));
    out.end_row();
    int solved = 0;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const ProblemResult& r = results[i];
      bool ok = targets[i].ok && r.converged;
      solved += ok;
      out.field(ok ? 1 : 0);
      if (!targets[i].ok) {
        out.field(NAN).field(NAN).field(0);
        for (int k = 0; k < m.coord_count; ++k) out.field(NAN);
      } else {
        out.field(r.position_error).field(columns == 7 ? r.rotation_error : 0.0);
        out.field(r.iterations);
        for (double v : r.q) out.field(v);
      }
      out.end_row();
    }
    out.close();
    std::size_t n = targets.size();
    std::printf("solved %d/%zu (%.1f%%) in %.3f s, %.0f solves/s\n", solved, n,
                n ? 100.0 * solved / double(n) : 0.0, elapsed,
                elapsed > 0 ? double(valid.size()) / elapsed : 0.0);
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb solve: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ikwb solve: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace ikwb
