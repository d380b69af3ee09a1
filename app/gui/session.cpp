// The session's start, frame step, shutdown and dump fields (see session.hpp).
#include "app/gui/session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "app/gui/scene_files.hpp"
#include "app/gui/timing.hpp"

namespace ikwb::gui {

namespace {

// edits and stored configurations: either makes the session worth autosaving
uint64_t autosave_serial(const Ui& ui) {
  return ui.app.edit_serial + ui.session->stored.size() * 1000003ULL;
}

// the restore offer's line: what the file holds, and how long ago it was written; *readable
// false when it cannot be read
std::string recovery_summary(const Autosave& autosave, bool* readable) {
  std::string text;
  *readable = true;
  try {
    text = describe_recovery(autosave.load());
  } catch (const std::exception& e) {
    *readable = false;
    return std::string("it cannot be read: ") + e.what();
  }
  std::error_code ec;
  const auto written = std::filesystem::last_write_time(autosave.path, ec);
  if (!ec) {
    const double minutes = std::chrono::duration<double, std::ratio<60>>(
                               std::filesystem::file_time_type::clock::now() - written)
                               .count();
    char ago[64];
    if (minutes < 1)
      std::snprintf(ago, sizeof ago, "; written under a minute ago");
    else if (minutes < 90)
      std::snprintf(ago, sizeof ago, "; written %.0f min ago", std::max(minutes, 0.0));
    else
      std::snprintf(ago, sizeof ago, "; written %.1f h ago", minutes / 60);
    text += ago;
  }
  return text;
}

}  // namespace

void session_start(Ui& ui, const std::string& recovery_path, double interval_s, int restore) {
  Session& s = *ui.session;
  AppState& app = ui.app;
  s.autosave.path = recovery_path;
  s.recent.path = recent_files_path(recovery_path);
  s.recent.load();
  s.autosave.interval_s = interval_s;
  s.saved_serial = app.edit_serial;
  s.autosave.mark(autosave_serial(ui));
  if (!s.autosave.exists() || restore < 0) return;
  if (restore > 0) {
    restore_recovery(ui);
  } else if (!ui.script_mode) {
    s.offer_restore = true;
    s.autosave.paused = true;
    s.restore_summary = recovery_summary(s.autosave, &s.restore_readable);
  } else {
    // kept (no autosave over it) until restored
    s.autosave.paused = true;
    app.warn("a recovery file exists (" + recovery_path +
             "): --restore or the script's restore_recovery restores it");
  }
}

void session_frame_end(Ui& ui, bool busy) {
  if (!ui.session) return;
  Session& s = *ui.session;
  AppState& app = ui.app;
  s.history.observe(app, busy);
  uint64_t serial = autosave_serial(ui);
  double now = seconds_since_start();
  if (app.model && !s.offer_restore && s.autosave.due(serial, now)) {
    std::string error;
    if (!s.autosave.write(session_scene(ui), serial, now, &error) && error != s.autosave_error)
      app.error("autosave failed: " + error);
    s.autosave_error = error;
  }
}

void session_shutdown(Ui& ui) {
  if (!ui.session) return;
  Session& s = *ui.session;
  if (s.autosave.path.empty() || s.autosave.paused) return;
  // unsaved edits: the next start offers them
  std::string error;
  if (ui.app.model && ui.app.edit_serial != s.saved_serial &&
      s.autosave.write(session_scene(ui), 0, 0, &error))
    return;
  s.autosave.remove();
}

void add_session_dump(const Ui& ui, nlohmann::json& d) {
  using nlohmann::json;
  if (!ui.session) return;
  const Session& s = *ui.session;
  d["undo_depth"] = s.history.undo_depth();
  d["redo_depth"] = s.history.redo_depth();
  json stored = json::array();
  for (const StoredConfig& c : s.stored)
    stored.push_back({{"name", c.name}, {"q", c.q}, {"fits", stored_fits(ui.app, c)}});
  d["stored_configs"] = stored;
  d["scene_path"] = s.scene_path.empty() ? json(nullptr) : json(s.scene_path);
  d["unsaved"] = ui.app.edit_serial != s.saved_serial;
  d["recovery_file"] = s.autosave.path.empty() ? json(nullptr) : json(s.autosave.path);
  // the "Restore the previous session?" modal, while it waits for an answer
  d["restore_offer"] =
      s.offer_restore ? json{{"summary", s.restore_summary}, {"restorable", s.restore_readable}}
                      : json(nullptr);
  d["recent_files"] = s.recent.files;
  json imported = json::array();
  for (const Transform<double>& t : s.imported)
    imported.push_back({t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w});
  d["imported_targets"] = imported;
}

}  // namespace ikwb::gui
