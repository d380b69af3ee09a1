#include "app/cli/csv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <limits>
#include <sstream>

#include "core/endless_stream.hpp"
#include "core/temp_files.hpp"

namespace ikwb {
namespace {

using test::TempDir;

NumericTable parse(const std::string& text, const CsvReadOptions& opt = {}) {
  std::istringstream in(text);
  return parse_numeric_csv(in, "q.csv", opt);
}

std::string parse_error(const std::string& text, const CsvReadOptions& opt = {}) {
  try {
    parse(text, opt);
  } catch (const CsvError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Csv, ReadsRowsSkippingCommentsAndBlankLines) {
  NumericTable t = parse("# comment\n\n1, 2.5,-3\r\n  # indented comment\n+4,5e-3,6\n\n");
  ASSERT_EQ(t.row_count(), 2u);
  EXPECT_EQ(t.column_count(), 3u);
  EXPECT_TRUE(t.header.empty());
  EXPECT_EQ(t.rows[0], (std::vector<double>{1, 2.5, -3}));
  EXPECT_EQ(t.rows[1], (std::vector<double>{4, 5e-3, 6}));
  EXPECT_EQ(t.lines, (std::vector<int>{3, 5}));
  EXPECT_EQ(t.flat(), (std::vector<double>{1, 2.5, -3, 4, 5e-3, 6}));
}

TEST(Csv, HeaderAndQuotedFields) {
  NumericTable t = parse("\"a, first\",b,\" c \"\n1,\"2\",3\n");
  EXPECT_EQ(t.header, (std::vector<std::string>{"a, first", "b", " c "}));
  ASSERT_EQ(t.row_count(), 1u);
  EXPECT_EQ(t.rows[0][1], 2);
  EXPECT_EQ(split_csv_line("x,\"say \"\"hi\"\"\", y "),
            (std::vector<std::string>{"x", "say \"hi\"", "y"}));
  EXPECT_EQ(split_csv_line(""), (std::vector<std::string>{""}));
}

// a byte order mark (spreadsheets write one) is not part of the first field
TEST(Csv, AByteOrderMarkIsSkipped) {
  NumericTable t = parse("\xEF\xBB\xBFj1,j2\r\n0.5,1\r\n");
  ASSERT_EQ(t.header.size(), 2u);
  EXPECT_EQ(t.header[0], "j1");
  ASSERT_EQ(t.row_count(), 1u);
  EXPECT_EQ(t.rows[0][0], 0.5);
  NumericTable n = parse(
      "\xEF\xBB\xBF"
      "0.25,2\n");
  ASSERT_EQ(n.row_count(), 1u);
  EXPECT_EQ(n.rows[0][0], 0.25);
  EXPECT_EQ(n.lines[0], 1);
}

// the line ends of other systems and a trailing comma read as usual; text that is not UTF-8 or
// ASCII (UTF-16 from a spreadsheet, a binary file) is named as such, and a field's bytes in a
// message are escaped and cut short
TEST(Csv, OtherLineEndsTrailingCommasAndFilesThatAreNotText) {
  NumericTable t = parse("a,b\r1,2,\r\r3,4\r\n5,6");
  ASSERT_EQ(t.row_count(), 3u);
  EXPECT_EQ(t.header, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.rows[2], (std::vector<double>{5, 6}));
  EXPECT_EQ(t.lines, (std::vector<int>{2, 4, 5}));
  EXPECT_EQ(parse_error(std::string("\xFF\xFE"
                                    "1\0,\0"
                                    "2\0\n\0",
                                    10)),
            "q.csv:1: the file is UTF-16 text; save it as UTF-8 (a spreadsheet's \"CSV UTF-8\")");
  EXPECT_EQ(parse_error(std::string("\x7F"
                                    "ELF\x02\x01\0\0\n",
                                    9))
                .rfind("q.csv:1: a NUL byte: the "
                       "file is not text",
                       0),
            0u);
  EXPECT_EQ(parse_error("1,\x1B[31mred\n"), "q.csv:1: column 2 '\\x1B[31mred' is not a number");
  EXPECT_EQ(parse_error("1," + std::string(50, 'a') + "\n"),
            "q.csv:1: column 2 '" + std::string(40, 'a') + "...' is not a number");
}

// /dev/zero (NUL bytes without end) and an endless line are refused as soon as they are met; the
// reader went on reading /dev/zero into one line until the memory ran out
TEST(Csv, AFileWithoutEndIsRefusedWhereItStopsBeingCsv) {
  test::EndlessBuffer zeros('\0');
  std::istream z(&zeros);
  std::string line;
  int line_no = 0;
  try {
    next_csv_line(z, line, &line_no, "/dev/zero");
    FAIL() << "read a line of /dev/zero";
  } catch (const CsvError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/dev/zero:1: a NUL byte", 0), 0u) << e.what();
  }
  EXPECT_EQ(zeros.pieces(), 1);
  test::EndlessBuffer letters('a');
  std::istream a(&letters);
  line_no = 0;
  try {
    next_csv_line(a, line, &line_no, "big.csv");
    FAIL() << "read an endless line";
  } catch (const CsvError& e) {
    EXPECT_EQ(std::string(e.what()),
              "big.csv:1: a line longer than 16 MiB: not a file of comma-separated numbers");
  }
  EXPECT_LE(letters.pieces() * test::EndlessBuffer::kPieceBytes,
            long(kMaxCsvLineBytes) + test::EndlessBuffer::kPieceBytes);
}

// bytes of a binary file that are not UTF-8 are shown escaped, characters that are stay whole
TEST(Csv, QuotedFieldsEscapeWhatIsNotUtf8) {
  EXPECT_EQ(quote_field("\xFF\xFE"
                        "ab \xC3\xA9\x1B[31m"),
            "'\\xFF\\xFEab \xC3\xA9\\x1B[31m'");
  EXPECT_EQ(quote_field("\xC3"), "'\\xC3'");  // a character cut short
  EXPECT_EQ(quote_field(std::string(39, 'a') + "\xC3\xA9z"),
            "'" + std::string(39, 'a') + "\xC3\xA9...'");
}

TEST(Csv, ErrorsNameTheLine) {
  CsvReadOptions opt;
  opt.expected_columns = 3;
  opt.columns_name = "joint_coord_count";
  EXPECT_EQ(parse_error("1,2,3\n\n1,2\n", opt),
            "q.csv:3: expected 3 values (joint_coord_count), got 2");
  EXPECT_EQ(parse_error("1,abc,3\n", opt), "q.csv:1: column 2 'abc' is not a number");
  EXPECT_EQ(parse_error("1,,3\n", opt), "q.csv:1: column 2 is empty");
  EXPECT_EQ(parse_error("1 2 3\n", opt),
            "q.csv:1: column 1 '1 2 3' is not a number (separate values with commas)");
  // a comment after the values, and decimal commas with semicolons between the values
  EXPECT_EQ(parse_error("1,2,3 # start\n", opt),
            "q.csv:1: column 3 '3 # start' is not a number (a comment takes a line of its own, "
            "starting with #)");
  EXPECT_EQ(parse_error("0,5;1,5;2,5\n", opt),
            "q.csv:1: column 2 '5;1' is not a number (separate values with commas, decimals with "
            "a point)");
  EXPECT_EQ(parse_error("0.5;1.5;2.5\n", opt),
            "q.csv:1: column 1 '0.5;1.5;2.5' is not a number (separate values with commas)");
  EXPECT_EQ(parse_error("1,nan,3\n", opt), "q.csv:1: column 2 is not finite ('nan')");
  // with a header, the column's name too (a review's NaN named only its number)
  EXPECT_EQ(parse_error("a,b,c\n1,nan,3\n", opt), "q.csv:2: column 2 ('b') is not finite ('nan')");
  EXPECT_EQ(parse_error("a,b,c\n1,2,x\n", opt), "q.csv:2: column 3 ('c'): 'x' is not a number");
  EXPECT_EQ(parse_error("a,b\n", opt),
            "q.csv:1: header has 2 columns, expected 3 values "
            "(joint_coord_count)");
  // a header is only allowed first, and names something: a first line of empty fields is a row
  EXPECT_EQ(parse_error("1,2,3\nx,y,z\n", opt), "q.csv:2: column 1 'x' is not a number");
  EXPECT_EQ(parse_error(",,\n1,2,3\n", opt), "q.csv:1: column 1 is empty");
  EXPECT_EQ(parse_error("1,2\n1,2,3\n"), "q.csv:2: expected 2 values as on line 1, got 3");
  CsvReadOptions no_header;
  no_header.allow_header = false;
  EXPECT_EQ(parse_error("x\n", no_header), "q.csv:1: column 1 'x' is not a number");
  CsvReadOptions non_finite;
  non_finite.allow_non_finite = true;
  EXPECT_TRUE(std::isinf(parse("inf,-inf\n", non_finite).rows[0][1]));
}

// numbers in decimal only, as every reader takes them: a value too small for a double is zero,
// one too large is out of range, and hex is not a number (`solve --scene` read 0x10 as 16)
TEST(Csv, NumbersAreDecimalAndTinyOnesAreZero) {
  double v = -1;
  EXPECT_TRUE(parse_csv_number("1e-400", &v));
  EXPECT_EQ(v, 0.0);
  EXPECT_TRUE(parse_csv_number("+2.5e-3", &v));
  EXPECT_EQ(v, 2.5e-3);
  for (const char* bad : {"1e400", "-1e400", "0x10", "0x1p-1", "", "1,5", " 1"})
    EXPECT_FALSE(parse_csv_number(bad, &v)) << bad;
  EXPECT_EQ(not_a_number("1e400"), "'1e400' is out of range");
  EXPECT_EQ(not_a_number("0x10"), "'0x10' is not a number");
}

TEST(Csv, ReadFileErrors) {
  try {
    read_numeric_csv("/nonexistent/q.csv");
    FAIL();
  } catch (const CsvError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/q.csv: cannot open file", 0), 0u);
  }
  TempDir dir;
  try {
    read_numeric_csv(dir.path().string());
    FAIL();
  } catch (const CsvError& e) {
    EXPECT_NE(std::string(e.what()).find(": is a directory, not a CSV file"), std::string::npos)
        << e.what();
  }
}

TEST(Csv, FormatDoubleRoundTrips) {
  EXPECT_EQ(format_double(0.1), "0.1");
  EXPECT_EQ(format_double(-2), "-2");
  EXPECT_EQ(format_double(1e-300), "1e-300");
  EXPECT_EQ(format_double(std::numeric_limits<double>::infinity()), "inf");
  for (double v : {M_PI, 1.0 / 3.0, -1e-17, 123456789.123456789, 5e-324}) {
    NumericTable t = parse(format_double(v) + "\n");
    EXPECT_EQ(t.rows[0][0], v);
  }
}

// a short run reads in milliseconds, not "0.000 s"
TEST(Csv, DurationsBelowATenthOfASecondReadInMilliseconds) {
  EXPECT_EQ(format_seconds(12.5), "12.500 s");
  EXPECT_EQ(format_seconds(0.1), "0.100 s");
  EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
  EXPECT_EQ(format_seconds(0.000481), "0.481 ms");
  EXPECT_EQ(format_seconds(0), "0.000 s");
}

// a share short of all never reads 100%, one above none never 0%
TEST(Csv, PercentagesDoNotRoundToAllOrNone) {
  EXPECT_EQ(format_percent(1.0, 1), "100.0");
  EXPECT_EQ(format_percent(0.0, 1), "0.0");
  EXPECT_EQ(format_percent(0.5, 2), "50.00");
  EXPECT_EQ(format_percent(49998.0 / 50000, 1), "99.996");
  EXPECT_EQ(format_percent(99999.0 / 100000, 2), "99.999");
  EXPECT_EQ(format_percent(1.0 / 1e6, 1), "0.0001");
  EXPECT_EQ(format_percent(1.0 / 1e9, 1), "0.000000");  // at most 6 decimals
}

TEST(Csv, WriterQuotesAndReplacesAtomically) {
  TempDir dir;
  std::string path = dir / "out.csv";
  dir.write("out.csv", "old content\n");
  {
    CsvWriter w(path);
    w.row({"name", "value"});
    w.field("a,b").field(0.1).end_row();
    w.field("say \"x\"").field(3).end_row();
    w.field(" padded").field(-1e-300).end_row();
    // not closed yet: the target still holds the old content
    EXPECT_EQ(test::read_text(path), "old content\n");
    w.close();
  }
  EXPECT_EQ(test::read_text(path),
            "name,value\n\"a,b\",0.1\n\"say \"\"x\"\"\",3\n\" padded\",-1e-300\n");
  // abandoned writers leave the target and no temporary file behind
  {
    CsvWriter w(path);
    w.row({"partial"});
  }
  EXPECT_EQ(test::read_text(path).substr(0, 10), "name,value");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.exists();
  EXPECT_EQ(files, 1);
  EXPECT_THROW(CsvWriter("/nonexistent/dir/out.csv"), CsvError);
  EXPECT_THROW(CsvWriter(""), CsvError);
}

// an interrupt (Ctrl-C, a kill) removes the temporary files of the writers open, says which
// outputs were not written, then ends the process as the signal would have
TEST(CsvDeathTest, AnInterruptRemovesTheTemporaryFiles) {
  TempDir dir;
  const std::string out = dir / "out.csv";
  EXPECT_EXIT(
      {
        remove_temporary_outputs_on_interrupt();
        CsvWriter w(out);
        w.row({"a"});
        std::raise(SIGTERM);
      },
      ::testing::KilledBySignal(SIGTERM),
      "ikwb: interrupted; [^;]*/out\\.csv not written \\(a file of that name is left as it "
      "was\\)\n");
  // rows going to standard output: it has those written, and the message says so
  EXPECT_EXIT(
      {
        remove_temporary_outputs_on_interrupt();
        CsvWriter w("-");
        w.row({"a"});
        w.flush();
        std::raise(SIGINT);
      },
      ::testing::KilledBySignal(SIGINT),
      "ikwb: interrupted; standard output has the whole rows written before it, in order\n");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.exists();
  EXPECT_EQ(files, 0);
}

// Through a symbolic link the writer replaces the link's target and keeps the link; finish()
// writes everything out but leaves the target as it was until close()
TEST(Csv, WriterKeepsLinksAndFinishesBeforeMoving) {
  TempDir dir;
  const std::string target = dir.write("real.csv", "old\n");
  const std::string link = dir / "link.csv";
  std::filesystem::create_symlink("real.csv", link);
  CsvWriter w(link);
  w.row({"a", "b"});
  w.finish();
  EXPECT_EQ(test::read_text(target), "old\n");
  w.close();
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(test::read_text(target), "a,b\n");
}

}  // namespace
}  // namespace ikwb
