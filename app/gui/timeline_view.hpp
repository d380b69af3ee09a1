// The timeline in the 3D view: the keys as translucent ghosts (the kMaxKeyGhosts nearest the
// playhead when there are more, and the selected one), and the path the tool (the first
// objective with a target) takes along the rendered trajectory, flagged samples in red.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "app/gui/app_state.hpp"
#include "engine/render/overlay.hpp"
#include "engine/render/renderer.hpp"

namespace ikwb::gui {

// the most key ghosts drawn at once: each is the whole robot, and under a software renderer a
// scene of 1,000 keys drew a frame in 4 s (the ghosts could not even be turned off in time)
constexpr int kMaxKeyGhosts = 24;

// the keys whose ghosts are drawn (indices, in time order): all of them up to kMaxKeyGhosts,
// else the kMaxKeyGhosts nearest the playhead in time, with the selected key
std::vector<int> key_ghosts_shown(const Timeline& timeline, double playhead, int selected);

class TimelineView {
 public:
  // the key ghosts (after the opaque robot), when TimelineState::show_ghosts is on
  void draw_ghosts(render::Renderer& r, const AppState& app);
  // the tool's path over the rendered trajectory
  void draw_path(render::Overlay& ov, const AppState& app);

 private:
  void update(const AppState& app);
  uint64_t serial_ = 0, rendered_ = 0, model_ = 0;
  std::vector<std::vector<Transform<double>>> key_body_q_;  // per key: body poses (none when
                                                            // its q does not fit the robot)
  std::vector<glm::vec3> path_;
  std::vector<uint8_t> path_ok_;
};

}  // namespace ikwb::gui
