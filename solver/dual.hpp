// Forward-mode dual numbers for the autodiff Jacobian mode: value + one directional derivative.
// The kinematics templates (engine/core/row_kinematics.hpp) and the objective residuals run on
// Dual<double>, one pass per Jacobian column. CPU only.
#pragma once

#include <cmath>

#include "engine/core/spatial.hpp"

namespace ikwb {

template <class T>
struct Dual {
  T v = T(0);  // value
  T d = T(0);  // derivative along the seeded direction
  Dual() = default;
  Dual(T value) : v(value), d(T(0)) {}  // NOLINT: implicit from constants, as a scalar
  Dual(T value, T deriv) : v(value), d(deriv) {}
  explicit operator T() const { return v; }

  // Hidden friends, so a plain scalar on either side converts (body[i].p.z - 0.6 in a generic
  // custom-objective lambda works for Dual as for double).
  friend Dual operator+(const Dual& a, const Dual& b) { return {a.v + b.v, a.d + b.d}; }
  friend Dual operator-(const Dual& a, const Dual& b) { return {a.v - b.v, a.d - b.d}; }
  friend Dual operator-(const Dual& a) { return {-a.v, -a.d}; }
  friend Dual operator*(const Dual& a, const Dual& b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
  friend Dual operator/(const Dual& a, const Dual& b) {
    return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)};
  }
  friend Dual& operator+=(Dual& a, const Dual& b) { return a = a + b; }
  friend Dual& operator-=(Dual& a, const Dual& b) { return a = a - b; }
  friend Dual& operator*=(Dual& a, const Dual& b) { return a = a * b; }
  friend Dual& operator/=(Dual& a, const Dual& b) { return a = a / b; }
  friend bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  friend bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
  friend bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  friend bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
  friend bool operator==(const Dual& a, const Dual& b) { return a.v == b.v; }
  friend bool operator!=(const Dual& a, const Dual& b) { return a.v != b.v; }
};

template <class T>
Dual<T> sin(const Dual<T>& a) {
  return {std::sin(a.v), a.d * std::cos(a.v)};
}
template <class T>
Dual<T> cos(const Dual<T>& a) {
  return {std::cos(a.v), -a.d * std::sin(a.v)};
}
template <class T>
Dual<T> sqrt(const Dual<T>& a) {
  T s = std::sqrt(a.v);
  return {s, s > T(0) ? a.d / (T(2) * s) : T(0)};
}
template <class T>
Dual<T> atan2(const Dual<T>& y, const Dual<T>& x) {
  T den = x.v * x.v + y.v * y.v;
  return {std::atan2(y.v, x.v), den > T(0) ? (x.v * y.d - y.v * x.d) / den : T(0)};
}
template <class T>
Dual<T> fabs(const Dual<T>& a) {
  return a.v < T(0) ? -a : a;
}
// the angle less whole turns (spatial.hpp's wrap_angle): a constant off, so the same derivative
template <class T>
Dual<T> wrap_angle(const Dual<T>& a) {
  return {wrap_angle(a.v), a.d};
}
template <class T>
T value_of(const Dual<T>& a) {
  return a.v;
}
inline double value_of(double a) {
  return a;
}
inline float value_of(float a) {
  return a;
}

}  // namespace ikwb
