// `ikwb animate SCENE.json --out TRAJ.csv --rate HZ`: renders the scene's timeline (keyframes,
// joint- and task-space segments) without a window, as CSV or JSON (solver/timeline_render.hpp,
// app/cli/trajectory_io.hpp).
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "app/cli/cli_args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/robot_args.hpp"
#include "app/cli/solver_args.hpp"
#include "app/cli/trajectory_io.hpp"
#include "engine/core/output_target.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/scene.hpp"
#include "solver/scene_problem.hpp"
#include "solver/settings.hpp"
#include "solver/timeline_render.hpp"

namespace ikwb {

namespace {

constexpr const char* kSummary =
    "Renders the timeline of SCENE.json (its \"timeline\" keys) into a trajectory.\n"
    "One row per sample at --rate Hz from the first key to the last, the keys' times included\n"
    "(--fixed-step: only start + k / rate, the last at or after the last key, holding it):\n"
    "`time` then the joint coordinates in q_start order (the header names them, as `ikwb info`\n"
    "and the stored-configuration CSV do). OUT ending in .json writes JSON with the segments'\n"
    "reports. Joint-space segments follow a cubic with zero velocity at the keys; task-space\n"
    "segments move the targets on straight lines / slerp and solve IK at every sample (CPU,\n"
    "warm start). A segment whose IK fails, that jumps at a key, that would exceed a joint's\n"
    "velocity limit, or (joint segments) that breaks a hard objective is reported on standard\n"
    "error; --fail-on-flagged then makes the exit status 3 and writes no output.";

// the flagged segments' lines, of the first 20 (as `solve` reports 20 malformed lines: a
// 10,000-key timeline printed 2,951); returns their summary ("" when none is flagged)
std::string report_segments(const Trajectory& tr) {
  constexpr int kReported = 20;
  int reported = 0;
  for (const SegmentReport& s : tr.segments) {
    if (!s.flagged() || reported++ >= kReported) continue;
    for (const std::string& line : describe_segment(s)) std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (reported > kReported)
    std::fprintf(stderr,
                 "... %d more flagged segments not described (a .json output has every "
                 "segment's report)\n",
                 reported - kReported);
  return flagged_summary(tr);
}

}  // namespace

int cmd_animate(int argc, char** argv) {
  ArgParser args("ikwb animate", kSummary);
  args.add_positional("SCENE.json", "scene with a timeline");
  args.add_required_option("out", "TRAJ.csv", "output (.csv, .json, or '-' for CSV on stdout)");
  args.add_option("rate", "HZ", "samples per second (default 100)");
  args.add_flag("fixed-step",
                "rows at a fixed 1 / rate step only (a simulator's or an animation's); the keys' "
                "own times are left out where they fall between two");
  args.add_flag("fail-on-flagged", "exit status 3, and no output, when a segment is flagged");
  add_robot_options(args, RobotSource::kSceneOnly);
  add_solver_options(args);
  double rate = 100;
  try {
    args.parse(argc, argv);
    if (args.help_requested()) {
      std::printf("%s", args.usage().c_str());
      return 0;
    }
    rate = args.get_double("rate", rate);
    if (!(rate > 0) || rate > 1e6) throw CliError("--rate must be a number in (0, 1e6]");
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb animate: %s\n%s", e.what(), args.short_usage().c_str());
    return 2;
  }

  try {
    const std::string scene_path = args.get("SCENE.json");
    refuse_output_over_inputs("--out", args.get("out"), {{"SCENE.json", scene_path}});
    Scene scene = load_scene(scene_path);
    refuse_output_over_inputs("--out", args.get("out"), scene_inputs(scene));
    print_warnings(scene.warnings);
    if (scene.timeline.keys.empty())
      throw CliError(scene_path +
                     ": the scene has no timeline keys (\"timeline\": {\"keys\": "
                     "[...]}; the workbench's Timeline panel adds them)");
    UrdfOptions opt = scene_robot_options(args, scene);
    LoadResult robot = load_scene_robot(scene_path, scene.robot, opt);
    print_warnings(robot.warnings);
    const Model& m = *robot.model;
    SceneSetup setup = resolve_scene(m, scene);
    require_placed_objectives(m, scene, setup, scene_path, "ikwb animate");
    print_warnings(setup.warnings, scene_path, m.source_path);
    std::vector<std::string> warnings;
    Timeline timeline = timeline_on_model(m, scene, setup, warnings);
    if (timeline.keys.size() == 1)
      warnings.push_back("the timeline has one key: the trajectory is that one configuration");
    SolverSettings settings;
    apply_solver_json(scene.solver, settings, warnings);
    print_warnings(warnings, scene_path);
    settings = read_solver_options(args, settings, names_sampler(scene.solver));

    auto solver = make_cpu_solver();
    Trajectory tr;
    try {
      tr =
          render_timeline(robot.model, setup.objectives, timeline, rate, settings, *solver, &setup);
    } catch (const std::invalid_argument& e) {
      throw CliError(scene_path + ": " + e.what());  // keys that do not fit, named with the file
    }
    const std::string out = args.get("out");
    const std::string flagged = report_segments(tr);
    // a failed run leaves no output: a script (make) that stops on status 3 finds no file to
    // take for done
    if (!flagged.empty() && args.has("fail-on-flagged")) {
      std::fprintf(stderr, "ikwb animate: %s, why above: no output written (--fail-on-flagged)\n",
                   flagged.c_str());
      return 3;
    }
    if (args.has("fixed-step")) tr = on_fixed_step(tr, rate);
    write_trajectory(out, m, scene.robot, rate, tr);
    std::string note = flagged.empty() ? "" : "; " + flagged + ", why above";
    // past the last key, the fixed step's last row holds it (the file spans more than the keys)
    if (tr.fixed_step && tr.sample_count() > 0 && tr.times.back() > timeline.end())
      note = "; fixed step, the last row at " + format_double(tr.times.back()) +
             " s holding the last key" + note;
    std::fprintf(stderr, "%zu samples over %.4g s (%zu keys) in %s%s\n", tr.sample_count(),
                 timeline.end() - timeline.start(), timeline.keys.size(),
                 format_seconds(tr.seconds).c_str(), note.c_str());
  } catch (const std::bad_alloc&) {
    return report_out_of_memory("ikwb animate",
                                "the trajectory at " + format_double(rate) + " samples/s (--rate)");
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb animate: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ikwb animate: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace ikwb
