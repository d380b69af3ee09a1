#include "engine/core/output_target.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>
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

std::string replace_refusal(const std::string& target) {
  struct stat st;
  if (::stat(target.c_str(), &st) != 0) return "";
  // refused before the work, not at the rename after it (a batch solved for hours, then failed)
  if (S_ISDIR(st.st_mode)) return "is a folder; name a file (in it, or elsewhere)";
  if (!S_ISREG(st.st_mode)) return "";
  if (::access(target.c_str(), W_OK) == 0) return "";
  // on a read-only file system chmod does not help
  if (errno == EROFS) return "the file is on a read-only file system; choose another place";
  return "the file is write-protected; make it writable (chmod u+w) or choose another";
}

unsigned replacement_mode(const std::string& target) {
  struct stat st;
  if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777u;
  const mode_t mask = ::umask(0);  // read by setting; set back at once
  ::umask(mask);
  return 0666u & ~unsigned(mask);
}

bool same_output(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ea, eb;
  if (fs::equivalent(a, b, ea)) return true;
  const fs::path pa = fs::absolute(output_target(a).path, ea).lexically_normal();
  const fs::path pb = fs::absolute(output_target(b).path, eb).lexically_normal();
  return !ea && !eb && pa == pb;
}

void refuse_output_over_inputs(const std::string& out_option, const std::string& out,
                               const std::vector<NamedInput>& inputs) {
  if (out.empty() || out == "-" || output_target(out).in_place) return;
  for (const NamedInput& in : inputs)
    if (!in.path.empty() && in.path != "-" && same_output(out, in.path))
      throw std::invalid_argument(out_option + " names the same file as " + in.option + " (" + out +
                                  "): writing it would replace the input; choose another");
}

}  // namespace ikwb
