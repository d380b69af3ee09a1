// The orientation an MJCF element gives itself (quat, axisangle, euler, xyaxes or zaxis), as the
// MJCF reference defines it, for the named sites whose own orientation MuJoCo 2.2.2 overrides:
// where a site's default class sets one alternative (euler, say) and the site another
// (axisangle, xyaxes, zaxis or quat), 2.2.2 keeps the class's, while the reference (and newer
// MuJoCo) gives the element's own attribute precedence. A site is an IK target link, so its
// frame must be the file's.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "engine/core/mjcf_text.hpp"

namespace ikwb {

// <compiler angle="degree|radian" eulerseq="..."> as they apply to orientations (defaults:
// degrees, "xyz")
struct MjcfAngles {
  bool degrees = true;
  std::string eulerseq = "xyz";  // 3 of x, y, z (intrinsic) or X, Y, Z (extrinsic)
};
// the settings of the sources' <compiler> tags (a later tag's attributes over an earlier's)
MjcfAngles mjcf_angles(const MjcfSources& sources);

// The unit quaternion (w, x, y, z) that `attribute`="value" gives an element: quat (normalised),
// axisangle (axis, angle in the compiler's unit), euler (three angles about the eulerseq axes:
// a lowercase axis turns about the rotated frame, an uppercase one about the fixed frame),
// xyaxes (x normalised; y made orthogonal to it; z = x cross y) or zaxis (the shortest turn
// taking z there). False for another attribute, a value that is not its count of numbers, or a
// zero axis.
bool mjcf_orientation(const std::string& attribute, const std::string& value,
                      const MjcfAngles& angles, std::array<double, 4>* quat);

// A named site outside <default> that sets its own orientation: its quaternion, the attribute
// and where ("FILE:LINE"). Sites with fromto are left out (it places them).
struct SiteOrientation {
  std::string name, attribute, place;
  std::array<double, 4> quat;  // w, x, y, z
};
std::vector<SiteOrientation> own_site_orientations(const MjcfSources& sources);

// the angle (rad) between two orientations (q and -q are one)
double quat_angle_between(const std::array<double, 4>& a, const std::array<double, 4>& b);

}  // namespace ikwb
