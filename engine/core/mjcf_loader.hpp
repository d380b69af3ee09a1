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
// folded into the joint frames so q means MuJoCo's qpos; masses, centres of mass and inertias;
// geoms that collide as collision shapes, the others as visuals (a body with only colliding
// geoms drawn with those; capsules and ellipsoids as meshes, meshes as compiled; material
// colours); equality couplings of two scalar joints
// with a linear polynomial as mimic joints. Not carried over, each with a warning: tendons, other
// equality constraints. Throws ModelError starting with the path and MuJoCo's own message (which
// names the element, attribute and line) when MuJoCo refuses the file, or when this build has
// no MuJoCo. options.floating_base is not used: an MJCF file says itself whether a body is free.
LoadResult load_mjcf_file(const std::string& path, const UrdfOptions& options = {});

}  // namespace ikwb
