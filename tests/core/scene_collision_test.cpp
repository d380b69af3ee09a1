// Scene files with obstacles, an SRDF and collision objectives: read, written, read back the
// same; errors name the field.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/core/scene.hpp"

namespace ikwb {
namespace {

using nlohmann::json;

const char* kScene = R"({"version": 1, "robot": "panda", "srdf": "panda.srdf",
  "objectives": [{"type": "world_collision", "margin": 0.03, "hard": false, "weight": 5},
                 {"type": "self_collision"}],
  "obstacles": [
    {"name": "table", "type": "box", "size": [1, 0.8, 0.04],
     "pose": {"position": [0.5, 0, -0.02], "orientation": [0, 0, 0, 1]}},
    {"name": "ball", "type": "sphere", "radius": 0.1, "pose": {"position": [0.3, 0.2, 0.5]}},
    {"name": "pipe", "type": "capsule", "radius": 0.03, "length": 0.6, "pose": {}},
    {"name": "drum", "type": "cylinder", "radius": 0.2, "length": 0.3, "pose": {}},
    {"name": "floor", "type": "half_space", "normal": [0, 0, 2], "offset": -0.1}]})";

std::string message(const std::string& text) {
  try {
    parse_scene(text, "s.json", "/scenes");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

TEST(SceneCollision, ObstaclesSrdfAndMarginsRoundTrip) {
  Scene s = parse_scene(kScene, "s.json", "/scenes");
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_EQ(s.srdf, "/scenes/panda.srdf");
  ASSERT_EQ(s.obstacles.size(), 5u);
  EXPECT_EQ(s.obstacles[0].type, ShapeType::kBox);
  EXPECT_EQ(s.obstacles[0].size.y, 0.8);
  EXPECT_EQ(s.obstacles[1].radius, 0.1);
  EXPECT_EQ(s.obstacles[3].length, 0.3);
  // normalised with its offset: 2 z <= -0.1 is z <= -0.05
  EXPECT_EQ(s.obstacles[4].normal.z, 1.0);
  EXPECT_EQ(s.obstacles[4].offset, -0.05);
  EXPECT_EQ(s.objectives[0].margin, 0.03);
  EXPECT_EQ(s.objectives[1].margin, 0.01);  // the default
  Scene again = parse_scene(scene_to_json(s).dump(), "again.json", "");
  EXPECT_TRUE(again.warnings.empty());
  ASSERT_EQ(again.obstacles.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(again.obstacles[i].name, s.obstacles[i].name);
    EXPECT_EQ(again.obstacles[i].type, s.obstacles[i].type);
    EXPECT_EQ(again.obstacles[i].pose.p.x, s.obstacles[i].pose.p.x);
    EXPECT_EQ(again.obstacles[i].offset, s.obstacles[i].offset);
  }
  EXPECT_EQ(again.srdf, s.srdf);
  EXPECT_EQ(again.objectives[0].margin, 0.03);
}

// orientations written unit come back as written: saving, opening and saving again gives the same
// text (each read normalised them again, and their last digits changed from save to save)
TEST(SceneCollision, UnitOrientationsKeepTheirDigits) {
  std::mt19937 rng(9);
  std::normal_distribution<double> g;
  json scene = {{"version", 1}, {"robot", "panda"}, {"obstacles", json::array()}};
  for (int i = 0; i < 200; ++i) {
    const Quat<double> q = normalize(Quat<double>{g(rng), g(rng), g(rng), g(rng)});
    scene["obstacles"].push_back(
        {{"name", "b" + std::to_string(i)},
         {"type", "sphere"},
         {"radius", 0.1},
         {"pose", {{"position", {0, 0, 0}}, {"orientation", {q.x, q.y, q.z, q.w}}}}});
  }
  const std::string once = scene_to_json(parse_scene(scene.dump(), "s.json", "")).dump();
  const std::string twice = scene_to_json(parse_scene(once, "s.json", "")).dump();
  EXPECT_EQ(once, twice);
  const json back = json::parse(once);
  for (int i = 0; i < 200; ++i)
    EXPECT_EQ(back["obstacles"][i]["pose"]["orientation"],
              scene["obstacles"][i]["pose"]["orientation"])
        << i;
}

TEST(SceneCollision, ErrorsNameTheField) {
  auto with = [](const std::string& obstacle) {
    return R"({"version": 1, "robot": "panda", "obstacles": [)" + obstacle + "]}";
  };
  EXPECT_NE(message(with(R"({"name": "x", "type": "cone"})")).find("obstacles[0].type: unknown"),
            std::string::npos);
  EXPECT_NE(message(with(R"({"name": "x", "type": "box", "pose": {}})")).find("needs \"size\""),
            std::string::npos);
  EXPECT_NE(message(with(R"({"name": "x", "type": "sphere", "radius": 0, "pose": {}})"))
                .find("obstacles[0]: obstacle 'x': radius"),
            std::string::npos);
  EXPECT_NE(message(with(R"({"name": "x", "type": "half_space", "normal": [0, 0, 0]})"))
                .find("obstacles[0].normal: is zero: a half space needs a direction"),
            std::string::npos);
  // a short normal puts the plane far: said of both (it blamed the offset as written; a review),
  // and an obstacle without a name is not called '' (a review)
  EXPECT_NE(message(with(R"({"type": "half_space", "normal": [0, 0, 1e-7], "offset": 0.3})"))
                .find("obstacles[0].offset: offset / |normal| must be within 1e6 m"),
            std::string::npos);
  EXPECT_NE(message(with(R"({"type": "sphere", "radius": 0, "pose": {}})"))
                .find("obstacles[0]: the obstacle: radius"),
            std::string::npos);
  EXPECT_NE(message(with(R"({"name": "x", "type": "box", "size": [1, 1], "pose": {}})"))
                .find("obstacles[0].size: expected 3 numbers"),
            std::string::npos);
  EXPECT_NE(message(R"({"version": 1, "robot": "panda", "obstacles": {}})")
                .find("obstacles: expected an array"),
            std::string::npos);
  EXPECT_NE(message(R"({"version": 1, "robot": "panda",
                        "objectives": [{"type": "self_collision", "margin": -1}]})")
                .find("objectives[0].margin"),
            std::string::npos);
  // keys a type does not read are warnings
  Scene s = parse_scene(with(R"({"name": "x", "type": "sphere", "radius": 0.1, "size": [1, 1, 1],
                                 "pose": {}})"),
                        "s.json", "");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("obstacles[0].size: not used by a sphere"), std::string::npos);
}

// every obstacle has a name that tells it apart: an unnamed one gets "obstacle I", and a name
// two obstacles share is a warning
TEST(SceneCollision, ObstaclesAreToldApartByName) {
  Scene s = parse_scene(R"({"version": 1, "robot": "panda", "obstacles": [
    {"name": "box", "type": "sphere", "radius": 0.1, "pose": {}},
    {"type": "sphere", "radius": 0.1, "pose": {}},
    {"name": "box", "type": "sphere", "radius": 0.1, "pose": {}}]})",
                        "s.json", "");
  ASSERT_EQ(s.obstacles.size(), 3u);
  EXPECT_EQ(s.obstacles[1].name, "obstacle 1");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            "s.json: obstacles[2].name: 'box' also names obstacles[0]; their "
            "distances cannot be told apart");
}

TEST(SceneCollision, CollisionPairEditsRoundTrip) {
  Scene s = parse_scene(R"({"version": 1, "robot": "panda",
    "collision_pairs": {"disabled": [["panda_link0", "panda_link2"], ["panda_link5", "panda_hand"]],
                        "enabled": [["panda_link0", "panda_link1"]]}})",
                        "s.json", "");
  EXPECT_TRUE(s.warnings.empty());
  ASSERT_EQ(s.collision_pairs.disabled.size(), 2u);
  ASSERT_EQ(s.collision_pairs.enabled.size(), 1u);
  EXPECT_EQ(s.collision_pairs.disabled[1], LinkPair("panda_link5", "panda_hand"));
  EXPECT_EQ(s.collision_pairs.enabled[0], LinkPair("panda_link0", "panda_link1"));
  Scene again = parse_scene(scene_to_json(s).dump(), "again.json", "");
  EXPECT_TRUE(again.warnings.empty());
  EXPECT_EQ(again.collision_pairs.disabled, s.collision_pairs.disabled);
  EXPECT_EQ(again.collision_pairs.enabled, s.collision_pairs.enabled);
  // no edits: no key
  Scene plain = parse_scene(R"({"version": 1, "robot": "panda"})", "p.json", "");
  EXPECT_TRUE(plain.collision_pairs.empty());
  EXPECT_FALSE(scene_to_json(plain).contains("collision_pairs"));
}

TEST(SceneCollision, CollisionPairErrorsNameThePair) {
  auto with = [](const std::string& pairs) {
    return R"({"version": 1, "robot": "panda", "collision_pairs": )" + pairs + "}";
  };
  EXPECT_NE(message(with("[]")).find("collision_pairs: expected an object"), std::string::npos);
  EXPECT_NE(
      message(with(R"({"disabled": {}})")).find("collision_pairs.disabled: expected an array"),
      std::string::npos);
  EXPECT_NE(message(with(R"({"disabled": [["a", "b"], ["a"]]})"))
                .find("collision_pairs.disabled[1]: expected [link_a, link_b]"),
            std::string::npos);
  EXPECT_NE(message(with(R"({"enabled": [["a", 3]]})")).find("collision_pairs.enabled[0][1]"),
            std::string::npos);
  EXPECT_NE(message(with(R"({"enabled": [["hand", "hand"]]})"))
                .find("pair (hand, hand) names one link twice"),
            std::string::npos);
  EXPECT_NE(message(with(R"({"disabled": [["a", "b"]], "enabled": [["b", "a"]]})"))
                .find("pair (a, b) is both disabled and enabled"),
            std::string::npos);
  Scene s = parse_scene(with(R"({"disabled": [], "sometimes": []})"), "s.json", "");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("collision_pairs.sometimes: unknown key"), std::string::npos);
}

}  // namespace
}  // namespace ikwb
