// Tests for engine/core/mjcf_meshes: MJCF mesh files that MuJoCo 2.2.2 cannot read (missing,
// ASCII STL, too few vertices, refused, named like a replaced one) load as placeholders or
// converted copies, with grouped warnings; kinematics equal those of the file with its meshes.
#include "engine/core/mjcf_meshes.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "core/temp_files.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/mjcf_loader.hpp"

namespace ikwb {
namespace {

#ifdef IKWB_HAVE_MUJOCO

// a closed tetrahedron of 1 cm, faces wound outward
const double kTetra[4][3] = {{0, 0, 0}, {0.01, 0, 0}, {0, 0.01, 0}, {0, 0, 0.01}};
const int kTetraFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

std::string tetra_obj() {
  std::string s;
  for (const auto& v : kTetra)
    s += "v " + std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]) +
         "\n";
  for (const auto& f : kTetraFaces)
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " +
         std::to_string(f[2] + 1) + "\n";
  return s;
}

std::string tetra_ascii_stl() {
  std::string s = "solid tetra\n";
  for (const auto& f : kTetraFaces) {
    s += " facet normal 0 0 0\n  outer loop\n";
    for (int k : f)
      s += "   vertex " + std::to_string(kTetra[k][0]) + " " + std::to_string(kTetra[k][1]) + " " +
           std::to_string(kTetra[k][2]) + "\n";
    s += "  endloop\n endfacet\n";
  }
  return s + "endsolid tetra\n";
}

// a binary STL of the tetrahedron with its first vertex moved to x
std::string tetra_binary_stl(float x) {
  std::string s(80, '\0');
  auto put = [&](const void* p, std::size_t n) { s.append(static_cast<const char*>(p), n); };
  const std::uint32_t n = 4;
  put(&n, 4);
  for (const auto& f : kTetraFaces) {
    const float normal[3] = {0, 0, 0};
    put(normal, 12);
    for (int k : f) {
      const float v[3] = {k == 0 ? x : float(kTetra[k][0]), float(kTetra[k][1]),
                          float(kTetra[k][2])};
      put(v, 12);
    }
    const std::uint16_t attributes = 0;
    put(&attributes, 2);
  }
  return s;
}

// an arm whose link has an <inertial> and a visual and a colliding mesh; a hand whose mass comes
// from its meshes: one in millimetres (a class's scale), an ASCII STL, an OBJ
const char* kArm = R"(<mujoco model="arm">
  <compiler meshdir="assets"/>
  <default><default class="mm"><mesh scale="0.001 0.001 0.001"/></default></default>
  <asset>
    <mesh name="arm_visual" file="arm.obj"/>
    <mesh name="arm_collision" file="arm.stl"/>
    <mesh class="mm" file="hand.stl"/>
    <mesh name="tip" file="tip.stl"/>
    <mesh name="nail" file="nail.obj"/>
  </asset>
  <worldbody>
    <body name="arm" pos="0 0 0.1">
      <inertial pos="0 0 0.1" mass="1" diaginertia="0.01 0.01 0.01"/>
      <joint name="shoulder" axis="0 1 0"/>
      <geom type="mesh" mesh="arm_visual" contype="0" conaffinity="0"/>
      <geom type="mesh" mesh="arm_collision"/>
      <body name="hand" pos="0 0 0.3" euler="0.3 0 0.2">
        <joint name="wrist" axis="1 0 0"/>
        <geom type="mesh" mesh="hand"/>
        <geom type="mesh" mesh="tip" pos="0 0 0.1" contype="0" conaffinity="0"/>
        <geom type="mesh" mesh="nail" contype="0" conaffinity="0"/>
        <site name="tool" pos="0 0 0.15"/>
      </body>
    </body>
  </worldbody>
</mujoco>)";

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  return all;
}

// Missing meshes, an ASCII STL and an OBJ with two vertices: the robot loads, its kinematics
// equal the file's with every mesh present, the ASCII STL is kept, the others are placeholders
// (without collision capsules), in one warning per reason naming what is lost.
TEST(MjcfMeshes, MissingOrUnreadableMeshesArePlaceholders) {
  test::TempDir with, without;
  with.write("assets/arm.obj", tetra_obj());
  with.write("assets/arm.stl", tetra_ascii_stl());
  with.write("assets/hand.stl", tetra_binary_stl(10.0f));  // 10 mm at the class's scale
  with.write("assets/tip.stl", tetra_ascii_stl());
  with.write("assets/nail.obj", tetra_obj());
  without.write("assets/tip.stl", tetra_ascii_stl());         // MuJoCo 2.2.2 alone cannot read it
  without.write("assets/nail.obj", "v 0 0 0\nv 0.01 0 0\n");  // it would crash on this one
  const LoadResult full = load_mjcf_file(with.write("arm.xml", kArm));
  const std::string path = without.write("arm.xml", kArm);
  const LoadResult r = load_mjcf_file(path);
  const Model& m = *r.model;
  const std::string all = joined(r.warnings);
  ASSERT_EQ(r.warnings.size(), 3u) << all;
  EXPECT_EQ(r.warnings[0], path + ": 3 mesh files not found in " + (without / "assets") +
                               ": arm.obj, arm.stl, hand.stl; 3 geoms shown as placeholders, 2 "
                               "of them colliding without collision capsules (kinematics are "
                               "unchanged)");
  EXPECT_NE(r.warnings[1].find("1 mesh file with fewer than 4 vertices"), std::string::npos) << all;
  EXPECT_NE(r.warnings[1].find(": nail.obj; 1 geom shown as placeholder (kinematics"),
            std::string::npos)
      << all;
  // the hand takes its mass from meshes, the arm has an <inertial>
  EXPECT_EQ(r.warnings[2], path +
                               ": the masses and inertias MuJoCo computes from the replaced "
                               "meshes are missing from bodies hand (give them <inertial> "
                               "elements, or the mesh files)");
  EXPECT_TRUE(full.warnings.empty()) << joined(full.warnings);
  EXPECT_EQ(m.body_mass[m.find_body("arm")], 1.0);

  // geometry: placeholders for the missing meshes, the ASCII STL's four triangles
  const int arm = m.find_body("arm"), hand = m.find_body("hand");
  ASSERT_EQ(m.body_visuals[arm].size(), 1u);
  EXPECT_TRUE(m.body_visuals[arm][0].placeholder);
  EXPECT_FALSE(m.body_visuals[arm][0].mesh);
  ASSERT_EQ(m.body_collisions[arm].size(), 1u);
  EXPECT_TRUE(m.body_collisions[arm][0].placeholder);
  EXPECT_EQ(m.collision.body_first[arm + 1] - m.collision.body_first[arm], 0);
  ASSERT_EQ(m.body_visuals[hand].size(), 2u);
  ASSERT_TRUE(m.body_visuals[hand][0].mesh);
  EXPECT_FALSE(m.body_visuals[hand][0].placeholder);
  EXPECT_EQ(m.body_visuals[hand][0].mesh->triangle_count(), 4u);
  EXPECT_TRUE(m.body_visuals[hand][1].placeholder);
  const Model& f = *full.model;
  EXPECT_EQ(f.collision.body_first[arm + 1] - f.collision.body_first[arm], 1);

  // kinematics: every body at random configurations, to the bit
  ASSERT_EQ(m.body_count, f.body_count);
  ASSERT_EQ(m.coord_count, f.coord_count);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-3, 3);
  State a(m), b(f);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<double> q(m.coord_count);
    for (double& x : q) x = u(rng);
    eval_fk(m, q, {}, a);
    eval_fk(f, q, {}, b);
    for (int k = 0; k < m.body_count; ++k) {
      EXPECT_EQ(m.body_name[k], f.body_name[k]);
      EXPECT_EQ(std::memcmp(&a.body_q[k], &b.body_q[k], sizeof a.body_q[k]), 0) << m.body_name[k];
    }
  }
}

// a missing mesh whose geom gives its mass loses the body's inertia, not its mass: the warning
// says so (it said masses and inertias, where the model had the file's masses; a review)
TEST(MjcfMeshes, AGeomWithItsOwnMassLosesOnlyTheInertia) {
  test::TempDir dir;
  const std::string path = dir.write("m.xml", R"(<mujoco model="m">
  <asset><mesh name="shell" file="shell.stl"/></asset>
  <worldbody><body name="b"><joint axis="0 0 1"/>
    <geom type="mesh" mesh="shell" mass="0.1"/></body></worldbody>
</mujoco>)");
  const LoadResult r = load_mjcf_file(path);
  ASSERT_EQ(r.warnings.size(), 2u) << joined(r.warnings);
  EXPECT_EQ(r.warnings[1], path +
                               ": the inertias MuJoCo computes from the replaced meshes are "
                               "missing from bodies b (their masses are the file's; give them "
                               "<inertial> elements, or the mesh files)");
  EXPECT_NEAR(r.model->body_mass[r.model->find_body("b")], 0.1, 1e-12);
}

// A mesh MuJoCo refuses (coordinates past its bounds) becomes a placeholder with MuJoCo's reason;
// a mesh file named like a replaced one in another folder is one too (MuJoCo finds the files it
// is given in memory by name alone), and says so.
TEST(MjcfMeshes, RefusedAndSameNamedMeshesArePlaceholders) {
  test::TempDir dir;
  dir.write("assets/huge.stl", tetra_binary_stl(1e12f));
  dir.write("assets/left/finger.obj", tetra_obj());
  const std::string path = dir.write("hand.xml", R"(<mujoco model="hand">
  <compiler meshdir="assets"/>
  <asset>
    <mesh name="huge" file="huge.stl"/>
    <mesh name="left" file="left/finger.obj"/>
    <mesh name="right" file="right/Finger.obj"/>
  </asset>
  <worldbody>
    <body name="palm">
      <joint name="j"/>
      <geom type="mesh" mesh="huge"/>
      <geom type="mesh" mesh="left" contype="0" conaffinity="0"/>
      <geom type="mesh" mesh="right" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>)");
  const LoadResult r = load_mjcf_file(path);
  const std::string all = joined(r.warnings);
  ASSERT_EQ(r.warnings.size(), 4u) << all;
  EXPECT_NE(all.find("1 mesh file named like a replaced file in another folder"), std::string::npos)
      << all;
  EXPECT_NE(all.find("not found in " + (dir / "assets/right") + ": Finger.obj"), std::string::npos)
      << all;
  EXPECT_NE(all.find("1 mesh file refused by MuJoCo 2.2.2 (vertex coordinates in STL file"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("huge.stl; 1 geom shown as placeholder, which collides and gets no "
                     "collision capsule"),
            std::string::npos)
      << all;
  const Model& m = *r.model;
  const int palm = m.find_body("palm");
  ASSERT_EQ(m.body_visuals[palm].size(), 2u);
  EXPECT_TRUE(m.body_visuals[palm][0].placeholder);
  EXPECT_TRUE(m.body_visuals[palm][1].placeholder);
  EXPECT_TRUE(m.body_collisions[palm][0].placeholder);
}

// a flat mesh, which MuJoCo's qhull refuses, is said in the load's one warning: qhull's own 50
// lines and more of diagnostics on stderr are held back
TEST(MjcfMeshes, AFlatMeshIsSaidInOneWarningWithoutQhullsDiagnostics) {
  test::TempDir dir;
  std::string flat(80, '\0');
  const std::uint32_t n = 2;
  flat.append(reinterpret_cast<const char*>(&n), 4);
  const float square[2][12] = {{0, 0, 1, 0, 0, 0, 0.01f, 0, 0, 0.01f, 0.01f, 0},
                               {0, 0, 1, 0, 0, 0, 0.01f, 0.01f, 0, 0, 0.01f, 0}};
  for (const auto& t : square) flat.append(reinterpret_cast<const char*>(t), 48).append(2, '\0');
  dir.write("assets/flat.stl", flat);
  const std::string path = dir.write("flat.xml", R"(<mujoco model="flat">
  <compiler meshdir="assets"/>
  <asset><mesh name="m" file="flat.stl"/></asset>
  <worldbody><body name="b"><joint name="j"/><geom type="mesh" mesh="m"/></body></worldbody>
</mujoco>)");
  testing::internal::CaptureStderr();
  const LoadResult r = load_mjcf_file(path);
  const std::string said = testing::internal::GetCapturedStderr();
  const std::string all = joined(r.warnings);
  EXPECT_NE(all.find("1 mesh file refused by MuJoCo 2.2.2 (qhull error): flat.stl"),
            std::string::npos)
      << all;
  EXPECT_EQ(said.find("Qhull"), std::string::npos) << said;
  EXPECT_TRUE(r.model->body_visuals[r.model->find_body("b")][0].placeholder);
}

#endif

}  // namespace
}  // namespace ikwb
