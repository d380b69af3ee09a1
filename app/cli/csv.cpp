#include "app/cli/csv.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <utility>

#include "engine/core/output_target.hpp"

namespace ikwb {

namespace {

std::string count_text(std::size_t n, const std::string& name) {
  return std::to_string(n) + (n == 1 ? " value" : " values") +
         (name.empty() ? "" : " (" + name + ")");
}

// The temporary files of the writers open now, for the handler of an interrupt to remove: fixed
// storage, as a signal handler may not allocate. A run with more at once leaves the others.
constexpr int kTempSlots = 8;
constexpr std::size_t kTempPathMax = 4096;
char g_temp_path[kTempSlots][kTempPathMax];
volatile std::sig_atomic_t g_temp_used[kTempSlots];

int register_temp(const std::string& path) {
  if (path.size() >= kTempPathMax) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    if (g_temp_used[i]) continue;
    std::memcpy(g_temp_path[i], path.c_str(), path.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the path is whole before it counts
    g_temp_used[i] = 1;
    return i;
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot >= 0) g_temp_used[slot] = 0;
}

volatile std::sig_atomic_t g_rows_to_stdout = 0;  // a CsvWriter writes to standard output
volatile std::sig_atomic_t g_stderr_tty = 0;      // a progress bar's line may be open

// to standard error from the handler (write(2) and strlen are async-signal-safe)
void say(const char* s, std::size_t n) {
  const ssize_t written = ::write(STDERR_FILENO, s, n);
  (void)written;
}
void say(const char* s) {
  say(s, std::strlen(s));
}

// Removes the temporary files and says what became of the outputs (an interrupted run said
// nothing, and a reader of standard output could not tell its rows were cut short), then lets
// the signal end the process as it would have (SA_RESETHAND has put the default action back).
extern "C" void remove_temps_and_raise(int sig) {
  say(g_stderr_tty ? "\nikwb: interrupted" : "ikwb: interrupted");
  for (int i = 0; i < kTempSlots; ++i) {
    if (!g_temp_used[i]) continue;
    ::unlink(g_temp_path[i]);
    // the target's name: the temporary file's less its ".tmpPID"
    std::size_t n = std::strlen(g_temp_path[i]);
    for (std::size_t k = n; k >= 4; --k)
      if (std::memcmp(g_temp_path[i] + k - 4, ".tmp", 4) == 0) {
        n = k - 4;
        break;
      }
    say("; ");
    say(g_temp_path[i], n);
    say(" not written (a file of that name is left as it was)");
  }
  if (g_rows_to_stdout) say("; standard output has the whole rows written before it, in order");
  say("\n");
  ::raise(sig);
}

}  // namespace

void remove_temporary_outputs_on_interrupt() {
  struct sigaction sa = {};
  sa.sa_handler = remove_temps_and_raise;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  g_stderr_tty = ::isatty(STDERR_FILENO);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

bool parse_csv_number(const std::string& s, double* out) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;
  auto r = std::from_chars(b, e, *out);
  if (s.empty() || r.ptr != e) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // too small for a double is as good as zero (1e-400 was "out of range"); too large is not
    const double v = std::strtod(std::string(b, e).c_str(), nullptr);
    if (std::fabs(v) >= 1) return false;
    *out = v;
    return true;
  }
  return r.ec == std::errc();
}

namespace {

// the length of the UTF-8 sequence at f[i] (2 to 4), or 0 where the bytes there are not one
std::size_t utf8_sequence(const std::string& f, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(f[i]);
  const std::size_t n = c >= 0xC2 && c <= 0xDF   ? 2
                        : c >= 0xE0 && c <= 0xEF ? 3
                        : c >= 0xF0 && c <= 0xF4 ? 4
                                                 : 0;
  if (n == 0 || i + n > f.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(f[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string quote_field(const std::string& f) {
  constexpr std::size_t kShown = 40;
  std::string out = "'";
  std::size_t shown = 0, i = 0;
  for (; i < f.size() && shown < kShown; ++shown) {
    const unsigned char c = static_cast<unsigned char>(f[i]);
    const std::size_t n = c >= 0x80 ? utf8_sequence(f, i) : 1;
    if (c < 0x20 || c == 0x7f || n == 0) {  // a control character, or a byte that is not UTF-8
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
      ++i;
    } else {
      out.append(f, i, n);
      i += n;
    }
  }
  return out + (i < f.size() ? "...'" : "'");
}

std::string not_a_number(const std::string& f) {
  const char* b = f.data() + (!f.empty() && f[0] == '+' ? 1 : 0);
  double v = 0;
  auto r = std::from_chars(b, f.data() + f.size(), v);
  if (r.ec == std::errc::result_out_of_range && r.ptr == f.data() + f.size())
    return quote_field(f) + " is out of range";
  return quote_field(f) + " is not a number";
}

std::string field_hint(const std::string& f) {
  if (f.find('#') != std::string::npos)
    return " (a comment takes a line of its own, starting with #)";
  if (f.find(';') != std::string::npos && f.find('.') == std::string::npos)
    return " (separate values with commas, decimals with a point)";
  if (f.find(';') != std::string::npos) return " (separate values with commas)";
  if (f.find_first_of(" \t") != std::string::npos) return " (separate values with commas)";
  return "";
}

std::vector<double> NumericTable::flat() const {
  std::vector<double> out;
  out.reserve(rows.size() * column_count());
  for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, in_quotes = false;
  auto finish = [&]() {
    if (!quoted) {
      std::size_t b = cur.find_first_not_of(" \t");
      std::size_t e = cur.find_last_not_of(" \t");
      cur = b == std::string::npos ? std::string() : cur.substr(b, e - b + 1);
    }
    fields.push_back(cur);
    cur.clear();
    quoted = false;
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        cur += c;
      }
    } else if (c == '"' && cur.find_first_not_of(" \t") == std::string::npos) {
      cur.clear();
      in_quotes = quoted = true;
    } else if (c == ',') {
      finish();
    } else if (!(quoted && (c == ' ' || c == '\t'))) {
      cur += c;
    }
  }
  finish();
  return fields;
}

bool next_csv_line(std::istream& in, std::string& line, int* line_no,
                   const std::string& source_name) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  int c = buf ? buf->sbumpc() : EOF;
  if (c == EOF) {
    in.setstate(std::ios::eofbit | std::ios::failbit);
    return false;
  }
  auto fail = [&](const std::string& what) {
    throw CsvError(source_name + ":" + std::to_string(*line_no + 1) + ": " + what);
  };
  // a NUL or an endless line ends the read where it is met (/dev/zero, a binary file of
  // gigabytes), not after the rest of the file
  auto not_text = [&]() {
    if (*line_no == 0 &&
        (line.compare(0, 2, "\xFF\xFE") == 0 || line.compare(0, 2, "\xFE\xFF") == 0))
      fail("the file is UTF-16 text; save it as UTF-8 (a spreadsheet's \"CSV UTF-8\")");
    fail(
        "a NUL byte: the file is not text (binary, or UTF-16 without a byte order mark); "
        "expected comma-separated numbers in UTF-8 or ASCII");
  };
  for (; c != EOF && c != '\n'; c = buf->sbumpc()) {
    if (c == '\r') {
      if (buf->sgetc() == '\n') buf->sbumpc();
      break;
    }
    if (c == '\0') not_text();
    if (line.size() >= kMaxCsvLineBytes)
      fail("a line longer than " + std::to_string(kMaxCsvLineBytes >> 20) +
           " MiB: not a file of comma-separated numbers");
    line.push_back(char(c));
  }
  if (c == EOF) in.setstate(std::ios::eofbit);
  if (*line_no == 0 && (line.compare(0, 2, "\xFF\xFE") == 0 || line.compare(0, 2, "\xFE\xFF") == 0))
    not_text();
  ++*line_no;
  if (*line_no == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  return true;
}

std::string column_label(const std::vector<std::string>& header, std::size_t column) {
  std::string label = "column " + std::to_string(column + 1);
  if (column < header.size() && !header[column].empty())
    label += " (" + quote_field(header[column]) + ")";
  return label;
}

NumericTable parse_numeric_csv(std::istream& in, const std::string& source_name,
                               const CsvReadOptions& options) {
  NumericTable t;
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    throw CsvError(source_name + ":" + std::to_string(line_no) + ": " + what);
  };
  while (next_csv_line(in, line, &line_no, source_name)) {
    std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<std::string> fields = split_csv_line(line);
    if (fields.size() > 1 && fields.back().empty()) fields.pop_back();  // a trailing comma
    std::vector<double> row(fields.size());
    std::size_t bad = fields.size();
    std::size_t numeric = 0;
    for (std::size_t k = 0; k < fields.size(); ++k) {
      if (parse_csv_number(fields[k], &row[k])) {
        ++numeric;
      } else if (bad == fields.size()) {
        bad = k;
      }
    }
    // a header names something: a line of empty fields is a malformed row
    bool header_like = numeric == 0 && std::any_of(fields.begin(), fields.end(), [](const auto& f) {
                         return f.find_first_not_of(" \t") != std::string::npos;
                       });
    for (const auto& f : fields)
      if (!f.empty() && (std::isdigit(static_cast<unsigned char>(f[0])) || f[0] == '+' ||
                         f[0] == '-' || f[0] == '.'))
        header_like = false;
    // names the caller knows: one that is no number, and no number that is not a name; or a
    // whole header of names that are all numbers
    double v = 0;
    if (options.header_name &&
        std::any_of(fields.begin(), fields.end(),
                    [&](const std::string& f) {
                      return !parse_csv_number(f, &v) && options.header_name(f);
                    }) &&
        std::none_of(fields.begin(), fields.end(), [&](const std::string& f) {
          return parse_csv_number(f, &v) && !options.header_name(f);
        }))
      header_like = true;
    if (options.whole_header && t.rows.empty() && t.header.empty() && options.whole_header(fields))
      header_like = true;
    if (header_like && options.allow_header && t.rows.empty() && t.header.empty()) {
      t.header = fields;
      t.header_line = line_no;
      if (options.expected_columns >= 0 && !options.header_names_columns &&
          fields.size() != std::size_t(options.expected_columns))
        fail("header has " + std::to_string(fields.size()) + " columns, expected " +
             count_text(options.expected_columns, options.columns_name));
      if (options.check_header)
        if (const std::string wrong = options.check_header(fields); !wrong.empty()) fail(wrong);
      continue;
    }
    if (bad < fields.size()) {
      const std::string why =
          fields[bad].empty() ? "is empty" : not_a_number(fields[bad]) + field_hint(fields[bad]);
      const std::string label = column_label(t.header, bad);
      // "column 2 ('joint2'): 'abc' is not a number" beside a header's name
      fail(label + (label.back() == ')' ? ": " : " ") + why);
    }
    if (!options.allow_non_finite) {
      for (std::size_t k = 0; k < row.size(); ++k)
        if (!std::isfinite(row[k]))
          fail(column_label(t.header, k) + " is not finite ('" + fields[k] + "')");
    }
    const bool by_header = options.header_names_columns && !t.header.empty();
    if (options.expected_columns >= 0 && !by_header &&
        row.size() != std::size_t(options.expected_columns)) {
      fail("expected " + count_text(options.expected_columns, options.columns_name) + ", got " +
           std::to_string(row.size()));
    }
    if (!t.rows.empty() && row.size() != t.rows[0].size()) {
      fail("expected " + count_text(t.rows[0].size(), "") + " as on line " +
           std::to_string(t.lines[0]) + ", got " + std::to_string(row.size()));
    }
    if (!t.header.empty() && row.size() != t.header.size()) {
      fail("expected " + count_text(t.header.size(), "") + " as in the header, got " +
           std::to_string(row.size()));
    }
    t.rows.push_back(std::move(row));
    t.lines.push_back(line_no);
  }
  if (in.bad()) throw CsvError(source_name + ": read error");
  return t;
}

NumericTable read_numeric_csv(const std::string& path, const CsvReadOptions& options) {
  if (path == "-") return parse_numeric_csv(std::cin, kStandardInput, options);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw CsvError(path + ": is a directory, not a CSV file");
  std::ifstream in(path);
  if (!in) throw CsvError(path + ": cannot open file (" + std::strerror(errno) + ")");
  return parse_numeric_csv(in, path, options);
}

std::string mimic_formula(const std::string& source, double multiplier, double offset) {
  char b[64];
  std::string s = source;
  if (multiplier != 1) {
    std::snprintf(b, sizeof b, "%.6g x ", multiplier);
    s = b + s;
  }
  if (offset != 0) {
    std::snprintf(b, sizeof b, " %c %.6g", offset < 0 ? '-' : '+', std::fabs(offset));
    s += b;
  }
  return s;
}

bool names_json_output(const std::string& path) {
  std::string ext = path.size() >= 5 ? path.substr(path.size() - 5) : "";
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".json";
}

std::string format_double(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string format_seconds(double seconds) {
  char buf[64];
  if (seconds >= 0.1 || !(seconds > 0))
    std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  else
    std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  return buf;
}

std::string format_percent(double share, int decimals) {
  const double pct = 100.0 * share;
  char buf[64];
  for (int d = decimals;; ++d) {
    std::snprintf(buf, sizeof buf, "%.*f", d, pct);
    const double shown = std::strtod(buf, nullptr);
    const bool misleading = (share < 1 && shown >= 100) || (share > 0 && shown <= 0);
    if (!misleading || d >= 6) return buf;
  }
}

CsvWriter::CsvWriter(const std::string& path) : path_(path) {
  if (path.empty()) throw CsvError("the output path is empty");
  if (path == "-") {
    f_ = stdout;
    g_rows_to_stdout = 1;
    return;
  }
  const OutputTarget out = output_target(path);
  if (out.in_place) {
    f_ = std::fopen(out.path.c_str(), "wb");
    if (!f_) throw CsvError(path + ": cannot open (" + std::strerror(errno) + ")");
    return;
  }
  target_ = out.path;
  if (const std::string refusal = replace_refusal(target_); !refusal.empty())
    throw CsvError(path + ": " + refusal);
  tmp_path_ = target_ + ".tmp" + std::to_string(::getpid());
  f_ = std::fopen(tmp_path_.c_str(), "wb");
  if (!f_) throw CsvError(path + ": cannot create file (" + std::strerror(errno) + ")");
  temp_slot_ = register_temp(tmp_path_);
  ::fchmod(fileno(f_), mode_t(replacement_mode(target_)));
}

CsvWriter::~CsvWriter() {
  if (f_ && f_ != stdout) std::fclose(f_);
  if (!tmp_path_.empty()) std::remove(tmp_path_.c_str());
  unregister_temp(temp_slot_);
}

void CsvWriter::sep() {
  if (!at_row_start_) std::fputc(',', f_);
  at_row_start_ = false;
}

CsvWriter& CsvWriter::field(const std::string& s) {
  sep();
  bool edge_blank = !s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) ||
                                   std::isspace(static_cast<unsigned char>(s.back())));
  if (s.find_first_of(",\"\r\n") == std::string::npos && !edge_blank) {
    std::fputs(s.c_str(), f_);
    return *this;
  }
  std::fputc('"', f_);
  for (char c : s) {
    if (c == '"') std::fputc('"', f_);
    std::fputc(c, f_);
  }
  std::fputc('"', f_);
  return *this;
}

CsvWriter& CsvWriter::field(double v) {
  sep();
  std::fputs(format_double(v).c_str(), f_);
  return *this;
}

CsvWriter& CsvWriter::field(long long v) {
  sep();
  std::fprintf(f_, "%lld", v);
  return *this;
}

void CsvWriter::end_row() {
  std::fputc('\n', f_);
  at_row_start_ = true;
}

void CsvWriter::row(const std::vector<std::string>& fields) {
  for (const auto& s : fields) field(s);
  end_row();
}

void CsvWriter::flush() {
  if (!f_ || !tmp_path_.empty()) return;
  if (std::fflush(f_) != 0 || std::ferror(f_))
    throw CsvError((f_ == stdout ? std::string("standard output") : path_) + ": write failed (" +
                   std::strerror(errno) + ")");
}

void CsvWriter::finish() {
  if (!f_) return;
  if (f_ == stdout) {
    f_ = nullptr;
    // a redirect to a full disk or a closed pipe: the rows did not all arrive
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      throw CsvError(std::string("standard output: write failed (") + std::strerror(errno) + ")");
    return;
  }
  bool ok = std::ferror(f_) == 0;
  ok = (std::fclose(f_) == 0) && ok;
  f_ = nullptr;
  finished_ = true;
  if (!ok) {
    int err = errno;
    if (!tmp_path_.empty()) std::remove(tmp_path_.c_str());
    tmp_path_.clear();
    unregister_temp(std::exchange(temp_slot_, -1));
    throw CsvError(path_ + ": write failed (" + std::strerror(err) + ")");
  }
}

void CsvWriter::close() {
  finish();
  if (!finished_ || tmp_path_.empty()) return;
  finished_ = false;
  const bool moved = std::rename(tmp_path_.c_str(), target_.c_str()) == 0;
  const int err = errno;
  if (!moved) std::remove(tmp_path_.c_str());
  tmp_path_.clear();
  unregister_temp(std::exchange(temp_slot_, -1));
  if (!moved) throw CsvError(path_ + ": write failed (" + std::strerror(err) + ")");
}

}  // namespace ikwb
