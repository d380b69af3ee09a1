// IkProblem: layout of residual rows, targets updated in place, versions, and input checks
// (every bad input throws std::invalid_argument naming the argument).
#include "solver/problem.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/test_models.hpp"
#include "solver/test_robots.hpp"

namespace ikwb {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// runs f, expects std::invalid_argument whose message contains every word in `words`
template <class F>
void expect_invalid(F f, std::initializer_list<const char*> words) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning " << *words.begin();
  } catch (const std::invalid_argument& e) {
    std::string msg = e.what();
    for (const char* w : words) EXPECT_NE(msg.find(w), std::string::npos) << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

struct ProblemFixture : ::testing::Test {
  std::shared_ptr<Model> model = std::make_shared<Model>(test::panda());
  int tcp = model->find_body("panda_hand_tcp");
};

TEST_F(ProblemFixture, ResidualLayoutIsContiguous) {
  IkProblem pr(model, 3);
  EXPECT_EQ(pr.residual_count(), 0);
  int a = pr.add_position(tcp);
  int b = pr.add_pose(tcp);
  int c = pr.add_joint_limits();
  int d = pr.add_posture();
  int e = pr.add_min_distance(tcp, {0, 0, 0}, 1, {0, 0, 0}, 0.1);
  int f = pr.add_relative_fixed(2, tcp, transform_identity<double>());
  int g = pr.add_rotation(tcp);
  int h = pr.add_relative_ball(2, {0, 0, 0}, tcp, {0, 0, 0});
  int nv = model->dof_count;
  const int dims[] = {3, 6, nv, nv, 1, 6, 3, 3};
  int start = 0;
  for (int i : {a, b, c, d, e, f, g, h}) {
    EXPECT_EQ(pr.objective(i).params.start, start) << i;
    EXPECT_EQ(pr.objective(i).params.dim, dims[i]) << i;
    EXPECT_EQ(pr.param_array()[i].start, start);
    start += dims[i];
  }
  EXPECT_EQ(pr.residual_count(), start);
  EXPECT_EQ(pr.objective_count(), 8);
  EXPECT_EQ(pr.target_array().size(), 8u * 3u);
  EXPECT_EQ(pr.rest_array().size(), 8u * model->coord_count);
  ProblemView<double> v = pr.view();
  EXPECT_EQ(v.residual_count, start);
  EXPECT_EQ(v.problem_count, 3);
  EXPECT_EQ(v.objective_count, 8);
}

TEST_F(ProblemFixture, DefaultsAndHardFlags) {
  IkProblem pr(model);
  EXPECT_FALSE(pr.objective(pr.add_position(tcp)).params.hard);
  EXPECT_TRUE(pr.objective(pr.add_position(tcp, {0, 0, 0}, {1.0, true})).params.hard);
  // relative and distance objectives default to hard constraints (adam's default weight is
  // a large penalty; we make them constraints)
  EXPECT_TRUE(
      pr.objective(pr.add_relative_fixed(1, tcp, transform_identity<double>())).params.hard);
  EXPECT_TRUE(pr.objective(pr.add_relative_ball(1, {0, 0, 0}, tcp, {0, 0, 0})).params.hard);
  EXPECT_TRUE(pr.objective(pr.add_min_distance(1, {0, 0, 0}, tcp, {0, 0, 0}, 0.2)).params.hard);
  int post = pr.add_posture();
  EXPECT_DOUBLE_EQ(pr.objective(post).params.weight, 0.1);
  EXPECT_EQ(pr.objective(post).rest_q, model->neutral_configuration());
  const Transform<double>& t = pr.target(0, 0);
  EXPECT_EQ(t.p.x, 0.0);
  EXPECT_EQ(t.q.w, 1.0);
}

TEST_F(ProblemFixture, TargetsUpdateInPlaceAndSurviveEdits) {
  IkProblem pr(model, 2);
  int a = pr.add_position(tcp);
  int b = pr.add_pose(tcp);
  uint64_t sv = pr.structure_version(), v = pr.version();
  pr.set_target_position(a, 1, {1, 2, 3});
  pr.set_target_positions(b, {{4, 5, 6}, {7, 8, 9}});
  Quat<double> r = quat_from_rpy(0.1, 0.2, 0.3);
  pr.set_target_rotation(b, 0, r);
  EXPECT_EQ(pr.structure_version(), sv);  // targets do not change the structure
  EXPECT_GT(pr.version(), v);
  EXPECT_EQ(pr.target(a, 1).p.z, 3.0);
  EXPECT_EQ(pr.target(b, 0).p.x, 4.0);
  EXPECT_EQ(pr.target(b, 1).p.y, 8.0);
  EXPECT_NEAR(pr.target(b, 0).q.z, r.z, 1e-15);
  // a new objective keeps the old targets; removing one shifts the later ones down
  int c = pr.add_position(tcp);
  pr.set_target_position(c, 0, {-1, -2, -3});
  EXPECT_GT(pr.structure_version(), sv);
  EXPECT_EQ(pr.target(a, 1).p.z, 3.0);
  EXPECT_EQ(pr.target(b, 1).p.y, 8.0);
  pr.remove_objective(a);
  EXPECT_EQ(pr.objective_count(), 2);
  EXPECT_EQ(pr.target(0, 1).p.y, 8.0);
  EXPECT_EQ(pr.target(1, 0).p.x, -1.0);
  EXPECT_EQ(pr.objective(0).params.start, 0);
  EXPECT_EQ(pr.objective(1).params.start, 6);
  EXPECT_EQ(pr.residual_count(), 9);
  // set_target_poses replaces all, renormalising slightly drifted quaternions
  Transform<double> x{{1, 1, 1}, {0, 0, 0, 1.0005}};
  pr.set_target_poses(0, {x, x});
  EXPECT_NEAR(quat_norm(pr.target(0, 1).q), 1.0, 1e-15);
}

TEST_F(ProblemFixture, RestsSurviveRemovalOfEarlierObjectives) {
  IkProblem pr(model);
  int a = pr.add_position(tcp);
  std::vector<double> rest = model->middle_configuration();
  int p = pr.add_posture(rest);
  pr.remove_objective(a);
  (void)p;
  std::vector<double> got(pr.rest_array().begin(), pr.rest_array().begin() + model->coord_count);
  EXPECT_EQ(got, rest);
  rest[2] = 0.4;
  pr.set_rest(0, rest);
  EXPECT_EQ(pr.rest_array()[2], 0.4);
  EXPECT_EQ(pr.objective(0).rest_q[2], 0.4);
}

TEST_F(ProblemFixture, SettingsKeepLayout) {
  IkProblem pr(model);
  int a = pr.add_pose(tcp);
  uint64_t sv = pr.structure_version();
  pr.set_weight(a, 3.0);
  pr.set_axis_weights(a, {1, 0, 2}, {0.5, 0.5, 0});
  pr.set_hard(a, true);
  pr.set_enabled(a, false);
  pr.set_name(a, "grip");
  EXPECT_EQ(pr.structure_version(), sv);
  const auto& p = pr.param_array()[a];
  EXPECT_EQ(p.weight, 3.0);
  EXPECT_EQ(p.position_weights.z, 2.0);
  EXPECT_EQ(p.rotation_weights.x, 0.5);
  EXPECT_TRUE(p.hard);
  EXPECT_FALSE(p.enabled);
  EXPECT_EQ(pr.objective(a).name, "grip");
  EXPECT_EQ(pr.objective(a).params.weight, 3.0);
}

TEST_F(ProblemFixture, DofMask) {
  IkProblem pr(model);
  EXPECT_TRUE(pr.dof_free(3));
  std::vector<uint8_t> mask(model->dof_count, 1);
  mask[3] = 0;
  pr.set_dof_mask(mask);
  EXPECT_FALSE(pr.dof_free(3));
  EXPECT_TRUE(pr.dof_free(2));
  pr.set_dof_mask({});
  EXPECT_TRUE(pr.dof_free(3));
}

TEST_F(ProblemFixture, CustomObjective) {
  IkProblem pr(model);
  EXPECT_FALSE(pr.has_custom());
  int c =
      pr.add_custom(make_custom_objective(2, [](const Model&, const auto* q, const auto*, auto* r) {
        r[0] = q[0];
        r[1] = q[1] * q[1];
      }));
  EXPECT_TRUE(pr.has_custom());
  EXPECT_EQ(pr.objective(c).params.dim, 2);
  EXPECT_TRUE(bool(pr.objective(c).custom->residual_dual));
  double q[7] = {3, 2, 0, 0, 0, 0, 0};
  double r[2];
  pr.objective(c).custom->residual(*model, q, nullptr, r);
  EXPECT_EQ(r[0], 3.0);
  EXPECT_EQ(r[1], 4.0);
  Dual<double> dq[7] = {{3, 0}, {2, 1}};
  Dual<double> dr[2];
  pr.objective(c).custom->residual_dual(*model, dq, nullptr, dr);
  EXPECT_EQ(dr[1].d, 4.0);
}

TEST_F(ProblemFixture, BadConstruction) {
  expect_invalid([] { IkProblem pr(nullptr); }, {"model"});
  expect_invalid([&] { IkProblem pr(model, 0); }, {"problem_count"});
}

// The model's default collision world is built once and shared by the problems on it (a large
// tree's pair list was built again for every target of `ikwb solve --sequential`); another model
// gets its own, and a world set anew gets a new identity
TEST_F(ProblemFixture, ProblemsOnOneModelShareItsDefaultCollisionWorld) {
  IkProblem a(model, 1), b(model, 4);
  EXPECT_EQ(&a.collision_world(), &b.collision_world());
  EXPECT_EQ(a.collision_world_id(), b.collision_world_id());
  auto other = std::make_shared<Model>(*model);
  IkProblem c(other, 1);
  EXPECT_NE(&c.collision_world(), &a.collision_world());
  EXPECT_NE(c.collision_world_id(), a.collision_world_id());
  const uint64_t default_id = a.collision_world_id();
  b.set_collision_world(a.collision_world());
  EXPECT_NE(b.collision_world_id(), default_id);
  IkProblem d(model, 2);
  EXPECT_EQ(d.collision_world_id(), default_id);
  d.share_collision_world(b);
  EXPECT_EQ(d.collision_world_id(), b.collision_world_id());
  EXPECT_EQ(&d.collision_world(), &b.collision_world());
  expect_invalid([&] { c.share_collision_world(b); }, {"share_collision_world", "model"});
}

TEST_F(ProblemFixture, OutOfRangeIndices) {
  IkProblem pr(model, 2);
  int a = pr.add_pose(tcp);
  expect_invalid([&] { pr.add_position(-1); }, {"link", "-1"});
  expect_invalid([&] { pr.add_position(model->body_count); }, {"link"});
  expect_invalid([&] { pr.add_rotation(99); }, {"link"});
  expect_invalid([&] { pr.add_pose(99); }, {"link"});
  expect_invalid([&] { pr.add_relative_ball(0, {0, 0, 0}, 99, {0, 0, 0}); }, {"link_b"});
  expect_invalid([&] { pr.add_relative_fixed(99, 0, transform_identity<double>()); },
                 {"add_relative_fixed", "link"});
  expect_invalid([&] { pr.add_min_distance(0, {0, 0, 0}, -3, {0, 0, 0}, 0.1); }, {"link_b"});
  expect_invalid([&] { pr.set_target_position(a + 1, 0, {0, 0, 0}); }, {"objective", "1"});
  expect_invalid([&] { pr.set_target_position(-1, 0, {0, 0, 0}); }, {"objective"});
  expect_invalid([&] { pr.set_target_position(a, 2, {0, 0, 0}); }, {"problem", "2"});
  expect_invalid([&] { pr.set_target_rotation(a, -1, {0, 0, 0, 1}); }, {"problem"});
  expect_invalid([&] { pr.set_target_pose(a, 5, transform_identity<double>()); }, {"problem"});
  expect_invalid([&] { pr.target(a, 2); }, {"problem"});
  expect_invalid([&] { pr.target(3, 0); }, {"objective"});
  expect_invalid([&] { pr.objective(3); }, {"objective"});
  expect_invalid([&] { pr.remove_objective(3); }, {"objective"});
  expect_invalid([&] { pr.set_weight(3, 1.0); }, {"objective"});
  expect_invalid([&] { pr.set_hard(3, true); }, {"objective"});
  expect_invalid([&] { pr.set_enabled(-2, true); }, {"objective"});
  expect_invalid([&] { pr.set_axis_weights(3, {1, 1, 1}, {1, 1, 1}); }, {"objective"});
  expect_invalid([&] { pr.set_rest(3, model->neutral_configuration()); }, {"objective"});
  expect_invalid([&] { pr.set_name(3, "x"); }, {"objective"});
}

TEST_F(ProblemFixture, NonFiniteTargets) {
  IkProblem pr(model, 2);
  int a = pr.add_pose(tcp);
  expect_invalid([&] { pr.set_target_position(a, 0, {kNan, 0, 0}); }, {"position", "NaN"});
  expect_invalid([&] { pr.set_target_position(a, 0, {0, kInf, 0}); }, {"position"});
  expect_invalid([&] { pr.set_target_positions(a, {{0, 0, 0}, {0, 0, -kInf}}); }, {"position"});
  expect_invalid([&] { pr.set_target_pose(a, 0, {{kNan, 0, 0}, {0, 0, 0, 1}}); }, {"position"});
  expect_invalid([&] { pr.set_target_pose(a, 0, {{0, 0, 0}, {0, kNan, 0, 1}}); }, {"quaternion"});
  expect_invalid([&] { pr.set_target_rotation(a, 0, {kInf, 0, 0, 1}); }, {"quaternion"});
  Transform<double> ok = transform_identity<double>();
  expect_invalid([&] { pr.set_target_poses(a, {ok, {{0, kNan, 0}, {0, 0, 0, 1}}}); }, {"position"});
  // a failed update leaves the targets as they were
  EXPECT_EQ(pr.target(a, 0).p.x, 0.0);
  EXPECT_EQ(pr.target(a, 0).q.w, 1.0);
}

TEST_F(ProblemFixture, UnitQuaternionCheck) {
  IkProblem pr(model);
  int a = pr.add_pose(tcp);
  expect_invalid([&] { pr.set_target_rotation(a, 0, {0, 0, 0, 2}); }, {"quaternion", "unit"});
  expect_invalid([&] { pr.set_target_rotation(a, 0, {0, 0, 0, 0}); }, {"unit"});
  expect_invalid([&] { pr.set_target_pose(a, 0, {{0, 0, 0}, {1, 1, 0, 0}}); }, {"unit"});
  expect_invalid([&] { pr.set_target_poses(a, {{{0, 0, 0}, {0.5, 0, 0, 0.5}}}); }, {"unit"});
  expect_invalid(
      [&] {
        pr.add_relative_fixed(1, 2, {{0, 0, 0}, {0, 0, 0, 1.1}});
      },
      {"relative", "unit"});
  // within 1e-3 of unit: accepted and renormalised
  pr.set_target_rotation(a, 0, {0, 0, 0, 1.0009});
  EXPECT_NEAR(pr.target(a, 0).q.w, 1.0, 1e-15);
}

TEST_F(ProblemFixture, WrongSizes) {
  IkProblem pr(model, 2);
  int a = pr.add_pose(tcp);
  expect_invalid([&] { pr.set_target_positions(a, {{0, 0, 0}}); }, {"positions", "problem_count"});
  expect_invalid([&] { pr.set_target_poses(a, {}); }, {"poses", "problem_count"});
  expect_invalid([&] { pr.add_posture({0, 0}); }, {"rest_q", "joint_coord_count"});
  int p = pr.add_posture();
  expect_invalid([&] { pr.set_rest(p, {1, 2, 3}); }, {"rest_q"});
  std::vector<double> bad = model->neutral_configuration();
  bad[1] = kNan;
  expect_invalid([&] { pr.add_posture(bad); }, {"rest_q", "NaN"});
  expect_invalid([&] { pr.set_rest(p, bad); }, {"rest_q"});
  expect_invalid([&] { pr.set_dof_mask(std::vector<uint8_t>(3, 1)); }, {"mask", "joint_dof_count"});
  expect_invalid([&] { pr.add_custom(CustomObjective{}); }, {"dim"});
  CustomObjective c;
  c.dim = 2;
  expect_invalid([&] { pr.add_custom(c); }, {"residual"});
}

TEST_F(ProblemFixture, BadWeightsOffsetsAndDistances) {
  IkProblem pr(model);
  int a = pr.add_pose(tcp);
  expect_invalid([&] { pr.add_position(tcp, {0, 0, 0}, {-1.0}); }, {"weight"});
  expect_invalid([&] { pr.add_pose(tcp, {0, 0, 0}, {kNan}); }, {"weight"});
  expect_invalid([&] { pr.add_position(tcp, {kNan, 0, 0}); }, {"offset"});
  expect_invalid([&] { pr.add_relative_ball(1, {0, 0, 0}, 2, {0, kInf, 0}); }, {"offset"});
  expect_invalid([&] { pr.set_weight(a, -0.5); }, {"weight"});
  expect_invalid([&] { pr.set_weight(a, kInf); }, {"weight"});
  expect_invalid([&] { pr.set_axis_weights(a, {1, -1, 1}, {1, 1, 1}); }, {"weights"});
  expect_invalid([&] { pr.set_axis_weights(a, {1, 1, 1}, {kNan, 1, 1}); }, {"weights"});
  expect_invalid([&] { pr.add_min_distance(1, {0, 0, 0}, 2, {0, 0, 0}, -0.1); }, {"distance"});
  expect_invalid([&] { pr.add_min_distance(1, {0, 0, 0}, 2, {0, 0, 0}, kNan); }, {"distance"});
  expect_invalid([&] { pr.add_relative_fixed(1, 2, {{kNan, 0, 0}, {0, 0, 0, 1}}); }, {"relative"});
  // nothing was added by the failed calls
  EXPECT_EQ(pr.objective_count(), 1);
  // a direction whose square overflows is still a direction (it came out zero, and the
  // workbench failed on it later); one whose square underflows to nothing is refused
  Objective o;
  o.params.type = ObjectiveType::kAxisAlign;
  o.params.link = tcp;
  o.params.direction = {0, 1e200, 1e200};
  const int d = pr.add_objective(o);
  EXPECT_NEAR(pr.objective(d).params.direction.y, std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(pr.objective(d).params.direction.z, std::sqrt(0.5), 1e-15);
  o.params.direction = {1e-200, 0, 0};
  expect_invalid([&] { pr.add_objective(o); }, {"direction", "non-zero"});
}

TEST(ProblemZoo, PostureOnFloatingModel) {
  auto model = std::make_shared<Model>(test::all_joint_types());
  IkProblem pr(model);
  int p = pr.add_posture();
  EXPECT_EQ(pr.objective(p).params.dim, model->dof_count);
  EXPECT_EQ(int(pr.objective(p).rest_q.size()), model->coord_count);
  int l = pr.add_joint_limits();
  EXPECT_EQ(pr.objective(l).params.dim, model->dof_count);
}

}  // namespace
TEST(ObjectiveFkJoints, TheObjectivesLinksAndTheirAncestorsOnly) {
  auto model = std::make_shared<const Model>(test::two_pandas());
  const Model& m = *model;
  const int left = m.find_body("left_hand_tcp"), right = m.find_body("right_hand_tcp");
  IkProblem pr(model, 1);
  pr.add_posture();  // reads no body
  const int hand = pr.add_pose(left);
  const std::vector<int> joints = objective_fk_joints(pr);
  // exactly the joints on the way from the world to the left hand, in model order
  std::vector<int> want;
  for (int j = 0; j < m.joint_count; ++j) {
    bool on_path = false;
    for (int b = left; b >= 0 && !on_path;) {
      on_path = m.joint_child[j] == b;
      b = m.body_joint[b] >= 0 ? m.joint_parent[m.body_joint[b]] : -1;
    }
    if (on_path) want.push_back(j);
  }
  EXPECT_EQ(joints, want);
  ASSERT_LT(joints.size(), std::size_t(m.joint_count));

  // FK over the list: the left arm's poses as full FK gives them, the right arm untouched
  std::vector<double> q(m.coord_count);
  for (int i = 0; i < m.coord_count; ++i) q[i] = 0.1 * (i + 1);
  std::vector<Transform<double>> full(m.body_count), listed(m.body_count);
  const Transform<double> sentinel = {{7, 7, 7}, {0, 0, 0, 1}};
  for (auto& x : listed) x = sentinel;
  ModelView<double> v = m.view();
  fk_row(v, q.data(), full.data());
  fk_row_joints(v, q.data(), listed.data(), joints.data(), int(joints.size()));
  for (int j : joints) {
    const int b = m.joint_child[j];
    EXPECT_EQ(std::memcmp(&listed[b], &full[b], sizeof(Transform<double>)), 0) << m.body_name[b];
  }
  EXPECT_EQ(std::memcmp(&listed[right], &sentinel, sizeof(Transform<double>)), 0);

  // the other hand too: every joint, so FK stays whole (an empty list); disabled, it is out
  const int other = pr.add_position(right);
  EXPECT_TRUE(objective_fk_joints(pr).empty());
  pr.set_enabled(other, false);
  EXPECT_EQ(objective_fk_joints(pr), want);
  // an objective that reads every body (the centre of mass) leaves FK whole
  Objective com;
  com.params.type = ObjectiveType::kCom;
  pr.add_objective(com);
  EXPECT_TRUE(objective_fk_joints(pr).empty());
  pr.set_enabled(hand, false);
  pr.set_enabled(int(pr.objective_count()) - 1, false);
  EXPECT_TRUE(objective_fk_joints(pr).empty());  // nothing read: no list
}

// offsets below joint 1 and its TCP (1.0897 m: factor 1), the same arm at 1/400 of its size
// (the square of its reach over 0.5 m), a point off the link, and no position rows (1)
TEST(Problem, TheDampingScalesWithTheSquareOfAShortLeverArm) {
  const double panda_reach = 0.316 + 0.0825 + std::hypot(0.0825, 0.384) + 0.088 + 0.107 + 0.1034;
  auto model = std::make_shared<Model>(test::panda());
  IkProblem problem(model, 1);
  const int tcp = model->find_body("panda_hand_tcp");
  problem.add_pose(tcp);
  EXPECT_NEAR(position_reach(problem), panda_reach, 1e-12);
  EXPECT_EQ(damping_scale(problem), 1.0);

  auto tiny = std::make_shared<Model>(test::panda(0.0025));
  IkProblem small(tiny, 1);
  const int pose = small.add_pose(tiny->find_body("panda_hand_tcp"));
  EXPECT_NEAR(position_reach(small), 0.0025 * panda_reach, 1e-15);
  EXPECT_NEAR(damping_scale(small), std::pow(0.0025 * panda_reach / kDampedReach, 2), 1e-15);
  // a point 1 mm off the link lengthens the arm by its offset
  small.add_position(tiny->find_body("panda_link7"), {0.001, 0, 0});
  EXPECT_GT(position_reach(small), 0.0025 * panda_reach);
  // rotation rows alone scale with nothing
  IkProblem turn(tiny, 1);
  turn.add_rotation(tiny->find_body("panda_hand_tcp"));
  EXPECT_EQ(position_reach(turn), 0.0);
  EXPECT_EQ(damping_scale(turn), 1.0);
  small.set_enabled(pose, false);
  EXPECT_NEAR(position_reach(small), 0.0025 * (panda_reach - 0.107 - 0.1034) + 0.001, 1e-12);
}

}  // namespace ikwb
