// Tests for engine/render/primitives: closed, consistently wound, outward, unit normals, and the
// volume each shape should enclose.
#include "engine/render/primitives.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

namespace ikwb::render {
namespace {

constexpr double kPi = 3.14159265358979;

// vertex ids after welding equal positions (caps and faces duplicate vertices for normals)
std::vector<int> weld(const MeshData& m) {
  std::map<std::tuple<long, long, long>, int> ids;
  std::vector<int> out(m.vertex_count());
  for (std::size_t i = 0; i < m.vertex_count(); ++i) {
    auto key = std::make_tuple(std::lround(m.positions[3 * i] * 1e5),
                               std::lround(m.positions[3 * i + 1] * 1e5),
                               std::lround(m.positions[3 * i + 2] * 1e5));
    out[i] = ids.emplace(key, int(ids.size())).first->second;
  }
  return out;
}

// every directed edge appears once and its reverse once: closed, consistently oriented
void expect_closed(const MeshData& m) {
  std::vector<int> id = weld(m);
  std::map<std::pair<int, int>, int> edges;
  for (std::size_t t = 0; t < m.indices.size(); t += 3) {
    for (int k = 0; k < 3; ++k) {
      int a = id[m.indices[t + k]], b = id[m.indices[t + (k + 1) % 3]];
      ASSERT_NE(a, b) << "degenerate triangle " << t / 3;
      edges[{a, b}]++;
    }
  }
  for (const auto& [e, n] : edges) {
    EXPECT_EQ(n, 1) << "edge used " << n << " times";
    auto rev = edges.find({e.second, e.first});
    EXPECT_TRUE(rev != edges.end() && rev->second == 1) << "open or inconsistently wound edge";
  }
}

void expect_unit_normals(const MeshData& m) {
  ASSERT_EQ(m.normals.size(), m.positions.size());
  for (std::size_t i = 0; i < m.vertex_count(); ++i) {
    double n = std::sqrt(m.normals[3 * i] * m.normals[3 * i] +
                         m.normals[3 * i + 1] * m.normals[3 * i + 1] +
                         m.normals[3 * i + 2] * m.normals[3 * i + 2]);
    EXPECT_NEAR(n, 1.0, 1e-5);
  }
}

// signed volume (positive for outward, counter-clockwise faces)
double volume(const MeshData& m) {
  double v = 0;
  for (std::size_t t = 0; t < m.indices.size(); t += 3) {
    const float* a = &m.positions[3 * m.indices[t]];
    const float* b = &m.positions[3 * m.indices[t + 1]];
    const float* c = &m.positions[3 * m.indices[t + 2]];
    v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
          a[2] * (b[0] * c[1] - b[1] * c[0])) /
         6.0;
  }
  return v;
}

// vertex normals agree with the faces around them (outward)
void expect_normals_outward(const MeshData& m) {
  for (std::size_t t = 0; t < m.indices.size(); t += 3) {
    const float* a = &m.positions[3 * m.indices[t]];
    const float* b = &m.positions[3 * m.indices[t + 1]];
    const float* c = &m.positions[3 * m.indices[t + 2]];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double fn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0]};
    for (int k = 0; k < 3; ++k) {
      const float* n = &m.normals[3 * m.indices[t + k]];
      EXPECT_GT(fn[0] * n[0] + fn[1] * n[1] + fn[2] * n[2], 0.0);
    }
  }
}

void expect_bounds(const MeshData& m, double x, double y, double z) {
  double hi[3] = {-1e9, -1e9, -1e9}, lo[3] = {1e9, 1e9, 1e9};
  for (std::size_t i = 0; i < m.positions.size(); ++i) {
    hi[i % 3] = std::max(hi[i % 3], double(m.positions[i]));
    lo[i % 3] = std::min(lo[i % 3], double(m.positions[i]));
  }
  EXPECT_NEAR(hi[0] - lo[0], x, 1e-5);
  EXPECT_NEAR(hi[1] - lo[1], y, 1e-5);
  EXPECT_NEAR(hi[2] - lo[2], z, 1e-5);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(hi[k] + lo[k], 0.0, 1e-5) << "not centred";
}

TEST(Primitives, Box) {
  MeshData m = make_box(0.2f, 0.4f, 1.0f);
  EXPECT_EQ(m.vertex_count(), 24u);
  EXPECT_EQ(m.triangle_count(), 12u);
  expect_closed(m);
  expect_unit_normals(m);
  expect_normals_outward(m);
  expect_bounds(m, 0.2, 0.4, 1.0);
  EXPECT_NEAR(volume(m), 0.08, 1e-6);
}

TEST(Primitives, CylinderAlongZ) {
  MeshData m = make_cylinder(0.1f, 0.5f, 64);
  expect_closed(m);
  expect_unit_normals(m);
  expect_normals_outward(m);
  expect_bounds(m, 0.2, 0.2, 0.5);
  EXPECT_NEAR(volume(m), kPi * 0.01 * 0.5, 0.01 * kPi * 0.01 * 0.5);
}

TEST(Primitives, Sphere) {
  MeshData m = make_sphere(0.3f, 48, 24);
  expect_closed(m);
  expect_unit_normals(m);
  expect_normals_outward(m);
  expect_bounds(m, 0.6, 0.6, 0.6);
  EXPECT_NEAR(volume(m), 4.0 / 3.0 * kPi * 0.027, 0.02 * 4.0 / 3.0 * kPi * 0.027);
  // smooth: normals are the radial direction
  for (std::size_t i = 0; i < m.vertex_count(); ++i)
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(m.normals[3 * i + k], m.positions[3 * i + k] / 0.3, 1e-5);
}

TEST(Primitives, Capsule) {
  MeshData m = make_capsule(0.1f, 0.4f, 32, 16);
  expect_closed(m);
  expect_unit_normals(m);
  expect_normals_outward(m);
  expect_bounds(m, 0.2, 0.2, 0.6);
  double expected = kPi * 0.01 * 0.4 + 4.0 / 3.0 * kPi * 0.001;
  EXPECT_NEAR(volume(m), expected, 0.03 * expected);
  // zero length degenerates to a sphere, still closed
  expect_closed(make_capsule(0.1f, 0.0f, 16, 8));
}

TEST(Primitives, Cone) {
  MeshData m = make_cone(0.1f, 0.3f, 32);
  expect_closed(m);
  expect_unit_normals(m);
  expect_normals_outward(m);
  double expected = kPi * 0.01 * 0.3 / 3.0;
  EXPECT_NEAR(volume(m), expected, 0.02 * expected);
}

TEST(Primitives, ComputedNormalsMatchSmoothSphere) {
  MeshData m = make_sphere(1.0f, 24, 12);
  MeshData computed = m;
  computed.normals.clear();
  compute_normals(computed);
  expect_unit_normals(computed);
  // within a few degrees of the exact radial normals (split quads bias them slightly)
  for (std::size_t v = 0; v < m.vertex_count(); ++v) {
    double d = 0;
    for (int k = 0; k < 3; ++k) d += computed.normals[3 * v + k] * m.normals[3 * v + k];
    EXPECT_GT(d, 0.995);
  }
}

TEST(Primitives, AppendOffsetsIndices) {
  MeshData a = make_box(1, 1, 1);
  MeshData b = make_box(1, 1, 1);
  std::size_t n = a.vertex_count();
  append_mesh(a, b);
  EXPECT_EQ(a.vertex_count(), 2 * n);
  EXPECT_EQ(a.triangle_count(), 24u);
  EXPECT_EQ(a.indices[12 * 3], uint32_t(n));
  EXPECT_TRUE(a.colors.empty());
}

}  // namespace
}  // namespace ikwb::render
