// CudaSolver: uploads, launch sizing, the solve kernels, graph capture and replay, and
// the copy back of per-row results. The per-row work is the shared row driver
// (solver/row_driver.hpp), called through kernels/row_solve.cuh.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_solver.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/device_model.hpp"
#include "kernels/row_solve.cuh"
#include "kernels/solve_host.hpp"
#include "solver/backend_common.hpp"

namespace ikwb {

namespace {

using cuda::DeviceBuffer;
using cuda::PinnedBuffer;
using cuda::RowScratchLayout;
using cuda::SolveConfig;

constexpr int kRowsPerSharedBlock = 32;  // one warp of rows per block on the shared path
constexpr int kGlobalBlock = 128;        // rows per block on the global-scratch path
constexpr int kPickBlock = 128;
constexpr int kWarpsPerSm = 4;  // one per scheduler: the threads a short batch is spread over

// where solve_rows_kernel keeps each row's buffers
enum class RowScratch { kShared, kGlobal };

// A launch's attempt lanes (AttemptLane, solver/row_driver.hpp): `lanes` threads per batch row,
// each running every lanes-th attempt of the row, combined by combine_lanes_kernel and
// finished by finish_rows_kernel. With one lane the solve kernel writes and finishes the rows
// itself and the buffers are unused.
struct LaneBuffers {
  int lanes = 1;
  int attempts = 0;                  // per row: max_restarts + 1
  float* q = nullptr;                // (n_batch x lanes x nq) each lane's kept configuration
  float* lambda = nullptr;           // (n_batch x lanes x nr) its multipliers (keep_multipliers)
  RowResult<float>* rows = nullptr;  // (n_batch x lanes)
  unsigned* stop_after = nullptr;    // (n_batch) lowest converged attempt, ~0u while none
  int* iterations = nullptr;         // (n_batch x attempts) each attempt's iterations
  uint64_t* deadline = nullptr;      // (n_batch) each row's deadline (row_deadline_ns)
};

// Thread mapping: one thread per batch row and lane, lane-major: thread = blockIdx.x *
// blockDim.x + threadIdx.x = lane * rows_per_lane + row, row = problem * n_seeds + seed,
// where rows_per_lane rounds n_batch up to whole blocks: a warp holds one lane of up to 32 rows,
// and a row's lanes run in different warps (side by side, not diverging in one). The thread
// samples its attempts' seeds and runs their LM solves alone. Its buffers (q, poses, residuals, J,
// J^T J, Cholesky factor, ...) are one block of `layout.stride` floats: kShared puts it in
// dynamic shared memory at threadIdx.x * stride (the odd stride puts a warp's same-element
// accesses in 32 distinct banks), kGlobal in global_scratch at thread * stride. With one lane
// each thread writes only its own row of row_q, row_lambda and rows; with more, its lane's slot
// (row * lanes + lane), its attempts' iteration counts, atomically the row's stop_after, and
// lane 0 the row's deadline. warm: (problem_count x nr); row_lambda: (n_batch x nr).
template <RowScratch kScratch>
__global__ void solve_rows_kernel(ProblemView<float> pv, const SolveConfig* cfg,
                                  const uint8_t* dof_free, const float* q_init, const float* warm,
                                  int n_batch, int rows_per_lane, RowScratchLayout layout,
                                  float* global_scratch, float* row_q, float* row_lambda,
                                  RowResult<float>* rows, LaneBuffers lanes) {
  extern __shared__ float shared_rows[];
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = thread % rows_per_lane, lane = thread / rows_per_lane;
  if (row >= n_batch || lane >= lanes.lanes) return;
  const int nq = pv.model.coord_count, nr = pv.residual_count;
  float* scratch = kScratch == RowScratch::kShared
                       ? shared_rows + std::size_t(threadIdx.x) * layout.stride
                       : global_scratch + std::size_t(thread) * layout.stride;
  const SolveConfig& c = *cfg;
  const uint8_t* free = c.has_dof_mask ? dof_free : nullptr;
  if (lanes.lanes == 1) {
    cuda::solve_row_attempts(pv, c, free, q_init, warm, row, scratch, layout,
                             row_q + std::size_t(row) * nq, row_lambda + std::size_t(row) * nr,
                             rows + row);
    return;
  }
  const std::size_t slot = std::size_t(row) * lanes.lanes + lane;
  cuda::solve_row_attempts(pv, c, free, q_init, warm, row, scratch, layout, lanes.q + slot * nq,
                           lanes.lambda + slot * nr, lanes.rows + slot,
                           {lane, lanes.lanes, lanes.stop_after + row,
                            lanes.iterations + std::size_t(row) * lanes.attempts},
                           lanes.deadline + row);
}

// Thread mapping: one thread per batch row; it combines the row's lanes (written by
// solve_rows_kernel) into its row of rows, row_q and row_lambda.
__global__ void combine_lanes_kernel(const SolveConfig* cfg, int nq, int nr, int n_batch,
                                     LaneBuffers lanes, float* row_q, float* row_lambda,
                                     RowResult<float>* rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n_batch) return;
  const int kept =
      combine_attempt_lanes(lanes.rows + std::size_t(row) * lanes.lanes, lanes.lanes,
                            lanes.iterations + std::size_t(row) * lanes.attempts,
                            lanes.attempts - 1, cfg->row.lm.tol_constraint, rows + row);
  const std::size_t slot = std::size_t(row) * lanes.lanes + kept;
  const float* q = lanes.q + slot * nq;
  for (int i = 0; i < nq; ++i) row_q[std::size_t(row) * nq + i] = q[i];
  if (!cfg->keep_multipliers) return;
  const float* lambda = lanes.lambda + slot * nr;
  for (int i = 0; i < nr; ++i) row_lambda[std::size_t(row) * nr + i] = lambda[i];
}

// Thread mapping: one thread per batch row, its buffers laid out as in solve_rows_kernel (at
// threadIdx.x * stride in shared memory, or at row * stride in global_scratch); it finishes
// the row combine_lanes_kernel wrote (finish_row_attempt) by the deadline its lane 0 wrote.
template <RowScratch kScratch>
__global__ void finish_rows_kernel(ProblemView<float> pv, const SolveConfig* cfg,
                                   const uint8_t* dof_free, int n_batch, RowScratchLayout layout,
                                   float* global_scratch, const uint64_t* deadline, float* row_q,
                                   float* row_lambda, RowResult<float>* rows) {
  extern __shared__ float shared_rows[];
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n_batch) return;
  float* scratch = kScratch == RowScratch::kShared
                       ? shared_rows + std::size_t(threadIdx.x) * layout.stride
                       : global_scratch + std::size_t(row) * layout.stride;
  const SolveConfig& c = *cfg;
  cuda::finish_row_attempt(pv, c, c.has_dof_mask ? dof_free : nullptr, row, scratch, layout,
                           row_q + std::size_t(row) * pv.model.coord_count,
                           row_lambda + std::size_t(row) * pv.residual_count, rows + row,
                           deadline[row]);
}

// Thread mapping: one thread per base problem p; it reads the n_seeds rows of p (written by
// solve_rows_kernel), sets their ran flags and writes picks[p]. diff: (problem_count x nv).
__global__ void pick_seeds_kernel(ModelView<float> m, const SolveConfig* cfg, int problem_count,
                                  const float* q_init, const float* row_q, RowResult<float>* rows,
                                  float* diff, ProblemPick* picks) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= problem_count) return;
  const SolveConfig& c = *cfg;
  cuda::mark_rows_run(c, p, rows);
  picks[p] = pick_problem_seed(m, c.row.n_seeds, c.row.prefer_closest != 0, c.row.lm.tol_constraint,
                               p, q_init, row_q, rows, diff + std::size_t(p) * m.dof_count);
}

// What decides buffer sizes and the launch configuration.
struct Shape {
  const Model* model = nullptr;
  uint64_t structure_version = 0;
  int problems = 0, seeds = 0, objectives = 0, residuals = 0, points = 0;
  int latent_rows = 0;  // lm_latent_rows: rows the LM step may set aside
  int nq = 0, nv = 0, nb = 0;
  int lanes = 1, attempts = 0;  // attempt lanes per row, and attempts per row when lanes > 1
  // collision world: capsules, self pair indices (2 per pair), world capsules, obstacles
  int capsules = 0, pair_indices = 0, world_capsules = 0, obstacles = 0;
  bool operator==(const Shape& o) const {
    return model == o.model && structure_version == o.structure_version && problems == o.problems &&
           seeds == o.seeds && objectives == o.objectives && residuals == o.residuals &&
           latent_rows == o.latent_rows && points == o.points && nq == o.nq && nv == o.nv &&
           nb == o.nb && capsules == o.capsules && pair_indices == o.pair_indices &&
           world_capsules == o.world_capsules && obstacles == o.obstacles && lanes == o.lanes &&
           attempts == o.attempts;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  int rows() const { return problems * seeds; }
};

// Offsets of the per-solve upload inside one byte block (16-byte aligned sections).
struct FrameLayout {
  std::size_t config = 0, params = 0, targets = 0, rest = 0, points = 0, lower = 0, upper = 0;
  std::size_t dof_free = 0, dof_seeded = 0, q_init = 0, warm = 0;
  std::size_t capsules = 0, pairs = 0, world_capsules = 0, obstacles = 0;
  std::size_t bytes = 0;
};

FrameLayout frame_layout(const Shape& s) {
  FrameLayout f;
  std::size_t at = 0;
  auto take = [&at](std::size_t n) {
    std::size_t o = (at + 15) & ~std::size_t(15);
    at = o + n;
    return o;
  };
  f.config = take(sizeof(SolveConfig));
  f.params = take(sizeof(ObjectiveParams<float>) * s.objectives);
  f.targets = take(sizeof(Transform<float>) * s.objectives * s.problems);
  f.rest = take(sizeof(float) * s.objectives * s.nq);
  f.points = take(sizeof(LinkPoint<float>) * s.points);
  f.lower = take(sizeof(float) * s.nv);
  f.upper = take(sizeof(float) * s.nv);
  f.dof_free = take(s.nv);
  f.dof_seeded = take(s.nv);
  f.q_init = take(sizeof(float) * s.problems * s.nq);
  f.warm = take(sizeof(float) * s.problems * s.residuals);
  f.capsules = take(sizeof(LinkCapsule<float>) * s.capsules);
  f.pairs = take(sizeof(int) * s.pair_indices);
  f.world_capsules = take(sizeof(int) * s.world_capsules);
  f.obstacles = take(sizeof(CollisionShape<float>) * s.obstacles);
  f.bytes = std::max<std::size_t>(at, 16);
  return f;
}

}  // namespace

struct CudaSolver::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
  int shared_optin = 0;  // bytes of dynamic shared memory a block may opt into
  int sm_count = 1;      // multiprocessors

  cuda::DeviceModel model;
  Shape shape;
  bool configured = false;
  uint64_t generation = 0;  // bumped whenever device pointers change

  FrameLayout frame;
  PinnedBuffer<unsigned char> frame_host;
  DeviceBuffer<unsigned char> frame_dev;
  DeviceBuffer<float> row_q, row_lambda, diff, scratch;
  DeviceBuffer<RowResult<float>> rows;
  DeviceBuffer<ProblemPick> picks;
  DeviceBuffer<float> lane_q, lane_lambda;
  DeviceBuffer<RowResult<float>> lane_results;
  DeviceBuffer<unsigned> stop_after;
  DeviceBuffer<int> attempt_iterations;
  DeviceBuffer<uint64_t> row_deadline;
  PinnedBuffer<float> row_q_host, row_lambda_host;
  PinnedBuffer<RowResult<float>> rows_host;
  PinnedBuffer<ProblemPick> picks_host;

  RowScratchLayout layout{};
  bool shared_rows = false;
  int block = 0;
  std::size_t shared_bytes = 0;

  RowStorage storage = RowStorage::kAuto;
  bool graphs_enabled = true;
  cudaGraphExec_t graph = nullptr;
  uint64_t graph_generation = 0;

  Stats stats;

  Impl() {
    try {
      int device = 0;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(
          cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
      // the shared-rows kernel may use the whole opt-in budget (the attribute is per kernel,
      // shared by every solver in the process, so it is never lowered; each launch asks for
      // what it needs) and prefers shared memory to L1; the global-scratch kernel keeps L1
      auto* shared_kernel = solve_rows_kernel<RowScratch::kShared>;
      CUDA_CHECK(cudaFuncSetAttribute(shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      shared_optin));
      CUDA_CHECK(cudaFuncSetAttribute(shared_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      int(cudaSharedmemCarveoutMaxShared)));
      CUDA_CHECK(cudaFuncSetAttribute(finish_rows_kernel<RowScratch::kShared>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, shared_optin));
      CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      CUDA_CHECK(cudaEventCreate(&ev_start));
      CUDA_CHECK(cudaEventCreate(&ev_stop));
    } catch (...) {
      release();
      throw;
    }
  }

  ~Impl() { release(); }

  void release() {
    drop_graph();
    if (ev_start) cudaEventDestroy(ev_start);
    if (ev_stop) cudaEventDestroy(ev_stop);
    if (stream) cudaStreamDestroy(stream);
    ev_start = ev_stop = nullptr;
    stream = nullptr;
  }

  void drop_graph() {
    if (graph) cudaGraphExecDestroy(graph);
    graph = nullptr;
  }

  // sizes buffers and the launch for a new shape
  void configure(const Shape& s) {
    configured = false;
    drop_graph();
    shape = s;
    frame = frame_layout(s);
    const std::size_t n = std::size_t(s.rows());
    frame_host.reserve(frame.bytes);
    frame_dev.reserve(frame.bytes);
    row_q.reserve(n * s.nq);
    row_lambda.reserve(n * s.residuals);
    rows.reserve(n);
    picks.reserve(s.problems);
    diff.reserve(std::size_t(s.problems) * s.nv);
    row_q_host.reserve(n * s.nq);
    row_lambda_host.reserve(n * s.residuals);
    rows_host.reserve(n);
    picks_host.reserve(s.problems);
    if (s.lanes > 1) {
      lane_q.reserve(n * s.lanes * s.nq);
      lane_lambda.reserve(n * s.lanes * s.residuals);
      lane_results.reserve(n * s.lanes);
      stop_after.reserve(n);
      attempt_iterations.reserve(n * s.attempts);
      row_deadline.reserve(n);
    }

    // row buffers in shared memory when a warp of rows fits the opt-in budget
    layout = cuda::row_scratch_layout(s.nq, s.nv, s.residuals, s.nb, s.latent_rows);
    const std::size_t row_bytes = std::size_t(layout.stride) * sizeof(float);
    shared_bytes = row_bytes * kRowsPerSharedBlock;
    shared_rows = storage != RowStorage::kGlobal && shared_bytes <= std::size_t(shared_optin);
    if (shared_rows) {
      block = kRowsPerSharedBlock;
    } else {
      block = kGlobalBlock;
      shared_bytes = 0;
      scratch.reserve(std::size_t(rows_per_lane(s)) * s.lanes * layout.stride);
    }
    ++generation;
    stats.shared_memory_rows = shared_rows;
    stats.block_size = block;
    stats.attempt_lanes = s.lanes;
    stats.shared_bytes = shared_bytes;
    stats.row_scratch_bytes = row_bytes;
    configured = true;
  }

  // rows per lane in the solve kernel's grid: the batch, rounded up to whole blocks when the
  // rows have lanes (set after `block`)
  int rows_per_lane(const Shape& s) const {
    return s.lanes == 1 ? s.rows() : (s.rows() + block - 1) / block * block;
  }

  ProblemView<float> device_view() {
    ProblemView<float> pv;
    void* base = frame_dev.get();
    pv.model = model.view();
    pv.dof_lower = cuda::at_offset<const float>(base, frame.lower);
    pv.dof_upper = cuda::at_offset<const float>(base, frame.upper);
    pv.objectives = cuda::at_offset<const ObjectiveParams<float>>(base, frame.params);
    pv.objective_count = shape.objectives;
    pv.problem_count = shape.problems;
    pv.residual_count = shape.residuals;
    pv.targets = cuda::at_offset<const Transform<float>>(base, frame.targets);
    pv.rest_q = cuda::at_offset<const float>(base, frame.rest);
    pv.points = cuda::at_offset<const LinkPoint<float>>(base, frame.points);
    pv.dof_seeded = cuda::at_offset<const uint8_t>(base, frame.dof_seeded);
    CollisionView<float>& c = pv.collision;
    c.capsules = cuda::at_offset<const LinkCapsule<float>>(base, frame.capsules);
    c.capsule_count = shape.capsules;
    c.self_pairs = cuda::at_offset<const int>(base, frame.pairs);
    c.self_pair_count = shape.pair_indices / 2;
    c.world_capsules = cuda::at_offset<const int>(base, frame.world_capsules);
    c.world_capsule_count = shape.world_capsules;
    c.obstacles = cuda::at_offset<const CollisionShape<float>>(base, frame.obstacles);
    c.obstacle_count = shape.obstacles;
    return pv;
  }

  // the launch sequence of one solve (the part captured as a graph)
  void launch_kernels() {
    void* base = frame_dev.get();
    const SolveConfig* cfg = cuda::at_offset<const SolveConfig>(base, frame.config);
    const uint8_t* dof_free = cuda::at_offset<const uint8_t>(base, frame.dof_free);
    const float* q_init = cuda::at_offset<const float>(base, frame.q_init);
    const float* warm = cuda::at_offset<const float>(base, frame.warm);
    const int n = shape.rows();
    LaneBuffers lanes;
    lanes.lanes = shape.lanes;
    if (shape.lanes > 1) {
      lanes.attempts = shape.attempts;
      lanes.q = lane_q.get();
      lanes.lambda = lane_lambda.get();
      lanes.rows = lane_results.get();
      lanes.stop_after = stop_after.get();
      lanes.iterations = attempt_iterations.get();
      lanes.deadline = row_deadline.get();
      CUDA_CHECK(cudaMemsetAsync(lanes.stop_after, 0xff, sizeof(unsigned) * n, stream));
      CUDA_CHECK(cudaMemsetAsync(lanes.iterations, 0, sizeof(int) * std::size_t(n) * shape.attempts,
                                 stream));
    }
    const int grid = (rows_per_lane(shape) * shape.lanes + block - 1) / block;
    auto* solve_rows = shared_rows ? solve_rows_kernel<RowScratch::kShared>
                                   : solve_rows_kernel<RowScratch::kGlobal>;
    cuda::clear_last_error();
    solve_rows<<<grid, block, shared_bytes, stream>>>(
        device_view(), cfg, dof_free, q_init, warm, n, rows_per_lane(shape), layout,
        shared_rows ? nullptr : scratch.get(), row_q.get(), row_lambda.get(), rows.get(), lanes);
    CUDA_CHECK_LAUNCH("solve_rows_kernel");
    if (shape.lanes > 1) {
      cuda::clear_last_error();
      combine_lanes_kernel<<<(n + kPickBlock - 1) / kPickBlock, kPickBlock, 0, stream>>>(
          cfg, shape.nq, shape.residuals, n, lanes, row_q.get(), row_lambda.get(), rows.get());
      CUDA_CHECK_LAUNCH("combine_lanes_kernel");
      auto* finish_rows = shared_rows ? finish_rows_kernel<RowScratch::kShared>
                                      : finish_rows_kernel<RowScratch::kGlobal>;
      cuda::clear_last_error();
      finish_rows<<<(n + block - 1) / block, block, shared_bytes, stream>>>(
          device_view(), cfg, dof_free, n, layout, shared_rows ? nullptr : scratch.get(),
          row_deadline.get(), row_q.get(), row_lambda.get(), rows.get());
      CUDA_CHECK_LAUNCH("finish_rows_kernel");
    }
    const int pick_grid = (shape.problems + kPickBlock - 1) / kPickBlock;
    cuda::clear_last_error();
    pick_seeds_kernel<<<pick_grid, kPickBlock, 0, stream>>>(model.view(), cfg, shape.problems,
                                                            q_init, row_q.get(), rows.get(),
                                                            diff.get(), picks.get());
    CUDA_CHECK_LAUNCH("pick_seeds_kernel");
  }

  void capture_graph() {
    drop_graph();
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      launch_kernels();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream, &broken);
      if (broken) cudaGraphDestroy(broken);
      cuda::clear_last_error();
      throw;
    }
    cudaGraph_t g = nullptr;
    CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    cudaError_t e = cudaGraphInstantiate(&graph, g, 0);
    cudaGraphDestroy(g);
    if (e != cudaSuccess) {
      graph = nullptr;
      CUDA_CHECK(e);
    }
    graph_generation = generation;
    ++stats.graph_captures;
  }

  // writes the per-solve upload into the pinned staging block; returns its SolveConfig
  SolveConfig stage(const IkProblem& problem, const SolverSettings& s,
                    const std::vector<double>& q0, const WarmStart& warm) {
    unsigned char* base = frame_host.get();
    SolveConfig c = cuda::make_solve_config(problem, s, warm);
    std::memcpy(base + frame.config, &c, sizeof(c));
    auto* params = cuda::at_offset<ObjectiveParams<float>>(base, frame.params);
    const auto& pa = problem.param_array();
    for (std::size_t i = 0; i < pa.size(); ++i) params[i] = convert_params<float>(pa[i]);
    auto* targets = cuda::at_offset<Transform<float>>(base, frame.targets);
    const auto& ta = problem.target_array();
    for (std::size_t i = 0; i < ta.size(); ++i) targets[i] = cast<float>(ta[i]);
    float* rest = cuda::at_offset<float>(base, frame.rest);
    const auto& ra = problem.rest_array();
    for (std::size_t i = 0; i < ra.size(); ++i) rest[i] = float(ra[i]);
    auto* points = cuda::at_offset<LinkPoint<float>>(base, frame.points);
    const auto& pts = problem.point_array();
    for (std::size_t i = 0; i < pts.size(); ++i)
      points[i] = {pts[i].link, cast<float>(pts[i].offset)};
    const std::vector<float> lower = float_limits(problem.dof_lower(), false),
                             upper = float_limits(problem.dof_upper(), true);
    std::memcpy(base + frame.lower, lower.data(), lower.size() * sizeof(float));
    std::memcpy(base + frame.upper, upper.data(), upper.size() * sizeof(float));
    uint8_t* dof_free = cuda::at_offset<uint8_t>(base, frame.dof_free);
    const auto& mask = problem.dof_mask();
    for (int d = 0; d < shape.nv; ++d) dof_free[d] = mask.empty() ? 1 : (mask[d] ? 1 : 0);
    // every dof drawn is all ones: the pointer stays the same for a captured graph
    uint8_t* dof_seeded = cuda::at_offset<uint8_t>(base, frame.dof_seeded);
    const std::vector<uint8_t> seeded = objective_seeded_dofs(problem);
    for (int d = 0; d < shape.nv; ++d) dof_seeded[d] = seeded.empty() ? 1 : seeded[d];
    float* q_init = cuda::at_offset<float>(base, frame.q_init);
    for (std::size_t i = 0; i < q0.size(); ++i) q_init[i] = float(q0[i]);
    float* warm_lambda = cuda::at_offset<float>(base, frame.warm);
    if (c.has_warm)
      for (std::size_t i = 0; i < warm.multipliers.size(); ++i)
        warm_lambda[i] = float(warm.multipliers[i]);
    const CollisionWorld& w = problem.collision_world();
    auto* capsules = cuda::at_offset<LinkCapsule<float>>(base, frame.capsules);
    for (std::size_t i = 0; i < w.capsules.size(); ++i) {
      const LinkCapsule<double>& c = w.capsules[i];
      capsules[i] = {c.body, cast<float>(c.p0), cast<float>(c.p1), float(c.radius)};
    }
    if (!w.self_pairs.empty())
      std::memcpy(base + frame.pairs, w.self_pairs.data(), sizeof(int) * w.self_pairs.size());
    if (!w.world_capsules.empty())
      std::memcpy(base + frame.world_capsules, w.world_capsules.data(),
                  sizeof(int) * w.world_capsules.size());
    auto* obstacles = cuda::at_offset<CollisionShape<float>>(base, frame.obstacles);
    for (std::size_t i = 0; i < w.obstacles.size(); ++i) {
      const CollisionShape<double>& o = w.obstacles[i];
      obstacles[i] = {o.type, cast<float>(o.pose), cast<float>(o.size)};
    }
    return c;
  }

  void solve(const IkProblem& problem, const SolverSettings& s, const std::vector<double>& q_in,
             const WarmStart& warm, SolveResult& result) {
    auto t0 = std::chrono::steady_clock::now();
    validate_settings(s);
    cuda::check_gpu_support(problem, s);
    std::vector<double> q0 = expand_initial(problem, q_in);
    const Model& m = problem.model();
    SolveConfig config;
    try {
      if (model.upload(problem.model_ptr(), stream)) {
        ++stats.model_uploads;
        configured = false;
      }
      Shape sh;
      sh.model = &m;
      sh.structure_version = problem.structure_version();
      sh.problems = problem.problem_count();
      sh.seeds = s.n_seeds;
      sh.objectives = problem.objective_count();
      sh.residuals = problem.residual_count();
      sh.latent_rows = lm_latent_rows(problem.param_array().data(), sh.objectives);
      sh.points = int(problem.point_array().size());
      sh.nq = m.coord_count;
      sh.nv = m.dof_count;
      sh.nb = m.body_count;
      const CollisionWorld& cw = problem.collision_world();
      sh.capsules = int(cw.capsules.size());
      sh.pair_indices = int(cw.self_pairs.size());
      sh.world_capsules = int(cw.world_capsules.size());
      sh.obstacles = int(cw.obstacles.size());
      // a short batch leaves most of the GPU idle: its rows' restarts run side by side
      sh.lanes = cuda::attempt_lanes(sh.rows(), s.max_restarts,
                                     sm_count * kRowsPerSharedBlock * kWarpsPerSm);
      sh.attempts = sh.lanes > 1 ? s.max_restarts + 1 : 0;
      if (!configured || sh != shape) configure(sh);
      config = stage(problem, s, q0, warm);

      // upload, solve (graph replay or direct launches), download
      const std::size_t n = std::size_t(shape.rows());
      CUDA_CHECK(cudaEventRecord(ev_start, stream));
      CUDA_CHECK(cudaMemcpyAsync(frame_dev.get(), frame_host.get(), frame.bytes,
                                 cudaMemcpyHostToDevice, stream));
      if (graphs_enabled) {
        if (!graph || graph_generation != generation) capture_graph();
        CUDA_CHECK(cudaGraphLaunch(graph, stream));
        ++stats.graph_replays;
      } else {
        launch_kernels();
        ++stats.direct_launches;
      }
      CUDA_CHECK(cudaMemcpyAsync(row_q_host.get(), row_q.get(), n * shape.nq * sizeof(float),
                                 cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaMemcpyAsync(rows_host.get(), rows.get(), n * sizeof(RowResult<float>),
                                 cudaMemcpyDeviceToHost, stream));
      if (config.keep_multipliers)
        CUDA_CHECK(cudaMemcpyAsync(row_lambda_host.get(), row_lambda.get(),
                                   n * shape.residuals * sizeof(float), cudaMemcpyDeviceToHost,
                                   stream));
      CUDA_CHECK(cudaMemcpyAsync(picks_host.get(), picks.get(),
                                 std::size_t(shape.problems) * sizeof(ProblemPick),
                                 cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaEventRecord(ev_stop, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      float ms = 0.0f;
      CUDA_CHECK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
      stats.last_device_ms = ms;
    } catch (...) {
      // wait for queued copies (the upload reads the pinned block the next stage() rewrites),
      // drop the errors failed calls left pending, and start over next time: new shape, new
      // graph
      cudaStreamSynchronize(stream);
      cuda::clear_last_error();
      drop_graph();
      configured = false;
      throw;
    }
    std::vector<double> lambda;
    if (config.keep_multipliers)
      lambda.assign(row_lambda_host.get(),
                    row_lambda_host.get() + std::size_t(shape.rows()) * shape.residuals);
    fill_solve_result(problem, shape.seeds, row_q_host.get(), rows_host.get(), picks_host.get(),
                      result, config.keep_multipliers ? lambda.data() : nullptr);
    ++stats.solves;
    result.solve_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

CudaSolver::CudaSolver() : impl_(std::make_unique<Impl>()) {}
CudaSolver::~CudaSolver() = default;

void CudaSolver::solve(const IkProblem& problem, const SolverSettings& settings,
                       const std::vector<double>& q_init, const WarmStart& warm,
                       SolveResult& result) {
  validate_warm_start(problem, warm);
  impl_->solve(problem, settings, q_init, warm, result);
}

void CudaSolver::set_graphs_enabled(bool enabled) {
  impl_->graphs_enabled = enabled;
  if (!enabled) impl_->drop_graph();
}

void CudaSolver::set_row_storage(RowStorage storage) {
  if (storage == impl_->storage) return;
  impl_->storage = storage;
  impl_->configured = false;
}

const CudaSolver::Stats& CudaSolver::stats() const {
  return impl_->stats;
}

}  // namespace ikwb
