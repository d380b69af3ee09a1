// Obstacles in the 3D view: translucent solids (front faces only, lit from the eye) in their own
// colour, picking along a mouse ray, and the pose the shared target gizmo shows for an obstacle.
// A half-space (a floor) is drawn as a square of its plane around the camera's target; its gizmo
// sits on the plane's point nearest the world origin with z along the normal, so translating
// moves the plane along its normal and rotating tilts it.
#pragma once

#include <glm/glm.hpp>

#include "app/gui/app_state.hpp"
#include "engine/render/camera.hpp"
#include "engine/render/overlay.hpp"

namespace ikwb::gui {

// the fill colour of obstacles (rgb and alpha), distinct from the robot, targets and collisions
extern const glm::vec4 kObstacleColor;

// every obstacle of app into ov (depth-tested): `selected` brighter with an outline, `hovered`
// lighter; -1 for none
void draw_obstacles(render::Overlay& ov, const render::Camera& camera, const AppState& app,
                    int selected, int hovered);

// the nearest obstacle the ray hits (half-spaces are not picked: select a floor in the panel),
// closer than max_distance; -1 when none. *distance: along the ray (dir is unit)
int pick_obstacle(const AppState& app, const render::Ray& ray, float max_distance,
                  float* distance = nullptr);

// the gizmo's pose for an obstacle, and the obstacle moved to a gizmo pose
Transform<double> obstacle_gizmo_pose(const Obstacle& obstacle);
Obstacle obstacle_at_gizmo_pose(const Obstacle& obstacle, const Transform<double>& pose);

// roll, pitch, yaw (rad) of a unit quaternion, the inverse of quat_from_rpy (pitch in
// [-pi/2, pi/2])
Vec3<double> rpy_from_quat(const Quat<double>& q);

}  // namespace ikwb::gui
