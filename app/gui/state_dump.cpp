// State dump as JSON (see state_dump.hpp and README.md).
#include "app/gui/state_dump.hpp"

#include <cmath>

#include "engine/render/gl_util.hpp"
#include "engine/render/glm_convert.hpp"

namespace ikwb::gui {

namespace {

using nlohmann::json;

json vec(const Vec3<double>& v) {
  return json::array({v.x, v.y, v.z});
}
json quat(const Quat<double>& q) {
  return json::array({q.x, q.y, q.z, q.w});
}
json vec(const glm::vec3& v) {
  return json::array({v.x, v.y, v.z});
}

// JSON has no infinities: unlimited joints say null
json limit(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json percentiles(const Percentiles& p) {
  return {{"count", p.count}, {"median", p.median}, {"p90", p.p90}, {"p99", p.p99},
          {"mean", p.mean},   {"min", p.min},       {"max", p.max}};
}

const char* level_name(Message::Level l) {
  return l == Message::kError ? "error" : l == Message::kWarning ? "warning" : "info";
}

}  // namespace

json make_state_dump(const AppState& app, const Viewport3D& view, int fb_w, int fb_h) {
  json d;
  d["format"] = "ikwb-state";
  d["version"] = kStateDumpVersion;
  d["frame"] = app.frame;

  // robot
  json robot = json::object();
  if (app.model) {
    const Model& m = *app.model;
    robot = {{"name", app.robot_title},      {"path", app.robot_path},
             {"body_count", m.body_count},   {"joint_count", m.joint_count},
             {"dof_count", m.dof_count},     {"coord_count", m.coord_count},
             {"warnings", app.load_warnings}};
  }
  d["robot"] = robot;

  // configuration: in q_start order, and by joint name
  d["joint_q"] = app.joint_q;
  json joints = json::object();
  json bodies = json::array();
  if (app.model) {
    const Model& m = *app.model;
    for (int j = 0; j < m.joint_count; ++j) {
      int a = m.joint_q_start[j], b = m.joint_q_start[j + 1];
      if (b == a) continue;
      json e = {{"type", joint_type_name(JointType(m.joint_type[j]))}, {"q_start", a}};
      e["q"] = b - a == 1
                   ? json(app.joint_q[a])
                   : json(std::vector<double>(app.joint_q.begin() + a, app.joint_q.begin() + b));
      if (b - a == 1) {
        int dof = m.joint_qd_start[j];
        e["lower"] = limit(m.dof_lower[dof]);
        e["upper"] = limit(m.dof_upper[dof]);
      }
      joints[m.joint_name[j]] = e;
    }
    const auto& meshes = view.renderer().body_meshes();
    for (int b = 0; b < m.body_count && b < int(app.fk.body_q.size()); ++b) {
      const Transform<double>& x = app.fk.body_q[b];
      glm::vec3 px = view.camera.project(render::to_glm(x.p), view.rect);
      bool on_screen = px.z > 0 && view.rect.contains(glm::vec2(px.x, px.y));
      bool geometry = b < int(meshes.size()) && !meshes[b].indices.empty();
      bodies.push_back({{"name", m.body_name[b]},
                        {"position", vec(x.p)},
                        {"orientation", quat(x.q)},
                        {"screen", json::array({px.x, px.y, px.z})},
                        {"on_screen", on_screen},
                        {"has_geometry", geometry}});
    }
  }
  d["joints"] = joints;
  d["bodies"] = bodies;

  // objectives
  json objectives = json::array();
  for (int i = 0; i < int(app.objectives.size()); ++i) {
    const ObjectiveUi& o = app.objectives[i];
    const ObjectiveStatus& s = o.status;
    json e = {{"index", i},
              {"type", objective_kind_name(o.kind)},
              {"name", o.name},
              {"weight", o.weight},
              {"hard", o.hard},
              {"enabled", o.enabled},
              {"reached", s.reached},
              {"out_of_reach", s.out_of_reach},
              {"out_of_reach_by", s.out_of_reach ? s.position_error : 0.0}};
    if (kind_has_link(o.kind)) {
      e["link"] = app.model->body_name[o.link];
      e["offset"] = vec(o.offset);
      e["target"] = {{"position", vec(o.target.p)}, {"orientation", quat(o.target.q)}};
      e["current"] = {{"position", vec(s.current.p)}, {"orientation", quat(s.current.q)}};
      e["position_error"] = s.position_error;
      e["rotation_error"] = s.rotation_error;
    } else if (kind_is_pair(o.kind)) {
      e["link"] = app.model->body_name[o.link];
      e["link_b"] = app.model->body_name[o.link_b];
      e["offset"] = vec(o.offset);
      e["offset_b"] = vec(o.offset_b);
      if (o.kind == ObjectiveKind::kMinDistance) e["distance"] = o.distance;
      e["position_error"] = s.position_error;
      e["rotation_error"] = s.rotation_error;
      e["error"] = s.error;
    } else {
      e["link"] = nullptr;
      e["error"] = s.error;
      e["position_error"] = 0.0;
      e["rotation_error"] = 0.0;
    }
    objectives.push_back(e);
  }
  d["objectives"] = objectives;
  d["selection"] = {
      {"objective", app.selection.objective},
      {"link", app.model && app.selection.body >= 0 ? json(app.model->body_name[app.selection.body])
                                                    : json(nullptr)}};

  // solver
  const SolveStatus& st = app.solve;
  json solver = solver_settings_json(app.settings);
  solver["backend_in_use"] = st.backend;
  solver["backend_note"] = st.backend_note;
  solver["cuda_available"] = st.cuda_available;
  solver["cuda_reason"] = st.cuda_reason;
  solver["live"] = app.live_solve;
  solver["state"] = app.solve_state();
  solver["converged"] = st.converged;
  solver["settled"] = st.settled;
  solver["iterations"] = st.iterations;
  solver["total_iterations"] = st.total_iterations;
  solver["seed"] = st.seed;
  solver["cost"] = st.cost;
  solver["position_error"] = st.position_error;
  solver["rotation_error"] = st.rotation_error;
  solver["solve_ms"] = st.solve_ms;
  d["solver"] = solver;

  d["timing"] = {{"frame_ms", percentiles(app.stats.frame())},
                 {"solve_ms", percentiles(app.stats.solve())},
                 {"fps", app.stats.fps()}};

  // view
  const render::Camera& c = view.camera;
  d["camera"] = {{"target", vec(c.target)}, {"distance", c.distance}, {"yaw", c.yaw},
                 {"pitch", c.pitch},        {"fov_y", c.fov_y},       {"eye", vec(c.eye())}};
  d["viewport"] = json::array({view.rect.x, view.rect.y, view.rect.width, view.rect.height});
  d["framebuffer"] = json::array({fb_w, fb_h});
  d["gizmo"] = {
      {"objective", view.gizmo_objective(app)},
      {"mode", view.effective_mode(app) == render::GizmoMode::kTranslate ? "translate" : "rotate"},
      {"space", view.gizmo.space == render::GizmoSpace::kWorld ? "world" : "local"},
      {"dragging", view.gizmo.dragging()}};

  d["gl_errors"] = render::gl_error_count();
  d["gl_error_messages"] = render::gl_error_messages();
  json messages = json::array();
  for (const Message& m : app.messages)
    messages.push_back({{"level", level_name(m.level)}, {"text", m.text}, {"frame", m.frame}});
  d["messages"] = messages;
  return d;
}

bool write_state_dump(const std::string& path, const json& dump, std::string* error) {
  try {
    write_file_atomic(path, dump.dump(2) + "\n");
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

}  // namespace ikwb::gui
