// What the session draws: its global shortcuts (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y, Ctrl+S,
// Ctrl+Shift+S, K), its File menu items, the Edit menu, the Stored configurations window, the
// typed-path dialog of its file actions and the "Restore the previous session?" modal. Every
// action calls scene_files.hpp or stored_configs.hpp, as the script commands do.
#pragma once

#include "app/gui/panels.hpp"

namespace ikwb::gui {

void session_shortcuts(Ui& ui);
void draw_session_file_items(Ui& ui);
void draw_edit_menu(Ui& ui);
void draw_session_windows(Ui& ui);

}  // namespace ikwb::gui
