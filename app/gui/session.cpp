// Sessions: scene files, undo / redo, recovery, stored configurations, imported targets, and
// their menus and windows (see session.hpp).
#include "app/gui/session.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "app/gui/script_args.hpp"
#include "app/gui/timing.hpp"

namespace ikwb::gui {

namespace {

using nlohmann::json;

enum Dialog { kNone, kOpen, kSaveAs, kExport, kImport };

const char* dialog_title(int d) {
  switch (d) {
    case kOpen:
      return "Open scene";
    case kSaveAs:
      return "Save scene as";
    case kExport:
      return "Export configurations";
    case kImport:
      return "Import targets";
  }
  return "";
}

// column names of a configuration in q_start order (name, or name_k for multi-coordinate joints)
std::vector<std::string> coord_names(const Model& m) {
  std::vector<std::string> names;
  for (int j = 0; j < m.joint_count; ++j) {
    int a = m.joint_q_start[j], b = m.joint_q_start[j + 1];
    for (int k = a; k < b; ++k)
      names.push_back(b - a == 1 ? m.joint_name[j] : m.joint_name[j] + "_" + std::to_string(k - a));
  }
  return names;
}

// stored configurations and the scene file from a scene's "extra"
void load_extras(Ui& ui, const Scene& scene, Session& s) {
  AppState& app = ui.app;
  s.stored.clear();
  s.stored_selected = -1;
  const json& list = scene.extra.value("stored_configs", json::array());
  if (!list.is_array()) return;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    try {
      StoredConfig c{e.value("name", "config " + std::to_string(i + 1)),
                     e.at("q").get<std::vector<double>>()};
      if (!app.model || int(c.q.size()) != app.model->coord_count)
        throw std::runtime_error("wrong number of values");
      for (double v : c.q)
        if (!std::isfinite(v)) throw std::runtime_error("non-finite value");
      s.stored.push_back(c);
    } catch (const std::exception& ex) {
      app.warn("stored configuration " + std::to_string(i) + " not restored: " + ex.what());
    }
  }
}

void set_link_targets_to_links(AppState& app) {
  for (std::size_t i = 0; i < app.objectives.size(); ++i)
    if (kind_has_link(app.objectives[i].kind))
      app.objectives[i].target = app.link_point_pose(int(i));
}

}  // namespace

// ---- files ------------------------------------------------------------------------------------

Scene session_scene(const Ui& ui) {
  Scene s = ui.app.make_scene();
  const render::Camera& c = ui.view.camera;
  s.camera = {{"target", {c.target.x, c.target.y, c.target.z}},
              {"distance", c.distance},
              {"yaw", c.yaw},
              {"pitch", c.pitch}};
  if (ui.session) {
    json list = json::array();
    for (const StoredConfig& sc : ui.session->stored)
      list.push_back({{"name", sc.name}, {"q", sc.q}});
    if (!list.empty()) s.extra["stored_configs"] = list;
    if (ui.app.model) s.extra["coord_names"] = coord_names(*ui.app.model);
    if (!ui.session->scene_path.empty()) s.extra["scene_path"] = ui.session->scene_path;
  }
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
  try {
    save_scene(path, session_scene(ui));
  } catch (const std::exception& e) {
    app.error(std::string("scene not saved (the old file is unchanged): ") + e.what());
    return false;
  }
  if (ui.session) {
    ui.session->scene_path = path;
    ui.session->saved_serial = app.edit_serial;
  }
  app.info("saved scene " + path);
  return true;
}

bool open_scene_file(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  Scene scene;
  try {
    scene = load_scene(path);
  } catch (const std::exception& e) {
    app.error(std::string("scene not opened: ") + e.what());
    return false;
  }
  if (scene.version < kSceneVersion)
    app.warn(path + ": written by scene version " + std::to_string(scene.version) +
             "; saving writes version " + std::to_string(kSceneVersion));
  if (!app.apply_scene(scene)) return false;
  if (ui.session) {
    load_extras(ui, scene, *ui.session);
    ui.session->scene_path = path;
    ui.session->saved_serial = app.edit_serial;
  }
  return true;
}

bool restore_recovery(Ui& ui) {
  AppState& app = ui.app;
  if (!ui.session) return false;
  Session& s = *ui.session;
  s.offer_restore = false;
  s.autosave.paused = false;
  if (!s.autosave.exists()) {
    app.error("no recovery file to restore (" + s.autosave.path + ")");
    return false;
  }
  Scene scene;
  try {
    scene = s.autosave.load();
  } catch (const std::exception& e) {
    app.error(std::string("recovery file not restored: ") + e.what());
    return false;
  }
  if (!app.apply_scene(scene)) return false;
  load_extras(ui, scene, s);
  s.scene_path = scene.extra.value("scene_path", std::string());
  app.last_edit = "restore session";
  app.info("restored the previous session from " + s.autosave.path);
  return true;
}

// ---- stored configurations and targets --------------------------------------------------------

void store_configuration(Ui& ui) {
  AppState& app = ui.app;
  if (!app.model || !ui.session) return;
  Session& s = *ui.session;
  int n = s.stored.empty() ? 1 : 1 + int(s.stored.size());
  s.stored.push_back({"config " + std::to_string(n), app.joint_q});
  s.stored_selected = int(s.stored.size()) - 1;
  if (!ui.script_mode) s.show_stored = true;
  app.info("stored configuration " + std::to_string(n) + " (" + std::to_string(s.stored.size()) +
           " stored)");
}

bool restore_stored(Ui& ui, int index) {
  AppState& app = ui.app;
  if (!ui.session || index < 0 || index >= int(ui.session->stored.size())) {
    app.error("no stored configuration " + std::to_string(index));
    return false;
  }
  const StoredConfig& c = ui.session->stored[index];
  if (!app.model || int(c.q.size()) != app.model->coord_count) {
    app.error(c.name + " does not fit this robot");
    return false;
  }
  app.set_configuration(c.q);
  set_link_targets_to_links(app);
  app.note_edit("restore configuration");
  return true;
}

bool export_configs(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  if (!app.model || !ui.session || ui.session->stored.empty()) {
    app.error("no stored configurations to export: press K to store the current one");
    return false;
  }
  const std::vector<StoredConfig>& list = ui.session->stored;
  std::vector<std::string> names = coord_names(*app.model);
  std::string text;
  bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  if (csv) {
    std::ostringstream out;
    out.precision(12);
    for (std::size_t k = 0; k < names.size(); ++k) out << (k ? "," : "") << names[k];
    out << "\n";
    for (const StoredConfig& c : list) {
      for (std::size_t k = 0; k < c.q.size(); ++k) out << (k ? "," : "") << c.q[k];
      out << "\n";
    }
    text = out.str();
  } else {
    json j = {{"format", "ikwb-configurations"},
              {"version", 1},
              {"robot", app.robot_path},
              {"columns", names},
              {"configurations", json::array()}};
    for (const StoredConfig& c : list)
      j["configurations"].push_back({{"name", c.name}, {"q", c.q}});
    text = j.dump(2) + "\n";
  }
  try {
    write_file_atomic(path, text);
  } catch (const std::exception& e) {
    app.error(std::string("configurations not exported: ") + e.what());
    return false;
  }
  app.info("exported " + std::to_string(list.size()) + " configurations to " + path);
  return true;
}

bool import_targets(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  std::ifstream in(path);
  if (!in) {
    app.error(path + ": cannot read the target list");
    return false;
  }
  std::vector<Transform<double>> targets;
  std::vector<std::string> bad;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) {
      std::size_t a = f.find_first_not_of(" \t"), b = f.find_last_not_of(" \t");
      fields.push_back(a == std::string::npos ? "" : f.substr(a, b - a + 1));
    }
    std::vector<double> v(fields.size());
    bool numbers = true, any_number = false;
    for (std::size_t k = 0; k < fields.size(); ++k) {
      bool ok = plain_number(fields[k], &v[k]);
      numbers = numbers && ok;
      any_number = any_number || ok;
    }
    if (n == 1 && !any_number) continue;  // a header
    if (!numbers || (v.size() != 3 && v.size() != 7)) {
      bad.push_back("line " + std::to_string(n) + ": expected x,y,z[,qx,qy,qz,qw] numbers");
      continue;
    }
    Transform<double> t = transform_identity<double>();
    t.p = {v[0], v[1], v[2]};
    if (v.size() == 7) {
      Quat<double> q{v[3], v[4], v[5], v[6]};
      if (!(quat_norm(q) > 1e-9)) {
        bad.push_back("line " + std::to_string(n) + ": zero quaternion");
        continue;
      }
      t.q = normalize(q);
    } else {
      t.q = Quat<double>{0, 0, 0, 0};  // no orientation: keep the objective's
    }
    targets.push_back(t);
  }
  for (std::size_t k = 0; k < bad.size() && k < 20; ++k) app.warn(path + ": " + bad[k]);
  if (bad.size() > 20) app.warn(path + ": " + std::to_string(bad.size() - 20) + " more bad lines");
  if (targets.empty()) {
    app.error(path + ": no targets imported");
    return false;
  }
  if (ui.session) {
    ui.session->imported = targets;
    ui.session->imported_selected = 0;
    if (!ui.script_mode) ui.session->show_stored = true;
  }
  app.info("imported " + std::to_string(targets.size()) + " targets from " + path +
           (bad.empty() ? "" : " (" + std::to_string(bad.size()) + " bad lines skipped)"));
  return true;
}

bool apply_imported(Ui& ui, int index, int objective) {
  AppState& app = ui.app;
  if (!ui.session || index < 0 || index >= int(ui.session->imported.size())) {
    app.error("no imported target " + std::to_string(index));
    return false;
  }
  if (objective < 0) objective = app.selection.objective;
  if (objective < 0 || objective >= int(app.objectives.size()) ||
      !kind_has_link(app.objectives[objective].kind)) {
    app.error("select a position, rotation or pose objective to apply the target to");
    return false;
  }
  Transform<double> t = ui.session->imported[index];
  if (t.q.w == 0 && t.q.x == 0 && t.q.y == 0 && t.q.z == 0)
    t.q = app.objectives[objective].target.q;
  app.set_target(objective, t);
  ui.session->imported_selected = index;
  app.note_edit("apply imported target");
  return true;
}

// ---- frame hooks --------------------------------------------------------------------------------

static uint64_t autosave_serial(const Ui& ui) {
  return ui.app.edit_serial + ui.session->stored.size() * 1000003ULL;
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

void session_start(Ui& ui, const std::string& recovery_path, double interval_s, int restore) {
  Session& s = *ui.session;
  AppState& app = ui.app;
  s.autosave.path = recovery_path;
  s.autosave.interval_s = interval_s;
  s.saved_serial = app.edit_serial;
  s.autosave.mark(autosave_serial(ui));
  if (!s.autosave.exists() || restore < 0) return;
  if (restore > 0) {
    restore_recovery(ui);
  } else if (!ui.script_mode) {
    s.offer_restore = true;
    s.autosave.paused = true;
  } else {
    // kept (no autosave over it) until restored
    s.autosave.paused = true;
    app.warn("a recovery file exists (" + recovery_path +
             "): --restore or the script's restore_recovery restores it");
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

// ---- menus, windows, dialogs --------------------------------------------------------------------

namespace {

void open_dialog(Session& s, int which) {
  s.dialog = which;
  s.open_dialog = true;
  s.dialog_error.clear();
  if (which == kSaveAs || which == kOpen)
    std::snprintf(s.dialog_path, sizeof s.dialog_path, "%s", s.scene_path.c_str());
}

void save(Ui& ui) {
  Session& s = *ui.session;
  if (s.scene_path.empty())
    open_dialog(s, kSaveAs);
  else
    save_scene_file(ui, s.scene_path);
}

// runs the dialog's action; the error shows in the dialog
bool run_dialog(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  std::size_t before = app.messages.size();
  bool ok = false;
  switch (ui.session->dialog) {
    case kOpen:
      ok = open_scene_file(ui, path);
      break;
    case kSaveAs:
      ok = save_scene_file(ui, path);
      break;
    case kExport:
      ok = export_configs(ui, path);
      break;
    case kImport:
      ok = import_targets(ui, path);
      break;
  }
  if (!ok)
    ui.session->dialog_error =
        app.messages.size() > before ? app.messages.back().text : "failed: " + path;
  return ok;
}

void draw_path_dialog(Ui& ui) {
  Session& s = *ui.session;
  const char* title = "Session file";
  if (s.open_dialog) {
    ImGui::OpenPopup(title);
    s.open_dialog = false;
  }
  std::string picked;
  if (s.picker.poll(&picked) && !picked.empty())
    std::snprintf(s.dialog_path, sizeof s.dialog_path, "%s", picked.c_str());
  ImGui::SetNextWindowSize(ImVec2(560, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
  ImGui::TextUnformatted(dialog_title(s.dialog));
  if (s.dialog == kExport) ImGui::TextDisabled("a .csv name writes CSV, any other JSON");
  if (s.dialog == kImport) ImGui::TextDisabled("CSV lines x,y,z[,qx,qy,qz,qw] (m, quaternion)");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  bool enter = ImGui::InputText("##session_path", s.dialog_path, sizeof s.dialog_path,
                                ImGuiInputTextFlags_EnterReturnsTrue);
  if (FileDialog::available() && !ui.script_mode) {
    ImGui::BeginDisabled(s.picker.busy());
    if (ImGui::Button("Browse...")) s.picker.start(dialog_title(s.dialog));
    ImGui::EndDisabled();
    ImGui::SameLine();
  }
  if (ImGui::Button("OK", ImVec2(90, 0)) || enter) {
    if (run_dialog(ui, s.dialog_path)) ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(90, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) {
    s.dialog_error.clear();
    ImGui::CloseCurrentPopup();
  }
  if (!s.dialog_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.42f, 1.0f));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(s.dialog_error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  ImGui::EndPopup();
}

void draw_restore_offer(Ui& ui) {
  Session& s = *ui.session;
  const char* title = "Restore the previous session?";
  if (!s.offer_restore) return;
  if (!ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
  if (!ImGui::BeginPopupModal(title, nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  ImGui::TextUnformatted("The last session did not end cleanly or had unsaved edits.");
  ImGui::TextDisabled("%s", s.autosave.path.c_str());
  if (ImGui::Button("Restore", ImVec2(110, 0))) {
    restore_recovery(ui);
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Discard", ImVec2(110, 0))) {
    s.offer_restore = false;
    s.autosave.paused = false;
    s.autosave.remove();
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void draw_stored_window(Ui& ui) {
  Session& s = *ui.session;
  AppState& app = ui.app;
  if (!s.show_stored) return;
  ImGui::SetNextWindowPos(ImVec2(ui.layout.view.x + 12, ui.layout.view.y + 12),
                          ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(300, 320), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Stored configurations", &s.show_stored, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  ImGui::TextDisabled("K stores the current configuration");
  ImGui::BeginChild("##stored", ImVec2(0, 120), true);
  for (int i = 0; i < int(s.stored.size()); ++i) {
    ImGui::PushID(i);
    if (ImGui::Selectable(s.stored[i].name.c_str(), s.stored_selected == i,
                          ImGuiSelectableFlags_AllowDoubleClick)) {
      s.stored_selected = i;
      if (ImGui::IsMouseDoubleClicked(0)) restore_stored(ui, i);
    }
    ImGui::PopID();
  }
  ImGui::EndChild();
  bool valid = s.stored_selected >= 0 && s.stored_selected < int(s.stored.size());
  ImGui::BeginDisabled(!valid);
  if (ImGui::Button("Restore")) restore_stored(ui, s.stored_selected);
  ImGui::SameLine();
  if (ImGui::Button("Delete") && valid) {
    s.stored.erase(s.stored.begin() + s.stored_selected);
    s.stored_selected = std::min(s.stored_selected, int(s.stored.size()) - 1);
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(s.stored.empty());
  if (ImGui::Button("Export...")) open_dialog(s, kExport);
  ImGui::EndDisabled();
  ImGui::Separator();
  ImGui::Text("Imported targets: %d", int(s.imported.size()));
  if (ImGui::Button("Import...")) open_dialog(s, kImport);
  if (!s.imported.empty()) {
    int i = std::clamp(s.imported_selected, 0, int(s.imported.size()) - 1);
    const Transform<double>& t = s.imported[i];
    ImGui::Text("%d / %d: %.3f %.3f %.3f m", i + 1, int(s.imported.size()), t.p.x, t.p.y, t.p.z);
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) s.imported_selected = std::max(i - 1, 0);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right))
      s.imported_selected = std::min(i + 1, int(s.imported.size()) - 1);
    ImGui::SameLine();
    ImGui::BeginDisabled(app.selection.objective < 0);
    if (ImGui::Button("Apply to selected objective")) apply_imported(ui, i);
    ImGui::EndDisabled();
  }
  ImGui::End();
}

}  // namespace

void session_shortcuts(Ui& ui) {
  if (!ui.session) return;
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantCaptureKeyboard || ui.session->offer_restore) return;
  AppState& app = ui.app;
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Z)) {
    if (io.KeyShift)
      ui.session->history.redo(app);
    else
      ui.session->history.undo(app);
  }
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Y)) ui.session->history.redo(app);
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S)) {
    if (io.KeyShift)
      open_dialog(*ui.session, kSaveAs);
    else
      save(ui);
  }
  if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_K)) store_configuration(ui);
}

void draw_session_file_items(Ui& ui) {
  if (!ui.session) return;
  Session& s = *ui.session;
  ImGui::Separator();
  if (ImGui::MenuItem("Open scene...")) open_dialog(s, kOpen);
  if (ImGui::MenuItem("Save scene", "Ctrl+S", false, bool(ui.app.model))) save(ui);
  if (ImGui::MenuItem("Save scene as...", "Ctrl+Shift+S", false, bool(ui.app.model)))
    open_dialog(s, kSaveAs);
  ImGui::Separator();
  if (ImGui::MenuItem("Export configurations...", nullptr, false, !s.stored.empty()))
    open_dialog(s, kExport);
  if (ImGui::MenuItem("Import targets...")) open_dialog(s, kImport);
  ImGui::MenuItem("Stored configurations", nullptr, &s.show_stored);
}

void draw_edit_menu(Ui& ui) {
  if (!ui.session || !ImGui::BeginMenu("Edit")) return;
  History& h = ui.session->history;
  std::string undo = "Undo " + h.undo_label(), redo = "Redo " + h.redo_label();
  if (ImGui::MenuItem(undo.c_str(), "Ctrl+Z", false, h.undo_depth() > 0)) h.undo(ui.app);
  if (ImGui::MenuItem(redo.c_str(), "Ctrl+Shift+Z", false, h.redo_depth() > 0)) h.redo(ui.app);
  ImGui::Separator();
  if (ImGui::MenuItem("Store configuration", "K", false, bool(ui.app.model)))
    store_configuration(ui);
  ImGui::EndMenu();
}

void draw_session_windows(Ui& ui) {
  if (!ui.session) return;
  draw_stored_window(ui);
  draw_path_dialog(ui);
  draw_restore_offer(ui);
}

// ---- dump -------------------------------------------------------------------------------------

void add_session_dump(const Ui& ui, json& d) {
  if (!ui.session) return;
  const Session& s = *ui.session;
  d["undo_depth"] = s.history.undo_depth();
  d["redo_depth"] = s.history.redo_depth();
  json stored = json::array();
  for (const StoredConfig& c : s.stored) stored.push_back({{"name", c.name}, {"q", c.q}});
  d["stored_configs"] = stored;
  d["scene_path"] = s.scene_path.empty() ? json(nullptr) : json(s.scene_path);
  d["unsaved"] = ui.app.edit_serial != s.saved_serial;
  d["recovery_file"] = s.autosave.path.empty() ? json(nullptr) : json(s.autosave.path);
  json imported = json::array();
  for (const Transform<double>& t : s.imported)
    imported.push_back({t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w});
  d["imported_targets"] = imported;
}

}  // namespace ikwb::gui
