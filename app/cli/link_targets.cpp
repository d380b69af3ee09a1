#include "app/cli/link_targets.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include "app/cli/csv.hpp"
#include "engine/core/spatial.hpp"

namespace ikwb {

namespace {

// a first line that names something and holds no number (a line of empty fields, a
// spreadsheet's blank row, is a malformed row like the same line further down)
bool is_header(const std::vector<std::string>& fields) {
  double v = 0;
  if (std::all_of(fields.begin(), fields.end(),
                  [](const std::string& f) { return f.find_first_not_of(" \t") == f.npos; }))
    return false;
  for (const std::string& f : fields) {
    if (parse_csv_number(f, &v)) return false;
    if (!f.empty() && (std::isdigit(static_cast<unsigned char>(f[0])) || f[0] == '+' ||
                       f[0] == '-' || f[0] == '.'))
      return false;
  }
  return true;
}

constexpr const char* kTargetColumns[] = {"x", "y", "z", "qx", "qy", "qz", "qw"};

// a column name compared as looks_like_orientation compares it: letters and digits, lower case
std::string folded(const std::string& name) {
  std::string n;
  for (char ch : name)
    if (std::isalnum(static_cast<unsigned char>(ch)))
      n += char(std::tolower(static_cast<unsigned char>(ch)));
  return n;
}

// a column name that other tools give an orientation under: roll / pitch / yaw, rx / ry / rz,
// ox..ow, q_x..q_w, q0..q3, qi / qj / qk / qr, a rotation matrix's r00..r33, axis-angle's
// angle and axis*, quat*, orient*, rot*, euler*, rpy* (compared without case, '_', '-', ' '). A
// lone "w" is a weight as often as a quaternion's part, and i, j, k and e0..e3 are indices as
// often: left alone here (orientation_columns takes them as a set)
bool looks_like_orientation(const std::string& name) {
  const std::string n = folded(name);
  for (const char* exact :
       {"roll", "pitch", "yaw", "rx", "ry", "rz", "ox", "oy", "oz", "ow", "qx",   "qy",
        "qz",   "qw",    "q0",  "q1", "q2", "q3", "qi", "qj", "qk", "qr", "angle"})
    if (n == exact) return true;
  if (n.size() == 3 && n[0] == 'r' && std::isdigit(static_cast<unsigned char>(n[1])) &&
      std::isdigit(static_cast<unsigned char>(n[2])))
    return true;
  for (const char* prefix : {"quat", "orient", "rot", "euler", "rpy", "axis"})
    if (n.rfind(prefix, 0) == 0) return true;
  return false;
}

// the columns of `names` that hold an orientation: each that looks like one, and the sets a
// quaternion is written as under names that alone mean something else: i, j and k (with w or
// not), e0..e3 (Euler parameters). A review's `x,y,z,w,i,j,k` and `x,y,z,q0,q1,q2,q3` files
// were solved as positions, 100% solved, their orientations 132 deg off (median)
std::vector<std::string> orientation_columns(const std::vector<std::string>& names) {
  auto has_all = [&](std::initializer_list<const char*> set) {
    for (const char* s : set)
      if (std::none_of(names.begin(), names.end(),
                       [&](const std::string& n) { return folded(n) == s; }))
        return false;
    return true;
  };
  const bool ijk = has_all({"i", "j", "k"}), e0123 = has_all({"e0", "e1", "e2", "e3"});
  std::vector<std::string> found;
  for (const std::string& name : names) {
    const std::string n = folded(name);
    const bool in_set = (ijk && (n == "i" || n == "j" || n == "k" || n == "w")) ||
                        (e0123 && n.size() == 2 && n[0] == 'e' && n[1] >= '0' && n[1] <= '3');
    if (in_set || looks_like_orientation(name)) found.push_back(name);
  }
  return found;
}

// A header's columns in x, y, z[, qx, qy, qz, qw] order: order[k] is the file's column of name
// k (3 or 7 entries). Names compare without case and around blanks. Other columns (a frame
// number, a time) are not read and are listed in *ignored. Returns "" or what is wrong: x, y or
// z missing, some of qx, qy, qz, qw without the others, a name repeated.
std::string header_order(const std::vector<std::string>& header, std::vector<int>* order,
                         std::vector<std::string>* ignored) {
  std::vector<int> at(7, -1);
  std::string repeated;
  for (int c = 0; c < int(header.size()); ++c) {
    std::string name = header[std::size_t(c)];
    for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    int k = 0;
    while (k < 7 && name != kTargetColumns[k]) ++k;
    if (k == 7)
      ignored->push_back(header[std::size_t(c)]);
    else if (at[std::size_t(k)] >= 0)
      repeated += (repeated.empty() ? "" : ", ") + quote_field(header[std::size_t(c)]);
    else
      at[std::size_t(k)] = c;
  }
  if (!repeated.empty()) return "the header repeats " + repeated;
  int quaternion = 0;
  for (int k = 3; k < 7; ++k) quaternion += at[std::size_t(k)] >= 0;
  std::string missing;
  for (int k = 0; k < (quaternion ? 7 : 3); ++k)
    if (at[std::size_t(k)] < 0)
      missing += (missing.empty() ? "'" : ", '") + std::string(kTargetColumns[k]) + "'";
  if (!missing.empty()) {
    constexpr std::size_t kListed = 10;
    std::string columns;
    for (std::size_t c = 0; c < header.size() && c < kListed; ++c)
      columns += (c ? ", " : "") + quote_field(header[c]);
    if (header.size() > kListed)
      columns += " and " + std::to_string(header.size() - kListed) + " more";
    // a header in one field (tabs or semicolons between its names) says how data lines are told
    const std::string hint = header.size() == 1 ? field_hint(header[0]) : "";
    return "the header must name x, y and z, and for a pose qx, qy, qz and qw, once each in "
           "any order (other columns are not read); missing " +
           missing + " (its columns: " + columns + ")" + hint;
  }
  // positions only, beside columns that hold an orientation under other names: solved as
  // positions, the orientation dropped with a note, and the summary read 100% solved
  if (quaternion == 0) {
    std::string orientation;
    for (const std::string& h : orientation_columns(*ignored))
      orientation += (orientation.empty() ? "" : ", ") + quote_field(h);
    if (!orientation.empty())
      return "the columns " + orientation +
             " look like an orientation, which a pose target gives as a unit quaternion named "
             "qx, qy, qz, qw (roll, pitch and yaw: convert them); without those columns the "
             "targets are positions (remove the others to solve positions only)";
  }
  at.resize(quaternion == 4 ? 7 : 3);
  *order = std::move(at);
  return "";
}

// one row's fields: sets *pose and returns "", or says what is wrong; order: the header's
// (header_order), empty without one; header_width, header_line: its count of columns, its line
std::string parse_row(const std::vector<std::string>& all_fields, const std::vector<int>& order,
                      std::size_t header_width, int header_line, Transform<double>* pose) {
  // with a header: its width, and only the columns it names as target coordinates are read
  if (!order.empty() && all_fields.size() != header_width) {
    double d = 0;
    for (const std::string& f : all_fields)
      if (!f.empty() && !parse_csv_number(f, &d) && !field_hint(f).empty())
        return not_a_number(f) + field_hint(f);
    return "expected " + std::to_string(header_width) + " values as the header on line " +
           std::to_string(header_line) + ", got " + std::to_string(all_fields.size());
  }
  std::vector<std::string> fields;
  if (order.empty())
    fields = all_fields;
  else
    for (int c : order) fields.push_back(all_fields[std::size_t(c)]);
  std::vector<double> v;
  for (const std::string& f : fields) {
    double d = 0;
    if (!parse_csv_number(f, &d)) {
      return f.empty() ? "a value is empty" : not_a_number(f) + field_hint(f);
    }
    if (!std::isfinite(d)) return quote_field(f) + " is not finite";
    if (std::fabs(d) > kMaxLength) return quote_field(f) + " is out of range (magnitude above 1e6)";
    v.push_back(d);
  }
  const int n = int(v.size());
  if (n != 3 && n != 7)
    return "expected 3 (x,y,z) or 7 (x,y,z,qx,qy,qz,qw) values, got " + std::to_string(n);
  pose->p = {v[0], v[1], v[2]};
  if (n == 7) {
    Quat<double> q{v[3], v[4], v[5], v[6]};
    const double norm = quat_norm(q);
    if (std::fabs(norm - 1.0) > 1e-3)
      return "quaternion is not unit (norm " + format_double(norm) +
             "; within 1e-3 of 1 is normalised)";
    pose->q = normalize(q);
  }
  return "";
}

// Without a header: the count of values most valid rows have (3 or 7; a tie goes to the first
// valid row's) becomes targets->columns, and the valid rows with the other count are malformed.
// All the rows vote, so a bad first line does not decide for the file. widths: each row's count
// of values, 0 for a malformed row.
void hold_to_common_width(const std::vector<int>& widths, LinkTargets* targets) {
  const auto first = std::find_if(widths.begin(), widths.end(), [](int w) { return w != 0; });
  if (first == widths.end()) return;
  const std::ptrdiff_t positions = std::count(widths.begin(), widths.end(), 3);
  const std::ptrdiff_t poses = std::count(widths.begin(), widths.end(), 7);
  const int columns = positions == poses ? *first : positions > poses ? 3 : 7;
  const std::string expected = "expected " + std::to_string(columns) + " values, as " +
                               std::to_string(std::max(positions, poses)) + " of the " +
                               std::to_string(widths.size()) + " target lines have, got ";
  targets->columns = columns;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] == 0 || widths[i] == columns) continue;
    targets->rows[i].ok = false;
    targets->rows[i].error = expected + std::to_string(widths[i]);
  }
}

}  // namespace

LinkTargets parse_link_targets(std::istream& in, const std::string& source_name) {
  LinkTargets targets;
  std::vector<int> order;  // the header's column order (header_order); empty without one
  std::size_t header_width = 0;
  int header_line = 0;
  std::vector<int> widths;  // (rows) without a header: a valid row's count of values, else 0
  bool first = true;
  std::string text;
  int line = 0;
  while (next_csv_line(in, text, &line, source_name)) {
    const std::size_t start = text.find_first_not_of(" \t");
    if (start == std::string::npos || text[start] == '#') continue;
    std::vector<std::string> f = split_csv_line(text);
    if (f.size() > 1 && f.back().empty()) f.pop_back();  // a trailing comma
    if (std::exchange(first, false) && is_header(f)) {
      if (const std::string wrong = header_order(f, &order, &targets.ignored_columns);
          !wrong.empty())
        throw CsvError(source_name + ":" + std::to_string(line) + ": " + wrong);
      header_width = f.size();
      targets.columns = int(order.size());
      targets.header = true;
      header_line = line;
      continue;
    }
    LinkTargetRow row;
    row.line = line;
    row.error = parse_row(f, order, header_width, header_line, &row.pose);
    row.ok = row.error.empty();
    if (order.empty()) widths.push_back(row.ok ? int(f.size()) : 0);
    targets.rows.push_back(std::move(row));
  }
  if (order.empty()) hold_to_common_width(widths, &targets);
  return targets;
}

LinkTargets read_link_targets(const std::string& path) {
  if (path == "-") {
    LinkTargets targets = parse_link_targets(std::cin, kStandardInput);
    if (std::cin.bad()) throw CsvError(std::string(kStandardInput) + ": read error");
    return targets;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw CsvError(path + ": is a directory, not a targets file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CsvError(path + ": cannot open the file (" + std::strerror(errno) + ")");
  LinkTargets targets = parse_link_targets(in, path);
  if (in.bad()) throw CsvError(path + ": read error");
  return targets;
}

}  // namespace ikwb
