// Lengths as text for the panels and the view: in the unit the text is written in (mm, cm),
// with its decimals, or, where that would read 0 or 1000 of it and more, in the unit that fits.
// A micro arm's 3 um miss read "0.00 mm", a 0.3 mm one "out of reach by 0.0 cm", and a crane's
// 20 m error "20179.22 mm".
#pragma once

#include <string>

namespace ikwb::gui {

enum class LengthUnit { kMicrometre, kMillimetre, kCentimetre, kMetre };

// "4.3 cm" for (0.043, kCentimetre, 1); "0.3 mm" for (0.0003, kCentimetre, 1); "20.2 m" for
// (20.179, kCentimetre, 1); "3.00 um" (the micro sign) for (3e-6, kMillimetre, 2); 0 in `unit`.
// smaller false keeps a small value in `unit` ("0.0 mm" for a reached target's 40 um: noise
// within the tolerance, not a miss)
std::string length_text(double metres, LengthUnit unit, int decimals, bool smaller = true);

// How the panels' length fields (joint sliders, drags) show lengths on a robot of a size
// (metres, AppState::robot_extent; 0 when none is open): millimetres with one decimal; two on a
// robot under 5 cm (a finger's 0.25 mm margin read 0.2); metres with three on one of 10 m and
// more (a crane's 3 m margin read "3000.0 mm", and a drag could not take it past 500 mm)
struct LengthField {
  double per_metre = 1000;  // the field's number for 1 m
  const char* unit = "mm";
  int decimals = 1;
  float speed = 0.5f;  // a drag's change a pixel, in the field's unit: a 2000th of the robot

  float value(double metres) const { return float(metres * per_metre); }
  double metres(float value) const { return double(value) / per_metre; }
  // ImGui's format: "PREFIX%.1f mm"; '%' in prefix doubled
  std::string format(const std::string& prefix = "") const;
};
LengthField length_field(double robot_extent);

// the largest length a drag reaches in a field on a robot of a size (m): `usual` (m) up to a
// metre-sized robot, `usual` a metre of a larger one
double drag_reach(double usual, double robot_extent);

}  // namespace ikwb::gui
