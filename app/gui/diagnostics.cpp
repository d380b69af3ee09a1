// The soak run and the deliberate crash (see diagnostics.hpp).
#include "app/gui/diagnostics.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "app/gui/timing.hpp"

namespace ikwb::gui {

namespace {

bool finite(const Transform<double>& t) {
  return std::isfinite(t.p.x) && std::isfinite(t.p.y) && std::isfinite(t.p.z) &&
         std::isfinite(t.q.x) && std::isfinite(t.q.y) && std::isfinite(t.q.z) &&
         std::isfinite(t.q.w);
}

bool same(const Transform<double>& a, const Transform<double>& b) {
  return a.p.x == b.p.x && a.p.y == b.p.y && a.p.z == b.p.z && a.q.x == b.q.x && a.q.y == b.q.y &&
         a.q.z == b.q.z && a.q.w == b.q.w;
}

// splitmix64
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double uniform(uint64_t& state, double lo, double hi) {
  return lo + (hi - lo) * double(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

std::vector<int> link_objectives(const AppState& app) {
  std::vector<int> out;
  for (int i = 0; i < int(app.objectives.size()); ++i)
    if (app.objectives[i].has_target() && app.objectives[i].enabled()) out.push_back(i);
  return out;
}

// the next action: a drag to a random pose near the objective's starting target, a weight change
// or an idle spell
void pick_action(Soak& k, AppState& app, const std::vector<int>& links) {
  int pick = links[next_random(k.rng) % links.size()];
  double r = uniform(k.rng, 0, 1);
  k.objective = -1;
  if (r < 0.6) {
    Vec3<double> d;
    do {
      d = {uniform(k.rng, -1, 1), uniform(k.rng, -1, 1), uniform(k.rng, -1, 1)};
    } while (length(d) > 1.0);
    Vec3<double> axis{uniform(k.rng, -1, 1), uniform(k.rng, -1, 1), uniform(k.rng, -1, 1)};
    if (length(axis) < 1e-3) axis = {0, 0, 1};
    k.objective = pick;
    k.from = app.objectives[pick].target;
    k.to = k.home[pick];
    k.to.p = k.to.p + d * 0.12;
    k.to.q =
        normalize(quat_from_axis_angle(axis * (1.0 / length(axis)), uniform(k.rng, -0.35, 0.35)) *
                  k.home[pick].q);
    k.length = k.left = 5 + int(next_random(k.rng) % 36);
    ++k.drags;
  } else if (r < 0.8) {
    app.objectives[pick].spec.params.weight = uniform(k.rng, 0.5, 2.0);
    app.note_edit("soak weight");
    ++k.weight_changes;
    k.left = 1 + int(next_random(k.rng) % 10);
  } else {
    k.left = 5 + int(next_random(k.rng) % 56);
  }
}

// one frame of the drag in progress: the target moves along the straight path from `from` to `to`
void drag_step(Soak& k, AppState& app) {
  double s = double(k.length - k.left + 1) / k.length;
  Transform<double> t;
  t.p = k.from.p + (k.to.p - k.from.p) * s;
  Quat<double> b = k.to.q;
  if (k.from.q.x * b.x + k.from.q.y * b.y + k.from.q.z * b.z + k.from.q.w * b.w < 0)
    b = Quat<double>{-b.x, -b.y, -b.z, -b.w};
  t.q = normalize(
      Quat<double>{k.from.q.x + (b.x - k.from.q.x) * s, k.from.q.y + (b.y - k.from.q.y) * s,
                   k.from.q.z + (b.z - k.from.q.z) * s, k.from.q.w + (b.w - k.from.q.w) * s});
  app.set_target(k.objective, t);
  if (k.left == 1) {
    app.note_edit("soak drag");
    k.objective = -1;
  }
}

}  // namespace

bool start_soak(Soak& k, AppState& app, int frames, uint64_t seed) {
  k = Soak{};
  if (!app.model || link_objectives(app).empty()) {
    app.error("soak: needs a robot with a position, rotation or pose objective");
    return false;
  }
  k.active = true;
  k.frames = frames;
  k.seed = seed;
  k.rng = seed * 0x2545f4914f6cdd1dULL + 1;
  k.started_at = seconds_since_start();
  for (const WorkbenchObjective& o : app.objectives) k.home.push_back(o.target);
  k.last_target = k.home;
  k.locked.assign(app.objectives.size(), 0);
  k.rss_kb.push_back(resident_set_kb());
  app.info("soak: " + std::to_string(frames) + " frames, seed " + std::to_string(seed));
  return true;
}

void soak_frame_begin(Soak& k, AppState& app) {
  if (!k.active) return;
  if (k.left <= 0) {
    std::vector<int> links = link_objectives(app);
    if (links.empty() || k.home.size() != app.objectives.size()) {
      k.active = false;
      app.error("soak: the objectives changed; stopped");
      return;
    }
    pick_action(k, app, links);
  }
  if (k.objective >= 0) drag_step(k, app);
  --k.left;
}

void soak_frame_end(Soak& k, AppState& app) {
  if (!k.active) return;
  // NaN anywhere in the configuration, the poses, the targets, the errors or the cost
  bool nan = false;
  for (double v : app.joint_q) nan = nan || !std::isfinite(v);
  for (const Transform<double>& x : app.fk.body_q) nan = nan || !finite(x);
  for (const WorkbenchObjective& o : app.objectives)
    nan = nan || !finite(o.target) || !std::isfinite(o.status.position_error) ||
          !std::isfinite(o.status.rotation_error);
  // (no cost while the solver is paused: a timeline playing, a branch edit)
  nan = nan || (!app.solver_paused() && !std::isfinite(app.solve.cost));
  if (nan) ++k.nan_frames;

  // drift: a reached objective whose target has not moved since must stay reached
  if (k.locked.size() == app.objectives.size() && k.last_target.size() == app.objectives.size()) {
    for (std::size_t i = 0; i < app.objectives.size(); ++i) {
      const WorkbenchObjective& o = app.objectives[i];
      if (!o.has_target()) continue;
      bool moved = !same(o.target, k.last_target[i]) || int(i) == k.objective;
      k.last_target[i] = o.target;
      if (moved) {
        k.locked[i] = 0;
      } else if (k.locked[i]) {
        k.max_locked_error = std::max(k.max_locked_error, o.status.position_error);
        if (!o.status.reached) {
          ++k.drift_events;
          k.locked[i] = 0;
        }
      } else if (o.status.reached) {
        k.locked[i] = 1;
      }
    }
  }

  // memory, and the report at the end
  ++k.done;
  if (k.done % k.rss_every == 0) k.rss_kb.push_back(resident_set_kb());
  if (k.done < k.frames) return;
  k.active = false;
  k.seconds = seconds_since_start() - k.started_at;
  if (k.rss_kb.empty() || k.done % k.rss_every) k.rss_kb.push_back(resident_set_kb());
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "soak done: %d frames in %.1f s, %d NaN frames, %d drift events, RSS %ld -> %ld kB",
                k.done, k.seconds, k.nan_frames, k.drift_events, k.rss_kb.front(), k.rss_kb.back());
  app.info(buf);
}

void add_soak_dump(const Soak& k, nlohmann::json& d) {
  if (k.frames <= 0) return;
  d["soak"] = {{"frames", k.done},
               {"requested", k.frames},
               {"seed", k.seed},
               {"running", k.active},
               {"seconds", k.seconds},
               {"nan_frames", k.nan_frames},
               {"drift_events", k.drift_events},
               {"max_locked_error", k.max_locked_error},
               {"drags", k.drags},
               {"weight_changes", k.weight_changes},
               {"rss_every", k.rss_every},
               {"rss_kb", k.rss_kb}};
}

long resident_set_kb() {
  std::ifstream in("/proc/self/statm");
  long size = 0, resident = 0;
  if (!(in >> size >> resident)) return -1;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

void crash_now() {
  std::fflush(nullptr);
  std::_Exit(3);
}

}  // namespace ikwb::gui
