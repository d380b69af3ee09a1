// The whole-body kinds, joint locks and live limits through the real workbench (a script under
// Xvfb): the state dump reports them, undo restores them, and the overlays draw without GL
// errors.
#include <algorithm>
#include <array>
#include <cmath>

#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include <nlohmann/json.hpp>

#include "app/gui_script_fixture.hpp"

namespace {

using nlohmann::json;

class WholeBodyGui : public ikwb::test::GuiScript {};

// limits with the lower above the upper fail the script with one message naming both, and
// leave the joint's limits as they were
TEST_F(WholeBodyGui, InvertedLimitsFailWithOneMessage) {
  EXPECT_EQ(run("robot panda\nwait 1\nlimits panda_joint4 -60deg -160deg\n"), 1) << log();
  const std::string text = log();
  EXPECT_NE(text.find("joint 'panda_joint4': lower limit -60deg is above upper limit -160deg"),
            std::string::npos)
      << text;
  std::size_t mentions = 0;
  for (std::size_t at = text.find("lower"); at != std::string::npos;
       at = text.find("lower", at + 1))
    ++mentions;
  EXPECT_EQ(mentions, 1u) << text;
}

// a continuous joint has no limits: finite ones fail the script with one message naming the
// joint; unlimited ones (inf / -inf) and a reset are what it has already
TEST_F(WholeBodyGui, LimitsOfAContinuousJointFailWithOneMessage) {
  const std::string robot = IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf";
  EXPECT_EQ(run("wait 1\nlimits turntable -inf inf\nlimits turntable reset\nwait 1\n", robot), 0)
      << log();
  EXPECT_EQ(run("wait 1\nlimits turntable -90deg 90deg\n", robot), 1) << log();
  const std::string text = log();
  const std::string message = "joint 'turntable' is continuous: it has no limits";
  const std::size_t at = text.find(message);
  EXPECT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.find("no limits", at + message.size()), std::string::npos) << text;
}

// limits of a joint that no value of keeps its mimic joints within theirs fail the script with
// one message naming the mimic (the Panda's second finger follows the first, both [0, 0.04] m)
TEST_F(WholeBodyGui, LimitsThatLeaveAMimicNoValueFailWithOneMessage) {
  EXPECT_EQ(run("robot panda\nwait 1\nlimits panda_finger_joint1 -0.1 0.1\nwait 1\n"
                "limits panda_finger_joint1 0.05 0.1\n"),
            1)
      << log();
  const std::string text = log();
  const std::string message =
      "joint 'panda_finger_joint1': no value within these limits keeps its mimic joint "
      "'panda_finger_joint2' within its limits";
  const std::size_t at = text.find(message);
  EXPECT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.find("panda_finger_joint2", at + message.size()), std::string::npos) << text;
}

// a floating robot opened without a preset stands on the ground grid: its root is lifted until
// its lowest collision shape (the feet's boxes) touches z = 0 (it opened with the pelvis at the
// origin, the legs through the floor); the preset, which gives the root's pose, is not changed
TEST_F(WholeBodyGui, FloatingRobotWithoutAPresetStandsOnTheGround) {
  ASSERT_EQ(run("wait 2\ndump " + path("d.json") + "\n",
                IKWB_SOURCE_DIR "/assets/robots/humanoid/humanoid.urdf --floating-base"),
            0)
      << log();
  json d = dump("d.json");
  EXPECT_GT(d["joint_q"][2].get<double>(), 0.8);  // the pelvis, 0.92 m up on its legs
  double lowest = HUGE_VAL;
  for (const json& b : d["bodies"]) lowest = std::min(lowest, b["position"][2].get<double>());
  EXPECT_GE(lowest, -1e-9);  // no body origin below the ground
  EXPECT_LT(lowest, 0.05);   // the feet (the sole frames, at their boxes' lower faces) on it
}

// a support polygon's margin more than its contacts allow (a 0.6 m square: at most 0.3 m) is a
// warning when a script adds it and when one sets it; a margin that fits is not
TEST_F(WholeBodyGui, ASupportMarginWiderThanItsPolygonAllowsIsAWarning) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "add support_polygon margin 0.4 contact panda_link0 -0.3 -0.3 0 contact "
                "panda_link0 0.3 -0.3 0 contact panda_link0 0.3 0.3 0 contact panda_link0 -0.3 "
                "0.3 0 name feet\n"
                "wait 1\n"
                "set 3 margin 0.35\n"
                "wait 1\n"
                "set 3 margin 0.25\n"
                "wait 1\n"
                "dump " +
                path("d.json") + "\n"),
            0)
      << log();
  std::vector<std::string> said;
  const json d = dump("d.json");
  for (const json& m : d["messages"]) {
    const std::string text = m["text"].get<std::string>();
    if (text.find("(support_polygon): margin") != std::string::npos) said.push_back(text);
  }
  ASSERT_EQ(said.size(), 2u) << log();
  for (const char* margin : {"0.4", "0.35"})
    EXPECT_TRUE(std::any_of(said.begin(), said.end(), [&](const std::string& t) {
      return t.find(std::string("objective 3 \"feet\" (support_polygon): margin ") + margin +
                    " m is more than its support polygon allows at this configuration (0.3 m)") !=
             std::string::npos;
    })) << margin;
}

TEST_F(WholeBodyGui, LocksLimitsAndToleranceKindsShowInTheDumpAndUndo) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "lock panda_joint1 on\nwait 1\n"
                "limits panda_joint4 -160deg -60deg\nwait 1\n"
                "add position_box panda_link4 lower -4cm -inf -4cm upper 4cm inf 4cm\nwait 1\n"
                "add orientation_cone panda_hand cone 20deg\nwait 1\n"
                "add manipulability panda_hand_tcp\nwait 1\n"
                "add support_polygon contact panda_link0 -0.3 -0.3 0 contact panda_link0 0.3 "
                "-0.3 0 contact panda_link0 0.3 0.3 0 contact panda_link0 -0.3 0.3 0\n"
                "view limits on\n"
                "wait 20\n"
                "dump " +
                path("on.json") +
                "\n"
                "undo\n"
                "wait 1\n"
                "undo\n"
                "wait 1\n"
                "undo\n"
                "wait 1\n"
                "undo\n"
                "wait 1\n"
                "undo\n"
                "wait 2\n"
                "dump " +
                path("undone.json") + "\n"),
            0)
      << log();
  json d = dump("on.json");
  const json& j1 = d["joints"]["panda_joint1"];
  const json& j4 = d["joints"]["panda_joint4"];
  EXPECT_TRUE(j1["locked"].get<bool>());
  EXPECT_TRUE(j4["limits_edited"].get<bool>());
  EXPECT_NEAR(j4["upper"].get<double>(), -60.0 * M_PI / 180.0, 1e-9);
  EXPECT_LE(j4["q"].get<double>(), -60.0 * M_PI / 180.0 + 1e-9);
  // the preset's objectives, then the four added
  const json& objs = d["objectives"];
  ASSERT_GE(objs.size(), 4u);
  const std::size_t n = objs.size() - 4;
  EXPECT_EQ(objs[n]["type"], "position_box");
  EXPECT_EQ(objs[n]["lower"][1], nullptr);
  EXPECT_EQ(objs[n + 1]["type"], "orientation_cone");
  EXPECT_EQ(objs[n + 2]["type"], "manipulability");
  EXPECT_GT(objs[n + 2]["min_measure"].get<double>(), 0.0);
  const json& sp = objs[n + 3];
  EXPECT_EQ(sp["type"], "support_polygon");
  EXPECT_EQ(sp["vertices"].size(), 4u);
  EXPECT_EQ(sp["com"].size(), 3u);
  for (const json& o : objs) {
    EXPECT_TRUE(o.contains("error")) << o["type"];
    EXPECT_TRUE(o["reached"].get<bool>()) << o["type"];
  }
  EXPECT_EQ(d["gl_errors"], 0) << d["gl_error_messages"].dump();

  json u = dump("undone.json");
  EXPECT_EQ(u["objectives"].size(), n);
  EXPECT_FALSE(u["joints"]["panda_joint4"]["limits_edited"].get<bool>());
  EXPECT_TRUE(u["joints"]["panda_joint1"]["locked"].get<bool>());
}

// the balance_vs_reach demo runs to its end (its own expects: balance held and the hand blocked,
// the hand reaching with balance off, a trade-off with balance soft); it ends with balance hard
// again, the centre of mass inside the polygon and the hand short of its target
TEST_F(WholeBodyGui, BalanceVsReachDemoShowsTheTug) {
  ASSERT_EQ(run("demo balance_vs_reach\n" + dump_cmd("end.json")), 0) << log();
  const json d = dump("end.json");
  const json& hand = d["objectives"][3];
  const json& balance = d["objectives"][6];
  EXPECT_EQ(balance["type"], "support_polygon");
  EXPECT_TRUE(balance["reached"].get<bool>());
  EXPECT_FALSE(hand["reached"].get<bool>());
  EXPECT_GT(hand["position_error"].get<double>(), 0.01);
}

// balance switched off (the demo's second step): the centre of mass leaves the polygon, and the
// view still shows it, red on the floor (neither the polygon nor the dot was drawn)
TEST_F(WholeBodyGui, BalanceSwitchedOffStillShowsWhereTheCentreOfMassIs) {
  ASSERT_EQ(run("robot humanoid\nview hints off\ncamera yaw 70deg pitch 60deg distance 3.2 "
                "target 0.3 0 0.2\nwait 20\ntarget 3 1.0 -0.25 0.887\nenable 6 off\nwait 80\n"
                "screenshot off.png\n" +
                dump_cmd("off.json")),
            0)
      << log();
  const json d = dump("off.json");
  const json& balance = d["objectives"][6];
  ASSERT_EQ(balance["type"], "support_polygon");
  ASSERT_TRUE(balance.contains("com_ground_screen")) << balance.dump();
  const double com_x = balance["com"][0];
  double front = -1e9;
  for (const json& v : balance["vertices"]) front = std::max(front, v[0].get<double>());
  ASSERT_GT(com_x, front);  // past the toes
  int w = 0, h = 0, channels = 0;
  uint8_t* px = stbi_load(path("off.png").c_str(), &w, &h, &channels, 4);
  ASSERT_NE(px, nullptr);
  const int cx = int(std::lround(balance["com_ground_screen"][0].get<double>()));
  const int cy = int(std::lround(balance["com_ground_screen"][1].get<double>()));
  bool red = false;
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -2; dx <= 2; ++dx) {
      const int x = cx + dx, y = cy + dy;
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      const uint8_t* c = px + (std::size_t(y) * w + x) * 4;
      red = red || (c[0] > 200 && c[1] < 120 && c[2] < 110);
    }
  stbi_image_free(px);
  EXPECT_TRUE(red) << "no red dot at " << cx << ", " << cy;
}

// A hand pulled out of reach against the humanoid preset's hard feet and balance: frame after
// frame the workbench goes on to the compromise a long solve finds (it stopped 80 mm short, at
// 2.9 times the long solve's error: each frame started the hard objectives' multipliers at zero
// and crawled under a large penalty, and the crawl, under 2 % a frame, read as a rest), the hard
// objectives hold, and no warning says they cannot (one fired on the way, a foot 0.1 mm off).
TEST_F(WholeBodyGui, AnOutOfReachHandGoesOnToTheLongSolvesCompromiseQuietly) {
  ASSERT_EQ(
      run("robot humanoid\nwait 30\ntarget 3 1.0 -0.25 0.887\nwait 150\n" +
          dump_cmd("frames.json") + "solver iterations 2000\nwait 20\n" + dump_cmd("long.json")),
      0)
      << log();
  const json f = dump("frames.json"), l = dump("long.json");
  const double frames = f["objectives"][3]["position_error"];
  const double once = l["objectives"][3]["position_error"];
  EXPECT_GT(once, 0.01);  // out of reach
  EXPECT_LE(frames, 1.02 * once) << "long solve " << once;
  for (int i : {0, 1, 6}) {
    EXPECT_TRUE(f["objectives"][i]["hard"].get<bool>()) << i;
    EXPECT_TRUE(f["objectives"][i]["reached"].get<bool>()) << i;
  }
  for (const json& m : f["messages"])
    EXPECT_EQ(m["text"].get<std::string>().find("cannot"), std::string::npos) << m["text"];
}

// a look_at objective's line of sight in world, from the dump: its "axis" (link frame) turned
// by the link's orientation (current, x y z w)
std::array<double, 3> sight(const json& o) {
  const json& r = o["current"]["orientation"];
  const double x = r[0], y = r[1], z = r[2], w = r[3];
  const double a[3] = {o["axis"][0], o["axis"][1], o["axis"][2]};
  // v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
  const double t[3] = {2 * (y * a[2] - z * a[1]), 2 * (z * a[0] - x * a[2]),
                       2 * (x * a[1] - y * a[0])};
  const double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  return {(a[0] + w * t[0] + (y * t[2] - z * t[1])) / n,
          (a[1] + w * t[1] + (z * t[0] - x * t[2])) / n,
          (a[2] + w * t[2] + (x * t[1] - y * t[0])) / n};
}

// the angle (rad) between the line of sight and the direction to the point it looks at
double gaze_angle(const json& o) {
  const std::array<double, 3> s = sight(o);
  double d[3], dd = 0, dot = 0;
  for (int k = 0; k < 3; ++k) {
    d[k] = o["looks_at"][k].get<double>() - o["current"]["position"][k].get<double>();
    dd += d[k] * d[k];
  }
  for (int k = 0; k < 3; ++k) dot += s[k] * d[k] / std::sqrt(dd);
  return std::acos(std::max(-1.0, std::min(1.0, dot)));
}

// the humanoid preset's gaze (objective 8) follows the right palm: dragged out to the robot's
// right and then in front of it, the head turns with it, the palm stays within the 0.75 rad cone
// and the hand on its target. `set 8 at target` leaves the target where the palm was; undo follows
// again.
// A review's story 2: the humanoid's right hand dragged 1.2 m forward (out of reach), the posture
// taken out of the null space and turned down, then the left hand made hard. The hard set (feet,
// left hand, balance) holds together. Every seed ran each frame (no budget); the warm start,
// kept while another seed was the best, read as holding its hard objectives (only the best
// seed's violation was known), the next frame capped its penalty, and the feet and the left hand
// stayed 0.3-0.5 mm off for good, with a warning that they could not all hold.
TEST_F(WholeBodyGui, AHardSetThatHoldsTogetherHoldsWhenAnotherSeedIsTheBest) {
  ASSERT_EQ(run("robot humanoid\nwait 30\ndrag 3 TranslateX 120cm 0 0 frames 60\nwait 120\n"
                "set 4 null_space off\nwait 90\nweight 4 0.1\nwait 93\nweight 4 0.01\nwait 90\n"
                "hard 2 on\nwait 130\n" +
                dump_cmd("held.json")),
            0)
      << log();
  const nlohmann::json d = dump("held.json");
  for (const nlohmann::json& o : d["objectives"]) {
    if (!o["hard"].get<bool>()) continue;
    EXPECT_LT(o["violation"].get<double>(), 1e-4) << o["name"];
  }
  EXPECT_EQ(log().find("cannot all hold"), std::string::npos) << log();
}

// Both hands dragged out of reach with self collision hard (a review's figure): the feet hold.
// The null-space posture pulled the floating base's position toward the rest against the hard
// feet, which settled 0.16 / 0.26 mm off for good, "traded off", with a warning that the hard
// objectives could not all hold
TEST_F(WholeBodyGui, HardFeetHoldWithBothHandsOutOfReach) {
  ASSERT_EQ(run("robot humanoid\nwait 20\nhard 7 on\ndrag 3 TranslateX 1.2 0 0 frames 10\n"
                "wait 60\ndrag 2 TranslateY 0 -1.0 0 frames 10\nwait 100\n" +
                dump_cmd("out.json")),
            0)
      << log();
  const nlohmann::json d = dump("out.json");
  for (int i : {0, 1}) {
    EXPECT_LT(d["objectives"][i]["violation"].get<double>(), 1e-4) << d["objectives"][i]["name"];
    EXPECT_EQ(d["objectives"][i]["status"], "reached") << d["objectives"][i]["name"];
  }
  EXPECT_EQ(log().find("cannot all hold"), std::string::npos) << log();
}

TEST_F(WholeBodyGui, HumanoidHeadFollowsTheRightHand) {
  ASSERT_EQ(run("robot humanoid\nwait 30\n" + dump_cmd("rest.json") +
                "target 3 0.05 -0.6 0.887\nwait 60\n" + dump_cmd("right.json") +
                "target 3 0.45 0.0 0.887\nwait 60\n" + dump_cmd("front.json") +
                "set 8 at target\nwait 5\n" + dump_cmd("target.json") + "undo\nwait 5\n" +
                dump_cmd("undone.json")),
            0)
      << log();
  double heading[3];
  int k = 0;
  for (const char* name : {"rest.json", "right.json", "front.json"}) {
    const json d = dump(name);
    const json& gaze = d["objectives"][8];
    const json& hand = d["objectives"][3];
    ASSERT_EQ(gaze["type"], "look_at") << name;
    EXPECT_EQ(gaze["link_b"], "right_hand") << name;
    EXPECT_TRUE(gaze["reached"].get<bool>()) << name;
    EXPECT_TRUE(hand["reached"].get<bool>()) << name;
    // it looks at the palm, the hand objective's point (both 7 cm down the hand)
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(gaze["looks_at"][i].get<double>(), hand["current"]["position"][i].get<double>(),
                  1e-9)
          << name;
    EXPECT_LE(gaze_angle(gaze), 0.75 + 1e-3) << name;
    const std::array<double, 3> s = sight(gaze);
    heading[k++] = std::atan2(s[1], s[0]);
  }
  // the head turned with the hand: out to the right, then back toward the front
  EXPECT_LT(heading[1], heading[0] - 0.1);
  EXPECT_GT(heading[2], heading[1] + 0.2);

  const json front = dump("front.json"), t = dump("target.json"), u = dump("undone.json");
  EXPECT_FALSE(t["objectives"][8].contains("link_b"));
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(t["objectives"][8]["target"]["position"][i].get<double>(),
                front["objectives"][8]["looks_at"][i].get<double>(), 1e-6);
  EXPECT_EQ(u["objectives"][8]["link_b"], "right_hand");
  EXPECT_EQ(front["gl_errors"], 0) << front["gl_error_messages"].dump();
}

}  // namespace
