// Tests of engine/core/distance.hpp: signed distances and closest points against brute-force
// sampling, and the contact normal (the gradient) against finite differences, for a capsule or
// sphere against every shape type, including parallel, touching and deeply penetrating cases.
//
// Tolerances. Brute force samples the segment every L/kSeg and the shape's surface on a grid of
// spacing h; a distance is 1-Lipschitz in each sampled point, so the sampled minimum is within
// L/kSeg + h of the exact one (kSampleTol below adds that bound to 1e-9). Golden-section search
// brackets the minimiser to 4e-9 of the segment length, and the sdf is 1-Lipschitz, so closed
// form and searched distances agree with the exact value to ~1e-8 (kExact = 1e-7). Central
// differences with step 1e-6 of a function with bounded curvature are accurate to ~1e-10 plus
// rounding 1e-16 / 1e-6; kFd = 1e-6 leaves room. Float results are compared with double ones:
// O(1) values through ~50 operations, so 1e-5 (about 100 float ulps).
#include "engine/core/distance.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace ikwb {
namespace {

constexpr double kExact = 1e-7;
constexpr double kFd = 1e-6;
constexpr double kFloat = 1e-5;
constexpr int kSeg = 400;

using V = Vec3<double>;

struct CapsuleA {
  V a0, a1;
  double r;
};

CollisionShape<double> make_shape(ShapeType type, V p, Quat<double> q, V size) {
  CollisionShape<double> s;
  s.type = type;
  s.pose = {p, normalize(q)};
  s.size = size;
  return s;
}

// points on the shape's surface on a grid of spacing about h (frame-local, then world)
std::vector<V> surface_samples(const CollisionShape<double>& b, double h) {
  std::vector<V> out;
  auto add = [&](V p) { out.push_back(transform_point(b.pose, p)); };
  const double pi = 3.141592653589793;
  switch (b.type) {
    case ShapeType::kBox: {
      V e = b.size;
      for (int axis = 0; axis < 3; ++axis) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        int nu = std::max(1, int(std::ceil(2 * e[u] / h))), nv = std::max(1, int(2 * e[v] / h));
        for (int side = -1; side <= 1; side += 2)
          for (int i = 0; i <= nu; ++i)
            for (int j = 0; j <= nv; ++j) {
              V p = zero3<double>();
              p[axis] = side * e[axis];
              p[u] = -e[u] + 2 * e[u] * i / nu;
              p[v] = -e[v] + 2 * e[v] * j / nv;
              add(p);
            }
      }
      break;
    }
    case ShapeType::kCylinder: {
      double r = b.size.x, hl = b.size.y;
      int na = std::max(8, int(2 * pi * r / h)), nz = std::max(1, int(2 * hl / h));
      for (int i = 0; i < na; ++i) {
        double a = 2 * pi * i / na;
        for (int k = 0; k <= nz; ++k)
          add({r * std::cos(a), r * std::sin(a), -hl + 2 * hl * k / nz});
        for (double rr = 0; rr < r; rr += h)
          for (int side = -1; side <= 1; side += 2)
            add({rr * std::cos(a), rr * std::sin(a), side * hl});
      }
      break;
    }
    default:
      break;
  }
  return out;
}

bool inside(const CollisionShape<double>& b, const V& x) {
  V p = rotate_inv(b.pose.q, x - b.pose.p);
  if (b.type == ShapeType::kBox)
    return std::abs(p.x) < b.size.x && std::abs(p.y) < b.size.y && std::abs(p.z) < b.size.z;
  return std::hypot(p.x, p.y) < b.size.x && std::abs(p.z) < b.size.y;
}

// brute force: min over segment samples of the sampled sdf, minus the radius
double brute_distance(const CapsuleA& a, const CollisionShape<double>& b, double h) {
  double best = 1e300;
  if (b.type == ShapeType::kHalfSpace) {
    for (int i = 0; i <= kSeg; ++i) {
      V x = a.a0 + (double(i) / kSeg) * (a.a1 - a.a0);
      best = std::min(best, rotate_inv(b.pose.q, x - b.pose.p).z);
    }
    return best - a.r;
  }
  if (b.type == ShapeType::kSphere || b.type == ShapeType::kCapsule) {
    double hb = b.type == ShapeType::kCapsule ? b.size.y : 0;
    V b0 = transform_point(b.pose, V{0, 0, -hb}), b1 = transform_point(b.pose, V{0, 0, hb});
    for (int i = 0; i <= kSeg; ++i)
      for (int j = 0; j <= kSeg; ++j) {
        V x = a.a0 + (double(i) / kSeg) * (a.a1 - a.a0);
        V y = b0 + (double(j) / kSeg) * (b1 - b0);
        best = std::min(best, length(x - y));
      }
    return best - a.r - b.size.x;
  }
  std::vector<V> surf = surface_samples(b, h);
  for (int i = 0; i <= kSeg; ++i) {
    V x = a.a0 + (double(i) / kSeg) * (a.a1 - a.a0);
    double d = 1e300;
    for (const V& s : surf) d = std::min(d, length_sq(x - s));
    d = std::sqrt(d);
    best = std::min(best, inside(b, x) ? -d : d);
  }
  return best - a.r;
}

V random_unit(std::mt19937& rng) {
  std::normal_distribution<double> n(0, 1);
  V v{n(rng), n(rng), n(rng)};
  return (1 / length(v)) * v;
}

Quat<double> random_quat(std::mt19937& rng) {
  std::normal_distribution<double> n(0, 1);
  return normalize(Quat<double>{n(rng), n(rng), n(rng), n(rng)});
}

// moves capsule a by a rigid motion (translation v, rotation w about the world origin) * eps
CapsuleA moved(const CapsuleA& a, const V& v, const V& w, double eps) {
  Quat<double> r = quat_exp(eps * w);
  return {rotate(r, a.a0) + eps * v, rotate(r, a.a1) + eps * v, a.r};
}

// d(distance)/d(eps) by central differences against n . (v + w x point_a)
void expect_gradient(const CapsuleA& a, const CollisionShape<double>& b, const char* what) {
  std::mt19937 rng(7);
  Contact<double> c = capsule_shape(a.a0, a.a1, a.r, b);
  for (int k = 0; k < 6; ++k) {
    V v = k < 3 ? random_unit(rng) : zero3<double>();
    V w = k >= 3 ? random_unit(rng) : zero3<double>();
    double h = 1e-6;
    double fd = (capsule_shape(moved(a, v, w, h).a0, moved(a, v, w, h).a1, a.r, b).distance -
                 capsule_shape(moved(a, v, w, -h).a0, moved(a, v, w, -h).a1, a.r, b).distance) /
                (2 * h);
    double an = dot(c.normal, v + cross(w, c.point_a));
    EXPECT_NEAR(fd, an, kFd) << what << " motion " << k;
  }
}

void expect_consistent(const Contact<double>& c, const CapsuleA& a, const CollisionShape<double>& b,
                       const char* what) {
  EXPECT_NEAR(length(c.normal), 1.0, kExact) << what;
  // the witness points are distance apart along the normal
  V gap = c.point_a - c.point_b;
  EXPECT_NEAR(dot(gap, c.normal), c.distance, kExact) << what;
  EXPECT_NEAR(length(gap), std::abs(c.distance), kExact) << what;
  // point_b lies on B's surface, point_a on A's
  V n;
  EXPECT_NEAR(point_sdf(b, c.point_b, &n), 0.0, kExact) << what;
  double s, t;
  closest_segment_params(a.a0, a.a1, c.point_a, c.point_a, &s, &t);
  EXPECT_NEAR(length(c.point_a - (a.a0 + s * (a.a1 - a.a0))), a.r, kExact) << what;
}

void expect_float_matches(const CapsuleA& a, const CollisionShape<double>& b, const char* what) {
  CollisionShape<float> bf;
  bf.type = b.type;
  bf.pose = cast<float>(b.pose);
  bf.size = cast<float>(b.size);
  Contact<float> cf = capsule_shape(cast<float>(a.a0), cast<float>(a.a1), float(a.r), bf);
  Contact<double> cd = capsule_shape(a.a0, a.a1, a.r, b);
  EXPECT_NEAR(cf.distance, cd.distance, kFloat) << what;
}

const ShapeType kAllTypes[] = {ShapeType::kSphere, ShapeType::kCapsule, ShapeType::kBox,
                               ShapeType::kCylinder, ShapeType::kHalfSpace};

CollisionShape<double> random_shape(ShapeType t, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.1, 0.5);
  return make_shape(t, V{0.1, -0.05, 0.02}, random_quat(rng), V{u(rng), u(rng), u(rng)});
}

TEST(Distance, RandomCapsulesAgainstEveryShapeMatchBruteForce) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1, 1), ur(0.02, 0.15), ul(0, 0.6);
  const double h = 0.01;
  for (ShapeType t : kAllTypes) {
    for (int i = 0; i < 12; ++i) {
      CollisionShape<double> b = random_shape(t, rng);
      V c{u(rng), u(rng), u(rng)};
      V dir = random_unit(rng);
      double half = i % 4 == 0 ? 0.0 : ul(rng);  // every fourth a sphere
      CapsuleA a{c - half * dir, c + half * dir, ur(rng)};
      Contact<double> got = capsule_shape(a.a0, a.a1, a.r, b);
      double seg = length(a.a1 - a.a0);
      double tol = 1e-9 + seg / kSeg + (t == ShapeType::kCapsule ? 2 * b.size.y / kSeg : 0) +
                   (t == ShapeType::kBox || t == ShapeType::kCylinder ? h : 0);
      double want = brute_distance(a, b, h);
      EXPECT_NEAR(got.distance, want, tol) << "type " << int(t) << " case " << i;
      expect_consistent(got, a, b, "random");
      expect_gradient(a, b, "random");
      expect_float_matches(a, b, "random");
    }
  }
}

TEST(Distance, ParallelCapsulesAreExactAndTranslationGradientHolds) {
  // two parallel capsules side by side along z, overlapping in z over [0.2, 0.5]
  CollisionShape<double> b =
      make_shape(ShapeType::kCapsule, V{0, 0, 0.3}, quat_identity<double>(), V{0.05, 0.2, 0});
  CapsuleA a{V{0.3, 0, 0.2}, V{0.3, 0, 0.8}, 0.04};
  Contact<double> c = capsule_shape(a.a0, a.a1, a.r, b);
  EXPECT_NEAR(c.distance, 0.3 - 0.09, kExact);
  EXPECT_NEAR(c.normal.x, 1.0, kExact);
  // the witness is in the overlap (its middle)
  EXPECT_NEAR(c.point_a.z, 0.35, kExact);
  expect_consistent(c, a, b, "parallel");
  // a translation keeps the segments parallel: the distance is smooth
  for (V v : {V{1, 0, 0}, V{0, 1, 0}, V{0, 0, 1}}) {
    double h = 1e-6;
    CapsuleA p{a.a0 + h * v, a.a1 + h * v, a.r}, m{a.a0 - h * v, a.a1 - h * v, a.r};
    double fd =
        (capsule_shape(p.a0, p.a1, p.r, b).distance - capsule_shape(m.a0, m.a1, m.r, b).distance) /
        (2 * h);
    EXPECT_NEAR(fd, dot(c.normal, v), kFd);
  }
  // parallel above a box face and a half-space: the middle of the segment
  CollisionShape<double> box =
      make_shape(ShapeType::kBox, V{0, 0, 0}, quat_identity<double>(), V{1, 1, 0.1});
  CapsuleA flat{V{-0.2, 0, 0.3}, V{0.4, 0, 0.3}, 0.05};
  Contact<double> cb = capsule_shape(flat.a0, flat.a1, flat.r, box);
  EXPECT_NEAR(cb.distance, 0.15, kExact);
  EXPECT_NEAR(cb.normal.z, 1.0, kExact);
  CollisionShape<double> floor =
      make_shape(ShapeType::kHalfSpace, V{0, 0, 0}, quat_identity<double>(), V{0, 0, 0});
  Contact<double> cf = capsule_shape(flat.a0, flat.a1, flat.r, floor);
  EXPECT_NEAR(cf.distance, 0.25, kExact);
  EXPECT_NEAR(cf.point_a.x, 0.1, kExact);
}

TEST(Distance, TouchingShapesHaveZeroDistance) {
  CapsuleA sphere{V{0, 0, 0.3}, V{0, 0, 0.3}, 0.1};
  CollisionShape<double> box =
      make_shape(ShapeType::kBox, V{0, 0, 0}, quat_identity<double>(), V{0.5, 0.5, 0.2});
  CollisionShape<double> cyl =
      make_shape(ShapeType::kCylinder, V{0, 0, 0}, quat_identity<double>(), V{0.5, 0.2, 0});
  CollisionShape<double> ball =
      make_shape(ShapeType::kSphere, V{0, 0, 0.1}, quat_identity<double>(), V{0.1, 0, 0});
  CollisionShape<double> floor =
      make_shape(ShapeType::kHalfSpace, V{0, 0, 0.2}, quat_identity<double>(), V{0, 0, 0});
  for (const CollisionShape<double>& b : {box, cyl, ball, floor}) {
    Contact<double> c = capsule_shape(sphere.a0, sphere.a1, sphere.r, b);
    EXPECT_NEAR(c.distance, 0.0, kExact) << int(b.type);
    EXPECT_NEAR(c.normal.z, 1.0, kExact) << int(b.type);
    expect_gradient(sphere, b, "touching");
  }
  // a box edge touching a sphere: the normal is the diagonal
  CapsuleA edge{V{0.5 + 0.1 / std::sqrt(2.0), 0, 0.2 + 0.1 / std::sqrt(2.0)},
                V{0.5 + 0.1 / std::sqrt(2.0), 0, 0.2 + 0.1 / std::sqrt(2.0)}, 0.1};
  Contact<double> ce = capsule_shape(edge.a0, edge.a1, edge.r, box);
  EXPECT_NEAR(ce.distance, 0.0, kExact);
  EXPECT_NEAR(ce.normal.x, 1 / std::sqrt(2.0), kExact);
  EXPECT_NEAR(ce.normal.z, 1 / std::sqrt(2.0), kExact);
}

TEST(Distance, DeepPenetrationIsNegativeWithAnOutwardNormal) {
  CollisionShape<double> box =
      make_shape(ShapeType::kBox, V{0, 0, 0}, quat_identity<double>(), V{0.5, 0.3, 0.2});
  // a sphere centre 0.05 below the top face: depth 0.05 + r
  CapsuleA a{V{0.1, 0, 0.15}, V{0.1, 0, 0.15}, 0.05};
  Contact<double> c = capsule_shape(a.a0, a.a1, a.r, box);
  EXPECT_NEAR(c.distance, -0.1, kExact);
  EXPECT_NEAR(c.normal.z, 1.0, kExact);
  EXPECT_NEAR(c.point_b.z, 0.2, kExact);
  expect_consistent(c, a, box, "deep box");
  expect_gradient(a, box, "deep box");
  // a capsule straight through a cylinder along its axis: the deepest point is the centre
  CollisionShape<double> cyl =
      make_shape(ShapeType::kCylinder, V{0, 0, 0}, quat_identity<double>(), V{0.2, 0.5, 0});
  CapsuleA through{V{0.05, 0, -1}, V{0.05, 0, 1}, 0.02};
  Contact<double> cc = capsule_shape(through.a0, through.a1, through.r, cyl);
  EXPECT_NEAR(cc.distance, -0.15 - 0.02, 1e-6);
  EXPECT_NEAR(cc.normal.x, 1.0, kExact);
  // two capsules whose axes cross: depth ra + rb, the normal perpendicular to both axes
  CollisionShape<double> cap =
      make_shape(ShapeType::kCapsule, V{0, 0, 0}, quat_identity<double>(), V{0.05, 0.3, 0});
  CapsuleA cross_a{V{-0.3, 0, 0}, V{0.3, 0, 0}, 0.04};
  Contact<double> cx = capsule_shape(cross_a.a0, cross_a.a1, cross_a.r, cap);
  EXPECT_NEAR(cx.distance, -0.09, kExact);
  EXPECT_NEAR(std::abs(cx.normal.y), 1.0, kExact);
  // |ca - cb| has a kink at zero: check the one-sided derivative along the chosen normal
  double h = 1e-7;
  CapsuleA pushed{cross_a.a0 + h * cx.normal, cross_a.a1 + h * cx.normal, cross_a.r};
  EXPECT_NEAR((capsule_shape(pushed.a0, pushed.a1, pushed.r, cap).distance - cx.distance) / h, 1.0,
              kFd);
  // concentric spheres
  CollisionShape<double> ball =
      make_shape(ShapeType::kSphere, V{0, 0, 0}, quat_identity<double>(), V{0.1, 0, 0});
  CapsuleA centre{V{0, 0, 0}, V{0, 0, 0}, 0.05};
  Contact<double> cs = capsule_shape(centre.a0, centre.a1, centre.r, ball);
  EXPECT_NEAR(cs.distance, -0.15, kExact);
  EXPECT_NEAR(length(cs.normal), 1.0, kExact);
}

TEST(Distance, CapsulePairGradientForBothBodies) {
  // self collision moves both capsules: d(distance) = n . (v_a(point_a) - v_b(point_b))
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (int i = 0; i < 20; ++i) {
    V a0{u(rng), u(rng), u(rng)}, a1{u(rng), u(rng), u(rng)};
    V b0{u(rng), u(rng), u(rng)}, b1{u(rng), u(rng), u(rng)};
    double ra = 0.05, rb = 0.07;
    Contact<double> c = capsule_capsule(a0, a1, ra, b0, b1, rb);
    V v = random_unit(rng), w = random_unit(rng);
    double h = 1e-6;
    auto d_at = [&](double e) {
      Quat<double> r = quat_exp(e * w);
      return capsule_capsule(a0, a1, ra, rotate(r, b0) + e * v, rotate(r, b1) + e * v, rb).distance;
    };
    double fd = (d_at(h) - d_at(-h)) / (2 * h);
    EXPECT_NEAR(fd, -dot(c.normal, v + cross(w, c.point_b)), kFd) << i;
  }
}

TEST(Distance, DegenerateSegmentsArePoints) {
  double s, t;
  closest_segment_params(V{0, 0, 0}, V{0, 0, 0}, V{1, 0, 0}, V{1, 0, 0}, &s, &t);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(t, 0.0);
  closest_segment_params(V{0, 0, 0}, V{0, 0, 0}, V{-1, 1, 0}, V{1, 1, 0}, &s, &t);
  EXPECT_NEAR(t, 0.5, kExact);
  Contact<double> c = capsule_capsule(V{0, 0, 0}, V{0, 0, 0}, 0.1, V{-1, 1, 0}, V{1, 1, 0}, 0.2);
  EXPECT_NEAR(c.distance, 0.7, kExact);
  EXPECT_NEAR(c.normal.y, -1.0, kExact);
}

// the distance of two segments by nested ternary searches (it is convex in s and in t): exact
// to ~1e-12 m whatever their angle
double segment_distance_search(const V& p0, const V& p1, const V& q0, const V& q1) {
  auto at = [&](double s) {
    const V p = p0 + s * (p1 - p0);
    double lo = 0, hi = 1;
    for (int k = 0; k < 200; ++k) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      if (length(p - (q0 + m1 * (q1 - q0))) < length(p - (q0 + m2 * (q1 - q0))))
        hi = m2;
      else
        lo = m1;
    }
    return length(p - (q0 + 0.5 * (lo + hi) * (q1 - q0)));
  };
  double lo = 0, hi = 1;
  for (int k = 0; k < 200; ++k) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (at(m1) < at(m2))
      hi = m2;
    else
      lo = m1;
  }
  return at(0.5 * (lo + hi));
}

// Segments within 3e-5 rad of parallel took the middle of their overlap as the closest points,
// where an end (or the lines' crossing) is closer: two 1 m links tilted 3.1e-5 rad, 11 um into
// each other, read 4 um apart (a review). Every angle from 1e-9 to 1e-3 rad, side by side,
// overlapping by part, crossing at an interior point, and exactly parallel (the middle kept)
TEST(Distance, NearlyParallelSegmentsFindTheirClosestPoints) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int cases = 0;
  for (double angle : {0.0, 1e-9, 1e-7, 1e-6, 1e-5, 3.1e-5, 1e-4, 1e-3}) {
    for (int i = 0; i < 40; ++i) {
      const V dir = random_unit(rng);
      const V side = any_perpendicular(dir);
      const V up = cross(dir, side);
      const double len_a = 0.3 + 0.7 * std::abs(u(rng)), len_b = 0.3 + 0.7 * std::abs(u(rng));
      // b's axis turned by `angle` about `up`, offset sideways, slid along a's axis
      const V db = std::cos(angle) * dir + std::sin(angle) * side;
      const V a0 = V{u(rng), u(rng), u(rng)}, a1 = a0 + len_a * dir;
      const double offset = i % 4 == 0 ? 0.0 : 1e-5 * u(rng);
      const V b0 = a0 + (0.5 * len_a * u(rng)) * dir + offset * side + 1e-6 * u(rng) * up;
      const V b1 = b0 + len_b * db;
      double s, t;
      closest_segment_params(a0, a1, b0, b1, &s, &t);
      const double got = length((a0 + s * (a1 - a0)) - (b0 + t * (b1 - b0)));
      const double want = segment_distance_search(a0, a1, b0, b1);
      EXPECT_NEAR(got, want, 1e-9) << "angle " << angle << " case " << i;
      ++cases;
    }
  }
  EXPECT_EQ(cases, 320);
  // the review's pair: 1 m links 0.06 apart at one end (radii 0.03), one tilted 3.1e-5 rad
  // toward the other; the near ends overlap by 11.5 um
  const double tilt = 3.1e-5;
  const Contact<double> c = capsule_capsule(V{0, 0, 0}, V{1, 0, 0}, 0.03, V{0, 0.06, 0},
                                            V{std::cos(tilt), 0.06 - std::sin(tilt), 0}, 0.03);
  EXPECT_NEAR(c.distance, 0.06 - std::sin(tilt) - 0.06, 1e-12);
  // exactly parallel: the middle of the overlap stands
  double s, t;
  closest_segment_params(V{0, 0, 0}, V{1, 0, 0}, V{0.5, 0.1, 0}, V{2, 0.1, 0}, &s, &t);
  EXPECT_NEAR(s, 0.75, 1e-12);
}

}  // namespace
}  // namespace ikwb
