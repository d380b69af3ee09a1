// Owning buffers in device memory and in page-locked host memory (for asynchronous copies):
// one class, parameterised by how it allocates. Both only grow: reserve() reallocates when
// more elements are needed and reports it, so callers can tell when device pointers (for
// example those baked into a CUDA graph) changed.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "kernels/cuda_check.hpp"

namespace ikwb::cuda {

struct DeviceAllocation {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFree(p); }
};

struct PinnedAllocation {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFreeHost(p); }
};

template <class T, class Allocation>
class CudaBuffer {
 public:
  CudaBuffer() = default;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  ~CudaBuffer() { release(); }

  // makes room for n elements; true when the storage moved (contents are then undefined).
  // On a failed allocation it throws and holds nothing (size() == 0).
  bool reserve(std::size_t n) {
    if (n <= capacity_) {
      size_ = n;
      return false;
    }
    release();
    ptr_ = static_cast<T*>(Allocation::allocate(n * sizeof(T)));
    capacity_ = n;
    size_ = n;
    return true;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void release() {
    if (ptr_) Allocation::release(ptr_);
    ptr_ = nullptr;
    size_ = capacity_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

template <class T>
using DeviceBuffer = CudaBuffer<T, DeviceAllocation>;
template <class T>
using PinnedBuffer = CudaBuffer<T, PinnedAllocation>;

// sizes d to h.size() elements and queues the copy of h on stream s
template <class T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& h, cudaStream_t s) {
  d.reserve(h.size());
  if (!h.empty())
    CUDA_CHECK(cudaMemcpyAsync(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s));
}

}  // namespace ikwb::cuda
