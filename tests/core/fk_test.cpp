#include "engine/core/fk.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/test_models.hpp"

namespace ikwb {
namespace {

using test::all_joint_types;
using test::planar_arm;
using test::random_configuration;

void expect_near(const Vec3<double>& a, const Vec3<double>& b, double tol) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

TEST(Fk, PlanarArmMatchesHandComputedPose) {
  Model m = planar_arm();
  State s(m);
  std::vector<double> q = {0.3, -0.5, 0.9};
  eval_fk(m, q, {}, s);
  double a1 = 0.3, a2 = 0.3 - 0.5, a3 = 0.3 - 0.5 + 0.9;
  Vec3<double> tip{std::cos(a1) + 0.8 * std::cos(a2) + 0.5 * std::cos(a3),
                   std::sin(a1) + 0.8 * std::sin(a2) + 0.5 * std::sin(a3), 0.1};
  expect_near(s.body_q[m.find_body("tip")].p, tip, 1e-12);
  Quat<double> r = s.body_q[m.find_body("tip")].q;
  EXPECT_NEAR(2 * std::atan2(r.z, r.w), a3, 1e-12);
}

}  // namespace
}  // namespace ikwb
