// Overlay triangles: world positions, flat colours.
#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;

uniform mat4 u_view_proj;
uniform float u_depth_bias;

out vec4 v_color;

void main() {
  vec4 p = u_view_proj * vec4(a_position, 1.0);
  gl_Position = vec4(p.xy, p.z - u_depth_bias * p.w, p.w);
  v_color = a_color;
}
