// Row math of support_polygon (issue 15), __host__ __device__, included by solver/objectives.hpp.
//
// The support polygon is the convex hull, in the world xy plane, of the objective's contact
// points (points on links, so it moves with the feet). The centre of mass projected along world
// z must stay inside it, `margin` from every edge. One inequality row per contact point: the row
// of point i belongs to the hull edge that starts at point i (counter-clockwise), so a row keeps
// its edge (and a hard constraint its multiplier) while the hull's shape holds:
//   g_i = n . (c - a) + margin   (n: the edge's outward unit normal, a: point i, c: the CoM)
// Rows of points that are not hull vertices read -1 (inactive). With fewer than three hull
// vertices (the points are collinear: one foot edge, or a single point) row h0 holds the
// distance from c to that segment or point (the margin cannot apply to a polygon without area).
//
// Jacobian of an edge row (edge a -> b, length L, unit t = (b - a) / L, n = (t_y, -t_x),
// w = c - a, u = (-w_y, w_x), u' = (u - (t . u) t) / L):
//   dg = n . dc + (-n - u') . da + u' . db
// (dn . w = dt . u and dt = (I - t t^T)(db - da) / L). Each term is the projection of a point's
// Jacobian on a horizontal direction.
#pragma once

#include "engine/core/row_kinematics.hpp"
#include "solver/objective_whole_body.hpp"
#include "solver/row_terms.hpp"

namespace ikwb {

// A point on a link (link frame), e.g. a support_polygon contact point.
template <class T>
struct LinkPoint {
  int link = -1;
  Vec3<T> offset = {0, 0, 0};
};

// the most contact points one support_polygon objective may have (a bound for the row math's
// stack arrays)
constexpr int kMaxContactPoints = 32;

template <class S>
IKWB_HD S cross2(const Vec3<S>& o, const Vec3<S>& a, const Vec3<S>& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Counter-clockwise convex hull (gift wrapping) of the xy of points xy[0..n); collinear points
// on an edge are skipped, and so are vertices where the boundary turns by less than
// kHullStraight radians (the vertex then lies within 1e-3 of its edges' length of the straight
// edge that replaces it: 0.1 mm on a foot). Two feet side by side put four corners on one front
// line, and the last bits of their poses (or a 1e-7 step of the solve) made the middle ones hull
// vertices or not from one iterate to the next; each such vertex splits the front edge into two
// rows of the same value, so the cost of a centre of mass past that line doubled or halved with a
// step of 1e-7 and the LM rejected every step there (the balance_vs_reach demo's soft balance
// stuck at four times the cost a long solve reaches). A triangle goes the same way: three contacts
// on one line (a sole's edge) keep a middle point a rounding off the line, and that sliver's
// edges all run along the line, so a CoM far past its end read as a violation of 1e-8 m; as a
// segment its distance is the distance to the line's end. Writes vertex indices to hull; returns
// the vertex count.
constexpr double kHullStraight = 1e-3;
template <class S>
IKWB_HD int convex_hull_xy(const Vec3<S>* xy, int n, int* hull) {
  if (n <= 0) return 0;
  int start = 0;
  for (int i = 1; i < n; ++i)
    if (xy[i].x < xy[start].x || (xy[i].x == xy[start].x && xy[i].y < xy[start].y)) start = i;
  int h = 0, cur = start;
  do {
    hull[h++] = cur;
    int next = cur == 0 ? (n > 1 ? 1 : 0) : 0;
    for (int i = 0; i < n; ++i) {
      if (i == cur) continue;
      S turn = cross2(xy[cur], xy[next], xy[i]);
      Vec3<S> dn = xy[next] - xy[cur], di = xy[i] - xy[cur];
      // i is clockwise of next, or on the same ray and farther: it wraps tighter
      if (next == cur || turn < S(0) ||
          (turn == S(0) && di.x * di.x + di.y * di.y > dn.x * dn.x + dn.y * dn.y))
        next = i;
    }
    cur = next;
  } while (cur != start && h < n);
  // the vertices where the boundary turns by less than kHullStraight, one at a time (|turn| =
  // |ab| |bc| sin of the angle it turns by at b; a vertex dropped changes its neighbours' turns)
  const S straight = S(kHullStraight);
  for (int v = 0; h > 2 && v < h;) {
    const Vec3<S>& a = xy[hull[(v + h - 1) % h]];
    const Vec3<S>& b = xy[hull[v]];
    const Vec3<S>& c = xy[hull[(v + 1) % h]];
    const S turn = cross2(a, b, c);
    const S ab = (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y);
    const S bc = (c.x - b.x) * (c.x - b.x) + (c.y - b.y) * (c.y - b.y);
    if (turn * turn > straight * straight * ab * bc) {
      ++v;
      continue;
    }
    for (int k = v; k + 1 < h; ++k) hull[k] = hull[k + 1];
    --h;
    v = 0;
  }
  // drop a zero-length hull (every point at one place) down to one vertex
  if (h == 2 && xy[hull[0]].x == xy[hull[1]].x && xy[hull[0]].y == xy[hull[1]].y) h = 1;
  return h;
}

// The contact points in world coordinates (z kept) and their hull; returns the hull size.
template <class T, class S>
IKWB_HD int support_hull(const LinkPoint<T>* pts, int n, const Transform<S>* body_q, Vec3<S>* world,
                         int* hull) {
  if (n > kMaxContactPoints) n = kMaxContactPoints;
  for (int i = 0; i < n; ++i)
    world[i] = transform_point(body_q[pts[i].link], cast<S>(pts[i].offset));
  return convex_hull_xy(world, n, hull);
}

// f(e, a, dx, dy, len) for each edge e of the hull of h vertices (support_hull) of non-zero
// length: from a = world[hull[e]] to b, the next vertex counter-clockwise, (dx, dy) = b - a in xy
// (an edge of no length keeps no row)
template <class S, class F>
IKWB_HD void for_each_hull_edge(const Vec3<S>* world, const int* hull, int h, F f) {
  for (int e = 0; e < h; ++e) {
    const Vec3<S>& a = world[hull[e]];
    const Vec3<S>& b = world[hull[(e + 1) % h]];
    S dx = b.x - a.x, dy = b.y - a.y;
    S len = sqrt(dx * dx + dy * dy);
    if (len > S(0)) f(e, a, dx, dy, len);
  }
}

// closest point parameter of c on segment a-b (xy), clamped to [0, 1]
template <class S>
IKWB_HD S segment_param_xy(const Vec3<S>& a, const Vec3<S>& b, const Vec3<S>& c) {
  S dx = b.x - a.x, dy = b.y - a.y;
  S len2 = dx * dx + dy * dy;
  if (!(len2 > S(0))) return S(0);
  S tau = ((c.x - a.x) * dx + (c.y - a.y) * dy) / len2;
  return tau < S(0) ? S(0) : (tau > S(1) ? S(1) : tau);
}

// The rows (n of them, see the header comment) for CoM c, from the contact points' world
// positions and their hull of h vertices (support_hull). margin in m.
template <class T, class S>
IKWB_HD void support_rows(const Vec3<S>* world, const int* hull, int h, int n, T margin,
                          const Vec3<S>& c, S* r) {
  for (int i = 0; i < n; ++i) r[i] = S(-1);
  if (h == 0) return;
  if (h < 3) {
    const Vec3<S>& a = world[hull[0]];
    const Vec3<S>& b = world[hull[h - 1]];
    S tau = segment_param_xy(a, b, c);
    S dx = c.x - (a.x + tau * (b.x - a.x)), dy = c.y - (a.y + tau * (b.y - a.y));
    r[hull[0]] = sqrt(dx * dx + dy * dy);
    return;
  }
  for_each_hull_edge(world, hull, h, [&](int e, const Vec3<S>& a, S dx, S dy, S len) {
    r[hull[e]] = (dy * (c.x - a.x) - dx * (c.y - a.y)) / len + S(margin);
  });
}

// The rows for CoM c at body poses body_q.
template <class T, class S>
IKWB_HD void support_residual(const LinkPoint<T>* pts, int n, T margin, const Transform<S>* body_q,
                              const Vec3<S>& c, S* r) {
  Vec3<S> world[kMaxContactPoints] = {};  // (initialised for GCC, which cannot see n >= 1)
  int hull[kMaxContactPoints] = {};
  const int h = support_hull(pts, n, body_q, world, hull);
  support_rows(world, hull, h, n, margin, c, r);
}

// The contact point terms of support rows on one link. A point x moving with its link adds
// dir . dx to its row; for a column of axis s through anchor o that is s . ((x - o) x dir)
// (angular) or s . dir (linear), so a row's points on one link sum to s . (tau - o x f) and s . f
// with f = sum dir, tau = sum x x dir. One walk up the link's chain then serves every row.
template <class S>
struct ContactColumns {
  S* J = nullptr;
  int ld = 0;
  int n = 0;  // rows with a term on the link
  int row[kMaxContactPoints];
  Vec3<S> f[kMaxContactPoints], tau[kMaxContactPoints];
  IKWB_HD void add(int r, const Vec3<S>& x, const Vec3<S>& dir) {
    int k = 0;
    while (k < n && row[k] != r) ++k;
    if (k == n) {
      row[n] = r;
      f[n] = zero3<S>();
      tau[n] = zero3<S>();
      ++n;
    }
    f[k] = f[k] + dir;
    tau[k] = tau[k] + cross(x, dir);
  }
  IKWB_HD void operator()(int dof, bool angular, const Vec3<S>& axis, const Vec3<S>& anchor,
                          S scale) {
    for (int k = 0; k < n; ++k) {
      const S v = angular ? dot(axis, tau[k] - cross(anchor, f[k])) : dot(axis, f[k]);
      J[row[k] * ld + dof] += scale * v;
    }
  }
};

// Calls f(row, point, dir) for each term of the rows (the header comment's dg, a term adding
// dir . dx for point x): point -1 for the centre of mass's term, else the contact point's index.
// From the contact points' world positions, their hull of h vertices (support_hull) and CoM c.
template <class S, class F>
IKWB_HD void support_row_terms(const Vec3<S>* world, const int* hull, int h, const Vec3<S>& c,
                               F f) {
  if (h == 0) return;
  if (h < 3) {
    const Vec3<S>& a = world[hull[0]];
    const Vec3<S>& b = world[hull[h - 1]];
    S tau = segment_param_xy(a, b, c);
    Vec3<S> d{c.x - (a.x + tau * (b.x - a.x)), c.y - (a.y + tau * (b.y - a.y)), S(0)};
    S len = length(d);
    if (!(len > S(0))) return;
    Vec3<S> nd = (S(1) / len) * d;
    f(hull[0], -1, nd);
    f(hull[0], hull[0], -(S(1) - tau) * nd);
    f(hull[0], hull[h - 1], -tau * nd);
    return;
  }
  for_each_hull_edge(world, hull, h, [&](int e, const Vec3<S>& a, S dx, S dy, S len) {
    Vec3<S> normal{dy / len, -dx / len, S(0)};  // outward
    Vec3<S> t{dx / len, dy / len, S(0)};
    Vec3<S> u{-(c.y - a.y), c.x - a.x, S(0)};
    Vec3<S> up = (S(1) / len) * (u - dot(t, u) * t);
    f(hull[e], -1, normal);
    f(hull[e], hull[e], -(normal + up));
    f(hull[e], hull[(e + 1) % h], up);
  });
}

// Jacobian rows (n x dof_count, leading dimension ld, zeroed by the caller) of support_residual.
// acc: a ColumnAccumulator (solver/objectives.hpp) with ld set, for the CoM's Jacobian. With a
// polygon (n >= 3 rows) the CoM's Jacobian is computed once, into rows 0..2 as scratch, and each
// edge row takes its horizontal projection from there: one walk over the bodies, not one per edge.
// The contact points' terms take one walk up each foot's chain (ContactColumns). r (or null)
// receives the rows of support_residual too, from the same hull.
template <class T, class Acc>
IKWB_HD void support_jacobian(const ModelView<T>& m, const LinkPoint<T>* pts, int n,
                              const Transform<T>* body_q, const Vec3<T>& c, T* J, Acc& acc,
                              T margin = T(0), T* r = nullptr) {
  Vec3<T> world[kMaxContactPoints] = {};  // (initialised for GCC, which cannot see n >= 1)
  int hull[kMaxContactPoints] = {};
  int h = support_hull(pts, n, body_q, world, hull);
  if (r) support_rows(world, hull, h, n, margin, c, r);
  if (h == 0) return;
  acc.lin = nullptr;
  acc.ang = nullptr;
  auto terms = [&](auto&& f) { support_row_terms(world, hull, h, c, f); };
  if (h < 3) {
    terms([&](int row, int point, const Vec3<T>& dir) {
      if (point >= 0) return;
      acc.proj = J + row * acc.ld;
      acc.dir = dir;
      center_of_mass_jacobian(m, body_q, acc);
    });
  } else {
    // each row's n . dc from dc's x and y rows (rows 0 and 1, cleared before the edge rows,
    // some of which may be rows 0 to 2, are written)
    Vec3<T> com_dir[kMaxContactPoints];
    for (int i = 0; i < kMaxContactPoints; ++i) com_dir[i] = zero3<T>();
    terms([&](int row, int point, const Vec3<T>& dir) {
      if (point < 0 && row >= 0 && row < kMaxContactPoints) com_dir[row] = dir;  // row: a vertex
    });
    acc.proj = nullptr;
    acc.lin = J;
    center_of_mass_jacobian(m, body_q, acc);
    acc.lin = nullptr;
    for (int a = 0; a < m.dof_count; ++a) {
      const T cx = J[a], cy = J[acc.ld + a];
      for (int k = 0; k < 3; ++k) J[k * acc.ld + a] = T(0);
      for (int e = 0; e < h; ++e)
        J[hull[e] * acc.ld + a] = com_dir[hull[e]].x * cx + com_dir[hull[e]].y * cy;
    }
  }
  // the point terms of every row, then each link's chain walked once
  for (int i = 0; i < h; ++i) {
    const int link = pts[hull[i]].link;
    bool seen = false;
    for (int k = 0; k < i; ++k) seen = seen || pts[hull[k]].link == link;
    if (seen) continue;
    ContactColumns<T> cols;
    cols.J = J;
    cols.ld = acc.ld;
    terms([&](int row, int point, const Vec3<T>& dir) {
      if (point >= 0 && pts[point].link == link) cols.add(row, world[point], dir);
    });
    visit_body_columns(m, body_q, link, cols);
  }
}

// The raw rows of support_residual into r and each row's terms (row_terms.hpp) into terms (n).
template <class T>
IKWB_HD void support_terms(const LinkPoint<T>* pts, int n, T margin, const Transform<T>* body_q,
                           const Vec3<T>& c, T* r, RowTerms<T>* terms) {
  Vec3<T> world[kMaxContactPoints] = {};  // (initialised for GCC, which cannot see n >= 1)
  int hull[kMaxContactPoints] = {};
  int h = support_hull(pts, n, body_q, world, hull);
  support_rows(world, hull, h, n, margin, c, r);
  for (int i = 0; i < n; ++i) terms[i].clear();
  support_row_terms(world, hull, h, c, [&](int row, int point, const Vec3<T>& dir) {
    terms[row].add(point < 0 ? -1 : pts[point].link, point < 0 ? c : world[point], dir);
  });
}

}  // namespace ikwb
