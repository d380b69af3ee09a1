// Run-time selection of the CUDA backend. Programs that link ikwb_kernels call
// register_cuda_backend() once at start-up (under #if defined(IKWB_HAVE_CUDA)); afterwards
// make_solver(Backend::kCuda, &reason) returns a CudaSolver when a device is usable, and the
// CPU solver with the reason otherwise.
#pragma once

#include <string>

namespace ikwb {

// True when the CUDA runtime finds a driver and a device that can run this build's kernels.
// Otherwise false, with *reason (when given) saying why, for example
// "no CUDA driver (cudaErrorInsufficientDriver)" or "no CUDA device (cudaErrorNoDevice)".
bool cuda_device_usable(std::string* reason = nullptr);

// Registers the CUDA solver factory with set_cuda_solver_factory (solver/solver.hpp). The
// factory returns null and sets the reason when cuda_device_usable() is false or the solver
// cannot be created.
void register_cuda_backend();

}  // namespace ikwb
