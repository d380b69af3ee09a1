// Ground grid: anti-aliased minor and major lines from world coordinates (fwidth), the x and y
// axes in colour, minor lines fading out where they get denser than a few pixels, and the whole
// grid fading with distance from the centre and at grazing angles.
#version 330 core
in vec2 v_xy;

uniform vec3 u_eye;
uniform vec2 u_centre;
uniform float u_height;
uniform float u_spacing;      // minor line spacing, metres
uniform float u_major_every;  // minor cells per major cell
uniform vec4 u_minor_color;
uniform vec4 u_major_color;
uniform vec4 u_x_color;
uniform vec4 u_y_color;
uniform vec2 u_fade;  // fade start and end distance from the centre

out vec4 frag_color;

// 1 on a line of the unit grid over `coord`, 0 away from it; width in pixels
float grid_lines(vec2 coord, float width) {
  vec2 d = max(fwidth(coord), vec2(1e-6));
  vec2 dist = abs(fract(coord - 0.5) - 0.5) / d;
  return 1.0 - clamp(min(dist.x, dist.y) - 0.5 * width + 0.5, 0.0, 1.0);
}

// 1 on the line t = 0
float axis_line(float t, float width) {
  float dist = abs(t) / max(fwidth(t), 1e-6);
  return 1.0 - clamp(dist - 0.5 * width + 0.5, 0.0, 1.0);
}

void main() {
  vec2 minor = v_xy / u_spacing;
  vec2 major = minor / u_major_every;
  float density = max(fwidth(minor).x, fwidth(minor).y);
  float f_minor = grid_lines(minor, 1.0) * (1.0 - smoothstep(0.1, 0.35, density));
  float f_major = grid_lines(major, 1.5);

  vec3 color = u_minor_color.rgb;
  float alpha = u_minor_color.a * f_minor;
  color = mix(color, u_major_color.rgb, f_major);
  alpha = max(alpha, u_major_color.a * f_major);
  float fx = axis_line(v_xy.y, 2.0) * u_x_color.a;
  color = mix(color, u_x_color.rgb, fx);
  alpha = max(alpha, fx);
  float fy = axis_line(v_xy.x, 2.0) * u_y_color.a;
  color = mix(color, u_y_color.rgb, fy);
  alpha = max(alpha, fy);

  alpha *= 1.0 - smoothstep(u_fade.x, u_fade.y, length(v_xy - u_centre));
  vec3 to_eye = normalize(u_eye - vec3(v_xy, u_height));
  alpha *= smoothstep(0.02, 0.25, abs(to_eye.z));
  if (alpha < 0.002) discard;
  frag_color = vec4(color, alpha);
}
