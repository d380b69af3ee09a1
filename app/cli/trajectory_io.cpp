#include "app/cli/trajectory_io.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <utility>

#include "app/cli/csv.hpp"
#include "engine/core/scene.hpp"

namespace ikwb {

std::vector<std::string> coord_names(const Model& m) {
  std::vector<std::string> names;
  for (int j = 0; j < m.joint_count; ++j) {
    int a = m.joint_q_start[j], b = m.joint_q_start[j + 1];
    for (int k = a; k < b; ++k)
      names.push_back(b - a == 1 ? m.joint_name[j] : m.joint_name[j] + "_" + std::to_string(k - a));
  }
  return names;
}

void write_trajectory_csv(const std::string& path, const Model& m, const Trajectory& tr) {
  CsvWriter out(path);
  std::vector<std::string> header{"time"};
  for (const std::string& name : coord_names(m)) header.push_back(name);
  out.row(header);
  for (std::size_t i = 0; i < tr.sample_count(); ++i) {
    out.field(tr.times[i]);
    for (int c = 0; c < tr.coord_count; ++c) out.field(tr.row(i)[c]);
    out.end_row();
  }
  out.close();
}

void write_trajectory_json(const std::string& path, const Model& m, const std::string& robot,
                           double rate, const Trajectory& tr) {
  using nlohmann::json;
  json samples = json::array();
  for (std::size_t i = 0; i < tr.sample_count(); ++i)
    samples.push_back(
        {{"time", tr.times[i]}, {"q", std::vector<double>(tr.row(i), tr.row(i) + tr.coord_count)}});
  json segments = json::array();
  for (const SegmentReport& s : tr.segments) segments.push_back(segment_to_json(s));
  json j = {{"format", "ikwb-trajectory"},
            {"version", 1},
            {"robot", robot},
            {"rate", rate},
            {"fixed_step", tr.fixed_step},
            {"columns", coord_names(m)},
            {"samples", samples},
            {"segments", segments}};
  write_file_atomic(path, j.dump(1) + "\n");
}

void write_trajectory(const std::string& path, const Model& model, const std::string& robot,
                      double rate, const Trajectory& tr) {
  if (names_json_output(path))
    write_trajectory_json(path, model, robot, rate, tr);
  else
    write_trajectory_csv(path, model, tr);
}

namespace {

// A mimic joint's column is not read: the joint follows its source. Where its values contradict
// the source's (a joint_states recording of a gripper whose second finger was driven on its
// own), a warning says so, once a column, with how many rows and by how much. Rows of NaN (the
// unsolved rows of `ikwb solve`) are left alone.
void warn_contradicting_mimic_columns(const std::string& path, const Model& m,
                                      const NumericTable& table,
                                      const std::map<std::string, int>& column_of) {
  // a column is read back exactly (%.17g); 1e-5 lets a recording in float32 agree
  constexpr double kMimicTolerance = 1e-5;
  for (int c = 0; c < int(table.header.size()); ++c) {
    const int j = m.find_joint(table.header[c]);
    if (j < 0 || m.joint_mimic[j] < 0) continue;
    const auto source = column_of.find(m.joint_name[m.joint_mimic[j]]);
    if (source == column_of.end()) continue;
    int rows = 0;
    double worst = 0;
    for (const std::vector<double>& row : table.rows) {
      const double expected =
          m.joint_mimic_multiplier[j] * row[std::size_t(source->second)] + m.joint_mimic_offset[j];
      const double off = std::fabs(row[std::size_t(c)] - expected);
      if (!(off > kMimicTolerance)) continue;
      ++rows;
      worst = std::max(worst, off);
    }
    if (rows == 0) continue;
    std::fprintf(
        stderr,
        "warning: %s: column '%s' (a mimic joint: %s) differs from its source's value "
        "on %d of %zu rows, by up to %s; it is not read, the joint follows its source\n",
        path == "-" ? kStandardInput : path.c_str(), table.header[c].c_str(),
        mimic_formula(source->first, m.joint_mimic_multiplier[j], m.joint_mimic_offset[j]).c_str(),
        rows, table.rows.size(), format_double(worst).c_str());
  }
}

// Which column of `header` (from column `first` on) holds each coordinate of `names`
// (coord_names), into column_of; columns naming a joint without coordinates of its own (fixed, or
// a mimic joint, whose value follows its source: ROS joint_states list them) are left out.
// Returns what is wrong with the names ("" when nothing): the unknown, repeated and missing ones.
std::string coordinate_columns(const Model& m, const std::vector<std::string>& names,
                               const std::vector<std::string>& header, int first,
                               std::map<std::string, int>& column_of) {
  std::string unknown, repeated, missing;
  std::string floats_hint;  // a fixed root joint whose free-joint columns (NAME_0..) are named
  auto add = [](std::string& list, const std::string& name) {
    list += (list.empty() ? "'" : ", '") + name + "'";
  };
  for (int c = first; c < int(header.size()); ++c) {
    const std::string& name = header[c];
    const int joint = m.find_joint(name);
    if (joint >= 0 && m.joint_q_start[joint] == m.joint_q_start[joint + 1]) continue;
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      add(unknown, name);
      const std::size_t cut = name.rfind('_');
      const int root = cut == std::string::npos ? -1 : m.find_joint(name.substr(0, cut));
      if (root >= 0 && m.joint_parent[root] < 0 &&
          JointType(m.joint_type[root]) == JointType::kFixed && floats_hint.empty())
        floats_hint = "'" + m.joint_name[root] + "'";
    } else if (!column_of.emplace(name, c).second)
      add(repeated, name);
  }
  for (const std::string& name : names)
    if (!column_of.count(name)) add(missing, name);
  std::string what;
  auto say = [&](const std::string& text) { what += (what.empty() ? "" : "; ") + text; };
  if (!unknown.empty())
    say("not coordinates of the robot: " + unknown +
        (floats_hint.empty()
             ? ""
             : " (" + floats_hint + " is fixed here: was the file written with --floating-base?)"));
  if (!repeated.empty()) say("repeated: " + repeated);
  if (!missing.empty()) say("missing: " + missing);
  return what;
}

// Whether a field names a column of a configuration or trajectory file of m (names: coord_names):
// a coordinate, a joint without one of its own, `time`, a leading result column of `ikwb solve`.
std::function<bool(const std::string&)> header_name_of(const Model& m,
                                                       const std::vector<std::string>& names) {
  return [&m, &names](const std::string& field) {
    return m.find_joint(field) >= 0 ||
           std::find(names.begin(), names.end(), field) != names.end() || field == "time" ||
           std::find(std::begin(kSolveResultColumns), std::end(kSolveResultColumns), field) !=
               std::end(kSolveResultColumns);
  };
}

// Free and ball joints need a quaternion that can be normalised: a zero one is refused (where:
// "FILE:LINE"); q in q_start order.
void check_quaternions(const Model& m, const std::vector<double>& q, const std::string& where) {
  for (int j = 0; j < m.joint_count; ++j) {
    JointType t = JointType(m.joint_type[j]);
    if (m.joint_mimic[j] >= 0 || (t != JointType::kBall && t != JointType::kFree)) continue;
    const int first = t == JointType::kFree ? 3 : 0, qs = m.joint_q_start[j] + first;
    double n2 = 0;
    for (int k = 0; k < 4; ++k) n2 += q[qs + k] * q[qs + k];
    if (!(n2 > 1e-24))
      throw CsvError(where + ": the quaternion of joint '" + m.joint_name[j] + "' (" +
                     m.joint_name[j] + "_" + std::to_string(first) + " to " + m.joint_name[j] +
                     "_" + std::to_string(first + 3) + ") is zero");
  }
}

}  // namespace

NumericTable read_configurations_csv(const std::string& path, const Model& m,
                                     std::vector<uint8_t>* unsolved) {
  const std::vector<std::string> names = coord_names(m);
  std::map<std::string, int> column_of;  // coordinate name -> column in the file
  CsvReadOptions opt;
  opt.expected_columns = m.coord_count;
  opt.columns_name = "joint_coord_count";
  opt.header_names_columns = true;
  // each coordinate named once; a first `time` column (`ikwb animate`'s) and `ikwb solve`'s
  // leading result columns are left out; what is wrong with the names, "" when nothing
  auto header_problem = [&](const std::vector<std::string>& header,
                            std::map<std::string, int>& columns) {
    int first = 0;  // the first column that may name a coordinate
    // `time` first is `ikwb animate`'s time column, unless the robot has a coordinate of that
    // name and the header names it only there
    const bool time_coord = std::find(names.begin(), names.end(), "time") != names.end();
    if (!header.empty() && header[0] == "time" &&
        (!time_coord || std::count(header.begin(), header.end(), "time") > 1))
      first = 1;
    constexpr int kResults = int(std::size(kSolveResultColumns));
    if (int(header.size()) >= kResults &&
        std::equal(header.begin(), header.begin() + kResults, std::begin(kSolveResultColumns)))
      first = kResults;
    return coordinate_columns(m, names, header, first, columns);
  };
  opt.check_header = [&](const std::vector<std::string>& header) {
    const std::string wrong = header_problem(header, column_of);
    if (wrong.empty()) return wrong;
    return "the header must name each joint coordinate once (joint names; NAME_0, NAME_1, ... "
           "for a ball, free or planar joint; a first column `time`, the leading result columns "
           "of `ikwb solve`, fixed and mimic joints are left out); " +
           wrong;
  };
  // a name starting with a digit ('2nd_joint') does not make a header a row of numbers (a
  // solve's output did not read back), and a whole header of joints named by numbers is one; a
  // row of values is a header only when it names each coordinate once (a zero pose read '0,0,0'
  // as a header of a joint named 0)
  opt.header_name = header_name_of(m, names);
  // (of two coordinates or more: a lone value 0 of a joint named 0 was read as its header)
  opt.whole_header = [&](const std::vector<std::string>& fields) {
    std::map<std::string, int> columns;
    return names.size() >= 2 && header_problem(fields, columns).empty();
  };
  opt.allow_non_finite = unsolved != nullptr;  // checked below, row by row
  NumericTable table = read_numeric_csv(path, opt);
  // joints named by numbers: a first line of their names is their header, though it reads as
  // numbers too (it was read as a configuration, the rows after it by position)
  double number = 0;
  if (!table.header.empty() &&
      std::all_of(table.header.begin(), table.header.end(),
                  [&](const std::string& f) { return parse_csv_number(f, &number); }))
    std::fprintf(stderr,
                 "warning: %s:%d: read as a header: it names each of the robot's joints (named "
                 "by numbers) once; if it is a configuration, give the file a header line of "
                 "their names\n",
                 path == "-" ? kStandardInput : path.c_str(), table.header_line);
  if (unsolved) {
    constexpr std::size_t kResults = std::size(kSolveResultColumns);
    const bool solve_output = table.header.size() >= kResults &&
                              std::equal(table.header.begin(), table.header.begin() + kResults,
                                         std::begin(kSolveResultColumns));
    unsolved->assign(table.row_count(), 0);
    for (std::size_t r = 0; r < table.row_count(); ++r) {
      const std::vector<double>& row = table.rows[r];
      const std::size_t first = solve_output ? kResults : 0;
      bool all_nan = solve_output && row.size() > first;
      for (std::size_t c = first; c < row.size(); ++c) all_nan = all_nan && std::isnan(row[c]);
      if (all_nan) {
        (*unsolved)[r] = 1;
        continue;
      }
      for (std::size_t c = 0; c < row.size(); ++c)
        if (!std::isfinite(row[c]) && (c >= first || c == 0))
          throw CsvError((path == "-" ? kStandardInput : path) + ":" +
                         std::to_string(table.lines[r]) + ": " + column_label(table.header, c) +
                         " is not finite ('" + format_double(row[c]) + "')");
    }
  }
  if (table.row_count() == 0 && m.coord_count == 0) {
    // a robot without joint coordinates has exactly one configuration: an empty file
    table.rows.emplace_back();
    table.lines.push_back(0);
    if (unsolved) unsolved->push_back(0);
  }
  if (!table.header.empty()) {
    warn_contradicting_mimic_columns(path, m, table, column_of);
    for (std::vector<double>& row : table.rows) {
      std::vector<double> q(names.size());
      for (std::size_t k = 0; k < names.size(); ++k) q[k] = row[column_of.at(names[k])];
      row = std::move(q);
    }
  }
  // (check refused the zero quaternion fk refuses, and took it for the identity)
  for (std::size_t r = 0; r < table.row_count(); ++r)
    if (!unsolved || !(*unsolved)[r])
      check_quaternions(
          m, table.rows[r],
          (path == "-" ? kStandardInput : path) + ":" + std::to_string(table.lines[r]));
  return table;
}

Motion read_trajectory_csv(const std::string& path, const Model& m) {
  const std::vector<std::string> names = coord_names(m);
  std::map<std::string, int> column_of;  // coordinate name -> column in the file
  const std::string expected =
      "expected the header `time`, then each joint coordinate once, in any order (joint names; "
      "NAME_0, NAME_1, ... for a ball, free or planar joint)";
  CsvReadOptions opt;
  opt.expected_columns = 1 + int(names.size());
  opt.columns_name = "time and " + std::to_string(names.size()) + " joint coordinates";
  opt.header_names_columns = true;
  // (animate's own output for joints named '2nd_joint' or 0, 1, 2 read as a row)
  opt.header_name = header_name_of(m, names);
  opt.check_header = [&](const std::vector<std::string>& header) {
    if (header[0] != "time") return "column 1 is '" + header[0] + "'; " + expected;
    const std::string wrong = coordinate_columns(m, names, header, 1, column_of);
    return wrong.empty() ? wrong : wrong + "; " + expected;
  };
  NumericTable table = read_numeric_csv(path, opt);
  if (table.header.empty()) throw CsvError(path + ":1: no header; " + expected);
  warn_contradicting_mimic_columns(path, m, table, column_of);
  if (table.rows.empty()) throw CsvError(path + ": no samples after the header");
  Motion motion;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::vector<double>& row = table.rows[r];
    if (!motion.times.empty() && !(row[0] > motion.times.back()))
      throw CsvError(path + ":" + std::to_string(table.lines[r]) + ": time " +
                     format_double(row[0]) + " is not after the previous row's " +
                     format_double(motion.times.back()));
    motion.times.push_back(row[0]);
    for (const std::string& name : names) motion.q.push_back(row[std::size_t(column_of.at(name))]);
  }
  return motion;
}

}  // namespace ikwb
