// The workbench with no display server (`ikwb gui --headless`: an EGL context off screen, Mesa's
// software device here, the GPU's on a GPU machine): a scripted drag is followed, the screenshot
// shows the robot at the pbuffer's size, a run nothing could end is refused, and a windowed run
// without a display points to --headless.
#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include <cmath>
#include <string>

#include "app/gui_script_fixture.hpp"

namespace {

class Headless : public ikwb::test::GuiScript {
 protected:
  Headless() { headless_ = true; }
};

TEST_F(Headless, ADragIsFollowedAndTheScreenshotHasThePbuffersSize) {
  ASSERT_EQ(run("robot panda\n"
                "wait 3\n"
                "drag 0 TranslateX 10cm 0 0 frames 20\n"
                "wait 10\n"
                "screenshot " +
                    path("shot.png") + "\n" + dump_cmd("after.json"),
                "--headless --width 1280 --height 800"),
            0)
      << log();
  nlohmann::json d = dump("after.json");
  EXPECT_EQ(d["framebuffer"][0], 1280);
  EXPECT_EQ(d["framebuffer"][1], 800);
  EXPECT_EQ(d["gl_errors"], 0) << d["gl_error_messages"].dump();
  EXPECT_EQ(d["solver"]["backend_in_use"], "cpu");
  // the first objective is the hand's pose target: the drag moved it and the solve followed
  const nlohmann::json& o = d["objectives"][0];
  EXPECT_LT(o["position_error"].get<double>(), 1e-3) << o.dump();

  int w = 0, h = 0, channels = 0;
  uint8_t* px = stbi_load(path("shot.png").c_str(), &w, &h, &channels, 4);
  ASSERT_NE(px, nullptr) << "cannot read the screenshot";
  EXPECT_EQ(w, 1280);
  EXPECT_EQ(h, 800);
  // not blank: the luminance varies (the panels and the robot over the background)
  double sum = 0, sum2 = 0;
  for (int i = 0; i < w * h; ++i) {
    double l = 0.3 * px[4 * i] + 0.59 * px[4 * i + 1] + 0.11 * px[4 * i + 2];
    sum += l, sum2 += l * l;
  }
  stbi_image_free(px);
  const double n = double(w) * h;
  EXPECT_GT(std::sqrt(sum2 / n - (sum / n) * (sum / n)), 10.0);
}

TEST_F(Headless, WithNeitherScriptNorFramesItIsRefused) {
  EXPECT_EQ(run_gui("--headless --robot panda", 60), 2);
  EXPECT_NE(log().find("--headless needs --script or --frames"), std::string::npos) << log();
}

// a window size X cannot make is refused before any window opens (99999 died of an X error)
TEST_F(Headless, AWindowSizeBeyondWhatXTakesIsRefused) {
  EXPECT_EQ(run_gui("--headless --robot panda --frames 1 --width 99999", 60), 2);
  EXPECT_NE(log().find("--width 99999: between 64 and 16384 pixels"), std::string::npos) << log();
  EXPECT_EQ(run_gui("--headless --robot panda --frames 1 --height 10", 60), 2);
  EXPECT_NE(log().find("--height 10: between 64 and 16384 pixels"), std::string::npos) << log();
}

// a script cut short by --frames names the line it was running, the wait
TEST_F(Headless, AScriptCutShortNamesTheLineItWasRunning) {
  EXPECT_EQ(run("robot panda\n"
                "wait 50\n",
                "--headless --frames 10"),
            1);
  EXPECT_NE(log().find("script stopped at script.txt:2 after 10 frames"), std::string::npos)
      << log();
}

// without a display a windowed run says so and names the way out
TEST_F(Headless, AWindowWithoutADisplayPointsToHeadless) {
  EXPECT_EQ(run_gui("--robot panda --frames 3", 60), 1);
  EXPECT_NE(log().find("cannot open a window"), std::string::npos) << log();
  EXPECT_NE(log().find("--headless"), std::string::npos) << log();
}

// without a display a robot file that is not there is named too (a shipped robot's name is no
// missing file)
TEST_F(Headless, AMissingRobotFileIsNamedBesideTheDisplaysError) {
  EXPECT_EQ(run_gui("nope.urdf --frames 3", 60), 1);
  EXPECT_NE(log().find("could not open robot nope.urdf: no such file"), std::string::npos) << log();
  EXPECT_NE(log().find("cannot open a window"), std::string::npos) << log();
  EXPECT_EQ(run_gui("humanoid --frames 3", 60), 1);
  EXPECT_EQ(log().find("could not open"), std::string::npos) << log();
}

}  // namespace
