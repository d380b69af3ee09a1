#include "app/cli/solver_args.hpp"

#include <cmath>

#include "app/cli/csv.hpp"
#include "engine/core/spatial.hpp"

namespace ikwb {

void add_solver_options(ArgParser& a) {
  for (const SettingInfo& info : solver_settings_table()) {
    if (info.kind() == SettingKind::kBool)
      a.add_flag(info.flag, info.flag_help());
    else
      a.add_option(info.flag, info.value_name, info.flag_help());
  }
}

SolverSettings read_solver_options(const ArgParser& a, SolverSettings s, bool sampler_named) {
  bool sampler_given = false;
  for (const SettingInfo& info : solver_settings_table()) {
    if (!a.has(info.flag)) continue;
    sampler_given |= info.member == SettingMember(&SolverSettings::sampler);
    std::string error;
    if (info.kind() == SettingKind::kBool)
      s.*std::get<bool SolverSettings::*>(info.member) = info.flag_value;
    else if (!set_setting_text(info, a.get(info.flag), s, &error))
      throw CliError("option '--" + std::string(info.flag) + "': " + error);
  }
  default_seed_sampler(s, sampler_given || sampler_named);
  try {
    validate_settings(s);
  } catch (const std::invalid_argument& e) {
    throw CliError(e.what());
  }
  return s;
}

Vec3<double> parse_vec3(const std::string& name, const std::string& text) {
  std::vector<std::string> f = split_csv_line(text);
  Vec3<double> v{0, 0, 0};
  if (f.size() != 3) throw CliError("--" + name + ": expected X,Y,Z, got '" + text + "'");
  for (int i = 0; i < 3; ++i) {
    char* end = nullptr;
    v[i] = std::strtod(f[i].c_str(), &end);
    if (end == f[i].c_str() || *end || !std::isfinite(v[i]))
      throw CliError("--" + name + ": '" + f[i] + "' is not a finite number");
    if (std::fabs(v[i]) > kMaxLength)
      throw CliError("--" + name + ": '" + f[i] + "' is out of range (magnitude above 1e6)");
  }
  return v;
}

}  // namespace ikwb
