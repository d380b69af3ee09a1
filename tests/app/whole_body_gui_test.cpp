// The whole-body kinds, joint locks and live limits through the real workbench (a script under
// Xvfb): the state dump reports them, undo restores them, and the overlays draw without GL
// errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "app/gui_script_fixture.hpp"

namespace {

using nlohmann::json;

class WholeBodyGui : public ikwb::test::GuiScript {};

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

}  // namespace
