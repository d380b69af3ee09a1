#include "engine/core/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>

#include "engine/core/name_text.hpp"

namespace ikwb {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.141592653589793;

bool finite_transform(const Transform<double>& x) {
  return std::isfinite(x.p.x) && std::isfinite(x.p.y) && std::isfinite(x.p.z) &&
         std::isfinite(x.q.x) && std::isfinite(x.q.y) && std::isfinite(x.q.z) &&
         std::isfinite(x.q.w);
}

// the length of the UTF-8 sequence at s[i], 0 when it is not one (overlong forms, surrogates and
// code points above U+10FFFF included)
std::size_t utf8_sequence(const std::string& s, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned min;
  unsigned cp;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (t & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// s with each byte that is not part of a UTF-8 sequence written as \xNN; empty when s is UTF-8
std::string non_utf8_escaped(const std::string& s) {
  std::string out;
  bool bad = false;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(static_cast<unsigned char>(s[i])));
      out += hex;
      bad = true;
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return bad ? out : std::string();
}

}  // namespace

std::string control_escaped(const std::string& s) {
  std::string out;
  bool bad = false;
  for (const char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7F) {
      out += c;
      continue;
    }
    bad = true;
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(u));
    out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : hex;
  }
  return bad ? out : std::string();
}

std::array<double, 2> mimic_source_range(double k, double o, double lo, double hi) {
  std::array<double, 2> r = {(lo - o) / k, (hi - o) / k};
  if (k < 0) std::swap(r[0], r[1]);
  auto within = [&](double q) {
    const double plain = k * q + o, fused = std::fma(k, q, o);
    return plain >= lo && plain <= hi && fused >= lo && fused <= hi;
  };
  for (int end = 0; end < 2; ++end) {
    double& q = r[std::size_t(end)];
    const double toward = r[std::size_t(1 - end)];
    for (int step = 0; step < 4 && std::isfinite(q) && q != toward && !within(q); ++step)
      q = std::nextafter(q, toward);
  }
  return r;
}

bool keep_mimic_limits(const Model& m, int j, double* lower, double* upper) {
  // (a continuous source kept continuous took its mimic's [-4, 4] and was refused as a
  // continuous joint with limits)
  if (JointType(m.joint_type[j]) == JointType::kContinuous) return true;
  const int d = m.joint_qd_start[j];
  const double lo = std::max(*lower, m.dof_mimic_lower[d]);
  const double hi = std::min(*upper, m.dof_mimic_upper[d]);
  if (!(lo <= hi)) return false;
  *lower = lo;
  *upper = hi;
  return true;
}

std::string mimics_within_limits_text(const Model& m, int j) {
  std::string names;
  int n = 0;
  for (int i = 0; i < m.joint_count; ++i)
    if (m.joint_mimic[i] == j && m.joint_mimic_limited[i])
      names += (n++ == 0 ? "'" : ", '") + m.joint_name[i] + "'";
  return n == 1 ? "its mimic joint " + names + " within its limits"
                : "its mimic joints " + names + " within their limits";
}

std::string printable_name(const std::string& s) {
  std::string escaped = control_escaped(s);
  return escaped.empty() ? s : escaped;
}

const char* joint_type_name(JointType t) {
  switch (t) {
    case JointType::kFixed:
      return "fixed";
    case JointType::kRevolute:
      return "revolute";
    case JointType::kContinuous:
      return "continuous";
    case JointType::kPrismatic:
      return "prismatic";
    case JointType::kBall:
      return "ball";
    case JointType::kFree:
      return "free";
    case JointType::kPlanar:
      return "planar";
  }
  return "unknown";
}

ModelView<double> Model::view() const {
  ModelView<double> v;
  v.joint_count = joint_count;
  v.body_count = body_count;
  v.coord_count = coord_count;
  v.dof_count = dof_count;
  v.joint_type = joint_type.data();
  v.joint_parent = joint_parent.data();
  v.joint_child = joint_child.data();
  v.joint_ancestor = joint_ancestor.data();
  v.joint_X_p = joint_X_p.data();
  v.joint_X_c = joint_X_c.data();
  v.joint_axis = joint_axis.data();
  v.joint_q_start = joint_q_start.data();
  v.joint_qd_start = joint_qd_start.data();
  v.joint_mimic = joint_mimic.data();
  v.joint_mimic_multiplier = joint_mimic_multiplier.data();
  v.joint_mimic_offset = joint_mimic_offset.data();
  v.joint_periodic = joint_periodic.data();
  v.body_joint = body_joint.data();
  v.body_com = body_com.data();
  v.body_mass = body_mass.data();
  v.body_flags = body_flags.data();
  return v;
}

int Model::find_body(const std::string& n) const {
  for (int b = 0; b < body_count; ++b)
    if (body_name[b] == n) return b;
  return -1;
}

int Model::find_joint(const std::string& n) const {
  for (int j = 0; j < joint_count; ++j)
    if (joint_name[j] == n) return j;
  return -1;
}

bool Model::has_limits(int dof) const {
  return std::isfinite(dof_lower[dof]) && std::isfinite(dof_upper[dof]);
}

bool Model::dof_is_linear(int dof) const {
  const int j = dof_joint[dof], k = dof - joint_qd_start[j];
  const JointType t = JointType(joint_type[j]);
  return t == JointType::kPrismatic || (t == JointType::kFree && k < 3) ||
         (t == JointType::kPlanar && k < 2);
}

std::vector<double> Model::neutral_configuration() const {
  std::vector<double> q = joint_q_home;
  for (int j = 0; j < joint_count; ++j) {
    if (joint_mimic[j] >= 0 || joint_type_coord_count(JointType(joint_type[j])) != 1) continue;
    const int qs = joint_q_start[j], ds = joint_qd_start[j];
    q[qs] = std::min(std::max(q[qs], dof_lower[ds]), dof_upper[ds]);
  }
  return q;
}

std::vector<double> Model::middle_configuration() const {
  std::vector<double> q = neutral_configuration();
  for (int j = 0; j < joint_count; ++j) {
    if (joint_mimic[j] >= 0 || joint_type_coord_count(JointType(joint_type[j])) != 1) continue;
    int ds = joint_qd_start[j];
    if (has_limits(ds)) q[joint_q_start[j]] = 0.5 * (dof_lower[ds] + dof_upper[ds]);
  }
  return q;
}

int ModelBuilder::add_body(const std::string& name, double mass, Vec3<double> com,
                           std::array<double, 9> inertia, int flags) {
  m_.body_name.push_back(name);
  m_.body_joint.push_back(-1);
  m_.body_flags.push_back(flags);
  m_.body_mass.push_back(mass);
  m_.body_com.push_back(com);
  m_.body_inertia.push_back(inertia);
  m_.body_visuals.emplace_back();
  m_.body_collisions.emplace_back();
  return m_.body_count++;
}

void ModelBuilder::begin_articulation(const std::string& name) {
  m_.articulation_start.push_back(m_.joint_count);
  m_.articulation_name.push_back(name);
  m_.articulation_count++;
}

int ModelBuilder::add_joint(const JointSpec& s) {
  if (m_.articulation_count == 0) begin_articulation(m_.name.empty() ? "robot" : m_.name);
  int j = m_.joint_count++;
  m_.joint_name.push_back(s.name);
  m_.joint_type.push_back(int8_t(s.type));
  m_.joint_parent.push_back(s.parent);
  m_.joint_child.push_back(s.child);
  m_.joint_X_p.push_back(s.X_p);
  m_.joint_X_c.push_back(s.X_c);
  m_.joint_axis.push_back(s.axis);
  m_.joint_mimic.push_back(s.mimic);
  m_.joint_mimic_multiplier.push_back(s.mimic_multiplier);
  m_.joint_mimic_offset.push_back(s.mimic_offset);
  m_.joint_articulation.push_back(m_.articulation_count - 1);
  limits_.push_back({s.lower, s.upper});
  vel_eff_.push_back({s.velocity, s.effort});
  home_.emplace_back();
  return j;
}

void ModelBuilder::set_home(int joint, std::vector<double> coords) {
  home_.at(joint) = std::move(coords);
}

std::vector<Geometry>& ModelBuilder::visuals(int body) {
  return m_.body_visuals.at(body);
}
std::vector<Geometry>& ModelBuilder::collisions(int body) {
  return m_.body_collisions.at(body);
}

namespace {

// the most turns turns_to_same_pose counts
constexpr int kMostTurns = 1000;

// The fewest turns (1 to kMostTurns) of joint src after which it and the mimic joints following
// it are back at the same pose: n with n times each mimic's multiplier a whole number;
// kMostTurns where none is (a multiplier of no small fraction, a slide following it).
int turns_to_same_pose(const Model& m, int src) {
  for (int n = 1; n < kMostTurns; ++n) {
    bool whole = true;
    for (int j = 0; j < m.joint_count && whole; ++j) {
      if (m.joint_mimic[j] != src) continue;
      const double turns = n * m.joint_mimic_multiplier[j];
      whole = JointType(m.joint_type[j]) != JointType::kPrismatic &&
              std::fabs(turns - std::nearbyint(turns)) <= 1e-9 * std::fabs(turns);
    }
    if (whole) return n;
  }
  return kMostTurns;
}

}  // namespace

void ModelBuilder::narrow_mimic_sources(Model& m, std::vector<std::string>* notes) const {
  auto note = [&](const std::string& text) {
    if (notes) notes->push_back(text);
  };
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v + 0.0);  // + 0.0: no -0
    return std::string(text);
  };
  auto range = [&](double lo, double hi) { return "[" + number(lo) + ", " + number(hi) + "]"; };
  for (int j = 0; j < m.joint_count; ++j) {
    const int src = m.joint_mimic[j];
    const JointType type = JointType(m.joint_type[j]);
    if (src < 0 || (type != JointType::kRevolute && type != JointType::kPrismatic)) continue;
    const double lo = limits_[j].first, hi = limits_[j].second;
    const double k = m.joint_mimic_multiplier[j], o = m.joint_mimic_offset[j];
    if ((lo <= -1e299 && hi >= 1e299) || k == 0) continue;
    auto [a, b] = mimic_source_range(k, o, lo > -1e299 ? lo : -kInf, hi < 1e299 ? hi : kInf);
    const int d = m.joint_qd_start[src];
    const double s_lo = m.dof_lower[d], s_hi = m.dof_upper[d];
    // round-off of the division is not a narrowing; each side's own (a huge other side, an
    // exporter's 1e13 for none, made a finite side's slack 10 and dropped it without a word)
    auto slack_of = [](double v) { return std::isfinite(v) ? 1e-12 * (1.0 + std::fabs(v)) : 0.0; };
    const bool narrows_lo = a > s_lo + slack_of(a), narrows_hi = b < s_hi - slack_of(b);
    // kept from here on (unless refused below): limits set later keep the mimic too (a side
    // within round-off of the source's own is the source's, which keeps it)
    const double kept_lo = m.dof_mimic_lower[d], kept_hi = m.dof_mimic_upper[d];
    m.dof_mimic_lower[d] = std::max(kept_lo, narrows_lo ? a : std::min(a, s_lo));
    m.dof_mimic_upper[d] = std::min(kept_hi, narrows_hi ? b : std::max(b, s_hi));
    m.joint_mimic_limited[j] = 1;
    auto refuse = [&](const std::string& text) {
      m.dof_mimic_lower[d] = kept_lo;
      m.dof_mimic_upper[d] = kept_hi;
      m.joint_mimic_limited[j] = 0;
      note(text);
    };
    if (!narrows_lo && !narrows_hi) continue;
    const std::string sn = "'" + m.joint_name[src] + "'";
    const std::string own =
        "the limits " + range(lo, hi) + " of the mimic joint '" + m.joint_name[j] + "'";
    // a continuous source turns only as far as its mimic can: it becomes a revolute joint
    // within the values that keep the mimic in its limits (a controller that keeps the URDF's
    // limits refused the answers, the mimic up to 1.6 rad past them)
    if (m.joint_periodic[src] || JointType(m.joint_type[src]) == JointType::kContinuous) {
      // kept as it is: answers have a periodic source's angle in (-pi, pi]
      if (m.joint_periodic[src] && a <= -kPi && b >= kPi) continue;
      // n turns of it bring it and its mimics back to the same pose: n turns of the values, as
      // near zero as they go, have every pose (over [-100, 0.5] the answers spread to -96 rad,
      // over [-1e15, 0.5] a third failed, a step there shorter than the values' rounding, and
      // a 0.5 multiplier's [-1e13, 0.5] put them at -1e13)
      const int n = turns_to_same_pose(m, src);
      const double window = 2 * kPi * n;
      std::string turn;
      if (b - a > window) {
        a = std::min(std::max(-0.5 * window, a), b - window);
        b = a + window;
        turn = n == 1 ? " (one turn of them: every angle)"
                      : " (" + std::to_string(n) + " turns of them nearest zero" +
                            (n < kMostTurns ? ": every pose)" : ")");
      }
      m.joint_type[src] = int8_t(JointType::kRevolute);
      m.joint_periodic[src] = 0;
      m.dof_lower[d] = a;
      m.dof_upper[d] = b;
      note(own + " limit its continuous source " + sn + " to " + range(a, b) + turn +
           ": it is taken as a revolute joint with those limits");
      continue;
    }
    const double n_lo = std::max(s_lo, a), n_hi = std::min(s_hi, b);
    if (n_lo > n_hi) {
      refuse(own + " are not kept: no value of its source " + sn + " within " + range(s_lo, s_hi) +
             " keeps them");
      continue;
    }
    // a source held at one value: a mimic limit whose sign contradicts its multiplier (the
    // Robotiq 2F-85's URDF: [0, 0.8757] with multiplier -1 left its finger joint no motion)
    const double slack = std::max(slack_of(n_lo), slack_of(n_hi));
    if (n_hi - n_lo <= slack && s_hi - s_lo > slack) {
      refuse(own + " are not kept: only " + number(n_lo) + " of its source " + sn + " within " +
             range(s_lo, s_hi) + " keeps them (multiplier " + number(k) +
             "), which would leave it no motion");
      continue;
    }
    m.dof_lower[d] = n_lo;
    m.dof_upper[d] = n_hi;
    note(own + " narrow its source " + sn + " from " + range(s_lo, s_hi) + " to " +
         range(n_lo, n_hi));
  }
}

Model ModelBuilder::finalize(std::vector<std::string>* notes) {
  Model& m = m_;
  // names are UTF-8 (JSON, Python and the GUI's text need it): a file in another encoding
  // (Latin-1) is refused here, naming the name with its other bytes escaped
  // and one line each: a joint name with a line break wrote a CSV header that `ikwb fk` could not
  // read back
  auto check_utf8 = [&](const std::string& what, const std::string& name) {
    const std::string escaped = non_utf8_escaped(name);
    if (!escaped.empty())
      throw ModelError(what + " '" + escaped +
                       "' is not UTF-8 text: save the file as UTF-8 (its names in another "
                       "encoding, such as Latin-1, cannot be read)");
    const std::string control = control_escaped(name);
    if (!control.empty())
      throw ModelError(what + " '" + control +
                       "' holds a control character: a name is one line of text (CSV headers, "
                       "scene files and the panels show it); rename it in the file");
  };
  // the robot's own name is only shown (no header or scene key is made of it): kept escaped,
  // with a note, instead of refusing the robot
  {
    const std::string utf8 = non_utf8_escaped(m.name);
    const std::string shown = printable_name(utf8.empty() ? m.name : utf8);
    if (shown != m.name) {
      if (notes)
        notes->push_back("the robot's name '" + shown +
                         "' is not one line of UTF-8 text: it is shown as written here");
      m.name = shown;
    }
  }
  for (const auto& n : m.body_name) check_utf8("body name", n);
  for (const auto& n : m.joint_name) check_utf8("joint name", n);
  auto fail = [&](const std::string& what) {
    throw ModelError((m.name.empty() ? std::string("model") : "model '" + m.name + "'") + ": " +
                     what);
  };
  {
    std::set<std::string> names;
    for (const auto& n : m.body_name)
      if (!names.insert(n).second) fail("duplicate body name '" + n + "'");
    names.clear();
    for (const auto& n : m.joint_name)
      if (!names.insert(n).second) fail("duplicate joint name '" + n + "'");
  }
  m.joint_ancestor.assign(m.joint_count, -1);
  m.joint_q_start.assign(m.joint_count + 1, 0);
  m.joint_qd_start.assign(m.joint_count + 1, 0);
  m.joint_q_home.clear();
  m.dof_lower.clear();
  m.dof_upper.clear();
  m.dof_velocity_limit.clear();
  m.dof_effort_limit.clear();
  m.dof_joint.clear();
  std::fill(m.body_joint.begin(), m.body_joint.end(), -1);
  for (int j = 0; j < m.joint_count; ++j) {
    const std::string jn = "joint '" + m.joint_name[j] + "'";
    JointType type = JointType(m.joint_type[j]);
    if (m.joint_type[j] < 0 || m.joint_type[j] > int8_t(JointType::kPlanar))
      fail(jn + " has an unknown joint type");
    int child = m.joint_child[j], parent = m.joint_parent[j];
    if (child < 0 || child >= m.body_count) fail(jn + " has no valid child body");
    if (parent < -1 || parent >= m.body_count) fail(jn + " has an invalid parent body");
    if (m.body_joint[child] >= 0)
      fail("body '" + m.body_name[child] + "' is the child of two joints ('" +
           m.joint_name[m.body_joint[child]] + "' and '" + m.joint_name[j] + "')");
    if (parent >= 0) {
      if (parent == child) fail(jn + " connects body '" + m.body_name[child] + "' to itself");
      if (m.body_joint[parent] < 0)
        fail(jn + ": parent body '" + m.body_name[parent] +
             "' is not attached by an earlier joint (joints must be in topological order)");
      m.joint_ancestor[j] = m.body_joint[parent];
    }
    m.body_joint[child] = j;
    if (!finite_transform(m.joint_X_p[j]) || !finite_transform(m.joint_X_c[j]))
      fail(jn + " has a non-finite origin");
    m.joint_X_p[j].q = normalize(m.joint_X_p[j].q);
    m.joint_X_c[j].q = normalize(m.joint_X_c[j].q);
    int ndof = joint_type_dof_count(type);
    if (ndof == 1 || type == JointType::kPlanar) {
      Vec3<double>& a = m.joint_axis[j];
      double n = length(a);
      double big = std::max({std::fabs(a.x), std::fabs(a.y), std::fabs(a.z)});
      if (std::isinf(n) && std::isfinite(big)) {
        // finite components whose squares overflow (1e200): scale down first
        a = (1.0 / big) * a;
        n = length(a);
      }
      if (!std::isfinite(n)) fail(jn + " has a non-finite axis");
      if (n < 1e-9) fail(jn + " has a zero axis");
      a = (1.0 / n) * a;
    }
    int src = m.joint_mimic[j];
    if (src >= 0) {
      if (src >= m.joint_count) fail(jn + " mimics an unknown joint");
      if (ndof != 1 || joint_type_dof_count(JointType(m.joint_type[src])) != 1)
        fail(jn + ": mimic joints and their sources must be revolute, continuous or prismatic");
      if (m.joint_mimic[src] >= 0)
        fail(jn + " mimics '" + m.joint_name[src] + "', which is itself a mimic joint");
      if (!std::isfinite(m.joint_mimic_multiplier[j]) || !std::isfinite(m.joint_mimic_offset[j]))
        fail(jn + " has a non-finite mimic multiplier or offset");
    }
    int nq = src >= 0 ? 0 : joint_type_coord_count(type);
    int nv = src >= 0 ? 0 : ndof;
    m.joint_q_start[j + 1] = m.joint_q_start[j] + nq;
    m.joint_qd_start[j + 1] = m.joint_qd_start[j] + nv;
    // a mimic joint has no coordinates, so no home of its own
    const std::vector<double> home = src >= 0 ? std::vector<double>() : home_[j];
    if (!home.empty() && int(home.size()) != nq)
      fail(jn + " has " + std::to_string(home.size()) + " home coordinates, expected " +
           std::to_string(nq));
    for (double v : home)
      if (!std::isfinite(v)) fail(jn + " has a non-finite home coordinate");
    if (home.empty()) {
      m.joint_q_home.resize(m.joint_q_home.size() + nq, 0.0);
      if (type == JointType::kBall || type == JointType::kFree) m.joint_q_home.back() = 1.0;
    } else {
      m.joint_q_home.insert(m.joint_q_home.end(), home.begin(), home.end());
      if (type == JointType::kBall || type == JointType::kFree) {
        double* quat = m.joint_q_home.data() + m.joint_q_home.size() - 4;
        const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] +
                                   quat[3] * quat[3]);
        if (n < 1e-9) fail(jn + " has a zero home quaternion");
        for (int k = 0; k < 4; ++k) quat[k] /= n;
      }
    }
    double lo = limits_[j].first, hi = limits_[j].second;
    bool limited = (type == JointType::kRevolute || type == JointType::kPrismatic);
    if (limited) {
      if (std::isnan(lo) || std::isnan(hi)) fail(jn + " has a NaN limit");
      if (lo > hi)
        fail(jn + " has inverted limits (lower " + std::to_string(lo) + " > upper " +
             std::to_string(hi) + ")");
    }
    for (int k = 0; k < nv; ++k) {
      m.dof_lower.push_back(limited && lo > -1e299 ? lo : -kInf);
      m.dof_upper.push_back(limited && hi < 1e299 ? hi : kInf);
      m.dof_velocity_limit.push_back(vel_eff_[j].first);
      m.dof_effort_limit.push_back(vel_eff_[j].second);
      m.dof_joint.push_back(j);
      m.dof_mimic_lower.push_back(-kInf);
      m.dof_mimic_upper.push_back(kInf);
    }
  }
  m.coord_count = m.joint_q_start[m.joint_count];
  m.dof_count = m.joint_qd_start[m.joint_count];
  // a turn of a continuous joint is the same pose unless a mimic joint turns a fraction of a
  // turn with it, or slides with it; a planar joint's turn always is (no mimic follows it)
  m.joint_periodic.assign(m.joint_count, 0);
  for (int j = 0; j < m.joint_count; ++j)
    m.joint_periodic[j] =
        (JointType(m.joint_type[j]) == JointType::kContinuous && m.joint_mimic[j] < 0) ||
        JointType(m.joint_type[j]) == JointType::kPlanar;
  for (int j = 0; j < m.joint_count; ++j) {
    const int src = m.joint_mimic[j];
    if (src < 0) continue;
    const double k = m.joint_mimic_multiplier[j];
    if (JointType(m.joint_type[j]) == JointType::kPrismatic || k != std::nearbyint(k))
      m.joint_periodic[src] = 0;
  }
  m.joint_mimic_limited.assign(m.joint_count, 0);
  narrow_mimic_sources(m, notes);
  if (m.articulation_count == 0) begin_articulation(m.name.empty() ? "robot" : m.name);
  m.articulation_start.resize(m.articulation_count);
  m.articulation_start.push_back(m.joint_count);
  for (int a = 0; a < m.articulation_count; ++a)
    if (m.articulation_start[a] > m.articulation_start[a + 1])
      fail("articulation ranges are not increasing");
  m.collision = fit_collision_geometry(m);
  return std::move(m_);
}

}  // namespace ikwb
