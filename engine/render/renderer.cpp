// Scene renderer implementation.
//
// [SECTION] GL objects, programs and overlay batches
// [SECTION] Model upload
// [SECTION] Frame state
// [SECTION] Robot, background, grid, overlays
#include "engine/render/renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <glm/gtc/type_ptr.hpp>

#include "engine/render/gl_util.hpp"
#include "engine/render/glm_convert.hpp"
#include "engine/render/model_mesh.hpp"
#include "ikwb_shaders.hpp"

namespace ikwb::render {

namespace {

// interleaved model vertex
struct MeshVertex {
  float p[3];
  float n[3];
  uint8_t c[4];
};

struct BodyRange {
  std::size_t first = 0;  // first index
  GLsizei count = 0;      // index count
};

void attrib(GLuint index, GLint size, GLenum type, GLboolean normalized, GLsizei stride,
            std::size_t offset) {
  glEnableVertexAttribArray(index);
  glVertexAttribPointer(index, size, type, normalized, stride,
                        reinterpret_cast<const void*>(offset));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] GL objects, programs and overlay batches
// ---------------------------------------------------------------------------------------------

struct Renderer::Impl {
  bool initialized = false;
  std::string error;

  GLuint mesh_program = 0, line_program = 0, point_program = 0, tri_program = 0;
  GLuint grid_program = 0, background_program = 0;

  // model
  GLuint model_vao = 0, model_vbo = 0, model_ebo = 0;
  std::vector<BodyRange> ranges;
  std::vector<MeshData> meshes;
  std::size_t triangles = 0;

  // overlays: lines and points share one layout (position, colour, size)
  GLuint line_vao = 0, line_vbo = 0, tri_vao = 0, tri_vbo = 0;
  GLuint grid_vao = 0, grid_vbo = 0, empty_vao = 0;
  Overlay overlay;

  // frame
  std::unique_ptr<GlStateGuard> guard;
  Camera camera;
  Viewport viewport;
  glm::vec2 viewport_px{1.0f};  // framebuffer pixels
  float px_scale = 1.0f;
  glm::mat4 view_proj{1.0f};

  GLint loc(GLuint program, const char* name) const { return glGetUniformLocation(program, name); }
  void set(GLuint p, const char* name, float v) const { glUniform1f(loc(p, name), v); }
  void set(GLuint p, const char* name, const glm::vec2& v) const {
    glUniform2fv(loc(p, name), 1, glm::value_ptr(v));
  }
  void set(GLuint p, const char* name, const glm::vec3& v) const {
    glUniform3fv(loc(p, name), 1, glm::value_ptr(v));
  }
  void set(GLuint p, const char* name, const glm::vec4& v) const {
    glUniform4fv(loc(p, name), 1, glm::value_ptr(v));
  }
  void set(GLuint p, const char* name, const glm::mat4& m) const {
    glUniformMatrix4fv(loc(p, name), 1, GL_FALSE, glm::value_ptr(m));
  }

  bool build_programs() {
    namespace s = shaders;
    struct Spec {
      GLuint* out;
      const char* name;
      const char *vs, *gs, *fs;
    };
    const Spec specs[] = {
        {&mesh_program, "mesh", s::kMeshVert, nullptr, s::kMeshFrag},
        {&line_program, "overlay_line", s::kOverlayVert, s::kOverlayLineGeom, s::kOverlayLineFrag},
        {&point_program, "overlay_point", s::kOverlayVert, s::kOverlayPointGeom,
         s::kOverlayPointFrag},
        {&tri_program, "overlay_tri", s::kOverlayTriVert, nullptr, s::kOverlayTriFrag},
        {&grid_program, "grid", s::kGridVert, nullptr, s::kGridFrag},
        {&background_program, "background", s::kBackgroundVert, nullptr, s::kBackgroundFrag},
    };
    for (const Spec& sp : specs) {
      *sp.out = build_program(sp.name, sp.vs, sp.gs, sp.fs, error);
      if (!*sp.out) return false;
    }
    return true;
  }

  void create_buffers() {
    glGenVertexArrays(1, &model_vao);
    glGenBuffers(1, &model_vbo);
    glGenBuffers(1, &model_ebo);
    glBindVertexArray(model_vao);
    glBindBuffer(GL_ARRAY_BUFFER, model_vbo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, model_ebo);
    attrib(0, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex), offsetof(MeshVertex, p));
    attrib(1, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex), offsetof(MeshVertex, n));
    attrib(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(MeshVertex), offsetof(MeshVertex, c));

    using LV = Overlay::LineVertex;
    glGenVertexArrays(1, &line_vao);
    glGenBuffers(1, &line_vbo);
    glBindVertexArray(line_vao);
    glBindBuffer(GL_ARRAY_BUFFER, line_vbo);
    attrib(0, 3, GL_FLOAT, GL_FALSE, sizeof(LV), offsetof(LV, p));
    attrib(1, 4, GL_FLOAT, GL_FALSE, sizeof(LV), offsetof(LV, color));
    attrib(2, 1, GL_FLOAT, GL_FALSE, sizeof(LV), offsetof(LV, width));

    using TV = Overlay::TriVertex;
    glGenVertexArrays(1, &tri_vao);
    glGenBuffers(1, &tri_vbo);
    glBindVertexArray(tri_vao);
    glBindBuffer(GL_ARRAY_BUFFER, tri_vbo);
    attrib(0, 3, GL_FLOAT, GL_FALSE, sizeof(TV), offsetof(TV, p));
    attrib(1, 4, GL_FLOAT, GL_FALSE, sizeof(TV), offsetof(TV, color));

    const float corners[8] = {-1, -1, 1, -1, -1, 1, 1, 1};
    glGenVertexArrays(1, &grid_vao);
    glGenBuffers(1, &grid_vbo);
    glBindVertexArray(grid_vao);
    glBindBuffer(GL_ARRAY_BUFFER, grid_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(corners), corners, GL_STATIC_DRAW);
    attrib(0, 2, GL_FLOAT, GL_FALSE, 2 * sizeof(float), 0);

    glGenVertexArrays(1, &empty_vao);
    glBindVertexArray(0);
  }

  // interleaves the CPU meshes into one vertex and one index buffer (GPU part only when the GL
  // objects exist; init() uploads what is there)
  void upload() {
    ranges.assign(meshes.size(), BodyRange());
    std::vector<MeshVertex> vertices;
    std::vector<uint32_t> indices;
    for (std::size_t b = 0; b < meshes.size(); ++b) {
      const MeshData& m = meshes[b];
      uint32_t base = uint32_t(vertices.size());
      for (std::size_t v = 0; v < m.vertex_count(); ++v) {
        MeshVertex mv;
        for (int k = 0; k < 3; ++k)
          mv.p[k] = m.positions[3 * v + k], mv.n[k] = m.normals[3 * v + k];
        for (int k = 0; k < 4; ++k)
          mv.c[k] = uint8_t(std::lround(std::clamp(m.colors[4 * v + k], 0.0f, 1.0f) * 255.0f));
        vertices.push_back(mv);
      }
      ranges[b].first = indices.size();
      ranges[b].count = GLsizei(m.indices.size());
      for (uint32_t i : m.indices) indices.push_back(base + i);
    }
    triangles = indices.size() / 3;
    if (!initialized) return;
    GLint vao = 0, buffer = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &buffer);
    glBindVertexArray(model_vao);
    glBindBuffer(GL_ARRAY_BUFFER, model_vbo);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertices.size() * sizeof(MeshVertex)), vertices.data(),
                 GL_STATIC_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(indices.size() * sizeof(uint32_t)),
                 indices.data(), GL_STATIC_DRAW);
    glBindVertexArray(GLuint(vao));
    glBindBuffer(GL_ARRAY_BUFFER, GLuint(buffer));
  }

  void destroy() {
    for (GLuint* p : {&mesh_program, &line_program, &point_program, &tri_program, &grid_program,
                      &background_program}) {
      if (*p) glDeleteProgram(*p);
      *p = 0;
    }
    for (GLuint* v : {&model_vao, &line_vao, &tri_vao, &grid_vao, &empty_vao}) {
      if (*v) glDeleteVertexArrays(1, v);
      *v = 0;
    }
    for (GLuint* b : {&model_vbo, &model_ebo, &line_vbo, &tri_vbo, &grid_vbo}) {
      if (*b) glDeleteBuffers(1, b);
      *b = 0;
    }
    initialized = false;
  }

  // one overlay batch: triangles, then lines, then points
  void draw_batch(const Overlay::Batch& b, bool depth_test) {
    if (b.empty()) return;
    if (depth_test) {
      glEnable(GL_DEPTH_TEST);
    } else {
      glDisable(GL_DEPTH_TEST);
    }
    if (!b.triangles.empty()) {
      glUseProgram(tri_program);
      set(tri_program, "u_view_proj", view_proj);
      set(tri_program, "u_depth_bias", depth_test ? 2e-5f : 0.0f);
      glBindVertexArray(tri_vao);
      glBindBuffer(GL_ARRAY_BUFFER, tri_vbo);
      glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(b.triangles.size() * sizeof(Overlay::TriVertex)),
                   b.triangles.data(), GL_STREAM_DRAW);
      glDrawArrays(GL_TRIANGLES, 0, GLsizei(b.triangles.size()));
    }
    auto draw_sized = [&](GLuint program, const std::vector<Overlay::LineVertex>& v, GLenum mode) {
      if (v.empty()) return;
      glUseProgram(program);
      set(program, "u_view_proj", view_proj);
      set(program, "u_viewport", viewport_px);
      set(program, "u_px_scale", px_scale);
      set(program, "u_depth_bias", depth_test ? 5e-5f : 0.0f);
      glBindVertexArray(line_vao);
      glBindBuffer(GL_ARRAY_BUFFER, line_vbo);
      glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(v.size() * sizeof(Overlay::LineVertex)), v.data(),
                   GL_STREAM_DRAW);
      glDrawArrays(mode, 0, GLsizei(v.size()));
    };
    draw_sized(line_program, b.lines, GL_LINES);
    // points reuse the line vertex layout
    static_assert(sizeof(Overlay::PointVertex) == sizeof(Overlay::LineVertex));
    if (!b.points.empty()) {
      glUseProgram(point_program);
      set(point_program, "u_view_proj", view_proj);
      set(point_program, "u_viewport", viewport_px);
      set(point_program, "u_px_scale", px_scale);
      set(point_program, "u_depth_bias", depth_test ? 5e-5f : 0.0f);
      glBindVertexArray(line_vao);
      glBindBuffer(GL_ARRAY_BUFFER, line_vbo);
      glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(b.points.size() * sizeof(Overlay::PointVertex)),
                   b.points.data(), GL_STREAM_DRAW);
      glDrawArrays(GL_POINTS, 0, GLsizei(b.points.size()));
    }
  }
};

Renderer::Renderer() : impl_(std::make_unique<Impl>()) {}

Renderer::~Renderer() = default;

bool Renderer::init(std::string* error) {
  Impl& r = *impl_;
  if (r.initialized) return true;
  r.error.clear();
  install_gl_debug_output();
  if (epoxy_gl_version() < 33) {
    r.error = "OpenGL 3.3 or later is required (this context offers " +
              std::to_string(epoxy_gl_version() / 10) + "." +
              std::to_string(epoxy_gl_version() % 10) + ")";
  } else if (r.build_programs()) {
    GLint vao = 0, buffer = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &buffer);
    r.create_buffers();
    glBindVertexArray(GLuint(vao));
    glBindBuffer(GL_ARRAY_BUFFER, GLuint(buffer));
    r.initialized = true;
    if (!r.meshes.empty()) r.upload();
  }
  if (!r.initialized) {
    r.destroy();
    if (error) *error = r.error;
    return false;
  }
  poll_gl_errors("Renderer::init");
  return true;
}

void Renderer::shutdown() {
  impl_->guard.reset();
  impl_->destroy();
}

bool Renderer::initialized() const {
  return impl_->initialized;
}

const std::string& Renderer::error() const {
  return impl_->error;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Model upload
// ---------------------------------------------------------------------------------------------

void Renderer::upload_model(const Model& model, bool collision) {
  impl_->meshes = build_body_meshes(model, collision);
  impl_->upload();
}

void Renderer::clear_model() {
  impl_->meshes.clear();
  impl_->ranges.clear();
  impl_->triangles = 0;
}

int Renderer::body_count() const {
  return int(impl_->meshes.size());
}

std::size_t Renderer::triangle_count() const {
  return impl_->triangles;
}

const std::vector<MeshData>& Renderer::body_meshes() const {
  return impl_->meshes;
}

bool Renderer::model_bounds(const std::vector<Transform<double>>& body_q, glm::vec3& bounds_min,
                            glm::vec3& bounds_max) const {
  return world_bounds(impl_->meshes, body_q, bounds_min, bounds_max);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Frame state
// ---------------------------------------------------------------------------------------------

void Renderer::begin_frame(const Camera& camera, const Viewport& viewport, int framebuffer_height,
                           float framebuffer_scale) {
  Impl& r = *impl_;
  r.guard.reset();
  r.guard = std::make_unique<GlStateGuard>();
  r.camera = camera;
  r.viewport = viewport;
  r.px_scale = framebuffer_scale > 0.0f ? framebuffer_scale : 1.0f;
  GLint x = GLint(std::lround(viewport.x * r.px_scale));
  GLint w = GLint(std::lround(viewport.width * r.px_scale));
  GLint h = GLint(std::lround(viewport.height * r.px_scale));
  GLint y = framebuffer_height - GLint(std::lround(viewport.y * r.px_scale)) - h;
  r.viewport_px = glm::vec2(float(std::max(w, 1)), float(std::max(h, 1)));
  r.view_proj = camera.view_projection(viewport);
  glViewport(x, y, w, h);
  glScissor(x, y, w, h);
  glEnable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
}

void Renderer::end_frame() {
  impl_->guard.reset();
  poll_gl_errors("Renderer frame");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Robot, background, grid, overlays
// ---------------------------------------------------------------------------------------------

void Renderer::draw_background() {
  Impl& r = *impl_;
  if (!r.initialized) return;
  glClearDepth(1.0);
  glClear(GL_DEPTH_BUFFER_BIT);
  glDisable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);
  glUseProgram(r.background_program);
  r.set(r.background_program, "u_top", style.background_top);
  r.set(r.background_program, "u_bottom", style.background_bottom);
  glBindVertexArray(r.empty_vao);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
}

void Renderer::draw_robot(const std::vector<Transform<double>>& body_q, const DrawStyle& ds) {
  Impl& r = *impl_;
  if (!r.initialized || r.ranges.empty()) return;
  GLuint p = r.mesh_program;
  glUseProgram(p);
  glm::vec3 eye = r.camera.eye();
  glm::vec3 light =
      glm::normalize(-r.camera.forward() + 0.5f * r.camera.up() + 0.3f * r.camera.right());
  r.set(p, "u_view_proj", r.view_proj);
  r.set(p, "u_eye", eye);
  r.set(p, "u_light_dir", light);
  r.set(p, "u_sky", style.sky);
  r.set(p, "u_ground", style.ground);
  r.set(p, "u_diffuse", style.diffuse);
  r.set(p, "u_specular", style.specular);
  r.set(p, "u_shininess", style.shininess);
  r.set(p, "u_alpha", std::clamp(ds.alpha, 0.0f, 1.0f));
  glBindVertexArray(r.model_vao);
  GLint loc_model = r.loc(p, "u_model"), loc_tint = r.loc(p, "u_tint");
  GLint loc_highlight = r.loc(p, "u_highlight"), loc_rim = r.loc(p, "u_rim");

  std::size_t n = std::min(r.ranges.size(), body_q.size());
  auto draw_bodies = [&](bool colour) {
    for (std::size_t i = 0; i < n; ++i) {
      const BodyRange& range = r.ranges[i];
      if (range.count == 0) continue;
      if (i < ds.body_visible.size() && !ds.body_visible[i]) continue;
      glm::mat4 model = to_glm(body_q[i]);
      glUniformMatrix4fv(loc_model, 1, GL_FALSE, glm::value_ptr(model));
      if (colour) {
        glm::vec4 tint = ds.tint;
        if (i < ds.body_tint.size() && ds.body_tint[i].a > 0.0f) tint = ds.body_tint[i];
        uint8_t h = i < ds.body_highlight.size() ? ds.body_highlight[i] : 0;
        glm::vec4 highlight(0.0f), rim(0.0f);
        if (h & kHighlightPreserved) highlight = style.preserved_tint;
        if (h & kHighlightUpdated) highlight = style.updated_tint;
        if (h & kHighlightSelected) highlight = style.selected_tint, rim = style.selected_rim;
        if (h & kHighlightHover) rim = style.hover_rim;
        glUniform4fv(loc_tint, 1, glm::value_ptr(tint));
        glUniform4fv(loc_highlight, 1, glm::value_ptr(highlight));
        glUniform4fv(loc_rim, 1, glm::value_ptr(rim));
      }
      glDrawElements(GL_TRIANGLES, range.count, GL_UNSIGNED_INT,
                     reinterpret_cast<const void*>(range.first * sizeof(uint32_t)));
    }
  };

  if (ds.alpha >= 1.0f) {
    draw_bodies(true);
    return;
  }
  // ghost: depth of the front-most surface first, then blend only that surface
  glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
  draw_bodies(false);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_FALSE);
  draw_bodies(true);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
}

void Renderer::draw_grid(const GridStyle& g) {
  Impl& r = *impl_;
  if (!r.initialized) return;
  GLuint p = r.grid_program;
  float extent = g.extent > 0.0f ? g.extent : std::max(3.0f, 6.0f * r.camera.distance);
  glm::vec2 centre(r.camera.target.x, r.camera.target.y);
  glUseProgram(p);
  r.set(p, "u_view_proj", r.view_proj);
  r.set(p, "u_eye", r.camera.eye());
  r.set(p, "u_centre", centre);
  r.set(p, "u_extent", extent);
  r.set(p, "u_height", g.height);
  r.set(p, "u_spacing", std::max(g.spacing, 1e-4f));
  r.set(p, "u_major_every", float(std::max(g.major_every, 1)));
  r.set(p, "u_minor_color", g.minor_color);
  r.set(p, "u_major_color", g.major_color);
  r.set(p, "u_x_color", g.x_axis_color);
  r.set(p, "u_y_color", g.y_axis_color);
  r.set(p, "u_fade", glm::vec2(0.3f * extent, extent));
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_FALSE);
  glBindVertexArray(r.grid_vao);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
}

void Renderer::draw_world_axes(float length, float width_px) {
  impl_->overlay.axes(glm::mat4(1.0f), length, width_px, true);
}

Overlay& Renderer::overlay() {
  return impl_->overlay;
}

void Renderer::draw_overlay() {
  draw_overlay(impl_->overlay);
}

void Renderer::draw_overlay(Overlay& o) {
  Impl& r = *impl_;
  if (!r.initialized) {
    o.clear();
    return;
  }
  glDepthMask(GL_FALSE);
  r.draw_batch(o.batch(true), true);
  r.draw_batch(o.batch(false), false);
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
  o.clear();
}

}  // namespace ikwb::render
