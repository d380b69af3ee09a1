#include "app/gui/length_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ikwb::gui {

std::string length_text(double metres, LengthUnit unit, int decimals, bool smaller) {
  static const double kMetres[] = {1e-6, 1e-3, 1e-2, 1.0};
  static const char* const kName[] = {"\xc2\xb5m", "mm", "cm", "m"};
  int u = int(unit);
  const double a = std::fabs(metres);
  const double smallest = 0.5 * std::pow(10.0, -decimals);
  if (a / kMetres[u] >= 1000 - smallest) u = int(LengthUnit::kMetre);  // (999.96 read 1000.0)
  // what the decimals would round to 0 goes to the next smaller unit
  while (smaller && u > 0 && a > 0 && a / kMetres[u] < smallest) --u;
  char text[64];
  std::snprintf(text, sizeof text, "%.*f %s", decimals, metres / kMetres[u], kName[u]);
  return text;
}

LengthField length_field(double robot_extent) {
  LengthField f;
  if (robot_extent >= 10) {
    f.per_metre = 1;
    f.unit = "m";
    f.decimals = 3;
  } else if (robot_extent > 0 && robot_extent < 0.05) {
    f.decimals = 2;
  }
  if (robot_extent > 0) f.speed = float(f.per_metre * robot_extent / 2000);
  return f;
}

std::string LengthField::format(const std::string& prefix) const {
  std::string out;
  for (char c : prefix) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out + "%." + std::to_string(decimals) + "f " + unit;
}

double drag_reach(double usual, double robot_extent) {
  return std::max(usual, usual * robot_extent);
}

}  // namespace ikwb::gui
