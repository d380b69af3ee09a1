// libFuzzer target for the scene reader. SceneError is the documented failure; anything else
// (another exception, a crash, a sanitizer report) is a finding, and so is a scene that loads but
// does not survive a write and a second read unchanged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/core/scene.hpp"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "scene_fuzzer finding: %s\n", what.c_str());
  std::abort();
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  ikwb::Scene scene;
  try {
    scene = ikwb::parse_scene(text, "fuzz.json", "/base");
  } catch (const ikwb::SceneError& e) {
    if (!starts_with(e.what(), "fuzz.json: "))
      finding(std::string("error without the file: ") + e.what());
    return 0;
  }
  for (const auto& w : scene.warnings)
    if (!starts_with(w, "fuzz.json: ")) finding("warning without the file name: " + w);
  // what was read can be written and read back to the same scene
  nlohmann::json first = ikwb::scene_to_json(scene);
  ikwb::Scene again;
  try {
    again = ikwb::parse_scene(first.dump(2), "again.json", "");
  } catch (const ikwb::SceneError& e) {
    finding(std::string("a written scene does not read back: ") + e.what());
  }
  if (!again.warnings.empty())
    finding("a written scene reads back with warnings: " + again.warnings[0]);
  if (ikwb::scene_to_json(again) != first) finding("the scene changed on a write and read");
  return 0;
}
