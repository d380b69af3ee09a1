// Hostile inputs: every file of tests/data/hostile/{urdf,scene} loads to a clear error naming
// the file and the problem, or to warnings for recoverable defects, as listed in
// tests/data/hostile/expectations.txt; never a crash or another exception type. Inputs too big
// to commit (huge meshes, 10k-link chains, very deep nesting) are generated at test time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/temp_files.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/mesh_loader.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

const std::string kHostileDir = std::string(IKWB_SOURCE_DIR) + "/tests/data/hostile";

// [SECTION] the expectations file

struct Expectation {
  std::string file;  // relative to kHostileDir: urdf/NAME.urdf or scene/NAME.json
  std::string kind;  // error, warning or ok
  std::string text;  // error / warning: substring of the message; ok: see expectations.txt
  int line = 0;
};

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r");
  std::size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void PrintTo(const Expectation& e, std::ostream* os) {
  *os << e.file;
}

std::vector<Expectation> read_expectations() {
  std::ifstream in(kHostileDir + "/expectations.txt");
  std::vector<Expectation> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    std::size_t a = line.find('|'), b = line.find('|', a + 1);
    Expectation e;
    e.line = n;
    e.file = trim(line.substr(0, a));
    if (a != std::string::npos) e.kind = trim(line.substr(a + 1, b - a - 1));
    if (b != std::string::npos) e.text = trim(line.substr(b + 1));
    out.push_back(e);
  }
  return out;
}

std::vector<Expectation> expectations_for(const std::string& dir) {
  std::vector<Expectation> out;
  for (const auto& e : read_expectations())
    if (e.file.rfind(dir + "/", 0) == 0) out.push_back(e);
  return out;
}

std::string test_name(const ::testing::TestParamInfo<Expectation>& info) {
  std::string n = fs::path(info.param.file).stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

TEST(HostileCorpus, EveryFileHasOneWellFormedExpectation) {
  std::vector<Expectation> all = read_expectations();
  ASSERT_FALSE(all.empty()) << "cannot read " << kHostileDir << "/expectations.txt";
  std::set<std::string> listed;
  for (const auto& e : all) {
    SCOPED_TRACE("expectations.txt:" + std::to_string(e.line));
    EXPECT_TRUE(listed.insert(e.file).second) << "listed twice: " << e.file;
    EXPECT_TRUE(e.kind == "error" || e.kind == "warning" || e.kind == "ok") << e.kind;
    if (e.kind != "ok") {
      EXPECT_FALSE(e.text.empty()) << e.file << ": no substring to look for";
    }
    EXPECT_TRUE(fs::is_regular_file(kHostileDir + "/" + e.file)) << "no such file: " << e.file;
  }
  std::map<std::string, int> counts;
  for (const char* dir : {"urdf", "scene"}) {
    for (const auto& entry : fs::directory_iterator(kHostileDir + "/" + dir)) {
      if (!entry.is_regular_file()) continue;
      std::string rel = std::string(dir) + "/" + entry.path().filename().string();
      EXPECT_TRUE(listed.count(rel)) << rel << " has no line in expectations.txt";
      ++counts[dir];
    }
  }
  int urdf_defects = 0, scene_defects = 0;
  for (const auto& e : all) {
    if (e.kind == "ok") continue;
    (e.file.rfind("urdf/", 0) == 0 ? urdf_defects : scene_defects)++;
  }
  // the corpus promised by issue #8
  EXPECT_GE(urdf_defects, 30);
  EXPECT_GE(scene_defects, 20);
}

// [SECTION] checks shared by the URDF cases

// FK at the neutral configuration is finite everywhere: a model that loads is usable
void expect_finite_fk(const Model& m) {
  State s(m);
  eval_fk(m, m.neutral_configuration(), {}, s);
  for (int b = 0; b < m.body_count; ++b) {
    const Transform<double>& x = s.body_q[b];
    bool finite = std::isfinite(x.p.x) && std::isfinite(x.p.y) && std::isfinite(x.p.z) &&
                  std::isfinite(x.q.x) && std::isfinite(x.q.y) && std::isfinite(x.q.z) &&
                  std::isfinite(x.q.w);
    EXPECT_TRUE(finite) << "body '" << m.body_name[b] << "' has a non-finite pose";
  }
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += "\n  " + s;
  return out;
}

// Loads the corpus file of `e` with `load` and checks what expectations.txt says: an `error` is
// an exception of type Error whose message starts with the file's path and contains the text;
// otherwise every warning starts with the path and, for `warning`, one contains the text (for
// `ok` there are none). Returns the loaded result, or nothing when it threw.
template <class Error, class Result, class Load>
std::optional<Result> load_as_expected(const Expectation& e, const std::string& path, Load load) {
  Result r;
  try {
    r = load(path);
  } catch (const Error& err) {
    std::string msg = err.what();
    EXPECT_EQ(e.kind, "error") << "unexpected error: " << msg;
    EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << "message does not start with the file: " << msg;
    EXPECT_NE(msg.find(e.text), std::string::npos) << "message: " << msg;
    return std::nullopt;
  } catch (const std::exception& err) {
    ADD_FAILURE() << "wrong exception type: " << err.what();
    return std::nullopt;
  } catch (...) {
    ADD_FAILURE() << "non-standard exception";
    return std::nullopt;
  }
  EXPECT_NE(e.kind, "error") << "loaded without an error; expected one containing '" << e.text
                             << "'" << joined(r.warnings);
  for (const auto& w : r.warnings)
    EXPECT_EQ(w.rfind(path + ":", 0), 0u) << "warning does not start with the file: " << w;
  if (e.kind == "warning") {
    bool found = std::any_of(r.warnings.begin(), r.warnings.end(),
                             [&](const std::string& w) { return w.find(e.text) != w.npos; });
    EXPECT_TRUE(found) << "no warning contains '" << e.text << "':" << joined(r.warnings);
  } else {
    EXPECT_TRUE(r.warnings.empty()) << joined(r.warnings);
  }
  return r;
}

// [SECTION] URDF corpus

class HostileUrdf : public ::testing::TestWithParam<Expectation> {};

TEST_P(HostileUrdf, LoadsAsExpected) {
  const Expectation& e = GetParam();
  std::string path = kHostileDir + "/" + e.file;
  SCOPED_TRACE(e.file + " (expectations.txt:" + std::to_string(e.line) + ")");
  std::optional<LoadResult> r = load_as_expected<ModelError, LoadResult>(
      e, path, [](const std::string& f) { return load_urdf_file(f); });
  if (!r || e.kind == "error") return;
  ASSERT_TRUE(r->model);
  if (e.kind == "ok" && !e.text.empty()) {
    EXPECT_GE(r->model->find_body(e.text), 0) << "no body '" << e.text << "'";
  }
  expect_finite_fk(*r->model);
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileUrdf, ::testing::ValuesIn(expectations_for("urdf")),
                         test_name);

// [SECTION] scene corpus

class HostileScene : public ::testing::TestWithParam<Expectation> {};

TEST_P(HostileScene, LoadsAsExpected) {
  const Expectation& e = GetParam();
  std::string path = kHostileDir + "/" + e.file;
  SCOPED_TRACE(e.file + " (expectations.txt:" + std::to_string(e.line) + ")");
  std::optional<Scene> s = load_as_expected<SceneError, Scene>(
      e, path, [](const std::string& f) { return load_scene(f); });
  if (!s || e.kind == "error") return;
  if (e.kind == "ok" && !e.text.empty()) {
    EXPECT_EQ(s->robot, e.text);
  }
  // what loads can be written and read back, unchanged and without warnings
  const nlohmann::json written = scene_to_json(*s);
  Scene again = parse_scene(written.dump(), "again.json", "");
  EXPECT_EQ(again.robot, s->robot);
  EXPECT_EQ(again.objectives.size(), s->objectives.size());
  EXPECT_TRUE(again.warnings.empty()) << again.warnings[0];
  EXPECT_EQ(scene_to_json(again), written);
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileScene, ::testing::ValuesIn(expectations_for("scene")),
                         test_name);

// [SECTION] inputs generated at test time

std::string mesh_urdf(const std::string& filename) {
  return "<robot name=\"meshy\"><link name=\"base\"><visual><geometry><mesh filename=\"" +
         filename + "\"/></geometry></visual></link></robot>";
}

// exactly one warning, containing `text`, and a placeholder instead of the mesh
void expect_placeholder(const LoadResult& r, const std::string& text) {
  ASSERT_TRUE(r.model);
  ASSERT_EQ(r.warnings.size(), 1u) << joined(r.warnings);
  EXPECT_NE(r.warnings[0].find(text), std::string::npos) << r.warnings[0];
  const Geometry& g = r.model->body_visuals[0].at(0);
  EXPECT_TRUE(g.placeholder);
  EXPECT_FALSE(g.mesh);
}

TEST(HostileGenerated, HugeMeshFileIsRefusedWithoutReadingIt) {
  TempDir dir;
  std::string stl = dir / "huge.stl";
  { std::ofstream(stl, std::ios::binary) << "solid huge\n"; }
  // sparse: takes no disk space, but is over kMaxMeshFileBytes
  fs::resize_file(stl, kMaxMeshFileBytes + (std::uintmax_t(1) << 20));
  std::string urdf = dir.write("huge.urdf", mesh_urdf("huge.stl"));
  LoadResult r = load_urdf_file(urdf);
  expect_placeholder(r, "file too large");
  EXPECT_EQ(r.warnings[0].rfind(urdf + ":", 0), 0u) << r.warnings[0];
}

TEST(HostileGenerated, MeshPathThatIsTooLong) {
  TempDir dir;
  std::string name(5000, 'm');
  LoadResult r = load_urdf_string(mesh_urdf(name + ".stl"), "long.urdf", dir.path().string());
  expect_placeholder(r, "placeholder");
}

TEST(HostileGenerated, UrdfPathIsADirectory) {
  TempDir dir;
  fs::create_directories(dir / "robot.urdf");
  try {
    load_urdf_file(dir / "robot.urdf");
    FAIL() << "no exception";
  } catch (const ModelError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind(dir / "robot.urdf:", 0), 0u) << msg;
    EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
  }
}

TEST(HostileGenerated, ScenePathIsADirectory) {
  TempDir dir;
  fs::create_directories(dir / "scene.json");
  try {
    load_scene(dir / "scene.json");
    FAIL() << "no exception";
  } catch (const SceneError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind(dir / "scene.json:", 0), 0u) << msg;
    EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
  }
}

// 10k links in one chain: loads, keeps breadth-first order, FK stays finite
TEST(HostileGenerated, TenThousandLinkChain) {
  const int n = 10000;
  std::ostringstream xml;
  xml << "<robot name=\"chain\">\n";
  for (int i = 0; i <= n; ++i) xml << "<link name=\"l" << i << "\"/>\n";
  for (int i = 0; i < n; ++i) {
    xml << "<joint name=\"j" << i << "\" type=\"" << (i % 2 ? "continuous" : "fixed")
        << "\"><parent link=\"l" << i << "\"/><child link=\"l" << i + 1
        << "\"/><origin xyz=\"0 0 0.01\" rpy=\"0 0.001 0\"/><axis xyz=\"0 1 0\"/></joint>\n";
  }
  xml << "</robot>\n";
  LoadResult r = load_urdf_string(xml.str(), "chain.urdf", "");
  ASSERT_TRUE(r.model);
  const Model& m = *r.model;
  EXPECT_EQ(m.body_count, n + 1);
  EXPECT_EQ(m.dof_count, n / 2);
  EXPECT_EQ(m.body_name.back(), "l" + std::to_string(n));
  expect_finite_fk(m);
}

// nesting far past tinyxml2's depth limit is a clean XML error, not a stack overflow
TEST(HostileGenerated, VeryDeepXmlNesting) {
  const int depth = 200000;
  std::string xml = "<robot name=\"deep\"><link name=\"a\">";
  for (int i = 0; i < depth; ++i) xml += "<n>";
  for (int i = 0; i < depth; ++i) xml += "</n>";
  xml += "</link></robot>";
  try {
    load_urdf_string(xml, "deep.urdf", "");
    FAIL() << "no exception";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("depth"), std::string::npos) << e.what();
  }
}

TEST(HostileGenerated, VeryDeepJsonNesting) {
  const int depth = 1000000;
  std::string text = "{\"version\": 1, \"robot\": \"panda\", \"solver\": {\"x\": ";
  text += std::string(depth, '[') + std::string(depth, ']') + "}}";
  try {
    parse_scene(text, "deep.json", "");
    FAIL() << "no exception";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("deep.json: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("nested"), std::string::npos) << e.what();
  }
}

TEST(HostileGenerated, HugeNamesAndAttributes) {
  std::string name(1 << 20, 'x');
  std::string xml = "<robot name=\"" + name + "\"><link name=\"" + name +
                    "\"/><link name=\"b\"/><joint name=\"j\" type=\"fixed\"><parent link=\"" +
                    name + "\"/><child link=\"b\"/><origin xyz=\"" + std::string(100000, ' ') +
                    "1 2 3\"/></joint></robot>";
  LoadResult r = load_urdf_string(xml, "names.urdf", "");
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->body_name[0].size(), name.size());
  EXPECT_DOUBLE_EQ(r.model->joint_X_p[1].p.z, 3.0);
}

// a failed load leaves what the caller already holds untouched: the workbench keeps its robot
TEST(HostileGenerated, FailedLoadsLeaveEarlierModelsAlone) {
  TempDir dir;
  dir.write("meshes/tri.stl", test::stl_triangle());
  std::string good = dir.write("good.urdf", mesh_urdf("meshes/tri.stl"));
  LoadResult before = load_urdf_file(good);
  ASSERT_TRUE(before.model);
  ASSERT_TRUE(before.model->body_visuals[0][0].mesh);
  std::shared_ptr<const MeshData> mesh = before.model->body_visuals[0][0].mesh;
  std::vector<float> positions = mesh->positions;
  for (const auto& e : expectations_for("urdf")) {
    try {
      load_urdf_file(kHostileDir + "/" + e.file);
    } catch (const ModelError&) {
    }
  }
  EXPECT_EQ(before.model->body_name[0], "base");
  EXPECT_EQ(before.model->body_visuals[0][0].mesh, mesh);
  EXPECT_EQ(mesh->positions, positions);
  LoadResult again = load_urdf_file(good);
  EXPECT_TRUE(again.warnings.empty()) << joined(again.warnings);
  EXPECT_EQ(again.model->body_visuals[0][0].mesh, mesh) << "the mesh cache lost a good mesh";
}

}  // namespace
}  // namespace ikwb
