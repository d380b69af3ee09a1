// Scripted gizmo drags: select the objective, move onto the handle's screen point, press, move
// the cursor along the screen projection of the world motion, release. The grab geometry
// mirrors render::Gizmo's drag projection so the target moves by the asked amount.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cmath>

#include <glm/gtc/quaternion.hpp>

#include "app/gui/script.hpp"
#include "engine/render/glm_convert.hpp"

namespace ikwb::gui {

namespace {

bool is_axis_handle(render::GizmoHandle h) {
  return h == render::GizmoHandle::kTranslateX || h == render::GizmoHandle::kTranslateY ||
         h == render::GizmoHandle::kTranslateZ;
}

bool is_ring_handle(render::GizmoHandle h) {
  return render::gizmo_handle_in_mode(h, render::GizmoMode::kRotate);
}

// gizmo axis of an axis or ring handle, normal axis of a plane handle
int handle_axis(render::GizmoHandle h) {
  switch (h) {
    case render::GizmoHandle::kTranslateX:
    case render::GizmoHandle::kRotateX:
    case render::GizmoHandle::kTranslatePlaneYZ:
      return 0;
    case render::GizmoHandle::kTranslateY:
    case render::GizmoHandle::kRotateY:
    case render::GizmoHandle::kTranslatePlaneZX:
      return 1;
    default:
      return 2;
  }
}

bool ray_plane(const render::Ray& r, const glm::vec3& p, const glm::vec3& n, glm::vec3* hit) {
  float d = glm::dot(r.dir, n);
  if (std::abs(d) < 1e-6f) return false;
  float t = glm::dot(p - r.origin, n) / d;
  if (t < 0) return false;
  *hit = r.at(t);
  return true;
}

glm::vec2 xy(const glm::vec3& v) {
  return glm::vec2(v.x, v.y);
}

}  // namespace

glm::vec2 ScriptRunner::drag_point(const Viewport3D& view, double s) const {
  const Drag& d = drags_.front();
  if (!is_ring_handle(d.handle))
    return xy(view.camera.project(d.grab + glm::vec3(s * d.move), view.rect));
  if (d.ring_tangent) return d.p0 + d.tangent_px * float(s * d.angle * double(view.gizmo.size_px));
  glm::quat r = glm::angleAxis(float(s * d.angle), d.axis);
  return xy(view.camera.project(d.centre + r * (d.grab - d.centre), view.rect));
}

bool ScriptRunner::advance_drag(ScriptHost& host) {
  Drag& d = drags_.front();
  AppState& app = host.ui.app;
  Viewport3D& view = host.ui.view;
  const render::Camera& cam = view.camera;
  auto abandon = [&](const std::string& why) {
    fail(d.line, std::string("drag ") + render::gizmo_handle_name(d.handle) + ": " + why, app);
    input_.down[0] = false;
    input_.ctrl = false;
    drags_.clear();
    grouped_drags_ = app.edit_group_open = false;
    return false;
  };
  switch (d.phase) {
    case 0: {
      if (!d.obstacle.empty()) {
        // an obstacle: select it (as its row in the panel does); its gizmo takes either mode
        int k = app.find_obstacle(d.obstacle);
        if (k < 0) return abandon("no obstacle named '" + d.obstacle + "'");
        app.select_obstacle(k);
        render::GizmoMode want =
            is_ring_handle(d.handle) ? render::GizmoMode::kRotate : render::GizmoMode::kTranslate;
        if (view.user_mode != want) {
          int key = want == render::GizmoMode::kRotate ? GLFW_KEY_E : GLFW_KEY_W;
          input_.keys[key] = true;
          tapped_.push_back(key);
        }
        d.phase = 1;
        return true;
      }
      // select the objective (as clicking it in the panel does) and pick the gizmo mode
      if (d.objective >= int(app.objectives.size())) return abandon("no such objective");
      const WorkbenchObjective& o = app.objectives[d.objective];
      if (!o.has_target() || !o.enabled())
        return abandon("objective " + std::to_string(d.objective) + " has no gizmo");
      app.selection.objective = d.objective;
      app.selection.body = o.link();
      bool ring = is_ring_handle(d.handle);
      if ((!o.has_target_orientation() && ring) || (!o.has_target_position() && !ring))
        return abandon(std::string("a ") + o.kind().name + " objective has no such handle");
      render::GizmoMode want = ring ? render::GizmoMode::kRotate : render::GizmoMode::kTranslate;
      if (o.has_target_position() && o.has_target_orientation() && view.user_mode != want) {
        int k = ring ? GLFW_KEY_E : GLFW_KEY_W;
        input_.keys[k] = true;
        tapped_.push_back(k);
      }
      d.phase = 1;
      return true;
    }
    case 1: {
      // move the cursor onto the handle (hover)
      bool visible = false;
      d.p0 = view.gizmo.handle_screen_point(d.handle, cam, view.rect, &visible);
      if (!visible) return abandon("the handle is not visible from this camera");
      input_.mouse = d.p0;
      d.phase = 2;
      return true;
    }
    case 2: {
      // press, and remember where the handle was grabbed
      const render::Gizmo& g = view.gizmo;
      d.centre = render::to_glm(g.transform().p);
      render::Ray ray = cam.ray_from_pixel(d.p0.x, d.p0.y, view.rect);
      int k = handle_axis(d.handle);
      d.axis = g.axis(k);
      if (is_axis_handle(d.handle)) {
        glm::vec3 w = d.centre - ray.origin;
        float b = glm::dot(d.axis, ray.dir);
        float t = (b * glm::dot(ray.dir, w) - glm::dot(d.axis, w)) / std::max(1.0f - b * b, 1e-6f);
        d.grab = d.centre + t * d.axis;
      } else if (!is_ring_handle(d.handle)) {
        glm::vec3 n = d.handle == render::GizmoHandle::kTranslateFree ? cam.forward() : d.axis;
        if (!ray_plane(ray, d.centre, n, &d.grab)) return abandon("cannot grab the plane");
      } else {
        glm::vec3 to_c = glm::normalize(d.centre - cam.eye());
        glm::vec3 hit;
        d.ring_tangent =
            !(std::abs(glm::dot(to_c, d.axis)) > 0.2f && ray_plane(ray, d.centre, d.axis, &hit) &&
              glm::length(hit - d.centre) > 1e-6f);
        if (!d.ring_tangent) {
          d.grab = hit;
        } else {
          // ring seen edge-on: the gizmo turns by the motion along the ring's screen tangent
          float s = g.world_scale(cam, view.rect);
          glm::vec3 u = g.axis((k + 1) % 3), v = g.axis((k + 2) % 3);
          float best = 1e30f;
          for (int i = 0; i < 72; ++i) {
            float a = 6.28318530718f * float(i) / 72.0f;
            glm::vec3 p = d.centre + s * (std::cos(a) * u + std::sin(a) * v);
            float dist = glm::length(xy(cam.project(p, view.rect)) - d.p0);
            if (dist < best) best = dist, d.grab = p;
          }
          glm::vec3 t = glm::normalize(glm::cross(d.axis, d.grab - d.centre));
          glm::vec2 dir = xy(cam.project(d.grab + 0.05f * s * t, view.rect)) -
                          xy(cam.project(d.grab, view.rect));
          d.tangent_px = glm::length(dir) > 1e-6f ? glm::normalize(dir) : glm::vec2(1, 0);
        }
      }
      if (d.along_axis) d.move = glm::dvec3(d.axis) * d.move.x;
      input_.down[0] = true;
      input_.ctrl = d.snap;
      d.phase = 3;
      return true;
    }
    default: {
      int k = d.phase - 2;  // 1..frames: moves, frames + 1: release
      if (k == 1 && (!view.dragging_gizmo() || view.gizmo.active() != d.handle)) {
        // a window of the workbench (the timeline, a panel) over the handle takes the press
        const bool covered = ImGui::GetIO().WantCaptureMouse;
        return abandon(std::string("the press grabbed ") +
                       render::gizmo_handle_name(view.gizmo.active()) + " instead" +
                       (covered ? ": the handle is under a window of the workbench (turn the "
                                  "camera, or close or move the window)"
                                : ""));
      }
      if (k <= d.frames) {
        input_.mouse = drag_point(view, double(k) / double(d.frames));
        ++d.phase;
        return true;
      }
      input_.down[0] = false;
      input_.ctrl = false;
      drags_.erase(drags_.begin());
      return true;
    }
  }
}

}  // namespace ikwb::gui
