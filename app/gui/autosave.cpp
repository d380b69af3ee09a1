// Recovery file (see autosave.hpp).
#include "app/gui/autosave.hpp"

#include <cstdlib>
#include <filesystem>

namespace ikwb::gui {

namespace fs = std::filesystem;

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
    if (!parent.empty()) fs::create_directories(parent, ec);
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
