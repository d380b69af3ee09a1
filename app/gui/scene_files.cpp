// Scene files and the recovery file's restore (see scene_files.hpp).
#include "app/gui/scene_files.hpp"

#include <cstdio>
#include <filesystem>

#include "app/gui/session.hpp"
#include "app/gui/timeline_edit.hpp"

namespace ikwb::gui {

Scene session_scene(const Ui& ui) {
  Scene s = ui.app.make_scene();
  const render::Camera& c = ui.view.camera;
  s.camera = {{"target", {c.target.x, c.target.y, c.target.z}},
              {"distance", c.distance},
              {"yaw", c.yaw},
              {"pitch", c.pitch}};
  if (ui.session) {
    add_stored_to_scene(ui, s);
    if (!ui.session->scene_path.empty()) s.extra["scene_path"] = ui.session->scene_path;
  }
  // a timeline playing (a kiosk's loop) plays again after a restore; a saved scene opens still
  if (ui.app.timeline.playing) s.extra["timeline_playing"] = true;
  return s;
}

bool save_scene_file(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  if (!app.model) {
    app.error("nothing to save: open a robot first");
    return false;
  }
  if (path.empty()) {
    app.error("save scene: no file name");
    return false;
  }
  std::error_code exists_error;
  const bool had_file = std::filesystem::is_regular_file(path, exists_error);
  try {
    // the scene's own file, the held branch and the playing are the recovery file's business
    // (docs/sessions.md), not the scene's
    Scene scene = session_scene(ui);
    scene.extra.erase("scene_path");
    scene.extra.erase("hold_adopted");
    scene.extra.erase("timeline_playing");
    save_scene(path, scene);
  } catch (const std::exception& e) {
    app.error(std::string(had_file ? "scene not saved (the old file is unchanged): "
                                   : "scene not saved: ") +
              e.what());
    return false;
  }
  if (ui.session) {
    ui.session->history.saved_as(path);
    set_scene_path(ui, path);
    mark_saved(ui);
  }
  app.info("saved scene " + path);
  // the pose shown is not the one a reopened scene shows: said, as the file is written
  if (app.timeline.hold) {
    char at[32];
    std::snprintf(at, sizeof at, "%.2f s", app.timeline.playhead);
    app.warn(std::string("saved the configuration and targets the timeline's playhead sets (") +
             at + "): the scene reopens at that pose");
  }
  if (app.branch.active && app.branch.edits > 0 && !app.branch.descendants_follow)
    app.warn(
        "saved during a branch edit whose descendants keep their places: the file holds "
        "the joint values, and reopened, the links below the edited joint are where those "
        "values put them, not where they are shown");
  return true;
}

bool open_scene_file(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  Scene scene;
  try {
    scene = load_scene(path, true);
  } catch (const std::exception& e) {
    app.error(std::string("scene not opened: ") + e.what());
    return false;
  }
  if (scene.version < kSceneVersion)
    app.warn(path + ": written by scene version " + std::to_string(scene.version) +
             "; saving writes version " + std::to_string(kSceneVersion));
  if (!app.apply_scene(scene, path)) return false;
  app.rest_on_opened = !scene.joint_q.empty();
  if (ui.session) {
    load_stored_from_scene(ui, scene, path);
    set_scene_path(ui, path);
    ui.session->scene_left_out = app.scene_left_out;
    mark_saved(ui);
    ui.session->recent.add(path);
  }
  return true;
}

std::string describe_recovery(const Scene& scene) {
  auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string robot = std::filesystem::path(scene.robot).stem().string();
  if (robot.empty()) robot = "no robot";
  std::string text = robot + ": " + count(scene.objectives.size(), "objective", "objectives");
  if (!scene.obstacles.empty())
    text += ", " + count(scene.obstacles.size(), "obstacle", "obstacles");
  if (!scene.timeline.keys.empty())
    text += ", " + count(scene.timeline.keys.size(), "timeline key", "timeline keys");
  const std::size_t stored = scene.extra.value("stored_configs", nlohmann::json::array()).size();
  if (stored > 0) text += ", " + count(stored, "stored configuration", "stored configurations");
  return text;
}

std::string recovery_kept_whole_path(const std::string& recovery_path) {
  std::filesystem::path p(recovery_path);
  return (p.parent_path() / (p.stem().string() + ".before-restore.json")).string();
}

bool restore_recovery(Ui& ui) {
  AppState& app = ui.app;
  if (!ui.session) return false;
  Session& s = *ui.session;
  s.offer_restore = false;
  if (!s.autosave.exists()) {
    s.autosave.paused = false;
    app.error("no recovery file to restore (" + s.autosave.path + ")");
    return false;
  }
  // a restore that fails keeps the file, and autosave off so that nothing writes over it or
  // removes it at exit (as the offer's Keep the file)
  const std::string kept =
      "; the file is kept and autosave stays off in this session (" + s.autosave.path + ")";
  Scene scene;
  try {
    scene = s.autosave.load();
  } catch (const std::exception& e) {
    s.autosave.paused = true;
    app.error(std::string("recovery file not restored: ") + e.what() + kept);
    return false;
  }
  if (!app.apply_scene(scene, s.autosave.path, true)) {
    s.autosave.paused = true;
    app.error("recovery file not restored" + kept);
    return false;
  }
  s.autosave.paused = false;
  // entries this robot could not take (an objective on a link renamed since) would be gone from
  // the recovery file at its next write: the file as it was is kept beside it first
  if (app.scene_left_out > 0) {
    const std::string whole = recovery_kept_whole_path(s.autosave.path);
    std::error_code ec;
    std::filesystem::copy_file(s.autosave.path, whole,
                               std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) {
      s.autosave.paused = true;
      app.warn("the recovery file's " + std::to_string(app.scene_left_out) +
               " left-out entries could not be kept in " + whole + " (" + ec.message() + ")" +
               kept);
    } else {
      app.warn("the recovery file as it was, with the " + std::to_string(app.scene_left_out) +
               " entries this robot could not take, is kept in " + whole);
    }
  }
  app.rest_on_opened = !scene.joint_q.empty();
  // restored edits are unsaved until saved, whatever the start marked
  s.mark_pending = false;
  s.saved.clear();
  load_stored_from_scene(ui, scene, s.autosave.path);
  set_scene_path(ui, scene.extra.value("scene_path", std::string()));
  // Save then goes to Save as, as for a scene opened with entries left out
  s.scene_left_out = app.scene_left_out;
  app.last_edit = "restore session";
  if (scene.extra.value("timeline_playing", false)) play(app, true);
  return true;
}

}  // namespace ikwb::gui
