// Google Benchmark for the CPU IK solver on the shipped Panda: single pose solves from the
// middle of the limits (TRAC-IK style, one thread) and batches (all threads), with the
// success rate and errors reported as counters next to the time.
#include <benchmark/benchmark.h>

#include <memory>

#include "engine/core/urdf_loader.hpp"
#include "solver/benchmark.hpp"

namespace {

std::shared_ptr<const ikwb::Model> panda() {
  static std::shared_ptr<const ikwb::Model> m = [] {
    ikwb::UrdfOptions opt;
    opt.load_meshes = false;
    return ikwb::load_urdf_file(IKWB_SOURCE_DIR "/assets/robots/panda/panda.urdf", opt).model;
  }();
  return m;
}

void report(benchmark::State& state, const ikwb::BenchStats& s) {
  state.counters["success"] = s.success_rate();
  state.counters["max_pos_err"] = s.max_position_error;
  state.counters["max_rot_err"] = s.max_rotation_error;
  state.counters["solves_per_s"] = s.solves_per_s;
}

void BM_PandaTracIk(benchmark::State& state) {
  auto model = panda();
  int link = model->find_body("panda_hand_tcp");
  auto solver = ikwb::make_cpu_solver();
  ikwb::BenchStats last;
  for (auto _ : state)
    last = ikwb::run_tracik_protocol(model, link, {0, 0, 0}, int(state.range(0)),
                                     ikwb::tracik_settings(), *solver);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  report(state, last);
}
BENCHMARK(BM_PandaTracIk)->Arg(200)->Unit(benchmark::kMillisecond);

void BM_PandaBatch(benchmark::State& state) {
  auto model = panda();
  int link = model->find_body("panda_hand_tcp");
  auto solver = ikwb::make_cpu_solver();
  ikwb::BenchStats last;
  for (auto _ : state)
    last = ikwb::run_batch_protocol(model, link, {0, 0, 0}, int(state.range(0)), 1,
                                    ikwb::batch_settings(), *solver);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  report(state, last);
}
BENCHMARK(BM_PandaBatch)->Arg(1)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
