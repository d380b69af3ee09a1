// Tests for engine/render/overlay: batch building (CPU only).
#include "engine/render/overlay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace ikwb::render {
namespace {

TEST(Overlay, LinesGoToTheRequestedBatch) {
  Overlay o;
  EXPECT_TRUE(o.empty());
  o.line({0, 0, 0}, {1, 0, 0}, {1, 0, 0, 1}, 3.0f, true);
  o.lines({{0, 0, 0}, {0, 1, 0}, {0, 0, 0}, {0, 0, 1}}, {{0, 1, 0, 1}}, 2.0f, false);
  ASSERT_EQ(o.batch(true).lines.size(), 2u);
  ASSERT_EQ(o.batch(false).lines.size(), 4u);
  EXPECT_EQ(o.batch(true).lines[1].width, 3.0f);
  EXPECT_EQ(o.batch(false).lines[3].color.g, 1.0f);  // one colour for all
  o.clear();
  EXPECT_TRUE(o.empty());
}

TEST(Overlay, ArcStaysOnItsCircle) {
  Overlay o;
  glm::vec3 c(1, 2, 3);
  o.arc(c, {0, 0, 2}, {1, 1, 0.5f}, 1.5f, 0.4f, {1, 1, 1, 1});
  const auto& v = o.batch(true).lines;
  ASSERT_GE(v.size(), 8u);
  for (const auto& p : v) {
    EXPECT_NEAR(glm::length(p.p - c), 0.4f, 1e-5f);
    EXPECT_NEAR(p.p.z, 3.0f, 1e-6f);
  }
  // starts along the projected start direction and sweeps counter-clockwise about the normal
  glm::vec3 first = glm::normalize(v.front().p - c), last = glm::normalize(v.back().p - c);
  EXPECT_NEAR(first.x, std::sqrt(0.5f), 1e-5f);
  EXPECT_NEAR(glm::cross(first, last).z, std::sin(1.5f), 1e-4f);
}

// distance of p from the segment a-b
float segment_distance(glm::vec3 p, glm::vec3 a, glm::vec3 b) {
  glm::vec3 d = b - a;
  float t = glm::dot(d, d) > 0 ? std::clamp(glm::dot(p - a, d) / glm::dot(d, d), 0.0f, 1.0f) : 0;
  return glm::length(p - (a + t * d));
}

TEST(Overlay, CapsuleSurfaceIsRadiusFromItsSegment) {
  Overlay o;
  glm::vec3 a(0.1f, -0.2f, 0.3f), b(0.4f, 0.2f, 0.1f);
  o.capsule(a, b, 0.05f, {1, 0.5f, 0, 0.4f}, false, 12);
  const auto& t = o.batch(false).triangles;
  ASSERT_GT(t.size(), 0u);
  EXPECT_EQ(t.size() % 3, 0u);
  EXPECT_TRUE(o.batch(true).triangles.empty());
  bool reaches_a = false, reaches_b = false;
  for (const auto& v : t) {
    EXPECT_NEAR(segment_distance(v.p, a, b), 0.05f, 1e-5f);
    EXPECT_EQ(v.color.a, 0.4f);
    EXPECT_LE(v.color.r, 1.0f);
    reaches_a |=
        glm::length(v.p - a) > 0.0499f && glm::dot(v.p - a, b - a) < -0.049f * glm::length(b - a);
    reaches_b |= glm::dot(v.p - b, b - a) > 0.049f * glm::length(b - a);
  }
  EXPECT_TRUE(reaches_a);  // both caps are there
  EXPECT_TRUE(reaches_b);
  // a point segment is a sphere; no radius, nothing
  Overlay s;
  s.capsule(a, a, 0.1f, {1, 1, 1, 1});
  ASSERT_GT(s.batch(true).triangles.size(), 0u);
  for (const auto& v : s.batch(true).triangles) EXPECT_NEAR(glm::length(v.p - a), 0.1f, 1e-5f);
  Overlay none;
  none.capsule(a, b, 0.0f, {1, 1, 1, 1});
  EXPECT_TRUE(none.empty());
}

TEST(Overlay, ArrowHasShaftAndHead) {
  Overlay o;
  o.arrow({0, 0, 0}, {0, 0, 1}, {1, 0, 0, 1}, 2.0f, 0.0f, false);
  const Overlay::Batch& b = o.batch(false);
  ASSERT_EQ(b.lines.size(), 2u);
  EXPECT_NEAR(b.lines[1].p.z, 0.8f, 1e-6f);  // head is 20% of the length
  EXPECT_FALSE(b.triangles.empty());
  float top = 0.0f;
  for (const auto& t : b.triangles) top = std::max(top, t.p.z);
  EXPECT_NEAR(top, 1.0f, 1e-6f);
  o.arrow({0, 0, 0}, {0, 0, 0}, {1, 0, 0, 1});  // zero length: nothing
  EXPECT_TRUE(o.batch(true).empty());
}

TEST(Overlay, PointsSectorsAndAxes) {
  Overlay o;
  o.points({{0, 0, 0}, {1, 0, 0}}, {{1, 0, 0, 1}, {0, 1, 0, 1}}, 8.0f);
  EXPECT_EQ(o.batch(true).points.size(), 2u);
  EXPECT_EQ(o.batch(true).points[1].color.g, 1.0f);
  o.sector({0, 0, 0}, {0, 0, 1}, {1, 0, 0}, 3.0f, 1.0f, {1, 1, 1, 0.3f}, true, 12);
  EXPECT_EQ(o.batch(true).triangles.size(), 36u);
  o.axes(glm::mat4(1.0f), 0.5f);
  const auto& l = o.batch(true).lines;
  ASSERT_EQ(l.size(), 6u);
  EXPECT_NEAR(l[5].p.z, 0.5f, 1e-6f);
  EXPECT_GT(l[0].color.r, 0.8f);
}

}  // namespace
}  // namespace ikwb::render
