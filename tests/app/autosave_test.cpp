// Tests for app/gui/autosave: what a failed write says. No window.
#include "app/gui/autosave.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/temp_files.hpp"

namespace ikwb::gui {
namespace {

namespace fs = std::filesystem;

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

// Each workbench's lock file is gone once it lets go of its recovery file (they used to pile up
// beside the recovery files, one for every file ever claimed or looked at), and a lock file
// removed under a process that had it open is not mistaken for the lock: a later claim takes the
// file at the path.
TEST(Autosave, LockFilesGoWithTheirHolders) {
  test::TempDir dir;
  const std::string base = (dir.path() / "recovery.json").string();
  const std::string second = (dir.path() / "recovery-2.json").string();
  const std::string third_file = (dir.path() / "recovery-3.json").string();
  {
    Autosave first, other;
    EXPECT_EQ(first.claim(base), base);
    EXPECT_TRUE(fs::exists(base + ".lock"));
    EXPECT_EQ(other.claim(base), second);  // held: the next one
    EXPECT_TRUE(fs::exists(second + ".lock"));
    // a left-over file looked at by the other is not held by it afterwards
    std::ofstream(third_file) << "{}";
    EXPECT_EQ(other.left_over_elsewhere(base), std::vector<std::string>{third_file});
    EXPECT_FALSE(fs::exists(third_file + ".lock"));
  }
  EXPECT_FALSE(fs::exists(base + ".lock"));
  EXPECT_FALSE(fs::exists(second + ".lock"));
  fs::remove(third_file);  // a left-over file is claimed first

  // a process that opened the lock file just before its holder removed it and let go
  auto holder = std::make_unique<Autosave>();
  ASSERT_EQ(holder->claim(base), base);
  const int stale = open((base + ".lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(stale, 0);
  holder.reset();
  Autosave next;
  EXPECT_EQ(next.claim(base), base);
  EXPECT_TRUE(fs::exists(base + ".lock"));
  // the stale file's lock is free, but it is not the one at the path: a third still finds base
  // held
  EXPECT_EQ(flock(stale, LOCK_EX | LOCK_NB), 0);
  Autosave third;
  EXPECT_EQ(third.claim(base), second);
  close(stale);
}

}  // namespace
}  // namespace ikwb::gui
