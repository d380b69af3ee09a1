// Resolves the resource URIs a URDF writes for meshes (package://, file://, relative and
// absolute paths) to files on disk.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ikwb {

// Entries of the ROS_PACKAGE_PATH environment variable (':'-separated), empty entries dropped.
std::vector<std::string> ros_package_path();

// Returns the path of an existing regular file for `uri`, or an empty string when there is none
// (then *error, when given, says what was tried).
//   uri            as written in the URDF:
//                    package://NAME/REST, model://NAME/REST (Gazebo, resolved the same way),
//                    file:///abs/path, file://rel/path, /abs/path, rel/path
//   base_dir       folder of the URDF; relative paths are relative to it
//   package_paths  extra search folders, tried first
// package://NAME/REST is searched, in order, in package_paths, ROS_PACKAGE_PATH and the
// ancestors of base_dir (base_dir included). In each folder D: D/REST when D is the package
// itself (D is named NAME, or D/package.xml declares <name>NAME</name>), then D/NAME/REST;
// in package_paths and ROS_PACKAGE_PATH then below D as ROS finds packages: up to 6 levels
// down, a folder whose package.xml declares NAME (folders with a package.xml are not descended
// into; hidden folders and those with CATKIN_IGNORE or COLCON_IGNORE are skipped).
std::string resolve_resource(const std::string& uri, const std::string& base_dir,
                             const std::vector<std::string>& package_paths,
                             std::string* error = nullptr);

// NAME of a package://NAME/REST or model://NAME/REST URI ("package:///NAME/REST" too), else ""
std::string resource_package(const std::string& uri);

// The file that a file:// URI or a path names (relative to base_dir when relative), as written,
// which resolve_resource tries first; "" for package:// and model:// URIs, other schemes and
// URIs that name no file.
std::string resource_file_path(const std::string& uri, const std::string& base_dir);

// `rest` (a relative path) below `dir` matched without regard to case, one component at a time;
// empty when no file matches that way. For messages about a file that is not found as written
// (CAD exports write Link1.STL where a file names link1.stl).
std::filesystem::path case_insensitive_file(const std::filesystem::path& dir,
                                            const std::string& rest);

}  // namespace ikwb
