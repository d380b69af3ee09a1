#include "engine/core/robot_path.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ikwb {

namespace fs = std::filesystem;

std::string asset_dir() {
  if (const char* env = std::getenv("IKWB_ASSETS"); env && *env) return env;
#if defined(IKWB_ASSET_DIR)
  if (fs::is_directory(IKWB_ASSET_DIR)) return IKWB_ASSET_DIR;
#endif
  return "assets";
}

std::string resolve_robot(const std::string& arg) {
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) return arg;
  fs::path shipped = fs::path(asset_dir()) / "robots" / arg / (arg + ".urdf");
  if (arg.find('/') == std::string::npos && fs::is_regular_file(shipped, ec))
    return shipped.string();
  return arg;
}

bool is_shipped_asset(const std::string& path) {
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const fs::path root = fs::weakly_canonical(asset_dir(), ec);
  if (ec || root.empty()) return false;
  const fs::path rel = file.lexically_relative(root);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

std::vector<std::string> shipped_robots() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(asset_dir()) / "robots", ec)) {
    std::string n = e.path().filename().string();
    if (e.is_directory() && fs::is_regular_file(e.path() / (n + ".urdf"))) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string robot_not_found(const std::string& arg) {
  if (arg.find_first_of("/.") != std::string::npos) return arg + ": no such file";
  std::string names;
  for (const std::string& n : shipped_robots()) names += (names.empty() ? "" : ", ") + n;
  return "'" + arg + "' is neither a file nor a shipped robot (shipped: " +
         (names.empty() ? "none found" : names) + ")";
}

}  // namespace ikwb
