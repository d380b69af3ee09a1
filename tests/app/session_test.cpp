// Session tests: scene save / open round trips, failed saves, undo / redo, the recovery file
// after a crash, configuration export, target import and a short soak, all through scripted
// sessions of the real `ikwb` binary (skipped without a display).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/csv.hpp"
#include "app/gui/scene_files.hpp"
#include "app/gui_script_fixture.hpp"
#include "engine/core/robot_path.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using ikwb::test::read_text;
using Session = ikwb::test::GuiScript;

void expect_near(const json& a, const json& b, double tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i].get<double>(), b[i].get<double>(), tol) << what << "[" << i << "]";
}

TEST_F(Session, SaveThenOpenRestoresConfigurationObjectivesTargetsWeightsAndCamera) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "target 0 0.45 0.1 0.45\n"
                "weight 0 2.5\n"
                "hard 2 on\n"
                "camera yaw 30deg pitch 20deg distance 2.2\n"
                "wait 40\n"
                "store\n"
                "live off\n"
                "save_scene scene.json\n"
                "dump saved.json\n"),
            0)
      << log();
  json a = dump("saved.json");
  ASSERT_EQ(a["scene_path"], "scene.json");
  // next morning: the scene file from the command line
  ASSERT_EQ(run("live off\nwait 1\ndump opened.json\n", "--scene scene.json"), 0) << log();
  json b = dump("opened.json");
  expect_near(a["joint_q"], b["joint_q"], 1e-12, "joint_q");
  ASSERT_EQ(a["objectives"].size(), b["objectives"].size());
  for (std::size_t i = 0; i < a["objectives"].size(); ++i) {
    const json &x = a["objectives"][i], &y = b["objectives"][i];
    EXPECT_EQ(x["type"], y["type"]);
    EXPECT_EQ(x["weight"], y["weight"]);
    EXPECT_EQ(x["hard"], y["hard"]);
    if (x.contains("target")) {
      expect_near(x["target"]["position"], y["target"]["position"], 1e-12, "target");
      expect_near(x["target"]["orientation"], y["target"]["orientation"], 1e-12, "orientation");
    }
  }
  EXPECT_EQ(b["objectives"][0]["weight"], 2.5);
  EXPECT_NEAR(b["camera"]["yaw"].get<double>(), a["camera"]["yaw"].get<double>(), 1e-6);
  EXPECT_NEAR(b["camera"]["distance"].get<double>(), 2.2, 1e-6);
  ASSERT_EQ(b["stored_configs"].size(), 1u);
  expect_near(b["stored_configs"][0]["q"], a["stored_configs"][0]["q"], 0, "stored");
  EXPECT_EQ(b["scene_path"], "scene.json");
  // the script's open_scene does the same
  ASSERT_EQ(run("robot ur5e\nlive off\nopen_scene scene.json\nwait 1\ndump opened2.json\n"), 0)
      << log();
  expect_near(a["joint_q"], dump("opened2.json")["joint_q"], 1e-12, "joint_q");
  // and so does `scene`, with the stored configurations and the scene's path (it applied the
  // scene alone)
  ASSERT_EQ(run("robot ur5e\nlive off\nscene scene.json\nwait 1\ndump opened3.json\n"), 0) << log();
  const json c = dump("opened3.json");
  EXPECT_EQ(c["stored_configs"].size(), 1u);
  EXPECT_EQ(c["scene_path"], "scene.json");
}

// A scene saved while the solver was still closing in on an out-of-reach target (or resting on
// a best effort) reopens as it was saved: the first frames rest on the saved configuration
// instead of solving on to another compromise (the joints moved by up to 0.84 rad on reopening
// a resting best effort), the status says why the robot holds there, and the next edit solves
// again (and the settled solution is explained then, not before).
TEST_F(Session, AReopenedBestEffortIsShownAsSavedUntilTheNextEdit) {
  ASSERT_EQ(run("robot humanoid\nwait 10\ntarget 3 1.0 -0.25 0.887\nwait 4\n"
                "save_scene scene.json\n" +
                dump_cmd("saved.json")),
            0)
      << log();
  ASSERT_EQ(run("robot panda\nwait 2\nopen_scene scene.json\nwait 20\n" + dump_cmd("opened.json") +
                "target 3 0.97 -0.25 0.887\nwait 5\n" + dump_cmd("edited.json")),
            0)
      << log();
  const json a = dump("saved.json"), b = dump("opened.json"), c = dump("edited.json");
  ASSERT_FALSE(a["solver"]["converged"].get<bool>());
  // every joint where the file has it (the floating base's 7 coordinates first; its quaternion
  // is normalised again when read, which may round its last bit)
  const json saved = json::parse(read_text(path("scene.json")))["joint_q"];
  ASSERT_EQ(saved["root_joint"].size(), 7u);
  for (const auto& [name, q] : saved.items()) {
    if (name == "root_joint")
      expect_near(q, json(std::vector<double>(b["joint_q"].begin(), b["joint_q"].begin() + 7)),
                  1e-15, name);
    else
      EXPECT_EQ(q.get<double>(), b["joints"].at(name)["q"].get<double>()) << name;
  }
  EXPECT_EQ(b["solver"]["state"], "best effort");
  EXPECT_TRUE(b["objectives"][3]["missed"].get<bool>());
  bool said = false;
  for (const json& m : b["messages"])
    said = said || (m["text"].get<std::string>().find("shown as opened, ") == 0 &&
                    m["text"].get<std::string>().find("'right hand'") != std::string::npos);
  EXPECT_TRUE(said) << b["messages"].dump();
  // not solved, so no cost and no explanation (one of a configuration no solve settled on: a
  // reachable target read traded off with nothing pulling against it); after the edit, both
  EXPECT_TRUE(b["solver"]["as_opened"].get<bool>());
  EXPECT_TRUE(b["solver"]["cost"].is_null());
  EXPECT_TRUE(b["objectives"][3]["status"].is_null());
  EXPECT_FALSE(c["solver"]["as_opened"].get<bool>());
  EXPECT_TRUE(c["solver"]["cost"].is_number());
  // an edit ends it with live solving off too (the panel kept saying "shown as opened")
  ASSERT_EQ(run("robot panda\nlive off\nopen_scene scene.json\nwait 3\n" + dump_cmd("off0.json") +
                "target 3 0.97 -0.25 0.887\nwait 3\n" + dump_cmd("off1.json")),
            0)
      << log();
  EXPECT_TRUE(dump("off0.json")["solver"]["as_opened"].get<bool>());
  EXPECT_FALSE(dump("off1.json")["solver"]["as_opened"].get<bool>());
  // the edit (the target 3 cm nearer, within reach) solves again: the hand reaches it (a 7 mm
  // edit out of reach moved the compromise by less than a millimetre when the saved frame was
  // already close to it)
  EXPECT_LT(c["objectives"][3]["position_error"].get<double>(),
            b["objectives"][3]["position_error"].get<double>() - 1e-2);
}

TEST_F(Session, FailedSaveLeavesTheOldFileAndSaysWhy) {
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene scene.json\n"), 0) << log();
  std::string before = read_text(path("scene.json"));
  ASSERT_FALSE(before.empty());
  fs::create_directories(path("folder"));
  EXPECT_EQ(run("robot panda\n"
                "wait 1\n"
                "weight 0 4\n"
                "save_scene missing/scene.json\n"
                "save_scene folder\n"
                "save_scene scene.json/inside.json\n"
                "wait 1\n"
                "dump after.json\n"),
            1);
  EXPECT_EQ(read_text(path("scene.json")), before);
  EXPECT_TRUE(fs::is_directory(path("folder")));
  std::string text = log();
  // no old file to speak of where there was none
  EXPECT_NE(text.find("scene not saved: missing/scene.json"), std::string::npos) << text;
  EXPECT_NE(text.find("scene not saved: folder"), std::string::npos) << text;
  // the script's failure takes the error's words once
  EXPECT_EQ(text.find("scene not saved (scene not saved"), std::string::npos) << text;
  json d = dump("after.json");
  EXPECT_EQ(d["objectives"][0]["weight"], 4.0);  // the app keeps what it had
  EXPECT_TRUE(d["scene_path"].is_null());
}

TEST_F(Session, SaveDoesNotWriteOverAShippedScene) {
  // Ctrl+S writes the user's own scene file, but a shipped preset opened as a scene is not
  // written over (a review's Ctrl+S replaced the dual arm's preset): Save as opens instead
  const std::string preset = ikwb::asset_dir() + "/robots/panda/preset.json";
  const std::string shipped = read_text(preset);
  ASSERT_FALSE(shipped.empty());
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene own.json\n"), 0) << log();
  const std::string own = read_text(path("own.json"));
  const int rc =
      run("scene own.json\nwait 2\nweight 0 5\nwait 2\nkey S ctrl\nwait 3\n"
          "scene " +
          preset + "\nwait 2\nweight 0 3\nwait 2\nkey S ctrl\nwait 3\n");
  const std::string after = read_text(preset);
  if (after != shipped) std::ofstream(preset) << shipped;  // put the shipped file back
  ASSERT_EQ(rc, 0) << log();
  EXPECT_TRUE(after == shipped);
  EXPECT_TRUE(read_text(path("own.json")) != own);
  const json saved = json::parse(read_text(path("own.json")));
  EXPECT_EQ(saved["objectives"][0]["weight"], 5.0);
  // the scene's own path belongs to the recovery file only
  EXPECT_FALSE(saved.contains("extra") && saved["extra"].contains("scene_path")) << saved.dump();
}

TEST_F(Session, HugeJointLimitsDoNotStopTheApp) {
  // a robot file's limit of 1e200 overflowed the joint slider's float range (an ImGui assertion
  // aborted the app); it is shown as unlimited
  std::ofstream(path("big.urdf"))
      << R"(<robot name="b"><link name="a"/><link name="c"><visual><geometry>)"
         R"(<box size="0.1 0.1 0.1"/></geometry></visual></link>)"
         R"(<joint name="s" type="prismatic"><parent link="a"/><child link="c"/>)"
         R"(<axis xyz="1 0 0"/><limit lower="-1" upper="1e200" effort="1" velocity="1"/>)"
         R"(</joint></robot>)";
  ASSERT_EQ(run("wait 3\nlimits s -1 2\nwait 2\nlimits s reset\nwait 2\ndump d.json\n", "big.urdf"),
            0)
      << log();
  EXPECT_EQ(dump("d.json")["robot"]["dof_count"], 1);
}

TEST_F(Session, ADragPoseIsOneUndoStep) {
  // one command moving along two axes and turning about one: three drags, one step (it took
  // three undos, the first taking back only the turn)
  ASSERT_EQ(run("robot panda\nwait 5\ndump before.json\n"
                "drag_pose 0 5cm 0 5cm 0 0 20deg frames 5\nwait 3\ndump moved.json\n"
                "undo\nwait 3\ndump undone.json\nredo\nwait 3\ndump redone.json\n"),
            0)
      << log();
  const json before = dump("before.json"), moved = dump("moved.json");
  const json undone = dump("undone.json"), redone = dump("redone.json");
  EXPECT_EQ(moved["undo_depth"], before["undo_depth"].get<int>() + 1);
  EXPECT_NEAR(moved["objectives"][0]["target"]["position"][0].get<double>(),
              before["objectives"][0]["target"]["position"][0].get<double>() + 0.05, 1e-6);
  EXPECT_EQ(undone["objectives"][0]["target"], before["objectives"][0]["target"]);
  EXPECT_EQ(redone["objectives"][0]["target"], moved["objectives"][0]["target"]);
}

// Undo or redo back to the state a scene was saved in leaves nothing unsaved, as an editor does
// (it read unsaved, and a clean exit wrote a recovery file the next start offered); the window's
// title says the scene file and marks unsaved edits
TEST_F(Session, UndoBackToTheSavedStateLeavesNothingUnsaved) {
  ASSERT_EQ(run("robot panda\nwait 2\ntarget 0 0.45 0.1 0.45\nwait 10\n"
                "save_scene scene.json\ndump saved.json\n"
                "target 0 0.40 0.1 0.45\nwait 10\ndump edited.json\n"
                "undo\nwait 3\ndump undone.json\nredo\nwait 3\ndump redone.json\n"
                "undo\nundo\nwait 3\ndump before.json\nredo\nwait 3\ndump saved_again.json\n"),
            0)
      << log();
  const json saved = dump("saved.json"), edited = dump("edited.json");
  const json undone = dump("undone.json"), redone = dump("redone.json");
  EXPECT_FALSE(saved["unsaved"].get<bool>());
  EXPECT_EQ(saved["window_title"],
            "IK Workbench - " + saved["robot"]["name"].get<std::string>() + " - scene.json");
  EXPECT_TRUE(edited["unsaved"].get<bool>());
  EXPECT_EQ(edited["window_title"], saved["window_title"].get<std::string>() + " *");
  EXPECT_FALSE(undone["unsaved"].get<bool>());
  EXPECT_EQ(undone["window_title"], saved["window_title"]);
  EXPECT_TRUE(redone["unsaved"].get<bool>());
  // from before the save, redo comes back to it
  EXPECT_TRUE(dump("before.json")["unsaved"].get<bool>());
  EXPECT_FALSE(dump("saved_again.json")["unsaved"].get<bool>());
}

// A review's sequences: a solver setting (an undo step, no edit) is unsaved work (it read saved,
// and a clean exit kept no recovery file: the setting was lost), and undo of it saved again;
// undo across an open back to the other file's saved state reads saved; a script that starts
// with `robot` has nothing unsaved (it read unsaved with nothing to undo)
TEST_F(Session, SettingsOpensAndAStartingRobotReadAsAnEditorWould) {
  const std::string rec = path("state/recovery.json");
  ASSERT_EQ(run("robot panda\nwait 3\ndump start.json\nsave_scene a.json\ntarget 0 0.4 0.1 0.4\n"
                "wait 10\nsave_scene b.json\nwait 2\nsolver n_seeds 4\nwait 2\ndump set.json\n"
                "undo\nwait 2\ndump unset.json\nsolver n_seeds 4\nwait 2\nopen_scene a.json\n"
                "wait 3\ndump at_a.json\nundo\nwait 3\ndump back.json\n",
                "--recovery-file \"" + rec + "\" --autosave-seconds 0"),
            0)
      << log();
  const json start = dump("start.json"), set = dump("set.json"), unset = dump("unset.json");
  EXPECT_FALSE(start["unsaved"].get<bool>());
  EXPECT_EQ(start["undo_depth"], 0);
  EXPECT_TRUE(set["unsaved"].get<bool>());
  EXPECT_EQ(set["window_title"], "IK Workbench - panda - b.json *");
  EXPECT_FALSE(unset["unsaved"].get<bool>());
  EXPECT_FALSE(dump("at_a.json")["unsaved"].get<bool>());
  // back to b.json's state with its setting changed after the save: unsaved in b.json
  const json back = dump("back.json");
  EXPECT_EQ(back["scene_path"], "b.json");
  EXPECT_TRUE(back["unsaved"].get<bool>());
  // a clean exit wrote the setting to the recovery file
  ASSERT_TRUE(fs::exists(rec)) << log();
  EXPECT_EQ(json::parse(read_text(rec))["solver"]["n_seeds"], 4);
  // across an open back to the other file's saved state: nothing unsaved, nothing kept at exit
  fs::remove(rec);
  ASSERT_EQ(run("robot panda\nwait 2\nopen_scene b.json\nwait 2\nopen_scene a.json\nwait 2\n"
                "undo\nwait 3\ndump b_again.json\n",
                "--recovery-file \"" + rec + "\" --autosave-seconds 0"),
            0)
      << log();
  const json b_again = dump("b_again.json");
  EXPECT_EQ(b_again["scene_path"], "b.json");
  EXPECT_FALSE(b_again["unsaved"].get<bool>());
  EXPECT_FALSE(fs::exists(rec)) << log();
}

// the edits of a script's first frame are unsaved (a review of the change above: they read saved,
// and no recovery file kept them); a save during a branch edit with changes marks nothing, so an
// undo back to before the edit is unsaved (it read saved, the file holding the edited joint); a
// frame budget changed is unsaved work
TEST_F(Session, FirstFrameEditsBranchEditSavesAndTheBudgetAreUnsaved) {
  const std::string rec = path("state/recovery.json");
  ASSERT_EQ(run("target 0 0.4 0.1 0.5\nwait 3\ndump first.json\n",
                "--recovery-file \"" + rec + "\" --autosave-seconds 0"),
            0)
      << log();
  EXPECT_TRUE(dump("first.json")["unsaved"].get<bool>());
  EXPECT_TRUE(fs::exists(rec)) << log();
  fs::remove(rec);
  ASSERT_EQ(run("robot panda\nwait 2\nsave_scene a.json\nwait 2\nbranch panda_joint4 on\n"
                "branch_set panda_joint4 -100deg\nwait 2\nsave_scene a.json\nwait 2\n"
                "branch panda_joint4 off\nwait 2\nundo\nwait 3\ndump undone.json\n"
                "frame_budget 7\nsave_scene b.json\nwait 2\nframe_budget 3\nwait 2\n"
                "dump budget.json\n"),
            0)
      << log();
  EXPECT_TRUE(dump("undone.json")["unsaved"].get<bool>());
  EXPECT_TRUE(dump("budget.json")["unsaved"].get<bool>());
}

TEST_F(Session, RedoOfAnAdoptionHoldsTheAdoptedBranch) {
  // an unconverged seed adopted, undone and redone: the solve goes on from its branch again (it
  // went to another, converged solution 2.5 rad away: the hold was not in the undo step)
  ASSERT_EQ(run("robot panda\ntarget 0 0.4 0.3 0.3\nwait 10\nadopt_seed 3\nwait 60\n"
                "dump adopted.json\nundo\nwait 60\nredo\nwait 60\ndump redone.json\n"),
            0)
      << log();
  const json adopted = dump("adopted.json"), redone = dump("redone.json");
  ASSERT_EQ(adopted["joint_q"].size(), redone["joint_q"].size());
  for (std::size_t i = 0; i < adopted["joint_q"].size(); ++i)
    EXPECT_NEAR(redone["joint_q"][i].get<double>(), adopted["joint_q"][i].get<double>(), 1e-6) << i;
}

TEST_F(Session, UndoAndRedoEveryKindOfEdit) {
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "dump s0.json\n"
                "drag 0 TranslateX 5cm 0 0 frames 10\n"  // a drag is one step
                "wait 5\n"
                "dump s1.json\n"
                "weight 0 3\n"
                "wait 1\n"
                "add position panda_link4\n"
                "wait 1\n"
                "remove 2\n"
                "wait 1\n"
                "joint panda_joint1 30deg\n"
                "wait 1\n"
                "dump s5.json\n"
                "robot ur5e\n"
                "wait 2\n"
                "dump s6.json\n"
                "undo\n"
                "wait 1\n"
                "dump u5.json\n"
                "undo\n"
                "wait 1\n"
                "dump u4.json\n"
                "undo\n"
                "wait 1\n"
                "dump u3.json\n"
                "undo\n"
                "wait 1\n"
                "dump u2.json\n"
                "undo\n"
                "wait 1\n"
                "dump u1.json\n"
                "undo\n"
                "wait 1\n"
                "dump u0.json\n"
                "redo\n"
                "redo\n"
                "wait 1\n"
                "dump r2.json\n"
                "key z ctrl\n"  // the shortcut undoes too
                "wait 1\n"
                "dump k1.json\n"
                "key z ctrl shift\n"
                "wait 1\n"
                "dump k2.json\n"),
            0)
      << log();
  json s0 = dump("s0.json"), s1 = dump("s1.json"), s6 = dump("s6.json");
  EXPECT_EQ(s6["robot"]["name"], "ur5e");
  EXPECT_EQ(s6["undo_depth"], 6);
  json u5 = dump("u5.json");  // robot change undone
  EXPECT_EQ(u5["robot"]["name"], dump("s0.json")["robot"]["name"]);
  // the joint edit, then the solve of the next frame (targets follow the joints; the
  // null-space posture and the polishing step move the arm within the tolerances)
  json s5 = dump("s5.json");
  EXPECT_NEAR(s5["joint_q"][0].get<double>(), 30 * M_PI / 180, 1e-5);
  EXPECT_NEAR(u5["joint_q"][0].get<double>(), s5["joint_q"][0].get<double>(), 1e-9);
  EXPECT_EQ(u5["redo_depth"], 1);
  json u4 = dump("u4.json");  // joint edit undone
  EXPECT_NEAR(u4["joint_q"][0].get<double>(), s1["joint_q"][0].get<double>(), 1e-3);
  EXPECT_EQ(dump("u3.json")["objectives"].size(), 4u);  // removal undone
  EXPECT_EQ(dump("u2.json")["objectives"].size(), 3u);  // addition undone
  EXPECT_EQ(dump("u2.json")["objectives"][0]["weight"], 3.0);
  json u1 = dump("u1.json");  // weight undone
  EXPECT_EQ(u1["objectives"][0]["weight"], 1.0);
  expect_near(u1["objectives"][0]["target"]["position"], s1["objectives"][0]["target"]["position"],
              1e-12, "target after the drag");
  json u0 = dump("u0.json");  // drag undone
  expect_near(u0["objectives"][0]["target"]["position"], s0["objectives"][0]["target"]["position"],
              1e-12, "target before the drag");
  EXPECT_EQ(u0["undo_depth"], 0);
  EXPECT_EQ(u0["redo_depth"], 6);
  json r2 = dump("r2.json");
  EXPECT_EQ(r2["objectives"][0]["weight"], 3.0);
  EXPECT_EQ(r2["undo_depth"], 2);
  EXPECT_EQ(dump("k1.json")["objectives"][0]["weight"], 1.0);
  EXPECT_EQ(dump("k2.json")["objectives"][0]["weight"], 3.0);
}

TEST_F(Session, RecoveryFileAfterACrashIsRestoredAtTheNextStart) {
  std::string rec = path("state/recovery.json");
  std::string opts = "--recovery-file \"" + rec + "\" --autosave-seconds 0";
  EXPECT_EQ(run("robot panda\nwait 2\nweight 0 1.75\nstore\nwait 3\ncrash\n", opts), 3) << log();
  ASSERT_TRUE(fs::exists(rec)) << log();
  // a scripted start without --restore leaves it alone
  ASSERT_EQ(run("wait 1\ndump plain.json\n", opts), 0) << log();
  EXPECT_EQ(dump("plain.json")["objectives"][0]["weight"], 1.0);
  EXPECT_NE(log().find("a recovery file exists"), std::string::npos) << log();
  ASSERT_TRUE(fs::exists(rec));
  ASSERT_EQ(run("wait 2\ndump restored.json\n", opts + " --restore"), 0) << log();
  json d = dump("restored.json");
  EXPECT_EQ(d["objectives"][0]["weight"], 1.75);
  EXPECT_EQ(d["stored_configs"].size(), 1u);
  // said as a restore, not as a scene opened (the recovery file read "opened the scene ...")
  const std::string said = d["messages"].dump();
  EXPECT_NE(said.find("restored the previous session from " + rec + ": panda with 3 objectives"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("opened the scene"), std::string::npos) << said;
  EXPECT_EQ(d["recovery_file"], rec);
  // the script command restores it too; a clean exit without unsaved edits removes it
  ASSERT_EQ(run("restore_recovery\nwait 1\nsave_scene s.json\nwait 2\ndump r.json\n", opts), 0)
      << log();
  EXPECT_EQ(dump("r.json")["objectives"][0]["weight"], 1.75);
  EXPECT_FALSE(fs::exists(rec));
}

// a timeline playing when the workbench went down plays again after the restore (a kiosk
// restarted with --restore stood still); a scene saved while it plays opens still
TEST_F(Session, APlayingTimelinePlaysAgainAfterARestore) {
  const std::string rec = path("state/recovery.json");
  const std::string opts = "--recovery-file \"" + rec + "\" --autosave-seconds 0";
  EXPECT_EQ(run("robot planar3\nwait 2\ntimeline on\nkey_add 0\njoint joint1 40deg\nwait 3\n"
                "key_add 1\nloop on\nplay\nwait 5\nsave_scene s.json\nwait 3\ncrash\n",
                opts),
            3)
      << log();
  EXPECT_EQ(read_text(path("s.json")).find("timeline_playing"), std::string::npos);
  ASSERT_EQ(run("wait 3\n" + dump_cmd("restored.json"), opts + " --restore"), 0) << log();
  const json t = dump("restored.json")["timeline"];
  EXPECT_EQ(t["keys"].size(), 2u);
  EXPECT_TRUE(t["playing"].get<bool>()) << t;
  ASSERT_EQ(run("open_scene s.json\nwait 2\n" + dump_cmd("opened.json")), 0) << log();
  EXPECT_FALSE(dump("opened.json")["timeline"]["playing"].get<bool>());
}

// SIGTERM (as Ctrl-C, a closed terminal) ends the run as closing the window does: the session's
// end writes the recovery file with the last edit (autosave every 600 s would not have), and the
// exit status is 128 + 15
TEST_F(Session, SigtermEndsTheSessionAsAClose) {
  const std::string rec = path("state/recovery.json");
  // the signal once the script has made its edit (marker.json written after it; a fixed 10 s
  // came before the edit on a loaded machine), at the latest after 120 s
  std::ofstream(path("script.txt"))
      << "robot panda\nwait 2\nweight 0 1.75\nwait 2\ndump marker.json\nwait 100000\n";
  const std::string cmd =
      "cd \"" + dir_.string() + "\" && { \"" + IKWB_BINARY_DIR +
      "/ikwb\" gui --script script.txt --recovery-file \"" + rec +
      "\" --autosave-seconds 600 > log.txt 2>&1 & pid=$!; for i in $(seq 1200); "
      "do [ -f marker.json ] && break; sleep 0.1; done; kill -TERM $pid; "
      "wait $pid; }";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc)) << log();
  EXPECT_EQ(WEXITSTATUS(rc), 128 + 15) << log();
  EXPECT_NE(log().find("stopped by signal 15, closed as the window closes: the unsaved session "
                       "was written to " +
                       rec),
            std::string::npos)
      << log();
  ASSERT_EQ(run("wait 2\ndump restored.json\n", "--recovery-file \"" + rec + "\" --restore"), 0)
      << log();
  EXPECT_EQ(dump("restored.json")["objectives"][0]["weight"], 1.75);
}

// A full disk at the close keeps the last good recovery file (the close's write failed and the
// file was removed, the session's edits with it): files beyond 24 KB fail here (ulimit -f, with
// SIGXFSZ ignored so that the write returns EFBIG), as the stored configurations grow the scene
TEST_F(Session, AFullDiskAtTheCloseKeepsTheLastRecoveryFile) {
  const std::string rec = path("state/recovery.json");
  std::string script = "robot panda\nwait 2\nweight 0 1.75\nwait 3\n";
  for (int i = 0; i < 150; ++i)  // each pose another (the same one again is not stored)
    script += "joint panda_joint1 " + std::to_string(0.001 * i) + "\nstore\n";
  std::ofstream(path("script.txt")) << script << "wait 3\n";
  const std::string cmd = "cd \"" + dir_.string() +
                          "\" && bash -c \"trap '' XFSZ; ulimit -f 24; "
                          "exec '" +
                          IKWB_BINARY_DIR + "/ikwb' gui --script script.txt --recovery-file '" +
                          rec + "' --autosave-seconds 0\" > log.txt 2>&1";
  std::system(cmd.c_str());
  ASSERT_TRUE(fs::exists(rec)) << log();
  EXPECT_NE(log().find("the session could not be written at the close"), std::string::npos)
      << log();
  ASSERT_EQ(run("wait 2\ndump restored.json\n", "--recovery-file \"" + rec + "\" --restore"), 0)
      << log();
  EXPECT_EQ(dump("restored.json")["objectives"][0]["weight"], 1.75);
}

// A recovery file with an entry the robot cannot take (an objective on a link renamed since):
// the restore leaves it out with a warning, and the file as it was is kept beside the recovery
// file, which the session then writes without it (the entry was lost at the next autosave)
TEST_F(Session, ARestoreThatLeavesEntriesOutKeepsTheFileAsItWas) {
  const std::string rec = path("state/recovery.json");
  fs::create_directories(path("state"));
  const std::string text =
      R"({"version":1,"robot":"panda","objectives":[{"type":"pose","name":"tcp",)"
      R"("link":"nolink","target":{"position":[0.5,0,0.4],"orientation":[1,0,0,0]}}]})";
  std::ofstream(rec) << text;
  ASSERT_EQ(run("wait 2\nstore\nwait 3\n", "--recovery-file \"" + rec + "\" --restore"), 0)
      << log();
  const std::string whole = path("state/recovery.before-restore.json");
  EXPECT_NE(log().find("entries this robot could not take, is kept in " + whole), std::string::npos)
      << log();
  std::ifstream in(whole);
  std::stringstream kept;
  kept << in.rdbuf();
  EXPECT_EQ(kept.str(), text);
  ASSERT_TRUE(fs::exists(rec));
  EXPECT_EQ(json::parse(std::ifstream(rec))["objectives"].size(), 0u) << log();
}

// a robot opened through "dir/../" is saved with its path made plain
TEST_F(Session, SavedRobotPathsAreNormal) {
  const std::string urdf = std::string(IKWB_SOURCE_DIR) + "/assets/robots/../robots/ur5e/ur5e.urdf";
  ASSERT_EQ(run("robot " + urdf + "\nwait 2\nsave_scene " + path("s.json") + "\n"), 0) << log();
  const json saved = json::parse(read_text(path("s.json")));
  EXPECT_EQ(saved["robot"].get<std::string>(),
            fs::path(std::string(IKWB_SOURCE_DIR) + "/assets/robots/ur5e/ur5e.urdf")
                .lexically_normal()
                .string());
}

// a solver setting is an undo step of its own: undo after it reverts the setting, not the edit
// before it (a timeline key), and redo brings both back
TEST_F(Session, SolverSettingsAreUndoSteps) {
  ASSERT_EQ(run("robot panda\nwait 2\ntimeline on\nkey_add 0\nwait 2\nsolver n_seeds 4\nwait 2\n"
                "undo\nwait 2\n" +
                dump_cmd("u1.json") + "undo\nwait 2\n" + dump_cmd("u2.json") +
                "redo\nwait 2\nredo\nwait 2\n" + dump_cmd("u3.json")),
            0)
      << log();
  json u1 = dump("u1.json"), u2 = dump("u2.json"), u3 = dump("u3.json");
  EXPECT_EQ(u1["solver"]["n_seeds"], 16);
  EXPECT_EQ(u1["timeline"]["keys"].size(), 1u);
  EXPECT_EQ(u2["timeline"]["keys"].size(), 0u);
  EXPECT_EQ(u3["solver"]["n_seeds"], 4);
  EXPECT_EQ(u3["timeline"]["keys"].size(), 1u);
}

// a recovery file that cannot be read (cut short) is offered with its error, and no Restore
// (the modal offered Restore for a file it said could not be read); the dump shows the offer
TEST_F(Session, AnUnreadableRecoveryFileIsNotOfferedForRestore) {
  std::ofstream(path("rec.json")) << R"({"version": 1, "robot": "panda", "objec)";
  ASSERT_EQ(run_gui("--recovery-file rec.json --frames 10 --dump-state d.json"), 0) << log();
  const json offer = dump("d.json")["restore_offer"];
  ASSERT_TRUE(offer.is_object()) << offer;
  EXPECT_FALSE(offer["restorable"].get<bool>());
  EXPECT_EQ(offer["summary"].get<std::string>().find("it cannot be read: "), 0u) << offer;
  EXPECT_FALSE(read_text(path("rec.json")).empty());  // left as it was
}

// Two sessions left over (two workbenches killed): the offer for the first says the other is
// there (it was never mentioned, and a restored session, unsaved, is written back at each exit);
// a scripted run that keeps a left-over file for a restore has no recovery file of its own, and
// its dump says so (null)
TEST_F(Session, TheOfferSaysAnotherSessionIsLeftOver) {
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene s.json\n"), 0) << log();
  fs::copy_file(path("s.json"), path("rec.json"));
  fs::copy_file(path("s.json"), path("rec-2.json"));
  ASSERT_EQ(run_gui("--recovery-file rec.json --frames 10 --dump-state d.json"), 0) << log();
  const json offer = dump("d.json")["restore_offer"];
  ASSERT_TRUE(offer.is_object()) << offer;
  EXPECT_NE(offer["summary"].get<std::string>().find("(1 more left over: rec-2.json; each is"),
            std::string::npos)
      << offer;
  ASSERT_EQ(run("wait 1\n" + dump_cmd("paused.json"), "--recovery-file rec.json"), 0) << log();
  EXPECT_TRUE(dump("paused.json")["recovery_file"].is_null());
  EXPECT_NE(log().find("until then this run keeps no recovery file of its own"), std::string::npos)
      << log();
}

// the restore offer says what the recovery file holds
TEST(RecoverySummary, NamesTheRobotAndCountsWhatItHolds) {
  ikwb::Scene scene;
  scene.robot = "/somewhere/quadruped.urdf";
  scene.objectives.resize(9);
  scene.timeline.keys.resize(4);
  scene.obstacles.resize(2);
  scene.extra["stored_configs"] = json::array({json::object()});
  EXPECT_EQ(ikwb::gui::describe_recovery(scene),
            "quadruped: 9 objectives, 2 obstacles, 4 timeline keys, 1 stored configuration");
  scene.obstacles.clear();
  scene.timeline.keys.clear();
  scene.extra = json::object();
  scene.objectives.resize(1);
  EXPECT_EQ(ikwb::gui::describe_recovery(scene), "quadruped: 1 objective");
}

// a file dropped on the window opens by its kind (robot or scene) and joins File > Recent, which
// is kept beside the recovery file for the next start; a file that does not open changes nothing
TEST_F(Session, DroppedFilesOpenAndAreRecentAtTheNextStart) {
  const std::string rec = path("state/recovery.json");
  const std::string opts = "--recovery-file \"" + rec + "\" --no-restore";
  const std::string ur5e = std::string(IKWB_SOURCE_DIR) + "/assets/robots/ur5e/ur5e.urdf";
  ASSERT_EQ(run("robot panda\nwait 2\nsave_scene panda.json\ndrop " + ur5e +
                    "\nwait 2\ndump ur5e.json\ndrop panda.json\nwait 2\ndump back.json\n"
                    "drop no_such.urdf\ndrop targets.CSV\nwait 1\ndump after.json\n",
                opts),
            1)
      << log();
  // a CSV file is pointed to where such files are read (it read "malformed XML")
  EXPECT_NE(log().find("targets.CSV: a CSV file is not a robot or a scene; File > Import "
                       "targets... reads a list of targets"),
            std::string::npos)
      << log();
  EXPECT_EQ(dump("ur5e.json")["robot"]["name"], "ur5e");
  json back = dump("back.json");
  EXPECT_EQ(back["robot"]["name"], "panda");
  EXPECT_EQ(back["scene_path"], "panda.json");
  json after = dump("after.json");
  EXPECT_EQ(after["robot"]["name"], "panda");  // the failed drop kept what was open
  ASSERT_EQ(after["recent_files"].size(), 2u);
  EXPECT_EQ(after["recent_files"][0], path("panda.json"));
  EXPECT_EQ(after["recent_files"][1], ur5e);
  ASSERT_TRUE(fs::exists(path("state/recent.json")));
  ASSERT_EQ(run("wait 1\ndump next.json\n", opts), 0) << log();
  EXPECT_EQ(dump("next.json")["recent_files"], after["recent_files"]);
}

TEST_F(Session, TenStoredConfigurationsExportAsCsvAndJson) {
  std::string script = "robot panda\nwait 2\n";
  for (int i = 0; i < 10; ++i)
    script += "joint panda_joint1 " + std::to_string(i * 10) + "deg\nwait 2\nstore\n";
  script +=
      "wait 1\nexport_configs configs.csv\nexport_configs configs.json\n"
      "export_configs upper.CSV\nexport_configs other.txt\nexport_configs upper.JSON\n"
      "dump d.json\n";
  ASSERT_EQ(run(script), 0) << log();
  std::ifstream csv(path("configs.csv"));
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("panda_joint1,panda_joint2,", 0), 0u) << header;
  int rows = 0;
  while (std::getline(csv, line))
    if (!line.empty()) ++rows;
  EXPECT_EQ(rows, 10);
  json j = json::parse(read_text(path("configs.json")));
  EXPECT_EQ(j["configurations"].size(), 10u);
  EXPECT_EQ(dump("d.json")["stored_configs"].size(), 10u);
  EXPECT_NEAR(j["configurations"][9]["q"][0].get<double>(), 90 * M_PI / 180, 1e-9);
  // the CSV's numbers read back exactly (round-trip precision, as the command line writes them)
  ikwb::NumericTable table = ikwb::read_numeric_csv(path("configs.csv"));
  ASSERT_EQ(table.row_count(), 10u);
  for (std::size_t r = 0; r < table.row_count(); ++r)
    for (std::size_t c = 0; c < table.column_count(); ++c)
      EXPECT_EQ(table.rows[r][c], j["configurations"][r]["q"][c].get<double>()) << r << "," << c;
  // JSON for a .json name in any case, CSV for any other, as the trajectory export (a .CSV name
  // got JSON)
  EXPECT_EQ(read_text(path("upper.CSV")), read_text(path("configs.csv")));
  EXPECT_EQ(read_text(path("other.txt")), read_text(path("configs.csv")));
  EXPECT_EQ(read_text(path("upper.JSON")), read_text(path("configs.json")));
}

// a restored configuration stays: its link targets are where the restored pose puts them (they
// were set from the FK of the pose before it, and the solve pulled the arm back there)
TEST_F(Session, ARestoredConfigurationStaysWhereItWasStored) {
  ASSERT_EQ(run("robot panda\nwait 5\nstore\ndrag 0 TranslateX 10cm 0 0 frames 20\nwait 20\n"
                "store\nrestore_config 0\nwait 30\n" +
                dump_cmd("restored.json")),
            0)
      << log();
  const json d = dump("restored.json");
  expect_near(d["joint_q"], d["stored_configs"][0]["q"], 1e-4, "restored");
  EXPECT_GT(std::abs(d["stored_configs"][1]["q"][1].get<double>() -
                     d["stored_configs"][0]["q"][1].get<double>()),
            0.05);
}

// Ctrl+Z right after K takes back the store, not the drag before it (the stored list was not in
// the undo steps); a deleted configuration comes back with undo
TEST_F(Session, UndoTakesBackAStoreAndADeleteNotTheDragBefore) {
  ASSERT_EQ(run("robot panda\nwait 5\ndrag 0 TranslateX 10cm 0 0 frames 20\nwait 20\n"
                "dump dragged.json\nkey k\nwait 1\ndump stored.json\nkey z ctrl\nwait 1\n"
                "dump undone.json\nkey z ctrl shift\nwait 1\ndump redone.json\n"
                "delete_config 0\nwait 1\ndump deleted.json\nundo\nwait 1\ndump back.json\n"),
            0)
      << log();
  const json dragged = dump("dragged.json"), stored = dump("stored.json");
  ASSERT_EQ(stored["stored_configs"].size(), 1u);
  EXPECT_EQ(stored["undo_depth"], dragged["undo_depth"].get<int>() + 1);
  const json undone = dump("undone.json");
  EXPECT_EQ(undone["stored_configs"].size(), 0u);
  expect_near(undone["objectives"][0]["target"]["position"],
              dragged["objectives"][0]["target"]["position"], 1e-12, "the drag stays");
  EXPECT_EQ(dump("redone.json")["stored_configs"].size(), 1u);
  EXPECT_EQ(dump("deleted.json")["stored_configs"].size(), 0u);
  const json back = dump("back.json");
  ASSERT_EQ(back["stored_configs"].size(), 1u);
  EXPECT_EQ(back["stored_configs"][0]["q"], stored["stored_configs"][0]["q"]);
}

TEST_F(Session, StoredConfigurationsBelongToTheRobotTheyWereStoredOn) {
  // a planar3 configuration and a Panda one: export and restore only the open robot's
  EXPECT_EQ(run("robot planar3\nwait 2\nstore\nrobot panda\nwait 2\nstore\nexport_configs " +
                path("mixed.csv") + "\nexport_configs " + path("mixed.json") + "\n" +
                dump_cmd("mixed_dump.json") + "save_scene " + path("mixed_scene.json") +
                "\nrestore_config 0\n"),
            1)
      << log();
  EXPECT_NE(log().find("config 1 was stored on another robot (3 joint values)"), std::string::npos)
      << log();
  EXPECT_NE(log().find("restore_config: configuration 0 not restored"), std::string::npos) << log();
  EXPECT_EQ(log().find("no stored configuration"), std::string::npos) << log();
  EXPECT_NE(log().find("mixed.csv: left out 1 configurations stored on another robot"),
            std::string::npos)
      << log();
  // every row of the export has the header's width: the Panda's configuration only
  std::ifstream csv(path("mixed.csv"));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(csv, line);) rows.push_back(ikwb::split_csv_line(line));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].size(), 8u);
  EXPECT_EQ(rows[1].size(), 8u);
  const json exported = json::parse(read_text(path("mixed.json")));
  ASSERT_EQ(exported["configurations"].size(), 1u);
  EXPECT_EQ(exported["configurations"][0]["name"], "config 2");
  const json stored = dump("mixed_dump.json")["stored_configs"];
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_FALSE(stored[0]["fits"].get<bool>());
  EXPECT_TRUE(stored[1]["fits"].get<bool>());

  // the scene keeps both; back on planar3 the first one restores
  ASSERT_EQ(run("open_scene " + path("mixed_scene.json") + "\nwait 2\n" + dump_cmd("opened.json") +
                "robot planar3\nwait 2\nrestore_config 0\n" + dump_cmd("planar.json") +
                "export_configs " + path("planar.csv") + "\n"),
            0)
      << log();
  const json opened = dump("opened.json")["stored_configs"];
  ASSERT_EQ(opened.size(), 2u);
  EXPECT_FALSE(opened[0]["fits"].get<bool>());
  EXPECT_TRUE(opened[1]["fits"].get<bool>());
  const json planar = dump("planar.json");
  EXPECT_TRUE(planar["stored_configs"][0]["fits"].get<bool>());
  expect_near(planar["joint_q"], planar["stored_configs"][0]["q"], 1e-9, "restored");
  std::ifstream planar_csv(path("planar.csv"));
  std::string header;
  std::getline(planar_csv, header);
  EXPECT_EQ(ikwb::split_csv_line(header).size(), 3u) << header;
}

TEST_F(Session, NoConfigurationFitsNothingIsExported) {
  EXPECT_EQ(run("robot planar3\nwait 2\nstore\nrobot panda\nwait 2\nexport_configs " +
                path("none.csv") + "\nrestore_config 3\n"),
            1)
      << log();
  EXPECT_NE(log().find("nothing exported: all 1 configurations stored on another robot"),
            std::string::npos)
      << log();
  EXPECT_NE(log().find("no stored configuration 3 (1 stored, numbered from 0)"), std::string::npos)
      << log();
  EXPECT_FALSE(fs::exists(path("none.csv")));
}

// K again without moving stores nothing (a review exported the pose twice); the same pose after
// another is a sequence's and is stored
TEST_F(Session, StoringAgainWithoutMovingStoresNothing) {
  ASSERT_EQ(run("robot panda\nwait 2\nstore\nstore\nwait 1\n" + dump_cmd("twice.json") +
                "joint panda_joint1 0.3\nwait 1\nstore\njoint panda_joint1 0\nwait 1\nstore\n" +
                dump_cmd("sequence.json")),
            0)
      << log();
  const json twice = dump("twice.json");
  EXPECT_EQ(twice["stored_configs"].size(), 1u);
  EXPECT_EQ(twice["messages"].back()["text"],
            "not stored again: the robot has not moved since 'config 1' was stored");
  const json seq = dump("sequence.json")["stored_configs"];
  ASSERT_EQ(seq.size(), 3u);
  EXPECT_EQ(seq[2]["q"], seq[0]["q"]);
}

// with the Timeline shown K adds a key, so the advice names the menu (it said to press K)
TEST_F(Session, NothingStoredWithTheTimelineShownNamesTheMenu) {
  EXPECT_EQ(run("robot panda\nwait 1\nexport_configs " + path("a.csv") +
                "\ntimeline on\nwait 1\nexport_configs " + path("b.csv") + "\n"),
            1)
      << log();
  EXPECT_NE(log().find("no stored configurations to export: press K to store the current one"),
            std::string::npos)
      << log();
  EXPECT_NE(log().find("no stored configurations to export: Edit > Store configuration stores "
                       "the current one (K adds a timeline key while the Timeline is shown)"),
            std::string::npos)
      << log();
}

TEST_F(Session, PackagePathsAreSavedAbsolute) {
  fs::create_directories(path("ws/src"));
  std::ofstream(path("script.txt")) << "robot panda\nwait 1\nsave_scene " + path("s.json") + "\n";
  ASSERT_EQ(run_gui("--package-path ws/src --script script.txt"), 0) << log();
  const json s = json::parse(read_text(path("s.json")));
  ASSERT_EQ(s["package_paths"].size(), 1u);
  EXPECT_EQ(fs::path(s["package_paths"][0].get<std::string>()), fs::path(path("ws/src")));
}

TEST_F(Session, BadSceneCameraKeysAreWarnedAboutAndIgnored) {
  ASSERT_EQ(run("robot panda\nwait 1\nsave_scene " + path("s.json") + "\n"), 0) << log();
  json s = json::parse(read_text(path("s.json")));
  s["camera"]["distance"] = -5;
  s["camera"]["yaw"] = "NaN";
  s["camera"]["target"] = {0.0, 1.0};
  s["camera"]["zoom"] = 2;
  s["camera"]["pitch"] = 0.3;
  std::ofstream(path("bad_camera.json")) << s.dump(1);
  ASSERT_EQ(run("open_scene " + path("bad_camera.json") + "\nwait 2\n" + dump_cmd("d.json")), 0)
      << log();
  const std::string file = path("bad_camera.json") + ": ";
  for (const char* key : {"camera.distance", "camera.yaw", "camera.target", "camera.zoom"})
    EXPECT_NE(log().find(file + key), std::string::npos) << key << "\n" << log();
  const json c = dump("d.json")["camera"];
  EXPECT_GT(c["distance"].get<double>(), 0.1);
  EXPECT_LT(c["distance"].get<double>(), 100.0);
  EXPECT_NEAR(c["pitch"].get<double>(), 0.3, 1e-6);
}

TEST_F(Session, BadSceneExtrasAreWarnedAbout) {
  // a speed out of range was clamped, a loop that is not a boolean and configurations of the
  // wrong shape were dropped without a word or with the JSON library's text
  std::ofstream(path("ex.json"))
      << R"({"version": 1, "robot": "panda", "extra": {"timeline_speed": 100,
        "timeline_loop": "x", "stored_configs": [{"name": 3, "q": [1, 2]}, {"q": "bad"},
        {"name": "ok", "q": [0, 0, 0, 0, 0, 0, 0, 0]}]}})";
  ASSERT_EQ(run("wait 2\ndump d.json\n", "--scene ex.json"), 0) << log();
  const std::string text = log();
  for (const char* said :
       {"extra.timeline_loop: expected true or false, got \"x\"; not looping",
        "extra.timeline_speed: expected a number in [0.05, 1], got 100; playing at 1",
        "stored configuration 0 not restored: \"name\" is not text",
        "stored configuration 1 not restored: expected {\"name\": text, \"q\": [numbers]}"})
    EXPECT_NE(text.find(said), std::string::npos) << said << "\n" << text;
  EXPECT_EQ(dump("d.json")["stored_configs"].size(), 1u);
}

TEST_F(Session, SceneSavedByAScriptKeepsTheUsersFrameBudget) {
  ASSERT_EQ(
      run("robot panda\nwait 2\n" + dump_cmd("d.json") + "save_scene " + path("s.json") + "\n"), 0)
      << log();
  // the script's frames run without a budget, the scene keeps the workbench's
  EXPECT_EQ(dump("d.json")["solver"]["frame_budget_ms"].get<double>(), 0.0);
  const json s = json::parse(read_text(path("s.json")));
  EXPECT_EQ(s["extra"]["frame_budget_ms"].get<double>(), 4.0);
}

TEST_F(Session, ImportTargetsReportsBadLinesAndKeepsTheGoodOnes) {
  std::ofstream(path("targets.csv")) << "# a comment before the header\n"
                                        "x,y,z\n"
                                        "0.45,0.1,0.5\n"
                                        "0.4,oops,0.5\n"
                                        "# a comment\n"
                                        "0.35,-0.1,0.45,0,0,0,1\n"
                                        "1,2\n"
                                        "1e9,0,0\n"
                                        "0.3,0,0.5,1,1,1,1\n";
  ASSERT_EQ(run("robot panda\n"
                "wait 2\n"
                "import_targets targets.csv\n"
                "apply_target 1 0\n"
                "wait 1\n"
                "dump d.json\n"),
            0)
      << log();
  json d = dump("d.json");
  ASSERT_EQ(d["imported_targets"].size(), 2u);
  expect_near(d["objectives"][0]["target"]["position"], json::array({0.35, -0.1, 0.45}), 1e-12,
              "applied target");
  std::string text = log();
  EXPECT_NE(text.find("targets.csv: line 4: column 2 'oops' is not a number"), std::string::npos)
      << text;
  EXPECT_NE(text.find("targets.csv: line 7: expected 3 or 7 values (x,y,z[,qx,qy,qz,qw]), got 2"),
            std::string::npos)
      << text;
  // the command line's rules: a position within 1e6 m, a unit quaternion
  EXPECT_NE(text.find("targets.csv: line 8: a position beyond 1e6 m"), std::string::npos) << text;
  EXPECT_NE(text.find("targets.csv: line 9: the quaternion is not unit (norm 2"), std::string::npos)
      << text;
  EXPECT_EQ(run("robot panda\nimport_targets missing.csv\n"), 1);
  EXPECT_NE(log().find("missing.csv: cannot read the target list (No such file or directory)"),
            std::string::npos)
      << log();
  // a file that is not text is named as such (it read "no targets imported")
  std::ofstream(path("utf16.csv"), std::ios::binary) << std::string("\xFF\xFEx\0,\0y\0\n\0", 10);
  EXPECT_EQ(run("robot panda\nimport_targets utf16.csv\n"), 1);
  EXPECT_NE(log().find("utf16.csv:1: the file is UTF-16 text; save it as UTF-8"), std::string::npos)
      << log();
  // an objective that does not exist is named as such
  EXPECT_EQ(run("robot panda\nimport_targets targets.csv\napply_target 0 99\n"), 1) << log();
  EXPECT_NE(log().find("no objective 99 (there are 3)"), std::string::npos) << log();
}

TEST_F(Session, ShortSoakHasNoNanNoDriftAndFlatMemory) {
  ASSERT_EQ(run("robot panda\nwait 2\nsoak 2000 3\ndump d.json\n", "--width 640 --height 360"), 0)
      << log();
  json s = dump("d.json")["soak"];
  EXPECT_EQ(s["frames"], 2000);
  EXPECT_FALSE(s["running"].get<bool>());
  EXPECT_EQ(s["nan_frames"], 0);
  EXPECT_EQ(s["drift_events"], 0);
  EXPECT_GT(s["drags"].get<int>(), 10);
  EXPECT_GT(s["weight_changes"].get<int>(), 5);
  std::vector<long> rss = s["rss_kb"];
  ASSERT_GE(rss.size(), 2u);
  EXPECT_LT(rss.back(), rss[1] + 16 * 1024) << "RSS grew by more than 16 MB";
}

}  // namespace
