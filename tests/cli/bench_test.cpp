// `ikwb bench`: its integer options beyond their range, the out-of-memory message, and the
// median it reports (solver/benchmark.hpp).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/commands.hpp"
#include "cli/run_command.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/benchmark.hpp"

namespace ikwb {
namespace {

using test::CmdResult;

CmdResult run_bench(std::vector<std::string> extra) {
  std::vector<std::string> args = {"bench", "planar3", "--link", "tip"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_command(cmd_bench, std::move(args));
}

TEST(CliBench, MedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues) {
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_of({5, 1, 3}), 3.0);
  EXPECT_EQ(median_of({2, 1}), 1.5);
  EXPECT_EQ(median_of({7}), 7.0);
  EXPECT_EQ(median_of({}), 0.0);
}

// values past the int range were wrapped to 32 bits (a batch of 1 for 2^32 + 1); an empty list
// ran nothing
// the protocols report each problem (TRAC-IK) or call (batch) done, counting up to the total,
// which is how `ikwb bench` shows a long run is alive
TEST(CliBench, ProtocolsReportTheirProgress) {
  UrdfOptions opt;
  opt.load_meshes = false;
  LoadResult r = load_robot_file(resolve_robot("planar3"), opt);
  const int tip = r.model->find_body("tip");
  std::string reason;
  auto solver = make_solver(Backend::kCpu, &reason);
  std::vector<std::pair<int, int>> calls;
  auto record = [&](int done, int total) { calls.emplace_back(done, total); };
  run_tracik_protocol(r.model, tip, {0, 0, 0}, 5, tracik_settings(), *solver, 1, record);
  EXPECT_EQ(calls, (std::vector<std::pair<int, int>>{{1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}));
  calls.clear();
  run_batch_protocol(r.model, tip, {0, 0, 0}, 4, 3, batch_settings(), *solver, 2, record);
  EXPECT_EQ(calls, (std::vector<std::pair<int, int>>{{1, 3}, {2, 3}, {3, 3}}));
}

TEST(CliBench, CountsBeyondTheIntRangeAndEmptyListsAreRefused) {
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const Case cases[] = {
      {{"--batches", "4294967297"},
       "option '--batches': 4294967297 is out of range [1, 2147483647]"},
      {{"--batches", "1,1000000000000"},
       "option '--batches': 1000000000000 is out of range [1, 2147483647]"},
      {{"--batches", "99999999999999999999999"},
       "option '--batches': 99999999999999999999999 is out of range [1, 2147483647]"},
      {{"--batches", "0"}, "option '--batches': 0 is out of range [1, 2147483647]"},
      {{"--batches", "1,,2"}, "option '--batches': '' is not an integer"},
      {{"--batches", "1,"}, "option '--batches': '' is not an integer"},
      {{"--batches", "ten"}, "option '--batches': 'ten' is not an integer"},
      {{"--batches", ""}, "option '--batches': empty value (sizes like 1,10,100)"},
      {{"--batches="}, "option '--batches': empty value (sizes like 1,10,100)"},
      {{"--problems", "4294967298"},
       "option '--problems': 4294967298 is out of range [1, 2147483647]"},
      {{"--repetitions", "-1"}, "option '--repetitions': -1 is out of range [1, 2147483647]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expect);
    CmdResult r = run_bench(c.args);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("protocol"), std::string::npos) << r.out;
  }
}

// a count whose targets alone exceed the machine's memory is refused at once (2^31 problems
// allocated for 43 s before running out)
TEST(CliBench, CountsBeyondTheMachinesMemoryAreRefusedAtOnce) {
  // planar3's 2^31 problems need at least 172 GB
  if (double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)) > 150e9)
    GTEST_SKIP() << "this machine has the memory for 2^31 problems";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--protocol", "tracik", "--problems", "2147483647"},
        std::vector<std::string>{"--protocol", "batch", "--batches", "1,2147483647"}}) {
    CmdResult r = run_bench(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(args[2] + " 2147483647 needs at least "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("GB, a target and a configuration each; this machine has"),
              std::string::npos)
        << r.err;
  }
}

// the process's address space now, in bytes
long long address_space_bytes() {
  std::ifstream in("/proc/self/statm");
  long long pages = 0;
  in >> pages;
  return pages * 4096;
}

// `ikwb bench --problems 100000000` with 1 GiB more address space than the process has now;
// exits with its status
[[noreturn]] void bench_with_little_memory() {
  const rlim_t limit = rlim_t(address_space_bytes()) + (rlim_t(1) << 30);
  const rlimit l{limit, limit};
  setrlimit(RLIMIT_AS, &l);
  std::vector<std::string> args = {"bench",      "planar3", "--link",     "tip",
                                   "--protocol", "tracik",  "--problems", "100000000"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::exit(cmd_bench(int(argv.size()), argv.data()));
}

// more targets than the address space allows: a message naming what it tried to allocate
TEST(CliBenchDeathTest, OutOfMemorySaysWhatItTriedToAllocate) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator aborts where operator new throws std::bad_alloc";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(bench_with_little_memory(), testing::ExitedWithCode(1),
              "ikwb bench: out of memory allocating 100000000 TRAC-IK targets \\(--problems\\)");
}

}  // namespace
}  // namespace ikwb
