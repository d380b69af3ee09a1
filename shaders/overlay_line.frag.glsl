// Thick lines: coverage from the distance to the centre line (one-pixel smooth edge).
#version 330 core
in vec4 f_color;
noperspective in float f_edge;
flat in float f_half_width;

out vec4 frag_color;

void main() {
  float coverage = clamp(f_half_width + 0.5 - abs(f_edge), 0.0, 1.0);
  if (coverage <= 0.0) discard;
  frag_color = vec4(f_color.rgb, f_color.a * coverage);
}
