// `ikwb bench ROBOT.urdf --link NAME`: the TRAC-IK protocol and the batch protocol
// (solver/benchmark.hpp), printed as a table with success rates and errors.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/cli_args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/robot_args.hpp"
#include "app/cli/solver_args.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/benchmark.hpp"

namespace ikwb {

namespace {

constexpr const char* kSummary =
    "IK benchmarks on pose targets of one link.\n"
    "tracik: random configurations within the limits -> FK -> pose targets; each solved alone\n"
    "  on one thread from the middle of the limits with restarts, 5 ms budget; success at\n"
    "  1e-5 m and 1e-5 rad.\n"
    "batch: batches of such targets in one solve call each (all threads unless --threads);\n"
    "  success at 5 mm and 0.05 rad.\n"
    "iters: iterations per problem, over all its seeds and restarts (mean).";

// "--batches 1,10,100": sizes in [1, INT_MAX]
std::vector<int> parse_batches(const std::string& text) {
  constexpr long long kMax = std::numeric_limits<int>::max();
  if (text.empty()) throw CliError("option '--batches': empty value (sizes like 1,10,100)");
  std::vector<int> out;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    long long v = 0;
    auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || r.ptr != item.data() + item.size() ||
        (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
      throw CliError("option '--batches': '" + item + "' is not an integer");
    if (r.ec != std::errc() || v < 1 || v > kMax)
      throw CliError("option '--batches': " + item + " is out of range [1, " +
                     std::to_string(kMax) + "]");
    out.push_back(int(v));
    if (end == text.size()) return out;
    begin = end + 1;
  }
}

// While a protocol runs, a line on standard error when it is a terminal ("trac-ik: 2300/10000
// problems"), updated at most five times a second and erased when the protocol ends, so a long
// run shows it is alive without touching what standard output gets.
class ProgressLine {
 public:
  ProgressLine(std::string label, const char* unit)
      : label_(std::move(label)), unit_(unit), tty_(isatty(fileno(stderr)) != 0) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() {
    if (width_ > 0) std::fprintf(stderr, "\r%*s\r", width_, "");
  }
  void operator()(int done, int total) {
    if (!tty_ || done == total) return;
    const auto now = std::chrono::steady_clock::now();
    if (width_ > 0 && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    width_ = std::max(
        width_, std::fprintf(stderr, "\r%s: %d/%d %s", label_.c_str(), done, total, unit_) - 1);
    std::fflush(stderr);
  }

 private:
  std::string label_;
  const char* unit_;
  bool tty_;
  int width_ = 0;  // columns written so far (0: nothing shown)
  std::chrono::steady_clock::time_point last_;
};

void print_row(const BenchStats& s) {
  std::printf("%-14s %8d %8s%% %11.2f %11.2f %11.2f %13.0f %11.2e %11.2e %7.1f\n", s.label.c_str(),
              s.problems, format_percent(s.success_rate(), 2).c_str(), s.mean_s * 1e6,
              s.median_s * 1e6, s.p99_s * 1e6, s.solves_per_s, s.max_position_error,
              s.max_rotation_error, s.mean_iterations);
}

}  // namespace

namespace {

// A count whose problems cannot fit in this machine's memory even at a target and a
// configuration each is refused before any work (2^31 TRAC-IK problems allocated for 43 s
// before running out of memory).
void refuse_beyond_memory(const Model& model, int problems, int largest_batch) {
  const double have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  const double each = 8.0 * (model.coord_count + 7);  // a pose target and a configuration
  auto refuse = [&](const std::string& option, int count) {
    if (!(have > 0) || count * each <= have) return;
    char text[160];
    std::snprintf(text, sizeof text,
                  "%s %d needs at least %.1f GB, a target and a configuration each; this "
                  "machine has %.1f GB",
                  option.c_str(), count, count * each / 1e9, have / 1e9);
    throw CliError(text);
  };
  refuse("--problems", problems);
  refuse("--batches", largest_batch);
}

}  // namespace

int cmd_bench(int argc, char** argv) {
  ArgParser args("ikwb bench", kSummary);
  args.add_positional("ROBOT.urdf", "robot description, or a shipped robot's name");
  args.add_required_option("link", "NAME", "end-effector link");
  args.add_option("offset", "X,Y,Z", "point in the link frame (default 0,0,0)");
  args.add_option("protocol", "NAME", "tracik, batch or all (default all)");
  args.add_option("problems", "N", "TRAC-IK protocol: number of targets (default 10000)");
  args.add_option("batches", "LIST",
                  "batch protocol sizes (default 1,10,100,1000,2000; on CUDA also 65536)");
  args.add_option("repetitions", "N", "batch protocol: calls per size (default 20)");
  add_robot_options(args);
  add_solver_options(args);
  std::string protocol = "all";
  int problems = 10000, repetitions = 20;
  std::vector<int> batches = {1, 10, 100, 1000, 2000};
  Vec3<double> offset{0, 0, 0};
  SolverSettings tracik, batch;
  try {
    args.parse(argc, argv);
    if (args.help_requested()) {
      std::printf("%s", args.usage().c_str());
      return 0;
    }
    protocol = args.get("protocol", protocol);
    if (protocol != "all" && protocol != "tracik" && protocol != "batch")
      throw CliError("--protocol: unknown value '" + protocol + "' (tracik, batch or all)");
    constexpr int kMax = std::numeric_limits<int>::max();
    problems = int(args.get_int("problems", problems, 1, kMax));
    repetitions = int(args.get_int("repetitions", repetitions, 1, kMax));
    if (args.has("batches")) batches = parse_batches(args.get("batches"));
    if (args.has("offset")) offset = parse_vec3("offset", args.get("offset"));
    tracik = read_solver_options(args, tracik_settings());
    batch = read_solver_options(args, batch_settings());
    if (!args.has("threads")) tracik.threads = 1;
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb bench: %s\n%s", e.what(), args.short_usage().c_str());
    return 2;
  }
  std::string allocating = "the robot";
  try {
    UrdfOptions opt = read_robot_options(args);
    LoadResult robot = load_robot_file(resolve_robot(args.get("ROBOT.urdf")), opt);
    print_warnings(robot.warnings);
    const int link = find_target_link(*robot.model, args.get("link"));
    refuse_beyond_memory(
        *robot.model, protocol != "batch" ? problems : 0,
        protocol != "tracik" ? *std::max_element(batches.begin(), batches.end()) : 0);
    std::string reason;
    auto solver = make_solver(batch.backend, &reason);
    if (!reason.empty()) std::fprintf(stderr, "note: %s\n", reason.c_str());
    const bool cuda = solver->backend() == Backend::kCuda;
    // on the GPU the protocol ends with a batch large enough to fill the device
    if (cuda && !args.has("batches")) batches.push_back(65536);
    std::printf("robot %s, link %s, %d dofs, backend %s, %s precision\n", robot.model->name.c_str(),
                args.get("link").c_str(), robot.model->dof_count, to_string(solver->backend()),
                cuda || batch.use_float ? "single" : "double");
    std::printf("%-14s %8s %9s %11s %11s %11s %13s %11s %11s %7s\n", "protocol", "problems",
                "success", "mean_us", "median_us", "p99_us", "solves/s", "max_pos_m", "max_rot_rad",
                "iters");
    if (protocol != "batch") {
      allocating = std::to_string(problems) + " TRAC-IK targets (--problems)";
      BenchStats stats;
      {
        ProgressLine line("trac-ik", "problems");
        stats = run_tracik_protocol(robot.model, link, offset, problems, tracik, *solver, 1,
                                    std::ref(line));
      }
      print_row(stats);
      char budget[48] = "no budget";  // --budget-ms 0
      if (tracik.time_budget_s > 0)
        std::snprintf(budget, sizeof budget, "%.1f ms budget", tracik.time_budget_s * 1e3);
      std::printf("  (tracik: times per problem, one thread, %d restarts max, %s)\n",
                  tracik.max_restarts, budget);
    }
    if (protocol != "tracik") {
      for (int b : batches) {
        allocating = "a batch of " + std::to_string(b) + " problems (--batches)";
        BenchStats stats;
        {
          ProgressLine line("batch " + std::to_string(b), "calls");
          stats = run_batch_protocol(robot.model, link, offset, b, repetitions, batch, *solver, 2,
                                     std::ref(line));
        }
        print_row(stats);
      }
      std::printf("  (batch: times per solve call of the whole batch)\n");
    }
  } catch (const std::bad_alloc&) {
    return report_out_of_memory("ikwb bench", allocating);
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ikwb bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace ikwb
