// The collision view in the workbench: the state dump's closest pairs (a hand driven into an
// obstacle penetrates it, named by link and obstacle), the View toggles drawing capsules and
// penetrating links, and self pairs turned off by the script's `pair` command (gone from the
// dump, undoable, saved in the scene and read back; `pair overlapping off` for all that overlap).
// Skipped without a display.
#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui_script_fixture.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"

namespace {

using nlohmann::json;
using CollisionView = ikwb::test::GuiScript;

const std::vector<std::pair<std::string, double>> kPose = {
    {"panda_joint1", 0.0}, {"panda_joint2", 0.2}, {"panda_joint3", 0.0}, {"panda_joint4", -1.9},
    {"panda_joint5", 0.0}, {"panda_joint6", 2.0}, {"panda_joint7", 0.78}};

std::shared_ptr<const ikwb::Model> panda() {
  ikwb::UrdfOptions opt;
  opt.load_meshes = false;
  return ikwb::load_urdf_file(ikwb::resolve_robot("panda"), opt).model;
}

// body poses of the Panda at kPose
std::vector<ikwb::Transform<double>> pose_fk(const ikwb::Model& m) {
  std::vector<double> q = m.neutral_configuration();
  for (const auto& [name, v] : kPose) q[m.joint_q_start[m.find_joint(name)]] = v;
  std::vector<ikwb::Transform<double>> body_q(m.body_count);
  ikwb::fk_row(m.view(), q.data(), body_q.data());
  return body_q;
}

// a scene with the Panda at kPose (no objectives), with `extra` keys
std::string scene_text(const std::string& extra) {
  json q = json::object();
  for (const auto& [name, v] : kPose) q[name] = v;
  return R"({"version": 1, "robot": "panda", "joint_q": )" + q.dump() + extra + "}";
}

// whether a dump's collisions list the self pair a - b (either order)
bool lists_pair(const json& d, const std::string& a, const std::string& b) {
  for (const json& c : d["collisions"])
    if (c.contains("link_b") &&
        ((c["link_a"] == a && c["link_b"] == b) || (c["link_a"] == b && c["link_b"] == a)))
      return true;
  return false;
}

// RGBA pixels of a PNG (empty when it cannot be read)
std::vector<uint8_t> load_png(const std::string& file) {
  int w = 0, h = 0, c = 0;
  uint8_t* px = stbi_load(file.c_str(), &w, &h, &c, 4);
  EXPECT_NE(px, nullptr) << file;
  std::vector<uint8_t> v;
  if (px) v.assign(px, px + std::size_t(w) * h * 4);
  stbi_image_free(px);
  return v;
}

// reddish pixels: red well above green and blue (the translucent red capsules over the white
// robot or the dark background, and the segments)
int red_pixels(const std::vector<uint8_t>& v) {
  int n = 0;
  for (std::size_t i = 0; i + 3 < v.size(); i += 4)
    n += int(v[i]) > int(v[i + 1]) + 50 && int(v[i]) > int(v[i + 2]) + 50;
  return n;
}

TEST_F(CollisionView, HandInAnObstaclePenetratesAndIsDrawnRed) {
  auto m = panda();
  ikwb::Vec3<double> hand = pose_fk(*m)[m->find_body("panda_hand")].p;
  json ball = {{"name", "ball"},
               {"type", "sphere"},
               {"radius", 0.04},
               {"pose", {{"position", {hand.x, hand.y, hand.z}}}}};
  std::ofstream(path("ball.json")) << scene_text(R"(, "obstacles": [)" + ball.dump() + "]");
  ASSERT_EQ(run("live off\nwait 3\n" + dump_cmd("d.json") +
                    "view near_collisions off\nwait 1\nscreenshot plain.png\n"
                    "view near_collisions on\nwait 1\nscreenshot near.png\n"
                    "view near_collisions off\nview collision_shapes on\nwait 1\n"
                    "screenshot shapes.png\n" +
                    dump_cmd("shapes.json"),
                "--scene ball.json"),
            0)
      << log();
  json d = dump("d.json");
  ASSERT_TRUE(d["collisions"].is_array());
  ASSERT_GE(d["collisions"].size(), 8u);
  // the hand is inside the ball: the closest pair is penetrating and names the obstacle
  const json& first = d["collisions"][0];
  EXPECT_TRUE(first["penetrating"].get<bool>());
  EXPECT_LT(first["distance"].get<double>(), 0.0);
  EXPECT_EQ(first["obstacle"], "ball");
  EXPECT_FALSE(first.contains("link_b"));
  EXPECT_EQ(first["point_a"].size(), 3u);
  EXPECT_EQ(first["point_b"].size(), 3u);
  bool hand_listed = false;
  double previous = -1e300;
  for (const json& c : d["collisions"]) {
    hand_listed |=
        c["link_a"] == "panda_hand" && c["obstacle"] == "ball" && c["penetrating"].get<bool>();
    EXPECT_GE(c["distance"].get<double>(), previous);  // closest first
    previous = c["distance"].get<double>();
    EXPECT_EQ(c["penetrating"].get<bool>(), c["distance"].get<double>() < 0);
  }
  EXPECT_TRUE(hand_listed) << d["collisions"].dump(1);
  EXPECT_EQ(d["collision"]["margin"], 0.01);  // no collision objective: 1 cm
  EXPECT_GE(d["collision"]["penetrating"].get<int>(), 1);
  EXPECT_TRUE(dump("shapes.json")["visuals"]["collision_shapes"].get<bool>());

  // pixels: penetrating links turn red; the capsules change the picture
  std::vector<uint8_t> plain = load_png(path("plain.png")), near = load_png(path("near.png")),
                       shapes = load_png(path("shapes.png"));
  ASSERT_EQ(plain.size(), near.size());
  ASSERT_EQ(plain.size(), shapes.size());
  EXPECT_GT(red_pixels(near), red_pixels(plain) + 300)
      << red_pixels(near) << " vs " << red_pixels(plain);
  int changed = 0;
  for (std::size_t i = 0; i + 3 < plain.size(); i += 4)
    changed += std::abs(int(plain[i]) - int(shapes[i])) +
                   std::abs(int(plain[i + 2]) - int(shapes[i + 2])) >
               24;
  EXPECT_GT(changed, 2000);
}

TEST_F(CollisionView, PairOffLeavesTheDumpIsUndoneAndSaved) {
  // the closest self pair at kPose, as the workbench computes it
  auto m = panda();
  std::vector<ikwb::Transform<double>> body_q = pose_fk(*m);
  ikwb::CollisionWorld w = ikwb::make_collision_world(*m, {}, {});
  std::string a, b;
  for (const ikwb::BodyDistance& d : ikwb::closest_distances(w, body_q.data()))
    if (d.obstacle < 0) {
      a = m->body_name[d.body_a];
      b = m->body_name[d.body_b];
      break;
    }
  ASSERT_FALSE(a.empty());
  std::ofstream(path("pose.json")) << scene_text("");
  ASSERT_EQ(run("live off\nwait 3\nscreenshot quiet_on.png\nview near_collisions off\nwait 1\n"
                "screenshot quiet_off.png\nview near_collisions on\n" +
                    dump_cmd("before.json") + "pair " + a + " " + b + " off\nwait 2\n" +
                    dump_cmd("off.json") + "save_scene saved.json\nundo\n" + "wait 2\n" +
                    dump_cmd("undone.json"),
                "--scene pose.json"),
            0)
      << log();
  json before = dump("before.json"), off = dump("off.json"), undone = dump("undone.json");
  // without obstacles or collision objectives, pairs are listed but not drawn (the fingers'
  // capsules overlap at rest)
  EXPECT_FALSE(before["collision"]["objective"].get<bool>());
  EXPECT_LT(before["collisions"][0]["distance"].get<double>(), 0.0);
  EXPECT_LT(std::abs(red_pixels(load_png(path("quiet_on.png"))) -
                     red_pixels(load_png(path("quiet_off.png")))),
            50);
  EXPECT_TRUE(lists_pair(before, a, b)) << before["collisions"].dump(1);
  EXPECT_FALSE(lists_pair(off, a, b)) << off["collisions"].dump(1);
  EXPECT_EQ(off["collision"]["pair_edits"]["disabled"], json::array({json::array({a, b})}));
  EXPECT_LT(off["collision"]["self_pairs"].get<int>(),
            before["collision"]["self_pairs"].get<int>());
  EXPECT_TRUE(lists_pair(undone, a, b));
  EXPECT_TRUE(undone["collision"]["pair_edits"]["disabled"].empty());

  json saved = json::parse(std::ifstream(path("saved.json")));
  ASSERT_TRUE(saved.contains("collision_pairs")) << saved.dump(1);
  EXPECT_EQ(saved["collision_pairs"]["disabled"], json::array({json::array({a, b})}));
  ASSERT_EQ(run("live off\nwait 3\n" + dump_cmd("reopened.json"), "--scene saved.json"), 0)
      << log();
  json reopened = dump("reopened.json");
  EXPECT_FALSE(lists_pair(reopened, a, b));
  EXPECT_EQ(reopened["collision"]["pair_edits"]["disabled"], json::array({json::array({a, b})}));
}

TEST_F(CollisionView, OverlappingPairsOffInOneUndoStep) {
  // every self pair that overlaps at kPose, as the workbench computes it
  auto m = panda();
  std::vector<ikwb::Transform<double>> body_q = pose_fk(*m);
  ikwb::CollisionWorld w = ikwb::make_collision_world(*m, {}, {});
  std::vector<std::pair<std::string, std::string>> overlapping;
  for (const ikwb::BodyDistance& d : ikwb::closest_distances(w, body_q.data()))
    if (d.obstacle < 0 && d.contact.distance < 0)
      overlapping.push_back({m->body_name[d.body_a], m->body_name[d.body_b]});
  ASSERT_GE(overlapping.size(), 1u);
  std::ofstream(path("pose.json")) << scene_text("");
  ASSERT_EQ(run("live off\nwait 3\n" + dump_cmd("before.json") + "pair overlapping off\nwait 2\n" +
                    dump_cmd("off.json") + "pair overlapping off\nundo\nwait 2\n" +
                    dump_cmd("undone.json"),
                "--scene pose.json"),
            0)
      << log();
  json before = dump("before.json"), off = dump("off.json"), undone = dump("undone.json");
  EXPECT_EQ(off["collision"]["pair_edits"]["disabled"].size(), overlapping.size());
  for (const auto& [a, b] : overlapping) {
    EXPECT_TRUE(lists_pair(before, a, b)) << a << " - " << b;
    EXPECT_FALSE(lists_pair(off, a, b)) << a << " - " << b;
    EXPECT_TRUE(lists_pair(undone, a, b)) << a << " - " << b;
  }
  for (const json& c : off["collisions"]) {
    if (c.contains("link_b")) {
      EXPECT_GE(c["distance"].get<double>(), 0.0) << c.dump();
    }
  }
  // the log names the pairs; the second command found nothing to turn off and made no undo
  // step: one undo went back
  auto logged = [&](const std::string& text) {
    for (const json& msg : undone["messages"])
      if (msg["text"].get<std::string>().find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(logged(overlapping[0].first + " - " + overlapping[0].second));
  EXPECT_TRUE(logged("no self pair overlaps at this pose")) << undone["messages"].dump(1);
  EXPECT_TRUE(undone["collision"]["pair_edits"]["disabled"].empty());
  EXPECT_NE(run("robot panda\npair overlapping on\n"), 0);
  EXPECT_NE(log().find("pair overlapping off"), std::string::npos) << log();
}

TEST_F(CollisionView, PairCommandNamesBadLinks) {
  EXPECT_NE(run("robot panda\npair panda_link0 nowhere off\n"), 0);
  EXPECT_NE(log().find("unknown link 'nowhere'"), std::string::npos) << log();
  EXPECT_NE(run("robot panda\npair panda_link7 panda_hand off\n"), 0);
  EXPECT_NE(log().find("cannot be checked"), std::string::npos) << log();
  EXPECT_NE(run("robot panda\npair panda_link0 panda_link2 maybe\n"), 0);
}

}  // namespace
