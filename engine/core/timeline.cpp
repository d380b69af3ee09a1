#include "engine/core/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "engine/core/row_kinematics.hpp"
#include "engine/core/scene.hpp"

namespace ikwb {

using nlohmann::json;

namespace {

constexpr double kSameTime = 1e-9;  // s: keys closer than this are one key

[[noreturn]] void fail(const std::string& source, const std::string& where,
                       const std::string& what) {
  throw SceneError(source + ": " + where + ": " + what);
}

double number(const json& j, const std::string& source, const std::string& where) {
  if (!j.is_number()) fail(source, where, "expected a number");
  double v = j.get<double>();
  if (!std::isfinite(v)) fail(source, where, "NaN or infinite value");
  return v;
}

std::vector<double> numbers(const json& j, const std::string& source, const std::string& where,
                            std::size_t n) {
  if (!j.is_array() || j.size() != n)
    fail(source, where, "expected an array of " + std::to_string(n) + " numbers");
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(number(j[i], source, where + "[" + std::to_string(i) + "]"));
  return v;
}

// a target: a missing position is the origin, a missing orientation the identity (as an
// objective's target)
Transform<double> pose(const json& j, const std::string& source, const std::string& where) {
  if (!j.is_object() || (!j.contains("position") && !j.contains("orientation")))
    fail(source, where,
         "expected {\"position\": [x, y, z], \"orientation\": [x, y, z, w]} or null");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "position" && it.key() != "orientation")
      fail(source, where + "." + it.key(), "unknown key (position, orientation)");
  std::vector<double> p = j.contains("position")
                              ? numbers(j["position"], source, where + ".position", 3)
                              : std::vector<double>{0, 0, 0};
  for (double x : p)
    if (std::fabs(x) > kMaxLength) fail(source, where + ".position", "magnitude above 1e6");
  std::vector<double> q = j.contains("orientation")
                              ? numbers(j["orientation"], source, where + ".orientation", 4)
                              : std::vector<double>{0, 0, 0, 1};
  Quat<double> r{q[0], q[1], q[2], q[3]};
  if (std::fabs(quat_norm(r) - 1.0) > 1e-3)
    fail(source, where + ".orientation", "quaternion (x, y, z, w) is not unit");
  return {{p[0], p[1], p[2]}, normalize(r)};
}

json pose_json(const Transform<double>& x) {
  return {{"position", {x.p.x, x.p.y, x.p.z}}, {"orientation", {x.q.x, x.q.y, x.q.z, x.q.w}}};
}

Quat<double> slerp(const Quat<double>& a, Quat<double> b, double s) {
  // the short way: b and -b are one rotation
  if (a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0) b = {-b.x, -b.y, -b.z, -b.w};
  return normalize(a * quat_exp(s * quat_log(conjugate(a) * b)));
}

Quat<double> quat_at(const std::vector<double>& q, int k) {
  return {q[k], q[k + 1], q[k + 2], q[k + 3]};
}

}  // namespace

const char* to_string(Interpolation i) {
  return i == Interpolation::kTask ? "task" : "joint";
}

bool parse(const std::string& s, Interpolation* out) {
  if (s == "joint")
    *out = Interpolation::kJoint;
  else if (s == "task")
    *out = Interpolation::kTask;
  else
    return false;
  return true;
}

SceneTimeline timeline_from_json(const json& j, const std::string& source) {
  SceneTimeline t;
  if (!j.is_object()) fail(source, "timeline", "expected an object with \"keys\"");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "keys") fail(source, "timeline." + it.key(), "unknown key");
  if (!j.contains("keys")) return t;
  const json& keys = j["keys"];
  if (!keys.is_array()) fail(source, "timeline.keys", "expected an array");
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string where = "timeline.keys[" + std::to_string(i) + "]";
    const json& k = keys[i];
    if (!k.is_object()) fail(source, where, "expected an object");
    for (auto it = k.begin(); it != k.end(); ++it)
      if (it.key() != "time" && it.key() != "interpolation" && it.key() != "joint_q" &&
          it.key() != "targets")
        fail(source, where + "." + it.key(), "unknown key (time, interpolation, joint_q, targets)");
    SceneKeyframe key;
    if (!k.contains("time")) fail(source, where, "missing \"time\"");
    key.time = number(k["time"], source, where + ".time");
    if (key.time < 0 || key.time > kMaxKeyTime)
      fail(source, where + ".time", "must be in [0, 1e6] s");
    if (!t.keys.empty() && key.time <= t.keys.back().time)
      fail(source, where + ".time", "must be after the previous key's time");
    // the workbench takes keys this close for one key (Timeline::insert replaces it)
    if (!t.keys.empty() && key.time - t.keys.back().time < kSameTime)
      fail(source, where + ".time",
           "must be at least 1e-9 s after the previous key's time (closer keys are one key)");
    if (k.contains("interpolation")) {
      const json& m = k["interpolation"];
      if (!m.is_string() || !parse(m.get<std::string>(), &key.interpolation))
        fail(source, where + ".interpolation", "expected \"joint\" or \"task\"");
    }
    if (k.contains("joint_q")) {
      const json& q = k["joint_q"];
      if (!q.is_object()) fail(source, where + ".joint_q", "expected joint name -> value(s)");
      for (auto it = q.begin(); it != q.end(); ++it) {
        const std::string w = where + ".joint_q." + it.key();
        std::vector<double>& v = key.joint_q[it.key()];
        if (it.value().is_array())
          for (std::size_t c = 0; c < it.value().size(); ++c)
            v.push_back(number(it.value()[c], source, w + "[" + std::to_string(c) + "]"));
        else
          v.push_back(number(it.value(), source, w));
      }
    }
    if (k.contains("targets")) {
      const json& ts = k["targets"];
      if (!ts.is_array()) fail(source, where + ".targets", "expected an array (one per objective)");
      for (std::size_t o = 0; o < ts.size(); ++o) {
        if (ts[o].is_null())
          key.targets.emplace_back();
        else
          key.targets.emplace_back(
              pose(ts[o], source, where + ".targets[" + std::to_string(o) + "]"));
      }
    }
    t.keys.push_back(std::move(key));
  }
  return t;
}

json timeline_to_json(const SceneTimeline& t) {
  json keys = json::array();
  for (const SceneKeyframe& k : t.keys) {
    json q = json::object();
    for (const auto& [name, v] : k.joint_q) q[name] = v.size() == 1 ? json(v[0]) : json(v);
    json targets = json::array();
    for (const auto& x : k.targets) targets.push_back(x ? pose_json(*x) : json(nullptr));
    keys.push_back({{"time", k.time},
                    {"interpolation", to_string(k.interpolation)},
                    {"joint_q", q},
                    {"targets", targets}});
  }
  return {{"keys", keys}};
}

int Timeline::segment_at(double t) const {
  if (keys.empty()) return -1;
  if (keys.size() == 1) return 0;
  auto it = std::upper_bound(keys.begin(), keys.end(), t,
                             [](double v, const Keyframe& k) { return v < k.time; });
  int i = int(it - keys.begin()) - 1;
  return std::min(std::max(i, 0), int(keys.size()) - 2);
}

int Timeline::key_at(double t) const {
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (std::fabs(keys[i].time - t) < kSameTime) return int(i);
  return -1;
}

int Timeline::insert(Keyframe key) {
  if (const int i = key_at(key.time); i >= 0) {
    keys[std::size_t(i)] = std::move(key);
    return i;
  }
  const auto at = std::upper_bound(keys.begin(), keys.end(), key.time,
                                   [](double v, const Keyframe& k) { return v < k.time; }) -
                  keys.begin();
  keys.insert(keys.begin() + at, std::move(key));
  return int(at);
}

int Timeline::retime(int i, double t) {
  if (const int other = key_at(t); other >= 0 && other != i) return -1;
  Keyframe key = std::move(keys[i]);
  keys.erase(keys.begin() + i);
  key.time = t;
  return insert(std::move(key));
}

double ease(double u) {
  u = std::min(std::max(u, 0.0), 1.0);
  return u * u * (3 - 2 * u);
}

double ease_rate(double u) {
  if (u <= 0 || u >= 1) return 0;
  return 6 * u * (1 - u);
}

void blend_configurations(const Model& m, const std::vector<double>& q0,
                          const std::vector<double>& q1, double s, std::vector<double>& out) {
  out.resize(q0.size());
  for (std::size_t k = 0; k < q0.size(); ++k) out[k] = q0[k] + s * (q1[k] - q0[k]);
  // periodic joints' angles the shorter way round, handed back in (-pi, pi] as answers are
  const ModelView<double> v = m.view();
  for (int j = 0; j < m.joint_count; ++j)
    if (const int k = periodic_coord(v, j); k >= 0)
      out[k] = wrap_angle(q0[k] + s * wrap_angle(q1[k] - q0[k]));
  // quaternions of ball and free joints: slerp instead of the linear blend
  for (int j = 0; j < m.joint_count; ++j) {
    JointType type = JointType(m.joint_type[j]);
    if (type != JointType::kBall && type != JointType::kFree) continue;
    int k = m.joint_q_start[j] + (type == JointType::kFree ? 3 : 0);
    Quat<double> r = slerp(normalize(quat_at(q0, k)), normalize(quat_at(q1, k)), s);
    out[k] = r.x;
    out[k + 1] = r.y;
    out[k + 2] = r.z;
    out[k + 3] = r.w;
  }
}

Transform<double> blend_poses(const Transform<double>& a, const Transform<double>& b, double s) {
  return {a.p + s * (b.p - a.p), slerp(a.q, b.q, s)};
}

namespace {
// the segment of t and the eased fraction along it
int locate(const Timeline& tl, double t, double* s) {
  int i = tl.segment_at(t);
  *s = 0;
  if (i < 0 || tl.keys.size() == 1) return i;
  double t0 = tl.keys[i].time, t1 = tl.keys[i + 1].time;
  *s = ease((t - t0) / (t1 - t0));
  return i;
}
}  // namespace

void sample_joint_space(const Model& m, const Timeline& tl, double t, std::vector<double>& q) {
  double s;
  int i = locate(tl, t, &s);
  if (i < 0) throw std::invalid_argument("sample_joint_space: the timeline has no keys");
  if (tl.keys.size() == 1) {
    q = tl.keys[0].q;
    return;
  }
  blend_configurations(m, tl.keys[i].q, tl.keys[i + 1].q, s, q);
}

Transform<double> sample_target(const Timeline& tl, int objective, double t) {
  double s;
  int i = locate(tl, t, &s);
  if (i < 0) throw std::invalid_argument("sample_target: the timeline has no keys");
  if (tl.keys.size() == 1) return tl.keys[0].targets[objective];
  return blend_poses(tl.keys[i].targets[objective], tl.keys[i + 1].targets[objective], s);
}

std::vector<double> sample_times(const Timeline& tl, double rate, std::size_t max_samples) {
  if (!(rate > 0) || !std::isfinite(rate))
    throw std::invalid_argument("rate must be a positive number of samples per second");
  std::vector<double> times;
  if (tl.keys.empty()) return times;
  const double t0 = tl.start(), t1 = tl.end();
  const double steps = std::floor((t1 - t0) * rate + 1e-9);
  if (steps + tl.keys.size() > double(max_samples)) {
    char span[160];
    std::snprintf(span, sizeof span, "the keys span %g s (%g to %g s); at %g Hz", t1 - t0, t0, t1,
                  rate);
    throw std::invalid_argument(std::string(span) + " that is more than " +
                                std::to_string(max_samples) +
                                " samples: lower the rate or bring the keys closer");
  }
  // k / rate from the start (no accumulated rounding), then the keys merged in
  std::size_t ki = 0;
  for (std::size_t k = 0; k <= std::size_t(steps); ++k) {
    double t = t0 + double(k) / rate;
    for (; ki < tl.keys.size() && tl.keys[ki].time < t - kSameTime; ++ki)
      times.push_back(tl.keys[ki].time);
    if (ki < tl.keys.size() && std::fabs(tl.keys[ki].time - t) < kSameTime) {
      t = tl.keys[ki].time;
      ++ki;
    }
    times.push_back(t);
  }
  for (; ki < tl.keys.size(); ++ki) times.push_back(tl.keys[ki].time);
  return times;
}

}  // namespace ikwb
