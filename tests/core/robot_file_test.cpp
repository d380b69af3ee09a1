// Tests for engine/core/robot_file: a robot file goes to its loader by its kind. xacro files run
// through the xacro command found on PATH (here a stand-in script that prints a URDF), and
// without one the error says how to get it.
#include "engine/core/robot_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/temp_files.hpp"

namespace ikwb {
namespace {

// sets PATH for the scope of a test
struct ScopedPath {
  std::string old;
  explicit ScopedPath(const std::string& value) {
    const char* p = std::getenv("PATH");
    old = p ? p : "";
    setenv("PATH", value.c_str(), 1);
  }
  ~ScopedPath() { setenv("PATH", old.c_str(), 1); }
};

TEST(RobotFile, XacroRunsThroughTheXacroCommand) {
  test::TempDir dir;
  const std::string bin = dir / "bin";
  // the stand-in prints a URDF whose mesh is relative to the xacro file's folder
  std::string script = dir.write("bin/xacro",
                                 "#!/bin/sh\n"
                                 "[ -f \"$1\" ] || { echo \"no such file $1\" >&2; exit 2; }\n"
                                 "echo '<robot name=\"from_xacro\"><link name=\"a\"/>"
                                 "<link name=\"b\"/><joint name=\"j\" type=\"continuous\">"
                                 "<parent link=\"a\"/><child link=\"b\"/></joint></robot>'\n");
  chmod(script.c_str(), 0755);
  const std::string xacro = dir.write("robot.urdf.xacro", "<robot/>");
  ScopedPath path(bin + ":/usr/bin:/bin");
  LoadResult r = load_robot_file(xacro);
  EXPECT_EQ(r.model->name, "from_xacro");
  EXPECT_EQ(r.model->dof_count, 1);
  EXPECT_EQ(r.model->source_path, std::filesystem::path(xacro).lexically_normal().string());
  // xacro's own error comes through
  dir.write("bin/xacro", "#!/bin/sh\necho 'xacro: in robot.xacro: undefined macro' >&2\nexit 1\n");
  try {
    load_robot_file(xacro);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              xacro + ": xacro failed: xacro: in robot.xacro: undefined macro");
  }
}

TEST(RobotFile, WithoutXacroTheErrorSaysHowToGetIt) {
  test::TempDir dir;
  const std::string xacro = dir.write("robot.xacro", "<robot/>");
  ScopedPath path(dir / "empty");
  try {
    load_robot_file(xacro);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("the xacro command is not installed: install it (pip "
                                         "install xacro"),
              std::string::npos)
        << e.what();
  }
}

TEST(RobotFile, UrdfAndMjcfAreToldApartByTheDocumentElement) {
  test::TempDir dir;
  EXPECT_FALSE(is_mjcf_file(dir.write("a.xml",
                                      "<?xml version=\"1.0\"?>\n<!-- <mujoco> -->\n"
                                      "<robot name=\"r\"><link name=\"a\"/></robot>")));
  EXPECT_TRUE(is_mjcf_file(dir.write("b.xml", "<!-- a robot -->\n<mujoco model=\"m\"/>")));
  // a licence longer than one read ahead of the document element
  EXPECT_TRUE(is_mjcf_file(dir.write(
      "c.xml", "<!--" + std::string(10000, 'x') + "-->\n<!-- more -->\n<mujoco model=\"m\"/>")));
  EXPECT_FALSE(
      is_mjcf_file(dir.write("d.xml", "<!--" + std::string(10000, 'x') + "-->\n<robot/>")));
  EXPECT_EQ(load_robot_file(dir / "a.xml").model->body_count, 1);
}

}  // namespace
}  // namespace ikwb
