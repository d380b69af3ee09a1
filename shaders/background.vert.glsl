// Background: one triangle covering the viewport (no vertex buffer: positions from gl_VertexID).
#version 330 core
out float v_t;  // 0 at the bottom edge, 1 at the top

void main() {
  vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID & 2) * 2 - 1));
  v_t = 0.5 * p.y + 0.5;
  gl_Position = vec4(p, 1.0, 1.0);
}
