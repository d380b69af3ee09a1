// Tests of Model and ModelBuilder: coordinate layout (nq vs nv), limits, reference
// configurations, articulations, and the validation errors of finalize().
#include "engine/core/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "core/test_models.hpp"

namespace ikwb {
namespace {

using test::all_joint_types;
using test::planar_arm;
using test::tf;

constexpr double kInf = std::numeric_limits<double>::infinity();

// finalize() must throw a ModelError whose message contains every fragment
void expect_model_error(const std::function<void(ModelBuilder&)>& build,
                        std::initializer_list<const char*> fragments) {
  ModelBuilder b;
  b.model().name = "bad";
  build(b);
  try {
    b.finalize();
    ADD_FAILURE() << "finalize() did not throw";
  } catch (const ModelError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("model 'bad'"), std::string::npos) << msg;
    for (const char* f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << msg;
  }
}

TEST(Model, JointTypeCounts) {
  EXPECT_EQ(joint_type_coord_count(JointType::kFixed), 0);
  EXPECT_EQ(joint_type_dof_count(JointType::kFixed), 0);
  for (JointType t : {JointType::kRevolute, JointType::kContinuous, JointType::kPrismatic}) {
    EXPECT_EQ(joint_type_coord_count(t), 1);
    EXPECT_EQ(joint_type_dof_count(t), 1);
  }
  EXPECT_EQ(joint_type_coord_count(JointType::kBall), 4);
  EXPECT_EQ(joint_type_dof_count(JointType::kBall), 3);
  EXPECT_EQ(joint_type_coord_count(JointType::kFree), 7);
  EXPECT_EQ(joint_type_dof_count(JointType::kFree), 6);
  EXPECT_STREQ(joint_type_name(JointType::kFree), "free");
  EXPECT_STREQ(joint_type_name(JointType::kContinuous), "continuous");
  EXPECT_STREQ(joint_type_name(JointType::kPrismatic), "prismatic");
  EXPECT_STREQ(joint_type_name(JointType::kPlanar), "planar");
}

TEST(Model, ZooLayoutNqVersusNv) {
  Model m = all_joint_types();
  ASSERT_EQ(m.joint_count, 9);
  ASSERT_EQ(m.body_count, 9);
  // free 7/6, rev 1/1, pris 1/1, ball 4/3, cont 1/1, fixed 0/0, rev 1/1, mimic 0/0, planar 3/3
  EXPECT_EQ(m.coord_count, 18);
  EXPECT_EQ(m.dof_count, 16);
  EXPECT_EQ(m.joint_q_start, (std::vector<int>{0, 7, 8, 9, 13, 14, 14, 15, 15, 18}));
  EXPECT_EQ(m.joint_qd_start, (std::vector<int>{0, 6, 7, 8, 11, 12, 12, 13, 13, 16}));
  EXPECT_EQ(m.dof_joint, (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 4, 6, 8, 8, 8}));
  EXPECT_EQ(m.joint_ancestor, (std::vector<int>{-1, 0, 1, 2, 3, 4, 1, 5, 2}));
  EXPECT_EQ(m.body_joint, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(m.joint_mimic[7], 6);
  EXPECT_EQ(m.joint_mimic_multiplier[7], -0.5);
  EXPECT_EQ(m.joint_mimic_offset[7], 0.1);
  for (int j = 0; j < m.joint_count; ++j) EXPECT_LT(m.joint_ancestor[j], j);
}

TEST(Model, DofLimits) {
  Model m = all_joint_types();
  std::vector<double> lo = {-kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -2,    -0.3,
                            -kInf, -kInf, -kInf, -kInf, -1.5,  -kInf, -kInf, -kInf};
  std::vector<double> hi = {kInf, kInf, kInf, kInf, kInf, kInf, 2,    0.5,
                            kInf, kInf, kInf, kInf, 1.5,  kInf, kInf, kInf};  // planar: none
  EXPECT_EQ(m.dof_lower, lo);
  EXPECT_EQ(m.dof_upper, hi);
  EXPECT_TRUE(m.has_limits(6));
  EXPECT_TRUE(m.has_limits(7));
  EXPECT_FALSE(m.has_limits(0));
  EXPECT_FALSE(m.has_limits(11));  // continuous
  EXPECT_FALSE(m.has_limits(8));   // ball
}

TEST(Model, LinearDofs) {
  Model m = all_joint_types();
  // free (x y z linear, then rotation), revolute, prismatic, ball, continuous, revolute, planar
  // (x y linear, then the angle)
  std::vector<int> linear;
  for (int d = 0; d < m.dof_count; ++d)
    if (m.dof_is_linear(d)) linear.push_back(d);
  EXPECT_EQ(linear, (std::vector<int>{0, 1, 2, 7, 13, 14}));
}

TEST(Model, ContinuousIgnoresLimitsAndHalfLimitsAreUnlimited) {
  ModelBuilder b;
  int a = b.add_body("a"), c = b.add_body("c");
  JointSpec j1{"cont", JointType::kContinuous, -1, a};
  j1.lower = 1, j1.upper = -1;  // ignored for continuous joints, not an error
  b.add_joint(j1);
  JointSpec j2{"half", JointType::kRevolute, a, c};
  j2.upper = 1.0;
  b.add_joint(j2);
  Model m = b.finalize();
  EXPECT_FALSE(m.has_limits(0));
  EXPECT_EQ(m.dof_lower[1], -kInf);
  EXPECT_EQ(m.dof_upper[1], 1.0);
  EXPECT_FALSE(m.has_limits(1));
}

TEST(Model, NeutralAndMiddleConfigurations) {
  Model m = all_joint_types();
  std::vector<double> n = m.neutral_configuration();
  ASSERT_EQ(int(n.size()), m.coord_count);
  std::vector<double> want(18, 0.0);
  want[6] = 1;   // free quaternion w
  want[12] = 1;  // ball quaternion w
  EXPECT_EQ(n, want);
  std::vector<double> mid = m.middle_configuration();
  want[8] = 0.5 * (-0.3 + 0.5);  // prismatic centre; revolutes are symmetric
  EXPECT_EQ(mid, want);

  // zero outside the limits is clamped into them
  ModelBuilder b;
  int a = b.add_body("a"), c = b.add_body("c");
  JointSpec j1{"up", JointType::kRevolute, -1, a};
  j1.lower = 0.2, j1.upper = 1.0;
  b.add_joint(j1);
  JointSpec j2{"down", JointType::kPrismatic, a, c};
  j2.lower = -1.0, j2.upper = -0.5;
  b.add_joint(j2);
  Model m2 = b.finalize();
  EXPECT_EQ(m2.neutral_configuration(), (std::vector<double>{0.2, -0.5}));
  EXPECT_EQ(m2.middle_configuration(), (std::vector<double>{0.6, -0.75}));
}

TEST(Model, FindByName) {
  Model m = planar_arm();
  EXPECT_EQ(m.find_body("link2"), 2);
  EXPECT_EQ(m.find_body("nope"), -1);
  EXPECT_EQ(m.find_joint("j3"), 3);
  EXPECT_EQ(m.find_joint("nope"), -1);
  EXPECT_EQ(m.coord_count, 3);
  EXPECT_EQ(m.dof_count, 3);
}

TEST(Model, FinalizeNormalisesAxesAndOrigins) {
  ModelBuilder b;
  int a = b.add_body("a");
  JointSpec j{"j", JointType::kPrismatic, -1, a};
  j.axis = {0, 3, 4};
  j.X_p.q = {0, 0, 2, 0};
  j.X_c.q = {0, 0, 0, 5};
  b.add_joint(j);
  Model m = b.finalize();
  EXPECT_NEAR(m.joint_axis[0].y, 0.6, 1e-15);
  EXPECT_NEAR(m.joint_axis[0].z, 0.8, 1e-15);
  EXPECT_EQ(m.joint_X_p[0].q.z, 1.0);
  EXPECT_EQ(m.joint_X_c[0].q.w, 1.0);
}

TEST(Model, ArticulationsAndView) {
  ModelBuilder b;
  b.begin_articulation("left");
  int a = b.add_body("a"), c = b.add_body("c");
  b.add_joint({"ja", JointType::kRevolute, -1, a});
  b.add_joint({"jc", JointType::kPrismatic, a, c});
  b.begin_articulation("right");
  int d = b.add_body("d");
  b.add_joint({"jd", JointType::kBall, -1, d});
  Model m = b.finalize();
  EXPECT_EQ(m.articulation_count, 2);
  EXPECT_EQ(m.articulation_start, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(m.articulation_name, (std::vector<std::string>{"left", "right"}));
  EXPECT_EQ(m.joint_articulation, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(m.coord_count, 6);
  EXPECT_EQ(m.dof_count, 5);

  ModelView<double> v = m.view();
  EXPECT_EQ(v.joint_count, 3);
  EXPECT_EQ(v.body_count, 3);
  EXPECT_EQ(v.coord_count, 6);
  EXPECT_EQ(v.dof_count, 5);
  EXPECT_EQ(v.joint_type, m.joint_type.data());
  EXPECT_EQ(v.joint_q_start[3], 6);
  EXPECT_EQ(v.body_joint[2], 2);

  ModelArrays<float> f(m);
  EXPECT_EQ(f.view.joint_count, 3);
  EXPECT_EQ(f.view.dof_count, 5);
  EXPECT_EQ(f.view.joint_child, m.joint_child.data());
  EXPECT_EQ(f.view.joint_axis[0].x, 1.0f);
}

TEST(Model, DefaultArticulationAndEmptyModel) {
  Model m = planar_arm();
  EXPECT_EQ(m.articulation_count, 1);
  EXPECT_EQ(m.articulation_start, (std::vector<int>{0, 5}));
  ModelBuilder b;
  Model e = b.finalize();
  EXPECT_EQ(e.articulation_count, 1);
  EXPECT_EQ(e.coord_count, 0);
  EXPECT_EQ(e.articulation_start, (std::vector<int>{0, 0}));
}

TEST(ModelBuilder, RejectsDuplicateNames) {
  expect_model_error(
      [](ModelBuilder& b) {
        b.add_body("link");
        b.add_body("link");
      },
      {"duplicate body name 'link'"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a"), c = b.add_body("c");
        b.add_joint({"j", JointType::kRevolute, -1, a});
        b.add_joint({"j", JointType::kRevolute, a, c});
      },
      {"duplicate joint name 'j'"});
}

TEST(ModelBuilder, RejectsBadAxes) {
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        JointSpec j{"hinge", JointType::kRevolute, -1, a};
        j.axis = {0, 0, 0};
        b.add_joint(j);
      },
      {"joint 'hinge'", "zero axis"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        JointSpec j{"slide", JointType::kPrismatic, -1, a};
        j.axis = {0, std::nan(""), 1};
        b.add_joint(j);
      },
      {"joint 'slide'", "non-finite axis"});
}

TEST(ModelBuilder, RejectsBadLimits) {
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        JointSpec j{"elbow", JointType::kRevolute, -1, a};
        j.lower = 1.0, j.upper = -1.0;
        b.add_joint(j);
      },
      {"joint 'elbow'", "inverted limits"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        JointSpec j{"slide", JointType::kPrismatic, -1, a};
        j.lower = std::nan("");
        b.add_joint(j);
      },
      {"joint 'slide'", "NaN limit"});
}

TEST(ModelBuilder, RejectsNonTopologicalOrder) {
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a"), c = b.add_body("c");
        b.add_joint({"second", JointType::kRevolute, a, c});  // a is not attached yet
        b.add_joint({"first", JointType::kRevolute, -1, a});
      },
      {"joint 'second'", "parent body 'a'", "topological order"});
}

TEST(ModelBuilder, RejectsBodyWithTwoParentJoints) {
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a"), c = b.add_body("c");
        b.add_joint({"ja", JointType::kRevolute, -1, a});
        b.add_joint({"j1", JointType::kRevolute, a, c});
        b.add_joint({"j2", JointType::kFixed, -1, c});
      },
      {"body 'c'", "child of two joints", "'j1'", "'j2'"});
}

TEST(ModelBuilder, RejectsBadBodies) {
  expect_model_error(
      [](ModelBuilder& b) {
        b.add_joint({"orphan", JointType::kFixed, -1, -1});
      },
      {"joint 'orphan'", "no valid child"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        b.add_joint({"j", JointType::kFixed, 5, a});
      },
      {"joint 'j'", "invalid parent"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        b.add_joint({"loop", JointType::kRevolute, a, a});
      },
      {"joint 'loop'", "to itself"});
}

TEST(ModelBuilder, RejectsNonFiniteOriginAndUnknownType) {
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        b.add_joint({"j", JointType::kFixed, -1, a, tf(0, std::nan(""), 0)});
      },
      {"joint 'j'", "non-finite origin"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a");
        b.add_joint({"weird", JointType(9), -1, a});
      },
      {"joint 'weird'", "unknown joint type"});
}

TEST(ModelBuilder, RejectsBadMimics) {
  auto chain = [](ModelBuilder& b, JointType second, int mimic_of, JointType third) {
    int a = b.add_body("a"), c = b.add_body("c"), d = b.add_body("d");
    b.add_joint({"j0", JointType::kRevolute, -1, a});
    JointSpec j1{"j1", second, a, c};
    b.add_joint(j1);
    JointSpec j2{"j2", third, c, d};
    j2.mimic = mimic_of;
    b.add_joint(j2);
  };
  expect_model_error(
      [&](ModelBuilder& b) { chain(b, JointType::kRevolute, 7, JointType::kRevolute); },
      {"joint 'j2'", "unknown joint"});
  expect_model_error([&](ModelBuilder& b) { chain(b, JointType::kBall, 1, JointType::kRevolute); },
                     {"joint 'j2'", "must be revolute"});
  expect_model_error([&](ModelBuilder& b) { chain(b, JointType::kRevolute, 0, JointType::kBall); },
                     {"joint 'j2'", "must be revolute"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a"), c = b.add_body("c");
        JointSpec j0{"j0", JointType::kRevolute, -1, a};
        j0.mimic = 1;
        b.add_joint(j0);
        JointSpec j1{"j1", JointType::kRevolute, a, c};
        j1.mimic = 0;
        b.add_joint(j1);
      },
      {"joint 'j0'", "itself a mimic joint"});
  expect_model_error(
      [](ModelBuilder& b) {
        int a = b.add_body("a"), c = b.add_body("c");
        b.add_joint({"j0", JointType::kRevolute, -1, a});
        JointSpec j1{"j1", JointType::kRevolute, a, c};
        j1.mimic = 0;
        j1.mimic_multiplier = std::nan("");
        b.add_joint(j1);
      },
      {"joint 'j1'", "non-finite mimic"});
}

TEST(Model, ContinuousJointsArePeriodicUnlessAMimicTakesAFractionOfATurn) {
  ModelBuilder b;
  std::vector<int> bodies;
  for (const char* n : {"a", "b", "c", "d", "e", "f", "g", "h", "i"})
    bodies.push_back(b.add_body(n));
  auto joint = [&](const char* name, JointType t, int parent, int child, int mimic = -1,
                   double multiplier = 1) {
    JointSpec s{name, t, parent < 0 ? -1 : bodies[parent], bodies[child]};
    s.mimic = mimic;
    s.mimic_multiplier = multiplier;
    return b.add_joint(s);
  };
  int plain = joint("plain", JointType::kContinuous, -1, 0);
  int rev = joint("rev", JointType::kRevolute, 0, 1);
  int halved = joint("halved", JointType::kContinuous, 1, 2);
  int doubled = joint("doubled", JointType::kContinuous, 2, 3);
  int slid = joint("slid", JointType::kContinuous, 3, 4);
  int half = joint("half", JointType::kContinuous, 4, 5, halved, 0.5);
  int twice = joint("twice", JointType::kRevolute, 5, 6, doubled, -2.0);
  int slide = joint("slide", JointType::kPrismatic, 6, 7, slid, 1.0);
  int planar = joint("planar", JointType::kPlanar, 7, 8);
  Model m = b.finalize();
  EXPECT_EQ(m.joint_periodic[plain], 1);
  EXPECT_EQ(m.joint_periodic[rev], 0);
  // a turn of its source turns a mimic by a whole number of turns, or by half of one
  EXPECT_EQ(m.joint_periodic[doubled], 1);
  EXPECT_EQ(m.joint_periodic[halved], 0);
  // a prismatic mimic moves 2 pi m with a turn of its source
  EXPECT_EQ(m.joint_periodic[slid], 0);
  // mimic joints have no coordinate of their own
  EXPECT_EQ(m.joint_periodic[half], 0);
  EXPECT_EQ(m.joint_periodic[twice], 0);
  EXPECT_EQ(m.joint_periodic[slide], 0);
  // a planar joint's turn, its third coordinate
  EXPECT_EQ(m.joint_periodic[planar], 1);
  EXPECT_EQ(periodic_coord(m.view(), planar), m.joint_q_start[planar] + 2);
  EXPECT_EQ(periodic_coord(m.view(), plain), m.joint_q_start[plain]);
  EXPECT_EQ(periodic_coord(m.view(), rev), -1);
  EXPECT_EQ(m.view().joint_periodic, m.joint_periodic.data());
  EXPECT_EQ(ModelArrays<float>(m).view.joint_periodic, m.joint_periodic.data());
}

TEST(ModelBuilder, MimicHasNoCoordinates) {
  ModelBuilder b;
  int a = b.add_body("a"), c = b.add_body("c");
  b.add_joint({"j0", JointType::kPrismatic, -1, a});
  JointSpec j1{"j1", JointType::kRevolute, a, c};
  j1.mimic = 0;
  j1.lower = -1, j1.upper = 1;
  b.add_joint(j1);
  Model m = b.finalize();
  EXPECT_EQ(m.coord_count, 1);
  EXPECT_EQ(m.dof_count, 1);
  EXPECT_EQ(m.joint_q_start, (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(m.dof_joint, (std::vector<int>{0}));
}

}  // namespace
}  // namespace ikwb
