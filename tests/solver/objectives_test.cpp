// Raw residual rows and analytic Jacobians of every objective type (solver/objectives.hpp),
// checked against central finite differences and forward-mode dual numbers on a model with
// every joint type (free root far from the origin, mimic joint, off-axis joints, offsets).
#include "solver/objectives.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/test_models.hpp"
#include "solver/backend_common.hpp"
#include "solver/objective_report.hpp"
#include "solver/problem.hpp"
#include "solver/solver_test_util.hpp"

namespace ikwb {
namespace {

// Tolerances (relative to 1 + |J|):
//  - analytic vs dual numbers: both are exact derivatives; they differ by rounding only. The
//    root sits ~40 m from the origin, so world coordinates lose ~1e-14 m, and the log-map
//    Jacobian adds a few operations: 1e-9 leaves a wide margin without hiding a wrong term
//    (a wrong sign or a missing J_l^{-1} shows up at the 1e-2 .. 1 level).
//  - analytic vs central differences with h = 1e-6: truncation h^2 / 6 |r'''| ~ 1e-12 (levers
//    ~1 m, rotations ~1 rad), rounding eps |r| / h ~ 2e-16 * 40 / 1e-6 ~ 1e-8: 1e-6.
constexpr double kDualTol = 1e-9;
constexpr double kFdTol = 1e-6;
constexpr double kFdStep = 1e-6;

const Vec3<double> kOffA{0.1, -0.2, 0.05};
const Vec3<double> kOffB{-0.05, 0.15, 0.1};

Vec3<double> random_unit(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Vec3<double> v{n(rng), n(rng), n(rng)};
  return (1.0 / length(v)) * v;
}

// a whole-body kind (com, look_at, axis_align) with its fields
Objective whole_body(ObjectiveType type, int link, Vec3<double> axis, Vec3<double> direction,
                     double cone) {
  Objective o;
  o.params.type = type;
  o.params.link = type == ObjectiveType::kCom ? -1 : link;
  o.params.offset = type == ObjectiveType::kLookAt ? kOffA : Vec3<double>{0, 0, 0};
  o.params.axis = axis;
  o.params.direction = direction;
  o.params.cone = cone;
  return o;
}

Transform<double> perturb(const Transform<double>& x, std::mt19937& rng, double lin, double ang) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vec3<double> dp{lin * u(rng), lin * u(rng), lin * u(rng)};
  Vec3<double> dr{ang * u(rng), ang * u(rng), ang * u(rng)};
  return {x.p + dp, quat_exp(dr) * x.q};
}

struct ZooFixture : ::testing::Test {
  std::shared_ptr<Model> model =
      std::make_shared<Model>(test::all_joint_types(true, {30.0, -20.0, 15.0}));

  int body(const char* name) const {
    int b = model->find_body(name);
    EXPECT_GE(b, 0) << name;
    return b;
  }

  // every objective type at configuration q, with targets whose errors stay well below pi
  // (the log map is smooth there), on every link and on pairs across branches and chains
  IkProblem make_problem(const std::vector<double>& q, std::mt19937& rng) {
    IkProblem pr(model, 2);
    auto poses = test::body_poses(*model, q);
    for (int b = 0; b < model->body_count; ++b) {
      int op = pr.add_position(b, kOffA);
      int orot = pr.add_rotation(b);
      int opose = pr.add_pose(b, kOffB);
      for (int p = 0; p < 2; ++p) {
        pr.set_target_position(op, p, perturb(poses[b], rng, 0.5, 0).p);
        pr.set_target_rotation(orot, p, perturb(poses[b], rng, 0, 1.2).q);
        pr.set_target_pose(opose, p, perturb(poses[b], rng, 0.5, 1.2));
      }
    }
    pr.add_joint_limits();
    std::vector<double> rest = test::integrate(*model, q, test::random_dofs(*model, rng, 1.2));
    pr.add_posture(rest);
    const std::pair<const char*, const char*> pairs[] = {{"g", "f"},    {"c", "a"}, {"g", "e"},
                                                         {"root", "d"}, {"c", "c"}, {"f", "root"}};
    for (auto [na, nb] : pairs) {
      int a = body(na), b = body(nb);
      pr.add_relative_ball(a, kOffA, b, kOffB);
      Transform<double> rel = inverse(poses[a]) * perturb(poses[b], rng, 0.2, 1.0);
      pr.add_relative_fixed(a, b, rel);
      pr.add_min_distance(a, kOffA, b, kOffB, 0.5);
      // look_at that follows a point of link b (both chains move the looked-at direction)
      for (double cone : {0.0, 0.3}) {
        Objective follow = whole_body(ObjectiveType::kLookAt, a, random_unit(rng), {}, cone);
        follow.params.link_b = b;
        follow.params.offset_b = kOffB;
        pr.add_objective(follow);
      }
    }
    // centre of mass: targets 0.3 m around it
    int oc = pr.add_objective(whole_body(ObjectiveType::kCom, -1, {}, {}, 0));
    Vec3<double> com = center_of_mass(model->view(), poses.data());
    for (int p = 0; p < 2; ++p) pr.set_target_position(oc, p, com + 0.3 * random_unit(rng));
    // look_at and axis_align on every link, with and without a cone (errors up to ~pi: the
    // cone rows are active on most of them)
    for (int b = 0; b < model->body_count; ++b)
      for (double cone : {0.0, 0.3}) {
        int ol = pr.add_objective(
            whole_body(ObjectiveType::kLookAt, b, random_unit(rng), {0, 0, 1}, cone));
        Vec3<double> eye = transform_point(poses[b], kOffA);
        for (int p = 0; p < 2; ++p)
          pr.set_target_position(ol, p, eye + (0.5 + 0.2 * p) * random_unit(rng));
        pr.add_objective(
            whole_body(ObjectiveType::kAxisAlign, b, random_unit(rng), random_unit(rng), cone));
      }
    add_bounds(pr, poses, rng);
    return pr;
  }

  // position_box, orientation_cone and manipulability on every link, and a support polygon on
  // points of links across the tree; most rows active (the Jacobian rows are checked whether
  // or not they are)
  void add_bounds(IkProblem& pr, const std::vector<Transform<double>>& poses, std::mt19937& rng) {
    for (int b = 0; b < model->body_count; ++b) {
      Objective box;
      box.params.type = ObjectiveType::kPositionBox;
      box.params.link = b;
      box.params.offset = kOffB;
      box.params.box_lower = {-0.1, -HUGE_VAL, -0.05};
      box.params.box_upper = {0.1, 0.2, HUGE_VAL};
      int ob = pr.add_objective(box);
      Objective cone;
      cone.params.type = ObjectiveType::kOrientationCone;
      cone.params.link = b;
      cone.params.cone = 0.2;
      int oc = pr.add_objective(cone);
      for (int p = 0; p < 2; ++p) {
        pr.set_target_pose(ob, p, perturb(poses[b], rng, 0.4, 1.0));
        pr.set_target_pose(oc, p, perturb(poses[b], rng, 0, 1.2));
      }
      Objective manip;
      manip.params.type = ObjectiveType::kManipulability;
      manip.params.link = b;
      manip.params.offset = kOffA;
      manip.params.min_measure = 100.0;
      pr.add_objective(manip);
    }
    Objective support;
    support.params.type = ObjectiveType::kSupportPolygon;
    support.params.margin = 0.02;
    for (const char* name : {"g", "f", "c", "e", "root"})
      for (Vec3<double> off : {kOffA, kOffB, Vec3<double>{0.3, 0.1, -0.2}})
        support.points.push_back({body(name), off});
    pr.add_objective(support);
    // two points only: the distance to the segment between them
    Objective edge = support;
    edge.points = {{body("g"), kOffA}, {body("e"), kOffB}};
    pr.add_objective(edge);
  }

  std::vector<std::vector<double>> configurations() const {
    std::mt19937 rng(11);
    std::vector<std::vector<double>> qs;
    for (int i = 0; i < 4; ++i) qs.push_back(test::random_configuration(*model, rng));
    // 1-dof joints beyond their limits: the limit rows are active
    std::vector<double> q = qs[0];
    for (int j = 0; j < model->joint_count; ++j) {
      int d = model->joint_qd_start[j];
      if (model->joint_mimic[j] < 0 && model->has_limits(d) &&
          joint_type_dof_count(JointType(model->joint_type[j])) == 1)
        q[model->joint_q_start[j]] =
            (j % 2 ? model->dof_upper[d] + 0.1 : model->dof_lower[d] - 0.1);
    }
    qs.push_back(q);
    return qs;
  }
};

const char* type_name(ObjectiveType t) {
  return objective_kind(t).name;
}

TEST_F(ZooFixture, ModelHasEveryJointType) {
  bool seen[int(JointType::kPlanar) + 1] = {};
  bool mimic = false;
  for (int j = 0; j < model->joint_count; ++j) {
    seen[model->joint_type[j]] = true;
    mimic |= model->joint_mimic[j] >= 0;
  }
  for (bool s : seen) EXPECT_TRUE(s);
  EXPECT_TRUE(mimic);
  auto poses = test::body_poses(*model, model->neutral_configuration());
  EXPECT_GT(length(poses[0].p), 30.0);  // far from the origin
}

TEST_F(ZooFixture, AnalyticJacobiansMatchFiniteDifferencesAndDualNumbers) {
  std::mt19937 rng(5);
  std::map<int, int> checked;
  for (const auto& q : configurations()) {
    IkProblem pr = make_problem(q, rng);
    ProblemView<double> pv = pr.view();
    const int nv = model->dof_count;
    for (int oi = 0; oi < pr.objective_count(); ++oi) {
      for (int p = 0; p < pr.problem_count(); ++p) {
        std::string what = pr.objective(oi).name + " (" + type_name(pr.objective(oi).params.type) +
                           ") problem " + std::to_string(p);
        auto Ja = test::analytic_jacobian(pv, oi, p, q);
        auto Jf = test::fd_jacobian(pv, oi, p, q, kFdStep);
        auto Jd = test::dual_jacobian(pv, oi, p, q);
        test::expect_matrix_near(Ja, Jd, nv, kDualTol, what + " analytic vs dual");
        test::expect_matrix_near(Ja, Jf, nv, kFdTol, what + " analytic vs fd");
        ++checked[int(pr.objective(oi).params.type)];
      }
    }
  }
  // the collision kinds need collision geometry, which this model has none of: they are checked
  // the same way on the Panda against every obstacle type (collision_objective_test.cpp)
  for (int k = 0; k < objective_kind_count(); ++k) {
    const ObjectiveKind& kind = objective_kinds()[k];
    if (kind.type != ObjectiveType::kCustom && kind.type != ObjectiveType::kSelfCollision &&
        kind.type != ObjectiveType::kWorldCollision) {
      EXPECT_GT(checked[int(kind.type)], 0) << kind.name;
    }
  }
}

// the float rows (GPU and float CPU path) follow the double ones: analytic Jacobians of the
// float problem against the double analytic (checked above against finite differences)
TEST_F(ZooFixture, FloatJacobiansFollowDouble) {
  std::mt19937 rng(6);
  for (const auto& q : configurations()) {
    IkProblem pr = make_problem(q, rng);
    TypedProblem<float> tf(pr);
    const int nv = model->dof_count;
    std::vector<float> qf(q.begin(), q.end());
    std::vector<Transform<float>> body(model->body_count);
    fk_row(tf.view.model, qf.data(), body.data());
    for (int oi = 0; oi < pr.objective_count(); ++oi) {
      ObjectiveType t = pr.objective(oi).params.type;
      if (t != ObjectiveType::kCom && t != ObjectiveType::kLookAt &&
          t != ObjectiveType::kAxisAlign && t != ObjectiveType::kSupportPolygon &&
          t != ObjectiveType::kPositionBox && t != ObjectiveType::kOrientationCone &&
          t != ObjectiveType::kManipulability)
        continue;
      for (int p = 0; p < pr.problem_count(); ++p) {
        auto Jd = test::analytic_jacobian(pr.view(), oi, p, q);
        std::vector<float> Jf(Jd.size());
        objective_jacobian(tf.view, oi, p, qf.data(), body.data(), Jf.data(), nv);
        std::vector<double> Jfd(Jf.begin(), Jf.end());
        test::expect_matrix_near(Jfd, Jd, nv, 2e-3, pr.objective(oi).name + " float vs double");
      }
    }
  }
}

// the centre of mass by hand on the planar arm (base 1 kg at the origin; links of 1 kg with
// their COMs at 0.5, 0.4, 0.25 m along x; a 0.1 kg tip; the joints 0.1 m above the base)
TEST(Com, MatchesAHandComputationAndItsTargetIsMet) {
  auto model = std::make_shared<Model>(test::planar_arm());
  auto at = [&](std::vector<double> q) {
    IkProblem pr(model);
    Objective o;
    o.params.type = ObjectiveType::kCom;
    pr.add_objective(o);
    auto poses = test::body_poses(*model, q);
    Vec3<double> c = objective_point(*model, pr.objective(0).params, poses).p;
    // the rows vanish at the met target
    pr.set_target_pose(0, 0, objective_met_target(*model, pr.objective(0).params, poses));
    for (double v : test::raw_rows(pr.view(), 0, 0, q)) EXPECT_NEAR(v, 0.0, 1e-12);
    return c;
  };
  Vec3<double> c = at({0, 0, 0});
  EXPECT_NEAR(c.x, (0.5 + 1.4 + 2.05 + 0.1 * 2.3) / 4.1, 1e-12);
  EXPECT_NEAR(c.y, 0.0, 1e-12);
  EXPECT_NEAR(c.z, 0.1 * 3.1 / 4.1, 1e-12);
  // first link along y, the rest back along x
  c = at({M_PI / 2, -M_PI / 2, 0});
  EXPECT_NEAR(c.x, (0.4 + 1.05 + 0.1 * 1.3) / 4.1, 1e-12);
  EXPECT_NEAR(c.y, (0.5 + 1.0 + 1.0 + 0.1 * 1.0) / 4.1, 1e-12);
  EXPECT_NEAR(c.z, 0.1 * 3.1 / 4.1, 1e-12);
}

// look_at / axis_align rows: the angle beyond the cone about unit(d x a); zero inside it and
// at the met target; pointing away is the largest error, not a zero
TEST_F(ZooFixture, ConeRowsAreTheAngleBeyondTheCone) {
  auto q = model->neutral_configuration();
  auto poses = test::body_poses(*model, q);
  int c = body("c");
  Vec3<double> a = rotate(poses[c].q, Vec3<double>{1, 0, 0});
  Vec3<double> perp = (1.0 / length(cross(a, {0.3, 0.5, 0.7}))) * cross(a, {0.3, 0.5, 0.7});
  IkProblem pr(model);
  for (double angle : {0.2, 1.0, 2.5, M_PI}) {
    for (double cone : {0.0, 0.5}) {
      // direction d = a turned by -angle about perp: a is d turned by +angle about perp
      Vec3<double> d = rotate(quat_exp(-angle * perp), a);
      int o = pr.add_objective(whole_body(ObjectiveType::kAxisAlign, c, {1, 0, 0}, d, cone));
      auto r = test::raw_rows(pr.view(), o, 0, q);
      double beyond = std::max(0.0, angle - cone);
      Vec3<double> rv{r[0], r[1], r[2]};
      EXPECT_NEAR(length(rv), beyond, 1e-9) << angle << " " << cone;
      if (angle < 3 && beyond > 0) {
        EXPECT_NEAR(dot(rv, perp), beyond, 1e-9) << angle << " " << cone;
      }
      if (beyond > 0) {  // the Jacobian turns it (also when pointing exactly away)
        auto J = test::analytic_jacobian(pr.view(), o, 0, q);
        EXPECT_GT(test::norm(J), 0.1) << angle;
      }
    }
  }
  // look_at: zero at its met target
  int ol = pr.add_objective(whole_body(ObjectiveType::kLookAt, c, {0, 1, 0}, {}, 0));
  pr.set_target_pose(ol, 0, objective_met_target(*model, pr.objective(ol).params, poses));
  for (double v : test::raw_rows(pr.view(), ol, 0, q)) EXPECT_NEAR(v, 0.0, 1e-12);
}

// a look_at that follows a point of link_b has the rows of a look_at whose target sits at that
// point; only its Jacobian differs (the point moves with link_b's chain), and it has no target
TEST_F(ZooFixture, LookAtFollowingALinkLooksAtItsPoint) {
  std::mt19937 rng(3);
  auto q = test::random_configuration(*model, rng);
  auto poses = test::body_poses(*model, q);
  int a = body("c"), b = body("g");
  IkProblem pr(model);
  Objective follow = whole_body(ObjectiveType::kLookAt, a, {0, 1, 0}, {}, 0);
  follow.params.link_b = b;
  follow.params.offset_b = kOffB;
  int of = pr.add_objective(follow);
  int ot = pr.add_objective(whole_body(ObjectiveType::kLookAt, a, {0, 1, 0}, {}, 0));
  pr.set_target_position(ot, 0, transform_point(poses[b], kOffB));
  auto rf = test::raw_rows(pr.view(), of, 0, q), rt = test::raw_rows(pr.view(), ot, 0, q);
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(rf[k], rt[k]);
  EXPECT_GT(std::fabs(rf[0]) + std::fabs(rf[1]) + std::fabs(rf[2]), 1e-3);
  auto Jf = test::analytic_jacobian(pr.view(), of, 0, q);
  auto Jt = test::analytic_jacobian(pr.view(), ot, 0, q);
  double diff = 0;
  for (std::size_t i = 0; i < Jf.size(); ++i) diff += std::fabs(Jf[i] - Jt[i]);
  EXPECT_GT(diff, 1e-3);
  EXPECT_FALSE(pr.objective(of).has_target());
  EXPECT_TRUE(pr.objective(ot).has_target());
  EXPECT_EQ(pr.objective(of).name, "look_at c at g");
  // a link_b out of range is refused, naming the field
  follow.params.link_b = model->body_count;
  try {
    pr.add_objective(follow);
    FAIL() << "link_b out of range accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("link_b"), std::string::npos) << e.what();
  }
}

// the Jacobians are not trivially zero: every dof moves some link of the zoo
TEST_F(ZooFixture, PositionJacobianCoversEveryDof) {
  std::mt19937 rng(1);
  auto q = test::random_configuration(*model, rng);
  IkProblem pr(model);
  std::vector<double> any(model->dof_count, 0.0);
  for (int b = 0; b < model->body_count; ++b) {
    int o = pr.add_pose(b, kOffA);
    auto J = test::analytic_jacobian(pr.view(), o, 0, q);
    for (std::size_t i = 0; i < J.size(); ++i) any[i % model->dof_count] += std::fabs(J[i]);
  }
  for (int d = 0; d < model->dof_count; ++d) EXPECT_GT(any[d], 1e-3) << "dof " << d;
}

TEST_F(ZooFixture, MimicJointFeedsItsSourceDof) {
  // body g hangs below the mimic joint, whose source ("branch") moves another branch: g's
  // position depends on the branch dof only through the mimic
  int g = body("g");
  int src = model->find_joint("branch");
  ASSERT_GE(src, 0);
  int dof = model->joint_qd_start[src];
  IkProblem pr(model);
  int o = pr.add_position(g, kOffA);
  std::mt19937 rng(3);
  auto q = test::random_configuration(*model, rng);
  auto J = test::analytic_jacobian(pr.view(), o, 0, q);
  double col = 0;
  for (int r = 0; r < 3; ++r) col += std::fabs(J[r * model->dof_count + dof]);
  EXPECT_GT(col, 1e-3);
}

TEST_F(ZooFixture, ResidualsVanishAtTheirTargets) {
  std::mt19937 rng(8);
  auto q = test::random_configuration(*model, rng);
  auto poses = test::body_poses(*model, q);
  IkProblem pr(model);
  int c = body("c"), g = body("g");
  int op = pr.add_position(g, kOffA);
  pr.set_target_position(op, 0, transform_point(poses[g], kOffA));
  int orot = pr.add_rotation(c);
  pr.set_target_rotation(orot, 0, poses[c].q);
  int opose = pr.add_pose(c, kOffB);
  pr.set_target_pose(opose, 0, {transform_point(poses[c], kOffB), poses[c].q});
  int opost = pr.add_posture(q);
  int orel = pr.add_relative_fixed(c, g, inverse(poses[c]) * poses[g]);
  int oball = pr.add_relative_ball(
      c, transform_point(inverse(poses[c]), transform_point(poses[g], kOffA)), g, kOffA);
  for (int oi : {op, orot, opose, opost, orel, oball})
    for (double v : test::raw_rows(pr.view(), oi, 0, q)) EXPECT_NEAR(v, 0.0, 1e-9) << oi;
}

TEST_F(ZooFixture, ResidualSignsAndValues) {
  auto q = model->neutral_configuration();
  auto poses = test::body_poses(*model, q);
  int a = body("a"), f = body("f");
  IkProblem pr(model);
  // position: x - target
  int op = pr.add_position(a, kOffA);
  Vec3<double> x = transform_point(poses[a], kOffA);
  pr.set_target_position(op, 0, x - Vec3<double>{0.1, -0.2, 0.3});
  auto r = test::raw_rows(pr.view(), op, 0, q);
  EXPECT_NEAR(r[0], 0.1, 1e-12);
  EXPECT_NEAR(r[1], -0.2, 1e-12);
  EXPECT_NEAR(r[2], 0.3, 1e-12);
  // rotation: log(R R_t^T), the rotation taking the target to the link, in world
  int orot = pr.add_rotation(a);
  Vec3<double> w{0.2, -0.4, 0.1};
  pr.set_target_rotation(orot, 0, quat_exp(-1.0 * w) * poses[a].q);
  r = test::raw_rows(pr.view(), orot, 0, q);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(r[k], w[k], 1e-12);
  // min distance: g = distance - |xa - xb| (<= 0 when satisfied)
  double dist = length(transform_point(poses[a], kOffA) - transform_point(poses[f], kOffB));
  int od = pr.add_min_distance(a, kOffA, f, kOffB, dist + 0.25);
  EXPECT_NEAR(test::raw_rows(pr.view(), od, 0, q)[0], 0.25, 1e-12);
  // joint limits: max(q - upper, lower - q) per limited 1-dof dof, -1 elsewhere
  int ol = pr.add_joint_limits();
  auto ql = q;
  int rev = model->find_joint("rev");
  int cont = model->find_joint("cont");
  int dr = model->joint_qd_start[rev];
  ql[model->joint_q_start[rev]] = model->dof_upper[dr] + 0.3;
  r = test::raw_rows(pr.view(), ol, 0, ql);
  EXPECT_NEAR(r[dr], 0.3, 1e-12);
  EXPECT_EQ(r[model->joint_qd_start[cont]], -1.0);  // continuous: no limits
  EXPECT_EQ(r[0], -1.0);                            // free joint dofs
  ql[model->joint_q_start[rev]] = model->dof_lower[dr] + 0.5;
  EXPECT_NEAR(test::raw_rows(pr.view(), ol, 0, ql)[dr], -0.5, 1e-12);
}

TEST_F(ZooFixture, PostureRowsAreTheDofDifference) {
  std::mt19937 rng(4);
  auto rest = test::random_configuration(*model, rng);
  auto d = test::random_dofs(*model, rng, 0.7);
  auto q = test::integrate(*model, rest, d);
  IkProblem pr(model);
  int o = pr.add_posture(rest);
  auto r = test::raw_rows(pr.view(), o, 0, q);
  // rest (+) r = q: the rows are the dof step from the rest (ball / free: rotation vectors), but
  // for a free joint's position, which is no posture (a floating base's place): zero
  std::vector<bool> base_position(std::size_t(model->dof_count), false);
  for (int j = 0; j < model->joint_count; ++j)
    if (JointType(model->joint_type[j]) == JointType::kFree)
      for (int k = 0; k < 3; ++k) base_position[std::size_t(model->joint_qd_start[j] + k)] = true;
  ASSERT_TRUE(std::count(base_position.begin(), base_position.end(), true) > 0);
  for (int i = 0; i < model->dof_count; ++i)
    EXPECT_NEAR(r[i], base_position[std::size_t(i)] ? 0.0 : d[i], 1e-9) << i;
}

// a continuous joint's row is the shortest turn to its rest; its Jacobian is the plain one
TEST_F(ZooFixture, PostureRowOfAContinuousJointIsTheShortestTurn) {
  const int cont = model->find_joint("cont");
  const int qc = model->joint_q_start[cont], dc = model->joint_qd_start[cont];
  std::vector<double> rest = model->neutral_configuration(), q = rest;
  rest[qc] = -3.1;
  q[qc] = 3.1;
  IkProblem pr(model);
  int o = pr.add_posture(rest);
  EXPECT_NEAR(test::raw_rows(pr.view(), o, 0, q)[dc], 6.2 - 2 * M_PI, 1e-12);
  q[qc] = -3.1 + 4 * M_PI + 0.2;  // a wrist that has turned twice before
  EXPECT_NEAR(test::raw_rows(pr.view(), o, 0, q)[dc], 0.2, 1e-12);
  const int nv = model->dof_count;
  auto Ja = test::analytic_jacobian(pr.view(), o, 0, q);
  test::expect_matrix_near(Ja, test::dual_jacobian(pr.view(), o, 0, q), nv, kDualTol, "dual");
  test::expect_matrix_near(Ja, test::fd_jacobian(pr.view(), o, 0, q, kFdStep), nv, kFdTol, "fd");
  EXPECT_EQ(Ja[std::size_t(dc) * nv + dc], 1.0);
}

// per-axis weights and the weight scale rows and Jacobian; inequality rows clip at 0
TEST(ApplyMode, SoftRows) {
  ObjectiveParams<double> o;
  o.type = ObjectiveType::kPose;
  o.dim = 6;
  o.weight = 2.0;
  o.position_weights = {1.0, 0.5, 0.0};
  o.rotation_weights = {3.0, 1.0, 2.0};
  double r[6] = {1, 1, 1, 1, 1, 1};
  double J[12] = {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
  apply_mode(o, (const double*)nullptr, 1.0, 2, r, J, 2);
  const double w[6] = {2.0, 1.0, 0.0, 6.0, 2.0, 4.0};
  for (int k = 0; k < 6; ++k) {
    EXPECT_DOUBLE_EQ(r[k], w[k]);
    EXPECT_DOUBLE_EQ(J[2 * k], w[k]);
    EXPECT_DOUBLE_EQ(J[2 * k + 1], 2 * w[k]);
  }

  ObjectiveParams<double> lim;
  lim.type = ObjectiveType::kJointLimits;
  lim.dim = 2;
  lim.weight = 3.0;
  double rl[2] = {-0.5, 0.25};
  double Jl[2] = {1.0, -1.0};
  apply_mode(lim, (const double*)nullptr, 1.0, 1, rl, Jl, 1);
  EXPECT_EQ(rl[0], 0.0);
  EXPECT_EQ(Jl[0], 0.0);
  EXPECT_DOUBLE_EQ(rl[1], 0.75);
  EXPECT_DOUBLE_EQ(Jl[1], -3.0);
}

TEST(ApplyMode, HardRowsAreAugmentedLagrangian) {
  const double mu = 16.0;
  ObjectiveParams<double> eq;
  eq.type = ObjectiveType::kPosition;
  eq.dim = 3;
  eq.hard = 1;
  eq.weight = 123.0;  // ignored for hard rows
  double lambda[3] = {0.8, -1.6, 0.0};
  double r[3] = {0.1, 0.2, -0.3};
  double J[3] = {1.0, 2.0, 3.0};
  apply_mode(eq, lambda, mu, 1, r, J, 1);
  EXPECT_DOUBLE_EQ(r[0], 4.0 * (0.1 + 0.05));
  EXPECT_DOUBLE_EQ(r[1], 4.0 * (0.2 - 0.1));
  EXPECT_DOUBLE_EQ(r[2], 4.0 * -0.3);
  EXPECT_DOUBLE_EQ(J[0], 4.0);
  EXPECT_DOUBLE_EQ(J[2], 12.0);

  // inequality: sqrt(mu) max(0, g + lambda / mu)
  ObjectiveParams<double> in;
  in.type = ObjectiveType::kMinDistance;
  in.dim = 1;
  in.hard = 1;
  double l1[1] = {3.2};
  double g1[1] = {-0.1};  // satisfied, but the multiplier keeps it active: -0.1 + 0.2 > 0
  double j1[1] = {1.0};
  apply_mode(in, l1, mu, 1, g1, j1, 1);
  EXPECT_DOUBLE_EQ(g1[0], 4.0 * 0.1);
  EXPECT_DOUBLE_EQ(j1[0], 4.0);
  // inactive: the residual is 0; with the Jacobian, the row keeps its linear model (the value
  // before the max and its row), which the LM step sets aside
  double l2[1] = {0.0};
  double g2[1] = {-0.1};
  apply_mode(in, l2, mu, 1, g2, (double*)nullptr, 1);
  EXPECT_EQ(g2[0], 0.0);
  double g3[1] = {-0.1};
  double j3[1] = {1.0};
  apply_mode(in, l2, mu, 1, g3, j3, 1);
  EXPECT_DOUBLE_EQ(g3[0], 4.0 * -0.1);
  EXPECT_DOUBLE_EQ(j3[0], 4.0);
}

TEST(ApplyMode, DisabledRowsAreZero) {
  ObjectiveParams<double> o;
  o.type = ObjectiveType::kPosition;
  o.dim = 3;
  o.enabled = 0;
  double r[3] = {1, 2, 3};
  double J[3] = {1, 2, 3};
  apply_mode(o, (const double*)nullptr, 1.0, 1, r, J, 1);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(r[k], 0.0);
    EXPECT_EQ(J[k], 0.0);
  }
}

// the rotation error's Jacobian is exact (J_l^{-1}), not the identity approximation: at a
// large error the two differ, and finite differences side with the exact one
TEST_F(ZooFixture, RotationJacobianIsExactAtLargeErrors) {
  std::mt19937 rng(2);
  auto q = test::random_configuration(*model, rng);
  auto poses = test::body_poses(*model, q);
  int c = body("c");
  IkProblem pr(model);
  int o = pr.add_rotation(c);
  pr.set_target_rotation(o, 0, quat_exp(Vec3<double>{1.5, -1.0, 0.8}) * poses[c].q);
  auto Ja = test::analytic_jacobian(pr.view(), o, 0, q);
  auto Jf = test::fd_jacobian(pr.view(), o, 0, q, kFdStep);
  test::expect_matrix_near(Ja, Jf, model->dof_count, kFdTol, "rotation");
  // the plain angular-velocity rows (identity approximation) are far off
  std::vector<double> lin(3 * model->dof_count), ang(3 * model->dof_count);
  std::vector<Transform<double>> body(model->body_count);
  fk_row(model->view(), q.data(), body.data());
  double diff = 0;
  ColumnAccumulator<double> acc;
  acc.ld = model->dof_count;
  acc.ang = ang.data();
  acc.x = body[c].p;
  visit_body_columns(model->view(), body.data(), c, acc);
  for (std::size_t i = 0; i < ang.size(); ++i) diff = std::max(diff, std::fabs(ang[i] - Ja[i]));
  EXPECT_GT(diff, 0.1);
}

}  // namespace
}  // namespace ikwb
