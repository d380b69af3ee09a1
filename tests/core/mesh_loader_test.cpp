#include "engine/core/mesh_loader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "core/temp_files.hpp"
#include "engine/core/urdf_loader.hpp"

// assimp 5.2's STL importer leaks its partial mesh when a truncated file makes it throw; keep
// LeakSanitizer builds (IKWB_SANITIZE) reporting our leaks only
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libassimp.so\n";
}

namespace ikwb {
namespace {

using test::TempDir;

// binary STL: 80-byte header, triangle count, then per triangle normal + 3 vertices + 2 bytes
std::string binary_stl(const std::vector<std::array<float, 9>>& tris) {
  std::string out(80, ' ');
  uint32_t n = uint32_t(tris.size());
  out.append(reinterpret_cast<const char*>(&n), 4);
  for (const auto& t : tris) {
    float normal[3] = {0, 0, 0};
    out.append(reinterpret_cast<const char*>(normal), 12);
    out.append(reinterpret_cast<const char*>(t.data()), 36);
    out.append(2, '\0');
  }
  return out;
}

void expect_unit_normals(const MeshData& m) {
  ASSERT_EQ(m.normals.size(), m.positions.size());
  for (std::size_t v = 0; v < m.vertex_count(); ++v) {
    const float* n = &m.normals[3 * v];
    EXPECT_NEAR(std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1.0, 1e-5);
  }
}

TEST(MeshLoader, AsciiStl) {
  TempDir dir;
  std::string err;
  auto m = load_mesh(dir.write("t.stl", test::stl_triangle()), &err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->triangle_count(), 1u);
  EXPECT_EQ(m->vertex_count(), 3u);
  EXPECT_TRUE(m->colors.empty());
  expect_unit_normals(*m);
  EXPECT_NEAR(m->normals[2], 1.0, 1e-6);
  // the triangle spans x and y in [0, 1] at z = 0
  float max_x = 0, max_y = 0;
  for (std::size_t v = 0; v < m->vertex_count(); ++v) {
    max_x = std::max(max_x, m->positions[3 * v]);
    max_y = std::max(max_y, m->positions[3 * v + 1]);
    EXPECT_EQ(m->positions[3 * v + 2], 0.0f);
  }
  EXPECT_EQ(max_x, 1.0f);
  EXPECT_EQ(max_y, 1.0f);
}

TEST(MeshLoader, BinaryStl) {
  TempDir dir;
  std::string path =
      dir.write("b.stl", binary_stl({{0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 1, 1, 1, 0, 1}}));
  std::string err;
  auto m = load_mesh(path, &err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->triangle_count(), 2u);
  for (uint32_t i : m->indices) EXPECT_LT(i, m->vertex_count());
  expect_unit_normals(*m);
}

TEST(MeshLoader, ZeroNormalsInStlAreComputedFromFaces) {
  TempDir dir;
  // a triangle in the x = 0 plane, counter-clockwise seen from +x, with a zero normal in the file
  std::string err;
  auto m = load_mesh(dir.write("z.stl", binary_stl({{0, 0, 0, 0, 1, 0, 0, 0, 1}})), &err);
  ASSERT_TRUE(m) << err;
  for (std::size_t v = 0; v < m->vertex_count(); ++v) {
    EXPECT_NEAR(m->normals[3 * v], 1.0f, 1e-6);
    EXPECT_NEAR(m->normals[3 * v + 1], 0.0f, 1e-6);
    EXPECT_NEAR(m->normals[3 * v + 2], 0.0f, 1e-6);
  }
}

// A box of 0.3 x 0.1 x 0.04 m, its faces wound outward, without normals, in three files: a glTF
// is shaded flat (glTF 2.0, 3.7.2.1: "client implementations MUST calculate flat normals"); a
// PLY, which shares a corner among faces, and an OBJ, which repeats it for each, get one outward
// normal at each corner, the area-weighted mean of its faces' (assimp's smoothing gave the
// shared corners one face's normal, +-x: the glTF box's top read dark)
TEST(MeshLoader, NormalsAFileLacksAreFlatForGltfAndSmoothElsewhere) {
  const float corners[8][3] = {{0.05f, 0.02f, 0.01f}, {0.35f, 0.02f, 0.01f}, {0.05f, 0.12f, 0.01f},
                               {0.35f, 0.12f, 0.01f}, {0.05f, 0.02f, 0.05f}, {0.35f, 0.02f, 0.05f},
                               {0.05f, 0.12f, 0.05f}, {0.35f, 0.12f, 0.05f}};
  const uint32_t faces[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                                 {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  TempDir dir;
  std::string obj, ply =
                       "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty "
                       "float y\nproperty float z\nelement face 12\nproperty list uchar int "
                       "vertex_indices\nend_header\n";
  std::string bin(reinterpret_cast<const char*>(corners), sizeof corners);
  bin.append(reinterpret_cast<const char*>(faces), sizeof faces);
  for (const auto& c : corners) {
    const std::string line =
        std::to_string(c[0]) + " " + std::to_string(c[1]) + " " + std::to_string(c[2]) + "\n";
    obj += "v " + line;
    ply += line;
  }
  for (const auto& f : faces) {
    obj += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " +
           std::to_string(f[2] + 1) + "\n";
    ply += "3 " + std::to_string(f[0]) + " " + std::to_string(f[1]) + " " + std::to_string(f[2]) +
           "\n";
  }
  dir.write("box.bin", bin);
  const std::string gltf = R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
    "nodes": [{"mesh": 0}], "meshes": [{"primitives": [{"attributes": {"POSITION": 0},
    "indices": 1, "mode": 4}]}], "buffers": [{"byteLength": 240, "uri": "box.bin"}],
    "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96, "target": 34962},
                    {"buffer": 0, "byteOffset": 96, "byteLength": 144, "target": 34963}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                   "min": [0.05, 0.02, 0.01], "max": [0.35, 0.12, 0.05]},
                  {"bufferView": 1, "componentType": 5125, "count": 36, "type": "SCALAR"}]})";
  std::string err;
  auto flat = load_mesh(dir.write("box.gltf", gltf), &err);
  ASSERT_TRUE(flat) << err;
  ASSERT_EQ(flat->triangle_count(), 12u);
  ASSERT_EQ(flat->vertex_count(), 36u);  // each face's corners its own
  expect_unit_normals(*flat);
  for (std::size_t t = 0; t < 12; ++t) {
    // the face's outward axis: where its corners all lie on the box's side
    const uint32_t* i = &flat->indices[3 * t];
    int along = -1;
    float side = 0;
    for (int k = 0; k < 3 && along < 0; ++k) {
      const float a = flat->positions[3 * i[0] + k];
      if (a == flat->positions[3 * i[1] + k] && a == flat->positions[3 * i[2] + k])
        along = k, side = a == corners[0][k] ? -1.0f : 1.0f;
    }
    ASSERT_GE(along, 0) << t;
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(flat->normals[3 * i[c] + k], k == along ? side : 0.0f, 1e-6) << t;
  }
  auto shared = load_mesh(dir.write("box.ply", ply), &err);
  ASSERT_TRUE(shared) << err;
  auto repeated = load_mesh(dir.write("box.obj", obj), &err);
  ASSERT_TRUE(repeated) << err;
  ASSERT_EQ(shared->vertex_count(), 8u);
  ASSERT_EQ(repeated->vertex_count(), 36u);
  expect_unit_normals(*shared);
  expect_unit_normals(*repeated);
  const float centre[3] = {0.2f, 0.07f, 0.03f};
  for (std::size_t v = 0; v < 8; ++v)
    for (int k = 0; k < 3; ++k) {
      const float out = shared->positions[3 * v + k] > centre[k] ? 1.0f : -1.0f;
      EXPECT_GT(shared->normals[3 * v + k] * out, 0.01f) << v << " " << k;
    }
  for (std::size_t v = 0; v < 36; ++v) {
    std::size_t same = 8;
    for (std::size_t u = 0; u < 8; ++u)
      if (std::memcmp(&shared->positions[3 * u], &repeated->positions[3 * v], 12) == 0) same = u;
    ASSERT_LT(same, 8u) << v;
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(repeated->normals[3 * v + k], shared->normals[3 * same + k], 1e-6) << v;
  }
}

TEST(MeshLoader, ObjQuadsAreTriangulatedAndMaterialColorsKept) {
  TempDir dir;
  dir.write("m.mtl", "newmtl blue\nKd 0.1 0.2 0.9\n");
  std::string path = dir.write("q.obj",
                               "mtllib m.mtl\n"
                               "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                               "usemtl blue\n"
                               "f 1 2 3 4\n");
  std::string err;
  auto m = load_mesh(path, &err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->triangle_count(), 2u);
  ASSERT_EQ(m->colors.size(), 4 * m->vertex_count());
  EXPECT_NEAR(m->colors[0], 0.1f, 1e-6);
  EXPECT_NEAR(m->colors[1], 0.2f, 1e-6);
  EXPECT_NEAR(m->colors[2], 0.9f, 1e-6);
  EXPECT_NEAR(m->colors[3], 1.0f, 1e-6);
  expect_unit_normals(*m);
}

// a Collada triangle in millimetres, declared Z-up, under a node translated by 10 mm along x
std::string collada_triangle() {
  return R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="millimeter" meter="0.001"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tri" name="tri">
      <mesh>
        <source id="tri-pos">
          <float_array id="tri-pos-array" count="9">0 0 0 100 0 0 0 0 100</float_array>
          <technique_common>
            <accessor source="#tri-pos-array" count="3" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/>
              <param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="tri-vtx"><input semantic="POSITION" source="#tri-pos"/></vertices>
        <triangles count="1">
          <input semantic="VERTEX" source="#tri-vtx" offset="0"/>
          <p>0 1 2</p>
        </triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="n" name="n">
        <matrix>1 0 0 10 0 1 0 0 0 0 1 0 0 0 0 1</matrix>
        <instance_geometry url="#tri"/>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
}

TEST(MeshLoader, ColladaKeepsZUpAndAppliesUnitsAndNodeTransforms) {
  TempDir dir;
  std::string err;
  auto m = load_mesh(dir.write("tri.dae", collada_triangle()), &err);
  ASSERT_TRUE(m) << err;
  ASSERT_EQ(m->triangle_count(), 1u);
  // vertices (0,0,0), (100,0,0), (0,0,100) mm shifted by 10 mm along x: metres, z still up
  float max_z = -1, min_x = 1e9, max_x = -1e9;
  for (std::size_t v = 0; v < m->vertex_count(); ++v) {
    min_x = std::min(min_x, m->positions[3 * v]);
    max_x = std::max(max_x, m->positions[3 * v]);
    max_z = std::max(max_z, m->positions[3 * v + 2]);
    EXPECT_NEAR(m->positions[3 * v + 1], 0.0f, 1e-6);
  }
  EXPECT_NEAR(min_x, 0.01f, 1e-6);
  EXPECT_NEAR(max_x, 0.11f, 1e-6);
  EXPECT_NEAR(max_z, 0.1f, 1e-6);
}

// a COLLADA unit that is not a positive length is refused, naming it (assimp collapsed the mesh
// to a point at 0, mirrored it through the origin at -1, read "abc" as 1, without a word); one
// with spaces around it is read as the length it is (assimp read " 1e-3 " as 1), a decimal comma
// as assimp reads it
TEST(MeshLoader, AColladaUnitThatIsNotAPositiveLengthIsRefused) {
  TempDir dir;
  for (const char* unit : {"0", "-1", "abc", "", "1e999", "nan", "0x1p-10", "inf"}) {
    std::string dae = collada_triangle();
    dae.replace(dae.find("meter=\"0.001\""), 13, std::string("meter=\"") + unit + "\"");
    std::string err;
    EXPECT_FALSE(load_mesh(dir.write(std::string("u") + unit + ".dae", dae), &err)) << unit;
    EXPECT_NE(err.find(std::string("its <unit meter=\"") + unit +
                       "\"> is not a positive length in metres"),
              std::string::npos)
        << err;
  }
  // read as XML: spaces around '=' or the number, a character reference, a comment naming
  // another unit before the asset (a text search took it, or missed the spaced one)
  int k = 0;
  for (const char* unit :
       {R"(meter=" 1e-3 ")", R"(meter="0,001")", R"(meter = "0.001")", "meter\t=\t'0.001'",
        R"(meter="&#48;.001")", R"(meter="0.001"/><!-- <unit meter="0.5"/> --><x a="")",
        R"(meter="0.5"/><unit meter="0.001")"}) {  // the last unit, as assimp
    std::string dae = collada_triangle();
    dae.replace(dae.find("meter=\"0.001\""), 13, unit);
    if (k == 5) dae.replace(dae.find("<asset>"), 0, "<!-- was <unit meter=\"0\"/> -->");
    std::string err;
    auto m = load_mesh(dir.write("ok" + std::to_string(k++) + ".dae", dae), &err);
    ASSERT_TRUE(m) << err;
    EXPECT_NEAR(m->positions[3], 0.11f, 1e-6) << unit;  // 100 mm + the node's 10 mm
  }
}

// a mesh whose vertices are all in one place as scaled is said to be a point, and gets no
// capsule (it got one of radius 0 there, which collided), said with the capsules' warnings
TEST(MeshLoader, AMeshThatIsAPointIsSaidToBeAndDoesNotCollide) {
  TempDir dir;
  dir.write("point.stl", binary_stl({{1, 2, 3, 1, 2, 3, 1, 2, 3}}));
  dir.write("tri.stl", binary_stl({{0, 0, 0, 1, 0, 0, 0, 1, 0}}));
  const std::string urdf = dir.write("p.urdf", R"(<robot name="p"><link name="a"><collision>
<geometry><mesh filename="point.stl"/></geometry></collision><collision>
<geometry><mesh filename="tri.stl"/></geometry></collision></link></robot>)");
  const LoadResult r = load_urdf_file(urdf);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("mesh 'point.stl' is a point as scaled (every vertex in one "
                               "place): nothing of it is drawn or collides"),
            std::string::npos)
      << r.warnings[0];
  const CollisionGeometry& c = r.model->collision;
  ASSERT_EQ(c.capsule_count(), 1);  // the triangle's
  EXPECT_GT(c.capsules[0].radius, 0.3);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], urdf +
                               ": link 'a' collision 0 is a point (a mesh with every vertex in "
                               "one place, or a shape of size 0): not used for collisions");
}

// two camera nodes under one id, as Blender wrote the UR10 meshes of example-robot-data:
// assimp's validation rejects the duplicate camera names; the loader drops cameras first
TEST(MeshLoader, ColladaWithDuplicateCameraNamesLoads) {
  std::string dae = collada_triangle();
  auto camera = [](const std::string& id) {
    return "<camera id=\"" + id +
           "\"><optics><technique_common><perspective><xfov>49</xfov><aspect_ratio>1.7"
           "</aspect_ratio><znear>0.1</znear><zfar>100</zfar></perspective></technique_common>"
           "</optics></camera>";
  };
  dae.replace(dae.find("<library_geometries>"), 0,
              "<library_cameras>" + camera("cam1") + camera("cam2") + "</library_cameras>\n");
  dae.replace(dae.find("<node id=\"n\""), 0,
              "<node id=\"Cam\" name=\"Cam\"><instance_camera url=\"#cam1\"/></node>\n"
              "<node id=\"Cam\" name=\"Cam\"><instance_camera url=\"#cam2\"/></node>\n");
  TempDir dir;
  std::string err;
  auto m = load_mesh(dir.write("cams.dae", dae), &err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->triangle_count(), 1u);
}

TEST(MeshLoader, BadFilesFailWithoutCrashing) {
  TempDir dir;
  const std::vector<std::array<float, 9>> two_triangles = {{0, 0, 0, 1, 0, 0, 0, 1, 0},
                                                           {0, 0, 1, 1, 0, 1, 0, 1, 1}};
  auto one_counted = [](std::string stl) { return stl.replace(80, 4, "\x01\0\0\0", 4); };
  struct Case {
    const char* name;
    std::string content;
    const char* expect;
  };
  std::vector<Case> cases = {
      {"empty.stl", "", "empty file"},
      // STL faults where assimp only says "Failed to determine STL storage representation"
      {"garbage.stl", std::string("\x01\x02\x03garbage\xff\xfe", 12),
       "12 bytes: shorter than a binary STL's 84-byte header, and not an ASCII STL"},
      {"truncated.stl", "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0\n", ""},
      {"short_binary.stl", binary_stl({{0, 0, 0, 1, 0, 0, 0, 1, 0}}).substr(0, 100),
       "a binary STL whose header counts 1 triangle (134 bytes), but the file has 100 bytes: cut "
       "short?"},
      {"count_low.stl", one_counted(binary_stl(two_triangles)),
       "header counts 1 triangle (134 bytes), but the file has 184 bytes, 2 triangles' worth: a "
       "wrong count in its header?"},
      {"trailing.stl", binary_stl(two_triangles) + std::string(7, '\0'),
       "header counts 2 triangles (184 bytes), but the file has 191 bytes, 7 bytes more than its "
       "triangles"},
      {"one_uncounted.stl",
       binary_stl({{0, 0, 0, 1, 0, 0, 0, 1, 0}}).replace(80, 4, std::string(4, '\0')),
       "header counts 0 triangles (84 bytes), but the file has 134 bytes, 1 triangle's worth"},
      {"upper_facet.stl",
       "solid Vertex\nFACET normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 "
       "0\nendloop\nendfacet\nendsolid Vertex\n",
       "an ASCII STL whose keywords are not in lower case (\"FACET\")"},
      // the size its count gives: assimp's own message
      {"no_triangles.stl", binary_stl({}), "no facets"},
      {"upper.stl",
       "SOLID x\nFACET NORMAL 0 0 1\nOUTER LOOP\nVERTEX 0 0 0\nVERTEX 1 0 0\nVERTEX 0 1 0\n"
       "ENDLOOP\nENDFACET\nENDSOLID x\n",
       "an ASCII STL whose keywords are not in lower case (\"SOLID\")"},
      {"broken.dae", "<COLLADA><library_geometries><geometry>", ""},
      {"lines.obj", "v 0 0 0\nv 1 0 0\nl 1 2\n", "no triangles"},
      {"empty.obj", "# nothing\n", ""},
      {"unknown.xyz123", "whatever", ""},
  };
  for (const Case& c : cases) {
    std::string err;
    auto m = load_mesh(dir.write(c.name, c.content), &err);
    EXPECT_FALSE(m) << c.name;
    EXPECT_EQ(err.rfind(dir / c.name, 0), 0u) << c.name << ": " << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.name << ": " << err;
  }
  std::string err;
  EXPECT_FALSE(load_mesh(dir / "missing.stl", &err));
  EXPECT_NE(err.find("not a file"), std::string::npos) << err;
  EXPECT_FALSE(load_mesh(dir.path().string(), nullptr));
}

TEST(MeshLoader, CachesByPathAndReloadsChangedFiles) {
  TempDir dir;
  std::string path = dir.write("c.stl", test::stl_triangle());
  auto a = load_mesh(path, nullptr);
  auto b = load_mesh(path, nullptr);
  ASSERT_TRUE(a);
  EXPECT_EQ(a, b);
  dir.write("c.stl", binary_stl({{0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 1, 1, 1, 0, 1}}));
  auto c = load_mesh(path, nullptr);
  ASSERT_TRUE(c);
  EXPECT_NE(a, c);
  EXPECT_EQ(c->triangle_count(), 2u);
  clear_mesh_cache();
  auto d = load_mesh(path, nullptr);
  EXPECT_NE(c, d);
  EXPECT_EQ(d->triangle_count(), 2u);
}

// an OBJ triangle using material `red` from the library `mtllib`
std::string obj_triangle(const std::string& mtllib) {
  return "mtllib " + mtllib + "\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n";
}

TEST(MeshLoader, ObjWhoseMtlIsMissingLoadsWithoutColoursAndNamesIt) {
  TempDir dir;
  std::string err;
  MissingMeshFiles missing;
  // assimp makes a default-grey material for `red`: not a colour of the file's
  auto m = load_mesh(dir.write("t.obj", obj_triangle("gone.mtl")), &err, &missing);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->triangle_count(), 1u);
  EXPECT_TRUE(m->colors.empty());
  EXPECT_EQ(missing.material_libraries,
            std::vector<std::string>{"'gone.mtl' (looked for " + (dir / "gone.mtl") + ")"});
  EXPECT_TRUE(missing.textures.empty());
  // a file that differs only in case is named (file names are case-sensitive)
  dir.write("Case.MTL", "newmtl red\nKd 1 0 0\n");
  ASSERT_TRUE(load_mesh(dir.write("c.obj", obj_triangle("case.mtl")), &err, &missing));
  EXPECT_EQ(missing.material_libraries,
            std::vector<std::string>{"'case.mtl' (looked for " + (dir / "case.mtl") + "; " +
                                     (dir / "Case.MTL") + " differs only in case)"});
}

TEST(MeshLoader, ObjMtlIsFoundThroughBackslashesSpacesAndAssimpsOwnGuess) {
  TempDir dir;
  MissingMeshFiles missing;
  dir.write("sub/red mat.mtl", "newmtl red\nKd 1 0 0\n");
  auto m = load_mesh(dir.write("a.obj", obj_triangle("sub\\red mat.mtl")), nullptr, &missing);
  ASSERT_TRUE(m);
  EXPECT_TRUE(missing.empty());
  ASSERT_FALSE(m->colors.empty());
  EXPECT_EQ(m->colors[0], 1.0f);
  // a missing library is still said when assimp reads the one named like the OBJ instead, but
  // that one is not said to be missing when it is not there either
  dir.write("b.mtl", "newmtl red\nKd 1 0 0\n");
  m = load_mesh(dir.write("b.obj", obj_triangle("other.mtl")), nullptr, &missing);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->colors.empty());
  EXPECT_EQ(missing.material_libraries,
            std::vector<std::string>{"'other.mtl' (looked for " + (dir / "other.mtl") + ")"});
  ASSERT_TRUE(load_mesh(dir.write("c.obj", obj_triangle("other.mtl")), nullptr, &missing));
  EXPECT_EQ(missing.material_libraries.size(), 1u);
  // an OBJ without a library is not missing one
  ASSERT_TRUE(
      load_mesh(dir.write("d.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), nullptr, &missing));
  EXPECT_TRUE(missing.empty());
}

TEST(MeshLoader, MissingTexturesAreNamedOnceEach) {
  TempDir dir;
  dir.write("tex/grain.png", "stands in for an image");
  dir.write("m.mtl",
            "newmtl red\nKd 1 0 0\n"
            "map_Kd \"wood grain.png\"\n"          // missing; quoted for its space
            "map_Bump -bm 0.5 wood grain.png\n"    // the same, as a bump map
            "map_Ks tex\\grain.png\n"              // there, through a Windows backslash
            "map_d C:\\Users\\cad\\alpha.png\n");  // where it was exported
  MissingMeshFiles missing;
  auto m = load_mesh(dir.write("m.obj", obj_triangle("m.mtl")), nullptr, &missing);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->colors.empty());
  EXPECT_TRUE(missing.material_libraries.empty());
  EXPECT_EQ(missing.textures, (std::vector<std::string>{
                                  "'wood grain.png' (looked for " + (dir / "wood grain.png") + ")",
                                  "'C:\\Users\\cad\\alpha.png' (a Windows path)"}));
  // a Collada image, its %20 a space; an STL has no materials
  std::string dae = collada_triangle();
  auto replace = [&](const std::string& from, const std::string& to) {
    dae.replace(dae.find(from), from.size(), to);
  };
  replace("<library_geometries>",
          "<library_images><image id=\"i\"><init_from>file:///nowhere/my%20paint.png"
          "</init_from></image></library_images>"
          "<library_effects><effect id=\"e\"><profile_COMMON>"
          "<newparam sid=\"s\"><surface type=\"2D\"><init_from>i</init_from></surface>"
          "</newparam><newparam sid=\"p\"><sampler2D><source>s</source></sampler2D></newparam>"
          "<technique sid=\"t\"><lambert><diffuse><texture texture=\"p\" texcoord=\"UV\"/>"
          "</diffuse></lambert></technique></profile_COMMON></effect></library_effects>"
          "<library_materials><material id=\"mat\"><instance_effect url=\"#e\"/></material>"
          "</library_materials><library_geometries>");
  replace("<triangles count=\"1\">", "<triangles count=\"1\" material=\"x\">");
  replace("<instance_geometry url=\"#tri\"/>",
          "<instance_geometry url=\"#tri\"><bind_material><technique_common>"
          "<instance_material symbol=\"x\" target=\"#mat\"/></technique_common></bind_material>"
          "</instance_geometry>");
  ASSERT_TRUE(load_mesh(dir.write("t.dae", dae), nullptr, &missing));
  EXPECT_EQ(missing.textures,
            std::vector<std::string>{"'/nowhere/my paint.png' (looked for /nowhere/my paint.png)"});
  ASSERT_TRUE(load_mesh(dir.write("t.stl", test::stl_triangle()), nullptr, &missing));
  EXPECT_TRUE(missing.empty());
}

TEST(MeshLoader, CachedMeshSaysItsMissingFilesAndIsReadAgainWhenOneAppears) {
  TempDir dir;
  const std::string path = dir.write("t.obj", obj_triangle("t.mtl"));
  MissingMeshFiles first, again;
  auto a = load_mesh(path, nullptr, &first);
  auto b = load_mesh(path, nullptr, &again);
  ASSERT_TRUE(a);
  EXPECT_EQ(a, b);
  EXPECT_EQ(first.material_libraries.size(), 1u);
  EXPECT_EQ(again.material_libraries, first.material_libraries);
  // the user adds the .mtl: the OBJ is unchanged, but it reads with its colours now
  dir.write("t.mtl", "newmtl red\nKd 1 0 0\n");
  auto c = load_mesh(path, nullptr, &again);
  ASSERT_TRUE(c);
  EXPECT_NE(a, c);
  EXPECT_TRUE(again.empty());
  EXPECT_FALSE(c->colors.empty());
}

}  // namespace
}  // namespace ikwb
