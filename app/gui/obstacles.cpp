// AppState's obstacles: placing new ones, checked edits, selection, and the obstacle part of the
// solver's collision world (app_state.hpp).
#include <algorithm>
#include <cmath>

#include "app/gui/app_state.hpp"

namespace ikwb::gui {

namespace {

constexpr double kGap = 0.05;  // m between the robot's bounds and a new obstacle

// "" when `o` may take the place of obstacle `index` (-1: a new one) among `all`, else why not
std::string obstacle_problem(const std::vector<Obstacle>& all, const Obstacle& o, int index) {
  if (o.name.empty()) return "an obstacle needs a name";
  for (int i = 0; i < int(all.size()); ++i)
    if (i != index && all[i].name == o.name)
      return "an obstacle named '" + o.name + "' exists already";
  try {
    check_obstacle(o);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

bool same_obstacle(const Obstacle& a, const Obstacle& b) {
  auto same3 = [](const Vec3<double>& u, const Vec3<double>& v) {
    return u.x == v.x && u.y == v.y && u.z == v.z;
  };
  return a.name == b.name && a.type == b.type && same3(a.size, b.size) && a.radius == b.radius &&
         a.length == b.length && same3(a.normal, b.normal) && a.offset == b.offset &&
         same3(a.pose.p, b.pose.p) && a.pose.q.x == b.pose.q.x && a.pose.q.y == b.pose.q.y &&
         a.pose.q.z == b.pose.q.z && a.pose.q.w == b.pose.q.w;
}

// "floor" for half-spaces, the type's scene name otherwise
std::string base_name(ShapeType type) {
  return type == ShapeType::kHalfSpace ? "floor" : shape_type_name(type);
}

}  // namespace

// how far below the robot's lowest moving point a new floor goes, beyond the collision margin
constexpr double kFloorClearance = 0.005;  // m

Obstacle AppState::new_obstacle(ShapeType type, const std::string& name) const {
  Obstacle o;
  o.type = type;
  o.name = name;
  if (o.name.empty()) {
    std::string base = base_name(type);
    o.name = base;
    for (int k = 2; find_obstacle(o.name) >= 0; ++k) o.name = base + std::to_string(k);
  }
  // the robot's bounds at the current configuration: its capsules (body origins without them),
  // and the lowest point of a capsule that some joint moves
  Vec3<double> lo{0, 0, 0}, hi{0, 0, 0};
  double lowest_moving = 0;
  if (model && int(fk.body_q.size()) == model->body_count) {
    lo = {1e300, 1e300, 1e300};
    hi = {-1e300, -1e300, -1e300};
    lowest_moving = 1e300;
    auto grow = [&](const Vec3<double>& p, double r) {
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], p[k] - r);
        hi[k] = std::max(hi[k], p[k] + r);
      }
    };
    const std::vector<LinkCapsule<double>>& caps = model->collision.capsules;
    for (const LinkCapsule<double>& c : caps) {
      grow(transform_point(fk.body_q[c.body], c.p0), c.radius);
      grow(transform_point(fk.body_q[c.body], c.p1), c.radius);
    }
    if (caps.empty())
      for (const Transform<double>& x : fk.body_q) grow(x.p, 0);
    for (int i : collision_world_.world_capsules) {
      const LinkCapsule<double>& c = caps[i];
      double z0 = transform_point(fk.body_q[c.body], c.p0).z;
      double z1 = transform_point(fk.body_q[c.body], c.p1).z;
      lowest_moving = std::min(lowest_moving, std::min(z0, z1) - c.radius);
    }
    if (lowest_moving > 1e299) lowest_moving = lo.z;
  }
  // a size from the robot's: a quarter of its largest extent, within 5 to 40 cm
  const double extent = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  const double s = std::min(0.4, std::max(0.05, 0.25 * extent));
  double half_x = 0.5 * s, half_z = 0.5 * s;  // half extents along world x and z
  switch (type) {
    case ShapeType::kBox:
      o.size = {s, s, s};
      break;
    case ShapeType::kSphere:
      o.radius = 0.5 * s;
      break;
    case ShapeType::kCapsule:
      o.radius = 0.25 * s;
      o.length = s;
      half_x = o.radius;
      half_z = 0.5 * o.length + o.radius;
      break;
    case ShapeType::kCylinder:
      o.radius = 0.5 * s;
      o.length = s;
      break;
    case ShapeType::kHalfSpace: {
      // under everything that moves (a floor at 0 unless the robot reaches lower), clear of the
      // world collision objectives' margins, so that adding one does not pull on hard feet
      double margin = default_margin(ObjectiveType::kWorldCollision);
      for (const WorkbenchObjective& w : objectives)
        if (w.type() == ObjectiveType::kWorldCollision)
          margin = std::max(margin, w.spec.params.margin);
      o.normal = {0, 0, 1};
      o.offset = std::min(0.0, lowest_moving - margin - kFloorClearance);
      return o;
    }
  }
  // in front of the robot (+x, REP-103), level with its middle, not below its lowest point
  double z = 0.5 * (lo.z + hi.z);
  if (z - half_z < lo.z) z = lo.z + half_z;
  o.pose = {{hi.x + kGap + half_x, 0.5 * (lo.y + hi.y), z}, quat_identity<double>()};
  return o;
}

int AppState::add_obstacle(Obstacle obstacle) {
  if (!model) {
    error("obstacle not added: open a robot first");
    return -1;
  }
  std::string why = obstacle_problem(obstacles, obstacle, -1);
  if (!why.empty()) {
    error("obstacle not added: " + why);
    return -1;
  }
  obstacles.push_back(std::move(obstacle));
  update_world_obstacles();
  const int index = int(obstacles.size()) - 1;
  select_obstacle(index);
  const Obstacle& o = obstacles[index];
  info("added obstacle '" + o.name + "' (" + shape_type_name(o.type) + ")");
  if (obstacles.size() == 1 && !has_world_collision())
    warn(
        "no world_collision objective: the solver ignores obstacles until one is added "
        "(Obstacles panel: Add world collision objective)");
  note_edit("add obstacle");
  return index;
}

bool AppState::set_obstacle(int index, const Obstacle& obstacle, const std::string& what) {
  if (index < 0 || index >= int(obstacles.size())) return false;
  std::string why = obstacle_problem(obstacles, obstacle, index);
  if (!why.empty()) {
    error("obstacle '" + obstacles[index].name + "' unchanged: " + why);
    return false;
  }
  if (same_obstacle(obstacles[index], obstacle)) return true;
  obstacles[index] = obstacle;
  update_world_obstacles();
  if (!what.empty()) note_edit(what);
  return true;
}

void AppState::remove_obstacle(int index) {
  if (index < 0 || index >= int(obstacles.size())) return;
  std::string name = obstacles[index].name;
  obstacles.erase(obstacles.begin() + index);
  auto fix = [&](int& i) {
    if (i == index)
      i = -1;
    else if (i > index)
      --i;
  };
  fix(selection.obstacle);
  fix(hover.obstacle);
  update_world_obstacles();
  info("removed obstacle '" + name + "'");
  note_edit("remove obstacle");
}

int AppState::find_obstacle(const std::string& name) const {
  for (int i = 0; i < int(obstacles.size()); ++i)
    if (obstacles[i].name == name) return i;
  return -1;
}

void AppState::select_obstacle(int index) {
  selection.obstacle = index >= 0 && index < int(obstacles.size()) ? index : -1;
  if (selection.obstacle >= 0) {
    selection.objective = -1;
    selection.body = -1;
  }
}

int AppState::selected_obstacle() const {
  int i = selection.obstacle;
  return selection.objective < 0 && i >= 0 && i < int(obstacles.size()) ? i : -1;
}

bool AppState::has_world_collision() const {
  for (const WorkbenchObjective& o : objectives)
    if (o.type() == ObjectiveType::kWorldCollision && o.enabled()) return true;
  return false;
}

void AppState::update_world_obstacles() {
  collision_world_.obstacles.clear();
  collision_world_.obstacle_names.clear();
  for (const Obstacle& o : obstacles) {
    collision_world_.obstacles.push_back(obstacle_shape(o));
    collision_world_.obstacle_names.push_back(o.name);
  }
  collision_dirty_ = true;
}

}  // namespace ikwb::gui
