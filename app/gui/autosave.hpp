// The recovery file: the session (a scene with camera and stored configurations) written
// atomically every few seconds while edits happen, removed when the workbench exits with
// nothing unsaved. Its presence at the next start means the last session did not end cleanly
// (a crash, a kill) or ended with unsaved edits; the workbench offers to restore it.
//
// Each running workbench holds a lock on its recovery file (an flock on FILE.lock, removed when
// it lets go), so that two at once do not write over or remove each other's: the second takes
// FILE-2.json (then -3, ...), and a start prefers a file no one holds that is left over (a
// crash) to a fresh one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/scene.hpp"

namespace ikwb::gui {

class Autosave {
 public:
  // $IKWB_RECOVERY_FILE, else $XDG_STATE_HOME/ikwb/recovery.json, else
  // ~/.local/state/ikwb/recovery.json ("" when none of them is set)
  static std::string default_path();

  Autosave() = default;
  Autosave(const Autosave&) = delete;
  Autosave& operator=(const Autosave&) = delete;
  ~Autosave();

  // Takes the recovery file for this process: `base` when no other workbench holds it, else the
  // first of base-2.json ... base-9.json free, a left-over one (it exists) before a fresh one.
  // Sets path ("" when base is "" or every one is held) and returns it.
  std::string claim(const std::string& base);

  // the left-over recovery files of base's family other than path that no workbench holds
  // (sessions of workbenches that ended without removing them, each offered in its turn)
  std::vector<std::string> left_over_elsewhere(const std::string& base) const;

  std::string path;         // "" disables autosave
  double interval_s = 2.0;  // at most one write per interval
  bool paused = false;      // while the restore offer is open: keep the old file

  bool exists() const;
  // a write is due: edits since the last write and the interval has passed
  bool due(uint64_t edit_serial, double now) const;
  // writes the scene; false and *error on failure (the old file stays)
  bool write(const Scene& scene, uint64_t edit_serial, double now, std::string* error);
  // reads the recovery file; throws SceneError
  Scene load() const;
  // counts edit_serial as written (the state at start needs no recovery)
  void mark(uint64_t edit_serial) {
    written_ = true;
    written_serial_ = edit_serial;
  }
  void remove() const;

 private:
  int lock_fd_ = -1;    // the lock on locked_'s FILE.lock, held while the workbench runs
  std::string locked_;  // the recovery file claimed (path, unless changed since)
  uint64_t written_serial_ = 0;
  bool written_ = false;
  double written_at_ = -1e300;
};

}  // namespace ikwb::gui
