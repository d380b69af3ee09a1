// Recovery file (see autosave.hpp).
#include "app/gui/autosave.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace ikwb::gui {

namespace fs = std::filesystem;

namespace {

// An exclusive lock on path + ".lock" (created), or -1 when another process holds it; a folder
// that cannot hold the lock file counts as free (autosave reports its own failures). A holder
// removes the lock file before it lets go (unlock), so a lock taken on a file that is no longer
// at its path (opened before the holder removed it) is let go and taken again on a new one.
int try_lock(const std::string& path, bool* held_elsewhere) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  const std::string lock = path + ".lock";
  *held_elsewhere = false;
  for (;;) {
    const int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      *held_elsewhere = true;
      close(fd);
      return -1;
    }
    struct stat held {
    }, named{};
    if (fstat(fd, &held) == 0 && stat(lock.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino)
      return fd;
    close(fd);
  }
}

// lets go of try_lock's lock on path, removing its lock file first
void unlock(const std::string& path, int fd) {
  if (fd < 0) return;
  ::unlink((path + ".lock").c_str());
  close(fd);
}

// base, then base-2.json ... base-9.json
std::vector<std::string> recovery_candidates(const std::string& base) {
  const fs::path b(base);
  std::vector<std::string> out = {base};
  for (int k = 2; k <= 9; ++k)
    out.push_back(
        (b.parent_path() / (b.stem().string() + "-" + std::to_string(k) + b.extension().string()))
            .string());
  return out;
}

}  // namespace

Autosave::~Autosave() {
  unlock(locked_, lock_fd_);
}

std::string Autosave::claim(const std::string& base) {
  unlock(locked_, lock_fd_);
  lock_fd_ = -1;
  locked_.clear();
  path = base;
  if (base.empty()) return path;
  const std::vector<std::string> candidates = recovery_candidates(base);
  // a left-over file first (its workbench ended without removing it), then the first free one
  for (int pass = 0; pass < 2; ++pass)
    for (const std::string& c : candidates) {
      std::error_code ec;
      if (pass == 0 && !fs::is_regular_file(c, ec)) continue;
      bool held = false;
      const int fd = try_lock(c, &held);
      if (held) continue;
      lock_fd_ = fd;
      locked_ = c;
      path = c;
      return path;
    }
  path.clear();  // nine workbenches at once
  return path;
}

std::vector<std::string> Autosave::left_over_elsewhere(const std::string& base) const {
  std::vector<std::string> out;
  if (base.empty()) return out;
  for (const std::string& c : recovery_candidates(base)) {
    std::error_code ec;
    if (c == path || !fs::is_regular_file(c, ec)) continue;
    bool held = false;
    unlock(c, try_lock(c, &held));
    if (!held) out.push_back(c);
  }
  return out;
}

std::string Autosave::default_path() {
  if (const char* p = std::getenv("IKWB_RECOVERY_FILE"); p && *p) return p;
  if (const char* p = std::getenv("XDG_STATE_HOME"); p && *p)
    return (fs::path(p) / "ikwb" / "recovery.json").string();
  if (const char* p = std::getenv("HOME"); p && *p)
    return (fs::path(p) / ".local" / "state" / "ikwb" / "recovery.json").string();
  return "";
}

bool Autosave::exists() const {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec);
}

bool Autosave::due(uint64_t edit_serial, double now) const {
  if (path.empty() || paused) return false;
  if (written_ && edit_serial == written_serial_) return false;
  return now - written_at_ >= interval_s;
}

bool Autosave::write(const Scene& scene, uint64_t edit_serial, double now, std::string* error) {
  written_at_ = now;
  try {
    fs::path parent = fs::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !fs::create_directories(parent, ec) && ec) {
      // the folder's own error (a read-only home read "No such file or directory")
      if (error)
        *error = path + ": cannot create the folder " + parent.string() + " (" + ec.message() + ")";
      return false;
    }
    save_scene(path, scene);
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  written_ = true;
  written_serial_ = edit_serial;
  return true;
}

Scene Autosave::load() const {
  return load_scene(path, true);
}

void Autosave::remove() const {
  std::error_code ec;
  if (!path.empty()) fs::remove(path, ec);
}

}  // namespace ikwb::gui
