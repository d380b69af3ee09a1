// Signed distances between collision shapes, with closest points and the contact normal.
// __host__ __device__ over plain structs (float or double), shared by the CPU backend, the CUDA
// row math, the workbench overlays and `ikwb check`.
//
// Robot links are covered by swept spheres: a segment p0-p1 with a radius (a capsule; a sphere
// when p0 == p1). Obstacles are spheres, capsules, boxes, cylinders and half-spaces
// (CollisionShape).
//
// Signed distance of a capsule A to a shape B: min over the segment points x of sdf_B(x) - r_A,
// where sdf_B is B's signed distance field (negative inside). When A and B are apart this is
// their Euclidean distance; when they overlap it is minus the depth that A's axis reaches into
// B plus r_A (an exact penetration depth for sphere and capsule pairs, a lower bound of the
// needed separation otherwise). It is continuous and, by the envelope theorem, its gradient with
// respect to a rigid motion of A is the contact normal at the closest points:
//   d(distance) = n . (v_A(point_a) - v_B(point_b))
// where n (unit, world) points from B towards A and v is the velocity of the material point.
// Against sphere and capsule shapes the minimisation is closed form (closest points of two
// segments); against a box or a cylinder sdf_B is convex along the segment and is minimised by a
// golden-section search (kGoldenIterations steps shrink the bracket to 0.618^40 ~ 4e-9 of the
// segment length). Degenerate configurations (parallel segments, a point on the other's axis)
// pick a deterministic normal so distances stay continuous.
#pragma once

#include <cstdint>

#include "engine/core/spatial.hpp"

namespace ikwb {

enum class ShapeType : int8_t {
  kSphere = 0,     // size.x: radius
  kCapsule = 1,    // size.x: radius, size.y: half length of the segment along the frame's z
  kBox = 2,        // size: half extents along the frame's x, y, z
  kCylinder = 3,   // size.x: radius, size.y: half length along the frame's z
  kHalfSpace = 4,  // the solid below the frame's xy plane (normal = the frame's +z)
};

template <class S>
struct CollisionShape {
  ShapeType type = ShapeType::kSphere;
  Transform<S> pose = {{S(0), S(0), S(0)}, {S(0), S(0), S(0), S(1)}};  // shape frame in world
  Vec3<S> size = {S(0), S(0), S(0)};
};

// Closest points of two shapes A and B (world): distance as in the header, point_a on A's
// surface, point_b on B's surface, normal unit from B towards A.
template <class S>
struct Contact {
  S distance;
  Vec3<S> point_a, point_b, normal;
};

constexpr int kGoldenIterations = 40;

template <class S>
IKWB_HD S clamp01(S x) {
  return x < S(0) ? S(0) : (x > S(1) ? S(1) : x);
}

template <class S>
IKWB_HD S abs_val(S x) {
  return x < S(0) ? -x : x;
}

// a unit vector perpendicular to v (any when v is zero), deterministic
template <class S>
IKWB_HD Vec3<S> any_perpendicular(const Vec3<S>& v) {
  Vec3<S> e =
      abs_val(v.x) < abs_val(v.z) || abs_val(v.y) < abs_val(v.z)
          ? (abs_val(v.x) < abs_val(v.y) ? Vec3<S>{S(1), S(0), S(0)} : Vec3<S>{S(0), S(1), S(0)})
          : Vec3<S>{S(0), S(0), S(1)};
  Vec3<S> c = cross(v, e);
  S l = length(c);
  return l > S(0) ? (S(1) / l) * c : Vec3<S>{S(0), S(0), S(1)};
}

// (nearly parallel segments) the pair (s, t) of `*best` squared distance apart, replaced by
// (cs, ct) where those are closer by more than `slack` (squared: ties keep the first)
template <class S>
IKWB_HD void closer_params(const Vec3<S>& r, const Vec3<S>& d1, const Vec3<S>& d2, S cs, S ct,
                           S slack, S* s, S* t, S* best) {
  const Vec3<S> w = r + cs * d1 - ct * d2;
  const S d = dot(w, w);
  if (d < *best - slack) {
    *best = d;
    *s = cs;
    *t = ct;
  }
}

// Parameters s, t in [0, 1] of the closest points p0 + s (p1 - p0) and q0 + t (q1 - q0) of two
// segments (either may be a point). Parallel segments take the middle of the overlap.
template <class S>
IKWB_HD void closest_segment_params(const Vec3<S>& p0, const Vec3<S>& p1, const Vec3<S>& q0,
                                    const Vec3<S>& q1, S* s_out, S* t_out) {
  Vec3<S> d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  S a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
  S eps = S(1e-12) * (S(1) + a + e);
  S s, t;
  if (a <= eps && e <= eps) {
    s = t = S(0);
  } else if (a <= eps) {
    s = S(0);
    t = clamp01(f / e);
  } else {
    S c = dot(d1, r);
    if (e <= eps) {
      t = S(0);
      s = clamp01(-c / a);
    } else {
      S b = dot(d1, d2);
      S denom = a * e - b * b;
      if (denom > S(1e-9) * a * e) {
        s = clamp01((b * f - c * e) / denom);
        t = (b * s + f) / e;
        if (t < S(0)) {
          t = S(0);
          s = clamp01(-c / a);
        } else if (t > S(1)) {
          t = S(1);
          s = clamp01((b - c) / a);
        }
      } else {
        // (nearly) parallel, the lines' closest points ill-conditioned: the middle of the part
        // of segment 1 that projects onto segment 2 (parallel, every point of the overlap is as
        // close; its middle balances the contact), unless an end of either segment, or the
        // lines' closest points where they fall within both, is closer (within 3e-5 rad of
        // parallel the middle was taken: 1 m links 11 um into each other read 4 um apart)
        S lo = clamp01(-c / a), hi = clamp01((b - c) / a);
        s = S(0.5) * (lo + hi);
        t = clamp01((b * s + f) / e);
        Vec3<S> w = r + s * d1 - t * d2;
        S best = dot(w, w);
        // (rounding of the squares, relative to the distance, not to the segments' lengths:
        // crossing 1e-7 rad apart, 0.1 um apart, the middle's 6 nm more stood)
        const S slack = S(1e-12) * best + S(1e-30) * (a + e + dot(r, r));
        closer_params(r, d1, d2, S(0), clamp01(f / e), slack, &s, &t, &best);
        closer_params(r, d1, d2, S(1), clamp01((b + f) / e), slack, &s, &t, &best);
        closer_params(r, d1, d2, clamp01(-c / a), S(0), slack, &s, &t, &best);
        closer_params(r, d1, d2, clamp01((b - c) / a), S(1), slack, &s, &t, &best);
        // the lines' closest points from the cross product of the directions, which keeps its
        // precision where a e - b b loses it
        const Vec3<S> n = cross(d1, d2);
        const S nn = dot(n, n);
        if (nn > S(0)) {
          const S si = dot(cross(-r, d2), n) / nn, ti = dot(cross(-r, d1), n) / nn;
          if (si >= S(0) && si <= S(1) && ti >= S(0) && ti <= S(1))
            closer_params(r, d1, d2, si, ti, slack, &s, &t, &best);
        }
      }
    }
  }
  *s_out = s;
  *t_out = t;
}

// capsule (a0-a1, ra) against capsule (b0-b1, rb); spheres are capsules with equal ends
template <class S>
IKWB_HD Contact<S> capsule_capsule(const Vec3<S>& a0, const Vec3<S>& a1, S ra, const Vec3<S>& b0,
                                   const Vec3<S>& b1, S rb) {
  S s, t;
  closest_segment_params(a0, a1, b0, b1, &s, &t);
  Vec3<S> ca = a0 + s * (a1 - a0), cb = b0 + t * (b1 - b0);
  Vec3<S> d = ca - cb;
  S len = length(d);
  Vec3<S> n;
  if (len > S(1e-12)) {
    n = (S(1) / len) * d;
  } else {
    // axes touch: any direction perpendicular to both (or to the one that is a segment)
    Vec3<S> c = cross(a1 - a0, b1 - b0);
    S lc = length(c);
    if (lc > S(1e-12)) {
      n = (S(1) / lc) * c;
    } else {
      Vec3<S> axis = length_sq(a1 - a0) > length_sq(b1 - b0) ? a1 - a0 : b1 - b0;
      n = any_perpendicular(axis);
    }
  }
  return {len - ra - rb, ca - ra * n, cb + rb * n, n};
}

// the shape's frame-local segment (capsule, sphere): ends in world
template <class S>
IKWB_HD void shape_segment(const CollisionShape<S>& b, Vec3<S>* b0, Vec3<S>* b1) {
  S h = b.type == ShapeType::kCapsule ? b.size.y : S(0);
  *b0 = transform_point(b.pose, Vec3<S>{S(0), S(0), -h});
  *b1 = transform_point(b.pose, Vec3<S>{S(0), S(0), h});
}

// Signed distance from point p, in shape b's frame, to b's surface (negative inside) and, when
// g is not null, the outward unit gradient (b's frame). Inside a box the nearest face wins; on a
// cylinder's axis the radial direction is the frame's x.
template <class S>
IKWB_HD S local_sdf(const CollisionShape<S>& b, const Vec3<S>& p, Vec3<S>* g) {
  switch (b.type) {
    case ShapeType::kSphere:
    case ShapeType::kCapsule: {
      S h = b.type == ShapeType::kCapsule ? b.size.y : S(0);
      S z = p.z < -h ? -h : (p.z > h ? h : p.z);
      Vec3<S> v{p.x, p.y, p.z - z};
      S l = length(v);
      if (g) *g = l > S(1e-12) ? (S(1) / l) * v : Vec3<S>{S(1), S(0), S(0)};
      return l - b.size.x;
    }
    case ShapeType::kBox: {
      Vec3<S> q{abs_val(p.x) - b.size.x, abs_val(p.y) - b.size.y, abs_val(p.z) - b.size.z};
      Vec3<S> o{q.x > S(0) ? q.x : S(0), q.y > S(0) ? q.y : S(0), q.z > S(0) ? q.z : S(0)};
      S lo = length(o), d;
      Vec3<S> n;
      if (lo > S(0)) {
        d = lo;
        n = (S(1) / lo) * o;
      } else {
        int k = q.x >= q.y && q.x >= q.z ? 0 : (q.y >= q.z ? 1 : 2);
        d = q[k];
        n = zero3<S>();
        n[k] = S(1);
      }
      if (g)
        *g = Vec3<S>{p.x < S(0) ? -n.x : n.x, p.y < S(0) ? -n.y : n.y, p.z < S(0) ? -n.z : n.z};
      return d;
    }
    case ShapeType::kCylinder: {
      S rho = sqrt(p.x * p.x + p.y * p.y);
      S dr = rho - b.size.x, dz = abs_val(p.z) - b.size.y;
      S d = dr > S(0) && dz > S(0) ? sqrt(dr * dr + dz * dz) : (dr > dz ? dr : dz);
      if (g) {
        Vec3<S> radial =
            rho > S(1e-12) ? Vec3<S>{p.x / rho, p.y / rho, S(0)} : Vec3<S>{S(1), S(0), S(0)};
        Vec3<S> axial{S(0), S(0), p.z < S(0) ? S(-1) : S(1)};
        if (dr > S(0) && dz > S(0))
          *g = (dr / d) * radial + (dz / d) * axial;
        else
          *g = dr > dz ? radial : axial;
      }
      return d;
    }
    default:  // half-space
      if (g) *g = Vec3<S>{S(0), S(0), S(1)};
      return p.z;
  }
}

// Signed distance from world point x to shape b's surface and the outward unit gradient *n
// (world); see local_sdf.
template <class S>
IKWB_HD S point_sdf(const CollisionShape<S>& b, const Vec3<S>& x, Vec3<S>* n) {
  Vec3<S> g;
  S d = local_sdf(b, rotate_inv(b.pose.q, x - b.pose.p), &g);
  *n = rotate(b.pose.q, g);
  return d;
}

// capsule (a0-a1, ra) against any shape b
template <class S>
IKWB_HD Contact<S> capsule_shape(const Vec3<S>& a0, const Vec3<S>& a1, S ra,
                                 const CollisionShape<S>& b) {
  if (b.type == ShapeType::kSphere || b.type == ShapeType::kCapsule) {
    Vec3<S> b0, b1;
    shape_segment(b, &b0, &b1);
    return capsule_capsule(a0, a1, ra, b0, b1, b.size.x);
  }
  Vec3<S> n0, n1;
  S t;
  if (b.type == ShapeType::kHalfSpace) {
    // linear along the segment: the lower end (the middle when parallel)
    S d0 = point_sdf(b, a0, &n0), d1 = point_sdf(b, a1, &n1);
    S tol = S(1e-9) * (S(1) + abs_val(d0) + abs_val(d1));
    t = d0 < d1 - tol ? S(0) : (d1 < d0 - tol ? S(1) : S(0.5));
  } else {
    // sdf along the segment is convex: golden-section search on [0, 1], in b's frame
    Vec3<S> l0 = rotate_inv(b.pose.q, a0 - b.pose.p), l1 = rotate_inv(b.pose.q, a1 - b.pose.p);
    Vec3<S> dl = l1 - l0;
    const S ratio = S(0.6180339887498949);
    S lo = S(0), hi = S(1);
    S x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
    S f1 = local_sdf(b, l0 + x1 * dl, (Vec3<S>*)nullptr);
    S f2 = local_sdf(b, l0 + x2 * dl, (Vec3<S>*)nullptr);
    for (int i = 0; i < kGoldenIterations; ++i) {
      if (f1 <= f2) {
        hi = x2;
        x2 = x1;
        f2 = f1;
        x1 = hi - ratio * (hi - lo);
        f1 = local_sdf(b, l0 + x1 * dl, (Vec3<S>*)nullptr);
      } else {
        lo = x1;
        x1 = x2;
        f1 = f2;
        x2 = lo + ratio * (hi - lo);
        f2 = local_sdf(b, l0 + x2 * dl, (Vec3<S>*)nullptr);
      }
    }
    t = S(0.5) * (lo + hi);
    // the ends, where the minimum of a monotone sdf lies
    S fe0 = local_sdf(b, l0, (Vec3<S>*)nullptr), fe1 = local_sdf(b, l1, (Vec3<S>*)nullptr);
    S fm = local_sdf(b, l0 + t * dl, (Vec3<S>*)nullptr);
    if (fe0 < fm) t = S(0), fm = fe0;
    if (fe1 < fm) t = S(1);
  }
  Vec3<S> x = a0 + t * (a1 - a0), n;
  S d = point_sdf(b, x, &n);
  return {d - ra, x - ra * n, x - d * n, n};
}

}  // namespace ikwb
