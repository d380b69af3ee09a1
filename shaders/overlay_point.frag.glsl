// Points: anti-aliased disc with a dark outline so points read on any background.
#version 330 core
in vec4 f_color;
noperspective in vec2 f_offset;
flat in float f_radius;

out vec4 frag_color;

void main() {
  float d = length(f_offset);
  float coverage = clamp(f_radius + 0.5 - d, 0.0, 1.0);
  if (coverage <= 0.0) discard;
  float outline = f_radius >= 3.0 ? clamp(d - (f_radius - 1.5), 0.0, 1.0) : 0.0;
  frag_color = vec4(mix(f_color.rgb, f_color.rgb * 0.3, outline), f_color.a * coverage);
}
