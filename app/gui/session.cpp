// The session's start, frame step, shutdown and dump fields (see session.hpp).
#include "app/gui/session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "app/gui/branch_edit.hpp"
#include "app/gui/scene_files.hpp"
#include "app/gui/timing.hpp"

namespace ikwb::gui {

namespace {

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

// Undo and redo leave branch edit mode first, so that its edits are the step undone: the mode's
// bodies are not the joints' state the steps hold (undone inside it, the panels went back while
// the view kept the edit, and the next edit cancelled the undo).
void leave_branch_edit(Ui& ui) {
  if (!ui.app.branch.active) return;
  end_branch_edit(ui.app, true);
  ui.app.info("left branch edit");
}

// after an undo or redo: the step's stored configurations and scene file are back (the history
// has seen the state it restored)
void restored(Ui& ui) {
  Session& s = *ui.session;
  ++s.stored_serial;
  s.stored_selected = std::min(s.stored_selected, int(s.stored.size()) - 1);
  set_scene_path(ui, s.history.document());
  s.observed_serial = session_serial(ui);
}

// changes with every change a save keeps (the recovery file's serial): the edits, the history's
// state (a solver setting is a step, not an edit) and the extras
uint64_t session_version(const Ui& ui) {
  return std::hash<std::string>{}(std::to_string(session_serial(ui)) + " " +
                                  std::to_string(ui.session->history.state()) + " " +
                                  session_extras(ui));
}

}  // namespace

uint64_t session_serial(const Ui& ui) {
  // the two counts in one number: edits stay far below 2^40
  return ui.app.edit_serial + (ui.session->stored_serial << 40);
}

std::string session_extras(const Ui& ui) {
  char b[128];
  std::snprintf(b, sizeof b, "%d %.17g %.17g %.17g", int(ui.app.timeline.loop),
                ui.app.timeline.speed, ui.app.frame_step, ui.app.scene_frame_budget_ms());
  return b;
}

bool replace_scene(Ui& ui, const std::string& what, const std::function<bool()>& open) {
  const bool unsaved = ui.session && ui.app.model && session_unsaved(ui);
  if (!open()) return false;
  if (unsaved)
    ui.app.warn("unsaved edits replaced by " + what +
                ": Edit > Undo (Ctrl+Z) steps back to them; save before to keep them in a file");
  return true;
}

bool session_unsaved(const Ui& ui) {
  const Session& s = *ui.session;
  if (session_serial(ui) != s.observed_serial) return true;
  const auto it = s.saved.find(s.scene_path);
  return it == s.saved.end() || it->second.state != s.history.state() ||
         it->second.extras != session_extras(ui);
}

void mark_saved(Ui& ui) {
  Session& s = *ui.session;
  // a branch edit with changes is not yet a step of the history: the state before it is not
  // the one saved (an undo back to it read saved, the file holding the edited branch)
  if (ui.app.branch.active && ui.app.branch.edits > 0) {
    s.mark_pending = false;
    s.saved.erase(s.scene_path);
    return;
  }
  s.mark_pending = true;
  s.mark_serial = session_serial(ui);
}

std::string window_title(const Ui& ui) {
  std::string title = "IK Workbench";
  if (!ui.app.model) return title;
  title += " - " + ui.app.robot_title;
  if (!ui.session) return title;
  if (!ui.session->scene_path.empty())
    title += " - " + std::filesystem::path(ui.session->scene_path).filename().string();
  return session_unsaved(ui) ? title + " *" : title;
}

void set_scene_path(Ui& ui, const std::string& path) {
  ui.session->scene_path = path;
  ui.session->scene_model_version = ui.app.model_version;
  ui.session->scene_left_out = 0;
}

bool session_undo(Ui& ui) {
  Session& s = *ui.session;
  leave_branch_edit(ui);
  if (!s.history.undo(ui.app, s.stored, s.stored_serial, s.scene_path)) return false;
  restored(ui);
  return true;
}

bool session_redo(Ui& ui) {
  Session& s = *ui.session;
  leave_branch_edit(ui);
  if (!s.history.redo(ui.app, s.stored, s.stored_serial, s.scene_path)) return false;
  restored(ui);
  return true;
}

void session_start(Ui& ui, const std::string& recovery_path, double interval_s, int restore) {
  Session& s = *ui.session;
  AppState& app = ui.app;
  s.scene_model_version = app.model_version;
  // another workbench running holds its own recovery file: this one takes another
  if (s.autosave.claim(recovery_path) != recovery_path) {
    if (s.autosave.path.empty())
      app.warn("autosave is off: nine other workbenches hold the recovery files next to " +
               recovery_path);
    else if (!s.autosave.exists())
      app.info("another workbench holds " + recovery_path + ": this one's recovery file is " +
               s.autosave.path);
  }
  s.recent.path = recent_files_path(recovery_path);
  s.recent.load();
  s.autosave.interval_s = interval_s;
  mark_saved(ui);
  s.observed_serial = session_serial(ui);
  s.autosave.mark(session_version(ui));
  if (!s.autosave.exists() || restore < 0) return;
  if (restore > 0) {
    restore_recovery(ui);
  } else if (!ui.script_mode) {
    s.offer_restore = true;
    s.autosave.paused = true;
    s.restore_summary = recovery_summary(s.autosave, &s.restore_readable);
    // another workbench's session left over too: said, so that it is not forgotten behind this
    // one (restored, a session is unsaved work written back at every exit until saved)
    const std::vector<std::string> others = s.autosave.left_over_elsewhere(recovery_path);
    if (!others.empty())
      s.restore_summary += "\n(" + std::to_string(others.size()) +
                           " more left over: " + others.front() +
                           (others.size() > 1 ? ", ..." : "") +
                           "; each is offered once the one before is saved or discarded)";
  } else {
    // kept (no autosave over it) until restored
    s.autosave.paused = true;
    app.warn("a recovery file exists (" + s.autosave.path +
             "): --restore or the script's restore_recovery restores it; until then this run "
             "keeps no recovery file of its own (an unattended run restarted after a crash: "
             "--restore)");
  }
}

void session_frame_end(Ui& ui, bool busy) {
  if (!ui.session) return;
  Session& s = *ui.session;
  AppState& app = ui.app;
  // another robot opened (File > Open robot, the script's `robot`): no longer the scene's
  if (s.scene_model_version != app.model_version) {
    if (!s.scene_path.empty())
      app.info("another robot is open: Save asks for a file name (" + s.scene_path +
               " is left as it is)");
    set_scene_path(ui, "");
  }
  s.history.observe(app, s.stored, s.stored_serial, busy, s.scene_path);
  // (an edit group still open is edits the history has not seen)
  if (!app.edit_group_open) s.observed_serial = session_serial(ui);
  if (s.mark_pending && !app.edit_group_open) {
    s.mark_pending = false;
    if (s.mark_serial == session_serial(ui))
      s.saved[s.scene_path] = {s.history.state(), session_extras(ui)};
  }
  const uint64_t version = session_version(ui);
  double now = seconds_since_start();
  if (app.model && !s.offer_restore && s.autosave.due(version, now)) {
    std::string error;
    if (!s.autosave.write(session_scene(ui), version, now, &error) && error != s.autosave_error)
      app.error("autosave failed: " + error);
    s.autosave_error = error;
  }
}

ShutdownOutcome session_shutdown(Ui& ui) {
  if (!ui.session) return {"", false};
  Session& s = *ui.session;
  const std::string& path = s.autosave.path;
  if (path.empty())
    return {
        "the session was not kept (autosave is off: a scripted run keeps one with "
        "--recovery-file FILE)",
        false};
  if (s.autosave.paused) return {path + " is kept as it was (autosave was paused)", false};
  // unsaved edits: the next start offers them
  if (ui.app.model && session_unsaved(ui)) {
    std::string error;
    if (s.autosave.write(session_scene(ui), 0, 0, &error))
      return {"the unsaved session was written to " + path + "; the next start offers it", false};
    // the last good recovery file stays (a full disk at the close removed it, and the session's
    // edits with it)
    return {"the session could not be written at the close (" + error + "); " + path +
                " keeps the last autosave",
            true};
  }
  s.autosave.remove();
  return {"nothing was unsaved", false};
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
  d["unsaved"] = session_unsaved(ui);
  d["window_title"] = window_title(ui);
  // null while autosave is off, paused included (a left-over file kept for a restore)
  d["recovery_file"] =
      s.autosave.path.empty() || s.autosave.paused ? json(nullptr) : json(s.autosave.path);
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
