// A scene with obstacles and collision objectives in the workbench: the arm solves clear of the
// box, and saving writes the obstacles and the SRDF back (skipped without a display).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/gui_script_fixture.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"

namespace {

using nlohmann::json;
using Session = ikwb::test::GuiScript;

const char* kScene = R"({"version": 1, "robot": "panda", "srdf": "panda.srdf",
  "objectives": [
    {"type": "position", "name": "reach", "link": "panda_hand_tcp",
     "target": {"position": [0.66, -0.1, 0.19]}},
    {"type": "world_collision", "margin": 0.01, "hard": true}],
  "obstacles": [
    {"name": "wall", "type": "box", "size": [0.1, 0.6, 0.4],
     "pose": {"position": [0.45, 0, 0.2], "orientation": [0, 0, 0, 1]}}]})";

TEST_F(Session, SceneObstaclesAreSolvedAroundAndSavedBack) {
  std::ofstream(path("wall.json")) << kScene;
  std::ofstream(path("panda.srdf"))
      << "<robot name=\"panda\"><disable_collisions link1=\"panda_link0\" "
         "link2=\"panda_link2\" reason=\"Never\"/></robot>";
  ASSERT_EQ(
      run("wait 200\nlive off\nsave_scene saved.json\ndump state.json\n", "--scene wall.json"), 0)
      << log();
  json saved = json::parse(std::ifstream(path("saved.json")));
  ASSERT_EQ(saved["obstacles"].size(), 1u);
  EXPECT_EQ(saved["obstacles"][0]["name"], "wall");
  EXPECT_EQ(saved["obstacles"][0]["size"][2], 0.4);
  EXPECT_EQ(saved["objectives"][1]["type"], "world_collision");
  EXPECT_EQ(saved["objectives"][1]["margin"], 0.01);
  EXPECT_NE(saved["srdf"].get<std::string>().find("panda.srdf"), std::string::npos);
  // the configuration the workbench settled on keeps the margin from the wall
  json state = dump("state.json");
  std::vector<double> q = state["joint_q"].get<std::vector<double>>();
  ikwb::UrdfOptions opt;
  opt.load_meshes = false;
  auto m = ikwb::load_urdf_file(ikwb::resolve_robot("panda"), opt).model;
  ikwb::Obstacle wall;
  wall.name = "wall";
  wall.type = ikwb::ShapeType::kBox;
  wall.size = {0.1, 0.6, 0.4};
  wall.pose.p = {0.45, 0, 0.2};
  ikwb::CollisionWorld w = ikwb::make_collision_world(*m, {}, {wall});
  std::vector<ikwb::Transform<double>> body_q(m->body_count);
  ikwb::fk_row(m->view(), q.data(), body_q.data());
  double closest = 1e300;
  for (const ikwb::BodyDistance& d : ikwb::closest_distances(w, body_q.data()))
    if (d.obstacle >= 0) closest = std::min(closest, d.contact.distance);
  EXPECT_GT(closest, 0.009);
}

}  // namespace
