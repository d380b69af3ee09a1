// The scene's "collision_pairs" edits in scene_collision_world (so `ikwb solve --scene` and the
// workbench check the same pairs): disabled pairs leave the world, enabled ones join it even when
// the defaults skip them, and pairs naming unknown links or that cannot be checked are warnings.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/scene_problem.hpp"

namespace ikwb {
namespace {

std::shared_ptr<const Model> panda() {
  UrdfOptions opt;
  opt.load_meshes = false;
  return load_urdf_file(resolve_robot("panda"), opt).model;
}

// the body pairs of a world's self pairs, as (lower, higher) names
std::set<std::pair<std::string, std::string>> body_pairs(const Model& m, const CollisionWorld& w) {
  std::set<std::pair<std::string, std::string>> out;
  for (int k = 0; k < w.self_pair_count(); ++k) {
    int a = w.capsules[w.self_pairs[2 * k]].body, b = w.capsules[w.self_pairs[2 * k + 1]].body;
    out.insert({m.body_name[std::min(a, b)], m.body_name[std::max(a, b)]});
  }
  return out;
}

TEST(SceneCollisionPairs, DisabledLeaveEnabledJoinUnknownWarn) {
  auto m = panda();
  const std::pair<std::string, std::string> far{"panda_link0", "panda_link2"};
  const std::pair<std::string, std::string> joined{"panda_link0", "panda_link1"};
  Scene plain = parse_scene(R"({"version": 1, "robot": "panda"})", "s.json", "");
  std::vector<std::string> warnings;
  auto before = body_pairs(*m, scene_collision_world(*m, plain, warnings));
  EXPECT_TRUE(warnings.empty());
  ASSERT_TRUE(before.count(far));
  ASSERT_FALSE(before.count(joined));  // parent and child

  Scene edited = parse_scene(R"({"version": 1, "robot": "panda",
    "collision_pairs": {"disabled": [["panda_link2", "panda_link0"]],
                        "enabled": [["panda_link0", "panda_link1"], ["panda_link0", "nowhere"]]}})",
                             "s.json", "");
  auto after = body_pairs(*m, scene_collision_world(*m, edited, warnings));
  EXPECT_FALSE(after.count(far));
  EXPECT_TRUE(after.count(joined));
  EXPECT_EQ(after.size(), before.size());  // one out, one in
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("collision_pairs.enabled: pair (panda_link0, nowhere): unknown link "
                             "'nowhere'"),
            std::string::npos);
}

TEST(SceneCollisionPairs, PairsThatCannotBeCheckedAreWarnings) {
  auto m = panda();
  // panda_hand_tcp has no geometry; panda_link7 and panda_hand are welded by fixed joints
  int tcp = m->find_body("panda_hand_tcp");
  ASSERT_GE(tcp, 0);
  ASSERT_EQ(m->collision.body_first[tcp], m->collision.body_first[tcp + 1]);
  Scene s = parse_scene(R"({"version": 1, "robot": "panda",
    "collision_pairs": {"enabled": [["panda_hand_tcp", "panda_link1"]],
                        "disabled": [["panda_link7", "panda_hand"]]}})",
                        "s.json", "");
  std::vector<std::string> warnings;
  scene_collision_world(*m, s, warnings);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("collision_pairs.disabled: pair (panda_link7, panda_hand): cannot be "
                             "checked"),
            std::string::npos);
  EXPECT_NE(warnings[1].find("collision_pairs.enabled: pair (panda_hand_tcp, panda_link1): cannot "
                             "be checked"),
            std::string::npos);
}

}  // namespace
}  // namespace ikwb
