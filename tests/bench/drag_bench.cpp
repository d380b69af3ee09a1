// Google Benchmark: the workbench's drag without a window. The frame step the workbench runs
// (gui::SolverDriver::step_frame: the bounded solve, FK, each objective's status) while one
// objective's target moves as the bench drag scripts move it (assets/scripts/bench_drag.txt on
// the Panda, bench_drag_humanoid.txt on the humanoid): four translations and two rotations of 48
// frames each, about the target's own position along the world axes, 288 frames, after 30
// frames at rest. The settings are the scripts' (the preset's, the default 4 ms frame budget, the
// CPU backend; the Panda's 64 seeds from a Roberts sequence).
//
// The workbench's numbers depend on what the rendering does to the caches between the solves;
// this program measures the solve itself, twice: warm (the frames back to back) and with the data
// caches flushed before each frame (64 MB written, outside the timing), which reproduces most of
// the first pass's misses the workbench sees under software OpenGL (docs/benchmarks.md, "A
// cold-cache proxy"). Only data is written, so the instruction cache and the branch predictors
// keep more than a drawn frame leaves them, and the flushed runs stay below the workbench's
// figures.
//
// Counters: solve_median_us (the median of the frames' solve times, app.solve.solve_ms, over
// the run's drags), iters_per_frame (the kept seed's iterations), converged (the
// share of frames whose kept configuration meets the tolerances). Time: one 288-frame drag.
//   build/bench/drag_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "app/gui/solver_driver.hpp"
#include "solver/settings.hpp"

namespace {

using namespace ikwb;

struct Segment {
  Vec3<double> move;  // m, world
  int rotate_axis;    // -1: a translation
  double angle;       // rad, about the target's position
};

struct DragCase {
  std::string robot;
  int objective;
  std::vector<Segment> segments;
  nlohmann::json solver;  // the script's `solver` lines
};

constexpr double kDeg = M_PI / 180;
constexpr int kFramesPerSegment = 48;
constexpr int kRestFrames = 30;

DragCase panda_case() {
  return {"panda",
          0,
          {{{0.15, 0, 0}, -1, 0},
           {{0, 0.20, 0}, -1, 0},
           {{0, 0, -0.15}, -1, 0},
           {{0, 0, 0}, 2, 60 * kDeg},
           {{-0.15, -0.20, 0}, -1, 0},
           {{0, 0, 0}, 0, 30 * kDeg}},
          {{"n_seeds", 64}, {"sampler", "roberts"}}};
}

DragCase humanoid_case() {
  return {"humanoid",
          2,
          {{{0.10, 0, 0}, -1, 0},
           {{0, 0.10, 0}, -1, 0},
           {{0, 0, -0.10}, -1, 0},
           {{0, 0, 0}, 2, 40 * kDeg},
           {{-0.10, -0.10, 0}, -1, 0},
           {{0, 0, 0}, 0, 30 * kDeg}},
          nlohmann::json::object()};
}

Transform<double> moved(const Transform<double>& start, const Segment& s, double t) {
  Transform<double> r = start;
  r.p = start.p + s.move * t;
  if (s.rotate_axis >= 0) {
    Vec3<double> axis{0, 0, 0};
    axis[s.rotate_axis] = 1;
    r.q = normalize(quat_from_axis_angle(axis, s.angle * t) * start.q);
  }
  return r;
}

// writes enough to push the solver's data out of every cache level
void flush_data_caches() {
  static std::vector<std::uint64_t> junk(std::size_t(64) << 17);  // 64 MB
  for (std::size_t i = 0; i < junk.size(); i += 8) junk[i] += i;
  benchmark::DoNotOptimize(junk.data());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  if (v.size() % 2) return v[h];
  return (v[h] + *std::max_element(v.begin(), v.begin() + h)) / 2;
}

void run_drag(benchmark::State& state, const DragCase& c, bool flush) {
  std::vector<double> solve_ms;
  double iterations = 0, converged = 0, frames = 0;
  for (auto _ : state) {
    state.PauseTiming();
    gui::AppState app;
    if (!app.open_robot_preset(c.robot)) {
      state.SkipWithError(("cannot open the preset " + c.robot).c_str());
      return;
    }
    std::vector<std::string> warnings;
    apply_solver_json(c.solver, app.settings, warnings);
    if (!warnings.empty()) {
      state.SkipWithError(warnings.front().c_str());
      return;
    }
    app.settings.backend = Backend::kCpu;
    gui::SolverDriver driver;
    driver.init(app);
    for (int k = 0; k < kRestFrames; ++k) {
      ++app.frame;
      driver.step_frame(app);
    }
    state.ResumeTiming();
    for (const Segment& s : c.segments) {
      const Transform<double> start = app.objectives[c.objective].target;
      for (int k = 1; k <= kFramesPerSegment; ++k) {
        if (flush) {
          state.PauseTiming();
          flush_data_caches();
          state.ResumeTiming();
        }
        app.set_target(c.objective, moved(start, s, double(k) / kFramesPerSegment));
        ++app.frame;
        driver.step_frame(app);
        solve_ms.push_back(app.solve.solve_ms);
        iterations += app.solve.iterations;
        converged += app.solve.converged ? 1 : 0;
        frames += 1;
      }
    }
  }
  state.counters["solve_median_us"] = median(solve_ms) * 1e3;
  state.counters["iters_per_frame"] = iterations / std::max(frames, 1.0);
  state.counters["converged"] = converged / std::max(frames, 1.0);
}

void BM_DragPanda(benchmark::State& state) {
  run_drag(state, panda_case(), state.range(0) != 0);
}
void BM_DragHumanoid(benchmark::State& state) {
  run_drag(state, humanoid_case(), state.range(0) != 0);
}

// three drags a run (a drag is 288 frames; the flushed runs write 18 GB)
BENCHMARK(BM_DragPanda)
    ->ArgName("flush")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DragHumanoid)
    ->ArgName("flush")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
