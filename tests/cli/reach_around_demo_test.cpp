// The panda_reach_around demo scene (assets/demos): `ikwb solve --scene` reaches the target
// behind the box and `ikwb check` finds the answer collision-free, every moving link at least the
// objective's 1 cm margin from the box and the floor; with the target moved into the box, the
// world_collision objective is what keeps the hand out.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.hpp"
#include "cli/run_command.hpp"
#include "core/temp_files.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

using test::CmdResult;
using test::TempDir;

const std::string kDemo = std::string(IKWB_SOURCE_DIR) + "/assets/demos/panda_reach_around.json";

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream ls(line);
  std::string x;
  while (std::getline(ls, x, ',')) f.push_back(x);
  return f;
}

// solves `scene`; the one answer's converged flag and configuration
bool solve(const TempDir& dir, const std::string& scene, std::vector<double>* q) {
  std::string out = dir / "out.csv";
  CmdResult r = test::run_command(cmd_solve, {"solve", "--scene", scene, "--out", out});
  EXPECT_EQ(r.code, 0) << r.err;
  std::istringstream in(read_all(out));
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::vector<std::string> f = fields(row);
  EXPECT_GT(f.size(), 4u) << row;
  q->clear();
  for (std::size_t k = 4; k < f.size(); ++k) q->push_back(test::number(f[k]));
  return !f.empty() && f[0] == "1";
}

std::string q_csv(const std::vector<double>& q) {
  std::string s;
  for (std::size_t k = 0; k < q.size(); ++k) s += (k ? "," : "") + std::to_string(q[k]);
  return s + "\n";
}

// the smallest distance of any moving link to an obstacle of the demo at q
double obstacle_clearance(const std::vector<double>& q) {
  Scene scene = load_scene(kDemo);
  UrdfOptions opt;
  opt.load_meshes = false;
  auto m = load_urdf_file(resolve_robot("panda"), opt).model;
  CollisionWorld w = make_collision_world(*m, {}, scene.obstacles);
  std::vector<Transform<double>> body_q(m->body_count);
  fk_row(m->view(), q.data(), body_q.data());
  double closest = 1e300;
  for (const BodyDistance& d : closest_distances(w, body_q.data()))
    if (d.obstacle >= 0) closest = std::min(closest, d.contact.distance);
  return closest;
}

TEST(ReachAroundDemo, AnswerReachesBehindTheBoxAndKeepsClear) {
  TempDir dir;
  std::vector<double> q;
  ASSERT_TRUE(solve(dir, kDemo, &q));
  ASSERT_EQ(q.size(), 8u);
  std::string qf = dir.write("q.csv", q_csv(q));
  CmdResult c = test::run_command(cmd_check, {"check", "panda", "--q", qf, "--scene", kDemo});
  EXPECT_EQ(c.code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("\n0,no,"), std::string::npos) << c.out;
  // the margin is 1 cm; the constraint tolerance is far below a millimetre
  EXPECT_GT(obstacle_clearance(q), 0.009);
}

// The demo's scene with its target moved into the box (the hand pointing down at its middle):
// without the world_collision objective the solve puts the hand in the box and calls it
// converged; with it, the target is out of reach and the arm stays the margin clear. (Which
// answer the demo's own target gets without the objective, over the box or through it, depends
// on the seeds: only with the target inside the box is going through it forced.)
TEST(ReachAroundDemo, WorldCollisionIsWhatKeepsTheHandOutOfTheBox) {
  TempDir dir;
  nlohmann::json j = nlohmann::json::parse(read_all(kDemo));
  j["objectives"][0]["target"]["position"] = {0.4, 0.0, 0.2};  // the box: x 0.34..0.46, z 0..0.3
  // the copies sit elsewhere: the SRDF path must still resolve
  j["srdf"] = std::string(IKWB_SOURCE_DIR) + "/assets/demos/panda_reach_around.srdf";
  std::vector<double> q;
  std::string with = dir.write("with.json", j.dump());
  EXPECT_FALSE(solve(dir, with, &q));
  EXPECT_GT(obstacle_clearance(q), 0.009);

  bool found = false;
  for (nlohmann::json& o : j["objectives"])
    if (o["type"] == "world_collision") {
      o["enabled"] = false;
      found = true;
    }
  ASSERT_TRUE(found);
  std::string plain = dir.write("plain.json", j.dump());
  ASSERT_TRUE(solve(dir, plain, &q));
  std::string qf = dir.write("q.csv", q_csv(q));
  CmdResult c = test::run_command(cmd_check, {"check", "panda", "--q", qf, "--scene", kDemo});
  EXPECT_EQ(c.code, 3) << c.out << c.err;
  EXPECT_NE(c.out.find("obstacle:box"), std::string::npos) << c.out;
  EXPECT_LT(obstacle_clearance(q), 0.0);
}

}  // namespace
}  // namespace ikwb
