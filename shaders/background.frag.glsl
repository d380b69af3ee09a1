// Background: vertical gradient.
#version 330 core
in float v_t;

uniform vec3 u_top;
uniform vec3 u_bottom;

out vec4 frag_color;

void main() { frag_color = vec4(mix(u_bottom, u_top, clamp(v_t, 0.0, 1.0)), 1.0); }
