// GL tests for engine/render: a hidden GLFW window (3.3 core) provides the context; the scene
// renders into an off-screen MSAA target whose pixels are checked against Camera::project.
// Skipped when no display is available (run under xvfb-run -a -s '-screen 0 1280x720x24').
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "engine/core/fk.hpp"
#include "engine/render/framebuffer.hpp"
#include "engine/render/gizmo.hpp"
#include "engine/render/gl_util.hpp"
#include "engine/render/glm_convert.hpp"
#include "engine/render/renderer.hpp"

namespace ikwb::render {
namespace {

constexpr int kWidth = 640, kHeight = 480;

// red box base (0.3 m cube on the ground) and a blue sphere on an arm joint
Model two_bodies() {
  ModelBuilder b;
  b.model().name = "two";
  int base = b.add_body("base");
  int ball = b.add_body("ball");
  b.add_joint({"base_fixed", JointType::kFixed, -1, base, {{0, 0, 0.15}, quat_identity<double>()}});
  JointSpec j{"arm", JointType::kRevolute, base, ball, {{0.6, 0, 0.25}, quat_identity<double>()}};
  j.axis = {0, 0, 1};
  b.add_joint(j);
  Geometry g;
  g.type = GeometryType::kBox;
  g.size = {0.3, 0.3, 0.3};
  g.rgba = {0.85f, 0.15f, 0.1f, 1.0f};
  g.has_color = true;
  b.visuals(base).push_back(g);
  Geometry s;
  s.type = GeometryType::kSphere;
  s.size = {0.12, 0, 0};
  s.rgba = {0.1f, 0.3f, 0.9f, 1.0f};
  s.has_color = true;
  b.visuals(ball).push_back(s);
  return b.finalize();
}

class RendererGl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) {
      skip_reason_ = "no DISPLAY (run under xvfb-run)";
      return;
    }
    if (!glfwInit()) {
      skip_reason_ = "glfwInit failed";
      return;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    window_ = glfwCreateWindow(kWidth, kHeight, "render_tests", nullptr, nullptr);
    if (!window_) {
      skip_reason_ = "no OpenGL 3.3 core context";
      glfwTerminate();
      return;
    }
    glfwMakeContextCurrent(window_);
  }
  static void TearDownTestSuite() {
    if (window_) {
      glfwDestroyWindow(window_);
      glfwTerminate();
      window_ = nullptr;
    }
  }
  void SetUp() override {
    if (!window_) GTEST_SKIP() << skip_reason_;
    reset_gl_error_count();
  }

  // renders one frame of the model into `target` and returns its pixels
  std::vector<uint8_t> render(Renderer& r, OffscreenTarget& target, const Camera& cam,
                              const std::vector<Transform<double>>& body_q,
                              const DrawStyle& style = {}, Overlay* extra = nullptr) {
    target.bind();
    r.begin_frame(cam, view_, kHeight);
    r.draw_background();
    r.draw_robot(body_q, style);
    r.draw_grid();
    r.draw_world_axes();
    r.draw_overlay();
    if (extra) r.draw_overlay(*extra);
    r.end_frame();
    std::vector<uint8_t> px = target.read_rgba();
    target.unbind();
    return px;
  }

  static glm::u8vec4 at(const std::vector<uint8_t>& px, glm::vec2 p) {
    int x = int(p.x), y = int(p.y);
    const uint8_t* c = &px[(std::size_t(y) * kWidth + std::size_t(x)) * 4];
    return {c[0], c[1], c[2], c[3]};
  }

  static inline GLFWwindow* window_ = nullptr;
  static inline std::string skip_reason_;
  Viewport view_{0.0f, 0.0f, float(kWidth), float(kHeight)};
};

TEST_F(RendererGl, RobotPixelsAreWhereTheCameraProjects) {
  Renderer r;
  std::string error;
  ASSERT_TRUE(r.init(&error)) << error;
  Model m = two_bodies();
  r.upload_model(m);
  EXPECT_EQ(r.body_count(), 2);
  EXPECT_GT(r.triangle_count(), 12u);
  State state(m);
  eval_fk(m, m.neutral_configuration(), {}, state);

  Camera cam;
  glm::vec3 lo, hi;
  ASSERT_TRUE(r.model_bounds(state.body_q, lo, hi));
  cam.frame(lo, hi, view_.aspect());
  OffscreenTarget target;
  ASSERT_TRUE(target.create(kWidth, kHeight, 4, &error)) << error;
  std::vector<uint8_t> px = render(r, target, cam, state.body_q);
  ASSERT_EQ(px.size(), std::size_t(kWidth) * kHeight * 4);

  std::string path = ::testing::TempDir() + "ikwb_render_two_bodies.png";
  ASSERT_TRUE(save_png(path, kWidth, kHeight, px, &error)) << error;
  std::printf("screenshot: %s\n", path.c_str());

  // not a uniform image
  std::set<uint32_t> colours;
  for (std::size_t i = 0; i < px.size(); i += 4)
    colours.insert(uint32_t(px[i]) << 16 | uint32_t(px[i + 1]) << 8 | px[i + 2]);
  EXPECT_GT(colours.size(), 100u);

  // the base is red and the ball blue at their projected centres
  glm::u8vec4 base = at(px, glm::vec2(cam.project(to_glm(state.body_q[0].p), view_)));
  EXPECT_GT(base.r, base.g + 60) << int(base.r) << " " << int(base.g) << " " << int(base.b);
  EXPECT_GT(base.r, base.b + 60);
  glm::u8vec4 ball = at(px, glm::vec2(cam.project(to_glm(state.body_q[1].p), view_)));
  EXPECT_GT(ball.b, ball.r + 60) << int(ball.r) << " " << int(ball.g) << " " << int(ball.b);
  EXPECT_GT(ball.b, ball.g + 30);
  // the top-left corner is the top of the background gradient
  glm::u8vec4 bg = at(px, glm::vec2(3, 3));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(bg[k], r.style.background_top[k] * 255.0f, 4.0f);
  EXPECT_EQ(bg.a, 255);

  // moving the ball moves its pixels
  std::vector<Transform<double>> moved = state.body_q;
  moved[1].p = {-0.4, 0.2, 0.5};
  px = render(r, target, cam, moved);
  glm::u8vec4 old_spot = at(px, glm::vec2(cam.project(to_glm(state.body_q[1].p), view_)));
  EXPECT_LT(old_spot.b, old_spot.r + 60);
  glm::u8vec4 new_spot = at(px, glm::vec2(cam.project(to_glm(moved[1].p), view_)));
  EXPECT_GT(new_spot.b, new_spot.r + 60);

  EXPECT_EQ(gl_error_count(), 0);
  target.destroy();
  r.shutdown();
}

TEST_F(RendererGl, HighlightsGhostsAndOverlays) {
  Renderer r;
  ASSERT_TRUE(r.init());
  Model m = two_bodies();
  r.upload_model(m);
  State state(m);
  eval_fk(m, m.neutral_configuration(), {}, state);
  Camera cam;
  glm::vec3 lo, hi;
  r.model_bounds(state.body_q, lo, hi);
  cam.frame(lo, hi, view_.aspect());
  OffscreenTarget target;
  ASSERT_TRUE(target.create(kWidth, kHeight, 4));
  glm::vec2 base_px(cam.project(to_glm(state.body_q[0].p), view_));
  glm::vec2 ball_px(cam.project(to_glm(state.body_q[1].p), view_));

  std::vector<uint8_t> plain = render(r, target, cam, state.body_q);
  DrawStyle style;
  style.body_highlight = {kHighlightUpdated, kHighlightPreserved};
  std::vector<uint8_t> lit = render(r, target, cam, state.body_q, style);
  glm::u8vec4 updated = at(lit, base_px);
  EXPECT_GT(updated.g, at(plain, base_px).g + 40);  // green tint on the updated body

  // a translucent ghost: blends the background with the body colour
  DrawStyle ghost;
  ghost.alpha = 0.35f;
  std::vector<Transform<double>> ghost_q = state.body_q;
  ghost_q[1].p = {-0.4, 0.2, 0.5};
  target.bind();
  r.begin_frame(cam, view_, kHeight);
  r.draw_background();
  r.draw_robot(ghost_q, ghost);
  r.end_frame();
  std::vector<uint8_t> ghost_px = target.read_rgba();
  target.unbind();
  glm::u8vec4 g = at(ghost_px, glm::vec2(cam.project(to_glm(ghost_q[1].p), view_)));
  glm::u8vec4 bg = at(ghost_px, glm::vec2(3, 3));
  EXPECT_GT(int(g.b), int(bg.b) + 10);
  EXPECT_LT(int(g.b), 200);

  // overlays: a thick yellow line on top of everything crosses the ball
  Overlay o;
  glm::vec3 c = to_glm(state.body_q[1].p);
  o.line(c - glm::vec3(0, 0.5f, 0), c + glm::vec3(0, 0.5f, 0), {1.0f, 1.0f, 0.0f, 1.0f}, 6.0f,
         false);
  o.point(to_glm(state.body_q[0].p), {0.0f, 1.0f, 0.0f, 1.0f}, 14.0f, false);
  o.arrow({0, 0, 0}, {0, 0, 0.8f}, {1, 0, 1, 1}, 3.0f);
  o.arc({0, 0, 0}, {0, 0, 1}, {1, 0, 0}, 2.0f, 0.5f, {1, 1, 1, 1}, 2.0f);
  o.sector({0, 0, 0}, {0, 0, 1}, {1, 0, 0}, 1.0f, 0.3f, {1, 1, 1, 0.3f});
  Gizmo gizmo;
  gizmo.set_transform(state.body_q[1]);
  gizmo.draw(o, cam, view_);
  std::vector<uint8_t> over = render(r, target, cam, state.body_q, {}, &o);
  EXPECT_TRUE(o.empty());  // drawn batches are cleared
  glm::u8vec4 line = at(over, ball_px);
  // the gizmo's free handle (light grey disc) sits on the ball centre, on top of the line
  EXPECT_GT(line.r, 150);
  EXPECT_GT(line.g, 150);
  glm::u8vec4 dot = at(over, base_px);
  EXPECT_GT(dot.g, 200);
  EXPECT_LT(dot.r, 80);

  std::string path = ::testing::TempDir() + "ikwb_render_overlays.png";
  EXPECT_TRUE(save_png(path, kWidth, kHeight, over));
  std::printf("screenshot: %s\n", path.c_str());
  EXPECT_EQ(gl_error_count(), 0);
  target.destroy();
  r.shutdown();
}

TEST_F(RendererGl, RestoresGlStateForImGui) {
  Renderer r;
  ASSERT_TRUE(r.init());
  Model m = two_bodies();
  r.upload_model(m);
  State state(m);
  eval_fk(m, m.neutral_configuration(), {}, state);
  glViewport(1, 2, 30, 40);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glEnable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  Camera cam;
  Viewport half{100.0f, 50.0f, 320.0f, 240.0f};
  r.begin_frame(cam, half, kHeight);
  GLint vp[4];
  glGetIntegerv(GL_VIEWPORT, vp);
  EXPECT_EQ(vp[0], 100);
  EXPECT_EQ(vp[1], kHeight - 50 - 240);  // GL's origin is bottom-left
  r.draw_background();
  r.draw_robot(state.body_q);
  r.draw_grid();
  r.draw_world_axes();
  r.draw_overlay();
  r.end_frame();
  glGetIntegerv(GL_VIEWPORT, vp);
  EXPECT_EQ(vp[0], 1);
  EXPECT_EQ(vp[3], 40);
  EXPECT_FALSE(glIsEnabled(GL_DEPTH_TEST));
  EXPECT_FALSE(glIsEnabled(GL_BLEND));
  EXPECT_TRUE(glIsEnabled(GL_CULL_FACE));
  EXPECT_FALSE(glIsEnabled(GL_SCISSOR_TEST));
  GLint program = -1;
  glGetIntegerv(GL_CURRENT_PROGRAM, &program);
  EXPECT_EQ(program, 0);
  glDisable(GL_CULL_FACE);
  EXPECT_EQ(gl_error_count(), 0);
  r.shutdown();
}

TEST_F(RendererGl, BadShaderReportsStageAndLog) {
  std::string error;
  GLuint p = build_program("broken", "#version 330 core\nvoid main() { gl_Position = 1; }\n",
                           nullptr, "#version 330 core\nvoid main() {}\n", error);
  EXPECT_EQ(p, 0u);
  EXPECT_NE(error.find("broken"), std::string::npos) << error;
  EXPECT_NE(error.find("vertex"), std::string::npos) << error;
  EXPECT_EQ(gl_error_count(), 0);
}

TEST_F(RendererGl, DebugOutputCountsErrors) {
  install_gl_debug_output();
  glEnable(GLenum(0x1234));  // GL_INVALID_ENUM
  poll_gl_errors("test");
  EXPECT_EQ(gl_error_count(), 1);  // once, whether the callback or glGetError saw it
  EXPECT_FALSE(gl_error_messages().empty());
  reset_gl_error_count();
}

}  // namespace
}  // namespace ikwb::render
