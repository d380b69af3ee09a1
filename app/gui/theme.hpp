// The workbench's look: a dark ImGui style and the UI font (DejaVu Sans when installed, ImGui's
// built-in font otherwise).
#pragma once

namespace ikwb::gui {

// sets the style and loads the font (before the first frame); returns the font size in pixels
float apply_theme(float font_px = 15.0f);

}  // namespace ikwb::gui
