// One row of batched masked forward kinematics (device helper of fk_launch.cu): the row's
// slices of the batched arrays handed to the shared fk_row_masked.
#pragma once

#include <cstddef>

#include "engine/core/row_kinematics.hpp"

namespace ikwb::cuda {

// q (n x nq), qd (n x nv, or null), body_q / body_qd (n x body_count; body_qd null with qd)
IKWB_HD void fk_batch_row(const ModelView<float>& m, int row, const float* q, const float* qd,
                          const uint8_t* joint_selected, int flag_filter, Transform<float>* body_q,
                          Spatial<float>* body_qd) {
  const std::size_t r = std::size_t(row);
  fk_row_masked(m, q + r * m.coord_count, qd ? qd + r * m.dof_count : nullptr, joint_selected,
                flag_filter, body_q + r * m.body_count,
                qd && body_qd ? body_qd + r * m.body_count : nullptr);
}

}  // namespace ikwb::cuda
