// Which file a save writes and what it keeps: the scene a state belongs to across robot changes
// and undo, a scene its robot could not take whole, stored configurations as unsaved work and by
// their joints' names, and a restore that fails. Scripted sessions of the real `ikwb` binary
// (skipped without a display).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/gui_script_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using ikwb::test::read_text;
using SceneIdentity = ikwb::test::GuiScript;

// another robot opened after a scene: Ctrl+S no longer writes that scene's file (it wrote the
// new robot over the old scene)
TEST_F(SceneIdentity, AnotherRobotLeavesTheScene) {
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene a.json\n"), 0) << log();
  const std::string saved = read_text(path("a.json"));
  ASSERT_EQ(
      run("scene a.json\nwait 2\nrobot ur5e\nwait 2\nkey S ctrl\nwait 2\n" + dump_cmd("d.json")), 0)
      << log();
  EXPECT_EQ(read_text(path("a.json")), saved);
  EXPECT_TRUE(dump("d.json")["scene_path"].is_null());
}

// undoing the opening of a scene goes back to the file the state came from: Ctrl+S then writes
// that one, not the scene opened since
TEST_F(SceneIdentity, UndoingAnOpenGoesBackToItsFile) {
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene a.json\nrobot ur5e\nwait 1\nsave_scene b.json\n"),
            0)
      << log();
  const std::string b = read_text(path("b.json"));
  ASSERT_EQ(
      run("scene a.json\nwait 2\nweight 0 3\nwait 2\nscene b.json\nwait 2\nundo\nwait 2\n" +
          dump_cmd("undone.json") + "key S ctrl\nwait 2\nredo\nwait 2\n" + dump_cmd("redone.json")),
      0)
      << log();
  EXPECT_EQ(dump("undone.json")["scene_path"], "a.json");
  EXPECT_EQ(dump("redone.json")["scene_path"], "b.json");
  EXPECT_EQ(read_text(path("b.json")), b);
  const json a = json::parse(read_text(path("a.json")));
  EXPECT_EQ(a["objectives"][0]["weight"], 3.0);
  EXPECT_NE(a["robot"].get<std::string>().find("panda"), std::string::npos);
}

// an untitled session saved under a name: its earlier steps are that file's, so an undo after
// the save still saves there (it asked for a name again)
TEST_F(SceneIdentity, StepsBeforeTheFirstSaveBelongToTheSavedFile) {
  ASSERT_EQ(run("robot panda\nwait 1\nweight 0 2\nwait 1\nsave_scene a.json\nweight 0 3\nwait 1\n"
                "undo\nwait 1\n" +
                dump_cmd("d.json")),
            0)
      << log();
  EXPECT_EQ(dump("d.json")["scene_path"], "a.json");
}

// a scene with entries its robot lacks (a link, a joint) opens with warnings, and Save does not
// write over it without them; saving under its name on purpose still can
TEST_F(SceneIdentity, ASceneItsRobotCannotTakeWholeIsNotSavedOver) {
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene s.json\n"), 0) << log();
  json scene = json::parse(read_text(path("s.json")));
  scene["objectives"].push_back({{"type", "position"}, {"link", "gone_link"}});
  scene["joint_q"]["gone_joint"] = {0.5};
  std::ofstream(path("s.json")) << scene.dump(2);
  const std::string before = read_text(path("s.json"));
  ASSERT_EQ(
      run("scene s.json\nwait 2\nweight 0 2\nwait 2\nkey S ctrl\nwait 2\n" + dump_cmd("d.json")), 0)
      << log();
  EXPECT_EQ(read_text(path("s.json")), before);
  EXPECT_EQ(dump("d.json")["scene_path"], "s.json");
  EXPECT_TRUE(dump("d.json")["unsaved"].get<bool>());
  ASSERT_EQ(run("scene s.json\nwait 2\nsave_scene s.json\n"), 0) << log();
  EXPECT_NE(read_text(path("s.json")), before);
}

// a configuration stored after a save is unsaved work: the dump says so, and a clean exit keeps
// it in the recovery file (it was deleted with it)
TEST_F(SceneIdentity, StoredConfigurationsAreUnsavedWork) {
  const std::string rec = path("rec.json");
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene s.json\n" + dump_cmd("saved.json") +
                    "store\njoint panda_joint1 0.1\nstore\nwait 1\n" + dump_cmd("stored.json"),
                "--recovery-file \"" + rec + "\" --autosave-seconds 600"),
            0)
      << log();
  EXPECT_FALSE(dump("saved.json")["unsaved"].get<bool>());
  EXPECT_TRUE(dump("stored.json")["unsaved"].get<bool>());
  ASSERT_TRUE(fs::exists(rec)) << log();
  EXPECT_EQ(json::parse(read_text(rec))["extra"]["stored_configs"].size(), 2u);
}

// stored configurations follow their joints' names when the robot file's joints were reordered
// since the scene was saved (they were applied by position: left and right arms swapped)
TEST_F(SceneIdentity, StoredConfigurationsFollowTheirJointsNames) {
  ASSERT_EQ(run("robot panda\nwait 1\nstore\nsave_scene s.json\n"), 0) << log();
  json scene = json::parse(read_text(path("s.json")));
  json& names = scene["extra"]["coord_names"];
  json& q = scene["extra"]["stored_configs"][0]["q"];
  ASSERT_EQ(names.size(), q.size());
  const json stored_q = q;
  ASSERT_NE(stored_q, json(std::vector<json>(q.rbegin(), q.rend())));
  // as if the file had listed its joints the other way round when the scene was saved
  std::reverse(names.begin(), names.end());
  std::reverse(q.begin(), q.end());
  std::ofstream(path("reordered.json")) << scene.dump(2);
  ASSERT_EQ(run("open_scene reordered.json\nwait 1\n" + dump_cmd("d.json")), 0) << log();
  const json stored = dump("d.json")["stored_configs"];
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_TRUE(stored[0]["fits"].get<bool>());
  EXPECT_EQ(stored[0]["q"], stored_q);
  EXPECT_NE(log().find("their values follow the joints' names"), std::string::npos) << log();
}

// a recovery file whose restore fails (its robot is gone) is kept, and nothing autosaves over it
TEST_F(SceneIdentity, ARestoreThatFailsKeepsTheRecoveryFile) {
  ASSERT_EQ(run("robot panda\nwait 1\nweight 0 2\nwait 1\nsave_scene s.json\n"), 0) << log();
  json scene = json::parse(read_text(path("s.json")));
  scene["robot"] = path("moved_away/panda.urdf");
  const std::string rec = path("rec.json");
  std::ofstream(rec) << scene.dump(2);
  const std::string before = read_text(rec);
  EXPECT_EQ(run("restore_recovery\nwait 1\nrobot ur5e\nwait 2\nweight 0 4\nwait 3\n",
                "--recovery-file \"" + rec + "\" --autosave-seconds 0"),
            1)
      << log();
  EXPECT_NE(log().find("the file is kept and autosave stays off"), std::string::npos) << log();
  EXPECT_EQ(read_text(rec), before);
}

// a workbench running holds its recovery file: a second one takes its own (rec-2.json) and
// neither restores, writes over nor removes the other's; a later start offers the one left over
TEST_F(SceneIdentity, EachRunningWorkbenchHasItsOwnRecoveryFile) {
  const std::string rec = path("rec.json");
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene s.json\n"), 0) << log();
  fs::copy_file(path("s.json"), rec);
  const std::string theirs = read_text(rec);
  // the other workbench, as the lock it holds
  const int fd = open((rec + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  const int rc = run("robot ur5e\nwait 1\nweight 0 2\nwait 2\n" + dump_cmd("d.json"),
                     "--recovery-file \"" + rec + "\" --autosave-seconds 0");
  close(fd);
  ASSERT_EQ(rc, 0) << log();
  EXPECT_EQ(dump("d.json")["recovery_file"], path("rec-2.json"));
  EXPECT_EQ(read_text(rec), theirs);
  ASSERT_TRUE(fs::exists(path("rec-2.json")));  // this one's unsaved edit
  // the other one ended cleanly: the next start offers the file left over
  fs::remove(rec);
  ASSERT_EQ(run("wait 1\n" + dump_cmd("r.json"), "--recovery-file \"" + rec + "\" --restore"), 0)
      << log();
  EXPECT_EQ(dump("r.json")["recovery_file"], path("rec-2.json"));
  EXPECT_EQ(dump("r.json")["objectives"][0]["weight"], 2.0);
}

// a save while the timeline's playhead sets the robot says that the file holds that pose (the
// reopened scene was "off" from the targets the user had been editing, without a word)
TEST_F(SceneIdentity, ASaveAtThePlayheadSaysSo) {
  ASSERT_EQ(run("robot panda\nwait 5\ntimeline on\nkey_add 0\ntarget 0 0.45 0.2 0.3\nwait 40\n"
                "key_add 1.5\nscrub 0.75\nwait 3\nsave_scene s.json\nwait 1\n"),
            0)
      << log();
  EXPECT_NE(log().find("saved the configuration and targets the timeline's playhead sets (0.75 "
                       "s): the scene reopens at that pose"),
            std::string::npos)
      << log();
}

}  // namespace
