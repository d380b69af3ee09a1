// Tests for engine/render/picking and model_mesh: the ray picks the nearest body of a model built
// with ModelBuilder, at the right point, with geometry origins and mesh scales applied.
#include "engine/render/picking.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/fk.hpp"
#include "engine/core/urdf_loader.hpp"
#include "engine/render/glm_convert.hpp"
#include "engine/render/model_mesh.hpp"
#include "engine/render/primitives.hpp"

namespace ikwb::render {
namespace {

Geometry box(double sx, double sy, double sz,
             Transform<double> origin = transform_identity<double>()) {
  Geometry g;
  g.type = GeometryType::kBox;
  g.size = {sx, sy, sz};
  g.origin = origin;
  return g;
}

// base box at the origin, a sphere 1 m along x, a cylinder 1 m along y raised by 0.5 m
Model three_bodies() {
  ModelBuilder b;
  b.model().name = "three";
  int base = b.add_body("base");
  int ball = b.add_body("ball");
  int post = b.add_body("post");
  b.add_joint({"base_fixed", JointType::kFixed, -1, base});
  JointSpec j{
      "ball_joint", JointType::kRevolute, base, ball, {{1.0, 0, 0}, quat_identity<double>()}};
  j.axis = {0, 0, 1};
  b.add_joint(j);
  b.add_joint(
      {"post_fixed", JointType::kFixed, base, post, {{0, 1.0, 0.5}, quat_identity<double>()}});
  b.visuals(base).push_back(box(0.4, 0.4, 0.2));
  Geometry s;
  s.type = GeometryType::kSphere;
  s.size = {0.15, 0, 0};
  b.visuals(ball).push_back(s);
  Geometry c;
  c.type = GeometryType::kCylinder;
  c.size = {0.05, 0.6, 0};
  b.visuals(post).push_back(c);
  return b.finalize();
}

std::vector<Transform<double>> poses(const Model& m) {
  State state(m);
  eval_fk(m, m.neutral_configuration(), {}, state);
  return state.body_q;
}

TEST(Picking, RayFromAboveHitsTheBodyBelow) {
  Model m = three_bodies();
  Picker picker;
  picker.set_model(m);
  ASSERT_EQ(picker.body_count(), 3);
  auto q = poses(m);

  PickHit h = picker.pick({{1.0f, 0.0f, 5.0f}, {0.0f, 0.0f, -1.0f}}, q);
  ASSERT_TRUE(h.hit());
  EXPECT_EQ(h.body, 1);
  EXPECT_NEAR(h.point.z, 0.15f, 2e-3f);  // top of the sphere (tessellated)
  EXPECT_NEAR(h.distance, 5.0f - h.point.z, 1e-5f);
  EXPECT_NEAR(h.normal.z, 1.0f, 1e-2f);

  h = picker.pick({{0.1f, -0.1f, 5.0f}, {0.0f, 0.0f, -1.0f}}, q);
  EXPECT_EQ(h.body, 0);
  EXPECT_NEAR(h.point.z, 0.1f, 1e-5f);
  EXPECT_NEAR(h.local_point.x, 0.1f, 1e-5f);

  h = picker.pick({{0.0f, 1.0f, 5.0f}, {0.0f, 0.0f, -1.0f}}, q);
  EXPECT_EQ(h.body, 2);
  EXPECT_NEAR(h.point.z, 0.8f, 1e-5f);  // cap of the post: 0.5 + 0.6 / 2

  EXPECT_FALSE(picker.pick({{3.0f, 3.0f, 5.0f}, {0.0f, 0.0f, -1.0f}}, q).hit());
  // pointing away from everything
  EXPECT_FALSE(picker.pick({{1.0f, 0.0f, 5.0f}, {0.0f, 0.0f, 1.0f}}, q).hit());
}

TEST(Picking, NearestOfTwoAndMask) {
  Model m = three_bodies();
  Picker picker;
  picker.set_model(m);
  auto q = poses(m);
  // along +x through the base box, then the sphere
  Ray r{{-2.0f, 0.0f, 0.05f}, {1.0f, 0.0f, 0.0f}};
  PickHit h = picker.pick(r, q);
  EXPECT_EQ(h.body, 0);
  EXPECT_NEAR(h.point.x, -0.2f, 1e-5f);
  EXPECT_NEAR(h.normal.x, -1.0f, 1e-5f);
  std::vector<uint8_t> mask = {0, 1, 1};
  h = picker.pick(r, q, &mask);
  EXPECT_EQ(h.body, 1);
  EXPECT_NEAR(h.point.x, 0.8586f, 3e-3f);  // 1 - sqrt(0.15^2 - 0.05^2)
}

TEST(Picking, FollowsBodyPoses) {
  Model m = three_bodies();
  Picker picker;
  picker.set_model(m);
  State state(m);
  eval_fk(m, m.neutral_configuration(), {}, state);
  state.body_q[1].p = {-1.0, -1.0, 0.0};
  PickHit h = picker.pick({{-1.0f, -1.0f, 5.0f}, {0.0f, 0.0f, -1.0f}}, state.body_q);
  EXPECT_EQ(h.body, 1);
  EXPECT_FALSE(picker.pick({{1.0f, 0.0f, 5.0f}, {0.0f, 0.0f, -1.0f}}, state.body_q).hit());
}

TEST(ModelMesh, OriginScaleAndColours) {
  auto mesh = std::make_shared<MeshData>(make_box(1.0f, 1.0f, 1.0f));
  Geometry g;
  g.type = GeometryType::kMesh;
  g.mesh = mesh;
  g.mesh_scale = {2.0, 1.0, -0.5};  // mirrored in z
  g.origin = {{0.0, 0.0, 1.0}, quat_identity<double>()};
  g.rgba = {0.1f, 0.2f, 0.3f, 1.0f};
  MeshData m = geometry_mesh(g);
  ASSERT_EQ(m.vertex_count(), mesh->vertex_count());
  float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
  for (std::size_t i = 0; i < m.positions.size(); ++i)
    lo[i % 3] = std::min(lo[i % 3], m.positions[i]),
           hi[i % 3] = std::max(hi[i % 3], m.positions[i]);
  EXPECT_NEAR(hi[0] - lo[0], 2.0f, 1e-6f);
  EXPECT_NEAR(hi[2] - lo[2], 0.5f, 1e-6f);
  EXPECT_NEAR(0.5f * (hi[2] + lo[2]), 1.0f, 1e-6f);
  EXPECT_FLOAT_EQ(m.colors[2], 0.3f);
  // the mirror keeps faces wound outward: face normal agrees with the vertex normal
  for (std::size_t t = 0; t < m.indices.size(); t += 3) {
    glm::vec3 a(m.positions[3 * m.indices[t]], m.positions[3 * m.indices[t] + 1],
                m.positions[3 * m.indices[t] + 2]);
    glm::vec3 b(m.positions[3 * m.indices[t + 1]], m.positions[3 * m.indices[t + 1] + 1],
                m.positions[3 * m.indices[t + 1] + 2]);
    glm::vec3 c(m.positions[3 * m.indices[t + 2]], m.positions[3 * m.indices[t + 2] + 1],
                m.positions[3 * m.indices[t + 2] + 2]);
    glm::vec3 n(m.normals[3 * m.indices[t]], m.normals[3 * m.indices[t] + 1],
                m.normals[3 * m.indices[t] + 2]);
    EXPECT_GT(glm::dot(glm::cross(b - a, c - a), n), 0.0f);
  }

  // a missing mesh becomes a small magenta box
  Geometry missing;
  missing.type = GeometryType::kMesh;
  missing.placeholder = true;
  MeshData p = geometry_mesh(missing);
  EXPECT_EQ(p.triangle_count(), 12u);
  EXPECT_FLOAT_EQ(p.colors[0], kPlaceholderColor[0]);
  EXPECT_NEAR(p.positions[0] * 2.0f, kPlaceholderSize, 1e-6f);
}

TEST(ModelMesh, PlaceholdersAreMeshesWithoutTriangles) {
  Geometry box;
  EXPECT_FALSE(drawn_as_placeholder(box));
  Geometry loaded;
  loaded.type = GeometryType::kMesh;
  loaded.mesh = std::make_shared<MeshData>(make_box(1.0f, 1.0f, 1.0f));
  EXPECT_FALSE(drawn_as_placeholder(loaded));
  Geometry flagged = loaded;
  flagged.placeholder = true;
  EXPECT_TRUE(drawn_as_placeholder(flagged));
  Geometry unread = loaded;  // found but not read (visual meshes not loaded)
  unread.mesh = nullptr;
  EXPECT_TRUE(drawn_as_placeholder(unread));
  Geometry empty = loaded;
  empty.mesh = std::make_shared<MeshData>();
  EXPECT_TRUE(drawn_as_placeholder(empty));
}

// a missing visual mesh of a body with collision shapes is drawn as those shapes, magenta (a
// missing head was a 5 cm cube inside the neck); without them, the placeholder box
TEST(ModelMesh, AMissingMeshIsDrawnAsTheBodysCollisionShapes) {
  const std::string urdf = R"(<robot name="r">
    <link name="base"/>
    <link name="head">
      <visual><geometry><mesh filename="no_such_head.stl"/></geometry></visual>
      <collision><origin xyz="0 0 0.1"/><geometry><box size="0.2 0.3 0.4"/></geometry></collision>
    </link>
    <link name="hand"><visual><geometry><mesh filename="no_such_hand.stl"/></geometry></visual></link>
    <joint name="j" type="revolute"><parent link="base"/><child link="head"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
    <joint name="k" type="fixed"><parent link="head"/><child link="hand"/></joint>
  </robot>)";
  const LoadResult r = load_urdf_string(urdf, "r.urdf", "");
  const Model& m = *r.model;
  const std::vector<MeshData> meshes = build_body_meshes(m);
  const MeshData& head = meshes[std::size_t(m.find_body("head"))];
  ASSERT_EQ(head.triangle_count(), 12u);
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (std::size_t i = 0; i < head.vertex_count(); ++i) {
    const glm::vec3 p(head.positions[3 * i], head.positions[3 * i + 1], head.positions[3 * i + 2]);
    lo = glm::min(lo, p), hi = glm::max(hi, p);
  }
  EXPECT_NEAR(hi.x - lo.x, 0.2f, 1e-6f);
  EXPECT_NEAR(hi.z, 0.3f, 1e-6f);
  EXPECT_FLOAT_EQ(head.colors[1], kPlaceholderColor[1]);
  const MeshData& hand = meshes[std::size_t(m.find_body("hand"))];
  ASSERT_EQ(hand.triangle_count(), 12u);
  EXPECT_NEAR(hand.positions[0] * 2.0f, kPlaceholderSize, 1e-6f);
}

TEST(ModelMesh, WorldBounds) {
  Model m = three_bodies();
  auto meshes = build_body_meshes(m);
  glm::vec3 lo, hi;
  ASSERT_TRUE(world_bounds(meshes, poses(m), lo, hi));
  EXPECT_NEAR(lo.x, -0.2f, 1e-5f);
  EXPECT_NEAR(hi.x, 1.15f, 1e-5f);
  EXPECT_NEAR(hi.z, 0.8f, 1e-5f);
  EXPECT_NEAR(lo.z, -0.15f, 1e-5f);
  EXPECT_FALSE(world_bounds({}, {}, lo, hi));
}

}  // namespace
}  // namespace ikwb::render
