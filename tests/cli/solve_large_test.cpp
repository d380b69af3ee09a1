// `ikwb solve` on a robot far larger than any shipped one (README "Large robots"): a 1500-joint
// chain's reachable pose target converges, an unreachable one comes back unconverged, and a
// budget given with --budget-ms stops the attempts and their iterations; `ikwb info` prints a
// 60,000-link chain's tree.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "cli/run_command.hpp"
#include "core/temp_files.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

using test::CmdResult;
using test::TempDir;

// n revolute joints about z, y, z, ... with links adding up to 2 m along x, limits +-1.5
std::string chain_urdf(int n) {
  const double link = 2.0 / (n + 1);
  std::ostringstream u;
  u.precision(17);
  u << "<?xml version=\"1.0\"?>\n<robot name=\"chain\">\n<link name=\"base\"/>\n";
  std::string parent = "base";
  for (int i = 0; i < n; ++i) {
    std::string child = "link" + std::to_string(i + 1);
    u << "<link name=\"" << child << "\"/>\n<joint name=\"j" << i + 1 << "\" type=\"revolute\">"
      << "<parent link=\"" << parent << "\"/><child link=\"" << child << "\"/><origin xyz=\""
      << (i == 0 ? 0.0 : link) << " 0 0\"/><axis xyz=\"" << (i % 2 == 0 ? "0 0 1" : "0 1 0")
      << "\"/><limit lower=\"-1.5\" upper=\"1.5\" effort=\"1\" velocity=\"1\"/></joint>\n";
    parent = child;
  }
  u << "<link name=\"tip\"/><joint name=\"tip_fixed\" type=\"fixed\"><parent link=\"" << parent
    << "\"/><child link=\"tip\"/><origin xyz=\"" << link << " 0 0\"/></joint>\n</robot>\n";
  return u.str();
}

std::vector<std::vector<std::string>> read_rows(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    std::string x;
    while (std::getline(s, x, ',')) fields.push_back(x);
    rows.push_back(fields);
  }
  return rows;
}

TEST(CliSolveLarge, LongChainConvergesAndTheBudgetHolds) {
  TempDir dir;
  const int n = 1500;
  std::string urdf = dir.write("chain.urdf", chain_urdf(n));
  UrdfOptions opt;
  opt.load_meshes = false;
  auto model = load_urdf_file(urdf, opt).model;
  ASSERT_EQ(model->dof_count, n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.45, 0.45);
  std::vector<double> q(n);
  for (double& v : q) v = u(rng);
  State s(*model);
  eval_fk(*model, q, {}, s);
  const Transform<double> x = s.body_q[model->find_body("tip")];
  std::ostringstream t;
  t.precision(17);
  t << x.p.x << "," << x.p.y << "," << x.p.z << "," << x.q.x << "," << x.q.y << "," << x.q.z << ","
    << x.q.w << "\n5,0,0,0,0,0,1\n";  // the second, 5 m out, is out of reach of a 2 m chain
  std::string targets = dir.write("t.csv", t.str());
  std::string out = dir / "out.csv";

  // the defaults (restarts, stall window, the 1 s budget)
  CmdResult r = test::run_command(cmd_solve, {"solve", urdf, "--link", "tip", "--targets", targets,
                                              "--out", out, "--threads", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto rows = read_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "1");
  EXPECT_LT(test::number(rows[0][1]), 1e-4);
  EXPECT_EQ(rows[1][0], "0");

  // a budget of 10 ms: far fewer iterations than the 51 attempts of 10 (the stall window) that
  // the unreachable target otherwise takes (each iteration here is well over 10 us)
  r = test::run_command(cmd_solve, {"solve", urdf, "--link", "tip", "--targets", targets, "--out",
                                    out, "--threads", "1", "--budget-ms", "10"});
  ASSERT_EQ(r.code, 0) << r.err;
  rows = read_rows(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][0], "0");
  EXPECT_LT(std::stoi(rows[1][3]), 300) << "iterations of the unreachable target";
}

TEST(CliInfoLarge, DeepChainPrintsItsTree) {
  // a recursive walk of the tree overflowed the stack at about 45,000 links (a segfault)
  TempDir dir;
  const int n = 60000;
  std::string urdf = dir.write("chain.urdf", chain_urdf(n));
  CmdResult r = test::run_command(cmd_info, {"info", urdf});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line, last_link;
  std::size_t widest = 0;
  int tree_lines = 0;
  bool in_tree = false;
  while (std::getline(lines, line)) {
    if (line == "tree:") in_tree = true;
    if (line == "joints:") break;
    // a link's line: "  NAME  (JOINT: TYPE)" (the tree's first line is the world frame's)
    if (!in_tree || line == "  (world)" || line.find("  (") == std::string::npos) continue;
    ++tree_lines;
    widest = std::max(widest, line.size());
    last_link = line;
  }
  EXPECT_EQ(tree_lines, n + 2);  // the base (under its fixed root joint), n links, the tip
  // the indent stops growing; the deepest lines say their depth
  EXPECT_LT(widest, 120u);
  EXPECT_NE(last_link.find("[depth " + std::to_string(n + 2) + "] tip  (tip_fixed: fixed)"),
            std::string::npos)
      << last_link;
}

}  // namespace
}  // namespace ikwb
