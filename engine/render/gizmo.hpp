// Translate / rotate gizmo for IK targets. A state machine independent of any UI library: the
// caller passes the camera, the viewport and the mouse position (window pixels, top-left
// origin); the gizmo answers which handle is under the mouse and, while dragging, the new target
// Transform. Handles keep a constant size in pixels at any zoom.
//
//   translate: TranslateX/Y/Z (drag along an axis), TranslatePlaneXY/YZ/ZX (drag in a plane),
//              TranslateFree (centre: drag in the view plane)
//   rotate:    RotateX/Y/Z (rings; drag rotates about the ring's axis through the centre)
// Axes are the world axes or the target's own (local) axes. With `snap` on, translations move
// in steps of snap_translate along each axis and rotations in steps of snap_rotate, counted from
// where the drag started.
//
// Per frame: set_transform(target) when not dragging, hover(...), then on mouse press
// begin_drag(...), on motion update_drag(...) -> new target, on release end_drag(); draw(...)
// fills an Overlay. handle_screen_point() tells automation where to put the mouse for a handle.
#pragma once

#include <string>

#include <glm/glm.hpp>

#include "engine/core/spatial.hpp"
#include "engine/render/camera.hpp"
#include "engine/render/overlay.hpp"

namespace ikwb::render {

enum class GizmoMode { kTranslate, kRotate };
enum class GizmoSpace { kWorld, kLocal };

enum class GizmoHandle {
  kNone,
  kTranslateX,
  kTranslateY,
  kTranslateZ,
  kTranslatePlaneXY,
  kTranslatePlaneYZ,
  kTranslatePlaneZX,
  kTranslateFree,
  kRotateX,
  kRotateY,
  kRotateZ,
};

// "TranslateX", ..., "RotateZ", "None"
const char* gizmo_handle_name(GizmoHandle h);
// inverse of gizmo_handle_name (case-insensitive); kNone when unknown
GizmoHandle gizmo_handle_from_name(const std::string& name);
// whether a handle belongs to a mode (kNone belongs to none)
bool gizmo_handle_in_mode(GizmoHandle h, GizmoMode mode);

class Gizmo {
 public:
  GizmoMode mode = GizmoMode::kTranslate;
  GizmoSpace space = GizmoSpace::kWorld;
  bool snap = false;
  double snap_translate = 0.01;            // metres
  double snap_rotate = 0.261799387799149;  // radians (15 degrees)
  float size_px = 110.0f;                  // axis length and ring radius, pixels
  float pick_px = 8.0f;                    // hover tolerance around lines and rings, pixels
  float centre_px = 11.0f;                 // radius of the free-translation centre handle

  // the target pose; ignored while dragging (the drag owns the pose then)
  void set_transform(const Transform<double>& t);
  const Transform<double>& transform() const { return current_; }

  // handle under the mouse without changing any state (kNone: none or not visible)
  GizmoHandle hit_test(const Camera& cam, const Viewport& vp, const glm::vec2& mouse) const;
  // hit_test that also remembers the result as hovered() (kept as the active handle while
  // dragging)
  GizmoHandle hover(const Camera& cam, const Viewport& vp, const glm::vec2& mouse);
  GizmoHandle hovered() const { return dragging_ ? active_ : hovered_; }

  // starts dragging the handle under the mouse; false when there is none
  bool begin_drag(const Camera& cam, const Viewport& vp, const glm::vec2& mouse);
  // starts dragging a given handle of the current mode (automation); false if it is not
  // visible from this camera
  bool begin_drag(GizmoHandle handle, const Camera& cam, const Viewport& vp,
                  const glm::vec2& mouse);
  // the target for the current mouse position (the start pose plus the projected motion)
  Transform<double> update_drag(const Camera& cam, const Viewport& vp, const glm::vec2& mouse);
  // finishes the drag and returns the final target
  Transform<double> end_drag();
  // abandons the drag and returns to the pose it started from
  void cancel_drag();
  bool dragging() const { return dragging_; }
  GizmoHandle active() const { return dragging_ ? active_ : GizmoHandle::kNone; }
  // pose when the drag started
  const Transform<double>& drag_start() const { return start_; }
  // translation (world) and rotation angle (radians) applied by the drag so far
  glm::dvec3 drag_translation() const { return translation_; }
  double drag_angle() const { return angle_; }

  // A pixel on the handle where hit_test() returns that handle, chosen away from the other
  // handles (for scripted drags). *visible is false (and the centre is returned) when the
  // handle cannot be grabbed from this camera.
  glm::vec2 handle_screen_point(GizmoHandle handle, const Camera& cam, const Viewport& vp,
                                bool* visible = nullptr) const;
  // world axis of the gizmo frame (0 = x, 1 = y, 2 = z), unit
  glm::vec3 axis(int k) const;
  // world length of the axes / ring radius at this camera
  float world_scale(const Camera& cam, const Viewport& vp) const;

  // handles of the current mode into `out` (drawn on top of everything), hovered or active
  // handle highlighted
  void draw(Overlay& out, const Camera& cam, const Viewport& vp) const;

 private:
  // screen distance from the mouse to a handle's shape (<= 0 inside area handles); large when
  // the handle is not visible
  float handle_distance(GizmoHandle h, const Camera& cam, const Viewport& vp,
                        const glm::vec2& mouse) const;
  bool handle_visible(GizmoHandle h, const Camera& cam, const Viewport& vp) const;

  Transform<double> current_ = transform_identity<double>();
  Transform<double> start_ = transform_identity<double>();
  GizmoHandle hovered_ = GizmoHandle::kNone;
  GizmoHandle active_ = GizmoHandle::kNone;
  bool dragging_ = false;

  // drag state: frame at the start, grab point and the accumulated motion
  glm::vec3 drag_axes_[3];
  glm::vec3 drag_centre_{0.0f};
  glm::vec3 drag_normal_{0.0f};  // plane normal for plane / free / ring drags
  glm::vec3 grab_point_{0.0f};   // world point grabbed (plane and ring drags)
  float grab_t_ = 0.0f;          // axis parameter grabbed (axis drags)
  bool ring_in_screen_ = false;  // ring seen edge-on: angle from the mouse along the tangent
  glm::vec2 grab_mouse_{0.0f};
  glm::vec2 ring_tangent_px_{1.0f, 0.0f};
  glm::vec3 ring_prev_{0.0f};
  double raw_angle_ = 0.0;
  glm::dvec3 translation_{0.0};
  double angle_ = 0.0;
};

}  // namespace ikwb::render
