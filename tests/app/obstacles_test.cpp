// AppState's obstacles without a window: new obstacles start clear of the robot with free names,
// a floor goes under everything that moves, bad edits are refused with a message and change
// nothing, removal fixes the selection, and sync() hands the obstacles to the solver.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/gui/app_state.hpp"
#include "app/gui/obstacle_view.hpp"

namespace ikwb {
namespace {

using gui::AppState;

// the smallest distance from obstacle o to any capsule of the robot at app's configuration (a
// half-space: any capsule that some joint moves; a robot's base may stand in its floor)
double clearance(const AppState& app, const Obstacle& o) {
  CollisionWorld w = make_collision_world(*app.model, {}, {o});
  double closest = 1e300;
  for (int i = 0; i < int(w.capsules.size()); ++i) {
    const LinkCapsule<double>& c = w.capsules[i];
    if (o.type == ShapeType::kHalfSpace &&
        std::find(w.world_capsules.begin(), w.world_capsules.end(), i) == w.world_capsules.end())
      continue;
    const Transform<double>& x = app.fk.body_q[c.body];
    Contact<double> k = capsule_shape(transform_point(x, c.p0), transform_point(x, c.p1), c.radius,
                                      obstacle_shape(o));
    closest = std::min(closest, k.distance);
  }
  return closest;
}

bool errors_mention(const AppState& app, const std::string& text) {
  for (const gui::Message& m : app.messages)
    if (m.level == gui::Message::kError && m.text.find(text) != std::string::npos) return true;
  return false;
}

TEST(Obstacles, NewObstaclesStartClearOfTheRobotWithFreeNames) {
  for (const char* robot : {"panda", "humanoid", "quadruped", "dual_arm"}) {
    AppState app;
    ASSERT_TRUE(app.open_robot_preset(robot)) << robot;
    app.ensure_fk();
    for (ShapeType t : {ShapeType::kSphere, ShapeType::kBox, ShapeType::kCapsule,
                        ShapeType::kCylinder, ShapeType::kHalfSpace}) {
      Obstacle o = app.new_obstacle(t);
      EXPECT_NO_THROW(check_obstacle(o)) << robot << " " << o.name;
      EXPECT_GT(clearance(app, o), 0.0) << robot << " " << o.name;
      // a floor starts beyond the world collision margin (1 cm): adding the objective after it
      // pushes on nothing
      if (t == ShapeType::kHalfSpace) {
        EXPECT_GT(clearance(app, o), default_margin(ObjectiveType::kWorldCollision)) << robot;
      }
      ASSERT_GE(app.add_obstacle(o), 0) << robot;
    }
    EXPECT_EQ(app.obstacles[0].name, "sphere");
    EXPECT_EQ(app.obstacles[4].name, "floor");
    EXPECT_EQ(app.new_obstacle(ShapeType::kBox).name, "box2");
  }
}

TEST(Obstacles, FloorGoesUnderEveryMovingLink) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  app.ensure_fk();
  Obstacle floor = app.new_obstacle(ShapeType::kHalfSpace);
  EXPECT_EQ(floor.type, ShapeType::kHalfSpace);
  EXPECT_LE(floor.offset, 0.0);
  EXPECT_DOUBLE_EQ(floor.normal.z, 1.0);
}

TEST(Obstacles, BadEditsAreRefusedWithAMessageAndChangeNothing) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  int i = app.add_obstacle(app.new_obstacle(ShapeType::kBox, "block"));
  ASSERT_EQ(i, 0);
  const Obstacle before = app.obstacles[0];
  const uint64_t serial = app.edit_serial;

  Obstacle bad = before;
  bad.size.y = -0.2;
  EXPECT_FALSE(app.set_obstacle(0, bad, "edit obstacle"));
  EXPECT_TRUE(errors_mention(app, "size[1] must be in (0, 1e6] m"));
  bad = before;
  bad.pose.p.x = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(app.set_obstacle(0, bad, "edit obstacle"));
  EXPECT_TRUE(errors_mention(app, "pose.position must be finite"));
  bad = before;
  bad.type = ShapeType::kSphere;
  bad.radius = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(app.set_obstacle(0, bad, "edit obstacle"));
  EXPECT_TRUE(errors_mention(app, "radius must be in"));

  // a second obstacle may not take the first one's name
  ASSERT_EQ(app.add_obstacle(app.new_obstacle(ShapeType::kSphere, "ball")), 1);
  Obstacle ball = app.obstacles[1];
  ball.name = "block";
  EXPECT_FALSE(app.set_obstacle(1, ball, "rename"));
  EXPECT_TRUE(errors_mention(app, "an obstacle named 'block' exists already"));
  EXPECT_LT(app.add_obstacle(ball), 0);
  ball.name = "";
  EXPECT_LT(app.add_obstacle(ball), 0);

  EXPECT_EQ(app.obstacles.size(), 2u);
  EXPECT_EQ(app.obstacles[0].size.y, before.size.y);
  EXPECT_EQ(app.obstacles[0].pose.p.x, before.pose.p.x);
  EXPECT_EQ(app.obstacles[0].type, ShapeType::kBox);
  EXPECT_EQ(app.obstacles[1].name, "ball");
  // only the good add was an edit
  EXPECT_EQ(app.edit_serial, serial + 1);
}

TEST(Obstacles, RemoveFixesTheSelectionAndSelectingAnObjectiveTakesTheGizmo) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  app.add_obstacle(app.new_obstacle(ShapeType::kBox));
  app.add_obstacle(app.new_obstacle(ShapeType::kSphere));
  app.add_obstacle(app.new_obstacle(ShapeType::kCapsule));
  EXPECT_EQ(app.selected_obstacle(), 2);
  app.select_obstacle(1);
  EXPECT_EQ(app.selection.objective, -1);
  app.remove_obstacle(0);
  EXPECT_EQ(app.selected_obstacle(), 0);
  EXPECT_EQ(app.obstacles[0].name, "sphere");
  app.remove_obstacle(0);
  EXPECT_EQ(app.selected_obstacle(), -1);
  app.select_obstacle(0);
  app.selection.objective = 0;  // an objective selected (panel, click) wins
  EXPECT_EQ(app.selected_obstacle(), -1);
}

TEST(Obstacles, SyncHandsTheObstaclesToTheSolver) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  app.sync();
  const uint64_t version = app.problem()->version();
  EXPECT_TRUE(app.problem()->collision_world().obstacles.empty());
  int i = app.add_obstacle(app.new_obstacle(ShapeType::kBox, "block"));
  app.sync();
  ASSERT_EQ(app.problem()->collision_world().obstacles.size(), 1u);
  EXPECT_EQ(app.problem()->collision_world().obstacle_names[0], "block");
  EXPECT_GT(app.problem()->version(), version);
  Obstacle moved = app.obstacles[i];
  moved.pose.p.z += 0.25;
  ASSERT_TRUE(app.set_obstacle(i, moved, "move obstacle"));
  app.sync();
  EXPECT_NEAR(app.problem()->collision_world().obstacles[0].pose.p.z, moved.pose.p.z, 1e-12);
  app.remove_obstacle(i);
  app.sync();
  EXPECT_TRUE(app.problem()->collision_world().obstacles.empty());
  // the capsules and self pairs are the model's throughout
  EXPECT_EQ(app.problem()->collision_world().capsules.size(), app.model->collision.capsules.size());
}

TEST(Obstacles, FirstObstacleWithoutWorldCollisionSaysTheSolverIgnoresIt) {
  AppState app;
  ASSERT_TRUE(app.open_robot_preset("panda"));
  EXPECT_FALSE(app.has_world_collision());
  app.add_obstacle(app.new_obstacle(ShapeType::kBox));
  ASSERT_FALSE(app.messages.empty());
  bool said = false;
  for (const gui::Message& m : app.messages)
    said |= m.text.find("no world_collision objective") != std::string::npos;
  EXPECT_TRUE(said);
  app.add_objective(app.new_objective(ObjectiveType::kWorldCollision));
  EXPECT_TRUE(app.has_world_collision());
}

TEST(Obstacles, HalfSpaceGizmoPoseMovesThePlane) {
  Obstacle floor;
  floor.type = ShapeType::kHalfSpace;
  floor.normal = {0, 0, 1};
  floor.offset = -0.1;
  Transform<double> g = gui::obstacle_gizmo_pose(floor);
  EXPECT_NEAR(g.p.z, -0.1, 1e-12);
  g.p.z += 0.3;
  g.p.x += 1.0;  // sliding along the plane changes nothing
  Obstacle moved = gui::obstacle_at_gizmo_pose(floor, g);
  EXPECT_NEAR(moved.offset, 0.2, 1e-12);
  EXPECT_NEAR(moved.normal.z, 1.0, 1e-12);
  // tilted 90 degrees about x: the normal turns to -y
  g.q = quat_from_axis_angle(Vec3<double>{1, 0, 0}, M_PI / 2);
  moved = gui::obstacle_at_gizmo_pose(floor, g);
  EXPECT_NEAR(moved.normal.y, -1.0, 1e-12);
  EXPECT_NO_THROW(check_obstacle(moved));
  // round trip of a solid's pose and of roll, pitch, yaw
  Vec3<double> rpy{0.3, -0.4, 1.2};
  Quat<double> q = quat_from_rpy(rpy.x, rpy.y, rpy.z);
  Vec3<double> back = gui::rpy_from_quat(q);
  EXPECT_NEAR(back.x, rpy.x, 1e-12);
  EXPECT_NEAR(back.y, rpy.y, 1e-12);
  EXPECT_NEAR(back.z, rpy.z, 1e-12);
}

}  // namespace
}  // namespace ikwb
