// The centre of mass (solver/objective_whole_body.hpp, the com objective's point) on two shipped
// robots against hand computations from the numbers in their URDF files: the planar 3R arm in
// closed form at any configuration, and the humanoid standing straight and bent at the waist.
// Its Jacobian, summed over subtrees, against the sum of every body's point Jacobian.
// (tests/solver/objectives_test.cpp checks it on an inline model and its Jacobian against finite
// differences; tools/compare/com_check.py against Pinocchio on Talos, Panda and UR5.)
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/core/urdf_loader.hpp"
#include "solver/objective_report.hpp"
#include "solver/objective_whole_body.hpp"
#include "solver/solver_test_util.hpp"

namespace ikwb {
namespace {

std::shared_ptr<const Model> shipped(const std::string& name) {
  UrdfOptions opt;
  opt.load_meshes = false;
  return load_urdf_file(IKWB_SOURCE_DIR "/assets/robots/" + name + "/" + name + ".urdf", opt).model;
}

Vec3<double> com_at(const Model& m, const std::vector<double>& q) {
  auto poses = test::body_poses(m, q);
  return center_of_mass(m.view(), poses.data());
}

// planar3.urdf: base 5 kg with its COM at z 0.015; joint1 (z axis) 0.05 above the base; link1
// 2 kg, COM 0.189332 along its x; joint2 0.5 along link1; link2 1.5 kg, COM 0.144969; joint3
// 0.4 along link2; link3 1 kg, COM 0.101603; the tip has no mass. 9.5 kg in all.
TEST(CenterOfMass, Planar3ByHand) {
  auto m = shipped("planar3");
  ASSERT_TRUE(m);
  for (auto q : std::vector<std::vector<double>>{
           {0, 0, 0}, {M_PI / 2, -M_PI / 2, 0}, {0.3, -1.1, 2.4}, {-2.9, 2.5, -0.7}}) {
    double a1 = q[0], a2 = q[0] + q[1], a3 = q[0] + q[1] + q[2];
    double x = 2.0 * 0.189332 * std::cos(a1) +
               1.5 * (0.5 * std::cos(a1) + 0.144969 * std::cos(a2)) +
               1.0 * (0.5 * std::cos(a1) + 0.4 * std::cos(a2) + 0.101603 * std::cos(a3));
    double y = 2.0 * 0.189332 * std::sin(a1) +
               1.5 * (0.5 * std::sin(a1) + 0.144969 * std::sin(a2)) +
               1.0 * (0.5 * std::sin(a1) + 0.4 * std::sin(a2) + 0.101603 * std::sin(a3));
    double z = 5.0 * 0.015 + (2.0 + 1.5 + 1.0) * 0.05;
    Vec3<double> c = com_at(*m, q);
    EXPECT_NEAR(c.x, x / 9.5, 1e-12) << q[0] << " " << q[1] << " " << q[2];
    EXPECT_NEAR(c.y, y / 9.5, 1e-12) << q[0] << " " << q[1] << " " << q[2];
    EXPECT_NEAR(c.z, z / 9.5, 1e-12) << q[0] << " " << q[1] << " " << q[2];
  }
}

// humanoid.urdf at q = 0 (fixed base at the origin, every joint frame unrotated): each body's
// COM is the sum of the joint origins down to it plus its inertial origin. 62.7 kg in all.
TEST(CenterOfMass, HumanoidByHand) {
  auto m = shipped("humanoid");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->coord_count, 28);
  // above torso_pitch_joint (at z 0.1): torso, neck, head and both arms, as moments about the
  // joint (x, z), in kg m
  const double torso = 17.0 * 0.211158;
  const double neck = 0.6 * (0.392 + 0.00275135);
  const double head_z = 4.4 * (0.392 + 0.105487), head_x = 4.4 * 0.0121164;
  // one arm: shoulder at z 0.3088 above the joint (y +-0.18), elbow 0.2976 below, wrist 0.2336
  // below the elbow
  const double s = 0.3088, e = s - 0.2976, w = e - 0.2336;
  const double arm = 0.4 * s + 0.3 * s + 1.6 * (s - 0.146687) + 1.0 * (e - 0.0788823) + 0.2 * w +
                     0.45 * (w - 0.0964);
  const double upper_mass = 17.0 + 0.6 + 4.4 + 2 * (0.4 + 0.3 + 1.6 + 1.0 + 0.2 + 0.45);
  const double upper_z = torso + neck + head_z + 2 * arm;  // moment about the joint
  // below it: pelvis, waist link and the legs (hip 0.052 below the pelvis, knee 0.392 below
  // the hip, ankle 0.3936 below the knee; the ankle roll link's COM 0.035 forward), absolute
  const double hip = -0.052, knee = hip - 0.392, ankle = knee - 0.3936;
  const double leg_z = 0.6 * hip + 0.8 * hip + 6.0 * (hip - 0.162627) + 2.8 * (knee - 0.134348) +
                       0.3 * ankle + 0.9 * (ankle - 0.0304);
  const double lower_z = 9.0 * -0.015 + 1.0 * (0.1 - 0.0125) + 2 * leg_z;
  const double lower_x = 2 * 0.9 * 0.035;
  const double total = 62.7;
  ASSERT_NEAR(upper_mass + 9.0 + 1.0 + 2 * (0.6 + 0.8 + 6.0 + 2.8 + 0.3 + 0.9), total, 1e-12);

  std::vector<double> q(28, 0.0);
  Vec3<double> c = com_at(*m, q);
  EXPECT_NEAR(c.x, (lower_x + head_x) / total, 1e-12);
  EXPECT_NEAR(c.y, 0.0, 1e-12);
  EXPECT_NEAR(c.z, (lower_z + upper_mass * 0.1 + upper_z) / total, 1e-12);

  // bent forward at the waist by 90 degrees (pitch about y: the upper body's z becomes x and
  // its x becomes -z), and the same through the com objective's point
  q[m->joint_q_start[m->find_joint("torso_pitch_joint")]] = M_PI / 2;
  c = com_at(*m, q);
  EXPECT_NEAR(c.x, (lower_x + upper_z) / total, 1e-12);
  EXPECT_NEAR(c.y, 0.0, 1e-12);
  EXPECT_NEAR(c.z, (lower_z + upper_mass * 0.1 - head_x) / total, 1e-12);
  ObjectiveParams<double> com;
  com.type = ObjectiveType::kCom;
  com.link = -1;
  Vec3<double> via_objective = objective_point(*m, com, test::body_poses(*m, q)).p;
  EXPECT_NEAR(length(via_objective - c), 0.0, 1e-15);
}

// center_of_mass_jacobian's subtree sums give the Jacobian of the mass-weighted sum of every
// body's centre of mass (each body's point Jacobian, here from its own chain): on the humanoid
// with a floating base and on the model with every joint type (ball, free, planar, prismatic and
// mimic joints, off-axis child frames), at random configurations, with and without masses.
// Tolerance 1e-12: sums of a few dozen products of unit axes and metre lever arms, regrouped.
TEST(CenterOfMass, JacobianFromSubtreesIsTheSumOverBodies) {
  UrdfOptions opt;
  opt.load_meshes = false;
  opt.floating_base = true;
  auto humanoid =
      load_urdf_file(IKWB_SOURCE_DIR "/assets/robots/humanoid/humanoid.urdf", opt).model;
  Model zoo = test::all_joint_types();
  Model massless = zoo;
  for (double& mass : massless.body_mass) mass = 0;
  std::mt19937 rng(8);
  for (const Model* m : std::vector<const Model*>{humanoid.get(), &zoo, &massless}) {
    ModelView<double> v = m->view();
    const int nv = m->dof_count;
    double total = 0;
    for (double mass : m->body_mass) total += mass;
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<double> q =
          test::integrate(*m, m->neutral_configuration(), test::random_dofs(*m, rng, 1.0));
      std::vector<Transform<double>> body = test::body_poses(*m, q);
      std::vector<double> got(3 * nv, 0.0), want(3 * nv, 0.0);
      ColumnAccumulator<double> acc;
      acc.lin = got.data();
      acc.ld = nv;
      center_of_mass_jacobian(v, body.data(), acc);
      ColumnAccumulator<double> ref;
      ref.lin = want.data();
      ref.ld = nv;
      for (int b = 0; b < m->body_count; ++b) {
        ref.x = transform_point(body[b], m->body_com[b]);
        ref.sign = total > 0 ? m->body_mass[b] / total : 1.0 / m->body_count;
        visit_body_columns(v, body.data(), b, ref);
      }
      for (int k = 0; k < 3 * nv; ++k)
        EXPECT_NEAR(got[k], want[k], 1e-12)
            << m->name << " trial " << trial << " row " << k / nv << " dof " << k % nv;
    }
  }
}

}  // namespace
}  // namespace ikwb
