// `ikwb info` and `ikwb fk` run in-process on temporary files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/trajectory_io.hpp"
#include "cli/run_command.hpp"
#include "core/temp_files.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/objective_whole_body.hpp"

namespace ikwb {
namespace {

using test::TempDir;

const char* kRobot = R"(<robot name="cli_bot">
  <link name="base">
    <inertial><mass value="3"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
  </link>
  <link name="upper"/>
  <link name="lower"/>
  <link name="slider"/>
  <link name="finger"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.3" rpy="0 0.2 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="1"/>
  </joint>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="lower"/>
    <origin xyz="0.4 0 0" rpy="0.1 0 0.3"/><axis xyz="0 0 1"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="lower"/><child link="slider"/>
    <origin xyz="0.3 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" effort="10" velocity="1"/>
  </joint>
  <joint name="finger_joint" type="continuous">
    <parent link="slider"/><child link="finger"/>
    <origin xyz="0.05 0 0"/><axis xyz="0 0 1"/>
    <mimic joint="elbow" multiplier="-0.5" offset="0.1"/>
  </joint>
</robot>
)";

using test::CmdResult;
using test::number;

CmdResult run(int (*cmd)(int, char**), std::vector<std::string> args) {
  return test::run_command(cmd, std::move(args));
}

TEST(CliInfo, JsonHasCountsJointsAndBodies) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  CmdResult r = run(cmd_info, {"info", urdf, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "cli_bot");
  EXPECT_EQ(j["joint_coord_count"], 3);
  EXPECT_EQ(j["joint_dof_count"], 3);
  ASSERT_EQ(j["joints"].size(), 5u);
  ASSERT_EQ(j["bodies"].size(), 5u);
  for (const auto& jo : j["joints"])
    for (const char* key :
         {"name", "type", "parent", "child", "q_start", "qd_start", "lower", "upper"})
      EXPECT_TRUE(jo.contains(key)) << key;

  const auto& root = j["joints"][0];
  EXPECT_EQ(root["name"], "root_joint");
  EXPECT_EQ(root["type"], "fixed");
  EXPECT_TRUE(root["parent"].is_null());
  EXPECT_EQ(root["child"], "base");
  EXPECT_TRUE(root["lower"].is_null());
  EXPECT_TRUE(root["axis"].is_null());  // fixed: no axis, whatever the loader stored

  const auto& shoulder = j["joints"][1];
  EXPECT_EQ(shoulder["name"], "shoulder");
  EXPECT_EQ(shoulder["type"], "revolute");
  EXPECT_EQ(shoulder["parent"], "base");
  EXPECT_EQ(shoulder["child"], "upper");
  EXPECT_EQ(shoulder["q_start"], 0);
  EXPECT_EQ(shoulder["qd_start"], 0);
  EXPECT_EQ(shoulder["lower"], -1.5);
  EXPECT_EQ(shoulder["upper"], 1.5);
  EXPECT_EQ(shoulder["axis"], nlohmann::json({0.0, 1.0, 0.0}));

  const auto& elbow = j["joints"][2];
  EXPECT_EQ(elbow["type"], "continuous");
  EXPECT_EQ(elbow["q_start"], 1);
  EXPECT_TRUE(elbow["lower"].is_null());
  EXPECT_TRUE(elbow["upper"].is_null());

  const auto& slide = j["joints"][3];
  EXPECT_EQ(slide["type"], "prismatic");
  EXPECT_EQ(slide["q_start"], 2);
  EXPECT_EQ(slide["upper"], 0.2);

  const auto& finger = j["joints"][4];
  EXPECT_EQ(finger["mimic"]["joint"], "elbow");
  EXPECT_EQ(finger["mimic"]["multiplier"], -0.5);
  EXPECT_EQ(finger["coord_count"], 0);

  EXPECT_EQ(j["bodies"][0]["name"], "base");
  EXPECT_EQ(j["bodies"][0]["parent_joint"], "root_joint");
  EXPECT_EQ(j["bodies"][0]["mass"], 3.0);
  EXPECT_EQ(j["bodies"][2]["parent_joint"], "elbow");
}

// --capsules lists the capsules fitted to each link, which check and the collision objectives
// test: a box link's capsule runs along its longest side, the box's half width its radius
TEST(CliInfo, CapsulesAreListedInTheLinksFrames) {
  TempDir dir;
  std::string urdf = dir.write("box.urdf", R"(<robot name="b"><link name="base">
    <collision><origin xyz="0 0 0.5"/><geometry><box size="0.2 0.2 1"/></geometry></collision>
    </link></robot>)");
  CmdResult r = run(cmd_info, {"info", urdf, "--json", "--capsules"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json caps = nlohmann::json::parse(r.out)["bodies"][0]["capsules"];
  ASSERT_EQ(caps.size(), 1u) << caps.dump();
  const double z0 = caps[0]["p0"][2], z1 = caps[0]["p1"][2], radius = caps[0]["radius"];
  EXPECT_GT(radius, 0.1 - 1e-9);  // covers the box's half width
  EXPECT_LT(std::min(z0, z1), 0.5);
  EXPECT_GT(std::max(z0, z1), 0.5);
  EXPECT_NEAR(caps[0]["p0"][0].get<double>(), 0.0, 1e-12);
  r = run(cmd_info, {"info", urdf, "--capsules"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("capsules (link frame, m):"), std::string::npos) << r.out;
  // without the flag, no capsules (no meshes are read)
  r = run(cmd_info, {"info", urdf, "--json"});
  EXPECT_FALSE(nlohmann::json::parse(r.out)["bodies"][0].contains("capsules"));
  // why a link has none is in the JSON's warnings too, not only on standard error
  std::string visual = dir.write("visual.urdf", R"(<robot name="v"><link name="base">
    <visual><geometry><box size="0.2 0.2 1"/></geometry></visual></link></robot>)");
  r = run(cmd_info, {"info", visual, "--json", "--capsules"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json warnings = nlohmann::json::parse(r.out)["warnings"];
  ASSERT_EQ(warnings.size(), 1u) << r.out;
  EXPECT_NE(warnings[0].get<std::string>().find("its <visual> is used for collisions"),
            std::string::npos);
}

TEST(CliInfo, FloatingBaseAndText) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  CmdResult r = run(cmd_info, {"info", "--floating-base", urdf, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["joint_coord_count"], 10);
  EXPECT_EQ(j["joint_dof_count"], 9);
  EXPECT_EQ(j["joints"][0]["type"], "free");
  EXPECT_TRUE(j["joints"][0]["axis"].is_null());
  EXPECT_EQ(j["joints"][1]["q_start"], 7);

  CmdResult t = run(cmd_info, {"info", urdf});
  ASSERT_EQ(t.code, 0) << t.err;
  for (const char* s : {"robot 'cli_bot'", "joint_coord_count 3", "joint_dof_count 3",
                        "tree:", "finger  (finger_joint: continuous, mimics elbow)",
                        "joints:", "bodies:", "-0.5 x elbow + 0.1", "root_joint"})
    EXPECT_NE(t.out.find(s), std::string::npos) << s << "\n" << t.out;
  // the world frame is not a link named world (the UR5e's root link is)
  std::string world_root = kRobot;
  for (std::size_t at; (at = world_root.find("\"base\"")) != std::string::npos;)
    world_root.replace(at, 6, "\"world\"");
  t = run(cmd_info, {"info", dir.write("world.urdf", world_root)});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("tree:\n  (world)\n    world  (root_joint: fixed)\n"), std::string::npos)
      << t.out;
}

// a --package-path folder that is not there is said (it was taken without a word; a review)
TEST(CliInfo, APackagePathThatIsNotThereIsSaid) {
  TempDir dir;
  const std::string urdf = dir.write("bot.urdf", kRobot);
  const std::string missing = dir / "no_such_folder", there = dir.path().string();
  CmdResult r = run(cmd_info, {"info", urdf, "--package-path", missing, "--package-path", there});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --package-path " + missing + ": no such folder"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("--package-path " + there + ":"), std::string::npos) << r.err;
}

// the tables line up on a terminal with names in Japanese, Greek and with an emoji: in every row
// of the joints table the type column starts at the same display column (CJK characters and
// emoji take two columns, the others one)
TEST(CliInfo, TablesAlignNonAsciiNames) {
  CmdResult t =
      run(cmd_info, {"info", IKWB_SOURCE_DIR "/tests/data/hostile/urdf/unicode_names.urdf"});
  ASSERT_EQ(t.code, 0) << t.err;
  auto columns_before = [](const std::string& line, std::size_t byte) {
    std::size_t cols = 0;
    for (std::size_t i = 0; i < byte;) {
      const unsigned char b = static_cast<unsigned char>(line[i]);
      const int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      uint32_t cp = len == 1 ? b : b & (0x7F >> len);
      for (int k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(line[i + k]) & 0x3F);
      cols += (cp >= 0x3000 && cp <= 0x9FFF) || cp >= 0x1F000 ? 2 : 1;
      i += std::size_t(len);
    }
    return cols;
  };
  std::istringstream in(t.out.substr(t.out.find("joints:")));
  std::string line;
  std::vector<std::size_t> starts;
  while (std::getline(in, line) && !line.empty())
    for (const char* type : {" type ", " fixed ", " revolute "})
      if (std::size_t at = line.find(type); at != std::string::npos) {
        starts.push_back(columns_before(line, at));
        break;
      }
  ASSERT_EQ(starts.size(), 4u) << t.out;
  for (std::size_t s : starts) EXPECT_EQ(s, starts[0]) << t.out;
}

// --xacro-arg: each NAME:=VALUE goes to xacro after the file; anything else is an error naming
// the argument
TEST(CliInfo, XacroArguments) {
  TempDir dir;
  std::string script = dir.write("bin/xacro",
                                 "#!/bin/sh\n"
                                 "shift\n"
                                 "echo \"<robot name='args[$*]'><link name='a'/></robot>\"\n");
  chmod(script.c_str(), 0755);
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  setenv("PATH", (dir / "bin").c_str(), 1);
  const std::string xacro = dir.write("arm.urdf.xacro", "<robot/>");
  CmdResult r = run(cmd_info, {"info", xacro, "--xacro-arg", "name:=ur", "--xacro-arg",
                               "ur_type:=ur5e", "--json"});
  CmdResult bad = run(cmd_info, {"info", xacro, "--xacro-arg", "ur5e"});
  setenv("PATH", saved.c_str(), 1);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["name"], "args[name:=ur ur_type:=ur5e]");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("xacro argument 'ur5e': expected NAME:=VALUE"), std::string::npos)
      << bad.err;
}

TEST(CliInfo, ShippedRobotByName) {
  CmdResult r = run(cmd_info, {"info", "panda", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["joint_coord_count"].get<int>(), 0);
  EXPECT_NE(j["source"].get<std::string>().find("panda.urdf"), std::string::npos);
}

TEST(CliInfo, ErrorsGoToStderrWithNonZeroExit) {
  TempDir dir;
  CmdResult missing = run(cmd_info, {"info", dir / "nope.urdf"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(missing.out.empty());
  EXPECT_NE(missing.err.find("nope.urdf: cannot open file"), std::string::npos) << missing.err;
  // a bare name is taken for a shipped robot's: the shipped ones are listed
  CmdResult unknown = run(cmd_info, {"info", "nosuchrobot"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("'nosuchrobot' is neither a file nor a shipped robot (shipped: "),
            std::string::npos)
      << unknown.err;
  EXPECT_NE(unknown.err.find("panda"), std::string::npos) << unknown.err;

  std::string bad = dir.write("bad.urdf",
                              "<robot name=\"r\">\n<link name=\"a\"/>\n<link/>\n"
                              "</robot>\n");
  CmdResult malformed = run(cmd_info, {"info", bad, "--json"});
  EXPECT_EQ(malformed.code, 1);
  EXPECT_NE(malformed.err.find("bad.urdf:3: <link> without a name"), std::string::npos)
      << malformed.err;

  CmdResult usage = run(cmd_info, {"info", "--bogus"});
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.err.find("unknown option '--bogus'"), std::string::npos) << usage.err;
  EXPECT_NE(usage.err.find("usage: ikwb info"), std::string::npos) << usage.err;

  CmdResult help = run(cmd_info, {"info", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--package-path DIR"), std::string::npos);
}

TEST(CliInfo, WarningsGoToStderr) {
  TempDir dir;
  std::string urdf = dir.write("w.urdf", R"(<robot name="w"><link name="a"><visual><geometry>
        <mesh filename="package://missing_pkg/m.stl"/></geometry></visual></link></robot>)");
  CmdResult r = run(cmd_info, {"info", urdf, "--json"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.err.find("warning: "), std::string::npos);
  EXPECT_NE(r.err.find("missing_pkg"), std::string::npos) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["warnings"].size(), 1u);
}

// --meshes reads the meshes as the workbench does: their missing .mtl and textures are warnings
// (tests/data/robots/missing_materials); without it they are only looked for, and found
TEST(CliInfo, MeshesFlagWarnsOfMissingMaterialFiles) {
  const std::string urdf =
      IKWB_SOURCE_DIR "/tests/data/robots/missing_materials/missing_materials.urdf";
  CmdResult r = run(cmd_info, {"info", urdf, "--meshes"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + urdf + ":9: "), std::string::npos) << r.err;
  for (const char* s : {"mesh 'meshes/arm.obj': material library 'arm_colors.mtl'",
                        "mesh 'meshes/hand.obj': texture 'finger tips.png'",
                        "mesh 'meshes/shell.dae': texture 'shell paint.png'"})
    EXPECT_NE(r.err.find(s), std::string::npos) << s << "\n" << r.err;
  r = run(cmd_info, {"info", urdf, "--meshes", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["warnings"].size(), 3u) << r.out;
  r = run(cmd_info, {"info", urdf, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["warnings"].empty()) << r.out;
}

TEST(CliFk, PosesMatchEvalFk) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  std::string q = dir.write("q.csv",
                            "# shoulder, elbow, slide\n"
                            "shoulder,elbow,slide\n"
                            "0,0,0\n"
                            "\n"
                            "0.5,-1.25,0.1\n"
                            "  # late comment\n"
                            "-1.5,3.0,0.2\n");
  std::string out = dir / "poses.csv";
  CmdResult r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;

  LoadResult model = load_urdf_file(urdf);
  const Model& m = *model.model;
  std::istringstream in(test::read_text(out));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "config,body,x,y,z,qx,qy,qz,qw");
  std::vector<std::vector<double>> configs = {{0, 0, 0}, {0.5, -1.25, 0.1}, {-1.5, 3.0, 0.2}};
  State s(m);
  int rows = 0;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    eval_fk(m, configs[c], {}, s);
    for (int b = 0; b < m.body_count; ++b) {
      ASSERT_TRUE(std::getline(in, line));
      std::vector<std::string> f = split_csv_line(line);
      ASSERT_EQ(f.size(), 9u) << line;
      EXPECT_EQ(f[0], std::to_string(c));
      EXPECT_EQ(f[1], m.body_name[b]);
      const Transform<double>& x = s.body_q[b];
      // full precision: the text reads back bit for bit
      double want[7] = {x.p.x, x.p.y, x.p.z, x.q.x, x.q.y, x.q.z, x.q.w};
      for (int k = 0; k < 7; ++k) EXPECT_EQ(number(f[2 + k]), want[k]) << line;
      ++rows;
    }
  }
  EXPECT_FALSE(std::getline(in, line));
  EXPECT_EQ(rows, 15);
  // the mimic finger follows the elbow: -0.5 * -1.25 + 0.1 relative to the slider
  eval_fk(m, configs[1], {}, s);
  Quat<double> rel =
      conjugate(s.body_q[m.find_body("slider")].q) * s.body_q[m.find_body("finger")].q;
  EXPECT_NEAR(2 * std::atan2(rel.z, rel.w), 0.725, 1e-12);
}

// --com: one row per configuration, the com objective's centre of mass and the total mass
TEST(CliFk, CenterOfMassOfEachConfiguration) {
  TempDir dir;
  std::string q = dir.write("q.csv", "0,0,0\n0.3,-1.1,2.4\n");
  std::string com = dir / "com.csv";
  CmdResult r = run(cmd_fk, {"fk", "planar3", "--q", q, "--out", dir / "poses.csv", "--com", com});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(test::read_text(com));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "config,x,y,z,mass");
  UrdfOptions opt;
  opt.load_meshes = false;
  LoadResult model = load_urdf_file(IKWB_SOURCE_DIR "/assets/robots/planar3/planar3.urdf", opt);
  const Model& m = *model.model;
  State s(m);
  std::vector<std::vector<double>> configs = {{0, 0, 0}, {0.3, -1.1, 2.4}};
  for (std::size_t i = 0; i < configs.size(); ++i) {
    ASSERT_TRUE(std::getline(in, line));
    std::vector<std::string> f = split_csv_line(line);
    ASSERT_EQ(f.size(), 5u) << line;
    EXPECT_EQ(f[0], std::to_string(i));
    eval_fk(m, configs[i], {}, s);
    Vec3<double> c = center_of_mass(m.view(), s.body_q.data());
    EXPECT_EQ(number(f[1]), c.x) << line;
    EXPECT_EQ(number(f[2]), c.y) << line;
    EXPECT_EQ(number(f[3]), c.z) << line;
    EXPECT_NEAR(number(f[4]), 9.5, 1e-12) << line;
  }
  EXPECT_FALSE(std::getline(in, line));
  // --com on standard output holds only that CSV: the summary goes to standard error; both
  // outputs there would interleave and are refused
  r = run(cmd_fk, {"fk", "planar3", "--q", q, "--out", dir / "poses.csv", "--com", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, test::read_text(com));
  EXPECT_NE(r.err.find("fk: 2 configurations x"), std::string::npos) << r.err;
  r = run(cmd_fk, {"fk", "planar3", "--q", q, "--out", "-", "--com", "-"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--out and --com are both standard output"), std::string::npos) << r.err;
}

TEST(CliFk, FloatingBaseToStdout) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  std::string q = dir.write("q.csv", "1,2,3,0,0,0,1,0,0,0\n");
  CmdResult r = run(cmd_fk, {"fk", urdf, "--floating-base", "--q", q, "--out", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(r.out);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(first, "0,base,1,2,3,0,0,0,1");
  // the summary on standard error (it was left out), standard output only the CSV
  EXPECT_NE(r.err.find("fk: 1 configuration x "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" bodies written to standard output"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("written"), std::string::npos) << r.out;
}

// configurations outside the limits are computed as given, with one note that counts them and
// names the first; a continuous joint has none, and a value at a limit is within it
TEST(CliFk, ConfigurationsOutsideTheLimitsGetANote) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  std::string q = dir.write("q.csv", "0,0,0.1\n2,0,0.1\n0,100,0.25\n1.5,-7,0.2\n");
  CmdResult r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("fk: note: 2 of 4 configurations put a joint outside its limits, computed "
                       "as given (the first: " +
                       q + ":2, shoulder = 2 outside [-1.5, 1.5])\n"),
            std::string::npos)
      << r.err;
  std::string inside = dir.write("inside.csv", "0,0,0.1\n1.5,-7,0.2\n");
  r = run(cmd_fk, {"fk", urdf, "--q", inside, "--out", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("note"), std::string::npos) << r.err;
}

// a robot with only fixed joints (quadrotor bases in example-robot-data) has one configuration,
// the empty one: an empty Q.csv gives its poses
TEST(CliFk, RobotWithoutCoordinatesTakesAnEmptyFile) {
  TempDir dir;
  std::string urdf = dir.write("rigid.urdf", R"(<robot name="rigid"><link name="a"/><link name="b"/>
    <joint name="f" type="fixed"><parent link="a"/><child link="b"/>
    <origin xyz="0 0 0.5"/></joint></robot>)");
  std::string q = dir.write("q.csv", "");
  CmdResult r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0,b,0,0,0.5,0,0,0,1"), std::string::npos) << r.out;
}

TEST(CliFk, BadInputs) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  std::string out = dir / "poses.csv";

  std::string short_row = dir.write("short.csv", "0,0,0\n# c\n0.1,0.2\n");
  CmdResult r = run(cmd_fk, {"fk", urdf, "--q", short_row, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("short.csv:3: expected 3 values (joint_coord_count), got 2"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  std::string text = dir.write("text.csv", "0,zero,0\n");
  r = run(cmd_fk, {"fk", urdf, "--q", text, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("text.csv:1: column 2 'zero' is not a number"), std::string::npos) << r.err;

  std::string empty = dir.write("empty.csv", "# nothing\n");
  r = run(cmd_fk, {"fk", urdf, "--q", empty, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no configurations"), std::string::npos) << r.err;

  std::string zero_quat = dir.write("zq.csv", "0,0,0,0,0,0,0,0,0,0\n");
  r = run(cmd_fk, {"fk", urdf, "--floating-base", "--q", zero_quat, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(
      r.err.find(
          "zq.csv:1: the quaternion of joint 'root_joint' (root_joint_3 to root_joint_6) is zero"),
      std::string::npos)
      << r.err;

  r = run(cmd_fk, {"fk", urdf, "--out", out});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing option --q Q.csv"), std::string::npos) << r.err;

  r = run(cmd_fk, {"fk", dir / "missing.urdf", "--q", short_row, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.urdf: cannot open file"), std::string::npos) << r.err;
}

// a header naming the coordinates in another order is honoured: columns are read by name; a
// first column `time` (`ikwb animate`'s joint trajectory) is left out
TEST(CliFk, HeaderInAnotherOrderIsReadByName) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  std::string ordered = dir.write("ordered.csv", "0.5,-1.25,0.1\n-1.5,3.0,0.2\n");
  std::string shuffled =
      dir.write("shuffled.csv", "slide, shoulder ,elbow\r\n0.1,0.5,-1.25\r\n0.2,-1.5,3.0\r\n");
  std::string timed =
      dir.write("t.csv", "time,shoulder,elbow,slide\n0,0.5,-1.25,0.1\n0.5,-1.5,3.0,0.2\n");
  CmdResult a = run(cmd_fk, {"fk", urdf, "--q", ordered, "--out", "-"});
  ASSERT_EQ(a.code, 0) << a.err;
  for (const std::string& q : {shuffled, timed}) {
    CmdResult b = run(cmd_fk, {"fk", urdf, "--q", q, "--out", "-"});
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(a.out, b.out) << q;
  }
}

// a robot with a joint named `time`: a header naming it once names the joint; `time` twice
// (`ikwb animate`'s output for that robot) is the time column, then the joint
TEST(CliFk, JointNamedTimeIsAJointUnlessTheHeaderHasTwo) {
  TempDir dir;
  std::string robot = kRobot;
  for (std::size_t at; (at = robot.find("\"elbow\"")) != std::string::npos;)
    robot.replace(at, 7, "\"time\"");
  std::string urdf = dir.write("bot.urdf", robot);
  std::string ordered = dir.write("ordered.csv", "0.5,-1.25,0.1\n-1.5,3.0,0.2\n");
  std::string named = dir.write("named.csv", "time,shoulder,slide\n-1.25,0.5,0.1\n3.0,-1.5,0.2\n");
  std::string timed =
      dir.write("timed.csv", "time,shoulder,time,slide\n0,0.5,-1.25,0.1\n0.5,-1.5,3.0,0.2\n");
  CmdResult a = run(cmd_fk, {"fk", urdf, "--q", ordered, "--out", "-"});
  ASSERT_EQ(a.code, 0) << a.err;
  for (const std::string& q : {named, timed}) {
    CmdResult b = run(cmd_fk, {"fk", urdf, "--q", q, "--out", "-"});
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(a.out, b.out) << q;
  }
}

// joints whose names start like numbers ('2nd', '-3') name a header all the same (it read as a
// row whose 'shoulder' was not a number, so a solve's output did not read back), a misspelt
// one among names is named; joints named by numbers ('1', '2', '3') make a first line naming
// each once a header, said (it was read as a configuration and the rows after it by position),
// and a first row of values that does not name each once is a row (a zero pose '0,0,0' of a
// robot with a joint named 0 was refused as a header)
TEST(CliFk, JointsNamedLikeNumbersNameAHeader) {
  TempDir dir;
  std::string robot = kRobot;
  auto rename = [&](const std::string& from, const std::string& to) {
    for (std::size_t at; (at = robot.find("\"" + from + "\"")) != std::string::npos;)
      robot.replace(at, from.size() + 2, "\"" + to + "\"");
    return dir.write(to + ".urdf", robot);
  };
  const std::string ordered = dir.write("ordered.csv", "0.5,-1.25,0.1\n-1.5,3.0,0.2\n");
  auto same_poses = [&](const std::string& urdf, const std::string& q) {
    CmdResult a = run(cmd_fk, {"fk", urdf, "--q", ordered, "--out", "-"});
    CmdResult b = run(cmd_fk, {"fk", urdf, "--q", q, "--out", "-"});
    EXPECT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(a.out, b.out) << q;
    return b.err;
  };
  std::string urdf = rename("elbow", "2nd");
  same_poses(urdf, dir.write("named.csv", "slide,shoulder,2nd\n0.1,0.5,-1.25\n0.2,-1.5,3.0\n"));
  CmdResult r =
      run(cmd_fk, {"fk", urdf, "--q", dir.write("typo.csv", "slide,shoulder,2dn\n"), "--out", "-"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not coordinates of the robot: '2dn'; missing: '2nd'"), std::string::npos)
      << r.err;
  urdf = rename("slide", "-3");
  same_poses(urdf, dir.write("signed.csv", "-3,shoulder,2nd\n0.1,0.5,-1.25\n0.2,-1.5,3.0\n"));

  urdf = rename("shoulder", "0");
  const std::string zero = dir.write("zero.csv", "0,0,0\n0.5,-1.25,0.1\n");
  r = run(cmd_fk, {"fk", urdf, "--q", zero, "--out", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("fk: 2 configurations"), std::string::npos) << r.err;
  // a header of number-named joints that leaves one out names it (it read as a row whose '2nd'
  // was no number); animate's output reads as a motion
  r = run(cmd_fk, {"fk", urdf, "--q", dir.write("short0.csv", "0,2nd\n"), "--out", "-"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing: '-3'"), std::string::npos) << r.err;
  const Motion motion = read_trajectory_csv(
      dir.write("motion.csv", "time,2nd,0,-3\n0,-1.25,0.5,0.1\n0.5,3.0,-1.5,0.2\n"),
      *load_urdf_file(urdf).model);
  EXPECT_EQ(motion.q, (std::vector<double>{0.5, -1.25, 0.1, -1.5, 3.0, 0.2}));

  rename("2nd", "2");
  urdf = rename("-3", "1");
  const std::string err =
      same_poses(urdf, dir.write("numbers.csv", "1,0,2\n0.1,0.5,-1.25\n0.2,-1.5,3.0\n"));
  EXPECT_NE(err.find("numbers.csv:1: read as a header: it names each of the robot's joints "
                     "(named by numbers) once"),
            std::string::npos)
      << err;
  // one coordinate named 0: a first line '0' is its value (a header of one number is not told
  // from a row)
  const std::string one =
      dir.write("one.urdf", R"(<robot name="one"><link name="a"/><link name="b"/>
      <joint name="0" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>)");
  r = run(cmd_fk, {"fk", one, "--q", dir.write("one.csv", "0\n0.5\n"), "--out", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("fk: 2 configurations"), std::string::npos) << r.err;
}

// ROS joint_states name every joint: a mimic joint (the Panda's second finger) and fixed ones
// have no coordinates of their own, and their columns are left out
TEST(CliFk, HeaderColumnsOfMimicAndFixedJointsAreLeftOut) {
  TempDir dir;
  const std::string plain = dir.write("q.csv", "0.1,-0.5,0.2,-2,0.3,1.5,0.7,0.02\n");
  const std::string states = dir.write(
      "states.csv",
      "panda_finger_joint2,panda_joint1,panda_joint2,panda_joint3,panda_joint4,panda_joint5,"
      "panda_joint6,panda_joint7,panda_joint8,panda_finger_joint1\n"
      "0.99,0.1,-0.5,0.2,-2,0.3,1.5,0.7,5,0.02\n");
  CmdResult a = run(cmd_fk, {"fk", "panda", "--q", plain, "--out", "-"});
  CmdResult b = run(cmd_fk, {"fk", "panda", "--q", states, "--out", "-"});
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  // the second finger's 0.99 contradicts the first's 0.02: said, not read
  EXPECT_NE(b.err.find("states.csv: column 'panda_finger_joint2' (a mimic joint: "
                       "panda_finger_joint1) differs from its source's value on 1 of 1 rows, "
                       "by up to 0.97; it is not read, the joint follows its source"),
            std::string::npos)
      << b.err;
  const std::string agreeing = dir.write(
      "agreeing.csv",
      "panda_finger_joint2,panda_joint1,panda_joint2,panda_joint3,panda_joint4,panda_joint5,"
      "panda_joint6,panda_joint7,panda_finger_joint1\n"
      "0.02,0.1,-0.5,0.2,-2,0.3,1.5,0.7,0.02\n");
  CmdResult c = run(cmd_fk, {"fk", "panda", "--q", agreeing, "--out", "-"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.err.find("mimic"), std::string::npos) << c.err;
}

TEST(CliFk, HeaderWithUnknownOrMissingNamesIsAnError) {
  TempDir dir;
  std::string urdf = dir.write("bot.urdf", kRobot);
  std::string out = dir / "poses.csv";
  std::string q = dir.write("q.csv", "# configurations\nshoulder,wrist,slide\n0,0,0\n");
  CmdResult r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("q.csv:2: the header must name each joint coordinate once (joint names; "
                       "NAME_0, NAME_1, ... for a ball, free or planar joint; a first column "
                       "`time`, the leading result columns of `ikwb solve`, fixed and mimic "
                       "joints are left out); not coordinates of the "
                       "robot: 'wrist'; missing: 'elbow'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  q = dir.write("q.csv", "elbow,elbow,slide\n0,0,0\n");
  r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("repeated: 'elbow'; missing: 'shoulder'"), std::string::npos) << r.err;

  // fewer names than coordinates: the missing ones are named (not only counted)
  q = dir.write("q.csv", "shoulder,slide\n0,0\n");
  r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("q.csv:1: the header must name each joint coordinate once"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("missing: 'elbow'"), std::string::npos) << r.err;
  // ... also when the rows are wider than the header: the names come first
  q = dir.write("q.csv", "config,x\n1,2,3\n");
  r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("q.csv:1: the header must name"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not coordinates of the robot: 'config', 'x'"), std::string::npos) << r.err;
}

// an output that cannot be written fails the run before any output is written
TEST(CliFk, AFailingOutputLeavesNoOtherOutput) {
  TempDir dir;
  std::string q = dir.write("q.csv", "0,0,0\n");
  std::string poses = dir / "poses.csv";
  CmdResult r =
      run(cmd_fk, {"fk", "planar3", "--q", q, "--out", poses, "--com", dir / "no/such/com.csv"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("com.csv: cannot create file (No such file or directory)"),
            std::string::npos)
      << r.err;
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"q.csv"});
}

// an output that names one of the command's inputs is refused before anything is read or
// written (each of these replaced its input: a solve's scene, an animation's scene, a check's
// robot, an fk's configurations)
TEST(CliOutputs, AnOutputNamingAnInputIsRefused) {
  TempDir dir;
  const std::string q = dir.write("q.csv", "0,0,0\n");
  const std::string scene = dir.write("s.json", "{\"version\": 1}");
  const std::string targets = dir.write("t.csv", "0.3,0.2,0\n");
  const std::string robot = dir.write("r.urdf", test::read_text(resolve_robot("planar3")));
  const std::string same_q = (std::filesystem::path(dir.path()) / "." / "q.csv").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"fk", robot, "--q", q, "--out", same_q}, "--out names the same file as --q"},
      {{"fk", robot, "--q", q, "--out", dir / "p.csv", "--com", q},
       "--com names the same file as --q"},
      {{"solve", "--scene", scene, "--out", scene}, "--out names the same file as --scene"},
      {{"solve", robot, "--link", "tip", "--targets", targets, "--out", targets},
       "--out names the same file as --targets"},
      {{"animate", scene, "--out", scene}, "--out names the same file as SCENE.json"},
      {{"check", robot, "--q", q, "--out", robot}, "--out names the same file as ROBOT.urdf"}};
  for (const auto& [args, message] : runs) {
    int (*cmd)(int, char**) = args[0] == "fk"        ? cmd_fk
                              : args[0] == "solve"   ? cmd_solve
                              : args[0] == "animate" ? cmd_animate
                                                     : cmd_check;
    CmdResult r = run(cmd, args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  EXPECT_EQ(test::read_text(q), "0,0,0\n");
  EXPECT_EQ(test::read_text(scene), "{\"version\": 1}");
  EXPECT_EQ(test::read_text(targets), "0.3,0.2,0\n");
  EXPECT_EQ(test::read_text(robot), test::read_text(resolve_robot("planar3")));
}

// configurations of the robot floating (a free root's NAME_0..NAME_6 columns), read for it fixed:
// the error says the root is fixed here and asks about --floating-base
TEST(CliFk, AFloatingRobotsColumnsForAFixedOneAskAboutFloatingBase) {
  TempDir dir;
  const std::string q =
      dir.write("q.csv",
                "root_joint_0,root_joint_1,root_joint_2,root_joint_3,root_joint_4,root_joint_5,"
                "root_joint_6,joint1,joint2,joint3\n0,0,0,0,0,0,1,0,0,0\n");
  CmdResult r = run(cmd_fk, {"fk", "planar3", "--q", q, "--out", dir / "p.csv"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("('root_joint' is fixed here: was the file written with --floating-base?)"),
            std::string::npos)
      << r.err;
  r = run(cmd_fk, {"fk", "planar3", "--floating-base", "--q", q, "--out", dir / "p.csv"});
  EXPECT_EQ(r.code, 0) << r.err;
}

// a robot without mass has no centre of mass: --com says what it writes instead
TEST(CliFk, AMasslessRobotsCentreOfMassIsNamedAsSuch) {
  TempDir dir;
  const std::string urdf = dir.write("r.urdf", R"(<robot name="r"><link name="a"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint><link name="b"/></robot>)");
  const std::string q = dir.write("q.csv", "0\n");
  CmdResult r = run(cmd_fk, {"fk", urdf, "--q", q, "--out", dir / "p.csv", "--com", dir / "c.csv"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: the robot has no mass (no body has one)"), std::string::npos)
      << r.err;
  EXPECT_NE(test::read_text(dir / "c.csv").find("\n0,0.5,0,0,0\n"), std::string::npos)
      << test::read_text(dir / "c.csv");
}

// the files a scene names are inputs too: an output naming the scene's robot or its SRDF is
// refused (animate and solve --scene replaced the robot with their CSV)
TEST(CliOutputs, AnOutputNamingAFileOfTheSceneIsRefused) {
  TempDir dir;
  const std::string q = dir.write("q.csv", "0,0,0\n");
  const std::string robot = dir.write("r.urdf", test::read_text(resolve_robot("planar3")));
  const std::string srdf = dir.write("r.srdf", "<robot name=\"planar3\"/>\n");
  const std::string scene =
      dir.write("s.json", R"({"version": 1, "robot": "r.urdf", "srdf": "r.srdf"})");
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"animate", scene, "--out", robot}, "--out names the same file as the scene's robot"},
      {{"solve", "--scene", scene, "--out", robot},
       "--out names the same file as the scene's robot"},
      {{"solve", "--scene", scene, "--out", srdf}, "--out names the same file as the scene's srdf"},
      {{"check", "planar3", "--q", q, "--scene", scene, "--out", srdf},
       "--out names the same file as the scene's srdf"}};
  for (const auto& [args, message] : runs) {
    int (*cmd)(int, char**) = args[0] == "solve"     ? cmd_solve
                              : args[0] == "animate" ? cmd_animate
                                                     : cmd_check;
    CmdResult r = run(cmd, args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  EXPECT_EQ(test::read_text(robot), test::read_text(resolve_robot("planar3")));
  EXPECT_EQ(test::read_text(srdf), "<robot name=\"planar3\"/>\n");
  // animate reads only scenes: it does not offer the flag
  CmdResult r = run(cmd_animate, {"animate", scene, "--out", dir / "a.csv", "--floating-base"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown option '--floating-base'"), std::string::npos) << r.err;
  r = run(cmd_animate, {"animate", "--help"});
  EXPECT_EQ(r.out.find("--floating-base"), std::string::npos) << r.out;
}

// a robot file that cannot be opened says why, as --q does
TEST(CliInfo, UnreadableRobotFileSaysWhy) {
  TempDir dir;
  std::string file = dir.write("file", "");
  CmdResult r = run(cmd_info, {"info", dir / "missing.urdf"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.urdf: cannot open file (No such file or directory)"),
            std::string::npos)
      << r.err;
  r = run(cmd_info, {"info", file + "/robot.urdf"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("robot.urdf: cannot open file (Not a directory)"), std::string::npos)
      << r.err;
}

// --strict refuses every repair: a <mimic> of a joint that is not defined is one
TEST(CliInfo, StrictRefusesAMimicOfAMissingJoint) {
  TempDir dir;
  std::string urdf = dir.write("ghost.urdf", R"(<robot name="g"><link name="a"/><link name="b"/>
    <joint name="j" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
      <mimic joint="ghost"/></joint></robot>)");
  CmdResult lenient = run(cmd_info, {"info", urdf});
  EXPECT_EQ(lenient.code, 0) << lenient.err;
  EXPECT_NE(lenient.err.find("warning: " + urdf +
                             ":2: joint 'j': mimics joint 'ghost', which is not defined; the "
                             "<mimic> is ignored"),
            std::string::npos)
      << lenient.err;
  CmdResult strict = run(cmd_info, {"info", urdf, "--strict"});
  EXPECT_EQ(strict.code, 1);
  EXPECT_NE(
      strict.err.find(urdf + ":2: joint 'j': mimics joint 'ghost', which is not defined (--strict: "
                             "not repaired)"),
      std::string::npos)
      << strict.err;
  EXPECT_TRUE(strict.out.empty()) << strict.out;
}

}  // namespace
}  // namespace ikwb
