// Scene files: save -> load round trips, atomic writes that fail without harming the old file,
// version handling and warnings for what a scene cannot restore.
#include "engine/core/scene.hpp"

#include "engine/core/objective_kinds.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/temp_files.hpp"

namespace ikwb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::read_text;
using test::TempDir;

// a scene with every field away from its default
Scene full_scene() {
  Scene s;
  s.robot = "/robots/arm/arm.urdf";
  s.floating_base = true;
  s.package_paths = {"/opt/ws/src", "/home/me/meshes"};
  s.xacro_args = {"name:=arm", "prefix:=left_"};
  s.joint_q = {{"root_joint", {0.1, -0.2, 0.3, 0, 0, 0.6, 0.8}}, {"j1", {0.25}}, {"j2", {-1.5}}};
  s.rest = {{"j1", {0.5}}, {"j2", {-0.125}}};
  SceneObjective pose;
  pose.type = "pose";
  pose.name = "tcp pose";
  pose.link = "tip";
  pose.offset = {0.01, 0.02, 0.03};
  pose.weight = 2.5;
  pose.position_weights = {1, 0, 1};
  pose.rotation_weights = {0.5, 0.5, 0};
  pose.hard = true;
  pose.target_current = false;
  pose.target = {{0.4, -0.1, 0.7}, {0, 0, 0.6, 0.8}};
  SceneObjective posture;
  posture.type = "posture";
  posture.name = "posture";
  posture.weight = 0.01;
  posture.null_space = true;
  posture.enabled = false;
  SceneObjective rel;
  rel.type = "relative_fixed";
  rel.link = "left";
  rel.link_b = "right";
  rel.relative_current = false;
  rel.relative = {{0.3, 0, 0}, {0.6, 0, 0, 0.8}};
  SceneObjective dist;
  dist.type = "min_distance";
  dist.link = "left";
  dist.link_b = "right";
  dist.offset_b = {0, 0, -0.1};
  dist.distance = 0.05;
  s.objectives = {pose, posture, rel, dist};
  s.solver = {{"n_seeds", 8}, {"sampler", "roberts"}, {"damping", 1e-3}};
  s.camera = {{"target", {0, 0, 0.5}}, {"distance", 2.5}, {"yaw", 30}, {"pitch", -20}};
  s.extra = {{"show_ghosts", true}, {"panels", {{"plots", false}}}};
  return s;
}

void expect_same(const Scene& a, const Scene& b) {
  EXPECT_EQ(a.robot, b.robot);
  EXPECT_EQ(a.floating_base, b.floating_base);
  EXPECT_EQ(a.package_paths, b.package_paths);
  EXPECT_EQ(a.xacro_args, b.xacro_args);
  EXPECT_EQ(a.joint_q, b.joint_q);
  EXPECT_EQ(a.rest, b.rest);
  EXPECT_EQ(a.solver, b.solver);
  EXPECT_EQ(a.camera, b.camera);
  EXPECT_EQ(a.extra, b.extra);
  ASSERT_EQ(a.objectives.size(), b.objectives.size());
  for (std::size_t i = 0; i < a.objectives.size(); ++i) {
    SCOPED_TRACE("objective " + std::to_string(i));
    const SceneObjective &x = a.objectives[i], &y = b.objectives[i];
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.link, y.link);
    EXPECT_EQ(x.link_b, y.link_b);
    EXPECT_EQ(x.distance, y.distance);
    EXPECT_EQ(x.weight, y.weight);
    EXPECT_EQ(x.hard, y.hard);
    EXPECT_EQ(x.enabled, y.enabled);
    EXPECT_EQ(x.null_space, y.null_space);
    EXPECT_EQ(x.target_current, y.target_current);
    EXPECT_EQ(x.relative_current, y.relative_current);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ((&x.offset.x)[k], (&y.offset.x)[k]);
      EXPECT_EQ((&x.offset_b.x)[k], (&y.offset_b.x)[k]);
      EXPECT_EQ((&x.position_weights.x)[k], (&y.position_weights.x)[k]);
      EXPECT_EQ((&x.rotation_weights.x)[k], (&y.rotation_weights.x)[k]);
      EXPECT_EQ((&x.target.p.x)[k], (&y.target.p.x)[k]);
      EXPECT_EQ((&x.relative.p.x)[k], (&y.relative.p.x)[k]);
    }
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ((&x.target.q.x)[k], (&y.target.q.x)[k]);
      EXPECT_EQ((&x.relative.q.x)[k], (&y.relative.q.x)[k]);
    }
  }
}

// the files in a folder, temporaries included
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// runs f, expects SceneError whose message contains every word in `words`
template <class F>
std::string expect_scene_error(F f, std::initializer_list<const char*> words) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning " << *words.begin();
  } catch (const SceneError& e) {
    std::string msg = e.what();
    for (const char* w : words) EXPECT_NE(msg.find(w), std::string::npos) << msg;
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
  return {};
}

// [SECTION] round trips

TEST(Scene, SaveThenLoadGivesTheSameScene) {
  TempDir dir;
  Scene s = full_scene();
  std::string path = dir / "scene.json";
  save_scene(path, s);
  Scene back = load_scene(path);
  EXPECT_TRUE(back.warnings.empty()) << back.warnings[0];
  EXPECT_EQ(back.version, kSceneVersion);
  expect_same(s, back);
  // and the written text is stable: saving what was loaded gives the same bytes
  std::string again = dir / "again.json";
  save_scene(again, back);
  EXPECT_EQ(read_text(path), read_text(again));
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"again.json", "scene.json"}));
}

TEST(Scene, RoundTripKeepsExtremeButFiniteNumbers) {
  Scene s = full_scene();
  s.joint_q["j1"] = {1e-300};
  s.joint_q["j2"] = {-1.7976931348623157e308};
  s.objectives[0].weight = 1e6 - 1e-10;  // the largest weight a scene takes, nearly
  s.objectives[0].target.p = {0.1 + 0.2, -0.0, 5e-324};
  Scene back = parse_scene(scene_to_json(s).dump(), "x.json", "");
  expect_same(s, back);
  EXPECT_TRUE(std::signbit(back.objectives[0].target.p.y));
}

TEST(Scene, RelativeRobotPathsResolveAgainstTheSceneFolder) {
  TempDir dir;
  Scene s;
  s.robot = "robots/arm.urdf";
  std::string path = dir / "sub/scene.json";
  fs::create_directories(dir / "sub");
  save_scene(path, s);
  Scene back = load_scene(path);
  EXPECT_EQ(back.robot, (dir.path() / "sub/robots/arm.urdf").lexically_normal().string());
  // shipped robots are names, not paths
  s.robot = "panda";
  save_scene(path, s);
  EXPECT_EQ(load_scene(path).robot, "panda");
  // a bare file name with a robot file's extension is a file beside the scene
  for (const char* file : {"arm.xml", "arm.urdf.xacro", "arm.urdf"}) {
    s.robot = file;
    save_scene(path, s);
    EXPECT_EQ(load_scene(path).robot, (dir.path() / "sub" / file).lexically_normal().string());
  }
}

// a malformed timeline: an error for the command line, a warning for the workbench (the rest
// of the scene is read)
TEST(Scene, AForgivingReadSkipsAMalformedTimeline) {
  const std::string text =
      R"({"version": 1, "robot": "panda", "joint_q": {"panda_joint1": 0.5},
          "timeline": {"keys": [{"time": 1}, {"time": 0.5}]}})";
  expect_scene_error([&] { parse_scene(text, "s.json", ""); },
                     {"timeline.keys[1].time", "must be after"});
  Scene s = parse_scene(text, "s.json", "", true);
  EXPECT_TRUE(s.timeline.keys.empty());
  EXPECT_EQ(s.joint_q.at("panda_joint1"), std::vector<double>{0.5});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            "s.json: timeline.keys[1].time: must be after the previous key's time; the scene is "
            "read without its timeline");
}

// (full_scene's xacro arguments make the round trip above)
TEST(Scene, XacroArgumentsAreChecked) {
  Scene s = full_scene();
  // none: no key written
  s.xacro_args.clear();
  EXPECT_FALSE(scene_to_json(s).contains("xacro_args"));
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "a.xacro", "xacro_args": ["ur5e"]})", "x.json", "");
      },
      {"xacro_args[0]", "NAME:=VALUE", "ur5e"});
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "a.xacro", "xacro_args": "a:=b"})", "x.json", "");
      },
      {"xacro_args", "array"});
}

// [SECTION] atomic writes

TEST(Scene, SaveOverwritesAtomicallyAndLeavesNoTemporaries) {
  TempDir dir;
  std::string path = dir.write("scene.json", "old contents");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  save_scene(path, full_scene());
  EXPECT_EQ(load_scene(path).robot, full_scene().robot);
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"scene.json"});
  // the file's own permissions, as an editor keeps them (not the temporary file's 0600)
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(Scene, SaveIntoMissingFolderThrowsWithReason) {
  TempDir dir;
  std::string path = dir / "no/such/folder/scene.json";
  std::string msg =
      expect_scene_error([&] { save_scene(path, full_scene()); }, {"cannot create", "No such"});
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  EXPECT_FALSE(fs::exists(dir / "no"));
}

TEST(Scene, SaveBelowAFileThrowsWithReason) {
  TempDir dir;
  std::string file = dir.write("plain.txt", "keep me");
  expect_scene_error([&] { save_scene(file + "/scene.json", full_scene()); },
                     {"cannot create", "Not a directory"});
  EXPECT_EQ(read_text(file), "keep me");
}

TEST(Scene, SaveOntoADirectoryLeavesItIntact) {
  TempDir dir;
  std::string target = dir / "scene.json";
  fs::create_directories(target);
  std::string inner = dir.write("scene.json/keep.txt", "keep me");
  // refused before anything is written (replace_refusal)
  expect_scene_error([&] { save_scene(target, full_scene()); },
                     {"scene.json: is a folder; name a file"});
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_EQ(read_text(inner), "keep me");
  // the temporary file was removed again
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"scene.json"});
}

TEST(Scene, SaveIntoReadOnlyFolderKeepsTheOldFile) {
  TempDir dir;
  std::string path = dir.write("ro/scene.json", "{\"version\": 1, \"robot\": \"panda\"}");
  fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  // root ignores folder permissions: probe before relying on them
  bool enforced = ::access((dir / "ro").c_str(), W_OK) != 0;
  if (enforced) {
    expect_scene_error([&] { save_scene(path, full_scene()); }, {"cannot create", "Permission"});
    EXPECT_EQ(load_scene(path).robot, "panda");
  }
  fs::permissions(dir / "ro", fs::perms::owner_all);
  if (!enforced) GTEST_SKIP() << "running as root: folder permissions are not enforced";
}

TEST(Scene, UnwritableTextIsRefusedBeforeTouchingTheOldFile) {
  TempDir dir;
  std::string path = dir.write("scene.json", "old contents");
  Scene s = full_scene();
  s.robot = "/robots/caf\xe9.urdf";  // Latin-1, not UTF-8
  expect_scene_error([&] { save_scene(path, s); }, {"cannot be written", "UTF-8"});
  EXPECT_EQ(read_text(path), "old contents");
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"scene.json"});
}

TEST(Scene, WriteFileAtomicInTheCurrentFolder) {
  TempDir dir;
  fs::path old = fs::current_path();
  fs::current_path(dir.path());
  write_file_atomic("plain.txt", "text\n");
  fs::current_path(old);
  EXPECT_EQ(read_text(dir / "plain.txt"), "text\n");
}

// [SECTION] versions

TEST(Scene, OlderOrMissingVersionsAreReadOrExplained) {
  Scene s = parse_scene(R"({"robot": "panda"})", "old.json", "");
  EXPECT_EQ(s.version, 1);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "old.json: no \"version\"; read as version 1");
  for (const char* v : {"0", "-3", "-9223372036854775808"}) {
    expect_scene_error(
        [&] { parse_scene(std::string(R"({"robot": "panda", "version": )") + v + "}", "x", ""); },
        {"x: version: unknown version", v});
  }
}

TEST(Scene, NewerVersionsAreRejectedClearly) {
  for (const char* v : {"2", "4294967297", "18446744073709551615"}) {
    std::string msg = expect_scene_error(
        [&] {
          parse_scene(std::string(R"({"robot": "panda", "version": )") + v + "}", "new.json", "");
        },
        {"new.json: version: written by a newer IK Workbench", v, "reads up to 1"});
  }
}

// [SECTION] what a scene cannot restore

TEST(Scene, UnknownKeysAreWarningsAndTheRestLoads) {
  Scene s = parse_scene(R"({
    "version": 1, "robot": "panda", "hologram": {"on": true},
    "objectives": [{"type": "position", "link": "tcp", "weight": 3, "colour": "red"}],
    "extra": {"anything": [1, 2, 3]}
  })",
                        "scene.json", "");
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_EQ(s.warnings[0], "scene.json: hologram: unknown key ignored");
  EXPECT_EQ(s.warnings[1], "scene.json: objectives[0].colour: unknown key ignored");
  ASSERT_EQ(s.objectives.size(), 1u);
  EXPECT_EQ(s.objectives[0].weight, 3.0);
  EXPECT_EQ(s.extra["anything"], json::array({1, 2, 3}));
}

TEST(Scene, ErrorsNameTheJsonPath) {
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "panda", "objectives": [{"type": "pose",
                   "link": "tcp"}, {"type": "pose", "link": "tcp", "target":
                   {"position": [0, 0, "up"]}}]})",
                    "s.json", "");
      },
      {"s.json: objectives[1].target.position[2]: expected a number"});
  expect_scene_error(
      [] { parse_scene(R"({"version": 1, "robot": "panda", "rest": {"j": [1, null]}})", "s", ""); },
      {"s: rest.j[1]: expected a number"});
  // a length past 1e6 m would overflow the squared residuals: refused; per-axis weights are no
  // lengths and may be as large as any weight
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "panda", "objectives": [{"type": "pose",
                   "link": "tcp", "offset": [0, 2e6, 0]}]})",
                    "s.json", "");
      },
      {"s.json: objectives[0].offset: magnitude above 1e6 (2000000.0)"});
  // a NUL in a string cut every message that quoted it at the NUL (without the file's name)
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "pan\u0000da", "objectives": [{"type": "pose",
                   "link": "tcp"}]})",
                    "s.json", "");
      },
      {"s.json: robot: a string holds a NUL character (\\u0000)"});
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "panda", "objectives": [{"type": "pose",
                   "link": "t\u0000cp"}]})",
                    "s.json", "");
      },
      {"s.json: objectives[].link: a string holds a NUL character (\\u0000)"});
  Scene heavy = parse_scene(R"({"version": 1, "robot": "panda", "objectives": [{"type": "pose",
                   "link": "tcp", "position_weights": [1e7, 1, 1]}]})",
                            "s.json", "");
  EXPECT_EQ(heavy.objectives[0].position_weights.x, 1e7);
}

// a key the objective's kind does not read is named when the file is read, not lost silently,
// whatever its value (an offset of zero on a posture does nothing either)
TEST(Scene, ValuesTheKindDoesNotReadAreWarnings) {
  Scene s = parse_scene(R"({"version": 1, "robot": "panda", "objectives": [
    {"type": "position", "link": "tcp", "rotation_weights": [1, 1, 0], "distance": 0.2},
    {"type": "posture", "target": "current", "offset": [0, 0, 0]},
    {"type": "pose", "link": "tcp", "axis": [0, 0, 1], "hard": false, "contacts": []}]})",
                        "s.json", "");
  ASSERT_EQ(s.warnings.size(), 6u);
  EXPECT_EQ(s.warnings[0],
            "s.json: objectives[0].distance: not used by a position objective, ignored");
  EXPECT_EQ(s.warnings[1],
            "s.json: objectives[0].rotation_weights: not used by a position objective, ignored");
  EXPECT_EQ(s.warnings[2],
            "s.json: objectives[1].offset: not used by a posture objective, ignored");
  EXPECT_EQ(s.warnings[3],
            "s.json: objectives[1].target: not used by a posture objective, ignored");
  EXPECT_EQ(s.warnings[4], "s.json: objectives[2].axis: not used by a pose objective, ignored");
  // read only where the kind reads them: an empty list on a pose is the same warning, not the
  // support polygon's "expected a non-empty array"
  EXPECT_EQ(s.warnings[5], "s.json: objectives[2].contacts: not used by a pose objective, ignored");
}

// "hard" on a soft-only kind is warned about and dropped: the scene is written as it is used and
// reads back without the warning (every objective is written with its "hard")
TEST(Scene, HardOnASoftOnlyKindIsDropped) {
  Scene s = parse_scene(R"({"version": 1, "robot": "panda", "objectives": [
    {"type": "posture", "hard": true}, {"type": "position", "link": "tcp", "hard": true}]})",
                        "s.json", "");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "s.json: objectives[0].hard: not used by a posture objective, ignored");
  EXPECT_FALSE(s.objectives[0].hard);
  EXPECT_TRUE(s.objectives[1].hard);
  const nlohmann::json written = scene_to_json(s);
  EXPECT_EQ(written["objectives"][0]["hard"], false);
  Scene again = parse_scene(written.dump(), "again.json", "");
  EXPECT_TRUE(again.warnings.empty());
  EXPECT_EQ(scene_to_json(again), written);
}

// the whole-body kinds' keys: read, written back, and warned about where unused
TEST(Scene, AxisDirectionAndConeKeys) {
  Scene s = parse_scene(R"({"version": 1, "robot": "panda", "objectives": [
    {"type": "axis_align", "link": "tcp", "axis": [0, 0, 1], "direction": [1, 0, 0],
     "cone": 0.25},
    {"type": "com", "position_weights": [1, 1, 0], "axis": [1, 0, 0]},
    {"type": "look_at", "link": "head", "axis": [1, 0, 0], "direction": [0, 1, 0]}]})",
                        "s.json", "");
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_EQ(s.warnings[0], "s.json: objectives[1].axis: not used by a com objective, ignored");
  EXPECT_EQ(s.warnings[1],
            "s.json: objectives[2].direction: not used by a look_at objective, ignored");
  EXPECT_EQ(s.objectives[0].cone, 0.25);
  EXPECT_EQ(s.objectives[0].direction.x, 1.0);
  nlohmann::json j = scene_objective_to_json(s.objectives[0]);
  EXPECT_EQ(j["cone"], 0.25);
  EXPECT_EQ(j["axis"], nlohmann::json({0.0, 0.0, 1.0}));
  EXPECT_FALSE(scene_objective_to_json(s.objectives[1]).contains("link"));
  EXPECT_FALSE(scene_objective_to_json(s.objectives[1]).contains("axis"));
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "panda", "objectives": [
          {"type": "look_at", "link": "head", "cone": -0.1}]})",
                    "s", "");
      },
      {"s: objectives[0].cone: must be an angle in [0, pi] rad"});
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "panda", "objectives": [
          {"type": "pose", "link": "tcp", "rotation_weights": [1, -1, 1]}]})",
                    "s", "");
      },
      {"s: objectives[0].rotation_weights: must be >= 0 on every axis"});
}

// support_polygon, position_box (null: an open side), manipulability; joint locks and limits
TEST(Scene, BalanceToleranceKeysAndJointSettingsRoundTrip) {
  Scene s = parse_scene(R"({"version": 1, "robot": "panda",
    "joint_locks": ["j2"], "joint_limits": {"j1": [-0.5, null], "j3": [0.1, 0.2]},
    "objectives": [
    {"type": "support_polygon", "contacts": [{"link": "foot_l", "points": [[0.1, 0.05, 0],
     [-0.1, 0.05, 0]]}, {"link": "foot_r"}], "margin": 0.03, "hard": true},
    {"type": "position_box", "link": "tcp", "lower": [-0.1, null, 0], "upper": [0.1, 0.2, null],
     "target": {"position": [0.5, 0, 0.3]}},
    {"type": "manipulability", "link": "tcp", "min_measure": 0.01},
    {"type": "orientation_cone", "link": "tcp", "cone": 0.3, "margin": 0.1}]})",
                        "s.json", "");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            "s.json: objectives[3].margin: not used by a orientation_cone objective, ignored");
  ASSERT_EQ(s.objectives[0].contacts.size(), 2u);
  EXPECT_EQ(s.objectives[0].contacts[0].points.size(), 2u);
  EXPECT_TRUE(s.objectives[0].contacts[1].points.empty());  // from the link's geometry
  EXPECT_EQ(s.objectives[0].margin, 0.03);
  EXPECT_EQ(s.objectives[1].lower.y, -HUGE_VAL);
  EXPECT_EQ(s.objectives[1].upper.z, HUGE_VAL);
  EXPECT_EQ(s.objectives[2].min_measure, 0.01);
  EXPECT_EQ(s.joint_locks, std::vector<std::string>{"j2"});
  EXPECT_EQ(s.joint_limits.at("j1")[1], HUGE_VAL);
  Scene back = parse_scene(scene_to_json(s).dump(), "back.json", "");
  EXPECT_TRUE(back.warnings.empty());
  nlohmann::json box = scene_to_json(back)["objectives"][1];
  EXPECT_EQ(box["lower"], nlohmann::json({-0.1, nullptr, 0.0}));
  EXPECT_EQ(box["upper"], nlohmann::json({0.1, 0.2, nullptr}));
  EXPECT_EQ(scene_to_json(back)["joint_limits"]["j1"], nlohmann::json({-0.5, nullptr}));
  EXPECT_EQ(back.objectives[0].contacts[0].points[1].x, -0.1);
  EXPECT_EQ(back.joint_locks, s.joint_locks);
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "p", "objectives": [{"type": "support_polygon"}]})",
                    "s", "");
      },
      {"s: objectives[0]: objective 'support_polygon' needs \"contacts\""});
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "p", "joint_limits": {"a": [1, 0]}})", "s", "");
      },
      {"s: joint_limits.a: lower is above upper"});
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "p", "joint_limits": {"a": [-1, 1e300]}})", "s", "");
      },
      {"s: joint_limits.a[1]: magnitude above 1e6", "null for no limit"});
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "p", "objectives": [{"type": "position_box",
          "link": "t", "lower": [0, 0, 1], "upper": [0, 0, 0]}]})",
                    "s", "");
      },
      {"s: objectives[0].lower: must not be above upper (axis 2)"});
}

TEST(Scene, UnknownObjectiveTypesListTheKnownOnes) {
  expect_scene_error(
      [] {
        parse_scene(R"({"version": 1, "robot": "panda", "objectives": [{"type": "gaze"}]})", "s",
                    "");
      },
      {"s: objectives[0].type: unknown objective type 'gaze'", "position, rotation, pose"});
}

// every kind is found by its type and every scene kind by its name
TEST(ObjectiveKinds, TypesAndNamesAreUnique) {
  for (int i = 0; i < objective_kind_count(); ++i) {
    const ObjectiveKind& k = objective_kinds()[i];
    EXPECT_EQ(&objective_kind(k.type), &k) << k.name;
    if (k.in_scenes) {
      EXPECT_EQ(find_objective_kind(k.name), &k);
      EXPECT_NE(k.dim(7, 4), 0) << k.name;
    }
    // a target without a link is a point (com: the centre of mass); a second link needs a
    // first; a target's gizmo moves or turns something
    EXPECT_TRUE(!k.has_target() || k.has(kFieldLink) || k.has(kFieldTargetPoint)) << k.name;
    EXPECT_TRUE(!k.is_pair() || k.has(kFieldLink)) << k.name;
    EXPECT_TRUE(!k.has_target() || k.target_position() || k.target_orientation()) << k.name;
  }
  EXPECT_EQ(find_objective_kind("custom"), nullptr);  // not a scene kind
  EXPECT_EQ(find_objective_kind("Pose"), nullptr);
  EXPECT_EQ(objective_kind(ObjectiveType::kPosture).dim(7), 7);
  EXPECT_EQ(objective_kind(ObjectiveType::kPose).dim(7), 6);
}

// a project folder moved with its scenes: the robot and SRDF saved absolute are found again
// from the scene's folder, with a warning; a path that exists is left alone
TEST(Scene, FilesOfAMovedFolderAreFoundAgain) {
  TempDir dir;
  const std::string robot = dir.write("new/proj/robots/r.urdf", "<robot name='r'/>");
  const std::string srdf = dir.write("new/proj/r.srdf", "<robot name='r'/>");
  const std::string scene = dir.write(
      "new/proj/scenes/s.json",
      R"({"version": 1, "robot": "/gone/proj/robots/r.urdf", "srdf": "/gone/proj/r.srdf"})");
  Scene s = load_scene(scene);
  EXPECT_EQ(s.robot, robot);
  EXPECT_EQ(s.srdf, srdf);
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_EQ(s.warnings[0], scene + ": robot: /gone/proj/robots/r.urdf is not there; using " +
                               robot + ", found from the scene's folder (was the folder moved?)");
  // nothing of that name near the scene: the path stays, for the loader to say it is missing
  dir.write("elsewhere/s.json", R"({"version": 1, "robot": "/gone/proj/robots/other.urdf"})");
  EXPECT_EQ(load_scene(dir / "elsewhere/s.json").robot, "/gone/proj/robots/other.urdf");
}

TEST(Scene, MissingFile) {
  expect_scene_error([] { load_scene("/nonexistent/scene.json"); },
                     {"/nonexistent/scene.json: cannot open the file", "No such file"});
}

}  // namespace
}  // namespace ikwb
