// The skeleton view (visuals_skeleton.cpp): its segments and joint markers from the body poses,
// why a robot needs it, and in the real workbench: turned on with a message for a robot whose
// meshes are missing or that has no visuals, left as the user chose for one whose meshes load,
// and drawn where the joints are (screenshot pixels). The GUI tests are skipped without a display.
#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/visuals.hpp"
#include "app/gui_script_fixture.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/urdf_loader.hpp"

namespace {

using nlohmann::json;

// base -shoulder (revolute, 0.2 up)-> upper -elbow (prismatic along z, 0.4 up)-> fore
// -tool_joint (fixed, 0.3 up)-> tool; upper -side (revolute, 0.1 along x and up)-> side_link;
// fore -flange (fixed, no offset)-> flange. `visual` goes into each of base, upper and fore.
std::string arm_urdf(const std::string& visual) {
  auto link = [&](const std::string& name, bool with_visual) {
    return "<link name=\"" + name + "\">" + (with_visual ? visual : "") + "</link>";
  };
  auto joint = [](const std::string& name, const std::string& type, const std::string& parent,
                  const std::string& child, const std::string& xyz) {
    return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent +
           "\"/><child link=\"" + child + "\"/><origin xyz=\"" + xyz +
           "\"/><axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" "
           "velocity=\"1\"/></joint>";
  };
  return "<robot name=\"arm\">" + link("base", true) + link("upper", true) + link("fore", true) +
         link("tool", false) + link("side_link", false) + link("flange", false) +
         joint("shoulder", "revolute", "base", "upper", "0 0 0.2") +
         joint("elbow", "prismatic", "upper", "fore", "0 0 0.4") +
         joint("tool_joint", "fixed", "fore", "tool", "0 0 0.3") +
         joint("side", "revolute", "upper", "side_link", "0.1 0 0.1") +
         joint("flange", "fixed", "fore", "flange", "0 0 0") + "</robot>";
}

const std::string kMissingMesh =
    "<visual><geometry><mesh filename=\"meshes/nowhere.stl\"/></geometry></visual>";
const std::string kBox = "<visual><geometry><box size=\"0.05 0.05 0.05\"/></geometry></visual>";

ikwb::Model load_arm(const std::string& visual) {
  ikwb::LoadResult r = ikwb::load_urdf_string(arm_urdf(visual), "arm.urdf", "");
  EXPECT_TRUE(r.model);
  return r.model ? *r.model : ikwb::Model();
}

bool contains(const std::vector<glm::vec3>& points, const glm::vec3& p) {
  for (const glm::vec3& q : points)
    if (glm::length(q - p) < 1e-6f) return true;
  return false;
}

bool has_segment(const ikwb::gui::Skeleton& s, const glm::vec3& a, const glm::vec3& b) {
  for (std::size_t i = 0; i + 1 < s.segments.size(); i += 2)
    if (glm::length(s.segments[i] - a) < 1e-6f && glm::length(s.segments[i + 1] - b) < 1e-6f)
      return true;
  return false;
}

TEST(RobotSkeleton, JoinsEachJointToItsChildJointsAtTheCurrentPoses) {
  const ikwb::Model m = load_arm(kBox);
  ASSERT_GT(m.body_count, 0);
  std::vector<double> q(m.coord_count, 0.0);
  q[m.joint_q_start[m.find_joint("elbow")]] = 0.05;
  ikwb::State state(m);
  ikwb::eval_fk(m, q, {}, state);
  const ikwb::gui::Skeleton s = ikwb::gui::robot_skeleton(m, state.body_q);

  const glm::vec3 base(0, 0, 0), shoulder(0, 0, 0.2f), elbow(0, 0, 0.65f), side(0.1f, 0, 0.3f),
      tool(0, 0, 0.95f);
  // the elbow's origin is on its child's side: its segment stretches with the prismatic joint;
  // the flange coincides with the elbow and adds no segment
  ASSERT_EQ(s.segments.size(), 8u);
  EXPECT_TRUE(has_segment(s, base, shoulder));
  EXPECT_TRUE(has_segment(s, shoulder, elbow));
  EXPECT_TRUE(has_segment(s, shoulder, side));
  EXPECT_TRUE(has_segment(s, elbow, tool));
  ASSERT_EQ(s.moving.size(), 3u);
  EXPECT_TRUE(contains(s.moving, shoulder) && contains(s.moving, elbow) &&
              contains(s.moving, side));
  // the fixed joints and the root, which has no joint
  ASSERT_EQ(s.fixed.size(), 3u);
  EXPECT_TRUE(contains(s.fixed, tool) && contains(s.fixed, elbow) && contains(s.fixed, base));

  // poses of another size than the model's: nothing
  EXPECT_TRUE(ikwb::gui::robot_skeleton(m, {}).segments.empty());
}

TEST(SkeletonReason, NoVisualsOrMissingMeshesButNotVisualsThatDraw) {
  EXPECT_EQ(ikwb::gui::skeleton_reason(load_arm(""), "arm"), "arm has no visual geometry");
  EXPECT_EQ(ikwb::gui::skeleton_reason(load_arm(kBox), "arm"), "");
  EXPECT_EQ(ikwb::gui::skeleton_reason(load_arm(kMissingMesh), "arm"),
            "arm: 3 of 3 visual meshes could not be loaded (magenta placeholders)");
}

using Skeleton = ikwb::test::GuiScript;

bool logged(const json& d, const std::string& text) {
  for (const json& m : d["messages"])
    if (m["text"].get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

const std::string kShownMessage = "the skeleton is shown (View > Skeleton turns it off)";

TEST_F(Skeleton, MissingMeshesTurnItOnWithAMessageAndTheUserTurnsItOff) {
  std::ofstream(path("arm.urdf")) << arm_urdf(kMissingMesh);
  ASSERT_EQ(run("open_urdf arm.urdf\nwait 2\n" + dump_cmd("on.json") +
                "view skeleton off\nwait 1\n" + dump_cmd("off.json")),
            0)
      << log();
  const json on = dump("on.json"), off = dump("off.json");
  EXPECT_EQ(on["robot"]["name"], "arm");
  EXPECT_TRUE(on["visuals"]["skeleton"].get<bool>());
  EXPECT_EQ(on["visuals"]["skeleton_segments"], 4);
  EXPECT_TRUE(logged(
      on, "arm: 3 of 3 visual meshes could not be loaded (magenta placeholders): " + kShownMessage))
      << on["messages"].dump(1);
  EXPECT_FALSE(off["visuals"]["skeleton"].get<bool>());
  EXPECT_EQ(off["visuals"]["skeleton_segments"], 0);
}

TEST_F(Skeleton, ARobotWithItsMeshesKeepsTheUsersChoice) {
  std::ofstream(path("arm.urdf")) << arm_urdf(kMissingMesh);
  ASSERT_EQ(run("robot planar3\nwait 2\n" + dump_cmd("meshes.json") +
                "open_urdf arm.urdf\nwait 1\nrobot planar3\nwait 1\n" + dump_cmd("back.json") +
                "open_urdf arm.urdf\nwait 1\nrobot panda\nview skeleton on\nwait 1\n" +
                dump_cmd("chosen.json") + "robot planar3\nwait 1\n" + dump_cmd("kept.json")),
            0)
      << log();
  const json meshes = dump("meshes.json"), back = dump("back.json"), chosen = dump("chosen.json"),
             kept = dump("kept.json");
  EXPECT_FALSE(meshes["visuals"]["skeleton"].get<bool>());
  EXPECT_FALSE(logged(meshes, kShownMessage)) << meshes["messages"].dump(1);
  // turned on for the arm's sake only: the next robot with its meshes is drawn as before
  EXPECT_TRUE(logged(back, kShownMessage)) << back["messages"].dump(1);
  EXPECT_FALSE(back["visuals"]["skeleton"].get<bool>());
  // turned on by the user (as the robot opens, after an automatic turn-on): it stays on
  EXPECT_EQ(chosen["robot"]["name"], "panda");
  EXPECT_TRUE(chosen["visuals"]["skeleton"].get<bool>());
  EXPECT_GT(chosen["visuals"]["skeleton_segments"].get<int>(), 5);
  EXPECT_EQ(kept["robot"]["name"], "planar3");
  EXPECT_TRUE(kept["visuals"]["skeleton"].get<bool>());
}

TEST_F(Skeleton, ViewCommandNamesTheSkeleton) {
  EXPECT_NE(run("view skeletons on\n"), 0);
  EXPECT_NE(log().find("|skeleton on|off"), std::string::npos) << log();
}

// RGBA pixels of a PNG and its width
std::vector<uint8_t> load_png(const std::string& file, int* width) {
  int h = 0, c = 0;
  uint8_t* px = stbi_load(file.c_str(), width, &h, &c, 4);
  EXPECT_NE(px, nullptr) << file;
  std::vector<uint8_t> v;
  if (px) v.assign(px, px + std::size_t(*width) * h * 4);
  stbi_image_free(px);
  return v;
}

// the body's origin in window pixels, from the dump
glm::vec2 screen_of(const json& d, const std::string& body) {
  for (const json& b : d["bodies"])
    if (b["name"] == body) return {b["screen"][0].get<float>(), b["screen"][1].get<float>()};
  ADD_FAILURE() << "no body " << body;
  return {0, 0};
}

// whether a pixel within 1 of p passes `test` (r, g, b)
template <class Test>
bool near_pixel(const std::vector<uint8_t>& px, int width, glm::vec2 p, Test test) {
  const int height = int(px.size() / 4) / width;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int x = int(std::lround(p.x)) + dx, y = int(std::lround(p.y)) + dy;
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      const uint8_t* c = &px[(std::size_t(y) * width + x) * 4];
      if (test(int(c[0]), int(c[1]), int(c[2]))) return true;
    }
  return false;
}

bool amber(int r, int g, int b) {
  return r > 220 && g > 140 && g < 215 && b < 90;
}
bool light(int r, int g, int b) {
  return r > 215 && g > 215 && b > 215;
}

TEST_F(Skeleton, DrawsMarkersAtTheJointsAndSegmentsBetweenThem) {
  std::ofstream(path("bare.urdf")) << arm_urdf("");
  ASSERT_EQ(run("open_urdf bare.urdf\nview hints off\nview axes off\nwait 2\nscreenshot on.png\n" +
                dump_cmd("on.json") + "view skeleton off\nwait 1\nscreenshot off.png\n"),
            0)
      << log();
  const json d = dump("on.json");
  ASSERT_TRUE(d["visuals"]["skeleton"].get<bool>());
  int width = 0;
  const std::vector<uint8_t> on = load_png(path("on.png"), &width),
                             off = load_png(path("off.png"), &width);
  ASSERT_EQ(on.size(), off.size());
  // the shoulder and the elbow (the origins of their child links) have amber markers
  for (const char* body : {"upper", "fore"}) {
    const glm::vec2 p = screen_of(d, body);
    EXPECT_TRUE(near_pixel(on, width, p, amber)) << body << " at " << p.x << ", " << p.y;
    EXPECT_FALSE(near_pixel(off, width, p, amber)) << body;
  }
  // the segment from the elbow to the tool is light half way
  const glm::vec2 mid = 0.5f * (screen_of(d, "fore") + screen_of(d, "tool"));
  EXPECT_TRUE(near_pixel(on, width, mid, light)) << mid.x << ", " << mid.y;
  EXPECT_FALSE(near_pixel(off, width, mid, light));
}

// a robot with no meshes is picked by its skeleton: a click on a joint's marker selects the
// joint's child, one half way along a segment the link it runs along (nothing to hit before)
TEST_F(Skeleton, ClickingTheSkeletonSelectsALink) {
  std::ofstream(path("bare.urdf")) << arm_urdf("");
  ASSERT_EQ(
      run("open_urdf bare.urdf\nview hints off\nview axes off\nwait 2\n" + dump_cmd("at.json")), 0)
      << log();
  const json d = dump("at.json");
  const glm::vec2 upper = screen_of(d, "upper"),
                  mid = 0.5f * (screen_of(d, "fore") + screen_of(d, "tool"));
  auto click = [](glm::vec2 p) {
    return "click " + std::to_string(p.x) + " " + std::to_string(p.y) + "\nwait 2\n";
  };
  ASSERT_EQ(
      run("open_urdf bare.urdf\nview hints off\nview axes off\nwait 2\n" + click(upper) +
          dump_cmd("marker.json") + click(mid) + dump_cmd("segment.json") +
          "view skeleton off\nwait 1\nselect_link base\n" + click(mid) + dump_cmd("off.json")),
      0)
      << log();
  EXPECT_EQ(dump("marker.json")["selection"]["link"], "upper");
  EXPECT_EQ(dump("segment.json")["selection"]["link"], "fore");
  // without the skeleton there is nothing there to click
  EXPECT_NE(dump("off.json")["selection"]["link"], "fore");
}

}  // namespace
