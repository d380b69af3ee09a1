#include "app/gui/typed_field.hpp"

#include <cmath>
#include <cstdio>

namespace ikwb::gui {

void TypedField::activate(double value) {
  start_ = value;
  refused_ = false;
}

bool TypedField::change(double v, double lo, double hi) {
  refused_ = !(std::isfinite(v) && v >= lo && v <= hi);
  typed_ = v;
  lo_ = lo;
  hi_ = hi;
  return !refused_;
}

bool TypedField::leave(const std::string& what, double scale, double& value, std::string& message) {
  if (!refused_) return false;
  refused_ = false;
  value = start_;
  char buf[160];
  std::snprintf(buf, sizeof buf, " %g refused: it must be within [%g, %g]; kept %g", typed_ / scale,
                lo_ / scale, hi_ / scale, start_ / scale);
  message = what + buf;
  return true;
}

}  // namespace ikwb::gui
