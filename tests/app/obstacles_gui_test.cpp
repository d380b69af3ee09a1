// Obstacles in the running workbench, driven by scripts (skipped without a display): the
// `obstacle` command's edits are undo steps that undo, redo, save and open keep; bad values fail
// the command with the reason and keep the obstacle; the target gizmo drags an obstacle; a click
// selects one; a moved obstacle makes the arm re-solve clear of it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/gui_script_fixture.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"

namespace {

using nlohmann::json;

class ObstaclesGui : public ikwb::test::GuiScript {};

// the dump's obstacle named `name` (null when there is none)
json obstacle(const json& d, const std::string& name) {
  for (const json& o : d["obstacles"])
    if (o["name"] == name) return o;
  return nullptr;
}

double at(const json& o, const char* key, int k) {
  return o["pose"][key][k].get<double>();
}

TEST_F(ObstaclesGui, EditsAreUndoStepsAndSaveAndOpenKeepThem) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "obstacle add box block\n"
                "wait 1\n" +
                dump_cmd("added.json") +
                "obstacle add sphere ball 0.5 0.3 0.4\n"
                "wait 1\n"
                "obstacle move block 0.5 0 0.3 0 0 0.38268343 0.92387953\n"
                "wait 1\n"
                "obstacle size block 0.1 0.3 20cm\n"
                "wait 1\n" +
                dump_cmd("edited.json") +
                "undo\n"
                "wait 1\n" +
                dump_cmd("undo1.json") +
                "undo\n"
                "wait 1\n" +
                dump_cmd("undo2.json") +
                "redo\n"
                "redo\n"
                "wait 1\n" +
                dump_cmd("redone.json") + "save_scene " + path("saved.json") +
                "\n"
                "obstacle remove ball\n"
                "obstacle add floor ground 0 0 -0.3\n"
                "obstacle plane ground 0 0 2 -0.1\n"
                "wait 1\n" +
                dump_cmd("changed.json") + "open_scene " + path("saved.json") +
                "\n"
                "wait 1\n" +
                dump_cmd("opened.json")),
            0)
      << log();
  // a new box in front of the robot, selected with its gizmo
  json added = dump("added.json");
  ASSERT_EQ(added["obstacles"].size(), 1u);
  json box0 = obstacle(added, "block");
  EXPECT_EQ(box0["type"], "box");
  EXPECT_GT(at(box0, "position", 0), 0.3);
  EXPECT_EQ(added["selection"]["obstacle"], "block");
  EXPECT_EQ(added["gizmo"]["obstacle"], 0);
  EXPECT_EQ(added["gizmo"]["objective"], -1);

  json edited = dump("edited.json");
  ASSERT_EQ(edited["obstacles"].size(), 2u);
  json block = obstacle(edited, "block"), ball = obstacle(edited, "ball");
  EXPECT_EQ(block["size"], json::array({0.1, 0.3, 0.2}));
  EXPECT_NEAR(at(block, "position", 0), 0.5, 1e-12);
  EXPECT_NEAR(at(block, "position", 2), 0.3, 1e-12);
  EXPECT_NEAR(at(block, "orientation", 2), 0.38268343, 1e-6);
  EXPECT_NEAR(at(ball, "position", 1), 0.3, 1e-12);

  // undo: the size, then the move
  json u1 = obstacle(dump("undo1.json"), "block");
  EXPECT_EQ(u1["size"], box0["size"]);
  EXPECT_NEAR(at(u1, "position", 0), 0.5, 1e-12);
  json u2 = obstacle(dump("undo2.json"), "block");
  EXPECT_EQ(u2["pose"], box0["pose"]);
  EXPECT_EQ(dump("undo2.json")["obstacles"].size(), 2u);
  EXPECT_EQ(obstacle(dump("redone.json"), "block"), block);

  // the saved scene has both; opening it brings them back over later changes
  json saved = json::parse(std::ifstream(path("saved.json")));
  ASSERT_EQ(saved["obstacles"].size(), 2u);
  json changed = dump("changed.json");
  EXPECT_TRUE(obstacle(changed, "ball").is_null());
  EXPECT_EQ(obstacle(changed, "ground")["type"], "half_space");
  // the plane 2 z = -0.1 is z = -0.05, kept with a unit normal
  EXPECT_NEAR(obstacle(changed, "ground")["offset"].get<double>(), -0.05, 1e-12);
  EXPECT_EQ(obstacle(changed, "ground")["normal"], json::array({0.0, 0.0, 1.0}));
  json opened = dump("opened.json");
  ASSERT_EQ(opened["obstacles"].size(), 2u);
  EXPECT_EQ(obstacle(opened, "block")["size"], block["size"]);
  EXPECT_EQ(obstacle(opened, "block")["pose"], block["pose"]);
  EXPECT_EQ(obstacle(opened, "ball")["radius"], ball["radius"]);
  EXPECT_TRUE(obstacle(opened, "ground").is_null());
}

TEST_F(ObstaclesGui, BadValuesFailWithTheReasonAndKeepTheObstacle) {
  EXPECT_EQ(run("robot panda\n"
                "obstacle add box block 0.6 0 0.3\n"
                "obstacle size block -0.1 0.3 0.2\n"
                "obstacle size block 0.1 0.3\n"
                "obstacle plane block 0 0 1 0\n"
                "obstacle add sphere block\n"
                "obstacle move nothing 0 0 0\n"
                "obstacle move block 0.6 0 0.3 0 0 1 1\n"
                "obstacle add half_space fl\n"
                "obstacle plane fl 0 0 0 0\n"
                "wait 1\n" +
                dump_cmd("state.json")),
            1)
      << log();
  const std::string l = log();
  EXPECT_NE(l.find("obstacle 'block': size[0] must be in (0, 1e6] m"), std::string::npos) << l;
  EXPECT_NE(l.find("a box takes 3 size values"), std::string::npos) << l;
  EXPECT_NE(l.find("is not a half_space"), std::string::npos) << l;
  EXPECT_NE(l.find("an obstacle named 'block' exists already"), std::string::npos) << l;
  EXPECT_NE(l.find("no obstacle named 'nothing'"), std::string::npos) << l;
  EXPECT_NE(l.find("the quaternion (x, y, z, w) is not unit (norm 1.414"), std::string::npos) << l;
  EXPECT_NE(l.find("the plane's normal must not be zero"), std::string::npos) << l;
  json d = dump("state.json");
  ASSERT_EQ(d["obstacles"].size(), 2u);
  EXPECT_EQ(d["obstacles"][0]["type"], "box");
  EXPECT_GT(d["obstacles"][0]["size"][0].get<double>(), 0.0);
  EXPECT_NEAR(at(d["obstacles"][0], "position", 0), 0.6, 1e-12);

  // a number that is not one is refused when the script is read, naming the line
  EXPECT_NE(run("robot panda\nobstacle add box block\nobstacle move block nan 0 0\n"), 0);
  EXPECT_NE(log().find("'nan' is not a length"), std::string::npos) << log();
  EXPECT_NE(run("robot panda\nobstacle add sphere \"\"\n"), 0);
  EXPECT_NE(log().find("an obstacle's name must not be empty"), std::string::npos) << log();
}

TEST_F(ObstaclesGui, TheTargetGizmoDragsAnObstacleInOneUndoStep) {
  ASSERT_EQ(run("robot panda\n"
                "obstacle add box block 0.6 0.2 0.3\n"
                "select_objective 0\n"
                "wait 2\n"
                "obstacle drag block TranslateX 10cm frames 20\n"
                "wait 2\n" +
                dump_cmd("moved.json") +
                "obstacle drag block RotateZ 30deg frames 20\n"
                "wait 2\n" +
                dump_cmd("turned.json") +
                "undo\n"
                "wait 1\n"
                "undo\n"
                "wait 1\n" +
                dump_cmd("undone.json")),
            0)
      << log();
  json moved = dump("moved.json");
  json block = obstacle(moved, "block");
  EXPECT_NEAR(at(block, "position", 0), 0.7, 2e-3);
  EXPECT_NEAR(at(block, "position", 1), 0.2, 1e-6);
  EXPECT_EQ(moved["gizmo"]["obstacle"], 0);
  EXPECT_EQ(moved["selection"]["obstacle"], "block");
  json turned = obstacle(dump("turned.json"), "block");
  // 30 degrees about z: (0, 0, sin 15deg, cos 15deg)
  EXPECT_NEAR(std::abs(at(turned, "orientation", 2)), std::sin(M_PI / 12), 2e-3);
  // the obstacle stays selected through undo
  EXPECT_EQ(dump("undone.json")["selection"]["obstacle"], "block");
  json undone = obstacle(dump("undone.json"), "block");
  EXPECT_NEAR(at(undone, "position", 0), 0.6, 1e-9);
  EXPECT_NEAR(at(undone, "orientation", 3), 1.0, 1e-9);
}

TEST_F(ObstaclesGui, AClickOnAnObstacleSelectsIt) {
  // where the box is drawn (the camera frames the robot the same way every run)
  ASSERT_EQ(run("robot panda\nobstacle add sphere ball 0.45 -0.35 0.3\nwait 2\n" +
                dump_cmd("where.json")),
            0)
      << log();
  json where = dump("where.json");
  std::vector<double> px = obstacle(where, "ball")["screen"].get<std::vector<double>>();
  ASSERT_EQ(px.size(), 3u);
  ASSERT_GT(px[2], 0.0);
  char click[96];
  std::snprintf(click, sizeof click, "click %.1f %.1f\n", px[0], px[1]);
  ASSERT_EQ(run("robot panda\nobstacle add sphere ball 0.45 -0.35 0.3\nselect_objective 0\n"
                "wait 2\n" +
                dump_cmd("before.json") + click + "wait 3\n" + dump_cmd("after.json")),
            0)
      << log();
  EXPECT_TRUE(dump("before.json")["selection"]["obstacle"].is_null());
  json after = dump("after.json");
  EXPECT_EQ(after["selection"]["obstacle"], "ball");
  EXPECT_EQ(after["gizmo"]["obstacle"], 0);
}

TEST_F(ObstaclesGui, ARaisedBoxMakesTheArmResolveClearOfIt) {
  // the reach-around demo's answer passes 1.5 cm over the 30 cm box; at 34 cm that pose would
  // go through it
  const std::string demo = std::string(IKWB_SOURCE_DIR) + "/assets/demos/panda_reach_around.json";
  ASSERT_EQ(run("scene " + demo +
                "\n"
                "wait 60\n"
                "obstacle size box 0.12 0.6 0.34\n"
                "obstacle move box 0.4 0 0.17\n"
                "wait 150\n" +
                dump_cmd("state.json")),
            0)
      << log();
  json d = dump("state.json");
  std::vector<double> q = d["joint_q"].get<std::vector<double>>();
  ikwb::Scene scene = ikwb::load_scene(demo);
  scene.obstacles[0].size.z = 0.34;
  scene.obstacles[0].pose.p.z = 0.17;
  ikwb::UrdfOptions opt;
  opt.load_meshes = false;
  auto m = ikwb::load_urdf_file(ikwb::resolve_robot("panda"), opt).model;
  ikwb::CollisionWorld w = ikwb::make_collision_world(*m, {}, scene.obstacles);
  std::vector<ikwb::Transform<double>> body_q(m->body_count);
  ikwb::fk_row(m->view(), q.data(), body_q.data());
  double closest = 1e300;
  for (const ikwb::BodyDistance& b : ikwb::closest_distances(w, body_q.data()))
    if (b.obstacle >= 0) closest = std::min(closest, b.contact.distance);
  EXPECT_GT(closest, 0.009);
}

}  // namespace

namespace {

// the demo's own expectations (the hand reaches behind the box before and after sliding along
// it, and after the objective is turned off and on) hold when it runs from the Demos menu
TEST_F(ObstaclesGui, ReachAroundDemoMeetsItsExpectations) {
  ASSERT_EQ(run("demo panda_reach_around\n" + dump_cmd("end.json")), 0) << log();
  json d = dump("end.json");
  ASSERT_EQ(d["obstacles"].size(), 2u);
  EXPECT_EQ(d["selection"]["obstacle"], "box");
  EXPECT_NEAR(at(obstacle(d, "box"), "position", 0), 0.35, 2e-3);  // dragged 5 cm toward it
  EXPECT_EQ(d["collision"]["penetrating"], 0);
  EXPECT_LT(d["objectives"][0]["position_error"].get<double>(), 1e-3);  // out of its way
}

}  // namespace
