// Seed samplers: none, gaussian around the initial configuration, uniform within the limits,
// and the Roberts R_d low-discrepancy sequence. Counter-based (a hash of rng_seed, seed index
// and draw), so the CPU and CUDA backends produce identical seeds and a given
// rng_seed is deterministic regardless of thread count. __host__ __device__.
//
// Per joint: 1-dof joints with limits draw within them (revolute without limits: [-pi, pi];
// unlimited prismatic: initial +- sigma); ball joints draw a uniformly distributed rotation
// (Shoemake's method from 3 uniforms); free joints draw their position in a box of +- sigma
// around the initial one and keep the initial orientation (a floating base's seeds are other
// postures where it stands: a legged robot's hard feet stay within reach). The gaussian
// sampler perturbs every dof by
// N(0, sigma) in dof space (exponential map for rotations) and clamps to the limits.
#pragma once

#include <cstdint>

#include "engine/core/row_kinematics.hpp"

namespace ikwb {

enum class SeedSampler : int8_t { kNone = 0, kGaussian = 1, kUniform = 2, kRoberts = 3 };

IKWB_HD uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// uniform in [0, 1) from (key, draw)
IKWB_HD double hash_uniform(uint64_t key, uint32_t draw) {
  uint64_t h = splitmix64(key ^ splitmix64(0x5851F42D4C957F2Dull + draw));
  return double(h >> 11) * (1.0 / 9007199254740992.0);
}

// the R_d generator phi_d: unique positive root of x^(d+1) = x + 1
IKWB_HD double roberts_phi(int d) {
  // the fixed point of x <- (1 + x)^(1 / (d + 1)): from 2 it falls to the root monotonically, with
  // a slope below 1 / (d + 1), and nothing overflows (Newton on x^(d+1) from 2 took about d steps
  // to get there and overflowed from d = 1023)
  double x = 2.0;
  for (int i = 0; i < 200; ++i) {
    const double next = pow(1.0 + x, 1.0 / (d + 1));
    if (next == x) break;
    x = next;
  }
  return x;
}

struct UniformSource {
  SeedSampler kind;
  uint64_t key;  // hash key (rng_seed, sequence index)
  double index;  // Roberts sequence index
  double phi;    // Roberts phi_d
  double alpha;  // running 1 / phi^(k+1)
  uint32_t draw = 0;
  IKWB_HD double next() {
    if (kind == SeedSampler::kRoberts) {
      double v = 0.5 + index * alpha;
      alpha /= phi;
      ++draw;
      return v - double(int64_t(v));
    }
    return hash_uniform(key, draw++);
  }
};

// number of uniforms a joint consumes
IKWB_HD int joint_sample_dims(JointType t) {
  switch (t) {
    case JointType::kRevolute:
    case JointType::kContinuous:
    case JointType::kPrismatic:
      return 1;
    case JointType::kBall:
    case JointType::kPlanar:
      return 3;
    case JointType::kFree:
      return 6;
    default:
      return 0;
  }
}

template <class T>
IKWB_HD Quat<T> uniform_rotation(double u1, double u2, double u3) {
  const double two_pi = 6.283185307179586;
  double a = sqrt(1.0 - u1), b = sqrt(u1);
  return {T(a * sin(two_pi * u2)), T(a * cos(two_pi * u2)), T(b * sin(two_pi * u3)),
          T(b * cos(two_pi * u3))};
}

// Copies the coordinates of frozen dofs (dof_free[d] == 0) from q_init into q: 1-dof joints
// and free-joint positions per dof, a ball or free rotation whole when any of its dofs is frozen.
template <class T>
IKWB_HD void restore_frozen(const ModelView<T>& m, const uint8_t* dof_free, const T* q_init, T* q) {
  if (!dof_free) return;
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0) continue;
    int qs = m.joint_q_start[j], d = m.joint_qd_start[j];
    switch (JointType(m.joint_type[j])) {
      case JointType::kRevolute:
      case JointType::kContinuous:
      case JointType::kPrismatic:
        if (!dof_free[d]) q[qs] = q_init[qs];
        break;
      case JointType::kBall:
        if (!dof_free[d] || !dof_free[d + 1] || !dof_free[d + 2])
          for (int k = 0; k < 4; ++k) q[qs + k] = q_init[qs + k];
        break;
      case JointType::kPlanar:
        for (int k = 0; k < 3; ++k)
          if (!dof_free[d + k]) q[qs + k] = q_init[qs + k];
        break;
      case JointType::kFree:
        for (int k = 0; k < 3; ++k)
          if (!dof_free[d + k]) q[qs + k] = q_init[qs + k];
        if (!dof_free[d + 3] || !dof_free[d + 4] || !dof_free[d + 5])
          for (int k = 3; k < 7; ++k) q[qs + k] = q_init[qs + k];
        break;
      default:
        break;
    }
  }
}

// Writes seed `sequence` (0 = q_init itself) into q_out (coord_count). sequence: distinct per
// (seed, restart) so restarts draw new samples. The draws depend on rng_seed and sequence only,
// not on `problem` (kept for the callers): a problem gets the same seeds whether it is solved
// alone or at any place in a batch. Frozen dofs (dof_free, null = all free) keep q_init.
template <class T>
IKWB_HD void sample_seed(const ModelView<T>& m, const T* lower, const T* upper, SeedSampler kind,
                         T sigma, uint64_t rng_seed, int problem, uint32_t sequence,
                         const T* q_init, T* q_out, T* dof_scratch,
                         const uint8_t* dof_free = nullptr) {
  (void)problem;
  for (int i = 0; i < m.coord_count; ++i) q_out[i] = q_init[i];
  if (sequence == 0 || kind == SeedSampler::kNone) return;
  const double pi = 3.141592653589793;
  uint64_t key = splitmix64(rng_seed ^ splitmix64(uint64_t(sequence)));
  if (kind == SeedSampler::kGaussian) {
    for (int d = 0; d < m.dof_count; ++d) {
      double u1 = hash_uniform(key, 2 * d), u2 = hash_uniform(key, 2 * d + 1);
      double n = sqrt(-2.0 * log(u1 > 1e-300 ? u1 : 1e-300)) * cos(2.0 * pi * u2);
      dof_scratch[d] = T(n) * sigma;
    }
    integrate_row(m, q_init, dof_scratch, T(1), q_out);
    for (int j = 0; j < m.joint_count; ++j) {
      if (m.joint_mimic[j] >= 0 || joint_type_dof_count(JointType(m.joint_type[j])) != 1) continue;
      int d = m.joint_qd_start[j];
      T& v = q_out[m.joint_q_start[j]];
      if (v < lower[d]) v = lower[d];
      if (v > upper[d]) v = upper[d];
    }
    restore_frozen(m, dof_free, q_init, q_out);
    return;
  }
  int dims = 0;
  for (int j = 0; j < m.joint_count; ++j)
    if (m.joint_mimic[j] < 0) dims += joint_sample_dims(JointType(m.joint_type[j]));
  UniformSource src{kind, key, double(sequence), 1.0, 1.0};
  if (kind == SeedSampler::kRoberts) {
    src.phi = roberts_phi(dims > 0 ? dims : 1);
    src.alpha = 1.0 / src.phi;
  }
  for (int j = 0; j < m.joint_count; ++j) {
    if (m.joint_mimic[j] >= 0) continue;
    int qs = m.joint_q_start[j], d = m.joint_qd_start[j];
    switch (JointType(m.joint_type[j])) {
      case JointType::kRevolute:
      case JointType::kContinuous:
      case JointType::kPrismatic: {
        double u = src.next();
        bool limited = lower[d] > T(-1e30) && upper[d] < T(1e30);
        if (limited) {
          q_out[qs] = lower[d] + T(u) * (upper[d] - lower[d]);
        } else if (JointType(m.joint_type[j]) == JointType::kPrismatic) {
          q_out[qs] = q_init[qs] + sigma * T(2.0 * u - 1.0);
        } else {
          q_out[qs] = T(pi * (2.0 * u - 1.0));
        }
        break;
      }
      case JointType::kBall: {
        double u1 = src.next(), u2 = src.next(), u3 = src.next();
        Quat<T> r = uniform_rotation<T>(u1, u2, u3);
        q_out[qs] = r.x, q_out[qs + 1] = r.y, q_out[qs + 2] = r.z, q_out[qs + 3] = r.w;
        break;
      }
      case JointType::kPlanar:
        // in-plane offset around q_init (as a free joint's position), any angle
        for (int k = 0; k < 2; ++k)
          q_out[qs + k] = q_init[qs + k] + sigma * T(2.0 * src.next() - 1.0);
        q_out[qs + 2] = T(pi * (2.0 * src.next() - 1.0));
        break;
      case JointType::kFree: {
        for (int k = 0; k < 3; ++k)
          q_out[qs + k] = q_init[qs + k] + sigma * T(2.0 * src.next() - 1.0);
        // the orientation is kept (see the header; uniformly drawn, 3 of the humanoid preset's
        // 16 seeds converged after a drag, 7 kept). Its three draws are still taken, so the
        // joints after it draw what they did
        src.next(), src.next(), src.next();
        break;
      }
      default:
        break;
    }
  }
  restore_frozen(m, dof_free, q_init, q_out);
}

}  // namespace ikwb
