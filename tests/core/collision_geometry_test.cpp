// Tests of engine/core/collision_geometry: capsule fits (they contain the geometry; the stated
// fit error), the pairs checked for self collision, SRDF files, sampled pair disabling,
// obstacles and the closest distances.
//
// Tolerances: fits are built from exact sample coordinates, so containment holds to rounding
// (1e-12 on sizes of order 1); fit errors are compared with closed forms to 1e-9.
#include "engine/core/collision_geometry.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/temp_files.hpp"
#include "core/test_models.hpp"
#include "engine/core/model.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

using test::tf;

Geometry geometry(GeometryType type, Vec3<double> size,
                  Transform<double> origin = transform_identity<double>()) {
  Geometry g;
  g.type = type;
  g.size = size;
  g.origin = origin;
  return g;
}

double capsule_sdf(const LinkCapsule<double>& c, const Vec3<double>& x) {
  Contact<double> k = capsule_capsule(c.p0, c.p1, c.radius, x, x, 0.0);
  return k.distance;
}

TEST(CollisionFit, SphereIsExact) {
  LinkCapsule<double> c;
  double err = -1;
  ASSERT_TRUE(
      fit_capsule(geometry(GeometryType::kSphere, {0.07, 0, 0}, tf(0.1, 0.2, 0.3)), &c, &err));
  EXPECT_NEAR(c.radius, 0.07, 1e-12);
  EXPECT_NEAR(length(c.p0 - Vec3<double>{0.1, 0.2, 0.3}), 0.0, 1e-12);
  EXPECT_NEAR(length(c.p1 - c.p0), 0.0, 1e-12);
  EXPECT_EQ(err, 0.0);
}

// a shape of size 0 is a point: no capsule (one of radius 0 collided there); a flat box or a
// line still has one
TEST(CollisionFit, AShapeOfSizeZeroHasNoCapsule) {
  LinkCapsule<double> c;
  double err = -1;
  EXPECT_FALSE(fit_capsule(geometry(GeometryType::kSphere, {0, 0, 0}), &c, &err));
  EXPECT_FALSE(fit_capsule(geometry(GeometryType::kBox, {0, 0, 0}), &c, &err));
  EXPECT_FALSE(fit_capsule(geometry(GeometryType::kCylinder, {0, 0, 0}), &c, &err));
  ASSERT_TRUE(fit_capsule(geometry(GeometryType::kBox, {0.2, 0, 0}), &c, &err));
  EXPECT_NEAR(length(c.p1 - c.p0), 0.2, 1e-12);
}

TEST(CollisionFit, LongCylinderIsItsAxisWithItsRadius) {
  // radius 0.05, length 0.4 along the origin's z, turned to lie along x
  Transform<double> origin = tf(0, 0, 0.1, 0, 1.5707963267948966, 0);
  LinkCapsule<double> c;
  double err;
  ASSERT_TRUE(fit_capsule(geometry(GeometryType::kCylinder, {0.05, 0.4, 0}, origin), &c, &err));
  EXPECT_NEAR(c.radius, 0.05, 1e-9);
  EXPECT_NEAR(length(c.p1 - c.p0), 0.4, 1e-9);
  EXPECT_NEAR(std::abs(c.p1.x - c.p0.x), 0.4, 1e-9);
  EXPECT_NEAR(0.5 * (c.p0.z + c.p1.z), 0.1, 1e-9);
  // the caps reach their radius past the flat ends
  EXPECT_NEAR(err, 0.05, 1e-9);
}

TEST(CollisionFit, BoxIsContainedAndErrorIsMeasured) {
  Geometry box = geometry(GeometryType::kBox, {0.4, 0.1, 0.06}, tf(0.02, 0, 0, 0.3, 0, 0));
  LinkCapsule<double> c;
  double err;
  ASSERT_TRUE(fit_capsule(box, &c, &err));
  // every corner inside the capsule
  for (int i = 0; i < 8; ++i) {
    Vec3<double> corner{(i & 1 ? 0.2 : -0.2), (i & 2 ? 0.05 : -0.05), (i & 4 ? 0.03 : -0.03)};
    EXPECT_LE(capsule_sdf(c, transform_point(box.origin, corner)), 1e-12) << i;
  }
  // along the box's long axis, radius the half diagonal of the cross-section
  EXPECT_NEAR(c.radius, std::hypot(0.05, 0.03), 1e-9);
  EXPECT_GT(err, 0.0);
  EXPECT_LT(err, 0.1);
}

TEST(CollisionFit, MeshUsesVerticesAndMissingMeshIsSkipped) {
  auto mesh = std::make_shared<MeshData>();
  mesh->positions = {0, 0, 0, 1, 0, 0, 0, 0.1, 0, 1, 0.1, 0};
  Geometry g = geometry(GeometryType::kMesh, {0, 0, 0});
  g.mesh = mesh;
  g.mesh_scale = {0.5, 1, 1};
  LinkCapsule<double> c;
  double err;
  ASSERT_TRUE(fit_capsule(g, &c, &err));
  for (int i = 0; i < 4; ++i) {
    Vec3<double> v{0.5 * mesh->positions[3 * i], mesh->positions[3 * i + 1], 0};
    EXPECT_LE(capsule_sdf(c, v), 1e-12);
  }
  g.mesh = nullptr;
  EXPECT_FALSE(fit_capsule(g, &c, &err));
}

// a mesh of a box's 12 triangles, each with corners of its own (as an STL file has them)
std::shared_ptr<MeshData> box_soup(Vec3<double> half) {
  auto mesh = std::make_shared<MeshData>();
  auto corner = [&](int i) {
    return Vec3<double>{i & 1 ? half.x : -half.x, i & 2 ? half.y : -half.y,
                        i & 4 ? half.z : -half.z};
  };
  const int faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                           {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
  for (const auto& f : faces)
    for (int t : {0, 1, 2, 0, 2, 3}) {
      const Vec3<double> v = corner(f[t]);
      mesh->indices.push_back(uint32_t(mesh->positions.size() / 3));
      for (double x : {v.x, v.y, v.z}) mesh->positions.push_back(float(x));
    }
  return mesh;
}

// The capsule of a mesh follows its shape, not how it is tessellated: a box as a triangle soup
// gets the half diagonal of its cross-section (its corners' uneven counts tilted the vertices'
// principal axes: 60.4 mm where 53.9 mm holds, a review), and a bar with a finely tessellated
// boss on one face stays along the bar (the boss's vertices tilted it 5 degrees: 70 mm where
// 43.5 mm holds, and bars 30 mm apart read colliding)
TEST(CollisionFit, AMeshsCapsuleFollowsItsShapeNotItsTessellation) {
  Geometry g = geometry(GeometryType::kMesh, {0, 0, 0}, tf(0.1, -0.2, 0.3, 0.4, -0.2, 0.9));
  g.mesh = box_soup({0.15, 0.05, 0.02});
  LinkCapsule<double> c;
  double err;
  ASSERT_TRUE(fit_capsule(g, &c, &err));
  EXPECT_NEAR(c.radius, std::hypot(0.05, 0.02), 1e-7);
  EXPECT_NEAR(length(c.p1 - c.p0), 0.3, 1e-6);
  // a 400 x 60 x 60 mm bar and a boss of radius 15 mm, 5 mm high, of 3000 triangles on its
  // +y face near one end
  auto bar = box_soup({0.2, 0.03, 0.03});
  const int n = 1000;
  const Vec3<double> at{0.15, 0.03, 0.0};
  for (int k = 0; k < n; ++k) {
    const double a0 = 2 * M_PI * k / n, a1 = 2 * M_PI * (k + 1) / n;
    const Vec3<double> ring0{at.x + 0.015 * std::cos(a0), at.y, at.z + 0.015 * std::sin(a0)};
    const Vec3<double> ring1{at.x + 0.015 * std::cos(a1), at.y, at.z + 0.015 * std::sin(a1)};
    const Vec3<double> top0 = ring0 + Vec3<double>{0, 0.005, 0};
    const Vec3<double> top1 = ring1 + Vec3<double>{0, 0.005, 0};
    const Vec3<double> tip = at + Vec3<double>{0, 0.005, 0};
    for (const Vec3<double>& v : {ring0, ring1, top1, ring0, top1, top0, top0, top1, tip}) {
      bar->indices.push_back(uint32_t(bar->positions.size() / 3));
      for (double x : {v.x, v.y, v.z}) bar->positions.push_back(float(x));
    }
  }
  g.mesh = bar;
  g.origin = transform_identity<double>();
  ASSERT_TRUE(fit_capsule(g, &c, &err));
  EXPECT_NEAR(std::fabs(c.p1.y - c.p0.y) + std::fabs(c.p1.z - c.p0.z), 0.0, 1e-6);
  EXPECT_LT(c.radius, 0.0445);  // the bar's half diagonal, 42.4 mm, with the boss in it
  for (std::size_t i = 0; i + 2 < bar->positions.size(); i += 3) {
    const Vec3<double> v{bar->positions[i], bar->positions[i + 1], bar->positions[i + 2]};
    ASSERT_LE(capsule_sdf(c, v), 1e-9) << i;
  }
}

// the base longer along x, over which l2 folds (a square base's capsule may lie along either side)
const char* kArm = R"(<robot name="arm">
  <link name="base"><collision><geometry><box size="0.3 0.2 0.1"/></geometry></collision></link>
  <link name="l1"><collision><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.04" length="0.4"/></geometry></collision></link>
  <link name="l2"><visual><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.04" length="0.4"/></geometry></visual></link>
  <link name="flange"><collision><geometry><sphere radius="0.03"/></geometry></collision></link>
  <link name="tool"><collision><origin xyz="0 0 0.05"/><geometry><sphere radius="0.03"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.05"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0 0 0.4"/><axis xyz="0 1 0"/><limit lower="-2.5" upper="2.5" effort="1" velocity="1"/></joint>
  <joint name="f" type="fixed"><parent link="l2"/><child link="flange"/><origin xyz="0 0 0.4"/></joint>
  <joint name="t" type="fixed"><parent link="flange"/><child link="tool"/></joint>
</robot>)";

std::shared_ptr<const Model> arm() {
  return load_urdf_string(kArm, "arm.urdf", "").model;
}

TEST(CollisionGeometry, VisualFallbackWarnsAndEveryBodyIsCovered) {
  auto m = arm();
  const CollisionGeometry& cg = m->collision;
  EXPECT_EQ(cg.capsule_count(), 5);
  ASSERT_EQ(cg.warnings.size(), 1u);
  EXPECT_EQ(cg.warnings[0], "link 'l2' has no <collision>: its <visual> is used for collisions");
  for (int b = 0; b < m->body_count; ++b) EXPECT_EQ(cg.body_first[b + 1] - cg.body_first[b], 1);
}

// A URDF "capsule" (a cylinder with a sphere at each end, as URDF has no capsule) is one capsule:
// the spheres lie inside the cylinder's; a sphere that sticks out, and a second link's copy, stay.
// The distance to anything is the same as with every element's capsule (a contained capsule is
// never the closer one).
TEST(CollisionGeometry, CapsulesInsideAnotherOfTheirLinkAreDropped) {
  const char* urdf = R"(<robot name="caps">
  <link name="a">
    <collision><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
    <collision><origin xyz="0 0 0.4"/><geometry><sphere radius="0.04"/></geometry></collision>
    <collision><origin xyz="0 0 0.4"/><geometry><sphere radius="0.04"/></geometry></collision>
    <collision><origin xyz="0.03 0 0.3"/><geometry><sphere radius="0.03"/></geometry></collision>
  </link>
  <link name="b">
    <collision><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
    <collision><origin xyz="0.04 0 0.2"/><geometry><sphere radius="0.02"/></geometry></collision>
    <collision><origin xyz="0 0 0.2"/><geometry><sphere radius="0.02"/></geometry></collision>
    <collision><origin xyz="0 0 0.2"/><geometry><sphere radius="0.02"/></geometry></collision>
  </link>
  <joint name="j" type="fixed"><parent link="a"/><child link="b"/><origin xyz="0.5 0 0"/></joint>
</robot>)";
  auto m = load_urdf_string(urdf, "caps.urdf", "").model;
  const CollisionGeometry& cg = m->collision;
  const int a = m->find_body("a"), b = m->find_body("b");
  // a: the cylinder's capsule and the sphere 0.03 + 0.03 = 0.06 m off its axis (past 0.05)
  ASSERT_EQ(cg.body_first[a + 1] - cg.body_first[a], 2);
  const LinkCapsule<double>& axis = cg.capsules[cg.body_first[a]];
  EXPECT_NEAR(axis.radius, 0.05, 1e-9);
  EXPECT_NEAR(length(axis.p1 - axis.p0), 0.4, 1e-9);
  EXPECT_NEAR(cg.capsules[cg.body_first[a] + 1].radius, 0.03, 1e-12);
  // b: a sphere 0.04 m off the axis with radius 0.02 sticks out by 0.01 m (kept); two equal
  // spheres on the axis (both dropped: the cylinder's capsule holds them)
  ASSERT_EQ(cg.body_first[b + 1] - cg.body_first[b], 2);
  EXPECT_NEAR(cg.capsules[cg.body_first[b] + 1].p0.x, 0.04, 1e-12);
  EXPECT_EQ(cg.fit_error.size(), cg.capsules.size());
  // the same distances as every element's own capsule: a point outside, near the dropped ones
  const Vec3<double> x{0, 0, 0.47};
  double kept = 1e9, all = 1e9;
  for (int c = cg.body_first[a]; c < cg.body_first[a + 1]; ++c)
    kept = std::min(kept, capsule_sdf(cg.capsules[c], x));
  for (const Geometry& g : m->body_collisions[a]) {
    LinkCapsule<double> c;
    double err;
    ASSERT_TRUE(fit_capsule(g, &c, &err));
    all = std::min(all, capsule_sdf(c, x));
  }
  EXPECT_NEAR(kept, all, 1e-12);
  EXPECT_NEAR(kept, 0.07 - 0.05, 1e-9);
}

// from a file, the warning names it (a scene with collision objectives passes it on, and named
// the scene instead)
TEST(CollisionGeometry, TheVisualFallbackWarningNamesTheRobotFile) {
  test::TempDir dir;
  const std::string urdf = dir.write("arm.urdf", kArm);
  auto m = load_urdf_file(urdf).model;
  ASSERT_EQ(m->collision.warnings.size(), 1u);
  EXPECT_EQ(m->collision.warnings[0],
            m->source_path + ": link 'l2' has no <collision>: its <visual> is used for collisions");
  EXPECT_EQ(m->source_path, std::filesystem::path(urdf).lexically_normal().string());
}

// a link with neither a visual nor a collision (a frame: a flange, a tool point) has nothing to
// collide with and is not warned about
TEST(CollisionGeometry, AFrameWithoutGeometryIsNotWarnedAbout) {
  auto m = load_urdf_string(R"(<robot name="arm">
  <link name="base"><collision><geometry><box size="0.3 0.2 0.1"/></geometry></collision></link>
  <link name="tcp"/>
  <joint name="t" type="fixed"><parent link="base"/><child link="tcp"/><origin xyz="0 0 0.1"/></joint>
</robot>)",
                            "frame.urdf", "")
               .model;
  EXPECT_EQ(m->collision.capsule_count(), 1);
  EXPECT_TRUE(m->collision.warnings.empty()) << m->collision.warnings.front();
}

// links falling back to their visuals, and elements whose meshes were not loaded (a robot whose
// meshes are missing has one per link), are one warning each, naming the first links
TEST(CollisionGeometry, FallbacksAndMeshlessElementsAreOneWarningEach) {
  std::string xml = R"(<robot name="r">)";
  for (int i = 0; i < 5; ++i) {
    const std::string n = std::to_string(i), element = i < 2 ? "visual" : "collision";
    xml += "<link name=\"l" + n + "\"><" + element + "><geometry><mesh filename=\"gone" + n +
           ".stl\"/></geometry></" + element + "></link>";
    if (i > 0)
      xml += "<joint name=\"j" + n + "\" type=\"continuous\"><parent link=\"l" +
             std::to_string(i - 1) + "\"/><child link=\"l" + n + "\"/></joint>";
  }
  auto m = load_urdf_string(xml + "</robot>", "r.urdf", "").model;
  const CollisionGeometry& cg = m->collision;
  EXPECT_EQ(cg.capsule_count(), 0);
  ASSERT_EQ(cg.warnings.size(), 2u);
  EXPECT_EQ(
      cg.warnings[0],
      "links 'l0', 'l1' have no <collision>: their <visual> elements are used for collisions");
  EXPECT_EQ(cg.warnings[1],
            "5 elements of links 'l0', 'l1', 'l2' and 2 more have no loaded mesh; they are not "
            "used for collisions");
}

TEST(CollisionGeometry, PairsSkipAdjacentAndFixedJoinedLinks) {
  auto m = arm();
  int base = m->find_body("base"), l1 = m->find_body("l1"), l2 = m->find_body("l2");
  int flange = m->find_body("flange"), tool = m->find_body("tool");
  std::vector<std::pair<int, int>> pairs = self_collision_pairs(*m);
  auto has = [&](int a, int b) {
    for (auto p : pairs)
      if (p == std::make_pair(std::min(a, b), std::max(a, b))) return true;
    return false;
  };
  EXPECT_FALSE(has(base, l1));    // parent, child
  EXPECT_FALSE(has(l2, flange));  // fixed joint
  EXPECT_FALSE(has(flange, tool));
  EXPECT_FALSE(has(l1, tool));  // tool is welded to l2, l1's child
  EXPECT_TRUE(has(base, l2));
  EXPECT_TRUE(has(base, tool));
  EXPECT_EQ(pairs.size(), 3u);  // base-l2, base-flange, base-tool
  std::vector<std::pair<int, int>> fewer = self_collision_pairs(*m, {{tool, base}});
  EXPECT_EQ(fewer.size(), 2u);
}

// a link without geometry is taken out of the adjacency graph and its neighbours joined, as
// MoveIt's setup assistant does: the links either side of it, and its children with each other,
// are adjacent (MJCF's BODY/JOINT bodies between one body's joints are such links)
TEST(CollisionGeometry, ALinkWithoutGeometryJoinsItsNeighbours) {
  ModelBuilder b;
  const int base = b.add_body("base"), hub = b.add_body("hub"), a = b.add_body("a"),
            c = b.add_body("c"), tip = b.add_body("tip");
  b.add_joint({"root", JointType::kFixed, -1, base});
  const std::tuple<const char*, int, int> joints[] = {
      {"jh", base, hub}, {"ja", hub, a}, {"jc", hub, c}, {"jt", c, tip}};
  for (const auto& [name, parent, child] : joints) {
    JointSpec s{name, JointType::kRevolute, parent, child, tf(0.5, 0, 0)};
    s.axis = {0, 0, 1}, s.lower = -1, s.upper = 1;
    b.add_joint(s);
  }
  for (int body : {base, a, c, tip})
    b.collisions(body).push_back(geometry(GeometryType::kSphere, {0.1, 0, 0}));
  Model m = b.finalize();
  std::vector<std::pair<int, int>> pairs = self_collision_pairs(m);
  auto has = [&](int x, int y) {
    return std::find(pairs.begin(), pairs.end(), std::pair{std::min(x, y), std::max(x, y)}) !=
           pairs.end();
  };
  EXPECT_FALSE(has(base, a));  // through the hub
  EXPECT_FALSE(has(base, c));
  EXPECT_FALSE(has(a, c));  // the hub's children
  EXPECT_FALSE(has(c, tip));
  EXPECT_TRUE(has(base, tip));
  EXPECT_TRUE(has(a, tip));
  EXPECT_EQ(pairs.size(), 2u);
}

// Links without geometry in runs and hubs, on random trees (some joints fixed): the pairs are
// those of the rule as first written, each such link taken out in turn and its neighbours joined
// to each other (kept here as the reference; the library finds each run of them once, as the
// rule took quadratic time per hub: a root without geometry and 2,000 children took 31 s)
TEST(CollisionGeometry, RunsOfLinksWithoutGeometryJoinAsOneAtATime) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 60; ++trial) {
    ModelBuilder b;
    const int n = 2 + int(rng() % 30);
    std::vector<int> bodies;
    for (int i = 0; i < n; ++i) bodies.push_back(b.add_body("b" + std::to_string(i)));
    b.add_joint({"root", JointType::kFixed, -1, bodies[0]});
    for (int i = 1; i < n; ++i) {
      const bool fixed = rng() % 5 == 0;
      JointSpec j{"j" + std::to_string(i), fixed ? JointType::kFixed : JointType::kRevolute,
                  bodies[rng() % i], bodies[i], tf(0.5, 0, 0)};
      j.axis = {0, 0, 1}, j.lower = -1, j.upper = 1;
      b.add_joint(j);
    }
    for (int i = 0; i < n; ++i)
      if (rng() % 2)
        b.collisions(bodies[i]).push_back(geometry(GeometryType::kSphere, {0.1, 0, 0}));
    const Model m = b.finalize();
    // the reference: taken out one by one
    const std::vector<int> group = rigid_groups(m);
    std::vector<std::set<int>> edges(m.body_count);
    for (int j = 0; j < m.joint_count; ++j) {
      const int p = m.joint_parent[j], c = m.joint_child[j];
      if (p < 0 || group[c] == group[p]) continue;
      edges[group[p]].insert(group[c]);
      edges[group[c]].insert(group[p]);
    }
    const CollisionGeometry& cg = m.collision;
    std::vector<char> shaped(m.body_count, 0);
    for (int x = 0; x < m.body_count; ++x)
      if (cg.body_first[x] != cg.body_first[x + 1]) shaped[group[x]] = 1;
    for (int g = 0; g < m.body_count; ++g) {
      if (shaped[g] || edges[g].empty()) continue;
      const std::vector<int> around(edges[g].begin(), edges[g].end());
      for (int x : around) {
        edges[x].erase(g);
        for (int y : around)
          if (x != y) edges[x].insert(y);
      }
      edges[g].clear();
    }
    std::vector<std::pair<int, int>> want;
    for (int x = 0; x < m.body_count; ++x)
      for (int y = x + 1; y < m.body_count; ++y)
        if (cg.body_first[x] != cg.body_first[x + 1] && cg.body_first[y] != cg.body_first[y + 1] &&
            group[x] != group[y] && !edges[group[x]].count(group[y]))
          want.push_back({x, y});
    EXPECT_EQ(self_collision_pairs(m), want) << "trial " << trial;
  }
}

TEST(CollisionGeometry, SrdfIsReadAndBadFilesNameTheProblem) {
  auto m = arm();
  std::vector<DisabledPair> d = parse_srdf(R"(<robot name="arm">
    <disable_collisions link1="base" link2="tool" reason="Never"/>
    <group name="x"/>
  </robot>)",
                                           "arm.srdf");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].reason, "Never");
  std::vector<std::string> warnings;
  auto bp = disabled_body_pairs(*m, d, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(bp[0], std::make_pair(m->find_body("base"), m->find_body("tool")));
  // the text we write reads back the same
  EXPECT_EQ(parse_srdf(srdf_text(*m, d), "again")[0].link2, "tool");
  auto message = [&](const std::string& xml) {
    try {
      parse_srdf(xml, "bad.srdf");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("<robot><disable_collisions link1=\"base\"/></robot>").find("link2"),
            std::string::npos);
  EXPECT_NE(message("<robt/>").find("no <robot>"), std::string::npos);
  EXPECT_NE(message("<robot").find("bad.srdf: not valid XML"), std::string::npos);
  EXPECT_THROW(load_srdf("/nonexistent/x.srdf"), std::runtime_error);
  // a folder, and an unknown link with the file named
  try {
    load_srdf(std::filesystem::temp_directory_path().string());
    ADD_FAILURE() << "a folder read as an SRDF";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory, not an SRDF file"), std::string::npos)
        << e.what();
  }
  // an entry naming a link the robot lacks is skipped, named in one warning; the others stay
  bp = disabled_body_pairs(*m, {{"base", "nope", ""}, {"base", "tool", ""}, {"gone", "tool", ""}},
                           warnings, "arm.srdf");
  ASSERT_EQ(bp.size(), 1u);
  EXPECT_EQ(bp[0], std::make_pair(m->find_body("base"), m->find_body("tool")));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "arm.srdf: 2 <disable_collisions> entries name a link robot 'arm' lacks, skipped: "
            "base - nope (no 'nope'), gone - tool (no 'gone'); the other 1 are disabled");
}

TEST(CollisionGeometry, SamplingFindsPairsThatNeverCollide) {
  auto m = arm();
  // base-l2 can touch (l2 folds down over the base), base-tool and base-flange can too
  std::vector<std::pair<int, int>> pairs = self_collision_pairs(*m);
  std::vector<double> rate = sample_collision_rates(*m, pairs, 2000, 1);
  double total = 0;
  for (double r : rate) {
    EXPECT_GE(r, 0.0);
    EXPECT_LT(r, 1.0);
    total += r;
  }
  EXPECT_GT(total, 0.0);
  // a robot whose two arms cannot reach each other: the pair is never in collision
  ModelBuilder b;
  int base = b.add_body("base"), a = b.add_body("a"), c = b.add_body("c");
  b.add_joint({"root", JointType::kFixed, -1, base});
  JointSpec ja{"ja", JointType::kRevolute, base, a, tf(-1, 0, 0)};
  ja.axis = {0, 0, 1}, ja.lower = -1, ja.upper = 1;
  JointSpec jc{"jc", JointType::kRevolute, base, c, tf(1, 0, 0)};
  jc.axis = {0, 0, 1}, jc.lower = -1, jc.upper = 1;
  b.add_joint(ja);
  b.add_joint(jc);
  b.collisions(base).push_back(geometry(GeometryType::kSphere, {0.1, 0, 0}, tf(0, 0, -5)));
  b.collisions(a).push_back(geometry(GeometryType::kSphere, {0.1, 0, 0}, tf(0.3, 0, 0)));
  b.collisions(c).push_back(geometry(GeometryType::kSphere, {0.1, 0, 0}, tf(0.3, 0, 0)));
  Model two = b.finalize();
  std::vector<DisabledPair> d = sampled_disabled_pairs(two, 500, 2);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].reason, "Never");
}

TEST(CollisionGeometry, ObstaclesAreCheckedAndConverted) {
  Obstacle o;
  o.name = "table";
  o.type = ShapeType::kBox;
  o.size = {1, 0.8, 0.04};
  o.pose.p = {0.5, 0, 0.2};
  CollisionShape<double> s = obstacle_shape(o);
  EXPECT_NEAR(s.size.x, 0.5, 1e-15);
  EXPECT_NEAR(s.size.z, 0.02, 1e-15);
  o.size.y = -1;
  try {
    check_obstacle(o);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("obstacle 'table': size[1]"), std::string::npos);
  }
  Obstacle floor;
  floor.name = "floor";
  floor.type = ShapeType::kHalfSpace;
  floor.normal = {0, 0, -1};
  floor.offset = 0.5;  // the solid n . x <= 0.5 is z >= -0.5; z = -1 is 0.5 outside
  CollisionShape<double> f = obstacle_shape(floor);
  Vec3<double> n;
  EXPECT_NEAR(point_sdf(f, Vec3<double>{0, 0, -1.0}, &n), 0.5, 1e-12);
  EXPECT_NEAR(n.z, -1.0, 1e-12);
  floor.normal = {0, 0, 2};
  EXPECT_THROW(check_obstacle(floor), std::invalid_argument);
  for (const char* name : {"sphere", "capsule", "box", "cylinder", "half_space"}) {
    ShapeType t;
    ASSERT_TRUE(parse_shape_type(name, &t));
    EXPECT_STREQ(shape_type_name(t), name);
  }
  ShapeType t;
  EXPECT_FALSE(parse_shape_type("cone", &t));
}

TEST(CollisionGeometry, ClosestDistancesPerBodyPairAndObstacle) {
  auto m = arm();
  Obstacle ball;
  ball.name = "ball";
  ball.type = ShapeType::kSphere;
  ball.radius = 0.1;
  ball.pose.p = {0.3, 0, 0.45};
  CollisionWorld w = make_collision_world(*m, {}, {ball});
  // the base never moves: it is not checked against obstacles
  EXPECT_EQ(w.world_capsules.size(), 4u);
  EXPECT_EQ(w.self_pair_count(), 3);
  std::vector<double> q = m->neutral_configuration();
  std::vector<Transform<double>> body_q(m->body_count);
  fk_row(m->view(), q.data(), body_q.data());
  std::vector<BodyDistance> d = closest_distances(w, body_q.data());
  ASSERT_EQ(d.size(), 3u + 4u);
  for (std::size_t i = 1; i < d.size(); ++i)
    EXPECT_LE(d[i - 1].contact.distance, d[i].contact.distance);
  // l1's capsule axis is x = 0, z in [0.05, 0.45]: 0.3 - 0.04 - 0.1 from the ball
  bool found = false;
  for (const BodyDistance& e : d)
    if (e.obstacle == 0 && e.body_a == m->find_body("l1")) {
      EXPECT_NEAR(e.contact.distance, 0.16, 1e-9);
      found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(closest_distances(w, body_q.data(), 2).size(), 2u);
}

// The answer with max_count and within (its self pairs searched nearest bound first, stopping
// early) is the full list's head: its max_count closest and every further pair closer than
// within, the same entries in the same order. The shipped humanoid (652 self pairs), with a
// ball among its links, at random configurations; within from below every distance to above
// most of them.
TEST(CollisionGeometry, ClosestDistancesLimitedAreTheFullListsHead) {
  UrdfOptions options;
  options.floating_base = true;
  LoadResult r = load_urdf_file(
      std::string(IKWB_SOURCE_DIR) + "/assets/robots/humanoid/humanoid.urdf", options);
  const Model& m = *r.model;
  Obstacle ball;
  ball.name = "ball";
  ball.type = ShapeType::kSphere;
  ball.radius = 0.1;
  ball.pose.p = {0.25, 0.1, 0.9};
  CollisionWorld w = make_collision_world(m, {}, {ball});
  ASSERT_GT(w.self_pair_count(), 100);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<Transform<double>> body_q(m.body_count);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> q = m.neutral_configuration();
    for (int a = 7; a < m.coord_count; ++a) q[a] = u(rng);
    fk_row(m.view(), q.data(), body_q.data());
    const std::vector<BodyDistance> all = closest_distances(w, body_q.data());
    for (int count : {1, 8, 40}) {
      for (double within : {-1.0, 0.0, 0.01, 0.1, 0.3}) {
        SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(count) +
                     " closest, within " + std::to_string(within));
        std::vector<BodyDistance> head;
        for (const BodyDistance& d : all)
          if (int(head.size()) < count || d.contact.distance < within) head.push_back(d);
        const std::vector<BodyDistance> got = closest_distances(w, body_q.data(), count, within);
        ASSERT_EQ(got.size(), head.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].body_a, head[i].body_a);
          EXPECT_EQ(got[i].body_b, head[i].body_b);
          EXPECT_EQ(got[i].obstacle, head[i].obstacle);
          EXPECT_EQ(got[i].contact.distance, head[i].contact.distance);
        }
      }
    }
  }
}

TEST(CollisionGeometry, SixtyLinkRobotWithMeshesFitsQuickly) {
  // a chain of 60 links, each with a 2000-vertex mesh collision: fitting is part of finalize
  auto mesh = std::make_shared<MeshData>();
  for (int i = 0; i < 2000; ++i) {
    double a = 0.01 * i;
    mesh->positions.insert(
        mesh->positions.end(),
        {float(0.03 * std::cos(a)), float(0.03 * std::sin(a)), float(0.2 * i / 2000.0)});
  }
  ModelBuilder b;
  int prev = b.add_body("l0");
  b.add_joint({"root", JointType::kFixed, -1, prev});
  for (int i = 1; i < 60; ++i) {
    int body = b.add_body("l" + std::to_string(i));
    JointSpec j{"j" + std::to_string(i), JointType::kRevolute, prev, body, tf(0, 0, 0.2)};
    j.axis = {0, 1, 0}, j.lower = -1, j.upper = 1;
    b.add_joint(j);
    Geometry g = geometry(GeometryType::kMesh, {0, 0, 0});
    g.mesh = mesh;
    b.collisions(body).push_back(g);
    prev = body;
  }
  auto t0 = std::chrono::steady_clock::now();
  Model m = b.finalize();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(m.collision.capsule_count(), 59);
  RecordProperty("finalize_seconds", std::to_string(s));
  for (double e : m.collision.fit_error) EXPECT_LT(e, 0.05);
}

}  // namespace
}  // namespace ikwb
