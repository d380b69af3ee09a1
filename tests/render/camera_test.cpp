// Tests for engine/render/camera: projection / unprojection round trips, agreement with the GL
// matrices, Z-up orientation, orbit / pan / zoom and framing.
#include "engine/render/camera.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace ikwb::render {
namespace {

Camera test_camera() {
  Camera cam;
  cam.target = {0.2f, -0.1f, 0.4f};
  cam.distance = 2.5f;
  cam.yaw = 0.7f;
  cam.pitch = 0.35f;
  return cam;
}

const Viewport kView{40.0f, 20.0f, 800.0f, 600.0f};

TEST(Camera, ProjectThenRayPassesThroughPoint) {
  Camera cam = test_camera();
  for (glm::vec3 p : {glm::vec3(0.0f), glm::vec3(0.5f, 0.3f, 0.9f), glm::vec3(-0.4f, 0.6f, 0.1f)}) {
    glm::vec3 px = cam.project(p, kView);
    ASSERT_GT(px.z, 0.0f);
    Ray r = cam.ray_from_pixel(px.x, px.y, kView);
    EXPECT_NEAR(glm::length(r.dir), 1.0f, 1e-5f);
    // distance from p to the ray
    glm::vec3 d = p - r.origin;
    float along = glm::dot(d, r.dir);
    EXPECT_GT(along, 0.0f);
    EXPECT_LT(glm::length(d - along * r.dir), 1e-5f);
    // and back to the same pixel
    glm::vec3 again = cam.project(r.at(along * 1.7f), kView);
    EXPECT_NEAR(again.x, px.x, 1e-2f);
    EXPECT_NEAR(again.y, px.y, 1e-2f);
  }
}

TEST(Camera, ProjectAgreesWithViewProjectionMatrix) {
  Camera cam = test_camera();
  glm::mat4 vp = cam.view_projection(kView);
  glm::vec3 p(0.3f, 0.2f, 0.7f);
  glm::vec4 clip = vp * glm::vec4(p, 1.0f);
  glm::vec3 ndc = glm::vec3(clip) / clip.w;
  glm::vec3 px = cam.project(p, kView);
  EXPECT_NEAR(px.x, kView.x + (0.5f * ndc.x + 0.5f) * kView.width, 1e-2f);
  EXPECT_NEAR(px.y, kView.y + (0.5f - 0.5f * ndc.y) * kView.height, 1e-2f);
  EXPECT_NEAR(px.z, clip.w, 1e-4f);  // eye depth
  // the target is at the centre of the view
  glm::vec3 c = cam.project(cam.target, kView);
  EXPECT_NEAR(c.x, kView.x + 0.5f * kView.width, 1e-3f);
  EXPECT_NEAR(c.y, kView.y + 0.5f * kView.height, 1e-3f);
  EXPECT_NEAR(c.z, cam.distance, 1e-4f);
}

TEST(Camera, ZIsUpOnScreen) {
  Camera cam = test_camera();
  glm::vec3 below = cam.project(cam.target, kView);
  glm::vec3 above = cam.project(cam.target + glm::vec3(0, 0, 0.2f), kView);
  EXPECT_LT(above.y, below.y);  // pixel y grows downwards
  EXPECT_NEAR(glm::dot(cam.right(), glm::vec3(0, 0, 1)), 0.0f, 1e-6f);
  EXPECT_GT(cam.up().z, 0.0f);
}

TEST(Camera, OrbitKeepsTargetAndDistance) {
  Camera cam = test_camera();
  glm::vec3 t = cam.target;
  cam.orbit(120.0f, -40.0f);
  EXPECT_EQ(cam.target, t);
  EXPECT_NEAR(glm::length(cam.eye() - cam.target), cam.distance, 1e-5f);
  cam.orbit(0.0f, -1e5f);  // pitch clamps short of the pole
  EXPECT_GT(cam.pitch, -1.571f);
  EXPECT_TRUE(std::isfinite(cam.view()[0][0]));
}

TEST(Camera, PanMovesSceneWithCursor) {
  Camera cam = test_camera();
  glm::vec3 t0 = cam.target;
  glm::vec3 before = cam.project(t0, kView);
  cam.pan(30.0f, -15.0f, kView);
  glm::vec3 after = cam.project(t0, kView);
  EXPECT_NEAR(after.x - before.x, 30.0f, 0.05f);
  EXPECT_NEAR(after.y - before.y, -15.0f, 0.05f);
}

TEST(Camera, ZoomScalesDistance) {
  Camera cam = test_camera();
  float d = cam.distance;
  cam.zoom(1.0f);
  EXPECT_LT(cam.distance, d);
  cam.zoom(-1.0f);
  EXPECT_NEAR(cam.distance, d, 1e-5f);
}

TEST(Camera, FrameFitsBox) {
  Camera cam = test_camera();
  glm::vec3 lo(-0.3f, -0.2f, 0.0f), hi(0.5f, 0.4f, 1.2f);
  cam.frame(lo, hi, kView.aspect());
  EXPECT_NEAR(glm::length(cam.target - 0.5f * (lo + hi)), 0.0f, 1e-6f);
  for (int i = 0; i < 8; ++i) {
    glm::vec3 corner((i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y, (i & 4) ? hi.z : lo.z);
    glm::vec3 px = cam.project(corner, kView);
    EXPECT_GT(px.z, cam.near_plane());
    EXPECT_TRUE(kView.contains(glm::vec2(px))) << px.x << ", " << px.y;
  }
  Camera unchanged = cam;
  cam.frame(hi, lo);  // empty box
  EXPECT_EQ(cam.distance, unchanged.distance);
  // a mesh 1e20 m across: the eye stays finite, the distance within zoom's range (the float
  // length overflowed and the eye was NaN)
  cam.frame(glm::vec3(-1e20f), glm::vec3(1e20f), kView.aspect());
  EXPECT_EQ(cam.distance, Camera::kMaxDistance);
  const glm::vec3 eye = cam.eye();
  EXPECT_TRUE(std::isfinite(eye.x) && std::isfinite(eye.y) && std::isfinite(eye.z));
}

TEST(Camera, WorldPerPixelMatchesProjection) {
  Camera cam = test_camera();
  glm::vec3 p(0.1f, 0.2f, 0.3f);
  float s = cam.world_per_pixel(p, kView);
  glm::vec3 a = cam.project(p, kView), b = cam.project(p + 100.0f * s * cam.right(), kView);
  EXPECT_NEAR(b.x - a.x, 100.0f, 0.05f);
}

}  // namespace
}  // namespace ikwb::render
