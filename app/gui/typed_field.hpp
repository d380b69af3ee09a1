// A value typed into a slider or drag field (Ctrl+click) is not held to the widget's range: the
// field's value is checked against what a scene takes. A weight past 1e6 was taken, autosaved,
// and the recovery file refused whole at the next start; a negative one became 0 without a
// word; and the field reapplied what was typed every frame (127 messages for one '1e999').
#pragma once

#include <string>

namespace ikwb::gui {

// One field's edit from activation to deactivation (one field is active at a time): a value in
// [lo, hi] is applied as it is typed; one out of range or not finite is not, and when the field
// is left the value from before the edit comes back with one message.
class TypedField {
 public:
  // the field became active holding `value`
  void activate(double value);
  // the widget changed its value to `v` (in the stored unit): whether it is applied
  bool change(double v, double lo, double hi);
  // the field was left: true when the last value typed was refused, with `value` set back to the
  // one from before the edit and `message` saying so (`what`: the field's name; scale: the
  // stored unit per shown unit, for the numbers in the message)
  bool leave(const std::string& what, double scale, double& value, std::string& message);

 private:
  double start_ = 0;
  bool refused_ = false;
  double typed_ = 0, lo_ = 0, hi_ = 0;
};

}  // namespace ikwb::gui
