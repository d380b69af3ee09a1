// The timeline in the 3D view: every key as a translucent ghost, and the path the tool (the first
// objective with a target) takes along the rendered trajectory, flagged samples in red.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "app/gui/app_state.hpp"
#include "engine/render/overlay.hpp"
#include "engine/render/renderer.hpp"

namespace ikwb::gui {

class TimelineView {
 public:
  // the key ghosts (after the opaque robot), when TimelineState::show_ghosts is on
  void draw_ghosts(render::Renderer& r, const AppState& app);
  // the tool's path over the rendered trajectory
  void draw_path(render::Overlay& ov, const AppState& app);

 private:
  void update(const AppState& app);
  uint64_t serial_ = 0, rendered_ = 0, model_ = 0;
  std::vector<std::vector<Transform<double>>> key_body_q_;  // per key: body poses
  std::vector<glm::vec3> path_;
  std::vector<uint8_t> path_ok_;
};

}  // namespace ikwb::gui
