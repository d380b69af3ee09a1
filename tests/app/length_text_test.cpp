// Tests for app/gui/length_text: lengths in the unit the text is written in, or the one that fits
// where that would read 0 or 1000 of it and more.
#include "app/gui/length_text.hpp"

#include <gtest/gtest.h>

namespace ikwb::gui {
namespace {

TEST(LengthText, TheTextsUnitWhereItReadsAndTheUnitThatFitsElsewhere) {
  // a metre-sized arm's errors read as they always did
  EXPECT_EQ(length_text(0.043, LengthUnit::kCentimetre, 1), "4.3 cm");
  EXPECT_EQ(length_text(0.0015, LengthUnit::kMillimetre, 2), "1.50 mm");
  EXPECT_EQ(length_text(0.0, LengthUnit::kMillimetre, 1), "0.0 mm");
  // a micro arm's: 0.3 mm out of reach read "0.0 cm", a 3 um miss "0.00 mm"
  EXPECT_EQ(length_text(0.0003, LengthUnit::kCentimetre, 1), "0.3 mm");
  EXPECT_EQ(length_text(3e-6, LengthUnit::kMillimetre, 2), "3.00 \xc2\xb5m");
  EXPECT_EQ(length_text(2e-9, LengthUnit::kMillimetre, 1), "0.0 \xc2\xb5m");  // the smallest unit
  // a crane's: 20 m read "2017.9 cm" and "20179.22 mm"
  EXPECT_EQ(length_text(20.179, LengthUnit::kCentimetre, 1), "20.2 m");
  EXPECT_EQ(length_text(20.17922, LengthUnit::kMillimetre, 2), "20.18 m");
  EXPECT_EQ(length_text(9.9996, LengthUnit::kCentimetre, 1), "10.0 m");  // not "1000.0 cm"
  EXPECT_EQ(length_text(-0.0042, LengthUnit::kMillimetre, 1), "-4.2 mm");
  // a reached target's error, within the tolerance, keeps the unit
  EXPECT_EQ(length_text(4.01e-5, LengthUnit::kMillimetre, 1, false), "0.0 mm");
  EXPECT_EQ(length_text(20.17922, LengthUnit::kMillimetre, 1, false), "20.2 m");
}

}  // namespace
}  // namespace ikwb::gui
