// Keyframes, playback and trajectory files in the workbench (see timeline_edit.hpp).
#include "app/gui/timeline_edit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/cli/trajectory_io.hpp"
#include "engine/core/row_kinematics.hpp"

namespace ikwb::gui {

namespace {

std::vector<PlacedObjective> placed_objectives(const AppState& app) {
  std::vector<PlacedObjective> out;
  for (const WorkbenchObjective& o : app.objectives) out.push_back({o.spec, o.target});
  return out;
}

// the timeline of the loaded robot: keys and motions of a robot replaced since (opened without a
// scene) are dropped
TimelineState& timeline_of(AppState& app) {
  TimelineState& t = app.timeline;
  if (t.model_version == app.model_version) return t;
  if (!t.timeline.keys.empty() || !t.motion_path.empty())
    app.info("timeline cleared: another robot was opened");
  TimelineState fresh;
  fresh.show_panel = t.show_panel;
  fresh.show_ghosts = t.show_ghosts;
  fresh.export_rate = t.export_rate;
  fresh.serial = t.serial + 1;
  fresh.seen_edit = app.edit_serial;
  fresh.model_version = app.model_version;
  t = std::move(fresh);
  return t;
}

// a time or a rate in messages: 1.5, not 1.500000
std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool key_index_ok(AppState& app, int index) {
  timeline_of(app);
  if (index >= 0 && index < int(app.timeline.timeline.keys.size())) return true;
  app.error("no timeline key " + std::to_string(index) + " (" +
            std::to_string(app.timeline.timeline.keys.size()) + " keys)");
  return false;
}

void changed(AppState& app, const std::string& what) {
  ++app.timeline.serial;
  app.note_edit(what);
  app.timeline.seen_edit = app.edit_serial;  // not an edit of the selected key's pose
}

// keys made before objectives were added or removed: targets where they are met at each key
void fit_key_targets(AppState& app) {
  const std::vector<PlacedObjective> placed = placed_objectives(app);
  for (Keyframe& k : app.timeline.timeline.keys)
    if (k.targets.size() != placed.size()) targets_at_key(*app.model, placed, k);
}

const Trajectory* playing_trajectory(AppState& app) {
  if (!app.timeline.motion_path.empty()) return &app.timeline.motion;
  return timeline_trajectory(app);
}

// Edits made since the last look (objectives, weights, settings: they may change a task-space
// segment): the trajectory is rendered again when next needed, and a selected key takes the
// pose. True when there were some.
bool take_edits(AppState& app) {
  TimelineState& t = app.timeline;
  if (app.edit_serial == t.seen_edit) return false;
  t.seen_edit = app.edit_serial;
  ++t.serial;
  if (t.selected >= 0) t.key_pending = true;
  return true;
}

// the robot (and, on the timeline, the targets) at the playhead
void apply_playhead(AppState& app) {
  TimelineState& t = app.timeline;
  const Trajectory* tr = playing_trajectory(app);
  if (!tr || tr->sample_count() == 0) return;
  std::vector<double> q;
  trajectory_at(*app.model, *tr, t.playhead, q);
  app.set_configuration(q);
  ++t.poses_applied;
  if (!t.motion_path.empty()) return;
  fit_key_targets(app);
  for (int i = 0; i < int(app.objectives.size()); ++i)
    if (app.objectives[i].has_target()) app.set_target(i, sample_target(t.timeline, i, t.playhead));
}

}  // namespace

// ---- keys ---------------------------------------------------------------------------------------

namespace {

std::string key_count(const Timeline& tl) {
  return std::to_string(tl.keys.size()) + (tl.keys.size() == 1 ? " key" : " keys");
}

// the current configuration and targets as a key at `time`
Keyframe current_pose(const AppState& app, double time) {
  Keyframe key;
  key.time = time;
  key.q = app.joint_q;
  for (const WorkbenchObjective& o : app.objectives) key.targets.push_back(o.target);
  return key;
}

// the same configuration and targets, up to rounding (a scrub onto a key blends its targets with
// weight 0). The configurations are compared through difference_row: a continuous joint a whole
// turn off (a key stored at 4 rad, the robot's answer back at 4 - 2 pi) is the same pose.
bool same_pose(const Model& m, const Keyframe& a, const Keyframe& b) {
  constexpr double kSame = 1e-9;  // rad, m, quaternion components
  auto close = [](const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!(std::fabs(x[i] - y[i]) <= kSame)) return false;
    return true;
  };
  if (int(a.q.size()) != m.coord_count || int(b.q.size()) != m.coord_count) return false;
  std::vector<double> d(std::size_t(m.dof_count));
  difference_row(m.view(), a.q.data(), b.q.data(), d.data());
  for (double v : d)
    if (!(std::fabs(v) <= kSame)) return false;
  if (a.targets.size() != b.targets.size()) return false;
  for (std::size_t i = 0; i < a.targets.size(); ++i) {
    const Transform<double>&ta = a.targets[i], &tb = b.targets[i];
    if (!close({ta.p.x, ta.p.y, ta.p.z, ta.q.x, ta.q.y, ta.q.z, ta.q.w},
               {tb.p.x, tb.p.y, tb.p.z, tb.q.x, tb.q.y, tb.q.z, tb.q.w}))
      return false;
  }
  return true;
}

// The interpolation of a key that splits no segment (the first, one after the last): task space
// where an enabled hard objective holds a link to a target (pinned feet), which a blend of joint
// values lets slide between the keys (a review's humanoid slid a foot 41 mm, flagged only on
// play or export), else joint space
Interpolation new_segment_interpolation(const AppState& app) {
  for (const WorkbenchObjective& o : app.objectives)
    if (o.enabled() && o.spec.params.hard && o.link() >= 0 && o.has_target_position())
      return Interpolation::kTask;
  return Interpolation::kJoint;
}

// add_key's work; `note` ends its message
int put_key(AppState& app, double time, const std::string& note) {
  TimelineState& t = timeline_of(app);
  fit_key_targets(app);
  Keyframe key = current_pose(app, time);
  // a replaced key keeps its segment's interpolation, a new one takes the one it splits, else
  // new_segment_interpolation's
  const int existing = t.timeline.key_at(time);
  const bool replacing = existing >= 0;
  const int seg = replacing ? existing : t.timeline.segment_at(time);
  key.interpolation =
      seg >= 0 ? t.timeline.keys[seg].interpolation : new_segment_interpolation(app);
  const int index = t.timeline.insert(std::move(key));
  // shifted by a new key: edits no longer go to the selected one (a replaced one keeps them)
  if (!replacing && t.selected >= index) t.selected = -1;
  t.playhead = time;
  t.hold = false;
  changed(app, replacing ? "replace key" : "add key");
  app.info(std::string(replacing ? "replaced key " : "key ") + std::to_string(index) + " at " +
           short_number(time) + " s (" + key_count(t.timeline) + ")" + note);
  return index;
}

}  // namespace

int add_key(AppState& app, double time) {
  if (!app.model) {
    app.error("add key: open a robot first");
    return -1;
  }
  if (!(time >= 0 && time <= kMaxKeyTime)) {
    app.error("add key: the time must be a number in [0, 1e6] (seconds)");
    return -1;
  }
  return put_key(app, time, "");
}

int add_key_at_playhead(AppState& app) {
  if (!app.model) {
    app.error("add key: open a robot first");
    return -1;
  }
  TimelineState& t = timeline_of(app);
  const int here = t.timeline.key_at(t.playhead);
  if (here < 0 || here == t.selected) return add_key(app, t.playhead);
  fit_key_targets(app);
  const Keyframe& key = t.timeline.keys[here];
  const std::string which = "key " + std::to_string(here) + " (" + short_number(key.time) + " s)";
  if (same_pose(*app.model, key, current_pose(app, key.time))) {
    app.info(which + " already holds this pose: pose the robot, then K adds the next key");
    return here;
  }
  return put_key(app, t.timeline.end() + kKeySpacing,
                 ", after the last key: the playhead was on " + which +
                     ", which keeps its pose (to change a key, select it)");
}

bool delete_key(AppState& app, int index) {
  if (!key_index_ok(app, index)) return false;
  TimelineState& t = timeline_of(app);
  t.timeline.keys.erase(t.timeline.keys.begin() + index);
  if (t.selected == index) t.selected = -1;
  if (t.selected > index) --t.selected;
  if (t.timeline.keys.empty() && t.motion_path.empty()) {
    // nothing left to play or hold at: the live solve takes the robot again
    t.playing = false;
    t.hold = false;
  }
  changed(app, "delete key");
  return true;
}

bool select_key(AppState& app, int index) {
  TimelineState& t = timeline_of(app);
  if (index < 0) {
    t.selected = -1;
    return true;
  }
  if (!key_index_ok(app, index)) return false;
  fit_key_targets(app);
  const Keyframe& k = t.timeline.keys[index];
  t.selected = index;
  t.playing = false;
  t.hold = false;
  t.key_pending = false;
  t.playhead = k.time;
  t.seen_edit = app.edit_serial;
  app.set_configuration(k.q);
  for (int i = 0; i < int(app.objectives.size()); ++i) app.set_target(i, k.targets[i]);
  ++t.poses_applied;
  return true;
}

bool retime_key(AppState& app, int index, double time) {
  if (!key_index_ok(app, index)) return false;
  TimelineState& t = timeline_of(app);
  if (!(time >= 0 && time <= kMaxKeyTime)) {
    app.error("retime key: the time must be a number in [0, 1e6] (seconds)");
    return false;
  }
  const int moved = t.timeline.retime(index, time);
  if (moved < 0) {
    app.error("retime key: another key is at " + short_number(time) + " s");
    return false;
  }
  // the selection follows its key: the retimed one moved to `moved`, the keys between shift by one
  if (t.selected == index)
    t.selected = moved;
  else if (t.selected > index && t.selected <= moved)
    --t.selected;
  else if (t.selected >= moved && t.selected < index)
    ++t.selected;
  changed(app, "retime key");
  return true;
}

bool set_interpolation(AppState& app, int index, Interpolation mode) {
  TimelineState& t = timeline_of(app);
  if (index >= 0 && !key_index_ok(app, index)) return false;
  for (int i = 0; i < int(t.timeline.keys.size()); ++i)
    if (index < 0 || i == index) t.timeline.keys[i].interpolation = mode;
  changed(app, std::string("interpolation ") + to_string(mode));
  return true;
}

// ---- playback -----------------------------------------------------------------------------------

double play_start(const AppState& app) {
  const TimelineState& t = app.timeline;
  if (!t.motion_path.empty()) return t.motion.times.front();
  return t.timeline.start();
}

double play_end(const AppState& app) {
  const TimelineState& t = app.timeline;
  if (!t.motion_path.empty()) return t.motion.times.back();
  return t.timeline.end();
}

bool play(AppState& app, bool on) {
  TimelineState& t = timeline_of(app);
  take_edits(app);
  if (on && !playing_trajectory(app)) {
    app.error("play: " + t.render_error);
    return false;
  }
  // one key (or a motion of one sample): nothing would move, and playback would end at once
  if (on && !(play_end(app) > play_start(app))) {
    if (t.motion_path.empty())
      app.error("play: the timeline has one key (at " + short_number(t.timeline.start()) +
                " s), so nothing moves: pose the robot and press K for a second key");
    else
      app.error("play: the motion " + t.motion_path + " has one sample, so nothing moves");
    return false;
  }
  t.playing = on;
  if (!on) return true;
  if (t.playhead >= play_end(app) || t.playhead < play_start(app)) t.playhead = play_start(app);
  t.selected = -1;
  t.hold = true;
  t.apply_pending = true;
  return true;
}

bool scrub(AppState& app, double time) {
  TimelineState& t = timeline_of(app);
  if (!std::isfinite(time)) {
    app.error("scrub: the time must be a number (seconds)");
    return false;
  }
  take_edits(app);
  if (!playing_trajectory(app)) {
    app.error("scrub: " + t.render_error);
    return false;
  }
  t.playhead = std::min(std::max(time, play_start(app)), play_end(app));
  t.selected = -1;
  t.hold = true;
  t.apply_pending = true;
  return true;
}

bool timeline_advance(AppState& app, double dt) {
  TimelineState& t = timeline_of(app);
  if (!app.model || !t.playing || !t.hold) return false;
  take_edits(app);  // an edit since the last frame: the trajectory is rendered again first
  // a stalled frame does not jump the playhead
  t.playhead += std::min(dt, 0.1) * t.speed;
  const double a = play_start(app), b = play_end(app);
  if (t.playhead >= b) {
    if (t.loop && b > a) {
      t.playhead = a + std::fmod(t.playhead - a, b - a);
    } else {
      t.playhead = b;
      t.playing = false;
    }
  }
  apply_playhead(app);
  return true;
}

void timeline_frame(AppState& app, bool user_moving) {
  TimelineState& t = timeline_of(app);
  if (!app.model) return;
  // a gizmo drag or a joint edit takes the robot back from the playhead
  if (user_moving) {
    t.playing = false;
    t.hold = false;
  }
  // an edit with a key selected: the key takes the pose once the robot has settled (checked
  // from the frame after the edit on, when the solver has seen it)
  if (t.key_pending && t.selected >= 0 && t.selected < int(t.timeline.keys.size()) &&
      !user_moving && (app.solve.settled || !app.live_solve)) {
    Keyframe& k = t.timeline.keys[t.selected];
    k.q = app.joint_q;
    k.targets.clear();
    for (const WorkbenchObjective& o : app.objectives) k.targets.push_back(o.target);
    t.key_pending = false;
    ++t.serial;
    ++t.keys_settled;
  }
  // an edit since the playhead last took the robot gives it back
  if (take_edits(app)) t.hold = t.hold && t.playing;
  if (t.apply_pending && t.hold) apply_playhead(app);
  t.apply_pending = false;
}

// ---- rendering and files ------------------------------------------------------------------------

namespace {

// the timeline rendered at `rate` Hz with the workbench's live limits, locks, collision world and
// settings into `out`; false, and `error` says why, when it cannot be
bool render_at(AppState& app, double rate, Trajectory& out, std::string& error) {
  TimelineState& t = app.timeline;
  if (!app.model || t.timeline.keys.empty()) {
    error = "the timeline has no keys (Timeline > Add key, or K with the panel open)";
    return false;
  }
  fit_key_targets(app);
  try {
    auto solver = make_cpu_solver();
    SceneSetup world;  // the workbench's live limits, locks and collision world
    world.dof_lower = app.dof_lower;
    world.dof_upper = app.dof_upper;
    world.locked_joints = app.locked_joints;
    world.collision = app.collision_world();
    out = render_timeline(app.model, placed_objectives(app), t.timeline, rate, app.settings,
                          *solver, &world);
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
  return true;
}

// each flagged segment's lines (what and what to do) as warnings
void warn_flagged(AppState& app, const Trajectory& tr) {
  for (const SegmentReport& s : tr.segments)
    for (const std::string& line : describe_segment(s)) app.warn(line);
}

// the rendered timeline at render_rate, rendered again when the keys or edits changed it;
// `say_flags`: a new render warns its flagged segments
const Trajectory* rendered(AppState& app, bool say_flags) {
  TimelineState& t = timeline_of(app);
  if (t.rendered_serial == t.serial) return t.render_error.empty() ? &t.trajectory : nullptr;
  t.rendered_serial = t.serial;
  t.render_error.clear();
  if (!render_at(app, t.render_rate, t.trajectory, t.render_error)) return nullptr;
  if (say_flags) warn_flagged(app, t.trajectory);
  return &t.trajectory;
}

}  // namespace

const Trajectory* timeline_trajectory(AppState& app) {
  return rendered(app, true);
}

bool export_trajectory(AppState& app, const std::string& path, double rate, bool fixed_step) {
  TimelineState& t = timeline_of(app);
  if (!(rate > 0) || rate > 1e6) {
    app.error("export trajectory: the rate must be a number of samples per second in (0, 1e6]");
    return false;
  }
  // the file's rate only: playback and scrubbing keep theirs (render_rate)
  t.export_rate = rate;
  t.export_fixed_step = fixed_step;
  Trajectory at_rate;
  const Trajectory* tr = nullptr;
  if (rate == t.render_rate) {
    tr = rendered(app, false);
    if (!tr) {
      app.error("trajectory not exported: " + t.render_error);
      return false;
    }
  } else {
    std::string error;
    if (!render_at(app, rate, at_rate, error)) {
      app.error("trajectory not exported: " + error);
      return false;
    }
    tr = &at_rate;
  }
  Trajectory fixed;
  try {
    if (fixed_step) {
      fixed = on_fixed_step(*tr, rate);
      tr = &fixed;
    }
    write_trajectory(path, *app.model, app.robot_path, rate, *tr);
  } catch (const std::exception& e) {
    app.error(std::string("trajectory not exported: ") + e.what());
    return false;
  }
  // with a motion imported, what plays is not what is written: said (a review exported while
  // the motion played and got the keys, 1.57 rad from what it watched)
  const std::string source =
      t.motion_path.empty()
          ? ""
          : " (the timeline's keys, not the imported motion " + t.motion_path + " that plays)";
  const std::string exported = "exported " + std::to_string(tr->sample_count()) + " samples at " +
                               short_number(rate) + " Hz" + (fixed_step ? " (fixed step)" : "") +
                               " to " + path + source;
  const std::string flagged = flagged_summary(*tr);
  if (flagged.empty()) {
    app.info(exported);
    return true;
  }
  // the file holds the motion as rendered, jumps and misses included: said, with the reasons
  app.warn(exported + "; " + flagged + ", why below");
  warn_flagged(app, *tr);
  return true;
}

namespace {

// one warning per 1-dof joint the motion takes beyond its limits (playback clamps it there)
void warn_beyond_limits(AppState& app, const std::string& path, const Motion& motion) {
  const Model& m = *app.model;
  for (int j = 0; j < m.joint_count; ++j) {
    // one coordinate of its own (a mimic joint has none: it follows its source)
    if (m.joint_q_start[j + 1] - m.joint_q_start[j] != 1) continue;
    const int nq = m.coord_count, qi = m.joint_q_start[j];
    for (std::size_t s = 0; s < motion.times.size(); ++s) {
      const std::string beyond = app.beyond_limit(j, 0, motion.q[s * nq + qi]);
      if (beyond.empty()) continue;
      app.warn(path + ": sample " + std::to_string(s + 1) + ": " + beyond + " when played");
      break;
    }
  }
}

}  // namespace

bool import_motion(AppState& app, const std::string& path) {
  if (!app.model) {
    app.error("import motion: open a robot first");
    return false;
  }
  Motion motion;
  try {
    motion = read_trajectory_csv(path, *app.model);
  } catch (const std::exception& e) {
    app.error(std::string("motion not imported: ") + e.what());
    return false;
  }
  // the times a timeline's keys may take: a playhead at 1e308 s or -5 s had no axis to show it
  if (!(motion.times.front() >= 0 && motion.times.back() <= kMaxKeyTime)) {
    app.error("motion not imported: " + path + ": its times run from " +
              short_number(motion.times.front()) + " to " + short_number(motion.times.back()) +
              " s; a motion's times are in [0, 1e6] s, as a timeline key's");
    return false;
  }
  warn_beyond_limits(app, path, motion);
  TimelineState& t = timeline_of(app);
  t.motion = Trajectory{};
  t.motion.coord_count = app.model->coord_count;
  t.motion.times = motion.times;
  t.motion.q = motion.q;
  t.motion.converged.assign(motion.times.size(), 1);
  t.motion_path = path;
  t.playing = false;
  t.selected = -1;
  t.playhead = motion.times.front();
  t.show_panel = true;
  app.info("imported a motion of " + std::to_string(motion.times.size()) + " samples (" +
           short_number(motion.times.back() - motion.times.front()) + " s) from " + path);
  return true;
}

void clear_motion(AppState& app) {
  TimelineState& t = timeline_of(app);
  t.motion_path.clear();
  t.motion = Trajectory{};
  t.playing = false;
  t.hold = false;
}

// ---- scenes and the state dump ------------------------------------------------------------------

SceneTimeline timeline_for_scene(const AppState& app) {
  // keys of a robot replaced since are not this robot's
  if (!app.model || app.timeline.model_version != app.model_version) return {};
  return timeline_to_scene(*app.model, app.timeline.timeline, placed_objectives(app));
}

void timeline_from_scene(AppState& app, const Scene& scene, const SceneSetup& setup, bool quiet) {
  TimelineState& t = app.timeline;
  std::vector<std::string> warnings;
  t.timeline = timeline_on_model(*app.model, scene, setup, warnings);
  app.scene_left_out += int(warnings.size());  // values ignored or moved into the limits
  t.model_version = app.model_version;
  if (!quiet)
    for (const std::string& w : warnings) app.warn(w);
  t.selected = -1;
  t.playing = false;
  t.hold = false;
  t.key_pending = false;
  t.motion_path.clear();
  t.playhead = std::min(std::max(t.playhead, t.timeline.start()), t.timeline.end());
  if (!t.timeline.keys.empty()) t.show_panel = true;
  // playback settings (a scene's "extra"; a looping kiosk timeline comes back looping)
  // a value that is not one is said, not silently replaced
  const nlohmann::json& loop = scene.extra.value("timeline_loop", nlohmann::json(false));
  t.loop = loop.is_boolean() && loop.get<bool>();
  if (!loop.is_boolean())
    app.warn("extra.timeline_loop: expected true or false, got " + loop.dump() + "; not looping");
  const nlohmann::json& speed = scene.extra.value("timeline_speed", nlohmann::json(1.0));
  const double wanted = speed.is_number() ? speed.get<double>() : 1.0;
  t.speed = std::clamp(std::isfinite(wanted) ? wanted : 1.0, 0.05, 1.0);
  if (!speed.is_number() || t.speed != wanted)
    app.warn("extra.timeline_speed: expected a number in [0.05, 1], got " + speed.dump() +
             "; playing at " + short_number(t.speed));
  ++t.serial;
}

nlohmann::json timeline_dump(const AppState& app) {
  using nlohmann::json;
  const TimelineState& t = app.timeline;
  json keys = json::array();
  for (const Keyframe& k : t.timeline.keys)
    keys.push_back({{"time", k.time}, {"q", k.q}, {"interpolation", to_string(k.interpolation)}});
  json flagged = json::array();
  const bool rendered = t.rendered_serial == t.serial && t.render_error.empty();
  if (rendered)
    for (const SegmentReport& s : t.trajectory.segments)
      if (s.flagged()) flagged.push_back(segment_to_json(s));
  return {{"keys", keys},
          {"playhead", t.playhead},
          {"playing", t.playing},
          {"loop", t.loop},
          {"speed", t.speed},
          {"selected", t.selected},
          {"holding", t.hold},
          {"rendered", rendered},
          {"samples", rendered ? json(t.trajectory.sample_count()) : json(nullptr)},
          {"flagged_segments", flagged},
          {"motion", t.motion_path.empty() ? json(nullptr) : json(t.motion_path)}};
}

}  // namespace ikwb::gui
