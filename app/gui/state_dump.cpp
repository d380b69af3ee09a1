// State dump as JSON (see state_dump.hpp and README.md).
#include "app/gui/state_dump.hpp"

#include "solver/scene_problem.hpp"

#include <cmath>

#include <glm/gtc/quaternion.hpp>

#include "app/gui/obstacle_view.hpp"
#include "app/gui/timeline_edit.hpp"
#include "app/gui/visuals.hpp"
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
  return {{"count", p.count}, {"total", p.total}, {"median", p.median}, {"p90", p.p90},
          {"p99", p.p99},     {"mean", p.mean},   {"min", p.min},       {"max", p.max}};
}

// the fields of an obstacle's type, as the scene writes them
json obstacle_dump(const Obstacle& o) {
  json e = {{"name", o.name}, {"type", shape_type_name(o.type)}};
  switch (o.type) {
    case ShapeType::kBox:
      e["size"] = vec(o.size);
      break;
    case ShapeType::kSphere:
      e["radius"] = o.radius;
      break;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder:
      e["radius"] = o.radius;
      e["length"] = o.length;
      break;
    case ShapeType::kHalfSpace:
      e["normal"] = vec(o.normal);
      e["offset"] = o.offset;
      return e;
  }
  e["pose"] = {{"position", vec(o.pose.p)}, {"orientation", quat(o.pose.q)}};
  return e;
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
        e["lower"] = limit(app.dof_lower[dof]);
        e["upper"] = limit(app.dof_upper[dof]);
        e["limits_edited"] = limits_edited(m, dof, app.dof_lower[dof], app.dof_upper[dof]);
        e["locked"] = app.joint_locked(j);
        double t = limit_fraction(app, j);
        e["limit_fraction"] = limit(t);
        e["at_limit"] = at_limit(app, j);
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

  // every seed's final configuration (the ghosts) and the branch edit
  json seeds = json::array();
  for (int k = 0; k < seed_count(app); ++k)
    seeds.push_back({{"index", k},
                     {"cost", app.last_result.row_cost[k]},
                     {"converged", bool(app.last_result.row_converged[k])},
                     {"q", seed_q(app, k)}});
  d["seeds"] = seeds;
  const VisualOptions& vo = view.visuals.options;
  const std::size_t skeleton_segments =
      vo.skeleton && app.model ? robot_skeleton(*app.model, app.fk.body_q).segments.size() / 2 : 0;
  json ghost_labels = json::array();
  for (const auto& [k, b] : view.visuals.ghost_labels())
    ghost_labels.push_back({{"seed", k}, {"box", {b.x, b.y, b.z, b.w}}});
  d["visuals"] = {{"ghosts", vo.ghosts},
                  {"ghost_count", vo.ghosts ? view.visuals.ghost_count() : 0},
                  {"ghost_labels", ghost_labels},
                  {"residuals", vo.residuals},
                  {"limits", vo.limits},
                  {"velocities", vo.velocities},
                  {"residual_panel", vo.residual_panel},
                  {"collision_shapes", vo.collision_shapes},
                  {"near_collisions", vo.near_collisions},
                  {"collision_pairs", vo.collision_pairs},
                  {"skeleton", vo.skeleton},
                  {"skeleton_segments", skeleton_segments},
                  {"history_frames", view.visuals.history().size()}};
  json branch = {{"active", app.branch.active}, {"joint", nullptr}};
  if (app.model && app.branch.active) {
    const Model& m = *app.model;
    const BranchEdit& be = app.branch;
    json updated = json::array(), preserved = json::array(), mask = json::array();
    for (uint8_t v : be.joint_mask) mask.push_back(int(v));
    for (int b = 0; b < m.body_count; ++b)
      (b < int(be.updated.size()) && be.updated[b] ? updated : preserved).push_back(m.body_name[b]);
    branch["joint"] = be.joint >= 0 ? json(m.joint_name[be.joint]) : json(nullptr);
    branch["descendants_follow"] = be.descendants_follow;
    branch["joint_mask"] = mask;
    branch["updated_bodies"] = updated;
    branch["preserved_bodies"] = preserved;
    branch["edits"] = be.edits;
    branch["joint_qd"] = be.joint_qd;
    json twists = json::array();
    for (const auto& t : be.state.body_qd)
      twists.push_back({{"lin", vec(t.lin)}, {"ang", vec(t.ang)}});
    branch["body_qd"] = twists;
    // the 3D handle in view pixels: the joint, and the tip of the current-value spoke (revolute)
    // or the current position (prismatic)
    glm::vec3 c, axis, zero;
    if (branch_handle_frame(app, &c, &axis, &zero)) {
      const double q = app.joint_q[m.joint_q_start[be.joint]];
      glm::vec3 tip = c + float(q) * axis;
      if (JointType(m.joint_type[be.joint]) != JointType::kPrismatic)
        tip = c + kBranchHandlePx * view.camera.world_per_pixel(c, view.rect) *
                      (glm::angleAxis(float(q), axis) * zero);
      glm::vec3 sc = view.camera.project(c, view.rect), st = view.camera.project(tip, view.rect);
      branch["handle_centre_screen"] = json::array({sc.x, sc.y});
      branch["handle_screen"] = json::array({st.x, st.y});
    }
  }
  d["branch_edit"] = branch;

  // objectives
  json objectives = json::array();
  for (int i = 0; i < int(app.objectives.size()); ++i) {
    const WorkbenchObjective& o = app.objectives[i];
    const ObjectiveStatus& s = o.status;
    // the scene record (the fields of the kind), then what the solver's rows say
    json e = scene_objective_to_json(objective_to_scene(*app.model, {o.spec, o.target}));
    e["index"] = i;
    e["link"] = o.link() >= 0 ? json(app.model->body_name[o.link()]) : json(nullptr);
    e["reached"] = s.reached;
    e["pursued"] = s.pursued;
    e["out_of_reach"] = s.out_of_reach();
    e["out_of_reach_by"] = s.out_of_reach_by();
    e["position_error"] = s.position_error;
    e["rotation_error"] = s.rotation_error;
    e["violation"] = s.violation;
    e["deviation"] = s.deviation;
    // one number, as the residual panel plots it (visuals.hpp residual_norm)
    e["error"] = residual_norm(o);
    if (o.type() == ObjectiveType::kSupportPolygon &&
        int(app.fk.body_q.size()) == app.model->body_count) {
      // the hull's vertices (counter-clockwise, world) and the centre of mass
      const auto& pts = o.spec.points;
      std::vector<Vec3<double>> world(kMaxContactPoints);
      std::vector<int> hull(kMaxContactPoints);
      int n = std::min(int(pts.size()), kMaxContactPoints);
      int h = support_hull(pts.data(), n, app.fk.body_q.data(), world.data(), hull.data());
      json vertices = json::array();
      for (int k = 0; k < h; ++k) vertices.push_back(vec(world[hull[k]]));
      e["vertices"] = vertices;
      const Vec3<double> com = center_of_mass(app.model->view(), app.fk.body_q.data());
      e["com"] = vec(com);
      // where the view draws the centre of mass on the floor (the contacts' lowest height)
      double floor = n > 0 ? world[0].z : 0.0;
      for (int k = 1; k < n; ++k) floor = std::min(floor, world[k].z);
      const glm::vec3 ground =
          view.camera.project(render::to_glm(Vec3<double>{com.x, com.y, floor}), view.rect);
      e["com_ground_screen"] = json::array({ground.x, ground.y});
    }
    if (o.type() == ObjectiveType::kLookAt && int(app.fk.body_q.size()) == app.model->body_count) {
      // the point the axis should point at (the target, or the followed point of link_b)
      const ObjectiveParams<double>& p = o.spec.params;
      e["looks_at"] = vec(look_at_point(p.link_b, p.offset_b, o.target.p, app.fk.body_q.data()));
    }
    // the compromise (solver/compromise.hpp), once the robot has rested on this solution; a
    // reached objective needs no explanation
    e["missed"] = s.missed;
    if (s.pursued && (s.explained || s.reached))
      e["status"] = s.explained ? to_string(s.status) : "reached";
    else
      e["status"] = nullptr;
    json blocked = json::array(), pulled = json::array(), helped = json::array();
    for (const Blocker& b : s.blocked_by)
      blocked.push_back(b.objective >= 0 ? json{{"objective", b.objective}}
                                         : json{{"joint", app.model->joint_name[b.joint]}});
    for (const Pull& p : s.pulled_by)
      pulled.push_back({{"objective", p.objective}, {"share", p.share}});
    e["blocked_by"] = blocked;
    e["pulled_by"] = pulled;
    for (const Pull& p : s.helped_by)
      helped.push_back({{"objective", p.objective}, {"share", p.share}});
    e["helped_by"] = helped;
    // what the panels say as "helped by the others by": the listed shares add up to more than
    // they split (a script could not reconcile a 52 mm pull with a 34 mm error)
    const double others = s.others_share();
    e["helped_by_others"] = !s.pulled_by.empty() && others < -0.01 * s.share_error ? -others : 0.0;
    e["share_unit"] = s.unit == ShareUnit::kNone ? json(nullptr) : json(to_string(s.unit));
    e["best_error"] =
        s.explained && std::isfinite(s.best_error) ? json(s.best_error) : json(nullptr);
    if (o.link() >= 0 || o.has_target())  // com: the centre of mass
      e["current"] = {{"position", vec(s.current.p)}, {"orientation", quat(s.current.q)}};
    objectives.push_back(e);
  }
  d["objectives"] = objectives;
  // the closest collision pairs (AppState::collisions), closest first
  json collisions = json::array();
  if (app.model) {
    const Model& m = *app.model;
    const CollisionStatus& cs = app.collisions;
    const auto& obstacle_names = app.collision_world().obstacle_names;
    for (const BodyDistance& p : cs.pairs) {
      json e = {{"link_a", m.body_name[p.body_a]}};
      if (p.obstacle >= 0)
        e["obstacle"] = p.obstacle < int(obstacle_names.size()) ? json(obstacle_names[p.obstacle])
                                                                : json(p.obstacle);
      else
        e["link_b"] = m.body_name[p.body_b];
      e["distance"] = p.contact.distance;
      e["point_a"] = vec(p.contact.point_a);
      e["point_b"] = vec(p.contact.point_b);
      e["penetrating"] = p.contact.distance < 0;
      e["near"] = p.contact.distance < cs.margin;
      collisions.push_back(e);
    }
    json edits = {{"disabled", json::array()}, {"enabled", json::array()}};
    for (const LinkPair& p : app.collision_pairs.disabled)
      edits["disabled"].push_back({p.first, p.second});
    for (const LinkPair& p : app.collision_pairs.enabled)
      edits["enabled"].push_back({p.first, p.second});
    d["collision"] = {{"margin", cs.margin},
                      {"objective", cs.objective},
                      {"penetrating", cs.penetrating_count},
                      {"near", cs.near_count},
                      {"self_pairs", app.collision_world().self_pair_count()},
                      {"pair_edits", edits}};
  }
  d["collisions"] = collisions;
  // obstacles: the scene record (name, type, size / radius / length or normal / offset, pose)
  json obstacles = json::array();
  for (int i = 0; i < int(app.obstacles.size()); ++i) {
    json e = obstacle_dump(app.obstacles[i]);
    e["index"] = i;
    e["selected"] = i == app.selected_obstacle();
    // where its centre is drawn (a half-space's: its gizmo's, the plane point nearest the origin)
    glm::vec3 px =
        view.camera.project(render::to_glm(obstacle_gizmo_pose(app.obstacles[i]).p), view.rect);
    e["screen"] = json::array({px.x, px.y, px.z});
    obstacles.push_back(e);
  }
  d["obstacles"] = obstacles;
  d["selection"] = {
      {"objective", app.selection.objective},
      {"obstacle", app.selected_obstacle() >= 0 ? json(app.obstacles[app.selected_obstacle()].name)
                                                : json(nullptr)},
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
  solver["settling"] = st.settling;
  solver["ran"] = st.ran;
  solver["stalled_frames"] = st.stalled_frames;
  solver["as_opened"] = st.as_opened;
  solver["solve_iterations"] = st.iterations;  // "iterations" is the setting
  solver["total_iterations"] = st.total_iterations;
  solver["seed"] = st.seed;
  solver["cost"] = st.cost;
  solver["position_error"] = st.position_error;
  solver["rotation_error"] = st.rotation_error;
  solver["solve_ms"] = st.solve_ms;
  solver["frame_step"] = app.frame_step;
  solver["frame_budget_ms"] = app.frame_budget_ms;
  const BudgetStatus& b = st.budget;
  solver["budget"] = {{"on", b.on},
                      {"budget_ms", b.budget_ms},
                      {"warm_ms", b.warm_ms},
                      {"warm_iterations", b.warm_iterations},
                      {"warm_damping", b.warm_damping},
                      {"stopped_converged", b.stopped_converged},
                      {"pool_seeds", b.pool_seeds},
                      {"pool_ms", b.pool_ms},
                      {"pool_iterations", b.pool_iterations},
                      {"left_ms", b.left_ms},
                      {"pool_generation", b.pool_generation},
                      {"pool_seed_iterations", b.pool_seed_iterations}};
  json held = json::array();
  for (int j : st.step_bound) held.push_back(app.model ? app.model->joint_name[j] : "?");
  solver["step_bound"] = held;
  solver["explain_ms"] = st.explain_ms;
  solver["explain_solves"] = st.explain_solves;
  solver["explanations"] = st.explanations;
  solver["explanations_stopped"] = st.explanations_stopped;
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
      {"obstacle", view.gizmo_obstacle(app)},
      {"mode", view.effective_mode(app) == render::GizmoMode::kTranslate ? "translate" : "rotate"},
      {"space", view.gizmo.space == render::GizmoSpace::kWorld ? "world" : "local"},
      {"dragging", view.gizmo.dragging()}};

  d["gl_errors"] = render::gl_error_count();
  d["gl_error_messages"] = render::gl_error_messages();
  json messages = json::array();
  for (const Message& m : app.messages)
    messages.push_back({{"level", level_name(m.level)}, {"text", m.text}, {"frame", m.frame}});
  d["messages"] = messages;
  const Message* banner = app.banner_error();
  d["error_banner"] = banner ? json(banner->text) : json(nullptr);
  d["timeline"] = timeline_dump(app);
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
