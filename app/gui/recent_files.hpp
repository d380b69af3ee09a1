// Opening any file the workbench takes (a robot: URDF, xacro or MJCF; a scene: .json), as a
// file dropped on the window or chosen from File > Recent does, and the Recent list itself:
// the files opened last, newest first, kept in recent.json beside the recovery file (not kept
// across runs when there is none, as in scripted runs without --recovery-file).
#pragma once

#include <string>
#include <vector>

#include "app/gui/panels.hpp"

namespace ikwb::gui {

struct RecentFiles {
  static constexpr int kMax = 10;
  std::string path;                // recent.json; "" = in memory only
  std::vector<std::string> files;  // absolute paths, newest first

  // reads `path`; an absent or unreadable file is an empty list
  void load();
  // moves (or adds) `file` to the front and writes the list
  void add(const std::string& file);
};

// the recent list's file for a recovery file ("" for "")
std::string recent_files_path(const std::string& recovery_path);

// opens a scene (.json) or a robot file (anything but .csv, which is refused with where such a
// file is read); on success it joins the Recent list. Errors go to the messages and leave the
// workbench as it was.
bool open_any_file(Ui& ui, const std::string& path);

}  // namespace ikwb::gui
