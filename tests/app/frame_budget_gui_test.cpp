// GUI test of the frame budget (AppState::frame_budget_ms, SolverDriver): the script command, the
// state dump's solver.frame_budget_ms and solver.budget, the pool's seeds continuing across
// frames, and the scene round trip. Budgets here are large wherever the test checks what ran,
// so it checks behaviour, never timing.
#include <gtest/gtest.h>

#include "tests/app/gui_script_fixture.hpp"

namespace ikwb::test {
namespace {

using nlohmann::json;

class FrameBudget : public GuiScript {};

TEST_F(FrameBudget, ScriptDumpPoolAndSceneRoundTrip) {
  ASSERT_EQ(run("robot panda\nwait 2\n" + dump_cmd("default.json") +
                "frame_budget 1000\n"
                "target 0 0.45 0.25 0.35\nwait 3\n" +
                dump_cmd("reached.json") +
                // out of reach: the warm start never converges, the pool advances
                "target 0 2.5 0 0.5\nwait 1\n" + dump_cmd("far1.json") + "wait 1\n" +
                dump_cmd("far2.json") + "save_scene " + path("saved.json") +
                "\nframe_budget off\nwait 1\n" + dump_cmd("off.json") + "scene " +
                path("saved.json") + "\nwait 1\n" + dump_cmd("loaded.json")),
            0)
      << log();
  // a script runs without a budget (it counts frames) until it sets one
  EXPECT_EQ(dump("default.json")["solver"]["frame_budget_ms"].get<double>(), 0.0);

  const json reached = dump("reached.json")["solver"];
  EXPECT_EQ(reached["frame_budget_ms"].get<double>(), 1000.0);
  EXPECT_TRUE(reached["converged"].get<bool>());
  EXPECT_TRUE(reached["budget"]["on"].get<bool>());
  EXPECT_TRUE(reached["budget"]["stopped_converged"].get<bool>());
  EXPECT_EQ(reached["budget"]["pool_seeds"].get<int>(), 0);

  const json b1 = dump("far1.json")["solver"]["budget"], b2 = dump("far2.json")["solver"]["budget"];
  EXPECT_FALSE(b1["stopped_converged"].get<bool>());
  EXPECT_GT(b1["pool_seeds"].get<int>(), 0);
  EXPECT_GT(b2["pool_iterations"].get<int>(), 0);
  // the same pool, its seeds' iterations accumulating
  EXPECT_EQ(b1["pool_generation"], b2["pool_generation"]);
  const json& i1 = b1["pool_seed_iterations"];
  const json& i2 = b2["pool_seed_iterations"];
  ASSERT_EQ(i1.size(), i2.size());
  int grown = 0;
  for (std::size_t k = 0; k < i1.size(); ++k) {
    EXPECT_GE(i2[k].get<int>(), i1[k].get<int>()) << k;
    grown += i2[k].get<int>() - i1[k].get<int>();
  }
  // (a dump is written at the end of a frame of its own: more than one frame between them)
  EXPECT_GE(grown, b2["pool_iterations"].get<int>());

  json saved = json::parse(read_text(path("saved.json")));
  EXPECT_EQ(saved["extra"]["frame_budget_ms"].get<double>(), 1000.0);
  const json off = dump("off.json")["solver"];
  EXPECT_EQ(off["frame_budget_ms"].get<double>(), 0.0);
  EXPECT_FALSE(off["budget"]["on"].get<bool>());
  EXPECT_EQ(dump("loaded.json")["solver"]["frame_budget_ms"].get<double>(), 1000.0);
}

TEST_F(FrameBudget, BadValuesAreRefused) {
  EXPECT_NE(run("robot panda\nframe_budget -1\n"), 0);
  EXPECT_NE(log().find("frame_budget MS"), std::string::npos) << log();
}

}  // namespace
}  // namespace ikwb::test
