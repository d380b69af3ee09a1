// The state dump (`--dump-state FILE`, the script's `dump FILE`): a JSON snapshot of the robot,
// configuration, body poses, objectives with their errors, solver state, timing percentiles,
// camera and GL error count, for tests and for people reporting problems. The format is
// documented in README.md ("State dump").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/app_state.hpp"
#include "app/gui/viewport.hpp"

namespace ikwb::gui {

constexpr int kStateDumpVersion = 1;

// framebuffer_w / _h: the window's framebuffer in pixels (screenshots have this size)
nlohmann::json make_state_dump(const AppState& app, const Viewport3D& view, int framebuffer_w,
                               int framebuffer_h);
// writes the dump atomically; false and *error on failure
bool write_state_dump(const std::string& path, const nlohmann::json& dump, std::string* error);

}  // namespace ikwb::gui
