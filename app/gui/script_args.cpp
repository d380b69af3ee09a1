// Script values: tokens, numbers with units, switches, key and button names.
#include "app/gui/script_args.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace ikwb::gui {

namespace {

constexpr double kPi = 3.14159265358979323846;

bool ends_with(const std::string& s, const std::string& suffix, std::string* head) {
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix))
    return false;
  *head = s.substr(0, s.size() - suffix.size());
  return true;
}

}  // namespace

bool plain_number(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// metres; accepts mm / cm / m suffixes
bool length_value(const std::string& s, double* out) {
  std::string h;
  double v;
  if (ends_with(s, "mm", &h) && plain_number(h, &v)) return *out = v * 1e-3, true;
  if (ends_with(s, "cm", &h) && plain_number(h, &v)) return *out = v * 1e-2, true;
  if (ends_with(s, "m", &h) && plain_number(h, &v)) return *out = v, true;
  return plain_number(s, out);
}

// radians; accepts deg / rad suffixes
bool angle_value(const std::string& s, double* out) {
  std::string h;
  double v;
  if (ends_with(s, "deg", &h) && plain_number(h, &v)) return *out = v * kPi / 180.0, true;
  if (ends_with(s, "rad", &h) && plain_number(h, &v)) return *out = v, true;
  return plain_number(s, out);
}

// a joint value: an angle for revolute joints, a length for prismatic ones (both parse)
bool joint_value(const std::string& s, double* out) {
  return angle_value(s, out) || length_value(s, out);
}

bool on_off(const std::string& s, bool* out) {
  if (s == "on" || s == "true" || s == "yes" || s == "1") return *out = true, true;
  if (s == "off" || s == "false" || s == "no" || s == "0") return *out = false, true;
  return false;
}

bool index_value(const std::string& s, int* out) {
  double v;
  // at most kMaxIndex: an int beyond it wrapped negative (2^31 crashed an objective lookup, and
  // a wait of 2^31 frames never ended), and frame counts add to it
  if (!plain_number(s, &v) || v < 0 || v > kMaxIndex || v != std::floor(v)) return false;
  *out = int(v);
  return true;
}

int key_code(std::string name) {
  for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (name.size() == 1 && name[0] >= 'A' && name[0] <= 'Z') return GLFW_KEY_A + (name[0] - 'A');
  if (name.size() == 1 && name[0] >= '0' && name[0] <= '9') return GLFW_KEY_0 + (name[0] - '0');
  if (name.size() >= 2 && name[0] == 'F') {
    double n;
    if (plain_number(name.substr(1), &n) && n >= 1 && n <= 12) return GLFW_KEY_F1 + int(n) - 1;
  }
  static const std::map<std::string, int> named = {{"ESCAPE", GLFW_KEY_ESCAPE},
                                                   {"ESC", GLFW_KEY_ESCAPE},
                                                   {"DELETE", GLFW_KEY_DELETE},
                                                   {"ENTER", GLFW_KEY_ENTER},
                                                   {"TAB", GLFW_KEY_TAB},
                                                   {"SPACE", GLFW_KEY_SPACE},
                                                   {"LEFT", GLFW_KEY_LEFT},
                                                   {"RIGHT", GLFW_KEY_RIGHT},
                                                   {"UP", GLFW_KEY_UP},
                                                   {"DOWN", GLFW_KEY_DOWN},
                                                   {"BACKSPACE", GLFW_KEY_BACKSPACE}};
  auto it = named.find(name);
  return it == named.end() ? -1 : it->second;
}

int button_index(const std::string& s) {
  if (s == "left") return 0;
  if (s == "right") return 1;
  if (s == "middle") return 2;
  return -1;
}

// splits a line into tokens; double quotes group words, and inside them \" is a quote and \\ a
// backslash (a name with a quote in it); '#' outside quotes starts a comment
std::vector<std::string> tokenize(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, have = false, escaped = false;
  for (char c : line) {
    if (escaped) {
      cur += c;
      escaped = false;
    } else if (quoted) {
      if (c == '\\')
        escaped = true;
      else if (c == '"')
        quoted = false;
      else
        cur += c;
    } else if (c == '"') {
      quoted = have = true;
    } else if (c == '#') {
      break;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

}  // namespace ikwb::gui
