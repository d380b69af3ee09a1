// Overlay batch building: primitives are expanded into line, point and triangle vertices.
#include "engine/render/overlay.hpp"

#include <algorithm>
#include <cmath>

namespace ikwb::render {

namespace {

const glm::vec4& pick_color(const std::vector<glm::vec4>& colors, std::size_t i) {
  static const glm::vec4 kWhite(1.0f);
  if (colors.empty()) return kWhite;
  return colors.size() == 1 ? colors[0] : colors[std::min(i, colors.size() - 1)];
}

// orthonormal in-plane basis (u from `start`, v = n x u)
void plane_basis(const glm::vec3& normal, const glm::vec3& start, glm::vec3& n, glm::vec3& u,
                 glm::vec3& v) {
  n = glm::normalize(normal);
  u = start - glm::dot(start, n) * n;
  float len = glm::length(u);
  u = len > 1e-9f ? u / len : any_perpendicular(n);
  v = glm::cross(n, u);
}

int arc_segments(float angle, int segments) {
  if (segments > 0) return segments;
  return std::max(4, int(std::ceil(std::abs(angle) / (2.0f * 3.14159265f) * 64.0f)));
}

}  // namespace

glm::vec3 any_perpendicular(const glm::vec3& n) {
  glm::vec3 a = std::abs(n.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  return glm::normalize(glm::cross(n, a));
}

void Overlay::lines(const std::vector<glm::vec3>& points, const std::vector<glm::vec4>& colors,
                    float width_px, bool depth_test) {
  Batch& b = select(depth_test);
  for (std::size_t i = 0; i + 1 < points.size(); i += 2) {
    b.lines.push_back({points[i], pick_color(colors, i), width_px});
    b.lines.push_back({points[i + 1], pick_color(colors, i + 1), width_px});
  }
}

void Overlay::line(const glm::vec3& a, const glm::vec3& b, const glm::vec4& color, float width_px,
                   bool depth_test) {
  Batch& bt = select(depth_test);
  bt.lines.push_back({a, color, width_px});
  bt.lines.push_back({b, color, width_px});
}

void Overlay::polyline(const std::vector<glm::vec3>& points, const glm::vec4& color, float width_px,
                       bool closed, bool depth_test) {
  for (std::size_t i = 0; i + 1 < points.size(); ++i)
    line(points[i], points[i + 1], color, width_px, depth_test);
  if (closed && points.size() > 2) line(points.back(), points.front(), color, width_px, depth_test);
}

void Overlay::arrow(const glm::vec3& from, const glm::vec3& to, const glm::vec4& color,
                    float width_px, float head_length, bool depth_test) {
  glm::vec3 d = to - from;
  float len = glm::length(d);
  if (len < 1e-9f) return;
  float head = head_length > 0.0f ? std::min(head_length, len) : 0.2f * len;
  glm::vec3 base = to - (head / len) * d;
  line(from, base, color, width_px, depth_test);
  cone(base, to, 0.35f * head, color, depth_test, 12);
}

void Overlay::arc(const glm::vec3& centre, const glm::vec3& normal, const glm::vec3& start,
                  float angle, float radius, const glm::vec4& color, float width_px,
                  bool depth_test, int segments) {
  glm::vec3 n, u, v;
  plane_basis(normal, start, n, u, v);
  int s = arc_segments(angle, segments);
  glm::vec3 prev = centre + radius * u;
  for (int i = 1; i <= s; ++i) {
    float a = angle * float(i) / float(s);
    glm::vec3 p = centre + radius * (std::cos(a) * u + std::sin(a) * v);
    line(prev, p, color, width_px, depth_test);
    prev = p;
  }
}

void Overlay::sector(const glm::vec3& centre, const glm::vec3& normal, const glm::vec3& start,
                     float angle, float radius, const glm::vec4& color, bool depth_test,
                     int segments) {
  glm::vec3 n, u, v;
  plane_basis(normal, start, n, u, v);
  int s = arc_segments(angle, segments);
  glm::vec3 prev = centre + radius * u;
  for (int i = 1; i <= s; ++i) {
    float a = angle * float(i) / float(s);
    glm::vec3 p = centre + radius * (std::cos(a) * u + std::sin(a) * v);
    triangle(centre, prev, p, color, depth_test);
    prev = p;
  }
}

void Overlay::circle(const glm::vec3& centre, const glm::vec3& normal, float radius,
                     const glm::vec4& color, float width_px, bool depth_test, int segments) {
  arc(centre, normal, any_perpendicular(glm::normalize(normal)), 2.0f * 3.14159265f, radius, color,
      width_px, depth_test, segments);
}

void Overlay::point(const glm::vec3& p, const glm::vec4& color, float size_px, bool depth_test) {
  select(depth_test).points.push_back({p, color, size_px});
}

void Overlay::points(const std::vector<glm::vec3>& points, const std::vector<glm::vec4>& colors,
                     float size_px, bool depth_test) {
  Batch& b = select(depth_test);
  for (std::size_t i = 0; i < points.size(); ++i)
    b.points.push_back({points[i], pick_color(colors, i), size_px});
}

void Overlay::triangle(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c,
                       const glm::vec4& color, bool depth_test) {
  Batch& bt = select(depth_test);
  bt.triangles.push_back({a, color});
  bt.triangles.push_back({b, color});
  bt.triangles.push_back({c, color});
}

void Overlay::triangles(const std::vector<glm::vec3>& vertices,
                        const std::vector<glm::vec4>& colors, bool depth_test) {
  Batch& b = select(depth_test);
  for (std::size_t i = 0; i + 2 < vertices.size(); i += 3)
    for (std::size_t k = i; k < i + 3; ++k)
      b.triangles.push_back({vertices[k], pick_color(colors, k)});
}

void Overlay::quad(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c, const glm::vec3& d,
                   const glm::vec4& color, bool depth_test) {
  triangle(a, b, c, color, depth_test);
  triangle(a, c, d, color, depth_test);
}

void Overlay::cone(const glm::vec3& base, const glm::vec3& apex, float radius,
                   const glm::vec4& color, bool depth_test, int segments) {
  glm::vec3 axis = apex - base;
  if (glm::length(axis) < 1e-9f) return;
  glm::vec3 n, u, v;
  plane_basis(axis, any_perpendicular(glm::normalize(axis)), n, u, v);
  for (int i = 0; i < segments; ++i) {
    float a0 = 2.0f * 3.14159265f * float(i) / float(segments);
    float a1 = 2.0f * 3.14159265f * float(i + 1) / float(segments);
    glm::vec3 p0 = base + radius * (std::cos(a0) * u + std::sin(a0) * v);
    glm::vec3 p1 = base + radius * (std::cos(a1) * u + std::sin(a1) * v);
    // shade the sides around the axis, so the cone reads as solid without lighting
    float shade = 0.8f + 0.2f * std::cos(0.5f * (a0 + a1) - 0.8f);
    glm::vec4 side(glm::vec3(color) * shade, color.a);
    triangle(p0, p1, apex, side, depth_test);
    triangle(base, p1, p0, color, depth_test);
  }
}

void Overlay::capsule(const glm::vec3& a, const glm::vec3& b, float radius, const glm::vec4& color,
                      bool depth_test, int segments) {
  if (!(radius > 0.0f) || segments < 3) return;
  glm::vec3 axis = b - a;
  float len = glm::length(axis);
  glm::vec3 w = len > 1e-9f ? axis / len : glm::vec3(0.0f, 0.0f, 1.0f);
  glm::vec3 u = any_perpendicular(w), v = glm::cross(w, u);
  const glm::vec3 light = glm::normalize(glm::vec3(0.3f, 0.2f, 0.93f));
  const int bands = std::max(2, segments / 4);
  // latitudes from the pole at a (-pi/2) to the equator, then from b's equator to its pole
  std::vector<float> lat;
  std::vector<int> end;  // 0: about a, 1: about b
  for (int i = 0; i <= bands; ++i) lat.push_back(-1.5707963f * float(bands - i) / float(bands));
  end.assign(lat.size(), 0);
  for (int i = 0; i <= bands; ++i) {
    lat.push_back(1.5707963f * float(i) / float(bands));
    end.push_back(1);
  }
  auto vertex = [&](int i, int k, glm::vec3* p, glm::vec4* c) {
    float phi = 6.2831853f * float(k) / float(segments);
    glm::vec3 n = std::cos(lat[i]) * (std::cos(phi) * u + std::sin(phi) * v) + std::sin(lat[i]) * w;
    *p = (end[i] ? b : a) + radius * n;
    float shade = 0.55f + 0.45f * std::max(0.0f, glm::dot(n, light));
    *c = glm::vec4(glm::vec3(color) * shade, color.a);
  };
  Batch& batch = select(depth_test);
  for (int i = 0; i + 1 < int(lat.size()); ++i)
    for (int k = 0; k < segments; ++k) {
      glm::vec3 p[4];
      glm::vec4 c[4];
      vertex(i, k, &p[0], &c[0]);
      vertex(i, k + 1, &p[1], &c[1]);
      vertex(i + 1, k + 1, &p[2], &c[2]);
      vertex(i + 1, k, &p[3], &c[3]);
      for (int t : {0, 1, 2, 0, 2, 3}) batch.triangles.push_back({p[t], c[t]});
    }
}

void Overlay::axes(const glm::mat4& frame, float length, float width_px, bool depth_test,
                   float alpha) {
  glm::vec3 o(frame[3]);
  const glm::vec4 colors[3] = {
      {0.9f, 0.2f, 0.2f, alpha}, {0.25f, 0.8f, 0.25f, alpha}, {0.25f, 0.45f, 0.95f, alpha}};
  for (int k = 0; k < 3; ++k)
    line(o, o + length * glm::normalize(glm::vec3(frame[k])), colors[k], width_px, depth_test);
}

void Overlay::clear() {
  // keep the capacity: overlays are rebuilt every frame
  for (Batch* b : {&tested_, &on_top_}) {
    b->lines.clear();
    b->points.clear();
    b->triangles.clear();
  }
}

}  // namespace ikwb::render
