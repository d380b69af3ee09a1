// Scene renderer: robot meshes with simple lit shading (hemispheric ambient + Blinn-Phong
// headlight), per-body tints and highlights, translucent ghosts, a ground grid, world axes,
// a gradient background, and the world-space overlay batches (lines, points, triangles).
//
// Use (a 3.3 core context or later must be current for every call except the CPU accessors):
//   init() once after the context exists; upload_model() when the model changes;
//   per frame: begin_frame(), draw_background(), draw_robot() (opaque first, then ghosts),
//   draw_grid(), fill overlay(), draw_overlay(), end_frame(); then ImGui draws.
//   shutdown() before the context is destroyed (the destructor makes no GL calls).
// begin_frame() saves the GL state it changes and end_frame() restores it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/core/model.hpp"
#include "engine/render/camera.hpp"
#include "engine/render/overlay.hpp"
#include "engine/render/screenshot.hpp"

namespace ikwb::render {

// highlight bits per body (DrawStyle::body_highlight)
enum Highlight : uint8_t {
  kHighlightNone = 0,
  kHighlightHover = 1,      // rim light
  kHighlightSelected = 2,   // orange tint and rim
  kHighlightUpdated = 4,    // green: updated by a masked FK branch edit
  kHighlightPreserved = 8,  // blue-grey: preserved by a masked FK branch edit
};

struct DrawStyle {
  // < 1: translucent ghost. Only the ghost's front-most surface is blended (depth pre-pass), so
  // draw ghosts after the opaque robot.
  float alpha = 1.0f;
  glm::vec4 tint{0.0f};                 // rgb + mix amount, every body (e.g. a ghost colour)
  std::vector<glm::vec4> body_tint;     // (body_count) or empty; a body's entry wins when a > 0
  std::vector<uint8_t> body_highlight;  // (body_count) or empty; Highlight bits
  std::vector<uint8_t> body_visible;    // (body_count) or empty (all drawn); 0 hides a body
};

struct GridStyle {
  float spacing = 0.1f;  // minor lines, metres
  int major_every = 10;  // minor cells per major cell
  float extent = 0.0f;   // half size in metres; 0: follows the camera distance
  float height = 0.0f;   // z of the grid plane
  glm::vec4 minor_color{0.55f, 0.58f, 0.62f, 0.22f};
  glm::vec4 major_color{0.62f, 0.65f, 0.70f, 0.55f};
  glm::vec4 x_axis_color{0.85f, 0.3f, 0.3f, 0.9f};  // alpha 0 hides the axis line
  glm::vec4 y_axis_color{0.3f, 0.75f, 0.35f, 0.9f};
};

struct SceneStyle {
  glm::vec3 background_top{0.30f, 0.33f, 0.38f};
  glm::vec3 background_bottom{0.13f, 0.14f, 0.16f};
  glm::vec3 sky{0.42f, 0.44f, 0.48f};     // ambient from above
  glm::vec3 ground{0.16f, 0.15f, 0.14f};  // ambient from below
  float diffuse = 0.75f;
  float specular = 0.22f;
  float shininess = 40.0f;
  glm::vec4 hover_rim{0.55f, 0.8f, 1.0f, 0.9f};  // rgb, strength
  glm::vec4 selected_tint{1.0f, 0.62f, 0.18f, 0.45f};
  glm::vec4 selected_rim{1.0f, 0.7f, 0.3f, 0.8f};
  glm::vec4 updated_tint{0.3f, 0.85f, 0.4f, 0.6f};
  glm::vec4 preserved_tint{0.45f, 0.55f, 0.75f, 0.6f};
};

class Renderer {
 public:
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // compiles the shaders and creates the GL objects; installs the debug-output error counter.
  // Returns false and sets error() (also into *error when given) on failure.
  bool init(std::string* error = nullptr);
  // deletes the GL objects (needs the context current); keeps the CPU meshes, which a later
  // init() uploads again
  void shutdown();
  bool initialized() const;
  const std::string& error() const;

  // builds each body's mesh (visuals, or collision geometry) and uploads it; call once per model
  // (the GPU copy stays until the next upload_model or clear_model). Before init(), only the CPU
  // meshes are built and init() uploads them.
  void upload_model(const Model& model, bool collision = false);
  void clear_model();
  int body_count() const;
  std::size_t triangle_count() const;
  // CPU copies of the uploaded meshes, body frame (body_count); share them with Picker
  const std::vector<MeshData>& body_meshes() const;
  // world bounds of the model at body_q (for Camera::frame); false when there is nothing
  bool model_bounds(const std::vector<Transform<double>>& body_q, glm::vec3& bounds_min,
                    glm::vec3& bounds_max) const;

  // Starts drawing into `viewport` (window pixels, top-left origin) of the bound framebuffer,
  // whose height in framebuffer pixels is framebuffer_height; framebuffer_scale is framebuffer
  // pixels per window pixel (HiDPI). Saves the GL state (restored by end_frame) and sets the GL
  // viewport and scissor to the view.
  void begin_frame(const Camera& camera, const Viewport& viewport, int framebuffer_height,
                   float framebuffer_scale = 1.0f);
  // gradient background; clears depth inside the viewport
  void draw_background();
  // bodies at world poses body_q (body_count); bodies beyond body_q's size are skipped
  void draw_robot(const std::vector<Transform<double>>& body_q, const DrawStyle& style = {});
  // translucent ground grid (depth-tested, no depth writes): draw after opaque geometry
  void draw_grid(const GridStyle& grid = {});
  // world x / y / z axes into overlay() (drawn by draw_overlay)
  void draw_world_axes(float length = 0.25f, float width_px = 2.5f);
  // batches for this frame's overlays
  Overlay& overlay();
  // draws overlay() (or `o`) and clears it: depth-tested primitives first, then those on top
  void draw_overlay();
  void draw_overlay(Overlay& o);
  // restores the GL state saved by begin_frame and polls glGetError
  void end_frame();

  SceneStyle style;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ikwb::render
