// The skeleton view: joint origins joined by segments, for robots whose meshes do not show their
// structure (no visuals, or meshes that could not be loaded and are drawn as placeholders). It is
// drawn on top of the meshes, as the link frames are: its point is the structure inside them.
#include <string>
#include <vector>

#include "app/gui/visuals.hpp"
#include "engine/render/glm_convert.hpp"
#include "engine/render/model_mesh.hpp"

namespace ikwb::gui {

namespace {

const glm::vec4 kOutline(0.06f, 0.07f, 0.08f, 0.75f);
const glm::vec4 kSegment(0.93f, 0.94f, 0.96f, 1.0f);
const glm::vec4 kMovingJoint(1.0f, 0.72f, 0.18f, 1.0f);
const glm::vec4 kFixedJoint(0.72f, 0.75f, 0.8f, 1.0f);

// joint j's frame on its child's side, world
glm::vec3 joint_origin(const Model& m, const std::vector<Transform<double>>& body_q, int j) {
  return render::to_glm(transform_point(body_q[m.joint_child[j]], m.joint_X_c[j].p));
}

}  // namespace

Skeleton robot_skeleton(const Model& m, const std::vector<Transform<double>>& body_q) {
  Skeleton s;
  if (int(body_q.size()) != m.body_count) return s;
  for (int j = 0; j < m.joint_count; ++j) {
    const glm::vec3 o = joint_origin(m, body_q, j);
    (JointType(m.joint_type[j]) == JointType::kFixed ? s.fixed : s.moving).push_back(o);
    const int parent = m.joint_parent[j];
    if (parent < 0) continue;
    const int in = m.body_joint[parent];
    const glm::vec3 from = in >= 0 ? joint_origin(m, body_q, in) : render::to_glm(body_q[parent].p);
    if (glm::length(o - from) > 1e-6f) s.segments.insert(s.segments.end(), {from, o});
  }
  for (int b = 0; b < m.body_count; ++b)
    if (m.body_joint[b] < 0) s.fixed.push_back(render::to_glm(body_q[b].p));
  return s;
}

int skeleton_body_at(const Model& m, const std::vector<Transform<double>>& body_q,
                     const render::Camera& camera, const render::Viewport& rect, glm::vec2 mouse,
                     Vec3<double>* local) {
  constexpr float kMarkerPick = 10.0f, kSegmentPick = 6.0f;  // pixels
  if (int(body_q.size()) != m.body_count) return -1;
  auto on_screen = [&](const glm::vec3& p, glm::vec2* px) {
    const glm::vec3 s = camera.project(p, rect);
    *px = glm::vec2(s);
    return s.z > 0;
  };
  auto in_body = [&](int body, const glm::vec3& world) {
    const Vec3<double> w{world.x, world.y, world.z};
    return transform_point(inverse(body_q[body]), w);
  };
  int best = -1;
  float best_d = kMarkerPick;
  glm::vec3 best_point(0.0f);
  for (int j = 0; j < m.joint_count; ++j) {
    const glm::vec3 o = joint_origin(m, body_q, j);
    glm::vec2 px;
    if (!on_screen(o, &px) || glm::length(px - mouse) >= best_d) continue;
    best_d = glm::length(px - mouse), best = m.joint_child[j], best_point = o;
  }
  if (best < 0) {
    best_d = kSegmentPick;
    for (int j = 0; j < m.joint_count; ++j) {
      const int parent = m.joint_parent[j];
      if (parent < 0) continue;
      const int in = m.body_joint[parent];
      const glm::vec3 a = in >= 0 ? joint_origin(m, body_q, in) : render::to_glm(body_q[parent].p);
      const glm::vec3 b = joint_origin(m, body_q, j);
      glm::vec2 pa, pb;
      if (!on_screen(a, &pa) || !on_screen(b, &pb)) continue;
      const glm::vec2 ab = pb - pa;
      const float len2 = glm::dot(ab, ab);
      if (len2 < 1e-6f) continue;
      const float t = glm::clamp(glm::dot(mouse - pa, ab) / len2, 0.0f, 1.0f);
      const float d = glm::length(pa + t * ab - mouse);
      if (d >= best_d) continue;
      best_d = d, best = parent, best_point = glm::mix(a, b, t);
    }
  }
  if (best >= 0 && local) *local = in_body(best, best_point);
  return best;
}

std::string skeleton_reason(const Model& model, const std::string& robot_title) {
  int geometries = 0, meshes = 0, placeholders = 0;
  for (const std::vector<Geometry>& visuals : model.body_visuals)
    for (const Geometry& g : visuals) {
      ++geometries;
      meshes += g.type == GeometryType::kMesh;
      placeholders += render::drawn_as_placeholder(g);
    }
  if (geometries == 0) return robot_title + " has no visual geometry";
  if (placeholders == 0) return "";
  return robot_title + ": " + std::to_string(placeholders) + " of " + std::to_string(meshes) +
         " visual meshes could not be loaded (magenta placeholders)";
}

void draw_skeleton(render::Overlay& ov, const AppState& app) {
  if (!app.model) return;
  const Skeleton s = robot_skeleton(*app.model, app.fk.body_q);
  // a dark edge under each light segment and marker keeps them legible over light meshes too
  ov.lines(s.segments, {kOutline}, 5.0f, false);
  ov.lines(s.segments, {kSegment}, 2.5f, false);
  ov.points(s.fixed, {kOutline}, 9.0f, false);
  ov.points(s.fixed, {kFixedJoint}, 6.0f, false);
  ov.points(s.moving, {kOutline}, 13.0f, false);
  ov.points(s.moving, {kMovingJoint}, 9.0f, false);
}

void Visuals::skeleton_for_robot(AppState& app) {
  const std::string why = skeleton_reason(*app.model, app.robot_title);
  if (!why.empty()) {
    if (!skeleton_auto_) skeleton_choice_ = options.skeleton;
    skeleton_auto_ = true;
    options.skeleton = true;
    app.info(why + ": the skeleton is shown (View > Skeleton turns it off)");
  } else if (skeleton_auto_) {
    options.skeleton = skeleton_choice_;
    skeleton_auto_ = false;
  }
}

void Visuals::choose_skeleton(bool on) {
  options.skeleton = on;
  skeleton_auto_ = false;
}

}  // namespace ikwb::gui
