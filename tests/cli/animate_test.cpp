// `ikwb animate` and the trajectory files (app/cli/trajectory_io): a scene's timeline on the
// shipped Panda rendered to CSV and JSON (header, the keys' rows, the rate), task-space segments
// from keys that give joints only, errors for scenes without keys and bad options, and reading
// the CSV back with errors that name the column or line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/trajectory_io.hpp"
#include "cli/run_command.hpp"
#include "core/temp_files.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

using test::CmdResult;
using test::TempDir;

CmdResult run_animate(std::vector<std::string> args) {
  args.insert(args.begin(), "animate");
  return test::run_command(cmd_animate, std::move(args));
}

std::shared_ptr<const Model> panda() {
  UrdfOptions opt;
  opt.load_meshes = false;
  return load_urdf_file(resolve_robot("panda"), opt).model;
}

// the Panda preset's objectives and three keys (joints only: targets where the TCP is at each)
std::string panda_scene(const std::string& mode) {
  return R"({"version": 1, "robot": "panda",
    "objectives": [{"type": "pose", "name": "tcp", "link": "panda_hand_tcp", "target": "current"},
                   {"type": "posture", "weight": 1, "null_space": true}],
    "joint_q": {"panda_joint2": -0.785, "panda_joint4": -2.356, "panda_joint6": 1.571,
                "panda_joint7": 0.785},
    "timeline": {"keys": [
      {"time": 0, "interpolation": ")" +
         mode + R"(", "joint_q": {"panda_joint1": 0.0, "panda_joint2": -0.785}},
      {"time": 0.8, "interpolation": ")" +
         mode + R"(", "joint_q": {"panda_joint1": 0.6, "panda_joint2": -0.3}},
      {"time": 2, "joint_q": {"panda_joint1": -0.5, "panda_joint2": -0.5}}]}})";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// an objective the robot cannot place is an error naming it, as in `ikwb solve --scene`: a
// motion rendered without it would be a different motion
TEST(Animate, AnObjectiveOnAnUnknownLinkIsAnError) {
  TempDir dir;
  std::string text = panda_scene("task");
  const std::string tcp = R"({"type": "pose", "name": "tcp", "link": "panda_hand_tcp", )";
  text.replace(text.find(tcp), tcp.size(),
               R"({"type": "position", "name": "reach", "link": "nolink"}, )" + tcp);
  const std::string scene = dir.write("s.json", text);
  CmdResult r = run_animate({scene, "--out", dir / "t.csv"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(scene + ": objective 0 \"reach\" (position): unknown link 'nolink' (the "
                               "workbench skips it; ikwb animate does not)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "t.csv"));
}

TEST(Animate, RendersTheTimelineToCsvWithTheKeysRows) {
  TempDir dir;
  const std::string scene = dir.write("s.json", panda_scene("joint"));
  CmdResult r = run_animate({scene, "--out", dir / "t.csv", "--rate", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("3 keys"), std::string::npos) << r.err;
  auto model = panda();
  Motion motion = read_trajectory_csv(dir / "t.csv", *model);
  // 0, 1/7, ..., 14/7 = 2 (15 rows) and the key at 0.8 between grid points
  ASSERT_EQ(motion.times.size(), 16u);
  EXPECT_EQ(motion.times.back(), 2.0);
  const int n = model->coord_count;
  const int j1 = model->joint_q_start[model->find_joint("panda_joint1")];
  for (std::size_t i = 0; i < motion.times.size(); ++i) {
    if (motion.times[i] == 0.8) {
      EXPECT_DOUBLE_EQ(motion.q[i * n + j1], 0.6);
    }
  }
  EXPECT_EQ(std::count(motion.times.begin(), motion.times.end(), 0.8), 1);
  EXPECT_DOUBLE_EQ(motion.q[15 * n + j1], -0.5);
  const std::string header = read_text(dir / "t.csv").substr(0, 40);
  EXPECT_EQ(header.rfind("time,panda_joint1,panda_joint2,", 0), 0u) << header;
}

// --fixed-step: rows at k / rate only, each the row the keyed render has at that time; the key at
// 0.8 s between two rows has none, and a last key off the grid is held one row past it
TEST(Animate, FixedStepRowsLeaveTheKeysOffTheGridOut) {
  TempDir dir;
  const std::string scene = dir.write("s.json", panda_scene("task"));
  auto model = panda();
  const int n = model->coord_count;
  const int j1 = model->joint_q_start[model->find_joint("panda_joint1")];
  for (const double rate : {7.0, 4.2}) {
    const std::string hz = format_double(rate);
    CmdResult r = run_animate({scene, "--out", dir / "keys.csv", "--rate", hz});
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_animate({scene, "--out", dir / "fixed.csv", "--rate", hz, "--fixed-step"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Motion keyed = read_trajectory_csv(dir / "keys.csv", *model);
    const Motion fixed = read_trajectory_csv(dir / "fixed.csv", *model);
    // 2 s: 15 rows at 7 Hz (14 / 7 = 2), 10 at 4.2 Hz (the last at 9 / 4.2 = 2.14 s)
    const std::size_t rows = rate == 7.0 ? 15 : 10;
    ASSERT_EQ(fixed.times.size(), rows) << hz;
    for (std::size_t k = 0; k < rows; ++k) {
      EXPECT_EQ(fixed.times[k], double(k) / rate) << hz << " row " << k;
      const auto at = std::find(keyed.times.begin(), keyed.times.end(), fixed.times[k]);
      const std::size_t i =
          at == keyed.times.end() ? keyed.times.size() - 1 : std::size_t(at - keyed.times.begin());
      EXPECT_TRUE(at != keyed.times.end() || fixed.times[k] > 2.0) << hz << " row " << k;
      for (int c = 0; c < n; ++c) EXPECT_EQ(fixed.q[k * n + c], keyed.q[i * n + c]);
    }
    EXPECT_EQ(std::count(fixed.times.begin(), fixed.times.end(), 0.8), 0);
    EXPECT_DOUBLE_EQ(fixed.q[(rows - 1) * n + j1], -0.5) << "the last key, held";
  }
  // the summary says where the file ends past the last key
  CmdResult r = run_animate({scene, "--out", dir / "f.csv", "--rate", "4.2", "--fixed-step"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("10 samples over 2 s (3 keys)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; fixed step, the last row at 2.142857142857143 s holding the last key"),
            std::string::npos)
      << r.err;
  r = run_animate({scene, "--out", dir / "f.json", "--rate", "7", "--fixed-step"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(read_text(dir / "f.json"));
  EXPECT_EQ(j["fixed_step"], true);
  EXPECT_EQ(j["samples"].size(), 15u);
  EXPECT_EQ(j["segments"].size(), 2u);
  r = run_animate({scene, "--out", dir / "k.json", "--rate", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_text(dir / "k.json"))["fixed_step"], false);
}

TEST(Animate, TaskSpaceSegmentsAndJsonOutput) {
  TempDir dir;
  const std::string scene = dir.write("s.json", panda_scene("task"));
  CmdResult r = run_animate({scene, "--out", dir / "t.json", "--rate", "50", "--fail-on-flagged"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(read_text(dir / "t.json"));
  EXPECT_EQ(j["format"], "ikwb-trajectory");
  EXPECT_EQ(j["samples"].size(), 101u);
  ASSERT_EQ(j["segments"].size(), 2u);
  for (const auto& s : j["segments"]) {
    EXPECT_EQ(s["interpolation"], "task");
    EXPECT_EQ(s["ik_failures"], 0);
    EXPECT_LE(s["max_position_error"].get<double>(), 1e-4);
  }
  EXPECT_EQ(j["columns"][0], "panda_joint1");
  // the name decides the format as in the workbench: .JSON is JSON, any other name CSV
  r = run_animate({scene, "--out", dir / "T.JSON", "--rate", "50"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_text(dir / "T.JSON"))["format"], "ikwb-trajectory");
  r = run_animate({scene, "--out", dir / "t.txt", "--rate", "50"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "t.txt").rfind("time,panda_joint1,", 0), 0u);
}

TEST(Animate, FlagsTooFastSegmentsAndFailOnFlaggedFails) {
  TempDir dir;
  std::string text = panda_scene("joint");
  text.replace(text.find("\"time\": 0.8"), 11, "\"time\": 0.1");
  const std::string scene = dir.write("s.json", text);
  // without --fail-on-flagged the file is written, and the summary counts and names the segments
  CmdResult r = run_animate({scene, "--out", dir / "t.csv"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.err.find("segment 0 (joint): joint 'panda_joint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("velocity limit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(3 keys) in "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 1 of 2 segments flagged (segment 0), why above\n"), std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "t.csv"));
  // a failed run leaves no output (README, "Command line"): neither a new file nor a changed one
  r = run_animate({scene, "--out", dir / "new.csv", "--fail-on-flagged"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("ikwb animate: 1 of 2 segments flagged (segment 0), why above: no output "
                       "written (--fail-on-flagged)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "new.csv"));
  const std::string kept = dir.write("kept.csv", "earlier\n");
  EXPECT_EQ(run_animate({scene, "--out", kept, "--fail-on-flagged"}).code, 3);
  EXPECT_EQ(read_text(kept), "earlier\n");
}

TEST(Animate, ClearErrors) {
  TempDir dir;
  const std::string plain =
      dir.write("plain.json", R"({"version": 1, "robot": "panda", "objectives": []})");
  CmdResult r = run_animate({plain, "--out", dir / "t.csv"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("plain.json: the scene has no timeline keys"), std::string::npos) << r.err;
  r = run_animate({plain, "--out", dir / "t.csv", "--rate", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--rate"), std::string::npos);
  r = run_animate({dir / "missing.json", "--out", dir / "t.csv"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos);
  r = run_animate({plain});
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "t.csv"));
  // one key renders its one configuration, with a word that this is all there is
  const std::string one = R"({"version": 1, "robot": "panda",
    "objectives": [{"type": "pose", "name": "tcp", "link": "panda_hand_tcp", "target": "current"}],
    "timeline": {"keys": [{"time": 0, "joint_q": {"panda_joint1": 0.3}}]}})";
  r = run_animate({dir.write("one.json", one), "--out", dir / "one.csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("one.json: the timeline has one key: the trajectory is that one "
                       "configuration"),
            std::string::npos)
      << r.err;
}

TEST(TrajectoryCsv, ReadErrorsNameTheColumnOrLine) {
  TempDir dir;
  auto model = panda();
  auto error = [&](const std::string& text) {
    const std::string path = dir.write("m.csv", text);
    try {
      read_trajectory_csv(path, *model);
    } catch (const CsvError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  std::string names;
  for (const std::string& n : coord_names(*model)) names += "," + n;
  std::string zeros;
  for (std::size_t i = 0; i < coord_names(*model).size(); ++i) zeros += ",0";
  EXPECT_EQ(error("time" + names + "\n0" + zeros + "\n0.5" + zeros + "\n"), "no error");
  std::string unknown = names;
  unknown.replace(unknown.find("panda_joint2"), 12, "panda_joint9");
  EXPECT_EQ(error("time" + unknown + "\n0" + zeros + "\n")
                .rfind(":1: not coordinates of the robot: 'panda_joint9'; missing: 'panda_joint2'; "
                       "expected the header `time`, then each joint coordinate once, in any order",
                       0),
            0u);
  EXPECT_EQ(error("time" + names + ",panda_joint3\n0" + zeros + ",0\n")
                .rfind(":1: repeated: 'panda_joint3'; expected", 0),
            0u);
  EXPECT_EQ(error("t" + names + "\n0" + zeros + "\n").rfind(":1: column 1 is 't'", 0), 0u);
  EXPECT_EQ(error(names.substr(1) + ",time\n" + zeros.substr(1) + ",0\n")
                .rfind(":1: column 1 is 'panda_joint1'", 0),
            0u);
  EXPECT_EQ(error("0" + zeros + "\n").rfind(":1: no header", 0), 0u);
  EXPECT_EQ(
      error("time,panda_joint1\n0,0\n").rfind(":1: missing: 'panda_joint2', 'panda_joint3'", 0),
      0u);
  EXPECT_EQ(error("time" + names + "\n0.5" + zeros + "\n0.5" + zeros + "\n"),
            ":3: time 0.5 is not after the previous row's 0.5");
  EXPECT_EQ(
      error("time" + names + "\n0" + zeros + "\n1,abc" + zeros.substr(2) + "\n").rfind(":3:", 0),
      0u);
  EXPECT_EQ(error("time" + names + "\n"), ": no samples after the header");
}

// the coordinates are read by name, in any order after `time` (as `ikwb fk --q` reads them), and
// come back in q_start order; a fixed joint's column (ROS joint_states list them) is left out
TEST(TrajectoryCsv, ColumnsAreReadByName) {
  TempDir dir;
  auto model = panda();
  const std::vector<std::string> names = coord_names(*model);
  std::string header = "time", row = "0.25";
  for (std::size_t i = names.size(); i-- > 0;) {
    header += "," + names[i];
    row += "," + std::to_string(0.01 * double(i + 1));
  }
  const Motion motion = read_trajectory_csv(
      dir.write("m.csv", header + ",panda_hand_joint\n" + row + ",7\n"), *model);
  ASSERT_EQ(motion.times, std::vector<double>{0.25});
  ASSERT_EQ(motion.q.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_DOUBLE_EQ(motion.q[i], 0.01 * double(i + 1)) << names[i];
}

}  // namespace
}  // namespace ikwb
