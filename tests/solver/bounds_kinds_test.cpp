// The tolerance and balance kinds (position_box, orientation_cone, support_polygon,
// manipulability) and live joint limits: their rows against hand values, and IK that meets
// them. Their Jacobians are checked against finite differences in objectives_test.cpp.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "core/test_models.hpp"
#include "solver/objective_report.hpp"
#include "solver/problem.hpp"
#include "solver/solver.hpp"
#include "solver/solver_test_util.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

Objective kind_objective(ObjectiveType type, int link) {
  Objective o;
  o.params.type = type;
  o.params.link = link;
  return o;
}

std::vector<double> solve_from(const IkProblem& p, const std::vector<double>& q0) {
  SolverSettings s;
  s.n_seeds = 4;
  s.max_iterations = 200;
  SolveResult r;
  make_cpu_solver()->solve(p, s, q0, r);
  return r.problems[0].q;
}

// rows in the target frame: distance outside the nearer face, negative inside, open sides
TEST(PositionBox, RowsAreTheDistanceOutsideTheBoxInTheTargetFrame) {
  auto model = std::make_shared<Model>(test::planar_arm());
  auto q = model->neutral_configuration();
  int tip = model->body_count - 1;
  Vec3<double> p = test::link_point(*model, q, tip, {0, 0, 0});
  IkProblem pr(model);
  Objective box = kind_objective(ObjectiveType::kPositionBox, tip);
  box.params.box_lower = {-0.1, -0.2, -HUGE_VAL};
  box.params.box_upper = {0.1, 0.2, HUGE_VAL};
  int o = pr.add_objective(box);
  // target frame turned 90 degrees about z, 0.3 m from the point along world y: the point sits
  // at target-frame x = -0.3 (outside by 0.2) and y = 0
  Quat<double> turn = quat_exp(Vec3<double>{0, 0, M_PI / 2});
  pr.set_target_pose(o, 0, {p + Vec3<double>{0, 0.3, 0}, turn});
  auto r = test::raw_rows(pr.view(), o, 0, q);
  EXPECT_NEAR(r[0], 0.2, 1e-12);
  EXPECT_NEAR(r[1], -0.2, 1e-12);
  EXPECT_TRUE(r[2] < -1e30);  // both sides open
  auto rep = report_objectives(pr, 0, q, test::body_poses(*model, q), SolverSettings());
  EXPECT_NEAR(rep[o].violation, 0.2, 1e-12);
  EXPECT_FALSE(rep[o].reached);
}

TEST(PositionBox, RejectsLowerAboveUpperAndNaN) {
  auto model = std::make_shared<Model>(test::planar_arm());
  IkProblem pr(model);
  Objective box = kind_objective(ObjectiveType::kPositionBox, 1);
  box.params.box_lower = {0.2, 0, 0};
  box.params.box_upper = {0.1, 0, 0};
  EXPECT_THROW(pr.add_objective(box), std::invalid_argument);
  box.params.box_lower = {NAN, 0, 0};
  EXPECT_THROW(pr.add_objective(box), std::invalid_argument);
  box.params.box_lower = {HUGE_VAL, 0, 0};
  box.params.box_upper = {HUGE_VAL, 0, 0};
  EXPECT_THROW(pr.add_objective(box), std::invalid_argument);
}

TEST(OrientationCone, RowIsTheAngleBeyondTheCone) {
  auto model = std::make_shared<Model>(test::planar_arm());
  auto q = model->neutral_configuration();
  int tip = model->body_count - 1;
  Transform<double> x = test::link_pose(*model, q, tip);
  IkProblem pr(model);
  Objective cone = kind_objective(ObjectiveType::kOrientationCone, tip);
  cone.params.cone = 0.3;
  int o = pr.add_objective(cone);
  pr.set_target_rotation(o, 0, quat_exp(Vec3<double>{0.5, 0, 0}) * x.q);
  EXPECT_NEAR(test::raw_rows(pr.view(), o, 0, q)[0], 0.5 - 0.3, 1e-12);
  pr.set_target_rotation(o, 0, quat_exp(Vec3<double>{0, 0.1, 0.1}) * x.q);
  EXPECT_NEAR(test::raw_rows(pr.view(), o, 0, q)[0], std::sqrt(0.02) - 0.3, 1e-12);
}

// the measure against sqrt(det(J J^T)) of the position objective's Jacobian (checked against
// finite differences on its own), on the Panda at random configurations
TEST(Manipulability, MeasureIsSqrtDetOfThePositionJacobian) {
  auto model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");
  IkProblem pr(model);
  Objective manip = kind_objective(ObjectiveType::kManipulability, tcp);
  manip.params.offset = {0.01, 0.02, 0.03};
  manip.params.min_measure = 0.5;
  int om = pr.add_objective(manip);
  int op = pr.add_position(tcp, manip.params.offset);
  std::mt19937 rng(3);
  const int nv = model->dof_count;
  for (int i = 0; i < 5; ++i) {
    auto q = test::random_configuration(*model, rng);
    auto J = test::analytic_jacobian(pr.view(), op, 0, q);
    Eigen::Map<Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>> Jm(J.data(), 3, nv);
    double w = std::sqrt((Jm * Jm.transpose()).determinant());
    auto r = test::raw_rows(pr.view(), om, 0, q);
    EXPECT_NEAR(r[0], 0.5 - w, 1e-12);
    EXPECT_EQ(r[1], -1.0);
  }
}

// the IK keeps the Panda's hand away from the stretched-out singularity: a target at the edge
// of the workspace is traded for a pose with the measure above its floor
TEST(Manipulability, HardFloorKeepsTheArmFromStretchingOut) {
  auto model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");
  std::vector<double> q0 = {0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8};
  auto measure = [&](const IkProblem& p, int o, const std::vector<double>& q) {
    return p.objective(o).params.min_measure - test::raw_rows(p.view(), o, 0, q)[0];
  };
  IkProblem free_p(model);
  int pos = free_p.add_position(tcp);
  free_p.set_target_position(pos, 0, {0.95, 0.0, 0.35});  // about the Panda's reach
  Objective manip = kind_objective(ObjectiveType::kManipulability, tcp);
  manip.params.min_measure = 0.0;
  int om = free_p.add_objective(manip);
  double stretched = measure(free_p, om, solve_from(free_p, q0));

  IkProblem held(model);
  held.add_position(tcp);
  held.set_target_position(0, 0, {0.95, 0.0, 0.35});
  manip.params.min_measure = 2.0 * stretched + 1e-3;
  manip.params.hard = 1;
  int oh = held.add_objective(manip);
  auto q = solve_from(held, q0);
  EXPECT_GE(measure(held, oh, q), manip.params.min_measure - 1e-4);
}

// CoM inside a square of contact points on the base: rows are the signed distances to the
// edges plus the margin; the row of the point that is no hull vertex is inactive
TEST(SupportPolygon, RowsAreSignedEdgeDistancesPlusMargin) {
  auto model = std::make_shared<Model>(test::planar_arm());
  auto q = model->neutral_configuration();
  auto poses = test::body_poses(*model, q);
  Vec3<double> c = center_of_mass(model->view(), poses.data());
  IkProblem pr(model);
  Objective sp;
  sp.params.type = ObjectiveType::kSupportPolygon;
  sp.params.margin = 0.02;
  // a square around (cx + 0.1, cy) of side 0.6 on the base body (at the origin), and its centre
  const double x0 = c.x + 0.1 - 0.3, x1 = c.x + 0.1 + 0.3, y0 = c.y - 0.3, y1 = c.y + 0.3;
  sp.points = {{0, {x0, y0, 0}},
               {0, {x1, y1, 0}},
               {0, {c.x + 0.1, c.y, 0}},
               {0, {x1, y0, 0}},
               {0, {x0, y1, 0}}};
  int o = pr.add_objective(sp);
  auto r = test::raw_rows(pr.view(), o, 0, q);
  ASSERT_EQ(r.size(), 5u);
  // edges from each corner, counter-clockwise: (x0,y0)->(x1,y0) bottom, (x1,y0)->(x1,y1)
  // right, (x1,y1)->(x0,y1) top, (x0,y1)->(x0,y0) left
  EXPECT_NEAR(r[0], -(c.y - y0) + 0.02, 1e-12);
  EXPECT_NEAR(r[3], -(x1 - c.x) + 0.02, 1e-12);
  EXPECT_NEAR(r[1], -(y1 - c.y) + 0.02, 1e-12);
  EXPECT_NEAR(r[4], -(c.x - x0) + 0.02, 1e-12);
  EXPECT_EQ(r[2], -1.0);
  auto rep = report_objectives(pr, 0, q, poses, SolverSettings());
  EXPECT_TRUE(rep[o].reached);
  EXPECT_EQ(rep[o].violation, 0.0);
}

// The rows' cost holds where a corner comes within rounding (or a small step) of an edge: four
// corners of two feet side by side on one front line, the middle two moved 1e-12 or 1e-5 m out
// of it or into the polygon. The middle ones as hull vertices split the front edge into rows of
// the same value, and the cost of a CoM past that line doubled with a step of 1e-7.
// the planar arm at rest, its centre of mass c, and support polygons of points on its base
struct OnTheBase {
  std::shared_ptr<Model> model = std::make_shared<Model>(test::planar_arm());
  std::vector<double> q = model->neutral_configuration();
  std::vector<Transform<double>> poses = test::body_poses(*model, q);
  Vec3<double> c = center_of_mass(model->view(), poses.data());
  // a support polygon over `points` (base frame) added to pr
  int add(IkProblem& pr, std::vector<LinkPoint<double>> points, double margin) const {
    Objective sp;
    sp.params.type = ObjectiveType::kSupportPolygon;
    sp.params.margin = margin;
    sp.points = std::move(points);
    return pr.add_objective(sp);
  }
};

TEST(SupportPolygon, ACornerWithinRoundingOfAnEdgeLeavesTheCostAsItIs) {
  const OnTheBase base;
  const Vec3<double>& c = base.c;
  for (double bump : {-1e-5, -1e-12, 0.0, 1e-12, 1e-5}) {
    IkProblem pr(base.model);
    // the front line x = c.x - 0.05 (the CoM 5 cm past it), the feet behind it
    const double f = c.x - 0.05, b = c.x - 0.3;
    const int o = base.add(pr,
                           {{0, {b, c.y - 0.2, 0}},
                            {0, {f, c.y - 0.2, 0}},
                            {0, {f + bump, c.y - 0.05, 0}},
                            {0, {b, c.y - 0.05, 0}},
                            {0, {b, c.y + 0.05, 0}},
                            {0, {f + bump, c.y + 0.05, 0}},
                            {0, {f, c.y + 0.2, 0}},
                            {0, {b, c.y + 0.2, 0}}},
                           0.01);
    double cost = 0;
    int active = 0;
    for (double v : test::raw_rows(pr.view(), o, 0, base.q)) {
      cost += v > 0 ? v * v : 0;
      active += v > 0;
    }
    EXPECT_EQ(active, 1) << bump;
    EXPECT_NEAR(cost, 0.06 * 0.06, 1e-8) << bump;
  }
}

// Three contacts on one line, the middle one a rounding (or 1e-5 m) off it: the segment's distance
// to a CoM past its end, not the sliver triangle's (whose edges all run along the line, so the
// CoM 0.5 m past the end read 1e-8 m outside and a hard balance passed)
TEST(SupportPolygon, ThreeContactsOnALineAreASegment) {
  const OnTheBase base;
  const Vec3<double>& c = base.c;
  for (double bump : {-1e-5, -1e-12, 0.0, 1e-12, 1e-5}) {
    IkProblem pr(base.model);
    // along x from c.x - 0.7 to c.x - 0.5: the CoM 0.5 m past the end at (c.x - 0.5, c.y)
    const int o = base.add(
        pr, {{0, {c.x - 0.7, c.y, 0}}, {0, {c.x - 0.6, c.y + bump, 0}}, {0, {c.x - 0.5, c.y, 0}}},
        0.02);
    double largest = -HUGE_VAL;
    for (double v : test::raw_rows(pr.view(), o, 0, base.q)) largest = std::max(largest, v);
    EXPECT_NEAR(largest, 0.5, 1e-9) << bump;
    EXPECT_FALSE(report_objectives(pr, 0, base.q, base.poses, SolverSettings())[o].reached) << bump;
  }
}

// objective_jacobian's raw rows (from the hull and centre of mass its Jacobian uses) are the
// residual's, bit for bit: with a polygon, a segment (two points) and one point
TEST(SupportPolygon, JacobianWritesTheResidualsRows) {
  auto model = std::make_shared<Model>(test::planar_arm());
  std::mt19937 rng(11);
  const int nv = model->dof_count;
  const std::vector<std::vector<LinkPoint<double>>> sets = {
      {{0, {-0.3, -0.2, 0}}, {1, {0.2, 0.1, 0}}, {0, {0.3, -0.2, 0}}, {2, {0.0, 0.3, 0}}},
      {{0, {-0.3, -0.2, 0}}, {2, {0.2, 0.1, 0}}},
      {{1, {0.1, 0.0, 0}}}};
  for (const auto& points : sets) {
    IkProblem pr(model);
    Objective sp;
    sp.params.type = ObjectiveType::kSupportPolygon;
    sp.params.margin = 0.01;
    sp.points = points;
    const int o = pr.add_objective(sp);
    for (int trial = 0; trial < 5; ++trial) {
      const std::vector<double> q = test::random_configuration(*model, rng);
      const auto poses = test::body_poses(*model, q);
      std::vector<double> J(points.size() * nv, 0.0);
      std::vector<double> raw(points.size(), std::nan(""));
      objective_jacobian(pr.view(), o, 0, q.data(), poses.data(), J.data(), nv, raw.data());
      EXPECT_EQ(raw, test::raw_rows(pr.view(), o, 0, q)) << points.size() << " points";
    }
  }
}

TEST(SupportPolygon, NeedsContactPointsOnKnownLinks) {
  auto model = std::make_shared<Model>(test::planar_arm());
  IkProblem pr(model);
  Objective sp;
  sp.params.type = ObjectiveType::kSupportPolygon;
  EXPECT_THROW(pr.add_objective(sp), std::invalid_argument);
  sp.points = {{99, {0, 0, 0}}};
  EXPECT_THROW(pr.add_objective(sp), std::invalid_argument);
  sp.points.assign(kMaxContactPoints + 1, LinkPoint<double>{0, {0, 0, 0}});
  EXPECT_THROW(pr.add_objective(sp), std::invalid_argument);
  sp.points = {{0, {0, 0, 0}}, {1, {0.1, 0, 0}}, {0, {0, 0.1, 0}}};
  EXPECT_EQ(pr.add_objective(sp), 0);
  EXPECT_EQ(pr.residual_count(), 3);
}

// live limits: the solver keeps the problem's limits, not the model's
TEST(DofLimits, TheSolverKeepsTheProblemsLimits) {
  auto model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");
  std::vector<double> q0 = {0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8};
  IkProblem pr(model);
  pr.add_position(tcp);
  pr.set_target_position(0, 0, {0.3, 0.4, 0.5});
  std::vector<double> lo = model->dof_lower, hi = model->dof_upper;
  lo[0] = -0.1;
  hi[0] = 0.1;
  pr.set_dof_limits(lo, hi);
  auto q = solve_from(pr, q0);
  EXPECT_GE(q[0], -0.1 - 1e-12);
  EXPECT_LE(q[0], 0.1 + 1e-12);
  lo[0] = 0.2;
  EXPECT_THROW(pr.set_dof_limits(lo, hi), std::invalid_argument);
  EXPECT_THROW(pr.set_dof_limits({0.0}, hi), std::invalid_argument);
}

}  // namespace
}  // namespace ikwb
