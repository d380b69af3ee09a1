#include "engine/core/output_target.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

namespace ikwb {

OutputTarget output_target(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return {path, false};
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
    if (ec) return {path, true};
    return output_target(resolved.string());
  }
  if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return {path, false};
  return {path, true};
}

bool same_output(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ea, eb;
  if (fs::equivalent(a, b, ea)) return true;
  const fs::path pa = fs::absolute(output_target(a).path, ea).lexically_normal();
  const fs::path pb = fs::absolute(output_target(b).path, eb).lexically_normal();
  return !ea && !eb && pa == pb;
}

}  // namespace ikwb
