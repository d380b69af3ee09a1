// Google Benchmark: rendering a 10 s timeline at 100 Hz (1001 samples) on the shipped Panda and
// humanoid presets, with joint-space and task-space segments (IK at every sample, warm start).
// The keys: the preset's pose, then its first soft target (the Panda's hand, the humanoid's left
// hand) moved along a loop of four waypoints, each key solved by IK. Counters: samples, IK failures
// and the largest position error over samples.
#include <benchmark/benchmark.h>

#include <memory>

#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/timeline_render.hpp"

namespace {

using namespace ikwb;

struct Setup {
  std::shared_ptr<const Model> model;
  SceneSetup scene;
  Timeline timeline;
};

// the preset and five keys 2.5 s apart moving its first soft target around a loop
Setup make_setup(const std::string& robot, Interpolation mode) {
  Scene scene = load_scene(IKWB_SOURCE_DIR "/assets/robots/" + robot + "/preset.json");
  UrdfOptions opt;
  opt.floating_base = scene.floating_base;
  opt.load_meshes = false;
  Setup s;
  s.model = load_urdf_file(resolve_robot(scene.robot), opt).model;
  s.scene = resolve_scene(*s.model, scene);
  // the first target a user would drag: soft (the humanoid's first ones are its hard feet,
  // which a loop of 10 cm would tear off the ground)
  int tool = -1;
  for (int i = 0; i < int(s.scene.objectives.size()) && tool < 0; ++i) {
    const ObjectiveParams<double>& p = s.scene.objectives[i].objective.params;
    if (objective_kind(p.type).has_target() && !p.hard) tool = i;
  }
  const Vec3<double> loop[5] = {
      {0, 0, 0}, {0.1, 0.1, -0.1}, {0.1, -0.1, -0.1}, {-0.05, -0.1, 0.05}, {0, 0, 0}};
  auto solver = make_cpu_solver();
  SolverSettings settings;
  settings.max_iterations = 300;
  std::vector<double> q = s.scene.q;
  for (int k = 0; k < 5; ++k) {
    IkProblem problem = make_problem(s.model, s.scene.objectives, 1, &s.scene.collision);
    Transform<double> target = s.scene.objectives[tool].target;
    target.p = target.p + loop[k];
    problem.set_target_pose(tool, 0, target);
    SolveResult r;
    solver->solve(problem, settings, q, r);
    q = r.problems[0].q;
    Keyframe key;
    key.time = 2.5 * k;
    key.q = q;
    key.interpolation = mode;
    targets_at_key(*s.model, s.scene.objectives, key);
    key.targets[tool] = target;
    s.timeline.keys.push_back(key);
  }
  return s;
}

void render(benchmark::State& state, const std::string& robot, Interpolation mode) {
  Setup s = make_setup(robot, mode);
  auto solver = make_cpu_solver();
  SolverSettings settings;
  settings.threads = 1;
  Trajectory tr;
  for (auto _ : state)
    tr = render_timeline(s.model, s.scene.objectives, s.timeline, 100, settings, *solver, &s.scene);
  double max_err = 0;
  int failures = 0;
  for (const SegmentReport& r : tr.segments) {
    max_err = std::max(max_err, r.max_position_error);
    failures += r.ik_failures;
  }
  state.counters["samples"] = double(tr.sample_count());
  state.counters["ik_failures"] = failures;
  state.counters["max_pos_err"] = max_err;
}

void BM_TimelinePandaTask(benchmark::State& state) {
  render(state, "panda", Interpolation::kTask);
}
void BM_TimelinePandaJoint(benchmark::State& state) {
  render(state, "panda", Interpolation::kJoint);
}
void BM_TimelineHumanoidTask(benchmark::State& state) {
  render(state, "humanoid", Interpolation::kTask);
}
void BM_TimelineHumanoidJoint(benchmark::State& state) {
  render(state, "humanoid", Interpolation::kJoint);
}
BENCHMARK(BM_TimelinePandaTask)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelinePandaJoint)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineHumanoidTask)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineHumanoidJoint)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
