// Error checking for CUDA runtime calls and kernel launches: any failure throws
// std::runtime_error naming the call, where it was made, and CUDA's error name and text, so a
// caller (the app) can switch to the CPU backend.
//
// cudaGetLastError() also returns errors of earlier runtime calls, so every throw clears the
// pending error, and clear_last_error() goes right before each launch: a launch check then
// sees only the launch it follows.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace ikwb::cuda {

// drops the pending (non-sticky) error of an earlier runtime call
inline void clear_last_error() {
  (void)cudaGetLastError();
}

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file,
                                          int line) {
  clear_last_error();
  std::string where = file;
  std::size_t slash = where.find_last_of('/');
  if (slash != std::string::npos) where = where.substr(slash + 1);
  throw std::runtime_error(std::string("CUDA error: ") + call + " failed at " + where + ":" +
                           std::to_string(line) + ": " + cudaGetErrorName(e) + " (" +
                           cudaGetErrorString(e) + ")");
}

}  // namespace ikwb::cuda

#define CUDA_CHECK(call)                                                         \
  do {                                                                           \
    cudaError_t ikwb_cuda_err_ = (call);                                         \
    if (ikwb_cuda_err_ != cudaSuccess)                                           \
      ::ikwb::cuda::throw_cuda_error(ikwb_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

// checks the kernel launch just made (bad configuration, missing kernel image, ...); call
// ::ikwb::cuda::clear_last_error() right before the launch
#define CUDA_CHECK_LAUNCH(kernel_name)                                                   \
  do {                                                                                   \
    cudaError_t ikwb_cuda_err_ = cudaGetLastError();                                     \
    if (ikwb_cuda_err_ != cudaSuccess)                                                   \
      ::ikwb::cuda::throw_cuda_error(ikwb_cuda_err_, "launch of " kernel_name, __FILE__, \
                                     __LINE__);                                          \
  } while (0)
