// `ikwb solve ROBOT --link NAME --targets T.csv`: how T.csv is read (line ends, separators, the
// header, bad lines, the format), files without a usable target, where the summary goes, rows
// streamed to standard output, integer options beyond their range, and --min-success.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "cli/run_command.hpp"
#include "core/temp_files.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

using test::CmdResult;
using test::TempDir;

CmdResult run_solve(const std::string& targets, const std::string& out,
                    std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"solve", "planar3", "--link", "tip",     "--targets",
                                   targets, "--out",   out,      "--seeds", "8"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_command(cmd_solve, std::move(args));
}

// x,y,z of planar3's tip at a few configurations: reachable position targets
std::vector<std::string> reachable_points() {
  UrdfOptions opt;
  opt.load_meshes = false;
  LoadResult r = load_urdf_file(resolve_robot("planar3"), opt);
  const Model& m = *r.model;
  State s(m);
  std::vector<std::string> out;
  for (const std::vector<double>& q :
       {std::vector<double>{0.3, 0.9, 0.7}, {-0.4, 1.1, 0.2}, {0.8, -0.6, 1.0}, {0.1, 0.5, -0.9}}) {
    eval_fk(m, q, {}, s);
    const Vec3<double> p = s.body_q[m.find_body("tip")].p;
    out.push_back(format_double(p.x) + "," + format_double(p.y) + "," + format_double(p.z));
  }
  return out;
}

// the converged column of OUT.csv, one entry a row
std::vector<int> converged_column(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("converged,", 0), 0u) << line;
  std::vector<int> out;
  while (std::getline(in, line)) out.push_back(line.rfind("1,", 0) == 0 ? 1 : 0);
  return out;
}

TEST(CliSolveTargets, WindowsLineEndsAreReadAsUsual) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets =
      dir.write("t.csv", "x,y,z\r\n" + p[0] + "\r\n# note\r\n\r\n" + p[1] + "\r\n" + p[2] + "\r\n");
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solved 3/3 "), std::string::npos) << r.out;
  EXPECT_EQ(converged_column(test::read_text(out)), (std::vector<int>{1, 1, 1}));
}

// only the first line may be a header; every later bad line (words, semicolons) is reported
// with its line number and keeps its row, so the rows line up with the target lines
TEST(CliSolveTargets, BadLinesAfterTheHeaderAreReportedAndKeepTheirRows) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets =
      dir.write("t.csv", "x,y,z\nfoo,bar,baz\n" + p[0] + "\n1;2;3\n" + p[1] + "\n");
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(targets + ":2: 'foo' is not a number; this target is skipped"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(
                targets +
                ":4: '1;2;3' is not a number (separate values with commas, decimals with a point)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("solved 2/4 "), std::string::npos) << r.out;
  EXPECT_EQ(converged_column(test::read_text(out)), (std::vector<int>{0, 1, 0, 1}));
}

// a first line of empty fields (a spreadsheet's blank row) is no header: a malformed row like the
// same line further down, and the rest solve (it refused the file: "the header must name x, y
// and z")
TEST(CliSolveTargets, AFirstLineOfEmptyFieldsIsAMalformedRow) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets =
      dir.write("t.csv", ",,,,,,\n" + p[0] + "\n" + p[1] + "\n,,\n" + p[2] + "\n");
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(targets + ":1: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(targets + ":4: "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("solved 3/5 "), std::string::npos) << r.out;
  EXPECT_EQ(converged_column(test::read_text(out)), (std::vector<int>{0, 1, 1, 0, 1}));
}

// many bad lines: the first 20 each get their line, the rest one line that counts them; the
// summary counts the malformed lines apart from the targets that did not converge, and says
// where the solve ran
TEST(CliSolveTargets, ManyBadLinesAreCountedAfterTheFirstTwenty) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string text = "x,y,z\n";
  for (int i = 0; i < 30; ++i) text += p[i % 4] + "\nnan,0,0\n";
  std::string targets = dir.write("t.csv", text);
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out, {"--threads", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(targets + ":41: 'nan' is not finite; this target is skipped"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(targets + ":43: 'nan'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(targets + ": 10 more malformed target lines skipped (the last at line 61)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("solved 30/60 (50.0%) in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" solves/s (CPU, 1 thread); 30 of the lines malformed and skipped\n"),
            std::string::npos)
      << r.out;
}

// an unknown --link names the links whose names contain it; a link no joint moves is a warning
TEST(CliSolveTargets, LinkNamesAreHelped) {
  TempDir dir;
  std::string targets = dir.write("t.csv", reachable_points()[0] + "\n");
  CmdResult r = test::run_command(
      cmd_solve, {"solve", "panda", "--link", "Hand", "--targets", targets, "--out", dir / "o"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown link 'Hand'; did you mean 'panda_hand', 'panda_hand_tcp'?; "
                       "links are: panda_link0, "),
            std::string::npos)
      << r.err;
  r = test::run_command(cmd_solve, {"solve", "panda", "--link", "panda_link0", "--targets", targets,
                                    "--out", dir / "o"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: no joint moves link 'panda_link0'"), std::string::npos) << r.err;
}

// fewer dofs moving the link than a target fixes (a pose 6, a position 3): a warning up front
// naming the link and the count, pointing a pose's to x,y,z targets; with enough dofs none
TEST(CliSolveTargets, ALinkMovedByFewerDofsThanTheTargetFixesIsAWarning) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  const std::string poses = dir.write("poses.csv", p[0] + ",0,0,0,1\n");
  const std::string points = dir.write("points.csv", p[0] + "\n");
  const std::string out = dir / "out.csv";
  CmdResult r = run_solve(poses, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: link 'tip' is moved by 3 dofs, fewer than the 6 a pose target "
                       "fixes: most poses are out of its reach (those recorded on this robot are "
                       "not) and end with converged=0; for the positions alone, give x,y,z "
                       "targets (3 values a line)\n"),
            std::string::npos)
      << r.err;
  r = test::run_command(cmd_solve,
                        {"solve", "planar3", "--link", "link1", "--targets", points, "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: link 'link1' is moved by 1 dof, fewer than the 3 a position "
                       "target fixes: most positions are out of its reach (those recorded on "
                       "this robot are not) and end with converged=0\n"),
            std::string::npos)
      << r.err;

  // 3 dofs for a position; 9 with a floating base for a pose; the Panda's 7 for a pose
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"solve", "planar3", "--link", "tip", "--targets", points},
        {"solve", "planar3", "--link", "tip", "--targets", poses, "--floating-base"},
        {"solve", "panda", "--link", "panda_hand_tcp", "--targets", poses}}) {
    std::vector<std::string> all = args;
    for (const char* a : {"--out", "-", "--restarts", "0"}) all.push_back(a);
    r = test::run_command(cmd_solve, all);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << args[2] << ": " << r.err;
  }
}

// t.csv of x,y,0 targets on the unit circle at these angles (rad), which a 1 m bar turning about
// z reaches
std::string circle_targets(TempDir& dir, std::initializer_list<double> angles) {
  std::string text;
  for (double a : angles)
    text += format_double(std::cos(a)) + "," + format_double(std::sin(a)) + ",0\n";
  return dir.write("t.csv", text);
}

// with --soft-limits the rows that end outside the joint limits are counted in the summary: they
// read converged by their targets alone (40 of 40 solved, 19 of them outside; a review)
TEST(CliSolveTargets, RowsOutsideSoftLimitsAreCounted) {
  TempDir dir;
  const std::string urdf = dir.write("arm.urdf", R"(<robot name="arm"><link name="base"/>
<link name="bar"/><link name="tip"/>
<joint name="j" type="revolute"><parent link="base"/><child link="bar"/><axis xyz="0 0 1"/>
<limit lower="-0.5" upper="0.5" effort="1" velocity="1"/></joint>
<joint name="t" type="fixed"><parent link="bar"/><child link="tip"/><origin xyz="1 0 0"/></joint>
</robot>)");
  // the first within the limit, the other two at 1 rad and -2 rad
  const std::string targets = circle_targets(dir, {0.3, 1.0, -2.0});
  const std::string out = dir / "out.csv";
  CmdResult r = test::run_command(cmd_solve, {"solve", urdf, "--link", "tip", "--targets", targets,
                                              "--out", out, "--soft-limits"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solved 3/3 (100.0%)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; 2 rows end outside the joint limits (soft limits: the solve does not "
                       "hold them)"),
            std::string::npos)
      << r.out;
  r = test::run_command(cmd_solve,
                        {"solve", urdf, "--link", "tip", "--targets", targets, "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solved 1/3"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("outside the joint limits"), std::string::npos) << r.out;
}

// a continuous joint that a mimic joint with limits follows turns only as far as the mimic's
// limits allow (the answers had the mimic 1.5 rad past them, with a load warning only): the
// targets at 1 rad and -2 rad are out of reach
TEST(CliSolveTargets, AContinuousJointKeepsTheLimitsOfTheMimicFollowingIt) {
  TempDir dir;
  const std::string urdf = dir.write("arm.urdf", R"(<robot name="arm"><link name="base"/>
<link name="bar"/><link name="tip"/><link name="finger"/>
<joint name="j" type="continuous"><parent link="base"/><child link="bar"/><axis xyz="0 0 1"/>
</joint>
<joint name="t" type="fixed"><parent link="bar"/><child link="tip"/><origin xyz="1 0 0"/></joint>
<joint name="f" type="revolute"><parent link="bar"/><child link="finger"/><axis xyz="0 0 1"/>
<limit lower="-0.5" upper="0.5" effort="1" velocity="1"/><mimic joint="j"/></joint>
</robot>)");
  const std::string targets = circle_targets(dir, {0.3, 1.0, -2.0});
  const std::string out = dir / "out.csv";
  CmdResult r = test::run_command(
      cmd_solve, {"solve", urdf, "--link", "tip", "--targets", targets, "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the limits [-0.5, 0.5] of the mimic joint 'f' limit its continuous source "
                       "'j' to [-0.5, 0.5]"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("solved 1/3"), std::string::npos) << r.out;
  EXPECT_EQ(converged_column(test::read_text(out)), (std::vector<int>{1, 0, 0}));
}

// numbers too large to solve for (their squares overflow) or to read are skipped by name, not
// solved into infinities
TEST(CliSolveTargets, HugeNumbersAreSkippedByName) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets =
      dir.write("t.csv", "1e308,0,0.4\n" + p[0] + "\n1e400,0,0\n" + p[1] + "\n" + p[2] + "\n");
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(targets + ":1: '1e308' is out of range (magnitude above 1e6)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(targets + ":3: '1e400' is out of range; this target is skipped"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("solved 3/5 "), std::string::npos) << r.out;
  EXPECT_EQ(test::read_text(out).find("inf"), std::string::npos);
}

// without a header the count of values most valid lines have decides the format: a bad first
// line (a quaternion that is not unit) does not count, and the valid lines of the other count
// are malformed
TEST(CliSolveTargets, MostValidLinesDecideTheFormat) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets = dir.write("t.csv", "0.5,0,0.2,0,0,0,2\n" + p[0] + "\n" + p[1] + "\n" +
                                               p[2] + ",0,0,0,1\n" + p[3] + "\n");
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(
      r.err.find(targets + ":1: quaternion is not unit (norm 2; within 1e-3 of 1 is normalised)"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(targets + ":4: expected 3 values, as 3 of the 5 target lines have, got 7"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("solved 3/5 "), std::string::npos) << r.out;
  EXPECT_EQ(converged_column(test::read_text(out)), (std::vector<int>{0, 1, 1, 0, 1}));
}

// a truncated first line (a position where every other line is a pose) is the one malformed
// line, not the one that makes all the others malformed; a tie goes to the first valid line
TEST(CliSolveTargets, AShortFirstLineDoesNotDecideForTheFile) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string text = p[0] + "\n";
  for (int i = 0; i < 40; ++i) text += p[i % 4] + ",0,0,0,1\n";
  std::string targets = dir.write("t.csv", text);
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(targets + ":1: expected 7 values, as 40 of the 41 target lines have, got 3"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(targets + ":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("; 1 of the lines malformed and skipped\n"), std::string::npos) << r.out;
  EXPECT_EQ(converged_column(test::read_text(out)).size(), 41u);
  // poses without a header: the quaternion's order is said (one with w first is unit as well)
  EXPECT_NE(r.err.find("note: " + targets +
                       ": no header, so 7 values a line are x,y,z,qx,qy,qz,qw (w last); a "
                       "header line names another order (x,y,z,qw,qx,qy,qz)"),
            std::string::npos)
      << r.err;

  std::string tie = dir.write("tie.csv", p[0] + ",0,0,0,1\n" + p[1] + "\n");
  r = run_solve(tie, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(tie + ":2: expected 7 values, as 1 of the 2 target lines have, got 3"),
            std::string::npos)
      << r.err;
}

// a header fixes the column count: rows that do not match it are reported, and a header that
// cannot describe a target (neither 3 nor 7 names) stops the command, naming its line
TEST(CliSolveTargets, TheHeaderDecidesTheFormat) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets =
      dir.write("t.csv", "# poses\nx,y,z,qx,qy,qz,qw\n" + p[0] + ",0,0,0,1\n" + p[1] + "\n");
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(targets + ":4: expected 7 values as the header on line 2, got 3"),
            std::string::npos)
      << r.err;
  const std::vector<int> converged = converged_column(test::read_text(out));
  ASSERT_EQ(converged.size(), 2u);  // one result a target line; the short row is not solved
  EXPECT_EQ(converged[1], 0);
  EXPECT_EQ(r.err.find("no header"), std::string::npos) << r.err;

  std::string narrow = dir.write("narrow.csv", "x,y\n" + p[0] + "\n");
  r = run_solve(narrow, out);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find(narrow + ":1: the header must name x, y and z, and for a pose qx, qy, "
                                "qz and qw, once each in any order (other columns are not read); "
                                "missing 'z' (its columns: 'x', 'y')"),
            std::string::npos)
      << r.err;

  // columns are read by their names: z first here (a misread row is off the robot's plane)
  std::vector<std::string> v;
  for (const std::string& t : p) v.push_back(split_csv_line(t)[2] + "," + t);
  std::string reordered =
      dir.write("reordered.csv", "Z, x ,Y\n" + v[0].substr(0, v[0].rfind(',')) + "\n");
  r = run_solve(reordered, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(converged_column(test::read_text(out)), std::vector<int>{1});

  std::string unnamed = dir.write("unnamed.csv", "px,py,z\n" + p[0] + "\n");
  r = run_solve(unnamed, out);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find(unnamed + ":1: the header must name x, y and z, and for a pose qx, qy, "
                                 "qz and qw, once each in any order (other columns are not "
                                 "read); missing 'x', 'y' (its columns: 'px', 'py', 'z')"),
            std::string::npos)
      << r.err;
  // a header separated by tabs or semicolons is told what its data lines would be
  for (const char* sep : {"\t", ";"}) {
    std::string tabbed =
        dir.write("tabbed.csv", "x" + std::string(sep) + "y" + sep + "z\n" + p[0] + "\n");
    r = run_solve(tabbed, out);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("(separate values with commas"), std::string::npos) << r.err;
  }
  std::string half = dir.write("half.csv", "x,y,z,qx,qy,qz,w\n" + p[0] + ",0,0,0,1\n");
  r = run_solve(half, out);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("missing 'qw' (its columns: 'x', 'y', 'z', 'qx', 'qy', 'qz', 'w')"),
            std::string::npos)
      << r.err;
  // an orientation under other names is not dropped for a position solve that reads 100%
  // (a review's q0..q3 and w,i,j,k files read 100% solved, their orientations 132 deg off)
  for (const char* names :
       {"roll,pitch,yaw", "q_x,q_y,q_z,q_w", "ox,oy,oz,ow", "q0,q1,q2,q3", "w,i,j,k", "qi,qj,qk,qr",
        "E0,e1,e2,e3", "r00,r01,r02,r10", "axis_x,axis_y,axis_z,angle"}) {
    std::string other =
        dir.write("other.csv", std::string("x,y,z,") + names + "\n" + p[0] + ",0,0,0,1\n");
    r = run_solve(other, out);
    EXPECT_EQ(r.code, 1) << names;
    EXPECT_NE(r.err.find("look like an orientation, which a pose target gives as a unit "
                         "quaternion named qx, qy, qz, qw"),
              std::string::npos)
        << r.err;
  }
  // a time, and a lone w (a weight as often as a quaternion's part), are only noted; so are
  // an index i and a k without the rest of a quaternion's i, j, k
  std::string timed = dir.write("timed.csv", "time,x,y,z,w\n0.5," + p[0] + ",1\n");
  r = run_solve(timed, out);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("columns 'time', 'w' are not target coordinates, not read"),
            std::string::npos)
      << r.err;
  std::string indexed = dir.write("indexed.csv", "i,x,y,z,k\n3," + p[0] + ",1\n");
  r = run_solve(indexed, out);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("columns 'i', 'k' are not target coordinates, not read"), std::string::npos)
      << r.err;
  std::string twice = dir.write("twice.csv", "x,y,z,X\n" + p[0] + ",1\n");
  r = run_solve(twice, out);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find(twice + ":1: the header repeats 'X'"), std::string::npos) << r.err;

  // other columns (a motion capture's frame number and time) are not read, and a note says so
  std::string framed =
      dir.write("framed.csv", "frame,x,y,z,t\n7," + p[0] + ",0.25\n8," + p[1] + ",0.5\n9,1,2\n");
  r = run_solve(framed, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("note: " + framed +
                       ": columns 'frame', 't' are not target coordinates, "
                       "not read"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(framed + ":4: expected 5 values as the header on line 1, got 3"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(converged_column(test::read_text(out)), (std::vector<int>{1, 1, 0}));
}

TEST(CliSolveTargets, AFileWithoutAUsableTargetIsAnError) {
  TempDir dir;
  struct Case {
    std::string name, text, expect;
  };
  const Case cases[] = {
      {"empty.csv", "", "empty.csv: no targets (one a line: x,y,z or x,y,z,qx,qy,qz,qw)"},
      {"comments.csv", "# none\n\n  # still none\n", "comments.csv: no targets"},
      {"header.csv", "x,y,z\r\n", "header.csv: no targets"},
      {"semicolons.csv", "0.5;0;0.2\n0.4;0.1;0.2\n",
       "semicolons.csv: no usable target: each of its 2 target lines is malformed (above)"},
  };
  const std::string out = dir / "out.csv";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CmdResult r = run_solve(dir.write(c.name, c.text), out);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("solved"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  std::filesystem::create_directories(dir / "folder");
  CmdResult r = run_solve(dir / "folder", out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("folder: is a directory, not a targets file"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// more malformed target lines than valid ones: taken for a wrong file or format and refused
// before the solve (exit status 1, as for a file without a valid target), so a pipeline stops
// instead of solving a file of skipped rows; half of them malformed still solves
TEST(CliSolveTargets, AFileOfMostlyMalformedLinesIsAnError) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  const std::string targets = dir.write("t.csv", p[0] + "\n1;2;3\n4;5;6\n");
  for (const std::string& out : {dir / "out.csv", std::string("-")}) {
    SCOPED_TRACE(out);
    CmdResult r = run_solve(targets, out);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find(targets + ": 2 of its 3 target lines are malformed (above), more than "
                                   "half: nothing is solved"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(std::filesystem::exists(dir / "out.csv"));
  }
  CmdResult r = run_solve(dir.write("half.csv", p[0] + "\n1;2;3\n"), dir / "out.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solved 1/2 "), std::string::npos) << r.out;
}

// with --out - standard output carries OUT.csv and nothing else; the summary goes to stderr
TEST(CliSolveTargets, SummaryGoesToStandardErrorWhenTheRowsGoToStandardOutput) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  CmdResult r = run_solve(dir.write("t.csv", p[0] + "\n" + p[1] + "\n"), "-");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(converged_column(r.out), (std::vector<int>{1, 1}));
  EXPECT_EQ(r.out.find("solved"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("solved 2/2 "), std::string::npos) << r.err;

  std::string scene = asset_dir() + "/robots/planar3/preset.json";
  CmdResult s = test::run_command(cmd_solve, {"solve", "--scene", scene, "--out", "-"});
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(converged_column(s.out), (std::vector<int>{1}));
  EXPECT_NE(s.err.find("solved 1/1 "), std::string::npos) << s.err;
}

// --out naming a folder is refused before anything is solved, with or without a trailing slash
// (it failed at the rename after the whole batch, "Not a directory" with the slash)
TEST(CliSolveTargets, AnOutputThatIsAFolderIsRefusedBeforeTheSolve) {
  TempDir dir;
  const std::string targets = dir.write("t.csv", reachable_points()[0] + "\n");
  std::filesystem::create_directory(dir.path() / "outdir");
  for (const std::string& out :
       {(dir.path() / "outdir").string(), (dir.path() / "outdir/").string()}) {
    CmdResult r = run_solve(targets, out);
    EXPECT_NE(r.code, 0) << out;
    EXPECT_NE(r.err.find(out + ": is a folder; name a file"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("solved"), std::string::npos) << r.out;
  }
}

// Runs `ikwb solve planar3 --link tip --targets TARGETS --out -` with `extra` in a child process
// whose standard output is the returned pipe end (its standard error goes to /dev/null); *pid
// is the child's. The targets' last line, out of reach, keeps its seeds restarting for up to a
// minute (--budget-ms 60000), so the test reads what came before it, then interrupts.
int solve_into_pipe(const std::string& targets, std::vector<std::string> extra, pid_t* pid) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  std::fflush(stdout);
  std::fflush(stderr);
  *pid = fork();
  if (*pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(open("/dev/null", O_WRONLY), STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::vector<std::string> args = {
        "ikwb",   "solve",   "planar3", "--link",      "tip",          "--targets", targets,
        "--out",  "-",       "--stall", "0",           "--iterations", "100000",    "--restarts",
        "100000", "--seeds", "64",      "--budget-ms", "60000"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int code = run_cli(int(args.size()), argv.data());
    std::fflush(stdout);
    _exit(code);
  }
  close(pipe_fds[1]);
  return pipe_fds[0];
}

// --out -: each solver call's rows go out as soon as it returns, so a pipe's reader has them
// while the solve goes on, and Ctrl-C leaves them out. One target a call (--chunk 1): the first
// row arrives while the second target, out of reach, keeps 64 seeds restarting for up to a
// minute; the interrupt then ends the run (in a child process) with the header and that row out.
TEST(CliSolveTargets, StandardOutputGetsTheRowsAsTheyAreSolved) {
  TempDir dir;
  const std::string targets = dir.write("t.csv", reachable_points()[0] + "\n5,5,5\n");
  pid_t pid = 0;
  const int from = solve_into_pipe(targets, {"--chunk", "1"}, &pid);
  ASSERT_GE(from, 0);
  ASSERT_GE(pid, 0);
  std::string csv;
  char buf[4096];
  while (std::count(csv.begin(), csv.end(), '\n') < 2) {
    const ssize_t n = read(from, buf, sizeof buf);
    if (n <= 0) break;
    csv.append(buf, std::size_t(n));
  }
  kill(pid, SIGINT);
  for (ssize_t n; (n = read(from, buf, sizeof buf)) > 0;) csv.append(buf, std::size_t(n));
  close(from);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
  EXPECT_EQ(converged_column(csv), std::vector<int>{1}) << csv;
}

// Without --chunk the first call is 16 targets and the calls grow while they are quick: the
// first 16 rows are out while the 17th target, out of reach, keeps its seeds restarting for up
// to a minute (with one 4,096-target call nothing came until every target was done). Read with
// a 30 s limit, then the run is interrupted.
TEST(CliSolveTargets, TheFirstRowsComeBeforeALongCallWithoutChunk) {
  TempDir dir;
  std::string lines;
  for (int i = 0; i < 16; ++i) lines += reachable_points()[0] + "\n";
  const std::string targets = dir.write("t.csv", lines + "5,5,5\n");
  pid_t pid = 0;
  const int from = solve_into_pipe(targets, {"--threads", "1"}, &pid);
  ASSERT_GE(from, 0);
  ASSERT_GE(pid, 0);
  std::string csv;
  char buf[4096];
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::count(csv.begin(), csv.end(), '\n') < 17 &&
         std::chrono::steady_clock::now() < until) {
    pollfd p = {from, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = read(from, buf, sizeof buf);
    if (n <= 0) break;
    csv.append(buf, std::size_t(n));
  }
  kill(pid, SIGINT);
  close(from);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_EQ(converged_column(csv), std::vector<int>(16, 1)) << csv;
}

// --sequential: each target from the answer to the one before. The Panda's tool along a path of
// wide joint swings (steps of at most 0.16 rad): solved independently, several rows land on
// another IK branch than the row before; in order, hardly any (without a posture the arm drifts
// in its null space and may meet a limit, where a restart starts over elsewhere)
TEST(CliSolveTargets, SequentialTargetsStayOnOneBranch) {
  UrdfOptions opt;
  opt.load_meshes = false;
  LoadResult r = load_urdf_file(resolve_robot("panda"), opt);
  const Model& m = *r.model;
  State s(m);
  const int tcp = m.find_body("panda_hand_tcp");
  std::string text;
  const int n = 300;
  double path_step = 0;
  std::vector<double> before;
  for (int i = 0; i < n; ++i) {
    const double t = double(i) / (n - 1);
    std::vector<double> q = {2.5 * std::sin(2 * M_PI * t),
                             -0.785 + 0.9 * std::sin(3 * M_PI * t),
                             1.5 * std::sin(2 * M_PI * t),
                             -2.356 + std::sin(M_PI * t),
                             0,
                             1.571,
                             0.785,
                             0.035};
    for (std::size_t k = 0; i > 0 && k < q.size(); ++k)
      path_step = std::max(path_step, std::fabs(q[k] - before[k]));
    before = q;
    eval_fk(m, q, {}, s);
    const Transform<double>& x = s.body_q[tcp];
    for (double v : {x.p.x, x.p.y, x.p.z, x.q.x, x.q.y, x.q.z, x.q.w})
      text += format_double(v) + ",";
    text.back() = '\n';
  }
  TempDir dir;
  const std::string targets = dir.write("t.csv", text);
  // rows whose configuration is more than 0.5 rad from the row before's (at some joint)
  auto jumps = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"solve",     "panda", "--link", "panda_hand_tcp",
                                     "--targets", targets, "--out",  dir / "q.csv"};
    args.insert(args.end(), extra.begin(), extra.end());
    CmdResult res = test::run_command(cmd_solve, args);
    EXPECT_EQ(res.code, 0) << res.err;
    std::istringstream in(test::read_text(dir / "q.csv"));
    std::string line;
    std::getline(in, line);
    int count = 0;
    std::vector<double> prev;
    while (std::getline(in, line)) {
      std::vector<std::string> f = split_csv_line(line);
      EXPECT_EQ(f[0], "1") << line;
      std::vector<double> q;
      for (std::size_t k = 4; k < f.size(); ++k) q.push_back(test::number(f[k]));
      double step = 0;
      for (std::size_t k = 0; !prev.empty() && k < q.size(); ++k)
        step = std::max(step, std::fabs(q[k] - prev[k]));
      count += step > 0.5;
      prev = q;
    }
    return count;
  };
  ASSERT_LT(path_step, 0.2);
  EXPECT_GE(jumps({}), 5);
  EXPECT_LE(jumps({"--sequential"}), 2);
}

// A path of targets that comes back brings the joints back: the dofs the tool leaves free settle
// toward the start in the targets' null space. They drifted: the Panda's tool round one circle
// 5 times turned its first joint 0.89 rad, about 0.18 rad a round (200 rows a round here).
TEST(CliSolveTargets, SequentialTargetsRoundAClosedPathComeBack) {
  std::string text = "x,y,z,qx,qy,qz,qw\n";
  const int round = 200;
  for (int i = 0; i < 3 * round; ++i) {
    const double t = 2 * M_PI * i / round;
    text += format_double(0.45 + 0.1 * std::cos(t)) + "," + format_double(0.15 * std::sin(t)) +
            "," + format_double(0.4 + 0.05 * std::sin(2 * t)) + ",1,0,0,0\n";
  }
  TempDir dir;
  const std::string targets = dir.write("t.csv", text);
  CmdResult res =
      test::run_command(cmd_solve, {"solve", "panda", "--link", "panda_hand_tcp", "--targets",
                                    targets, "--out", dir / "q.csv", "--sequential"});
  ASSERT_EQ(res.code, 0) << res.err;
  std::istringstream in(test::read_text(dir / "q.csv"));
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> q;
  while (std::getline(in, line)) {
    std::vector<std::string> f = split_csv_line(line);
    ASSERT_EQ(f[0], "1") << line;
    EXPECT_LE(test::number(f[1]), 1e-4) << line;
    q.emplace_back();
    for (std::size_t k = 4; k < f.size(); ++k) q.back().push_back(test::number(f[k]));
  }
  ASSERT_EQ(q.size(), std::size_t(3 * round));
  // the second and third rounds at the same targets (the first leaves the middle of the limits)
  double apart = 0;
  for (int i = round; i < 2 * round; ++i)
    for (std::size_t k = 0; k < q[std::size_t(i)].size(); ++k)
      apart = std::max(apart, std::fabs(q[std::size_t(i + round)][k] - q[std::size_t(i)][k]));
  EXPECT_LT(apart, 1e-3);
}

// --sequential: rows that miss right after a row that missed are counted in the summary, with
// why (a review's unordered targets lost 1.5% of reachable rows in runs after each unreachable
// one, with nothing saying so); without --sequential, or with no such row, nothing is said
TEST(CliSolveTargets, SequentialMissesAfterAMissAreSaid) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  const std::string targets =
      dir.write("t.csv", "x,y,z\n" + p[0] + "\n5,5,5\n6,5,5\n" + p[1] + "\n");
  for (const bool sequential : {true, false}) {
    std::vector<std::string> args{"solve",     "planar3", "--link", "tip",
                                  "--targets", targets,   "--out",  dir / "q.csv"};
    if (sequential) args.push_back("--sequential");
    CmdResult r = test::run_command(cmd_solve, args);
    ASSERT_EQ(r.code, 0) << r.err;
    const bool said = r.out.find(
                          "; 1 row did not converge right after a row that did not "
                          "(--sequential starts each row from the one before") != std::string::npos;
    EXPECT_EQ(said, sequential) << r.out;
  }
  const std::string path = dir.write("p.csv", "x,y,z\n" + p[0] + "\n" + p[1] + "\n");
  CmdResult r = test::run_command(cmd_solve, {"solve", "planar3", "--link", "tip", "--targets",
                                              path, "--out", dir / "q.csv", "--sequential"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("right after a row"), std::string::npos) << r.out;
}

// OUT.csv names the coordinates, so `ikwb fk` reads a solve's results as configurations: the
// tip of each lands on its target (within the solve's 1e-4 m tolerance)
TEST(CliSolveTargets, FkReadsTheResults) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets = dir.write("t.csv", "x,y,z\n" + p[0] + "\n" + p[1] + "\n" + p[2] + "\n");
  std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(
      test::read_text(out).rfind("converged,pos_err,rot_err,iterations,joint1,joint2,joint3\n", 0),
      0u)
      << test::read_text(out);
  std::string poses = dir / "poses.csv";
  r = test::run_command(cmd_fk, {"fk", "planar3", "--q", out, "--out", poses});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(test::read_text(poses));
  std::string line;
  int tips = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f = split_csv_line(line);
    if (f.size() < 5 || f[1] != "tip") continue;
    std::vector<std::string> want = split_csv_line(p[std::size_t(tips++)]);
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(test::number(f[std::size_t(2 + k)]), test::number(want[std::size_t(k)]), 1e-4)
          << line;
  }
  EXPECT_EQ(tips, 3);
}

// "-" reads standard input: T.csv for solve, then solve's output as fk's Q.csv; messages name
// it "<standard input>"
TEST(CliSolveTargets, StandardInputIsAnInput) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::istringstream targets(p[0] + "\n1,2\n" + p[1] + "\n");
  std::streambuf* const cin_buf = std::cin.rdbuf(targets.rdbuf());
  CmdResult r = run_solve("-", dir / "out.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("<standard input>:2: expected 3 (x,y,z) or 7"), std::string::npos) << r.err;
  std::istringstream results(test::read_text(dir / "out.csv"));
  std::cin.rdbuf(results.rdbuf());
  r = test::run_command(cmd_fk, {"fk", "planar3", "--q", "-", "--out", dir / "poses.csv"});
  std::cin.rdbuf(cin_buf);
  // the skipped target's row (all nan) keeps its place as nan poses; the others are computed
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("fk: 1 row of targets ikwb solve skipped (coordinates nan) written as nan "
                       "poses"),
            std::string::npos)
      << r.err;
  const std::string poses = test::read_text(dir / "poses.csv");
  EXPECT_NE(poses.find("\n1,tip,nan,nan,nan,nan,nan,nan,nan\n"), std::string::npos) << poses;
  EXPECT_EQ(poses.find("\n0,tip,nan"), std::string::npos) << poses;
  // a nan in a row that is not a skipped target's is still refused by line and column
  std::istringstream broken(
      "converged,pos_err,rot_err,iterations,joint1,joint2,joint3\n"
      "1,0,0,3,0.1,nan,0.2\n");
  std::cin.rdbuf(broken.rdbuf());
  r = test::run_command(cmd_fk, {"fk", "planar3", "--q", "-", "--out", dir / "poses2.csv"});
  std::cin.rdbuf(cin_buf);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("<standard input>:2: column 6 ('joint2') is not finite ('nan')"),
            std::string::npos)
      << r.err;
}

// a target going round the turntable two and a half times, solved in order: the turntable's and
// the wrist roll's angles (continuous joints) in OUT.csv stay within (-pi, pi], and FK of each
// row lands on its target (tests/data/robots/turntable_arm.urdf)
TEST(CliSolveTargets, ContinuousJointsComeBackWithinAHalfTurn) {
  const std::string robot = IKWB_SOURCE_DIR "/tests/data/robots/turntable_arm.urdf";
  UrdfOptions opt;
  opt.load_meshes = false;
  LoadResult loaded = load_urdf_file(robot, opt);
  const Model& m = *loaded.model;
  State s(m);
  const int tool = m.find_body("tool");
  std::vector<Vec3<double>> want;
  std::string text;
  for (int i = 0; i < 160; ++i) {
    std::vector<double> q = m.middle_configuration();
    q[m.joint_q_start[m.find_joint("turntable")]] = 0.1 * i;
    q[m.joint_q_start[m.find_joint("shoulder")]] = 0.5;
    eval_fk(m, q, {}, s);
    const Vec3<double> p = s.body_q[tool].p;
    want.push_back(p);
    text += format_double(p.x) + "," + format_double(p.y) + "," + format_double(p.z) + "\n";
  }
  TempDir dir;
  const std::string out = dir / "q.csv";
  CmdResult r =
      test::run_command(cmd_solve, {"solve", robot, "--link", "tool", "--targets",
                                    dir.write("t.csv", text), "--out", out, "--sequential"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(test::read_text(out));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_csv_line(line);
  auto column = [&](const std::string& name) {
    return std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t first = column("turntable");
  ASSERT_LT(first, header.size()) << line;
  std::size_t row = 0;
  for (; std::getline(in, line); ++row) {
    const std::vector<std::string> f = split_csv_line(line);
    EXPECT_EQ(f[0], "1") << line;
    for (const char* joint : {"turntable", "wrist_roll"}) {
      const double v = test::number(f[column(joint)]);
      EXPECT_TRUE(v > -M_PI && v <= M_PI) << joint << " " << line;
    }
    std::vector<double> q;
    for (std::size_t k = first; k < f.size(); ++k) q.push_back(test::number(f[k]));
    ASSERT_EQ(int(q.size()), m.coord_count) << line;
    eval_fk(m, q, {}, s);
    EXPECT_LE(length(s.body_q[tool].p - want[row]), 1e-4) << line;
  }
  EXPECT_EQ(row, want.size());
}

TEST(CliSolveTargets, ChunkBeyondTheIntRangeIsRefused) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  std::string targets = dir.write("t.csv", p[0] + "\n");
  for (const char* chunk : {"4294967296", "0", ""}) {
    CmdResult r = run_solve(targets, dir / "out.csv", {"--chunk", chunk});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("option '--chunk': "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("[1, 2147483647]"), std::string::npos) << r.err;
  }
  // a sequential path solves one target at a time: --chunk would be dropped without a word
  CmdResult r = run_solve(targets, dir / "out.csv", {"--chunk", "5", "--sequential"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--chunk does not go with --sequential"), std::string::npos) << r.err;
  // an empty path names the option (it read "ikwb solve: : cannot open the file")
  r = run_solve("", dir / "out.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("option '--targets': the path is empty (T.csv)"), std::string::npos)
      << r.err;
}

// --min-success: a pipeline can stop on a run that missed too many targets; OUT.csv is written
// either way, and without the option the exit status does not depend on what converged
TEST(CliSolveTargets, MinSuccessExitsWithThreeWhenTooFewConvergeAndStillWritesTheRows) {
  TempDir dir;
  const std::vector<std::string> p = reachable_points();
  // 5 m is beyond planar3's reach (its links add up to about 1.2 m)
  const std::string targets =
      dir.write("t.csv", "x,y,z\n" + p[0] + "\n5,0,0\n5,1,0\n" + p[1] + "\n");
  const std::string out = dir / "out.csv";
  CmdResult r = run_solve(targets, out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solved 2/4 (50.0%)"), std::string::npos) << r.out;

  r = run_solve(targets, out, {"--min-success", "75"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("50.0% of the lines converged, under --min-success 75"), std::string::npos)
      << r.err;
  EXPECT_EQ(converged_column(test::read_text(out)), (std::vector<int>{1, 0, 0, 1}));

  r = run_solve(targets, out, {"--min-success", "50"});
  EXPECT_EQ(r.code, 0) << r.err;
  // held to the rate itself, not to the summary's rounding of it
  r = run_solve(targets, out, {"--min-success", "50.01"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("50.0% of the lines converged, under --min-success 50.01"),
            std::string::npos)
      << r.err;

  for (const char* bad : {"101", "-1", "most"}) {
    r = run_solve(targets, out, {"--min-success", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--min-success"), std::string::npos) << r.err;
  }
}

// a robot a few centimetres long is told what the position tolerance is to it (an 18 mm arm's
// rows "converged" 0.1 mm, 0.55% of it, off their targets without a word); a metre-long one is not
TEST(CliSolveTargets, APositionToleranceLargeForTheArmIsNoted) {
  TempDir dir;
  const std::string tiny = dir.write(
      "tiny.urdf",
      "<robot name=\"tiny\"><link name=\"a\"/><link name=\"b\"/><link name=\"tip\"/>"
      "<joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
      "<axis xyz=\"0 0 1\"/><limit lower=\"-2\" upper=\"2\" effort=\"1\" velocity=\"1\"/>"
      "</joint><joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"tip\"/>"
      "<origin xyz=\"0.01 0 0\"/><axis xyz=\"0 0 1\"/>"
      "<limit lower=\"-2\" upper=\"2\" effort=\"1\" velocity=\"1\"/></joint></robot>");
  const std::string targets = dir.write("t.csv", "x,y,z\n0.01,0,0\n");
  CmdResult r = test::run_command(
      cmd_solve, {"solve", tiny, "--link", "tip", "--targets", targets, "--out", dir / "out.csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("note: the position tolerance, 0.0001 m (--tol-pos), is 1% of the 0.01 m "
                       "from the link's chain's first moving joint to the point"),
            std::string::npos)
      << r.err;
  r = test::run_command(cmd_solve, {"solve", tiny, "--link", "tip", "--targets", targets, "--out",
                                    dir / "out.csv", "--tol-pos", "1e-6"});
  EXPECT_EQ(r.err.find("position tolerance"), std::string::npos) << r.err;
  r = run_solve(dir.write("p.csv", "x,y,z\n" + reachable_points()[0] + "\n"), dir / "out.csv");
  EXPECT_EQ(r.err.find("position tolerance"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ikwb
