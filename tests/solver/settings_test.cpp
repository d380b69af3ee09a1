// Tests for solver/settings: the table names every setting once (unique keys, flags, members),
// its ranges agree with validate_settings, scene JSON round-trips every entry, unusable values
// and unknown keys are warnings naming the key, text parses as the command line gives it, and
// settings comparison sees every entry.
#include "solver/settings.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "solver/settings_values.hpp"

namespace ikwb {
namespace {

using nlohmann::json;

TEST(SolverSettingsTable, NamesEverySettingOnce) {
  const auto& table = solver_settings_table();
  std::set<std::string> keys, flags;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const SettingInfo& info = table[i];
    SCOPED_TRACE(info.key);
    EXPECT_TRUE(keys.insert(info.key).second);
    EXPECT_TRUE(flags.insert(info.flag).second);
    for (std::size_t k = 0; k < i; ++k) EXPECT_FALSE(table[k].member == info.member);
    EXPECT_EQ(find_setting(info.key), &info);
    EXPECT_EQ(&setting_for(info.member), &info);
    EXPECT_NE(std::string(info.label), "");
    EXPECT_NE(std::string(info.help), "");
    EXPECT_EQ(std::string(info.value_name).empty(), info.kind() == SettingKind::kBool);
    if (i > 0) {
      EXPECT_GE(int(info.group), int(table[i - 1].group)) << "grouped";
    }
    if (info.kind() == SettingKind::kEnum) {
      EXPECT_GE(info.choices().size(), 2u);
    }
  }
  EXPECT_EQ(find_setting("colour"), nullptr);
}

TEST(SolverSettingsTable, KeepsTheScenesKeysAndTheCommandLinesFlags) {
  // scene files and users' scripts written before the table use these
  for (const char* key : {"backend", "optimizer", "jacobian", "sampler", "n_seeds", "iterations",
                          "polish", "gaussian_sigma", "damping", "tol_position", "tol_rotation",
                          "prefer_closest", "hard_joint_limits", "marquardt_scaling", "threads"})
    EXPECT_NE(find_setting(key), nullptr) << key;
  std::set<std::string> flags;
  for (const SettingInfo& info : solver_settings_table()) flags.insert(info.flag);
  for (const char* flag :
       {"backend", "optimizer", "jacobian", "seeds", "sampler", "iterations", "polish", "restarts",
        "stall", "tol-pos", "tol-rot", "budget-ms", "threads", "rng-seed", "float", "soft-limits"})
    EXPECT_EQ(flags.count(flag), 1u) << flag;
}

TEST(SolverSettingsTable, RangesHoldTheDefaultsAndPassValidation) {
  const SolverSettings defaults;
  for (const SettingInfo& info : solver_settings_table()) {
    SCOPED_TRACE(info.key);
    const SettingKind kind = info.kind();
    if (kind != SettingKind::kInt && kind != SettingKind::kDouble) continue;
    EXPECT_LE(info.min, info.typical_min);
    EXPECT_LT(info.typical_min, info.typical_max);
    EXPECT_LE(info.typical_max, info.max);
    const double now = setting_json(info, defaults).get<double>();
    EXPECT_GE(now, info.min);
    EXPECT_LE(now, info.max);
    // every valid value is one the solver accepts
    for (double x : {info.min, info.max}) {
      if (x > 1e18) continue;  // rng_seed's 2^64 is out of reach of a double, see below
      SolverSettings s;
      std::string error;
      ASSERT_TRUE(set_setting_json(info, json(x), s, &error)) << x << ": " << error;
      EXPECT_NO_THROW(validate_settings(s)) << x;
    }
  }
}

TEST(SolverSettingsJson, RoundTripsEveryEntry) {
  for (const SettingInfo& info : solver_settings_table()) {
    SCOPED_TRACE(info.key);
    SolverSettings s;
    const json value = test::other_value(info, s);
    std::string error;
    ASSERT_TRUE(set_setting_json(info, value, s, &error)) << value << ": " << error;
    EXPECT_EQ(setting_json(info, s), value);
    EXPECT_NE(s, SolverSettings());
    // through a scene file's text
    const json written = json::parse(solver_settings_json(s).dump());
    EXPECT_EQ(written.size(), solver_settings_table().size());
    EXPECT_EQ(written.at(info.key), value);
    SolverSettings back;
    std::vector<std::string> warnings;
    apply_solver_json(written, back, warnings);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    EXPECT_EQ(back, s);
  }
}

TEST(SolverSettingsJson, KeepsUnitsAndLargeSeedsExact) {
  SolverSettings s;
  std::vector<std::string> warnings;
  apply_solver_json({{"budget_ms", 5}, {"rng_seed", 18446744073709551615ull}, {"polish", 3}}, s,
                    warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_DOUBLE_EQ(s.time_budget_s, 0.005);
  EXPECT_EQ(s.rng_seed, 18446744073709551615ull);
  EXPECT_EQ(s.polish_iterations, 3);
  const json j = solver_settings_json(s);
  EXPECT_DOUBLE_EQ(j["budget_ms"].get<double>(), 5.0);
  EXPECT_EQ(j["rng_seed"].get<uint64_t>(), 18446744073709551615ull);
  EXPECT_EQ(j["polish"], 3);
}

TEST(SolverSettingsJson, UnusableValuesAreWarningsNamingTheKey) {
  for (const SettingInfo& info : solver_settings_table()) {
    SCOPED_TRACE(info.key);
    std::vector<json> bad = {"many", nullptr, json::array({1})};
    switch (info.kind()) {
      case SettingKind::kBool:
        bad.push_back(1);
        bad.push_back("true");  // a scene says true, not "true"
        break;
      case SettingKind::kEnum:
        bad.push_back("warp_drive");
        bad.push_back(0);
        break;
      case SettingKind::kInt:
        bad.push_back(info.min - 1);
        bad.push_back(info.typical_min + 0.5);
        if (info.max < 1e18) bad.push_back(info.max + 1);
        bad.push_back(true);
        break;
      case SettingKind::kDouble:
        bad.push_back(info.min - 1);
        bad.push_back(info.max * 2 + 1);
        bad.push_back(true);
        break;
    }
    for (const json& v : bad) {
      SolverSettings s;
      std::vector<std::string> warnings;
      apply_solver_json({{info.key, v}}, s, warnings);
      ASSERT_EQ(warnings.size(), 1u) << v;
      EXPECT_EQ(warnings[0].rfind("solver." + std::string(info.key) + ": ", 0), 0u) << warnings[0];
      EXPECT_NE(warnings[0].find(info.expects()), std::string::npos) << warnings[0];
      EXPECT_EQ(s, SolverSettings()) << "the setting keeps its value";
    }
  }
  SolverSettings s;
  std::vector<std::string> warnings;
  apply_solver_json({{"colour", "red"}, {"iterations", 40}}, s, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "solver.colour: unknown setting ignored");
  EXPECT_EQ(s.max_iterations, 40);
}

TEST(SolverSettingsText, ParsesWhatTheCommandLineAndScriptsGive) {
  SolverSettings s;
  std::string error;
  auto set = [&](const char* key, const std::string& text) {
    return set_setting_text(*find_setting(key), text, s, &error);
  };
  EXPECT_TRUE(set("iterations", "+40"));
  EXPECT_EQ(s.max_iterations, 40);
  EXPECT_TRUE(set("damping", "1e-2"));
  EXPECT_DOUBLE_EQ(s.lambda_init, 0.01);
  EXPECT_TRUE(set("budget_ms", "250"));
  EXPECT_DOUBLE_EQ(s.time_budget_s, 0.25);
  EXPECT_TRUE(set("prefer_closest", "on"));
  EXPECT_TRUE(s.prefer_closest);
  EXPECT_TRUE(set("prefer_closest", "0"));
  EXPECT_FALSE(s.prefer_closest);
  EXPECT_TRUE(set("jacobian", "finite_difference"));
  EXPECT_EQ(s.jacobian, JacobianMode::kFiniteDifference);
  EXPECT_TRUE(set("rng_seed", "18446744073709551615"));
  EXPECT_EQ(s.rng_seed, 18446744073709551615ull);

  const SolverSettings before = s;
  for (auto [key, text] :
       std::vector<std::pair<const char*, const char*>>{{"iterations", "0"},
                                                        {"iterations", "40x"},
                                                        {"iterations", "2.5"},
                                                        {"polish", ""},
                                                        {"damping", "nan"},
                                                        {"tol_position", "-1"},
                                                        {"rng_seed", "-1"},
                                                        {"rng_seed", "12abc"},
                                                        {"hard_joint_limits", "maybe"},
                                                        {"backend", "gpu"}}) {
    EXPECT_FALSE(set(key, text)) << key << " " << text;
    EXPECT_EQ(error, "'" + std::string(text) + "' is not " + find_setting(key)->expects());
  }
  EXPECT_EQ(s, before);
  EXPECT_EQ(find_setting("backend")->expects(), "one of cpu, cuda");
  EXPECT_EQ(find_setting("iterations")->expects(), "an integer from 1 to 100000");
}

TEST(SolverSettingsCompare, SeesEveryEntry) {
  const SolverSettings a;
  EXPECT_EQ(a, SolverSettings());
  for (const SettingInfo& info : solver_settings_table()) {
    SolverSettings b = a;
    ASSERT_TRUE(set_setting_json(info, test::other_value(info, b), b, nullptr)) << info.key;
    EXPECT_NE(a, b) << info.key;
    EXPECT_FALSE(a == b) << info.key;
  }
}

}  // namespace
}  // namespace ikwb
