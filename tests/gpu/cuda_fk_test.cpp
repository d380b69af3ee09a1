// Batched forward kinematics on the GPU against the CPU eval_fk_batch, masked-FK preservation,
// and the argument errors (the latter need no device).
#include "kernels/cuda_fk.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "gpu_test_util.hpp"

namespace ikwb {
namespace {

struct Batch {
  int n = 0;
  std::vector<double> q, qd;
  std::vector<float> qf, qdf;
};

Batch random_batch(const Model& m, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  Batch b;
  b.n = n;
  for (int r = 0; r < n; ++r) {
    std::vector<double> q = test::random_configuration(m, rng);
    b.q.insert(b.q.end(), q.begin(), q.end());
    for (int d = 0; d < m.dof_count; ++d) b.qd.push_back(u(rng));
  }
  b.qf.assign(b.q.begin(), b.q.end());
  b.qdf.assign(b.qd.begin(), b.qd.end());
  return b;
}

// Float against double on arm-sized robots (reach about 1 m, up to 10 joints; the floating
// tree sits 4 m from the origin): each joint adds a few float roundings (eps 6e-8) of lengths
// up to a few metres plus 1-2 ulp from the device sin/cos. The same float code on the CPU is
// off by at most 1.5e-6 m, 5.5e-7 rad and 3e-6 m/s on these batches, so 1e-5 m and 1e-5 rad
// leave a margin of about 7x and still catch any wrong frame or sign (errors of 1e-2 and
// more). Twists scale with |qd| (up to 1.5 rad/s per joint): 1e-4.
void expect_fk_parity(const Model& m, int n, unsigned seed) {
  Batch b = random_batch(m, n, seed);
  const std::size_t nb = std::size_t(n) * m.body_count;
  std::vector<Transform<double>> bq(nb, transform_identity<double>());
  std::vector<Spatial<double>> bqd(nb, Spatial<double>{zero3<double>(), zero3<double>()});
  eval_fk_batch(m, n, b.q, b.qd, bq, bqd);
  std::vector<Transform<float>> gq(nb, transform_identity<float>());
  std::vector<Spatial<float>> gqd(nb, Spatial<float>{zero3<float>(), zero3<float>()});
  eval_fk_cuda(m, n, b.qf, b.qdf, gq, gqd);
  double worst_p = 0, worst_r = 0, worst_v = 0;
  for (std::size_t i = 0; i < nb; ++i) {
    Transform<double> g = cast<double>(gq[i]);
    worst_p = std::max(worst_p, length(g.p - bq[i].p));
    worst_r = std::max(worst_r, test::rotation_angle(g.q, bq[i].q));
    worst_v = std::max(worst_v, length(cast<double>(gqd[i].lin) - bqd[i].lin));
    worst_v = std::max(worst_v, length(cast<double>(gqd[i].ang) - bqd[i].ang));
  }
  EXPECT_LT(worst_p, 1e-5) << m.name;
  EXPECT_LT(worst_r, 1e-5) << m.name;
  EXPECT_LT(worst_v, 1e-4) << m.name;
}

TEST(CudaFk, MatchesCpuOnArmsAndTrees) {
  IKWB_REQUIRE_CUDA();
  expect_fk_parity(test::panda(), 1000, 1);
  expect_fk_parity(test::planar_arm(), 257, 2);
  expect_fk_parity(test::all_joint_types(true), 300, 3);
  expect_fk_parity(test::all_joint_types(false), 300, 4);
}

TEST(CudaFk, MatchesTheSameFloatCodeOnTheHost) {
  IKWB_REQUIRE_CUDA();
  Model m = test::all_joint_types(true);
  const int n = 64;
  Batch b = random_batch(m, n, 5);
  const std::size_t nb = std::size_t(n) * m.body_count;
  std::vector<Transform<float>> hq(nb, transform_identity<float>()), gq = hq;
  std::vector<Spatial<float>> hqd(nb, Spatial<float>{zero3<float>(), zero3<float>()}), gqd = hqd;
  ModelArrays<float> a(m);
  std::vector<uint8_t> all(m.joint_count, 1);
  for (int r = 0; r < n; ++r)
    fk_row_masked(a.view, b.qf.data() + r * m.coord_count, b.qdf.data() + r * m.dof_count,
                  all.data(), kBodyAll, hq.data() + r * m.body_count,
                  hqd.data() + r * m.body_count);
  eval_fk_cuda(m, n, b.qf, b.qdf, gq, gqd);
  for (std::size_t i = 0; i < nb; ++i) {
    // each side is within 1.5e-6 m of the exact pose (measured in float on the CPU)
    EXPECT_LT(length(gq[i].p - hq[i].p), 5e-6f);
    EXPECT_LT(length(gqd[i].lin - hqd[i].lin), 2e-5f);
  }
}

// bodies the call must not touch keep their bytes, velocities included
TEST(CudaFk, MaskedFkPreservesUnselectedBodiesBitExact) {
  IKWB_REQUIRE_CUDA();
  Model m = test::all_joint_types(true);
  const int n = 50;
  Batch b = random_batch(m, n, 6);
  const std::size_t nb = std::size_t(n) * m.body_count;
  // sentinel state: values FK would never produce
  std::vector<Transform<float>> init(nb);
  std::vector<Spatial<float>> init_qd(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    float s = 10.0f + 0.01f * float(i);
    init[i] = {{s, -s, 0.5f * s}, {0.0f, 0.0f, 0.6f, 0.8f}};
    init_qd[i] = {{-s, s, 1.0f}, {2.0f, s, -3.0f}};
  }
  int branch = m.find_joint("pris");
  std::vector<uint8_t> jmask = branch_joint_mask(m, branch, false);
  struct Case {
    const char* name;
    FkOptions opt;
  };
  std::vector<uint8_t> art_off(m.articulation_count, 0);
  std::vector<int> art_all(1, 0);
  std::vector<Case> cases(4);
  cases[0].name = "joint_mask";
  cases[0].opt.joint_mask = &jmask;
  cases[1].name = "mask none";
  cases[1].opt.mask = &art_off;
  cases[2].name = "kinematic filter";
  cases[2].opt.body_flag_filter = kBodyKinematic;
  cases[3].name = "indices + joint_mask";
  cases[3].opt.indices = &art_all;
  cases[3].opt.joint_mask = &jmask;
  for (const Case& c : cases) {
    std::vector<Transform<float>> gq = init;
    std::vector<Spatial<float>> gqd = init_qd;
    eval_fk_cuda(m, n, b.qf, b.qdf, gq, gqd, c.opt);
    // the same selection through the CPU code in float, from the same sentinel state
    std::vector<double> q64(b.qf.begin(), b.qf.end()), qd64(b.qdf.begin(), b.qdf.end());
    std::vector<Transform<double>> cq;
    std::vector<Spatial<double>> cqd;
    for (std::size_t i = 0; i < nb; ++i) cq.push_back(cast<double>(init[i]));
    for (std::size_t i = 0; i < nb; ++i)
      cqd.push_back({cast<double>(init_qd[i].lin), cast<double>(init_qd[i].ang)});
    eval_fk_batch(m, n, q64, qd64, cq, cqd, c.opt);
    int updated = 0;
    for (std::size_t i = 0; i < nb; ++i) {
      bool cpu_kept = cq[i].p.x == double(init[i].p.x) && cq[i].p.y == double(init[i].p.y);
      if (cpu_kept) {
        EXPECT_EQ(std::memcmp(&gq[i], &init[i], sizeof(gq[i])), 0) << c.name << " body " << i;
        EXPECT_EQ(std::memcmp(&gqd[i], &init_qd[i], sizeof(gqd[i])), 0) << c.name << " body " << i;
      } else {
        ++updated;
        EXPECT_LT(length(cast<double>(gq[i].p) - cq[i].p), 1e-4) << c.name << " body " << i;
      }
    }
    // the branch mask selects one joint: one body per row
    EXPECT_EQ(updated, c.opt.joint_mask ? n : 0) << c.name;
  }
}

TEST(CudaFk, ArgumentErrorsMatchTheCpu) {
  // checked before any device work: runs without a GPU
  Model m = test::panda();
  std::vector<float> q(2 * m.coord_count, 0.0f), qd;
  std::vector<Transform<float>> bq(2 * m.body_count, transform_identity<float>());
  std::vector<Spatial<float>> bqd;
  std::vector<float> short_q(m.coord_count, 0.0f);
  EXPECT_THROW(eval_fk_cuda(m, 2, short_q, qd, bq, bqd), ModelError);
  EXPECT_THROW(eval_fk_cuda(m, -1, q, qd, bq, bqd), ModelError);
  std::vector<Transform<float>> short_bq(m.body_count, transform_identity<float>());
  EXPECT_THROW(eval_fk_cuda(m, 2, q, qd, short_bq, bqd), ModelError);
  std::vector<float> qd_ok(2 * m.dof_count, 0.0f);
  EXPECT_THROW(eval_fk_cuda(m, 2, q, qd_ok, bq, bqd), ModelError);  // body_qd missing
  std::vector<uint8_t> mask(m.articulation_count, 1);
  std::vector<int> idx = {0};
  FkOptions both;
  both.mask = &mask;
  both.indices = &idx;
  EXPECT_THROW(eval_fk_cuda(m, 2, q, qd, bq, bqd, both), ModelError);
  std::vector<int> bad_idx = {m.articulation_count};
  FkOptions oor;
  oor.indices = &bad_idx;
  EXPECT_THROW(eval_fk_cuda(m, 2, q, qd, bq, bqd, oor), ModelError);
  std::vector<uint8_t> bad_jmask(m.joint_count + 1, 1);
  FkOptions jm;
  jm.joint_mask = &bad_jmask;
  EXPECT_THROW(eval_fk_cuda(m, 2, q, qd, bq, bqd, jm), ModelError);
  // the CPU refuses the same inputs
  std::vector<double> q64(q.begin(), q.end()), qd64;
  std::vector<Transform<double>> bq64(bq.size(), transform_identity<double>());
  std::vector<Spatial<double>> bqd64;
  EXPECT_THROW(eval_fk_batch(m, 2, q64, qd64, bq64, bqd64, both), ModelError);
  EXPECT_THROW(eval_fk_batch(m, 2, q64, qd64, bq64, bqd64, jm), ModelError);
  // an empty batch needs no device either
  std::vector<float> none;
  std::vector<Transform<float>> no_bodies;
  EXPECT_NO_THROW(eval_fk_cuda(m, 0, none, none, no_bodies, bqd));
}

}  // namespace
}  // namespace ikwb
