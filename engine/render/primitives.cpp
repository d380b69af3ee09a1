// Primitive tessellation. Round shapes are surfaces of revolution about z built from a profile
// (pole, rings..., pole); sharp edges (cylinder caps) get their own vertices.
#include "engine/render/primitives.hpp"

#include <algorithm>
#include <cmath>

namespace ikwb::render {

namespace {

constexpr float kPi = 3.14159265358979f;

void push_vertex(MeshData& m, float px, float py, float pz, float nx, float ny, float nz) {
  m.positions.insert(m.positions.end(), {px, py, pz});
  m.normals.insert(m.normals.end(), {nx, ny, nz});
}

uint32_t next_index(const MeshData& m) {
  return uint32_t(m.vertex_count());
}

void push_triangle(MeshData& m, uint32_t a, uint32_t b, uint32_t c) {
  m.indices.insert(m.indices.end(), {a, b, c});
}

// a profile point of a surface of revolution: radius, height, and the normal's (radial, z) parts
struct ProfilePoint {
  float r, z, nr, nz;
};

// rings of `segments` vertices at each interior profile point; profile.front() and back() are
// the bottom and top poles (r = 0)
MeshData lathe(const std::vector<ProfilePoint>& profile, int segments) {
  MeshData m;
  int rings = int(profile.size()) - 2;
  const ProfilePoint& bottom = profile.front();
  const ProfilePoint& top = profile.back();
  push_vertex(m, 0, 0, bottom.z, 0, 0, bottom.nz);
  for (int k = 1; k <= rings; ++k) {
    const ProfilePoint& p = profile[k];
    for (int i = 0; i < segments; ++i) {
      float a = 2.0f * kPi * float(i) / float(segments);
      float c = std::cos(a), s = std::sin(a);
      push_vertex(m, p.r * c, p.r * s, p.z, p.nr * c, p.nr * s, p.nz);
    }
  }
  uint32_t top_pole = next_index(m);
  push_vertex(m, 0, 0, top.z, 0, 0, top.nz);
  auto ring = [&](int k, int i) { return uint32_t(1 + (k - 1) * segments + (i % segments)); };
  for (int i = 0; i < segments; ++i) push_triangle(m, 0, ring(1, i + 1), ring(1, i));
  for (int k = 1; k < rings; ++k) {
    for (int i = 0; i < segments; ++i) {
      uint32_t a = ring(k, i), b = ring(k, i + 1), c = ring(k + 1, i + 1), d = ring(k + 1, i);
      push_triangle(m, a, b, c);
      push_triangle(m, a, c, d);
    }
  }
  for (int i = 0; i < segments; ++i) push_triangle(m, top_pole, ring(rings, i), ring(rings, i + 1));
  return m;
}

// hemisphere-to-hemisphere profile: a sphere split at the equator, halves offset by +-half_len
std::vector<ProfilePoint> capsule_profile(float radius, float half_len, int rings) {
  rings = std::max(rings, 2);
  int half = (rings + 1) / 2;
  std::vector<ProfilePoint> p;
  for (int k = 0; k <= half; ++k) {
    float lat = -0.5f * kPi + 0.5f * kPi * float(k) / float(half);
    float c = std::cos(lat), s = std::sin(lat);
    p.push_back({k == 0 ? 0.0f : radius * c, -half_len + radius * s, k == 0 ? 0.0f : c, s});
  }
  // a zero-length capsule is a sphere: skip the duplicate equator
  for (int k = half_len > 0.0f ? 0 : 1; k <= half; ++k) {
    float lat = 0.5f * kPi * float(k) / float(half);
    float c = std::cos(lat), s = std::sin(lat);
    p.push_back({k == half ? 0.0f : radius * c, half_len + radius * s, k == half ? 0.0f : c, s});
  }
  return p;
}

// a disc of `segments` rim vertices at height z facing +z (up) or -z
void add_cap(MeshData& m, float radius, float z, bool up, int segments) {
  float nz = up ? 1.0f : -1.0f;
  uint32_t centre = next_index(m);
  push_vertex(m, 0, 0, z, 0, 0, nz);
  for (int i = 0; i < segments; ++i) {
    float a = 2.0f * kPi * float(i) / float(segments);
    push_vertex(m, radius * std::cos(a), radius * std::sin(a), z, 0, 0, nz);
  }
  for (int i = 0; i < segments; ++i) {
    uint32_t a = centre + 1 + uint32_t(i), b = centre + 1 + uint32_t((i + 1) % segments);
    if (up) {
      push_triangle(m, centre, a, b);
    } else {
      push_triangle(m, centre, b, a);
    }
  }
}

}  // namespace

MeshData make_box(float sx, float sy, float sz) {
  MeshData m;
  const float h[3] = {0.5f * sx, 0.5f * sy, 0.5f * sz};
  // per face: normal axis and sign, then tangents u, v with u x v = n
  struct Face {
    int n;
    float sign;
    int u, v;
  };
  const Face faces[6] = {{0, 1, 1, 2},  {0, -1, 2, 1}, {1, 1, 2, 0},
                         {1, -1, 0, 2}, {2, 1, 0, 1},  {2, -1, 1, 0}};
  const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (const Face& f : faces) {
    uint32_t base = next_index(m);
    for (const auto& c : corners) {
      float p[3] = {0, 0, 0}, n[3] = {0, 0, 0};
      p[f.n] = f.sign * h[f.n];
      p[f.u] = c[0] * h[f.u];
      p[f.v] = c[1] * h[f.v];
      n[f.n] = f.sign;
      push_vertex(m, p[0], p[1], p[2], n[0], n[1], n[2]);
    }
    push_triangle(m, base, base + 1, base + 2);
    push_triangle(m, base, base + 2, base + 3);
  }
  return m;
}

MeshData make_cylinder(float radius, float length, int segments) {
  segments = std::max(segments, 3);
  MeshData m;
  float hz = 0.5f * length;
  // side: a bottom ring and a top ring with radial normals
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < segments; ++i) {
      float a = 2.0f * kPi * float(i) / float(segments);
      float c = std::cos(a), s = std::sin(a);
      push_vertex(m, radius * c, radius * s, k == 0 ? -hz : hz, c, s, 0);
    }
  }
  for (int i = 0; i < segments; ++i) {
    uint32_t a = uint32_t(i), b = uint32_t((i + 1) % segments);
    push_triangle(m, a, b, b + uint32_t(segments));
    push_triangle(m, a, b + uint32_t(segments), a + uint32_t(segments));
  }
  add_cap(m, radius, -hz, false, segments);
  add_cap(m, radius, hz, true, segments);
  return m;
}

MeshData make_sphere(float radius, int segments, int rings) {
  segments = std::max(segments, 3);
  rings = std::max(rings, 2);
  std::vector<ProfilePoint> p;
  for (int k = 0; k <= rings; ++k) {
    float lat = -0.5f * kPi + kPi * float(k) / float(rings);
    float c = (k == 0 || k == rings) ? 0.0f : std::cos(lat), s = std::sin(lat);
    p.push_back({radius * c, radius * s, c, s});
  }
  return lathe(p, segments);
}

MeshData make_capsule(float radius, float length, int segments, int rings) {
  return lathe(capsule_profile(radius, 0.5f * std::max(length, 0.0f), rings),
               std::max(segments, 3));
}

MeshData make_cone(float radius, float height, int segments) {
  segments = std::max(segments, 3);
  MeshData m;
  float slant = std::sqrt(radius * radius + height * height);
  float nr = height / slant, nz = radius / slant;
  // side: one apex vertex per segment so each facet gets a sensible normal
  for (int i = 0; i < segments; ++i) {
    float a0 = 2.0f * kPi * float(i) / float(segments);
    float a1 = 2.0f * kPi * float((i + 1) % segments) / float(segments);
    float am = a0 + kPi / float(segments);
    uint32_t base = next_index(m);
    push_vertex(m, radius * std::cos(a0), radius * std::sin(a0), 0, nr * std::cos(a0),
                nr * std::sin(a0), nz);
    push_vertex(m, radius * std::cos(a1), radius * std::sin(a1), 0, nr * std::cos(a1),
                nr * std::sin(a1), nz);
    push_vertex(m, 0, 0, height, nr * std::cos(am), nr * std::sin(am), nz);
    push_triangle(m, base, base + 1, base + 2);
  }
  add_cap(m, radius, 0, false, segments);
  return m;
}

void compute_normals(MeshData& m) {
  std::vector<float> n(m.positions.size(), 0.0f);
  const std::vector<float>& p = m.positions;
  for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
    uint32_t i[3] = {m.indices[t], m.indices[t + 1], m.indices[t + 2]};
    float e1[3], e2[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = p[3 * i[1] + k] - p[3 * i[0] + k];
      e2[k] = p[3 * i[2] + k] - p[3 * i[0] + k];
    }
    // the cross product's length is twice the area: larger faces weigh more
    float c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
    for (uint32_t v : i)
      for (int k = 0; k < 3; ++k) n[3 * v + k] += c[k];
  }
  for (std::size_t v = 0; v + 2 < n.size(); v += 3) {
    float len = std::sqrt(n[v] * n[v] + n[v + 1] * n[v + 1] + n[v + 2] * n[v + 2]);
    if (len > 0.0f) {
      for (int k = 0; k < 3; ++k) n[v + k] /= len;
    } else {
      n[v] = 0.0f, n[v + 1] = 0.0f, n[v + 2] = 1.0f;
    }
  }
  m.normals = std::move(n);
}

void append_mesh(MeshData& a, const MeshData& b) {
  bool colors = (a.positions.empty() || !a.colors.empty()) && !b.colors.empty();
  uint32_t base = next_index(a);
  a.positions.insert(a.positions.end(), b.positions.begin(), b.positions.end());
  a.normals.insert(a.normals.end(), b.normals.begin(), b.normals.end());
  if (colors) {
    a.colors.insert(a.colors.end(), b.colors.begin(), b.colors.end());
  } else {
    a.colors.clear();
  }
  for (uint32_t i : b.indices) a.indices.push_back(base + i);
}

}  // namespace ikwb::render
