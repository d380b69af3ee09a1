// The solver settings table: every SolverSettings member once, with the names the scene file,
// the command line and the Solver panel give it, its group, valid range and help text. Scene
// JSON, the command line options, the panel's plain widgets and settings comparison all read
// this table, so a setting is named in one place (STYLE.md, "Settings named once"). A member
// added to SolverSettings without a table entry does not compile (solver/settings.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "solver/solver.hpp"

namespace ikwb {

// the groups of SolverSettings' members (solver/solver.hpp), in table order
enum class SettingGroup { kLm, kAugmentedLagrangian, kSampling, kExecution };
// "LM", "augmented Lagrangian", "sampling and restarts", "execution"
const char* to_string(SettingGroup g);

enum class SettingKind { kInt, kDouble, kBool, kEnum };

// the member a setting reads and writes
using SettingMember =
    std::variant<int SolverSettings::*, uint64_t SolverSettings::*, double SolverSettings::*,
                 bool SolverSettings::*, Backend SolverSettings::*, Optimizer SolverSettings::*,
                 JacobianMode SolverSettings::*, Sampler SolverSettings::*>;

struct SettingInfo {
  const char* key;         // the scene's "solver" object and the script's `solver KEY VALUE`
  const char* flag;        // command line option, without the dashes
  const char* value_name;  // command line usage (N, M, cpu|cuda); "" for a bool: a bare flag
  const char* label;       // Solver panel
  // --help and the panel's tooltip; a bool's is an imperative ("project onto the limits ...")
  // so that a flag which turns it off reads "do not " + help
  const char* help;
  SettingGroup group;
  SettingMember member;
  // int and double settings, in the user's unit (member = value / scale):
  double min = 0, max = 0;                  // valid values, wherever a value comes from
  double typical_min = 0, typical_max = 0;  // what the panel's slider spans
  bool log_scale = false;                   // values spread over orders of magnitude
  double scale = 1;                         // user units per member unit (budget_ms: 1000)
  bool flag_value = true;                   // bool settings: what the bare flag sets

  SettingKind kind() const;
  // enum settings: the names accepted, in declaration order
  std::vector<std::string> choices() const;
  // what a valid value is: "an integer from 1 to 100000", "one of cpu, cuda", "true or false"
  std::string expects() const;
  // the command line help: `help`, or "do not " + help for a flag that turns a setting off
  std::string flag_help() const;
};

// every setting, grouped, in the order --help and the panel list them
const std::vector<SettingInfo>& solver_settings_table();
// by scene key; null when unknown
const SettingInfo* find_setting(const std::string& key);
// the entry of a member (every member has one)
const SettingInfo& setting_for(const SettingMember& member);

// the setting's value as JSON (enum: its name; double: in the user's unit)
nlohmann::json setting_json(const SettingInfo& info, const SolverSettings& s);
// sets it from JSON (the kinds above; an int must be integral); false, and *error says why,
// when the value is unusable (the setting keeps its value)
bool set_setting_json(const SettingInfo& info, const nlohmann::json& value, SolverSettings& s,
                      std::string* error);
// the same from text (command line, script): integers, numbers, true|false|on|off|1|0, names
bool set_setting_text(const SettingInfo& info, const std::string& text, SolverSettings& s,
                      std::string* error);

// every setting as a scene's "solver" object (by key)
nlohmann::json solver_settings_json(const SolverSettings& s);
// applies the keys present in j; unknown keys and unusable values become warnings naming the
// key ("solver.iterations: ..."), the setting keeps its value
void apply_solver_json(const nlohmann::json& j, SolverSettings& s,
                       std::vector<std::string>& warnings);

// Several seeds with the default sampler (none) all start at q_init: one attempt run n_seeds
// times. Unless a sampler was named (sampler_named: by a scene, the command line or a call;
// none included, which is then kept), the seeds are drawn from a Roberts sequence. `ikwb solve`,
// `ikwb animate`, a scene's and Python's Scene.solve share it (a scene without a sampler solved
// with roberts on the command line and none in Python: every row differed, up to 4.2 rad).
void default_seed_sampler(SolverSettings& s, bool sampler_named);

// whether a scene's "solver" object names a sampler
bool names_sampler(const nlohmann::json& solver);

// every setting equal (two settings solve the same way)
bool operator==(const SolverSettings& a, const SolverSettings& b);
bool operator!=(const SolverSettings& a, const SolverSettings& b);

}  // namespace ikwb
