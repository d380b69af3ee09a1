// Overlays of the tolerance and balance kinds: the support polygon on the floor with the centre
// of mass's projection (green inside, red outside), the position box at its target frame, the
// orientation cone about the target's z axis with the link's z axis, and the velocity ellipsoid
// of a manipulability objective's link point.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "app/gui/visuals.hpp"
#include "engine/render/glm_convert.hpp"
#include "solver/objectives.hpp"

namespace ikwb::gui {

namespace {

const glm::vec4 kInside(0.35f, 0.85f, 0.45f, 0.95f);
const glm::vec4 kOutside(0.95f, 0.3f, 0.25f, 0.95f);
const glm::vec4 kSwitchedOff(0.6f, 0.6f, 0.6f, 0.7f);

glm::vec3 at(const Transform<double>& x, Vec3<double> p) {
  return render::to_glm(transform_point(x, p));
}

void support_polygon(render::Overlay& ov, const Model& m, const WorkbenchObjective& o,
                     const std::vector<Transform<double>>& body_q, double tol) {
  const auto& pts = o.spec.points;
  const int n = std::min(int(pts.size()), kMaxContactPoints);
  if (n == 0) return;
  std::vector<Vec3<double>> world(kMaxContactPoints);
  std::vector<int> hull(kMaxContactPoints);
  int h = support_hull(pts.data(), n, body_q.data(), world.data(), hull.data());
  double floor = world[0].z;
  for (int i = 1; i < n; ++i) floor = std::min(floor, world[i].z);
  Vec3<double> c = center_of_mass(m.view(), body_q.data());
  // switched off (the balance_vs_reach demo's "balance off"), the polygon is grey and the
  // centre of mass says by its colour whether it is over it (margin aside): it was not drawn
  bool inside = o.status.violation <= tol;
  if (!o.enabled() && h >= 3) {
    for (int e = 0; e < h && inside; ++e)
      inside = cross2(world[hull[e]], world[hull[(e + 1) % h]], c) >= 0;
  } else if (!o.enabled()) {
    // a point or a segment (two feet of one sphere each): on it
    const Vec3<double>&a = world[hull[0]], &b = world[hull[h - 1]];
    const double t = segment_param_xy(a, b, c);
    inside = std::hypot(a.x + t * (b.x - a.x) - c.x, a.y + t * (b.y - a.y) - c.y) <= tol;
  }
  const glm::vec4 col = inside ? kInside : kOutside;
  std::vector<glm::vec3> ring;
  for (int e = 0; e < h; ++e)
    ring.push_back(render::to_glm(Vec3<double>{world[hull[e]].x, world[hull[e]].y, floor}));
  ov.polyline(ring, o.enabled() ? col : kSwitchedOff, 2.5f, h > 2, false);
  for (int i = 0; i < n; ++i) ov.point(render::to_glm(world[i]), glm::vec4(0.9f), 5.0f, false);
  glm::vec3 cg = render::to_glm(c), ground(cg.x, cg.y, float(floor));
  ov.line(cg, ground, glm::vec4(glm::vec3(col), 0.5f), 1.0f, false);
  ov.point(ground, col, 9.0f, false);
  ov.point(cg, glm::vec4(1.0f, 1.0f, 1.0f, 0.9f), 7.0f, false);
}

void position_box(render::Overlay& ov, const WorkbenchObjective& o, float wpp) {
  const ObjectiveParams<double>& p = o.spec.params;
  // open sides are drawn 40 px out from the target
  const double open = 40.0 * wpp;
  Vec3<double> lo, hi;
  for (int k = 0; k < 3; ++k) {
    lo[k] = std::isfinite(p.box_lower[k]) ? p.box_lower[k] : -open;
    hi[k] = std::isfinite(p.box_upper[k]) ? p.box_upper[k] : open;
  }
  glm::vec3 c[8];
  for (int i = 0; i < 8; ++i)
    c[i] = at(o.target, {i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z});
  const glm::vec4 col = o.status.violation > 0 ? kOutside : kInside;
  std::vector<glm::vec3> edges;
  for (int i = 0; i < 8; ++i)
    for (int bit : {1, 2, 4})
      if (!(i & bit)) edges.push_back(c[i]), edges.push_back(c[i | bit]);
  ov.lines(edges, {col}, 1.5f, false);
}

void orientation_cone(render::Overlay& ov, const WorkbenchObjective& o,
                      const std::vector<Transform<double>>& body_q, float wpp) {
  const ObjectiveParams<double>& p = o.spec.params;
  if (p.link < 0 || p.link >= int(body_q.size())) return;
  const float len = 70.0f * wpp;
  glm::vec3 origin = render::to_glm(body_q[p.link].p);
  glm::vec3 want = render::to_glm(rotate(o.target.q, Vec3<double>{0, 0, 1}));
  glm::vec3 have = render::to_glm(rotate(body_q[p.link].q, Vec3<double>{0, 0, 1}));
  const glm::vec4 col = o.status.violation > 0 ? kOutside : kInside;
  ov.line(origin, origin + len * want, glm::vec4(glm::vec3(col), 0.45f), 1.5f, false);
  float cone = float(std::min(p.cone, 1.5));
  ov.circle(origin + len * std::cos(cone) * want, want, len * std::sin(cone),
            glm::vec4(glm::vec3(col), 0.7f), 1.5f, false);
  ov.line(origin, origin + len * have, col, 2.5f, false);
}

// the velocity ellipsoid {J qd : |qd| = 1} of the link point, 0.2 s of motion at unit joint
// speed: three principal ellipses
void manipulability_ellipsoid(render::Overlay& ov, const Model& m, const WorkbenchObjective& o,
                              const std::vector<Transform<double>>& body_q) {
  const ObjectiveParams<double>& p = o.spec.params;
  if (p.link < 0 || p.link >= int(body_q.size())) return;
  const int nv = m.dof_count;
  Vec3<double> x = transform_point(body_q[p.link], p.offset);
  std::vector<double> J(3 * std::size_t(nv));
  point_jacobian(m.view(), body_q.data(), p.link, x, J.data(), (double*)nullptr, nv);
  Eigen::Map<Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>> Jm(J.data(), 3, nv);
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(Jm * Jm.transpose());
  Eigen::Vector3d radius = 0.2 * eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  Eigen::Matrix3d axes = eig.eigenvectors();
  const glm::vec4 col = o.status.violation > 0 ? kOutside : glm::vec4(0.55f, 0.75f, 1.0f, 0.9f);
  glm::vec3 c = render::to_glm(x);
  for (int a = 0; a < 3; ++a) {
    int b = (a + 1) % 3;
    std::vector<glm::vec3> ring;
    for (int s = 0; s < 48; ++s) {
      double t = 2.0 * M_PI * s / 48.0;
      Eigen::Vector3d v =
          radius[a] * std::cos(t) * axes.col(a) + radius[b] * std::sin(t) * axes.col(b);
      ring.push_back(c + glm::vec3(float(v.x()), float(v.y()), float(v.z())));
    }
    ov.polyline(ring, col, 1.5f, true, false);
  }
}

}  // namespace

void draw_whole_body_overlays(render::Overlay& ov, const render::Camera& cam,
                              const render::Viewport& rect, const AppState& app) {
  const Model& m = *app.model;
  const auto& body_q = app.fk.body_q;
  if (int(body_q.size()) != m.body_count) return;
  for (const WorkbenchObjective& o : app.objectives) {
    if (!o.enabled() && o.type() != ObjectiveType::kSupportPolygon) continue;
    switch (o.type()) {
      case ObjectiveType::kSupportPolygon:
        support_polygon(ov, m, o, body_q, app.settings.tol_constraint);
        break;
      case ObjectiveType::kPositionBox:
        position_box(ov, o, cam.world_per_pixel(render::to_glm(o.target.p), rect));
        break;
      case ObjectiveType::kOrientationCone:
        if (o.link() >= 0 && o.link() < m.body_count)
          orientation_cone(ov, o, body_q,
                           cam.world_per_pixel(render::to_glm(body_q[o.link()].p), rect));
        break;
      case ObjectiveType::kManipulability:
        manipulability_ellipsoid(ov, m, o, body_q);
        break;
      default:
        break;
    }
  }
}

}  // namespace ikwb::gui
