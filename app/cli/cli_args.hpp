// A small command line parser shared by the `ikwb` subcommands: positionals, `--name value`,
// `--name=value`, repeatable options and boolean flags; unknown flags are errors.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ikwb {

// A usage error; the message names the argument and the problem.
class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ArgParser {
 public:
  // command: how usage() names the program ("ikwb fk"); summary: one line about it
  ArgParser(std::string command, std::string summary);

  // declarations, in the order usage() lists them; names are given without dashes
  void add_positional(const std::string& name, const std::string& help, bool required = true);
  void add_flag(const std::string& name, const std::string& help);
  // value_name is shown in usage (--q FILE); repeatable options collect every occurrence
  void add_option(const std::string& name, const std::string& value_name, const std::string& help,
                  bool repeatable = false);
  // an option parse() insists on ("missing option --name VALUE")
  void add_required_option(const std::string& name, const std::string& value_name,
                           const std::string& help);

  // Parses argv[first..argc). `--` ends the options; `-h`/`--help` sets help_requested() and
  // stops. Tokens starting with '-' that are not numbers (-1, -.5) must be declared options.
  // Throws CliError for unknown options, missing or unexpected values, repeated single options,
  // missing required options or positionals, and extra positionals.
  void parse(int argc, char** argv, int first = 1);

  bool help_requested() const { return help_; }
  std::string usage() const;
  // what follows a usage error: the synopsis of what is required and where the options are
  // ("usage: ikwb fk ROBOT.urdf --q Q.csv --out POSES.csv [options]\n'ikwb fk --help' lists
  // them\n"), not the whole help, which would bury the error
  std::string short_usage() const;

  // whether an option / flag was given, or a positional filled
  bool has(const std::string& name) const;
  // whether the command declares the option at all (shared option sets that differ by command)
  bool declares(const std::string& name) const { return find_option(name) != nullptr; }
  // value of an option or positional; fallback when absent
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // every value of a (repeatable) option, in command line order
  std::vector<std::string> get_all(const std::string& name) const;
  // numeric values; throw CliError naming the option when the value is not a number
  double get_double(const std::string& name, double fallback) const;
  long long get_int(const std::string& name, long long fallback) const;
  // an integer in [min, max]; throws CliError naming the option and the range otherwise
  long long get_int(const std::string& name, long long fallback, long long min,
                    long long max) const;
  // a required option: throws CliError "missing --name VALUE" when absent
  std::string require(const std::string& name) const;

 private:
  struct Spec {
    std::string name, value_name, help;
    bool is_flag = false, repeatable = false, positional = false, required = false;
  };
  const Spec* find_option(const std::string& name) const;
  const Spec& declared(const std::string& name) const;

  std::string command_, summary_;
  std::vector<Spec> specs_;
  std::map<std::string, std::vector<std::string>> values_;
  bool help_ = false;
};

}  // namespace ikwb
