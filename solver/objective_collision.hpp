// Row math of the collision objective kinds (issue 14): self_collision (the robot's capsules
// against each other) and world_collision (the robot's capsules against the scene's obstacles).
// __host__ __device__, included by solver/objectives.hpp; both backends run it.
//
// Each objective owns kCollisionRows inequality rows, one per capsule pair among the
// kCollisionRows closest ones (self: the enabled capsule pairs of CollisionView::self_pairs;
// world: every capsule of a moving body against every obstacle), sorted by distance:
//   g_k = margin - distance_k <= 0
// with distance_k the signed distance of engine/core/distance.hpp (negative in penetration).
// Rows with no pair (fewer pairs than rows) read -1 and are inactive. Jacobian (analytic, from
// the closest points and the contact normal n, which points from b to a):
//   dg_k = -n . (J_a(point_a) - J_b(point_b))       (J_b = 0 for an obstacle)
// where J_x(p) is the Jacobian of the world point p fixed to body x. A pair that enters or
// leaves the closest set changes which row it uses; the rows' values stay continuous (the k-th
// smallest distance is continuous), so the soft penalty and the constraint are continuous too.
// Only the closest pairs get rows so the row count (and the LM system) stays small whatever the
// number of pairs; with margin > 0 a pair is inactive until it comes within the margin.
#pragma once

#include <cstring>
#include <type_traits>

#include "engine/core/collision_geometry.hpp"
#include "engine/core/distance.hpp"
#include "engine/core/objective_kinds.hpp"
#include "engine/core/row_kinematics.hpp"
#include "solver/row_terms.hpp"

namespace ikwb {

// A pair list's margin (m): a full search lists every pair within the kCollisionRows-th
// smallest distance plus this, and the list answers the searches after it until the capsules
// have moved about half of it (CollisionMemo). Larger lists cost more a search and last longer.
constexpr double kCollisionSkin = 0.02;

// The closest pairs of the last search at one set of body poses, for each of the two pair sets
// (self, world). Host only: the CPU backend keeps one per thread. It saves work three ways.
//  - A search depends only on the poses, so a residual and a Jacobian at the same configuration
//    (LM evaluates the trial point's rows, then, once the step is accepted, the Jacobian there)
//    need one search, not two (the poses are compared bit for bit).
//  - A pair list (a Verlet list): a full search lists the pairs within list_cut, the
//    kCollisionRows-th smallest distance plus kCollisionSkin. Each point of a capsule moves by
//    at most its motion bound (capsule_motion), so a pair's distance changes by at most the sum
//    of its capsules' bounds: while the kCollisionRows-th smallest listed distance stays below
//    list_cut less twice the largest bound, no unlisted pair can be closer, and the listed
//    pairs' exact distances alone give the same answer as a full search.
//  - The pairs of the last search are a full search's first guess (closest_collision_pairs'
//    hint): LM steps move the poses a little at a time.
template <class T>
struct CollisionMemo {
  int body_count = 0;
  Transform<T>* saved[2] = {nullptr, nullptr};  // (body_count each, owned outside) the poses
  bool valid[2] = {false, false};               // of each set's last search, if any
  int pair[2][kCollisionRows];                  // -1 before any search
  T dist[2][kCollisionRows];
  Transform<T>* built[2] = {nullptr, nullptr};  // (body_count each, owned outside) the poses
  bool listed[2] = {false, false};              // each set's list was built at, if any
  int* list[2] = {nullptr, nullptr};  // (list_capacity each, owned outside) the listed pairs
  int list_capacity = 0;              // a set whose pairs do not fit is never listed
  int list_count[2] = {0, 0};
  T* list_dist = nullptr;        // (list_capacity, owned outside) scratch of search_and_list
  T list_cut[2] = {T(0), T(0)};  // every unlisted pair was farther than this
  CollisionMemo() {
    for (int set = 0; set < 2; ++set)
      for (int i = 0; i < kCollisionRows; ++i) pair[set][i] = -1;
  }
  // forgets every search and list (another collision world)
  void clear() { valid[0] = valid[1] = listed[0] = listed[1] = false; }
};

// The collision data the objectives read (host or device memory).
template <class T>
struct CollisionView {
  const LinkCapsule<T>* capsules = nullptr;  // (capsule_count) body frame
  int capsule_count = 0;
  const int* self_pairs = nullptr;  // (self_pair_count x 2) capsule indices
  int self_pair_count = 0;
  const int* world_capsules = nullptr;  // (world_capsule_count) capsules on moving bodies
  int world_capsule_count = 0;
  const CollisionShape<T>* obstacles = nullptr;  // (obstacle_count) world
  int obstacle_count = 0;
  CollisionMemo<T>* memo = nullptr;  // host only, or null: searches reused at the same poses
};

// A view of a host CollisionWorld (valid while it lives) whose capsules and obstacles are given
// in scalar T (the world's own arrays for double, converted copies otherwise).
template <class T>
CollisionView<T> collision_view(const CollisionWorld& w, const LinkCapsule<T>* capsules,
                                const CollisionShape<T>* obstacles) {
  CollisionView<T> v;
  v.capsules = capsules;
  v.capsule_count = int(w.capsules.size());
  v.self_pairs = w.self_pairs.data();
  v.self_pair_count = w.self_pair_count();
  v.world_capsules = w.world_capsules.data();
  v.world_capsule_count = int(w.world_capsules.size());
  v.obstacles = obstacles;
  v.obstacle_count = int(w.obstacles.size());
  return v;
}

inline CollisionView<double> collision_view(const CollisionWorld& w) {
  return collision_view(w, w.capsules.data(), w.obstacles.data());
}

// pair count of a collision objective: self pairs, or capsules x obstacles
template <class T>
IKWB_HD int collision_pair_count(const CollisionView<T>& c, bool self) {
  return self ? c.self_pair_count : c.world_capsule_count * c.obstacle_count;
}

// The world endpoints of capsule i at body poses body_q, computed when read.
template <class T, class S>
struct PoseEnds {
  using Scalar = S;
  const CollisionView<T>& c;
  const Transform<S>* body_q;
  IKWB_HD void operator()(int i, Vec3<S>* p0, Vec3<S>* p1) const {
    const LinkCapsule<T>& a = c.capsules[i];
    *p0 = transform_point(body_q[a.body], cast<S>(a.p0));
    *p1 = transform_point(body_q[a.body], cast<S>(a.p1));
  }
};

// contact of pair k (self: capsule pair; world: capsule k / obstacle_count against obstacle
// k % obstacle_count) from its capsules' world endpoints (ends(i, &p0, &p1));
// *body_a, *body_b: the bodies (-1: an obstacle)
template <class T, class Ends>
IKWB_HD Contact<typename Ends::Scalar> pair_contact(const CollisionView<T>& c, bool self, int k,
                                                    const Ends& ends, int* body_a, int* body_b) {
  using S = typename Ends::Scalar;
  int ia = self ? c.self_pairs[2 * k] : c.world_capsules[k / c.obstacle_count];
  const LinkCapsule<T>& a = c.capsules[ia];
  *body_a = a.body;
  Vec3<S> a0, a1;
  ends(ia, &a0, &a1);
  if (self) {
    const int ib = c.self_pairs[2 * k + 1];
    *body_b = c.capsules[ib].body;
    Vec3<S> b0, b1;
    ends(ib, &b0, &b1);
    return capsule_capsule(a0, a1, S(a.radius), b0, b1, S(c.capsules[ib].radius));
  }
  *body_b = -1;
  const CollisionShape<T>& o = c.obstacles[k % c.obstacle_count];
  CollisionShape<S> s;
  s.type = o.type;
  s.pose = cast<S>(o.pose);
  s.size = cast<S>(o.size);
  return capsule_shape(a0, a1, S(a.radius), s);
}

// contact of pair k at body poses body_q
template <class T, class S>
IKWB_HD Contact<S> collision_pair_contact(const CollisionView<T>& c, bool self, int k,
                                          const Transform<S>* body_q, int* body_a, int* body_b) {
  return pair_contact(c, self, k, PoseEnds<T, S>{c, body_q}, body_a, body_b);
}

// The world endpoints and bounding-sphere radii (half the length plus the radius) of the first
// kCapsuleCache capsules at one set of body poses: a search reads each capsule many times.
// Capsules beyond those are computed when read.
constexpr int kCapsuleCache = 64;
template <class T, class S>
struct WorldCapsules {
  using Scalar = S;
  PoseEnds<T, S> pose;
  Vec3<S> p0[kCapsuleCache], p1[kCapsuleCache];
  S cx[kCapsuleCache], cy[kCapsuleCache], cz[kCapsuleCache];  // the sphere centres, by axis
  S reach[kCapsuleCache];
  int count = 0;
  IKWB_HD WorldCapsules(const CollisionView<T>& c, const Transform<S>* body_q) : pose{c, body_q} {
    count = c.capsule_count < kCapsuleCache ? c.capsule_count : kCapsuleCache;
    for (int i = 0; i < count; ++i) {
      pose(i, &p0[i], &p1[i]);
      const Vec3<S> m = S(0.5) * (p0[i] + p1[i]);
      cx[i] = m.x;
      cy[i] = m.y;
      cz[i] = m.z;
      reach[i] = S(T(0.5) * length(c.capsules[i].p1 - c.capsules[i].p0) + c.capsules[i].radius);
    }
  }
  IKWB_HD void operator()(int i, Vec3<S>* a0, Vec3<S>* a1) const {
    if (i < count) {
      *a0 = p0[i];
      *a1 = p1[i];
    } else {
      pose(i, a0, a1);
    }
  }
  // the centre of capsule i's bounding sphere, and its radius
  IKWB_HD Vec3<S> centre(int i, S* r) const {
    const LinkCapsule<T>& a = pose.c.capsules[i];
    *r = i < count ? reach[i] : S(T(0.5) * length(a.p1 - a.p0) + a.radius);
    Vec3<S> a0, a1;
    (*this)(i, &a0, &a1);
    return S(0.5) * (a0 + a1);
  }
};

// A lower bound of pair k's distance: for two capsules, from their bounding spheres; for a
// capsule and an obstacle, the obstacle's signed distance at the capsule's centre less the
// capsule's reach (a signed distance changes by at most the distance moved: it is 1-Lipschitz)
template <class T, class S>
IKWB_HD S pair_lower_bound(const CollisionView<T>& c, bool self, int k,
                           const WorldCapsules<T, S>& wc) {
  S reach_a, reach_b;
  if (self) {
    Vec3<S> ma = wc.centre(c.self_pairs[2 * k], &reach_a);
    Vec3<S> mb = wc.centre(c.self_pairs[2 * k + 1], &reach_b);
    return length(ma - mb) - reach_a - reach_b;
  }
  const CollisionShape<T>& o = c.obstacles[k % c.obstacle_count];
  CollisionShape<S> b;
  b.type = o.type;
  b.pose = cast<S>(o.pose);
  b.size = cast<S>(o.size);
  Vec3<S> ma = wc.centre(c.world_capsules[k / c.obstacle_count], &reach_a);
  return local_sdf(b, rotate_inv(b.pose.q, ma - b.pose.p), (Vec3<S>*)nullptr) - reach_a;
}

// The pairs' lower bounds are computed kBoundBlock at a time, in a loop of their own, as
// sqrt(s2) - w: with every capsule cached a self pair's bound is a few loads and products without
// a branch or a square root (s2: the centres' squared distance, w: the reaches' sum), and a
// bound compares with a distance d as s2 against (d + w)^2. Other pairs give s2 = 0, w = -bound.
constexpr int kBoundBlock = 64;

// the bounds of pairs k0 + i, i < n <= kBoundBlock, as (s2[i], w[i])
template <class T, class S>
IKWB_HD void pair_bounds(const CollisionView<T>& c, bool self, int k0, int n,
                         const WorldCapsules<T, S>& wc, S* s2, S* w) {
  if (!self || wc.count < c.capsule_count) {
    for (int i = 0; i < n; ++i) {
      s2[i] = S(0);
      w[i] = -pair_lower_bound(c, self, k0 + i, wc);
    }
    return;
  }
  const int* pairs = c.self_pairs + 2 * k0;
  for (int i = 0; i < n; ++i) {
    const int a = pairs[2 * i], b = pairs[2 * i + 1];
    const S dx = wc.cx[a] - wc.cx[b], dy = wc.cy[a] - wc.cy[b], dz = wc.cz[a] - wc.cz[b];
    s2[i] = dx * dx + dy * dy + dz * dz;
    w[i] = wc.reach[a] + wc.reach[b];
  }
}

// sqrt(s2) - w > d: the pair's bound is above distance d
template <class S>
IKWB_HD bool bound_above(S s2, S w, S d) {
  const S within = d + w;
  return within < S(0) || s2 > within * within;
}

// inserts pair k at distance d into the list (pair, dist) of *filled entries (at most
// kCollisionRows; the last drops out of a full list), ascending by distance, then by pair index:
// the list holds the smallest pairs in that order whatever order they are inserted in
template <class S>
IKWB_HD void insert_closest(int k, S d, int* pair, S* dist, int* filled) {
  const int last = kCollisionRows - 1;
  if (*filled == kCollisionRows && !(d < dist[last] || (d == dist[last] && k < pair[last]))) return;
  int i = *filled < kCollisionRows ? (*filled)++ : last;
  while (i > 0 && (d < dist[i - 1] || (d == dist[i - 1] && k < pair[i - 1]))) {
    dist[i] = dist[i - 1];
    pair[i] = pair[i - 1];
    --i;
  }
  dist[i] = d;
  pair[i] = k;
}

// The kCollisionRows closest pairs: pair[i] (-1 when fewer pairs), dist[i], ascending by distance
// (equal distances by pair index). Exact distances are computed first for kCollisionRows likely
// pairs, then for every other pair whose bounding-sphere lower bound does not exceed the
// farthest distance listed. The likely pairs are hint's (the closest pairs of an earlier search,
// or null: mostly the same pairs when the poses moved a little) when it names kCollisionRows
// pairs of this set, else those of smallest bound (one more pass over the bounds). Same pairs
// and distances as computing every pair, with any hint.
template <class T, class S>
IKWB_HD void closest_collision_pairs(const CollisionView<T>& c, bool self,
                                     const Transform<S>* body_q, int* pair, S* dist,
                                     const int* hint = nullptr) {
  for (int i = 0; i < kCollisionRows; ++i) pair[i] = -1;
  const int n = collision_pair_count(c, self);
  const WorldCapsules<T, S> wc(c, body_q);
  S s2[kBoundBlock], w[kBoundBlock];
  int first[kCollisionRows];
  int nfirst = 0;
  for (int i = 0; hint && i < kCollisionRows; ++i) {
    bool listed = hint[i] < 0 || hint[i] >= n;
    for (int j = 0; j < nfirst && !listed; ++j) listed = first[j] == hint[i];
    if (!listed) first[nfirst++] = hint[i];
  }
  if (nfirst < kCollisionRows) {
    nfirst = 0;
    S bound[kCollisionRows];
    for (int k0 = 0; k0 < n; k0 += kBoundBlock) {
      const int nb = n - k0 < kBoundBlock ? n - k0 : kBoundBlock;
      pair_bounds(c, self, k0, nb, wc, s2, w);
      for (int i = 0; i < nb; ++i)
        insert_closest(k0 + i, sqrt(s2[i]) - w[i], first, bound, &nfirst);
    }
  }
  int filled = 0, ba, bb;
  for (int i = 0; i < nfirst; ++i)
    insert_closest(first[i], pair_contact(c, self, first[i], wc, &ba, &bb).distance, pair, dist,
                   &filled);
  // the first pairs in index order, so the walk below meets each in turn
  for (int i = 1; i < nfirst; ++i)
    for (int j = i; j > 0 && first[j] < first[j - 1]; --j) {
      int t = first[j];
      first[j] = first[j - 1];
      first[j - 1] = t;
    }
  int next_first = 0;
  for (int k0 = 0; k0 < n; k0 += kBoundBlock) {
    const int nb = n - k0 < kBoundBlock ? n - k0 : kBoundBlock;
    pair_bounds(c, self, k0, nb, wc, s2, w);
    for (int i = 0; i < nb; ++i) {
      const int k = k0 + i;
      if (next_first < nfirst && first[next_first] == k) {
        ++next_first;
        continue;
      }
      if (filled == kCollisionRows && bound_above(s2[i], w[i], dist[filled - 1])) continue;
      insert_closest(k, pair_contact(c, self, k, wc, &ba, &bb).distance, pair, dist, &filled);
    }
  }
}

// A bound on how far any point of capsule a moved when its body went from pose `from` to `to`:
// the body's origin moved |dp|, and a point at distance r from it by at most |dp| + |R - R'| r,
// where |R - R'| = 2 sin(angle / 2) = 2 |vec(from.q^-1 to.q)| (either sign of a quaternion); the
// segment's points move by at most its ends' bound, and the ends are within max(|p0|, |p1|).
template <class T, class S>
S capsule_motion(const LinkCapsule<T>& a, const Transform<S>& from, const Transform<S>& to) {
  const Quat<S> turn = conjugate(from.q) * to.q;
  const S r0 = S(length(a.p0)), r1 = S(length(a.p1));
  const S reach = r0 > r1 ? r0 : r1;
  const Vec3<S> v{turn.x, turn.y, turn.z};
  return length(to.p - from.p) + S(2) * length(v) * reach;
}

// Rebuilds set's pair list at body_q after a full search there found dist (the kCollisionRows
// closest, filled of them): the pairs within the last of them plus kCollisionSkin, every pair
// when fewer than kCollisionRows were found. A set with more pairs than the list holds is not
// listed.
template <class T, class S>
void build_pair_list(const CollisionView<T>& c, bool self, const Transform<S>* body_q,
                     const S* dist, int filled, CollisionMemo<T>& mm) {
  const int set = self ? 0 : 1;
  const int n = collision_pair_count(c, self);
  mm.listed[set] = false;
  if (n > mm.list_capacity) return;
  int* list = mm.list[set];
  int count = 0;
  if (filled < kCollisionRows) {
    for (int k = 0; k < n; ++k) list[count++] = k;
    mm.list_cut[set] = S(0);  // unused: every pair is listed
  } else {
    const S cut = dist[kCollisionRows - 1] + S(kCollisionSkin);
    const WorldCapsules<T, S> wc(c, body_q);
    S s2[kBoundBlock], w[kBoundBlock];
    int ba, bb;
    for (int k0 = 0; k0 < n; k0 += kBoundBlock) {
      const int nb = n - k0 < kBoundBlock ? n - k0 : kBoundBlock;
      pair_bounds(c, self, k0, nb, wc, s2, w);
      for (int i = 0; i < nb; ++i)
        if (!bound_above(s2[i], w[i], cut) &&
            pair_contact(c, self, k0 + i, wc, &ba, &bb).distance <= cut)
          list[count++] = k0 + i;
    }
    mm.list_cut[set] = cut;
  }
  mm.list_count[set] = count;
  std::memcpy(mm.built[set], body_q, sizeof(Transform<T>) * std::size_t(mm.body_count));
  mm.listed[set] = true;
}

// The closest pairs at body_q from set's pair list, as a full search finds them; false (pair and
// dist then undefined) when an unlisted pair might be among them.
template <class T, class S>
bool listed_closest_pairs(const CollisionView<T>& c, bool self, const CollisionMemo<T>& mm,
                          const Transform<S>* body_q, int* pair, S* dist) {
  const int set = self ? 0 : 1;
  if (!mm.listed[set]) return false;
  const int n = collision_pair_count(c, self);
  const int count = mm.list_count[set];
  // twice the largest motion bound of a capsule that takes part in the set's pairs
  S moved = S(0);
  if (count < n) {
    const int capsules = self ? c.capsule_count : c.world_capsule_count;
    for (int i = 0; i < capsules; ++i) {
      const LinkCapsule<T>& a = c.capsules[self ? i : c.world_capsules[i]];
      const S m = capsule_motion(a, mm.built[set][a.body], body_q[a.body]);
      if (m > moved) moved = m;
    }
    moved *= S(2);
  }
  for (int i = 0; i < kCollisionRows; ++i) pair[i] = -1;
  const PoseEnds<T, S> ends{c, body_q};
  int filled = 0, ba, bb;
  for (int i = 0; i < count; ++i) {
    const int k = mm.list[set][i];
    insert_closest(k, pair_contact(c, self, k, ends, &ba, &bb).distance, pair, dist, &filled);
  }
  if (count == n) return true;
  // a distance is computed to well within this (rounding), in metres
  const S slack = std::is_same<S, float>::value ? S(1e-4) : S(1e-8);
  return filled == kCollisionRows && dist[kCollisionRows - 1] + moved + slack <= mm.list_cut[set];
}

// The search and the list rebuilt at body_q (closest_collision_pairs, then build_pair_list) in
// one pass over the pairs: the last search's pairs (mm.pair, the hint) give exact distances first,
// whose largest plus kCollisionSkin bounds the list's cut from above (the kCollisionRows closest
// can only be nearer); each pair whose bound is within it gets its exact distance once, for the
// closest and the list both, and the list keeps those within the final cut. The same closest
// pairs, distances and list as the two calls, which each passed over every pair's bound and
// computed most listed pairs' distances again: a rebuild took about as long as five searches
// from the list (the humanoid's drag, 652 self pairs, rebuilt about every fifth search). Without
// kCollisionRows distinct pairs in the hint (the first search), or a set the list cannot hold,
// the two calls.
template <class T, class S>
void search_and_list(const CollisionView<T>& c, bool self, const Transform<S>* body_q,
                     CollisionMemo<T>& mm) {
  const int set = self ? 0 : 1;
  const int n = collision_pair_count(c, self);
  int* pair = mm.pair[set];
  S* dist = mm.dist[set];
  int first[kCollisionRows];
  int nfirst = 0;
  for (int i = 0; i < kCollisionRows; ++i) {
    bool listed = pair[i] < 0 || pair[i] >= n;
    for (int j = 0; j < nfirst && !listed; ++j) listed = first[j] == pair[i];
    if (!listed) first[nfirst++] = pair[i];
  }
  if (nfirst < kCollisionRows || n > mm.list_capacity) {
    closest_collision_pairs(c, self, body_q, pair, dist, nfirst ? first : nullptr);
    int filled = 0;
    while (filled < kCollisionRows && pair[filled] >= 0) ++filled;
    build_pair_list(c, self, body_q, dist, filled, mm);
    return;
  }
  const WorldCapsules<T, S> wc(c, body_q);
  int ba, bb, filled = 0;
  for (int i = 0; i < kCollisionRows; ++i) pair[i] = -1;
  // the first pairs in index order, with their distances, so the walk below meets each in turn
  for (int i = 1; i < nfirst; ++i)
    for (int j = i; j > 0 && first[j] < first[j - 1]; --j) {
      const int t = first[j];
      first[j] = first[j - 1];
      first[j - 1] = t;
    }
  S first_dist[kCollisionRows];
  for (int i = 0; i < nfirst; ++i) {
    first_dist[i] = pair_contact(c, self, first[i], wc, &ba, &bb).distance;
    insert_closest(first[i], first_dist[i], pair, dist, &filled);
  }
  const S reach = dist[kCollisionRows - 1] + S(kCollisionSkin);
  int* list = mm.list[set];
  S* list_dist = mm.list_dist;
  int count = 0, next_first = 0;
  S s2[kBoundBlock], w[kBoundBlock];
  for (int k0 = 0; k0 < n; k0 += kBoundBlock) {
    const int nb = n - k0 < kBoundBlock ? n - k0 : kBoundBlock;
    pair_bounds(c, self, k0, nb, wc, s2, w);
    for (int i = 0; i < nb; ++i) {
      const int k = k0 + i;
      S d;
      if (next_first < nfirst && first[next_first] == k) {
        d = first_dist[next_first++];
      } else {
        if (bound_above(s2[i], w[i], reach)) continue;
        d = pair_contact(c, self, k, wc, &ba, &bb).distance;
        insert_closest(k, d, pair, dist, &filled);
      }
      if (d <= reach) {
        list[count] = k;
        list_dist[count++] = d;
      }
    }
  }
  const S cut = dist[kCollisionRows - 1] + S(kCollisionSkin);
  int kept = 0;
  for (int i = 0; i < count; ++i)
    if (list_dist[i] <= cut) list[kept++] = list[i];
  mm.list_count[set] = kept;
  mm.list_cut[set] = cut;
  std::memcpy(mm.built[set], body_q, sizeof(Transform<T>) * std::size_t(mm.body_count));
  mm.listed[set] = true;
}

// closest_collision_pairs, answered from c.memo when the poses are those of its last search or
// its pair list covers them
template <class T, class S>
IKWB_HD_OUTLINED void closest_collision_pairs_memo(const CollisionView<T>& c, bool self,
                                                   const Transform<S>* body_q, int* pair, S* dist) {
#if !defined(__CUDA_ARCH__)
  if constexpr (std::is_same<S, T>::value) {
    if (c.memo) {
      CollisionMemo<T>& mm = *c.memo;
      const int set = self ? 0 : 1;
      const std::size_t bytes = sizeof(Transform<T>) * std::size_t(mm.body_count);
      if (!mm.valid[set] || std::memcmp(mm.saved[set], body_q, bytes) != 0) {
        if (!listed_closest_pairs(c, self, mm, body_q, mm.pair[set], mm.dist[set]))
          search_and_list(c, self, body_q, mm);
        std::memcpy(mm.saved[set], body_q, bytes);
        mm.valid[set] = true;
      }
      for (int i = 0; i < kCollisionRows; ++i) {
        pair[i] = mm.pair[set][i];
        dist[i] = mm.dist[set][i];
      }
      return;
    }
  }
#endif
  closest_collision_pairs(c, self, body_q, pair, dist);
}

template <class T, class S>
IKWB_HD void collision_residual(const CollisionView<T>& c, bool self, T margin,
                                const Transform<S>* body_q, S* r) {
  int pairs[kCollisionRows];
  S dist[kCollisionRows];
  closest_collision_pairs_memo(c, self, body_q, pairs, dist);
  for (int i = 0; i < kCollisionRows; ++i) r[i] = pairs[i] >= 0 ? S(margin) - dist[i] : S(-1);
}

// Calls f(row, body, x, dir) for each term of the rows (a term adds dir . dx for point x of body;
// row_terms.hpp): -n at the closest point on a, n at the one on b (the header's dg). r (or null)
// receives the rows of collision_residual, from the same search of the closest pairs.
template <class T, class F>
IKWB_HD void collision_row_terms(const CollisionView<T>& c, bool self, const Transform<T>* body_q,
                                 T margin, T* r, F f) {
  int pairs[kCollisionRows];
  T dist[kCollisionRows];
  closest_collision_pairs_memo(c, self, body_q, pairs, dist);
  for (int i = 0; i < kCollisionRows; ++i) {
    if (r) r[i] = pairs[i] >= 0 ? margin - dist[i] : T(-1);
    if (pairs[i] < 0) continue;
    int ba, bb;
    Contact<T> k = collision_pair_contact(c, self, pairs[i], body_q, &ba, &bb);
    f(i, ba, k.point_a, -k.normal);
    if (bb >= 0) f(i, bb, k.point_b, k.normal);
  }
}

// adds sign * dot(dir, d(x)/d(dof)) to row[dof] (a visit_body_columns functor)
template <class T>
struct NormalColumns {
  Vec3<T> x, dir;
  T sign = T(1);
  T* row = nullptr;
  IKWB_HD void operator()(int dof, bool angular, const Vec3<T>& axis, const Vec3<T>& anchor,
                          T scale) {
    Vec3<T> dx = angular ? cross(axis, x - anchor) : axis;
    row[dof] += sign * scale * dot(dir, dx);
  }
};

// Jacobian rows (kCollisionRows x dof_count, leading dimension ld), already zero; r (or null)
// receives the rows of collision_residual too, from the same search of the closest pairs
template <class T>
IKWB_HD void collision_jacobian(const ModelView<T>& m, const CollisionView<T>& c, bool self,
                                const Transform<T>* body_q, T* J, int ld, T margin = T(0),
                                T* r = nullptr) {
  collision_row_terms(c, self, body_q, margin, r,
                      [&](int row, int body, const Vec3<T>& x, const Vec3<T>& dir) {
                        NormalColumns<T> cols;
                        cols.row = J + row * ld;
                        cols.dir = dir;
                        cols.x = x;
                        visit_body_columns(m, body_q, body, cols);
                      });
}

// The raw rows of collision_residual into r and each row's terms (row_terms.hpp) into terms
// (kCollisionRows).
template <class T>
IKWB_HD void collision_terms(const CollisionView<T>& c, bool self, T margin,
                             const Transform<T>* body_q, T* r, RowTerms<T>* terms) {
  for (int i = 0; i < kCollisionRows; ++i) terms[i].clear();
  collision_row_terms(c, self, body_q, margin, r,
                      [&](int row, int body, const Vec3<T>& x, const Vec3<T>& dir) {
                        terms[row].add(body, x, dir);
                      });
}

}  // namespace ikwb
