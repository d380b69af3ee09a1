// Tests for engine/core/mjcf_loader: MJCF through MuJoCo's compiler. FK of the loaded Model is
// checked against MuJoCo's own mj_kinematics (every body's position and orientation) at random
// configurations; joint types, limits, reference positions, bodies with several joints, geoms,
// couplings and MuJoCo's refusals.
#include "engine/core/mjcf_loader.hpp"
#include "engine/core/robot_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <random>

#include "core/temp_files.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/fk.hpp"
#include "solver/objective_whole_body.hpp"

#ifdef IKWB_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace ikwb {
namespace {

// every kind of joint: a free root, a body with two hinges about offset anchors, a hinge with
// a reference angle, a slide, a ball, an unlimited hinge, a hinge coupled to another, geoms,
// and sites (a named one on a body; an unnamed one and one on the world, which are left out)
const char* kRobot = R"(<mujoco model="zoo">
  <compiler angle="radian" autolimits="true"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <site name="world_mark" pos="1 0 0"/>
    <body name="base" pos="0.3 -0.2 1.0" quat="0.9 0.1 0.3 -0.2">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.2 0.05" rgba="0.2 0.4 0.8 1"/>
      <site pos="0 0 0.1"/>
      <body name="hip" pos="0 0.1 -0.1" euler="0.2 0 0.4">
        <joint name="hip_x" type="hinge" axis="1 0 0" pos="0 0 0.05" range="-1 1"/>
        <joint name="hip_y" type="hinge" axis="0 1 0.2" pos="0.02 0 0" range="-1.5 0.5"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04"/>
        <body name="knee" pos="0 0 -0.3">
          <joint name="knee" type="hinge" axis="0 1 0" ref="0.3" range="-2 0"/>
          <geom type="cylinder" size="0.03 0.1"/>
          <body name="slider" pos="0.05 0 -0.1" quat="0.7071068 0 0.7071068 0">
            <joint name="slide" type="slide" axis="0 0 1" range="-0.1 0.2" ref="0.05"/>
            <geom type="sphere" size="0.03"/>
            <body name="wrist" pos="0 0 0.1">
              <joint name="ball" type="ball" pos="0 0.01 0"/>
              <geom type="ellipsoid" size="0.03 0.02 0.01"/>
              <body name="spin" pos="0 0.05 0">
                <joint name="spin" type="hinge" axis="0 0 1" limited="false"/>
                <geom type="box" size="0.01 0.01 0.01" rgba="1 0 0 0" contype="0" conaffinity="0"/>
                <body name="finger" pos="0 0.02 0">
                  <joint name="finger" type="hinge" axis="1 0 0" range="-0.5 0.5"/>
                  <geom type="sphere" size="0.01"/>
                  <site name="tip" pos="0.01 0.03 -0.02" euler="0.3 -0.2 0.5"/>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="finger" joint2="spin" polycoef="0.1 -0.5 0 0 0"/>
  </equality>
</mujoco>)";

#ifdef IKWB_HAVE_MUJOCO

// every body of MuJoCo's kinematics (d after mj_kinematics) where s (our FK) has it, to 1e-12
void expect_bodies_match(const mjModel* mm, const mjData* d, const Model& m, const State& s) {
  for (int b = 1; b < mm->nbody; ++b) {
    const std::string name = mj_id2name(mm, mjOBJ_BODY, b);
    int ours = m.find_body(name);
    ASSERT_GE(ours, 0) << name;
    const Transform<double>& x = s.body_q[ours];
    const mjtNum* p = d->xpos + 3 * b;
    const mjtNum* w = d->xquat + 4 * b;
    EXPECT_LT(length(x.p - Vec3<double>{p[0], p[1], p[2]}), 1e-12) << name;
    Quat<double> qm{w[1], w[2], w[3], w[0]};
    double qd = x.q.x * qm.x + x.q.y * qm.y + x.q.z * qm.z + x.q.w * qm.w;
    EXPECT_LT(std::fabs(std::fabs(qd) - 1.0), 1e-12) << name;
  }
}

TEST(Mjcf, FkMatchesMuJoCosOwnKinematics) {
  test::TempDir dir;
  const std::string path = dir.write("zoo.xml", kRobot);
  ASSERT_TRUE(is_mjcf_file(path));
  LoadResult r = load_robot_file(path);
  const Model& m = *r.model;
  char error[512];
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  ASSERT_TRUE(mm) << error;
  mjData* d = mj_makeData(mm);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    // a random MuJoCo configuration, and the same as our q
    for (int k = 0; k < mm->nq; ++k) d->qpos[k] = mm->qpos0[k] + 0.5 * u(rng);
    std::vector<double> q(m.coord_count, 0.0);
    for (int j = 0; j < mm->njnt; ++j) {
      const std::string name = mj_id2name(mm, mjOBJ_JOINT, j);
      mjtNum* qp = d->qpos + mm->jnt_qposadr[j];
      int ours = m.find_joint(name);
      ASSERT_GE(ours, 0) << name;
      int at = m.joint_q_start[ours];
      if (mm->jnt_type[j] == mjJNT_FREE || mm->jnt_type[j] == mjJNT_BALL) {
        mjtNum* quat = mm->jnt_type[j] == mjJNT_FREE ? qp + 3 : qp;
        mju_normalize4(quat);
        if (mm->jnt_type[j] == mjJNT_FREE)
          for (int k = 0; k < 3; ++k) q[at + k] = qp[k];
        int o = mm->jnt_type[j] == mjJNT_FREE ? 3 : 0;
        q[at + o] = quat[1], q[at + o + 1] = quat[2], q[at + o + 2] = quat[3];
        q[at + o + 3] = quat[0];
      } else if (m.joint_mimic[ours] < 0) {
        q[at] = qp[0];
      }
    }
    // the coupled joint follows its source, in MuJoCo as in our model
    const int spin = mm->jnt_qposadr[mj_name2id(mm, mjOBJ_JOINT, "spin")];
    const int finger = mm->jnt_qposadr[mj_name2id(mm, mjOBJ_JOINT, "finger")];
    d->qpos[finger] = 0.1 - 0.5 * d->qpos[spin];
    mj_kinematics(mm, d);
    State s(m);
    eval_fk(m, q, {}, s);
    expect_bodies_match(mm, d, m, s);
    // the site's frame: MuJoCo's site_xpos and site_xmat (row-major)
    const int tip = mj_name2id(mm, mjOBJ_SITE, "tip");
    const Transform<double>& x = s.body_q[m.find_body("tip")];
    const mjtNum* p = d->site_xpos + 3 * tip;
    const mjtNum* r = d->site_xmat + 9 * tip;
    EXPECT_LT(length(x.p - Vec3<double>{p[0], p[1], p[2]}), 1e-12);
    for (int c = 0; c < 3; ++c) {
      Vec3<double> e{double(c == 0), double(c == 1), double(c == 2)};
      const Vec3<double> col = rotate(x.q, e);
      for (int row = 0; row < 3; ++row) EXPECT_NEAR(col[row], r[3 * row + c], 1e-12);
    }
  }
  mj_deleteData(d);
  mj_deleteModel(mm);
}

// qpos0 is the model's home: the free body stands where the file places it (it stood at the
// origin), FK there is MuJoCo's at qpos0; the neutral configuration is the home with the
// hinges clamped into their ranges (the knee's ref 0.3 is outside [-2, 0])
TEST(Mjcf, TheHomeIsMuJoCosQpos0) {
  test::TempDir dir;
  const std::string path = dir.write("zoo.xml", kRobot);
  const Model m = *load_robot_file(path).model;
  char error[512];
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  ASSERT_TRUE(mm) << error;
  mjData* d = mj_makeData(mm);
  // the coupling holds in our model, not in MuJoCo's qpos0
  const int spin = mm->jnt_qposadr[mj_name2id(mm, mjOBJ_JOINT, "spin")];
  const int finger = mm->jnt_qposadr[mj_name2id(mm, mjOBJ_JOINT, "finger")];
  d->qpos[finger] = 0.1 - 0.5 * d->qpos[spin];
  mj_kinematics(mm, d);
  ASSERT_EQ(int(m.joint_q_home.size()), m.coord_count);
  State s(m);
  eval_fk(m, m.joint_q_home, {}, s);
  expect_bodies_match(mm, d, m, s);
  mj_deleteData(d);
  mj_deleteModel(mm);

  const std::vector<double> q = m.neutral_configuration();
  const double* root = q.data() + m.joint_q_start[m.find_joint("root")];
  const double n = std::sqrt(0.81 + 0.01 + 0.09 + 0.04);
  const std::vector<double> file_pose = {0.3, -0.2, 1.0, 0.1 / n, 0.3 / n, -0.2 / n, 0.9 / n};
  for (int k = 0; k < 7; ++k) EXPECT_NEAR(root[k], file_pose[k], 1e-12) << k;
  EXPECT_EQ(m.joint_q_home[m.joint_q_start[m.find_joint("knee")]], 0.3);
  EXPECT_EQ(q[m.joint_q_start[m.find_joint("knee")]], 0.0);
  EXPECT_EQ(q[m.joint_q_start[m.find_joint("slide")]], 0.05);
}

TEST(Mjcf, JointsLimitsBodiesAndGeoms) {
  test::TempDir dir;
  LoadResult r = load_robot_file(dir.write("zoo.xml", kRobot));
  const Model& m = *r.model;
  auto type = [&](const char* n) { return JointType(m.joint_type[m.find_joint(n)]); };
  EXPECT_EQ(type("root"), JointType::kFree);
  EXPECT_EQ(type("hip_x"), JointType::kRevolute);
  EXPECT_EQ(type("slide"), JointType::kPrismatic);
  EXPECT_EQ(type("ball"), JointType::kBall);
  // a hinge without a range is continuous, but the range of the finger following it bounds it:
  // 0.1 - 0.5 spin within [-0.5, 0.5]
  EXPECT_EQ(type("spin"), JointType::kRevolute);
  EXPECT_NEAR(m.dof_lower[m.joint_qd_start[m.find_joint("spin")]], -0.8, 1e-15);
  EXPECT_NEAR(m.dof_upper[m.joint_qd_start[m.find_joint("spin")]], 1.2, 1e-15);
  EXPECT_EQ(m.joint_mimic[m.find_joint("finger")], m.find_joint("spin"));
  EXPECT_DOUBLE_EQ(m.joint_mimic_multiplier[m.find_joint("finger")], -0.5);
  // the body with two joints: one massless intermediate body between them
  EXPECT_GE(m.find_body("hip/hip_x"), 0);
  EXPECT_EQ(m.body_mass[m.find_body("hip/hip_x")], 0.0);
  int knee = m.find_joint("knee");
  EXPECT_DOUBLE_EQ(m.dof_lower[m.joint_qd_start[knee]], -2.0);
  EXPECT_DOUBLE_EQ(m.dof_upper[m.joint_qd_start[knee]], 0.0);
  EXPECT_EQ(m.coord_count, 7 + 2 + 1 + 1 + 4 + 1);  // the finger mimics: no coordinate
  // geoms: the floor is left out; the capsule and ellipsoid are meshes
  int hip = m.find_body("hip");
  ASSERT_EQ(m.body_visuals[hip].size(), 1u);
  EXPECT_EQ(m.body_visuals[hip][0].type, GeometryType::kMesh);
  EXPECT_TRUE(m.body_visuals[hip][0].mesh && m.body_visuals[hip][0].mesh->triangle_count() > 0);
  EXPECT_EQ(m.body_visuals[m.find_body("base")][0].type, GeometryType::kBox);
  EXPECT_DOUBLE_EQ(m.body_visuals[m.find_body("base")][0].size.y, 0.4);  // full extent
  EXPECT_FALSE(m.body_collisions[m.find_body("base")].empty());
  // a capsule geom is its own collision capsule (fitted to its tessellation it was 3.3 mm off
  // its axis and 3.3 mm fatter)
  const CollisionGeometry& cg = m.collision;
  ASSERT_EQ(cg.body_first[hip + 1] - cg.body_first[hip], 1);
  const LinkCapsule<double>& c = cg.capsules[cg.body_first[hip]];
  EXPECT_NEAR(c.radius, 0.04, 1e-12);
  const double top = std::max(c.p0.z, c.p1.z), bottom = std::min(c.p0.z, c.p1.z);
  EXPECT_NEAR(top, 0.0, 1e-12);
  EXPECT_NEAR(bottom, -0.3, 1e-12);
  for (double v : {c.p0.x, c.p0.y, c.p1.x, c.p1.y}) EXPECT_NEAR(v, 0.0, 1e-12);
  EXPECT_EQ(cg.fit_error[cg.body_first[hip]], 0.0);
  // the finger's range bounds the continuous joint it follows; the floor left out is said
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("the world's geoms ('floor' plane) are not part of the robot"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("the limits [-0.5, 0.5] of the mimic joint 'finger' limit its "
                               "continuous source 'spin' to "),
            std::string::npos)
      << r.warnings[1];
}

// Sites become massless bodies fixed to theirs (the FK test checks their frames): named ones
// on a body only; a site named like a body is renamed with a warning.
TEST(Mjcf, NamedSitesAreFixedMasslessBodies) {
  test::TempDir dir;
  {
    LoadResult r = load_robot_file(dir.write("zoo.xml", kRobot));
    const Model& m = *r.model;
    const int tip = m.find_body("tip");
    ASSERT_GE(tip, 0);
    EXPECT_EQ(m.body_mass[tip], 0.0);
    const int j = m.body_joint[tip];
    EXPECT_EQ(JointType(m.joint_type[j]), JointType::kFixed);
    EXPECT_EQ(m.joint_parent[j], m.find_body("finger"));
    EXPECT_LT(m.find_body("world_mark"), 0);
    for (int b = 0; b < m.body_count; ++b)
      EXPECT_EQ(m.body_name[b].rfind("site_", 0), std::string::npos) << m.body_name[b];
  }
  LoadResult r = load_robot_file(dir.write("clash.xml", R"(<mujoco model="clash">
  <worldbody>
    <body name="arm">
      <joint name="shoulder" type="hinge" axis="0 0 1"/>
      <geom type="sphere" size="0.05"/>
      <site name="arm" pos="0.1 0 0"/>
      <site name="grip" pos="0.2 0 0"/>
    </body>
  </worldbody>
</mujoco>)"));
  const Model& m = *r.model;
  EXPECT_GE(m.find_body("arm_site"), 0);
  EXPECT_GE(m.find_body("grip"), 0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("site 'arm'"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("'arm_site'"), std::string::npos) << r.warnings[0];
}

// the world body's geoms (a Menagerie scene.xml's floor) are not the robot's: a warning names
// them and what takes their place, where a review's floor was left out without a word
TEST(Mjcf, TheWorldsGeomsAreNamedAsNotCarriedOver) {
  test::TempDir dir;
  const std::string path = dir.write(
      "scene.xml",
      "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"1 1 .1\"/>"
      "<geom type=\"box\" size=\".1 .1 .1\" pos=\"1 0 0\"/><body name=\"a\" pos=\"0 0 1\">"
      "<joint name=\"j\"/><geom size=\".1\" mass=\"1\"/></body></worldbody></mujoco>");
  const LoadResult r = load_mjcf_file(path);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("the world's geoms ('floor' plane, 'geom_1' box) are not part of "
                               "the robot and are not carried over: add them as obstacles"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_EQ(r.model->body_count, 1);
}

// a misspelt default class or childclass is named, with the classes there are (MuJoCo names
// neither)
TEST(Mjcf, AnUnknownDefaultClassIsNamedWithTheFilesClasses) {
  test::TempDir dir;
  const std::string defaults =
      "<mujoco>\n<default><default class=\"knee\"><joint range=\"0 1\"/></default></default>\n";
  // a joint's class; a body's childclass, which MuJoCo reports in other words
  const std::pair<std::string, std::string> cases[] = {
      {"<worldbody><body name=\"a\">\n<joint name=\"j\" class=\"kne\"/>",
       "line 4 (class 'kne'; the file's classes: 'knee')"},
      {"<worldbody>\n<body name=\"a\" childclass=\"knees\"><joint name=\"j\"/>",
       "line 4 (class 'knees'; the file's classes: 'knee')"}};
  for (const auto& [body, named] : cases) {
    try {
      load_mjcf_file(dir.write(
          "class.xml", defaults + body + "<geom size=\".1\"/></body></worldbody></mujoco>"));
      ADD_FAILURE() << "loaded: " << body;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  }
}

// a body whose geoms do not collide (contype and conaffinity 0) collides as drawn, said in
// MJCF's terms (a review's read "no <collision>: their <visual> elements", a URDF's words)
TEST(Mjcf, ABodyWithoutCollidingGeomsIsSaidInMjcfTerms) {
  test::TempDir dir;
  const std::string path =
      dir.write("hands.xml",
                "<mujoco><worldbody><body name=\"a\"><joint name=\"j\"/>"
                "<geom size=\".1\" mass=\"1\" contype=\"0\" conaffinity=\"0\"/></body></worldbody>"
                "</mujoco>");
  const LoadResult r = load_mjcf_file(path);
  std::string all;
  for (const std::string& w : r.model->collision.warnings) all += w + "\n";
  EXPECT_NE(all.find(path + ": link 'a' has no colliding geom (contype and conaffinity 0): its "
                            "visual geoms are used for collisions"),
            std::string::npos)
      << all;
  EXPECT_EQ(all.find("<collision>"), std::string::npos) << all;
}

// a file for kinematics alone (no masses, as a URDF without <inertial>), which MuJoCo refuses to
// compile, loads with MuJoCo's mass bounds and a warning; --strict refuses it
TEST(Mjcf, AFileWithoutMassesLoadsForKinematics) {
  test::TempDir dir;
  const std::string path = dir.write(
      "kin.xml",
      "<mujoco model=\"kin\"><worldbody><body name=\"a\"><joint name=\"j\" axis=\"0 0 1\"/>"
      "<body name=\"b\" pos=\"1 0 0\"><site name=\"tip\"/></body></body></worldbody></mujoco>");
  LoadResult r = load_mjcf_file(path);
  const Model& m = *r.model;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("moving bodies have no mass or inertia ('a', 'b'): MuJoCo needs"),
            std::string::npos)
      << r.warnings[0];
  State s(m);
  eval_fk(m, std::vector<double>{M_PI / 2}, {}, s);
  EXPECT_LT(length(s.body_q[m.find_body("tip")].p - Vec3<double>{0, 1, 0}), 1e-12);
  UrdfOptions strict;
  strict.strict = true;
  EXPECT_THROW(load_mjcf_file(path, strict), ModelError);
}

// bodies that MuJoCo's bound gave their mass stay massless, their centre of mass at their own
// origin: MuJoCo left each one's inertial frame at its place in its parent's frame, and the
// chain's centre of mass (the mean of its bodies' without masses) was at z 1.33 where every body
// is at z 1; a massless body beside bodies with masses had its centre 2 m off; a warning names
// them
TEST(Mjcf, BodiesWithoutMassStayMasslessAtTheirOrigins) {
  test::TempDir dir;
  const std::string chain = dir.write(
      "chain.xml",
      "<mujoco><worldbody><body name=\"b\" pos=\"0 0 1\"><joint name=\"j\" axis=\"0 0 1\"/>"
      "<body name=\"c\" pos=\"1 0 0\"><joint name=\"k\" axis=\"0 0 1\"/>"
      "<body name=\"d\" pos=\"1 0 0\"/></body></body></worldbody></mujoco>");
  const Model m = *load_mjcf_file(chain).model;
  for (int b = 0; b < m.body_count; ++b) {
    EXPECT_EQ(m.body_mass[b], 0.0) << m.body_name[b];
    EXPECT_EQ(length(m.body_com[b]), 0.0) << m.body_name[b];
  }
  State s(m);
  eval_fk(m, std::vector<double>{0.0, 0.0}, {}, s);
  const Vec3<double> com = center_of_mass(m.view(), s.body_q.data());
  EXPECT_LT(length(com - Vec3<double>{1, 0, 1}), 1e-12) << com.x << " " << com.z;
  const std::string mixed = dir.write(
      "mixed.xml",
      "<mujoco><worldbody><body name=\"b\" pos=\"0 0 1\"><joint name=\"j\" axis=\"0 1 0\"/>"
      "<geom type=\"sphere\" size=\"0.1\" mass=\"1\"/><body name=\"d\" pos=\"0 2 0\">"
      "<joint name=\"k\" type=\"slide\" axis=\"1 0 0\"/></body></body></worldbody></mujoco>");
  const LoadResult loaded = load_mjcf_file(mixed);
  const Model& x = *loaded.model;
  EXPECT_EQ(x.body_mass[x.find_body("b")], 1.0);
  // the massless body is named (the repair's warning named none)
  std::string all;
  for (const std::string& w : loaded.warnings) all += w + "\n";
  EXPECT_NE(all.find("1 moving body has no mass or inertia ('d'): MuJoCo needs them"),
            std::string::npos)
      << all;
  EXPECT_EQ(x.body_mass[x.find_body("d")], 0.0);
  EXPECT_EQ(length(x.body_com[x.find_body("d")]), 0.0);
  // a mass of the file's own, however small, is kept with its centre
  const Model t =
      *load_mjcf_file(dir.write("tiny.xml",
                                "<mujoco><worldbody><body name=\"b\"><joint name=\"j\"/><inertial "
                                "mass=\"1e-10\" pos=\"0.1 0 0\" diaginertia=\"1e-12 1e-12 1e-12\"/>"
                                "</body></worldbody></mujoco>"))
           .model;
  EXPECT_EQ(t.body_mass[t.find_body("b")], 1e-10);
  EXPECT_EQ(t.body_com[t.find_body("b")].x, 0.1);
}

// a body with two joints becomes a chain through a massless BODY/JOINT body without geometry:
// the body and its parent still count as adjacent for self collision (MuJoCo excludes parent
// and child), so their touching shapes are no collision
TEST(Mjcf, ABodyWithSeveralJointsStaysAdjacentToItsParent) {
  test::TempDir dir;
  LoadResult r = load_robot_file(dir.write("two.xml", R"(<mujoco model="two">
  <worldbody>
    <body name="l1"><joint name="j1" type="hinge" axis="0 0 1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="l2" pos="0.3 0 0">
        <joint name="hinge2" type="hinge" axis="0 0 1"/>
        <joint name="slide2" type="slide" axis="1 0 0" range="0 0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>)"));
  const Model& m = *r.model;
  ASSERT_GE(m.find_body("l2/hinge2"), 0);
  EXPECT_TRUE(self_collision_pairs(m).empty());
}

// a ball joint's range is a cone the solver does not enforce: it loads unlimited, and says so
TEST(Mjcf, ABallsRangeIsNamedAsNotEnforced) {
  test::TempDir dir;
  LoadResult r = load_robot_file(dir.write("ball.xml", R"(<mujoco model="ball">
  <compiler angle="degree"/>
  <worldbody>
    <body name="a">
      <joint name="shoulder" type="ball" limited="true" range="0 90"/>
      <geom type="sphere" size="0.05" mass="1"/>
    </body>
  </worldbody>
</mujoco>)"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("ball joint shoulder: its range (1.571 rad from the reference) is "
                               "not enforced"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_EQ(JointType(r.model->joint_type[r.model->find_joint("shoulder")]), JointType::kBall);
}

// a site whose fixed joint's name (NAME_weld) a joint of the file has keeps its own name (it was
// renamed NAME_site with a warning about a body that was not there); an unnamed body's made-up
// name (body_N) steps aside for a body the file names so
TEST(Mjcf, MadeUpNamesStepAsideForTheFilesNames) {
  test::TempDir dir;
  LoadResult r = load_robot_file(dir.write("names.xml", R"(<mujoco model="names">
  <worldbody>
    <body name="a">
      <joint name="tip_weld" type="hinge" axis="0 0 1"/>
      <geom type="sphere" size="0.05"/>
      <site name="tip" pos="0.1 0 0"/>
      <body pos="0 0 0.1"><joint type="hinge"/><geom type="sphere" size="0.02"/>
        <body name="body_2" pos="0 0 0.1"><joint type="hinge"/><geom type="sphere" size="0.02"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>)"));
  const Model& m = *r.model;
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  const int tip = m.find_body("tip");
  ASSERT_GE(tip, 0);
  EXPECT_EQ(m.joint_name[m.body_joint[tip]], "tip_weld2");
  EXPECT_GE(m.find_body("body_2"), 0);
  EXPECT_GE(m.find_body("body_2_unnamed"), 0);
}

TEST(Mjcf, RefusalsNameTheFileAndMuJoCosReason) {
  test::TempDir dir;
  const std::string path = dir.write("bad.xml",
                                     "<mujoco>\n<worldbody>\n<body><joint type=\"spiral\"/></body>"
                                     "</worldbody></mujoco>");
  try {
    load_robot_file(path);
    FAIL();
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": MuJoCo could not load the file:", 0), 0u) << what;
    EXPECT_NE(what.find("line 3"), std::string::npos) << what;
  }
}

// numbers that are not finite, and negative masses, are refused, naming the file, line, element
// and attribute, as the URDF loader does: MuJoCo 2.2.2 took them (a NaN quaternion became the
// identity, a NaN capsule size a point) or our checks blamed a joint for what a body or site
// held; a name that reads as a number is not one
TEST(Mjcf, NumbersThatAreNotFiniteOrNegativeMassesAreRefusedWhereTheyAre) {
  test::TempDir dir;
  struct Case {
    std::string body;
    std::string error;
  };
  const Case cases[] = {
      {R"(<body name="a" quat="nan 0 0 0"><joint axis="0 0 1"/><geom size="0.1"/></body>)",
       R"(:3: <body name='a'> quat="nan 0 0 0": 'nan' is not a finite number)"},
      {"<body name=\"a\"><joint name=\"j\" axis=\"0 NaN 1\"/><geom size=\"0.1\"/></body>",
       R"(:3: <joint name='j'> axis="0 NaN 1": 'NaN' is not a finite number)"},
      {"<body name=\"a\"><joint/>\n<geom type=\"capsule\" size=\"0.1 -inf\"/></body>",
       R"(:4: <geom> size="0.1 -inf": '-inf' is not a finite number)"},
      {R"(<body name="a"><joint/><geom size="0.1"/><site name="s" pos="0 1e999 0"/></body>)",
       R"(:3: <site name='s'> pos="0 1e999 0": '1e999' is not a finite number)"},
      // a negative mass, inertia or density (a typo): the compile's repair for files without
      // masses made the body massless without naming it
      {"<body name=\"a\"><joint/><geom size=\"0.1\"/>\n<inertial pos=\"0 0 0\" "
       "mass=\"-3.5\" diaginertia=\"1 1 1\"/></body>",
       R"(:4: <inertial> mass="-3.5": '-3.5' is negative: masses, inertias and densities are 0 )"
       R"(or more (a body of mass 0 is massless here))"},
      {R"(<body name="a"><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 -1 1"/></body>)",
       R"(:3: <inertial> diaginertia="1 -1 1": '-1' is negative: masses, inertias and )"
       R"(densities are 0 or more (a body of mass 0 is massless here))"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    const std::string path =
        dir.write("nf.xml", "<mujoco>\n<worldbody>\n" + c.body + "</worldbody></mujoco>");
    try {
      load_robot_file(path);
      ADD_FAILURE() << "loaded";
    } catch (const ModelError& e) {
      EXPECT_EQ(std::string(e.what()), path + c.error);
    }
  }
  // in an included file: that file and its line
  dir.write("part.xml",
            "<mujoco>\n<worldbody>\n<body name=\"b\" pos=\"inf 0 0\"><joint/>"
            "<geom size=\"0.1\"/></body></worldbody></mujoco>");
  const std::string main = dir.write("main.xml", "<mujoco><include file=\"part.xml\"/></mujoco>");
  try {
    load_robot_file(main);
    ADD_FAILURE() << "loaded";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("part.xml:3: <body name='b'> pos=\"inf 0 0\""),
              std::string::npos)
        << e.what();
  }
  // a joint that is not limited reads no range: -inf inf there is no error (a review)
  const LoadResult open = load_robot_file(
      dir.write("open.xml", R"(<mujoco><worldbody><body name="a"><joint name="j" limited="false"
range="-inf inf"/><geom size="0.1"/></body></worldbody></mujoco>)"));
  EXPECT_TRUE(std::isinf(open.model->dof_upper[0]));
  // names and other text are no numbers
  const LoadResult r = load_robot_file(
      dir.write("names.xml", R"(<mujoco><worldbody><body name="nan" pos="0 0 1"><joint name="inf"/>
<geom size="0.1"/></body></worldbody></mujoco>)"));
  EXPECT_GE(r.model->find_body("nan"), 0);
}

// A repair's <compiler> attributes go on the file's own <compiler>, not one in a comment (which
// took them, so the retry repaired again and warned twice); the range warning names the joint
// and its line
TEST(Mjcf, RepairsSkipACommentedCompilerAndNameTheJoint) {
  test::TempDir dir;
  const std::string path = dir.write("c.xml", R"(<mujoco>
  <!-- <compiler angle="degree"/> -->
  <worldbody>
    <body name="a">
      <joint name="j1" type="hinge" range="-1 1"/>
      <body name="b"><joint name="j2" type="hinge"/>
        <body name="c"><joint name="j3" type="hinge" range="-2 2"/>
          <body name="d"><joint type="hinge" range="-2 2"/></body></body></body>
    </body>
  </worldbody>
</mujoco>)");
  LoadResult r = load_robot_file(path);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_EQ(r.warnings.size(), 2u) << all;  // the range, the masses
  // the others with a range are named too (MuJoCo names the first)
  EXPECT_NE(all.find(path + ":5: joint 'j1' has a range without `limited` (and 2 more: 'j3', "
                            "1 unnamed): "),
            std::string::npos)
      << all;
  EXPECT_DOUBLE_EQ(r.model->dof_upper[0], M_PI / 180);  // MuJoCo's default unit: degrees
}

// The names the loader makes up (a jointless body's NAME_weld, a multi-joint body's BODY/JOINT)
// step aside for the file's own: a joint 'r_weld' beside a jointless body 'r', and a body 'b/x'
// beside a body 'b' with joints x and y, were refused as duplicates MuJoCo compiles
TEST(Mjcf, MadeUpNamesStepAsideForTheFilesOwn) {
  test::TempDir dir;
  LoadResult r = load_robot_file(dir.write("names.xml", R"(<mujoco>
  <worldbody>
    <body name="r"><geom size="0.1"/>
      <body name="c"><geom size="0.1"/><joint name="r_weld"/></body>
    </body>
    <body name="b/x" pos="1 0 0"><geom size="0.1"/><joint name="q0"/></body>
    <body name="b" pos="2 0 0"><geom size="0.1"/><joint name="x"/><joint name="y"/></body>
  </worldbody>
</mujoco>)"));
  const Model& m = *r.model;
  EXPECT_EQ(m.joint_name[m.body_joint[m.find_body("r")]], "r_weld2");
  EXPECT_EQ(m.joint_name[m.body_joint[m.find_body("c")]], "r_weld");
  EXPECT_EQ(m.joint_name[m.body_joint[m.find_body("b/x")]], "q0");
  EXPECT_EQ(m.joint_name[m.body_joint[m.find_body("b/x2")]], "x");
  EXPECT_EQ(m.joint_name[m.body_joint[m.find_body("b")]], "y");
  // a site keeps its name too: it becomes a link of that name
  LoadResult s = load_robot_file(dir.write("site.xml", R"(<mujoco>
  <worldbody>
    <body name="d"><geom size="0.1"/><joint name="p"/><joint name="q"/><site name="d/p"/></body>
  </worldbody>
</mujoco>)"));
  EXPECT_EQ(s.model->joint_name[s.model->body_joint[s.model->find_body("d/p2")]], "p");
  EXPECT_GE(s.model->find_body("d/p"), 0);
  EXPECT_LT(s.model->find_body("d/p_site"), 0);
}

// a fault in an included file: MuJoCo 2.2.2 reports it at "line 0" of the main file; the
// message also names the included file and the line of the element it points at
TEST(Mjcf, ARefusalInAnIncludedFileNamesThatFileAndLine) {
  test::TempDir dir;
  const std::string parts = dir.write("parts.xml", R"(<mujoco>
 <worldbody>
    <body name="b" pos="0 0 1">
      <geom type="sphere" size="0.1"/>
      <joint name="j2" type="hinge" axis="0 0 1" range="1 2 3"/>
    </body>
 </worldbody>
</mujoco>)");
  const std::string main = dir.write("main.xml", R"(<mujoco model="m">
  <include file="parts.xml"/>
  <worldbody>
    <body name="a"><joint name="j1" type="hinge" range="-1 1"/><geom size="0.1"/></body>
  </worldbody>
</mujoco>)");
  // the file's refusal ("" when it loads)
  auto refusal = [&] {
    try {
      load_robot_file(main);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string what = refusal();
  EXPECT_EQ(what.rfind(main + ": MuJoCo could not load the file:", 0), 0u) << what;
  EXPECT_NE(what.find("(in an included file: <joint range> at " + parts + " line 5)"),
            std::string::npos)
      << what;
  // a bad keyword picks out its tag among the element's others
  dir.write("parts.xml", R"(<mujoco>
 <worldbody>
    <body name="b" pos="0 0 1"><geom size="0.1"/><joint name="j2" type="hinge"/>
      <body name="c"><geom size="0.1"/><joint name="j3" type="spiral"/></body>
    </body>
 </worldbody>
</mujoco>)");
  what = refusal();
  EXPECT_NE(what.find("'spiral' Element 'joint', line 0 (in an included file: <joint> at " + parts +
                      " line 4)"),
            std::string::npos)
      << what;
  // a compile error names its object and the object's kind: the joint, not the body of its name
  dir.write("parts.xml", R"(<mujoco><worldbody><body name="jb" pos="0 0 1"><geom size="0.1"/>
  <body name="c"><geom size="0.1"/><joint name="jb" limited="true" range="1 0"/></body>
</body></worldbody></mujoco>)");
  what = refusal();
  EXPECT_NE(what.find("(in an included file: <joint name=\"jb\"> at " + parts + " line 2)"),
            std::string::npos)
      << what;
}

// attributes newer MuJoCo added that cannot change kinematics or appearance are dropped with a
// warning naming them and their line; others stay errors
TEST(Mjcf, NewerHarmlessAttributesAreDroppedWithAWarning) {
  test::TempDir dir;
  const std::string path = dir.write("newer.xml", R"(<mujoco model="t">
  <option integrator="implicitfast"/>
  <visual>
    <global ellipsoidinertia="true"/>
  </visual>
  <asset>
    <mesh name="m"
          inertia="shell" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>
    <mesh name="h" maxhullvert="8" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>
  </asset>
  <worldbody>
    <body name="b" gravcomp="1"><joint name="j" type="hinge" range="-1 1"/><geom type="mesh" mesh="m"/></body>
  </worldbody>
  <actuator><position joint="j" kp="10" kv="1"/></actuator>
</mujoco>)");
  LoadResult r = load_mjcf_file(path);
  const Model& m = *r.model;
  EXPECT_EQ(m.dof_count, 1);
  EXPECT_NEAR(m.dof_upper[0], M_PI / 180, 1e-12);  // a range is a limit (MuJoCo: degrees)
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_EQ(r.warnings.size(), 7u) << all;
  EXPECT_NE(all.find(path + ":4: attribute 'ellipsoidinertia' on <global> is newer than MuJoCo "
                            "2.2.2 and cannot change kinematics or appearance: ignored"),
            std::string::npos)
      << all;
  // the attribute's own line, not the start of its tag (line 7)
  EXPECT_NE(all.find(":8: attribute 'inertia' on <mesh> is newer than MuJoCo 2.2.2 and cannot "
                     "change kinematics: ignored; the masses and centres of mass of bodies "
                     "weighed from these meshes are MuJoCo 2.2.2's"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find(":2: attribute 'integrator' on <option>"), std::string::npos) << all;
  EXPECT_NE(all.find("attribute 'kv' on <position>"), std::string::npos) << all;
  EXPECT_NE(all.find("attribute 'maxhullvert' on <mesh>"), std::string::npos) << all;
  EXPECT_NE(all.find("attribute 'gravcomp' on <body>"), std::string::npos) << all;
  EXPECT_NE(all.find("joint ranges without `limited` are read as limits"), std::string::npos)
      << all;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / ""),
                          std::filesystem::directory_iterator()),
            1);  // no copy left beside the file
  const std::string bad =
      dir.write("bad.xml",
                "<mujoco>\n<worldbody>\n<body><joint type=\"hinge\" springiness=\"2\"/>"
                "</body></worldbody></mujoco>");
  try {
    load_mjcf_file(bad);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("unrecognized attribute: 'springiness'"),
              std::string::npos)
        << e.what();
  }
}

// a file that needs repairs in a folder where the corrected copy cannot be written (a read-only
// install; here the copy's name is taken by a folder) is corrected in a temporary folder, its
// includes and meshes still found, and the temporary folder is removed
TEST(Mjcf, RepairsWorkWhereTheFilesFolderCannotBeWritten) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "assets");
  dir.write("assets/tri.obj",
            "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\n"
            "f 1 4 3\nf 2 3 4\n");
  dir.write("robot.xml", R"(<mujoco model="arm"><compiler meshdir="assets"/>
  <asset><mesh name="tri" file="tri.obj"/></asset>
  <worldbody>
    <body name="link1" pos="0 0 0.1" gravcomp="1">
      <joint name="j1" axis="0 0 1"/><geom type="mesh" mesh="tri" mass="1"/>
    </body>
  </worldbody>
</mujoco>)");
  const std::string scene =
      dir.write("scene.xml", "<mujoco model=\"scene\"><include file=\"robot.xml\"/></mujoco>");
  const std::string pid = std::to_string(getpid());
  for (const char* file : {".scene.xml.ikwb-", ".robot.xml.ikwb-"})
    std::filesystem::create_directory(dir / (file + pid));
  LoadResult r = load_robot_file(scene);
  ASSERT_TRUE(r.model);
  const int link = r.model->find_body("link1");
  ASSERT_GE(link, 0);
  ASSERT_EQ(r.model->body_visuals[link].size(), 1u);
  ASSERT_TRUE(r.model->body_visuals[link][0].mesh);
  EXPECT_EQ(r.model->body_visuals[link][0].mesh->triangle_count(), 4u);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("attribute 'gravcomp' on <body>"), std::string::npos) << all;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    EXPECT_NE(e.path().filename().string().rfind("ikwb-mjcf-" + pid + "-", 0), 0u) << e.path();
}

// the Menagerie layout: scene.xml includes the robot, whose newer attributes (one in a default
// class, one on a continuation line of a joint) are dropped there; --strict refuses the repair
TEST(Mjcf, RepairsReachIncludedFilesAndContinuationLines) {
  test::TempDir dir;
  const std::string robot = dir.write("robot.xml", R"(<mujoco model="arm"><compiler angle="radian"/>
  <default><joint range="-2 2" actuatorfrcrange="-10 10"/></default>
  <worldbody>
    <body name="link1" pos="0 0 0.1">
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <joint name="j1" axis="0 0 1" limited="true"
             actuatorgravcomp="true"/>
    </body>
  </worldbody>
</mujoco>)");
  const std::string scene = dir.write("scene.xml", R"(<mujoco model="arm scene">
  <include file="robot.xml"/>
  <worldbody><geom name="floor" size="0 0 0.05" type="plane"/></worldbody>
</mujoco>)");
  LoadResult r = load_robot_file(scene);
  EXPECT_EQ(r.model->dof_count, 1);
  EXPECT_DOUBLE_EQ(r.model->dof_upper[0], 2.0);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_EQ(r.warnings.size(), 3u) << all;  // the two attributes, the floor left out
  EXPECT_NE(all.find(scene + ": the world's geoms ('floor' plane)"), std::string::npos) << all;
  EXPECT_NE(all.find(robot + ":2: attribute 'actuatorfrcrange' on <joint> is newer"),
            std::string::npos)
      << all;
  // on the start tag's continuation line: the attribute's own line
  EXPECT_NE(all.find(robot + ":7: attribute 'actuatorgravcomp' on <joint>"), std::string::npos)
      << all;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / ""),
                          std::filesystem::directory_iterator()),
            2);  // no copies left beside the files
  UrdfOptions strict;
  strict.strict = true;
  try {
    load_robot_file(robot, strict);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("'actuatorfrcrange'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(--strict: not repaired)"), std::string::npos)
        << e.what();
  }
}

// an attribute dropped in many places (Menagerie's arms: one per joint and actuator) is one
// warning: its first file and line, and how many more places had it
TEST(Mjcf, ANewerAttributeInManyPlacesIsOneWarning) {
  test::TempDir dir;
  dir.write("gripper.xml", R"(<mujoco model="gripper">
  <worldbody><body name="finger" pos="0 0 0.2"><joint name="f" actuatorfrcrange="-1 1"/>
    <geom size="0.01" mass="0.1"/></body></worldbody>
</mujoco>)");
  const std::string path = dir.write("arm.xml", R"(<mujoco model="arm">
  <worldbody>
    <body name="a"><joint name="a" actuatorfrcrange="-1 1"/><geom size="0.01" mass="1"/>
      <body name="b" pos="0 0 0.1"><joint name="b" actuatorfrcrange="-1 1"/>
        <geom size="0.01" mass="1"/></body>
    </body>
  </worldbody>
  <include file="gripper.xml"/>
  <actuator><position joint="a" kv="1"/><position joint="b" kv="1"/></actuator>
</mujoco>)");
  LoadResult r = load_mjcf_file(path);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  ASSERT_EQ(r.warnings.size(), 2u) << all;
  EXPECT_EQ(r.warnings[0], path +
                               ":3: attribute 'actuatorfrcrange' on <joint> is newer than MuJoCo "
                               "2.2.2 and cannot change kinematics or appearance: ignored here "
                               "and in 2 more places");
  EXPECT_EQ(r.warnings[1].rfind(path + ":9: attribute 'kv' on <position>", 0), 0u) << all;
  EXPECT_NE(r.warnings[1].find("ignored here and in 1 more place"), std::string::npos) << all;
}

// --floating-base puts a free joint above the single root body, which stays where the file
// places it at the neutral configuration; a root that already floats, or several roots, are
// errors
TEST(Mjcf, FloatingBaseAddsAFreeJointAboveTheRoot) {
  test::TempDir dir;
  const std::string arm = dir.write("arm.xml", R"(<mujoco model="arm">
  <worldbody>
    <body name="base" pos="0.1 0.2 0.3">
      <geom type="box" size="0.05 0.05 0.05"/>
      <body name="tip" pos="0 0 0.2"><joint name="j" axis="0 0 1"/><geom type="sphere" size="0.02"/></body>
    </body>
  </worldbody>
</mujoco>)");
  UrdfOptions floating;
  floating.floating_base = true;
  const Model fixed = *load_robot_file(arm).model;
  const Model m = *load_robot_file(arm, floating).model;
  EXPECT_EQ(m.coord_count, fixed.coord_count + 7);
  EXPECT_EQ(JointType(m.joint_type[m.find_joint("root_joint")]), JointType::kFree);
  State a(fixed), b(m);
  eval_fk(fixed, fixed.neutral_configuration(), {}, a);
  eval_fk(m, m.neutral_configuration(), {}, b);
  EXPECT_NEAR(b.body_q[m.find_body("tip")].p.z, 0.5, 1e-12);
  EXPECT_NEAR(a.body_q[fixed.find_body("tip")].p.z, 0.5, 1e-12);
  auto error = [&](const std::string& path) {
    try {
      load_robot_file(path, floating);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_NE(error(dir.write("zoo.xml", kRobot))
                .find("--floating-base: root body 'base' already has a free joint ('root')"),
            std::string::npos);
  EXPECT_NE(error(dir.write("two.xml",
                            "<mujoco><worldbody><body name=\"a\"/><body name=\"b\"/>"
                            "</worldbody></mujoco>"))
                .find("--floating-base needs one root body in <worldbody>; the file has 2 (a, b)"),
            std::string::npos);
}

// an equality with active="false" does not hold: no mimic
TEST(Mjcf, InactiveEqualitiesAreNotMimics) {
  test::TempDir dir;
  const Model m = *load_robot_file(dir.write("eq.xml", R"(<mujoco model="eq">
  <worldbody>
    <body name="a"><joint name="o1" axis="0 0 1"/><geom type="sphere" size="0.01"/>
      <body name="b"><joint name="o2" axis="0 1 0"/><geom type="sphere" size="0.01"/></body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="o2" joint2="o1" polycoef="0 2 0 0 0" active="false"/>
  </equality>
</mujoco>)"))
                       .model;
  EXPECT_EQ(m.joint_mimic[m.find_joint("o2")], -1);
  EXPECT_EQ(m.coord_count, 2);
}

// chained joint equalities (c follows b, b follows a) fold into couplings of a, as URDF mimic
// chains do; equalities that cannot carry over are named with their kind and name, tendons with
// their names
TEST(Mjcf, ChainedJointEqualitiesFoldAndOthersAreNamed) {
  test::TempDir dir;
  LoadResult r = load_robot_file(dir.write("eq.xml", R"(<mujoco model="eq">
  <compiler angle="radian"/>
  <worldbody>
    <body name="b1"><joint name="a" axis="0 0 1"/><geom size=".02" mass="1"/>
      <body name="b2" pos=".2 0 0"><joint name="b" axis="0 1 0"/><geom size=".02" mass="1"/>
        <body name="b3" pos=".2 0 0"><joint name="c" axis="0 1 0" ref="0.1"/>
          <geom size=".02" mass="1"/></body>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="b" joint2="a" polycoef="0.1 2 0 0 0"/>
    <joint joint1="c" joint2="b" polycoef="0 0.5 0 0 0"/>
    <joint name="lock" joint1="a" polycoef="0.3 0 0 0 0"/>
    <weld body1="b3"/>
    <weld name="w&#10;2" body1="b3"/>
  </equality>
  <tendon>
    <fixed name="split"><joint joint="a" coef="0.5"/><joint joint="c" coef="0.5"/></fixed>
    <fixed><joint joint="a" coef="1"/></fixed>
    <fixed name="two&#10;lines"><joint joint="a" coef="1"/></fixed>
  </tendon>
</mujoco>)"));
  const Model& m = *r.model;
  const int a = m.find_joint("a"), c = m.find_joint("c");
  // b = 0.1 + 2 a; c - 0.1 = 0.5 b (c's ref 0.1): c = 0.1 + 0.5 (0.1 + 2 a) = 0.15 + a
  EXPECT_EQ(m.joint_mimic[c], a);
  EXPECT_DOUBLE_EQ(m.joint_mimic_multiplier[c], 1.0);
  EXPECT_NEAR(m.joint_mimic_offset[c], 0.15, 1e-15);
  EXPECT_EQ(m.coord_count, 1);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("joint equality 'lock' not carried over: it holds joint 'a' at a constant"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("weld equality 3 not carried over: only joint couplings are"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("weld equality 'w\\n2' not carried over"), std::string::npos) << all;
  // a name with a line break is shown escaped: the warning stays one line
  EXPECT_NE(all.find("the tendons 'split', 'tendon_1', 'two\\nlines' are not carried over "
                     "(kinematics only)"),
            std::string::npos)
      << all;
}

// a <frame> (MuJoCo 3) places bodies: it cannot be dropped like a newer attribute, and the
// error says what it is and what to do; so for <replicate> and <flexcomp>
TEST(Mjcf, AFrameElementIsNamedAsNewerThanThisMuJoCo) {
  test::TempDir dir;
  const std::string path = dir.write("frame.xml", R"(<mujoco><worldbody>
  <body name="a"><joint name="j" axis="0 0 1"/><geom size=".1" mass="1"/>
    <frame pos="0 0 1"><body name="b"><joint name="k"/><geom size=".1" mass="1"/></body></frame>
  </body></worldbody></mujoco>)");
  try {
    load_robot_file(path);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("<frame> is newer than MuJoCo 2.2.2"), std::string::npos)
        << e.what();
  }
  // a <replicate> repeats (a review's hint said to move its pos/quat), a <flexcomp> deforms
  const std::pair<std::string, std::string> others[] = {
      {R"(<replicate count="3" offset="0.1 0 0"><geom size=".01"/></replicate>)",
       "<replicate> is newer than MuJoCo 2.2.2, which this build reads; it repeats what it holds "
       "at offsets, so it cannot be left out: write the copies out"},
      {R"(<flexcomp name="f" type="grid" count="2 2 1" spacing=".1 .1 .1" dim="2"/>)",
       "<flexcomp> is newer than MuJoCo 2.2.2, which this build reads; a deformable body, which "
       "the workbench does not pose: remove it"}};
  for (const auto& [element, hint] : others) {
    const std::string file =
        dir.write("newer.xml", "<mujoco><worldbody><body name=\"a\"><joint/><geom size=\".1\"/>" +
                                   element + "</body></worldbody></mujoco>");
    try {
      load_robot_file(file);
      ADD_FAILURE() << element;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(hint), std::string::npos) << e.what();
    }
  }
}

// equalities that form a cycle are an error that names the file
TEST(Mjcf, CyclicJointEqualitiesAreAnError) {
  test::TempDir dir;
  const std::string path = dir.write("cycle.xml", R"(<mujoco model="eq">
  <worldbody>
    <body name="b1"><joint name="a" axis="0 0 1"/><geom size=".02" mass="1"/>
      <body name="b2" pos=".2 0 0"><joint name="b" axis="0 1 0"/><geom size=".02" mass="1"/></body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="b" joint2="a" polycoef="0 2 0 0 0"/>
    <joint joint1="a" joint2="b" polycoef="0 0.5 0 0 0"/>
  </equality>
</mujoco>)");
  try {
    load_robot_file(path);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("joint equalities form a cycle"), std::string::npos)
        << e.what();
  }
}

// A site's own orientation wins over its default class's, as the MJCF reference says: MuJoCo
// 2.2.2 kept the class's euler over a site's own axisangle, zaxis, xyaxes or quat (a review's
// sites were turned 7.6 to 120 degrees, and a site is an IK target link)
TEST(Mjcf, ASitesOwnOrientationWinsOverItsDefaultClasss) {
  test::TempDir dir;
  const std::string path = dir.write("sites.xml", R"(<mujoco model="sites">
  <default><default class="tool"><site euler="0 90 0"/></default></default>
  <worldbody>
    <body name="b" childclass="tool">
      <joint name="j" axis="0 0 1"/>
      <geom size="0.05" mass="1"/>
      <site name="s_class"/>
      <site name="s_euler" euler="0 0 90"/>
      <site name="s_aa" axisangle="0 0 1 90"/>
      <site name="s_z" zaxis="0 1 0"/>
      <site name="s_xy" xyaxes="0 1 0 -1 0 0"/>
      <site name="s_quat" quat="0.7071068 0 0 0.7071068"/>
    </body>
  </worldbody>
</mujoco>)");
  const LoadResult r = load_mjcf_file(path);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(
      r.warnings[0].find("the sites 's_aa' (axisangle, " + path + ":9), 's_z' (zaxis, " + path +
                         ":10), 's_xy' (xyaxes, " + path + ":11), 's_quat' (quat, " + path +
                         ":12) set their own orientation and a default class "
                         "another: MuJoCo 2.2.2 took the class's"),
      std::string::npos)
      << r.warnings[0];
  const Model& m = *r.model;
  State s(m);
  eval_fk(m, std::vector<double>{0.0}, {}, s);
  const double h = std::sqrt(0.5);
  // (w, x, y, z): the class's 90 degrees about y; the sites' own 90 degrees about z, or (zaxis
  // "0 1 0") -90 degrees about x
  const std::pair<const char*, std::array<double, 4>> expected[] = {
      {"s_class", {h, 0, h, 0}}, {"s_euler", {h, 0, 0, h}}, {"s_aa", {h, 0, 0, h}},
      {"s_z", {h, -h, 0, 0}},    {"s_xy", {h, 0, 0, h}},    {"s_quat", {h, 0, 0, h}}};
  for (const auto& [name, q] : expected) {
    const Quat<double>& x = s.body_q[m.find_body(name)].q;
    EXPECT_NEAR(std::fabs(x.w * q[0] + x.x * q[1] + x.y * q[2] + x.z * q[3]), 1.0, 1e-12) << name;
  }
}

// A geom's own orientation wins over its default class's as a site's does (MuJoCo 2.2.2 kept the
// class's euler: a review saw the drawn and colliding shapes turned the same way), an unnamed
// geom named by its place in its body; a geom without one keeps the class's, one with the
// class's kind of attribute its own without a word; and the sites' and geoms' are one warning
TEST(Mjcf, AGeomsOwnOrientationWinsOverItsDefaultClasss) {
  test::TempDir dir;
  const std::string path = dir.write("geoms.xml", R"(<mujoco model="geoms">
  <default><default class="part"><geom type="box" size="0.1 0.02 0.01" euler="0 90 0"/>
    <site euler="0 90 0"/></default></default>
  <worldbody>
    <body name="b" childclass="part">
      <joint name="j" axis="0 0 1"/>
      <geom name="g_class"/>
      <geom name="g_aa" axisangle="0 0 1 90"/>
      <geom quat="0.7071068 0 0 0.7071068"/>
      <geom name="g_euler" euler="0 0 90"/>
      <site name="s_z" zaxis="0 1 0"/>
    </body>
  </worldbody>
</mujoco>)");
  const LoadResult r = load_mjcf_file(path);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("the site 's_z' (zaxis, " + path +
                               ":11) and the geoms 'g_aa' (axisangle, " + path +
                               ":8), #3 of body 'b' (quat, " + path +
                               ":9) set their own orientation and a default class another"),
            std::string::npos)
      << r.warnings[0];
  // g_class keeps its class's orientation and the others take their own: neither compile weighs
  // the body right
  EXPECT_NE(r.warnings[1].find("the mass properties of body 'b', which MuJoCo computes from its "
                               "geoms, stay MuJoCo 2.2.2's"),
            std::string::npos)
      << r.warnings[1];
  const Model& m = *r.model;
  const std::vector<Geometry>& g = m.body_collisions[m.find_body("b")];
  ASSERT_EQ(g.size(), 4u);
  const double h = std::sqrt(0.5);
  // (x, y, z, w): the class's 90 degrees about y, the geoms' own 90 degrees about z
  const std::array<double, 4> expected[] = {{0, h, 0, h}, {0, 0, h, h}, {0, 0, h, h}, {0, 0, h, h}};
  for (std::size_t k = 0; k < g.size(); ++k) {
    const Quat<double>& q = g[k].origin.q;
    const std::array<double, 4>& e = expected[k];
    EXPECT_NEAR(std::fabs(q.x * e[0] + q.y * e[1] + q.z * e[2] + q.w * e[3]), 1.0, 1e-12) << k;
  }
  // the collision capsules follow: the box's long side along z where it turned about y, along y
  // where it turned about z (the three equal ones are one capsule)
  const CollisionGeometry& cg = m.collision;
  const int first = cg.body_first[m.find_body("b")];
  ASSERT_EQ(cg.body_first[m.find_body("b") + 1] - first, 2);
  const LinkCapsule<double>& along_z = cg.capsules[first];
  const LinkCapsule<double>& along_y = cg.capsules[first + 1];
  EXPECT_NEAR(std::fabs(along_z.p1.z - along_z.p0.z), 0.2, 1e-9);
  EXPECT_NEAR(std::fabs(along_y.p1.y - along_y.p0.y), 0.2, 1e-9);
  EXPECT_NEAR(along_y.p1.x - along_y.p0.x, 0.0, 1e-12);
}

// A body MuJoCo weighs from its geoms takes the mass properties of its geoms' own orientations
// when each of them sets one (a mesh geom turned to its own left the centre of mass 5 cm where the
// class had it, a review): a 200 x 40 x 20 mm box turned 90 degrees about z lies along y, the
// class's euler would stand it along z
TEST(Mjcf, ABodyWeighedFromItsGeomsTakesTheirOwnOrientations) {
  test::TempDir dir;
  const std::string path = dir.write("weighed.xml", R"(<mujoco model="weighed">
  <default><default class="part"><geom type="box" size="0.1 0.02 0.01" euler="0 90 0"/>
    </default></default>
  <worldbody>
    <body name="b" childclass="part">
      <joint name="j" axis="0 0 1"/>
      <geom name="g" axisangle="0 0 1 90" density="1000"/>
    </body>
  </worldbody>
</mujoco>)");
  const LoadResult r = load_mjcf_file(path);
  ASSERT_EQ(r.warnings.size(), 1u);
  const Model& m = *r.model;
  const int b = m.find_body("b");
  EXPECT_NEAR(m.body_mass[b], 1000 * 0.2 * 0.04 * 0.02, 1e-12);
  const std::array<double, 9>& I = m.body_inertia[b];
  // m (b^2 + c^2) / 12 about each axis: x across 40 x 200 mm, y the long side, z across 200 x 40
  const double mass = m.body_mass[b];
  EXPECT_NEAR(I[0], mass * (0.2 * 0.2 + 0.02 * 0.02) / 12, 1e-12);
  EXPECT_NEAR(I[4], mass * (0.04 * 0.04 + 0.02 * 0.02) / 12, 1e-12);
  EXPECT_NEAR(I[8], mass * (0.2 * 0.2 + 0.04 * 0.04) / 12, 1e-12);
}

// a mesh in a format MuJoCo does not read is MuJoCo's refusal, with a hint to convert it
TEST(Mjcf, AMeshInAFormatMuJoCoDoesNotReadIsRefusedWithAHint) {
  test::TempDir dir;
  dir.write("box.dae", "<COLLADA/>");
  const std::string path = dir.write("dae.xml", R"(<mujoco><asset><mesh name="m" file="box.dae"/>
  </asset><worldbody><body name="b"><joint name="j"/><geom type="mesh" mesh="m"/></body>
  </worldbody></mujoco>)");
  try {
    load_mjcf_file(path);
    ADD_FAILURE() << "loaded";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Unknown mesh file type: box.dae"), std::string::npos) << what;
    EXPECT_NE(what.find("reads STL, OBJ and MSH meshes: convert it to one of these"),
              std::string::npos)
        << what;
  }
}

// Where no class sets a site's orientation, the site keeps MuJoCo's frame, whatever else moves
// it: a static body fused into its parent (fusestatic), compiler settings in an included file
// before the main file's (document order), a class's fromto over the site's own quat. A review
// found the first version, which computed the sites' own orientations itself, turning each 90
// degrees with a warning blaming a class the file did not have.
TEST(Mjcf, SitesKeepMuJoCosFrameWhereNoClassSetsTheirOrientation) {
  test::TempDir dir;
  const std::string joint = "<joint name=\"j\" axis=\"0 0 1\"/><geom size=\".1\"/>";
  dir.write("degrees.xml", "<mujoco><compiler angle=\"degree\"/></mujoco>");
  const std::string files[] = {
      dir.write("fuse.xml", "<mujoco><compiler fusestatic=\"true\"/><worldbody><body name=\"b\">" +
                                joint +
                                "<body name=\"static\" euler=\"0 0 90\" pos=\"0.1 0 0\">"
                                "<geom size=\".05\"/><site name=\"s\" euler=\"90 0 0\"/></body>"
                                "</body></worldbody></mujoco>"),
      dir.write("order.xml",
                "<mujoco><include file=\"degrees.xml\"/><compiler angle=\"radian\"/>"
                "<worldbody><body name=\"b\">" +
                    joint +
                    "<site name=\"s\" euler=\"0 0 1.5707963267948966\"/></body>"
                    "</worldbody></mujoco>"),
      dir.write("fromto.xml",
                "<mujoco><default><default class=\"ft\"><site type=\"capsule\" "
                "fromto=\"0 0 0 1 0 0\" size=\"0.01\" euler=\"0 0 30\"/></default></default>"
                "<worldbody><body name=\"b\">" +
                    joint +
                    "<site name=\"s\" class=\"ft\" quat=\"1 0 0 0\"/></body>"
                    "</worldbody></mujoco>")};
  for (const std::string& path : files) {
    const LoadResult r = load_mjcf_file(path);
    for (const std::string& w : r.warnings)
      EXPECT_EQ(w.find("own orientation"), std::string::npos) << w;
    char error[512];
    mjModel* mm = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
    ASSERT_TRUE(mm) << error;
    mjData* d = mj_makeData(mm);
    mj_kinematics(mm, d);
    State s(*r.model);
    eval_fk(*r.model, std::vector<double>{0.0}, {}, s);
    const mjtNum* x = d->site_xmat + 9 * mj_name2id(mm, mjOBJ_SITE, "s");
    const Quat<double>& q = s.body_q[r.model->find_body("s")].q;
    for (int c = 0; c < 3; ++c) {
      const Vec3<double> e{double(c == 0), double(c == 1), double(c == 2)};
      const Vec3<double> col = rotate(q, e);
      EXPECT_LT(length(col - Vec3<double>{x[c], x[3 + c], x[6 + c]}), 1e-12) << path;
    }
    mj_deleteData(d);
    mj_deleteModel(mm);
  }
}

// attributes of newer MuJoCo that move or weigh bodies cannot be dropped: the refusal says so
// (MuJoCo 2.2.2's own words were a schema error, or "typeinertia currently only available for
// meshes''")
TEST(Mjcf, NewerAttributesThatMoveOrWeighBodiesAreRefusedWithAHint) {
  test::TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {"<compiler alignfree=\"true\"/><worldbody><body name=\"a\"><freejoint/>"
       "<geom size=\".1\"/></body></worldbody>",
       "('alignfree' on <compiler> is newer than MuJoCo 2.2.2, which this build reads; it moves "
       "free bodies' frames to their centres of mass, so it cannot be left out"},
      {"<worldbody><body name=\"a\"><freejoint align=\"true\"/><geom size=\".1\"/></body>"
       "</worldbody>",
       "('align' on <freejoint> is newer than MuJoCo 2.2.2"},
      {"<worldbody><body name=\"a\"><joint name=\"j\"/><geom size=\".1\" shellinertia=\"true\"/>"
       "</body></worldbody>",
       "(shellinertia on a geom that is not a mesh is newer than MuJoCo 2.2.2, which this build "
       "reads; it weighs the geom as a shell, so it cannot be left out"}};
  int k = 0;
  for (const auto& [body, hint] : cases) {
    const std::string path =
        dir.write("newer" + std::to_string(k++) + ".xml", "<mujoco>" + body + "</mujoco>");
    try {
      load_mjcf_file(path);
      ADD_FAILURE() << "loaded: " << body;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(hint), std::string::npos) << e.what();
    }
  }
  // "false", newer MuJoCo's default, moves nothing: dropped with a warning, as other newer
  // attributes are
  const LoadResult r = load_mjcf_file(
      dir.write("align_false.xml",
                "<mujoco><compiler alignfree=\"false\"/><worldbody><body name=\"a\">"
                "<freejoint align=\"false\"/><geom size=\".1\"/></body></worldbody></mujoco>"));
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("attribute 'alignfree' on <compiler> is newer than MuJoCo 2.2.2 and "
                               "cannot change kinematics or appearance: ignored"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_NE(r.warnings[1].find("attribute 'align' on <freejoint>"), std::string::npos)
      << r.warnings[1];
}

#else

TEST(Mjcf, WithoutMuJoCoTheErrorSaysSo) {
  test::TempDir dir;
  EXPECT_THROW(load_robot_file(dir.write("zoo.xml", kRobot)), ModelError);
}

#endif

}  // namespace
}  // namespace ikwb
