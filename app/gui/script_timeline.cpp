// The script's timeline commands (README "Automation scripts", docs/timeline.md): keys,
// interpolation, playback and trajectory files, through the same functions as the Timeline
// panel. Registered beside the main table (script_commands.cpp).
#include "app/gui/script_args.hpp"
#include "app/gui/script_commands.hpp"
#include "app/gui/timeline_edit.hpp"

namespace ikwb::gui {

namespace {

using Args = std::vector<std::string>;
using Turn = ScriptRunner::Turn;

std::string need(bool ok, const std::string& what) {
  return ok ? std::string() : what;
}

bool key_index(const std::string& s, int* out) {
  if (s == "none" || s == "-1") {
    *out = -1;
    return true;
  }
  return index_value(s, out);
}

void succeeded(Turn& t, bool ok, const std::string& what) {
  if (!ok) t.fail(what);
}

std::string check_key_add(const Args& a) {
  double v;
  return need(a.size() < 2 || (plain_number(a[1], &v) && v >= 0),
              "expected: key_add [TIME] (seconds >= 0; left out: as K, at the playhead)");
}

// without a time, as K
bool run_key_add(Turn& t) {
  double time = 0;
  const bool at_time = t.args().size() > 1 && plain_number(t.args()[1], &time);
  succeeded(t, (at_time ? add_key(t.app(), time) : add_key_at_playhead(t.app())) >= 0,
            "key not added");
  return false;
}

std::string check_key_index(const Args& a) {
  int i;
  return need(key_index(a[1], &i), "expected a key index (0, 1, ...; none for key_select)");
}

bool run_key_select(Turn& t) {
  int i = -1;
  key_index(t.args()[1], &i);
  succeeded(t, select_key(t.app(), i), "key not selected");
  return false;
}

bool run_key_delete(Turn& t) {
  int i = -1;
  key_index(t.args()[1], &i);
  succeeded(t, delete_key(t.app(), i), "key not deleted");
  return false;
}

std::string check_key_time(const Args& a) {
  int i;
  double v;
  return need(index_value(a[1], &i) && plain_number(a[2], &v) && v >= 0,
              "expected: key_time INDEX SECONDS");
}

bool run_key_time(Turn& t) {
  int i = 0;
  double v = 0;
  index_value(t.args()[1], &i);
  plain_number(t.args()[2], &v);
  succeeded(t, retime_key(t.app(), i, v), "key not retimed");
  return false;
}

std::string check_interpolation(const Args& a) {
  int i;
  Interpolation m;
  return need((a[1] == "all" || index_value(a[1], &i)) && parse(a[2], &m),
              "expected: interpolation INDEX|all joint|task");
}

bool run_interpolation(Turn& t) {
  int i = -1;
  if (t.args()[1] != "all") index_value(t.args()[1], &i);
  Interpolation m = Interpolation::kJoint;
  parse(t.args()[2], &m);
  succeeded(t, set_interpolation(t.app(), i, m), "interpolation not set");
  return false;
}

std::string check_optional_on_off(const Args& a) {
  bool b;
  return need(a.size() < 2 || on_off(a[1], &b), "expected on or off");
}

bool run_play(Turn& t) {
  bool on = true;
  if (t.args().size() > 1) on_off(t.args()[1], &on);
  succeeded(t, play(t.app(), on), "not playing");
  return false;
}

std::string check_seconds(const Args& a) {
  double v;
  return need(plain_number(a[1], &v), "expected a time in seconds");
}

bool run_scrub(Turn& t) {
  double v = 0;
  plain_number(t.args()[1], &v);
  // the script's checks after it are at that time: playback, which runs in real time, pauses
  t.app().timeline.playing = false;
  succeeded(t, scrub(t.app(), v), "playhead not moved");
  return false;
}

std::string check_on_off(const Args& a) {
  bool b;
  return need(on_off(a[1], &b), "expected on or off");
}

// loop, timeline (the panel) and key_ghosts
bool run_timeline_toggle(Turn& t) {
  bool b = false;
  on_off(t.args()[1], &b);
  TimelineState& s = t.app().timeline;
  const std::string& name = t.args()[0];
  (name == "loop" ? s.loop : name == "timeline" ? s.show_panel : s.show_ghosts) = b;
  return false;
}

std::string check_speed(const Args& a) {
  double v;
  return need(plain_number(a[1], &v) && v >= 0.05 && v <= 1,
              "expected a playback speed from 0.05 to 1 (1 = real time)");
}

bool run_speed(Turn& t) {
  plain_number(t.args()[1], &t.app().timeline.speed);
  return false;
}

// export_trajectory FILE [RATE_HZ] [fixed]: `fixed` as the last word asks for a fixed step
bool export_fixed_step(const Args& a) {
  return a.size() > 2 && a.back() == "fixed";
}

std::string check_export(const Args& a) {
  double v;
  const std::size_t words = a.size() - (export_fixed_step(a) ? 1 : 0);
  return need(words < 3 || (words == 3 && plain_number(a[2], &v) && v > 0),
              "expected: export_trajectory FILE.csv|FILE.json [RATE_HZ] [fixed]");
}

bool run_export_trajectory(Turn& t) {
  double rate = t.app().timeline.export_rate;
  const bool fixed = export_fixed_step(t.args());
  if (t.args().size() > (fixed ? 3u : 2u)) plain_number(t.args()[2], &rate);
  succeeded(t, export_trajectory(t.app(), t.args()[1], rate, fixed), "trajectory not exported");
  return false;
}

bool run_import_motion(Turn& t) {
  succeeded(t, import_motion(t.app(), t.input_path(t.args()[1])), "motion not imported");
  return false;
}

bool run_clear_motion(Turn& t) {
  clear_motion(t.app());
  return false;
}

const ScriptCommandSpec kTimelineCommands[] = {
    {"key_add", 0, 1, check_key_add, run_key_add},
    {"key_select", 1, 1, check_key_index, run_key_select},
    {"key_delete", 1, 1, check_key_index, run_key_delete},
    {"key_time", 2, 2, check_key_time, run_key_time},
    {"interpolation", 2, 2, check_interpolation, run_interpolation},
    {"play", 0, 1, check_optional_on_off, run_play},
    {"scrub", 1, 1, check_seconds, run_scrub},
    {"loop", 1, 1, check_on_off, run_timeline_toggle},
    {"timeline", 1, 1, check_on_off, run_timeline_toggle},
    {"key_ghosts", 1, 1, check_on_off, run_timeline_toggle},
    {"speed", 1, 1, check_speed, run_speed},
    {"export_trajectory", 1, 3, check_export, run_export_trajectory},
    {"import_motion", 1, 1, nullptr, run_import_motion},
    {"clear_motion", 0, 0, nullptr, run_clear_motion},
};

}  // namespace

const ScriptCommandSpec* find_timeline_script_command(const std::string& name) {
  for (const ScriptCommandSpec& c : kTimelineCommands)
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace ikwb::gui
