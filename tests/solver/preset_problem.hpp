// A shipped robot's preset scene (assets/robots/NAME/preset.json) as a solver problem, for the
// solver tests that check behaviour on the presets people start from.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/scene_problem.hpp"

namespace ikwb::test {

// one problem with the preset's objectives (and collision world); *q: its start configuration
inline IkProblem preset_problem(const std::string& robot, std::vector<double>* q,
                                std::vector<PlacedObjective>* objectives = nullptr) {
  Scene scene = load_scene(asset_dir() + "/robots/" + robot + "/preset.json");
  UrdfOptions opt;
  opt.floating_base = scene.floating_base;
  opt.load_meshes = false;
  LoadResult loaded = load_urdf_file(resolve_robot(scene.robot), opt);
  SceneSetup setup = resolve_scene(*loaded.model, scene);
  *q = setup.q;
  if (objectives) *objectives = setup.objectives;
  return make_problem(loaded.model, setup.objectives, 1, &setup.collision);
}

// the objective named `name`, -1 if none
inline int find_objective(const IkProblem& p, const std::string& name) {
  for (int i = 0; i < p.objective_count(); ++i)
    if (p.objective(i).name == name) return i;
  return -1;
}

}  // namespace ikwb::test
