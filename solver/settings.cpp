#include "solver/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace ikwb {

namespace {

// the names of the enum settings' values, for to_string / parse and the table's choices()
const std::pair<const char*, Backend> kBackends[] = {{"cpu", Backend::kCpu},
                                                     {"cuda", Backend::kCuda}};
const std::pair<const char*, Optimizer> kOptimizers[] = {{"lm", Optimizer::kLevenbergMarquardt},
                                                         {"lbfgs", Optimizer::kLbfgs}};
const std::pair<const char*, JacobianMode> kJacobians[] = {{"analytic", JacobianMode::kAnalytic},
                                                           {"autodiff", JacobianMode::kAutodiff},
                                                           {"fd", JacobianMode::kFiniteDifference},
                                                           {"mixed", JacobianMode::kMixed}};
const std::pair<const char*, Sampler> kSamplers[] = {{"none", Sampler::kNone},
                                                     {"gaussian", Sampler::kGaussian},
                                                     {"uniform", Sampler::kUniform},
                                                     {"roberts", Sampler::kRoberts}};

template <class E, std::size_t N>
bool parse_table(const std::string& s, const std::pair<const char*, E> (&table)[N], E* out) {
  for (const auto& [name, value] : table)
    if (s == name) {
      *out = value;
      return true;
    }
  return false;
}

template <class E, std::size_t N>
const char* name_of(E v, const std::pair<const char*, E> (&table)[N]) {
  for (const auto& [name, value] : table)
    if (value == v) return name;
  return "unknown";
}

template <class E, std::size_t N>
std::vector<std::string> names_of(const std::pair<const char*, E> (&table)[N]) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.push_back(entry.first);
  return out;
}
std::vector<std::string> enum_names(Backend) {
  return names_of(kBackends);
}
std::vector<std::string> enum_names(Optimizer) {
  return names_of(kOptimizers);
}
std::vector<std::string> enum_names(JacobianMode) {
  return names_of(kJacobians);
}
std::vector<std::string> enum_names(Sampler) {
  return names_of(kSamplers);
}

constexpr auto kLm = SettingGroup::kLm;
constexpr auto kAl = SettingGroup::kAugmentedLagrangian;
constexpr auto kSampling = SettingGroup::kSampling;
constexpr auto kExecution = SettingGroup::kExecution;
constexpr bool kLog = true;
constexpr double kU64Max = double(std::numeric_limits<uint64_t>::max());

// a bool setting whose bare command line flag turns it off (--soft-limits)
constexpr SettingInfo turned_off_by_flag(SettingInfo info) {
  info.flag_value = false;
  return info;
}

// Fields: key, flag, value_name, label, help, group, member, then for numbers min, max,
// typical_min, typical_max, log_scale, scale. Old scene keys and command line flags keep their
// spelling (scenes and users' scripts use them); new settings use the key with dashes.
constexpr SettingInfo kTable[] = {
    // LM: the least-squares optimiser, its iterations and tolerances
    {"optimizer", "optimizer", "lm|lbfgs", "Optimiser",
     "Levenberg-Marquardt (lm) or L-BFGS (gradient only: many more iterations, slow on whole-body "
     "robots with hard objectives)",
     kLm, &SolverSettings::optimizer},
    {"jacobian", "jacobian", "MODE", "Jacobian",
     "analytic, autodiff, fd (finite differences), mixed", kLm, &SolverSettings::jacobian},
    {"iterations", "iterations", "N", "Iterations",
     "iterations per seed and restart (the workbench: per frame)", kLm,
     &SolverSettings::max_iterations, 1, 1e5, 1, 200, kLog},
    {"fixed_iterations", "fixed-iterations", "", "Fixed iterations",
     "run exactly the iteration count, no early exit", kLm, &SolverSettings::fixed_iterations},
    {"polish", "polish", "N", "Polish",
     "LM iterations taken after the tolerances are met, kept while they stay met", kLm,
     &SolverSettings::polish_iterations, 0, 100, 0, 5},
    {"tol_position", "tol-pos", "M", "Position tolerance", "position tolerance in metres", kLm,
     &SolverSettings::tol_position, 1e-12, 1, 1e-6, 1e-2, kLog},
    {"tol_rotation", "tol-rot", "RAD", "Rotation tolerance", "rotation tolerance in radians", kLm,
     &SolverSettings::tol_rotation, 1e-12, 1, 1e-5, 0.1, kLog},
    {"damping", "damping", "X", "Damping",
     "initial LM damping (times (reach / 0.5 m)^2 for points nearer their chain's base)", kLm,
     &SolverSettings::lambda_init, 1e-12, 1e6, 1e-6, 10, kLog},
    {"marquardt_scaling", "marquardt-scaling", "", "Marquardt scaling",
     "damp with diag(J^T J) instead of the identity", kLm, &SolverSettings::marquardt_scaling},
    turned_off_by_flag({"hard_joint_limits", "soft-limits", "", "Hard joint limits",
                        "project onto the joint limits after each step", kLm,
                        &SolverSettings::hard_joint_limits}),
    {"null_space_gain", "null-space-gain", "X", "Null-space gain",
     "step of null-space posture objectives (LM only)", kLm, &SolverSettings::null_space_gain, 0,
     10, 0, 1},
    {"settle_iterations", "settle-iterations", "N", "Posture settling",
     "null-space posture steps a seed takes once the tolerances are met (0 = until it settles; "
     "the workbench goes on the next frame)",
     kLm, &SolverSettings::settle_iterations, 0, 1000, 0, 20},
    {"max_step", "max-step", "RAD", "Max step",
     "largest change of any dof in one LM step, rad or m; longer steps are shortened (0 = none)",
     kLm, &SolverSettings::max_step, 0, 100, 0, 3},
    {"lbfgs_memory", "lbfgs-memory", "N", "L-BFGS memory", "correction pairs L-BFGS keeps", kLm,
     &SolverSettings::lbfgs_memory, 1, 64, 1, 32},
    // augmented Lagrangian: the outer loop of hard objectives
    {"tol_constraint", "tol-constraint", "X", "Constraint tol.",
     "hard-constraint violation tolerance", kAl, &SolverSettings::tol_constraint, 1e-12, 1, 1e-8,
     1e-2, kLog},
    {"al_inner_iterations", "al-inner-iterations", "N", "Inner iterations",
     "LM iterations between multiplier updates", kAl, &SolverSettings::al_inner_iterations, 1, 1e4,
     1, 100, kLog},
    {"al_mu_init", "al-mu-init", "X", "Initial penalty", "initial augmented-Lagrangian penalty",
     kAl, &SolverSettings::al_mu_init, 1e-6, 1e12, 1, 1e6, kLog},
    {"al_mu_growth", "al-mu-growth", "X", "Penalty growth",
     "penalty factor at each multiplier update", kAl, &SolverSettings::al_mu_growth, 1, 1e3, 1, 100,
     kLog},
    {"al_mu_max", "al-mu-max", "X", "Largest penalty", "largest augmented-Lagrangian penalty", kAl,
     &SolverSettings::al_mu_max, 1e-6, 1e16, 1e3, 1e12, kLog},
    // sampling and restarts: seeds, their sampler, restarts and which seed wins
    {"n_seeds", "seeds", "N", "Seeds", "seeds per target (seed 0 is the initial configuration)",
     kSampling, &SolverSettings::n_seeds, 1, 4096, 1, 128, kLog},
    {"sampler", "sampler", "NAME", "Sampler",
     "seeds after seed 0: none, gaussian, uniform, roberts", kSampling, &SolverSettings::sampler},
    {"gaussian_sigma", "gaussian-sigma", "X", "Sigma",
     "spread of the gaussian sampler, rad (or m); for the others the half-width (m) a floating "
     "base's position (its orientation is kept) and an unlimited slider are drawn in",
     kSampling, &SolverSettings::gaussian_sigma, 0, 10, 0.01, 2},
    {"rng_seed", "rng-seed", "N", "RNG seed",
     "sampler seed (runs are deterministic for a given value)", kSampling,
     &SolverSettings::rng_seed, 0, kU64Max, 0, kU64Max},
    {"restarts", "restarts", "N", "Restarts", "re-seed an unconverged seed up to N times",
     kSampling, &SolverSettings::max_restarts, 0, 1e5, 0, 100},
    {"stall", "stall", "N", "Stall window",
     "restart a seed when N iterations pass without its cost falling below 0.7 of where it last "
     "did (0 = never; a seed's last attempt goes on)",
     kSampling, &SolverSettings::stall_window, 0, 1e4, 0, 50},
    {"budget_ms", "budget-ms", "MS", "Time budget",
     "time budget per target, ms: restarts and iterations stop when it runs out (0 = none)",
     kSampling, &SolverSettings::time_budget_s, 0, 1e7, 0, 100, false, 1e3},
    turned_off_by_flag({"turn_over_limits", "no-turn-over", "", "Turn over at limits",
                        "turn a revolute joint whose limits span a turn, held at one by a "
                        "stalled attempt, a turn back inside them (the same pose) before a "
                        "restart (never with prefer-closest, nor along a --sequential path)",
                        kSampling, &SolverSettings::turn_over_limits}),
    {"prefer_closest", "prefer-closest", "", "Prefer closest",
     "keep the converged seed closest to the initial configuration", kSampling,
     &SolverSettings::prefer_closest},
    {"solve_all_seeds", "solve-all-seeds", "", "Solve all seeds",
     "run every seed to the end, not only up to the first converged one", kSampling,
     &SolverSettings::solve_all_seeds},
    // execution: where and how the batch runs
    {"backend", "backend", "cpu|cuda", "Backend",
     "solver backend (cuda falls back to cpu with a notice; it pays off from batches of "
     "thousands of problems, and one solve at a time is faster on the cpu)",
     kExecution, &SolverSettings::backend},
    {"threads", "threads", "N", "Threads", "CPU threads (0 = all cores)", kExecution,
     &SolverSettings::threads, 0, 1024, 0, 64},
    {"float", "float", "", "Single precision", "solve in single precision on the CPU", kExecution,
     &SolverSettings::use_float},
};

// The number of members of an aggregate: the most initialisers T{...} accepts (Boost.PFR's
// technique; every member of SolverSettings is a scalar, so brace elision cannot skew it).
struct AnyValue {
  template <class T>
  operator T() const;  // only in unevaluated operands
};
template <class T, class... A>
constexpr auto brace_initializable(int) -> decltype(T{A{}...}, true) {
  return true;
}
template <class T, class... A>
constexpr bool brace_initializable(long) {
  return false;
}
template <class T, class... A>
constexpr std::size_t member_count() {
  if constexpr (brace_initializable<T, A..., AnyValue>(0))
    return member_count<T, A..., AnyValue>();
  else
    return sizeof...(A);
}
static_assert(member_count<SolverSettings>() == std::size(kTable),
              "every SolverSettings member needs its entry in the settings table");

template <class M>
struct MemberType;
template <class T>
struct MemberType<T SolverSettings::*> {
  using type = T;
};
template <class M>
using member_type = typename MemberType<M>::type;

std::string format_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// text -> number: the whole text, an optional leading '+'
template <class T>
bool parse_number(const std::string& text, T* out) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  auto r = std::from_chars(b, e, *out);
  return b != e && r.ec == std::errc() && r.ptr == e;
}

bool parse_bool(const std::string& text, bool* out) {
  if (text == "true" || text == "on" || text == "1") return *out = true, true;
  if (text == "false" || text == "off" || text == "0") return *out = false, true;
  return false;
}

// a user's number -> the member; false when out of range or not integral where it must be
template <class T>
bool store_number(const SettingInfo& info, double x, T* member) {
  if (!std::isfinite(x) || x < info.min || x > info.max) return false;
  if constexpr (std::is_integral_v<T>) {
    if (std::floor(x) != x || !(x < double(std::numeric_limits<T>::max()))) return false;
    *member = T(x);
  } else {
    *member = x / info.scale;
  }
  return true;
}

}  // namespace

const char* to_string(Backend b) {
  return name_of(b, kBackends);
}
const char* to_string(Optimizer o) {
  return name_of(o, kOptimizers);
}
const char* to_string(JacobianMode j) {
  return name_of(j, kJacobians);
}
const char* to_string(Sampler s) {
  return name_of(s, kSamplers);
}
bool parse(const std::string& s, Backend* out) {
  return parse_table(s, kBackends, out);
}
bool parse(const std::string& s, Optimizer* out) {
  return parse_table(s, kOptimizers, out);
}
bool parse(const std::string& s, JacobianMode* out) {
  if (s == "finite_difference") {
    *out = JacobianMode::kFiniteDifference;
    return true;
  }
  return parse_table(s, kJacobians, out);
}
bool parse(const std::string& s, Sampler* out) {
  return parse_table(s, kSamplers, out);
}

const char* to_string(SettingGroup g) {
  switch (g) {
    case SettingGroup::kLm:
      return "LM";
    case SettingGroup::kAugmentedLagrangian:
      return "augmented Lagrangian";
    case SettingGroup::kSampling:
      return "sampling and restarts";
    case SettingGroup::kExecution:
      return "execution";
  }
  return "unknown";
}

SettingKind SettingInfo::kind() const {
  return std::visit(
      [](auto m) {
        using T = member_type<decltype(m)>;
        if constexpr (std::is_same_v<T, bool>)
          return SettingKind::kBool;
        else if constexpr (std::is_enum_v<T>)
          return SettingKind::kEnum;
        else if constexpr (std::is_integral_v<T>)
          return SettingKind::kInt;
        else
          return SettingKind::kDouble;
      },
      member);
}

std::vector<std::string> SettingInfo::choices() const {
  return std::visit(
      [](auto m) {
        using T = member_type<decltype(m)>;
        if constexpr (std::is_enum_v<T>)
          return enum_names(T{});
        else
          return std::vector<std::string>();
      },
      member);
}

std::string SettingInfo::expects() const {
  switch (kind()) {
    case SettingKind::kBool:
      return "true or false";
    case SettingKind::kEnum: {
      std::string out;
      for (const std::string& c : choices()) out += (out.empty() ? "one of " : ", ") + c;
      return out;
    }
    case SettingKind::kInt:
      if (max == kU64Max) return "an integer >= 0";
      return "an integer from " + format_number(min) + " to " + format_number(max);
    case SettingKind::kDouble:
      break;
  }
  return "a number from " + format_number(min) + " to " + format_number(max);
}

std::string SettingInfo::flag_help() const {
  return kind() == SettingKind::kBool && !flag_value ? "do not " + std::string(help) : help;
}

const std::vector<SettingInfo>& solver_settings_table() {
  static const std::vector<SettingInfo> table(std::begin(kTable), std::end(kTable));
  return table;
}

const SettingInfo* find_setting(const std::string& key) {
  for (const SettingInfo& info : solver_settings_table())
    if (key == info.key) return &info;
  return nullptr;
}

const SettingInfo& setting_for(const SettingMember& member) {
  for (const SettingInfo& info : solver_settings_table())
    if (info.member == member) return info;
  throw std::logic_error("setting_for: a SolverSettings member without a table entry");
}

nlohmann::json setting_json(const SettingInfo& info, const SolverSettings& s) {
  return std::visit(
      [&](auto m) -> nlohmann::json {
        using T = member_type<decltype(m)>;
        if constexpr (std::is_enum_v<T>)
          return to_string(s.*m);
        else if constexpr (std::is_floating_point_v<T>)
          return s.*m * info.scale;
        else
          return s.*m;
      },
      info.member);
}

bool set_setting_json(const SettingInfo& info, const nlohmann::json& v, SolverSettings& s,
                      std::string* error) {
  const bool ok = std::visit(
      [&](auto m) {
        using T = member_type<decltype(m)>;
        if constexpr (std::is_same_v<T, bool>) {
          if (v.is_boolean()) s.*m = v.get<bool>();
          return v.is_boolean();
        } else if constexpr (std::is_enum_v<T>) {
          return v.is_string() && parse(v.get<std::string>(), &(s.*m));
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          // exactly, beyond the 2^53 a double holds; a signed integer (as Python's ints arrive)
          // when it is not negative
          const bool whole =
              v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
          if (whole) s.*m = v.is_number_unsigned() ? v.get<uint64_t>() : uint64_t(v.get<int64_t>());
          return whole || (v.is_number_float() && store_number(info, v.get<double>(), &(s.*m)));
        } else {
          return v.is_number() && store_number(info, v.get<double>(), &(s.*m));
        }
      },
      info.member);
  // a float as typed (0, not JSON's 0.0; a NaN or infinity from Python as such, not as null)
  if (!ok && error)
    *error = (v.is_number_float() ? format_number(v.get<double>()) : v.dump()) + " is not " +
             info.expects();
  return ok;
}

bool set_setting_text(const SettingInfo& info, const std::string& text, SolverSettings& s,
                      std::string* error) {
  const bool ok = std::visit(
      [&](auto m) {
        using T = member_type<decltype(m)>;
        if constexpr (std::is_same_v<T, bool>) {
          return parse_bool(text, &(s.*m));
        } else if constexpr (std::is_enum_v<T>) {
          return parse(text, &(s.*m));
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          uint64_t x = 0;  // from_chars also writes a prefix it read
          return parse_number(text, &x) && (s.*m = x, true);
        } else {
          std::conditional_t<std::is_integral_v<T>, long long, double> x = 0;
          return parse_number(text, &x) && store_number(info, double(x), &(s.*m));
        }
      },
      info.member);
  if (!ok && error) *error = "'" + text + "' is not " + info.expects();
  return ok;
}

nlohmann::json solver_settings_json(const SolverSettings& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const SettingInfo& info : solver_settings_table()) j[info.key] = setting_json(info, s);
  return j;
}

void apply_solver_json(const nlohmann::json& j, SolverSettings& s,
                       std::vector<std::string>& warnings) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const SettingInfo* info = find_setting(it.key());
    std::string error;
    if (!info)
      warnings.push_back("solver." + it.key() + ": unknown setting ignored");
    else if (!set_setting_json(*info, it.value(), s, &error))
      warnings.push_back("solver." + it.key() + ": " + error);
  }
}

void default_seed_sampler(SolverSettings& s, bool sampler_named) {
  if (s.n_seeds > 1 && s.sampler == Sampler::kNone && !sampler_named) s.sampler = Sampler::kRoberts;
}

bool names_sampler(const nlohmann::json& solver) {
  return solver.is_object() && solver.contains("sampler");
}

bool operator==(const SolverSettings& a, const SolverSettings& b) {
  const auto& table = solver_settings_table();
  return std::all_of(table.begin(), table.end(), [&](const SettingInfo& info) {
    return std::visit([&](auto m) { return a.*m == b.*m; }, info.member);
  });
}

bool operator!=(const SolverSettings& a, const SolverSettings& b) {
  return !(a == b);
}

}  // namespace ikwb
