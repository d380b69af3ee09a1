// Numeric CSV files for the command line tools: reading rows of numbers with errors that name
// the file and line, and writing rows with round-trip precision.
#pragma once

#include <cstdio>
#include <functional>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ikwb {

// The message starts with "FILE:LINE: " (or "FILE: " when no line applies).
class CsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CsvReadOptions {
  // values per row; -1 accepts any count as long as every row has the same
  int expected_columns = -1;
  // what the count means, for messages ("expected 7 values (joint_coord_count), got 6")
  std::string columns_name;
  // a first row in which no field is or starts like a number (digit, sign, '.') is a header
  bool allow_header = true;
  // where the caller knows the names a header may hold: a first row with one of them that is no
  // number, and no number that is not one of them, is a header though fields start like numbers
  // (a joint '2nd_joint', or '0' beside 'shoulder'; an unknown name in it is then
  // check_header's to name), and so is one that `whole_header` takes whole though its fields
  // are all numbers (joints named 1, 2, 3, each once)
  std::function<bool(const std::string&)> header_name;
  std::function<bool(const std::vector<std::string>&)> whole_header;
  // accept nan and inf
  bool allow_non_finite = false;
  // a header names the columns: expected_columns holds only without one (the caller checks the
  // header's names, and the rows must match the header)
  bool header_names_columns = false;
  // called with the header as soon as it is read, before any row: an error about the names
  // comes before one about a row (returns what is wrong with them, "" when nothing)
  std::function<std::string(const std::vector<std::string>&)> check_header;
};

struct NumericTable {
  std::vector<std::string> header;        // (column_count) or empty when there was none
  int header_line = 0;                    // 1-based line of the header; 0 when none
  std::vector<std::vector<double>> rows;  // (row_count x column_count)
  std::vector<int> lines;                 // (row_count) 1-based line of each row in the file
  std::size_t row_count() const { return rows.size(); }
  std::size_t column_count() const { return rows.empty() ? header.size() : rows[0].size(); }
  // the rows concatenated, row-major (row_count x column_count)
  std::vector<double> flat() const;
};

// Reads comma-separated numbers. Blank lines and lines whose first non-blank character is '#'
// are skipped; fields may be surrounded by spaces or double quotes; a trailing comma ends a line
// without adding a value; CRLF line ends are fine.
// Throws CsvError naming the file and line for unreadable files, non-numeric fields, wrong
// counts and (unless allowed) non-finite values. The path "-" reads standard input, named
// kStandardInput in messages.
inline constexpr const char* kStandardInput = "<standard input>";
NumericTable read_numeric_csv(const std::string& path, const CsvReadOptions& options = {});
// same from a stream; source_name is used in messages
NumericTable parse_numeric_csv(std::istream& in, const std::string& source_name,
                               const CsvReadOptions& options = {});

// A field as messages show it: in single quotes, control characters and bytes that are not
// part of a UTF-8 character as \xNN, and cut to 40 characters with "..." (a binary file's bytes
// and a terminal's escapes stay off the terminal).
std::string quote_field(const std::string& f);

// "column 8 ('torso_yaw')": a column by number, and by its name where the header gives one
std::string column_label(const std::vector<std::string>& header, std::size_t column);

// Why field f is no number: "'f' is not a number", or "'f' is out of range" for one beyond a
// double's range (1e400, which would read as infinity); f as quote_field shows it.
std::string not_a_number(const std::string& f);

// What to do about field f, which is no number, as " (...)" to append to not_a_number, or "":
// a '#' in it is a comment after values (a comment takes a line of its own), a semicolon another
// separator (without a decimal point, as with decimal commas), spaces or tabs values not
// separated by commas.
std::string field_hint(const std::string& f);

// Reads the next line of a CSV file into `line` and counts it in *line_no. Lines end at "\n",
// "\r\n" or a lone "\r" (an old Mac file), which are not kept; the first line loses a UTF-8
// byte order mark (which spreadsheet programs write, and which would otherwise stick to the
// first field, unseen). False at the end. Throws CsvError "SOURCE_NAME:LINE: ..." for text that
// is not UTF-8 or ASCII: a UTF-16 byte order mark, or a NUL byte (UTF-16 or a binary file), and
// for a line longer than kMaxCsvLineBytes, as soon as it is met (/dev/zero is refused at once).
constexpr std::size_t kMaxCsvLineBytes = std::size_t(16) << 20;
bool next_csv_line(std::istream& in, std::string& line, int* line_no,
                   const std::string& source_name);

// Splits one CSV line into fields (double-quoted fields may contain commas and "" escapes);
// fields are trimmed of spaces and tabs outside quotes.
std::vector<std::string> split_csv_line(const std::string& line);

// one field as a number, in decimal: all of it, an optional leading '+', no blanks (NaN and inf
// parse; a value too small for a double is 0, one too large fails: not_a_number says why). Every
// command's CSV reader uses it (`solve --scene` read hex and a plain solve did not).
bool parse_csv_number(const std::string& s, double* out);

// Shortest decimal text that reads back as exactly v ("0.1", "1e-300", "nan", "inf").
std::string format_double(double v);

// Whether an output file is written as JSON: its name ends in .json, in any case (T.JSON too);
// the exports write CSV to any other name (a trajectory, stored configurations).
bool names_json_output(const std::string& path);

// A mimic joint's value from its source's: "2 x SOURCE - 0.1", "SOURCE" (multiplier 1, offset
// 0), numbers to 6 significant digits
std::string mimic_formula(const std::string& source, double multiplier, double offset);

// A share (0 to 1) as a percentage with `decimals` decimals, or more (up to 6) where fewer would
// round a share short of 1 up to "100.0" or one above 0 down to "0.0": 49998 of 50000 solved
// reads 99.996, not 100.0. No percent sign.
std::string format_percent(double share, int decimals);

// A run's duration for the summary lines: "%.3f s" from 0.1 s on, below it in milliseconds to
// three significant digits ("12.3 ms", "0.481 ms"): a run of a few targets read "in 0.000 s".
std::string format_seconds(double seconds);

// From now on SIGINT, SIGTERM and SIGHUP remove the temporary files of the CsvWriters open at the
// time before they end the process (the command line front end calls it once): a run stopped
// with Ctrl-C leaves neither a half-written output nor a stray temporary file. One line on
// standard error says so: each output not written, and that standard output (when rows go
// there) has the whole rows written before the signal.
void remove_temporary_outputs_on_interrupt();

// Writes a CSV file row by row. The data goes to a temporary file beside the target and
// replaces it on close(), so a failed run never leaves a half-written file; "-" writes to
// standard output instead (as it goes: see flush()), and a device, pipe or link is written as
// output_target (engine/core/output_target.hpp) says.
class CsvWriter {
 public:
  // throws CsvError when the file cannot be created
  explicit CsvWriter(const std::string& path);
  // without close(), the temporary file is removed and the target left as it was
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // fields of the current row; strings are quoted when they contain ',', '"' or line breaks
  CsvWriter& field(const std::string& s);
  CsvWriter& field(const char* s) { return field(std::string(s)); }
  CsvWriter& field(double v);
  CsvWriter& field(int v) { return field(static_cast<long long>(v)); }
  CsvWriter& field(long long v);
  void end_row();
  void row(const std::vector<std::string>& fields);
  // hands the rows written so far to standard output, a pipe or a device now, so a reader sees
  // them while the command runs (throws CsvError when they do not arrive); a file written
  // through a temporary file shows only at close(), so its rows stay buffered
  void flush();
  // writes out what is buffered and checks that it all arrived (throws CsvError if not),
  // leaving the file to close(): a command with two outputs finishes both before it moves
  // either into place
  void finish();
  // finish(), then moves the file into place; throws CsvError on write errors
  void close();

 private:
  void sep();
  std::string path_;      // as given
  std::string target_;    // what the temporary file replaces (output_target)
  std::string tmp_path_;  // empty when written in place
  int temp_slot_ = -1;    // where an interrupt's handler finds tmp_path_ (-1: not listed)
  std::FILE* f_ = nullptr;
  bool finished_ = false;  // finish() done, close() has not moved the file yet
  bool at_row_start_ = true;
};

}  // namespace ikwb
