// Stored configurations and imported targets; CSV through app/cli/csv.hpp (see
// stored_configs.hpp).
#include "app/gui/stored_configs.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include "app/cli/csv.hpp"
#include "app/gui/script_args.hpp"
#include "app/gui/session.hpp"
#include "app/gui/visuals.hpp"

namespace ikwb::gui {

namespace {

using nlohmann::json;

void write_csv(const std::string& path, const std::vector<std::string>& names,
               const std::vector<StoredConfig>& list) {
  CsvWriter out(path);
  out.row(names);
  for (const StoredConfig& c : list) {
    for (double v : c.q) out.field(v);
    out.end_row();
  }
  out.close();
}

void write_json(const std::string& path, const std::string& robot,
                const std::vector<std::string>& names, const std::vector<StoredConfig>& list) {
  json j = {{"format", "ikwb-configurations"},
            {"version", 1},
            {"robot", robot},
            {"columns", names},
            {"configurations", json::array()}};
  for (const StoredConfig& c : list) j["configurations"].push_back({{"name", c.name}, {"q", c.q}});
  write_file_atomic(path, j.dump(2) + "\n");
}

// one line of a target list: "" and the target, else what is wrong with it
std::string parse_target(const std::vector<std::string>& fields, Transform<double>* t) {
  std::vector<double> v(fields.size());
  for (std::size_t k = 0; k < fields.size(); ++k)
    if (!plain_number(fields[k], &v[k]))
      return "column " + std::to_string(k + 1) + " " + not_a_number(fields[k]) +
             " (expected x,y,z[,qx,qy,qz,qw] numbers, comma-separated)";
  if (v.size() != 3 && v.size() != 7)
    return "expected 3 or 7 values (x,y,z[,qx,qy,qz,qw]), got " + std::to_string(v.size());
  // the command line's rules for T.csv: positions within 1e6 m, unit quaternions (to 1e-3)
  for (int k = 0; k < 3; ++k)
    if (!(std::fabs(v[k]) <= kMaxLength)) return "a position beyond 1e6 m";
  *t = transform_identity<double>();
  t->p = {v[0], v[1], v[2]};
  // no orientation: a zero quaternion keeps the objective's
  t->q = Quat<double>{0, 0, 0, 0};
  if (v.size() == 7) {
    Quat<double> q{v[3], v[4], v[5], v[6]};
    if (!(std::fabs(quat_norm(q) - 1.0) <= 1e-3))
      return "the quaternion is not unit (norm " + std::to_string(quat_norm(q)) + ")";
    t->q = normalize(q);
  }
  return "";
}

// (FK brought up to the configuration first: set_configuration leaves it for the next read)
void set_link_targets_to_links(AppState& app) {
  app.ensure_fk();
  for (std::size_t i = 0; i < app.objectives.size(); ++i)
    if (app.objectives[i].has_target()) app.objectives[i].target = app.link_point_pose(int(i));
}

}  // namespace

// ---- stored configurations --------------------------------------------------------------------

bool stored_fits(const AppState& app, const StoredConfig& c) {
  return app.model && int(c.q.size()) == app.model->coord_count &&
         c.columns == coord_names(*app.model);
}

bool store_configuration(Ui& ui) {
  AppState& app = ui.app;
  if (!app.model || !ui.session) return false;
  Session& s = *ui.session;
  // K again with the robot where the last store left it stores nothing (a review pressed K
  // twice and exported the pose twice); the same pose after others is a sequence's, and kept
  if (!s.stored.empty() && s.stored.back().q == app.joint_q &&
      s.stored.back().columns == coord_names(*app.model)) {
    s.stored_selected = int(s.stored.size()) - 1;
    app.info("not stored again: the robot has not moved since '" + s.stored.back().name +
             "' was stored");
    return true;
  }
  // one more than the highest "config N" (after a delete, the count named a second "config 3")
  int n = 1;
  for (const StoredConfig& c : s.stored)
    if (c.name.rfind("config ", 0) == 0) n = std::max(n, 1 + std::atoi(c.name.c_str() + 7));
  s.stored.push_back({"config " + std::to_string(n), app.joint_q, coord_names(*app.model)});
  ++s.stored_serial;
  s.stored_selected = int(s.stored.size()) - 1;
  if (!ui.script_mode) s.show_stored = true;
  app.info("stored configuration " + std::to_string(n) + " (" + std::to_string(s.stored.size()) +
           " stored)");
  // a configuration that misses a target is kept, and says so (a best effort, a drag not yet
  // caught up)
  std::string missed;
  for (const WorkbenchObjective& o : app.objectives)
    if (o.enabled() && o.status.pursued && !o.status.reached)
      missed += (missed.empty() ? "'" : ", '") + o.name() + "' by " + miss_text(o);
  if (!missed.empty()) app.warn("stored configuration " + std::to_string(n) + " misses " + missed);
  return true;
}

namespace {

// index names a stored configuration; else an error that says how many there are
bool stored_index(Ui& ui, int index) {
  const int count = ui.session ? int(ui.session->stored.size()) : 0;
  if (index >= 0 && index < count) return true;
  ui.app.error("no stored configuration " + std::to_string(index) + " (" + std::to_string(count) +
               " stored, numbered from 0)");
  return false;
}

}  // namespace

bool delete_stored(Ui& ui, int index) {
  if (!stored_index(ui, index)) return false;
  Session& s = *ui.session;
  ui.app.info("deleted " + s.stored[index].name + " (Ctrl+Z brings it back)");
  s.stored.erase(s.stored.begin() + index);
  ++s.stored_serial;
  s.stored_selected = std::min(s.stored_selected, int(s.stored.size()) - 1);
  return true;
}

bool restore_stored(Ui& ui, int index) {
  AppState& app = ui.app;
  if (!stored_index(ui, index)) return false;
  const StoredConfig& c = ui.session->stored[index];
  if (!stored_fits(app, c)) {
    app.error(c.name + " was stored on another robot (" + std::to_string(c.q.size()) +
              " joint values); open that robot to restore it");
    return false;
  }
  app.set_configuration(c.q);
  set_link_targets_to_links(app);
  app.note_edit("restore configuration");
  return true;
}

bool export_configs(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  if (!app.model || !ui.session || ui.session->stored.empty()) {
    // K adds a timeline key while the Timeline is shown
    app.error(std::string("no stored configurations to export: ") +
              (app.timeline.show_panel
                   ? "Edit > Store configuration stores the current one (K adds a timeline key "
                     "while the Timeline is shown)"
                   : "press K to store the current one"));
    return false;
  }
  std::vector<StoredConfig> list;
  for (const StoredConfig& c : ui.session->stored)
    if (stored_fits(app, c)) list.push_back(c);
  const std::size_t left_out = ui.session->stored.size() - list.size();
  const std::string others = std::to_string(left_out) + " configurations stored on another robot";
  if (list.empty()) {
    app.error("nothing exported: all " + others);
    return false;
  }
  try {
    if (names_json_output(path))
      write_json(path, app.robot_path, coord_names(*app.model), list);
    else
      write_csv(path, coord_names(*app.model), list);
  } catch (const std::exception& e) {
    app.error(std::string("configurations not exported: ") + e.what());
    return false;
  }
  app.info("exported " + std::to_string(list.size()) + " configurations to " + path);
  if (left_out > 0) app.warn(path + ": left out " + others);
  return true;
}

void add_stored_to_scene(const Ui& ui, Scene& scene) {
  if (!ui.session) return;
  json list = json::array();
  for (const StoredConfig& sc : ui.session->stored) {
    json e = {{"name", sc.name}, {"q", sc.q}};
    if (!stored_fits(ui.app, sc)) e["coord_names"] = sc.columns;
    list.push_back(e);
  }
  if (!list.empty()) scene.extra["stored_configs"] = list;
  if (ui.app.model) scene.extra["coord_names"] = coord_names(*ui.app.model);
}

namespace {

// c's values moved into the order of `columns` when both name the same coordinates (a robot
// file whose joints were reordered); false, c unchanged, when they do not
bool reorder_by_name(StoredConfig* c, const std::vector<std::string>& columns) {
  if (c->columns.size() != columns.size()) return false;
  std::map<std::string, double> value;
  for (std::size_t k = 0; k < c->columns.size(); ++k) value[c->columns[k]] = c->q[k];
  if (value.size() != columns.size()) return false;  // a name twice
  std::vector<double> q;
  for (const std::string& name : columns) {
    auto at = value.find(name);
    if (at == value.end()) return false;
    q.push_back(at->second);
  }
  c->q = std::move(q);
  c->columns = columns;
  return true;
}

}  // namespace

void load_stored_from_scene(Ui& ui, const Scene& scene, const std::string& file) {
  AppState& app = ui.app;
  Session& s = *ui.session;
  s.stored.clear();
  ++s.stored_serial;
  s.stored_selected = -1;
  const json& list = scene.extra.value("stored_configs", json::array());
  if (!list.is_array()) {
    app.warn(file +
             ": extra.stored_configs: expected an array of {\"name\", \"q\"}; none restored");
    return;
  }
  auto names = [](const json& v) {
    return v.is_array() &&
           std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); });
  };
  // the coordinates of the robot the scene was saved with (its joints may have moved in the
  // file since: the values follow their names, not their places)
  const std::vector<std::string> here =
      app.model ? coord_names(*app.model) : std::vector<std::string>();
  const json& saved_names = scene.extra.value("coord_names", json());
  const std::vector<std::string> saved =
      names(saved_names) ? saved_names.get<std::vector<std::string>>() : here;
  int reordered = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    try {
      // the shape first: the JSON library's own messages name no key
      auto numbers = [](const json& v) {
        return v.is_array() &&
               std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number(); });
      };
      if (!e.is_object() || !e.contains("q") || !numbers(e["q"]))
        throw std::runtime_error("expected {\"name\": text, \"q\": [numbers]}");
      if (e.contains("name") && !e["name"].is_string())
        throw std::runtime_error("\"name\" is not text");
      if (e.contains("coord_names") && !names(e["coord_names"]))
        throw std::runtime_error("\"coord_names\" is not a list of joint coordinate names");
      StoredConfig c{e.value("name", "config " + std::to_string(i + 1)),
                     e.at("q").get<std::vector<double>>(), saved};
      if (e.contains("coord_names")) c.columns = e["coord_names"].get<std::vector<std::string>>();
      if (c.q.size() != c.columns.size()) throw std::runtime_error("wrong number of values");
      for (double v : c.q)
        if (!std::isfinite(v)) throw std::runtime_error("non-finite value");
      if (c.columns != here && reorder_by_name(&c, here)) ++reordered;
      s.stored.push_back(c);
    } catch (const std::exception& ex) {
      app.warn(file + ": stored configuration " + std::to_string(i) +
               " not restored: " + ex.what());
    }
  }
  if (reordered > 0)
    app.warn(file + ": " + std::to_string(reordered) +
             " stored configurations were saved with the robot's joints in another order; "
             "their values follow the joints' names");
}

// ---- imported targets -------------------------------------------------------------------------

bool import_targets(Ui& ui, const std::string& path) {
  AppState& app = ui.app;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    app.error(path + ": cannot read the target list (" + std::strerror(errno) + ")");
    return false;
  }
  std::vector<Transform<double>> targets;
  std::vector<std::string> bad;
  std::string line;
  bool seen_line = false;  // a line that is not a comment or blank was read
  int n = 0;
  // the command line's reader: line ends of every kind, a byte order mark, and a file that is
  // not text (UTF-16, binary) refused by name (it read "no targets imported")
  for (;;) {
    try {
      if (!next_csv_line(in, line, &n, path)) break;
    } catch (const CsvError& e) {
      app.error(std::string(e.what()) + "; no targets imported");
      return false;
    }
    std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<std::string> fields = split_csv_line(line);
    // the first line that is not a comment or blank, without a number, is a header
    double v;
    bool any_number = false;
    for (const std::string& f : fields) any_number = any_number || plain_number(f, &v);
    const bool header_line = !seen_line;
    seen_line = true;
    if (header_line && !any_number) continue;
    Transform<double> t;
    std::string why = parse_target(fields, &t);
    if (why.empty())
      targets.push_back(t);
    else
      bad.push_back("line " + std::to_string(n) + ": " + why);
  }
  for (std::size_t k = 0; k < bad.size() && k < 20; ++k) app.warn(path + ": " + bad[k]);
  if (bad.size() > 20) app.warn(path + ": " + std::to_string(bad.size() - 20) + " more bad lines");
  if (targets.empty()) {
    app.error(path + ": no targets imported");
    return false;
  }
  if (ui.session) {
    ui.session->imported = targets;
    ui.session->imported_selected = 0;
    if (!ui.script_mode) ui.session->show_stored = true;
  }
  app.info("imported " + std::to_string(targets.size()) + " targets from " + path +
           (bad.empty() ? "" : " (" + std::to_string(bad.size()) + " bad lines skipped)"));
  return true;
}

bool apply_imported(Ui& ui, int index, int objective) {
  AppState& app = ui.app;
  if (!ui.session || index < 0 || index >= int(ui.session->imported.size())) {
    app.error("no imported target " + std::to_string(index));
    return false;
  }
  if (objective >= int(app.objectives.size())) {
    app.error("no objective " + std::to_string(objective) + " (there are " +
              std::to_string(app.objectives.size()) + ")");
    return false;
  }
  if (objective < 0) objective = app.selection.objective;
  if (objective < 0 || objective >= int(app.objectives.size()) ||
      !app.objectives[objective].has_target()) {
    app.error("select a position, rotation or pose objective to apply the target to");
    return false;
  }
  Transform<double> t = ui.session->imported[index];
  if (t.q.w == 0 && t.q.x == 0 && t.q.y == 0 && t.q.z == 0)
    t.q = app.objectives[objective].target.q;
  app.set_target(objective, t);
  ui.session->imported_selected = index;
  app.note_edit("apply imported target");
  return true;
}

}  // namespace ikwb::gui
