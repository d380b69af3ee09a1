#include "solver/solver.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

#include "core/test_models.hpp"
#include "engine/core/fk.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

// pose of `link` at configuration q
Transform<double> link_pose(const Model& m, const std::vector<double>& q, int link) {
  State s(m);
  eval_fk(m, q, {}, s);
  return s.body_q[link];
}

TEST(Solver, PandaPoseTargetsConverge) {
  auto model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");
  std::mt19937 rng(7);
  const int P = 50;
  IkProblem problem(model, P);
  int obj = problem.add_pose(tcp);
  for (int p = 0; p < P; ++p)
    problem.set_target_pose(obj, p, link_pose(*model, test::random_configuration(*model, rng), tcp));
  SolverSettings s;
  s.max_restarts = 20;
  s.tol_position = 1e-5;
  s.tol_rotation = 1e-5;
  SolveResult res;
  make_cpu_solver()->solve(problem, s, model->middle_configuration(), res);
  int ok = 0;
  for (const auto& r : res.problems) {
    ok += r.converged;
    if (r.converged) {
      Transform<double> x = link_pose(*model, r.q, tcp);
      EXPECT_LT(length(x.p - problem.target(obj, &r - res.problems.data()).p), 1e-5);
    }
  }
  EXPECT_EQ(ok, P);
}

}  // namespace
}  // namespace ikwb
