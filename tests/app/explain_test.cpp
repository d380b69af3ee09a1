// GUI tests of the compromise explanation (solver/compromise.hpp run by SolverDriver once the
// robot rests): the humanoid's left hand dragged 10 cm forward with the posture as a weighted
// cost is traded off, and the state dump and `expect status` say so, with who pulls; with the
// presets' null-space posture it is reached; a Panda target 1.5 m away is out of reach; nothing
// is explained during a drag.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "gui_script_fixture.hpp"

namespace {

using json = nlohmann::json;

class Explain : public ikwb::test::GuiScript {};

TEST_F(Explain, HumanoidHandHeldBackByPostureIsTradedOffAndPostureIsAPuller) {
  ASSERT_EQ(run("robot humanoid\n"
                "set 4 null_space off\n"
                "weight 4 0.05\n"
                "wait 5\n"
                "drag 2 TranslateX 10cm 0 0 frames 30\n" +
                dump_cmd("drag_end.json") +
                "wait 150\n"
                "expect status 2 traded_off\n"
                "expect status 0 reached\n" +
                dump_cmd("rest.json")),
            0)
      << log();
  const json end = dump("drag_end.json");
  EXPECT_TRUE(end["objectives"][2]["status"].is_null()) << end["objectives"][2].dump();

  const json d = dump("rest.json");
  const json& hand = d["objectives"][2];
  EXPECT_EQ(hand["status"], "traded_off");
  EXPECT_FALSE(hand["reached"].get<bool>());
  EXPECT_EQ(hand["share_unit"], "m");
  ASSERT_FALSE(hand["pulled_by"].empty()) << hand.dump();
  double sum = 0;
  bool posture = false;
  for (const json& p : hand["pulled_by"]) {
    sum += p["share"].get<double>();
    posture |= p["objective"] == 4;
  }
  EXPECT_TRUE(posture) << hand.dump();
  // less what the others help by (the panels' "helped by the others by"), the shares split the
  // error
  ASSERT_TRUE(hand.contains("helped_by_others")) << hand.dump();
  const double helped = hand["helped_by_others"];
  EXPECT_GE(helped, 0.0);
  EXPECT_NEAR(sum - helped, hand["position_error"].get<double>(),
              0.1 * hand["position_error"].get<double>());
  // the helpers by name: part of that help (the rest, under 1% each, is "the others")
  ASSERT_TRUE(hand.contains("helped_by")) << hand.dump();
  double named = 0;
  for (const json& h : hand["helped_by"]) {
    EXPECT_GT(h["share"].get<double>(), 0.0);
    EXPECT_NE(h["objective"], 2);
    named += h["share"].get<double>();
  }
  EXPECT_LE(named, helped + 1e-12) << hand.dump();
  EXPECT_TRUE(hand["blocked_by"].empty());
  for (int i : {0, 1, 4, 5}) EXPECT_EQ(d["objectives"][i]["status"], "reached") << i;
  EXPECT_GE(d["solver"]["explanations"].get<int>(), 1);
  EXPECT_GT(d["solver"]["explain_ms"].get<double>(), 0.0);
  EXPECT_GE(d["solver"]["explain_solves"].get<int>(), 1);
}

// the right hand 95 cm forward: the hard feet, balance and the shoulder stop it about 8 cm
// short; the dump's best_error says how close it gets without the other soft objectives, and
// the pulls split only what they hold back
TEST_F(Explain, ABlockedHandSaysHowCloseItGetsAtBest) {
  ASSERT_EQ(run("robot humanoid\n"
                "target 3 1.041 -0.3467 0.7454\n"
                "wait 300\n"
                "expect status 3 blocked\n" +
                dump_cmd("rest.json")),
            0)
      << log();
  const json hand = dump("rest.json")["objectives"][3];
  ASSERT_TRUE(hand["best_error"].is_number()) << hand.dump();
  const double error = hand["position_error"].get<double>(), best = hand["best_error"];
  EXPECT_GT(best, 0.5 * error) << hand.dump();
  EXPECT_LT(best, error) << hand.dump();
  double sum = 0;
  for (const json& p : hand["pulled_by"]) sum += p["share"].get<double>();
  EXPECT_LE(sum, (error - best) * (1 + 1e-6)) << hand.dump();
  EXPECT_TRUE(dump("rest.json")["objectives"][0]["best_error"].is_null());
}

// the presets keep the posture in the task's null space, so reachable hand and body targets are
// reached, not traded off against it
TEST_F(Explain, HumanoidAndQuadrupedPresetsReachReachableTargets) {
  ASSERT_EQ(run("robot humanoid\n"
                "wait 5\n"
                "drag 2 TranslateX 10cm 0 0 frames 30\n"
                "wait 100\n"
                "expect reached 2\n"
                "expect reached 3\n"
                "expect status 2 reached\n"
                "robot quadruped\n"
                "wait 5\n"
                "drag 4 TranslateZ -5cm frames 30\n"
                "wait 100\n"
                "expect reached 4\n"
                "expect status 4 reached\n"),
            0)
      << log();
}

TEST_F(Explain, PandaTargetFarAwayIsOutOfReach) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "drag 0 TranslateX 1.5 0 0 frames 40\n"
                "wait 80\n"
                "expect status 0 out_of_reach\n" +
                dump_cmd("far.json")),
            0)
      << log();
  const json d = dump("far.json");
  EXPECT_EQ(d["objectives"][0]["status"], "out_of_reach");
  EXPECT_TRUE(d["objectives"][0]["out_of_reach"].get<bool>());
  EXPECT_TRUE(d["objectives"][0]["blocked_by"].empty());
}

// a configuration stored while a target is missed says so; a hard target that cannot hold is
// a log warning once the robot rests (once, not every frame)
TEST_F(Explain, StoringAMissAndAHardObjectiveThatCannotHoldAreSaid) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "drag 0 TranslateX 1.5 0 0 frames 40\n"
                "wait 80\n"
                "store\n"
                "hard 0 on\n"
                "wait 80\n"),
            0)
      << log();
  const std::string l = log();
  EXPECT_NE(l.find("stored configuration 1 misses 'tcp pose' by "), std::string::npos) << l;
  const std::size_t hard = l.find("a hard objective cannot hold here: 'tcp pose' ");
  EXPECT_NE(hard, std::string::npos) << l;
  EXPECT_EQ(l.find("a hard objective cannot hold here", hard + 1), std::string::npos) << l;
}

// a self_collision objective added where fitted capsules overlap already (the iiwa7's URDF
// without its SRDF: links 5 and 7 across the wrist) says so, naming the deepest pair
TEST_F(Explain, AddingSelfCollisionWherePairsOverlapSaysSo) {
  ASSERT_EQ(run("robot " + std::string(IKWB_SOURCE_DIR) +
                "/assets/robots/iiwa7/iiwa7.urdf\nwait 3\nadd self_collision\nwait 2\n"),
            0)
      << log();
  EXPECT_NE(log().find("1 pair overlaps at this pose already (deepest: iiwa_link_5 - "
                       "iiwa_link_7, 12.7 mm)"),
            std::string::npos)
      << log();
}

// self collision added on a robot whose collision meshes did not load (Menagerie's G1 without
// its mesh files: no torso, and an arm through it read every pair outside the margin) names the
// links it cannot see
TEST_F(Explain, AddingSelfCollisionWithoutSomeLinksMeshesSaysSo) {
  std::ofstream(path("bot.urdf")) << R"(<robot name="bot">
    <link name="base"><collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
    <link name="torso"><collision><geometry><mesh filename="torso.stl"/></geometry></collision>
    </link>
    <link name="arm"><collision><origin xyz="0.3 0 0"/><geometry><box size="0.4 0.05 0.05"/>
    </geometry></collision></link>
    <joint name="waist" type="revolute"><parent link="base"/><child link="torso"/>
      <origin xyz="0 0 0.3"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
    </joint>
    <joint name="shoulder" type="revolute"><parent link="torso"/><child link="arm"/>
      <origin xyz="0 0 0.2"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
    </joint></robot>)";
  ASSERT_EQ(run("robot bot.urdf\nwait 2\nadd self_collision\nwait 2\n"), 0) << log();
  EXPECT_NE(log().find("self_collision: " + path("bot.urdf") +
                       ": link 'torso': collision 0 has no loaded mesh; it is not used for "
                       "collisions"),
            std::string::npos)
      << log();
}

// a pose target on a 7-dof arm without a posture leaves a dof to drift: the Messages say so
// and how to hold it; with a posture (the preset's) nothing is said
TEST_F(Explain, ATargetThatLeavesDofsFreeSuggestsAPosture) {
  ASSERT_EQ(run("robot " + std::string(IKWB_SOURCE_DIR) +
                "/assets/robots/iiwa7/iiwa7.urdf\nwait 2\nadd pose iiwa_link_ee\nwait 1\n" +
                dump_cmd("plain.json") + "robot iiwa7\nwait 2\nadd position iiwa_link_4\nwait 1\n" +
                dump_cmd("preset.json")),
            0)
      << log();
  auto said = [](const json& d) {
    int n = 0;
    for (const json& m : d["messages"])
      n += m["text"].get<std::string>().find("1 dof is left free by it and drifts") !=
           std::string::npos;
    return n;
  };
  EXPECT_EQ(said(dump("plain.json")), 1) << dump("plain.json")["messages"].dump();
  EXPECT_EQ(said(dump("preset.json")), 1);  // no second
}

TEST_F(Explain, TradedOffTargetsAreNotOutOfReach) {
  // two targets 40 cm apart pull the Panda's hand: each is reachable alone
  ASSERT_EQ(run("robot panda\nremove 0\nadd position panda_hand_tcp weight 1\n"
                "add position panda_hand_tcp weight 1\ntarget 2 0.5 0.2 0.45\n"
                "target 3 0.5 -0.2 0.45\nwait 80\nexpect status 2 traded_off\n" +
                dump_cmd("tug.json") + "expect out_of_reach 2\n"),
            1)
      << log();
  EXPECT_NE(log().find("expect: out_of_reach 2 failed (status traded_off"), std::string::npos)
      << log();
  // the dump bound first: a loop over dump(...)["objectives"] ran over a destroyed temporary
  const json tug = dump("tug.json");
  ASSERT_EQ(tug["objectives"].size(), 4u);
  for (const json& o : tug["objectives"]) {
    EXPECT_EQ(o["out_of_reach"].get<bool>(), o["status"] == "out_of_reach") << o.dump();
    EXPECT_EQ(o["out_of_reach_by"].get<double>(), 0.0) << o.dump();
  }
  EXPECT_EQ(tug["objectives"][2]["status"], "traded_off");
}

// the tug-of-war's two targets on the hand are told apart by name: in the saved scene, in
// `ikwb solve --explain` and in a targets file (which refused the scene: "2 objectives are
// named ...")
TEST_F(Explain, TheTugOfWarsTwoTargetsHaveNamesOfTheirOwn) {
  ASSERT_EQ(run("robot panda\nremove 0\nadd position panda_hand_tcp weight 1\n"
                "add position panda_hand_tcp weight 1\ntarget 2 0.5 0.2 0.45\n"
                "target 3 0.5 -0.2 0.45\nwait 2\nsave_scene " +
                path("tug.json") + "\n"),
            0)
      << log();
  std::ofstream(path("targets.csv"))
      << "position panda_hand_tcp.x,position panda_hand_tcp.y,position panda_hand_tcp.z,"
         "position panda_hand_tcp 2.x,position panda_hand_tcp 2.y,position panda_hand_tcp 2.z\n"
         "0.5,0.2,0.45,0.5,-0.2,0.45\n";
  const std::string cmd = "cd \"" + dir_.string() + "\" && \"" + IKWB_BINARY_DIR +
                          "/ikwb\" solve --scene tug.json --targets targets.csv --out q.csv "
                          "--explain > cli.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ikwb::test::read_text(path("cli.txt"));
  const std::string cli = ikwb::test::read_text(path("cli.txt"));
  EXPECT_NE(cli.find("pulled by \"position panda_hand_tcp 2\""), std::string::npos) << cli;
  EXPECT_NE(cli.find("pulled by \"position panda_hand_tcp\""), std::string::npos) << cli;
}

// a soft target of weight 0 far out of reach is not pursued: the robot settles as if it were
// off, nothing is best effort, and the panel's numbers are its real distance
TEST_F(Explain, ATargetOfWeightZeroIsNotPursuedAndNotMissed) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "weight 0 0\n"
                "target 0 1.5 0 0.4\n"
                "wait 60\n"
                "expect status 0 not_pursued\n" +
                dump_cmd("zero.json")),
            0)
      << log();
  const json d = dump("zero.json");
  const json& o = d["objectives"][0];
  EXPECT_FALSE(o["pursued"].get<bool>());
  EXPECT_FALSE(o["reached"].get<bool>());
  EXPECT_GT(o["position_error"].get<double>(), 0.5) << o.dump();
  EXPECT_TRUE(o["status"].is_null()) << o.dump();
  EXPECT_NE(d["solver"]["state"], "best effort") << d["solver"].dump();
}

TEST_F(Explain, ExpectStatusFailsOnTheWrongWordAndRefusesUnknownWords) {
  EXPECT_EQ(run("robot panda\n"
                "wait 40\n"
                "expect status 0 traded_off\n"),
            1)
      << log();
  EXPECT_NE(log().find("status reached"), std::string::npos) << log();
  EXPECT_EQ(run("robot panda\n"
                "expect status 0 far\n"),
            2)
      << log();
}

}  // namespace
