// Viewport3D: camera controls, picking, gizmo drags, target markers and in-view labels.
#include "app/gui/viewport.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/gui/obstacle_view.hpp"
#include "app/gui/panels.hpp"
#include "engine/render/glm_convert.hpp"

namespace ikwb::gui {

namespace {

constexpr float kClickSlop = 4.0f;         // pixels a press may travel and still be a click
constexpr float kTargetPickPx = 10.0f;     // target marker hit radius
constexpr std::size_t kBannerChars = 600;  // longer errors are cut (the Messages panel has all)
constexpr float kBannerWidth = 720.0f;     // wrap width, window pixels

ImU32 im_color(const glm::vec4& c) {
  return ImGui::ColorConvertFloat4ToU32({c.r, c.g, c.b, c.a});
}

// text with a translucent rounded box behind it
void label(ImDrawList* dl, ImVec2 at, const char* text, ImU32 color, float alpha = 0.72f) {
  ImVec2 size = ImGui::CalcTextSize(text);
  const ImVec2 pad(6, 3);
  dl->AddRectFilled(ImVec2(at.x - pad.x, at.y - pad.y),
                    ImVec2(at.x + size.x + pad.x, at.y + size.y + pad.y),
                    IM_COL32(18, 20, 24, int(255 * alpha)), 4.0f);
  dl->AddText(at, color, text);
}

}  // namespace

bool Viewport3D::init(std::string* error) {
  return renderer_.init(error);
}

void Viewport3D::shutdown() {
  renderer_.shutdown();
}

void Viewport3D::sync_model(AppState& app) {
  if (!app.model || model_version_ == app.model_version) return;
  model_version_ = app.model_version;
  app.ensure_fk();  // framing reads the body poses
  renderer_.upload_model(*app.model);
  picker_.set_meshes(renderer_.body_meshes());
  visuals.skeleton_for_robot(app);
  if (gizmo.dragging()) gizmo.cancel_drag();
  drag_ = Drag::kNone;
  // the scene's camera keys (the valid ones, AppState::apply_scene), framing for the others
  const nlohmann::json& c = app.scene_camera;
  if (c.contains("yaw")) camera.yaw = c["yaw"].get<float>();
  if (c.contains("pitch")) camera.pitch = c["pitch"].get<float>();
  frame_robot(app);
  if (c.contains("target")) {
    auto t = c["target"].get<std::vector<double>>();
    camera.target = glm::vec3(float(t[0]), float(t[1]), float(t[2]));
  }
  if (c.contains("distance")) camera.distance = c["distance"].get<float>();
  app.scene_camera = nlohmann::json::object();
}

void Viewport3D::frame_robot(const AppState& app) {
  if (!app.model) return;
  glm::vec3 lo, hi;
  if (!renderer_.model_bounds(app.fk.body_q, lo, hi)) {
    lo = glm::vec3(1e9f), hi = glm::vec3(-1e9f);
    for (const auto& x : app.fk.body_q) {
      lo = glm::min(lo, render::to_glm(x.p));
      hi = glm::max(hi, render::to_glm(x.p));
    }
  }
  // the enabled objectives' targets and tool points too, so their handles are in view
  for (const WorkbenchObjective& o : app.objectives) {
    if (!o.enabled()) continue;
    std::vector<glm::vec3> points;
    if (o.has_target_position()) points.push_back(render::to_glm(o.target.p));
    if (o.link() >= 0) points.push_back(render::to_glm(o.status.current.p));
    for (const glm::vec3& p : points) {
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
  }
  camera.frame(lo, hi, rect.aspect());
}

void Viewport3D::zoom_out_to_gizmo(const AppState& app) {
  // out about the view's centre, where every point in front of the camera tends: the handles
  // keep their size on screen (a tenth more distance a step, up to about 9 times as far)
  for (int step = 0; step < 24 && !gizmo_in_view(app) && camera.distance < camera.kMaxDistance;
       ++step)
    camera.distance = std::min(camera.distance * 1.1f, camera.kMaxDistance);
}

bool Viewport3D::gizmo_in_view(const AppState& app) const {
  if (gizmo_objective(app) < 0) return true;
  const Transform<double>& x = gizmo.transform();
  const glm::vec3 t = render::to_glm(x.p);
  const float reach = gizmo.size_px * camera.world_per_pixel(t, rect);
  for (int axis = 0; axis < 3; ++axis)
    for (const float sign : {-1.0f, 1.0f}) {
      Vec3<double> e{double(axis == 0), double(axis == 1), double(axis == 2)};
      if (gizmo.space == render::GizmoSpace::kLocal) e = rotate(x.q, e);
      const glm::vec3 p = camera.project(t + sign * reach * render::to_glm(e), rect);
      if (p.z <= 0 || !rect.contains({p.x, p.y})) return false;
    }
  return true;
}

float Viewport3D::grid_spacing(const AppState& app) const {
  const float size = app.robot_extent > 0 ? float(app.robot_extent) : 1.0f;
  return std::pow(10.0f, std::round(std::log10(std::max(size, 1e-3f) / 10.0f)));
}

int Viewport3D::gizmo_objective(const AppState& app) const {
  int i = app.selection.objective;
  if (!options.targets) return -1;
  if (i < 0 || i >= int(app.objectives.size())) return -1;
  const WorkbenchObjective& o = app.objectives[i];
  return o.has_target() && o.enabled() ? i : -1;
}

int Viewport3D::gizmo_obstacle(const AppState& app) const {
  return app.selected_obstacle();
}

render::GizmoMode Viewport3D::effective_mode(const AppState& app) const {
  int i = gizmo_objective(app);
  if (i >= 0 && !app.objectives[i].has_target_orientation()) return render::GizmoMode::kTranslate;
  if (i >= 0 && !app.objectives[i].has_target_position()) return render::GizmoMode::kRotate;
  return user_mode;
}

void Viewport3D::update_gizmo_pose(const AppState& app) {
  int k = gizmo_obstacle(app);
  if (k >= 0) {
    gizmo.mode = user_mode;
    gizmo.set_transform(obstacle_gizmo_pose(app.obstacles[k]));
    return;
  }
  int i = gizmo_objective(app);
  if (i < 0) {
    if (gizmo.dragging()) gizmo.cancel_drag();
    return;
  }
  const WorkbenchObjective& o = app.objectives[i];
  Transform<double> t = o.target;
  // a rotation target has no position: its rings sit on the link
  if (!o.has_target_position()) t.p = o.status.current.p;
  gizmo.mode = effective_mode(app);
  gizmo.set_transform(t);
}

int Viewport3D::target_under(const AppState& app, glm::vec2 mouse) const {
  if (!options.targets) return -1;
  int best = -1;
  float best_d = kTargetPickPx;
  for (int i = 0; i < int(app.objectives.size()); ++i) {
    const WorkbenchObjective& o = app.objectives[i];
    if (!o.has_target() || !o.has_target_position()) continue;
    glm::vec3 px = camera.project(render::to_glm(o.target.p), rect);
    if (px.z <= 0) continue;
    float d = glm::length(glm::vec2(px) - mouse);
    if (d < best_d) best_d = d, best = i;
  }
  return best;
}

void Viewport3D::hover(AppState& app, const InputState& in) {
  if ((gizmo_objective(app) >= 0 || gizmo_obstacle(app) >= 0) &&
      gizmo.hover(camera, rect, in.mouse) != render::GizmoHandle::kNone)
    return;
  app.hover.objective = target_under(app, in.mouse);
  if (app.hover.objective >= 0 || !app.model) return;
  render::Ray ray = camera.ray_from_pixel(in.mouse.x, in.mouse.y, rect);
  render::PickHit hit = picker_.pick(ray, app.fk.body_q);
  // a ghost's label takes the click as its ghost does
  visuals.hovered_ghost = visuals.ghost_label_at(in.mouse);
  if (visuals.hovered_ghost < 0)
    visuals.hovered_ghost = visuals.pick_ghost(picker_, ray, hit.hit() ? hit.distance : 1e30f, app);
  if (visuals.hovered_ghost >= 0) return;
  // an obstacle in front of the robot takes the click
  app.hover.obstacle = pick_obstacle(app, ray, hit.hit() ? hit.distance : 1e30f);
  if (app.hover.obstacle >= 0) return;
  app.hover.body = hit.body;
  hover_point_ = render::to_vec3(hit.local_point);
  // a robot drawn by its skeleton (no meshes to hit) is picked by it
  if (!hit.hit() && visuals.options.skeleton)
    app.hover.body =
        skeleton_body_at(*app.model, app.fk.body_q, camera, rect, in.mouse, &hover_point_);
}

void Viewport3D::click(AppState& app, int button) {
  const Hover& on = pressed_on_;
  if (button == 0 && pressed_ghost_ >= 0) {
    adopt_seed(app, pressed_ghost_);
  } else if (button == 0 && app.branch.active && on.body >= 0 && app.model) {
    app.selection.body = on.body;
    begin_branch_edit(app, branch_joint_for_body(*app.model, on.body));
  } else if (button == 0) {
    if (on.obstacle >= 0) {
      app.select_obstacle(on.obstacle);
    } else if (on.objective >= 0 && on.objective < int(app.objectives.size())) {
      app.selection.objective = on.objective;
      app.selection.body = app.objectives[on.objective].link();
    } else {
      app.select_link(on.body);
    }
  } else if (button == 1 && on.body >= 0) {
    context_body_ = on.body;
    context_point_ = pressed_point_;
    open_context_ = true;
  }
}

void Viewport3D::handle_input(AppState& app, const InputState& in, bool ui_wants_mouse,
                              bool ui_wants_keyboard) {
  // an objective selected since an obstacle was (panel, script, a new objective) takes the gizmo
  if (app.selection.objective >= 0) app.selection.obstacle = -1;
  update_gizmo_pose(app);
  // an objective just added (not a scene or preset opened, nor undo and redo, whose cameras
  // stand) whose gizmo the view cuts off: the view zooms out until it is in (an arm standing
  // straight up, framed with its tip at the top edge, had its z handle above the view)
  if (app.objectives_added != objectives_added_ && gizmo_objective(app) >= 0 &&
      drag_ == Drag::kNone)
    zoom_out_to_gizmo(app);
  objectives_added_ = app.objectives_added;
  gizmo.snap = in.ctrl;
  const bool inside = in.mouse_valid() && rect.contains(in.mouse);

  // keys
  if (!ui_wants_keyboard) {
    if (in.key_pressed(GLFW_KEY_W)) user_mode = render::GizmoMode::kTranslate;
    if (in.key_pressed(GLFW_KEY_E)) user_mode = render::GizmoMode::kRotate;
    if (in.key_pressed(GLFW_KEY_L))
      gizmo.space = gizmo.space == render::GizmoSpace::kWorld ? render::GizmoSpace::kLocal
                                                              : render::GizmoSpace::kWorld;
    if (in.key_pressed(GLFW_KEY_F)) frame_robot(app);
    if (in.key_pressed(GLFW_KEY_ESCAPE) && gizmo.dragging()) {
      gizmo.cancel_drag();
      int k = gizmo_obstacle(app);
      if (k >= 0)
        app.set_obstacle(k, obstacle_at_gizmo_pose(app.obstacles[k], gizmo.transform()), "");
      else
        app.set_target(gizmo_objective(app), gizmo.transform());
      drag_ = Drag::kNone;
    }
    if (in.key_pressed(GLFW_KEY_DELETE) && app.selection.objective >= 0 && drag_ == Drag::kNone)
      app.remove_objective(app.selection.objective);
    else if (in.key_pressed(GLFW_KEY_DELETE) && gizmo_obstacle(app) >= 0 && drag_ == Drag::kNone)
      app.remove_obstacle(gizmo_obstacle(app));
    update_gizmo_pose(app);
  }

  // an active drag owns the mouse until its button is released
  if (drag_ != Drag::kNone) {
    if (glm::length(in.mouse - press_at_) > kClickSlop) moved_ = true;
    const bool held = in.down[drag_button_];
    switch (drag_) {
      case Drag::kGizmo: {
        // an obstacle: the same gizmo moves its pose (a half-space: its plane)
        int k = gizmo_obstacle(app);
        if (k >= 0 && gizmo.dragging()) {
          Transform<double> t = held ? gizmo.update_drag(camera, rect, in.mouse) : gizmo.end_drag();
          app.set_obstacle(k, obstacle_at_gizmo_pose(app.obstacles[k], t), "");
          if (!held) app.note_edit("move obstacle");
          break;
        }
        int i = gizmo_objective(app);
        if (i < 0 || !gizmo.dragging()) {
          drag_ = Drag::kNone;
          break;
        }
        Transform<double> t = held ? gizmo.update_drag(camera, rect, in.mouse) : gizmo.end_drag();
        if (!app.objectives[i].has_target_position()) t.p = app.objectives[i].target.p;
        app.set_target(i, t);
        if (!held) app.note_edit("move target");
        break;
      }
      case Drag::kBranch: {
        double param;
        if (held && branch_handle_param(app, camera, rect, in.mouse, false, &param)) {
          double d = param - branch_last_;
          if (app.model &&
              JointType(app.model->joint_type[app.branch.joint]) != JointType::kPrismatic)
            d = std::remainder(d, 2.0 * M_PI);
          branch_last_ = param;
          branch_total_ += d;
          if (d != 0) branch_set(app, branch_start_ + branch_total_);
        }
        break;
      }
      case Drag::kOrbit:
        if (moved_) camera.orbit(in.mouse_delta.x, in.mouse_delta.y);
        break;
      case Drag::kPan:
        if (moved_) camera.pan(in.mouse_delta.x, in.mouse_delta.y, rect);
        break;
      case Drag::kNone:
        break;
    }
    if (!held) {
      if (!moved_ && drag_ != Drag::kGizmo && drag_ != Drag::kBranch) click(app, drag_button_);
      drag_ = Drag::kNone;
    }
    return;
  }

  // hover was reset at the start of the frame; panels may have set it
  visuals.hovered_ghost = -1;
  if (!inside || ui_wants_mouse) return;
  hover(app, in);
  if (in.wheel != 0) camera.zoom(in.wheel);
  for (int b = 0; b < kMouseButtons; ++b) {
    if (!in.pressed[b]) continue;
    press_at_ = in.mouse;
    pressed_on_ = app.hover;
    pressed_ghost_ = visuals.hovered_ghost;
    pressed_point_ = hover_point_;
    moved_ = false;
    drag_button_ = b;
    if (b == 0 && branch_handle_param(app, camera, rect, in.mouse, true, &branch_last_)) {
      drag_ = Drag::kBranch;
      branch_start_ = branch_value(app);
      branch_total_ = 0;
    } else if (b == 0 && (gizmo_objective(app) >= 0 || gizmo_obstacle(app) >= 0) &&
               gizmo.begin_drag(camera, rect, in.mouse)) {
      drag_ = Drag::kGizmo;
      app.hover = {};
    } else {
      drag_ = b == 0 ? Drag::kOrbit : Drag::kPan;
    }
    break;
  }
}

bool Viewport3D::link_screen_point(const AppState& app, int body, glm::vec2* out) const {
  const auto& meshes = renderer_.body_meshes();
  if (body >= int(meshes.size()) || body >= int(app.fk.body_q.size())) return false;
  const MeshData& mesh = meshes[body];
  const glm::mat4 x = render::to_glm(app.fk.body_q[body]);
  std::vector<glm::vec2> candidates;
  glm::vec2 centre(0.0f);
  const std::size_t n = mesh.vertex_count(), step = std::max<std::size_t>(1, n / 400);
  for (std::size_t i = 0; i < n; i += step) {
    const float* v = &mesh.positions[3 * i];
    glm::vec3 p = glm::vec3(x * glm::vec4(v[0], v[1], v[2], 1.0f));
    glm::vec3 s = camera.project(p, rect);
    if (s.z <= 0) continue;
    candidates.push_back(glm::vec2(s));
    centre += glm::vec2(s);
  }
  if (candidates.empty()) return false;
  centre /= float(candidates.size());
  candidates.insert(candidates.begin(), centre);
  for (glm::vec2& c : candidates) c = glm::mix(c, centre, 0.2f);
  std::stable_sort(candidates.begin() + 1, candidates.end(), [&](glm::vec2 a, glm::vec2 b) {
    return glm::length(a - centre) < glm::length(b - centre);
  });
  for (const glm::vec2& c : candidates) {
    if (!rect.contains(c)) continue;
    render::Ray ray = camera.ray_from_pixel(c.x, c.y, rect);
    if (picker_.pick(ray, app.fk.body_q).body == body) {
      *out = c;
      return true;
    }
  }
  return false;
}

int Viewport3D::ghost_under(const AppState& app, glm::vec2 mouse) const {
  if (!app.model || !rect.contains(mouse)) return -1;
  render::Ray ray = camera.ray_from_pixel(mouse.x, mouse.y, rect);
  render::PickHit hit = picker_.pick(ray, app.fk.body_q);
  return visuals.pick_ghost(picker_, ray, hit.hit() ? hit.distance : 1e30f, app);
}

bool Viewport3D::takes_click_before_ghosts(const AppState& app, glm::vec2 mouse) const {
  if (target_under(app, mouse) >= 0) return true;
  if (gizmo_objective(app) < 0 && gizmo_obstacle(app) < 0) return false;
  render::Gizmo probe = gizmo;  // hover() keeps what it found
  return probe.hover(camera, rect, mouse) != render::GizmoHandle::kNone;
}

bool Viewport3D::ghost_screen_point(const AppState& app, int k, glm::vec2* out) const {
  const auto& meshes = renderer_.body_meshes();
  if (k < 0 || k >= visuals.ghost_count()) return false;
  const auto& body_q = visuals.ghost_body_q(k);
  for (int body = int(body_q.size()) - 1; body >= 0; --body) {
    if (body >= int(meshes.size())) continue;
    const MeshData& mesh = meshes[body];
    const glm::mat4 x = render::to_glm(body_q[body]);
    const std::size_t n = mesh.vertex_count(), step = std::max<std::size_t>(1, n / 200);
    glm::vec3 centre(0.0f);
    int count = 0;
    for (std::size_t i = 0; i < n; i += step, ++count)
      centre += glm::vec3(x * glm::vec4(mesh.positions[3 * i], mesh.positions[3 * i + 1],
                                        mesh.positions[3 * i + 2], 1.0f));
    if (count == 0) continue;
    centre /= float(count);
    for (std::size_t i = 0; i < n; i += step) {
      const float* v = &mesh.positions[3 * i];
      glm::vec3 p = glm::mix(glm::vec3(x * glm::vec4(v[0], v[1], v[2], 1.0f)), centre, 0.2f);
      glm::vec3 s = camera.project(p, rect);
      if (s.z <= 0 || !rect.contains(glm::vec2(s))) continue;
      // (a target marker or the gizmo there would take the click first: hover's order)
      if (ghost_under(app, glm::vec2(s)) == k && !takes_click_before_ghosts(app, glm::vec2(s))) {
        *out = glm::vec2(s);
        return true;
      }
    }
  }
  return false;
}

void Viewport3D::render(const AppState& app, int fb_height, float fb_scale) {
  renderer_.begin_frame(camera, rect, fb_height, fb_scale);
  renderer_.draw_background();
  if (app.model) {
    render::DrawStyle style;
    style.body_highlight.assign(app.model->body_count, render::kHighlightNone);
    if (app.hover.body >= 0) style.body_highlight[app.hover.body] |= render::kHighlightHover;
    if (app.selection.body >= 0)
      style.body_highlight[app.selection.body] |= render::kHighlightSelected;
    visuals.style_robot(app, style);
    renderer_.draw_robot(app.fk.body_q, style);
    visuals.draw_ghosts(renderer_, app);
    timeline_view.draw_ghosts(renderer_, app);
  }
  if (options.grid) {
    // a floor around the robot that fades out well before the horizon (a third of the pixels
    // of an endless grid, which matters on software OpenGL)
    render::GridStyle grid;
    grid.spacing = grid_spacing(app);
    grid.extent = std::max(20.0f * grid.spacing, 2.5f * camera.distance);
    renderer_.draw_grid(grid);
  }
  render::Overlay& ov = renderer_.overlay();
  draw_obstacles(ov, camera, app, gizmo_obstacle(app), app.hover.obstacle);
  if (options.world_axes) renderer_.draw_world_axes(2.5f * grid_spacing(app), 2.5f);
  if (options.link_frames && app.model) {
    for (const auto& x : app.fk.body_q) {
      float s = 28.0f * camera.world_per_pixel(render::to_glm(x.p), rect);
      ov.axes(render::to_glm(x), s, 1.5f, false, 0.8f);
    }
  }
  if (visuals.options.skeleton) draw_skeleton(ov, app);
  if (options.targets) {
    const int gizmo_i = gizmo_objective(app);
    for (int i = 0; i < int(app.objectives.size()); ++i) {
      const WorkbenchObjective& o = app.objectives[i];
      if (o.kind().is_pair() && o.enabled()) {
        glm::vec3 a = render::to_glm(o.status.current.p);
        glm::vec3 b = render::to_glm(
            transform_point(app.fk.body_q[o.spec.params.link_b], o.spec.params.offset_b));
        glm::vec4 col = status_color(o);
        col.a *= 0.7f;
        ov.line(a, b, col, 1.5f, false);
        ov.points({a, b}, {col}, 6.0f, false);
      }
      if (!o.has_target()) continue;
      glm::vec4 col = status_color(o);
      glm::vec3 cur = render::to_glm(o.status.current.p);
      glm::vec3 tgt = !o.has_target_position() ? cur : render::to_glm(o.target.p);
      float wpp = camera.world_per_pixel(tgt, rect);
      if (glm::length(tgt - cur) > 2.0f * wpp) ov.line(cur, tgt, col, 2.0f, false);
      ov.point(cur, col, 7.0f, false);
      if (o.has_target_orientation() && i != gizmo_i) {
        Transform<double> frame{render::to_vec3(tgt), o.target.q};
        ov.axes(render::to_glm(frame), 30.0f * wpp, 2.0f, false, 0.9f);
      }
      if (o.has_target_position() && i != gizmo_i) {
        bool lit = app.hover.objective == i;
        ov.point(tgt, glm::vec4(0.1f, 0.1f, 0.12f, 0.9f), lit ? 16.0f : 13.0f, false);
        ov.point(tgt, lit ? glm::vec4(1.0f, 0.85f, 0.2f, 1.0f) : col, lit ? 12.0f : 9.0f, false);
      }
    }
    if (gizmo_i >= 0) gizmo.draw(ov, camera, rect);
  }
  if (gizmo_obstacle(app) >= 0) gizmo.draw(ov, camera, rect);
  visuals.draw_overlays(ov, camera, rect, app);
  timeline_view.draw_path(ov, app);
  renderer_.draw_overlay();
  renderer_.end_frame();
}

void Viewport3D::draw_ui(AppState& app) {
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const ImU32 text = IM_COL32(226, 230, 236, 255);
  const ImU32 dim = IM_COL32(160, 166, 176, 255);
  const float x0 = rect.x + 12, y0 = rect.y + 10;
  char buf[256];
  visuals.draw_labels(dl, camera, rect, app);

  // top-left: robot and gizmo mode
  if (app.model) {
    std::snprintf(buf, sizeof buf, "%s   %d links, %d dofs", app.robot_title.c_str(),
                  app.model->body_count, app.model->dof_count);
    label(dl, ImVec2(x0, y0), buf, text);
  }
  if (gizmo_objective(app) >= 0 || gizmo_obstacle(app) >= 0) {
    std::snprintf(buf, sizeof buf, "%s (W/E)  |  %s (L)%s",
                  effective_mode(app) == render::GizmoMode::kTranslate ? "Translate" : "Rotate",
                  gizmo.space == render::GizmoSpace::kWorld ? "World" : "Local",
                  gizmo.snap ? "  |  Snap" : "");
    label(dl, ImVec2(x0, y0 + 26), buf, dim);
  }

  // top-right: frame rate and this frame's solve time ("no solve" while the robot rests, the
  // timeline plays or live solving is off: the last solve's time read as if it still ran)
  if (app.solve.ran)
    std::snprintf(buf, sizeof buf, "%.0f FPS   solve %.2f ms", app.stats.fps(), app.solve.solve_ms);
  else
    std::snprintf(buf, sizeof buf, "%.0f FPS   no solve", app.stats.fps());
  ImVec2 sz = ImGui::CalcTextSize(buf);
  label(dl, ImVec2(rect.x + rect.width - sz.x - 14, y0), buf, dim);

  // the selected objective's status next to its target
  int sel = app.selection.objective;
  if (sel >= 0 && sel < int(app.objectives.size()) && app.objectives[sel].has_target()) {
    const WorkbenchObjective& o = app.objectives[sel];
    const Vec3<double>& at = !o.has_target_position() ? o.status.current.p : o.target.p;
    glm::vec3 px = camera.project(render::to_glm(at), rect);
    if (px.z > 0 && rect.contains(glm::vec2(px))) {
      const ObjectiveStatus& st = o.status;
      const std::string miss = miss_text(o);
      const char* name = o.name().c_str();
      if (st.missed && st.explained && st.status == ReachStatus::kTradedOff)
        std::snprintf(buf, sizeof buf, "%s: traded off, %s short", name, miss.c_str());
      else if (st.missed && st.explained && st.status == ReachStatus::kStoppedShort)
        std::snprintf(buf, sizeof buf, "%s: stopped short, %s off", name, miss.c_str());
      else if (st.missed && st.explained && st.status == ReachStatus::kBlocked)
        std::snprintf(buf, sizeof buf, "%s: blocked, %s short", name, miss.c_str());
      else if (st.missed && st.out_of_reach() && o.kind().position_row >= 0)
        std::snprintf(buf, sizeof buf, "%s: %s", name, out_of_reach_text(o).c_str());
      else if (st.missed && st.explained)
        std::snprintf(buf, sizeof buf, "%s: out of reach by %s", name, miss.c_str());
      else if (st.missed)
        std::snprintf(buf, sizeof buf, "%s: best effort, %s short", name, miss.c_str());
      else if (o.status.reached)
        std::snprintf(buf, sizeof buf, "%s", name);
      else
        std::snprintf(buf, sizeof buf, "%s: %s", name, miss.c_str());
      // kept inside the view and below the top row of badges
      const ImVec2 size = ImGui::CalcTextSize(buf);
      const float x = std::min(px.x + 16, rect.x + rect.width - size.x - 8);
      const float y = std::max(px.y + 14, y0 + 52);
      label(dl, ImVec2(std::max(x, rect.x + 8), y), buf, im_color(status_color(o)));
    }
  }

  // hovered obstacle or link name at the cursor
  if (app.hover.obstacle >= 0 && app.hover.obstacle < int(app.obstacles.size()) &&
      drag_ == Drag::kNone) {
    ImVec2 m = ImGui::GetIO().MousePos;
    std::string name = "obstacle " + app.obstacles[app.hover.obstacle].name;
    if (rect.contains(glm::vec2(m.x, m.y)))
      label(dl, ImVec2(m.x + 14, m.y + 16), name.c_str(), text);
  }
  if (app.hover.body >= 0 && app.model && drag_ == Drag::kNone) {
    ImVec2 m = ImGui::GetIO().MousePos;
    if (rect.contains(glm::vec2(m.x, m.y)))
      label(dl, ImVec2(m.x + 14, m.y + 16), app.model->body_name[app.hover.body].c_str(), text);
  }

  // the newest error as a banner for a few seconds, wrapped within the view
  if (const Message* banner = app.banner_error()) {
    const std::string& text = banner->text;
    std::string t = text.size() > kBannerChars ? text.substr(0, kBannerChars - 3) + "..." : text;
    const float wrap = std::max(std::min(rect.width - 40.0f, kBannerWidth), 120.0f);
    ImVec2 ts = ImGui::CalcTextSize(t.c_str(), nullptr, false, wrap);
    ImVec2 at(rect.x + 0.5f * (rect.width - ts.x), rect.y + 76);
    dl->AddRectFilled(ImVec2(at.x - 10, at.y - 6), ImVec2(at.x + ts.x + 10, at.y + ts.y + 6),
                      IM_COL32(150, 38, 38, 230), 5.0f);
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), at, IM_COL32(255, 240, 240, 255), t.c_str(),
                nullptr, wrap);
  }

  // controls hint
  if (options.hints) {
    const char* hint =
        "LMB orbit / click select   RMB pan / link menu   wheel zoom   F frame   W/E L Ctrl gizmo";
    label(dl, ImVec2(x0, rect.y + rect.height - 26), hint, dim, 0.5f);
  }

  // link context menu (right click on a link)
  if (open_context_) {
    ImGui::OpenPopup("##link_context");
    open_context_ = false;
  }
  if (ImGui::BeginPopup("##link_context")) {
    link_context_items(app, context_body_, &context_point_);
    ImGui::EndPopup();
  }
}

}  // namespace ikwb::gui
