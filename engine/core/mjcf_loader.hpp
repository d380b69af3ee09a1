// Robots from MJCF (MuJoCo's XML) through MuJoCo's own compiler.
#pragma once

#include <string>

#include "engine/core/urdf_loader.hpp"

namespace ikwb {

// true when this build can read MJCF (MuJoCo was found at build time)
bool mjcf_supported();

// Loads an MJCF file with mj_loadXML and builds the Model from the compiled model: bodies in
// MuJoCo's order; hinge -> revolute (continuous when unlimited), slide -> prismatic, ball ->
// ball, free -> free, a body without joints fixed to its parent, a body with k joints as a
// chain through k - 1 massless bodies named BODY/JOINT; joint reference positions (qpos0)
// folded into the joint frames so q means MuJoCo's qpos, and qpos0 the model's home
// (joint_q_home: a free body stands where the file places it); masses, centres of mass and
// inertias; geoms that collide as collision shapes, the others as visuals (a body with only
// colliding geoms drawn with those; capsules and ellipsoids as meshes, meshes as compiled; material
// colours); active equality couplings of two scalar joints with a linear polynomial as mimic
// joints (inactive ones, active="false", are skipped as MuJoCo does); named sites on bodies as
// massless bodies of their name fixed to theirs (NAME_site, with a warning, where a body has the
// name). Not carried over, each with a warning: tendons, other equality constraints.
// Attributes newer than the installed MuJoCo that cannot change kinematics or appearance are
// dropped from the file and the files it includes, each with a warning naming its file and line
// (an error with options.strict). options.floating_base puts a free joint named "root_joint"
// above the single root body (its coordinates: the root's pose relative to where the file
// places it); an error when <worldbody> has several bodies or the root has joints (a free one
// already floats). options.package_paths and load_meshes are not used: MuJoCo reads the meshes;
// mesh files it cannot read (missing, ASCII STL, refused) are given to it in memory as converted
// copies or placeholders (mjcf_meshes.hpp), with warnings grouped by reason that say what is lost.
// Throws ModelError starting with the path and MuJoCo's own message (which names the element,
// attribute and line) when MuJoCo refuses the file, or when this build has no MuJoCo.
LoadResult load_mjcf_file(const std::string& path, const UrdfOptions& options = {});

}  // namespace ikwb
