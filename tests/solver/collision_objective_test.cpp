// The self_collision and world_collision objectives (solver/objective_collision.hpp) on the
// shipped Panda: raw rows, analytic Jacobians against finite differences and dual numbers,
// float against double, and IK that keeps the arm out of a box.
//
// Tolerances: as in objectives_test.cpp (vs central differences with h = 1e-6 at 1e-6 relative
// to 1 + |J|). Against a box or a cylinder the closest point on a link's segment comes from a
// golden-section search that brackets it to ~4e-9 of the segment; the Jacobian is the gradient at
// that point, so it differs from the derivative of the searched distance by up to ~1e-8
// (kDualTol). Inside a box or a cylinder the signed distance has kinks (where two faces are equally
// near), so rows of pairs that penetrate those obstacles are not compared.
// Float rows follow double ones to 2e-3 (as the other float Jacobians: float FK of a 1 m arm).
#include "solver/objective_collision.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/backend_common.hpp"
#include "solver/collision_memo.hpp"
#include "solver/problem.hpp"
#include "solver/solver.hpp"
#include "solver/solver_test_util.hpp"

namespace ikwb {
namespace {

constexpr double kDualTol = 1e-8;
constexpr double kFdTol = 1e-6;

std::shared_ptr<const Model> panda() {
  UrdfOptions opt;
  opt.load_meshes = false;
  return load_urdf_file(resolve_robot("panda"), opt).model;
}

Obstacle obstacle(const char* name, ShapeType type, Vec3<double> p, Quat<double> q = {0, 0, 0, 1}) {
  Obstacle o;
  o.name = name;
  o.type = type;
  o.size = {0.3, 0.2, 0.25};
  o.radius = 0.08;
  o.length = 0.3;
  o.pose = {p, normalize(q)};
  return o;
}

// one obstacle of each type around the arm's workspace
std::vector<Obstacle> obstacles() {
  std::vector<Obstacle> out = {
      obstacle("box", ShapeType::kBox, {0.45, 0.1, 0.35}, {0.1, 0.2, 0, 1}),
      obstacle("ball", ShapeType::kSphere, {0.3, -0.3, 0.6}),
      obstacle("pipe", ShapeType::kCapsule, {-0.3, 0.3, 0.5}, {0.7, 0, 0, 0.7}),
      obstacle("drum", ShapeType::kCylinder, {0.1, 0.45, 0.3}, {0, 0.3, 0, 1}),
  };
  Obstacle floor;
  floor.name = "floor";
  floor.type = ShapeType::kHalfSpace;
  floor.normal = {0, 0, 1};
  floor.offset = 0.05;
  out.push_back(floor);
  return out;
}

Objective collision_objective(ObjectiveType type, double margin) {
  Objective o;
  o.params.type = type;
  o.params.margin = margin;
  o.params.hard = objective_kind(type).hard;
  return o;
}

TEST(CollisionObjective, RowsAreTheClosestPairsSorted) {
  auto m = panda();
  IkProblem pr(m);
  pr.set_collision_world(make_collision_world(*m, {}, obstacles()));
  int os = pr.add_objective(collision_objective(ObjectiveType::kSelfCollision, 0.02));
  int ow = pr.add_objective(collision_objective(ObjectiveType::kWorldCollision, 0.05));
  EXPECT_EQ(pr.objective(os).params.dim, kCollisionRows);
  EXPECT_TRUE(pr.objective(ow).params.hard);  // the kinds' default
  std::vector<double> q = m->neutral_configuration();
  std::vector<double> rs = test::raw_rows(pr.view(), os, 0, q);
  std::vector<double> rw = test::raw_rows(pr.view(), ow, 0, q);
  // rows: margin - distance, closest first
  for (int k = 1; k < kCollisionRows; ++k) {
    EXPECT_GE(rs[k - 1], rs[k]);
    EXPECT_GE(rw[k - 1], rw[k]);
  }
  // the first world row is the closest pair of closest_distances (over world pairs)
  auto poses = test::body_poses(*m, q);
  double closest = 1e300;
  for (const BodyDistance& d : closest_distances(pr.collision_world(), poses.data()))
    if (d.obstacle >= 0) closest = std::min(closest, d.contact.distance);
  EXPECT_NEAR(rw[0], 0.05 - closest, 1e-12);
  // no obstacles: every world row is inactive
  IkProblem empty(m);
  int oe = empty.add_objective(collision_objective(ObjectiveType::kWorldCollision, 0.05));
  for (double r : test::raw_rows(empty.view(), oe, 0, q)) EXPECT_EQ(r, -1.0);
  // margins are checked
  EXPECT_THROW(pr.add_objective(collision_objective(ObjectiveType::kSelfCollision, -0.1)),
               std::invalid_argument);
}

// The kCollisionRows smallest pairs by (distance, index) over every pair, each pair's distance
// computed exactly: what closest_collision_pairs must return.
std::vector<std::pair<double, int>> brute_closest(const CollisionView<double>& c, bool self,
                                                  const std::vector<Transform<double>>& body) {
  std::vector<std::pair<double, int>> all;
  int ba, bb;
  for (int k = 0; k < collision_pair_count(c, self); ++k)
    all.push_back({collision_pair_contact(c, self, k, body.data(), &ba, &bb).distance, k});
  std::sort(all.begin(), all.end());
  all.resize(std::min<std::size_t>(all.size(), kCollisionRows));
  return all;
}

void expect_brute_closest(const CollisionView<double>& c, bool self,
                          const std::vector<Transform<double>>& body, const int* hint,
                          const std::string& what) {
  int pair[kCollisionRows];
  double dist[kCollisionRows];
  closest_collision_pairs(c, self, body.data(), pair, dist, hint);
  std::vector<std::pair<double, int>> want = brute_closest(c, self, body);
  for (int i = 0; i < kCollisionRows; ++i) {
    if (i >= int(want.size())) {
      EXPECT_EQ(pair[i], -1) << what << " row " << i;
      continue;
    }
    EXPECT_EQ(pair[i], want[i].second) << what << " row " << i;
    EXPECT_EQ(dist[i], want[i].first) << what << " row " << i;
  }
}

// The search finds the pairs that computing every pair finds, on the humanoid's self pairs (no
// SRDF) and its capsules against obstacles, at random configurations and at the neutral one (left
// and right mirror each other there, so pairs tie and the index decides), with no hint, the last
// search's pairs as the hint, and hints naming pairs that do not exist or one pair many times;
// also with more capsules than are cached (WorldCapsules computes the rest when read).
TEST(CollisionObjective, TheSearchFindsTheClosestPairsOfEveryPair) {
  UrdfOptions opt;
  opt.load_meshes = false;
  auto m = load_urdf_file(resolve_robot("humanoid"), opt).model;
  CollisionWorld world = make_collision_world(*m, {}, obstacles());
  ASSERT_GT(world.self_pair_count(), 3 * kBoundBlock);  // several blocks, the last one partial
  ASSERT_LT(int(world.capsules.size()), kCapsuleCache);
  // the capsules three times over, shifted, every pair of different bodies: uncached capsules
  CollisionWorld many = world;
  for (const Vec3<double>& shift :
       {Vec3<double>{0.03, -0.02, 0.05}, Vec3<double>{-0.04, 0.01, 0.02}})
    for (const LinkCapsule<double>& a : world.capsules) {
      LinkCapsule<double> b = a;
      b.p0 = b.p0 + shift;
      b.p1 = b.p1 + shift;
      many.capsules.push_back(b);
    }
  many.self_pairs.clear();
  for (int a = 0; a < int(many.capsules.size()); ++a)
    for (int b = a + 1; b < int(many.capsules.size()); ++b)
      if (many.capsules[a].body != many.capsules[b].body) {
        many.self_pairs.push_back(a);
        many.self_pairs.push_back(b);
      }
  ASSERT_GT(int(many.capsules.size()), kCapsuleCache);
  const CollisionView<double> views[2] = {collision_view(world), collision_view(many)};
  const int junk[kCollisionRows] = {1 << 30, -1, 3, 3, 3, 0, 5, 1};
  std::mt19937 rng(11);
  std::vector<double> q = m->neutral_configuration();
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<Transform<double>> body = test::body_poses(*m, q);
    for (int v = 0; v < 2; ++v)
      for (bool self : {true, false}) {
        const std::string what = "trial " + std::to_string(trial) + (v ? " many" : " humanoid") +
                                 (self ? " self" : " world");
        expect_brute_closest(views[v], self, body, nullptr, what + ", no hint");
        expect_brute_closest(views[v], self, body, junk, what + ", junk hint");
        // the pairs of a search a small step away
        std::vector<double> near = test::integrate(*m, q, test::random_dofs(*m, rng, 0.05));
        std::vector<Transform<double>> near_body = test::body_poses(*m, near);
        int hint[kCollisionRows];
        double hint_dist[kCollisionRows];
        closest_collision_pairs(views[v], self, near_body.data(), hint, hint_dist);
        expect_brute_closest(views[v], self, body, hint, what + ", hint from a step away");
      }
    q = test::integrate(*m, m->neutral_configuration(), test::random_dofs(*m, rng, 1.0));
  }
}

// The memo (exact-pose answers and pair lists) answers every search as computing every pair
// does, along a walk of small steps with jumps between them, on the humanoid's self pairs and
// its capsules against obstacles; the pair lists answer most of the small steps, and a list
// rebuilt with its search (search_and_list) is the one build_pair_list makes there.
TEST(CollisionObjective, TheMemoAnswersAsEveryPairAlongAWalk) {
  UrdfOptions opt;
  opt.load_meshes = false;
  auto m = load_urdf_file(resolve_robot("humanoid"), opt).model;
  CollisionWorld world = make_collision_world(*m, {}, obstacles());
  CollisionView<double> c = collision_view(world);
  const int nb = m->body_count;
  CollisionMemoStore<double> store;
  c.memo = store.use(c, 1, nb);
  const CollisionMemo<double>& memo = *c.memo;
  std::mt19937 rng(23);
  std::vector<double> q = m->neutral_configuration();
  int listed = 0, searches = 0, rebuilt = 0;
  for (int step = 0; step < 240; ++step) {
    const double size = step % 40 == 39 ? 0.8 : 0.003;  // a jump every 40 steps
    q = test::integrate(*m, q, test::random_dofs(*m, rng, size));
    const std::vector<Transform<double>> body = test::body_poses(*m, q);
    for (bool self : {true, false}) {
      const int set = self ? 0 : 1;
      const std::vector<Transform<double>> built(memo.built[set], memo.built[set] + nb);
      const bool was_listed = memo.listed[set];
      // twice at the same poses: the second answer is the memo's copy
      for (int again = 0; again < 2; ++again) {
        int pair[kCollisionRows];
        double dist[kCollisionRows];
        closest_collision_pairs_memo(c, self, body.data(), pair, dist);
        const std::vector<std::pair<double, int>> want = brute_closest(c, self, body);
        const std::string what = "step " + std::to_string(step) + (self ? " self" : " world");
        for (int i = 0; i < kCollisionRows; ++i) {
          EXPECT_EQ(pair[i], i < int(want.size()) ? want[i].second : -1) << what << " row " << i;
          if (i < int(want.size())) {
            EXPECT_EQ(dist[i], want[i].first) << what << " row " << i;
          }
        }
      }
      ++searches;
      // answered from the list: it was not rebuilt
      const bool kept =
          was_listed && std::equal(built.begin(), built.end(), memo.built[set],
                                   [](const Transform<double>& a, const Transform<double>& b) {
                                     return std::memcmp(&a, &b, sizeof(a)) == 0;
                                   });
      listed += kept;
      if (!kept && memo.listed[set]) {
        CollisionMemoStore<double> fresh;
        CollisionMemo<double>& ref = *fresh.use(c, 1, nb);
        build_pair_list(c, self, body.data(), memo.dist[set], kCollisionRows, ref);
        ASSERT_TRUE(ref.listed[set]);
        EXPECT_EQ(std::vector<int>(memo.list[set], memo.list[set] + memo.list_count[set]),
                  std::vector<int>(ref.list[set], ref.list[set] + ref.list_count[set]))
            << "step " << step << (self ? " self" : " world");
        EXPECT_EQ(memo.list_cut[set], ref.list_cut[set]);
        ++rebuilt;
      }
    }
  }
  EXPECT_GT(listed, searches / 2) << listed << " of " << searches;
  EXPECT_GT(rebuilt, 10);
}

TEST(CollisionObjective, AnalyticJacobiansMatchFiniteDifferencesAndDualNumbers) {
  auto m = panda();
  IkProblem pr(m);
  pr.set_collision_world(make_collision_world(*m, {}, obstacles()));
  // margins large enough that every row is a pair (all rows carry a Jacobian)
  pr.add_objective(collision_objective(ObjectiveType::kSelfCollision, 0.5));
  pr.add_objective(collision_objective(ObjectiveType::kWorldCollision, 0.5));
  std::mt19937 rng(3);
  const int nv = m->dof_count;
  int nonzero = 0;
  for (int i = 0; i < 12; ++i) {
    std::vector<double> q = m->middle_configuration();
    q = test::integrate(*m, q, test::random_dofs(*m, rng, 1.5));
    for (int oi = 0; oi < 2; ++oi) {
      std::string what = std::string(oi ? "world" : "self") + " config " + std::to_string(i);
      auto Ja = test::analytic_jacobian(pr.view(), oi, 0, q);
      auto Jf = test::fd_jacobian(pr.view(), oi, 0, q, 1e-6);
      auto Jd = test::dual_jacobian(pr.view(), oi, 0, q);
      // world rows in penetration (raw row > margin): zeroed in all three
      std::vector<double> raw = test::raw_rows(pr.view(), oi, 0, q);
      // the rows objective_jacobian gives with the Jacobian (from its one search of the closest
      // pairs) are objective_residual's, and the Jacobian is the same
      std::vector<Transform<double>> body = test::body_poses(*m, q);
      std::vector<double> J_with(Ja.size()), raw_with(kCollisionRows);
      objective_jacobian(pr.view(), oi, 0, q.data(), body.data(), J_with.data(), nv,
                         raw_with.data());
      EXPECT_EQ(raw_with, raw) << what;
      EXPECT_EQ(J_with, Ja) << what;
      for (int k = 0; k < kCollisionRows; ++k)
        if (oi == 1 && raw[k] > 0.5)
          for (int c = 0; c < nv; ++c) Ja[k * nv + c] = Jf[k * nv + c] = Jd[k * nv + c] = 0;
      test::expect_matrix_near(Ja, Jd, nv, kDualTol, what + " analytic vs dual");
      test::expect_matrix_near(Ja, Jf, nv, kFdTol, what + " analytic vs fd");
      for (double v : Ja) nonzero += v != 0;
    }
    // float rows follow double
    TypedProblem<float> tf(pr);
    std::vector<float> qf(q.begin(), q.end());
    std::vector<Transform<float>> body(m->body_count);
    fk_row(tf.view.model, qf.data(), body.data());
    for (int oi = 0; oi < 2; ++oi) {
      auto Jd = test::analytic_jacobian(pr.view(), oi, 0, q);
      std::vector<float> Jf(Jd.size());
      objective_jacobian(tf.view, oi, 0, qf.data(), body.data(), Jf.data(), nv);
      std::vector<double> Jfd(Jf.begin(), Jf.end());
      std::vector<double> raw = test::raw_rows(pr.view(), oi, 0, q);
      for (int k = 0; k < kCollisionRows; ++k)
        if (oi == 1 && raw[k] > 0.5)
          for (int c = 0; c < nv; ++c) Jfd[k * nv + c] = Jd[k * nv + c] = 0;
      test::expect_matrix_near(Jfd, Jd, nv, 2e-3, "float vs double");
    }
  }
  EXPECT_GT(nonzero, 100);
}

// A view with a memo gives the rows and Jacobians of one without, whether the poses are those of
// its last search (answered from it) or new ones (searched again); both sets share one memo
TEST(CollisionObjective, TheMemoAnswersOnlyForThePosesOfItsLastSearch) {
  auto m = panda();
  IkProblem pr(m);
  pr.set_collision_world(make_collision_world(*m, {}, obstacles()));
  pr.add_objective(collision_objective(ObjectiveType::kSelfCollision, 0.5));
  pr.add_objective(collision_objective(ObjectiveType::kWorldCollision, 0.5));
  const ProblemView<double> plain = pr.view();
  ProblemView<double> memoed = plain;
  std::vector<Transform<double>> saved(std::size_t(2) * m->body_count);
  CollisionMemo<double> memo;
  memo.body_count = m->body_count;
  memo.saved[0] = saved.data();
  memo.saved[1] = saved.data() + m->body_count;
  memoed.collision.memo = &memo;
  const int nv = m->dof_count;
  std::mt19937 rng(4);
  std::vector<double> q = m->middle_configuration();
  for (int i = 0; i < 6; ++i) {
    // every second configuration repeats the one before
    if (i % 2 == 0) q = test::integrate(*m, q, test::random_dofs(*m, rng, 1.0));
    std::vector<Transform<double>> body = test::body_poses(*m, q);
    for (int oi = 0; oi < 2; ++oi) {
      std::vector<double> r0(kCollisionRows), r1(kCollisionRows), J0(kCollisionRows * nv),
          J1(kCollisionRows * nv), raw(kCollisionRows);
      objective_residual(plain, oi, 0, q.data(), body.data(), r0.data());
      objective_residual(memoed, oi, 0, q.data(), body.data(), r1.data());
      EXPECT_EQ(r0, r1) << i << " " << oi;
      objective_jacobian(plain, oi, 0, q.data(), body.data(), J0.data(), nv);
      objective_jacobian(memoed, oi, 0, q.data(), body.data(), J1.data(), nv, raw.data());
      EXPECT_EQ(J0, J1) << i << " " << oi;
      EXPECT_EQ(raw, r0) << i << " " << oi;
    }
    EXPECT_TRUE(memo.valid[0] && memo.valid[1]);
  }
}

// the Panda reaching for targets on the far side of a box: with world_collision the answers
// keep the margin; without it most go through the box
struct BoxReach : ::testing::Test {
  std::shared_ptr<const Model> m = panda();
  int tcp = m->find_body("panda_hand_tcp");
  Obstacle box = obstacle("box", ShapeType::kBox, {0.45, 0, 0.25});

  IkProblem problem(bool collision, const std::vector<Vec3<double>>& targets) {
    IkProblem pr(m, int(targets.size()));
    pr.set_collision_world(make_collision_world(*m, {}, {box}));
    int op = pr.add_position(tcp);
    for (std::size_t p = 0; p < targets.size(); ++p) pr.set_target_position(op, int(p), targets[p]);
    if (collision) {
      pr.add_objective(collision_objective(ObjectiveType::kWorldCollision, 0.01));
      pr.add_objective(collision_objective(ObjectiveType::kSelfCollision, 0.01));
    }
    return pr;
  }

  double world_distance(const IkProblem& pr, const std::vector<double>& q) {
    auto poses = test::body_poses(*m, q);
    auto d = closest_distances(pr.collision_world(), poses.data(), 1);
    return d.empty() ? 1e300 : d[0].contact.distance;
  }
};

TEST_F(BoxReach, CollisionObjectivesKeepTheArmOutOfTheBox) {
  // a 0.3 m high wall across the front of the arm, targets just behind it
  box.size = {0.1, 0.6, 0.4};
  box.pose.p = {0.45, 0, 0.2};
  std::vector<Vec3<double>> targets;
  for (int i = 1; i <= 6; ++i) targets.push_back({0.66, -0.2 + 0.08 * i, 0.15 + 0.02 * i});
  SolverSettings s;
  s.n_seeds = 16;
  s.max_iterations = 300;
  auto solver = make_cpu_solver();
  IkProblem with = problem(true, targets), plain = problem(false, targets);
  SolveResult rw, rp;
  std::vector<double> q0 = m->middle_configuration();
  solver->solve(with, s, q0, rw);
  solver->solve(plain, s, q0, rp);
  int plain_hits = 0;
  for (std::size_t p = 0; p < targets.size(); ++p) {
    // every answer with the objective keeps the 1 cm margin (to the constraint tolerance)
    EXPECT_GT(world_distance(with, rw.problems[p].q), 0.01 - 1e-3) << p;
    EXPECT_LT(rw.problems[p].position_error, 5e-3) << p;
    plain_hits += world_distance(plain, rp.problems[p].q) < 0;
  }
  // the plain solve does go through the box (otherwise the test shows nothing)
  EXPECT_GT(plain_hits, 0);
}

TEST_F(BoxReach, TargetInsideTheBoxIsOutOfReachAtTheNearestFreePose) {
  std::vector<Vec3<double>> targets = {{0.45, 0.0, 0.30}};  // 0.075 m inside the box's top
  SolverSettings s;
  s.n_seeds = 8;
  s.max_iterations = 300;
  auto solver = make_cpu_solver();
  IkProblem pr = problem(true, targets);
  SolveResult r;
  solver->solve(pr, s, m->middle_configuration(), r);
  const std::vector<double>& q = r.problems[0].q;
  // not reached, not in collision, and the hand rests on the box: the nearest free pose
  EXPECT_FALSE(r.problems[0].converged);
  EXPECT_GT(world_distance(pr, q), 0.01 - 1e-3);
  EXPECT_LT(r.problems[0].position_error, 0.15);
  // the tool tip cannot go below the top face (0.075 m above the target) and keeps the margin
  EXPECT_GT(r.problems[0].position_error, 0.075);
}

// The CPU backend keeps its collision memo across solves of the same world (by the problem's
// collision_world_id), as the workbench's frames do, each from where the last ended: a problem
// copied keeps the world and its id, a world set anew gets a new one, and a solver kept across
// both answers as a fresh solver does
TEST_F(BoxReach, ASolverKeptAcrossWorldsAnswersAsAFreshOne) {
  SolverSettings s;
  s.n_seeds = 1;
  s.max_iterations = 100;
  auto kept = make_cpu_solver();
  IkProblem pr = problem(true, {{0.6, -0.1, 0.3}});
  // the box and three balls far away (never among the memo's listed pairs)
  std::vector<Obstacle> world = {box};
  for (int i = 0; i < 3; ++i)
    world.push_back(obstacle("ball", ShapeType::kSphere, {3.0, -1.0 + i, 1.0}));
  pr.set_collision_world(make_collision_world(*m, {}, world));
  SolveResult r, again, fresh;
  kept->solve(pr, s, m->middle_configuration(), r);
  const std::vector<double> q = r.problems[0].q;
  const IkProblem copy = pr;
  EXPECT_EQ(copy.collision_world_id(), pr.collision_world_id());
  kept->solve(copy, s, q, again);
  make_cpu_solver()->solve(copy, s, q, fresh);
  EXPECT_EQ(again.row_q, fresh.row_q);
  // a ball moved onto the hand where it stands: a new world, a new id
  const uint64_t before = pr.collision_world_id();
  world[2].pose.p = test::body_poses(*m, q)[size_t(tcp)].p;
  pr.set_collision_world(make_collision_world(*m, {}, world));
  EXPECT_NE(pr.collision_world_id(), before);
  kept->solve(pr, s, q, again);
  make_cpu_solver()->solve(pr, s, q, fresh);
  EXPECT_EQ(again.row_q, fresh.row_q);
  EXPECT_EQ(again.problems[0].constraint_violation, fresh.problems[0].constraint_violation);
  // the ball moved the arm (the test can tell a stale memo)
  EXPECT_GT(world_distance(pr, q), -1.0);
  EXPECT_LT(world_distance(pr, q), 0.0);
  EXPECT_NE(again.problems[0].q, q);
}

}  // namespace
}  // namespace ikwb
