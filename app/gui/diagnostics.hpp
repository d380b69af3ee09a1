// Diagnostics for tests and long runs, not product features: the soak run (random drags and
// weight changes for a number of frames, checking for NaN, drift of reached objectives and memory)
// and a deliberate crash (tests of the recovery file). The script's `soak` and `crash` commands
// use them (docs/sessions.md).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/app_state.hpp"

namespace ikwb::gui {

struct Soak {
  bool active = false;
  int frames = 0, done = 0;
  uint64_t seed = 0, rng = 0;
  double started_at = 0, seconds = 0;
  int nan_frames = 0;
  int drift_events = 0;  // a reached objective whose target did not move stopped being reached
  double max_locked_error = 0;  // largest position error of such objectives while locked, m
  int drags = 0, weight_changes = 0;
  std::vector<long> rss_kb;  // sampled every rss_every frames
  int rss_every = 1000;
  // the drag in progress
  int objective = -1, left = 0, length = 0;
  Transform<double> from = transform_identity<double>(), to = transform_identity<double>();
  std::vector<Transform<double>> home;  // link objectives' targets when the soak started
  std::vector<Transform<double>> last_target;
  std::vector<uint8_t> locked;  // reached with an unchanged target since

  // a soak drag is in progress (an undo step ends when it does)
  bool dragging() const { return active && objective >= 0; }
};

// starts a soak of `frames` frames from `seed`; false (and an error message) without a robot
// with an enabled position, rotation or pose objective
bool start_soak(Soak& soak, AppState& app, int frames, uint64_t seed);
// frame hooks: the soak's input before the panels; its checks after the solve and FK
void soak_frame_begin(Soak& soak, AppState& app);
void soak_frame_end(Soak& soak, AppState& app);
// the dump's `soak` object (after a soak started): frames, requested, seed, running, seconds,
// nan_frames, drift_events, max_locked_error, drags, weight_changes, rss_every, rss_kb
void add_soak_dump(const Soak& soak, nlohmann::json& dump);

// resident set size of this process in kB (/proc/self/statm); -1 when unreadable
long resident_set_kb();
// exits at once with status 3: no clean-up, the recovery file stays as a crash leaves it
[[noreturn]] void crash_now();

}  // namespace ikwb::gui
