// The shipped robot library (assets/robots): every robot loads with its meshes and no warnings,
// FK matches independently computed poses (published DH tables, hand-derived positions), the
// IK benchmark succeeds on every arm's end effector, and every preset scene solves after its
// targets move. No window needed.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "app/gui/solver_driver.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/benchmark.hpp"

namespace ikwb {
namespace {

constexpr double kPi = 3.14159265358979323846;

nlohmann::json registry() {
  std::ifstream in(asset_dir() + "/robots/robots.json");
  nlohmann::json j = nlohmann::json::parse(in);
  return j.is_object() && j.contains("robots") ? j["robots"] : j;
}

std::shared_ptr<const Model> load(const std::string& name, bool meshes = false) {
  UrdfOptions opt;
  opt.load_meshes = meshes;
  opt.floating_base = name == "humanoid" || name == "quadruped";
  return load_urdf_file(resolve_robot(name), opt).model;
}

// configuration from joint values by name (1-dof joints); the rest stays neutral
std::vector<double> config(const Model& m, const std::vector<std::pair<std::string, double>>& v) {
  std::vector<double> q = m.neutral_configuration();
  for (const auto& [name, value] : v) {
    int j = m.find_joint(name);
    EXPECT_GE(j, 0) << name;
    if (j >= 0) q[m.joint_q_start[j]] = value;
  }
  return q;
}

Vec3<double> body_position(const Model& m, const std::vector<double>& q, const std::string& b) {
  State s(m);
  eval_fk(m, q, {}, s);
  int i = m.find_body(b);
  EXPECT_GE(i, 0) << b;
  return i >= 0 ? s.body_q[i].p : Vec3<double>{0, 0, 0};
}

void expect_position(const Vec3<double>& a, const Vec3<double>& b, double tol = 1e-9) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

// 4x4 homogeneous transforms, row-major, for the independent DH chains below
struct Mat4 {
  double m[16];
};
Mat4 mul(const Mat4& a, const Mat4& b) {
  Mat4 c{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) c.m[i * 4 + j] += a.m[i * 4 + k] * b.m[k * 4 + j];
  return c;
}
Mat4 identity4() {
  return Mat4{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
}
// standard DH: Rz(theta) Tz(d) Tx(a) Rx(alpha)
Mat4 dh(double theta, double d, double a, double alpha) {
  double ct = std::cos(theta), st = std::sin(theta), ca = std::cos(alpha), sa = std::sin(alpha);
  return Mat4{
      {ct, -st * ca, st * sa, a * ct, st, ct * ca, -ct * sa, a * st, 0, sa, ca, d, 0, 0, 0, 1}};
}
// modified (Craig) DH: Rx(alpha) Tx(a) Rz(theta) Tz(d)
Mat4 mdh(double a, double d, double alpha, double theta) {
  double ct = std::cos(theta), st = std::sin(theta), ca = std::cos(alpha), sa = std::sin(alpha);
  return Mat4{
      {ct, -st, 0, a, st * ca, ct * ca, -sa, -d * sa, st * sa, ct * sa, ca, d * ca, 0, 0, 0, 1}};
}

TEST(RobotLibrary, EveryRobotLoadsWithItsMeshesAndNoWarnings) {
  nlohmann::json robots = registry();
  ASSERT_GE(robots.size(), 7u);
  for (const auto& r : robots) {
    std::string name = r["name"];
    UrdfOptions opt;
    LoadResult res = load_urdf_file(resolve_robot(name), opt);
    ASSERT_TRUE(res.model) << name;
    EXPECT_TRUE(res.warnings.empty()) << name << ": " << res.warnings.front();
    // nor about its collision geometry, which every scene with a collision objective repeated
    // (the Panda's flange, a visual without a <collision>)
    EXPECT_TRUE(res.model->collision.warnings.empty())
        << name << ": " << res.model->collision.warnings.front();
    int meshes = 0;
    for (const auto& visuals : res.model->body_visuals)
      for (const auto& g : visuals) {
        if (g.type != GeometryType::kMesh) continue;
        ++meshes;
        EXPECT_FALSE(g.placeholder) << name << ": " << g.mesh_uri;
        ASSERT_TRUE(g.mesh) << name << ": " << g.mesh_uri;
        EXPECT_GT(g.mesh->triangle_count(), 0u);
      }
    EXPECT_GT(meshes, 0) << name;
    for (const auto& ee : r["end_effectors"])
      EXPECT_GE(res.model->find_body(ee.get<std::string>()), 0) << name << ": " << ee;
  }
}

TEST(RobotLibrary, DofCounts) {
  EXPECT_EQ(load("panda")->dof_count, 8);  // 7 arm joints + one finger (the other mimics it)
  EXPECT_EQ(load("ur5e")->dof_count, 6);
  EXPECT_EQ(load("iiwa7")->dof_count, 7);
  EXPECT_EQ(load("dual_arm")->dof_count, 15);
  EXPECT_GE(load("humanoid")->dof_count, 25 + 6);
  EXPECT_EQ(load("quadruped")->dof_count, 12 + 6);
  EXPECT_EQ(load("planar3")->dof_count, 3);
}

// Panda: Franka's published modified-DH table, flange 0.107 m along z7, TCP 0.1034 m further
TEST(RobotLibrary, PandaMatchesFrankaDhTable) {
  auto m = load("panda");
  const double a[7] = {0, 0, 0, 0.0825, -0.0825, 0, 0.088};
  const double d[7] = {0.333, 0, 0.316, 0, 0.384, 0, 0};
  const double alpha[7] = {0, -kPi / 2, kPi / 2, kPi / 2, -kPi / 2, kPi / 2, kPi / 2};
  std::vector<std::pair<std::string, double>> zero;
  for (int i = 0; i < 7; ++i) zero.push_back({"panda_joint" + std::to_string(i + 1), 0.0});
  expect_position(body_position(*m, config(*m, zero), "panda_link8"), {0.088, 0, 0.926});
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (int trial = 0; trial < 10; ++trial) {
    double q[7];
    std::vector<std::pair<std::string, double>> named;
    for (int i = 0; i < 7; ++i) {
      q[i] = u(rng);
      named.push_back({"panda_joint" + std::to_string(i + 1), q[i]});
    }
    Mat4 t = identity4();
    for (int i = 0; i < 7; ++i) t = mul(t, mdh(a[i], d[i], alpha[i], q[i]));
    t = mul(t, mdh(0, 0.107 + 0.1034, 0, 0));
    expect_position(body_position(*m, config(*m, named), "panda_hand_tcp"),
                    {t.m[3], t.m[7], t.m[11]});
  }
}

// UR5e: Universal Robots' published standard DH table; the URDF's base_link is the DH base
// turned by pi about z (as in the official description)
TEST(RobotLibrary, Ur5eMatchesUniversalRobotsDhTable) {
  auto m = load("ur5e");
  const double d[6] = {0.1625, 0, 0, 0.1333, 0.0997, 0.0996};
  const double a[6] = {0, -0.425, -0.3922, 0, 0, 0};
  const double alpha[6] = {kPi / 2, 0, 0, kPi / 2, -kPi / 2, 0};
  const char* joints[6] = {"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
                           "wrist_1_joint",      "wrist_2_joint",       "wrist_3_joint"};
  expect_position(body_position(*m, m->neutral_configuration(), "tool0"), {0.8172, 0.2329, 0.0628});
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<std::pair<std::string, double>> named;
    Mat4 t = identity4();
    for (int i = 0; i < 6; ++i) {
      double qi = u(rng);
      named.push_back({joints[i], qi});
      t = mul(t, dh(qi, d[i], a[i], alpha[i]));
    }
    expect_position(body_position(*m, config(*m, named), "tool0"), {-t.m[3], -t.m[7], t.m[11]});
  }
}

// iiwa 7: 0.34 + 0.4 + 0.4 + 0.126 m straight up at zero; bending joint 2 by 90 degrees lays
// the rest of the arm (0.926 m) horizontal at the shoulder height
TEST(RobotLibrary, IiwaHandDerivedPoses) {
  auto m = load("iiwa7");
  expect_position(body_position(*m, m->neutral_configuration(), "iiwa_link_ee"), {0, 0, 1.266});
  int j2 = m->joint_q_start[m->body_joint[m->find_body("iiwa_link_2")]];
  std::vector<double> q = m->neutral_configuration();
  q[j2] = kPi / 2;
  Vec3<double> p = body_position(*m, q, "iiwa_link_ee");
  EXPECT_NEAR(std::hypot(p.x, p.y), 0.926, 1e-9);
  EXPECT_NEAR(p.z, 0.34, 1e-9);
}

// planar arm: links 0.5, 0.4, 0.3 m about z, tip in the plane z = 0.05
TEST(RobotLibrary, Planar3HandDerivedPoses) {
  auto m = load("planar3");
  ASSERT_EQ(m->coord_count, 3);
  const double q[3] = {0.3, -0.5, 0.9};
  double a1 = q[0], a2 = q[0] + q[1], a3 = q[0] + q[1] + q[2];
  expect_position(body_position(*m, {q[0], q[1], q[2]}, "tip"),
                  {0.5 * std::cos(a1) + 0.4 * std::cos(a2) + 0.3 * std::cos(a3),
                   0.5 * std::sin(a1) + 0.4 * std::sin(a2) + 0.3 * std::sin(a3), 0.05});
  expect_position(body_position(*m, {kPi / 2, 0, 0}, "tip"), {0, 1.2, 0.05});
}

// left and right limbs mirror each other in y at the zero pose; soles 0.9 m below the pelvis
TEST(RobotLibrary, HumanoidQuadrupedAndDualArmSymmetry) {
  auto h = load("humanoid");
  std::vector<double> q = h->neutral_configuration();
  Vec3<double> lf = body_position(*h, q, "left_foot"), rf = body_position(*h, q, "right_foot");
  Vec3<double> lh = body_position(*h, q, "left_hand"), rh = body_position(*h, q, "right_hand");
  EXPECT_NEAR(lf.z, -0.9, 1e-9);
  EXPECT_NEAR(lf.y, -rf.y, 1e-9);
  EXPECT_NEAR(lh.y, -rh.y, 1e-9);
  EXPECT_NEAR(lh.z, rh.z, 1e-9);
  auto quad = load("quadruped");
  q = quad->neutral_configuration();
  Vec3<double> fl = body_position(*quad, q, "fl_foot"), fr = body_position(*quad, q, "fr_foot");
  Vec3<double> rl = body_position(*quad, q, "rl_foot"), rr = body_position(*quad, q, "rr_foot");
  EXPECT_NEAR(fl.y, -fr.y, 1e-9);
  EXPECT_NEAR(rl.y, -rr.y, 1e-9);
  EXPECT_GT(fl.x, rl.x);
  EXPECT_LT(fl.z, 0.0);
  auto dual = load("dual_arm");
  q = dual->neutral_configuration();
  Vec3<double> lt = body_position(*dual, q, "left_tool"),
               rt = body_position(*dual, q, "right_tool");
  EXPECT_NEAR(lt.y, -rt.y, 1e-9);
  EXPECT_NEAR(lt.x, rt.x, 1e-9);
  EXPECT_NEAR(lt.z, rt.z, 1e-9);
}

// the batch protocol (5 mm / 0.05 rad pose targets from random configurations) on every arm
TEST(RobotLibrary, IkBenchmarkSucceedsOnEveryArmEndEffector) {
  const std::pair<const char*, const char*> arms[] = {
      {"panda", "panda_hand_tcp"}, {"ur5e", "tool0"},          {"iiwa7", "iiwa_link_ee"},
      {"dual_arm", "left_tool"},   {"dual_arm", "right_tool"}, {"planar3", "tip"}};
  auto solver = make_cpu_solver();
  for (const auto& [robot, link] : arms) {
    auto m = load(robot);
    int body = m->find_body(link);
    ASSERT_GE(body, 0) << robot << " " << link;
    BenchStats s = run_batch_protocol(m, body, {0, 0, 0}, 100, 1, batch_settings(), *solver);
    EXPECT_EQ(s.solved, s.problems) << robot << " " << link;
  }
}

// every preset: move each soft link objective's target a little and let the workbench's per-frame
// solver settle; every enabled link objective is reached and hard objectives hold
TEST(RobotLibrary, EveryPresetSceneSolves) {
  for (const auto& r : registry()) {
    std::string name = r["name"];
    gui::AppState app;
    ASSERT_TRUE(app.open_robot_preset(name)) << name;
    ASSERT_FALSE(app.objectives.empty()) << name;
    gui::SolverDriver driver;
    driver.init(app);
    for (std::size_t i = 0; i < app.objectives.size(); ++i) {
      const gui::WorkbenchObjective& o = app.objectives[i];
      if (!o.has_target() || o.spec.params.hard) continue;
      Transform<double> t = o.target;
      // toward the robot's base and sideways: stays in reach, and in the planar arm's plane
      t.p.x -= 0.02;
      t.p.y += 0.01;
      app.set_target(int(i), t);
    }
    for (int f = 0; f < 200; ++f) {
      ++app.frame;
      driver.step_frame(app);
    }
    for (double v : app.joint_q) ASSERT_TRUE(std::isfinite(v)) << name;
    for (std::size_t i = 0; i < app.objectives.size(); ++i) {
      const gui::WorkbenchObjective& o = app.objectives[i];
      if (!o.enabled() || !o.has_target()) continue;
      EXPECT_LT(o.status.position_error, 5e-3) << name << " objective " << o.name();
      EXPECT_LT(o.status.rotation_error, 0.05) << name << " objective " << o.name();
    }
  }
}

}  // namespace
}  // namespace ikwb
