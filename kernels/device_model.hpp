// The Model's kinematic arrays in device memory: converted once to float (ModelArrays<float>)
// and packed into one allocation, plus the dof limits in float (clamped to +-1e35 and rounded
// inward, as the CPU float path does). Hands out a ModelView<float> of device pointers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <vector>

#include "engine/core/model.hpp"
#include "kernels/device_buffer.hpp"

namespace ikwb::cuda {

// Packs arrays into one byte image with 16-byte aligned sections (host side).
class BytePacker {
 public:
  template <class T>
  std::size_t reserve(std::size_t n) {
    std::size_t at = (bytes_.size() + 15) & ~std::size_t(15);
    bytes_.resize(at + n * sizeof(T));
    return at;
  }
  template <class T>
  std::size_t add(const T* data, std::size_t n) {
    std::size_t at = reserve<T>(n);
    if (n) std::memcpy(bytes_.data() + at, data, n * sizeof(T));
    return at;
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

template <class T>
T* at_offset(void* base, std::size_t offset) {
  return reinterpret_cast<T*>(static_cast<unsigned char*>(base) + offset);
}

class DeviceModel {
 public:
  // uploads `model` unless it is the model already held; true when it uploaded (device
  // pointers changed). Holding the shared_ptr keeps the address from being reused.
  bool upload(const std::shared_ptr<const Model>& model, cudaStream_t stream);
  const ModelView<float>& view() const { return view_; }
  const Model* model() const { return model_.get(); }

 private:
  std::shared_ptr<const Model> model_;
  DeviceBuffer<unsigned char> data_;
  ModelView<float> view_;
};

}  // namespace ikwb::cuda
