// Reads the robot registry (assets/robots/robots.json) for the Robots menu.
#include "app/gui/robot_catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/core/robot_path.hpp"

namespace ikwb::gui {

namespace {

std::string text(const nlohmann::json& e, const char* key, const std::string& fallback) {
  return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : fallback;
}

}  // namespace

std::vector<RobotEntry> robot_catalog() {
  std::vector<std::string> shipped = shipped_robots();
  std::vector<RobotEntry> out;
  std::ifstream in(std::filesystem::path(asset_dir()) / "robots" / "robots.json");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_array()) {
    for (const auto& e : j) {
      if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
      RobotEntry r;
      r.name = e["name"].get<std::string>();
      if (std::find(shipped.begin(), shipped.end(), r.name) == shipped.end()) continue;
      r.title = text(e, "title", r.name);
      r.description = text(e, "description", "");
      r.is_default = e.contains("default") && e["default"].is_boolean() && e["default"].get<bool>();
      out.push_back(r);
    }
  }
  // robots on disk the registry does not list
  for (const std::string& n : shipped) {
    auto listed = [&](const RobotEntry& r) { return r.name == n; };
    if (std::none_of(out.begin(), out.end(), listed)) out.push_back({n, n, "", false});
  }
  return out;
}

std::string default_robot(const std::vector<RobotEntry>& catalog) {
  for (const RobotEntry& r : catalog)
    if (r.is_default) return r.name;
  return catalog.empty() ? "" : catalog.front().name;
}

}  // namespace ikwb::gui
