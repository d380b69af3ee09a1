#include "app/gui/recent_files.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/scene_files.hpp"
#include "app/gui/session.hpp"

namespace ikwb::gui {

namespace fs = std::filesystem;

void RecentFiles::load() {
  files.clear();
  std::ifstream in(path);
  if (path.empty() || !in) return;
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& f : j.at("files"))
      if (f.is_string() && int(files.size()) < kMax) files.push_back(f.get<std::string>());
  } catch (const std::exception&) {
    files.clear();  // a damaged list is an empty one; the next open rewrites it
  }
}

void RecentFiles::add(const std::string& file) {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec);
  const std::string f = ec ? file : abs.lexically_normal().string();
  files.erase(std::remove(files.begin(), files.end(), f), files.end());
  files.insert(files.begin(), f);
  if (int(files.size()) > kMax) files.resize(kMax);
  if (path.empty()) return;
  try {
    fs::create_directories(fs::path(path).parent_path(), ec);
    write_file_atomic(path, nlohmann::json{{"files", files}}.dump(2) + "\n");
  } catch (const std::exception&) {
    // the list is a convenience: failing to keep it must not disturb opening the file
  }
}

std::string recent_files_path(const std::string& recovery_path) {
  if (recovery_path.empty()) return "";
  return (fs::path(recovery_path).parent_path() / "recent.json").string();
}

bool open_any_file(Ui& ui, const std::string& path) {
  if (fs::path(path).extension() == ".json") return open_scene_file(ui, path);  // joins Recent
  // a list of targets or a motion is not a robot (it read "malformed XML ... is it a URDF?")
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".csv") {
    ui.app.error(path +
                 ": a CSV file is not a robot or a scene; File > Import targets... reads a list "
                 "of targets, the Timeline window's Import motion a joint trajectory");
    return false;
  }
  if (!ui.app.load_robot(path)) return false;
  if (ui.session) {
    ui.session->recent.add(path);
    mark_saved(ui);
  }
  return true;
}

}  // namespace ikwb::gui
