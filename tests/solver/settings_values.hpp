// For tests that go through every entry of the settings table: a valid value of a setting that
// differs from its current one.
#pragma once

#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "solver/settings.hpp"

namespace ikwb::test {

// as the scene file writes it (enum: a name; double: in the user's unit)
inline nlohmann::json other_value(const SettingInfo& info, const SolverSettings& s) {
  const nlohmann::json now = setting_json(info, s);
  switch (info.kind()) {
    case SettingKind::kBool:
      return !now.get<bool>();
    case SettingKind::kEnum:
      for (const std::string& name : info.choices())
        if (name != now.get<std::string>()) return name;
      break;
    case SettingKind::kInt: {
      if (now.is_number_unsigned()) return now.get<uint64_t>() + 1;  // rng_seed
      const double x = now.get<double>() == info.typical_max ? info.typical_min : info.typical_max;
      return static_cast<long long>(x);
    }
    case SettingKind::kDouble:
      return now.get<double>() == info.typical_max ? info.typical_min : info.typical_max;
  }
  return nullptr;
}

// the same as text (command line, script)
inline std::string other_text(const SettingInfo& info, const SolverSettings& s) {
  const nlohmann::json v = other_value(info, s);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace ikwb::test
