// A value typed into an objective's field (Ctrl+click on its slider): applied within the range
// a scene takes, else refused once when the field is left, the value from before the edit kept.
#include "app/gui/typed_field.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using ikwb::gui::TypedField;

// '1e999' typed keystroke by keystroke into a weight of 2 (the widget's float takes each step):
// '1' applies, '1e9' and then inf do not, and leaving the field brings back 2 with one message
// (a weight of 1e9 was taken and broke the next restore; inf was refused every frame)
TEST(TypedField, AWeightPastTheRangeIsRefusedOnceAndTheOldValueComesBack) {
  TypedField field;
  double weight = 2;
  field.activate(weight);
  ASSERT_TRUE(field.change(1, 0, 1e6));
  weight = 1;
  EXPECT_FALSE(field.change(1e9, 0, 1e6));
  EXPECT_FALSE(field.change(HUGE_VAL, 0, 1e6));
  EXPECT_FALSE(field.change(HUGE_VAL, 0, 1e6));
  std::string message;
  ASSERT_TRUE(field.leave("weight", 1, weight, message));
  EXPECT_EQ(weight, 2);
  EXPECT_EQ(message, "weight inf refused: it must be within [0, 1e+06]; kept 2");
  EXPECT_FALSE(field.leave("weight", 1, weight, message));  // said once
}

// a negative weight is refused with a message (it became 0, "not pursued", without a word); a
// value in range typed last is kept
TEST(TypedField, ANegativeValueIsRefusedAndAValueInRangeTypedLastIsKept) {
  TypedField field;
  double weight = 1;
  field.activate(weight);
  EXPECT_FALSE(field.change(-5, 0, 1e6));
  std::string message;
  ASSERT_TRUE(field.leave("weight", 1, weight, message));
  EXPECT_EQ(weight, 1);
  EXPECT_EQ(message, "weight -5 refused: it must be within [0, 1e+06]; kept 1");
  field.activate(weight);
  EXPECT_FALSE(field.change(-5, 0, 1e6));
  EXPECT_TRUE(field.change(0, 0, 1e6));
  EXPECT_FALSE(field.leave("weight", 1, weight, message));
}

// a field shown in mm and stored in m says its numbers in mm
TEST(TypedField, TheMessageIsInTheShownUnit) {
  TypedField field;
  double margin = 0.01;
  field.activate(margin);
  EXPECT_FALSE(field.change(2e6 * 1e-3, 0, 1e3));
  std::string message;
  ASSERT_TRUE(field.leave("margin (mm)", 1e-3, margin, message));
  EXPECT_EQ(margin, 0.01);
  EXPECT_EQ(message, "margin (mm) 2e+06 refused: it must be within [0, 1e+06]; kept 10");
}

}  // namespace
