// Robot meshes: hemispheric ambient (sky above, ground below) plus a Blinn-Phong headlight,
// two tint layers (user override, then highlight) and a rim term for hover / selection.
#version 330 core
in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;

uniform vec3 u_eye;        // camera position, world
uniform vec3 u_light_dir;  // unit, surface -> light, world
uniform vec3 u_sky;        // ambient from +z
uniform vec3 u_ground;     // ambient from -z
uniform float u_diffuse;
uniform float u_specular;
uniform float u_shininess;
uniform vec4 u_tint;       // rgb, mix amount
uniform vec4 u_highlight;  // rgb, mix amount (applied after u_tint)
uniform vec4 u_rim;        // rgb, strength
uniform float u_alpha;

out vec4 frag_color;

void main() {
  vec3 n = normalize(v_normal);
  vec3 v = normalize(u_eye - v_world);
  // double-sided: meshes from files are not always closed or consistently wound
  if (dot(n, v) < 0.0) n = -n;
  vec3 base = mix(v_color.rgb, u_tint.rgb, u_tint.a);
  base = mix(base, u_highlight.rgb, u_highlight.a);

  vec3 ambient = mix(u_ground, u_sky, 0.5 + 0.5 * n.z);
  float diffuse = max(dot(n, u_light_dir), 0.0);
  vec3 h = normalize(u_light_dir + v);
  float specular = pow(max(dot(n, h), 0.0), u_shininess) * u_specular;
  vec3 c = base * (ambient + u_diffuse * diffuse) + vec3(specular);

  float rim = pow(1.0 - max(dot(n, v), 0.0), 2.0);
  c += u_rim.rgb * (u_rim.a * rim);
  frag_color = vec4(c, v_color.a * u_alpha);
}
