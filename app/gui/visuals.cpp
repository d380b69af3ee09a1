// Visualisation of residuals, joint limits, seed ghosts, branch edits and velocities.
#include "app/gui/visuals.hpp"
#include "app/gui/length_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/gtc/quaternion.hpp>

#include "engine/render/glm_convert.hpp"

namespace ikwb::gui {

namespace {

constexpr float kGhostAlpha = 0.28f;
const glm::vec4 kGhostConverged{0.35f, 0.65f, 1.0f, 0.6f};
const glm::vec4 kGhostNotConverged{1.0f, 0.45f, 0.35f, 0.6f};

ImU32 im_color(const glm::vec4& c) {
  return ImGui::ColorConvertFloat4ToU32({c.r, c.g, c.b, c.a});
}

// the joint frame in world at the parent's pose
Transform<double> joint_frame(const Model& m, const std::vector<Transform<double>>& body_q,
                              int joint) {
  int parent = m.joint_parent[joint];
  Transform<double> xp = parent >= 0 ? body_q[parent] : transform_identity<double>();
  return xp * m.joint_X_p[joint];
}

// the body the seed ghosts' labels sit at: the one whose position differs most between the
// ghosts, so that each label points at its own ghost (the first target's link, a foot held by a
// hard objective, stacked every label in one column); -1 without ghosts
int label_body(const std::vector<std::vector<Transform<double>>>& ghosts) {
  if (ghosts.empty()) return -1;
  const int nb = int(ghosts[0].size());
  int best = nb - 1;
  double best_spread = -1;
  for (int b = 0; b < nb; ++b) {
    Vec3<double> mean{0, 0, 0};
    for (const auto& g : ghosts) mean = mean + g[b].p;
    mean = (1.0 / double(ghosts.size())) * mean;
    double spread = 0;
    for (const auto& g : ghosts) spread += dot(g[b].p - mean, g[b].p - mean);
    if (spread > best_spread) best = b, best_spread = spread;
  }
  return best;
}

// At a link the solver settled short of its target, one arrow per objective pulling against it
// (SolverDriver's explanation): pointing away from the target, 60 px for the whole error, side
// by side.
void pull_arrows(render::Overlay& ov, const WorkbenchObjective& o, glm::vec3 cur, glm::vec3 tgt,
                 float wpp) {
  const float e = glm::length(cur - tgt);
  if (o.status.pulled_by.empty() || !(e > 0)) return;
  const glm::vec3 back = (cur - tgt) / e;
  const glm::vec3 side = render::any_perpendicular(back);
  const glm::vec4 col(0.75f, 0.45f, 1.0f, 0.95f);
  float offset = 0;
  for (const Pull& p : o.status.pulled_by) {
    const float len = 60.0f * wpp * float(std::min(1.0, p.share / o.status.position_error));
    const glm::vec3 from = cur + offset * side;
    ov.arrow(from, from + len * back, col, 2.5f, std::min(len * 0.4f, 10.0f * wpp), false);
    offset += 8.0f * wpp;
  }
}

}  // namespace

double limit_fraction(const AppState& app, int joint) {
  const Model& m = *app.model;
  if (joint < 0 || joint >= m.joint_count ||
      joint_type_coord_count(JointType(m.joint_type[joint])) != 1 || m.joint_mimic[joint] >= 0)
    return std::nan("");
  int d = m.joint_qd_start[joint];
  double lo = app.dof_lower[d], hi = app.dof_upper[d];
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return std::nan("");
  return (app.joint_q[m.joint_q_start[joint]] - lo) / (hi - lo);
}

bool at_limit(const AppState& app, int joint) {
  double t = limit_fraction(app, joint);
  return std::isfinite(t) && (t <= 1e-6 || t >= 1.0 - 1e-6);
}

float limit_closeness(const AppState& app, int joint) {
  double t = limit_fraction(app, joint);
  return std::isfinite(t) ? float(std::clamp(std::abs(2.0 * t - 1.0), 0.0, 1.0)) : 0.0f;
}

double residual_norm(const WorkbenchObjective& o) {
  const ObjectiveStatus& s = o.status;
  // a hard target's violation is its position and rotation rows again (counted twice, a hard
  // foot's bar read twice its error and jumped when the hand turned hard)
  const ObjectiveKind& kind = o.kind();
  if (kind.position_row >= 0 || kind.rotation_row >= 0)
    return s.position_error + s.rotation_error + s.deviation;
  return s.violation + s.deviation;
}

std::string miss_text(const WorkbenchObjective& o) {
  const ObjectiveKind& kind = o.kind();
  const ObjectiveStatus& st = o.status;
  constexpr double kDeg = 57.29577951308232;
  char buf[64];
  // (a reached objective's error is within the tolerance: not shown in micrometres)
  const std::string position =
      length_text(st.position_error, LengthUnit::kMillimetre, 1, !st.reached);
  if (kind.position_row >= 0 && kind.rotation_row >= 0)
    std::snprintf(buf, sizeof buf, "%s, %.1f deg", position.c_str(), st.rotation_error * kDeg);
  else if (kind.position_row >= 0)
    return position;
  else if (kind.rotation_row >= 0)
    std::snprintf(buf, sizeof buf, "%.1f deg", st.rotation_error * kDeg);
  else if (kind.type == ObjectiveType::kOrientationCone)
    std::snprintf(buf, sizeof buf, "%.1f deg", st.violation * kDeg);
  else if (kind.type == ObjectiveType::kMinDistance || kind.type == ObjectiveType::kSelfCollision ||
           kind.type == ObjectiveType::kWorldCollision ||
           kind.type == ObjectiveType::kSupportPolygon)
    return length_text(st.violation, LengthUnit::kMillimetre, 1);  // distances, in m
  else
    std::snprintf(buf, sizeof buf, "%.3g", st.violation);
  return buf;
}

std::string out_of_reach_text(const WorkbenchObjective& o) {
  const ObjectiveStatus& st = o.status;
  constexpr double kDeg = 57.29577951308232;
  const double reach = st.out_of_reach_by();
  char buf[64];
  const std::string by = length_text(reach, LengthUnit::kCentimetre, 1);
  std::string text = "out of reach by " + by;
  // the error where it reads otherwise (the best effort without the others is nearer)
  const std::string error = length_text(st.position_error, LengthUnit::kCentimetre, 1);
  if (st.position_error > reach && error != by) text += ", " + error + " short";
  if (o.kind().rotation_row >= 0) {
    std::snprintf(buf, sizeof buf, ", %.1f deg off", st.rotation_error * kDeg);
    text += buf;
  }
  return text;
}

glm::vec4 status_color(const WorkbenchObjective& o) {
  if (!o.enabled() || !o.status.pursued) return {0.6f, 0.6f, 0.6f, 0.7f};
  if (o.status.reached) return {0.35f, 0.85f, 0.45f, 1.0f};
  // a target traded off against other objectives, or stopped short of, is reachable: amber,
  // not red
  const bool traded = o.status.explained && reachable(o.status.status);
  return o.status.missed && !traded ? glm::vec4(0.95f, 0.3f, 0.28f, 1.0f)
                                    : glm::vec4(1.0f, 0.72f, 0.25f, 1.0f);
}

glm::vec4 miss_label_color(const WorkbenchObjective& o) {
  // one not pursued (weight 0) is a measure, not a miss: grey
  if (!o.status.pursued) return {0.6f, 0.6f, 0.6f, 0.9f};
  if (o.status.missed) return status_color(o);
  // a hard objective off its target (the timeline or a branch edit sets the joints, or the
  // solver is on its way) is yellow at least, red by its size beyond: a pinned foot sliding 3 mm
  // while a joint-space timeline plays was labelled green, as if it held
  const float t = float(residual_norm(o) / 0.1);
  return magnitude_color(o.spec.params.hard ? std::max(t, 0.5f) : t);
}

glm::vec4 magnitude_color(float t, float alpha) {
  t = std::clamp(t, 0.0f, 1.0f);
  const glm::vec3 green(0.3f, 0.85f, 0.4f), yellow(1.0f, 0.8f, 0.2f), red(0.95f, 0.25f, 0.2f);
  glm::vec3 c = t < 0.5f ? glm::mix(green, yellow, 2.0f * t) : glm::mix(yellow, red, 2.0f * t - 1);
  return glm::vec4(c, alpha);
}

int seed_count(const AppState& app) {
  if (!app.model) return 0;
  const SolveResult& r = app.last_result;
  int nq = app.model->coord_count;
  int rows = nq > 0 ? int(r.row_q.size()) / nq : 0;
  return std::min({r.n_seeds, rows, int(r.row_cost.size()), int(r.row_converged.size())});
}

std::vector<double> seed_q(const AppState& app, int k) {
  int nq = app.model->coord_count;
  return std::vector<double>(app.last_result.row_q.begin() + std::ptrdiff_t(k) * nq,
                             app.last_result.row_q.begin() + std::ptrdiff_t(k + 1) * nq);
}

bool adopt_seed(AppState& app, int k) {
  if (k < 0 || k >= seed_count(app)) return false;
  if (app.branch.active) end_branch_edit(app);
  app.set_configuration(seed_q(app, k));
  // the solve goes on from this seed's branch (the warm start), not back to another seed that
  // converged, until the problem changes
  app.hold_adopted = !app.last_result.row_converged[k];
  app.adopted_frame = app.frame;
  // with Targets follow, the posture's rest is the adopted configuration, as for a joint moved
  // by hand: else its null-space steps glide the robot back to the branch it left (a review's
  // humanoid, 0.8 rad within 30 frames of a 3 cm nudge)
  if (app.targets_follow_joints)
    for (int c = 0; c < app.model->coord_count; ++c) app.rest_at(c);
  // an unconverged seed is where that seed stood: a live solve goes on from it, to the nearest
  // answer of that branch (which may be a compromise, a local optimum)
  char text[160];
  const char* state = app.last_result.row_converged[k] ? ", converged"
                      : app.live_solve ? ", not converged: the solve goes on from it"
                                       : ", not converged";
  std::snprintf(text, sizeof text, "adopted seed %d (cost %.3g%s)", k, app.last_result.row_cost[k],
                state);
  app.info(text);
  app.note_edit("adopt seed");
  return true;
}

void Visuals::record(const AppState& app) {
  ResidualSample s;
  s.frame = app.frame;
  for (const WorkbenchObjective& o : app.objectives)
    s.norms.push_back(o.enabled() ? float(residual_norm(o)) : 0.0f);
  s.cost = float(app.solve.cost);
  s.iterations = app.solve.ran ? app.solve.total_iterations : 0;
  history_.push_back(std::move(s));
  while (int(history_.size()) > kHistory) history_.pop_front();

  // ghosts: FK of every seed row, when the rows change
  const int n = seed_count(app);
  if (n == 0) {
    ghosts_.clear();
    ghost_q_.clear();
    return;
  }
  const int nq = app.model->coord_count;
  std::vector<double> rows(app.last_result.row_q.begin(),
                           app.last_result.row_q.begin() + std::ptrdiff_t(n) * nq);
  if (rows == ghost_q_ && ghost_model_ == app.model_version && int(ghosts_.size()) == n) return;
  ghost_q_ = std::move(rows);
  ghost_model_ = app.model_version;
  ghosts_.assign(n, {});
  State st(*app.model);
  for (int k = 0; k < n; ++k) {
    eval_fk(*app.model, seed_q(app, k), {}, st);
    ghosts_[k] = st.body_q;
  }
}

int Visuals::pick_ghost(const render::Picker& picker, const render::Ray& ray, float max_distance,
                        const AppState& app) const {
  if (!options.ghosts) return -1;
  const std::vector<uint8_t>& converged = app.last_result.row_converged;
  int best = -1, best_converged = -1;
  float best_d = max_distance, best_converged_d = max_distance;
  for (int k = 0; k < int(ghosts_.size()); ++k) {
    render::PickHit hit = picker.pick(ray, ghosts_[k]);
    if (!hit.hit()) continue;
    if (hit.distance < best_d) best_d = hit.distance, best = k;
    if (k < int(converged.size()) && converged[k] && hit.distance < best_converged_d)
      best_converged_d = hit.distance, best_converged = k;
  }
  return best_converged >= 0 ? best_converged : best;
}

int Visuals::ghost_label_at(glm::vec2 mouse) const {
  if (!options.ghosts) return -1;
  for (const auto& [k, b] : ghost_labels_)
    if (mouse.x >= b.x - 3 && mouse.x <= b.z + 3 && mouse.y >= b.y && mouse.y <= b.w) return k;
  return -1;
}

void Visuals::style_robot(const AppState& app, render::DrawStyle& style) const {
  if (!app.model) return;
  const Model& m = *app.model;
  if (options.limits) {
    style.body_tint.assign(m.body_count, glm::vec4(0.0f));
    for (int j = 0; j < m.joint_count; ++j) {
      // no tint in the middle half of the range, then green, yellow, red at the limit
      const float c = limit_closeness(app, j);
      if (!std::isfinite(limit_fraction(app, j)) || c <= 0.5f) continue;
      style.body_tint[m.joint_child[j]] = magnitude_color((c - 0.5f) * 2.0f, 0.65f);
    }
  }
  const BranchEdit& b = app.branch;
  if (b.active && int(b.updated.size()) == m.body_count) {
    // updated bodies, and the edited joint's descendants the edit left where they were (the
    // hand kept in place with "descendants follow" off); the rest of the robot, which no edit
    // of this joint moves, as usual
    auto below_edit = [&](int body) {
      for (int j = m.body_joint[body]; j >= 0; j = m.joint_ancestor[j])
        if (j == b.joint) return true;
      return false;
    };
    style.body_highlight.resize(m.body_count, render::kHighlightNone);
    for (int i = 0; i < m.body_count; ++i)
      style.body_highlight[i] = (style.body_highlight[i] & render::kHighlightHover) |
                                (b.updated[i]    ? render::kHighlightUpdated
                                 : below_edit(i) ? render::kHighlightPreserved
                                                 : render::kHighlightNone);
  }
}

void Visuals::draw_ghosts(render::Renderer& r, const AppState& app) const {
  if (!options.ghosts || !app.model) return;
  const SolveResult& res = app.last_result;
  for (int k = 0; k < int(ghosts_.size()); ++k) {
    render::DrawStyle s;
    s.alpha = k == hovered_ghost ? 0.55f : kGhostAlpha;
    s.tint = k < int(res.row_converged.size()) && res.row_converged[k] ? kGhostConverged
                                                                       : kGhostNotConverged;
    if (k == hovered_ghost) s.body_highlight.assign(app.model->body_count, render::kHighlightHover);
    r.draw_robot(ghosts_[k], s);
  }
}

void Visuals::draw_overlays(render::Overlay& ov, const render::Camera& cam,
                            const render::Viewport& rect, const AppState& app) const {
  if (!app.model) return;
  const Model& m = *app.model;
  const auto& body_q = app.fk.body_q;

  if (options.residuals) {
    for (const WorkbenchObjective& o : app.objectives) {
      if (!o.has_target() || !o.enabled()) continue;
      glm::vec3 cur = render::to_glm(o.status.current.p);
      float wpp = cam.world_per_pixel(cur, rect);
      if (o.has_target_position()) {
        glm::vec3 tgt = render::to_glm(o.target.p);
        float e = float(o.status.position_error);
        if (e > 3.0f * wpp)
          ov.arrow(cur, tgt, magnitude_color(e / 0.1f), 3.0f, std::min(e * 0.3f, 14.0f * wpp),
                   false);
        if (o.status.unit == ShareUnit::kMetre) pull_arrows(ov, o, cur, tgt, wpp);
      }
      if (o.has_target_orientation() && o.status.rotation_error > 1e-3) {
        // the rotation taking the link's orientation to the target's, as an arc at the link
        Vec3<double> w = quat_log(o.target.q * conjugate(o.status.current.q));
        double angle = length(w);
        if (angle > 1e-9) {
          glm::vec3 axis = glm::normalize(render::to_glm((1.0 / angle) * w));
          glm::vec3 start = render::any_perpendicular(axis);
          glm::vec4 col = magnitude_color(float(angle / 0.5));
          float radius = 36.0f * wpp;
          ov.arc(cur, axis, start, float(angle), radius, col, 3.0f, false);
          ov.line(cur, cur + radius * start, glm::vec4(glm::vec3(col), 0.5f), 1.5f, false);
          ov.line(cur, cur + radius * glm::angleAxis(float(angle), axis) * start, col, 2.0f, false);
          ov.line(cur, cur + 0.6f * radius * axis, glm::vec4(glm::vec3(col), 0.7f), 1.5f, false);
        }
      }
    }
  }
  // look_at / axis_align: the link's axis as a ray from the link point (to the looked-at
  // point's distance for look_at) and, faint, the wanted direction; coloured by the angle beyond
  // the cone
  for (const WorkbenchObjective& o : app.objectives) {
    if (!o.enabled() || !o.kind().has(kFieldAxis) || o.link() < 0 || o.link() >= int(body_q.size()))
      continue;
    const ObjectiveParams<double>& p = o.spec.params;
    double len = length(p.axis);
    if (!(len > 0)) continue;
    glm::vec3 cur = render::to_glm(o.status.current.p);
    float wpp = cam.world_per_pixel(cur, rect);
    Vec3<double> a = rotate(body_q[o.link()].q, (1.0 / len) * p.axis);
    Vec3<double> want = p.direction;
    float reach = 80.0f * wpp;
    glm::vec4 col = magnitude_color(float(o.status.rotation_error / 0.5));
    if (o.type() == ObjectiveType::kLookAt) {
      // the looked-at point: the target, or the followed point of link_b (marked)
      Vec3<double> at = o.target.p;
      if (p.link_b >= 0 && p.link_b < int(body_q.size())) {
        at = transform_point(body_q[p.link_b], p.offset_b);
        ov.points({render::to_glm(at)}, {glm::vec4(glm::vec3(col), 0.8f)}, 7.0f, false);
      }
      want = at - o.status.current.p;
      reach = float(length(want));
    }
    ov.line(cur, cur + reach * render::to_glm(a), col, 2.5f, false);
    if (length(want) > 0)
      ov.line(cur, cur + reach * render::to_glm((1.0 / length(want)) * want),
              glm::vec4(glm::vec3(col), 0.35f), 1.5f, false);
  }
  draw_whole_body_overlays(ov, cam, rect, app);

  // limit arcs and segments; the branch edit joint's handle (drawn even with limits off)
  const int branch_joint = app.branch.active ? app.branch.joint : -1;
  std::vector<Vec3<double>> zeros;
  for (int j = 0; j < m.joint_count; ++j) {
    const bool limited = std::isfinite(limit_fraction(app, j));
    const bool handle = j == branch_joint && branch_editable(m, j);
    if (!(options.limits && limited) && !handle) continue;
    const JointType type = JointType(m.joint_type[j]);
    const int d = m.joint_qd_start[j];
    const double q = app.joint_q[m.joint_q_start[j]];
    const bool prismatic = type == JointType::kPrismatic;
    const double lo = limited ? app.dof_lower[d] : prismatic ? -0.5 : -M_PI;
    const double hi = limited ? app.dof_upper[d] : prismatic ? 0.5 : M_PI;
    const Transform<double> f = joint_frame(m, body_q, j);
    const glm::vec3 c = render::to_glm(f.p);
    const glm::vec3 axis = glm::normalize(render::to_glm(rotate(f.q, m.joint_axis[j])));
    const float closeness = limit_closeness(app, j);
    glm::vec4 col = magnitude_color(std::max(0.0f, (closeness - 0.5f) * 2.0f));
    if (at_limit(app, j)) col = glm::vec4(1.0f, 0.15f, 0.15f, 1.0f);
    const glm::vec4 range_col(0.6f, 0.75f, 1.0f, handle ? 0.95f : 0.7f);
    if (type == JointType::kRevolute || type == JointType::kContinuous) {
      const float radius = (handle ? kBranchHandlePx : 34.0f) * cam.world_per_pixel(c, rect);
      if (zeros.empty()) zeros = joint_zero_directions(m);
      const glm::vec3 zero = glm::normalize(render::to_glm(rotate(f.q, zeros[j])));
      const glm::vec3 from = glm::angleAxis(float(lo), axis) * zero;
      ov.sector(c, axis, from, float(hi - lo), radius, glm::vec4(0.4f, 0.6f, 0.9f, 0.16f), false);
      ov.arc(c, axis, from, float(hi - lo), radius, range_col, handle ? 2.5f : 1.5f, false);
      if (handle)
        ov.circle(c, axis, radius * 1.08f, glm::vec4(0.35f, 0.9f, 0.45f, 0.8f), 2.0f, false);
      const glm::vec3 now = glm::angleAxis(float(q), axis) * zero;
      ov.line(c, c + radius * now, col, handle ? 4.0f : 3.0f, false);
      ov.point(c + radius * now, col, handle ? 11.0f : 7.0f, false);
    } else if (prismatic) {
      const glm::vec3 a = c + float(lo) * axis, b = c + float(hi) * axis;
      ov.line(a, b, range_col, handle ? 5.0f : 3.0f, false);
      ov.points({a, b}, {range_col}, 6.0f, false);
      ov.point(c + float(q) * axis, col, handle ? 13.0f : 9.0f, false);
    }
  }

  if (options.velocities && app.branch.active) {
    // linear (orange) and angular (violet) velocities, scaled so the fastest body's arrows
    // are 20 and 12 cm long
    const auto& qd = app.branch.state.body_qd;
    const int n = std::min(m.body_count, int(qd.size()));
    float v_max = 0, w_max = 0;
    for (int i = 0; i < n; ++i) {
      v_max = std::max(v_max, float(length(qd[i].lin)));
      w_max = std::max(w_max, float(length(qd[i].ang)));
    }
    for (int i = 0; i < n; ++i) {
      glm::vec3 v = render::to_glm(qd[i].lin), w = render::to_glm(qd[i].ang);
      glm::vec3 p = render::to_glm(transform_point(body_q[i], m.body_com[i]));
      if (glm::length(v) > 1e-6f)
        ov.arrow(p, p + (0.2f / v_max) * v, glm::vec4(1.0f, 0.55f, 0.1f, 1.0f), 2.5f, 0.0f, false);
      if (glm::length(w) > 1e-6f)
        ov.arrow(p, p + (0.12f / w_max) * w, glm::vec4(0.75f, 0.4f, 1.0f, 0.9f), 2.0f, 0.0f, false);
    }
  }
  draw_collision_overlays(ov, app, options);
}

void Visuals::draw_labels(ImDrawList* dl, const render::Camera& cam, const render::Viewport& rect,
                          const AppState& app) const {
  if (!app.model) return;
  char text[96];
  ghost_labels_.clear();
  if (options.ghosts) {
    const int body = label_body(ghosts_);
    const SolveResult& r = app.last_result;
    std::vector<ImVec4> placed;  // label boxes so far: labels move down until they are free
    for (int k = 0; k < int(ghosts_.size()) && body >= 0; ++k) {
      glm::vec3 s = cam.project(render::to_glm(ghosts_[k][body].p), rect);
      if (s.z <= 0 || !rect.contains(glm::vec2(s))) continue;
      const bool ok = r.row_converged[k];
      // the solutions are labelled; a seed that did not converge only while hovered (13 red
      // labels of 16 seeds buried the three solutions)
      if (!ok && k != hovered_ghost) continue;
      std::snprintf(text, sizeof text, "#%d %.2g%s", k, r.row_cost[k], ok ? " converged" : "");
      const ImVec2 size = ImGui::CalcTextSize(text);
      ImVec2 at(s.x + 8, s.y - size.y * 0.5f);
      for (bool moved = true; moved;) {
        moved = false;
        for (const ImVec4& b : placed)
          if (at.x < b.z && at.x + size.x > b.x && at.y < b.w && at.y + size.y > b.y) {
            at.y = b.w + 1;
            moved = true;
          }
      }
      placed.push_back(ImVec4(at.x, at.y, at.x + size.x, at.y + size.y));
      ghost_labels_.push_back({k, placed.back()});
      glm::vec4 c = ok ? kGhostConverged : kGhostNotConverged;
      c.a = k == hovered_ghost ? 1.0f : 0.9f;
      dl->AddRectFilled(ImVec2(at.x - 3, at.y), ImVec2(at.x + size.x + 3, at.y + size.y),
                        IM_COL32(18, 20, 24, 150), 3.0f);
      dl->AddText(at, im_color(c), text);
    }
  }
  if (options.residuals) {
    for (int i = 0; i < int(app.objectives.size()); ++i) {
      const WorkbenchObjective& o = app.objectives[i];
      if (!o.has_target() || !o.enabled() || o.status.reached) continue;
      // the selected objective's status label (Viewport3D::draw_ui) says its miss already, and
      // this one was drawn under it
      if (i == app.selection.objective) continue;
      glm::vec3 s = cam.project(render::to_glm(o.status.current.p), rect);
      if (s.z <= 0 || !rect.contains(glm::vec2(s))) continue;
      std::snprintf(text, sizeof text, "%s", miss_text(o).c_str());
      // on a dark box, as the other labels: drawn over the robot it was unreadable
      const ImVec2 at(s.x + 8, s.y + 8), size = ImGui::CalcTextSize(text);
      dl->AddRectFilled(ImVec2(at.x - 3, at.y), ImVec2(at.x + size.x + 3, at.y + size.y),
                        IM_COL32(18, 20, 24, 150), 3.0f);
      dl->AddText(at, im_color(miss_label_color(o)), text);
    }
  }
}

}  // namespace ikwb::gui
