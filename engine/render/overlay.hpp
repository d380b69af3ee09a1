// Immediate-style overlay batches in world space: lines with a pixel width, points with a pixel
// size, and flat-coloured triangles, for error vectors, limit arcs, velocity arrows and gizmos.
// CPU only; Renderer::draw_overlay() uploads and draws them, then clears the batches.
//
// Every call takes depth_test: true draws the primitive hidden by closer geometry, false draws it
// on top of everything (gizmos). Colours are rgba, alpha-blended.
#pragma once

#include <vector>

#include <glm/glm.hpp>

namespace ikwb::render {

class Overlay {
 public:
  struct LineVertex {
    glm::vec3 p;
    glm::vec4 color;
    float width;  // pixels
  };
  struct PointVertex {
    glm::vec3 p;
    glm::vec4 color;
    float size;  // diameter, pixels
  };
  struct TriVertex {
    glm::vec3 p;
    glm::vec4 color;
  };
  struct Batch {
    std::vector<LineVertex> lines;  // pairs
    std::vector<PointVertex> points;
    std::vector<TriVertex> triangles;  // triples
    bool empty() const { return lines.empty() && points.empty() && triangles.empty(); }
  };

  // segments a-b; colors has one entry per point or a single entry for all
  void lines(const std::vector<glm::vec3>& points, const std::vector<glm::vec4>& colors,
             float width_px = 1.5f, bool depth_test = true);
  void line(const glm::vec3& a, const glm::vec3& b, const glm::vec4& color, float width_px = 1.5f,
            bool depth_test = true);
  void polyline(const std::vector<glm::vec3>& points, const glm::vec4& color, float width_px = 1.5f,
                bool closed = false, bool depth_test = true);
  // shaft as a line, head as a cone of length head_length (world; <= 0: 20% of the arrow)
  void arrow(const glm::vec3& from, const glm::vec3& to, const glm::vec4& color,
             float width_px = 2.0f, float head_length = 0.0f, bool depth_test = true);
  // arc of `radius` about `normal` through centre, from direction `start` (projected onto the
  // plane) sweeping `angle` radians counter-clockwise about normal
  void arc(const glm::vec3& centre, const glm::vec3& normal, const glm::vec3& start, float angle,
           float radius, const glm::vec4& color, float width_px = 1.5f, bool depth_test = true,
           int segments = 0);
  // filled sector of the same arc (translucent limit ranges)
  void sector(const glm::vec3& centre, const glm::vec3& normal, const glm::vec3& start, float angle,
              float radius, const glm::vec4& color, bool depth_test = true, int segments = 0);
  void circle(const glm::vec3& centre, const glm::vec3& normal, float radius,
              const glm::vec4& color, float width_px = 1.5f, bool depth_test = true,
              int segments = 64);
  void point(const glm::vec3& p, const glm::vec4& color, float size_px = 6.0f,
             bool depth_test = true);
  // colors has one entry per point or a single entry
  void points(const std::vector<glm::vec3>& points, const std::vector<glm::vec4>& colors,
              float size_px = 6.0f, bool depth_test = true);
  void triangle(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c, const glm::vec4& color,
                bool depth_test = true);
  // vertices as triples; colors has one entry per vertex or a single entry
  void triangles(const std::vector<glm::vec3>& vertices, const std::vector<glm::vec4>& colors,
                 bool depth_test = true);
  // quad a-b-c-d (two triangles)
  void quad(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c, const glm::vec3& d,
            const glm::vec4& color, bool depth_test = true);
  // solid cone from base centre to apex
  void cone(const glm::vec3& base, const glm::vec3& apex, float radius, const glm::vec4& color,
            bool depth_test = true, int segments = 16);
  // solid capsule: the points within `radius` of the segment a-b (a sphere when a == b), shaded
  // by a fixed light from above so it reads as solid when translucent; `segments` around the
  // axis, segments / 4 latitude bands per end cap
  void capsule(const glm::vec3& a, const glm::vec3& b, float radius, const glm::vec4& color,
               bool depth_test = true, int segments = 16);
  // x / y / z axes (red, green, blue) of the frame `frame` (column-major rigid transform)
  void axes(const glm::mat4& frame, float length, float width_px = 2.0f, bool depth_test = true,
            float alpha = 1.0f);

  const Batch& batch(bool depth_test) const { return depth_test ? tested_ : on_top_; }
  bool empty() const { return tested_.empty() && on_top_.empty(); }
  void clear();

 private:
  Batch& select(bool depth_test) { return depth_test ? tested_ : on_top_; }
  Batch tested_, on_top_;
};

// unit vector perpendicular to n (any)
glm::vec3 any_perpendicular(const glm::vec3& n);

}  // namespace ikwb::render
