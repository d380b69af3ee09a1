// Small rigid-body math shared by the CPU backend and CUDA device code.
//
// Plain structs templated on the scalar (float, double, or a dual number for autodiff), all
// functions inline and __host__ __device__, no Eigen and no standard library containers, so the
// same code runs in kernels/ and on the CPU. Quaternions are stored x, y, z, w (as in the seeds).
// A Transform maps points of its child frame into its parent frame: x_parent = p + q * x_child.
#pragma once

#include <cmath>
#include <limits>

// IKWB_HD_OUTLINED: for the few large functions that a kernel reaches from several call sites
// (the objective rows, the collision search, the LM row). Under nvcc they are compiled once per
// kernel and called, where IKWB_HD inlines a copy at every site: the solve kernel inlined the
// objective code at each of lm_solve_row's residual and Jacobian calls, and took 46 minutes to
// compile on 2 cores (docs/benchmarks.md, "Kernel compile time"). On the host both are inline.
#if defined(__CUDACC__)
#define IKWB_HD __host__ __device__ __forceinline__
#define IKWB_HD_OUTLINED __host__ __device__ __noinline__
#else
#define IKWB_HD inline
#define IKWB_HD_OUTLINED inline
#endif

namespace ikwb {

// The largest length or coordinate any input may have (m): URDF origins and shapes, scene
// positions and sizes, obstacles, timeline keys and IK targets. Beyond it poses and the
// residuals' squares overflow to infinity.
constexpr double kMaxLength = 1e6;

// scalar helpers that dispatch to the right overload for float, double and dual numbers
template <class T>
IKWB_HD T sqr(T a) {
  return a * a;
}
using std::atan2;
using std::cos;
using std::log;
using std::remainder;
using std::sin;
using std::sqrt;

// x less the whole turns that bring it into (-pi, pi]: the angle x as the shortest turn.
// remainder is exact, so an x already in range comes back bit for bit. Dual numbers have their
// own overload (solver/dual.hpp).
IKWB_HD double wrap_angle(double x) {
  const double pi = 3.141592653589793;
  const double r = remainder(x, 2 * pi);
  return r > -pi ? r : r + 2 * pi;
}
IKWB_HD float wrap_angle(float x) {
  const float pi = 3.14159265f;
  const float r = remainder(x, 2 * pi);
  return r > -pi ? r : r + 2 * pi;
}

// s = sin(x), c = cos(x). Double on the host goes through sin_cos below; other scalars (float,
// dual numbers) and device code call sin and cos.
template <class T>
IKWB_HD void sin_cos(const T& x, T& s, T& c) {
  s = sin(x);
  c = cos(x);
}

// The reduction and series of sin_cos (double, below), for a double or a vector of doubles
// (lanes.hpp): sr, cr = sin and cos of r = x - k pi / 2, k = nearbyint(x * 2 / pi) given
template <class V>
IKWB_HD void sin_cos_reduced(const V& x, const V& k, V& sr, V& cr) {
  // r = rh + rl: x - k pi/2 in two doubles (the first difference is exact, the second's
  // rounding error is kept by Knuth's two-sum)
  const V t = x - k * 0x1.921fb544p+0, u = -k * 0x1.0b4611a6p-34;
  const V rh = t + u, bb = rh - t;
  const V rl = ((t - (rh - bb)) + (u - bb)) - k * 0x1.3198a2e037073p-69;
  const V z = rh * rh;
  const V sp =
      -1.0 / 6 +
      z * (1.0 / 120 +
           z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (-1.0 / 39916800 +
                                                       z * (1.0 / 6227020800 +
                                                            z * (-1.0 / 1307674368000 +
                                                                 z * (1.0 / 355687428096000)))))));
  const V cp =
      1.0 / 24 +
      z * (-1.0 / 720 +
           z * (1.0 / 40320 +
                z * (-1.0 / 3628800 +
                     z * (1.0 / 479001600 +
                          z * (-1.0 / 87178291200 +
                               z * (1.0 / 20922789888000 + z * (-1.0 / 6402373705728000)))))));
  // sin(rh + rl) = sin rh + rl cos rh and cos(rh + rl) = cos rh - rl sin rh, to first order in
  // rl (below an ulp of rh), with cos rh ~ 1 - rh^2 / 2 and sin rh ~ rh there
  const V hz = 0.5 * z, w = 1.0 - hz;
  sr = rh + ((rh * z) * sp + rl * w);
  cr = w + (((1.0 - w) - hz) + ((z * z) * cp - rh * rl));
}

// In double on the host: x less the nearest multiple k of pi / 2 (pi / 2 in three parts, the
// first two of 33 bits so that k times them is exact, Cody and Waite's reduction), then the
// Taylor series of sin and cos on |r| <= pi / 4 up to r^17 and r^18 (the first term left out is
// below 1e-19 of the value), the cosine's 1 - r^2 / 2 with its rounding error added back. FK
// takes one per revolute joint; the C library's sincos took about 110 instructions for the
// Panda's half angles, this about a third of that. Within 1 ulp of the exact values
// (tests/core/spatial_test.cpp); |x| >= 2^19 and non-finite x go to std::sin and std::cos.
IKWB_HD void sin_cos(double x, double& s, double& c) {
#if defined(__CUDA_ARCH__)
  s = sin(x);
  c = cos(x);
#else
  if (!(std::fabs(x) < 0x1p19)) {
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  const double k = std::nearbyint(x * 0x1.45f306dc9c883p-1);  // 2 / pi
  double sr, cr;
  sin_cos_reduced(x, k, sr, cr);
  switch (static_cast<long long>(k) & 3) {
    case 0:
      s = sr, c = cr;
      break;
    case 1:
      s = cr, c = -sr;
      break;
    case 2:
      s = -sr, c = -cr;
      break;
    default:
      s = -cr, c = sr;
      break;
  }
#endif
}

template <class T>
struct Vec3 {
  T x, y, z;
  IKWB_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  IKWB_HD const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

template <class T>
struct Quat {
  T x, y, z, w;
};

template <class T>
struct Transform {
  Vec3<T> p;
  Quat<T> q;
};

// 6-vector (linear part first, then angular), used for twists and Jacobian columns
template <class T>
struct Spatial {
  Vec3<T> lin, ang;
};

template <class T>
IKWB_HD Vec3<T> vec3(T x, T y, T z) {
  return Vec3<T>{x, y, z};
}
template <class T>
IKWB_HD Vec3<T> zero3() {
  return Vec3<T>{T(0), T(0), T(0)};
}
template <class T>
IKWB_HD Quat<T> quat_identity() {
  return Quat<T>{T(0), T(0), T(0), T(1)};
}
template <class T>
IKWB_HD Transform<T> transform_identity() {
  return Transform<T>{zero3<T>(), quat_identity<T>()};
}

template <class T>
IKWB_HD Vec3<T> operator+(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T>
IKWB_HD Vec3<T> operator-(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T>
IKWB_HD Vec3<T> operator-(const Vec3<T>& a) {
  return {-a.x, -a.y, -a.z};
}
template <class T>
IKWB_HD Vec3<T> operator*(T s, const Vec3<T>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class T>
IKWB_HD Vec3<T> operator*(const Vec3<T>& a, T s) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class T>
IKWB_HD Vec3<T>& operator+=(Vec3<T>& a, const Vec3<T>& b) {
  a = a + b;
  return a;
}
template <class T>
IKWB_HD T dot(const Vec3<T>& a, const Vec3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
IKWB_HD Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
IKWB_HD T length_sq(const Vec3<T>& a) {
  return dot(a, a);
}
template <class T>
IKWB_HD T length(const Vec3<T>& a) {
  return sqrt(dot(a, a));
}

// convert between scalar types (double model -> float kernels, value -> dual)
template <class To, class From>
IKWB_HD Vec3<To> cast(const Vec3<From>& a) {
  return {To(a.x), To(a.y), To(a.z)};
}
template <class To, class From>
IKWB_HD Quat<To> cast(const Quat<From>& a) {
  return {To(a.x), To(a.y), To(a.z), To(a.w)};
}
template <class To, class From>
IKWB_HD Transform<To> cast(const Transform<From>& a) {
  return {cast<To>(a.p), cast<To>(a.q)};
}

template <class T>
IKWB_HD Quat<T> operator*(const Quat<T>& a, const Quat<T>& b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
template <class T>
IKWB_HD Quat<T> conjugate(const Quat<T>& a) {
  return {-a.x, -a.y, -a.z, a.w};
}
template <class T>
IKWB_HD T quat_norm(const Quat<T>& a) {
  return sqrt(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
}
// a / |a|; the identity for a zero quaternion or one with a component that is not finite
template <class T>
IKWB_HD Quat<T> normalize(const Quat<T>& a) {
  T n = quat_norm(a);
  if (n > T(0) && n * T(0) == T(0)) {
    T inv = T(1) / n;
    return {a.x * inv, a.y * inv, a.z * inv, a.w * inv};
  }
  // finite components whose squares overflow or underflow (1e160, 1e-200: a zero quaternion
  // came out of the first) are scaled by the largest first
  const T ax = a.x < T(0) ? -a.x : a.x, ay = a.y < T(0) ? -a.y : a.y;
  const T az = a.z < T(0) ? -a.z : a.z, aw = a.w < T(0) ? -a.w : a.w;
  const T big_xy = ax > ay ? ax : ay, big_zw = az > aw ? az : aw;
  const T big = big_xy > big_zw ? big_xy : big_zw;
  if (!(n == n) || !(big > T(0)) || !(big * T(0) == T(0))) return quat_identity<T>();
  const Quat<T> s{a.x / big, a.y / big, a.z / big, a.w / big};
  T inv = T(1) / quat_norm(s);
  return {s.x * inv, s.y * inv, s.z * inv, s.w * inv};
}

// a as it is when its norm is 1 within a few units of rounding, else normalize(a): a unit
// quaternion read back from a file keeps its digits (normalising it again moved its last bits,
// so a scene opened and saved again differed from the file)
template <class T>
Quat<T> normalize_unless_unit(const Quat<T>& a) {
  const T off = quat_norm(a) - T(1);
  return off <= T(8) * std::numeric_limits<T>::epsilon() &&
                 off >= -T(8) * std::numeric_limits<T>::epsilon()
             ? a
             : normalize(a);
}

// rotate v by unit quaternion q: v + 2 w (u x v) + 2 u x (u x v)
template <class T>
IKWB_HD Vec3<T> rotate(const Quat<T>& q, const Vec3<T>& v) {
  Vec3<T> u{q.x, q.y, q.z};
  Vec3<T> t = T(2) * cross(u, v);
  return v + q.w * t + cross(u, t);
}
template <class T>
IKWB_HD Vec3<T> rotate_inv(const Quat<T>& q, const Vec3<T>& v) {
  return rotate(conjugate(q), v);
}

// quaternion of a rotation by |v| about v/|v| (SO(3) exponential map); exact near zero
template <class T>
IKWB_HD Quat<T> quat_exp(const Vec3<T>& v) {
  T th2 = length_sq(v);
  T s, c;
  if (th2 < T(1e-12)) {
    s = T(0.5) - th2 / T(48);
    c = T(1) - th2 / T(8);
  } else {
    T th = sqrt(th2);
    s = sin(th * T(0.5)) / th;
    c = cos(th * T(0.5));
  }
  return {s * v.x, s * v.y, s * v.z, c};
}

template <class T>
IKWB_HD Quat<T> quat_from_axis_angle(const Vec3<T>& unit_axis, T angle) {
  T s = sin(angle * T(0.5));
  return {s * unit_axis.x, s * unit_axis.y, s * unit_axis.z, cos(angle * T(0.5))};
}

// rotation vector of a unit quaternion (SO(3) log map), picking the shortest rotation (|v| <= pi)
template <class T>
IKWB_HD Vec3<T> quat_log(const Quat<T>& q_in) {
  Quat<T> q = q_in.w < T(0) ? Quat<T>{-q_in.x, -q_in.y, -q_in.z, -q_in.w} : q_in;
  Vec3<T> u{q.x, q.y, q.z};
  T s2 = length_sq(u);
  if (s2 < T(1e-12)) {
    // 2 * u / w to second order
    T scale = T(2) / q.w * (T(1) - s2 / (T(3) * q.w * q.w));
    return scale * u;
  }
  T s = sqrt(s2);
  T angle = T(2) * atan2(s, q.w);
  return (angle / s) * u;
}

// quaternion from roll-pitch-yaw (URDF convention: R = Rz(yaw) * Ry(pitch) * Rx(roll))
template <class T>
IKWB_HD Quat<T> quat_from_rpy(T roll, T pitch, T yaw) {
  Quat<T> qx = quat_from_axis_angle(Vec3<T>{T(1), T(0), T(0)}, roll);
  Quat<T> qy = quat_from_axis_angle(Vec3<T>{T(0), T(1), T(0)}, pitch);
  Quat<T> qz = quat_from_axis_angle(Vec3<T>{T(0), T(0), T(1)}, yaw);
  return qz * (qy * qx);
}

// row-major 3x3 rotation matrix of a unit quaternion
template <class T>
IKWB_HD void quat_to_matrix(const Quat<T>& q, T m[9]) {
  T xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  T xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  T wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  m[0] = T(1) - T(2) * (yy + zz);
  m[1] = T(2) * (xy - wz);
  m[2] = T(2) * (xz + wy);
  m[3] = T(2) * (xy + wz);
  m[4] = T(1) - T(2) * (xx + zz);
  m[5] = T(2) * (yz - wx);
  m[6] = T(2) * (xz - wy);
  m[7] = T(2) * (yz + wx);
  m[8] = T(1) - T(2) * (xx + yy);
}

template <class T>
IKWB_HD Transform<T> operator*(const Transform<T>& a, const Transform<T>& b) {
  return {a.p + rotate(a.q, b.p), a.q * b.q};
}
template <class T>
IKWB_HD Transform<T> inverse(const Transform<T>& a) {
  Quat<T> qi = conjugate(a.q);
  return {-rotate(qi, a.p), qi};
}
template <class T>
IKWB_HD Vec3<T> transform_point(const Transform<T>& a, const Vec3<T>& x) {
  return a.p + rotate(a.q, x);
}

// The inverse of the left Jacobian of SO(3) at phi, J_l^{-1}(phi) w = w - phi x w / 2 +
// c phi x (phi x w). For e = log(R), d/dt log(exp(t w) R) at t = 0 equals J_l^{-1}(e) w.
// Built once for the several columns a rotation row's Jacobian maps (its coefficient c takes a
// square root, a sine and a cosine).
template <class T>
struct So3LeftJacobianInv {
  Vec3<T> phi;
  T c;
  IKWB_HD explicit So3LeftJacobianInv(const Vec3<T>& phi_) : phi(phi_) {
    T th2 = length_sq(phi);
    if (th2 < T(1e-8)) {
      c = T(1) / T(12) + th2 / T(720);
    } else {
      T th = sqrt(th2);
      // (1 + cos th) / sin th written as cot(th / 2): stays finite up to th = pi (sin_cos: one
      // call, and in double on the host a third of the C library's sin and cos)
      T sh, ch;
      sin_cos(th * T(0.5), sh, ch);
      c = (T(1) / th2) - ch / (sh * T(2) * th);
    }
  }
  IKWB_HD Vec3<T> apply(const Vec3<T>& w) const {
    Vec3<T> pw = cross(phi, w);
    return w - T(0.5) * pw + c * cross(phi, pw);
  }
};

// J_l^{-1}(phi) w for one w
template <class T>
IKWB_HD Vec3<T> so3_left_jacobian_inv_apply(const Vec3<T>& phi, const Vec3<T>& w) {
  return So3LeftJacobianInv<T>(phi).apply(w);
}

}  // namespace ikwb
