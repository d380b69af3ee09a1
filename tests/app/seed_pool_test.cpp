// Tests for app/gui/seed_pool: a pool is drawn once (n_seeds - 1 seeds by the sampler) and
// redrawn only for a new problem, changed draw settings or when spent; advancing continues each
// seed from where it stopped, and stops at the deadline.
#include "app/gui/seed_pool.hpp"

#include <gtest/gtest.h>

#include "app/gui/app_state.hpp"

namespace ikwb::gui {
namespace {

using Clock = SeedPool::Clock;

// the Panda preset with its pose target moved out of reach
AppState panda_far() {
  AppState app;
  EXPECT_TRUE(app.open_robot_preset("panda"));
  Transform<double> far = app.objectives[0].target;
  far.p.x += 2.0;
  app.set_target(0, far);
  app.sync();
  return app;
}

TEST(SeedPool, DrawsOnceAndRedrawsOnlyWhenNeeded) {
  AppState app = panda_far();
  SeedPool pool;
  SolverSettings s = app.settings;
  s.n_seeds = 6;
  const IkProblem& p = *app.problem();
  EXPECT_TRUE(pool.prepare(p, app.problem_serial(), s, app.joint_q, 7));
  ASSERT_EQ(pool.seeds().size(), 5u);
  EXPECT_EQ(pool.generation(), 1u);
  EXPECT_TRUE(pool.drawn_for(app.problem_serial()));
  EXPECT_NE(pool.seeds()[0].q, app.joint_q);  // sampled, not the warm start
  // the same problem (targets moved or not) and draw settings: the same pool
  s.max_iterations = 3;
  EXPECT_FALSE(pool.prepare(p, app.problem_serial(), s, app.joint_q, 8));
  EXPECT_EQ(pool.generation(), 1u);
  // a setting that draws seeds, or another problem: a new pool
  s.gaussian_sigma = 0.5;
  EXPECT_TRUE(pool.prepare(p, app.problem_serial(), s, app.joint_q, 8));
  EXPECT_TRUE(pool.prepare(p, app.problem_serial() + 1, s, app.joint_q, 8));
  EXPECT_EQ(pool.generation(), 3u);
  EXPECT_FALSE(pool.drawn_for(app.problem_serial()));
}

TEST(SeedPool, SeedsContinueWhereTheyStoppedAndAreSpentAfterTheirSlices) {
  AppState app = panda_far();
  SeedPool pool;
  SolverSettings s = app.settings;
  s.n_seeds = 4;
  s.max_iterations = 2;
  const IkProblem& p = *app.problem();
  std::unique_ptr<IkSolver> solver = make_cpu_solver();
  pool.prepare(p, app.problem_serial(), s, app.joint_q, 1);
  const auto later = Clock::now() + std::chrono::hours(1);
  std::vector<int> before(3, 0);
  for (int slice = 1; slice <= kPoolSlices; ++slice) {
    const std::vector<PoolSeed> start = pool.seeds();
    PoolStep step = pool.advance(*solver, p, s, later);
    int advanced = 0;
    for (int k = 0; k < 3; ++k) {
      const PoolSeed& seed = pool.seeds()[k];
      if (start[k].spent) {
        EXPECT_FALSE(seed.advanced);
        continue;
      }
      ++advanced;
      EXPECT_TRUE(seed.advanced);
      // one slice from where it stood: the solver's own result of that slice
      EXPECT_EQ(seed.iterations, before[k] + seed.slice.iterations);
      EXPECT_LE(seed.slice.iterations, 2);
      EXPECT_EQ(seed.q, seed.slice.q);
      before[k] = seed.iterations;
    }
    EXPECT_EQ(step.seeds, advanced);
    if (slice < kPoolSlices) {
      EXPECT_FALSE(pool.prepare(p, app.problem_serial(), s, app.joint_q, 1)) << "slice " << slice;
    }
  }
  // out of reach: every seed is spent by now, and the next prepare draws a new pool
  for (const PoolSeed& seed : pool.seeds()) EXPECT_TRUE(seed.spent);
  EXPECT_EQ(pool.generation(), 1u);
  EXPECT_TRUE(pool.prepare(p, app.problem_serial(), s, app.joint_q, 1));
  EXPECT_EQ(pool.generation(), 2u);
  for (const PoolSeed& seed : pool.seeds()) EXPECT_EQ(seed.iterations, 0);
}

TEST(SeedPool, StopsAtTheDeadline) {
  AppState app = panda_far();
  SeedPool pool;
  SolverSettings s = app.settings;
  s.n_seeds = 5;
  const IkProblem& p = *app.problem();
  std::unique_ptr<IkSolver> solver = make_cpu_solver();
  pool.prepare(p, app.problem_serial(), s, app.joint_q, 1);
  // no time: nothing advances
  PoolStep none = pool.advance(*solver, p, s, Clock::now());
  EXPECT_EQ(none.seeds, 0);
  for (const PoolSeed& seed : pool.seeds()) EXPECT_FALSE(seed.advanced);
  for (const PoolSeed& seed : pool.seeds()) EXPECT_EQ(seed.iterations, 0);
  // time for all: each advances once
  PoolStep all = pool.advance(*solver, p, s, Clock::now() + std::chrono::hours(1));
  EXPECT_EQ(all.seeds, 4);
  EXPECT_GT(all.iterations, 0);
}

}  // namespace
}  // namespace ikwb::gui
