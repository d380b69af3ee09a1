// Tests for app/gui/autosave: what a failed write says. No window.
#include "app/gui/autosave.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/temp_files.hpp"

namespace ikwb::gui {
namespace {

// a folder that cannot be made says why (a read-only home read "No such file or directory",
// the temporary file's error in the folder that was never made)
TEST(Autosave, AFolderThatCannotBeMadeSaysWhy) {
  test::TempDir dir;
  const std::string file = dir.write("file", "x\n");
  Autosave a;
  a.path = file + "/state/recovery.json";
  std::string error;
  EXPECT_FALSE(a.write(Scene(), 1, 0, &error));
  EXPECT_EQ(error.find(a.path + ": cannot create the folder " + file + "/state ("), 0u) << error;
}

}  // namespace
}  // namespace ikwb::gui
