// Thick lines: each segment, clipped to the near plane, becomes a screen-aligned quad of the
// requested pixel width plus a one-pixel feather for anti-aliasing (core profile has no wide
// lines).
#version 330 core
layout(lines) in;
layout(triangle_strip, max_vertices = 4) out;

in vec4 g_color[];
in float g_size[];

uniform vec2 u_viewport;     // framebuffer pixels
uniform float u_px_scale;    // framebuffer pixels per requested pixel
uniform float u_depth_bias;  // pulls lines towards the eye (NDC), to win over coplanar faces

out vec4 f_color;
noperspective out float f_edge;  // signed distance from the centre line, pixels
flat out float f_half_width;

void emit(vec4 p, vec2 offset_px, float edge, vec4 color) {
  vec2 ndc = offset_px / (0.5 * u_viewport);
  gl_Position = vec4(p.xy + ndc * p.w, p.z - u_depth_bias * p.w, p.w);
  f_color = color;
  f_edge = edge;
  EmitVertex();
}

void main() {
  vec4 p0 = gl_in[0].gl_Position;
  vec4 p1 = gl_in[1].gl_Position;
  vec4 c0 = g_color[0];
  vec4 c1 = g_color[1];
  // clip against the near plane (z >= -w)
  float d0 = p0.z + p0.w;
  float d1 = p1.z + p1.w;
  if (d0 < 0.0 && d1 < 0.0) return;
  if (d0 < 0.0) {
    float t = d0 / (d0 - d1);
    p0 = mix(p0, p1, t);
    c0 = mix(c0, c1, t);
  } else if (d1 < 0.0) {
    float t = d1 / (d1 - d0);
    p1 = mix(p1, p0, t);
    c1 = mix(c1, c0, t);
  }
  vec2 s0 = p0.xy / p0.w * 0.5 * u_viewport;
  vec2 s1 = p1.xy / p1.w * 0.5 * u_viewport;
  vec2 dir = s1 - s0;
  float len = length(dir);
  dir = len > 1e-4 ? dir / len : vec2(1.0, 0.0);
  vec2 normal = vec2(-dir.y, dir.x);
  float half_width = 0.5 * max(g_size[0] * u_px_scale, 1.0);
  float outer = half_width + 1.0;
  // square caps of half the core width close the gaps between joined segments
  vec2 cap = dir * half_width;
  f_half_width = half_width;
  emit(p0, -normal * outer - cap, -outer, c0);
  f_half_width = half_width;
  emit(p0, normal * outer - cap, outer, c0);
  f_half_width = half_width;
  emit(p1, -normal * outer + cap, -outer, c1);
  f_half_width = half_width;
  emit(p1, normal * outer + cap, outer, c1);
  EndPrimitive();
}
