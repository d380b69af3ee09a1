#include "app/gui/timeline_view.hpp"

#include <algorithm>

#include "engine/render/glm_convert.hpp"
#include "solver/objective_report.hpp"

namespace ikwb::gui {

namespace {
constexpr float kKeyGhostAlpha = 0.22f;
const glm::vec4 kKeyGhostTint{0.95f, 0.75f, 0.25f, 0.55f};
const glm::vec4 kSelectedKeyTint{1.0f, 0.55f, 0.1f, 0.7f};
const glm::vec4 kPathColor{0.95f, 0.8f, 0.3f, 0.9f};
const glm::vec4 kFlaggedColor{1.0f, 0.3f, 0.25f, 1.0f};

int tool_objective(const AppState& app) {
  for (int i = 0; i < int(app.objectives.size()); ++i)
    if (app.objectives[i].has_target_position() && app.objectives[i].link() >= 0) return i;
  return -1;
}
}  // namespace

std::vector<int> key_ghosts_shown(const Timeline& timeline, double playhead, int selected) {
  const int n = int(timeline.keys.size());
  std::vector<int> shown;
  int first = 0, count = n;
  if (n > kMaxKeyGhosts) {
    // a window of keys around the first at or after the playhead
    const auto at = std::lower_bound(timeline.keys.begin(), timeline.keys.end(), playhead,
                                     [](const Keyframe& k, double t) { return k.time < t; });
    first = std::clamp(int(at - timeline.keys.begin()) - kMaxKeyGhosts / 2, 0, n - kMaxKeyGhosts);
    count = kMaxKeyGhosts;
  }
  if (selected >= 0 && selected < first) shown.push_back(selected);
  for (int k = first; k < first + count; ++k) shown.push_back(k);
  if (selected >= first + count && selected < n) shown.push_back(selected);
  return shown;
}

void TimelineView::update(const AppState& app) {
  const TimelineState& t = app.timeline;
  if (serial_ == t.serial && rendered_ == t.rendered_serial && model_ == app.model_version) return;
  serial_ = t.serial;
  rendered_ = t.rendered_serial;
  model_ = app.model_version;
  const Model& m = *app.model;
  State fk(m);
  key_body_q_.assign(t.timeline.keys.size(), {});
  for (std::size_t k = 0; k < t.timeline.keys.size(); ++k) {
    if (int(t.timeline.keys[k].q.size()) != m.coord_count) continue;
    eval_fk(m, t.timeline.keys[k].q, {}, fk);
    key_body_q_[k] = fk.body_q;
  }
  path_.clear();
  path_ok_.clear();
  const int tool = tool_objective(app);
  const bool rendered = t.rendered_serial == t.serial && t.render_error.empty();
  if (tool < 0 || !rendered || t.trajectory.coord_count != m.coord_count) return;
  const ObjectiveParams<double>& p = app.objectives[tool].spec.params;
  const Trajectory& tr = t.trajectory;
  for (std::size_t i = 0; i < tr.sample_count(); ++i) {
    eval_fk(m, std::vector<double>(tr.row(i), tr.row(i) + tr.coord_count), {}, fk);
    path_.push_back(render::to_glm(objective_point(m, p, fk.body_q).p));
    path_ok_.push_back(tr.converged[i]);
  }
}

void TimelineView::draw_ghosts(render::Renderer& r, const AppState& app) {
  if (!app.model || !app.timeline.show_ghosts || app.timeline.timeline.keys.empty()) return;
  update(app);
  const TimelineState& t = app.timeline;
  for (int k : key_ghosts_shown(t.timeline, t.playhead, t.selected)) {
    if (k >= int(key_body_q_.size()) || key_body_q_[k].empty()) continue;
    render::DrawStyle s;
    s.alpha = kKeyGhostAlpha;
    s.tint = k == t.selected ? kSelectedKeyTint : kKeyGhostTint;
    r.draw_robot(key_body_q_[k], s);
  }
}

void TimelineView::draw_path(render::Overlay& ov, const AppState& app) {
  if (!app.model || !app.timeline.show_ghosts || app.timeline.timeline.keys.empty()) return;
  update(app);
  if (path_.size() < 2) return;
  std::vector<glm::vec3> points;
  std::vector<glm::vec4> colors;
  for (std::size_t i = 0; i + 1 < path_.size(); ++i) {
    const glm::vec4 c = path_ok_[i] && path_ok_[i + 1] ? kPathColor : kFlaggedColor;
    points.push_back(path_[i]);
    points.push_back(path_[i + 1]);
    colors.push_back(c);
    colors.push_back(c);
  }
  ov.lines(points, colors, 2.0f, false);
}

}  // namespace ikwb::gui
