// zenity --file-selection in a background thread.
#include "app/gui/file_dialog.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace ikwb::gui {

namespace {

// single-quoted for the shell
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string run_zenity(const std::string& title) {
  std::string cmd =
      "zenity --file-selection --title=" + quoted(title) +
      " --file-filter='Robots (URDF, xacro, MJCF) | *.urdf *.URDF *.xacro *.xml *.mjcf' "
      "--file-filter='All files | *'"
      " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

struct FileDialog::Pending {
  std::mutex mutex;
  bool done = false;
  std::string path;
};

bool FileDialog::available() {
  static const bool ok = std::system("which zenity >/dev/null 2>&1") == 0;
  return ok;
}

bool FileDialog::start(const std::string& title) {
  if (busy() || !available()) return false;
  pending_ = std::make_shared<Pending>();
  std::thread([p = pending_, title]() {
    std::string path = run_zenity(title);
    std::lock_guard<std::mutex> lock(p->mutex);
    p->path = path;
    p->done = true;
  }).detach();
  return true;
}

bool FileDialog::poll(std::string* path) {
  if (!pending_) return false;
  {
    std::lock_guard<std::mutex> lock(pending_->mutex);
    if (!pending_->done) return false;
    *path = pending_->path;
  }
  pending_.reset();
  return true;
}

}  // namespace ikwb::gui
