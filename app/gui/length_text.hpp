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

}  // namespace ikwb::gui
