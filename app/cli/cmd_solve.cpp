// `ikwb solve ROBOT.urdf --link NAME --targets T.csv --out OUT.csv`: batch IK over a file of
// position or pose targets, in chunks, with a progress line and a per-target result row.
// `ikwb solve --scene SCENE.json [--targets T.csv] --out OUT.csv`: the scene's robot, objectives
// and solver settings, one problem per row of T.csv (per-objective targets, see scene_targets).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "app/cli/cli_args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/link_targets.hpp"
#include "app/cli/robot_args.hpp"
#include "app/cli/scene_targets.hpp"
#include "app/cli/solve_progress.hpp"
#include "app/cli/solver_args.hpp"
#include "app/cli/trajectory_io.hpp"
#include "engine/core/output_target.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/compromise.hpp"
#include "solver/problem.hpp"
#include "solver/scene_problem.hpp"
#include "solver/settings.hpp"
#include "solver/thread_pool.hpp"

namespace ikwb {

namespace {

constexpr const char* kSummary =
    "Inverse kinematics for every target of T.csv.\n"
    "T.csv: one target a line, x,y,z (position) or x,y,z,qx,qy,qz,qw (pose, unit quaternion),\n"
    "world frame. Blank lines and # comments are skipped; the first other line may be a header\n"
    "naming x,y,z[,qx,qy,qz,qw] in any order: it decides the format and the columns are read\n"
    "by name; without one the count of values most valid lines have decides.\n"
    "After it, a malformed line is reported\n"
    "with its line number and gets a row with converged=0; a file without a valid target, or\n"
    "with more malformed lines than valid ones, is an error.\n"
    "OUT.csv: converged,pos_err,rot_err,iterations, then the joint coordinates in q_start\n"
    "order, named as in Q.csv (so `ikwb fk ROBOT --q OUT.csv` reads it), one\n"
    "row per target line in order (with --out -, written as they are solved); the summary\n"
    "line goes to standard output (standard error with --out -). Defaults: seed at the middle\n"
    "of the limits, up to 50 uniform restarts (a seed is restarted when 4 iterations pass\n"
    "without its cost falling below 0.7 of\n"
    "where it last did), initial damping 3e-2\n"
    "(the workbench, starting close to the answer: 1e-3; either times (L / 0.5 m)^2 where the\n"
    "targeted points are L < 0.5 m from their chain's first moving joint), tolerances 1e-4 m\n"
    "and 1e-3 rad,\n"
    "and a budget of 1 s per target (--budget-ms; 0 = none): when it runs out the\n"
    "target gets the best configuration found so far.\n"
    "\n"
    "With --scene SCENE.json (instead of ROBOT.urdf, --link, --offset, --floating-base): the\n"
    "scene's robot, objectives and solver settings; every problem starts at the scene's joint_q.\n"
    "Without --targets, one problem: the scene as it is. T.csv then has a header naming, for\n"
    "each objective whose target varies, NAME.x,NAME.y,NAME.z and/or NAME.qx,NAME.qy,NAME.qz,\n"
    "NAME.qw (NAME: the objective's name exactly as in the scene; quote it if it has a comma);\n"
    "one problem a row; objectives not named keep the scene's target. pos_err and rot_err are\n"
    "the largest over all enabled task objectives (the summary counts the rows that leave a\n"
    "hard objective off by more than tol_constraint). An objective on a link the robot lacks, or\n"
    "a scene without enabled objectives (or whose enabled ones all have weight 0), is an error.\n"
    "With --soft-limits the summary counts the rows that end outside the joint limits.\n"
    "Solver options given here override the\n"
    "scene's, which override the defaults above. --explain: for each solution, every objective\n"
    "it misses on standard error: traded_off, stopped_short, out_of_reach or blocked, and who\n"
    "pulls against it.\n"
    "--sequential (either form): the targets in order, each solved from the answer to the one\n"
    "before (the first from the usual start), so a trajectory of targets gives a joint\n"
    "trajectory that stays on one IK branch wherever the targets allow; one target per call,\n"
    "first one attempt from the answer before with damping 1e-3, then the restarts if it\n"
    "does not converge (not after a row that did not converge either while it holds the hard\n"
    "objectives, but for every 32nd such row in a row; the 1st, 2nd, 4th ... such row gets one\n"
    "attempt from the last row that converged, kept if it converges). With --link, the joints\n"
    "the targets leave free settle toward the start in the targets' null space (a null-space\n"
    "posture, two steps a row unless --settle-iterations; LM only: L-BFGS takes no null-space\n"
    "steps), so a path that comes back brings them back.";

// Reports each malformed row of T.csv on standard error ("T.csv:LINE: ERROR; this target is
// skipped"). Throws CsvError when the file has no rows, none that can be solved (a batch that
// solves nothing is an error, not a 0/0 summary), or more malformed rows than usable ones: such
// a file is taken for the wrong one or in the wrong format, and refused before a long solve of
// mostly skipped rows that would end with status 0. expected: what the file should hold.
// After kRowMessages such lines the rest are counted in one line.
constexpr int kRowMessages = 20;

template <class Row>
void report_rows(const std::string& file, const std::vector<Row>& rows, const char* expected) {
  const std::string path = file == "-" ? kStandardInput : file;
  std::size_t usable = 0;
  int reported = 0, more = 0, last_line = 0;
  for (const Row& r : rows) {
    if (r.ok) {
      ++usable;
    } else if (reported < kRowMessages) {
      ++reported;
      std::fprintf(stderr, "%s:%d: %s; this target is skipped\n", path.c_str(), r.line,
                   r.error.c_str());
    } else {
      ++more;
      last_line = r.line;
    }
  }
  if (more > 0)
    std::fprintf(stderr, "%s: %d more malformed target lines skipped (the last at line %d)\n",
                 path.c_str(), more, last_line);
  if (rows.empty()) throw CsvError(path + ": no targets (" + expected + ")");
  if (usable == 0)
    throw CsvError(path + ": no usable target: each of its " + std::to_string(rows.size()) +
                   " target lines is malformed (above)");
  if (2 * usable < rows.size())
    throw CsvError(path + ": " + std::to_string(rows.size() - usable) + " of its " +
                   std::to_string(rows.size()) +
                   " target lines are malformed (above), more than half: nothing is solved");
}

// OUT.csv's rows, written as the targets are solved: the header at once, then after each solver
// call the rows up to its last target, a malformed line's row (converged=0, nan) in its place,
// each call's rows handed to the output at once (CsvWriter::flush) so that `--out -` streams and
// a run stopped with Ctrl-C has written the rows it solved. ok[i]: target line i is solved (the
// k-th solved one gets the k-th result); with_rotation false writes rot_err 0. Rows whose hard
// objectives are off by more than tol_constraint are counted for the summary: pos_err and
// rot_err are the largest over every task objective, so a soft target out of reach hid a hard
// foot 1.9 mm off.
// With limits (dof_count each; the solve does not project onto them, --soft-limits), the rows
// whose joints end outside them are counted too: such a row is converged by the targets alone.
class ResultRows {
 public:
  ResultRows(CsvWriter& out, const Model& m, const std::vector<bool>& ok, bool with_rotation,
             double tol_constraint, const std::vector<double>* lower = nullptr,
             const std::vector<double>* upper = nullptr)
      : out_(out),
        model_(m),
        coord_count_(m.coord_count),
        ok_(ok),
        with_rotation_(with_rotation),
        tol_constraint_(tol_constraint),
        lower_(lower),
        upper_(upper) {
    for (const char* name : kSolveResultColumns) out_.field(name);
    for (const std::string& name : coord_names(m)) out_.field(name);
    out_.end_row();
    out_.flush();
  }

  // the rows of the next n solved targets, results r[0..n-1], and of the malformed lines among
  // them
  void add(const ProblemResult* r, int n) {
    for (int i = 0; i < n; ++i) {
      skip_malformed();
      ++line_;
      ++solved_;
      converged_ += r[i].converged;
      missed_after_miss_ += !r[i].converged && last_missed_;
      last_missed_ = !r[i].converged;
      if (r[i].constraint_violation > tol_constraint_ && hard_off_++ == 0) {
        char v[32];
        std::snprintf(v, sizeof v, "%.3g", r[i].constraint_violation);
        first_hard_off_ = "row " + std::to_string(line_) + " of OUT.csv, by " + v;
      }
      outside_ += lower_ && upper_ && outside_limits(r[i].q);
      out_.field(r[i].converged ? 1 : 0);
      out_.field(r[i].position_error).field(with_rotation_ ? r[i].rotation_error : 0.0);
      out_.field(r[i].iterations);
      for (double v : r[i].q) out_.field(v);
      out_.end_row();
    }
    out_.flush();
  }

  // the rows of the malformed lines after the last solved target; then OUT.csv is complete
  void close() {
    skip_malformed();
    out_.close();
  }

  int converged() const { return converged_; }
  std::size_t solved() const { return solved_; }
  // "; N rows hold a hard objective ..." for the summary, or ""
  std::string hard_off_note() const {
    if (hard_off_ == 0) return "";
    char tol[32];
    std::snprintf(tol, sizeof tol, "%g", tol_constraint_);
    return "; " + std::to_string(hard_off_) + (hard_off_ == 1 ? " row leaves" : " rows leave") +
           " a hard objective off by more than tol_constraint " + tol +
           " (the first: " + first_hard_off_ + "; --explain names it)";
  }
  // --sequential: "; N rows did not converge right after a row that did not ..." for the summary,
  // or "". A sequence starts each row from the answer before it, so targets that are not a path
  // (a review's unordered file) lost 1.5% of reachable rows in runs after each unreachable one,
  // with nothing saying why. A path that leaves the robot's reach for a stretch misses there
  // either way: the note says both (it told a review's such path to drop --sequential)
  std::string sequence_note() const {
    if (missed_after_miss_ == 0) return "";
    return "; " + std::to_string(missed_after_miss_) +
           (missed_after_miss_ == 1 ? " row" : " rows") +
           " did not converge right after a row that did not (--sequential starts each row "
           "from the one before: targets that are not a path, such as unordered ones, solve "
           "better without it; a path out of reach for a stretch misses there either way)";
  }
  // "; N rows end outside the joint limits ..." for the summary, or ""
  std::string outside_note() const {
    if (outside_ == 0) return "";
    return "; " + std::to_string(outside_) + (outside_ == 1 ? " row ends" : " rows end") +
           " outside the joint limits (soft limits: the solve does not hold them)";
  }

 private:
  // the rows of the malformed lines from line_ on, up to the next solved one
  void skip_malformed() {
    for (; line_ < ok_.size() && !ok_[line_]; ++line_) {
      out_.field(0).field(NAN).field(NAN).field(0);
      for (int c = 0; c < coord_count_; ++c) out_.field(NAN);
      out_.end_row();
    }
  }

  // a one-coordinate joint (revolute, prismatic) of q beyond its limits by more than rounding
  bool outside_limits(const std::vector<double>& q) const {
    const Model& m = model_;
    for (int j = 0; j < m.joint_count; ++j) {
      const int c = m.joint_q_start[j], d = m.joint_qd_start[j];
      if (m.joint_q_start[j + 1] - c != 1 || m.joint_qd_start[j + 1] - d != 1) continue;
      const double lo = (*lower_)[std::size_t(d)], hi = (*upper_)[std::size_t(d)];
      const double eps = 1e-9 * (1 + std::fabs(q[std::size_t(c)]));
      if (q[std::size_t(c)] < lo - eps || q[std::size_t(c)] > hi + eps) return true;
    }
    return false;
  }

  CsvWriter& out_;
  const Model& model_;
  const int coord_count_;
  const std::vector<bool>& ok_;
  const bool with_rotation_;
  const double tol_constraint_;
  std::size_t line_ = 0;  // the next target line to write
  std::size_t solved_ = 0;
  int converged_ = 0;
  int hard_off_ = 0;            // rows with a hard objective off
  std::string first_hard_off_;  // "row N, violation" of the first
  const std::vector<double>* lower_;
  const std::vector<double>* upper_;
  int outside_ = 0;            // rows outside the limits
  int missed_after_miss_ = 0;  // unconverged rows right after an unconverged one
  bool last_missed_ = false;   // the last row written did not converge
};

// Targets per solver call: at most `most`; growing, the calls start at kFirstChunk and double
// while one takes under kChunkSeconds (without --chunk: a 2,000-joint chain's first progress line
// and first rows came after a whole 4,096-target call, 78 s), as Python's Scene.solve does.
struct Chunks {
  int most = 4096;
  bool grow = true;
};
constexpr int kFirstChunk = 16;
constexpr double kChunkSeconds = 0.1;

// Solves `count` problems in solver calls of `chunks` from q0; make_chunk(begin, n) builds the
// problem set for problems begin..begin+n-1; each chunk's results go to rows.add as soon as they
// are in, and rows.close() ends OUT.csv after the last. sequential: one problem at a time, each
// from the answer before it (q0 for the first; solve_from_previous). Shows the progress on standard
// error (SolveProgress). Sets *elapsed (s); with keep_q, returns every problem's answer in order
// (--explain reads them), else nothing: the memory stays that of one chunk however many rows
// stream through (a million rows held 300 MB of results no one read).
template <class MakeChunk>
std::vector<std::vector<double>> solve_in_chunks(IkSolver& solver, const SolverSettings& settings,
                                                 const std::vector<double>& q0, std::size_t count,
                                                 Chunks chunks, bool sequential,
                                                 MakeChunk make_chunk, ResultRows& rows,
                                                 double* elapsed, bool keep_q = false) {
  std::vector<std::vector<double>> kept;
  std::vector<double> start = q0;
  if (sequential) chunks = {1, false};
  int chunk = chunks.grow ? std::min(kFirstChunk, chunks.most) : chunks.most;
  SolveProgress progress(stderr, isatty(fileno(stderr)), count);
  auto t0 = std::chrono::steady_clock::now();
  SolveResult res;
  ProblemResult previous;       // sequential: the row before's
  std::vector<double> back_in;  // sequential: the last converged row's answer
  int compromise_rows = 0;
  for (std::size_t begin = 0, n = 0; begin < count; begin += n) {
    n = std::min<std::size_t>(std::size_t(chunk), count - begin);
    IkProblem problem = make_chunk(begin, int(n));
    // a floating robot's rows whose targets are far start near them (a sequence's row: the
    // answer before it, moved)
    if (sequential && begin > 0)
      solve_from_previous(solver, problem, settings, starts_near_targets(problem, start), previous,
                          compromise_rows, res, false, &back_in);
    else
      solver.solve(problem, settings, starts_near_targets(problem, start), res);
    rows.add(res.problems.data(), int(n));
    if (keep_q)
      for (std::size_t i = 0; i < n; ++i) kept.push_back(res.problems[i].q);
    if (sequential) {
      start = res.problems[0].q;
      previous = res.problems[0];
      if (previous.converged) back_in = start;
    }
    progress.update(begin + n,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (chunks.grow && res.solve_seconds < kChunkSeconds) chunk = std::min(chunk * 2, chunks.most);
  }
  progress.finish();
  *elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rows.close();
  return kept;
}

// what solving `count` problems `chunk` at a time allocates, for the out-of-memory message
std::string chunk_text(std::size_t count, Chunks chunks) {
  return std::to_string(std::min<std::size_t>(count, std::size_t(chunks.most))) +
         " problems at once (" + std::to_string(count) + " targets, --chunk " +
         std::to_string(chunks.most) + ")";
}

// The summary line, on standard error when OUT.csv goes to standard output: the targets solved
// of all, the malformed lines skipped, the time and rate, and where it ran (`solver`).
// Returns the fraction of the lines that converged (what --min-success is held to)
double print_summary(const std::string& out_path, const ResultRows& rows, std::size_t lines,
                     double elapsed, const IkSolver& solver, const SolverSettings& settings,
                     bool sequential) {
  const std::size_t skipped = lines - rows.solved();
  std::string where = solver.backend() == Backend::kCuda ? "CUDA" : "CPU";
  if (solver.backend() == Backend::kCpu) {
    const int threads = settings.threads > 0 ? settings.threads : hardware_threads();
    where += ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  }
  const std::string malformed =
      skipped ? "; " + std::to_string(skipped) + " of the lines malformed and skipped" : "";
  // below 10 a second with two decimals (a large robot solved at 0.3 a second read "0 solves/s")
  const double rate = elapsed > 0 ? double(rows.solved()) / elapsed : 0.0;
  const double success = lines ? rows.converged() / double(lines) : 0.0;
  std::fprintf(out_path == "-" ? stderr : stdout,
               "solved %d/%zu (%s%%) in %s, %.*f solves/s (%s)%s%s\n", rows.converged(), lines,
               format_percent(success, 1).c_str(), format_seconds(elapsed).c_str(),
               rate < 10 ? 2 : 0, rate, where.c_str(), malformed.c_str(),
               (rows.hard_off_note() + rows.outside_note() +
                (sequential ? rows.sequence_note() : std::string()))
                   .c_str());
  return success;
}

std::unique_ptr<IkSolver> solver_for(const SolverSettings& settings) {
  std::string reason;
  auto solver = make_solver(settings.backend, &reason);
  if (!reason.empty()) std::fprintf(stderr, "note: %s\n", reason.c_str());
  return solver;
}

// A warning when fewer dofs move the link than the targets fix (a pose 6, a position 3): a
// 4-joint arm given 6-value poses failed every line with nothing saying why. A link no joint
// moves has had its warning (find_target_link).
void warn_of_few_dofs(const Model& m, const std::string& link_name, int link, bool pose) {
  const int dofs = link_dof_count(m, link);
  const int fixed = pose ? 6 : 3;
  if (dofs == 0 || dofs >= fixed) return;
  const char* kind = pose ? "pose" : "position";
  std::fprintf(stderr,
               "warning: link '%s' is moved by %d dof%s, fewer than the %d a %s target fixes: "
               "most %ss are out of its reach (those recorded on this robot are not) and end "
               "with converged=0%s\n",
               link_name.c_str(), dofs, dofs == 1 ? "" : "s", fixed, kind, kind,
               pose ? "; for the positions alone, give x,y,z targets (3 values a line)" : "");
}

// A note when the position tolerance is over 0.1% of the link point's lever arm (position_reach):
// an 18 mm arm's rows "converged" 0.1 mm, 0.55% of it, off their targets without a word.
void note_tolerance_share(const std::shared_ptr<const Model>& model, int link,
                          const Vec3<double>& offset, double tol_position) {
  IkProblem p(model, 1);
  p.add_position(link, offset);
  const double reach = position_reach(p);
  if (!(reach > 0) || tol_position <= 1e-3 * reach) return;
  std::fprintf(stderr,
               "note: the position tolerance, %g m (--tol-pos), is %.2g%% of the %g m from the "
               "link's chain's first moving joint to the point: rows converge that far off\n",
               tol_position, 100 * tol_position / reach, reach);
}

// `ikwb solve ROBOT --link NAME --targets T.csv`; *allocating names what memory is being taken
// for, for the out-of-memory message; returns the fraction of the lines that converged
double solve_link_targets(const ArgParser& args, const SolverSettings& settings,
                          const std::string& link_name, const Vec3<double>& offset,
                          const std::string& targets_path, const std::string& out_path,
                          Chunks chunk, bool sequential, std::string* allocating) {
  UrdfOptions opt = read_robot_options(args);
  LoadResult robot = load_robot_file(resolve_robot(args.get("ROBOT.urdf")), opt);
  print_warnings(robot.warnings);
  const Model& m = *robot.model;
  const int link = find_target_link(m, link_name);
  *allocating = "the targets of " + targets_path;
  const LinkTargets targets = read_link_targets(targets_path);
  if (!targets.ignored_columns.empty()) {
    std::string names;
    for (const std::string& n : targets.ignored_columns)
      names += (names.empty() ? "" : ", ") + quote_field(n);
    std::fprintf(stderr, "note: %s: column%s %s not target coordinates, not read\n",
                 targets_path == "-" ? kStandardInput : targets_path.c_str(),
                 targets.ignored_columns.size() == 1 ? "" : "s",
                 (names + (targets.ignored_columns.size() == 1 ? " is" : " are")).c_str());
  }
  const bool pose = targets.columns == 7;
  // a unit quaternion read in the wrong order is still unit: nothing else would tell
  if (pose && !targets.header)
    std::fprintf(stderr,
                 "note: %s: no header, so 7 values a line are x,y,z,qx,qy,qz,qw (w last); a "
                 "header line names another order (x,y,z,qw,qx,qy,qz)\n",
                 targets_path == "-" ? kStandardInput : targets_path.c_str());
  warn_of_few_dofs(m, link_name, link, pose);
  note_tolerance_share(robot.model, link, offset, settings.tol_position);
  report_rows(targets_path, targets.rows, "one a line: x,y,z or x,y,z,qx,qy,qz,qw");
  CsvWriter out(out_path);
  auto solver = solver_for(settings);

  std::vector<int> valid;
  std::vector<bool> ok(targets.rows.size());
  for (int i = 0; i < int(targets.rows.size()); ++i)
    if ((ok[i] = targets.rows[i].ok)) valid.push_back(i);
  *allocating = chunk_text(valid.size(), chunk);
  const bool soft = !settings.hard_joint_limits;
  ResultRows rows(out, m, ok, pose, settings.tol_constraint, soft ? &m.dof_lower : nullptr,
                  soft ? &m.dof_upper : nullptr);
  // along a path the posture below settles over the rows, as in the workbench over frames: two
  // steps a row (settled at every row, 5.5 iterations a row where 3 bring the same path)
  SolverSettings path_settings = settings;
  if (sequential && !args.has("settle-iterations")) path_settings.settle_iterations = 2;
  path_settings.turn_over_limits = !sequential;
  double elapsed = 0;
  solve_in_chunks(
      *solver, path_settings, m.middle_configuration(), valid.size(), chunk, sequential,
      [&](std::size_t begin, int n) {
        IkProblem problem(robot.model, n);
        int obj = pose ? problem.add_pose(link, offset) : problem.add_position(link, offset);
        // a path of targets: the dofs the targets leave free settle toward the start in the
        // targets' null space, so that a path that comes back brings the joints back (they
        // drifted: the Panda's tool 5 times round one circle turned its first joint 0.89 rad)
        if (sequential) problem.add_posture(m.middle_configuration(), {0.1, true});
        for (int i = 0; i < n; ++i)
          problem.set_target_pose(obj, i, targets.rows[valid[begin + i]].pose);
        return problem;
      },
      rows, &elapsed);
  return print_summary(out_path, rows, ok.size(), elapsed, *solver, settings, sequential);
}

// --explain: one line on standard error per pursued objective (enabled, and not soft of weight 0)
// the solution does not reach
// (solver/compromise.hpp), then one line with the cost of the explanation:
//   WHERE: objective I "NAME"[ (hard)]: STATUS, error E [m|rad][; blocked by "NAME"|joint NAME,
//       ...]
//       [; at best B [m|rad]] (blocked, out_of_reach: the least error without the other soft
//       objectives)
//       [; pulled by "NAME" S [m|rad], ...] (no unit: an error without one of its own; they
//       add up to the error, or to E - B where "at best" is given)
//       [; helped by "NAME" H [m|rad], ...][, the others H [m|rad]] (the listed pulls add up to
//       that plus the help; "; helped by the others H" where no helper is named)
//   WHERE: explained in T ms (N test solves), K of M objectives not reached
// WHERE is "scene" or T.csv:LINE.
void explain_row(const std::string& where, const IkProblem& problem, const std::vector<double>& q,
                 const SolverSettings& settings) {
  const CompromiseReport r = explain_compromise(problem, 0, q, settings);
  int missed = 0, pursued = 0;
  for (int i = 0; i < problem.objective_count(); ++i) {
    const Objective& o = problem.objective(i);
    if (!objective_pursued(o.params)) continue;
    ++pursued;
    const Explanation& e = r.objectives[i];
    if (e.status == ReachStatus::kReached) continue;
    ++missed;
    // " m", " rad", or nothing for an error without a unit of its own
    const std::string unit = e.unit == ShareUnit::kNone ? "" : std::string(" ") + to_string(e.unit);
    // a hard objective says so: one strained by the soft ones' pull reads traded_off as a soft one
    // would, and its error is then a violation of what was to hold
    std::string line = where + ": objective " + std::to_string(i) + " \"" + o.name + "\"" +
                       (o.params.hard ? " (hard)" : "") + ": " + to_string(e.status);
    char num[64];
    std::snprintf(num, sizeof num, ", error %.4g%s", e.error, unit.c_str());
    line += num;
    for (std::size_t b = 0; b < e.blocked_by.size(); ++b) {
      line += b == 0 ? "; blocked by " : ", ";
      line += e.blocked_by[b].objective >= 0
                  ? "\"" + problem.objective(e.blocked_by[b].objective).name + "\""
                  : blocking_joint_text(problem, e.blocked_by[b].joint);
    }
    if (std::isfinite(e.best_error)) {
      std::snprintf(num, sizeof num, "; at best %.4g%s", e.best_error, unit.c_str());
      line += num;
    }
    // `; pulled by "A" 0.1 m, "B" 0.02 m`; returns the shares' sum
    auto list = [&](const char* what, const std::vector<Pull>& pulls) {
      double sum = 0;
      for (std::size_t p = 0; p < pulls.size(); ++p) {
        std::snprintf(num, sizeof num, " %.4g%s", pulls[p].share, unit.c_str());
        line += (p == 0 ? std::string("; ") + what + " \"" : std::string(", \"")) +
                problem.objective(pulls[p].objective).name + "\"" + num;
        sum += pulls[p].share;
      }
      return sum;
    };
    const double listed = list("pulled by", e.pulled_by);
    // the listed shares add up to more than they split: the helpers (negative shares) by name,
    // and the others under 1% by what is left
    const double named = list("helped by", e.helped_by);
    const double split = pulled_error(e.error, e.best_error);
    const double unnamed = listed - split - named;
    if (unnamed > 0.01 * e.error) {
      std::snprintf(num, sizeof num, " %.4g%s", unnamed, unit.c_str());
      line += std::string(named > 0 ? ", the others" : "; helped by the others") + num;
    }
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fprintf(stderr,
               "%s: explained in %.2f ms (%d test solves), %d of %d objectives not reached\n",
               where.c_str(), r.seconds * 1e3, r.solves, missed, pursued);
}

// A scene's per-frame settings lifted to a batch solve's (lift_per_frame_settings), with a note
// naming them; the command line sets any of them exactly (those it gives are left to it).
void lift_scene_settings(const ArgParser& args, const std::string& scene_path, SolverSettings* s) {
  const std::vector<std::string> lifted = lift_per_frame_settings(*s, [&](const std::string& key) {
    return args.has(key == "settle_iterations" ? "settle-iterations"
                    : key == "budget_ms"       ? "budget-ms"
                                               : key);
  });
  if (lifted.empty()) return;
  std::string list;
  for (const std::string& l : lifted) list += (list.empty() ? "" : ", ") + l;
  std::fprintf(stderr,
               "note: %s: the scene's solver settings are below a batch solve's (a workbench's "
               "are per frame); solving with %s (--iterations, --restarts, --stall, "
               "--settle-iterations and --budget-ms set them exactly)\n",
               scene_path.c_str(), list.c_str());
}

// `ikwb solve --scene SCENE.json [--targets T.csv]`; returns the fraction of the rows that
// converged
double solve_scene(const ArgParser& args, const std::string& scene_path,
                   const std::string& targets_path, const std::string& out_path, Chunks chunk,
                   bool sequential, std::string* allocating) {
  Scene scene = load_scene(scene_path);
  refuse_output_over_inputs("--out", out_path, scene_inputs(scene));
  print_warnings(scene.warnings);
  // --package-path folders and --xacro-arg arguments after the scene's
  UrdfOptions opt = scene_robot_options(args, scene);
  LoadResult robot = load_scene_robot(scene_path, scene.robot, opt);
  print_warnings(robot.warnings);
  const Model& m = *robot.model;
  if (args.has("srdf")) {
    // the command line's SRDF replaces the scene's; it must be usable
    scene.srdf = args.get("srdf");
    fitting_srdf_pairs(m, scene.srdf);
  }
  SceneSetup setup = resolve_scene(m, scene);
  require_solvable_scene(m, scene, setup, scene_path, "ikwb solve");
  print_warnings(setup.warnings, scene_path, m.source_path);

  std::vector<std::string> warnings;
  SolverSettings base = batch_solve_settings();
  apply_solver_json(scene.solver, base, warnings);
  print_warnings(warnings, scene_path);
  lift_scene_settings(args, scene_path, &base);
  // the command line wins
  SolverSettings settings = read_solver_options(args, base, names_sampler(scene.solver));
  settings.turn_over_limits = !sequential;
  if (lift_prefer_closest(settings, sequential, args.has("prefer-closest")))
    std::fprintf(stderr, "note: %s: %s; --prefer-closest keeps it\n", scene_path.c_str(),
                 kPreferClosestLifted);

  SceneTargets targets;
  if (targets_path.empty()) {
    targets.rows.resize(1);
    targets.rows[0].ok = true;
  } else {
    *allocating = "the targets of " + targets_path;
    targets = read_scene_targets(targets_path, setup.objectives);
    report_rows(targets_path, targets.rows, "no rows after the header");
    // targets the solve does not pursue: of a disabled objective, or a soft one of weight 0
    std::vector<std::string> unpursued;
    for (const TargetColumns& t : targets.columns) {
      const Objective& o = setup.objectives[std::size_t(t.objective)].objective;
      if (!o.params.enabled)
        unpursued.push_back("objective '" + o.name +
                            "' is disabled: its targets are not solved for");
      else if (!o.params.hard && o.params.weight == 0)
        unpursued.push_back("objective '" + o.name +
                            "' has weight 0: its targets are not solved for (nor its error "
                            "counted)");
    }
    print_warnings(unpursued, targets_path);
  }
  CsvWriter out(out_path);
  auto solver = solver_for(settings);
  std::vector<int> valid;
  std::vector<bool> ok(targets.rows.size());
  for (int i = 0; i < int(targets.rows.size()); ++i)
    if ((ok[i] = targets.rows[i].ok)) valid.push_back(i);
  *allocating = chunk_text(valid.size(), chunk);
  const bool soft = !settings.hard_joint_limits;
  ResultRows rows(out, m, ok, true, settings.tol_constraint, soft ? &setup.dof_lower : nullptr,
                  soft ? &setup.dof_upper : nullptr);
  double elapsed = 0;
  const bool explain = args.has("explain");
  const std::vector<std::vector<double>> answers = solve_in_chunks(
      *solver, settings, setup.q, valid.size(), chunk, sequential,
      [&](std::size_t begin, int n) {
        IkProblem problem = make_problem(robot.model, setup.objectives, n, &setup.collision);
        apply_joint_settings(setup, problem);
        for (std::size_t c = 0; c < targets.columns.size(); ++c) {
          std::vector<Transform<double>> x(n);
          for (int i = 0; i < n; ++i) x[i] = targets.rows[valid[begin + i]].targets[c];
          problem.set_target_poses(targets.columns[c].objective, x);
        }
        return problem;
      },
      rows, &elapsed, explain);
  const double success =
      print_summary(out_path, rows, ok.size(), elapsed, *solver, settings, sequential);
  if (!explain) return success;
  for (std::size_t k = 0; k < valid.size(); ++k) {
    IkProblem problem = make_problem(robot.model, setup.objectives, 1, &setup.collision);
    apply_joint_settings(setup, problem);
    for (std::size_t c = 0; c < targets.columns.size(); ++c)
      problem.set_target_pose(targets.columns[c].objective, 0, targets.rows[valid[k]].targets[c]);
    const std::string where =
        targets_path.empty() ? "scene"
                             : (targets_path == "-" ? std::string(kStandardInput) : targets_path) +
                                   ":" + std::to_string(targets.rows[valid[k]].line);
    explain_row(where, problem, answers[k], settings);
  }
  return success;
}

}  // namespace

int cmd_solve(int argc, char** argv) {
  ArgParser args("ikwb solve", kSummary);
  args.add_positional("ROBOT.urdf", "robot description, or a shipped robot's name", false);
  args.add_option("scene", "SCENE.json", "robot, objectives and solver settings from a scene");
  args.add_option("link", "NAME", "link whose frame (plus --offset) goes to the targets");
  args.add_option("offset", "X,Y,Z", "point in the link frame (default 0,0,0)");
  args.add_option("targets", "T.csv", "targets ('-' for standard input)");
  args.add_option("out", "OUT.csv", "results ('-' for standard output)");
  args.add_option("chunk", "N",
                  "targets per solver call (default: 16 at first, doubling while a call takes "
                  "under 0.1 s, up to 4096)");
  args.add_flag("sequential",
                "solve the targets in order, each from the answer to the one before (a "
                "trajectory whose steps stay on one IK branch; one target per solver call)");
  args.add_option("min-success", "PERCENT",
                  "exit status 3 (after writing OUT.csv) when fewer than PERCENT % of the lines "
                  "converge (default: none; status 0 whatever converged)");
  args.add_option("srdf", "FILE",
                  "with --scene: an SRDF whose <disable_collisions> pairs self_collision skips "
                  "(instead of the scene's \"srdf\")");
  args.add_flag("explain",
                "with --scene: why each objective a solution misses is missed (traded_off, "
                "stopped_short, out_of_reach, blocked) and who pulls against it, on standard "
                "error");
  add_robot_options(args);
  add_solver_options(args);
  SolverSettings settings;
  std::string link_name, targets_path, out_path, scene_path;
  Vec3<double> offset{0, 0, 0};
  Chunks chunk;
  double min_success = -1;
  try {
    args.parse(argc, argv);
    if (args.help_requested()) {
      std::printf("%s", args.usage().c_str());
      return 0;
    }
    if (args.has("scene")) {
      if (args.has("ROBOT.urdf"))
        throw CliError("give either ROBOT.urdf or --scene, not both (the scene names its robot)");
      for (const char* o : {"link", "offset", "floating-base"})
        if (args.has(o))
          throw CliError(std::string("--") + o + " does not go with --scene (the scene says)");
      scene_path = args.get("scene");
      targets_path = args.get("targets");
    } else {
      if (!args.has("ROBOT.urdf")) throw CliError("missing ROBOT.urdf (or --scene SCENE.json)");
      if (args.has("explain")) throw CliError("--explain goes with --scene");
      if (args.has("srdf")) throw CliError("--srdf goes with --scene");
      link_name = args.require("link");
      targets_path = args.require("targets");
      if (args.has("offset")) offset = parse_vec3("offset", args.get("offset"));
      settings = read_solver_options(args, batch_solve_settings());
    }
    out_path = args.require("out");
    chunk.most = int(args.get_int("chunk", chunk.most, 1, std::numeric_limits<int>::max()));
    chunk.grow = !args.has("chunk");
    if (args.has("sequential") && args.has("chunk"))
      throw CliError(
          "--chunk does not go with --sequential (its targets are solved one at a time, each "
          "from the answer before)");
    if (args.has("min-success")) {
      min_success = args.get_double("min-success", 0);
      if (min_success < 0 || min_success > 100)
        throw CliError("--min-success " + args.get("min-success") +
                       ": give a percentage from 0 to 100");
    }
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb solve: %s\n%s", e.what(), args.short_usage().c_str());
    return 2;
  }

  std::string allocating = "the robot";
  double success = 0;
  try {
    refuse_output_over_inputs(
        "--out", out_path,
        {{"ROBOT.urdf", args.has("ROBOT.urdf") ? resolve_robot(args.get("ROBOT.urdf")) : ""},
         {"--scene", scene_path},
         {"--targets", targets_path},
         {"--srdf", args.has("srdf") ? args.get("srdf") : ""}});
    success = !scene_path.empty()
                  ? solve_scene(args, scene_path, targets_path, out_path, chunk,
                                args.has("sequential"), &allocating)
                  : solve_link_targets(args, settings, link_name, offset, targets_path, out_path,
                                       chunk, args.has("sequential"), &allocating);
  } catch (const std::bad_alloc&) {
    return report_out_of_memory("ikwb solve", allocating);
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb solve: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ikwb solve: %s\n", e.what());
    return 1;
  }
  if (min_success >= 0 && 100 * success < min_success) {
    // as many decimals as show it under (98.96% read "99.0%, under --min-success 99")
    std::string shown = format_percent(success, 1);
    for (int d = 2; d <= 6 && std::stod(shown) >= min_success; ++d)
      shown = format_percent(success, d);
    std::fprintf(stderr, "ikwb solve: %s%% of the lines converged, under --min-success %s\n",
                 shown.c_str(), args.get("min-success").c_str());
    return 3;
  }
  return 0;
}

}  // namespace ikwb
