// Where outputs go (engine/core/output_target.hpp): a regular file is replaced through a
// temporary file, a device or pipe is written in place, a symbolic link stands for its target.
#include "engine/core/output_target.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/temp_files.hpp"
#include "engine/core/scene.hpp"

namespace ikwb {
namespace {

using test::TempDir;
namespace fs = std::filesystem;

TEST(OutputTarget, DevicesAndPipesAreWrittenInPlace) {
  TempDir dir;
  // only classified: a test must not write to the real /dev/null
  EXPECT_TRUE(output_target("/dev/null").in_place);
  const std::string fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(output_target(fifo).in_place);
  const std::string file = dir.write("a.csv", "old\n");
  EXPECT_FALSE(output_target(file).in_place);
  EXPECT_EQ(output_target(file).path, file);
  EXPECT_FALSE(output_target(dir / "new.csv").in_place);

  // a reader opened first (without blocking) receives what is written, from the pipe's buffer
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  write_file_atomic(fifo, "through the pipe\n");
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf - 1);
  ::close(reader);
  EXPECT_EQ(std::string(buf, n > 0 ? std::size_t(n) : 0), "through the pipe\n");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // still a pipe, not a file renamed over it
}

TEST(OutputTarget, ALinkStandsForItsTarget) {
  TempDir dir;
  const std::string target = dir.write("real.json", "old\n");
  const std::string link = dir / "link.json";
  fs::create_symlink("real.json", link);
  EXPECT_EQ(output_target(link).path, fs::canonical(target).string());
  EXPECT_FALSE(output_target(link).in_place);
  write_file_atomic(link, "new\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(test::read_text(target), "new\n");

  // a link to nothing yet is written through, which creates its target
  const std::string dangling = dir / "dangling.json";
  fs::create_symlink("made.json", dangling);
  EXPECT_TRUE(output_target(dangling).in_place);
  write_file_atomic(dangling, "made\n");
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(test::read_text(dir / "made.json"), "made\n");

  EXPECT_THROW(write_file_atomic("", "x"), SceneError);
}

TEST(OutputTarget, SameOutputSeesOneFileHoweverNamed) {
  TempDir dir;
  const std::string a = dir.write("a.csv", "");
  fs::create_symlink("a.csv", dir / "to_a.csv");
  EXPECT_TRUE(same_output(a, dir / "to_a.csv"));
  EXPECT_TRUE(same_output(dir / "b.csv", (dir.path() / "." / "b.csv").string()));
  EXPECT_FALSE(same_output(a, dir / "b.csv"));
}

// a replaced file keeps its permission bits (a private file stays private); a new one gets
// what open(2) gives under the umask
TEST(OutputTarget, AReplacedFileKeepsItsMode) {
  TempDir dir;
  const std::string file = dir.write("private.json", "old\n");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomic(file, "new\n");
  EXPECT_EQ(test::read_text(file), "new\n");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  const mode_t mask = ::umask(022);
  write_file_atomic(dir / "new.json", "x\n");
  ::umask(mask);
  EXPECT_EQ(fs::status(dir / "new.json").permissions() & fs::perms::all, fs::perms(0644));
}

// a file its user cannot write is not replaced (the rename could; the shell's `>` refuses it):
// run as an unprivileged user, since root may write any file
TEST(OutputTargetDeathTest, AWriteProtectedFileIsRefused) {
  TempDir dir;
  const std::string file = dir.write("kept.json", "kept\n");
  ::chmod(dir.path().c_str(), 0777);
  ::chmod(file.c_str(), 0444);
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && ::setuid(65534) != 0) std::_Exit(3);
        try {
          write_file_atomic(file, "new\n");
        } catch (const SceneError& e) {
          const std::string what = e.what();
          std::_Exit(what == file +
                                 ": the file is write-protected; make it writable (chmod u+w) "
                                 "or choose another"
                         ? 0
                         : 2);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(test::read_text(file), "kept\n");
  EXPECT_EQ(replace_refusal(dir / "absent.json"), "");
}

}  // namespace
}  // namespace ikwb
