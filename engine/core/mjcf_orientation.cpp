// MJCF orientation attributes to quaternions, as the MJCF reference defines them.
#include "engine/core/mjcf_orientation.hpp"

#include <cmath>
#include <cstdlib>

namespace ikwb {

namespace {

using Quat = std::array<double, 4>;  // w, x, y, z

// the numbers of an attribute's value (whitespace separated); false for anything else
bool numbers(const std::string& value, std::vector<double>* out) {
  out->clear();
  const char* p = value.c_str();
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ++p;
    if (!*p) return true;
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p || !std::isfinite(v)) return false;
    out->push_back(v);
    p = end;
  }
}

Quat multiply(const Quat& a, const Quat& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
          a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
          a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

double norm3(const double* v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

// a turn of `angle` rad about `axis` (any length but 0)
bool axis_angle(const double* axis, double angle, Quat* q) {
  const double n = norm3(axis);
  if (!(n > 0)) return false;
  const double s = std::sin(angle / 2) / n;
  *q = {std::cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s};
  return true;
}

// the rotation whose columns are x, y, z (orthonormal) as a unit quaternion
Quat from_columns(const double* x, const double* y, const double* z) {
  const double trace = x[0] + y[1] + z[2];
  Quat q;
  if (trace > 0) {
    const double s = 2 * std::sqrt(1 + trace);
    q = {s / 4, (y[2] - z[1]) / s, (z[0] - x[2]) / s, (x[1] - y[0]) / s};
  } else if (x[0] > y[1] && x[0] > z[2]) {
    const double s = 2 * std::sqrt(1 + x[0] - y[1] - z[2]);
    q = {(y[2] - z[1]) / s, s / 4, (y[0] + x[1]) / s, (z[0] + x[2]) / s};
  } else if (y[1] > z[2]) {
    const double s = 2 * std::sqrt(1 + y[1] - x[0] - z[2]);
    q = {(z[0] - x[2]) / s, (y[0] + x[1]) / s, s / 4, (z[1] + y[2]) / s};
  } else {
    const double s = 2 * std::sqrt(1 + z[2] - x[0] - y[1]);
    q = {(x[1] - y[0]) / s, (z[0] + x[2]) / s, (z[1] + y[2]) / s, s / 4};
  }
  return q;
}

}  // namespace

MjcfAngles mjcf_angles(const MjcfSources& sources) {
  MjcfAngles a;
  for (const std::string& text : sources.texts)
    for (const StartTag& tag : start_tags(text, "compiler"))
      for (const TagAttribute& at : tag.attributes) {
        if (at.name == "angle") a.degrees = at.value != "radian";
        if (at.name == "eulerseq") a.eulerseq = at.value;
      }
  return a;
}

bool mjcf_orientation(const std::string& attribute, const std::string& value,
                      const MjcfAngles& angles, Quat* quat) {
  std::vector<double> v;
  if (!numbers(value, &v)) return false;
  const double unit = angles.degrees ? M_PI / 180 : 1.0;
  if (attribute == "quat") {
    if (v.size() != 4) return false;
    const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (!(n > 0)) return false;
    *quat = {v[0] / n, v[1] / n, v[2] / n, v[3] / n};
    return true;
  }
  if (attribute == "axisangle") return v.size() == 4 && axis_angle(v.data(), v[3] * unit, quat);
  if (attribute == "euler") {
    if (v.size() != 3 || angles.eulerseq.size() != 3) return false;
    Quat q = {1, 0, 0, 0};
    for (int i = 0; i < 3; ++i) {
      const char c = angles.eulerseq[std::size_t(i)];
      const int k = (c == 'x' || c == 'X')   ? 0
                    : (c == 'y' || c == 'Y') ? 1
                    : (c == 'z' || c == 'Z') ? 2
                                             : -1;
      if (k < 0) return false;
      double axis[3] = {0, 0, 0};
      axis[k] = 1;
      Quat r;
      axis_angle(axis, v[std::size_t(i)] * unit, &r);
      // a lowercase axis is the turned frame's (intrinsic), an uppercase one the fixed frame's
      q = (c >= 'a') ? multiply(q, r) : multiply(r, q);
    }
    *quat = q;
    return true;
  }
  if (attribute == "xyaxes") {
    if (v.size() != 6) return false;
    double x[3] = {v[0], v[1], v[2]}, y[3] = {v[3], v[4], v[5]}, z[3];
    const double nx = norm3(x);
    if (!(nx > 0)) return false;
    for (double& c : x) c /= nx;
    const double d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    for (int k = 0; k < 3; ++k) y[k] -= d * x[k];
    const double ny = norm3(y);
    if (!(ny > 0)) return false;
    for (double& c : y) c /= ny;
    z[0] = x[1] * y[2] - x[2] * y[1];
    z[1] = x[2] * y[0] - x[0] * y[2];
    z[2] = x[0] * y[1] - x[1] * y[0];
    *quat = from_columns(x, y, z);
    return true;
  }
  if (attribute == "zaxis") {
    if (v.size() != 3) return false;
    const double n = norm3(v.data());
    if (!(n > 0)) return false;
    const double z[3] = {v[0] / n, v[1] / n, v[2] / n};
    // about (0, 0, 1) x z by the angle between them; z straight down turns about x
    double axis[3] = {-z[1], z[0], 0};
    const double s = norm3(axis);
    if (s < 1e-10) axis[0] = 1, axis[1] = 0;
    return axis_angle(axis, std::atan2(s, z[2]), quat);
  }
  return false;
}

std::vector<SiteOrientation> own_site_orientations(const MjcfSources& sources) {
  static const char* const kOrientations[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  const MjcfAngles angles = mjcf_angles(sources);
  std::vector<SiteOrientation> out;
  for (std::size_t f = 0; f < sources.texts.size(); ++f)
    for (const StartTag& tag : start_tags(sources.texts[f], "site")) {
      std::string name;
      const TagAttribute* own = nullptr;
      bool fromto = false;
      for (const TagAttribute& a : tag.attributes) {
        if (a.name == "name") name = a.value;
        if (a.name == "fromto") fromto = true;
        for (const char* o : kOrientations)
          if (a.name == o) own = &a;
      }
      SiteOrientation s;
      if (name.empty() || !own || fromto ||
          !mjcf_orientation(own->name, own->value, angles, &s.quat))
        continue;
      s.name = name;
      s.attribute = own->name;
      s.place = sources.paths[f] + ":" + std::to_string(line_of(sources.texts[f], tag.begin));
      out.push_back(std::move(s));
    }
  return out;
}

double quat_angle_between(const Quat& a, const Quat& b) {
  // a * conj(b): its vector part's length and |w| give the half angle (acos of w alone loses
  // angles under 1e-8)
  const Quat d = multiply(a, {b[0], -b[1], -b[2], -b[3]});
  return 2 * std::atan2(norm3(d.data() + 1), std::fabs(d[0]));
}

}  // namespace ikwb
