// Overlay lines and points: world positions to clip space; colour and pixel size pass through
// to the geometry shader that expands them into screen-space quads.
#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;
layout(location = 2) in float a_size;

uniform mat4 u_view_proj;

out vec4 g_color;
out float g_size;

void main() {
  gl_Position = u_view_proj * vec4(a_position, 1.0);
  g_color = a_color;
  g_size = a_size;
}
