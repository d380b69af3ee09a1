// Keyframe timelines: configurations placed on a time axis, each with its objectives' targets,
// and the interpolation of the segment that starts at each key (docs/timeline.md).
//
// Two forms: SceneTimeline is what a scene file holds (joints by name, targets per scene
// objective; read and written by engine/core/scene.cpp under the "timeline" key); Timeline is
// the same on a loaded model (q in q_start order, targets per objective). Joint-space sampling
// lives here; the mapping between the two forms and task-space segments (IK) are in
// solver/timeline_render.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/model.hpp"
#include "engine/core/spatial.hpp"

namespace ikwb {

// The latest time a key may have (s, about 11.6 days): a timeline is rendered and played at
// frame rate, and a key at 1e300 s left it unrendered without a word.
constexpr double kMaxKeyTime = 1e6;

// How the segment from one key to the next moves.
//   kJoint: every coordinate follows a cubic with zero velocity at both keys (quaternions of ball
//           and free joints: slerp with the same timing); stays within the limits when the keys
//           do, since each sample is a convex combination of the two keys.
//   kTask:  each objective's target moves on the straight line / slerp between the keys' targets
//           with that timing, and IK (warm-started from the previous sample) follows it.
enum class Interpolation { kJoint, kTask };
const char* to_string(Interpolation i);
// "joint" or "task"; false when unknown
bool parse(const std::string& s, Interpolation* out);

// ---- scene form ---------------------------------------------------------------------------

struct SceneKeyframe {
  double time = 0;                                     // s, >= 0, increasing from key to key
  std::map<std::string, std::vector<double>> joint_q;  // joint name -> its coordinates
  // (scene objective count) the objectives' targets at this key, in the scene's objective order;
  // nullopt for kinds without a target
  std::vector<std::optional<Transform<double>>> targets;
  Interpolation interpolation = Interpolation::kJoint;  // of the segment starting here
};

struct SceneTimeline {
  std::vector<SceneKeyframe> keys;  // by time
};

// The "timeline" value of a scene: {"keys": [{"time", "interpolation", "joint_q", "targets"}]}.
// Throws SceneError naming source and the JSON path (a time that is negative, not finite or not
// after the previous key's, an unknown interpolation, a target that is not a pose or null).
SceneTimeline timeline_from_json(const nlohmann::json& j, const std::string& source);
nlohmann::json timeline_to_json(const SceneTimeline& timeline);

// ---- model form ---------------------------------------------------------------------------

struct Keyframe {
  double time = 0;
  std::vector<double> q;                   // (coord_count) q_start order
  std::vector<Transform<double>> targets;  // (objective count) world; identity for kinds
                                           // without a target
  Interpolation interpolation = Interpolation::kJoint;
};

struct Timeline {
  std::vector<Keyframe> keys;  // sorted by time, times distinct

  double start() const { return keys.empty() ? 0 : keys.front().time; }
  double end() const { return keys.empty() ? 0 : keys.back().time; }
  // the key whose segment holds time t (clamped: 0 before the first key, the second to last at
  // and after the last); -1 without keys
  int segment_at(double t) const;
  // the key at time t (within 1e-9 s), -1 when none
  int key_at(double t) const;
  // inserts a key at its time (replacing one within 1e-9 s); returns its index
  int insert(Keyframe key);
  // moves key i to time t (sorted again; refused when another key is within 1e-9 s of t);
  // returns the key's new index, or -1 when refused
  int retime(int i, double t);
};

// the smooth step of a segment: s(u) = 3u^2 - 2u^3 (s(0) = 0, s(1) = 1, s'(0) = s'(1) = 0)
double ease(double u);
// ds/du
double ease_rate(double u);

// the configuration a fraction s of the way from q0 to q1, joint by joint: coordinates linearly,
// the quaternions of ball and free joints by slerp and the angles of periodic joints (continuous
// ones) the short way, those in (-pi, pi]. Sizes: coord_count.
void blend_configurations(const Model& model, const std::vector<double>& q0,
                          const std::vector<double>& q1, double s, std::vector<double>& out);
// a pose a fraction s of the way from a to b (position linearly, orientation by slerp)
Transform<double> blend_poses(const Transform<double>& a, const Transform<double>& b, double s);

// The joint-space curve of the timeline at time t (clamped to the keys), whatever each
// segment's interpolation: the eased blend of the segment's two keys.
void sample_joint_space(const Model& model, const Timeline& timeline, double t,
                        std::vector<double>& q);
// objective i's target at time t: the eased blend of the segment's keys' targets
Transform<double> sample_target(const Timeline& timeline, int objective, double t);

// The sample times of a timeline at `rate` Hz: start, start + 1/rate, ... up to the end, plus
// every key's time (so rows land on the keys), increasing. Throws std::invalid_argument for a
// rate that is not positive and finite, or more than `max_samples` samples.
std::vector<double> sample_times(const Timeline& timeline, double rate,
                                 std::size_t max_samples = 10000000);

}  // namespace ikwb
