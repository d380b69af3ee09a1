#include "app/cli/cli_args.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

namespace ikwb {

namespace {

// "-1", "-.5", "-1e3": negative numbers are values, not options
bool looks_numeric(const std::string& s) {
  return s.size() > 1 && s[0] == '-' &&
         (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
}

}  // namespace

ArgParser::ArgParser(std::string command, std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)) {}

void ArgParser::add_positional(const std::string& name, const std::string& help, bool required) {
  Spec s;
  s.name = name, s.help = help, s.positional = true, s.required = required;
  specs_.push_back(s);
}

void ArgParser::add_flag(const std::string& name, const std::string& help) {
  Spec s;
  s.name = name, s.help = help, s.is_flag = true;
  specs_.push_back(s);
}

void ArgParser::add_option(const std::string& name, const std::string& value_name,
                           const std::string& help, bool repeatable) {
  Spec s;
  s.name = name, s.value_name = value_name, s.help = help, s.repeatable = repeatable;
  specs_.push_back(s);
}

void ArgParser::add_required_option(const std::string& name, const std::string& value_name,
                                    const std::string& help) {
  add_option(name, value_name, help);
  specs_.back().required = true;
}

const ArgParser::Spec* ArgParser::find_option(const std::string& name) const {
  for (const Spec& s : specs_)
    if (!s.positional && s.name == name) return &s;
  return nullptr;
}

const ArgParser::Spec& ArgParser::declared(const std::string& name) const {
  for (const Spec& s : specs_)
    if (s.name == name) return s;
  throw std::logic_error("ArgParser: '" + name + "' was never declared");
}

void ArgParser::parse(int argc, char** argv, int first) {
  values_.clear();
  help_ = false;
  std::vector<std::string> positionals;
  bool options_done = false;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_done || arg.empty() || arg[0] != '-' || arg == "-" || looks_numeric(arg)) {
      positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      help_ = true;
      return;
    }
    if (arg.size() < 3 || arg[1] != '-') throw CliError("unknown option '" + arg + "'");
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    std::size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const Spec* spec = find_option(name);
    if (!spec) throw CliError("unknown option '--" + name + "'");
    if (spec->is_flag) {
      if (has_value) throw CliError("option '--" + name + "' takes no value");
      values_[name].push_back("");
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc)
        throw CliError("option '--" + name + "' needs a value (" + spec->value_name + ")");
      value = argv[++i];
      // `--out --com` wrote a file named "--com" and left --com out
      if (value.rfind("--", 0) == 0) {
        const std::string next = value.substr(2, value.find('=') - 2);
        if (find_option(next) || next == "help")
          throw CliError("option '--" + name + "' needs a value (" + spec->value_name +
                         "), not the option '" + value + "' (a value that starts with --: --" +
                         name + "=" + value + ")");
      }
    }
    // a file's name (its value names one: "Q.csv", "FILE", "OUT") is never empty (an empty
    // --targets read "ikwb solve: : cannot open the file"); an empty folder to search (DIR) is
    // warned of where it is read, as one that does not exist
    const std::string& v = spec->value_name;
    if (value.empty() && (v.find('.') != std::string::npos || v == "FILE" || v == "OUT"))
      throw CliError("option '--" + name + "': the path is empty (" + v + ")");
    auto& vals = values_[name];
    if (!vals.empty() && !spec->repeatable)
      throw CliError("option '--" + name + "' given more than once");
    vals.push_back(value);
  }
  for (const Spec& s : specs_)
    if (!s.positional && s.required && !values_.count(s.name))
      throw CliError("missing option --" + s.name + " " + s.value_name);
  std::size_t next = 0;
  for (const Spec& s : specs_) {
    if (!s.positional) continue;
    if (next < positionals.size()) {
      values_[s.name].push_back(positionals[next++]);
    } else if (s.required) {
      throw CliError("missing argument " + s.name);
    }
  }
  if (next < positionals.size()) throw CliError("unexpected argument '" + positionals[next] + "'");
}

std::string ArgParser::short_usage() const {
  std::string line = "usage: " + command_;
  for (const Spec& s : specs_)
    if (s.positional) line += s.required ? " " + s.name : " [" + s.name + "]";
  for (const Spec& s : specs_)
    if (!s.positional && s.required) line += " --" + s.name + " " + s.value_name;
  return line + " [options]\n'" + command_ + " --help' lists them\n";
}

std::string ArgParser::usage() const {
  std::string line = "usage: " + command_;
  std::string body;
  for (const Spec& s : specs_) {
    std::string synopsis;
    if (s.positional) {
      synopsis = s.name;
      line += s.required ? " " + s.name : " [" + s.name + "]";
    } else {
      synopsis = "--" + s.name + (s.is_flag ? "" : " " + s.value_name);
      line += (s.required ? " " + synopsis : " [" + synopsis + "]") + (s.repeatable ? "..." : "");
    }
    std::string pad = synopsis.size() < 24 ? std::string(24 - synopsis.size(), ' ') : " ";
    body += "  " + synopsis + pad + s.help + "\n";
  }
  return line + "\n" + summary_ + "\n" + body + "  --help                  show this help\n";
}

bool ArgParser::has(const std::string& name) const {
  declared(name);
  return values_.count(name) > 0;
}

std::string ArgParser::get(const std::string& name, const std::string& fallback) const {
  declared(name);
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> ArgParser::get_all(const std::string& name) const {
  declared(name);
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>() : it->second;
}

std::string ArgParser::require(const std::string& name) const {
  const Spec& s = declared(name);
  if (!has(name)) {
    throw CliError(s.positional ? "missing argument " + s.name
                                : "missing option --" + s.name + " " + s.value_name);
  }
  return get(name);
}

double ArgParser::get_double(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  std::string v = get(name);
  const char* b = v.data();
  const char* e = b + v.size();
  if (b != e && *b == '+') ++b;
  double out = 0;
  auto r = std::from_chars(b, e, out);
  if (v.empty() || r.ec != std::errc() || r.ptr != e || !std::isfinite(out))
    throw CliError("option '--" + name + "': '" + v + "' is not a number");
  return out;
}

long long ArgParser::get_int(const std::string& name, long long fallback) const {
  if (!has(name)) return fallback;
  std::string v = get(name);
  const char* b = v.data();
  const char* e = b + v.size();
  if (b != e && *b == '+') ++b;
  long long out = 0;
  auto r = std::from_chars(b, e, out);
  if (r.ec == std::errc::result_out_of_range && r.ptr == e)
    throw CliError("option '--" + name + "': '" + v + "' is beyond the integer range");
  if (v.empty() || r.ec != std::errc() || r.ptr != e)
    throw CliError("option '--" + name + "': '" + v + "' is not an integer");
  return out;
}

long long ArgParser::get_int(const std::string& name, long long fallback, long long min,
                             long long max) const {
  if (!has(name)) return fallback;
  std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  long long out = 0;
  try {
    out = get_int(name, fallback);
  } catch (const CliError& e) {
    throw CliError(std::string(e.what()) + "; expected an integer in " + range);
  }
  if (out < min || out > max)
    throw CliError("option '--" + name + "': " + get(name) + " is out of range " + range);
  return out;
}

}  // namespace ikwb
