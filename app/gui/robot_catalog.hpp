// The shipped robots for the Robots menu: assets/robots/robots.json (name, title, description,
// default), falling back to the folders shipped_robots() finds.
#pragma once

#include <string>
#include <vector>

namespace ikwb::gui {

struct RobotEntry {
  std::string name;         // folder name, for open_robot_preset / --robot
  std::string title;        // menu label
  std::string description;  // tooltip
  bool is_default = false;
};

// the registry's robots that exist on disk, in registry order; never throws
std::vector<RobotEntry> robot_catalog();
// the robot marked default (the first when none is), or "" when there are none
std::string default_robot(const std::vector<RobotEntry>& catalog);

}  // namespace ikwb::gui
