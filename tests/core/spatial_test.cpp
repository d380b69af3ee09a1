// Tests of the shared host/device math in engine/core/spatial.hpp, against Eigen and closed forms.
//
// Tolerances: these are a handful of double operations on O(1) values, so results agree with
// an independent computation to a few ulps; 1e-14 leaves ~50 ulps of room. Finite differences
// of log(exp(t w) R) use a central step h = 1e-6: truncation O(h^2) ~ 1e-12, rounding
// eps / h ~ 1e-10, hence 1e-7.
#include "engine/core/spatial.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/kinematics_checks.hpp"

namespace ikwb {
namespace {

using test::near3;
using test::same_rotation;

constexpr double kTight = 1e-14;
constexpr double kFd = 1e-7;

Eigen::Matrix3d matrix(const Quat<double>& q) {
  double m[9];
  quat_to_matrix(q, m);
  Eigen::Matrix3d r;
  r << m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8];
  return r;
}

Eigen::Quaterniond eigen_quat(const Quat<double>& q) {
  return Eigen::Quaterniond(q.w, q.x, q.y, q.z);
}

Eigen::Vector3d ev(const Vec3<double>& v) {
  return {v.x, v.y, v.z};
}
Vec3<double> iv(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}

Quat<double> random_quat(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  return normalize(Quat<double>{n(rng), n(rng), n(rng), n(rng)});
}

Vec3<double> random_unit(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vec3<double> v{n(rng), n(rng), n(rng)};
  return (1.0 / length(v)) * v;
}

TEST(Spatial, VectorOps) {
  Vec3<double> a{1, 2, 3}, b{-4, 0.5, 2};
  EXPECT_EQ(dot(a, b), -4 + 1 + 6);
  EXPECT_TRUE(near3(cross(a, b), iv(ev(a).cross(ev(b))), 0));
  EXPECT_TRUE(near3(cross(Vec3<double>{1, 0, 0}, Vec3<double>{0, 1, 0}), {0, 0, 1}, 0));
  EXPECT_EQ(length(Vec3<double>{3, 4, 12}), 13);
  a[1] = 7;
  EXPECT_EQ(a.y, 7);
  const Vec3<double>& c = a;
  EXPECT_EQ(c[2], 3);
  Vec3<float> f = cast<float>(Vec3<double>{0.1, 0.2, 0.3});
  EXPECT_EQ(f.y, 0.2f);
}

TEST(Spatial, QuaternionProductMatchesEigenAndMatrices) {
  std::mt19937 rng(1);
  for (int i = 0; i < 100; ++i) {
    Quat<double> a = random_quat(rng), b = random_quat(rng);
    Quat<double> ab = a * b;
    Eigen::Quaterniond e = eigen_quat(a) * eigen_quat(b);
    EXPECT_NEAR(ab.x, e.x(), kTight);
    EXPECT_NEAR(ab.y, e.y(), kTight);
    EXPECT_NEAR(ab.z, e.z(), kTight);
    EXPECT_NEAR(ab.w, e.w(), kTight);
    EXPECT_LT((matrix(ab) - matrix(a) * matrix(b)).norm(), kTight);
    EXPECT_LT((matrix(a) - eigen_quat(a).toRotationMatrix()).norm(), kTight);
  }
}

TEST(Spatial, QuaternionStorageIsXyzw) {
  // 90 degrees about z takes x to y; the scalar part is the last member
  Quat<double> q = quat_from_axis_angle(Vec3<double>{0, 0, 1}, M_PI / 2);
  EXPECT_NEAR(q.z, std::sin(M_PI / 4), kTight);
  EXPECT_NEAR(q.w, std::cos(M_PI / 4), kTight);
  EXPECT_EQ(q.x, 0);
  EXPECT_TRUE(near3(rotate(q, Vec3<double>{1, 0, 0}), {0, 1, 0}, kTight));
  Quat<double> id = quat_identity<double>();
  EXPECT_EQ(id.w, 1);
  EXPECT_EQ(id.x, 0);
}

TEST(Spatial, RotateConjugateNormalize) {
  std::mt19937 rng(2);
  for (int i = 0; i < 100; ++i) {
    Quat<double> q = random_quat(rng);
    Vec3<double> v{1.5 * i / 100.0 - 0.7, 0.3, -2.0};
    EXPECT_TRUE(near3(rotate(q, v), iv(matrix(q) * ev(v)), kTight));
    EXPECT_TRUE(near3(rotate_inv(q, rotate(q, v)), v, kTight));
    EXPECT_TRUE(same_rotation(q * conjugate(q), quat_identity<double>(), kTight));
    // rotations compose right to left
    Quat<double> r = random_quat(rng);
    EXPECT_TRUE(near3(rotate(q * r, v), rotate(q, rotate(r, v)), kTight));
    Quat<double> big{3 * q.x, 3 * q.y, 3 * q.z, 3 * q.w};
    EXPECT_NEAR(quat_norm(big), 3, kTight);
    EXPECT_TRUE(same_rotation(normalize(big), q, kTight));
  }
  // degenerate input gives the identity rather than NaN
  Quat<double> zero{0, 0, 0, 0};
  EXPECT_TRUE(same_rotation(normalize(zero), quat_identity<double>(), 0));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(same_rotation(normalize(Quat<double>{nan, 0, 0, 1}), quat_identity<double>(), 0));
  EXPECT_TRUE(same_rotation(normalize(Quat<double>{inf, 0, 0, 1}), quat_identity<double>(), 0));
  // components whose squares overflow or underflow: scaled first (1e160 came out as a zero
  // quaternion, and FK then wrote zero quaternions for every body below the joint)
  for (double scale : {1e160, 1e300, 1e-170, 1e-300}) {
    const Quat<double> q = random_quat(rng);
    const Quat<double> n =
        normalize(Quat<double>{scale * q.x, scale * q.y, scale * q.z, scale * q.w});
    EXPECT_TRUE(same_rotation(n, q, kTight)) << scale;
    EXPECT_NEAR(quat_norm(n), 1, kTight) << scale;
  }
  const Quat<float> f = normalize(Quat<float>{1e30f, 0, 0, 1e30f});
  EXPECT_NEAR(f.x, std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(f.w, std::sqrt(0.5f), 1e-6f);
}

TEST(Spatial, TransformComposeInverse) {
  std::mt19937 rng(3);
  for (int i = 0; i < 50; ++i) {
    Transform<double> a = test::random_transform(rng), b = test::random_transform(rng);
    Vec3<double> x{0.4, -1.0, 2.5};
    // A transform maps child coordinates to parent coordinates: x_parent = p + q x_child
    EXPECT_TRUE(near3(transform_point(a, x), a.p + iv(matrix(a.q) * ev(x)), kTight));
    EXPECT_TRUE(near3(transform_point(a * b, x), transform_point(a, transform_point(b, x)), 1e-13));
    Transform<double> e = inverse(a) * a;
    EXPECT_TRUE(near3(e.p, zero3<double>(), kTight));
    EXPECT_TRUE(same_rotation(e.q, quat_identity<double>(), kTight));
    EXPECT_TRUE(near3(transform_point(inverse(a), transform_point(a, x)), x, 1e-13));
  }
  Transform<float> f = cast<float>(transform_identity<double>());
  EXPECT_EQ(f.q.w, 1.0f);
}

TEST(Spatial, RpyIsUrdfConvention) {
  // R = Rz(yaw) Ry(pitch) Rx(roll), fixed axes
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-M_PI, M_PI);
  for (int i = 0; i < 100; ++i) {
    double r = u(rng), p = 0.5 * u(rng), y = u(rng);
    Eigen::Matrix3d want = (Eigen::AngleAxisd(y, Eigen::Vector3d::UnitZ()) *
                            Eigen::AngleAxisd(p, Eigen::Vector3d::UnitY()) *
                            Eigen::AngleAxisd(r, Eigen::Vector3d::UnitX()))
                               .toRotationMatrix();
    EXPECT_LT((matrix(quat_from_rpy(r, p, y)) - want).norm(), kTight);
  }
  // single angles, by hand
  EXPECT_TRUE(
      near3(rotate(quat_from_rpy(M_PI / 2, 0.0, 0.0), Vec3<double>{0, 1, 0}), {0, 0, 1}, kTight));
  EXPECT_TRUE(
      near3(rotate(quat_from_rpy(0.0, M_PI / 2, 0.0), Vec3<double>{0, 0, 1}), {1, 0, 0}, kTight));
  EXPECT_TRUE(
      near3(rotate(quat_from_rpy(0.0, 0.0, M_PI / 2), Vec3<double>{1, 0, 0}), {0, 1, 0}, kTight));
  // roll is applied first: roll 90 then yaw 90 takes y to z (roll), z stays under yaw
  EXPECT_TRUE(near3(rotate(quat_from_rpy(M_PI / 2, 0.0, M_PI / 2), Vec3<double>{0, 1, 0}),
                    {0, 0, 1}, kTight));
  EXPECT_TRUE(near3(rotate(quat_from_rpy(M_PI / 2, 0.0, M_PI / 2), Vec3<double>{1, 0, 0}),
                    {0, 1, 0}, kTight));
}

TEST(Spatial, MatrixIsOrthonormal) {
  std::mt19937 rng(5);
  for (int i = 0; i < 20; ++i) {
    Eigen::Matrix3d r = matrix(random_quat(rng));
    EXPECT_LT((r * r.transpose() - Eigen::Matrix3d::Identity()).norm(), kTight);
    EXPECT_NEAR(r.determinant(), 1.0, kTight);
  }
}

TEST(Spatial, ExpMatchesAxisAngle) {
  std::mt19937 rng(6);
  for (double angle : {1e-9, 1e-6, 0.9e-6, 1.1e-6, 1e-3, 0.5, 2.0, M_PI - 1e-6, M_PI, 4.0}) {
    Vec3<double> axis = random_unit(rng);
    Quat<double> a = quat_exp(angle * axis);
    Quat<double> b = quat_from_axis_angle(axis, angle);
    EXPECT_NEAR(a.x, b.x, kTight) << angle;
    EXPECT_NEAR(a.y, b.y, kTight) << angle;
    EXPECT_NEAR(a.z, b.z, kTight) << angle;
    EXPECT_NEAR(a.w, b.w, kTight) << angle;
    EXPECT_NEAR(quat_norm(a), 1.0, kTight) << angle;
    Eigen::Matrix3d want = Eigen::AngleAxisd(angle, ev(axis)).toRotationMatrix();
    EXPECT_LT((matrix(a) - want).norm(), kTight) << angle;
  }
  Quat<double> z = quat_exp(zero3<double>());
  EXPECT_EQ(z.w, 1);
  EXPECT_EQ(z.x, 0);
}

TEST(Spatial, LogExpRoundTrip) {
  std::mt19937 rng(7);
  // relative accuracy of log(exp(v)) for |v| < pi, including the series branches near 0
  for (double angle : {0.0, 1e-12, 1e-9, 0.99e-6, 1e-6, 1.01e-6, 1e-4, 0.1, 1.0, 2.5, 3.0,
                       M_PI - 1e-4, M_PI - 1e-7}) {
    for (int i = 0; i < 5; ++i) {
      Vec3<double> v = angle * random_unit(rng);
      Vec3<double> back = quat_log(quat_exp(v));
      EXPECT_LE(length(back - v), kTight * std::max(1.0, angle)) << angle;
      if (angle > 0) {
        EXPECT_LE(length(back - v) / angle, 1e-15 * 8) << angle;
      }
    }
  }
  // random unit quaternions: exp(log(q)) = +-q and |log(q)| <= pi
  for (int i = 0; i < 200; ++i) {
    Quat<double> q = random_quat(rng);
    Vec3<double> v = quat_log(q);
    EXPECT_LE(length(v), M_PI + kTight);
    EXPECT_TRUE(same_rotation(quat_exp(v), q, kTight));
    // both signs of a quaternion have the same log
    Vec3<double> vn = quat_log(Quat<double>{-q.x, -q.y, -q.z, -q.w});
    EXPECT_TRUE(near3(v, vn, kTight));
  }
}

TEST(Spatial, LogNearPiPicksShortestRotation) {
  Vec3<double> axis{0, 0.6, 0.8};
  // just under pi: unchanged
  double a = M_PI - 1e-9;
  EXPECT_TRUE(near3(quat_log(quat_exp(a * axis)), a * axis, kTight));
  // exactly pi: w = 0, either sign of the axis is a valid answer
  Vec3<double> at_pi = quat_log(quat_exp(M_PI * axis));
  EXPECT_NEAR(length(at_pi), M_PI, kTight);
  EXPECT_NEAR(std::fabs(dot(at_pi, axis)), M_PI, kTight);
  // just over pi: the shorter rotation the other way round
  double b = M_PI + 1e-6;
  EXPECT_TRUE(near3(quat_log(quat_exp(b * axis)), (b - 2 * M_PI) * axis, kTight));
  EXPECT_TRUE(near3(quat_log(quat_exp(5.0 * axis)), (5.0 - 2 * M_PI) * axis, kTight));
}

TEST(Spatial, LogSmallAngleSeriesIsContinuous) {
  // the series branch (|u|^2 < 1e-12) and the atan2 branch agree at the switch
  Vec3<double> axis{0.48, -0.6, 0.64};
  for (double s : {0.999e-6, 1.0e-6, 1.001e-6}) {
    Quat<double> q{s * axis.x, s * axis.y, s * axis.z, std::sqrt(1 - s * s)};
    double want = 2 * std::atan2(s, q.w);
    EXPECT_NEAR(length(quat_log(q)), want, want * 1e-15);
  }
}

// J_l(phi) w, the left Jacobian of SO(3), written out independently
Vec3<double> so3_left_jacobian_apply(const Vec3<double>& phi, const Vec3<double>& w) {
  double th = length(phi);
  Eigen::Matrix3d k;
  k << 0, -phi.z, phi.y, phi.z, 0, -phi.x, -phi.y, phi.x, 0;
  Eigen::Matrix3d j = Eigen::Matrix3d::Identity() + (1 - std::cos(th)) / (th * th) * k +
                      (th - std::sin(th)) / (th * th * th) * k * k;
  return iv(j * ev(w));
}

TEST(Spatial, LeftJacobianInverseMatchesFiniteDifferences) {
  std::mt19937 rng(8);
  const double h = 1e-6;
  for (double angle : {1e-7, 1e-5, 0.99e-4, 1.01e-4, 1e-2, 0.5, 1.5, 2.5, 3.0, M_PI - 1e-3}) {
    for (int i = 0; i < 5; ++i) {
      Vec3<double> phi = angle * random_unit(rng);
      Vec3<double> w = random_unit(rng);
      Quat<double> r = quat_exp(phi);
      Vec3<double> fd =
          (1.0 / (2 * h)) * (quat_log(quat_exp(h * w) * r) - quat_log(quat_exp(-h * w) * r));
      Vec3<double> got = so3_left_jacobian_inv_apply(phi, w);
      EXPECT_TRUE(near3(got, fd, kFd)) << "angle " << angle;
      // and it inverts the closed-form left Jacobian
      if (angle > 1e-3) {
        EXPECT_TRUE(near3(so3_left_jacobian_apply(phi, got), w, 1e-13));
      }
    }
  }
}

TEST(Spatial, LeftJacobianInverseSeriesIsContinuous) {
  // the series branch (theta^2 < 1e-8) and the closed form agree across the switch
  Vec3<double> axis{0.0, 0.6, 0.8}, w{0.3, -1.0, 0.2};
  Vec3<double> below = so3_left_jacobian_inv_apply((1e-4 * (1 - 1e-9)) * axis, w);
  Vec3<double> above = so3_left_jacobian_inv_apply((1e-4 * (1 + 1e-9)) * axis, w);
  EXPECT_TRUE(near3(below, above, 1e-13));
  EXPECT_TRUE(near3(so3_left_jacobian_inv_apply(zero3<double>(), w), w, 0));
}

// |got - exact| in units of the last place of the double nearest the exact value, with long
// double sinl / cosl (64-bit significand, 11 bits beyond double) as the exact value
double ulp_error(double got, long double exact) {
  const double e = std::fabs(double(exact));
  const double ulp = std::nextafter(e, INFINITY) - e;
  return double(std::fabs((long double)got - exact) / ulp);
}

TEST(Spatial, SinCosIsWithinAnUlp) {
  // sin_cos (double, host) against long double: within 1 ulp over the angles joints take and
  // across the reductions by pi / 2 (measured: 0.79 ulp at most on [-10, 10]); within 1.2 ulp
  // up to 2^19 (1.15 measured); beyond, and for non-finite x, the C library's own values
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> joint(-10.0, 10.0), far(-5e5, 5e5);
  double worst = 0, worst_far = 0;
  auto err = [](double x) {
    double s, c;
    sin_cos(x, s, c);
    return std::max(ulp_error(s, sinl((long double)x)), ulp_error(c, cosl((long double)x)));
  };
  for (int i = 0; i < 200000; ++i) worst = std::max(worst, err(joint(rng)));
  for (int k = -64; k <= 64; ++k)  // next to the multiples of pi / 2, where r is small
    for (double d : {0.0, 1e-300, 1e-12, -1e-12, 1e-6, -1e-6, 0.785, -0.785})
      worst = std::max(worst, err(k * (M_PI / 2) + d));
  for (double x : {0.0, 1e-310, -1e-20, 0.5, 1.0, 3.0}) worst = std::max(worst, err(x));
  EXPECT_LE(worst, 1.0);
  for (int i = 0; i < 20000; ++i) worst_far = std::max(worst_far, err(far(rng)));
  EXPECT_LE(worst_far, 1.2);
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0x1p19, -0x1p19, 1e10, inf, -inf, std::nan("")}) {
    double s, c;
    sin_cos(x, s, c);
    EXPECT_TRUE(s == std::sin(x) || (std::isnan(s) && std::isnan(std::sin(x)))) << x;
    EXPECT_TRUE(c == std::cos(x) || (std::isnan(c) && std::isnan(std::cos(x)))) << x;
  }
  // other scalars call sin and cos
  float sf, cf;
  sin_cos(0.7f, sf, cf);
  EXPECT_EQ(sf, std::sin(0.7f));
  EXPECT_EQ(cf, std::cos(0.7f));
}

TEST(Spatial, WrapAngleTakesTheShortestTurn) {
  // in range: the very same number
  for (double x : {0.0, 1.0, -3.0, M_PI, std::nextafter(-M_PI, 0.0)})
    EXPECT_EQ(wrap_angle(x), x) << x;
  // -pi is pi, and whole turns go
  EXPECT_EQ(wrap_angle(-M_PI), M_PI);
  EXPECT_NEAR(wrap_angle(3 * M_PI), M_PI, kTight);
  EXPECT_NEAR(wrap_angle(6.2), 6.2 - 2 * M_PI, kTight);
  EXPECT_NEAR(wrap_angle(7.48), 7.48 - 2 * M_PI, kTight);
  EXPECT_NEAR(wrap_angle(-12.0), -12.0 + 4 * M_PI, kTight);
  for (double x = -40.0; x < 40.0; x += 0.37) {
    const double w = wrap_angle(x);
    EXPECT_TRUE(w > -M_PI && w <= M_PI) << x;
    EXPECT_NEAR(std::remainder(w - x, 2 * M_PI), 0.0, kTight) << x;
  }
  EXPECT_EQ(wrap_angle(-3.14159265f), 3.14159265f);
  EXPECT_NEAR(wrap_angle(7.48f), 7.48f - 6.28318531f, 1e-6f);
}

// a unit quaternion read back from a file stays as written, bit for bit (normalising it again
// moved its last bits and a scene saved, opened and saved again differed); others are normalised
TEST(Spatial, NormalizeUnlessUnitKeepsAUnitQuaternionsBits) {
  std::mt19937 rng(5);
  std::normal_distribution<double> g;
  for (int i = 0; i < 1000; ++i) {
    const Quat<double> q = normalize(Quat<double>{g(rng), g(rng), g(rng), g(rng)});
    const Quat<double> kept = normalize_unless_unit(q);
    EXPECT_TRUE(kept.x == q.x && kept.y == q.y && kept.z == q.z && kept.w == q.w) << i;
  }
  const Quat<double> off = normalize_unless_unit(Quat<double>{0, 0, 0.6, 0.8001});
  EXPECT_NEAR(quat_norm(off), 1.0, 1e-15);
}

TEST(Spatial, FloatInstantiation) {
  Vec3<float> v{0.3f, -0.2f, 0.9f};
  Quat<float> q = quat_exp(v);
  Vec3<float> back = quat_log(q);
  EXPECT_NEAR(back.x, v.x, 1e-6f);
  EXPECT_NEAR(back.z, v.z, 1e-6f);
  Vec3<float> j = so3_left_jacobian_inv_apply(v, Vec3<float>{1, 0, 0});
  Vec3<double> jd = so3_left_jacobian_inv_apply(cast<double>(v), Vec3<double>{1, 0, 0});
  EXPECT_NEAR(j.y, jd.y, 1e-6);
}

}  // namespace
}  // namespace ikwb
