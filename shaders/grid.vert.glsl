// Ground grid: a square on the plane z = u_height around u_centre; lines come from the
// fragment shader.
#version 330 core
layout(location = 0) in vec2 a_corner;  // -1..1

uniform mat4 u_view_proj;
uniform vec2 u_centre;
uniform float u_extent;  // half size, metres
uniform float u_height;

out vec2 v_xy;

void main() {
  v_xy = u_centre + a_corner * u_extent;
  gl_Position = u_view_proj * vec4(v_xy, u_height, 1.0);
}
