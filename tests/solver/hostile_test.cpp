// Hostile numbers on IkProblem and the CPU solver: NaN and infinite targets are refused naming
// the argument; unreachable (1e300), heavily weighted (1e12) and zero-weighted objectives give
// finite best-effort results; a 200-dof synthetic robot loads, FKs and solves.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/fk.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/problem.hpp"
#include "solver/solver.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

bool within_limits(const Model& m, const std::vector<double>& q) {
  for (int d = 0; d < m.dof_count; ++d) {
    int j = m.dof_joint[d];
    if (m.joint_mimic[j] >= 0 || !m.has_limits(d)) continue;
    double v = q[m.joint_q_start[j] + (d - m.joint_qd_start[j])];
    if (v < m.dof_lower[d] - 1e-9 || v > m.dof_upper[d] + 1e-9) return false;
  }
  return true;
}

// no NaN anywhere in a result; configurations finite and within limits
void expect_sane(const Model& m, const SolveResult& res) {
  EXPECT_TRUE(all_finite(res.row_q));
  for (double c : res.row_cost) EXPECT_FALSE(std::isnan(c));
  for (const ProblemResult& r : res.problems) {
    EXPECT_TRUE(all_finite(r.q));
    EXPECT_TRUE(within_limits(m, r.q));
    EXPECT_FALSE(std::isnan(r.cost));
    EXPECT_FALSE(std::isnan(r.position_error));
    EXPECT_FALSE(std::isnan(r.rotation_error));
    EXPECT_FALSE(std::isnan(r.constraint_violation));
  }
}

struct PandaFixture : ::testing::Test {
  std::shared_ptr<Model> model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");
  std::vector<double> q_mid = model->middle_configuration();

  Vec3<double> tcp_at(const std::vector<double>& q) const {
    State s(*model);
    eval_fk(*model, q, {}, s);
    return s.body_q[tcp].p;
  }
};

// [SECTION] NaN and infinite targets

// every setter, every component, NaN and both infinities: std::invalid_argument naming the
// setter and the argument; the problem is left exactly as it was
TEST_F(PandaFixture, NonFiniteTargetsAreRefusedAndChangeNothing) {
  IkProblem pr(model, 2);
  int pose = pr.add_pose(tcp);
  Transform<double> good{{0.3, 0.1, 0.5}, {0, 0, 0, 1}};
  pr.set_target_pose(pose, 0, good);
  pr.set_target_pose(pose, 1, good);
  uint64_t version = pr.version();
  int refused = 0;
  for (double bad : {kNan, kInf, -kInf}) {
    for (int k = 0; k < 7; ++k) {
      Transform<double> x = good;
      double* c = k < 3 ? &x.p.x + k : &x.q.x + (k - 3);
      *c = bad;
      const char* arg = k < 3 ? "position" : "quaternion";
      auto expect_refused = [&](auto f, const std::string& setter) {
        SCOPED_TRACE(setter + " component " + std::to_string(k) + " = " + std::to_string(bad));
        try {
          f();
          ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
          std::string msg = e.what();
          EXPECT_NE(msg.find(setter), std::string::npos) << msg;
          EXPECT_NE(msg.find(arg), std::string::npos) << msg;
          ++refused;
        }
      };
      expect_refused([&] { pr.set_target_pose(pose, 1, x); }, "set_target_pose");
      expect_refused([&] { pr.set_target_poses(pose, {good, x}); }, "set_target_poses");
      if (k < 3) {
        expect_refused([&] { pr.set_target_position(pose, 0, x.p); }, "set_target_position");
        expect_refused(
            [&] {
              pr.set_target_positions(pose, {x.p, good.p});
            },
            "set_target_positions");
      } else {
        expect_refused([&] { pr.set_target_rotation(pose, 1, x.q); }, "set_target_rotation");
      }
    }
  }
  EXPECT_EQ(refused, 3 * (3 * 4 + 4 * 3));
  EXPECT_EQ(pr.version(), version);
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(pr.target(pose, p).p.x, good.p.x);
    EXPECT_EQ(pr.target(pose, p).p.z, good.p.z);
    EXPECT_EQ(pr.target(pose, p).q.w, 1.0);
  }
}

TEST_F(PandaFixture, NonFiniteWeightsAreRefusedNamingTheArgument) {
  IkProblem pr(model);
  int pos = pr.add_position(tcp);
  for (double bad : {kNan, kInf, -kInf}) {
    EXPECT_THROW(pr.add_rotation(tcp, {bad}), std::invalid_argument);
    EXPECT_THROW(pr.add_joint_limits({bad}), std::invalid_argument);
    EXPECT_THROW(pr.add_posture({}, {bad}), std::invalid_argument);
    try {
      pr.set_weight(pos, bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("set_weight: weight"), std::string::npos) << e.what();
    }
    for (int k = 0; k < 6; ++k) {
      Vec3<double> w[2] = {{1, 1, 1}, {1, 1, 1}};
      (&w[k / 3].x)[k % 3] = bad;
      try {
        pr.set_axis_weights(pos, w[0], w[1]);
        ADD_FAILURE() << "accepted axis weight " << bad;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("set_axis_weights: weights"), std::string::npos)
            << e.what();
      }
    }
  }
  EXPECT_EQ(pr.objective_count(), 1);
  EXPECT_EQ(pr.objective(pos).params.weight, 1.0);
}

// [SECTION] targets far out of reach

struct Variant {
  const char* name;
  Optimizer optimizer;
  JacobianMode jacobian;
  bool use_float;
  bool hard;
};

class FarTarget : public PandaFixture, public ::testing::WithParamInterface<Variant> {};

TEST_P(FarTarget, GivesFiniteBestEffortNotConverged) {
  const Variant& v = GetParam();
  IkProblem pr(model, 3);
  int obj = v.hard ? pr.add_position(tcp, {0, 0, 0}, {1.0, true}) : pr.add_pose(tcp);
  pr.add_joint_limits({0.1});
  pr.set_target_position(obj, 0, {1e300, -1e300, 1e300});
  pr.set_target_position(obj, 1, {0, 0, -1.7976931348623157e308});
  pr.set_target_position(obj, 2, {1e150, 1e-300, 0});
  SolverSettings s;
  s.optimizer = v.optimizer;
  s.jacobian = v.jacobian;
  s.use_float = v.use_float;
  s.sampler = Sampler::kUniform;
  s.n_seeds = 3;
  s.max_iterations = 30;
  s.max_restarts = 1;
  s.threads = 1;
  SolveResult res;
  make_cpu_solver()->solve(pr, s, q_mid, res);
  ASSERT_EQ(res.problems.size(), 3u);
  expect_sane(*model, res);
  for (const ProblemResult& r : res.problems) {
    EXPECT_FALSE(r.converged);
    EXPECT_GT(r.position_error, 1e100);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Solver, FarTarget,
    ::testing::Values(
        Variant{"lm", Optimizer::kLevenbergMarquardt, JacobianMode::kAnalytic, false, false},
        Variant{"lm_float", Optimizer::kLevenbergMarquardt, JacobianMode::kAnalytic, true, false},
        Variant{"lm_autodiff", Optimizer::kLevenbergMarquardt, JacobianMode::kAutodiff, false,
                false},
        Variant{"lm_finite_difference", Optimizer::kLevenbergMarquardt,
                JacobianMode::kFiniteDifference, false, false},
        Variant{"lm_hard", Optimizer::kLevenbergMarquardt, JacobianMode::kAnalytic, false, true},
        Variant{"lbfgs", Optimizer::kLbfgs, JacobianMode::kAnalytic, false, false},
        Variant{"lbfgs_hard", Optimizer::kLbfgs, JacobianMode::kAnalytic, false, true}),
    [](const ::testing::TestParamInfo<Variant>& i) { return std::string(i.param.name); });

// the best effort stretches the arm toward a far target (1000 km). Much farther (past ~1e15 m)
// a step changes the cost by less than its rounding, so no step is accepted and the solver
// returns q_init: finite, but no effort.
TEST_F(PandaFixture, FarTargetStretchesTowardIt) {
  IkProblem pr(model);
  int obj = pr.add_position(tcp);
  pr.set_target_position(obj, 0, {1e6, 0, 0});
  SolverSettings s;
  s.max_iterations = 200;
  SolveResult res;
  make_cpu_solver()->solve(pr, s, q_mid, res);
  expect_sane(*model, res);
  Vec3<double> p = tcp_at(res.problems[0].q);
  EXPECT_GT(p.x, tcp_at(q_mid).x);
  EXPECT_GT(p.x, 0.5);
}

// [SECTION] extreme weights

TEST_F(PandaFixture, HugeWeightsGiveFiniteConvergedResults) {
  std::vector<double> q_goal = q_mid;
  for (std::size_t i = 0; i < q_goal.size(); ++i) q_goal[i] += 0.2 * ((i % 2) ? 1 : -1);
  IkProblem pr(model, 2);
  int pose = pr.add_pose(tcp, {0, 0, 0}, {1e12});
  pr.add_joint_limits({1e12});
  pr.add_posture({}, {1e-12});
  State st(*model);
  eval_fk(*model, q_goal, {}, st);
  pr.set_target_pose(pose, 0, st.body_q[tcp]);
  pr.set_target_pose(pose, 1, {{3.0, 2.0, 0.6}, {0, 0, 0, 1}});  // out of reach
  for (Optimizer o : {Optimizer::kLevenbergMarquardt, Optimizer::kLbfgs}) {
    SCOPED_TRACE(to_string(o));
    SolverSettings s;
    s.optimizer = o;
    s.max_iterations = 200;
    SolveResult res;
    make_cpu_solver()->solve(pr, s, q_mid, res);
    expect_sane(*model, res);
    for (const ProblemResult& r : res.problems) {
      EXPECT_TRUE(std::isfinite(r.cost));
      EXPECT_TRUE(std::isfinite(r.position_error));
    }
    if (o == Optimizer::kLevenbergMarquardt) {
      EXPECT_TRUE(res.problems[0].converged);
      EXPECT_LT(res.problems[0].position_error, s.tol_position);
    }
  }
}

TEST_F(PandaFixture, ZeroWeightsLeaveTheConfigurationAlone) {
  IkProblem pr(model);
  int pos = pr.add_position(tcp, {0, 0, 0}, {0.0});
  int pose = pr.add_pose(tcp, {0, 0, 0}, {1.0});
  pr.set_axis_weights(pose, {0, 0, 0}, {0, 0, 0});
  pr.add_joint_limits({0.0});
  pr.set_target_position(pos, 0, {0.5, 0.5, 0.5});
  pr.set_target_pose(pose, 0, {{-0.5, 0.2, 0.1}, {1, 0, 0, 0}});
  for (Optimizer o : {Optimizer::kLevenbergMarquardt, Optimizer::kLbfgs}) {
    SCOPED_TRACE(to_string(o));
    SolverSettings s;
    s.optimizer = o;
    SolveResult res;
    make_cpu_solver()->solve(pr, s, q_mid, res);
    expect_sane(*model, res);
    const ProblemResult& r = res.problems[0];
    EXPECT_EQ(r.cost, 0.0);
    for (std::size_t i = 0; i < q_mid.size(); ++i) EXPECT_NEAR(r.q[i], q_mid[i], 1e-12);
  }
}

// Nothing to move (a robot of fixed joints; the Panda with every dof masked): an unreachable
// target is a best effort after no iteration and no restart, where every attempt used to run
// until its damping gave up (209 iterations over the CLI's 51 attempts); a met one converges.
TEST_F(PandaFixture, NoFreeDofTakesNoIterations) {
  LoadResult lr = load_urdf_string(
      "<robot name=\"fixed\"><link name=\"a\"/><link name=\"b\"/><joint name=\"f\" "
      "type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/><origin xyz=\"0.1 0 "
      "0\"/></joint></robot>",
      "fixed.urdf", "");
  ASSERT_TRUE(lr.model);
  std::shared_ptr<const Model> fixed = lr.model;
  IkProblem still(fixed, 2);
  const int b = still.add_position(fixed->find_body("b"));
  still.set_target_position(b, 0, {0.5, 0, 0});
  still.set_target_position(b, 1, {0.1, 0, 0});
  IkProblem masked(model);
  const int tip = masked.add_position(tcp);
  masked.set_target_position(tip, 0, tcp_at(q_mid) + Vec3<double>{0.2, 0, 0});
  masked.set_dof_mask(std::vector<uint8_t>(model->dof_count, 0));
  for (Optimizer o : {Optimizer::kLevenbergMarquardt, Optimizer::kLbfgs}) {
    SCOPED_TRACE(to_string(o));
    SolverSettings s;
    s.optimizer = o;
    s.n_seeds = 4;
    s.sampler = Sampler::kUniform;
    s.max_restarts = 50;
    SolveResult res;
    make_cpu_solver()->solve(still, s, {}, res);
    EXPECT_FALSE(res.problems[0].converged);
    EXPECT_NEAR(res.problems[0].position_error, 0.4, 1e-12);
    EXPECT_TRUE(res.problems[1].converged);
    for (const ProblemResult& r : res.problems) EXPECT_EQ(r.total_iterations, 0);
    make_cpu_solver()->solve(masked, s, q_mid, res);
    expect_sane(*model, res);
    EXPECT_FALSE(res.problems[0].converged);
    EXPECT_NEAR(res.problems[0].position_error, 0.2, 1e-12);
    EXPECT_EQ(res.problems[0].total_iterations, 0);
    for (std::size_t i = 0; i < q_mid.size(); ++i) EXPECT_EQ(res.problems[0].q[i], q_mid[i]);
  }
}

// [SECTION] a 200-dof synthetic robot

// A trunk of 100 revolute joints with a branch of 10 joints hanging off every 10th trunk link:
// 200 dofs, 201 links, axes cycling through x, y, z; the tips are "trunk_100" and "b9_10".
std::string synthetic_urdf(int* dofs) {
  std::ostringstream x;
  const char* axes[] = {"0 0 1", "0 1 0", "1 0 0"};
  int n = 0;
  auto joint = [&](const std::string& parent, const std::string& child, const char* xyz) {
    x << "  <link name=\"" << child << "\"/>\n"
      << "  <joint name=\"j_" << child << "\" type=\"revolute\"><parent link=\"" << parent
      << "\"/><child link=\"" << child << "\"/><origin xyz=\"" << xyz
      << "\" rpy=\"0 0 0.05\"/><axis xyz=\"" << axes[n % 3]
      << "\"/><limit lower=\"-1.5\" upper=\"1.5\" effort=\"1\" velocity=\"1\"/></joint>\n";
    ++n;
  };
  x << "<robot name=\"synthetic200\">\n  <link name=\"trunk_0\"/>\n";
  for (int i = 1; i <= 100; ++i)
    joint("trunk_" + std::to_string(i - 1), "trunk_" + std::to_string(i), "0 0 0.02");
  for (int b = 0; b < 10; ++b) {
    std::string parent = "trunk_" + std::to_string(10 * b + 5);
    for (int i = 1; i <= 10; ++i) {
      std::string child = "b" + std::to_string(b) + "_" + std::to_string(i);
      joint(parent, child, "0.03 0 0");
      parent = child;
    }
  }
  x << "</robot>\n";
  *dofs = n;
  return x.str();
}

TEST(Synthetic200Dof, LoadsFksAndSolvesAPositionTarget) {
  int dofs = 0;
  LoadResult lr = load_urdf_string(synthetic_urdf(&dofs), "synthetic200.urdf", "");
  ASSERT_EQ(dofs, 200);
  ASSERT_TRUE(lr.model);
  EXPECT_TRUE(lr.warnings.empty());
  const Model& m = *lr.model;
  EXPECT_EQ(m.dof_count, 200);
  EXPECT_EQ(m.body_count, 201);
  int tip = m.find_body("trunk_100"), branch_tip = m.find_body("b9_10");
  ASSERT_GE(tip, 0);
  ASSERT_GE(branch_tip, 0);

  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  std::vector<double> q_goal(m.coord_count);
  for (double& v : q_goal) v = u(rng);
  State s(m);
  eval_fk(m, q_goal, {}, s);
  for (const auto& x : s.body_q) ASSERT_TRUE(std::isfinite(x.p.x + x.p.y + x.p.z));

  IkProblem pr(lr.model);
  int a = pr.add_position(tip);
  int b = pr.add_position(branch_tip);
  pr.add_posture({}, {1e-3});
  pr.set_target_position(a, 0, s.body_q[tip].p);
  pr.set_target_position(b, 0, s.body_q[branch_tip].p);
  SolverSettings settings;
  settings.max_iterations = 60;
  settings.tol_position = 1e-3;
  SolveResult res;
  std::vector<double> q0(m.coord_count, 0.0);
  make_cpu_solver()->solve(pr, settings, q0, res);
  expect_sane(m, res);
  const ProblemResult& r = res.problems[0];
  // best effort at least: much closer than the start
  State s0(m);
  eval_fk(m, q0, {}, s0);
  double start = length(s0.body_q[tip].p - s.body_q[tip].p);
  EXPECT_LT(r.position_error, 0.1 * start);
  EXPECT_TRUE(r.converged) << "position error " << r.position_error;
}

}  // namespace
}  // namespace ikwb
