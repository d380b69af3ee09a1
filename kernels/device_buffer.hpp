// Owning buffers in device memory and in page-locked host memory (for asynchronous copies).
// Both only grow: reserve() reallocates when more elements are needed and reports it, so
// callers can tell when device pointers (for example those baked into a CUDA graph) changed.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/cuda_check.hpp"

namespace ikwb::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  // makes room for n elements; true when the storage moved (contents are then undefined)
  bool reserve(std::size_t n) {
    size_ = n;
    if (n <= capacity_) return false;
    release();
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T)));
    capacity_ = n;
    size_ = n;
    return true;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { release(); }

  bool reserve(std::size_t n) {
    size_ = n;
    if (n <= capacity_) return false;
    release();
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), n * sizeof(T)));
    capacity_ = n;
    size_ = n;
    return true;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void release() {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace ikwb::cuda
