// Orbit camera (Z up, REP-103): orbit / pan / zoom around a target, perspective projection,
// framing of a bounding box, pixel <-> world rays and projection for picking and automation.
//
// Pixel coordinates follow GLFW and ImGui: origin at the window's top-left corner, y down.
// A Viewport is the 3D view's rectangle in those coordinates.
#pragma once

#include <glm/glm.hpp>

namespace ikwb::render {

struct Viewport {
  float x = 0, y = 0;           // top-left corner, pixels
  float width = 1, height = 1;  // pixels
  float aspect() const { return height > 0 ? width / height : 1.0f; }
  bool contains(const glm::vec2& px) const {
    return px.x >= x && px.y >= y && px.x < x + width && px.y < y + height;
  }
};

// world-space ray; dir is a unit vector
struct Ray {
  glm::vec3 origin{0.0f};
  glm::vec3 dir{0.0f, 0.0f, -1.0f};
  glm::vec3 at(float t) const { return origin + t * dir; }
};

class Camera {
 public:
  glm::vec3 target{0.0f, 0.0f, 0.5f};  // orbit centre, world
  float distance = 3.0f;               // eye to target, metres
  float yaw = 0.8f;                    // azimuth of the eye about +Z, from +X, radians
  float pitch = 0.45f;  // elevation of the eye above the XY plane, radians, |pitch| < pi/2
  float fov_y = glm::radians(45.0f);  // vertical field of view, radians
  float orbit_speed = 0.008f;         // radians per pixel
  float zoom_factor = 0.88f;          // distance multiplier per wheel step
  static constexpr float kMinDistance = 1e-3f, kMaxDistance = 1e5f;  // zoom and frame keep it in

  glm::vec3 eye() const;
  glm::vec3 forward() const;  // unit, eye -> target
  glm::vec3 right() const;    // unit, screen right
  glm::vec3 up() const;       // unit, screen up
  // near / far planes follow the distance so depth precision stays useful at any zoom
  float near_plane() const;
  float far_plane() const;

  glm::mat4 view() const;                    // world -> eye
  glm::mat4 projection(float aspect) const;  // eye -> clip (OpenGL, depth -1..1)
  glm::mat4 view_projection(const Viewport& vp) const;

  // mouse drags in pixels (dx right, dy down)
  void orbit(float dx, float dy);
  // moves the target so the scene follows the cursor at the target's depth
  void pan(float dx, float dy, const Viewport& vp);
  // steps > 0 move closer (mouse wheel up)
  void zoom(float steps);
  // target at the box centre, distance such that the box's bounding sphere fits the view;
  // keeps yaw and pitch. An empty box (min > max) leaves the camera unchanged.
  void frame(const glm::vec3& bounds_min, const glm::vec3& bounds_max, float aspect = 16.0f / 9);

  // world ray through pixel (x, y); origin at the eye
  Ray ray_from_pixel(float x, float y, const Viewport& vp) const;
  // pixel (x, y) of a world point and its depth along forward(); x, y mean something only when
  // z > 0 (in front of the eye)
  glm::vec3 project(const glm::vec3& world, const Viewport& vp) const;
  // world length of one pixel at the depth of a world point (for constant pixel-size handles)
  float world_per_pixel(const glm::vec3& world, const Viewport& vp) const;
};

}  // namespace ikwb::render
