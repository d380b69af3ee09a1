// libFuzzer target for the URDF loader. ModelError is the documented failure; anything else
// (another exception, a crash, a sanitizer report) or a broken invariant of a loaded model is a
// finding.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/core/fk.hpp"
#include "engine/core/urdf_loader.hpp"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "urdf_fuzzer finding: %s\n", what.c_str());
  std::abort();
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

void check_model(const ikwb::LoadResult& r) {
  if (!r.model) finding("no model and no exception");
  for (const auto& w : r.warnings)
    if (!starts_with(w, "fuzz.urdf")) finding("warning without the file name: " + w);
  const ikwb::Model& m = *r.model;
  for (int j = 0; j < m.joint_count; ++j)
    if (m.joint_ancestor[j] >= j) finding("joints not in topological order");
  // a model that loads has finite poses
  ikwb::State s(m);
  ikwb::eval_fk(m, m.neutral_configuration(), {}, s);
  for (const auto& x : s.body_q) {
    double sum = x.p.x + x.p.y + x.p.z + x.q.x + x.q.y + x.q.z + x.q.w;
    if (!std::isfinite(sum)) finding("non-finite FK");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string xml(reinterpret_cast<const char*>(data), size);
  ikwb::UrdfOptions opt;
  opt.load_meshes = false;  // assimp is not instrumented; mesh paths are still resolved
  try {
    check_model(ikwb::load_urdf_string(xml, "fuzz.urdf", "/nonexistent/fuzz", opt));
  } catch (const ikwb::ModelError& e) {
    if (!starts_with(e.what(), "fuzz.urdf"))
      finding(std::string("error without the file: ") + e.what());
  }
  return 0;
}
