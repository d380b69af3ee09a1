// Gizmo hit testing (screen space, constant pixel size), drag projection onto axes, planes and
// rings, snapping, and drawing into overlay batches.
#include "engine/render/gizmo.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "engine/render/glm_convert.hpp"

namespace ikwb::render {

namespace {

constexpr float kAxisHitStart = 0.2f;  // axis handles start this far out (the centre is free)
constexpr float kShaftEnd = 0.8f;      // arrow head from here to the tip
constexpr float kPlaneLo = 0.25f;      // plane squares span [lo, hi] along both axes
constexpr float kPlaneHi = 0.5f;
constexpr int kRingSamples = 72;
constexpr float kFar = 1e9f;
constexpr float kTwoPi = 6.28318530717959f;

const glm::vec4 kAxisColor[3] = {
    {0.93f, 0.27f, 0.27f, 1.0f}, {0.36f, 0.82f, 0.31f, 1.0f}, {0.28f, 0.52f, 0.97f, 1.0f}};
const glm::vec4 kHighlight{1.0f, 0.85f, 0.2f, 1.0f};

struct NamedHandle {
  GizmoHandle h;
  const char* name;
};
constexpr NamedHandle kNames[] = {
    {GizmoHandle::kNone, "None"},
    {GizmoHandle::kTranslateX, "TranslateX"},
    {GizmoHandle::kTranslateY, "TranslateY"},
    {GizmoHandle::kTranslateZ, "TranslateZ"},
    {GizmoHandle::kTranslatePlaneXY, "TranslatePlaneXY"},
    {GizmoHandle::kTranslatePlaneYZ, "TranslatePlaneYZ"},
    {GizmoHandle::kTranslatePlaneZX, "TranslatePlaneZX"},
    {GizmoHandle::kTranslateFree, "TranslateFree"},
    {GizmoHandle::kRotateX, "RotateX"},
    {GizmoHandle::kRotateY, "RotateY"},
    {GizmoHandle::kRotateZ, "RotateZ"},
};

constexpr GizmoHandle kTranslateHandles[] = {
    GizmoHandle::kTranslateFree,    GizmoHandle::kTranslatePlaneXY, GizmoHandle::kTranslatePlaneYZ,
    GizmoHandle::kTranslatePlaneZX, GizmoHandle::kTranslateX,       GizmoHandle::kTranslateY,
    GizmoHandle::kTranslateZ};
constexpr GizmoHandle kRotateHandles[] = {GizmoHandle::kRotateX, GizmoHandle::kRotateY,
                                          GizmoHandle::kRotateZ};

bool is_axis(GizmoHandle h) {
  return h == GizmoHandle::kTranslateX || h == GizmoHandle::kTranslateY ||
         h == GizmoHandle::kTranslateZ;
}
bool is_plane(GizmoHandle h) {
  return h == GizmoHandle::kTranslatePlaneXY || h == GizmoHandle::kTranslatePlaneYZ ||
         h == GizmoHandle::kTranslatePlaneZX;
}
bool is_ring(GizmoHandle h) {
  return h == GizmoHandle::kRotateX || h == GizmoHandle::kRotateY || h == GizmoHandle::kRotateZ;
}

// axis index of an axis or ring handle; the normal axis of a plane handle
int axis_index(GizmoHandle h) {
  switch (h) {
    case GizmoHandle::kTranslateX:
    case GizmoHandle::kRotateX:
    case GizmoHandle::kTranslatePlaneYZ:
      return 0;
    case GizmoHandle::kTranslateY:
    case GizmoHandle::kRotateY:
    case GizmoHandle::kTranslatePlaneZX:
      return 1;
    default:
      return 2;
  }
}

// in-plane axes of a plane handle (u, v with u x v = normal)
void plane_axes(GizmoHandle h, int& u, int& v) {
  int n = axis_index(h);
  u = (n + 1) % 3;
  v = (n + 2) % 3;
}

glm::vec2 xy(const glm::vec3& v) {
  return glm::vec2(v.x, v.y);
}

float segment_distance(const glm::vec2& p, const glm::vec2& a, const glm::vec2& b) {
  glm::vec2 ab = b - a;
  float len2 = glm::dot(ab, ab);
  float t = len2 > 0.0f ? std::clamp(glm::dot(p - a, ab) / len2, 0.0f, 1.0f) : 0.0f;
  return glm::length(p - (a + t * ab));
}

// ray / plane intersection; false when parallel or behind the ray origin
bool intersect_plane(const Ray& ray, const glm::vec3& point, const glm::vec3& normal,
                     glm::vec3& hit) {
  float denom = glm::dot(ray.dir, normal);
  if (std::abs(denom) < 1e-6f) return false;
  float t = glm::dot(point - ray.origin, normal) / denom;
  if (t < 0.0f) return false;
  hit = ray.at(t);
  return true;
}

// parameter t of the point c + t a closest to the ray; false when they are nearly parallel
bool closest_on_axis(const Ray& ray, const glm::vec3& c, const glm::vec3& a, float& t) {
  glm::vec3 w = c - ray.origin;
  float b = glm::dot(a, ray.dir);
  float denom = 1.0f - b * b;
  if (denom < 1e-6f) return false;
  t = (b * glm::dot(ray.dir, w) - glm::dot(a, w)) / denom;
  return true;
}

double snapped(double v, double step) {
  return step > 0.0 ? std::round(v / step) * step : v;
}

// ring point at angle `a` about axis k: radius s in the plane of the other two axes
glm::vec3 ring_point(const glm::vec3& c, const glm::vec3 axes[3], int k, float s, float a) {
  return c + s * (std::cos(a) * axes[(k + 1) % 3] + std::sin(a) * axes[(k + 2) % 3]);
}

}  // namespace

const char* gizmo_handle_name(GizmoHandle h) {
  for (const NamedHandle& n : kNames)
    if (n.h == h) return n.name;
  return "None";
}

GizmoHandle gizmo_handle_from_name(const std::string& name) {
  auto lower = [](std::string s) {
    for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  std::string key = lower(name);
  for (const NamedHandle& n : kNames)
    if (lower(n.name) == key) return n.h;
  return GizmoHandle::kNone;
}

bool gizmo_handle_in_mode(GizmoHandle h, GizmoMode mode) {
  if (h == GizmoHandle::kNone) return false;
  return mode == GizmoMode::kRotate ? is_ring(h) : !is_ring(h);
}

void Gizmo::set_transform(const Transform<double>& t) {
  if (!dragging_) current_ = t;
}

glm::vec3 Gizmo::axis(int k) const {
  glm::vec3 e(0.0f);
  e[k] = 1.0f;
  if (space == GizmoSpace::kWorld) return e;
  return glm::normalize(to_glm(rotate(current_.q, cast<double>(to_vec3(e)))));
}

float Gizmo::world_scale(const Camera& cam, const Viewport& vp) const {
  return size_px * cam.world_per_pixel(to_glm(current_.p), vp);
}

bool Gizmo::handle_visible(GizmoHandle h, const Camera& cam, const Viewport& vp) const {
  if (!gizmo_handle_in_mode(h, mode)) return false;
  glm::vec3 c = to_glm(current_.p);
  if (cam.project(c, vp).z <= cam.near_plane()) return false;
  glm::vec3 to_eye = glm::normalize(cam.eye() - c);
  float s = world_scale(cam, vp);
  if (is_axis(h)) {
    // an axis pointing at the eye has no usable screen length
    glm::vec3 a = axis(axis_index(h));
    glm::vec2 p0 = xy(cam.project(c, vp)), p1 = xy(cam.project(c + s * a, vp));
    return glm::length(p1 - p0) > 0.2f * size_px;
  }
  if (is_plane(h)) return std::abs(glm::dot(axis(axis_index(h)), to_eye)) > 0.2f;
  return true;
}

float Gizmo::handle_distance(GizmoHandle h, const Camera& cam, const Viewport& vp,
                             const glm::vec2& mouse) const {
  if (!handle_visible(h, cam, vp)) return kFar;
  glm::vec3 c = to_glm(current_.p);
  float s = world_scale(cam, vp);
  glm::vec3 axes[3] = {axis(0), axis(1), axis(2)};
  if (h == GizmoHandle::kTranslateFree)
    return glm::length(mouse - xy(cam.project(c, vp))) - centre_px;
  if (is_axis(h)) {
    glm::vec3 a = axes[axis_index(h)];
    return segment_distance(mouse, xy(cam.project(c + kAxisHitStart * s * a, vp)),
                            xy(cam.project(c + s * a, vp)));
  }
  if (is_plane(h)) {
    int u, v;
    plane_axes(h, u, v);
    glm::vec2 q[4] = {xy(cam.project(c + s * (kPlaneLo * axes[u] + kPlaneLo * axes[v]), vp)),
                      xy(cam.project(c + s * (kPlaneHi * axes[u] + kPlaneLo * axes[v]), vp)),
                      xy(cam.project(c + s * (kPlaneHi * axes[u] + kPlaneHi * axes[v]), vp)),
                      xy(cam.project(c + s * (kPlaneLo * axes[u] + kPlaneHi * axes[v]), vp))};
    // inside the convex quad when every edge sees the mouse on the same side
    int positive = 0, negative = 0;
    float edge = kFar;
    for (int i = 0; i < 4; ++i) {
      glm::vec2 a = q[i], b = q[(i + 1) % 4];
      float cr = (b.x - a.x) * (mouse.y - a.y) - (b.y - a.y) * (mouse.x - a.x);
      (cr >= 0.0f ? positive : negative)++;
      edge = std::min(edge, segment_distance(mouse, a, b));
    }
    return (positive == 4 || negative == 4) ? 0.0f : edge;
  }
  // ring: distance to its front half (the half facing the eye)
  int k = axis_index(h);
  glm::vec3 to_eye = glm::normalize(cam.eye() - c);
  float best = kFar;
  glm::vec3 prev = ring_point(c, axes, k, s, 0.0f);
  for (int i = 1; i <= kRingSamples; ++i) {
    glm::vec3 p = ring_point(c, axes, k, s, kTwoPi * float(i) / float(kRingSamples));
    bool front = glm::dot(prev - c, to_eye) >= -0.1f * s && glm::dot(p - c, to_eye) >= -0.1f * s;
    if (front)
      best = std::min(best,
                      segment_distance(mouse, xy(cam.project(prev, vp)), xy(cam.project(p, vp))));
    prev = p;
  }
  return best;
}

GizmoHandle Gizmo::hit_test(const Camera& cam, const Viewport& vp, const glm::vec2& mouse) const {
  if (mode == GizmoMode::kTranslate) {
    // centre first, then plane squares, then the nearest axis
    if (handle_distance(GizmoHandle::kTranslateFree, cam, vp, mouse) <= 0.0f)
      return GizmoHandle::kTranslateFree;
    for (GizmoHandle h : {GizmoHandle::kTranslatePlaneXY, GizmoHandle::kTranslatePlaneYZ,
                          GizmoHandle::kTranslatePlaneZX})
      if (handle_distance(h, cam, vp, mouse) <= 0.0f) return h;
  }
  GizmoHandle best = GizmoHandle::kNone;
  float best_d = pick_px;
  for (GizmoHandle h :
       {GizmoHandle::kTranslateX, GizmoHandle::kTranslateY, GizmoHandle::kTranslateZ,
        GizmoHandle::kRotateX, GizmoHandle::kRotateY, GizmoHandle::kRotateZ}) {
    if (!gizmo_handle_in_mode(h, mode)) continue;
    float d = handle_distance(h, cam, vp, mouse);
    if (d <= best_d) best_d = d, best = h;
  }
  return best;
}

GizmoHandle Gizmo::hover(const Camera& cam, const Viewport& vp, const glm::vec2& mouse) {
  if (dragging_) return active_;
  hovered_ = hit_test(cam, vp, mouse);
  return hovered_;
}

bool Gizmo::begin_drag(const Camera& cam, const Viewport& vp, const glm::vec2& mouse) {
  return begin_drag(hit_test(cam, vp, mouse), cam, vp, mouse);
}

bool Gizmo::begin_drag(GizmoHandle handle, const Camera& cam, const Viewport& vp,
                       const glm::vec2& mouse) {
  if (dragging_ || !handle_visible(handle, cam, vp)) return false;
  Ray ray = cam.ray_from_pixel(mouse.x, mouse.y, vp);
  glm::vec3 c = to_glm(current_.p);
  for (int k = 0; k < 3; ++k) drag_axes_[k] = axis(k);
  drag_centre_ = c;
  grab_mouse_ = mouse;
  ring_in_screen_ = false;
  if (is_axis(handle)) {
    if (!closest_on_axis(ray, c, drag_axes_[axis_index(handle)], grab_t_)) return false;
  } else if (is_plane(handle) || handle == GizmoHandle::kTranslateFree) {
    drag_normal_ = is_plane(handle) ? drag_axes_[axis_index(handle)] : cam.forward();
    if (!intersect_plane(ray, c, drag_normal_, grab_point_)) return false;
  } else {
    int k = axis_index(handle);
    drag_normal_ = drag_axes_[k];
    glm::vec3 to_c = glm::normalize(c - cam.eye());
    glm::vec3 hit;
    if (std::abs(glm::dot(to_c, drag_normal_)) > 0.2f &&
        intersect_plane(ray, c, drag_normal_, hit) && glm::length(hit - c) > 1e-6f) {
      grab_point_ = hit;
      ring_prev_ = hit - c;
    } else {
      // ring seen nearly edge-on: measure the angle along its screen tangent at the grab point
      ring_in_screen_ = true;
      float s = world_scale(cam, vp);
      float best = kFar;
      for (int i = 0; i < kRingSamples; ++i) {
        glm::vec3 p = ring_point(c, drag_axes_, k, s, kTwoPi * float(i) / float(kRingSamples));
        float d = glm::length(xy(cam.project(p, vp)) - mouse);
        if (d < best) best = d, grab_point_ = p;
      }
      glm::vec3 t = glm::normalize(glm::cross(drag_normal_, grab_point_ - c));
      glm::vec2 dir =
          xy(cam.project(grab_point_ + 0.05f * s * t, vp)) - xy(cam.project(grab_point_, vp));
      ring_tangent_px_ = glm::length(dir) > 1e-6f ? glm::normalize(dir) : glm::vec2(1.0f, 0.0f);
    }
  }
  start_ = current_;
  active_ = handle;
  hovered_ = handle;
  dragging_ = true;
  raw_angle_ = 0.0;
  translation_ = glm::dvec3(0.0);
  angle_ = 0.0;
  return true;
}

Transform<double> Gizmo::update_drag(const Camera& cam, const Viewport& vp,
                                     const glm::vec2& mouse) {
  if (!dragging_) return current_;
  Ray ray = cam.ray_from_pixel(mouse.x, mouse.y, vp);
  const glm::vec3& c = drag_centre_;
  if (is_axis(active_)) {
    const glm::vec3& a = drag_axes_[axis_index(active_)];
    float t;
    if (closest_on_axis(ray, c, a, t)) {
      double d = double(t) - double(grab_t_);
      if (snap) d = snapped(d, snap_translate);
      translation_ = glm::dvec3(a) * d;
    }
  } else if (is_plane(active_) || active_ == GizmoHandle::kTranslateFree) {
    glm::vec3 hit;
    if (intersect_plane(ray, c, drag_normal_, hit)) {
      glm::dvec3 d = glm::dvec3(hit) - glm::dvec3(grab_point_);
      if (snap) {
        // snap along the frame's axes that span the drag plane
        glm::dvec3 sum(0.0);
        for (int k = 0; k < 3; ++k) {
          if (is_plane(active_) && k == axis_index(active_)) continue;
          glm::dvec3 a(drag_axes_[k]);
          sum += a * snapped(glm::dot(d, a), snap_translate);
        }
        d = sum;
      }
      translation_ = d;
    }
  } else if (is_ring(active_)) {
    if (ring_in_screen_) {
      raw_angle_ = double(glm::dot(mouse - grab_mouse_, ring_tangent_px_)) / double(size_px);
    } else {
      glm::vec3 hit;
      if (intersect_plane(ray, c, drag_normal_, hit) && glm::length(hit - c) > 1e-6f) {
        glm::vec3 v = hit - c;
        // accumulate the signed step so drags past half a turn keep counting
        raw_angle_ += std::atan2(double(glm::dot(glm::cross(ring_prev_, v), drag_normal_)),
                                 double(glm::dot(ring_prev_, v)));
        ring_prev_ = v;
      }
    }
    angle_ = snap ? snapped(raw_angle_, snap_rotate) : raw_angle_;
  }
  Transform<double> t = start_;
  if (is_ring(active_)) {
    Quat<double> r = quat_from_axis_angle(cast<double>(to_vec3(drag_normal_)), angle_);
    t.q = normalize(r * start_.q);
  } else {
    t.p = start_.p + Vec3<double>{translation_.x, translation_.y, translation_.z};
  }
  current_ = t;
  return t;
}

Transform<double> Gizmo::end_drag() {
  dragging_ = false;
  active_ = GizmoHandle::kNone;
  return current_;
}

void Gizmo::cancel_drag() {
  if (dragging_) current_ = start_;
  dragging_ = false;
  active_ = GizmoHandle::kNone;
}

glm::vec2 Gizmo::handle_screen_point(GizmoHandle handle, const Camera& cam, const Viewport& vp,
                                     bool* visible) const {
  glm::vec3 c = to_glm(current_.p);
  glm::vec2 centre = xy(cam.project(c, vp));
  if (visible) *visible = false;
  if (!handle_visible(handle, cam, vp)) return centre;
  float s = world_scale(cam, vp);
  glm::vec3 axes[3] = {axis(0), axis(1), axis(2)};
  // candidate points on the handle's shape
  std::vector<glm::vec3> candidates;
  if (handle == GizmoHandle::kTranslateFree) {
    candidates.push_back(c);
  } else if (is_axis(handle)) {
    for (float f : {0.65f, 0.75f, 0.55f, 0.85f, 0.45f, 0.95f, 0.35f})
      candidates.push_back(c + f * s * axes[axis_index(handle)]);
  } else if (is_plane(handle)) {
    int u, v;
    plane_axes(handle, u, v);
    float m = 0.5f * (kPlaneLo + kPlaneHi);
    candidates.push_back(c + m * s * (axes[u] + axes[v]));
  } else {
    for (int i = 0; i < kRingSamples; ++i)
      candidates.push_back(ring_point(c, axes, axis_index(handle), s,
                                      kTwoPi * (float(i) + 0.5f) / float(kRingSamples)));
  }
  // keep the candidate that hits this handle farthest from every other handle
  const GizmoHandle* others = mode == GizmoMode::kTranslate ? kTranslateHandles : kRotateHandles;
  int other_count = mode == GizmoMode::kTranslate ? 7 : 3;
  float best_margin = -1.0f;
  glm::vec2 best = centre;
  for (const glm::vec3& p : candidates) {
    glm::vec2 px = xy(cam.project(p, vp));
    if (!vp.contains(px) || hit_test(cam, vp, px) != handle) continue;
    float margin = kFar;
    for (int i = 0; i < other_count; ++i)
      if (others[i] != handle) margin = std::min(margin, handle_distance(others[i], cam, vp, px));
    if (margin > best_margin) best_margin = margin, best = px;
  }
  if (visible) *visible = best_margin >= 0.0f;
  return best;
}

void Gizmo::draw(Overlay& out, const Camera& cam, const Viewport& vp) const {
  glm::vec3 c = to_glm(current_.p);
  if (cam.project(c, vp).z <= cam.near_plane()) return;
  float s = world_scale(cam, vp);
  glm::vec3 axes[3] = {axis(0), axis(1), axis(2)};
  GizmoHandle lit = hovered();
  auto color = [&](GizmoHandle h, glm::vec4 base) {
    if (h == lit) return glm::vec4(glm::vec3(kHighlight), base.a);
    if (dragging_) base.a *= 0.3f;
    return base;
  };
  const bool kDepthTest = false;

  if (mode == GizmoMode::kTranslate) {
    // guide line along the dragged axis
    if (dragging_ && is_axis(active_)) {
      glm::vec3 a = drag_axes_[axis_index(active_)];
      glm::vec4 g = kAxisColor[axis_index(active_)];
      g.a = 0.5f;
      out.line(drag_centre_ - 20.0f * s * a, drag_centre_ + 20.0f * s * a, g, 1.0f, kDepthTest);
    }
    for (GizmoHandle h : {GizmoHandle::kTranslatePlaneXY, GizmoHandle::kTranslatePlaneYZ,
                          GizmoHandle::kTranslatePlaneZX}) {
      if (!handle_visible(h, cam, vp)) continue;
      int u, v;
      plane_axes(h, u, v);
      glm::vec3 q[4] = {c + s * (kPlaneLo * axes[u] + kPlaneLo * axes[v]),
                        c + s * (kPlaneHi * axes[u] + kPlaneLo * axes[v]),
                        c + s * (kPlaneHi * axes[u] + kPlaneHi * axes[v]),
                        c + s * (kPlaneLo * axes[u] + kPlaneHi * axes[v])};
      glm::vec4 col = color(h, kAxisColor[axis_index(h)]);
      glm::vec4 fill(glm::vec3(col), col.a * (h == lit ? 0.55f : 0.3f));
      out.quad(q[0], q[1], q[2], q[3], fill, kDepthTest);
      out.polyline({q[0], q[1], q[2], q[3]}, col, 1.5f, true, kDepthTest);
    }
    for (GizmoHandle h :
         {GizmoHandle::kTranslateX, GizmoHandle::kTranslateY, GizmoHandle::kTranslateZ}) {
      if (!handle_visible(h, cam, vp)) continue;
      glm::vec3 a = axes[axis_index(h)];
      glm::vec4 col = color(h, kAxisColor[axis_index(h)]);
      out.line(c + 0.1f * s * a, c + kShaftEnd * s * a, col, 3.0f, kDepthTest);
      out.cone(c + kShaftEnd * s * a, c + s * a, 0.07f * s, col, kDepthTest);
    }
    GizmoHandle f = GizmoHandle::kTranslateFree;
    out.point(c, color(f, glm::vec4(0.92f, 0.92f, 0.92f, 1.0f)), 1.6f * centre_px, kDepthTest);
    return;
  }

  glm::vec3 to_eye = glm::normalize(cam.eye() - c);
  out.circle(c, to_eye, s, glm::vec4(0.8f, 0.8f, 0.8f, 0.25f), 1.0f, kDepthTest);
  // swept angle while dragging
  if (dragging_ && is_ring(active_) && angle_ != 0.0) {
    glm::vec3 start = grab_point_ - drag_centre_;
    glm::vec4 col = kHighlight;
    col.a = 0.2f;
    out.sector(c, drag_normal_, start, float(angle_), s, col, kDepthTest);
  }
  for (GizmoHandle h : {GizmoHandle::kRotateX, GizmoHandle::kRotateY, GizmoHandle::kRotateZ}) {
    int k = axis_index(h);
    glm::vec4 col = color(h, kAxisColor[k]);
    glm::vec4 back(glm::vec3(col), col.a * 0.3f);
    glm::vec3 prev = ring_point(c, axes, k, s, 0.0f);
    for (int i = 1; i <= kRingSamples; ++i) {
      glm::vec3 p = ring_point(c, axes, k, s, kTwoPi * float(i) / float(kRingSamples));
      bool front = glm::dot(prev - c, to_eye) >= -0.1f * s && glm::dot(p - c, to_eye) >= -0.1f * s;
      out.line(prev, p, front ? col : back, front ? 3.0f : 1.5f, kDepthTest);
      prev = p;
    }
  }
}

}  // namespace ikwb::render
