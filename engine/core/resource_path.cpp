#include "engine/core/resource_path.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace ikwb {

namespace fs = std::filesystem;

namespace {

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// the <name> a ROS package.xml in `dir` declares, or empty
std::string package_xml_name(const fs::path& dir) {
  std::ifstream in(dir / "package.xml");
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::size_t b = text.find("<name>");
  if (b == std::string::npos) return {};
  b += 6;
  std::size_t e = text.find("</name>", b);
  if (e == std::string::npos) return {};
  std::string name = text.substr(b, e - b);
  const char* ws = " \t\r\n";
  std::size_t first = name.find_first_not_of(ws);
  if (first == std::string::npos) return {};
  return name.substr(first, name.find_last_not_of(ws) - first + 1);
}

// D/REST when D is package NAME, then D/NAME/REST; empty when neither exists
fs::path find_in_dir(const fs::path& dir, const std::string& name, const std::string& rest) {
  if (dir.empty()) return {};
  fs::path d = dir.lexically_normal();
  if (!d.has_filename()) d = d.parent_path();
  if (d.filename() == name || package_xml_name(d) == name) {
    if (is_file(d / rest)) return d / rest;
  }
  if (is_file(d / name / rest)) return d / name / rest;
  return {};
}

// How deep below a search folder packages are looked for (a workspace's src/GROUP/PACKAGE is 2)
constexpr int kCrawlDepth = 6;

// REST of the package NAME below `dir`, found as ROS's crawl finds packages: a folder with a
// package.xml is a package (named by it) and is not descended into; hidden folders and those
// with a CATKIN_IGNORE or COLCON_IGNORE are skipped; folders in name order. Empty when none.
fs::path find_below(const fs::path& dir, const std::string& name, const std::string& rest,
                    int depth) {
  std::vector<fs::path> subs;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    if (it->path().filename().string().rfind('.', 0) != 0 && it->is_directory(dir_ec))
      subs.push_back(it->path());
  }
  std::sort(subs.begin(), subs.end());
  for (const fs::path& sub : subs) {
    if (is_file(sub / "package.xml")) {
      if (package_xml_name(sub) == name && is_file(sub / rest)) return sub / rest;
      continue;
    }
    if (depth <= 1 || is_file(sub / "CATKIN_IGNORE") || is_file(sub / "COLCON_IGNORE")) continue;
    fs::path hit = find_below(sub, name, rest, depth - 1);
    if (!hit.empty()) return hit;
  }
  return {};
}

// the folder of package NAME as the search finds packages (a search folder that is the
// package or holds it, a package.xml below one, an ancestor of `dir`), or empty
fs::path find_package_dir(const std::vector<std::string>& roots, const fs::path& dir,
                          const std::string& name) {
  auto in = [&](const fs::path& d) -> fs::path {
    if (d.empty()) return {};
    fs::path n = d.lexically_normal();
    if (!n.has_filename()) n = n.parent_path();
    std::error_code ec;
    if (n.filename() == name || package_xml_name(n) == name) return n;
    if (fs::is_directory(n / name, ec)) return n / name;
    return {};
  };
  for (const std::string& r : roots) {
    if (fs::path p = in(r); !p.empty()) return p;
    if (fs::path p = find_below(r, name, "package.xml", kCrawlDepth); !p.empty())
      return p.parent_path();
  }
  for (fs::path a = dir.lexically_normal(); !a.empty(); a = a.parent_path()) {
    if (fs::path p = in(a); !p.empty()) return p;
    if (a == a.parent_path()) break;
  }
  return {};
}

}  // namespace

fs::path case_insensitive_file(const fs::path& dir, const std::string& rest) {
  auto lower = [](std::string t) {
    for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  fs::path at = dir;
  for (const fs::path& part : fs::path(rest)) {
    const std::string want = lower(part.string());
    fs::path found;
    std::error_code ec;
    for (fs::directory_iterator it(at, ec), end; !ec && it != end; it.increment(ec))
      if (lower(it->path().filename().string()) == want) {
        found = it->path();
        break;
      }
    if (found.empty()) return {};
    at = found;
  }
  return is_file(at) ? at : fs::path();
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// a package:// or model:// URI split into its scheme, NAME and REST; false for other URIs
// (REST empty when the URI is not of the form SCHEME://NAME/REST)
bool split_package_uri(const std::string& uri, std::string* scheme, std::string* name,
                       std::string* rest) {
  const std::size_t sep = uri.find("://");
  if (sep == std::string::npos) return false;
  *scheme = uri.substr(0, sep);
  if (*scheme != "package" && *scheme != "model") return false;
  // package:///NAME/PATH (an empty authority, as in some example-robot-data files) means the
  // same as package://NAME/PATH
  const std::string tail = uri.substr(std::min(uri.find_first_not_of('/', sep + 3), uri.size()));
  const std::size_t slash = tail.find('/');
  name->clear();
  rest->clear();
  // package://NAME//PATH is the same file too (an absolute REST went to the root)
  const std::size_t path = tail.find_first_not_of('/', slash + 1);
  if (slash == std::string::npos || slash == 0 || path == std::string::npos) return true;
  *name = tail.substr(0, slash);
  *rest = tail.substr(path);
  return true;
}

// s with its %XX escapes decoded (URIs write a space as %20); s itself when it has none or one
// is malformed
std::string percent_decoded(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
      return s;
    out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

}  // namespace

std::vector<std::string> ros_package_path() {
  std::vector<std::string> out;
  const char* env = std::getenv("ROS_PACKAGE_PATH");
  if (!env) return out;
  std::stringstream ss(env);
  std::string item;
  while (std::getline(ss, item, ':'))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string resource_package(const std::string& uri) {
  std::string scheme, name, rest;
  return split_package_uri(uri, &scheme, &name, &rest) ? name : std::string();
}

// the path of a file: URI in its three forms (file:///abs, file://localhost/abs, file:/abs);
// `uri` itself when it is not one
std::string file_uri_path(const std::string& uri) {
  if (uri.rfind("file://localhost/", 0) == 0) return uri.substr(16);  // from its '/'
  if (uri.rfind("file://", 0) == 0) return uri.substr(7);
  if (uri.rfind("file:", 0) == 0) return uri.substr(5);
  return uri;
}

std::string resource_file_path(const std::string& uri, const std::string& base_dir) {
  std::string scheme, name, rest;
  if (split_package_uri(uri, &scheme, &name, &rest)) return "";
  const std::size_t sep = uri.find("://");
  scheme = sep == std::string::npos ? "" : uri.substr(0, sep);
  if (!scheme.empty() && scheme != "file") return "";
  fs::path p(file_uri_path(uri));
  if (p.empty()) return "";
  if (p.is_relative() && !base_dir.empty()) p = fs::path(base_dir) / p;
  return p.string();
}

std::string resolve_resource(const std::string& uri, const std::string& base_dir,
                             const std::vector<std::string>& package_paths, std::string* error) {
  auto fail = [&](const std::string& what) {
    if (error) *error = what;
    return std::string();
  };
  if (uri.empty()) return fail("empty file name");

  std::string scheme, name, rest;
  if (split_package_uri(uri, &scheme, &name, &rest)) {
    if (rest.empty()) return fail("'" + uri + "' is not of the form " + scheme + "://NAME/PATH");

    std::vector<std::string> roots = package_paths;
    for (const auto& d : ros_package_path()) roots.push_back(d);
    // the path as written, then with its %XX escapes decoded (b%20ox.stl: "b ox.stl")
    std::vector<std::string> rests = {rest};
    if (percent_decoded(rest) != rest) rests.push_back(percent_decoded(rest));
    for (const std::string& r : rests) {
      for (const auto& d : roots) {
        fs::path hit = find_in_dir(d, name, r);
        if (hit.empty() && !d.empty()) hit = find_below(d, name, r, kCrawlDepth);
        if (!hit.empty()) return hit.string();
      }
      std::error_code ec;
      fs::path dir = base_dir.empty() ? fs::current_path(ec) : fs::absolute(base_dir, ec);
      for (fs::path a = dir.lexically_normal(); !a.empty(); a = a.parent_path()) {
        fs::path hit = find_in_dir(a, name, r);
        if (!hit.empty()) return hit.string();
        if (a == a.parent_path()) break;
      }
    }
    // the package is there but not the file: say so, and name a file that differs only in
    // case (CAD exports write Link1.STL where the URDF says link1.stl)
    std::error_code ec;
    const fs::path dir = base_dir.empty() ? fs::current_path(ec) : fs::absolute(base_dir, ec);
    const fs::path package = find_package_dir(roots, dir, name);
    if (!package.empty()) {
      const fs::path other = case_insensitive_file(package, rest);
      return fail(
          "package '" + name + "' (found at " + package.string() + ") has no file '" + rest + "'" +
          (other.empty()
               ? std::string()
               : "; " + other.string() + " differs only in case (file names are case-sensitive)"));
    }
    // a search folder that is gone is said to be (a scene saved before its workspace moved)
    for (std::string& d : roots) {
      std::error_code gone;
      if (!d.empty() && !fs::exists(d, gone)) d += " (which does not exist)";
    }
    roots.push_back("the ancestors of " + (base_dir.empty() ? std::string(".") : base_dir));
    return fail("package '" + name + "' with file '" + rest + "' not found (searched " +
                join(roots) + "; add a search folder with --package-path or ROS_PACKAGE_PATH)");
  }

  const std::size_t sep = uri.find("://");
  if (sep != std::string::npos) scheme = uri.substr(0, sep);
  if (!scheme.empty() && scheme != "file")
    return fail("'" + uri + "': unsupported URI scheme '" + scheme + "://'");
  const fs::path p = resource_file_path(uri, base_dir);
  if (p.empty()) return fail("'" + uri + "' names no file");
  if (is_file(p)) return p.lexically_normal().string();
  const std::string path = file_uri_path(uri);
  if (path != uri && percent_decoded(path) != path) {
    fs::path decoded(percent_decoded(path));
    if (decoded.is_relative() && !base_dir.empty()) decoded = fs::path(base_dir) / decoded;
    if (is_file(decoded)) return decoded.lexically_normal().string();
  }
  std::error_code ec;
  if (fs::is_directory(p, ec))
    return fail("'" + p.lexically_normal().string() + "' is a directory, not a file");
  return fail("file '" + p.lexically_normal().string() + "' not found");
}

}  // namespace ikwb
