#include "app/cli/link_targets.hpp"

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

bool is_header(const std::vector<std::string>& fields) {
  double v = 0;
  for (const std::string& f : fields) {
    if (parse_csv_number(f, &v)) return false;
    if (!f.empty() && (std::isdigit(static_cast<unsigned char>(f[0])) || f[0] == '+' ||
                       f[0] == '-' || f[0] == '.'))
      return false;
  }
  return true;
}

constexpr const char* kTargetColumns[] = {"x", "y", "z", "qx", "qy", "qz", "qw"};

// A header's columns in x, y, z[, qx, qy, qz, qw] order: order[k] is the file's column of name
// k. Names compare without case and around blanks. Returns "" or what is wrong.
std::string header_order(const std::vector<std::string>& header, std::vector<int>* order) {
  const int n = int(header.size());
  if (n != 3 && n != 7)
    return "the header names " + std::to_string(n) + (n == 1 ? " column" : " columns") +
           "; a target has 3 (x,y,z) or 7 (x,y,z,qx,qy,qz,qw)";
  order->assign(std::size_t(n), -1);
  std::string unknown;
  for (int c = 0; c < n; ++c) {
    std::string name = header[std::size_t(c)];
    for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    int k = 0;
    while (k < n && name != kTargetColumns[k]) ++k;
    if (k == n || (*order)[std::size_t(k)] >= 0)
      unknown += (unknown.empty() ? "'" : ", '") + header[std::size_t(c)] + "'";
    else
      (*order)[std::size_t(k)] = c;
  }
  if (unknown.empty()) return "";
  return "the header must name " +
         std::string(n == 3 ? "x, y and z" : "x, y, z, qx, qy, qz and qw") +
         " once each, in any order; not one of them or repeated: " + unknown;
}

// one row's fields: sets *pose and returns "", or says what is wrong; columns: the count the
// header or the first valid row set (0 before it), on line columns_line as columns_source says;
// order: the header's (header_order), empty without one
std::string parse_row(const std::vector<std::string>& fields, int columns, int columns_line,
                      const char* columns_source, const std::vector<int>& order,
                      Transform<double>* pose) {
  std::vector<double> v;
  for (const std::string& f : fields) {
    double d = 0;
    if (!parse_csv_number(f, &d)) {
      std::string why = f.empty() ? "a value is empty" : not_a_number(f);
      if (f.find_first_of(" \t;") != std::string::npos) why += " (separate values with commas)";
      return why;
    }
    if (!std::isfinite(d)) return quote_field(f) + " is not finite";
    if (std::fabs(d) > kMaxLength) return quote_field(f) + " is out of range (magnitude above 1e6)";
    v.push_back(d);
  }
  const int n = int(v.size());
  if (n != 3 && n != 7)
    return "expected 3 (x,y,z) or 7 (x,y,z,qx,qy,qz,qw) values, got " + std::to_string(n);
  if (columns != 0 && n != columns)
    return "expected " + std::to_string(columns) + " values as " + columns_source + " line " +
           std::to_string(columns_line) + ", got " + std::to_string(n);
  if (!order.empty()) {
    std::vector<double> by_name(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) by_name[k] = v[std::size_t(order[k])];
    v = std::move(by_name);
  }
  pose->p = {v[0], v[1], v[2]};
  if (n == 7) {
    Quat<double> q{v[3], v[4], v[5], v[6]};
    const double norm = quat_norm(q);
    if (std::fabs(norm - 1.0) > 1e-3)
      return "quaternion is not unit (norm " + format_double(norm) + ")";
    pose->q = normalize(q);
  }
  return "";
}

}  // namespace

LinkTargets parse_link_targets(std::istream& in, const std::string& source_name) {
  LinkTargets targets;
  int columns_line = 0;
  const char* columns_source = "on";
  std::vector<int> order;  // the header's column order (header_order); empty without one
  bool first = true;
  std::string text;
  int line = 0;
  while (next_csv_line(in, text, &line, source_name)) {
    const std::size_t start = text.find_first_not_of(" \t");
    if (start == std::string::npos || text[start] == '#') continue;
    std::vector<std::string> f = split_csv_line(text);
    if (f.size() > 1 && f.back().empty()) f.pop_back();  // a trailing comma
    if (std::exchange(first, false) && is_header(f)) {
      if (const std::string wrong = header_order(f, &order); !wrong.empty())
        throw CsvError(source_name + ":" + std::to_string(line) + ": " + wrong);
      targets.columns = int(f.size());
      columns_line = line;
      columns_source = "the header on";
      continue;
    }
    LinkTargetRow row;
    row.line = line;
    row.error = parse_row(f, targets.columns, columns_line, columns_source, order, &row.pose);
    row.ok = row.error.empty();
    if (row.ok && targets.columns == 0) {
      targets.columns = int(f.size());
      columns_line = line;
    }
    targets.rows.push_back(std::move(row));
  }
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
