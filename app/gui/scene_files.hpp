// Scene files: the session as a scene (robot, configuration, objectives, solver, camera, stored
// configurations), File > Open scene / Save scene / Save scene as, and restoring the recovery
// file (docs/sessions.md). Errors go to the messages and leave the state and the files as they
// were.
#pragma once

#include <string>

#include "app/gui/panels.hpp"
#include "engine/core/scene.hpp"

namespace ikwb::gui {

// the session as a scene; the camera and the stored configurations go into it too
Scene session_scene(const Ui& ui);
bool save_scene_file(Ui& ui, const std::string& path);
bool open_scene_file(Ui& ui, const std::string& path);
// restores the recovery file and resumes autosave; where the robot could not take all of it,
// the file as it was is kept first at recovery_kept_whole_path (FILE.before-restore.json)
bool restore_recovery(Ui& ui);
std::string recovery_kept_whole_path(const std::string& recovery_path);
// what a recovery file holds, for the restore offer: "quadruped: 9 objectives, 4 timeline
// keys, 2 stored configurations" (the robot as its file's name)
std::string describe_recovery(const Scene& scene);

}  // namespace ikwb::gui
