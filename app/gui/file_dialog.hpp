// Native file picking through zenity (when installed), run on a detached thread so the
// workbench keeps drawing while the dialog is open and can quit without waiting for it.
// Without zenity the UI offers only a typed path.
#pragma once

#include <memory>
#include <string>

namespace ikwb::gui {

class FileDialog {
 public:
  // `which zenity` succeeds (checked once)
  static bool available();
  // opens a file selection dialog for URDF files; false when one is open already or zenity is
  // missing
  bool start(const std::string& title);
  bool busy() const { return bool(pending_); }
  // true once the dialog has closed: *path is the chosen file ("" when cancelled)
  bool poll(std::string* path);

  struct Pending;  // shared with the thread running zenity

 private:
  std::shared_ptr<Pending> pending_;
};

}  // namespace ikwb::gui
