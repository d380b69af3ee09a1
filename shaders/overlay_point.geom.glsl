// Points: each becomes a screen-aligned square of its pixel size (plus a feather pixel); the
// fragment shader cuts out a disc.
#version 330 core
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;

in vec4 g_color[];
in float g_size[];

uniform vec2 u_viewport;
uniform float u_px_scale;
uniform float u_depth_bias;

out vec4 f_color;
noperspective out vec2 f_offset;  // pixels from the centre
flat out float f_radius;

void main() {
  vec4 p = gl_in[0].gl_Position;
  if (p.z < -p.w) return;
  float radius = 0.5 * max(g_size[0] * u_px_scale, 1.0);
  float outer = radius + 1.0;
  const vec2 corners[4] = vec2[4](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0),
                                  vec2(1.0, 1.0));
  for (int i = 0; i < 4; ++i) {
    vec2 offset = corners[i] * outer;
    vec2 ndc = offset / (0.5 * u_viewport);
    gl_Position = vec4(p.xy + ndc * p.w, p.z - u_depth_bias * p.w, p.w);
    f_color = g_color[0];
    f_offset = offset;
    f_radius = radius;
    EmitVertex();
  }
  EndPrimitive();
}
