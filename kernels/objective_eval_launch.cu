// Host launcher of eval_objective_rows_cuda: checks, uploads, one kernel, downloads.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_objectives.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/device_model.hpp"
#include "kernels/objective_eval.cuh"
#include "kernels/solve_host.hpp"

namespace ikwb {

namespace {

constexpr int kEvalBlock = 128;

// Thread mapping: one thread per configuration row; it evaluates every objective of that row
// into its own slices of residual / jacobian (and its own body_q / raw scratch).
__global__ void objective_rows_kernel(ProblemView<float> pv, int n_rows, const float* q,
                                      const int* problem_index, int weighted,
                                      const float* al_lambda, float mu, Transform<float>* body_q,
                                      float* raw, float* residual, float* jacobian) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n_rows) return;
  const std::size_t r = std::size_t(row);
  const int nr = pv.residual_count, nv = pv.model.dof_count;
  cuda::objective_rows(pv, problem_index[row], weighted != 0, al_lambda, mu,
                       q + r * pv.model.coord_count, body_q + r * pv.model.body_count, raw + r * nr,
                       residual + r * nr, jacobian + r * nr * nv);
}

// a stream that is destroyed with the scope
struct ScopedStream {
  cudaStream_t s = nullptr;
  ScopedStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~ScopedStream() {
    if (s) cudaStreamDestroy(s);
  }
};

}  // namespace

void eval_objective_rows_cuda(const IkProblem& problem, const std::vector<float>& q,
                              const std::vector<int>& problem_index, ObjectiveRows kind, float mu,
                              std::vector<float>& residual, std::vector<float>& jacobian) {
  const Model& m = problem.model();
  const std::size_t n = problem_index.size();
  if (q.size() != n * m.coord_count)
    throw std::invalid_argument("eval_objective_rows_cuda: q has " + std::to_string(q.size()) +
                                " values, expected problem_index.size() x joint_coord_count = " +
                                std::to_string(n * m.coord_count));
  for (int p : problem_index)
    if (p < 0 || p >= problem.problem_count())
      throw std::invalid_argument("eval_objective_rows_cuda: problem index " + std::to_string(p) +
                                  " out of range [0, " + std::to_string(problem.problem_count()) +
                                  ")");
  const int nr = problem.residual_count(), nv = m.dof_count;
  residual.assign(n * nr, 0.0f);
  jacobian.assign(n * nr * nv, 0.0f);
  if (n == 0) return;

  ScopedStream stream;
  cuda::DeviceModel model;
  model.upload(problem.model_ptr(), stream.s);
  cuda::FloatProblem fp(problem);
  cuda::BytePacker pk;
  std::size_t o_params = pk.add(fp.params.data(), fp.params.size());
  std::size_t o_targets = pk.add(fp.targets.data(), fp.targets.size());
  std::size_t o_rest = pk.add(fp.rest.data(), fp.rest.size());
  std::size_t o_points = pk.add(fp.points.data(), fp.points.size());
  std::size_t o_lower = pk.add(fp.lower.data(), fp.lower.size());
  std::size_t o_upper = pk.add(fp.upper.data(), fp.upper.size());
  const CollisionWorld& cw = problem.collision_world();
  std::size_t o_capsules = pk.add(fp.capsules.data(), fp.capsules.size());
  std::size_t o_pairs = pk.add(cw.self_pairs.data(), cw.self_pairs.size());
  std::size_t o_world = pk.add(cw.world_capsules.data(), cw.world_capsules.size());
  std::size_t o_obstacles = pk.add(fp.obstacles.data(), fp.obstacles.size());
  std::vector<float> zeros(std::size_t(nr) + 1, 0.0f);
  std::size_t o_zeros = pk.add(zeros.data(), zeros.size());
  cuda::DeviceBuffer<unsigned char> data;
  cuda::upload(data, pk.bytes(), stream.s);

  ProblemView<float> pv = fp.view;
  pv.model = model.view();
  pv.dof_lower = cuda::at_offset<const float>(data.get(), o_lower);
  pv.dof_upper = cuda::at_offset<const float>(data.get(), o_upper);
  pv.objectives = cuda::at_offset<const ObjectiveParams<float>>(data.get(), o_params);
  pv.targets = cuda::at_offset<const Transform<float>>(data.get(), o_targets);
  pv.rest_q = cuda::at_offset<const float>(data.get(), o_rest);
  pv.points = cuda::at_offset<const LinkPoint<float>>(data.get(), o_points);
  pv.collision.capsules = cuda::at_offset<const LinkCapsule<float>>(data.get(), o_capsules);
  pv.collision.self_pairs = cuda::at_offset<const int>(data.get(), o_pairs);
  pv.collision.world_capsules = cuda::at_offset<const int>(data.get(), o_world);
  pv.collision.obstacles = cuda::at_offset<const CollisionShape<float>>(data.get(), o_obstacles);

  cuda::DeviceBuffer<float> d_q, d_raw, d_r, d_J;
  cuda::DeviceBuffer<int> d_index;
  cuda::DeviceBuffer<Transform<float>> d_body;
  cuda::upload(d_q, q, stream.s);
  cuda::upload(d_index, problem_index, stream.s);
  d_raw.reserve(n * nr);
  d_r.reserve(n * nr);
  d_J.reserve(n * nr * nv);
  d_body.reserve(n * m.body_count);

  const int grid = int((n + kEvalBlock - 1) / kEvalBlock);
  cuda::clear_last_error();
  objective_rows_kernel<<<grid, kEvalBlock, 0, stream.s>>>(
      pv, int(n), d_q.get(), d_index.get(), kind == ObjectiveRows::kWeighted ? 1 : 0,
      cuda::at_offset<const float>(data.get(), o_zeros), mu, d_body.get(), d_raw.get(), d_r.get(),
      d_J.get());
  CUDA_CHECK_LAUNCH("objective_rows_kernel");
  if (!residual.empty())
    CUDA_CHECK(cudaMemcpyAsync(residual.data(), d_r.get(), residual.size() * sizeof(float),
                               cudaMemcpyDeviceToHost, stream.s));
  if (!jacobian.empty())
    CUDA_CHECK(cudaMemcpyAsync(jacobian.data(), d_J.get(), jacobian.size() * sizeof(float),
                               cudaMemcpyDeviceToHost, stream.s));
  CUDA_CHECK(cudaStreamSynchronize(stream.s));
}

}  // namespace ikwb
