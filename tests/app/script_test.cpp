// Tests for app/gui/script: parsing (commands, argument counts, units, quotes, comments, errors
// with file and line) and the shipped example scripts. No window needed.
#include "app/gui/script.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/script_args.hpp"

namespace ikwb::gui {
namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_script(text, "t.txt");
  } catch (const ScriptError& e) {
    return e.what();
  }
  return "";
}

TEST(Script, ParsesCommandsCommentsAndQuotes) {
  auto c = parse_script(
      "# a comment\n"
      "\n"
      "robot panda   # trailing comment\n"
      "load \"/tmp/a folder/robot.urdf\"\n"
      "add pose panda_hand_tcp offset 0 0 1cm weight 2 hard\n"
      "drag 0 TranslateX 10cm 0 0 frames 12 snap\n"
      "drag 0 RotateZ 45deg\n"
      "drag_pose 0 0.1 0 0 0 0 45deg frames 5\n"
      "joint panda_joint1 30deg\n"
      "wait 3\n",
      "t.txt");
  ASSERT_EQ(c.size(), 8u);
  EXPECT_EQ(c[0].line, 3);
  EXPECT_EQ(c[0].args, (std::vector<std::string>{"robot", "panda"}));
  EXPECT_EQ(c[1].args[1], "/tmp/a folder/robot.urdf");
  EXPECT_EQ(c[2].args.size(), 10u);
  EXPECT_EQ(c[7].line, 10);
}

TEST(Script, ErrorsNameFileLineAndProblem) {
  EXPECT_EQ(parse_error("robot panda\nteleport 1 2\n"), "t.txt:2: unknown command 'teleport'");
  EXPECT_NE(parse_error("wait\n").find("t.txt:1: 'wait' takes 1 arguments, got 0"),
            std::string::npos);
  EXPECT_NE(parse_error("weight 0 -1\n").find("t.txt:1: weight: expected"), std::string::npos);
  EXPECT_NE(parse_error("hard 0 maybe\n").find("on|off"), std::string::npos);
  EXPECT_NE(parse_error("drag 0 TranslateQ 1 0 0\n").find("unknown gizmo handle"),
            std::string::npos);
  EXPECT_NE(parse_error("drag 0 RotateZ 1 2 3\n").find("one angle"), std::string::npos);
  EXPECT_NE(parse_error("drag 0 TranslatePlaneXY 1cm\n").find("DX DY DZ"), std::string::npos);
  EXPECT_NE(parse_error("drag 0 TranslateX 1 0 0 frames 0\n").find("positive frame count"),
            std::string::npos);
  EXPECT_NE(parse_error("drag 0 TranslateX 1 0 0 frames 3 extra\n").find("unexpected 'extra'"),
            std::string::npos);
  EXPECT_NE(parse_error("drag_pose 0 1 2 3\n").find("takes 7 or more"), std::string::npos);
  EXPECT_NE(parse_error("drag_pose 0 1 0 0 0 0 1km\n").find("is not an angle"), std::string::npos);
  EXPECT_NE(parse_error("joint j one\n").find("joint NAME VALUE"), std::string::npos);
  EXPECT_NE(parse_error("key F13\n").find("unknown key"), std::string::npos);
  EXPECT_NE(parse_error("camera roll 3\n").find("unknown camera setting"), std::string::npos);
  EXPECT_NE(parse_error("expect happiness\n").find("unknown expectation"), std::string::npos);
  EXPECT_NE(parse_error("view sky on\n").find("view grid"), std::string::npos);
  EXPECT_NE(parse_error("click 1 2 thumb\n").find("click X Y"), std::string::npos);
  EXPECT_NE(parse_error("demo weights_tug_of_wor\n")
                .find("t.txt:1: demo: no demo 'weights_tug_of_wor' in "),
            std::string::npos);
  EXPECT_NE(parse_error("demo weights_tug_of_wor\n").find("weights_tug_of_war"), std::string::npos);
  EXPECT_EQ(parse_error("demo weights_tug_of_war\n"), "");
  // every bad line at once, one a line
  EXPECT_EQ(parse_error("wait 1\nteleport\nwait 2\nweight 0 -1\nfly\n"),
            "t.txt:2: unknown command 'teleport'\nt.txt:4: weight: expected: weight INDEX VALUE "
            "(0 to 1e6)\nt.txt:5: unknown command 'fly'");
  std::string many;
  for (int i = 0; i < 25; ++i) many += "fly\n";
  const std::string listed = parse_error(many);
  EXPECT_NE(listed.find("t.txt:20: unknown command 'fly'\n(5 more lines with errors)"),
            std::string::npos)
      << listed;
}

// A script that opens a robot first does not start on the default robot; a shipped demo whose
// first command opens one counts (a trade show's `demo quadruped_show` then `repeat` opened the
// default Panda first, at every start)
TEST(Script, ADemoThatOpensARobotOpensItFirst) {
  const std::string dir = ::testing::TempDir();
  auto opens = [&](const std::string& text) {
    const std::string path = dir + "/opens.txt";
    std::ofstream(path) << text;
    ScriptRunner r;
    r.load(path);
    return r.opens_robot_first();
  };
  EXPECT_TRUE(opens("robot panda\nwait 1\n"));
  EXPECT_TRUE(opens("demo quadruped_show\nrepeat\n"));
  EXPECT_FALSE(opens("wait 1\nrobot panda\n"));
  EXPECT_TRUE(opens("demo humanoid_stance\n"));  // its first command opens a scene
}

TEST(Script, AcceptsUnits) {
  EXPECT_EQ(parse_error("target 0 10cm 2mm 0.3m\n"), "");
  EXPECT_EQ(parse_error("camera yaw 30deg pitch 0.2 distance 150cm target 0 0 50cm\n"), "");
  EXPECT_EQ(parse_error("expect position_error 0 < 2mm\nexpect rotation_error 0 < 1deg\n"), "");
  EXPECT_NE(parse_error("target 0 10furlongs 0 0\n"), "");
  // a target beyond the solver's bound (kMaxLength) is refused with the script
  EXPECT_NE(parse_error("target 0 1e7 0 0.5\n").find("a target position within 1e6 m per axis"),
            std::string::npos);
  EXPECT_EQ(parse_error("target 0 1e6 0 -1e6\n"), "");
  // so is a joint value (1e308 deg was taken, and said to be "inf deg")
  EXPECT_NE(parse_error("joint j 1e308deg\n").find("within 1e6 (rad or m)"), std::string::npos);
  EXPECT_NE(parse_error("joint j -2e6\n").find("within 1e6 (rad or m)"), std::string::npos);
  EXPECT_EQ(parse_error("joint j 90deg\n"), "");
  // a quaternion is unit, as in the command line's T.csv (to 1e-3: typed values round)
  EXPECT_NE(parse_error("target 0 0.5 0 0.4 1 1 1 1\n").find("is not unit (norm 2"),
            std::string::npos);
  EXPECT_EQ(parse_error("target 0 0.5 0 0.4 0 0 0.7071 0.7071\n"), "");
  EXPECT_NE(parse_error("drag 0 TranslateX 1e9\n").find("a drag moves at most 1e6 m per axis"),
            std::string::npos);
  // camera values the camera cannot take are refused, not clamped
  EXPECT_NE(parse_error("camera distance -5\n").find("camera distance must be > 0"),
            std::string::npos);
  EXPECT_NE(parse_error("camera fov 0\n").find("camera fov must be within"), std::string::npos);
  EXPECT_NE(parse_error("camera pitch 90deg\n").find("camera pitch must be within"),
            std::string::npos);
  // beyond a scene's camera values, which overflowed the camera's floats
  EXPECT_NE(parse_error("camera distance 1e300\n").find("<= 1e6 m"), std::string::npos);
  EXPECT_NE(parse_error("camera yaw 1e300\n").find("camera yaw must be within"), std::string::npos);
  EXPECT_NE(parse_error("camera target 1e300 0 0\n").find("camera target must be within"),
            std::string::npos);
  EXPECT_NE(parse_error("camera target 0 0 1e300\n").find("camera target must be within"),
            std::string::npos);
  // counts and indices beyond kMaxIndex (2^31 wrapped negative: a crash, a wait without end)
  EXPECT_NE(parse_error("weight 3000000000 1\n"), "");
  EXPECT_NE(parse_error("wait 3000000000\n"), "");
  EXPECT_EQ(parse_error("wait 1000000000\n"), "");
  // a limit beyond 1e6 overflowed the joint slider's floats (an ImGui assertion); inf is none
  EXPECT_NE(parse_error("limits j -1 1e300\n").find("within 1e6"), std::string::npos);
  EXPECT_EQ(parse_error("limits j -1 inf\n"), "");
}

TEST(ScriptArgs, UnitsSwitchesKeysAndTokens) {
  double v = 0;
  EXPECT_TRUE(length_value("10cm", &v));
  EXPECT_DOUBLE_EQ(v, 0.1);
  EXPECT_TRUE(length_value("-25mm", &v));
  EXPECT_DOUBLE_EQ(v, -0.025);
  EXPECT_TRUE(length_value("1.5m", &v));
  EXPECT_DOUBLE_EQ(v, 1.5);
  EXPECT_FALSE(length_value("1.5 m", &v));
  EXPECT_TRUE(angle_value("90deg", &v));
  EXPECT_DOUBLE_EQ(v, 1.5707963267948966);
  EXPECT_TRUE(angle_value("0.5rad", &v));
  EXPECT_DOUBLE_EQ(v, 0.5);
  EXPECT_FALSE(angle_value("nan", &v));
  bool b = false;
  EXPECT_TRUE(on_off("on", &b) && b);
  EXPECT_TRUE(on_off("false", &b) && !b);
  EXPECT_FALSE(on_off("maybe", &b));
  int i = 0;
  EXPECT_TRUE(index_value("3", &i) && i == 3);
  EXPECT_FALSE(index_value("-1", &i));
  EXPECT_FALSE(index_value("1.5", &i));
  EXPECT_FALSE(index_value("3000000000", &i));
  EXPECT_TRUE(index_value("1000000000", &i) && i == kMaxIndex);
  EXPECT_EQ(key_code("w"), GLFW_KEY_W);
  EXPECT_EQ(key_code("F12"), GLFW_KEY_F12);
  EXPECT_EQ(key_code("escape"), GLFW_KEY_ESCAPE);
  EXPECT_EQ(key_code("hyper"), -1);
  EXPECT_EQ(button_index("middle"), 2);
  EXPECT_EQ(tokenize("a \"b c\"  d # e"), (std::vector<std::string>{"a", "b c", "d"}));
  EXPECT_EQ(tokenize("\"\""), (std::vector<std::string>{""}));
  // a quote and a backslash inside quotes (a name could not hold a quote)
  EXPECT_EQ(tokenize(R"(name "a \"q\" \\ b" c\d)"),
            (std::vector<std::string>{"name", "a \"q\" \\ b", "c\\d"}));
}

TEST(Script, ShippedScriptsParse) {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& e : fs::directory_iterator(fs::path(IKWB_SOURCE_DIR) / "assets" / "scripts")) {
    if (e.path().extension() != ".txt") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_NO_THROW(parse_script(ss.str(), e.path().string())) << e.path();
    ++count;
  }
  EXPECT_GE(count, 2);
}

}  // namespace
}  // namespace ikwb::gui
