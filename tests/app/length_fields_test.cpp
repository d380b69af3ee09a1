// The panels' length fields on robots of every size (app/gui/length_text's LengthField), drawn in
// a headless ImGui frame: a 50 m crane's slide and margins read in metres (its 3 m margin read
// "3000.0 mm", and a drag stopped at 500 mm), a 2 cm arm's with two decimals of a millimetre, a
// metre-sized arm's as they always did.
#include <gtest/gtest.h>

#include <string>

#include "app/gui/length_text.hpp"
#include "app/gui/panels.hpp"
#include "core/temp_files.hpp"
#include "headless_imgui.hpp"

namespace ikwb::gui {
namespace {

TEST(LengthField, TheUnitAndItsDecimalsFollowTheRobotsSize) {
  const LengthField arm = length_field(1.2), micro = length_field(0.02), crane = length_field(51);
  EXPECT_EQ(arm.format("margin "), "margin %.1f mm");
  EXPECT_FLOAT_EQ(arm.value(0.01), 10.0f);
  EXPECT_FLOAT_EQ(arm.speed, 0.6f);
  EXPECT_EQ(micro.format(), "%.2f mm");
  EXPECT_FLOAT_EQ(micro.speed, 0.01f);
  EXPECT_EQ(crane.format("100% "), "100%% %.3f m");
  EXPECT_FLOAT_EQ(crane.value(3.0), 3.0f);
  EXPECT_DOUBLE_EQ(crane.metres(2.5f), 2.5);
  EXPECT_FLOAT_EQ(crane.speed, 0.0255f);
  EXPECT_EQ(length_field(0).format(), "%.1f mm");  // no robot: as before
  EXPECT_DOUBLE_EQ(drag_reach(0.5, 1.2), 0.6);
  EXPECT_DOUBLE_EQ(drag_reach(0.5, 0.02), 0.5);
  EXPECT_DOUBLE_EQ(drag_reach(0.5, 51), 25.5);
}

// a chain of `scale` metres a link: a turntable, a luffing joint, a 0.6 x scale slide
std::string crane_urdf(double scale) {
  auto n = [&](double v) { return std::to_string(v * scale); };
  return R"(<robot name="crane"><link name="base"><collision><geometry><box size=")" + n(1) + " " +
         n(1) + " " + n(1) + R"("/></geometry></collision></link>
<link name="tower"><collision><origin xyz="0 0 )" +
         n(2) + R"("/><geometry><cylinder radius=")" + n(0.2) + R"(" length=")" + n(4) +
         R"("/></geometry></collision></link>
<link name="jib"><collision><origin xyz=")" +
         n(2) + R"( 0 0"/><geometry><box size=")" + n(4) + " " + n(0.3) + " " + n(0.3) +
         R"("/></geometry></collision></link><link name="trolley"/>
<joint name="slew" type="revolute"><parent link="base"/><child link="tower"/><axis xyz="0 0 1"/>
<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
<joint name="luff" type="revolute"><parent link="tower"/><child link="jib"/><origin xyz="0 0 )" +
         n(4) + R"("/><axis xyz="0 1 0"/><limit lower="-1" upper="0.3" effort="1" velocity="1"/>
</joint>
<joint name="trolley_slide" type="prismatic"><parent link="jib"/><child link="trolley"/>
<axis xyz="1 0 0"/><limit lower="0" upper=")" +
         n(0.6) + R"(" effort="1" velocity="1"/></joint></robot>)";
}

using LengthFieldsPanel = ikwb::test::HeadlessImGui;

TEST_F(LengthFieldsPanel, SlidesAndMarginsReadInTheUnitOfTheRobotsSize) {
  test::TempDir dir;
  struct Case {
    double scale;
    const char* slide;
    const char* margin;
    const char* clearance;
  };
  // the trolley at the middle of its slide; the margin a new self-collision objective takes
  for (const Case& c :
       {Case{10.0, "trolley_slide   3.000 m", "margin 0.010 m", "0.010 m margin"},
        Case{0.25, "trolley_slide   75.0 mm", "margin 10.0 mm", "10 mm margin"},
        Case{0.004, "trolley_slide   1.20 mm", "margin 0.60 mm", "0.6 mm margin"}}) {
    AppState app;
    ASSERT_TRUE(app.load_robot(dir.write("crane.urdf", crane_urdf(c.scale)))) << c.scale;
    app.set_joint(app.model->find_joint("trolley_slide"), 0.3 * c.scale);
    const int self = app.add_objective(app.new_objective(ObjectiveType::kSelfCollision));
    ASSERT_GE(self, 0);
    Viewport3D view;
    Ui ui(app, view);
    const std::string joints =
        frame_text([&] { draw_joints_panel(ui, ImVec2(0, 20), ImVec2(340, 700)); });
    EXPECT_NE(joints.find(c.slide), std::string::npos) << c.scale << "\n" << joints;
    const std::string objectives =
        frame_text([&] { draw_objectives_panel(ui, ImVec2(0, 20), ImVec2(340, 2000)); });
    EXPECT_NE(objectives.find(c.margin), std::string::npos) << c.scale << "\n" << objectives;
    // the status line beside the field in its unit (a crane's read "750 mm" by "0.750 m")
    EXPECT_NE(objectives.find(std::string("every pair outside the ") + c.clearance),
              std::string::npos)
        << c.scale << "\n"
        << objectives;
  }
}

}  // namespace
}  // namespace ikwb::gui
