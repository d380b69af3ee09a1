#include "kernels/device_model.hpp"

#include "solver/backend_common.hpp"

#include <algorithm>
#include <cmath>

namespace ikwb::cuda {

bool DeviceModel::upload(const std::shared_ptr<const Model>& model, cudaStream_t stream) {
  if (model == model_) return false;
  model_.reset();
  const Model& m = *model;
  ModelArrays<float> a(m);
  const std::size_t J = m.joint_count, B = m.body_count;

  // pack every array the device view points at
  BytePacker pk;
  std::size_t o_type = pk.add(m.joint_type.data(), J);
  std::size_t o_parent = pk.add(m.joint_parent.data(), J);
  std::size_t o_child = pk.add(m.joint_child.data(), J);
  std::size_t o_ancestor = pk.add(m.joint_ancestor.data(), J);
  std::size_t o_xp = pk.add(a.joint_X_p.data(), J);
  std::size_t o_xc = pk.add(a.joint_X_c.data(), J);
  std::size_t o_axis = pk.add(a.joint_axis.data(), J);
  std::size_t o_qs = pk.add(m.joint_q_start.data(), J + 1);
  std::size_t o_ds = pk.add(m.joint_qd_start.data(), J + 1);
  std::size_t o_mimic = pk.add(m.joint_mimic.data(), J);
  std::size_t o_mult = pk.add(a.joint_mimic_multiplier.data(), J);
  std::size_t o_off = pk.add(a.joint_mimic_offset.data(), J);
  std::size_t o_periodic = pk.add(m.joint_periodic.data(), J);
  std::size_t o_bjoint = pk.add(m.body_joint.data(), B);
  std::size_t o_com = pk.add(a.body_com.data(), B);
  std::size_t o_mass = pk.add(a.body_mass.data(), B);
  std::size_t o_flags = pk.add(m.body_flags.data(), B);

  data_.reserve(pk.bytes().size());
  CUDA_CHECK(cudaMemcpyAsync(data_.get(), pk.bytes().data(), pk.bytes().size(),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  void* base = data_.get();
  view_ = a.view;
  view_.joint_type = at_offset<const int8_t>(base, o_type);
  view_.joint_parent = at_offset<const int>(base, o_parent);
  view_.joint_child = at_offset<const int>(base, o_child);
  view_.joint_ancestor = at_offset<const int>(base, o_ancestor);
  view_.joint_X_p = at_offset<const Transform<float>>(base, o_xp);
  view_.joint_X_c = at_offset<const Transform<float>>(base, o_xc);
  view_.joint_axis = at_offset<const Vec3<float>>(base, o_axis);
  view_.joint_q_start = at_offset<const int>(base, o_qs);
  view_.joint_qd_start = at_offset<const int>(base, o_ds);
  view_.joint_mimic = at_offset<const int>(base, o_mimic);
  view_.joint_mimic_multiplier = at_offset<const float>(base, o_mult);
  view_.joint_mimic_offset = at_offset<const float>(base, o_off);
  view_.joint_periodic = at_offset<const uint8_t>(base, o_periodic);
  view_.body_joint = at_offset<const int>(base, o_bjoint);
  view_.body_com = at_offset<const Vec3<float>>(base, o_com);
  view_.body_mass = at_offset<const float>(base, o_mass);
  view_.body_flags = at_offset<const int>(base, o_flags);
  model_ = model;
  return true;
}

}  // namespace ikwb::cuda
