// The one place that converts between engine/core math (Vec3, Quat x,y,z,w, Transform; double)
// and GLM (vec3, quat, mat4; float) used for rendering math. Note glm::quat's constructor takes
// (w, x, y, z) while our quaternions are stored x, y, z, w.
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "engine/core/spatial.hpp"

namespace ikwb::render {

template <class T>
inline glm::vec3 to_glm(const Vec3<T>& v) {
  return glm::vec3(float(v.x), float(v.y), float(v.z));
}

template <class T>
inline glm::quat to_glm(const Quat<T>& q) {
  return glm::quat(float(q.w), float(q.x), float(q.y), float(q.z));
}

// 4x4 matrix of a rigid transform (child -> parent)
template <class T>
inline glm::mat4 to_glm(const Transform<T>& t) {
  glm::mat4 m = glm::mat4_cast(to_glm(t.q));
  m[3] = glm::vec4(to_glm(t.p), 1.0f);
  return m;
}

inline Vec3<double> to_vec3(const glm::vec3& v) {
  return {double(v.x), double(v.y), double(v.z)};
}

inline Quat<double> to_quat(const glm::quat& q) {
  return {double(q.x), double(q.y), double(q.z), double(q.w)};
}

inline Transform<double> to_transform(const glm::vec3& p, const glm::quat& q) {
  return {to_vec3(p), normalize(to_quat(q))};
}

// rigid part of a matrix: translation and the rotation of its (normalised) upper 3x3 columns
inline Transform<double> to_transform(const glm::mat4& m) {
  glm::mat3 r(glm::normalize(glm::vec3(m[0])), glm::normalize(glm::vec3(m[1])),
              glm::normalize(glm::vec3(m[2])));
  return to_transform(glm::vec3(m[3]), glm::quat_cast(r));
}

}  // namespace ikwb::render
