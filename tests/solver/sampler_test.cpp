// Seed samplers (solver/sampler.hpp): determinism, limits, unit quaternions, uniformity of
// rotations, the Roberts sequence's low discrepancy, the gaussian spread and the dof mask.
#include "solver/sampler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/test_models.hpp"
#include "solver/solver_test_util.hpp"

namespace ikwb {
namespace {

// the zoo far from the origin, and a random initial configuration
struct SamplerSetup {
  Model model;
  std::vector<double> init;

  explicit SamplerSetup(bool planar = true)
      : model(test::all_joint_types(true, {30.0, -20.0, 15.0}, planar)) {
    std::mt19937 rng(9);
    init = test::random_configuration(model, rng);
  }

  std::vector<double> sample(SeedSampler kind, uint32_t sequence, uint64_t rng_seed = 1,
                             double sigma = 0.3, int problem = 0,
                             const uint8_t* dof_free = nullptr) const {
    std::vector<double> out(model.coord_count), scratch(model.dof_count);
    sample_seed(model.view(), model.dof_lower.data(), model.dof_upper.data(), kind, sigma, rng_seed,
                problem, sequence, init.data(), out.data(), scratch.data(), dof_free);
    return out;
  }

  int q_of(const char* joint) const { return model.joint_q_start[model.find_joint(joint)]; }
};

struct SamplerFixture : ::testing::Test, SamplerSetup {};

const SeedSampler kRandomKinds[] = {SeedSampler::kGaussian, SeedSampler::kUniform,
                                    SeedSampler::kRoberts};

TEST_F(SamplerFixture, SeedZeroAndNoneAreTheInitialConfiguration) {
  for (SeedSampler k : kRandomKinds) EXPECT_EQ(sample(k, 0), init);
  for (uint32_t s : {1u, 2u, 77u}) EXPECT_EQ(sample(SeedSampler::kNone, s), init);
}

TEST_F(SamplerFixture, Deterministic) {
  for (SeedSampler k : kRandomKinds) {
    EXPECT_EQ(sample(k, 5, 42), sample(k, 5, 42));
    EXPECT_NE(sample(k, 5, 42), sample(k, 6, 42));
    // a problem's seeds do not depend on its index in the batch
    EXPECT_EQ(sample(k, 5, 42, 0.3, 0), sample(k, 5, 42, 0.3, 17));
    if (k != SeedSampler::kRoberts) {
      EXPECT_NE(sample(k, 5, 42), sample(k, 5, 43));
    }
  }
}

TEST_F(SamplerFixture, WithinLimitsAndUnitQuaternions) {
  const double pi = M_PI;
  for (SeedSampler k : kRandomKinds) {
    for (uint32_t s = 1; s < 300; ++s) {
      std::vector<double> q = sample(k, s, 3, 0.3);
      test::expect_within_limits(model, q);
      for (int j = 0; j < model.joint_count; ++j) {
        if (model.joint_mimic[j] >= 0) continue;
        JointType t = JointType(model.joint_type[j]);
        int qs = model.joint_q_start[j];
        if (t == JointType::kBall || t == JointType::kFree) {
          int o = t == JointType::kFree ? 3 : 0;
          double n =
              quat_norm(Quat<double>{q[qs + o], q[qs + o + 1], q[qs + o + 2], q[qs + o + 3]});
          EXPECT_NEAR(n, 1.0, 1e-12);
        }
        if (t == JointType::kFree && k != SeedSampler::kGaussian) {
          for (int i = 0; i < 3; ++i) EXPECT_LE(std::fabs(q[qs + i] - init[qs + i]), 0.3 + 1e-12);
          // a floating base keeps its orientation: seeds are postures where the robot stands
          for (int i = 3; i < 7; ++i) EXPECT_EQ(q[qs + i], init[qs + i]);
        }
        if (t == JointType::kContinuous && k != SeedSampler::kGaussian) {
          EXPECT_GE(q[qs], -pi);
          EXPECT_LE(q[qs], pi);
        }
      }
    }
  }
}

// uniform rotations (Shoemake): the mean of a rotated unit vector vanishes, the rotation
// angle has density (1 - cos t) / pi on [0, pi] (mean pi/2 + 2/pi), and the Roberts points
// give the same statistics
TEST_F(SamplerFixture, UniformRotations) {
  const int ball = q_of("ball");
  for (SeedSampler k : {SeedSampler::kUniform, SeedSampler::kRoberts}) {
    const int n = 4000;
    Vec3<double> mean_x{0, 0, 0}, mean_z{0, 0, 0};
    double mean_angle = 0;
    for (int s = 1; s <= n; ++s) {
      std::vector<double> q = sample(k, uint32_t(s), 11);
      Quat<double> r{q[ball], q[ball + 1], q[ball + 2], q[ball + 3]};
      mean_x = mean_x + rotate(r, Vec3<double>{1, 0, 0});
      mean_z = mean_z + rotate(r, Vec3<double>{0, 0, 1});
      mean_angle += length(quat_log(r));
    }
    mean_x = (1.0 / n) * mean_x;
    mean_z = (1.0 / n) * mean_z;
    mean_angle /= n;
    // the mean of n uniform unit vectors has std 1/sqrt(3n) per axis: 0.009; allow 5 sigma
    EXPECT_LT(length(mean_x), 0.05) << int(k);
    EXPECT_LT(length(mean_z), 0.05) << int(k);
    // the angle has std ~0.6: the mean is good to 0.01; allow 5 sigma
    EXPECT_NEAR(mean_angle, M_PI / 2 + 2 / M_PI, 0.05) << int(k);
  }
}

// Kolmogorov-Smirnov distance of each coordinate's samples (mapped to [0, 1]) from uniform:
// random points give ~0.87 / sqrt(n) on average; the Roberts sequence ~log(n) / n
double ks_distance(std::vector<double> u) {
  std::sort(u.begin(), u.end());
  double d = 0;
  const double n = double(u.size());
  for (std::size_t i = 0; i < u.size(); ++i)
    d = std::max({d, std::fabs(u[i] - i / n), std::fabs(u[i] - (i + 1) / n)});
  return d;
}

// Single coordinates of the R_d sequence differ in quality (a few of its d generators are
// close to rationals at a given n); this checks three coordinates of the 13-dimensional
// sequence of the zoo without its planar joint, which are typical.
TEST(Sampler, RobertsHasLowDiscrepancy) {
  const SamplerSetup f(false);
  const Model& model = f.model;
  auto sample = [&](SeedSampler k, uint32_t s, uint64_t seed) { return f.sample(k, s, seed); };
  auto q_of = [&](const char* joint) { return f.q_of(joint); };
  const int n = 1024;
  const int rev = q_of("rev"), pris = q_of("pris"), branch = q_of("branch");
  int drev = model.joint_qd_start[model.find_joint("rev")];
  int dpris = model.joint_qd_start[model.find_joint("pris")];
  int dbranch = model.joint_qd_start[model.find_joint("branch")];
  auto unit = [&](const std::vector<double>& q, int qi, int d) {
    return (q[qi] - model.dof_lower[d]) / (model.dof_upper[d] - model.dof_lower[d]);
  };
  int worst_cell[2] = {0, 0};  // uniform, roberts
  for (SeedSampler k : {SeedSampler::kRoberts, SeedSampler::kUniform}) {
    std::vector<double> a, b, c;
    std::vector<int> cells(64, 0);
    for (int s = 1; s <= n; ++s) {
      std::vector<double> q = sample(k, uint32_t(s), 5);
      a.push_back(unit(q, rev, drev));
      b.push_back(unit(q, pris, dpris));
      c.push_back(unit(q, branch, dbranch));
      int i = std::min(7, int(a.back() * 8)), j = std::min(7, int(b.back() * 8));
      ++cells[i * 8 + j];
    }
    double ks = std::max({ks_distance(a), ks_distance(b), ks_distance(c)});
    int worst = 0;
    for (int v : cells) worst = std::max(worst, std::abs(v - n / 64));
    worst_cell[k == SeedSampler::kRoberts] = worst;
    if (k == SeedSampler::kRoberts) {
      EXPECT_LT(ks, 0.01);  // ~7 / 1024; random points would sit near 0.027
      EXPECT_LE(worst, 5);  // 16 points per cell, nearly exactly (random: ~10 off)
    } else {
      EXPECT_LT(ks, 0.08);  // random: a loose sanity bound (p < 1e-5 to fail)
    }
  }
  EXPECT_LT(worst_cell[1], worst_cell[0]);
  // the generator: the positive root of x^(d+1) = x + 1
  EXPECT_NEAR(roberts_phi(1), (1 + std::sqrt(5.0)) / 2, 1e-14);
  EXPECT_NEAR(roberts_phi(2), 1.324717957244746, 1e-14);
  for (int d : {3, 9, 20}) {
    double x = roberts_phi(d);
    EXPECT_NEAR(std::pow(x, d + 1), x + 1, 1e-12);
  }
}

// the generator at any dimension: beyond about 50 it was not converged (Newton from 2 takes about
// d steps) and from 1023 it was NaN (2^1024 overflows), so every Roberts seed of a chain that
// long was NaN, and read as converged
TEST(Sampler, RobertsGeneratorAtAnyDimension) {
  for (int d : {52, 100, 1022, 1023, 5000, 20000}) {
    const double x = roberts_phi(d);
    ASSERT_TRUE(x > 1 && x < 2) << d << ": " << x;
    EXPECT_NEAR(std::pow(x, d + 1), x + 1, 1e-10) << d;
  }
  ModelBuilder b;
  int parent = b.add_body("base");
  b.add_joint({"weld", JointType::kFixed, -1, parent});
  for (int i = 0; i < 1100; ++i) {
    JointSpec j;
    j.name = "j" + std::to_string(i);
    j.type = JointType::kRevolute;
    j.parent = parent;
    j.child = parent = b.add_body("l" + std::to_string(i));
    j.X_p = {{0, 0, 0.001}, {0, 0, 0, 1}};
    j.axis = {double(i % 3 == 0), double(i % 3 == 1), double(i % 3 == 2)};
    j.lower = -0.5;
    j.upper = 0.5;
    b.add_joint(j);
  }
  const Model chain = b.finalize();
  const std::vector<double> init(chain.coord_count, 0.0);
  std::vector<double> q(chain.coord_count), scratch(chain.dof_count);
  for (uint32_t s = 1; s <= 3; ++s) {
    sample_seed(chain.view(), chain.dof_lower.data(), chain.dof_upper.data(), SeedSampler::kRoberts,
                0.3, 1, 0, s, init.data(), q.data(), scratch.data());
    for (double v : q) ASSERT_TRUE(v >= -0.5 && v <= 0.5) << v;
  }
}

TEST_F(SamplerFixture, GaussianSpread) {
  const int n = 3000;
  const double sigma = 0.2;
  const int cont = q_of("cont");
  std::vector<double> dcont, dball;
  double m = 0;
  for (int s = 1; s <= n; ++s) {
    std::vector<double> q = sample(SeedSampler::kGaussian, uint32_t(s), 8, sigma);
    std::vector<double> d = test::difference(model, q, init);
    dcont.push_back(q[cont] - init[cont]);  // unlimited: never clamped
    int db = model.joint_qd_start[model.find_joint("ball")];
    for (int k = 0; k < 3; ++k) dball.push_back(d[db + k]);  // rotation vector components
    m += dcont.back();
  }
  auto stddev = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x * x;
    return std::sqrt(s / v.size());
  };
  EXPECT_NEAR(m / n, 0.0, 5 * sigma / std::sqrt(double(n)));
  EXPECT_NEAR(stddev(dcont), sigma, 0.1 * sigma);
  EXPECT_NEAR(stddev(dball), sigma, 0.1 * sigma);  // exp-map perturbation of the ball
}

TEST_F(SamplerFixture, FrozenDofsKeepTheInitialConfiguration) {
  std::vector<uint8_t> mask(model.dof_count, 1);
  int ball_dof = model.joint_qd_start[model.find_joint("ball")];
  int rev_dof = model.joint_qd_start[model.find_joint("rev")];
  mask[0] = 0;             // free root x
  mask[4] = 0;             // free root rotation (one axis freezes the whole quaternion)
  mask[ball_dof + 2] = 0;  // ball
  mask[rev_dof] = 0;
  for (SeedSampler k : kRandomKinds) {
    for (uint32_t s = 1; s < 20; ++s) {
      std::vector<double> q = sample(k, s, 2, 0.3, 0, mask.data());
      EXPECT_EQ(q[0], init[0]);
      EXPECT_NE(q[1], init[1]);
      for (int i = 3; i < 7; ++i) EXPECT_EQ(q[i], init[i]);
      int b = q_of("ball");
      for (int i = 0; i < 4; ++i) EXPECT_EQ(q[b + i], init[b + i]);
      EXPECT_EQ(q[q_of("rev")], init[q_of("rev")]);
      EXPECT_NE(q[q_of("pris")], init[q_of("pris")]);
    }
  }
}

}  // namespace
}  // namespace ikwb
