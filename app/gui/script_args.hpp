// Values in automation scripts: tokens, numbers with units (lengths in m / cm / mm, angles in
// rad / deg), on / off, indices, key and mouse button names. Shared by the parser and runner.
#pragma once

#include <string>
#include <vector>

namespace ikwb::gui {

// splits a line into tokens; double quotes group words; '#' outside quotes starts a comment
std::vector<std::string> tokenize(const std::string& line);
// a finite number (no unit)
bool plain_number(const std::string& s, double* out);
// metres; accepts mm / cm / m suffixes
bool length_value(const std::string& s, double* out);
// radians; accepts deg / rad suffixes
bool angle_value(const std::string& s, double* out);
// a joint value: an angle for revolute joints, a length for prismatic ones (both parse)
bool joint_value(const std::string& s, double* out);
// on / off, true / false, yes / no, 1 / 0
bool on_off(const std::string& s, bool* out);
// a non-negative integer, at most kMaxIndex
constexpr int kMaxIndex = 1000000000;
bool index_value(const std::string& s, int* out);
// GLFW key code of A-Z, 0-9, F1-F12, Escape, Delete, Enter, Tab, Space, arrows, Backspace
// (case-insensitive); -1 when unknown
int key_code(std::string name);
// 0 left, 1 right, 2 middle; -1 when unknown
int button_index(const std::string& s);

}  // namespace ikwb::gui
