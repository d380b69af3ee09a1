// Batched forward kinematics on the GPU (float), with the semantics and the argument checks of
// eval_fk_batch (engine/core/fk.hpp): mask or indices (not both), body_flag_filter and
// joint_mask select what is updated; bodies that are not updated keep their values bit for bit.
#pragma once

#include <memory>
#include <vector>

#include "engine/core/fk.hpp"

namespace ikwb {

// joint_q (n_batch x coord_count), joint_qd (n_batch x dof_count, or empty: poses only),
// body_q (n_batch x body_count) in/out, body_qd (n_batch x body_count, needed when joint_qd is
// given) in/out. Throws ModelError on wrong sizes, both mask and indices, or indices out of
// range; std::runtime_error on a CUDA error (no device, ...). Uploads the model on every call:
// use CudaFk to keep it on the device.
void eval_fk_cuda(const Model& model, int n_batch, const std::vector<float>& joint_q,
                  const std::vector<float>& joint_qd, std::vector<Transform<float>>& body_q,
                  std::vector<Spatial<float>>& body_qd, const FkOptions& options = {});

// The model uploaded once; eval() as eval_fk_cuda. Not safe to use from several threads at
// once.
class CudaFk {
 public:
  explicit CudaFk(std::shared_ptr<const Model> model);
  ~CudaFk();
  void eval(int n_batch, const std::vector<float>& joint_q, const std::vector<float>& joint_qd,
            std::vector<Transform<float>>& body_q, std::vector<Spatial<float>>& body_qd,
            const FkOptions& options = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ikwb
