#include "kernels/cuda_backend.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>

#include "kernels/cuda_check.hpp"
#include "kernels/cuda_solver.hpp"
#include "solver/solver.hpp"

#if !defined(IKWB_CUDA_ARCHS)
#define IKWB_CUDA_ARCHS "unknown"
#endif

namespace ikwb {

namespace {

// an empty kernel: asking for its attributes tells whether the device can run this build
__global__ void probe_kernel() {}

std::string error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

std::unique_ptr<IkSolver> make_cuda_solver(std::string* reason) {
  std::string why;
  if (!cuda_device_usable(&why)) {
    if (reason) *reason = why;
    return nullptr;
  }
  try {
    return std::make_unique<CudaSolver>();
  } catch (const std::exception& e) {
    if (reason) *reason = e.what();
    return nullptr;
  }
}

}  // namespace

bool cuda_device_usable(std::string* reason) {
  auto fail = [reason](const std::string& why) {
    if (reason) *reason = why;
    return false;
  };
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver) return fail("no CUDA driver (cudaErrorInsufficientDriver)");
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
    return fail("no CUDA device (cudaErrorNoDevice)");
  if (e != cudaSuccess) return fail("CUDA is unavailable (" + error_text(e) + ")");
  int device = 0;
  cudaDeviceProp prop{};
  e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) return fail("cannot query the CUDA device (" + error_text(e) + ")");
  cudaFuncAttributes attr{};
  e = cudaFuncGetAttributes(&attr, probe_kernel);
  if (e != cudaSuccess) {
    cuda::clear_last_error();
    return fail(
        "the CUDA device " + std::string(prop.name) + " (compute capability " +
        std::to_string(prop.major) + "." + std::to_string(prop.minor) +
        ") cannot run this build's kernels (built for " IKWB_CUDA_ARCHS "): " + error_text(e));
  }
  if (reason) reason->clear();
  return true;
}

void register_cuda_backend() {
  set_cuda_solver_factory(&make_cuda_solver);
}

}  // namespace ikwb
