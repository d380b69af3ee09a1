#include "app/cli/scene_targets.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "app/cli/csv.hpp"
#include "engine/core/spatial.hpp"

namespace ikwb {

namespace {

constexpr const char* kSuffixes[7] = {"x", "y", "z", "qx", "qy", "qz", "qw"};

std::string in_quotes(const std::string& s) {
  return "'" + s + "'";
}

std::vector<std::string> fields_of(const std::string& text) {
  std::vector<std::string> f = split_csv_line(text);
  if (f.size() > 1 && f.back().empty()) f.pop_back();  // a trailing comma
  return f;
}

bool skipped(const std::string& text) {
  std::size_t first = text.find_first_not_of(" \t\r");
  return first == std::string::npos || text[first] == '#';
}

// the header's columns grouped by objective; throws CsvError
std::vector<TargetColumns> parse_header(const std::vector<std::string>& header,
                                        const std::string& where,
                                        const std::vector<PlacedObjective>& objectives) {
  std::map<std::string, std::vector<int>> by_name;  // objectives with a target, by name
  std::map<std::string, int> without_target;
  for (int i = 0; i < int(objectives.size()); ++i) {
    const Objective& o = objectives[i].objective;
    if (o.has_target())
      by_name[o.name].push_back(i);
    else
      without_target[o.name] = i;
  }
  auto fail = [&](int column, const std::string& what) {
    throw CsvError(where + ": column " + std::to_string(column + 1) + " " +
                   quote_field(header[column]) + ": " + what);
  };
  std::vector<TargetColumns> out;
  std::map<int, std::size_t> slot;  // objective -> index in out
  for (int c = 0; c < int(header.size()); ++c) {
    const std::string& cell = header[c];
    double number = 0;
    if (parse_csv_number(cell, &number))
      fail(c, "the first line must be a header naming the columns (NAME.x, NAME.y, ...)");
    std::size_t dot = cell.rfind('.');
    int suffix = -1;
    if (dot != std::string::npos)
      for (int k = 0; k < 7; ++k)
        if (cell.compare(dot + 1, std::string::npos, kSuffixes[k]) == 0) suffix = k;
    if (suffix < 0 || dot == 0)
      fail(c, "expected NAME.x, NAME.y, NAME.z, NAME.qx, NAME.qy, NAME.qz or NAME.qw");
    std::string name = cell.substr(0, dot);
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      auto wt = without_target.find(name);
      if (wt != without_target.end())
        fail(c, "objective " + in_quotes(name) + " has no target" +
                    (objectives[wt->second].objective.params.link_b >= 0 &&
                             objective_kind(objectives[wt->second].objective.params.type)
                                 .has(kFieldTargetLink)
                         ? " (it looks at a point of its link_b)"
                         : ""));
      std::string names;
      for (const auto& [n, idx] : by_name) names += (names.empty() ? "" : ", ") + in_quotes(n);
      fail(c, "no objective with a target is named " + in_quotes(name) +
                  (names.empty() ? "; the scene has none" : "; they are " + names));
    }
    if (it->second.size() > 1)
      fail(c, std::to_string(it->second.size()) + " objectives are named " + in_quotes(name));
    int obj = it->second[0];
    const ObjectiveKind& kind = objective_kind(objectives[obj].objective.params.type);
    bool rot = suffix >= 3;
    if (rot && !kind.target_orientation())
      fail(c, "objective " + in_quotes(name) + " (" + kind.name + ") has no rotation target");
    if (!rot && !kind.target_position())
      fail(c, "objective " + in_quotes(name) + " (" + kind.name + ") has no position target");
    auto [pos, added] = slot.emplace(obj, out.size());
    if (added) {
      out.emplace_back();
      out.back().objective = obj;
    }
    TargetColumns& t = out[pos->second];
    int& col = rot ? t.rotation[suffix - 3] : t.position[suffix];
    if (col >= 0) fail(c, "duplicate of column " + std::to_string(col + 1));
    col = c;
  }
  for (const TargetColumns& t : out) {
    const std::string& name = objectives[t.objective].objective.name;
    auto check = [&](const int* cols, int n, int first_suffix) {
      int given = 0;
      std::string missing;
      for (int k = 0; k < n; ++k) {
        if (cols[k] >= 0)
          ++given;
        else
          missing += (missing.empty() ? "" : ", ") + name + "." + kSuffixes[first_suffix + k];
      }
      if (given > 0 && given < n)
        throw CsvError(where + ": objective " + in_quotes(name) + " needs all of " +
                       (n == 3 ? "x, y, z" : "qx, qy, qz, qw") + "; missing " + missing);
    };
    check(t.position, 3, 0);
    check(t.rotation, 4, 3);
  }
  return out;
}

// a data line; fills row.targets or sets row.error
void parse_row(const std::vector<std::string>& f, const SceneTargets& st,
               const std::vector<PlacedObjective>& objectives, SceneTargetRow& row) {
  if (f.size() != st.header.size()) {
    double d = 0;
    for (const std::string& s : f)
      if (!s.empty() && !parse_csv_number(s, &d) && !field_hint(s).empty()) {
        row.error = not_a_number(s) + field_hint(s);
        return;
      }
    row.error = "expected " + std::to_string(st.header.size()) + " values like the header, got " +
                std::to_string(f.size());
    return;
  }
  std::vector<double> v(f.size());
  for (std::size_t c = 0; c < f.size(); ++c) {
    const std::string& s = f[c];
    double d = 0;
    if (!parse_csv_number(s, &d)) {
      row.error = "column " + quote_field(st.header[c]) + ": " +
                  (s.empty() ? "a value is empty" : not_a_number(s) + field_hint(s));
      return;
    }
    if (!std::isfinite(d)) {
      row.error = "column " + quote_field(st.header[c]) + ": NaN or infinite value";
      return;
    }
    if (std::fabs(d) > kMaxLength) {
      row.error = "column " + quote_field(st.header[c]) + ": " + quote_field(s) +
                  " is out of range (magnitude above 1e6)";
      return;
    }
    v[c] = d;
  }
  row.targets.clear();
  for (const TargetColumns& t : st.columns) {
    Transform<double> x = objectives[t.objective].target;
    if (t.has_position()) x.p = {v[t.position[0]], v[t.position[1]], v[t.position[2]]};
    if (t.has_rotation()) {
      Quat<double> q{v[t.rotation[0]], v[t.rotation[1]], v[t.rotation[2]], v[t.rotation[3]]};
      double norm = quat_norm(q);
      if (std::fabs(norm - 1.0) > 1e-3) {
        row.error = "objective " + in_quotes(objectives[t.objective].objective.name) +
                    ": quaternion is not unit (norm " + format_double(norm) +
                    "; within 1e-3 of 1 is normalised)";
        row.targets.clear();
        return;
      }
      x.q = normalize(q);
    }
    row.targets.push_back(x);
  }
  row.ok = true;
}

}  // namespace

SceneTargets parse_scene_targets(std::istream& in, const std::string& source_name,
                                 const std::vector<PlacedObjective>& objectives) {
  SceneTargets st;
  std::string text;
  int line = 0;
  bool have_header = false;
  while (next_csv_line(in, text, &line, source_name)) {
    if (skipped(text)) continue;
    std::vector<std::string> f = fields_of(text);
    if (!have_header) {
      st.header = f;
      st.columns = parse_header(st.header, source_name + ":" + std::to_string(line), objectives);
      have_header = true;
      continue;
    }
    SceneTargetRow row;
    row.line = line;
    parse_row(f, st, objectives, row);
    st.rows.push_back(std::move(row));
  }
  if (!have_header)
    throw CsvError(source_name +
                   ": no header line (NAME.x,NAME.y,NAME.z,... for the objectives "
                   "whose targets vary)");
  return st;
}

SceneTargets read_scene_targets(const std::string& path,
                                const std::vector<PlacedObjective>& objectives) {
  if (path == "-") return parse_scene_targets(std::cin, kStandardInput, objectives);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw CsvError(path + ": is a directory, not a targets file");
  std::ifstream in(path);
  if (!in) throw CsvError(path + ": cannot open the file (" + std::strerror(errno) + ")");
  return parse_scene_targets(in, path, objectives);
}

}  // namespace ikwb
