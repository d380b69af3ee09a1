#include "engine/core/resource_path.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/temp_files.hpp"

namespace ikwb {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

bool same(const std::string& a, const std::string& b) {
  return !a.empty() && fs::equivalent(a, b);
}

// sets ROS_PACKAGE_PATH for the scope of a test
class RosPackagePath {
 public:
  explicit RosPackagePath(const std::string& value) {
    const char* old = std::getenv("ROS_PACKAGE_PATH");
    had_ = old != nullptr;
    if (old) old_ = old;
    setenv("ROS_PACKAGE_PATH", value.c_str(), 1);
  }
  ~RosPackagePath() {
    if (had_)
      setenv("ROS_PACKAGE_PATH", old_.c_str(), 1);
    else
      unsetenv("ROS_PACKAGE_PATH");
  }

 private:
  bool had_ = false;
  std::string old_;
};

TEST(ResourcePath, RelativeAbsoluteAndFileUris) {
  TempDir dir;
  std::string f = dir.write("robot/meshes/a.stl", "x");
  std::string base = dir / "robot";
  EXPECT_TRUE(same(resolve_resource("meshes/a.stl", base, {}), f));
  EXPECT_TRUE(same(resolve_resource("./meshes/../meshes/a.stl", base, {}), f));
  EXPECT_TRUE(same(resolve_resource(f, "/somewhere/else", {}), f));
  EXPECT_TRUE(same(resolve_resource("file://" + f, base, {}), f));
  EXPECT_TRUE(same(resolve_resource("file://meshes/a.stl", base, {}), f));
  std::string err;
  EXPECT_EQ(resolve_resource("meshes/b.stl", base, {}, &err), "");
  EXPECT_NE(err.find("not found"), std::string::npos) << err;
  EXPECT_EQ(resolve_resource("http://example.com/a.stl", base, {}, &err), "");
  EXPECT_NE(err.find("unsupported URI scheme 'http://'"), std::string::npos) << err;
  EXPECT_EQ(resolve_resource("", base, {}, &err), "");
  // a folder is not a mesh, and the message says it is a folder
  EXPECT_EQ(resolve_resource("meshes", base, {}, &err), "");
  EXPECT_NE(err.find("is a directory, not a file"), std::string::npos) << err;
}

// the file a path or file:// URI names, found or not; nothing for packages and other schemes
TEST(ResourcePath, TheFileAPathOrFileUriNames) {
  EXPECT_EQ(resource_file_path("meshes/b.stl", "/robot"), "/robot/meshes/b.stl");
  EXPECT_EQ(resource_file_path("file:///ws/meshes/b.stl", "/robot"), "/ws/meshes/b.stl");
  EXPECT_EQ(resource_file_path("file://meshes/b.stl", "/robot"), "/robot/meshes/b.stl");
  EXPECT_EQ(resource_file_path("meshes/b.stl", ""), "meshes/b.stl");
  EXPECT_EQ(resource_file_path("package://arm/meshes/b.stl", "/robot"), "");
  EXPECT_EQ(resource_file_path("http://example.com/b.stl", "/robot"), "");
  EXPECT_EQ(resource_file_path("file://", "/robot"), "");
  // the other two forms of a file URI (RFC 8089): a localhost authority, and no authority
  EXPECT_EQ(resource_file_path("file://localhost/ws/meshes/b.stl", "/robot"), "/ws/meshes/b.stl");
  EXPECT_EQ(resource_file_path("file:/ws/meshes/b.stl", "/robot"), "/ws/meshes/b.stl");
}

// URIs write a space (or another reserved character) as %XX: the escapes are decoded when the
// path as written names no file; a file whose name holds a literal % is found as written
TEST(ResourcePath, PercentEscapesInUrisAreDecoded) {
  TempDir dir;
  std::string spaced = dir.write("my_robot/meshes/b ox.stl", "x");
  std::string percent = dir.write("my_robot/meshes/100%25.stl", "x");
  dir.write("my_robot/package.xml", "<package><name>my_robot</name></package>");
  std::string base = dir / "my_robot";
  EXPECT_TRUE(same(resolve_resource("package://my_robot/meshes/b%20ox.stl", base, {}), spaced));
  EXPECT_TRUE(
      same(resolve_resource("file://" + (dir / "my_robot/meshes/b%20ox.stl"), base, {}), spaced));
  EXPECT_TRUE(same(resolve_resource("package://my_robot/meshes/100%25.stl", base, {}), percent));
  std::string err;
  EXPECT_EQ(resolve_resource("package://my_robot/meshes/c%20ox.stl", base, {}, &err), "");
  EXPECT_NE(err.find("has no file 'meshes/c%20ox.stl'"), std::string::npos) << err;
}

TEST(ResourcePath, PackageInAncestorFolders) {
  TempDir dir;
  std::string f = dir.write("ws/src/arm_description/meshes/link.stl", "x");
  std::string sibling = dir.write("ws/src/gripper/meshes/finger.stl", "x");
  std::string base = dir / "ws/src/arm_description/urdf";
  // the URDF's package is one of its ancestors
  EXPECT_TRUE(same(resolve_resource("package://arm_description/meshes/link.stl", base, {}), f));
  // another package beside it is a child of an ancestor
  EXPECT_TRUE(same(resolve_resource("package://gripper/meshes/finger.stl", base, {}), sibling));
  EXPECT_TRUE(same(resolve_resource("model://gripper/meshes/finger.stl", base, {}), sibling));
  // an empty authority (package:///NAME/PATH, as Talos' example-robot-data files write it)
  EXPECT_TRUE(same(resolve_resource("package:///gripper/meshes/finger.stl", base, {}), sibling));
  // a doubled slash after the package's name, as in a path (it looked in /meshes)
  EXPECT_TRUE(same(resolve_resource("package://gripper//meshes/finger.stl", base, {}), sibling));
  std::string err;
  EXPECT_EQ(resolve_resource("package://nothing/meshes/x.stl", base, {}, &err), "");
  EXPECT_NE(err.find("package 'nothing'"), std::string::npos) << err;
  EXPECT_NE(err.find("--package-path"), std::string::npos) << err;
  // the package found but not the file: said so, with the file that differs only in case
  std::string cad = dir.write("ws/src/arm_description/meshes/Link2.STL", "x");
  EXPECT_EQ(resolve_resource("package://arm_description/meshes/link2.stl", base, {}, &err), "");
  EXPECT_NE(err.find("package 'arm_description' (found at "), std::string::npos) << err;
  EXPECT_NE(err.find("has no file 'meshes/link2.stl'; " + cad +
                     " differs only in case (file names are case-sensitive)"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("--package-path"), std::string::npos) << err;
  EXPECT_EQ(resolve_resource("package://arm_description/meshes/none.stl", base, {}, &err), "");
  EXPECT_NE(err.find("has no file 'meshes/none.stl'"), std::string::npos) << err;
  EXPECT_EQ(err.find("differs only in case"), std::string::npos) << err;
  EXPECT_EQ(resolve_resource("package://only_name", base, {}, &err), "");
  EXPECT_NE(err.find("package://NAME/PATH"), std::string::npos) << err;
  EXPECT_EQ(resolve_resource("package:///", base, {}, &err), "");
  EXPECT_NE(err.find("package://NAME/PATH"), std::string::npos) << err;
}

TEST(ResourcePath, SearchPathsComeFirstThenRosPackagePath) {
  TempDir dir;
  std::string from_flag = dir.write("flag/pkg/m.stl", "x");
  std::string from_env = dir.write("env/pkg/m.stl", "x");
  std::string from_ancestor = dir.write("pkg/m.stl", "x");
  std::string env_only = dir.write("env/other/m.stl", "x");
  std::string base = dir / "pkg/urdf";
  RosPackagePath env(":" + (dir / "env") + "::");
  EXPECT_EQ(ros_package_path(), std::vector<std::string>{dir / "env"});
  EXPECT_TRUE(same(resolve_resource("package://pkg/m.stl", base, {dir / "flag"}), from_flag));
  EXPECT_TRUE(same(resolve_resource("package://pkg/m.stl", base, {}), from_env));
  EXPECT_TRUE(same(resolve_resource("package://other/m.stl", base, {}), env_only));
  // a search path may name the package folder itself
  EXPECT_TRUE(same(resolve_resource("package://pkg/m.stl", base, {dir / "flag/pkg/"}), from_flag));
  unsetenv("ROS_PACKAGE_PATH");
  EXPECT_TRUE(same(resolve_resource("package://pkg/m.stl", base, {}), from_ancestor));
}

TEST(ResourcePath, PackageXmlNameMatchesRenamedFolder) {
  TempDir dir;
  dir.write("clone-main/package.xml",
            "<?xml version=\"1.0\"?>\n<package format=\"3\">\n  <name> real_name </name>\n"
            "</package>\n");
  std::string f = dir.write("clone-main/meshes/m.stl", "x");
  EXPECT_TRUE(
      same(resolve_resource("package://real_name/meshes/m.stl", dir / "clone-main/urdf", {}), f));
}

// a ROS_PACKAGE_PATH entry is a workspace's src: packages are found below it by their
// package.xml names, not inside other packages, hidden or ignored folders
TEST(ResourcePath, RosPackagePathIsSearchedRecursively) {
  TempDir dir;
  auto package = [&](const std::string& folder, const std::string& name) {
    dir.write(folder + "/package.xml", "<package format=\"3\"><name>" + name + "</name></package>");
    return dir.write(folder + "/meshes/m.stl", "x");
  };
  const std::string ur = package("ws/src/universal_robot/ur_description", "ur_description");
  package("ws/src/.hidden/ur_hidden", "ur_hidden");
  package("ws/src/ignored/ur_ignored", "ur_ignored");
  dir.write("ws/src/ignored/CATKIN_IGNORE", "");
  package("ws/src/outer/inner", "ur_inner");
  dir.write("ws/src/outer/package.xml", "<package><name>outer</name></package>");
  RosPackagePath env(dir / "ws/src");
  const std::string base = dir / "elsewhere";
  EXPECT_TRUE(same(resolve_resource("package://ur_description/meshes/m.stl", base, {}), ur));
  for (const char* name : {"ur_hidden", "ur_ignored", "ur_inner"}) {
    std::string error;
    EXPECT_EQ(
        resolve_resource("package://" + std::string(name) + "/meshes/m.stl", base, {}, &error), "")
        << name;
    EXPECT_NE(error.find("not found"), std::string::npos) << error;
  }
  // --package-path folders are searched the same way
  unsetenv("ROS_PACKAGE_PATH");
  EXPECT_TRUE(
      same(resolve_resource("package://ur_description/meshes/m.stl", base, {dir / "ws"}), ur));
  // a search folder that is gone is said to be (a scene saved before its workspace moved)
  std::string error;
  EXPECT_EQ(resolve_resource("package://ur_description/meshes/m.stl", base,
                             {dir / "moved_ws", dir / "ws/src/outer"}, &error),
            "");
  EXPECT_NE(error.find((dir / "moved_ws") + " (which does not exist), " + (dir / "ws/src/outer") +
                       ", the ancestors of"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace ikwb
