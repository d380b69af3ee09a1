// Tests for solver/row_terms.hpp and the rows LM sets aside by their terms: the bodies' motion
// along a dof vector against the Jacobians it stands for, the support polygon's and the collision
// kinds' terms against their Jacobian rows, and LM with those rows deferred against LM with every
// Jacobian row computed, on the humanoid preset.
#include "solver/row_terms.hpp"

#include <gtest/gtest.h>

#include <random>

#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/lm_row.hpp"
#include "solver/scene_problem.hpp"
#include "solver_test_util.hpp"
#include "test_robots.hpp"

namespace ikwb {
namespace {

// MotionBuffers over vectors of the model's sizes
struct Motion {
  std::vector<MotionColumn<double>> columns;
  std::vector<int> joint_first;
  std::vector<double> mass, along;
  std::vector<Vec3<double>> moment, motion;
  MotionBuffers<double> mb;
  explicit Motion(const Model& m)
      : columns(std::size_t(kMaxJointColumns) * m.joint_count),
        joint_first(m.joint_count + 1),
        mass(m.joint_count),
        along(2 * m.dof_count),
        moment(m.joint_count),
        motion(4 * m.body_count) {
    mb.columns = columns.data();
    mb.joint_first = joint_first.data();
    mb.subtree_mass = mass.data();
    mb.subtree_moment = moment.data();
    mb.motion = motion.data();
    mb.along = along.data();
  }
};

std::shared_ptr<const Model> floating_humanoid() {
  UrdfOptions opt;
  opt.load_meshes = false;
  opt.floating_base = true;
  return load_urdf_file(resolve_robot("humanoid"), opt).model;
}

// Tolerance 1e-12 below: sums of a few dozen products of unit axes, metre lever arms and dof
// values of order 1, grouped differently than the Jacobians group them.
constexpr double kTol = 1e-12;

// A point's velocity along v is its point Jacobian times v, the centre of mass's the centre of
// mass Jacobian times v: on the humanoid with a floating base and on the model with every joint
// type (ball, free, planar, prismatic and mimic joints, off-axis child frames), with and without
// masses. A half keeps its vector's motion until another vector (or configuration) comes.
TEST(RowTerms, BodyMotionIsTheJacobianTimesTheVector) {
  auto humanoid = floating_humanoid();
  Model zoo = test::all_joint_types();
  Model massless = zoo;
  for (double& mass : massless.body_mass) mass = 0;
  std::mt19937 rng(5);
  for (const Model* m : std::vector<const Model*>{humanoid.get(), &zoo, &massless}) {
    ModelView<double> view = m->view();
    const int nv = m->dof_count;
    Motion mo(*m);
    for (int trial = 0; trial < 4; ++trial) {
      const std::vector<double> q =
          test::integrate(*m, m->neutral_configuration(), test::random_dofs(*m, rng, 1.0));
      const std::vector<Transform<double>> body = test::body_poses(*m, q);
      motion_columns(view, body.data(), mo.mb);
      const std::vector<double> v = test::random_dofs(*m, rng, 1.0);
      const std::vector<double> other = test::random_dofs(*m, rng, 1.0);
      motion_along(view, mo.mb, other.data(), 1);
      const Vec3<double>* motion = motion_along(view, mo.mb, v.data(), 1);
      std::vector<double> J(3 * nv);
      for (int b = 0; b < m->body_count; ++b) {
        const Vec3<double> x = transform_point(body[b], Vec3<double>{0.1, -0.2, 0.05});
        point_jacobian(view, body.data(), b, x, J.data(), (double*)nullptr, nv);
        const Vec3<double> got = point_velocity(motion, b, x);
        for (int r = 0; r < 3; ++r) {
          double want = 0;
          for (int c = 0; c < nv; ++c) want += J[r * nv + c] * v[c];
          EXPECT_NEAR(got[r], want, kTol) << m->name << " trial " << trial << " body " << b;
        }
      }
      std::fill(J.begin(), J.end(), 0.0);
      ColumnAccumulator<double> acc;
      acc.lin = J.data();
      acc.ld = nv;
      center_of_mass_jacobian(view, body.data(), acc);
      for (int r = 0; r < 3; ++r) {
        double want = 0;
        for (int c = 0; c < nv; ++c) want += J[r * nv + c] * v[c];
        EXPECT_NEAR(mo.mb.com_velocity[1][r], want, kTol) << m->name << " trial " << trial;
      }
    }
  }
}

// the humanoid preset's problem (hard feet and support polygon, self collision), at its
// configuration
struct HumanoidPreset {
  std::shared_ptr<const Model> model;
  SceneSetup setup;
  HumanoidPreset() {
    Scene scene = load_scene(asset_dir() + "/robots/humanoid/preset.json");
    UrdfOptions opt;
    opt.floating_base = scene.floating_base;
    opt.load_meshes = false;
    model = load_urdf_file(resolve_robot(scene.robot), opt).model;
    setup = resolve_scene(*model, scene);
  }
};

// A row's terms are its Jacobian row: built into a row (terms_row) they give the kind's
// objective_jacobian row, and along a vector (terms_slope) that row times the vector; the raw
// rows written with them are objective_residual's, bit for bit. The support polygon with a
// polygon, a segment and one point, self collision and world collision (a box and the floor), at
// random configurations of the humanoid.
TEST(RowTerms, TermsAreTheSupportAndCollisionJacobianRows) {
  HumanoidPreset h;
  const Model& m = *h.model;
  const int nv = m.dof_count;
  const int foot_l = m.find_body("left_foot"), foot_r = m.find_body("right_foot");
  ASSERT_GE(foot_l, 0);
  ASSERT_GE(foot_r, 0);
  IkProblem pr(h.model);
  Obstacle box;
  box.name = "box";
  box.type = ShapeType::kBox;
  box.size = {0.3, 0.2, 0.25};
  box.pose = {{0.3, 0.1, 0.2}, {0, 0, 0, 1}};
  Obstacle floor;
  floor.name = "floor";
  floor.type = ShapeType::kHalfSpace;
  floor.normal = {0, 0, 1};
  floor.offset = -0.6;
  pr.set_collision_world(make_collision_world(m, {}, {box, floor}));
  const std::vector<std::vector<LinkPoint<double>>> sets = {
      {{foot_l, {0.1, 0.05, -0.03}},
       {foot_l, {-0.08, 0.05, -0.03}},
       {foot_r, {0.1, -0.05, -0.03}},
       {foot_r, {-0.08, -0.05, -0.03}}},
      {{foot_l, {0.1, 0.05, -0.03}}, {foot_r, {-0.08, -0.05, -0.03}}},
      {{foot_l, {0.0, 0.0, -0.03}}}};
  std::vector<int> objectives;
  for (const auto& points : sets) {
    Objective sp;
    sp.params.type = ObjectiveType::kSupportPolygon;
    sp.params.margin = 0.02;
    sp.points = points;
    objectives.push_back(pr.add_objective(sp));
  }
  for (ObjectiveType type : {ObjectiveType::kSelfCollision, ObjectiveType::kWorldCollision}) {
    Objective c;
    c.params.type = type;
    c.params.margin = 0.05;
    objectives.push_back(pr.add_objective(c));
  }
  const ProblemView<double> pv = pr.view();
  Motion mo(m);
  std::mt19937 rng(17);
  int rows_checked = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const std::vector<double> q = test::integrate(m, h.setup.q, test::random_dofs(m, rng, 0.6));
    const std::vector<Transform<double>> body = test::body_poses(m, q);
    motion_columns(pv.model, body.data(), mo.mb);
    const std::vector<double> v = test::random_dofs(m, rng, 1.0);
    const Vec3<double>* motion = motion_along(pv.model, mo.mb, v.data(), 0);
    for (int oi : objectives) {
      const int dim = pv.objectives[oi].dim;
      std::vector<RowTerms<double>> terms(dim);
      std::vector<double> raw(dim), J(std::size_t(dim) * nv), row(nv);
      objective_row_terms(pv, oi, body.data(), raw.data(), terms.data());
      EXPECT_EQ(raw, test::raw_rows(pv, oi, 0, q)) << "objective " << oi;
      objective_jacobian(pv, oi, 0, q.data(), body.data(), J.data(), nv);
      for (int k = 0; k < dim; ++k) {
        const std::string what = "trial " + std::to_string(trial) + " objective " +
                                 std::to_string(oi) + " row " + std::to_string(k);
        ASSERT_GE(terms[k].count, 0) << what;
        terms_row(pv.model, mo.mb, terms[k], row.data());
        double want = 0;
        for (int c = 0; c < nv; ++c) {
          EXPECT_NEAR(row[c], J[k * nv + c], kTol) << what << " dof " << c;
          want += J[k * nv + c] * v[c];
        }
        EXPECT_NEAR(terms_slope(terms[k], motion, mo.mb.com_velocity[0]), want, kTol) << what;
        rows_checked += terms[k].count > 0;
      }
    }
  }
  EXPECT_GT(rows_checked,
            6 * 10);  // most rows have terms (a collision row without a pair has none)
}

// LM on the humanoid preset with its inactive support and collision rows set aside by their terms
// (as the CPU backend solves) and with every Jacobian row computed: the same iterations and the
// same answer, to the rounding of the few rows' linear models, from its configuration to hand
// targets moved a few centimetres.
TEST(RowTerms, RowsSetAsideByTheirTermsSolveAsJacobianRows) {
  HumanoidPreset h;
  const Model& m = *h.model;
  IkProblem pr = make_problem(h.model, h.setup.objectives, 1, &h.setup.collision);
  const ProblemView<double> pv = pr.view();
  const int nq = m.coord_count, nv = m.dof_count, nr = pr.residual_count();
  const int latent_rows = lm_latent_rows(pv.objectives, pv.objective_count);
  ASSERT_GE(latent_rows, 16);
  int hand = -1;
  for (int oi = 0; oi < pv.objective_count && hand < 0; ++oi)
    if (!pv.objectives[oi].hard && pv.objectives[oi].type == ObjectiveType::kPose) hand = oi;
  ASSERT_GE(hand, 0);
  LmConfig<double> cfg;
  cfg.max_iterations = 60;
  cfg.polish_iterations = 1;
  std::mt19937 rng(3);
  int deferred_solves = 0;
  for (int trial = 0; trial < 6; ++trial) {
    Transform<double> target = h.setup.objectives[hand].target;
    std::uniform_real_distribution<double> shift(-0.06, 0.06);
    target.p = target.p + Vec3<double>{shift(rng), shift(rng), shift(rng)};
    pr.set_target_pose(hand, 0, target);
    RowStatus<double> st[2];
    std::vector<double> q_end[2];
    for (int deferred = 0; deferred < 2; ++deferred) {
      std::vector<double> q = h.setup.q, qt(nq), r(nr), rt(nr), J(std::size_t(nr) * nv), A(nv * nv),
                          L(nv * nv), g(nv), dq(nv), tmp(nv), al(nr), diag(3 * nv),
                          latent(lm_latent_capacity(latent_rows, nv));
      std::vector<int> row_col(nr), rows(nr), cols(lm_cols_capacity(nv));
      std::vector<Transform<double>> bq(m.body_count, transform_identity<double>()), bqt = bq;
      std::vector<RowTerms<double>> terms(latent_rows);
      Motion mo(m);
      RowBuffers<double> b{q.data(),      qt.data(),   bq.data(),      bqt.data(),  r.data(),
                           rt.data(),     J.data(),    A.data(),       L.data(),    g.data(),
                           dq.data(),     tmp.data(),  al.data(),      nullptr,     nullptr,
                           0.0,           diag.data(), row_col.data(), rows.data(), cols.data(),
                           latent.data(), nullptr,     nullptr};
      AnalyticEvaluator<double> ev;
      ev.pv = pv;
      if (deferred) {
        b.terms = terms.data();
        b.motion = &mo.mb;
        ev.terms = terms.data();
      }
      lm_solve_row(ev, pv, cfg, b, st[deferred]);
      q_end[deferred].assign(b.q, b.q + nq);
      if (deferred) deferred_solves += mo.mb.count > 0;
    }
    EXPECT_TRUE(st[0].converged) << "trial " << trial;
    EXPECT_EQ(st[1].converged, st[0].converged) << "trial " << trial;
    // the iteration counts are not compared: a row met while the soft collision rows pull ends
    // after two iterations that each lower the cost by under 1e-3 of it (kPullSettled), a test
    // the models' last bits can tip either way (three iterations apart under the sanitizers'
    // build); where it ends, the two agree to 1e-9 below
    // steps of a dozen LM iterations: the rows' models differ in their last bits only
    EXPECT_LT(test::max_abs_diff(q_end[1], q_end[0]), 1e-9) << "trial " << trial;
  }
  EXPECT_EQ(deferred_solves, 6);  // every solve set rows aside by their terms
}

}  // namespace
}  // namespace ikwb
