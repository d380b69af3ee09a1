// The session's menus, shortcuts, windows and dialogs (see session_ui.hpp).
#include "app/gui/session_ui.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/gui/scene_files.hpp"
#include "app/gui/session.hpp"
#include "app/gui/stored_configs.hpp"
#include "app/gui/timeline_edit.hpp"
#include "engine/core/robot_path.hpp"

namespace ikwb::gui {

namespace {

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

void open_dialog(Session& s, int which) {
  s.dialog = which;
  s.open_dialog = true;
  s.dialog_error.clear();
  if (which == kSaveAs || which == kOpen)
    std::snprintf(s.dialog_path, sizeof s.dialog_path, "%s", s.scene_path.c_str());
}

// Save: to the scene's file, but a shipped one (a preset, a demo's scene) is not written over,
// nor one whose robot could not take all of it (the entries left out would be lost): Save as,
// saying why
void save(Ui& ui) {
  Session& s = *ui.session;
  const bool shipped = !s.scene_path.empty() && is_shipped_asset(s.scene_path);
  if (!s.scene_path.empty() && !shipped && s.scene_left_out == 0) {
    save_scene_file(ui, s.scene_path);
    return;
  }
  const std::string file = std::filesystem::path(s.scene_path).filename().string();
  const int left_out = s.scene_left_out;
  open_dialog(s, kSaveAs);
  if (shipped) {
    s.dialog_path[0] = '\0';
    s.dialog_error = file +
                     " is shipped with the workbench and is not written over: save the scene "
                     "under a name of your own";
  } else if (left_out > 0) {
    s.dialog_error = file + " has " + std::to_string(left_out) +
                     (left_out == 1 ? " entry" : " entries") +
                     " this robot could not take (see the messages): saving over it drops "
                     "them; save under another name to keep it whole";
  }
}

// runs the dialog's action; the error shows in the dialog
bool run_dialog(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  std::size_t before = app.messages.size();
  bool ok = false;
  switch (ui.session->dialog) {
    case kOpen:
      ok = replace_scene(ui, path, [&] { return open_scene_file(ui, path); });
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
  if (s.dialog == kExport) ImGui::TextDisabled("a .json name writes JSON, any other CSV");
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
  // wrapped: a parse error's text ran off the window's edge
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 520.0f);
  ImGui::TextUnformatted(s.restore_summary.c_str());
  ImGui::TextDisabled("%s", s.autosave.path.c_str());
  ImGui::PopTextWrapPos();
  // a file that cannot be read has nothing to restore: kept for a look, or discarded
  if (s.restore_readable && ImGui::Button("Restore", ImVec2(110, 0))) {
    restore_recovery(ui);
    ImGui::CloseCurrentPopup();
  }
  if (!s.restore_readable && ImGui::Button("Keep the file", ImVec2(110, 0))) {
    s.offer_restore = false;  // autosave stays paused: the file is left as it is
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
    const bool fits = stored_fits(ui.app, s.stored[i]);
    const std::string label = s.stored[i].name + (fits ? "" : " (another robot)");
    if (ImGui::Selectable(label.c_str(), s.stored_selected == i,
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
  if (ImGui::Button("Delete") && valid) delete_stored(ui, s.stored_selected);
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
      session_redo(ui);
    else
      session_undo(ui);
  }
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Y)) session_redo(ui);
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S)) {
    if (io.KeyShift)
      open_dialog(*ui.session, kSaveAs);
    else
      save(ui);
  }
  // K: a key (at the playhead, or after the last one) while the Timeline is shown, else a stored
  // configuration
  if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_K)) {
    if (app.timeline.show_panel)
      add_key_at_playhead(app);
    else
      store_configuration(ui);
  }
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
  if (ImGui::MenuItem(undo.c_str(), "Ctrl+Z", false, h.undo_depth() > 0)) session_undo(ui);
  if (ImGui::MenuItem(redo.c_str(), "Ctrl+Shift+Z", false, h.redo_depth() > 0)) session_redo(ui);
  ImGui::Separator();
  // K adds a timeline key while the Timeline is shown (session_shortcuts)
  const char* key = ui.app.timeline.show_panel ? nullptr : "K";
  if (ImGui::MenuItem("Store configuration", key, false, bool(ui.app.model)))
    store_configuration(ui);
  ImGui::EndMenu();
}

void draw_session_windows(Ui& ui) {
  if (!ui.session) return;
  draw_stored_window(ui);
  draw_path_dialog(ui);
  draw_restore_offer(ui);
}

}  // namespace ikwb::gui
