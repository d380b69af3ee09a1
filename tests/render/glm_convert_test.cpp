// Tests for engine/render/glm_convert.hpp: quaternion order and round trips.
#include "engine/render/glm_convert.hpp"

#include <gtest/gtest.h>

namespace ikwb::render {
namespace {

TEST(GlmConvert, QuaternionOrderXyzw) {
  // 90 degrees about z maps x to y
  Quat<double> q = quat_from_axis_angle(Vec3<double>{0, 0, 1}, 1.5707963267948966);
  glm::quat g = to_glm(q);
  EXPECT_NEAR(g.w, q.w, 1e-7);
  EXPECT_NEAR(g.z, q.z, 1e-7);
  glm::vec3 y = g * glm::vec3(1, 0, 0);
  EXPECT_NEAR(y.x, 0.0, 1e-6);
  EXPECT_NEAR(y.y, 1.0, 1e-6);
  EXPECT_NEAR(y.z, 0.0, 1e-6);
}

TEST(GlmConvert, MatrixMatchesTransformPoint) {
  Transform<double> t{{0.3, -1.2, 2.0}, quat_from_rpy(0.4, -0.7, 1.9)};
  glm::mat4 m = to_glm(t);
  Vec3<double> x{0.5, 0.25, -2.0};
  Vec3<double> expected = transform_point(t, x);
  glm::vec4 got = m * glm::vec4(to_glm(x), 1.0f);
  EXPECT_NEAR(got.x, expected.x, 1e-5);
  EXPECT_NEAR(got.y, expected.y, 1e-5);
  EXPECT_NEAR(got.z, expected.z, 1e-5);
  EXPECT_FLOAT_EQ(got.w, 1.0f);
}

TEST(GlmConvert, RoundTrips) {
  Transform<double> t{{1.5, 0.25, -0.75}, quat_from_rpy(-2.1, 0.3, 0.8)};
  Transform<double> back = to_transform(to_glm(t));
  EXPECT_NEAR(back.p.x, t.p.x, 1e-6);
  EXPECT_NEAR(back.p.y, t.p.y, 1e-6);
  EXPECT_NEAR(back.p.z, t.p.z, 1e-6);
  // q and -q are the same rotation
  double d = back.q.x * t.q.x + back.q.y * t.q.y + back.q.z * t.q.z + back.q.w * t.q.w;
  EXPECT_NEAR(std::abs(d), 1.0, 1e-6);

  Quat<double> q = to_quat(to_glm(t.q));
  EXPECT_NEAR(q.x, t.q.x, 1e-7);
  EXPECT_NEAR(q.y, t.q.y, 1e-7);
  EXPECT_NEAR(q.z, t.q.z, 1e-7);
  EXPECT_NEAR(q.w, t.q.w, 1e-7);
  Vec3<double> v = to_vec3(to_glm(t.p));
  EXPECT_NEAR(v.y, 0.25, 1e-7);

  Transform<double> pq = to_transform(to_glm(t.p), to_glm(t.q));
  EXPECT_NEAR(pq.q.w, t.q.w, 1e-6);
  EXPECT_NEAR(pq.p.z, t.p.z, 1e-6);
}

}  // namespace
}  // namespace ikwb::render
