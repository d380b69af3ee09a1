// Collision overlays: every link's capsules (translucent, at the current FK) and the pairs
// closer than the margin from AppState::collisions (computed once a frame by evaluate()): the
// closest-point segment orange for a near pair, red for a penetrating one, and the capsules of
// both links of a penetrating pair in red. Pairs are drawn once collisions matter (a collision
// objective, obstacles, or the shapes shown).
#include <algorithm>
#include <vector>

#include "app/gui/visuals.hpp"
#include "engine/render/glm_convert.hpp"

namespace ikwb::gui {

namespace {

const glm::vec4 kClear(0.45f, 0.72f, 1.0f, 1.0f);
const glm::vec4 kNear(1.0f, 0.58f, 0.12f, 1.0f);
const glm::vec4 kPenetrating(0.95f, 0.2f, 0.15f, 1.0f);

// per body: 0 clear, 1 in a near pair, 2 in a penetrating pair
std::vector<int> body_states(const AppState& app) {
  std::vector<int> state(app.model->body_count, 0);
  const CollisionStatus& c = app.collisions;
  for (const BodyDistance& d : c.pairs) {
    if (d.contact.distance >= c.margin) continue;
    int s = d.contact.distance < 0 ? 2 : 1;
    for (int b : {d.body_a, d.body_b})
      if (b >= 0 && b < int(state.size())) state[b] = std::max(state[b], s);
  }
  return state;
}

}  // namespace

glm::vec4 collision_color(double distance, double margin, float alpha) {
  glm::vec4 c = distance < 0        ? kPenetrating
                : distance < margin ? kNear
                                    : glm::vec4(0.75f, 0.77f, 0.8f, 1.0f);
  c.a = alpha;
  return c;
}

std::string collision_pair_label(const AppState& app, const BodyDistance& d) {
  if (!app.model) return "";
  const Model& m = *app.model;
  auto body = [&](int b) { return b >= 0 && b < m.body_count ? m.body_name[b] : std::string("?"); };
  if (d.obstacle >= 0) {
    const auto& names = app.collision_world().obstacle_names;
    return body(d.body_a) + " - obstacle " +
           (d.obstacle < int(names.size()) ? names[d.obstacle] : std::to_string(d.obstacle));
  }
  return body(d.body_a) + " - " + body(d.body_b);
}

void draw_collision_overlays(render::Overlay& ov, const AppState& app,
                             const VisualOptions& options) {
  if (!app.model || !(options.collision_shapes || options.near_collisions)) return;
  const auto& body_q = app.fk.body_q;
  if (int(body_q.size()) != app.model->body_count) return;
  const CollisionWorld& w = app.collision_world();
  // near and penetrating pairs count once collisions matter: with a collision objective, with
  // obstacles, or with the shapes shown (the conservative capsules of a robot without either,
  // a gripper's fingers for one, may overlap at rest)
  const bool pairs = options.near_collisions &&
                     (options.collision_shapes || !w.obstacles.empty() || app.collisions.objective);
  const std::vector<int> state = pairs ? body_states(app) : std::vector<int>(body_q.size(), 0);

  // capsules: all of them with the toggle, else those of penetrating pairs
  for (const LinkCapsule<double>& c : w.capsules) {
    if (c.body < 0 || c.body >= int(body_q.size())) continue;
    const int s = state[c.body];
    if (!options.collision_shapes && s != 2) continue;
    glm::vec4 col = s == 2   ? glm::vec4(glm::vec3(kPenetrating), 0.45f)
                    : s == 1 ? glm::vec4(glm::vec3(kNear), 0.32f)
                             : glm::vec4(glm::vec3(kClear), 0.2f);
    glm::vec3 a = render::to_glm(transform_point(body_q[c.body], c.p0));
    glm::vec3 b = render::to_glm(transform_point(body_q[c.body], c.p1));
    ov.capsule(a, b, float(c.radius), col, true, 16);
  }

  // the closest-point segments of the pairs within the margin, on top of everything
  if (!pairs) return;
  const CollisionStatus& cs = app.collisions;
  for (const BodyDistance& d : cs.pairs) {
    if (d.contact.distance >= cs.margin) continue;
    glm::vec4 col = collision_color(d.contact.distance, cs.margin);
    glm::vec3 a = render::to_glm(d.contact.point_a), b = render::to_glm(d.contact.point_b);
    ov.line(a, b, col, 3.0f, false);
    ov.points({a, b}, {col}, 7.0f, false);
  }
}

}  // namespace ikwb::gui
