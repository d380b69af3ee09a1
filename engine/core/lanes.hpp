// Four rows in the lanes of one vector: a scalar type for the templates of spatial.hpp and
// row_kinematics.hpp (their S), so that one pass of fk_row_masked computes four configurations,
// each lane taking exactly the operations the scalar code takes on its row (IEEE double
// arithmetic lane by lane, no contraction: the results are the scalar ones bit for bit).
// eval_fk_batch runs its rows four at a time this way (docs/benchmarks.md, "Four rows at a
// time"). Host only; GCC / Clang vector extensions, AVX for the square root and the rounding
// when the target has it, a lane at a time otherwise.
//
// Functions whose scalar code branches on a value have overloads here that select per lane:
// sqrt, sin_cos and normalize (sin and cos take the C library's, a lane at a time). Nothing
// else may compare two Lanes4.
#pragma once

#include <cmath>

#include "engine/core/spatial.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace ikwb {

constexpr int kLanes = 4;

struct Lanes4 {
  typedef double V __attribute__((vector_size(32)));
  V v;
  Lanes4() = default;
  Lanes4(double x) : v{x, x, x, x} {}  // NOLINT: implicit, as the scalar code writes S(0.5)
  explicit Lanes4(V x) : v(x) {}
  double lane(int i) const { return v[i]; }
  void set_lane(int i, double x) { v[i] = x; }
};

inline Lanes4 operator+(Lanes4 a, Lanes4 b) {
  return Lanes4(a.v + b.v);
}
inline Lanes4 operator-(Lanes4 a, Lanes4 b) {
  return Lanes4(a.v - b.v);
}
inline Lanes4 operator*(Lanes4 a, Lanes4 b) {
  return Lanes4(a.v * b.v);
}
inline Lanes4 operator/(Lanes4 a, Lanes4 b) {
  return Lanes4(a.v / b.v);
}
inline Lanes4 operator-(Lanes4 a) {
  return Lanes4(-a.v);
}
inline Lanes4& operator+=(Lanes4& a, Lanes4 b) {
  return a = a + b;
}
inline Lanes4& operator-=(Lanes4& a, Lanes4 b) {
  return a = a - b;
}
inline Lanes4& operator*=(Lanes4& a, Lanes4 b) {
  return a = a * b;
}
inline Lanes4& operator/=(Lanes4& a, Lanes4 b) {
  return a = a / b;
}

inline Lanes4 sqrt(Lanes4 a) {
#if defined(__AVX__)
  return Lanes4(_mm256_sqrt_pd(a.v));
#else
  for (int i = 0; i < kLanes; ++i) a.v[i] = std::sqrt(a.v[i]);
  return a;
#endif
}

namespace lanes_detail {

typedef long long Mask __attribute__((vector_size(32)));  // all ones where true

inline Lanes4::V select(Mask m, Lanes4::V a, Lanes4::V b) {
  return m ? a : b;
}

// nearbyint in each lane (the current rounding mode, round to nearest even by default)
inline Lanes4::V nearby(Lanes4::V x) {
#if defined(__AVX__)
  return _mm256_round_pd(x, _MM_FROUND_CUR_DIRECTION);
#else
  for (int i = 0; i < kLanes; ++i) x[i] = std::nearbyint(x[i]);
  return x;
#endif
}

}  // namespace lanes_detail

// sin_cos of spatial.hpp in each lane (its sin_cos_reduced on the vector, then the quadrant
// selected per lane), the same operations in the same order; when any lane is outside the range
// of its reduction (|x| >= 2^19, or not finite) every lane of this call takes the scalar one
inline void sin_cos(Lanes4 x, Lanes4& s, Lanes4& c) {
  using lanes_detail::Mask;
  using lanes_detail::select;
  using V = Lanes4::V;
  const V ax = x.v < 0.0 ? -x.v : x.v;
  const Mask in_range = ax < 0x1p19;
  if (!(in_range[0] & in_range[1] & in_range[2] & in_range[3])) {
    for (int i = 0; i < kLanes; ++i) {
      double si, ci;
      sin_cos(x.v[i], si, ci);
      s.v[i] = si;
      c.v[i] = ci;
    }
    return;
  }
  const V k = lanes_detail::nearby(x.v * 0x1.45f306dc9c883p-1);
  V sr, cr;
  sin_cos_reduced(x.v, k, sr, cr);
  const Mask quadrant = __builtin_convertvector(k, Mask) & 3;
  const Mask q1 = quadrant == 1, q2 = quadrant == 2, q3 = quadrant == 3;
  s.v = select(q1, cr, select(q2, -sr, select(q3, -cr, sr)));
  c.v = select(q1, -sr, select(q2, -cr, select(q3, sr, cr)));
}

// sin and cos as the scalar code calls them (the C library's), a lane at a time
inline Lanes4 sin(Lanes4 x) {
  for (int i = 0; i < kLanes; ++i) x.v[i] = std::sin(x.v[i]);
  return x;
}

inline Lanes4 cos(Lanes4 x) {
  for (int i = 0; i < kLanes; ++i) x.v[i] = std::cos(x.v[i]);
  return x;
}

// normalize of spatial.hpp in each lane: the identity where the norm is not positive
inline Quat<Lanes4> normalize(const Quat<Lanes4>& a) {
  using lanes_detail::select;
  const Lanes4 n = quat_norm(a);
  const Lanes4 inv = Lanes4(1.0) / n;
  const lanes_detail::Mask positive = n.v > 0.0;
  return {Lanes4(select(positive, (a.x * inv).v, Lanes4::V{})),
          Lanes4(select(positive, (a.y * inv).v, Lanes4::V{})),
          Lanes4(select(positive, (a.z * inv).v, Lanes4::V{})),
          Lanes4(select(positive, (a.w * inv).v, Lanes4::V{1.0, 1.0, 1.0, 1.0}))};
}

}  // namespace ikwb
