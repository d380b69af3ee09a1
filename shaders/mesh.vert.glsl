// Robot meshes: body-frame vertices placed by the body's rigid world transform.
#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_color;

uniform mat4 u_model;      // body -> world (rigid)
uniform mat4 u_view_proj;  // world -> clip

out vec3 v_world;
out vec3 v_normal;
out vec4 v_color;

void main() {
  vec4 w = u_model * vec4(a_position, 1.0);
  v_world = w.xyz;
  v_normal = mat3(u_model) * a_normal;
  v_color = a_color;
  gl_Position = u_view_proj * w;
}
