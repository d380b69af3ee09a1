// Tests for engine/core/robot_file: a robot file goes to its loader by its kind. xacro files run
// through the xacro command found on PATH (here a stand-in script that prints a URDF), and
// without one the error says how to get it.
#include "engine/core/robot_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
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

// arguments go after the file, in order; what xacro says on standard error while it succeeds
// comes through as warnings
TEST(RobotFile, XacroArgumentsAndWarnings) {
  test::TempDir dir;
  const std::string bin = dir / "bin";
  // the stand-in names the robot after its arguments and warns on standard error
  std::string script = dir.write("bin/xacro",
                                 "#!/bin/sh\n"
                                 "f=$1; shift\n"
                                 "echo \"deprecated: $f\" >&2\n"
                                 "echo \"<robot name='args[$*]'><link name='a'/></robot>\"\n");
  chmod(script.c_str(), 0755);
  const std::string xacro = dir.write("arm.xacro", "<robot/>");
  ScopedPath path(bin + ":/usr/bin:/bin");
  UrdfOptions options;
  options.xacro_args = {"name:=ur", "ur_type:=ur5e", "prefix:=a b"};
  LoadResult r = load_robot_file(xacro, options);
  EXPECT_EQ(r.model->name, "args[name:=ur ur_type:=ur5e prefix:=a b]");
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings[0], xacro + ": xacro: deprecated: " + xacro);
  // without arguments, none are passed
  EXPECT_EQ(load_robot_file(xacro).model->name, "args[]");
  // an argument that is not NAME:=VALUE is refused before xacro runs
  options.xacro_args = {"name:=ur", "ur5e"};
  try {
    load_robot_file(xacro, options);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              xacro +
                  ": xacro argument 'ur5e': expected NAME:=VALUE (a name of letters, digits, "
                  "_ and -)");
  }
  // in a URDF they stand for the $(arg NAME) a xacro run left, before the file's default; one
  // that no $(arg) takes gets a warning
  const std::string urdf =
      dir.write("left.urdf",
                "<robot name='$(arg name)' xmlns:xacro='http://www.ros.org/wiki/xacro'>"
                "<xacro:arg name=\"name\" default=\"from_default\"/><link name='a'/></robot>");
  options.xacro_args = {"name:=first", "name:=given", "unused:=1"};
  LoadResult left = load_robot_file(urdf, options);
  EXPECT_EQ(left.model->name, "given");
  std::string all;
  for (const std::string& w : left.warnings) all += w + "\n";
  EXPECT_NE(all.find("'$(arg name)': replaced by 'given'"), std::string::npos) << all;
  EXPECT_NE(all.find(urdf + ": xacro argument 'unused:=1' not used"), std::string::npos) << all;
  EXPECT_EQ(all.find("'name:=given' not used"), std::string::npos) << all;
  EXPECT_EQ(load_robot_file(urdf).model->name, "from_default");
  // and there too an argument that is not NAME:=VALUE is an error, not an unused argument
  options.xacro_args = {"name"};
  EXPECT_THROW(
      {
        try {
          load_robot_file(urdf, options);
        } catch (const ModelError& e) {
          EXPECT_EQ(std::string(e.what()),
                    urdf +
                        ": xacro argument 'name': expected NAME:=VALUE (a name of letters, "
                        "digits, _ and -)");
          throw;
        }
      },
      ModelError);
}

// the collision warnings of an expanded robot name the xacro file, as a URDF's name the URDF
TEST(RobotFile, AXacroRobotsCollisionWarningsNameItsFile) {
  test::TempDir dir;
  const std::string bin = dir / "bin";
  std::string script =
      dir.write("bin/xacro",
                "#!/bin/sh\n"
                "echo '<robot name=\"r\"><link name=\"a\"><visual><geometry>"
                "<box size=\"0.1 0.1 0.1\"/></geometry></visual></link></robot>'\n");
  chmod(script.c_str(), 0755);
  const std::string xacro = dir.write("robot.urdf.xacro", "<robot/>");
  ScopedPath path(bin + ":/usr/bin:/bin");
  LoadResult r = load_robot_file(xacro);
  ASSERT_EQ(r.model->collision.warnings.size(), 1u);
  EXPECT_EQ(r.model->collision.warnings[0],
            std::filesystem::path(xacro).lexically_normal().string() +
                ": link 'a' has no <collision>: its <visual> is used for collisions");
}

// a mesh given in place of its robot is named as one, whatever its bytes (a binary STL has NULs)
TEST(RobotFile, AMeshFileIsNotTakenForARobot) {
  test::TempDir dir;
  for (const char* name : {"link.stl", "LINK.STL", "part.obj", "part.dae"}) {
    const std::string mesh = dir.write(name, std::string("solid x\0\1", 10));
    try {
      load_robot_file(mesh);
      FAIL() << name;
    } catch (const ModelError& e) {
      std::string ext = std::filesystem::path(name).extension().string();
      for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
      EXPECT_EQ(std::string(e.what()),
                mesh + ": a mesh file (" + ext +
                    "), not a robot description: open the URDF, xacro or MJCF file that names it");
    }
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
