// The CUDA backend of IkSolver (backend() == Backend::kCuda). Usually reached through
// make_solver(Backend::kCuda, &reason) after register_cuda_backend() (kernels/cuda_backend.hpp).
//
// Same API and semantics as the CPU backend (solver/cpu_backend.cpp), in single precision:
// the same seeds (counter-based samplers), the same restart sequence numbers, the same LM and
// augmented-Lagrangian iteration (solver/lm_row.hpp), the same best-seed rule, the same
// per-problem results and per-row outputs (rows a sequential CPU solve would not have run are
// reported as not run). Results match the CPU backend with use_float within float rounding.
//
// Differences, by design:
//  - custom objectives and the L-BFGS optimiser throw std::invalid_argument (use the CPU);
//  - every Jacobian mode evaluates the analytic Jacobian: for the built-in objectives autodiff
//    and mixed give the same derivative and finite differences approximate it;
//  - use_float and threads are ignored (always float, one GPU thread per batch row);
//  - time_budget_s: each row (problem x seed) gets the whole budget for its restarts, from the
//    moment that row starts on the GPU (global timer), and a problem's seeds run at once. The
//    CPU runs a problem's seeds in sequence under one deadline shared by them unless all seeds
//    run (solve_all_seeds, prefer_closest, n_seeds == 1), when each row has its own. Budgets
//    over 1e6 s mean none. Budgeted results depend on timing: no test compares them with the CPU.
// Any CUDA error throws std::runtime_error; the solver can be used again afterwards unless
// the error left the CUDA context unusable.
//
// Memory: the model is uploaded once per Model object (flat float arrays) and again only when
// the problem's model changes; buffers are sized from the problem shape and reallocated only
// when it changes (structure_version, problem_count, n_seeds, sizes). Every solve uploads one
// small block (settings, objective parameters, targets, rests, dof mask, q_init) and copies
// the per-row results back. The two kernels of a solve are captured as a CUDA graph per shape
// and replayed; uploads and downloads stay outside the graph.
// One CudaSolver is not safe to use from several threads at once; it uses the current device.
#pragma once

#include <memory>

#include "solver/solver.hpp"

namespace ikwb {

class CudaSolver : public IkSolver {
 public:
  // throws std::runtime_error when no CUDA device is usable
  CudaSolver();
  ~CudaSolver() override;
  using IkSolver::solve;
  // as the CPU backend: each problem's seed 0 begins from warm's multipliers, and the results
  // carry each row's (SolveResult::row_multipliers, in float)
  void solve(const IkProblem& problem, const SolverSettings& settings,
             const std::vector<double>& q_init, const WarmStart& warm,
             SolveResult& result) override;
  Backend backend() const override { return Backend::kCuda; }

  // capture the per-solve launch sequence as a CUDA graph and replay it (default on); off
  // launches the kernels directly every solve
  void set_graphs_enabled(bool enabled);

  // where each row's LM buffers live: kAuto puts them in shared memory when a warp of rows
  // fits the per-block budget, else in a global scratch slab; kGlobal always uses the slab.
  // For benchmarking: the results are identical.
  enum class RowStorage { kAuto, kGlobal };
  void set_row_storage(RowStorage storage);

  struct Stats {
    long long solves = 0;
    long long model_uploads = 0;
    long long graph_captures = 0;
    long long graph_replays = 0;
    long long direct_launches = 0;
    bool shared_memory_rows = false;    // row buffers in shared memory (else global scratch)
    int block_size = 0;                 // threads per block of the solve kernel
    int attempt_lanes = 1;              // threads per batch row (its restarts side by side)
    std::size_t shared_bytes = 0;       // dynamic shared memory per block
    std::size_t row_scratch_bytes = 0;  // buffers of one row
    double last_device_ms = 0;          // last solve: upload + kernels + download, GPU event time
  };
  const Stats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ikwb
