// Orbit camera math. project() and ray_from_pixel() use the eye basis directly (same basis as
// glm::lookAt and glm::perspective) so they agree with the matrices the shaders use.
#include "engine/render/camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace ikwb::render {

namespace {
constexpr float kMaxPitch = 1.5533f;  // 89 degrees
}

glm::vec3 Camera::eye() const {
  return target - distance * forward();
}

glm::vec3 Camera::forward() const {
  float cp = std::cos(pitch), sp = std::sin(pitch);
  return -glm::vec3(cp * std::cos(yaw), cp * std::sin(yaw), sp);
}

glm::vec3 Camera::right() const {
  return glm::normalize(glm::cross(forward(), glm::vec3(0.0f, 0.0f, 1.0f)));
}

glm::vec3 Camera::up() const {
  return glm::cross(right(), forward());
}

float Camera::near_plane() const {
  return std::max(distance * 0.01f, 1e-4f);
}

float Camera::far_plane() const {
  return distance * 100.0f + 50.0f;
}

glm::mat4 Camera::view() const {
  return glm::lookAt(eye(), target, glm::vec3(0.0f, 0.0f, 1.0f));
}

glm::mat4 Camera::projection(float aspect) const {
  return glm::perspective(fov_y, aspect, near_plane(), far_plane());
}

glm::mat4 Camera::view_projection(const Viewport& vp) const {
  return projection(vp.aspect()) * view();
}

void Camera::orbit(float dx, float dy) {
  yaw -= dx * orbit_speed;
  yaw = std::remainder(yaw, 2.0f * glm::pi<float>());
  pitch = std::clamp(pitch + dy * orbit_speed, -kMaxPitch, kMaxPitch);
}

void Camera::pan(float dx, float dy, const Viewport& vp) {
  float s = world_per_pixel(target, vp);
  target += (-dx * s) * right() + (dy * s) * up();
}

void Camera::zoom(float steps) {
  distance = std::clamp(distance * std::pow(zoom_factor, steps), kMinDistance, kMaxDistance);
}

void Camera::frame(const glm::vec3& bounds_min, const glm::vec3& bounds_max, float aspect) {
  if (!(bounds_min.x <= bounds_max.x && bounds_min.y <= bounds_max.y &&
        bounds_min.z <= bounds_max.z))
    return;
  // in double, the distance within zoom's range: a mesh 1e20 m across overflowed the float
  // length to infinity and the eye to NaN
  const glm::dvec3 lo(bounds_min), hi(bounds_max);
  const glm::dvec3 centre = 0.5 * (lo + hi);
  if (!std::isfinite(centre.x) || !std::isfinite(centre.y) || !std::isfinite(centre.z)) return;
  target = glm::vec3(centre);
  // (a 2 mm floor: a micro arm's 18 mm were framed as 10 cm, smaller than the gizmo)
  const double radius = std::max(0.5 * glm::length(hi - lo), 1e-3);
  const double half_fov_x = std::atan(std::tan(0.5 * fov_y) * aspect);
  const double half_fov = std::min(0.5 * double(fov_y), half_fov_x);
  distance = float(
      std::clamp(1.05 * radius / std::sin(half_fov), double(kMinDistance), double(kMaxDistance)));
}

Ray Camera::ray_from_pixel(float x, float y, const Viewport& vp) const {
  float ndc_x = 2.0f * (x - vp.x) / vp.width - 1.0f;
  float ndc_y = 1.0f - 2.0f * (y - vp.y) / vp.height;
  float t = std::tan(0.5f * fov_y);
  glm::vec3 d = forward() + (ndc_x * t * vp.aspect()) * right() + (ndc_y * t) * up();
  return Ray{eye(), glm::normalize(d)};
}

glm::vec3 Camera::project(const glm::vec3& world, const Viewport& vp) const {
  glm::vec3 d = world - eye();
  float ze = glm::dot(d, forward());
  float t = std::tan(0.5f * fov_y);
  float w = std::abs(ze) > 1e-12f ? ze : 1e-12f;
  float ndc_x = glm::dot(d, right()) / (w * t * vp.aspect());
  float ndc_y = glm::dot(d, up()) / (w * t);
  return glm::vec3(vp.x + 0.5f * (ndc_x + 1.0f) * vp.width,
                   vp.y + 0.5f * (1.0f - ndc_y) * vp.height, ze);
}

float Camera::world_per_pixel(const glm::vec3& world, const Viewport& vp) const {
  float ze = std::max(glm::dot(world - eye(), forward()), near_plane());
  return 2.0f * ze * std::tan(0.5f * fov_y) / vp.height;
}

}  // namespace ikwb::render
