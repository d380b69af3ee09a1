// What the batch commands (`ikwb solve --scene`, `ikwb animate`) require of a scene on its
// robot beyond what resolve_scene accepts: they solve all the scene asks or nothing.
#pragma once

#include <string>

#include "engine/core/model.hpp"
#include "engine/core/scene.hpp"
#include "solver/scene_problem.hpp"

namespace ikwb {

// Throws SceneError naming the first objective the robot cannot place (an unknown link, ...):
// the workbench warns and skips it, a batch command does not. command: the command's name, for
// the message.
void require_placed_objectives(const Model& m, const Scene& scene, const SceneSetup& setup,
                               const std::string& scene_path, const char* command);

}  // namespace ikwb
