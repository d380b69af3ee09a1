// Opening a robot file of any kind: the format is told by the name (.xacro) or the document
// element (<mujoco>), and the file goes to its loader.
#include "engine/core/robot_file.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include "engine/core/mjcf_loader.hpp"
#include "engine/core/robot_path.hpp"

namespace ikwb {

namespace {

// Whether the first element of `head` (after the declaration, comments and processing
// instructions) is <mujoco>; nullopt when `head` ends before that element's name.
std::optional<bool> first_element_is_mujoco(const std::string& head) {
  for (std::size_t at = head.find('<'); at != std::string::npos; at = head.find('<', at + 1)) {
    if (at + 7 > head.size()) return std::nullopt;
    if (head.compare(at, 4, "<!--") == 0) {
      at = head.find("-->", at);
      if (at == std::string::npos) return std::nullopt;
      continue;
    }
    if (head[at + 1] == '?' || head[at + 1] == '!') continue;
    return head.compare(at, 7, "<mujoco") == 0;
  }
  return std::nullopt;
}

}  // namespace

bool is_mjcf_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head;
  // read on past long leading comments (a licence), up to 1 MiB
  char buf[4096];
  while (head.size() < (std::size_t(1) << 20) && (in.read(buf, sizeof buf) || in.gcount() > 0)) {
    head.append(buf, std::size_t(in.gcount()));
    if (std::optional<bool> mujoco = first_element_is_mujoco(head)) return *mujoco;
  }
  return false;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// the xacro command on PATH, or ""
std::string find_xacro() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t at = 0; at <= dirs.size();) {
    std::size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::filesystem::path exe = std::filesystem::path(dirs.substr(at, end - at)) / "xacro";
    std::error_code ec;
    if (end > at && std::filesystem::is_regular_file(exe, ec) && access(exe.c_str(), X_OK) == 0)
      return exe.string();
    at = end + 1;
  }
  return "";
}

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// a .xacro file expanded by the xacro command, loaded as the URDF it prints
LoadResult load_xacro_file(const std::string& path, const UrdfOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw ModelError(path + ": cannot open file");
  const std::string xacro = find_xacro();
  if (xacro.empty())
    throw ModelError(path +
                     ": a xacro file, and the xacro command is not installed: install it "
                     "(pip install xacro, or ROS's xacro package) or expand the file with "
                     "`xacro FILE > FILE.urdf` and open that");
  const std::string err_path =
      (std::filesystem::temp_directory_path() / ("ikwb_xacro_" + std::to_string(getpid()) + ".err"))
          .string();
  std::string command = shell_quoted(xacro) + " " + shell_quoted(path);
  for (const std::string& a : options.xacro_args) command += " " + shell_quoted(a);
  FILE* p = popen((command + " 2>" + shell_quoted(err_path)).c_str(), "r");
  if (!p) throw ModelError(path + ": could not run " + xacro);
  std::string urdf;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) urdf.append(buf, n);
  const int status = pclose(p);
  std::ifstream err_in(err_path);
  std::string err((std::istreambuf_iterator<char>(err_in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(err_path, ec);
  if (status != 0 || urdf.empty()) {
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    throw ModelError(path + ": xacro failed" + (err.empty() ? "" : ": " + err));
  }
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  UrdfOptions expanded = options;  // the arguments went to xacro
  expanded.xacro_args.clear();
  LoadResult result = load_urdf_string(urdf, path, abs.parent_path().string(), expanded,
                                       abs.lexically_normal().string());
  // what xacro said while expanding the file (deprecations, unused arguments), before the
  // URDF's own warnings
  std::vector<std::string> said;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) said.push_back(path + ": xacro: " + line);
  }
  result.warnings.insert(result.warnings.begin(), said.begin(), said.end());
  return result;
}

}  // namespace

namespace {

// every xacro argument is NAME:=VALUE, whatever the file (a .urdf fills its $(arg NAME) with them)
void check_xacro_args(const std::string& path, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    const std::size_t at = a.find(":=");
    bool name_ok = at != std::string::npos && at > 0;
    for (std::size_t i = 0; name_ok && i < at; ++i)
      name_ok = std::isalnum(static_cast<unsigned char>(a[i])) || a[i] == '_' || a[i] == '-';
    if (!name_ok)
      throw ModelError(path + ": xacro argument '" + a +
                       "': expected NAME:=VALUE (a name of letters, digits, _ and -)");
  }
}

// the extension of a mesh format (lower case, with the dot), or "" for any other file
std::string mesh_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  static const char* const kMeshes[] = {".stl", ".obj", ".dae", ".ply", ".glb", ".gltf",
                                        ".fbx", ".3ds", ".off", ".msh", ".mtl"};
  for (const char* m : kMeshes)
    if (ext == m) return ext;
  return "";
}

}  // namespace

LoadResult load_robot_file(const std::string& path, const UrdfOptions& options) {
  std::error_code ec;
  // a bare name that resolve_robot did not find among the shipped robots
  if (path.find_first_of("/.") == std::string::npos && !std::filesystem::exists(path, ec))
    throw ModelError(robot_not_found(path));
  check_xacro_args(path, options.xacro_args);
  // a mesh opened in place of its robot reads as broken XML (or a NUL byte) otherwise
  if (const std::string ext = mesh_extension(path); !ext.empty())
    throw ModelError(path + ": a mesh file (" + ext +
                     "), not a robot description: open the URDF, xacro or MJCF file that names "
                     "it");
  if (ends_with(path, ".xacro")) return load_xacro_file(path, options);
  if (!is_mjcf_file(path)) return load_urdf_file(path, options);
  LoadResult r = load_mjcf_file(path, options);
  if (!options.xacro_args.empty())
    r.warnings.insert(r.warnings.begin(),
                      path + ": xacro arguments given for an MJCF file: not used");
  return r;
}

LoadResult load_scene_robot(const std::string& scene_path, const std::string& robot,
                            const UrdfOptions& options) {
  const std::string path = resolve_robot(robot);
  try {
    return load_robot_file(path, options);
  } catch (const std::exception& e) {
    // the robot's file named once (an error in a file it includes names that file)
    std::string what = e.what();
    if (what.rfind(path + ": ", 0) == 0) what.erase(0, path.size() + 2);
    throw ModelError((scene_path.empty() ? "" : scene_path + ": ") + "robot \"" + robot +
                     "\": " + what);
  }
}

}  // namespace ikwb
