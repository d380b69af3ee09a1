#include "engine/core/urdf_loader.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/temp_files.hpp"
#include "engine/core/fk.hpp"

namespace ikwb {
namespace {

using test::TempDir;

constexpr double kHalfPi = 1.5707963267948966;

LoadResult load(const std::string& xml, const UrdfOptions& opt = {},
                const std::string& base_dir = "") {
  return load_urdf_string(xml, "test.urdf", base_dir, opt);
}

std::string robot(const std::string& body) {
  return "<robot name=\"r\">\n" + body + "\n</robot>";
}

std::string revolute(const std::string& name, const std::string& parent, const std::string& child,
                     const std::string& extra = "", const std::string& limit = "-3 3") {
  std::string lo = limit.substr(0, limit.find(' ')), hi = limit.substr(limit.find(' ') + 1);
  return "<joint name=\"" + name + "\" type=\"revolute\"><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/>" + extra + "<limit lower=\"" + lo + "\" upper=\"" +
         hi + "\" effort=\"10\" velocity=\"2\"/></joint>";
}

std::string fixed(const std::string& name, const std::string& parent, const std::string& child,
                  const std::string& extra = "") {
  return "<joint name=\"" + name + "\" type=\"fixed\"><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/>" + extra + "</joint>";
}

void expect_pos(const Transform<double>& x, double px, double py, double pz, double tol = 1e-12) {
  EXPECT_NEAR(x.p.x, px, tol);
  EXPECT_NEAR(x.p.y, py, tol);
  EXPECT_NEAR(x.p.z, pz, tol);
}

Eigen::Matrix3d rotation(const Quat<double>& q) {
  return Eigen::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
}

Eigen::Isometry3d origin(double x, double y, double z, double r, double p, double yaw) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.translate(Eigen::Vector3d(x, y, z));
  t.rotate(Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) *
           Eigen::AngleAxisd(p, Eigen::Vector3d::UnitY()) *
           Eigen::AngleAxisd(r, Eigen::Vector3d::UnitX()));
  return t;
}

void expect_pose(const Transform<double>& x, const Eigen::Isometry3d& ref, double tol = 1e-12) {
  EXPECT_NEAR(x.p.x, ref.translation().x(), tol);
  EXPECT_NEAR(x.p.y, ref.translation().y(), tol);
  EXPECT_NEAR(x.p.z, ref.translation().z(), tol);
  EXPECT_LT((rotation(x.q) - ref.rotation()).norm(), tol);
}

// [SECTION] kinematics

const char* kArm = R"(<robot name="arm">
  <link name="base"/>
  <link name="l1"/>
  <link name="l2"/>
  <link name="l3"/>
  <link name="tip"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.5" rpy="0 0 1.5707963267948966"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="2"/>
  </joint>
  <joint name="mid" type="fixed">
    <parent link="l1"/><child link="l2"/>
    <origin xyz="0.3 0 0"/>
  </joint>
  <joint name="j2" type="revolute">
    <parent link="l2"/><child link="l3"/>
    <origin rpy="1.5707963267948966 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="2"/>
  </joint>
  <joint name="tip_joint" type="fixed">
    <parent link="l3"/><child link="tip"/>
    <origin xyz="0.2 0 0"/>
  </joint>
</robot>)";

TEST(UrdfLoader, ArmMatchesHandComputedPoses) {
  LoadResult r = load(kArm);
  const Model& m = *r.model;
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(m.name, "arm");
  EXPECT_EQ(m.body_count, 5);
  EXPECT_EQ(m.joint_count, 5);
  EXPECT_EQ(m.coord_count, 2);
  EXPECT_EQ(m.dof_count, 2);
  EXPECT_EQ(m.joint_name[0], "root_joint");
  EXPECT_EQ(JointType(m.joint_type[0]), JointType::kFixed);
  EXPECT_EQ(m.joint_parent[0], -1);
  int tip = m.find_body("tip"), l2 = m.find_body("l2"), l3 = m.find_body("l3");
  State s(m);

  eval_fk(m, {0.0, 0.0}, {}, s);
  expect_pos(s.body_q[l2], 0, 0.3, 0.5);
  expect_pos(s.body_q[tip], 0, 0.5, 0.5);

  // j2 turns about l3's z, which the roll of its origin points along world -x... after the yaw
  eval_fk(m, {0.0, kHalfPi}, {}, s);
  expect_pos(s.body_q[tip], 0, 0.3, 0.7);

  eval_fk(m, {kHalfPi, kHalfPi}, {}, s);
  expect_pos(s.body_q[l2], -0.3, 0, 0.5);
  expect_pos(s.body_q[tip], -0.3, 0, 0.7);
  // l3 = Rz(pi) Rx(pi/2) Rz(pi/2): its x axis points up, its z axis along world +x... checked
  Eigen::Matrix3d r3 = rotation(s.body_q[l3].q);
  EXPECT_NEAR(r3(2, 0), 1.0, 1e-12);  // x axis -> world z
}

TEST(UrdfLoader, OffAxisJointsMatchEigenReference) {
  const char* xml = R"(<robot name="offaxis">
    <link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>
    <joint name="rev" type="revolute">
      <parent link="a"/><child link="b"/>
      <origin xyz="0.1 -0.2 0.3" rpy="0.3 -0.4 0.5"/>
      <axis xyz="0.3 -0.5 0.8"/>
      <limit lower="-2" upper="2" effort="1" velocity="1"/>
    </joint>
    <joint name="fix" type="fixed">
      <parent link="b"/><child link="c"/>
      <origin xyz="0.05 0.1 -0.2" rpy="-0.7 0.2 1.1"/>
    </joint>
    <joint name="pri" type="prismatic">
      <parent link="c"/><child link="d"/>
      <origin xyz="0 0.4 0" rpy="0 0.7 0"/>
      <axis xyz="1 1 0"/>
      <limit lower="-0.5" upper="0.5" effort="1" velocity="1"/>
    </joint>
    <joint name="cont" type="continuous">
      <parent link="d"/><child link="e"/>
      <origin xyz="0.2 0 0.1" rpy="0.1 0.2 0.3"/>
      <axis xyz="0 -1 0"/>
    </joint>
  </robot>)";
  LoadResult r = load(xml);
  const Model& m = *r.model;
  ASSERT_EQ(m.coord_count, 3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  State s(m);
  for (int trial = 0; trial < 5; ++trial) {
    double q0 = u(rng), q1 = u(rng) / 4, q2 = u(rng);
    eval_fk(m, {q0, q1, q2}, {}, s);
    Eigen::Isometry3d b = origin(0.1, -0.2, 0.3, 0.3, -0.4, 0.5) *
                          Eigen::AngleAxisd(q0, Eigen::Vector3d(0.3, -0.5, 0.8).normalized());
    Eigen::Isometry3d c = b * origin(0.05, 0.1, -0.2, -0.7, 0.2, 1.1);
    Eigen::Isometry3d d = c * origin(0, 0.4, 0, 0, 0.7, 0) *
                          Eigen::Translation3d(q1 * Eigen::Vector3d(1, 1, 0).normalized());
    Eigen::Isometry3d e =
        d * origin(0.2, 0, 0.1, 0.1, 0.2, 0.3) * Eigen::AngleAxisd(q2, Eigen::Vector3d(0, -1, 0));
    expect_pose(s.body_q[m.find_body("b")], b);
    expect_pose(s.body_q[m.find_body("c")], c);
    expect_pose(s.body_q[m.find_body("d")], d);
    expect_pose(s.body_q[m.find_body("e")], e);
  }
  int cont = m.find_joint("cont");
  EXPECT_EQ(JointType(m.joint_type[cont]), JointType::kContinuous);
  EXPECT_FALSE(m.has_limits(m.joint_qd_start[cont]));
  int rev = m.find_joint("rev");
  EXPECT_NEAR(length(m.joint_axis[rev]), 1.0, 1e-15);
  // axes that are not unit vectors are normalised, with a warning (a prismatic "0 0 3" moved
  // 1 m per unit of q without a word); --strict refuses them
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find(
                "joint 'rev': <axis xyz=\"0.3 -0.5 0.8\"> is not a unit vector "
                "(length 0.989949): normalised, as Pinocchio and KDL read it: q is radians "
                "about the unit axis"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_NE(r.warnings[1].find(
                "joint 'pri': <axis xyz=\"1 1 0\"> is not a unit vector (length "
                "1.41421): normalised, as Pinocchio and KDL read it: q is metres along the "
                "unit axis"),
            std::string::npos)
      << r.warnings[1];
  UrdfOptions strict;
  strict.strict = true;
  EXPECT_THROW(load(xml, strict), ModelError);
}

TEST(UrdfLoader, BreadthFirstOrderWithChildrenInDocumentOrder) {
  // links and joints deliberately out of order in the document
  std::string xml = robot(
      fixed("j_c2", "c", "c2") + fixed("j_b", "root", "b") + fixed("j_c", "root", "c") +
      fixed("j_b1", "b", "b1") +
      R"(<link name="b1"/><link name="c2"/><link name="c"/><link name="b"/><link name="root"/>)");
  LoadResult r = load(xml);
  const Model& m = *r.model;
  std::vector<std::string> bodies(m.body_name.begin(), m.body_name.end());
  EXPECT_EQ(bodies, (std::vector<std::string>{"root", "b", "c", "b1", "c2"}));
  std::vector<std::string> joints(m.joint_name.begin(), m.joint_name.end());
  EXPECT_EQ(joints, (std::vector<std::string>{"root_joint", "j_b", "j_c", "j_b1", "j_c2"}));
  for (int j = 0; j < m.joint_count; ++j) EXPECT_LT(m.joint_ancestor[j], j);
  EXPECT_EQ(m.articulation_count, 1);
  EXPECT_EQ(m.articulation_name[0], "r");
}

TEST(UrdfLoader, RootJointNameAvoidsUrdfNames) {
  std::string xml = robot(R"(<link name="a"/><link name="b"/>)" + fixed("root_joint", "a", "b"));
  LoadResult r = load(xml);
  const Model& m = *r.model;
  EXPECT_EQ(m.joint_name[0], "root_joint_1");
  EXPECT_EQ(m.joint_name[1], "root_joint");
}

TEST(UrdfLoader, LimitsVelocityAndEffort) {
  std::string xml = robot(R"(<link name="a"/><link name="b"/><link name="c"/>)" +
                          revolute("r", "a", "b", "", "-1.25 0.5") +
                          R"(<joint name="p" type="prismatic"><parent link="b"/><child link="c"/>
               <limit lower="0" upper="0.3" effort="7" velocity="0.25"/></joint>)");
  LoadResult r = load(xml);
  const Model& m = *r.model;
  EXPECT_DOUBLE_EQ(m.dof_lower[0], -1.25);
  EXPECT_DOUBLE_EQ(m.dof_upper[0], 0.5);
  EXPECT_DOUBLE_EQ(m.dof_velocity_limit[0], 2);
  EXPECT_DOUBLE_EQ(m.dof_effort_limit[0], 10);
  EXPECT_DOUBLE_EQ(m.dof_lower[1], 0);
  EXPECT_DOUBLE_EQ(m.dof_upper[1], 0.3);
  EXPECT_DOUBLE_EQ(m.dof_velocity_limit[1], 0.25);
  EXPECT_EQ(JointType(m.joint_type[m.find_joint("p")]), JointType::kPrismatic);
  // prismatic default axis is x
  State s(m);
  eval_fk(m, {0.0, 0.2}, {}, s);
  expect_pos(s.body_q[m.find_body("c")], 0.2, 0, 0);
}

TEST(UrdfLoader, FloatingBase) {
  UrdfOptions opt;
  opt.floating_base = true;
  LoadResult r = load(kArm, opt);
  const Model& m = *r.model;
  EXPECT_EQ(JointType(m.joint_type[0]), JointType::kFree);
  EXPECT_EQ(m.coord_count, 9);
  EXPECT_EQ(m.dof_count, 8);
  std::vector<double> q = m.neutral_configuration();
  ASSERT_EQ(q.size(), 9u);
  // base at (1, 2, 3), turned 90 degrees about z
  q[0] = 1, q[1] = 2, q[2] = 3;
  q[5] = std::sin(kHalfPi / 2), q[6] = std::cos(kHalfPi / 2);
  State s(m);
  eval_fk(m, q, {}, s);
  expect_pos(s.body_q[m.find_body("base")], 1, 2, 3);
  // tip at (0, 0.5, 0.5) in the base frame -> (-0.5, 0, 0.5) rotated, then shifted
  expect_pos(s.body_q[m.find_body("tip")], 0.5, 2, 3.5);
}

// A chain of 140,000 joints loads: urdfdom's parser recurses once per link, and past about
// 135,000 it ran out of the main thread's 8 MB stack and crashed the program (and Python)
TEST(UrdfLoader, AVeryDeepChainLoads) {
  const int depth = 140000;
  std::string body = "<link name=\"l0\"/>";
  for (int i = 0; i < depth; ++i)
    body += "<link name=\"l" + std::to_string(i + 1) + "\"/><joint name=\"j" + std::to_string(i) +
            "\" type=\"fixed\"><parent link=\"l" + std::to_string(i) + "\"/><child link=\"l" +
            std::to_string(i + 1) + "\"/></joint>\n";
  const LoadResult r = load(robot(body));
  ASSERT_EQ(r.model->body_count, depth + 1);
  EXPECT_EQ(r.model->joint_parent[r.model->body_joint[depth]], depth - 1);
}

// What urdfdom reads silently is named: a second <origin> (or <axis>, <parent>, ...) of a joint
// (the first is used), a <link> inside a link, and each element after </robot> (a <joint> there
// left two roots and said nothing of the joint); --strict refuses them
TEST(UrdfLoader, RepeatedAndMisplacedElementsAreNamed) {
  const std::string xml =
      R"(<robot name="r"><link name="a"><link name="inner"/></link><link name="b"/>
<joint name="j" type="fixed"><parent link="a"/><child link="b"/>
<origin xyz="1 0 0"/><origin xyz="2 0 0"/></joint>
</robot>
<link name="c"/>)";
  const LoadResult r = load(xml);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("test.urdf:3: joint 'j': a second <origin> (the first on line 3): ignored; "
                     "the first is used"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("test.urdf:1: link 'a': a <link> inside it (links are children of <robot>): "
                     "ignored"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("test.urdf:5: <link name='c'> after the <robot> element: ignored"),
            std::string::npos)
      << all;
  EXPECT_DOUBLE_EQ(r.model->joint_X_p[r.model->find_joint("j")].p.x, 1.0);
  UrdfOptions strict;
  strict.strict = true;
  EXPECT_THROW(load(xml, strict), ModelError);
}

TEST(UrdfLoader, FloatingJointMidTreeIsFree) {
  std::string xml = robot(R"(<link name="a"/><link name="b"/>
      <joint name="f" type="floating"><parent link="a"/><child link="b"/>
      <origin xyz="0 0 1"/></joint>)");
  LoadResult r = load(xml);
  const Model& m = *r.model;
  EXPECT_EQ(JointType(m.joint_type[1]), JointType::kFree);
  EXPECT_EQ(m.coord_count, 7);
  State s(m);
  eval_fk(m, {0.5, 0, 0, 0, 0, 0, 1}, {}, s);
  expect_pos(s.body_q[1], 0.5, 0, 1);
}

// [SECTION] mimic

TEST(UrdfLoader, MimicJointFollowsSource) {
  std::string xml =
      robot(R"(<link name="a"/><link name="b"/><link name="c"/><link name="d"/>)" +
            revolute("src", "a", "b", "<axis xyz=\"0 0 1\"/>") +
            revolute("m", "b", "c",
                     R"(<origin xyz="1 0 0"/><axis xyz="0 0 1"/>)"
                     R"(<mimic joint="src" multiplier="2" offset="0.1"/>)") +
            revolute("m_default", "c", "d",
                     R"(<origin xyz="1 0 0"/><axis xyz="0 0 1"/><mimic joint="src"/>)"));
  LoadResult r = load(xml);
  const Model& m = *r.model;
  EXPECT_EQ(m.coord_count, 1);
  EXPECT_EQ(m.dof_count, 1);
  int jm = m.find_joint("m"), jd = m.find_joint("m_default");
  EXPECT_EQ(m.joint_mimic[jm], m.find_joint("src"));
  EXPECT_DOUBLE_EQ(m.joint_mimic_multiplier[jm], 2.0);
  EXPECT_DOUBLE_EQ(m.joint_mimic_offset[jm], 0.1);
  EXPECT_DOUBLE_EQ(m.joint_mimic_multiplier[jd], 1.0);
  EXPECT_DOUBLE_EQ(m.joint_mimic_offset[jd], 0.0);
  State s(m);
  double q = 0.3;
  eval_fk(m, {q}, {}, s);
  double a1 = q, a2 = q + (2 * q + 0.1);
  expect_pos(s.body_q[m.find_body("d")], std::cos(a1) + std::cos(a2), std::sin(a1) + std::sin(a2),
             0);
}

TEST(UrdfLoader, MimicLimitsNarrowTheSource) {
  // q_m = -2 q_src + 0.5 within [-0.5, 1.5] keeps q_src within [-0.5, 0.5]; q_c = q_src within
  // [-9, 9] (wider than the source's) changes nothing; [10, 11] cannot be reached from the
  // source's [-0.5, 0.5] (narrowed by m first): said, not kept. A mimic of a continuous joint
  // (0.5 turn a turn: not periodic) makes it a revolute joint within [-2, 2]; one that any angle
  // in (-pi, pi] keeps within [-4, 4] leaves its continuous source as it is, unsaid
  std::string xml = robot(
      R"(<link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>)"
      R"(<link name="f"/><link name="g"/>)" +
      revolute("src", "a", "b", "<axis xyz=\"0 0 1\"/>") +
      revolute("m", "b", "c",
               R"(<origin xyz="1 0 0"/><mimic joint="src" multiplier="-2" offset="0.5"/>)",
               "-0.5 1.5") +
      revolute("wide", "b", "d", R"(<mimic joint="src"/>)", "-9 9") +
      revolute("far", "b", "g", R"(<mimic joint="src"/>)", "10 11") +
      R"(<joint name="spin" type="continuous"><parent link="a"/><child link="e"/>)"
      R"(</joint>)" +
      revolute("follows_spin", "e", "f", R"(<mimic joint="spin" multiplier="0.5"/>)", "-1 1") +
      R"(<link name="h"/><link name="i"/><joint name="turn" type="continuous">)"
      R"(<parent link="a"/><child link="h"/></joint>)" +
      revolute("follows_turn", "h", "i", R"(<mimic joint="turn"/>)", "-4 4"));
  LoadResult r = load(xml);
  const Model& m = *r.model;
  const int src = m.joint_qd_start[m.find_joint("src")];
  EXPECT_NEAR(m.dof_lower[src], -0.5, 1e-15);
  EXPECT_NEAR(m.dof_upper[src], 0.5, 1e-15);
  const int spin = m.joint_qd_start[m.find_joint("spin")];
  EXPECT_EQ(JointType(m.joint_type[m.find_joint("spin")]), JointType::kRevolute);
  EXPECT_EQ(m.dof_lower[spin], -2.0);
  EXPECT_EQ(m.dof_upper[spin], 2.0);
  const int turn = m.find_joint("turn");
  EXPECT_EQ(JointType(m.joint_type[turn]), JointType::kContinuous);
  EXPECT_TRUE(m.joint_periodic[turn]);
  EXPECT_FALSE(m.has_limits(m.joint_qd_start[turn]));
  auto warned = [&](const std::string& text) {
    for (const std::string& w : r.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(
      warned("the limits [-0.5, 1.5] of the mimic joint 'm' narrow its source 'src' "
             "from [-3, 3] to [-0.5, 0.5]"));
  EXPECT_FALSE(warned("'wide'"));
  EXPECT_TRUE(
      warned("the limits [10, 11] of the mimic joint 'far' are not kept: no value of its "
             "source 'src' within [-0.5, 0.5] keeps them"));
  EXPECT_TRUE(
      warned("the limits [-1, 1] of the mimic joint 'follows_spin' limit its continuous source "
             "'spin' to [-2, 2]: it is taken as a revolute joint with those limits"));
  EXPECT_FALSE(warned("'follows_turn'"));
  // the values that keep the mimics, for limits set later (a scene's): m's [-0.5, 0.5] within
  // wide's [-9, 9]; far's are not kept; spin's are its mimic's [-2, 2] (before any window);
  // turn's are follows_turn's [-4, 4]
  EXPECT_NEAR(m.dof_mimic_lower[src], -0.5, 1e-15);
  EXPECT_NEAR(m.dof_mimic_upper[src], 0.5, 1e-15);
  EXPECT_EQ(m.dof_mimic_lower[spin], -2.0);
  EXPECT_EQ(m.dof_mimic_upper[spin], 2.0);
  EXPECT_EQ(m.dof_mimic_lower[m.joint_qd_start[turn]], -4.0);
  EXPECT_EQ(m.dof_mimic_upper[m.joint_qd_start[turn]], 4.0);
  ASSERT_EQ(m.dof_mimic_upper.size(), std::size_t(m.dof_count));
}

// An exporter's huge stand-in for an open side (1e13, 1e308) leaves the finite side of a mimic's
// limits in force: a revolute source is narrowed to it (the huge side's slack, 10, dropped it
// without a word), a continuous one takes the turns of the values below it that bring it back
// to the same pose, as near zero as they go (over [-1e15, 0.5] the answers spread to -9e14 rad
// and a third failed; with a 0.5 multiplier, two turns)
TEST(UrdfLoader, AMimicsFiniteSideHoldsBesideAHugeOne) {
  std::string xml = robot(
      R"(<link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>)"
      R"(<link name="f"/><link name="g"/>)" +
      revolute("src", "a", "b", "<axis xyz=\"0 0 1\"/>") +
      revolute("m", "b", "c", R"(<mimic joint="src"/>)", "-1e13 0.5") +
      R"(<joint name="spin" type="continuous"><parent link="a"/><child link="d"/></joint>)" +
      revolute("follows_spin", "d", "e", R"(<mimic joint="spin"/>)", "-1e308 0.5") +
      R"(<joint name="turn" type="continuous"><parent link="a"/><child link="f"/></joint>)" +
      revolute("follows_turn", "f", "g", R"(<mimic joint="turn" multiplier="2"/>)", "-100 3") +
      R"(<link name="h"/><link name="i"/>)"
      R"(<joint name="half" type="continuous"><parent link="a"/><child link="h"/></joint>)" +
      revolute("follows_half", "h", "i", R"(<mimic joint="half" multiplier="0.5"/>)",
               "-1e308 0.5"));
  LoadResult r = load(xml);
  const Model& m = *r.model;
  const int src = m.joint_qd_start[m.find_joint("src")];
  EXPECT_EQ(m.dof_lower[src], -3.0);
  EXPECT_EQ(m.dof_upper[src], 0.5);
  const int spin = m.joint_qd_start[m.find_joint("spin")];
  EXPECT_EQ(JointType(m.joint_type[m.find_joint("spin")]), JointType::kRevolute);
  EXPECT_NEAR(m.dof_lower[spin], 0.5 - 2 * M_PI, 1e-15);
  EXPECT_EQ(m.dof_upper[spin], 0.5);
  // 2 turn + 0 within [-100, 3]: turn within [-50, 1.5], of which [-pi, pi] does not fit
  const int turn = m.joint_qd_start[m.find_joint("turn")];
  EXPECT_NEAR(m.dof_lower[turn], 1.5 - 2 * M_PI, 1e-15);
  EXPECT_NEAR(m.dof_upper[turn], 1.5, 1e-15);
  // half turns its mimic by half as much: two turns of it are the same pose, of [-inf, 1]
  const int half = m.joint_qd_start[m.find_joint("half")];
  EXPECT_NEAR(m.dof_lower[half], 1 - 4 * M_PI, 1e-15);
  EXPECT_EQ(m.dof_upper[half], 1.0);
  auto said = [&](const std::string& text) {
    for (const std::string& w : r.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(
      said("limit its continuous source 'spin' to [-5.78319, 0.5] (one turn of them: "
           "every angle)"));
  EXPECT_TRUE(
      said("limit its continuous source 'half' to [-11.5664, 1] (2 turns of them nearest "
           "zero: every pose)"));
}

// The source range of a mimic's limits keeps the mimic within them in floating point, fused or
// not (the quotient alone put a source at -1.2000000000000002, its mimic 2e-16 past 0.8), and
// moves each end by a few ulps at most
TEST(UrdfLoader, MimicSourceRangeKeepsTheMimicWithinItsLimitsToTheLastBit) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int i = 0; i < 20000; ++i) {
    double k = u(rng), o = u(rng), lo = u(rng), hi = lo + std::fabs(u(rng));
    if (i == 0) k = -0.5, o = 0.2, lo = -0.5, hi = 0.8;
    if (std::fabs(k) < 1e-3) continue;
    const auto [a, b] = mimic_source_range(k, o, lo, hi);
    ASSERT_LE(a, b);
    for (double q : {a, b}) {
      EXPECT_GE(k * q + o, lo) << k << " " << o << " " << lo << " " << hi;
      EXPECT_LE(k * q + o, hi) << k << " " << o << " " << lo << " " << hi;
      EXPECT_GE(std::fma(k, q, o), lo);
      EXPECT_LE(std::fma(k, q, o), hi);
    }
    double qa = (lo - o) / k, qb = (hi - o) / k;
    if (k < 0) std::swap(qa, qb);
    EXPECT_LE(std::fabs(a - qa), 4 * std::nextafter(std::fabs(qa), 1e300) - 4 * std::fabs(qa));
    EXPECT_LE(std::fabs(b - qb), 4 * std::nextafter(std::fabs(qb), 1e300) - 4 * std::fabs(qb));
  }
  const auto [a, b] = mimic_source_range(2, 0, -std::numeric_limits<double>::infinity(), 1);
  EXPECT_EQ(a, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(b, 0.5);
}

// A mimic's limits whose sign contradicts its multiplier (the Robotiq 2F-85's URDF: [0, 0.8757]
// with multiplier -1 on a source within [0, 0.725]) would hold the source at 0, and the gripper
// could not move: not kept, and each such mimic named (the second as well)
TEST(UrdfLoader, MimicLimitsThatWouldLeaveTheSourceNoMotionAreNotKept) {
  std::string xml =
      robot(R"(<link name="a"/><link name="b"/><link name="c"/><link name="d"/>)" +
            revolute("finger", "a", "b", "<axis xyz=\"0 0 1\"/>", "0 0.725") +
            revolute("inner", "a", "c", R"(<mimic joint="finger" multiplier="-1"/>)", "0 0.8757") +
            revolute("outer", "a", "d", R"(<mimic joint="finger" multiplier="-1"/>)", "-0.8757 0"));
  LoadResult r = load(xml);
  const Model& m = *r.model;
  const int finger = m.joint_qd_start[m.find_joint("finger")];
  EXPECT_EQ(m.dof_lower[finger], 0.0);
  EXPECT_EQ(m.dof_upper[finger], 0.725);
  auto warned = [&](const std::string& text) {
    for (const std::string& w : r.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(
      warned("the limits [0, 0.8757] of the mimic joint 'inner' are not kept: only 0 of "
             "its source 'finger' within [0, 0.725] keeps them (multiplier -1), which "
             "would leave it no motion"));
  EXPECT_FALSE(warned("'outer'"));  // its limits keep the whole range
}

TEST(UrdfLoader, MimicSourceLaterInTreeAndChains) {
  // "early" comes first in breadth-first order but mimics "deep", which comes later;
  // "chain" mimics "early", so it ends on "deep" with composed coefficients
  std::string xml =
      robot(R"(<link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>)" +
            revolute("early", "a", "b",
                     R"(<axis xyz="0 0 1"/><mimic joint="deep" multiplier="-0.5" offset="0.2"/>)") +
            revolute("chain", "b", "e",
                     R"(<origin xyz="0 0 1"/><axis xyz="0 0 1"/>)"
                     R"(<mimic joint="early" multiplier="3" offset="1"/>)") +
            fixed("f", "a", "c", R"(<origin xyz="0 0 -1"/>)") + revolute("deep", "c", "d"));
  LoadResult r = load(xml);
  const Model& m = *r.model;
  int early = m.find_joint("early"), deep = m.find_joint("deep"), chain = m.find_joint("chain");
  EXPECT_LT(early, deep);
  EXPECT_EQ(m.joint_mimic[early], deep);
  EXPECT_EQ(m.joint_mimic[chain], deep);
  EXPECT_DOUBLE_EQ(m.joint_mimic_multiplier[chain], -1.5);
  EXPECT_DOUBLE_EQ(m.joint_mimic_offset[chain], 3 * 0.2 + 1);
  EXPECT_EQ(m.coord_count, 1);
  State s(m);
  double q = 0.4;
  eval_fk(m, {q}, {}, s);
  double qe = -0.5 * q + 0.2, qc = -1.5 * q + 1.6;
  Quat<double> e = s.body_q[m.find_body("e")].q;
  EXPECT_NEAR(2 * std::atan2(e.z, e.w), qe + qc, 1e-12);
}

// [SECTION] inertials, geometry, materials

TEST(UrdfLoader, InertialsComAndRotatedInertia) {
  std::string xml = robot(R"(
    <link name="a">
      <inertial>
        <origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/>
        <mass value="2.5"/>
        <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/>
      </inertial>
    </link>
    <link name="b"/>)" + fixed("j", "a", "b"));
  LoadResult r = load(xml);
  const Model& m = *r.model;
  EXPECT_DOUBLE_EQ(m.body_mass[0], 2.5);
  EXPECT_DOUBLE_EQ(m.body_com[0].x, 0.1);
  EXPECT_DOUBLE_EQ(m.body_com[0].y, 0.2);
  EXPECT_DOUBLE_EQ(m.body_com[0].z, 0.3);
  // a quarter turn about z swaps the x and y principal moments
  const auto& i = m.body_inertia[0];
  EXPECT_NEAR(i[0], 2, 1e-12);
  EXPECT_NEAR(i[4], 1, 1e-12);
  EXPECT_NEAR(i[8], 3, 1e-12);
  EXPECT_NEAR(i[1], 0, 1e-12);
  EXPECT_NEAR(i[3], 0, 1e-12);
  EXPECT_EQ(m.body_mass[1], 0.0);
}

TEST(UrdfLoader, VisualsCollisionsAndMaterials) {
  std::string xml = R"(<robot name="r">
    <material name="red"><color rgba="1 0 0 1"/></material>
    <material name="wood"><texture filename="wood.png"/></material>
    <link name="a">
      <visual>
        <origin xyz="0 0 0.5" rpy="0 0 1.5707963267948966"/>
        <geometry><box size="0.1 0.2 0.3"/></geometry>
        <material name="red"/>
      </visual>
      <visual>
        <geometry><cylinder radius="0.05" length="0.4"/></geometry>
        <material name="green"><color rgba="0 1 0 0.5"/></material>
      </visual>
      <visual>
        <geometry><sphere radius="0.2"/></geometry>
        <material name="wood"/>
      </visual>
      <collision>
        <origin xyz="1 2 3"/>
        <geometry><sphere radius="0.25"/></geometry>
      </collision>
    </link>
    <link name="b">
      <visual>
        <geometry><box size="1 1 1"/></geometry>
        <material name="green"/>
      </visual>
      <visual>
        <geometry><box size="1 1 1"/></geometry>
      </visual>
    </link>
    <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>
  </robot>)";
  LoadResult r = load(xml);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  const Model& m = *r.model;
  const auto& va = m.body_visuals[0];
  ASSERT_EQ(va.size(), 3u);
  EXPECT_EQ(va[0].type, GeometryType::kBox);
  EXPECT_DOUBLE_EQ(va[0].size.y, 0.2);
  EXPECT_DOUBLE_EQ(va[0].origin.p.z, 0.5);
  EXPECT_NEAR(va[0].origin.q.z, std::sin(kHalfPi / 2), 1e-12);
  EXPECT_TRUE(va[0].has_color);
  EXPECT_EQ(va[0].material_name, "red");
  EXPECT_FLOAT_EQ(va[0].rgba[0], 1.0f);
  EXPECT_FLOAT_EQ(va[0].rgba[1], 0.0f);
  EXPECT_EQ(va[1].type, GeometryType::kCylinder);
  EXPECT_DOUBLE_EQ(va[1].size.x, 0.05);
  EXPECT_DOUBLE_EQ(va[1].size.y, 0.4);
  EXPECT_TRUE(va[1].has_color);
  EXPECT_FLOAT_EQ(va[1].rgba[3], 0.5f);
  EXPECT_EQ(va[2].type, GeometryType::kSphere);
  EXPECT_DOUBLE_EQ(va[2].size.x, 0.2);
  EXPECT_FALSE(va[2].has_color);
  EXPECT_EQ(va[2].material_name, "wood");
  ASSERT_EQ(m.body_collisions[0].size(), 1u);
  EXPECT_DOUBLE_EQ(m.body_collisions[0][0].size.x, 0.25);
  EXPECT_DOUBLE_EQ(m.body_collisions[0][0].origin.p.y, 2);
  // a material defined inline by another link's visual is found by name
  const auto& vb = m.body_visuals[1];
  ASSERT_EQ(vb.size(), 2u);
  EXPECT_TRUE(vb[0].has_color);
  EXPECT_FLOAT_EQ(vb[0].rgba[1], 1.0f);
  EXPECT_FALSE(vb[1].has_color);
}

TEST(UrdfLoader, RecoverableDefectsAreWarnings) {
  std::string xml = R"(<robot name="r">
    <material name="bright"><color rgba="2 0.5 0 1"/></material>
    <link name="a">
      <visual><geometry><mesh/></geometry></visual>
      <visual><geometry><cone radius="1"/></geometry></visual>
      <visual><origin xyz="0 0 1"/></visual>
      <visual><geometry><box size="1 1 1"/></geometry><material name="nowhere"/></visual>
      <visual><geometry><box size="1 1 1"/></geometry><material name="bright"/></visual>
      <collision><geometry><cylinder radius="1"/></geometry></collision>
      <collision><geometry><mesh filename="flat.stl" scale="1 0 1"/></geometry></collision>
    </link>
  </robot>)";
  LoadResult r = load(xml);
  const Model& m = *r.model;
  ASSERT_EQ(m.body_visuals[0].size(), 2u);
  EXPECT_TRUE(m.body_collisions[0].empty());
  EXPECT_FALSE(m.body_visuals[0][0].has_color);
  EXPECT_TRUE(m.body_visuals[0][1].has_color);
  EXPECT_FLOAT_EQ(m.body_visuals[0][1].rgba[0], 1.0f);
  std::string all;
  for (const auto& w : r.warnings) {
    EXPECT_EQ(w.rfind("test.urdf:", 0), 0u) << w;
    all += w + "\n";
  }
  EXPECT_NE(all.find("test.urdf:4: link 'a': visual dropped: <mesh> has no filename"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("unknown shape <cone>"), std::string::npos) << all;
  EXPECT_NE(all.find("no <geometry>"), std::string::npos) << all;
  EXPECT_NE(all.find("material 'nowhere' is not defined"), std::string::npos) << all;
  EXPECT_NE(all.find("clamped"), std::string::npos) << all;
  EXPECT_NE(all.find("collision dropped: <cylinder> needs both radius and length"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("collision dropped: <mesh> scale '1 0 1' has a zero component"),
            std::string::npos)
      << all;
  EXPECT_EQ(r.warnings.size(), 7u) << all;
}

// a negative size is dropped with a warning naming it, not used as it stands (a sphere of radius
// -1 made every distance to it 1 m longer; a box's or a cylinder's sign was ignored)
TEST(UrdfLoader, NegativeShapeSizesAreDropped) {
  std::string xml = R"(<robot name="r">
    <link name="a">
      <collision><geometry><sphere radius="-1"/></geometry></collision>
      <collision><geometry><box size="0.1 -0.2 0.3"/></geometry></collision>
      <collision><geometry><cylinder radius="0.1" length="-0.5"/></geometry></collision>
      <collision><geometry><sphere radius="0.05"/></geometry></collision>
    </link>
  </robot>)";
  LoadResult r = load(xml);
  ASSERT_EQ(r.model->body_collisions[0].size(), 1u);
  EXPECT_DOUBLE_EQ(r.model->body_collisions[0][0].size.x, 0.05);
  std::string all;
  for (const auto& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("test.urdf:3: link 'a': collision dropped: <sphere> radius '-1' is negative"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("<box> size '0.1 -0.2 0.3' has a negative value"), std::string::npos) << all;
  EXPECT_NE(all.find("<cylinder> length '-0.5' is negative"), std::string::npos) << all;
  EXPECT_EQ(r.warnings.size(), 3u) << all;
}

// [SECTION] meshes and resource paths

std::string mesh_robot(const std::string& uri) {
  return R"(<robot name="r"><link name="a"><visual><geometry><mesh filename=")" + uri +
         R"(" scale="2 2 2"/></geometry></visual><collision><geometry><mesh filename=")" + uri +
         R"("/></geometry></collision></link></robot>)";
}

TEST(UrdfLoader, PackageUriResolvesAgainstAncestorFolders) {
  TempDir dir;
  std::string stl = dir.write("ws/src/my_pkg/meshes/part.stl", test::stl_triangle());
  std::string urdf =
      dir.write("ws/src/my_pkg/urdf/robot.urdf", mesh_robot("package://my_pkg/meshes/part.stl"));
  LoadResult r = load_urdf_file(urdf);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  const Geometry& g = r.model->body_visuals[0][0];
  EXPECT_EQ(g.type, GeometryType::kMesh);
  EXPECT_EQ(g.mesh_uri, "package://my_pkg/meshes/part.stl");
  EXPECT_TRUE(std::filesystem::equivalent(g.mesh_path, stl));
  ASSERT_TRUE(g.mesh);
  EXPECT_EQ(g.mesh->triangle_count(), 1u);
  EXPECT_FALSE(g.placeholder);
  EXPECT_DOUBLE_EQ(g.mesh_scale.x, 2);
  // the collision uses the same file: the loaded mesh is shared
  EXPECT_EQ(r.model->body_collisions[0][0].mesh, g.mesh);
  EXPECT_EQ(r.model->source_path, std::filesystem::path(urdf).lexically_normal().string());
}

TEST(UrdfLoader, PackageUriResolvesAgainstSearchPathsAndRosPackagePath) {
  TempDir dir;
  dir.write("share/pkg_a/meshes/a.stl", test::stl_triangle());
  dir.write("ros/pkg_b/meshes/b.stl", test::stl_triangle());
  // a package whose folder name differs from its package.xml name
  dir.write("checkout/pkg_c-main/package.xml", "<package><name>pkg_c</name></package>");
  dir.write("checkout/pkg_c-main/meshes/c.stl", test::stl_triangle());
  std::string xml = R"(<robot name="r"><link name="a">
      <visual><geometry><mesh filename="package://pkg_a/meshes/a.stl"/></geometry></visual>
      <visual><geometry><mesh filename="package://pkg_b/meshes/b.stl"/></geometry></visual>
      <visual><geometry><mesh filename="package://pkg_c/meshes/c.stl"/></geometry></visual>
    </link></robot>)";
  UrdfOptions opt;
  opt.package_paths = {dir / "share", dir / "checkout/pkg_c-main"};
  const char* old = std::getenv("ROS_PACKAGE_PATH");
  std::string saved = old ? old : "";
  setenv("ROS_PACKAGE_PATH", ("/nonexistent:" + (dir / "ros")).c_str(), 1);
  LoadResult r = load_urdf_string(xml, "inline.urdf", dir / "elsewhere", opt);
  if (old)
    setenv("ROS_PACKAGE_PATH", saved.c_str(), 1);
  else
    unsetenv("ROS_PACKAGE_PATH");
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  for (const Geometry& g : r.model->body_visuals[0]) {
    EXPECT_TRUE(g.mesh) << g.mesh_uri;
    EXPECT_FALSE(g.placeholder);
  }
}

TEST(UrdfLoader, RelativeAndFileUris) {
  TempDir dir;
  std::string stl = dir.write("meshes/part.stl", test::stl_triangle());
  std::string xml = R"(<robot name="r"><link name="a">
      <visual><geometry><mesh filename="meshes/part.stl"/></geometry></visual>
      <visual><geometry><mesh filename="file://)" +
                    stl + R"("/></geometry></visual>
      <visual><geometry><mesh filename=")" +
                    stl + R"("/></geometry></visual>
    </link></robot>)";
  LoadResult r = load_urdf_string(xml, "x.urdf", dir.path().string());
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  for (const Geometry& g : r.model->body_visuals[0]) {
    ASSERT_TRUE(g.mesh) << g.mesh_uri;
    EXPECT_EQ(g.mesh, r.model->body_visuals[0][0].mesh);
  }
}

TEST(UrdfLoader, MissingMeshIsWarningAndPlaceholder) {
  TempDir dir;
  std::string urdf = dir.write("robot.urdf", mesh_robot("package://nowhere/meshes/gone.stl"));
  LoadResult r = load_urdf_file(urdf);
  ASSERT_TRUE(r.model);
  const Geometry& g = r.model->body_visuals[0][0];
  EXPECT_TRUE(g.placeholder);
  EXPECT_FALSE(g.mesh);
  EXPECT_TRUE(g.mesh_path.empty());
  EXPECT_TRUE(r.model->body_collisions[0][0].placeholder);
  // one warning per missing file, naming the URDF, the link and the URI
  ASSERT_EQ(r.warnings.size(), 1u);
  std::string expected = urdf +
                         ":1: link 'a' visual: mesh 'package://nowhere/meshes/gone.stl': "
                         "package 'nowhere' with file 'meshes/gone.stl' not found";
  EXPECT_EQ(r.warnings[0].rfind(expected, 0), 0u) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("placeholder"), std::string::npos);
}

// a mesh that is not read is no warning (the command line: `ikwb solve` warned of missing
// packages on every run, and draws nothing): none without load_meshes, the collision mesh's
// alone with load_visual_meshes off (its capsule is fitted to it); placeholders either way
TEST(UrdfLoader, AMissingMeshThatIsNotReadIsNoWarning) {
  TempDir dir;
  // the visual's file differs from the collision's, which would otherwise warn for both
  const std::string xml = R"(<robot name="r"><link name="a"><visual><geometry><mesh )"
                          R"(filename="package://nowhere/visual.stl"/></geometry></visual>)"
                          R"(<collision><geometry><mesh filename="package://nowhere/c.stl"/>)"
                          R"(</geometry></collision></link></robot>)";
  const std::string urdf = dir.write("robot.urdf", xml);
  UrdfOptions opt;
  opt.load_meshes = false;
  LoadResult r = load_urdf_file(urdf, opt);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  EXPECT_TRUE(r.model->body_visuals[0][0].placeholder);
  EXPECT_TRUE(r.model->body_collisions[0][0].placeholder);
  opt.load_meshes = true;
  opt.load_visual_meshes = false;
  r = load_urdf_file(urdf, opt);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("link 'a' collision: mesh 'package://nowhere/c.stl'"),
            std::string::npos)
      << r.warnings[0];
}

// a package that is not found warns once, with where it was searched, for its first mesh; its
// other meshes are counted in one line at the end (a robot from a missing package has dozens)
TEST(UrdfLoader, AMissingPackageIsOneWarningNotOnePerMesh) {
  std::string xml = R"(<robot name="r">)";
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    xml += "<link name=\"l" + n + "\"><visual><geometry><mesh filename=\"package://gone/m" + n +
           ".stl\"/></geometry></visual><collision><geometry><mesh filename=\"package://gone/c" +
           n + ".stl\"/></geometry></collision></link>";
    if (i > 0)
      xml += "<joint name=\"j" + n + "\" type=\"fixed\"><parent link=\"l" + std::to_string(i - 1) +
             "\"/><child link=\"l" + n + "\"/></joint>";
  }
  xml +=
      "<link name=\"own\"><visual><geometry><mesh filename=\"missing.stl\"/></geometry>"
      "</visual></link><joint name=\"jo\" type=\"fixed\"><parent link=\"l0\"/>"
      "<child link=\"own\"/></joint></robot>";
  TempDir dir;
  LoadResult r = load_urdf_string(xml, "x.urdf", dir.path().string());
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  ASSERT_EQ(r.warnings.size(), 3u) << all;
  EXPECT_NE(r.warnings[0].find("mesh 'package://gone/m0.stl': package 'gone' with file 'm0.stl' "
                               "not found (searched"),
            std::string::npos)
      << all;
  EXPECT_NE(r.warnings[1].find("missing.stl"), std::string::npos) << all;
  EXPECT_EQ(r.warnings[2],
            "x.urdf: 7 more meshes of package 'gone' not found either (c0.stl, m1.stl, c1.stl, "
            "...); shown as placeholders")
      << all;
  for (int b = 0; b < r.model->body_count; ++b)
    for (const Geometry& g : r.model->body_visuals[b]) EXPECT_TRUE(g.placeholder);
}

// meshes by file:// URI or path that are not found are grouped as a package's are: by the
// folder that does not exist (a workspace on another machine), or by their folder when it does
TEST(UrdfLoader, MissingMeshFilesAreOneWarningPerFolder) {
  TempDir dir;
  std::filesystem::create_directories(dir / "meshes");
  std::string xml = R"(<robot name="r">)";
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    xml += "<link name=\"l" + n + "\"><visual><geometry><mesh filename=\"file://" +
           (dir / "ws/install/meshes/visual/m") + n +
           ".dae\"/></geometry></visual><collision><geometry><mesh filename=\"file://" +
           (dir / "ws/install/meshes/collision/m") + n +
           ".stl\"/></geometry></collision><visual><geometry><mesh filename=\"meshes/own" + n +
           ".stl\"/></geometry></visual></link>";
    if (i > 0)
      xml += "<joint name=\"j" + n + "\" type=\"fixed\"><parent link=\"l" + std::to_string(i - 1) +
             "\"/><child link=\"l" + n + "\"/></joint>";
  }
  LoadResult r = load_urdf_string(xml + "</robot>", "x.urdf", dir.path().string());
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  ASSERT_EQ(r.warnings.size(), 4u) << all;
  EXPECT_NE(
      r.warnings[0].find("mesh 'file://" + (dir / "ws/install/meshes/visual/m0.dae") + "': file '"),
      std::string::npos)
      << all;
  EXPECT_NE(r.warnings[1].find("mesh 'meshes/own0.stl'"), std::string::npos) << all;
  EXPECT_EQ(r.warnings[2], "x.urdf: 7 more meshes under '" + (dir / "ws") +
                               "' (which does not exist) not found either (m0.stl, m1.dae, "
                               "m1.stl, ...); shown as placeholders")
      << all;
  EXPECT_EQ(r.warnings[3], "x.urdf: 3 more meshes in '" + (dir / "meshes") +
                               "' not found either (own1.stl, own2.stl, own3.stl); shown as "
                               "placeholders")
      << all;
}

TEST(UrdfLoader, CorruptMeshIsWarningAndPlaceholder) {
  TempDir dir;
  dir.write("bad.stl", "solid x\n facet normal 0 0 1\n outer loop\n vertex 0 0\n");
  dir.write("empty.obj", "");
  std::string xml = R"(<robot name="r"><link name="a">
      <visual><geometry><mesh filename="bad.stl"/></geometry></visual>
      <visual><geometry><mesh filename="empty.obj"/></geometry></visual>
    </link></robot>)";
  LoadResult r = load_urdf_string(xml, "x.urdf", dir.path().string());
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("cannot be loaded"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("empty file"), std::string::npos) << r.warnings[1];
  for (const Geometry& g : r.model->body_visuals[0]) EXPECT_TRUE(g.placeholder);
}

TEST(UrdfLoader, LoadMeshesOffResolvesWithoutReading) {
  TempDir dir;
  dir.write("part.stl", "not really an stl");
  UrdfOptions opt;
  opt.load_meshes = false;
  LoadResult r = load_urdf_string(mesh_robot("part.stl"), "x.urdf", dir.path().string(), opt);
  EXPECT_TRUE(r.warnings.empty());
  const Geometry& g = r.model->body_visuals[0][0];
  EXPECT_FALSE(g.mesh_path.empty());
  EXPECT_FALSE(g.mesh);
  EXPECT_FALSE(g.placeholder);
}

TEST(UrdfLoader, CollisionMeshesOnlyStillReadTheVisualsThatStandInForThem) {
  // what the command line loads (load_visual_meshes off): link a's visual mesh is its collision
  // geometry, as in the workbench; b's visual is only drawn, since b has a collision box
  TempDir dir;
  dir.write("part.stl", test::stl_triangle());
  const std::string xml = robot(
      R"(<link name="a"><visual><geometry><mesh filename="part.stl"/></geometry></visual></link>)"
      R"(<link name="b"><visual><geometry><mesh filename="part.stl"/></geometry></visual>)"
      R"(<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>)" +
      revolute("j", "a", "b"));
  UrdfOptions opt;
  opt.load_visual_meshes = false;
  LoadResult r = load_urdf_string(xml, "x.urdf", dir.path().string(), opt);
  const Model& m = *r.model;
  const int a = m.find_body("a"), b = m.find_body("b");
  ASSERT_TRUE(m.body_visuals[a][0].mesh);
  EXPECT_FALSE(m.body_visuals[b][0].mesh);
  EXPECT_EQ(m.collision.body_first[a + 1] - m.collision.body_first[a], 1);
  for (const std::string& w : r.warnings)
    EXPECT_EQ(w.find("not used for collisions"), std::string::npos) << w;
}

TEST(UrdfLoader, AMeshHundredsOfMetresAcrossIsAWarning) {
  // CAD output in millimetres without a scale: a 300 m link. Said once per mesh file, and not
  // with the scale that makes it metres.
  TempDir dir;
  dir.write("mm.stl",
            "solid t\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 300 0 0\n"
            "   vertex 0 40 0\n  endloop\n endfacet\nendsolid t\n");
  LoadResult r = load_urdf_string(mesh_robot("mm.stl"), "x.urdf", dir.path().string());
  int said = 0;
  for (const std::string& w : r.warnings)
    said += w.find(
                "mesh 'mm.stl' is 600 m across as scaled: if the file is in millimetres, give "
                "it scale=\"0.001 0.001 0.001\"") != std::string::npos;
  EXPECT_EQ(said, 1);  // the visual (scale 2: 600 m); the collision element's is not said again
  const std::string scaled = robot(
      R"(<link name="a"><visual><geometry><mesh filename="mm.stl" scale="0.001 0.001 0.001"/>)"
      R"(</geometry></visual></link>)");
  EXPECT_TRUE(load_urdf_string(scaled, "x.urdf", dir.path().string()).warnings.empty());
}

// tests/data/robots/missing_materials: meshes that name a .mtl or textures that are not there
// load as they are, with one warning for each mesh file naming the missing files and what is
// drawn instead
TEST(UrdfLoader, MissingMaterialFilesAreOneWarningPerMeshFile) {
  const std::string dir = IKWB_SOURCE_DIR "/tests/data/robots/missing_materials";
  const std::string urdf = dir + "/missing_materials.urdf";
  LoadResult r = load_urdf_file(urdf);
  ASSERT_TRUE(r.model);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  ASSERT_EQ(r.warnings.size(), 3u) << all;
  // arm.obj, used by two links: its .mtl, once; its invented material gives no colour, so the
  // URDF's orange shows
  EXPECT_EQ(r.warnings[0], urdf +
                               ":9: link 'base' visual: mesh 'meshes/arm.obj': material "
                               "library 'arm_colors.mtl' (looked for " +
                               dir +
                               "/meshes/arm_colors.mtl) not found; drawn in its URDF "
                               "material colour")
      << all;
  // hand.obj's .mtl is found through its backslash and space; of its textures, relative to the
  // .mtl's folder, one is missing
  EXPECT_EQ(r.warnings[1],
            urdf +
                ":20: link 'hand' visual: mesh 'meshes/hand.obj': texture 'finger tips.png' "
                "(looked for " +
                dir + "/meshes/finger tips.png, " + dir +
                "/meshes/textures/finger tips.png) not found; the workbench draws no textures "
                "(the mesh shows its materials' colours either way), but viewers that draw them "
                "will miss it")
      << all;
  // the Collada image's %20 is a space
  EXPECT_NE(r.warnings[2].find(":24: link 'shell' visual: mesh 'meshes/shell.dae': texture "
                               "'shell paint.png' (looked for " +
                               dir + "/meshes/shell paint.png) not found"),
            std::string::npos)
      << all;
  const Model& m = *r.model;
  for (int b = 0; b < m.body_count; ++b)
    for (const Geometry& g : m.body_visuals[b]) {
      ASSERT_TRUE(g.mesh) << m.body_name[b];
      EXPECT_FALSE(g.placeholder) << m.body_name[b];
    }
  EXPECT_TRUE(m.body_visuals[m.find_body("base")][0].mesh->colors.empty());
  ASSERT_FALSE(m.body_visuals[m.find_body("hand")][0].mesh->colors.empty());
  EXPECT_NEAR(m.body_visuals[m.find_body("hand")][0].mesh->colors[0], 0.9f, 1e-6);
  // loaded again (the meshes cached): the same warnings
  EXPECT_EQ(load_urdf_file(urdf).warnings, r.warnings);
}

// a visual without a URDF colour is drawn in the default grey, and the warning says how to
// change that; a mesh only used for collisions is not drawn, so its materials are not warned of
TEST(UrdfLoader, MissingMaterialLibraryOfAnUncolouredVisualSaysDefaultGrey) {
  TempDir dir;
  const std::string obj = "mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n";
  dir.write("v.obj", obj);
  dir.write("c.obj", obj);
  const std::string xml =
      robot(R"(<link name="a"><visual><geometry><mesh filename="v.obj"/></geometry></visual>)"
            R"(<collision><geometry><mesh filename="c.obj"/></geometry></collision></link>)");
  LoadResult r = load_urdf_string(xml, "x.urdf", dir.path().string());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("mesh 'v.obj': material library 'gone.mtl' (looked for " +
                               (dir / "gone.mtl") +
                               ") not found; drawn in the default grey (the <visual> has no "
                               "<material> colour)"),
            std::string::npos)
      << r.warnings[0];
}

TEST(UrdfLoader, UnreadableFile) {
  try {
    load_urdf_file("/nonexistent/robot.urdf");
    FAIL() << "no exception";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/robot.urdf: cannot open file (No such file or directory)");
  }
}

// [SECTION] malformed input: each must throw ModelError naming the file and the problem

struct BadCase {
  const char* name;
  std::string xml;
  std::string expect;  // substring of the message
};

std::string two_links(const std::string& joint) {
  return robot(R"(<link name="a"/><link name="b"/>)" + joint);
}

std::string joint(const std::string& type, const std::string& inner) {
  return "<joint name=\"j\" type=\"" + type + "\"><parent link=\"a\"/><child link=\"b\"/>" + inner +
         "</joint>";
}

std::vector<BadCase> bad_cases() {
  return {
      {"MalformedXml", "<robot name=\"r\"><link name=\"a\"></robot>", "malformed XML"},
      {"NotXml", "this is not xml", "the file does not start with '<' (is it a URDF?)"},
      // a text that is no XML is said to be so, not taken for a xacro leftover
      {"NotXmlWithASubstitution", "# Notes\nrun with $(arg NAME)\n",
       "the file does not start with '<' (is it a URDF?)"},
      {"AScene", "{\"version\": 1, \"robot\": \"panda\"}",
       "this looks like JSON, not a URDF (a scene file opens with --scene)"},
      {"Empty", "", "malformed XML"},
      {"NoRobot", "<robo name=\"r\"><link name=\"a\"/></robo>", "no <robot> element"},
      {"RobotWithoutName", "<robot><link name=\"a\"/></robot>", "<robot> has no name"},
      {"NoLinks", "<robot name=\"r\"></robot>", "has no <link>"},
      {"LinkWithoutName", robot("<link/>"), "<link> without a name"},
      {"DuplicateLink", robot("<link name=\"a\"/>\n<link name=\"a\"/>"),
       "test.urdf:3: duplicate link name 'a' (first defined on line 2)"},
      {"DuplicateJoint",
       robot(R"(<link name="a"/><link name="b"/><link name="c"/>)" + fixed("j", "a", "b") +
             fixed("j", "a", "c")),
       "duplicate joint name 'j'"},
      {"DuplicateMaterial", robot(R"(<material name="m"><color rgba="1 0 0 1"/></material>
                <material name="m"><color rgba="1 0 0 1"/></material><link name="a"/>)"),
       "duplicate material name 'm'"},
      {"JointWithoutName",
       robot(R"(<link name="a"/><link name="b"/><joint type="fixed"><parent link="a"/>
                <child link="b"/></joint>)"),
       "<joint> without a name"},
      {"JointWithoutType",
       robot(R"(<link name="a"/><link name="b"/><joint name="j"><parent link="a"/>
                <child link="b"/></joint>)"),
       "joint 'j': no type attribute"},
      {"UnknownJointType", two_links(joint("weird", "")), "unknown joint type 'weird'"},
      {"JointWithoutParent", robot(R"(<link name="a"/><link name="b"/><joint name="j" type="fixed">
                <child link="b"/></joint>)"),
       "joint 'j': no <parent link=...>"},
      {"UnknownChildLink", robot("<link name=\"a\"/>" + fixed("j", "a", "zz")),
       "joint 'j': child link 'zz' is not defined"},
      {"UnknownParentLink", robot("<link name=\"b\"/>" + fixed("j", "zz", "b")),
       "joint 'j': parent link 'zz' is not defined"},
      {"SelfLoop", robot("<link name=\"a\"/>" + fixed("j", "a", "a")),
       "connects link 'a' to itself"},
      {"TwoParents",
       robot(R"(<link name="a"/><link name="b"/><link name="c"/>)" + fixed("j1", "a", "c") +
             fixed("j2", "b", "c")),
       "link 'c' is the child of two joints, 'j1'"},
      {"SeveralRoots", robot(R"(<link name="a"/><link name="b"/>)"),
       "several root links ('a', 'b')"},
      {"DetachedCycle",
       robot(R"(<link name="a"/><link name="b"/><link name="c"/>)" + fixed("j1", "b", "c") +
             fixed("j2", "c", "b")),
       "the joints form a cycle through links 'b', 'c'"},
      {"CycleWithoutRoot",
       robot(R"(<link name="a"/><link name="b"/>)" + fixed("j1", "a", "b") + fixed("j2", "b", "a")),
       "no root link"},
      {"NonNumericJointOrigin", two_links(joint("fixed", "<origin xyz=\"0 abc 0\"/>")),
       "joint 'j': <origin xyz=\"0 abc 0\">: 'abc' is not a finite number"},
      {"NonNumericVisualOrigin", robot(R"(<link name="a"><visual><origin xyz="0 abc 0"/>
                <geometry><box size="1 1 1"/></geometry></visual></link>)"),
       "test.urdf:2: link 'a': <origin xyz=\"0 abc 0\">: 'abc' is not a finite number"},
      {"NanRpy", two_links(joint("fixed", "<origin rpy=\"0 nan 0\"/>")), "'nan' is not a finite"},
      {"InfXyz", two_links(joint("fixed", "<origin xyz=\"inf 0 0\"/>")), "'inf' is not a finite"},
      {"OverflowXyz", two_links(joint("fixed", "<origin xyz=\"1e999 0 0\"/>")),
       "'1e999' is not a finite"},
      {"TrailingJunk", two_links(joint("fixed", "<origin xyz=\"0 0 1abc\"/>")),
       "'1abc' is not a finite"},
      {"TwoNumbersForXyz", two_links(joint("fixed", "<origin xyz=\"0 0\"/>")),
       "expected 3 numbers, found 2"},
      {"ZeroAxis", two_links(joint("continuous", "<axis xyz=\"0 0 0\"/>")), "zero axis"},
      {"PlanarZeroAxis", two_links(joint("planar", "<axis xyz=\"0 0 0\"/>")),
       "joint 'j': zero axis <axis xyz=\"0 0 0\">"},
      // too short for an axis (the model's bound), with the line the URDF's check gives
      {"TinyAxis", two_links(joint("continuous", "<axis xyz=\"1e-12 0 0\"/>")),
       "joint 'j': zero axis <axis xyz=\"1e-12 0 0\">"},
      {"NonNumericAxis", two_links(joint("continuous", "<axis xyz=\"1 x 0\"/>")),
       "'x' is not a finite number"},
      {"RevoluteWithoutLimit", two_links(joint("revolute", "")), "revolute joint without <limit>"},
      {"PrismaticWithoutLimit", two_links(joint("prismatic", "")),
       "prismatic joint without <limit>"},
      {"NonNumericLimit",
       two_links(joint("revolute", R"(<limit lower="x" upper="1" effort="1" velocity="1"/>)")),
       "<limit lower=\"x\">: 'x' is not a finite number"},
      {"LimitWithoutEffort", two_links(joint("revolute", R"(<limit lower="-1" upper="1"/>)")),
       "<limit> needs effort and velocity"},
      {"MimicItself", two_links(joint("continuous", "<mimic joint=\"j\"/>")), "mimics itself"},
      {"MimicCycle", robot(R"(<link name="a"/><link name="b"/><link name="c"/>
                <joint name="j1" type="continuous"><parent link="a"/><child link="b"/>
                <mimic joint="j2"/></joint>
                <joint name="j2" type="continuous"><parent link="b"/><child link="c"/>
                <mimic joint="j1"/></joint>)"),
       "mimic joints form a cycle"},
      {"MimicFixedJoint",
       robot(R"(<link name="a"/><link name="b"/><link name="c"/>)" + fixed("f", "a", "b") +
             R"(<joint name="m" type="continuous"><parent link="b"/><child link="c"/>
                <mimic joint="f"/></joint>)"),
       "joint 'm': continuous joint mimics 'f' (fixed)"},
      {"NonNumericMimicMultiplier",
       robot(R"(<link name="a"/><link name="b"/><link name="c"/>)" +
             std::string(
                 R"(<joint name="s" type="continuous"><parent link="a"/><child link="b"/></joint>
                <joint name="m" type="continuous"><parent link="b"/><child link="c"/>
                <mimic joint="s" multiplier="two"/></joint>)")),
       "'two' is not a finite number"},
      {"NegativeMass", robot(R"(<link name="a"><inertial><mass value="-1"/>
                <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>)"),
       "link 'a': negative mass -1"},
      {"NonNumericMass", robot(R"(<link name="a"><inertial><mass value="heavy"/>
                <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>)"),
       "'heavy' is not a finite number"},
      {"InertialWithoutInertia",
       robot(R"(<link name="a"><inertial><mass value="1"/></inertial></link>)"),
       "<inertial> has no <inertia>"},
      {"InertiaMissingComponent", robot(R"(<link name="a"><inertial><mass value="1"/>
                <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0"/></inertial></link>)"),
       "<inertia> has no izz attribute"},
      {"NonNumericBoxSize",
       robot(R"(<link name="a"><visual><geometry><box size="1 x 1"/></geometry></visual></link>)"),
       "<box size=\"1 x 1\">: 'x' is not a finite number"},
      {"NonNumericSphereRadius",
       robot(R"(<link name="a"><collision><geometry><sphere radius="big"/></geometry>
                </collision></link>)"),
       "'big' is not a finite number"},
      {"BadMeshScale",
       robot(R"(<link name="a"><visual><geometry><mesh filename="m.stl" scale="1 1"/>
                </geometry></visual></link>)"),
       "<mesh scale=\"1 1\">: expected 3 numbers, found 2"},
      {"NonNumericColor",
       robot(R"(<material name="m"><color rgba="1 0 zero 1"/></material><link name="a"/>)"),
       "material 'm': <color rgba=\"1 0 zero 1\">: 'zero' is not a finite number"},
      {"NonNumericDamping", two_links(joint("fixed", "<dynamics damping=\"lots\"/>")),
       "'lots' is not a finite number"},
      {"UnsupportedVersion", "<robot name=\"r\" version=\"2.0\"><link name=\"a\"/></robot>",
       "urdfdom could not parse the file"},
  };
}

class UrdfMalformed : public ::testing::TestWithParam<BadCase> {};

TEST_P(UrdfMalformed, ThrowsModelErrorNamingFileAndProblem) {
  const BadCase& c = GetParam();
  try {
    load(c.xml);
    FAIL() << "no exception for " << c.name;
  } catch (const ModelError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("test.urdf", 0), 0u) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "message: " << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(AllCases, UrdfMalformed, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

TEST(UrdfLoader, ErrorsCarryLineNumbers) {
  std::string xml = "<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n" +
                    joint("revolute",
                          "\n<limit lower=\"2\" upper=\"1\" effort=\"1\" "
                          "velocity=\"1\"/>") +
                    "\n</robot>";
  UrdfOptions strict;
  strict.strict = true;
  try {
    load_urdf_string(xml, "robots/arm.urdf", "", strict);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("robots/arm.urdf:5: joint 'j': inverted limits", 0), 0u)
        << e.what();
  }
}

// faults pybullet accepts are repaired with a warning naming the line, and refused with strict
TEST(UrdfLoader, CommonFaultsAreRepairedWithWarningsOrRefusedWhenStrict) {
  struct Case {
    const char* name;
    std::string xml;
    const char* warning;
  };
  const std::string lim = R"(effort="1" velocity="1")";
  const Case cases[] = {
      {"trailing NUL", two_links(joint("continuous", "")) + std::string(1, '\0'),
       "t.urdf:3: 1 bytes that are not XML after </robot>: ignored"},
      {"trailing garbage", two_links(joint("continuous", "")) + "\n%%EOF junk",
       "t.urdf:4: 11 bytes that are not XML after </robot>: ignored"},
      {"commas", two_links(joint("fixed", R"(<origin xyz="0,0,0.5"/>)")),
       "<origin xyz=\"0,0,0.5\">: commas between numbers: read as spaces"},
      {"four rpy numbers", two_links(joint("fixed", R"(<origin rpy="0 0 1.5 1"/>)")),
       "<origin rpy=\"0 0 1.5 1\">: 4 numbers: the first three used"},
      {"inverted limits",
       two_links(joint("revolute", R"(<limit lower="1" upper="-1" )" + lim + "/>")),
       "inverted limits: lower 1 > upper -1: the joint is unlimited (as pybullet reads it)"},
      {"optenv",
       two_links(joint("fixed", R"x(<origin xyz="$(optenv IKWB_NO_SUCH_VAR 0 0 0.5)"/>)x")),
       "xacro substitution '$(optenv IKWB_NO_SUCH_VAR 0 0 0.5)': replaced by '0 0 0.5'"},
      {"arg",
       robot(R"(<xacro:arg name="len" default="0.25"/><link name="a"/><link name="b"/>)" +
             joint("fixed", R"x(<origin xyz="0 0 $(arg len)"/>)x")),
       "xacro substitution '$(arg len)': replaced by '0.25'"},
      {"mimic of a missing joint", two_links(joint("continuous", "<mimic joint=\"ghost\"/>")),
       "mimics joint 'ghost', which is not defined; the <mimic> is ignored"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    LoadResult r = load_urdf_string(c.xml, "t.urdf", "");
    ASSERT_TRUE(r.model);
    bool found = false;
    for (const std::string& w : r.warnings) found = found || w.find(c.warning) != std::string::npos;
    EXPECT_TRUE(found) << (r.warnings.empty() ? std::string("no warnings") : r.warnings[0]);
    UrdfOptions strict;
    strict.strict = true;
    try {
      load_urdf_string(c.xml, "t.urdf", "", strict);
      ADD_FAILURE() << "strict loading repaired it";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("--strict: not repaired"), std::string::npos)
          << e.what();
    }
  }
  // what the repairs produced
  const Model m = *load_urdf_string(cases[3].xml, "t.urdf", "").model;
  EXPECT_NEAR(m.joint_X_p[m.find_joint("j")].q.z, std::sin(0.75), 1e-12);
  const Model u = *load_urdf_string(cases[4].xml, "t.urdf", "").model;
  EXPECT_TRUE(std::isinf(u.dof_lower[0]) && std::isinf(u.dof_upper[0]));
  const Model a = *load_urdf_string(cases[6].xml, "t.urdf", "").model;
  EXPECT_EQ(a.joint_X_p[a.find_joint("j")].p.z, 0.25);
}

// a <limit> without its bounds reads them as 0, as urdfdom does, and says that the joint cannot
// move (a reviewer's joint was clamped to 0 at its first edit, with no word at loading); one
// bound given, or both given equal on purpose, is a range the file chose: no warning
TEST(UrdfLoader, ALimitWithoutBoundsSaysTheJointCannotMove) {
  const std::string lim = R"(effort="1" velocity="1")";
  struct Case {
    std::string limit;
    const char* warning;  // null: none
  };
  const Case cases[] = {
      {"<limit " + lim + "/>", "<limit> without lower and upper: an absent bound is 0"},
      {R"(<limit upper="0" )" + lim + "/>", "<limit> without lower: an absent bound is 0"},
      {R"(<limit lower="0" )" + lim + "/>", "<limit> without upper: an absent bound is 0"},
      {R"(<limit upper="1" )" + lim + "/>", nullptr},
      {R"(<limit lower="0.5" upper="0.5" )" + lim + "/>", nullptr},
  };
  for (const char* type : {"revolute", "prismatic"})
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(type) + " " + c.limit);
      const LoadResult r = load_urdf_string(two_links(joint(type, c.limit)), "t.urdf", "");
      ASSERT_TRUE(r.model);
      if (!c.warning) {
        EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
        continue;
      }
      ASSERT_EQ(r.warnings.size(), 1u);
      EXPECT_NE(r.warnings[0].find(c.warning), std::string::npos) << r.warnings[0];
      EXPECT_NE(r.warnings[0].find("range is [0, 0] and it cannot move"), std::string::npos);
      EXPECT_EQ(r.model->dof_lower[0], 0.0);
      EXPECT_EQ(r.model->dof_upper[0], 0.0);
    }
}

// numbers with decimal commas (0,25 for 0.25) are never read as several numbers: commas with
// more numbers than expected are an error that says so, also on an <origin>, whose extra numbers
// are otherwise repaired
TEST(UrdfLoader, DecimalCommasAreAnErrorThatSaysSo) {
  for (const char* inner : {R"(<origin xyz="0,25 0 0,5"/>)", R"(<origin rpy="0,1 0,2 0,3"/>)"}) {
    SCOPED_TRACE(inner);
    try {
      load_urdf_string(two_links(joint("fixed", inner)), "t.urdf", "");
      ADD_FAILURE() << "loaded";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("decimal commas? numbers take a point"),
                std::string::npos)
          << e.what();
    }
  }
}

// tabs and line breaks inside a number list are spaces (XML attribute-value normalisation),
// read without a warning
TEST(UrdfLoader, TabsAndLineBreaksBetweenNumbersAreSpaces) {
  LoadResult r = load_urdf_string(
      two_links(joint("revolute",
                      "<origin xyz=\"\t0.1\n 0.2   0.3 \"/><axis xyz=\"0\t0\r\n1\"/>"
                      "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>")),
      "t.urdf", "");
  ASSERT_TRUE(r.model);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  const Model& m = *r.model;
  const Transform<double>& x = m.joint_X_p[m.find_joint("j")];
  EXPECT_EQ(x.p.x, 0.1);
  EXPECT_EQ(x.p.y, 0.2);
  EXPECT_EQ(x.p.z, 0.3);
  EXPECT_EQ(m.joint_axis[m.find_joint("j")].z, 1.0);
}

// --floating-base on a URDF whose root already floats (a floating joint below the root link)
// is refused: it would float twice over; a root link named world floats with a warning
TEST(UrdfLoader, FloatingBaseOnARootThatAlreadyFloatsIsRefused) {
  UrdfOptions floating;
  floating.floating_base = true;
  const std::string floats =
      robot(R"(<link name="world"/><link name="base"/><joint name="float" type="floating">)"
            R"(<parent link="world"/><child link="base"/></joint>)");
  EXPECT_TRUE(load_urdf_string(floats, "t.urdf", "").model);
  try {
    load_urdf_string(floats, "t.urdf", "", floating);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("--floating-base: joint 'float' (floating) already lets "
                                         "'base' float from the root link 'world'"),
              std::string::npos)
        << e.what();
  }
  const std::string fixed =
      robot(R"(<link name="world"/><link name="base"/><joint name="fix" type="fixed">)"
            R"(<parent link="world"/><child link="base"/></joint>)");
  LoadResult r = load_urdf_string(fixed, "t.urdf", "", floating);
  ASSERT_TRUE(r.model);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("the root link 'world' floats"), std::string::npos) << r.warnings[0];
  EXPECT_TRUE(load_urdf_string(fixed, "t.urdf", "").warnings.empty());
}

// names in another encoding than UTF-8 (a Latin-1 file) are refused at load, naming the name
TEST(UrdfLoader, NamesThatAreNotUtf8AreRefused) {
  try {
    load_urdf_string(robot("<link name=\"b\xe4se\"/>"), "t.urdf", "");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("t.urdf: body name 'b\\xE4se' is not UTF-8 text"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(load_urdf_string(robot("<link name=\"b\xc3\xa4se\"/>"), "t.urdf", "").model);
}

// a name with a line break (an XML character reference) is refused too: `ikwb solve` wrote it in
// a quoted CSV header that `ikwb fk` could not read back
TEST(UrdfLoader, NamesWithControlCharactersAreRefused) {
  const std::string xml = two_links(R"(<joint name="j&#10;one" type="revolute">)"
                                    R"(<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>)"
                                    R"(<limit lower="-1" upper="1" effort="1" velocity="1"/>)"
                                    R"(</joint>)");
  try {
    load_urdf_string(xml, "t.urdf", "");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("t.urdf: joint name 'j\\none' holds a control "
                                         "character: a name is one line of text"),
              std::string::npos)
        << e.what();
  }
}

// the robot's own name is only shown: one with a line break (or not UTF-8) is kept escaped, with
// a warning, where it refused the robot
TEST(UrdfLoader, ARobotNameWithAControlCharacterIsShownEscaped) {
  for (const auto& [name, shown] : std::vector<std::pair<std::string, std::string>>{
           {"two&#10;lines", "two\\nlines"}, {"b\xe4se", "b\\xE4se"}}) {
    const LoadResult r =
        load_urdf_string("<robot name=\"" + name + "\"><link name=\"a\"/></robot>", "t.urdf", "");
    ASSERT_TRUE(r.model) << name;
    EXPECT_EQ(r.model->name, shown);
    std::string all;
    for (const std::string& w : r.warnings) all += w + "\n";
    EXPECT_NE(all.find("the robot's name '" + shown + "' is not one line of UTF-8 text"),
              std::string::npos)
        << all;
  }
}

TEST(UrdfLoader, SubstitutionsThatNeedXacroAreErrors) {
  try {
    load_urdf_string(two_links(joint("fixed", R"x(<origin xyz="0 0 $(arg missing)"/>)x")), "t.urdf",
                     "");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'$(arg missing)' cannot be resolved here: expand the "
                                         "file with xacro first"),
              std::string::npos)
        << e.what();
  }
  // a NUL inside the document is still refused
  EXPECT_THROW(load_urdf_string("<robot name=\"r\">" + std::string(1, '\0') + "</robot>", "t", ""),
               ModelError);
}

// an unexpanded xacro file is refused at its first xacro element, whatever the prefix and
// even where the rest would load; a file xacro expanded (it keeps the namespace) loads
TEST(UrdfLoader, UnexpandedXacroIsAnErrorThatSaysToRunXacro) {
  const std::string ns = R"(<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">)";
  struct Case {
    std::string xml;
    const char* error;
  };
  const Case cases[] = {
      {ns + "\n<xacro:include filename=\"parts.xacro\"/>\n<link name=\"base\"/>"
            "<xacro:seg name=\"s1\" parent=\"base\"/></robot>",
       "t.urdf:2: <xacro:include>: an unexpanded xacro file"},
      {ns + "<link name=\"base\"/>\n<xacro:if value=\"1\"><link name=\"t\"/></xacro:if></robot>",
       "t.urdf:2: <xacro:if>: an unexpanded xacro file"},
      {R"(<robot name="r" xmlns:x="http://ros.org/wiki/xacro"><link name="a">)"
       "\n<x:insert_block name=\"geo\"/></link></robot>",
       "t.urdf:2: <x:insert_block>: an unexpanded xacro file"},
      {robot("<link name=\"a\"/><link name=\"b\"/>" +
             fixed("j", "a", "b", R"(<origin xyz="0 0 ${L}"/>)")),
       "'${L}' is not a finite number (it looks like an unexpanded xacro expression: expand the "
       "file with `xacro FILE > FILE.urdf`"},
  };
  for (const Case& c : cases) {
    for (bool strict : {false, true}) {
      UrdfOptions opt;
      opt.strict = strict;
      try {
        load_urdf_string(c.xml, "t.urdf", "", opt);
        ADD_FAILURE() << "loaded: " << c.xml;
      } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("or open it under a .xacro name"), std::string::npos)
            << e.what();
      }
    }
  }
  const LoadResult expanded = load(ns + "<link name=\"a\"/></robot>");
  EXPECT_EQ(expanded.model->body_count, 1);
  EXPECT_TRUE(expanded.warnings.empty());
}

// pybullet's spherical joint is a ball joint (4 coordinates, 3 dofs)
TEST(UrdfLoader, SphericalJointsAreBallJoints) {
  LoadResult r = load_urdf_string(
      two_links(joint("spherical", R"(<limit lower="-1" upper="1" effort="1" velocity="1"/>)")),
      "t.urdf", "");
  const Model& m = *r.model;
  int j = m.find_joint("j");
  EXPECT_EQ(JointType(m.joint_type[j]), JointType::kBall);
  EXPECT_EQ(m.coord_count, 4);
  EXPECT_EQ(m.dof_count, 3);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(
      r.warnings[0].find("spherical joint (pybullet's URDF extension) loaded as a ball joint"),
      std::string::npos);
}

TEST(UrdfLoader, MalformedFileNamesThePath) {
  TempDir dir;
  std::string path = dir.write("broken.urdf", "<robot name=\"r\">\n<link name=\"a\">\n</robot>");
  try {
    load_urdf_file(path);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("malformed XML"), std::string::npos) << e.what();
  }
}

// a <mimic> naming a joint that does not exist (alex_psyonic_hands in example-robot-data) is
// dropped with a warning: the joint gets its own coordinate, as in parsers that ignore mimics
TEST(UrdfLoader, MimicOfAnUndefinedJointIsIgnoredWithAWarning) {
  LoadResult r = load(two_links(joint("continuous", "<mimic joint=\"zz\"/>")));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("mimics joint 'zz', which is not defined; the <mimic> is ignored"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_EQ(r.model->coord_count, 1);
  EXPECT_LT(r.model->joint_mimic[r.model->find_joint("j")], 0);
}

// a planar joint: x, y in the plane normal to <axis>, then the angle about it; <limit> ignored.
// Axis z: the joint frame's xy plane (as Pinocchio and MoveIt read every planar joint).
TEST(UrdfLoader, PlanarJointMovesInThePlaneNormalToItsAxis) {
  LoadResult r = load(R"(<robot name="r"><link name="floor"/><link name="base"/><link name="tip"/>
    <joint name="table" type="planar"><parent link="floor"/><child link="base"/>
      <origin xyz="1 2 0.5" rpy="0 0 1.5707963267948966"/><axis xyz="0 0 2"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
    <joint name="arm" type="fixed"><parent link="base"/><child link="tip"/>
      <origin xyz="0.5 0 0"/></joint></robot>)");
  const Model& m = *r.model;
  ASSERT_EQ(m.coord_count, 3);
  ASSERT_EQ(m.dof_count, 3);
  EXPECT_EQ(JointType(m.joint_type[m.find_joint("table")]), JointType::kPlanar);
  EXPECT_FALSE(m.has_limits(0));
  EXPECT_FALSE(m.has_limits(2));
  State s(m);
  eval_fk(m, {0.3, -0.2, M_PI / 2}, {}, s);
  // the joint frame is turned 90 degrees about z: its x is world y, its y is world -x
  Vec3<double> base = s.body_q[m.find_body("base")].p;
  EXPECT_NEAR(base.x, 1.0 + 0.2, 1e-12);
  EXPECT_NEAR(base.y, 2.0 + 0.3, 1e-12);
  EXPECT_NEAR(base.z, 0.5, 1e-12);
  // the tip, 0.5 m along the base's x, which points along world -x after 180 degrees in all
  Vec3<double> tip = s.body_q[m.find_body("tip")].p;
  EXPECT_NEAR(tip.x, 1.2 - 0.5, 1e-12);
  EXPECT_NEAR(tip.y, 2.3, 1e-12);
  EXPECT_NEAR(tip.z, 0.5, 1e-12);
}

}  // namespace
}  // namespace ikwb
