// Host launcher of batched forward kinematics on the GPU: argument checks (as eval_fk_batch),
// uploads, one kernel, downloads.
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_fk.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/device_model.hpp"
#include "kernels/fk_batch.cuh"

namespace ikwb {

namespace {

constexpr int kFkBlock = 128;

// Thread mapping: one thread per batch row; the thread walks the joints in topological order
// over its own row of q / qd and writes only its own row of body_q / body_qd.
__global__ void fk_rows_kernel(ModelView<float> m, int n_batch, const float* q, const float* qd,
                               const uint8_t* joint_selected, int flag_filter,
                               Transform<float>* body_q, Spatial<float>* body_qd) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n_batch) return;
  cuda::fk_batch_row(m, row, q, qd, joint_selected, flag_filter, body_q, body_qd);
}

void check_size(const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw ModelError(std::string(what) + ": expected " + std::to_string(want) + " values, got " +
                     std::to_string(got));
}

// eval_fk_batch's checks; returns the per-joint selection
std::vector<uint8_t> check_fk_arguments(const Model& m, int n_batch,
                                        const std::vector<float>& joint_q,
                                        const std::vector<float>& joint_qd,
                                        const std::vector<Transform<float>>& body_q,
                                        const std::vector<Spatial<float>>& body_qd,
                                        const FkOptions& options) {
  if (n_batch < 0) throw ModelError("eval_fk_cuda: n_batch must be >= 0");
  const std::size_t nb = std::size_t(n_batch);
  check_size("eval_fk_cuda joint_q (n_batch x joint_coord_count)", joint_q.size(),
             nb * m.coord_count);
  if (!joint_qd.empty()) {
    check_size("eval_fk_cuda joint_qd (n_batch x joint_dof_count)", joint_qd.size(),
               nb * m.dof_count);
    check_size("eval_fk_cuda body_qd (n_batch x body_count)", body_qd.size(), nb * m.body_count);
  }
  check_size("eval_fk_cuda body_q (n_batch x body_count)", body_q.size(), nb * m.body_count);
  return fk_joint_selection(m, options, "eval_fk_cuda");
}

}  // namespace

struct CudaFk::Impl {
  std::shared_ptr<const Model> host_model;
  cudaStream_t stream = nullptr;
  cuda::DeviceModel model;
  cuda::DeviceBuffer<float> q, qd;
  cuda::DeviceBuffer<uint8_t> sel;
  cuda::DeviceBuffer<Transform<float>> body_q;
  cuda::DeviceBuffer<Spatial<float>> body_qd;

  explicit Impl(std::shared_ptr<const Model> m) : host_model(std::move(m)) {
    if (!host_model) throw ModelError("CudaFk: model is null");
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    try {
      model.upload(host_model, stream);
    } catch (...) {
      cudaStreamDestroy(stream);
      throw;
    }
  }
  ~Impl() {
    if (stream) cudaStreamDestroy(stream);
  }

  void eval(int n_batch, const std::vector<float>& joint_q, const std::vector<float>& joint_qd,
            std::vector<Transform<float>>& bq, std::vector<Spatial<float>>& bqd,
            const FkOptions& options) {
    std::vector<uint8_t> selection =
        check_fk_arguments(*host_model, n_batch, joint_q, joint_qd, bq, bqd, options);
    if (n_batch == 0) return;
    const bool vel = !joint_qd.empty();

    // inputs, and the current body state that unselected bodies keep
    cuda::upload(q, joint_q, stream);
    cuda::upload(sel, selection, stream);
    cuda::upload(body_q, bq, stream);
    if (vel) {
      cuda::upload(qd, joint_qd, stream);
      cuda::upload(body_qd, bqd, stream);
    }
    const int grid = (n_batch + kFkBlock - 1) / kFkBlock;
    cuda::clear_last_error();
    fk_rows_kernel<<<grid, kFkBlock, 0, stream>>>(
        model.view(), n_batch, q.get(), vel ? qd.get() : nullptr, sel.get(),
        options.body_flag_filter, body_q.get(), vel ? body_qd.get() : nullptr);
    CUDA_CHECK_LAUNCH("fk_rows_kernel");
    CUDA_CHECK(cudaMemcpyAsync(bq.data(), body_q.get(), bq.size() * sizeof(Transform<float>),
                               cudaMemcpyDeviceToHost, stream));
    if (vel)
      CUDA_CHECK(cudaMemcpyAsync(bqd.data(), body_qd.get(), bqd.size() * sizeof(Spatial<float>),
                                 cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

CudaFk::CudaFk(std::shared_ptr<const Model> model) : impl_(std::make_unique<Impl>(model)) {}
CudaFk::~CudaFk() = default;

void CudaFk::eval(int n_batch, const std::vector<float>& joint_q,
                  const std::vector<float>& joint_qd, std::vector<Transform<float>>& body_q,
                  std::vector<Spatial<float>>& body_qd, const FkOptions& options) {
  impl_->eval(n_batch, joint_q, joint_qd, body_q, body_qd, options);
}

void eval_fk_cuda(const Model& model, int n_batch, const std::vector<float>& joint_q,
                  const std::vector<float>& joint_qd, std::vector<Transform<float>>& body_q,
                  std::vector<Spatial<float>>& body_qd, const FkOptions& options) {
  // argument errors first, without touching the device
  check_fk_arguments(model, n_batch, joint_q, joint_qd, body_q, body_qd, options);
  if (n_batch == 0) return;
  // a non-owning handle: the model outlives this call
  CudaFk fk(std::shared_ptr<const Model>(&model, [](const Model*) {}));
  fk.eval(n_batch, joint_q, joint_qd, body_q, body_qd, options);
}

}  // namespace ikwb
