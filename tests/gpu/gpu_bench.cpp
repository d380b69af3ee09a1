// gpu_bench: timings of the CUDA backend on the Panda (built in code, no URDF needed).
//   1. the batch protocol of solver/benchmark.hpp (pose targets, 5 mm / 0.05 rad) for batch
//      sizes up to a large throughput batch, CUDA and CPU side by side;
//   2. graph replay against direct launches for a repeated interactive solve (batch 1, 1000);
//   3. CUDA against CPU (float) on the same seeds: converged flags and q;
//   4. batched forward kinematics throughput.
// Usage: gpu_bench [--quick] [--large N]. Without a device it prints "skipped: ..." and exits
// 0, or exits 1 when IKWB_REQUIRE_GPU is set (and not "0").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/core/fk.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_fk.hpp"
#include "kernels/cuda_solver.hpp"
#include "solver/benchmark.hpp"
#include "solver/test_robots.hpp"

namespace {

using namespace ikwb;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void print_stats(const char* backend, const BenchStats& s) {
  std::printf("%-5s %-12s %8d %8.2f%% %11.1f %11.1f %11.1f %13.0f %10.2e %10.2e\n", backend,
              s.label.c_str(), s.problems, 100.0 * s.success_rate(), s.mean_s * 1e6,
              s.median_s * 1e6, s.p99_s * 1e6, s.solves_per_s, s.max_position_error,
              s.max_rotation_error);
  std::fflush(stdout);
}

void batch_protocol(const std::shared_ptr<const Model>& model, int link, bool quick, int large,
                    CudaSolver& gpu) {
  std::printf("\n== batch protocol (pose targets, success at 5 mm / 0.05 rad) ==\n");
  std::printf("%-5s %-12s %8s %9s %11s %11s %11s %13s %10s %10s\n", "back", "batch", "problems",
              "success", "mean_us", "median_us", "p99_us", "solves/s", "max_pos_m", "max_rot_rad");
  auto cpu = make_cpu_solver();
  SolverSettings s = batch_settings();
  std::vector<int> sizes = {1, 10, 100, 1000, 2000, large};
  for (int b : sizes) {
    int reps = b >= 10000 ? 3 : (quick ? 5 : 20);
    // warm-up: model upload, buffer sizing, graph capture
    run_batch_protocol(model, link, {0, 0, 0}, b, 1, s, gpu, 99);
    print_stats("cuda", run_batch_protocol(model, link, {0, 0, 0}, b, reps, s, gpu));
    const CudaSolver::Stats& st = gpu.stats();
    if (b == 1)
      std::printf(
          "      cuda rows: %s, %d threads per block, %zu B shared per block, %zu B per row\n",
          st.shared_memory_rows ? "shared memory" : "global scratch", st.block_size,
          st.shared_bytes, st.row_scratch_bytes);
    std::printf("      cuda attempt lanes: %d per row\n", st.attempt_lanes);
    if (b >= 1000) {
      // the same batch with every row's buffers in global memory instead of shared memory
      gpu.set_row_storage(CudaSolver::RowStorage::kGlobal);
      run_batch_protocol(model, link, {0, 0, 0}, b, 1, s, gpu, 99);
      print_stats("cuda*", run_batch_protocol(model, link, {0, 0, 0}, b, reps, s, gpu));
      gpu.set_row_storage(CudaSolver::RowStorage::kAuto);
    }
    int cpu_reps = b >= 10000 ? 1 : (quick ? 2 : 5);
    print_stats("cpu", run_batch_protocol(model, link, {0, 0, 0}, b, cpu_reps, s, *cpu));
  }
  std::printf("(cuda*: row buffers in global memory instead of shared memory)\n");
}

void graph_replay(const std::shared_ptr<const Model>& model, int link, bool quick,
                  CudaSolver& gpu) {
  std::printf("\n== graph replay vs direct launches (same frame solved repeatedly) ==\n");
  std::printf("%-6s %-7s %6s %12s %12s %12s %9s\n", "batch", "mode", "reps", "median_us", "mean_us",
              "device_ms", "success");
  for (int b : {1, 1000}) {
    IkProblem problem(model, b);
    int obj = problem.add_pose(link);
    problem.set_target_poses(obj, random_pose_targets(*model, link, {0, 0, 0}, b, 17));
    SolverSettings s = batch_settings();
    std::vector<double> q0 = model->middle_configuration();
    const int reps = quick ? 50 : (b == 1 ? 500 : 100);
    for (bool graphs : {true, false}) {
      gpu.set_graphs_enabled(graphs);
      SolveResult res;
      gpu.solve(problem, s, q0, res);
      std::vector<double> t;
      double device_ms = 0;
      int ok = 0;
      for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        gpu.solve(problem, s, q0, res);
        t.push_back(seconds_since(t0));
        device_ms += gpu.stats().last_device_ms;
      }
      for (const auto& p : res.problems) ok += p.converged;
      double mean = 0;
      for (double x : t) mean += x;
      mean /= double(t.size());
      std::printf("%-6d %-7s %6d %12.1f %12.1f %12.3f %8.1f%%\n", b, graphs ? "graph" : "direct",
                  reps, median(t) * 1e6, mean * 1e6, device_ms / reps, 100.0 * ok / b);
      std::fflush(stdout);
    }
  }
  gpu.set_graphs_enabled(true);
  std::printf("graph captures %lld, replays %lld, direct solves %lld\n", gpu.stats().graph_captures,
              gpu.stats().graph_replays, gpu.stats().direct_launches);
}

void parity(const std::shared_ptr<const Model>& model, int link, CudaSolver& gpu) {
  std::printf("\n== CUDA vs CPU (float), same seeds ==\n");
  const int P = 1000;
  IkProblem problem(model, P);
  int obj = problem.add_pose(link);
  problem.set_target_poses(obj, random_pose_targets(*model, link, {0, 0, 0}, P, 23));
  SolverSettings s;
  s.n_seeds = 4;
  s.sampler = Sampler::kRoberts;
  s.max_restarts = 5;
  s.solve_all_seeds = true;
  s.use_float = true;
  std::vector<double> q0 = model->middle_configuration();
  SolveResult g, c;
  gpu.solve(problem, s, q0, g);
  make_cpu_solver()->solve(problem, s, q0, c);
  int rows = int(g.row_converged.size()), same_flag = 0, both = 0, close = 0;
  double worst = 0;
  const int nq = model->coord_count;
  for (int r = 0; r < rows; ++r) {
    same_flag += g.row_converged[r] == c.row_converged[r];
    if (!(g.row_converged[r] && c.row_converged[r])) continue;
    ++both;
    double d = 0;
    for (int i = 0; i < nq; ++i)
      d = std::max(d,
                   std::fabs(g.row_q[std::size_t(r) * nq + i] - c.row_q[std::size_t(r) * nq + i]));
    worst = std::max(worst, d);
    close += d <= 1e-3;
  }
  int conv_g = 0, conv_c = 0;
  for (int p = 0; p < P; ++p) conv_g += g.problems[p].converged, conv_c += c.problems[p].converged;
  std::printf(
      "rows %d: same converged flag %d; both converged %d, of which |dq|<=1e-3 rad: %d "
      "(max |dq| %.2e)\nproblems converged: cuda %d, cpu %d of %d\n",
      rows, same_flag, both, close, worst, conv_g, conv_c, P);
}

void fk_throughput(const std::shared_ptr<const Model>& model, int large) {
  std::printf("\n== batched FK (poses and velocities, float, host arrays in/out) ==\n");
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int n = large;
  std::vector<float> q(std::size_t(n) * model->coord_count), qd(std::size_t(n) * model->dof_count);
  for (auto& v : q) v = u(rng);
  for (auto& v : qd) v = u(rng);
  std::vector<Transform<float>> bq(std::size_t(n) * model->body_count, transform_identity<float>());
  std::vector<Spatial<float>> bqd(std::size_t(n) * model->body_count,
                                  Spatial<float>{zero3<float>(), zero3<float>()});
  CudaFk fk(model);
  fk.eval(n, q, qd, bq, bqd);
  std::vector<double> t;
  for (int r = 0; r < 10; ++r) {
    auto t0 = Clock::now();
    fk.eval(n, q, qd, bq, bqd);
    t.push_back(seconds_since(t0));
  }
  std::vector<double> qd64(qd.begin(), qd.end()), q64(q.begin(), q.end());
  std::vector<Transform<double>> bq64(bq.size(), transform_identity<double>());
  std::vector<Spatial<double>> bqd64(bq.size(), Spatial<double>{zero3<double>(), zero3<double>()});
  auto t0 = Clock::now();
  eval_fk_batch(*model, n, q64, qd64, bq64, bqd64);
  double cpu = seconds_since(t0);
  std::printf(
      "batch %d: cuda median %.3f ms (%.1f M rows/s incl. transfers), cpu 1 thread "
      "double %.3f ms\n",
      n, median(t) * 1e3, n / median(t) * 1e-6, cpu * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int large = 65536;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--large") && i + 1 < argc) {
      large = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: gpu_bench [--quick] [--large N]\n");
      return 2;
    }
  }
  std::string why;
  if (!cuda_device_usable(&why)) {
    const char* required = std::getenv("IKWB_REQUIRE_GPU");
    if (required && *required && std::strcmp(required, "0") != 0) {
      std::fprintf(stderr, "gpu_bench: IKWB_REQUIRE_GPU is set, but no usable CUDA device: %s\n",
                   why.c_str());
      return 1;
    }
    std::printf("skipped: %s\n", why.c_str());
    return 0;
  }
  try {
    auto model = std::make_shared<const Model>(test::panda());
    int link = model->find_body("panda_hand_tcp");
    CudaSolver gpu;
    std::printf("robot panda (%d dofs), link panda_hand_tcp\n", model->dof_count);
    batch_protocol(model, link, quick, large, gpu);
    graph_replay(model, link, quick, gpu);
    parity(model, link, gpu);
    fk_throughput(model, large);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
