#include "app/cli/scene_checks.hpp"

#include "engine/core/fk.hpp"

namespace ikwb {

void require_placed_objectives(const Model& m, const Scene& scene, const SceneSetup& setup,
                               const std::string& scene_path, const char* command) {
  if (setup.objectives.size() >= scene.objectives.size()) return;
  State fk(m);
  eval_fk(m, setup.q, {}, fk);
  for (std::size_t i = 0; i < scene.objectives.size(); ++i) {
    const SceneObjective& o = scene.objectives[i];
    PlacedObjective placed;
    std::string error;
    if (!objective_from_scene(m, o, fk.body_q, setup.rest_q, &placed, &error))
      throw SceneError(scene_path + ": objective " + std::to_string(i) + " \"" + o.name + "\" (" +
                       o.type + "): " + error + " (the workbench skips it; " + command +
                       " does not)");
  }
}

}  // namespace ikwb
