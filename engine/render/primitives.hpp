// Tessellation of primitive shapes into MeshData (positions, unit normals, indices; no colours).
// All shapes are closed, counter-clockwise seen from outside, centred at the origin, with URDF
// conventions: a box takes full extents, cylinders and capsules run along local z.
#pragma once

#include "engine/core/mesh.hpp"

namespace ikwb::render {

// box with flat faces (24 vertices), full extents sx, sy, sz
MeshData make_box(float sx, float sy, float sz);
// cylinder along z: smooth side, flat caps; length is the full height
MeshData make_cylinder(float radius, float length, int segments = 32);
// UV sphere: `rings` latitude bands, `segments` longitude segments
MeshData make_sphere(float radius, int segments = 32, int rings = 16);
// capsule along z: cylinder of `length` between the centres of two hemispheres of `radius`
// (total height length + 2 radius)
MeshData make_capsule(float radius, float length, int segments = 32, int rings = 16);
// cone along z with its base at z = 0 and its apex at z = height
MeshData make_cone(float radius, float height, int segments = 24);

// area-weighted smooth vertex normals from the triangles (replaces m.normals)
void compute_normals(MeshData& m);

// appends b to a (indices offset); colours are appended only when both have them
void append_mesh(MeshData& a, const MeshData& b);

}  // namespace ikwb::render
