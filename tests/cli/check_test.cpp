// `ikwb check` (closest pairs per configuration, exit status 3 on a collision, SRDF sampling)
// and `ikwb solve --scene` with obstacles and collision objectives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/robot_args.hpp"
#include "cli/run_command.hpp"
#include "core/temp_files.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

using test::CmdResult;
using test::TempDir;

// a 0.4 m high wall in front of the Panda and a table under it
const char* kScene = R"({"version": 1, "robot": "panda",
  "objectives": [
    {"type": "position", "name": "reach", "link": "panda_hand_tcp",
     "target": {"position": [0.66, -0.1, 0.19]}},
    {"type": "world_collision", "margin": 0.01, "hard": true},
    {"type": "self_collision", "hard": true}],
  "obstacles": [
    {"name": "table", "type": "box", "size": [1.2, 1.2, 0.04],
     "pose": {"position": [0.5, 0, -0.03]}},
    {"name": "wall", "type": "box", "size": [0.1, 0.6, 0.4],
     "pose": {"position": [0.45, 0, 0.2]}}]})";

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    std::string x;
    while (std::getline(ls, x, ',')) f.push_back(x);
    rows.push_back(f);
  }
  return rows;
}

// the configuration columns of `ikwb solve` output rows
std::string q_columns(const std::string& out_csv) {
  auto rows = csv_rows(out_csv);
  std::string text;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    for (std::size_t k = 4; k < rows[i].size(); ++k) text += (k > 4 ? "," : "") + rows[i][k];
    text += "\n";
  }
  return text;
}

TEST(CliCheck, SceneSolveStaysClearAndCheckSaysSo) {
  TempDir dir;
  std::string scene = dir.write("s.json", kScene);
  std::string out = dir / "out.csv";
  CmdResult r = test::run_command(cmd_solve, {"solve", "--scene", scene, "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solved 1/1"), std::string::npos) << r.out;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string q = dir.write("q.csv", q_columns(ss.str()));
  CmdResult c = test::run_command(cmd_check, {"check", "panda", "--q", q, "--scene", scene});
  ASSERT_EQ(c.code, 0) << c.err;
  auto rows = csv_rows(c.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "config");
  EXPECT_EQ(rows[1][1], "no");
  // the closest pair keeps the 1 cm margin (the constraint tolerance is far below 1 mm)
  EXPECT_GT(test::number(rows[1][4]), 0.009);
  EXPECT_NE(c.err.find("0 of 1 configurations in collision"), std::string::npos) << c.err;
}

TEST(CliCheck, ConfigurationThroughTheWallCollides) {
  TempDir dir;
  std::string scene = dir.write("s.json", kScene);
  // the neutral Panda with joint 2 bent forward puts the forearm into the wall
  std::string q = dir.write("q.csv", "0,0,0,-0.1,0,1.6,0.8,0.02\n0,1.2,0,-0.5,0,1.6,0.8,0.02\n");
  CmdResult c = test::run_command(cmd_check, {"check", "panda", "--q", q, "--scene", scene});
  EXPECT_EQ(c.code, 3) << c.err;
  auto rows = csv_rows(c.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "no");
  EXPECT_EQ(rows[2][1], "yes");
  EXPECT_LT(test::number(rows[2][4]), 0.0);
  EXPECT_EQ(rows[2][3].rfind("obstacle:", 0), 0u) << rows[2][3];
}

// an ASCII STL of the cube [-0.5, 0.5]^3
std::string stl_cube() {
  const double v[8][3] = {{-.5, -.5, -.5}, {.5, -.5, -.5}, {.5, .5, -.5}, {-.5, .5, -.5},
                          {-.5, -.5, .5},  {.5, -.5, .5},  {.5, .5, .5},  {-.5, .5, .5}};
  const int f[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                        {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  std::string stl = "solid cube\n";
  for (const auto& t : f) {
    stl += " facet normal 0 0 0\n  outer loop\n";
    for (int k : t)
      stl += "   vertex " + std::to_string(v[k][0]) + " " + std::to_string(v[k][1]) + " " +
             std::to_string(v[k][2]) + "\n";
    stl += "  endloop\n endfacet\n";
  }
  return stl + "endsolid cube\n";
}

// a link whose only collision shape is a mesh takes part in the check: the sliding sphere
// enters the cube at the second configuration
TEST(CliCheck, CollisionMeshesAreLoaded) {
  TempDir dir;
  dir.write("cube.stl", stl_cube());
  const std::string urdf = dir.write("r.urdf", R"(<robot name="r">
  <link name="a"><collision><geometry><mesh filename="cube.stl"/></geometry></collision></link>
  <joint name="j" type="prismatic"><parent link="a"/><child link="b"/><origin xyz="0 0 2"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="1" effort="1" velocity="1"/></joint>
  <link name="b"><collision><geometry><sphere radius="0.01"/></geometry></collision></link>
  <joint name="j2" type="continuous"><parent link="b"/><child link="c"/></joint>
  <link name="c"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
</robot>)");
  const std::string q = dir.write("q.csv", "j,j2\n0,0\n-1.8,0\n");
  CmdResult c = test::run_command(cmd_check, {"check", urdf, "--q", q});
  EXPECT_EQ(c.code, 3) << c.err;
  EXPECT_EQ(c.err.find("no loaded mesh"), std::string::npos) << c.err;
  auto rows = csv_rows(c.out);
  ASSERT_EQ(rows.size(), 3u) << c.out;
  EXPECT_EQ(rows[1][1], "no");
  EXPECT_EQ(rows[2][1], "yes");
  EXPECT_EQ(c.err.find("not checked"), std::string::npos) << c.err;
  // the cube missing, a link d beyond c: link a is not checked, and the summary says so (it read
  // as if every link was; a review)
  std::filesystem::remove(dir / "cube.stl");
  std::string more = test::read_text(urdf);
  more.replace(more.find("</robot>"), 8, R"(<joint name="j3" type="continuous"><parent link="c"/>
    <child link="d"/><origin xyz="0 0 0.5"/></joint>
  <link name="d"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
</robot>)");
  const std::string q3 = dir.write("q3.csv", "j,j2,j3\n0,0,0\n");
  c = test::run_command(cmd_check, {"check", dir.write("r3.urdf", more), "--q", q3});
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.err.find("configurations in collision (1 capsule pairs checked); not checked: the "
                       "collision meshes of a (not read: see the warnings above)"),
            std::string::npos)
      << c.err;
}

// a robot with nothing to check (its collision meshes are missing, or it has no geometry) is an
// error naming why, not a row of in_collision=no per configuration or an empty SRDF
TEST(CliCheck, NothingToCheckIsAnErrorThatSaysWhy) {
  TempDir dir;
  const std::string urdf = dir.write("r.urdf", R"(<robot name="r">
  <link name="a"><collision><geometry><mesh filename="meshes/a.stl"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0 0 1"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <link name="b"><collision><geometry><mesh filename="meshes/b.stl"/></geometry></collision></link>
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/><origin xyz="0 0 1"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <link name="c"><collision><geometry><mesh filename="meshes/c.stl"/></geometry></collision></link>
</robot>)");
  const std::string q = dir.write("q.csv", "j,j2\n0,0\n1,2\n");
  CmdResult c = test::run_command(cmd_check, {"check", urdf, "--q", q});
  EXPECT_EQ(c.code, 1) << c.err;
  EXPECT_EQ(c.out, "");
  EXPECT_NE(c.err.find("ikwb check: nothing can be checked: the robot has no collision geometry: "
                       "the meshes of 3 links were not loaded"),
            std::string::npos)
      << c.err;
  EXPECT_NE(c.err.find("3 elements of links 'a', 'b', 'c' have no loaded mesh"), std::string::npos)
      << c.err;
  const std::string srdf = dir / "r.srdf";
  c = test::run_command(cmd_check, {"check", urdf, "--sample-pairs", "10", "--out", srdf});
  EXPECT_EQ(c.code, 1) << c.err;
  EXPECT_NE(c.err.find("no pair of links to sample: the robot has no collision geometry"),
            std::string::npos)
      << c.err;
  EXPECT_FALSE(std::ifstream(srdf).good());
  const std::string bare =
      dir.write("bare.urdf", R"(<robot name="bare"><link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint></robot>)");
  c = test::run_command(cmd_check, {"check", bare, "--q", dir.write("q1.csv", "j\n0\n")});
  EXPECT_EQ(c.code, 1) << c.err;
  EXPECT_NE(c.err.find("no link has collision or visual elements"), std::string::npos) << c.err;
}

// scenes read collision meshes only when something uses them
TEST(CliCheck, ScenesReadCollisionMeshesOnlyWhenCollisionsAreEvaluated) {
  const std::string reach = R"({"version": 1, "robot": "panda", "objectives": [
    {"type": "position", "link": "panda_hand_tcp", "target": {"position": [0.5, 0, 0.5]}})";
  EXPECT_EQ(scene_mesh_files(parse_scene(reach + "]}", "s", "")), MeshFiles::kNone);
  EXPECT_EQ(scene_mesh_files(parse_scene(kScene, "s", "")), MeshFiles::kCollision);
  EXPECT_EQ(scene_mesh_files(parse_scene(
                reach + R"(, {"type": "self_collision", "enabled": false}]})", "s", "")),
            MeshFiles::kNone);
  EXPECT_EQ(scene_mesh_files(parse_scene(
                reach + R"(], "obstacles": [{"name": "b", "type": "sphere", "radius": 0.1,
                                     "pose": {"position": [1, 0, 0]}}]})",
                "s", "")),
            MeshFiles::kCollision);
}

// a shipped robot given by name checks with the SRDF beside it, as its preset does: the Panda's
// closed gripper (the finger capsules overlap) is no collision; given as a file path, every pair
// is checked and the closed gripper collides, with a hint about an SRDF
TEST(CliCheck, AShippedRobotByNameChecksWithItsSrdf) {
  TempDir dir;
  std::string q = dir.write("q.csv", "0,-0.785,0,-2.356,0,1.571,0.785,0\n");
  CmdResult named = test::run_command(cmd_check, {"check", "panda", "--q", q});
  EXPECT_EQ(named.code, 0) << named.err;
  EXPECT_NE(named.err.find("note: the shipped panda's SRDF: "), std::string::npos) << named.err;
  CmdResult file = test::run_command(cmd_check, {"check", resolve_robot("panda"), "--q", q});
  EXPECT_EQ(file.code, 3) << file.err;
  EXPECT_NE(file.out.find("panda_leftfinger,panda_rightfinger"), std::string::npos) << file.out;
  EXPECT_NE(file.err.find("check: no SRDF, so every pair not joined by a joint was checked"),
            std::string::npos)
      << file.err;
}

// a solve's output with a skipped target (a row of nan) is checked row by row, the skipped one
// written as unsolved (check refused the whole file, naming a pos_err column it does not read);
// a zero quaternion of a floating base is refused as fk refuses it (check took it for the
// identity)
TEST(CliCheck, ASolvesSkippedRowsAreMarkedAndZeroQuaternionsRefused) {
  TempDir dir;
  const std::string targets = dir.write("t.csv", "0.4,0.1,0.5\nnan,0.1,0.5\n0.4,0.1,0.5\n");
  const std::string solved = dir / "solved.csv";
  CmdResult r = test::run_command(cmd_solve, {"solve", "panda", "--link", "panda_hand_tcp",
                                              "--targets", targets, "--out", solved});
  ASSERT_EQ(r.code, 0) << r.err;
  r = test::run_command(cmd_check, {"check", "panda", "--q", solved});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  EXPECT_EQ(rows[1][1], "no");
  EXPECT_EQ(rows[2], (std::vector<std::string>{"1", "unsolved", "", "", "nan"}));
  EXPECT_EQ(rows[3][1], "no");
  EXPECT_NE(r.err.find("check: rows of targets `ikwb solve` skipped (all nan): 1, written as "
                       "in_collision=unsolved and not checked"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("check: 0 of 2 configurations in collision"), std::string::npos) << r.err;

  // the floating Panda: 7 base coordinates (a zero quaternion on line 2), then 8 joints
  const std::string zero =
      dir.write("zero.csv", "0,0,0,0,0,0,1,0,0,0,-2,0,1.5,0,0\n0,0,0,0,0,0,0,0,0,0,-2,0,1.5,0,0\n");
  r = test::run_command(cmd_check, {"check", "panda", "--floating-base", "--q", zero});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("zero.csv:2: the quaternion of joint 'root_joint' (root_joint_3 to "
                       "root_joint_6) is zero"),
            std::string::npos)
      << r.err;
}

// a scene of another robot is checked on the robot given, and that is said
TEST(CliCheck, ASceneOfAnotherRobotIsSaid) {
  TempDir dir;
  std::string q = dir.write("q.csv", "0,-0.785,0,-2.356,0,1.571,0.785,0\n");
  std::string ur5e = dir.write("ur5e.json", R"({"version": 1, "robot": "ur5e"})");
  CmdResult other = test::run_command(cmd_check, {"check", "panda", "--q", q, "--scene", ur5e});
  EXPECT_NE(other.err.find("warning: " + ur5e +
                           " is a scene of ur5e; its obstacles and collision "
                           "pairs are checked on " +
                           resolve_robot("panda")),
            std::string::npos)
      << other.err;
  std::string panda = dir.write("panda.json", R"({"version": 1, "robot": "panda"})");
  CmdResult same = test::run_command(cmd_check, {"check", "panda", "--q", q, "--scene", panda});
  EXPECT_EQ(same.err.find("is a scene of"), std::string::npos) << same.err;
}

TEST(CliCheck, SamplePairsWritesAnSrdfThatCheckReads) {
  TempDir dir;
  std::string srdf = dir / "panda.srdf";
  CmdResult s = test::run_command(
      cmd_check, {"check", "panda", "--sample-pairs", "300", "--seed", "4", "--out", srdf});
  ASSERT_EQ(s.code, 0) << s.err;
  std::vector<DisabledPair> pairs = load_srdf(srdf);
  EXPECT_FALSE(pairs.empty());
  for (const DisabledPair& p : pairs)
    EXPECT_TRUE(p.reason == "Never" || p.reason == "Always" || p.reason == "Default");
  // checking with the SRDF looks at fewer pairs
  std::string q = dir.write("q.csv", "0,0,0,-0.1,0,1.6,0.8,0.02\n");
  CmdResult all = test::run_command(cmd_check, {"check", "panda", "--q", q});
  CmdResult fewer = test::run_command(cmd_check, {"check", "panda", "--q", q, "--srdf", srdf});
  ASSERT_EQ(fewer.code, all.code) << fewer.err;
  auto count = [](const std::string& err) {
    std::size_t at = err.find(" capsule pairs checked");
    std::size_t open = err.rfind('(', at);
    return std::stoi(err.substr(open + 1, at - open - 1));
  };
  EXPECT_LT(count(fewer.err), count(all.err));
}

TEST(CliCheck, ErrorsNameTheProblem) {
  TempDir dir;
  std::string q = dir.write("q.csv", "0,0,0,-0.1,0,1.6,0.8,0.02\n");
  CmdResult both = test::run_command(cmd_check, {"check", "panda"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("--q Q.csv or --sample-pairs"), std::string::npos);
  // options the mode would ignore are refused, not dropped
  CmdResult ignored =
      test::run_command(cmd_check, {"check", "panda", "--sample-pairs", "5", "--srdf", "x.srdf"});
  EXPECT_EQ(ignored.code, 2);
  EXPECT_NE(ignored.err.find("--srdf does not go with --sample-pairs"), std::string::npos)
      << ignored.err;
  ignored = test::run_command(cmd_check, {"check", "panda", "--q", q, "--seed", "3"});
  EXPECT_EQ(ignored.code, 2);
  EXPECT_NE(ignored.err.find("--seed goes with --sample-pairs"), std::string::npos) << ignored.err;
  // a value out of range, an empty path: usage errors with the synopsis
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "panda", "--sample-pairs", "10", "--seed", "-1"},
        {"check", "panda", "--sample-pairs", ""},
        {"check", "panda", "--q", ""}}) {
    CmdResult u = test::run_command(cmd_check, args);
    EXPECT_EQ(u.code, 2) << u.err;
    EXPECT_NE(u.err.find("usage: ikwb check"), std::string::npos) << u.err;
  }
  CmdResult empty = test::run_command(cmd_check, {"check", "panda", "--q", ""});
  EXPECT_NE(empty.err.find("option '--q': the path is empty (Q.csv)"), std::string::npos)
      << empty.err;
  std::string bad =
      dir.write("bad.srdf", "<robot><disable_collisions link1=\"x\" link2=\"y\"/></robot>");
  // an entry naming links the robot lacks: --srdf is refused (another robot's SRDF was taken
  // with a warning, "the other 0 are disabled"); a scene's "srdf" skips it with a warning
  CmdResult b = test::run_command(cmd_check, {"check", "panda", "--q", q, "--srdf", bad});
  EXPECT_EQ(b.code, 1) << b.err;
  // (said as a refusal: it read "skipped: ...; the other 0 are disabled", as the warning does)
  EXPECT_NE(b.err.find("1 <disable_collisions> entry names a link robot 'panda' lacks: x - y (no "
                       "'x') (--srdf must name this robot's links"),
            std::string::npos)
      << b.err;
  std::string with_bad =
      dir.write("sb.json", R"({"version": 1, "robot": "panda", "srdf": ")" + bad + R"("})");
  CmdResult sb = test::run_command(cmd_check, {"check", "panda", "--q", q, "--scene", with_bad});
  EXPECT_EQ(sb.code, 0) << sb.err;
  EXPECT_NE(sb.err.find("entry names a link robot 'panda' lacks, skipped"), std::string::npos)
      << sb.err;
  std::string scene = dir.write(
      "s.json", R"({"version": 1, "robot": "panda", "obstacles": [{"name": "b", "type": "box",
        "size": [0.1, -1, 0.1], "pose": {}}]})");
  CmdResult s = test::run_command(cmd_check, {"check", "panda", "--q", q, "--scene", scene});
  EXPECT_EQ(s.code, 1);
  EXPECT_NE(s.err.find("obstacles[0]: obstacle 'b': size[1]"), std::string::npos) << s.err;
  std::string short_q = dir.write("short.csv", "0,0,0\n");
  CmdResult sq = test::run_command(cmd_check, {"check", "panda", "--q", short_q});
  EXPECT_EQ(sq.code, 1);
}

// a robot without joint coordinates has its links welded together: nothing can collide, so
// nothing is checked, and the error says why (fk reads its empty Q.csv as its one configuration)
TEST(CliCheck, ARobotWithoutCoordinatesHasNothingToCheck) {
  TempDir dir;
  const std::string robot =
      dir.write("f.urdf",
                "<robot name=\"f\"><link name=\"a\"><collision><geometry><sphere radius=\"0.1\"/>"
                "</geometry></collision></link><link name=\"b\"><collision><geometry><sphere "
                "radius=\"0.1\"/></geometry></collision></link><joint name=\"j\" type=\"fixed\">"
                "<parent link=\"a\"/><child link=\"b\"/><origin xyz=\"0 0 1\"/></joint></robot>");
  CmdResult r = test::run_command(cmd_check, {"check", robot, "--q", dir.write("q.csv", "")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("nothing can be checked: every pair of links with collision geometry is "
                       "joined by a joint"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ikwb
