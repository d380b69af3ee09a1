// Builds a Model from a URDF file or string (urdfdom for parsing, with our own validation of
// what urdfdom accepts silently), resolving and loading the meshes it references.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/model.hpp"

namespace ikwb {

struct UrdfOptions {
  // folders searched first for package://NAME/... (see resolve_resource)
  std::vector<std::string> package_paths;
  // attach the root link to the world with a free joint (7 coords, 6 dofs) instead of fixing it
  bool floating_base = false;
  // load mesh files through assimp; when false, mesh paths are resolved but not read (and one
  // that does not resolve is no warning, unless warn_unread_meshes: a mesh that is not read is
  // drawn by no one)
  bool load_meshes = true;
  // warn of meshes that are not read whose paths do not resolve (`ikwb info`, which describes
  // the file)
  bool warn_unread_meshes = false;
  // with load_meshes, read the visuals' meshes too; when false only the meshes collision checks
  // read (collision meshes, and the visuals of a link without collision geometry), without the
  // cost of the drawn meshes
  bool load_visual_meshes = true;
  // refuse what would otherwise be repaired with a warning (see load_urdf_file)
  bool strict = false;
  // a .xacro file's arguments, each NAME:=VALUE, given to the xacro command in order; in a URDF
  // they stand for the $(arg NAME) a xacro run left (the last value of a name), before the
  // file's <xacro:arg> default (an argument no $(arg) takes: a warning)
  std::vector<std::string> xacro_args;
};

struct LoadResult {
  std::shared_ptr<const Model> model;
  // recoverable defects, each starting with the file name: missing or unreadable meshes (shown
  // as placeholders), dropped visuals, undefined materials, files a mesh names but lacks (an
  // OBJ's .mtl, textures), ...
  std::vector<std::string> warnings;
};

// Loads the URDF at `path`. Relative mesh paths resolve against the file's folder.
// The model has one body per link and one joint per URDF joint plus a root joint from the world
// (named "root_joint", or "root_joint_N" if that name is taken), all in breadth-first order from
// the single root link, children in document order. Joint frames: X_p is the URDF origin, X_c
// identity. URDF joint types map to: fixed, revolute (limits required), continuous
// (unlimited), prismatic (limits required), floating -> free; planar is rejected. Mimic joints
// keep no coordinates of their own (chains of mimics are composed onto the final source); a
// source may come later in the order than its mimic (joint_mimic[j] > j). source_path is the
// absolute path of the file.
// Throws ModelError, with a message starting with the file name (and the line when known), for
// unreadable or malformed files: a folder, a file that cannot be opened (with the system's
// reason), bad XML (NUL bytes, nesting past 100 levels, DTD entity declarations), no <robot>,
// missing names, duplicate link, joint or material names, unknown links, several roots or
// cycles, non-numeric, NaN or infinite numbers anywhere, lengths (origins, shape sizes, mesh
// scales) above 1e6, inertias whose rotation overflows, zero axes, missing or inverted limits,
// negative masses, circular mimic sources. Trees of any depth load (a deep one is parsed on a
// thread with a stack that fits urdfdom's recursion).
// Recoverable defects are warnings instead: a visual or collision without a usable shape
// (no <geometry>, unknown shape, <mesh> without filename, missing size) is dropped; an
// undefined material leaves the default colour; colour components outside [0, 1] are clamped;
// a mesh that cannot be found or read becomes a placeholder (Geometry::placeholder); elements
// after the <robot> element are ignored. A `spherical` joint (pybullet's extension) is a ball
// joint, its limits ignored.
// Common faults that pybullet and others accept are repaired as they do, each with a warning
// naming the line (errors with options.strict): text that is not XML after </robot> (a trailing
// NUL byte, garbage) is ignored; commas between numbers read as spaces; an <origin> xyz / rpy
// with more than three numbers uses the first three; inverted limits (lower > upper) make the
// joint unlimited; a <mimic> naming a joint that is not defined is ignored (the joint moves on
// its own); xacro substitutions left in the file are resolved ($(optenv NAME DEFAULT): the
// variable or the default; $(env NAME); $(arg NAME): the xacro argument given for NAME, else the
// default of its <xacro:arg> in the file; $(find PKG): package://PKG) and any other is an error
// that says to run xacro.
LoadResult load_urdf_file(const std::string& path, const UrdfOptions& options = {});

// Same from a string. source_name is used in messages; base_dir is the folder relative mesh
// paths resolve against (and whose ancestors package:// searches; empty: the current
// directory). The model's source_path is `source_path` (a file the text came from, as a
// xacro file's expansion; empty for none).
LoadResult load_urdf_string(const std::string& xml, const std::string& source_name,
                            const std::string& base_dir, const UrdfOptions& options = {},
                            const std::string& source_path = {});

}  // namespace ikwb
