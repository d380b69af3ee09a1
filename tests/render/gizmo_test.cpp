// Tests for engine/render/gizmo: hover at the advertised handle points, axis / plane / free
// drags move by exactly the projected amount, ring drags rotate by the swept angle, snapping,
// local frames and names.
#include "engine/render/gizmo.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/render/glm_convert.hpp"

namespace ikwb::render {
namespace {

constexpr double kPi = 3.14159265358979;
const Viewport kView{0.0f, 0.0f, 1280.0f, 720.0f};

Camera test_camera() {
  Camera cam;
  cam.target = {0.3f, 0.1f, 0.6f};
  cam.distance = 2.2f;
  cam.yaw = 0.6f;
  cam.pitch = 0.4f;
  return cam;
}

Transform<double> test_pose() {
  return {{0.3, 0.1, 0.6}, quat_identity<double>()};
}

glm::vec2 px(const Camera& cam, const glm::vec3& p) {
  return glm::vec2(cam.project(p, kView));
}

// angle of the rotation q1 * q0^-1 about `axis`
double rotation_about(const Quat<double>& q0, const Quat<double>& q1, const Vec3<double>& axis) {
  Vec3<double> v = quat_log(q1 * conjugate(q0));
  return dot(v, axis);
}

TEST(Gizmo, HandleNamesRoundTrip) {
  for (int i = 0; i <= int(GizmoHandle::kRotateZ); ++i) {
    GizmoHandle h = GizmoHandle(i);
    EXPECT_EQ(gizmo_handle_from_name(gizmo_handle_name(h)), h);
  }
  EXPECT_EQ(gizmo_handle_from_name("rotatez"), GizmoHandle::kRotateZ);
  EXPECT_EQ(gizmo_handle_from_name("bogus"), GizmoHandle::kNone);
}

TEST(Gizmo, EveryHandlePointHitsItsHandle) {
  Camera cam = test_camera();
  for (GizmoSpace space : {GizmoSpace::kWorld, GizmoSpace::kLocal}) {
    Gizmo g;
    g.space = space;
    g.set_transform({{0.3, 0.1, 0.6}, quat_from_rpy(0.3, -0.5, 0.9)});
    for (GizmoMode mode : {GizmoMode::kTranslate, GizmoMode::kRotate}) {
      g.mode = mode;
      for (int i = 1; i <= int(GizmoHandle::kRotateZ); ++i) {
        GizmoHandle h = GizmoHandle(i);
        if (!gizmo_handle_in_mode(h, mode)) continue;
        bool visible = false;
        glm::vec2 p = g.handle_screen_point(h, cam, kView, &visible);
        // in this local frame the z axis is perpendicular to the view: the XY square is edge-on
        // and hidden; every other handle must be reachable
        bool edge_on = space == GizmoSpace::kLocal && h == GizmoHandle::kTranslatePlaneXY;
        EXPECT_EQ(visible, !edge_on) << gizmo_handle_name(h);
        if (!visible) continue;
        EXPECT_EQ(g.hover(cam, kView, p), h) << gizmo_handle_name(h);
      }
    }
  }
}

TEST(Gizmo, HandlesKeepConstantPixelSize) {
  Camera cam = test_camera();
  Gizmo g;
  g.set_transform(test_pose());
  glm::vec3 c = to_glm(test_pose().p);
  glm::vec2 first(0.0f);
  for (float d : {1.0f, 4.0f, 12.0f}) {
    cam.distance = d;
    float s = g.world_scale(cam, kView);
    // the same screen offsets at any zoom
    glm::vec2 tip = px(cam, c + s * glm::vec3(1, 0, 0)) - px(cam, c);
    if (d == 1.0f) first = tip;
    EXPECT_NEAR(tip.x, first.x, 0.01f);
    EXPECT_NEAR(tip.y, first.y, 0.01f);
    // one ring radius is size_px along the screen's right
    EXPECT_NEAR(glm::length(px(cam, c + s * cam.right()) - px(cam, c)), g.size_px, 0.01f);
  }
  EXPECT_EQ(g.hover(cam, kView, glm::vec2(5, 5)), GizmoHandle::kNone);
}

// point of the axis through c along a that the mouse at `pixel` grabs
glm::vec3 grabbed_on_axis(const Camera& cam, const glm::vec2& pixel, const glm::vec3& c,
                          const glm::vec3& a) {
  Ray r = cam.ray_from_pixel(pixel.x, pixel.y, kView);
  glm::vec3 w = c - r.origin;
  float b = glm::dot(a, r.dir);
  float t0 = (b * glm::dot(r.dir, w) - glm::dot(a, w)) / (1 - b * b);
  return c + t0 * a;
}

TEST(Gizmo, AxisDragMovesByProjectedAmount) {
  Camera cam = test_camera();
  Gizmo g;
  g.set_transform(test_pose());
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kTranslateX, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  EXPECT_EQ(g.active(), GizmoHandle::kTranslateX);
  // the axis point under the cursor at the start, then the same point moved 0.3 along x
  glm::vec3 grabbed = grabbed_on_axis(cam, start, to_glm(test_pose().p), glm::vec3(1, 0, 0));
  Transform<double> t = g.update_drag(cam, kView, px(cam, grabbed + glm::vec3(0.3f, 0, 0)));
  EXPECT_NEAR(t.p.x, 0.6, 1e-4);
  EXPECT_NEAR(t.p.y, 0.1, 1e-9);
  EXPECT_NEAR(t.p.z, 0.6, 1e-9);
  EXPECT_NEAR(g.drag_translation().x, 0.3, 1e-4);
  // moving the mouse off the axis only keeps the component along it
  t = g.update_drag(cam, kView, px(cam, grabbed + glm::vec3(-0.2f, 0.0f, 0.25f)));
  EXPECT_NEAR(t.p.y, 0.1, 1e-9);
  EXPECT_NEAR(t.p.z, 0.6, 1e-9);
  EXPECT_LT(t.p.x, 0.3);
  Transform<double> done = g.end_drag();
  EXPECT_FALSE(g.dragging());
  EXPECT_EQ(done.p.x, t.p.x);
  EXPECT_EQ(g.transform().p.x, t.p.x);
}

TEST(Gizmo, AxisDragSnaps) {
  Camera cam = test_camera();
  Gizmo g;
  g.snap = true;
  g.set_transform(test_pose());
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kTranslateY, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  glm::vec3 grabbed = grabbed_on_axis(cam, start, to_glm(test_pose().p), glm::vec3(0, 1, 0));
  Transform<double> t = g.update_drag(cam, kView, px(cam, grabbed + glm::vec3(0, 0.234f, 0)));
  EXPECT_NEAR(t.p.y, 0.1 + 0.23, 1e-9);
  t = g.update_drag(cam, kView, px(cam, grabbed + glm::vec3(0, -0.0351f, 0)));
  EXPECT_NEAR(t.p.y, 0.1 - 0.04, 1e-9);
  EXPECT_NEAR(g.drag_translation().y, -0.04, 1e-9);
  g.cancel_drag();
  EXPECT_EQ(g.transform().p.y, 0.1);
}

TEST(Gizmo, PlaneDragMovesInPlane) {
  Camera cam = test_camera();
  Gizmo g;
  g.set_transform(test_pose());
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kTranslatePlaneXY, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  EXPECT_EQ(g.active(), GizmoHandle::kTranslatePlaneXY);
  Ray r = cam.ray_from_pixel(start.x, start.y, kView);
  glm::vec3 hit = r.at((0.6f - r.origin.z) / r.dir.z);
  Transform<double> t = g.update_drag(cam, kView, px(cam, hit + glm::vec3(0.1f, -0.2f, 0)));
  EXPECT_NEAR(t.p.x, 0.4, 1e-4);
  EXPECT_NEAR(t.p.y, -0.1, 1e-4);
  EXPECT_NEAR(t.p.z, 0.6, 1e-6);
  g.end_drag();

  g.snap = true;
  start = g.handle_screen_point(GizmoHandle::kTranslatePlaneXY, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  r = cam.ray_from_pixel(start.x, start.y, kView);
  hit = r.at((0.6f - r.origin.z) / r.dir.z);
  t = g.update_drag(cam, kView, px(cam, hit + glm::vec3(0.0537f, 0.0149f, 0)));
  EXPECT_NEAR(t.p.x, 0.4 + 0.05, 1e-6);
  EXPECT_NEAR(t.p.y, -0.1 + 0.01, 1e-6);
}

TEST(Gizmo, FreeDragFollowsCursorInViewPlane) {
  Camera cam = test_camera();
  Gizmo g;
  g.set_transform(test_pose());
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kTranslateFree, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  EXPECT_EQ(g.active(), GizmoHandle::kTranslateFree);
  glm::vec2 target = start + glm::vec2(60.0f, -35.0f);
  Transform<double> t = g.update_drag(cam, kView, target);
  glm::vec2 now = px(cam, to_glm(t.p));
  EXPECT_NEAR(now.x, target.x, 0.05f);
  EXPECT_NEAR(now.y, target.y, 0.05f);
  // stays at the same depth
  EXPECT_NEAR(cam.project(to_glm(t.p), kView).z, cam.project(to_glm(test_pose().p), kView).z,
              1e-4f);
}

TEST(Gizmo, RingDragRotatesBySweptAngle) {
  Camera cam = test_camera();
  Gizmo g;
  g.mode = GizmoMode::kRotate;
  Transform<double> pose{{0.3, 0.1, 0.6}, quat_from_rpy(0.2, 0.1, -0.3)};
  g.set_transform(pose);
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kRotateZ, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  EXPECT_EQ(g.active(), GizmoHandle::kRotateZ);
  // grabbed point on the ring plane, rotated 40 degrees about z through the centre
  Ray r = cam.ray_from_pixel(start.x, start.y, kView);
  glm::vec3 c = to_glm(pose.p);
  glm::vec3 v = r.at((c.z - r.origin.z) / r.dir.z) - c;
  for (double deg : {20.0, 40.0}) {
    float a = float(deg * kPi / 180.0);
    glm::vec3 rotated(std::cos(a) * v.x - std::sin(a) * v.y, std::sin(a) * v.x + std::cos(a) * v.y,
                      0.0f);
    Transform<double> t = g.update_drag(cam, kView, px(cam, c + rotated));
    EXPECT_NEAR(rotation_about(pose.q, t.q, {0, 0, 1}), deg * kPi / 180.0, 1e-4);
    EXPECT_NEAR(g.drag_angle(), deg * kPi / 180.0, 1e-4);
    EXPECT_EQ(t.p.x, pose.p.x);
  }
  g.end_drag();
}

TEST(Gizmo, RingDragSnapsTo15Degrees) {
  Camera cam = test_camera();
  Gizmo g;
  g.mode = GizmoMode::kRotate;
  g.snap = true;
  g.set_transform(test_pose());
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kRotateZ, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  Ray r = cam.ray_from_pixel(start.x, start.y, kView);
  glm::vec3 c = to_glm(test_pose().p);
  glm::vec3 v = r.at((c.z - r.origin.z) / r.dir.z) - c;
  float a = float(37.0 * kPi / 180.0);
  glm::vec3 rotated(std::cos(a) * v.x - std::sin(a) * v.y, std::sin(a) * v.x + std::cos(a) * v.y,
                    0.0f);
  Transform<double> t = g.update_drag(cam, kView, px(cam, c + rotated));
  EXPECT_NEAR(rotation_about(test_pose().q, t.q, {0, 0, 1}), 30.0 * kPi / 180.0, 1e-9);
}

TEST(Gizmo, EdgeOnRingUsesScreenTangent) {
  Camera cam = test_camera();
  cam.pitch = 0.0f;  // the z ring is seen exactly edge-on
  Gizmo g;
  g.mode = GizmoMode::kRotate;
  g.set_transform(test_pose());
  bool visible = false;
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kRotateZ, cam, kView, &visible);
  ASSERT_TRUE(visible);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  Transform<double> t1 = g.update_drag(cam, kView, start + glm::vec2(20.0f, 0.0f));
  Transform<double> t2 = g.update_drag(cam, kView, start + glm::vec2(40.0f, 0.0f));
  double a1 = rotation_about(test_pose().q, t1.q, {0, 0, 1});
  double a2 = rotation_about(test_pose().q, t2.q, {0, 0, 1});
  EXPECT_GT(std::abs(a1), 0.05);
  EXPECT_NEAR(a2, 2.0 * a1, 1e-6);
}

TEST(Gizmo, LocalAxisDragFollowsTargetOrientation) {
  Camera cam = test_camera();
  Gizmo g;
  g.space = GizmoSpace::kLocal;
  Quat<double> q = quat_from_rpy(0.0, 0.0, 0.5);  // local x = (cos .5, sin .5, 0)
  g.set_transform({{0.3, 0.1, 0.6}, q});
  glm::vec3 ax = g.axis(0);
  EXPECT_NEAR(ax.x, std::cos(0.5), 1e-6);
  EXPECT_NEAR(ax.y, std::sin(0.5), 1e-6);
  glm::vec2 start = g.handle_screen_point(GizmoHandle::kTranslateX, cam, kView);
  ASSERT_TRUE(g.begin_drag(cam, kView, start));
  glm::vec3 grabbed = grabbed_on_axis(cam, start, glm::vec3(0.3f, 0.1f, 0.6f), ax);
  Transform<double> t = g.update_drag(cam, kView, px(cam, grabbed + 0.2f * ax));
  EXPECT_NEAR(t.p.x, 0.3 + 0.2 * std::cos(0.5), 1e-4);
  EXPECT_NEAR(t.p.y, 0.1 + 0.2 * std::sin(0.5), 1e-4);
  EXPECT_NEAR(t.p.z, 0.6, 1e-6);
  EXPECT_EQ(t.q.z, q.z);
}

TEST(Gizmo, DrawHighlightsHoveredHandle) {
  Camera cam = test_camera();
  Gizmo g;
  g.set_transform(test_pose());
  Overlay o;
  g.draw(o, cam, kView);
  EXPECT_TRUE(o.batch(true).empty());  // gizmos draw on top
  EXPECT_FALSE(o.batch(false).lines.empty());
  EXPECT_FALSE(o.batch(false).triangles.empty());
  o.clear();
  g.hover(cam, kView, g.handle_screen_point(GizmoHandle::kTranslateZ, cam, kView));
  g.draw(o, cam, kView);
  bool yellow = false;
  for (const auto& v : o.batch(false).lines) yellow |= v.color.r > 0.95f && v.color.g > 0.8f;
  EXPECT_TRUE(yellow);
}

}  // namespace
}  // namespace ikwb::render
