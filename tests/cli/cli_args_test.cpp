#include "app/cli/cli_args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ikwb {
namespace {

// owns argv storage for parse()
struct Argv {
  explicit Argv(std::vector<std::string> a) : args(std::move(a)) {
    for (auto& s : args) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  int argc() const { return int(args.size()); }
  char** argv() { return ptrs.data(); }
  std::vector<std::string> args;
  std::vector<char*> ptrs;
};

ArgParser make_parser() {
  ArgParser p("ikwb test", "Test command.");
  p.add_positional("ROBOT", "robot file");
  p.add_positional("EXTRA", "optional", false);
  p.add_flag("json", "json output");
  p.add_option("out", "FILE", "output");
  p.add_option("seeds", "N", "seed count");
  p.add_option("scale", "X", "a number");
  p.add_option("package-path", "DIR", "search folder", true);
  return p;
}

TEST(ArgParser, RequiredOptions) {
  ArgParser p("ikwb req", "Needs --in.");
  p.add_required_option("in", "FILE", "input");
  p.add_flag("v", "verbose");
  EXPECT_NE(p.usage().find("usage: ikwb req --in FILE [--v]"), std::string::npos) << p.usage();
  std::vector<std::string> args = {"req", "--v"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    p.parse(int(argv.size()), argv.data());
    FAIL();
  } catch (const CliError& e) {
    EXPECT_EQ(std::string(e.what()), "missing option --in FILE");
  }
  args = {"req", "--help"};
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  p.parse(int(argv.size()), argv.data());
  EXPECT_TRUE(p.help_requested());
}

void parse(ArgParser& p, std::vector<std::string> args) {
  args.insert(args.begin(), "test");
  Argv a(args);
  p.parse(a.argc(), a.argv());
}

TEST(ArgParser, PositionalsOptionsAndFlags) {
  ArgParser p = make_parser();
  parse(p, {"robot.urdf", "--out", "o.csv", "--json", "--seeds=12", "--package-path", "a",
            "--package-path=b", "--scale", "-0.5"});
  EXPECT_EQ(p.get("ROBOT"), "robot.urdf");
  EXPECT_FALSE(p.has("EXTRA"));
  EXPECT_EQ(p.get("EXTRA", "none"), "none");
  EXPECT_TRUE(p.has("json"));
  EXPECT_EQ(p.get("out"), "o.csv");
  EXPECT_EQ(p.get_int("seeds", 1), 12);
  EXPECT_DOUBLE_EQ(p.get_double("scale", 1.0), -0.5);
  EXPECT_EQ(p.get_all("package-path"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.require("out"), "o.csv");
  EXPECT_FALSE(p.help_requested());
}

TEST(ArgParser, DefaultsWhenAbsent) {
  ArgParser p = make_parser();
  parse(p, {"r.urdf", "second"});
  EXPECT_EQ(p.get("EXTRA"), "second");
  EXPECT_FALSE(p.has("json"));
  EXPECT_EQ(p.get_int("seeds", 4), 4);
  EXPECT_DOUBLE_EQ(p.get_double("scale", 2.5), 2.5);
  EXPECT_TRUE(p.get_all("package-path").empty());
}

TEST(ArgParser, NegativeNumbersAndDoubleDashArePositionals) {
  ArgParser p = make_parser();
  parse(p, {"--", "--weird-name.urdf", "-3"});
  EXPECT_EQ(p.get("ROBOT"), "--weird-name.urdf");
  EXPECT_EQ(p.get("EXTRA"), "-3");
}

// an option left without its value takes the next option as it: `--out --json` wrote a file
// named "--json" and left --json out; a value that starts with -- is given with '='
TEST(ArgParser, AnOptionIsNotTakenAsTheValueOfTheOneBefore) {
  ArgParser p = make_parser();
  try {
    parse(p, {"r.urdf", "--out", "--json"});
    FAIL() << "--json taken as --out's value";
  } catch (const CliError& e) {
    EXPECT_EQ(std::string(e.what()),
              "option '--out' needs a value (FILE), not the option '--json' (a value that starts "
              "with --: --out=--json)");
  }
  EXPECT_THROW(parse(p, {"r.urdf", "--out", "--seeds=3"}), CliError);
  ArgParser q = make_parser();
  parse(q, {"r.urdf", "--out=--json"});
  EXPECT_EQ(q.get("out"), "--json");
  ArgParser u = make_parser();
  parse(u, {"r.urdf", "--out", "--not-an-option"});
  EXPECT_EQ(u.get("out"), "--not-an-option");
}

TEST(ArgParser, Help) {
  ArgParser p = make_parser();
  parse(p, {"--help"});
  EXPECT_TRUE(p.help_requested());
  std::string u = p.usage();
  EXPECT_NE(u.find("usage: ikwb test ROBOT [EXTRA]"), std::string::npos) << u;
  EXPECT_NE(u.find("--package-path DIR"), std::string::npos) << u;
  EXPECT_NE(u.find("Test command."), std::string::npos) << u;
  ArgParser q = make_parser();
  parse(q, {"r.urdf", "-h", "--bogus"});
  EXPECT_TRUE(q.help_requested());
  // after a usage error: what is required, and where the rest is (not the whole help)
  q.add_required_option("q", "Q.csv", "configurations");
  EXPECT_EQ(q.short_usage(),
            "usage: ikwb test ROBOT [EXTRA] --q Q.csv [options]\n'ikwb test --help' lists them\n");
}

TEST(ArgParser, Errors) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"r.urdf", "--bogus"}, "unknown option '--bogus'"},
      {{"r.urdf", "--bogus=1"}, "unknown option '--bogus'"},
      {{"r.urdf", "-x"}, "unknown option '-x'"},
      {{"r.urdf", "--out"}, "option '--out' needs a value (FILE)"},
      {{"r.urdf", "--json=yes"}, "option '--json' takes no value"},
      {{"r.urdf", "--out", "a", "--out", "b"}, "option '--out' given more than once"},
      {{}, "missing argument ROBOT"},
      {{"a", "b", "c"}, "unexpected argument 'c'"},
  };
  for (const Case& c : cases) {
    ArgParser p = make_parser();
    try {
      parse(p, c.args);
      ADD_FAILURE() << "no error for " << c.expect;
    } catch (const CliError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
  ArgParser p = make_parser();
  parse(p, {"r.urdf", "--seeds", "many", "--scale", "1.5x"});
  EXPECT_THROW(p.get_int("seeds", 1), CliError);
  EXPECT_THROW(p.get_double("scale", 1), CliError);
  EXPECT_THROW(p.require("package-path"), CliError);
  try {
    p.get_int("seeds", 1);
  } catch (const CliError& e) {
    EXPECT_EQ(std::string(e.what()), "option '--seeds': 'many' is not an integer");
  }
}

// integers beyond the range an option takes are refused with the option and the range, never
// wrapped to 32 bits; an empty value is not an integer
TEST(ArgParser, IntegersOutsideTheirRangeAreRefused) {
  struct Case {
    std::string value, expect;
  };
  const Case cases[] = {
      {"4294967297", "option '--seeds': 4294967297 is out of range [1, 2147483647]"},
      {"0", "option '--seeds': 0 is out of range [1, 2147483647]"},
      {"99999999999999999999",
       "option '--seeds': '99999999999999999999' is beyond the integer range; expected an "
       "integer in [1, 2147483647]"},
      {"", "option '--seeds': '' is not an integer; expected an integer in [1, 2147483647]"},
  };
  for (const Case& c : cases) {
    ArgParser p = make_parser();
    parse(p, {"r.urdf", "--seeds=" + c.value});
    try {
      p.get_int("seeds", 1, 1, 2147483647);
      ADD_FAILURE() << "no error for '" << c.value << "'";
    } catch (const CliError& e) {
      EXPECT_EQ(std::string(e.what()), c.expect);
    }
  }
  ArgParser p = make_parser();
  parse(p, {"r.urdf", "--seeds", "2147483647"});
  EXPECT_EQ(p.get_int("seeds", 1, 1, 2147483647), 2147483647);
  EXPECT_EQ(p.get_int("scale", 7, 1, 10), 7);
}

}  // namespace
}  // namespace ikwb
