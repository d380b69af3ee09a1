#!/usr/bin/env python3
"""Generates the robot library shipped with IK Workbench.

For each robot it writes assets/robots/<name>/<name>.urdf, assets/robots/<name>/meshes/ and
assets/robots/<name>/preset.json, then assets/robots/robots.json (the registry) and
assets/robots/README.md. Python 3 standard library only; the output is deterministic (run it
twice and the files are byte for byte the same).

    python3 tools/robots/generate.py            # writes into <repo>/assets/robots
    python3 tools/robots/generate.py --out DIR  # writes somewhere else
    python3 tools/robots/generate.py --check    # also runs check_urdf when it is installed

Every mesh is a simple shape of our own (capsules, rounded cylinders, rounded boxes, spheres),
never a vendor mesh. Each robot uses all three mesh formats users meet (binary or ASCII STL,
OBJ + MTL, COLLADA with Z_UP declared), URDF primitives, robot-level named materials and
inline colours. After writing, a self-check computes forward kinematics in Python and compares
it with the published numbers (see main()).

Where the numbers come from (all public, published facts; only numbers are used):

* panda: Franka Emika "Robot and interface specifications" of the Franka Control Interface
  documentation (frankaemika.github.io/docs/control_parameters.html): the Craig (modified) DH
  table a = [0, 0, 0, 0.0825, -0.0825, 0, 0.088], d = [0.333, 0, 0.316, 0, 0.384, 0, 0],
  alpha = [0, -pi/2, pi/2, pi/2, -pi/2, pi/2, pi/2], flange d = 0.107, and the joint limits
  (position, velocity 2.175/2.61 rad/s, torque 87/12 N m). Joint origins written the way
  franka_description/robots/panda_arm.xacro writes them (xyz = (a, -sin(alpha) d,
  cos(alpha) d), rpy = (alpha, 0, 0)); the hand at the flange with yaw -pi/4, the TCP
  0.1034 m along the hand z axis, fingers at 0.0584 m sliding 0..0.04 m (the second finger a
  mimic of the first), as in franka_description/robots/hand.xacro. Link masses approximate
  the franka_description inertials.
* ur5e: Universal Robots, "DH parameters for calculations of kinematics and dynamics"
  (universal-robots.com support article): UR5e d1 = 0.1625, a2 = -0.425, a3 = -0.3922,
  d4 = 0.1333, d5 = 0.0997, d6 = 0.0996, link masses 3.761, 8.058, 2.846, 1.37, 1.3, 0.365 kg.
  Frames arranged as Universal_Robots_ROS2_Description (ur_macro.xacro with
  config/ur5e/default_kinematics.yaml): base_link -> base_link_inertia rotated pi about z, a
  `base` frame (the controller's base) rotated pi about z, flange and tool0. Limits from its
  joint_limits.yaml: +-2 pi (elbow +-pi), pi rad/s, 150/150/150/28/28/28 N m.
* iiwa7: KUKA "LBR iiwa 7 R800" specification: 340 mm base to axis 2, 400 mm axis 2 to 4,
  400 mm axis 4 to 6, 126 mm axis 6 to flange; axis ranges +-170, +-120, +-170, +-120, +-170,
  +-120, +-175 deg; speeds 98, 98, 100, 130, 140, 180, 180 deg/s; torques 176, 176, 110, 110,
  110, 40, 40 N m. The split of those distances at the roll axes (0.15/0.19, 0.21/0.19,
  0.21/0.19, 0.081/0.045) and link masses follow the public iiwa_stack iiwa7 description.
  Axes here: A1, A3, A5, A7 about z, A2 and A6 about +y, A4 about -y (all frames aligned with
  the base at q = 0, the arm straight up).
* dual_arm: our own design: a pedestal, a torso yaw joint, two 7-DoF iiwa-like arms scaled
  down (0.10 / 0.32 / 0.30 / 0.10 m), mounted sideways at the shoulders.
* humanoid: our own design at H = 1.6 m with segment lengths from the Drillis & Contini
  anthropometric fractions of body height (Winter, "Biomechanics and Motor Control of Human
  Movement"): ankle height 0.039 H, knee 0.285 H, hip 0.530 H, shoulder 0.818 H, chin
  0.870 H, upper arm 0.186 H, forearm 0.146 H, hand 0.108 H, foot 0.152 H x 0.055 H, hip
  width 0.191 H; joint ranges from typical human ranges of motion, trimmed.
* quadruped: Unitree Go1 proportions from the public unitree_ros go1_description
  (const.xacro): leg offsets x 0.1881, y 0.04675, thigh offset 0.08, thigh 0.213, calf 0.213,
  foot radius 0.02; limits hip +-0.863, thigh -0.686..4.501, calf -2.818..-0.888 rad; masses
  trunk 5.204, hip 0.68, thigh 1.009, calf 0.196 kg.
* planar3: a textbook planar 3R arm (links 0.5, 0.4, 0.3 m, joints about z).
"""

import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

PI = math.pi
HALF_PI = math.pi / 2.0
FORMATS = ("stl", "obj", "dae")
MAX_TRIANGLES = 20000


def deg(x):
    return x * PI / 180.0


# ----------------------------------------------------------------------------- small math

def v_add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def v_sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def v_scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def v_dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def v_cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def v_norm(a):
    return math.sqrt(v_dot(a, a))


def v_unit(a):
    n = v_norm(a)
    return (a[0] / n, a[1] / n, a[2] / n)


def m_mul(A, B):
    return tuple(tuple(sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3))
                 for i in range(3))


def m_vec(A, v):
    return tuple(A[i][0] * v[0] + A[i][1] * v[1] + A[i][2] * v[2] for i in range(3))


def m_T(A):
    return tuple(tuple(A[j][i] for j in range(3)) for i in range(3))


IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return ((1.0, 0.0, 0.0), (0.0, c, -s), (0.0, s, c))


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return ((c, 0.0, s), (0.0, 1.0, 0.0), (-s, 0.0, c))


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return ((c, -s, 0.0), (s, c, 0.0), (0.0, 0.0, 1.0))


def rot_axis(axis, a):
    x, y, z = v_unit(axis)
    c, s = math.cos(a), math.sin(a)
    C = 1.0 - c
    return ((c + x * x * C, x * y * C - z * s, x * z * C + y * s),
            (y * x * C + z * s, c + y * y * C, y * z * C - x * s),
            (z * x * C - y * s, z * y * C + x * s, c + z * z * C))


def rpy_to_R(rpy):
    """URDF convention: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    return m_mul(rot_z(rpy[2]), m_mul(rot_y(rpy[1]), rot_x(rpy[0])))


def R_to_rpy(R):
    if abs(R[2][0]) < 1.0 - 1e-12:
        p = math.asin(-R[2][0])
        r = math.atan2(R[2][1], R[2][2])
        y = math.atan2(R[1][0], R[0][0])
    else:  # gimbal lock: pitch = +-pi/2
        p = -math.copysign(HALF_PI, R[2][0])
        r = 0.0
        y = math.atan2(-R[0][1], R[1][1])
    return (r, p, y)


def R_z_to(d):
    """A rotation whose z axis is direction d (deterministic choice of x)."""
    z = v_unit(d)
    a = (1.0, 0.0, 0.0) if abs(z[0]) < 0.9 else (0.0, 1.0, 0.0)
    x = v_unit(v_sub(a, v_scale(z, v_dot(a, z))))
    y = v_cross(z, x)
    return tuple(tuple(col[i] for col in (x, y, z)) for i in range(3))


class Tf:
    """Rigid transform: p_parent = R p_child + t."""

    def __init__(self, R=IDENTITY, t=(0.0, 0.0, 0.0)):
        self.R = R
        self.t = tuple(t)

    def __mul__(self, o):
        return Tf(m_mul(self.R, o.R), v_add(m_vec(self.R, o.t), self.t))

    def inv(self):
        Rt = m_T(self.R)
        return Tf(Rt, v_scale(m_vec(Rt, self.t), -1.0))

    def apply(self, p):
        return v_add(m_vec(self.R, p), self.t)

    @staticmethod
    def xyz_rpy(xyz, rpy):
        return Tf(rpy_to_R(rpy), xyz)


def max_abs_diff(A, B):
    d = max(abs(A.t[i] - B.t[i]) for i in range(3))
    d = max(d, max(abs(A.R[i][j] - B.R[i][j]) for i in range(3) for j in range(3)))
    return d


# ----------------------------------------------------------------------------- formatting

def fnum(x):
    """A number for URDF text: short where the value is short, full precision otherwise."""
    if abs(x) < 5e-13:
        return "0"
    r6 = round(x, 6)
    if abs(x - r6) < 1e-10:
        s = ("%.6f" % r6).rstrip("0").rstrip(".")
        return "0" if s in ("-0", "") else s
    return repr(float(x))


def fvec(v):
    return " ".join(fnum(x) for x in v)


def fsig(x):
    s = "%.6g" % x
    return "0" if s in ("-0", "0") or abs(x) < 1e-15 else s


def fmesh(x):
    s = "%.6f" % x
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


# ----------------------------------------------------------------------------- meshes

class Mesh:
    def __init__(self):
        self.v = []   # positions
        self.n = []   # unit vertex normals
        self.f = []   # triangles (index triples, counter-clockwise seen from outside)

    def tri_count(self):
        return len(self.f)

    def transformed(self, T):
        m = Mesh()
        m.v = [T.apply(p) for p in self.v]
        m.n = [m_vec(T.R, n) for n in self.n]
        m.f = list(self.f)
        return m

    def extend(self, o):
        base = len(self.v)
        self.v.extend(o.v)
        self.n.extend(o.n)
        self.f.extend((a + base, b + base, c + base) for a, b, c in o.f)

    def face_normal(self, t):
        a, b, c = (self.v[i] for i in t)
        return v_cross(v_sub(b, a), v_sub(c, a))

    def orient_outward(self):
        """Flips triangles whose winding disagrees with their vertex normals; returns flips."""
        flips = 0
        for k, t in enumerate(self.f):
            fn = self.face_normal(t)
            vn = v_add(v_add(self.n[t[0]], self.n[t[1]]), self.n[t[2]])
            if v_dot(fn, vn) < 0.0:
                self.f[k] = (t[0], t[2], t[1])
                flips += 1
        return flips

    def volume_props(self):
        """Volume, centroid and second-moment matrix (about the origin) of a closed mesh."""
        vol = 0.0
        c = [0.0, 0.0, 0.0]
        C = [[0.0] * 3 for _ in range(3)]
        for t in self.f:
            a, b, d = (self.v[i] for i in t)
            det = v_dot(a, v_cross(b, d))
            vol += det / 6.0
            s = v_add(v_add(a, b), d)
            for i in range(3):
                c[i] += det / 24.0 * s[i]
            for i in range(3):
                for j in range(3):
                    C[i][j] += det / 120.0 * (s[i] * s[j] + a[i] * a[j] + b[i] * b[j]
                                              + d[i] * d[j])
        return vol, c, C


def lathe(profile, segments):
    """Surface of revolution about z. profile: [(rho, z, n_rho, n_z)] from bottom to top;
    points with rho == 0 are poles (first and/or last only)."""
    m = Mesh()
    rows = []
    for rho, z, nr, nz in profile:
        if rho < 1e-12:
            m.v.append((0.0, 0.0, z))
            m.n.append(v_unit((0.0, 0.0, nz if nz != 0 else 1.0)))
            rows.append([len(m.v) - 1])
        else:
            row = []
            for j in range(segments):
                a = 2.0 * PI * j / segments
                ca, sa = math.cos(a), math.sin(a)
                m.v.append((rho * ca, rho * sa, z))
                m.n.append(v_unit((nr * ca, nr * sa, nz)))
                row.append(len(m.v) - 1)
            rows.append(row)
    for i in range(len(rows) - 1):
        lo, hi = rows[i], rows[i + 1]
        for j in range(segments):
            j1 = (j + 1) % segments
            if len(lo) == 1 and len(hi) == 1:
                continue
            if len(lo) == 1:
                m.f.append((lo[0], hi[j1], hi[j]))
            elif len(hi) == 1:
                m.f.append((lo[j], lo[j1], hi[0]))
            else:
                m.f.append((lo[j], lo[j1], hi[j1]))
                m.f.append((lo[j], hi[j1], hi[j]))
    return m


def mesh_capsule(length, r0, r1, segments, rings):
    """Tapered capsule along +z from 0 (radius r0) to length (radius r1), tangent-continuous."""
    if length < 1e-9:
        return mesh_sphere(max(r0, r1), segments, rings * 2)
    s = max(-0.95, min(0.95, (r0 - r1) / length))
    phi = math.asin(s)  # latitude of the tangent circles
    prof = []
    for k in range(rings + 1):
        a = -HALF_PI + (phi + HALF_PI) * k / rings
        prof.append((r0 * math.cos(a), r0 * math.sin(a), math.cos(a), math.sin(a)))
    for k in range(rings + 1):
        a = phi + (HALF_PI - phi) * k / rings
        prof.append((r1 * math.cos(a), length + r1 * math.sin(a), math.cos(a), math.sin(a)))
    return lathe(prof, segments)


def mesh_sphere(r, segments, rings):
    prof = []
    for k in range(rings + 1):
        a = -HALF_PI + PI * k / rings
        prof.append((r * math.cos(a), r * math.sin(a), math.cos(a), math.sin(a)))
    return lathe(prof, segments)


def mesh_rcyl(length, r, bevel, segments, bevel_steps=3):
    """Cylinder along +z from 0 to length with rounded (bevelled) rims."""
    b = min(bevel, r * 0.5, length * 0.45)
    prof = [(0.0, 0.0, 0.0, -1.0)]
    for k in range(bevel_steps + 1):
        a = -HALF_PI + HALF_PI * k / bevel_steps
        prof.append((r - b + b * math.cos(a), b + b * math.sin(a), math.cos(a), math.sin(a)))
    for k in range(bevel_steps + 1):
        a = HALF_PI * k / bevel_steps
        prof.append((r - b + b * math.cos(a), length - b + b * math.sin(a), math.cos(a),
                     math.sin(a)))
    prof.append((0.0, length, 0.0, 1.0))
    return lathe(prof, segments)


def mesh_cylinder(length, r, segments):
    """Plain cylinder centred at the origin along z (sharp rims)."""
    h = length / 2.0
    prof = [(0.0, -h, 0.0, -1.0), (r, -h, 0.0, -1.0), (r, -h, 1.0, 0.0), (r, h, 1.0, 0.0),
            (r, h, 0.0, 1.0), (0.0, h, 0.0, 1.0)]
    m = lathe(prof, segments)
    # the two rim rings at the same place close the surface; drop the zero-area bands
    m.f = [t for t in m.f if v_norm(m.face_normal(t)) > 1e-14]
    return m


def mesh_rbox(size, radius, steps=2):
    """Box of full extents `size`, centred, edges and corners rounded with `radius`."""
    r = min(radius, 0.5 * min(size) - 1e-4)
    inner = [0.5 * s - r for s in size]
    coords = [(-1, -1.0 + k / steps) for k in range(steps + 1)] + \
             [(1, k / steps) for k in range(steps + 1)]
    m = Mesh()
    index = {}

    def vert(p, n):
        key = tuple(round(x, 9) for x in p) + tuple(round(x, 6) for x in n)
        if key not in index:
            m.v.append(p)
            m.n.append(n)
            index[key] = len(m.v) - 1
        return index[key]

    for axis in range(3):
        u, w = (axis + 1) % 3, (axis + 2) % 3
        for sgn in (-1.0, 1.0):
            grid = []
            for su, tu in coords:
                row = []
                for sw, tw in coords:
                    d = [0.0, 0.0, 0.0]
                    d[axis] = sgn
                    d[u] = math.tan(tu * PI / 4.0)
                    d[w] = math.tan(tw * PI / 4.0)
                    n = v_unit(d)
                    c = [0.0, 0.0, 0.0]
                    c[axis] = sgn * inner[axis]
                    c[u] = su * inner[u]
                    c[w] = sw * inner[w]
                    row.append(vert(v_add(c, v_scale(n, r)), n))
                grid.append(row)
            for i in range(len(coords) - 1):
                for j in range(len(coords) - 1):
                    a, b, c2, d2 = grid[i][j], grid[i + 1][j], grid[i + 1][j + 1], grid[i][j + 1]
                    m.f.append((a, b, c2))
                    m.f.append((a, c2, d2))
    m.f = [t for t in m.f if len(set(t)) == 3 and v_norm(m.face_normal(t)) > 1e-14]
    m.orient_outward()
    return m


def mesh_box(size):
    return mesh_rbox(size, 1e-5, steps=1)


# ----------------------------------------------------------------------------- robot model

class Robot:
    def __init__(self, name, title, description):
        self.name = name
        self.title = title
        self.description = description
        self.links = []          # names in order
        self.mass = {}
        self.joints = []         # dicts
        self.shapes = []         # dicts
        self.palette = {}        # colour name -> rgba
        self.mesh_ref = "relative"   # or "package"
        self.ascii_stl = False
        self.segments = 24
        self.rings = 5
        self.floating_base = False
        self.end_effectors = []
        self.default = False
        self.rest = {}
        self.objectives = []
        # (link1, link2, why) pairs that self_collision skips: written to <name>.srdf and named
        # by the preset's "srdf" key
        self.disabled_pairs = []
        self.source = ""
        self.format_offset = 0

    # -- structure
    def link(self, name, mass=None):
        assert name not in self.mass, name
        self.links.append(name)
        self.mass[name] = mass
        return name

    def joint(self, name, jtype, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0), axis=(0, 0, 1),
              lower=None, upper=None, velocity=None, effort=None, mimic=None):
        assert parent in self.mass and child in self.mass, (name, parent, child)
        self.joints.append(dict(name=name, type=jtype, parent=parent, child=child,
                                xyz=tuple(float(x) for x in xyz),
                                rpy=tuple(float(x) for x in rpy), axis=tuple(axis),
                                lower=lower, upper=upper, velocity=velocity, effort=effort,
                                mimic=mimic))

    def fixed(self, name, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0)):
        self.joint(name, "fixed", parent, child, xyz, rpy)

    def movable(self):
        return [j for j in self.joints if j["type"] != "fixed" and not j["mimic"]]

    # -- geometry (points are given in `frame`, a link, at the zero configuration;
    #    frame None = the root link's frame)
    def _shape(self, kind, link, color, frame, collision, visual=True, **kw):
        assert link in self.mass, link
        assert color in self.palette or not visual, color
        self.shapes.append(dict(kind=kind, link=link, color=color, frame=frame,
                                collision=collision, visual=visual, **kw))

    def cap(self, link, p0, p1, r0, r1=None, color="", frame=None, collision=True):
        self._shape("capsule", link, color, frame, collision, p0=p0, p1=p1, r0=r0,
                    r1=r0 if r1 is None else r1)

    def collision_cap(self, link, p0, p1, r, frame=None):
        """A capsule in <collision> only (a cylinder and its two end spheres): no visual, no
        volume in the link's mass properties."""
        self._shape("capsule", link, "", frame, True, visual=False, p0=p0, p1=p1, r0=r, r1=r)

    def rcyl(self, link, p0, p1, r, bevel=0.01, color="", frame=None, collision=True):
        self._shape("rcyl", link, color, frame, collision, p0=p0, p1=p1, r=r, bevel=bevel)

    def rbox(self, link, center, size, radius, color="", rpy=(0, 0, 0), frame=None,
             collision=True):
        self._shape("rbox", link, color, frame, collision, center=center, size=size,
                    radius=radius, rpy=rpy)

    def sphere(self, link, center, r, color="", frame=None, collision=True):
        self._shape("sphere", link, color, frame, collision, center=center, r=r)

    # URDF primitives (written as <box>, <cylinder>, <sphere> visuals with inline colours)
    def pbox(self, link, center, size, color="", rpy=(0, 0, 0), frame=None, collision=True):
        self._shape("box", link, color, frame, collision, center=center, size=size, rpy=rpy)

    def pcyl(self, link, p0, p1, r, color="", frame=None, collision=True):
        self._shape("cylinder", link, color, frame, collision, p0=p0, p1=p1, r=r)

    def psphere(self, link, center, r, color="", frame=None, collision=True):
        self._shape("psphere", link, color, frame, collision, center=center, r=r)

    # -- kinematics
    def fk(self, q=None):
        """World (root) transform of every link; q: joint name -> value (missing = 0)."""
        q = dict(q or {})
        X = {self.links[0]: Tf()}
        byname = {j["name"]: j for j in self.joints}
        pending = list(self.joints)
        while pending:
            rest = []
            for j in pending:
                if j["parent"] not in X:
                    rest.append(j)
                    continue
                val = q.get(j["name"], 0.0)
                if j["mimic"]:
                    m = j["mimic"]
                    val = m.get("multiplier", 1.0) * q.get(m["joint"], 0.0) + m.get("offset", 0.0)
                T = Tf.xyz_rpy(j["xyz"], j["rpy"])
                if j["type"] in ("revolute", "continuous"):
                    T = T * Tf(rot_axis(j["axis"], val))
                elif j["type"] == "prismatic":
                    T = T * Tf(IDENTITY, v_scale(v_unit(j["axis"]), val))
                X[j["child"]] = X[j["parent"]] * T
            assert len(rest) < len(pending), "joint tree is disconnected"
            pending = rest
        return X


# ----------------------------------------------------------------------------- shape -> mesh

def shape_local(shape, segments, rings):
    """(mesh in the shape's own frame, transform shape frame -> spec frame, primitive info)."""
    k = shape["kind"]
    if k in ("capsule", "rcyl", "cylinder"):
        p0, p1 = shape["p0"], shape["p1"]
        d = v_sub(p1, p0)
        L = v_norm(d)
        R = R_z_to(d) if L > 1e-12 else IDENTITY
        if k == "capsule":
            return mesh_capsule(L, shape["r0"], shape["r1"], segments, rings), Tf(R, p0)
        if k == "rcyl":
            return mesh_rcyl(L, shape["r"], shape["bevel"], segments), Tf(R, p0)
        mid = v_scale(v_add(p0, p1), 0.5)
        return mesh_cylinder(L, shape["r"], segments), Tf(R, mid)
    if k == "rbox":
        return mesh_rbox(shape["size"], shape["radius"]), Tf(rpy_to_R(shape["rpy"]),
                                                              shape["center"])
    if k == "box":
        return mesh_box(shape["size"]), Tf(rpy_to_R(shape["rpy"]), shape["center"])
    if k in ("sphere", "psphere"):
        return mesh_sphere(shape["r"], segments, 2 * rings), Tf(IDENTITY, shape["center"])
    raise ValueError(k)


PRIMITIVE_KINDS = ("box", "cylinder", "psphere")


def build_link_geometry(robot):
    """Per link: visual mesh parts (colour -> Mesh, link frame), primitive visuals, collision
    primitives, mass properties."""
    X0 = robot.fk()
    root = robot.links[0]
    geo = {ln: dict(parts={}, prims=[], collisions=[], volume_meshes=[]) for ln in robot.links}
    for s in robot.shapes:
        frame = s["frame"] or root
        T_link_from_shape_frame = X0[s["link"]].inv() * X0[frame]
        g = geo[s["link"]]
        if not s["visual"]:
            g["collisions"].extend(collision_prims(s, T_link_from_shape_frame))
            continue
        mesh, T_local = shape_local(s, robot.segments, robot.rings)
        T = T_link_from_shape_frame * T_local
        m = mesh.transformed(T)
        flips = m.orient_outward()
        assert flips == 0, (robot.name, s["link"], s["kind"], flips)
        g["volume_meshes"].append(m)
        k = s["kind"]
        if k in PRIMITIVE_KINDS:
            g["prims"].append((s, T))
        else:
            g["parts"].setdefault(s["color"], Mesh()).extend(m)
        if s["collision"]:
            g["collisions"].extend(collision_prims(s, T_link_from_shape_frame))
    for ln in robot.links:
        g = geo[ln]
        g["inertial"] = mass_props(robot.mass[ln], g["volume_meshes"])
    return geo


def collision_prims(s, T):
    """Simple collision primitives for a shape: (kind, Tf in link frame, dims)."""
    k = s["kind"]
    out = []
    if k in ("capsule", "rcyl", "cylinder"):
        p0, p1 = s["p0"], s["p1"]
        d = v_sub(p1, p0)
        L = v_norm(d)
        mid = v_scale(v_add(p0, p1), 0.5)
        if k == "capsule":
            if L > 1e-6:
                out.append(("cylinder", T * Tf(R_z_to(d), mid), (max(s["r0"], s["r1"]), L)))
            out.append(("sphere", T * Tf(IDENTITY, p0), (s["r0"],)))
            if L > 1e-6:
                out.append(("sphere", T * Tf(IDENTITY, p1), (s["r1"],)))
        else:
            out.append(("cylinder", T * Tf(R_z_to(d), mid), (s["r"], L)))
    elif k in ("rbox", "box"):
        out.append(("box", T * Tf(rpy_to_R(s["rpy"]), s["center"]), tuple(s["size"])))
    else:
        out.append(("sphere", T * Tf(IDENTITY, s["center"]), (s["r"],)))
    return out


def mass_props(mass, meshes):
    """(mass, com, inertia about com 3x3) or None; uniform density over the link's shapes."""
    if not mass:
        return None
    if not meshes:
        r = 0.03
        I = 0.4 * mass * r * r
        return mass, (0.0, 0.0, 0.0), ((I, 0, 0), (0, I, 0), (0, 0, I))
    vol, c, C = 0.0, [0.0] * 3, [[0.0] * 3 for _ in range(3)]
    for m in meshes:
        v, ci, Ci = m.volume_props()
        vol += v
        for i in range(3):
            c[i] += ci[i]
            for j in range(3):
                C[i][j] += Ci[i][j]
    rho = mass / vol
    com = tuple(ci / vol for ci in c)
    Cc = [[rho * C[i][j] - mass * com[i] * com[j] for j in range(3)] for i in range(3)]
    tr = Cc[0][0] + Cc[1][1] + Cc[2][2]
    I = tuple(tuple((tr if i == j else 0.0) - Cc[i][j] for j in range(3)) for i in range(3))
    return mass, com, I


# ----------------------------------------------------------------------------- mesh writers

def write_stl(path, mesh, name, ascii_stl):
    if ascii_stl:
        lines = ["solid %s" % name]
        for t in mesh.f:
            n = mesh.face_normal(t)
            n = v_unit(n) if v_norm(n) > 0 else (0.0, 0.0, 1.0)
            lines.append("  facet normal %s %s %s" % tuple(fmesh(x) for x in n))
            lines.append("    outer loop")
            for i in t:
                lines.append("      vertex %s %s %s" % tuple(fmesh(x) for x in mesh.v[i]))
            lines.append("    endloop")
            lines.append("  endfacet")
        lines.append("endsolid %s" % name)
        with open(path, "w", newline="\n") as fh:
            fh.write("\n".join(lines) + "\n")
        return
    header = ("IK Workbench generated mesh: " + name).encode("ascii")[:80].ljust(80, b" ")
    out = [header, struct.pack("<I", len(mesh.f))]
    for t in mesh.f:
        n = mesh.face_normal(t)
        n = v_unit(n) if v_norm(n) > 0 else (0.0, 0.0, 1.0)
        vals = list(n)
        for i in t:
            vals.extend(mesh.v[i])
        out.append(struct.pack("<12fH", *(vals + [0])))
    with open(path, "wb") as fh:
        fh.write(b"".join(out))


def write_obj(path, parts, palette, name):
    """parts: [(colour name, Mesh)]; writes <name>.obj and <name>.mtl next to it."""
    mtl_name = os.path.splitext(os.path.basename(path))[0] + ".mtl"
    lines = ["# IK Workbench generated mesh: %s (metres, Z up)" % name, "mtllib " + mtl_name]
    base = 1
    for k, (color, m) in enumerate(parts):
        lines.append("o %s_%d" % (name, k))
        lines.extend("v %s %s %s" % tuple(fmesh(x) for x in p) for p in m.v)
        lines.extend("vn %s %s %s" % tuple(fmesh(x) for x in n) for n in m.n)
        lines.append("usemtl " + color)
        lines.append("s 1")
        for t in m.f:
            a, b, c = (i + base for i in t)
            lines.append("f %d//%d %d//%d %d//%d" % (a, a, b, b, c, c))
        base += len(m.v)
    with open(path, "w", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")
    mtl = ["# IK Workbench generated materials"]
    for color, _ in parts:
        r, g, b, a = palette[color]
        mtl += ["newmtl " + color, "Ka %s %s %s" % (fmesh(0.2 * r), fmesh(0.2 * g), fmesh(0.2 * b)),
                "Kd %s %s %s" % (fmesh(r), fmesh(g), fmesh(b)), "Ks 0.25 0.25 0.25", "Ns 32",
                "d %s" % fmesh(a), "illum 2", ""]
    with open(os.path.join(os.path.dirname(path), mtl_name), "w", newline="\n") as fh:
        fh.write("\n".join(mtl))


def write_dae(path, parts, palette, name):
    """COLLADA 1.4.1, metres, Z_UP, one geometry per colour with its own material."""
    L = ['<?xml version="1.0" encoding="utf-8"?>',
         '<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">',
         '  <asset>',
         '    <contributor><authoring_tool>IK Workbench tools/robots/generate.py'
         '</authoring_tool></contributor>',
         '    <created>2024-01-01T00:00:00Z</created>',
         '    <modified>2024-01-01T00:00:00Z</modified>',
         '    <unit name="meter" meter="1"/>',
         '    <up_axis>Z_UP</up_axis>',
         '  </asset>',
         '  <library_effects>']
    for color, _ in parts:
        r, g, b, a = palette[color]
        L += ['    <effect id="%s-effect">' % color,
              '      <profile_COMMON>',
              '        <technique sid="common">',
              '          <phong>',
              '            <ambient><color sid="ambient">%s %s %s 1</color></ambient>'
              % (fmesh(0.2 * r), fmesh(0.2 * g), fmesh(0.2 * b)),
              '            <diffuse><color sid="diffuse">%s %s %s %s</color></diffuse>'
              % (fmesh(r), fmesh(g), fmesh(b), fmesh(a)),
              '            <specular><color sid="specular">0.25 0.25 0.25 1</color></specular>',
              '            <shininess><float sid="shininess">32</float></shininess>',
              '          </phong>',
              '        </technique>',
              '      </profile_COMMON>',
              '    </effect>']
    L.append('  </library_effects>')
    L.append('  <library_materials>')
    for color, _ in parts:
        L.append('    <material id="%s-material" name="%s"><instance_effect url="#%s-effect"/>'
                 '</material>' % (color, color, color))
    L.append('  </library_materials>')
    L.append('  <library_geometries>')
    for k, (color, m) in enumerate(parts):
        gid = "%s_%d" % (name, k)
        pos = " ".join(fmesh(x) for p in m.v for x in p)
        nor = " ".join(fmesh(x) for n in m.n for x in n)
        idx = " ".join(str(i) for t in m.f for i in t)
        L += ['    <geometry id="%s-mesh" name="%s">' % (gid, gid),
              '      <mesh>',
              '        <source id="%s-positions">' % gid,
              '          <float_array id="%s-positions-array" count="%d">%s</float_array>'
              % (gid, 3 * len(m.v), pos),
              '          <technique_common><accessor source="#%s-positions-array" count="%d" '
              'stride="3"><param name="X" type="float"/><param name="Y" type="float"/>'
              '<param name="Z" type="float"/></accessor></technique_common>' % (gid, len(m.v)),
              '        </source>',
              '        <source id="%s-normals">' % gid,
              '          <float_array id="%s-normals-array" count="%d">%s</float_array>'
              % (gid, 3 * len(m.n), nor),
              '          <technique_common><accessor source="#%s-normals-array" count="%d" '
              'stride="3"><param name="X" type="float"/><param name="Y" type="float"/>'
              '<param name="Z" type="float"/></accessor></technique_common>' % (gid, len(m.n)),
              '        </source>',
              '        <vertices id="%s-vertices"><input semantic="POSITION" '
              'source="#%s-positions"/></vertices>' % (gid, gid),
              '        <triangles material="%s-sym" count="%d">' % (color, len(m.f)),
              '          <input semantic="VERTEX" source="#%s-vertices" offset="0"/>' % gid,
              '          <input semantic="NORMAL" source="#%s-normals" offset="0"/>' % gid,
              '          <p>%s</p>' % idx,
              '        </triangles>',
              '      </mesh>',
              '    </geometry>']
    L.append('  </library_geometries>')
    L.append('  <library_visual_scenes>')
    L.append('    <visual_scene id="Scene" name="Scene">')
    L.append('      <node id="%s" name="%s" type="NODE">' % (name, name))
    for k, (color, m) in enumerate(parts):
        gid = "%s_%d" % (name, k)
        L += ['        <instance_geometry url="#%s-mesh" name="%s">' % (gid, gid),
              '          <bind_material><technique_common><instance_material symbol="%s-sym" '
              'target="#%s-material"/></technique_common></bind_material>' % (color, color),
              '        </instance_geometry>']
    L += ['      </node>', '    </visual_scene>', '  </library_visual_scenes>',
          '  <scene><instance_visual_scene url="#Scene"/></scene>', '</COLLADA>']
    with open(path, "w", newline="\n") as fh:
        fh.write("\n".join(L) + "\n")


# ----------------------------------------------------------------------------- URDF writer

def rgba_text(c):
    return " ".join(fmesh(x) for x in c)


def origin_text(T):
    return '<origin xyz="%s" rpy="%s"/>' % (fvec(T.t), fvec(R_to_rpy(T.R)))


def write_robot(robot, out_dir):
    """Writes the URDF and meshes; returns statistics."""
    rdir = os.path.join(out_dir, robot.name)
    mdir = os.path.join(rdir, "meshes")
    if os.path.isdir(mdir):
        shutil.rmtree(mdir)  # only our own generated folder: no stale meshes
    os.makedirs(mdir)
    geo = build_link_geometry(robot)

    mesh_links = [ln for ln in robot.links if geo[ln]["parts"]]
    # single-colour links cycle through STL, OBJ, COLLADA; links of several colours use OBJ or
    # COLLADA (an STL file has no colours, its URDF material would paint the whole link)
    fmt_of = {}
    n_single, n_multi = robot.format_offset, 0
    for ln in mesh_links:
        if len(geo[ln]["parts"]) > 1:
            fmt_of[ln] = ("dae", "obj")[n_multi % 2]
            n_multi += 1
        else:
            fmt_of[ln] = FORMATS[n_single % 3]
            n_single += 1
    tri_total = 0
    per_format = {f: 0 for f in FORMATS}
    top_materials = []
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             '<!-- Generated by tools/robots/generate.py; do not edit by hand. -->',
             '<!-- %s -->' % robot.source.replace("--", "-"),
             '<robot name="%s">' % robot.name]
    for ln in mesh_links:
        for color in geo[ln]["parts"]:
            if fmt_of[ln] != "dae" and color not in top_materials:
                top_materials.append(color)
    for color in sorted(top_materials):
        lines.append('  <material name="%s"><color rgba="%s"/></material>'
                     % (color, rgba_text(robot.palette[color])))

    for ln in robot.links:
        g = geo[ln]
        lines.append('  <link name="%s">' % ln)
        inert = g["inertial"]
        if inert:
            mass, com, I = inert
            lines.append('    <inertial>')
            lines.append('      <origin xyz="%s" rpy="0 0 0"/>' % " ".join(fsig(x) for x in com))
            lines.append('      <mass value="%s"/>' % fsig(mass))
            lines.append('      <inertia ixx="%s" ixy="%s" ixz="%s" iyy="%s" iyz="%s" izz="%s"/>'
                         % tuple(fsig(x) for x in (I[0][0], I[0][1], I[0][2], I[1][1], I[1][2],
                                                   I[2][2])))
            lines.append('    </inertial>')
        if g["parts"]:
            fmt = fmt_of[ln]
            parts = list(g["parts"].items())
            fname = "%s.%s" % (ln, fmt)
            path = os.path.join(mdir, fname)
            if fmt == "stl":
                merged = Mesh()
                for _, m in parts:
                    merged.extend(m)
                write_stl(path, merged, ln, robot.ascii_stl)
            elif fmt == "obj":
                write_obj(path, parts, robot.palette, ln)
            else:
                write_dae(path, parts, robot.palette, ln)
            tris = sum(m.tri_count() for _, m in parts)
            tri_total += tris
            per_format[fmt] += 1
            uri = ("package://%s/meshes/%s" % (robot.name, fname) if robot.mesh_ref == "package"
                   else "meshes/%s" % fname)
            lines.append('    <visual>')
            lines.append('      <origin xyz="0 0 0" rpy="0 0 0"/>')
            lines.append('      <geometry><mesh filename="%s"/></geometry>' % uri)
            if fmt != "dae":  # COLLADA files carry their own colours
                lines.append('      <material name="%s"/>' % parts[0][0])
            lines.append('    </visual>')
        for s, T in g["prims"]:
            k = s["kind"]
            if k == "box":
                gx = '<box size="%s"/>' % fvec(s["size"])
            elif k == "cylinder":
                gx = '<cylinder radius="%s" length="%s"/>' % (fnum(s["r"]),
                                                              fnum(v_norm(v_sub(s["p1"], s["p0"]))))
            else:
                gx = '<sphere radius="%s"/>' % fnum(s["r"])
            lines.append('    <visual>')
            lines.append('      ' + origin_text(T))
            lines.append('      <geometry>%s</geometry>' % gx)
            lines.append('      <material name="%s"><color rgba="%s"/></material>'
                         % (s["color"], rgba_text(robot.palette[s["color"]])))
            lines.append('    </visual>')
        for kind, T, dims in g["collisions"]:
            if kind == "box":
                gx = '<box size="%s"/>' % fvec(dims)
            elif kind == "cylinder":
                gx = '<cylinder radius="%s" length="%s"/>' % (fnum(dims[0]), fnum(dims[1]))
            else:
                gx = '<sphere radius="%s"/>' % fnum(dims[0])
            lines.append('    <collision>')
            lines.append('      ' + origin_text(T))
            lines.append('      <geometry>%s</geometry>' % gx)
            lines.append('    </collision>')
        lines.append('  </link>')

    for j in robot.joints:
        lines.append('  <joint name="%s" type="%s">' % (j["name"], j["type"]))
        lines.append('    <parent link="%s"/>' % j["parent"])
        lines.append('    <child link="%s"/>' % j["child"])
        lines.append('    <origin xyz="%s" rpy="%s"/>' % (fvec(j["xyz"]), fvec(j["rpy"])))
        if j["type"] != "fixed":
            lines.append('    <axis xyz="%s"/>' % fvec(j["axis"]))
        if j["type"] in ("revolute", "prismatic"):
            lines.append('    <limit lower="%s" upper="%s" velocity="%s" effort="%s"/>'
                         % (fnum(j["lower"]), fnum(j["upper"]), fnum(j["velocity"]),
                            fnum(j["effort"])))
        elif j["type"] == "continuous" and j["velocity"] is not None:
            lines.append('    <limit velocity="%s" effort="%s"/>' % (fnum(j["velocity"]),
                                                                     fnum(j["effort"])))
        if j["mimic"]:
            m = j["mimic"]
            lines.append('    <mimic joint="%s" multiplier="%s" offset="%s"/>'
                         % (m["joint"], fnum(m.get("multiplier", 1.0)), fnum(m.get("offset", 0.0))))
        lines.append('  </joint>')
    lines.append('</robot>')
    urdf_path = os.path.join(rdir, robot.name + ".urdf")
    with open(urdf_path, "w", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")

    # primitives are not meshes the loader reads, but count them for the renderer budget
    prim_tris = 0
    for ln in robot.links:
        for s, _ in geo[ln]["prims"]:
            prim_tris += shape_local(s, robot.segments, robot.rings)[0].tri_count()
    return dict(mesh_triangles=tri_total, primitive_triangles_estimate=prim_tris,
                per_format=per_format, mesh_links=len(mesh_links), geo=geo)


def write_preset(robot, out_dir):
    preset = {
        "version": 1,
        "robot": robot.name + ".urdf",
        "floating_base": robot.floating_base,
        "rest": {j["name"]: round(robot.rest.get(j["name"], 0.0), 6) + 0.0
                 for j in robot.movable()},
        "objectives": robot.objectives,
        "solver": {"n_seeds": 16, "sampler": "roberts", "iterations": 20},
    }
    if robot.disabled_pairs:
        preset["srdf"] = robot.name + ".srdf"
        write_srdf(robot, os.path.join(out_dir, robot.name, robot.name + ".srdf"))
    with open(os.path.join(out_dir, robot.name, "preset.json"), "w", newline="\n") as fh:
        fh.write(to_json(preset) + "\n")


def write_srdf(robot, path):
    links = set(robot.links)
    lines = ['<?xml version="1.0"?>',
             "<!-- Generated by tools/robots/generate.py: link pairs the self_collision objective",
             "     skips. Their fitted capsules overlap (or come within the 1 cm margin) at the",
             "     preset's rest posture although the links are only joined through small",
             "     intermediate links (a shoulder, a wrist, a hip); see docs/collision.md. -->",
             '<robot name="%s">' % robot.name]
    for a, b, why in robot.disabled_pairs:
        assert a in links and b in links, (robot.name, a, b)
        lines.append('  <disable_collisions link1="%s" link2="%s" reason="%s"/>' % (a, b, why))
    lines.append("</robot>")
    with open(path, "w", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")


def obj_self_collision(margin=0.01, weight=10.0):
    # soft with a high weight: the preset's robot keeps out of itself (margin in m). Hard, every
    # interactive frame runs the augmented-Lagrangian loop to its limit (the preset test's 200
    # frames on every robot took 25 s instead of 0.7 s); the panel switches it to hard.
    return {"type": "self_collision", "name": "self collision", "margin": margin,
            "weight": weight, "hard": False}

def to_json(obj, indent=0):
    """JSON text with two-space indentation; lists of numbers or strings stay on one line."""
    pad, pad1 = "  " * indent, "  " * (indent + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = ["%s%s: %s" % (pad1, json.dumps(k), to_json(v, indent + 1)) for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(x, (dict, list)) for x in obj):
            return "[" + ", ".join(json.dumps(x) for x in obj) + "]"
        return "[\n" + ",\n".join(pad1 + to_json(x, indent + 1) for x in obj) + "\n" + pad + "]"
    return json.dumps(obj)


def obj_pose(name, link, offset=(0, 0, 0), weight=1.0, hard=False, kind="pose"):
    return {"type": kind, "name": name, "link": link, "offset": [float(x) for x in offset],
            "weight": weight, "hard": hard, "target": "current"}


def obj_posture(weight=0.01, null_space=False):
    # arms pull toward their rest posture in the task's null space (never fighting the task,
    # so a reached target converges exactly); legged robots keep it as a soft cost term
    o = {"type": "posture", "name": "posture", "weight": weight, "hard": False}
    if null_space:
        o["null_space"] = True
    return o


def obj_limits(weight=1.0):
    return {"type": "joint_limits", "name": "joint limits", "weight": weight, "hard": False}


# ----------------------------------------------------------------------------- the robots

def make_panda():
    r = Robot("panda", "Franka Emika Panda",
              "7-DoF Franka Emika Panda arm with its hand (two mimic-coupled fingers)")
    r.source = ("Franka Emika Panda: modified DH table and joint limits from the Franka "
                "Control Interface documentation; frames as franka_description")
    r.mesh_ref = "package"
    r.default = True
    r.segments = 28
    r.palette = {"panda_white": (0.93, 0.93, 0.92, 1.0), "panda_black": (0.16, 0.16, 0.17, 1.0),
                 "panda_grey": (0.55, 0.56, 0.58, 1.0),
                 "finger_grey": (0.3, 0.3, 0.32, 1.0), "flange_silver": (0.75, 0.76, 0.78, 1.0)}
    masses = [3.06, 2.74, 2.74, 2.38, 2.38, 2.74, 1.55, 0.54]
    for i in range(9):
        r.link("panda_link%d" % i, masses[i] if i < 8 else None)
    # modified DH (Craig): T_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)
    a = [0.0, 0.0, 0.0, 0.0825, -0.0825, 0.0, 0.088]
    d = [0.333, 0.0, 0.316, 0.0, 0.384, 0.0, 0.0]
    alpha = [0.0, -HALF_PI, HALF_PI, HALF_PI, -HALF_PI, HALF_PI, HALF_PI]
    lower = [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973]
    upper = [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973]
    vel = [2.1750, 2.1750, 2.1750, 2.1750, 2.6100, 2.6100, 2.6100]
    eff = [87.0, 87.0, 87.0, 87.0, 12.0, 12.0, 12.0]
    for i in range(7):
        xyz = (a[i], -math.sin(alpha[i]) * d[i], math.cos(alpha[i]) * d[i])
        xyz = tuple(0.0 if abs(x) < 1e-12 else round(x, 12) for x in xyz)
        r.joint("panda_joint%d" % (i + 1), "revolute", "panda_link%d" % i, "panda_link%d" % (i + 1),
                xyz, (alpha[i], 0, 0), (0, 0, 1), lower[i], upper[i], vel[i], eff[i])
    r.fixed("panda_joint8", "panda_link7", "panda_link8", (0, 0, 0.107))
    r.link("panda_hand", 0.73)
    r.link("panda_hand_tcp")
    r.link("panda_leftfinger", 0.015)
    r.link("panda_rightfinger", 0.015)
    r.fixed("panda_hand_joint", "panda_link8", "panda_hand", (0, 0, 0), (0, 0, -PI / 4))
    r.fixed("panda_hand_tcp_joint", "panda_hand", "panda_hand_tcp", (0, 0, 0.1034))
    r.joint("panda_finger_joint1", "prismatic", "panda_hand", "panda_leftfinger", (0, 0, 0.0584),
            (0, 0, 0), (0, 1, 0), 0.0, 0.04, 0.2, 100.0)
    r.joint("panda_finger_joint2", "prismatic", "panda_hand", "panda_rightfinger",
            (0, 0, 0.0584), (0, 0, 0), (0, -1, 0), 0.0, 0.04, 0.2, 100.0,
            mimic={"joint": "panda_finger_joint1", "multiplier": 1.0, "offset": 0.0})
    W, K, G = "panda_white", "panda_black", "panda_grey"
    # geometry in the base frame at q = 0 (the arm straight up: shoulder 0.333, elbow 0.649,
    # wrist 1.033, flange 0.926 pointing down at x = 0.088)
    r.rbox("panda_link0", (-0.045, 0, 0.03), (0.27, 0.2, 0.06), 0.025, G)
    r.rcyl("panda_link0", (0, 0, 0), (0, 0, 0.14), 0.075, 0.015, W)
    r.cap("panda_link1", (0, 0, 0.15), (0, 0, 0.333), 0.066, 0.064, W)
    r.rcyl("panda_link2", (0, -0.07, 0.333), (0, 0.07, 0.333), 0.066, 0.02, W)
    r.cap("panda_link2", (0, 0, 0.333), (0, 0, 0.49), 0.064, 0.062, W)
    r.cap("panda_link3", (0, 0, 0.51), (0, 0, 0.649), 0.062, 0.06, W)
    r.cap("panda_link3", (0, 0, 0.649), (0.0825, 0, 0.649), 0.06, 0.058, W)
    r.rcyl("panda_link4", (0.0825, 0.065, 0.649), (0.0825, -0.065, 0.649), 0.06, 0.02, W)
    r.cap("panda_link4", (0.0825, 0, 0.649), (0.0825, 0, 0.7), 0.058, 0.056, W)
    r.cap("panda_link4", (0.0825, 0, 0.7), (0.0, 0, 0.755), 0.056, 0.055, W)
    r.cap("panda_link5", (0, 0, 0.77), (0, 0, 0.985), 0.056, 0.05, W)
    r.cap("panda_link5", (0, 0, 0.985), (0, 0, 1.033), 0.05, 0.05, W, collision=False)
    r.rcyl("panda_link6", (0, 0.06, 1.033), (0, -0.06, 1.033), 0.052, 0.018, K)
    r.cap("panda_link6", (0, 0, 1.033), (0.088, 0, 1.033), 0.046, 0.045, W)
    r.rcyl("panda_link7", (0.088, 0, 1.075), (0.088, 0, 0.936), 0.046, 0.015, K)
    r.pcyl("panda_link8", (0.088, 0, 0.936), (0.088, 0, 0.926), 0.0315, "flange_silver")
    hand = "panda_hand"
    r.rcyl(hand, (0, 0, 0), (0, 0, 0.02), 0.04, 0.006, K, frame=hand)
    r.rbox(hand, (0, 0, 0.039), (0.06, 0.204, 0.04), 0.018, W, frame=hand)
    r.pbox("panda_leftfinger", (0, 0.01, 0.027), (0.021, 0.018, 0.054), "finger_grey",
           frame="panda_leftfinger")
    r.pbox("panda_rightfinger", (0, -0.01, 0.027), (0.021, 0.018, 0.054), "finger_grey",
           frame="panda_rightfinger")
    r.rest = {"panda_joint1": 0.0, "panda_joint2": -PI / 4, "panda_joint3": 0.0,
              "panda_joint4": -3 * PI / 4, "panda_joint5": 0.0, "panda_joint6": PI / 2,
              "panda_joint7": PI / 4, "panda_finger_joint1": 0.035}
    r.end_effectors = ["panda_hand_tcp"]
    r.objectives = [obj_pose("tcp pose", "panda_hand_tcp"), obj_posture(1.0, True), obj_limits()]
    # capsules that overlap in the neutral configuration (`ikwb check panda --sample-pairs`,
    # reason Default): across the short wrist, and the two fingers
    r.disabled_pairs = [("panda_link5", "panda_link7", "Default"),
                        ("panda_link5", "panda_hand", "Default"),
                        ("panda_leftfinger", "panda_rightfinger", "Default")]
    return r, dict(a=a, d=d, alpha=alpha)


def make_ur5e():
    r = Robot("ur5e", "Universal Robots UR5e",
              "6-DoF Universal Robots UR5e arm (published DH parameters)")
    r.source = ("UR5e: DH parameters and masses published by Universal Robots; frames as "
                "Universal_Robots_ROS2_Description")
    r.format_offset = 1
    r.palette = {"ur_grey": (0.72, 0.74, 0.76, 1.0), "ur_blue": (0.33, 0.58, 0.8, 1.0),
                 "ur_dark": (0.2, 0.21, 0.23, 1.0)}
    d1, a2, a3, d4, d5, d6 = 0.1625, -0.425, -0.3922, 0.1333, 0.0997, 0.0996
    r.link("base_link")
    r.link("base_link_inertia", 4.0)
    names = ["shoulder_link", "upper_arm_link", "forearm_link", "wrist_1_link", "wrist_2_link",
             "wrist_3_link"]
    for n, m in zip(names, [3.761, 8.058, 2.846, 1.37, 1.3, 0.365]):
        r.link(n, m)
    r.link("flange")
    r.link("tool0")
    r.link("base")
    r.fixed("base_link-base_link_inertia", "base_link", "base_link_inertia", rpy=(0, 0, PI))
    two_pi = 2 * PI
    lim = [(two_pi, 150.0), (two_pi, 150.0), (PI, 150.0), (two_pi, 28.0), (two_pi, 28.0),
           (two_pi, 28.0)]
    origins = [((0, 0, d1), (0, 0, 0)), ((0, 0, 0), (HALF_PI, 0, 0)), ((a2, 0, 0), (0, 0, 0)),
               ((a3, 0, d4), (0, 0, 0)), ((0, -d5, 0), (HALF_PI, 0, 0)),
               ((0, d6, 0), (HALF_PI, PI, PI))]
    jn = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
          "wrist_2_joint", "wrist_3_joint"]
    parents = ["base_link_inertia"] + names[:-1]
    for i in range(6):
        r.joint(jn[i], "revolute", parents[i], names[i], origins[i][0], origins[i][1], (0, 0, 1),
                -lim[i][0], lim[i][0], PI, lim[i][1])
    r.fixed("wrist_3-flange", "wrist_3_link", "flange", rpy=(0, -HALF_PI, -HALF_PI))
    r.fixed("flange-tool0", "flange", "tool0", rpy=(HALF_PI, 0, HALF_PI))
    r.fixed("base_link-base_fixed_joint", "base_link", "base", rpy=(0, 0, PI))
    # geometry in base_link_inertia coordinates at q = 0 (arm stretched along -x)
    F, Gy, B, K = "base_link_inertia", "ur_grey", "ur_blue", "ur_dark"
    x3 = a2 + a3
    r.rcyl(F, (0, 0, 0), (0, 0, 0.086), 0.076, 0.012, K, frame=F)
    r.rcyl("shoulder_link", (0, 0, 0.086), (0, 0, 0.16), 0.062, 0.012, B, frame=F)
    r.rcyl("upper_arm_link", (0, 0.062, d1), (0, -0.2, d1), 0.062, 0.014, Gy, frame=F)
    r.cap("upper_arm_link", (-0.05, -0.138, d1), (a2 + 0.04, -0.138, d1), 0.047, 0.042, Gy,
          frame=F)
    r.rcyl("upper_arm_link", (a2, -0.19, d1), (a2, -0.085, d1), 0.052, 0.012, B, frame=F)
    r.rcyl("forearm_link", (a2, -0.085, d1), (a2, 0.04, d1), 0.048, 0.012, Gy, frame=F)
    r.cap("forearm_link", (a2 - 0.03, -0.007, d1), (x3 + 0.03, -0.007, d1), 0.038, 0.034, Gy,
          frame=F)
    r.rcyl("forearm_link", (x3, 0.035, d1), (x3, -0.085, d1), 0.04, 0.01, Gy, frame=F)
    r.rcyl("wrist_1_link", (x3, -0.085, d1), (x3, -0.175, d1), 0.04, 0.01, B, frame=F)
    r.cap("wrist_1_link", (x3, -d4, d1 - 0.02), (x3, -d4, d1 - d5 + 0.045), 0.038, 0.038, Gy,
          frame=F)
    r.rcyl("wrist_2_link", (x3, -d4, d1 - d5 + 0.045), (x3, -d4, d1 - d5 - 0.045), 0.038,
           0.01, B, frame=F)
    r.cap("wrist_2_link", (x3, -d4 - 0.02, d1 - d5), (x3, -d4 - d6 + 0.04, d1 - d5), 0.037,
          0.037, Gy, frame=F)
    r.rcyl("wrist_3_link", (x3, -d4 - d6 + 0.04, d1 - d5), (x3, -d4 - d6, d1 - d5), 0.037,
           0.008, K, frame=F)
    r.rest = {"shoulder_pan_joint": 0.0, "shoulder_lift_joint": -HALF_PI, "elbow_joint": HALF_PI,
              "wrist_1_joint": -HALF_PI, "wrist_2_joint": -HALF_PI, "wrist_3_joint": 0.0}
    r.end_effectors = ["tool0"]
    r.objectives = [obj_pose("tool pose", "tool0"), obj_posture(1.0, True), obj_limits()]
    # capsules that overlap in the neutral configuration (`ikwb check ur5e --sample-pairs`,
    # reason Default): the shoulder's base against the upper arm, the forearm against the wrist
    r.disabled_pairs = [("base_link_inertia", "upper_arm_link", "Default"),
                        ("forearm_link", "wrist_2_link", "Default")]
    return r, dict(d=[d1, 0, 0, d4, d5, d6], a=[0, a2, a3, 0, 0, 0],
                   alpha=[HALF_PI, 0, 0, HALF_PI, -HALF_PI, 0])


def iiwa_like_arm(r, prefix, parent, mount_xyz, mount_rpy, seg, radii, limits_deg, vel_deg,
                  effort, masses, axes, colors, link_names, joint_names, tool):
    """A 7-DoF iiwa-style chain: roll, bend, roll, bend, roll, bend, roll. seg: distances along
    the arm between successive joint origins (J1..J7, flange). Geometry is given in the mount
    frame (the chain straight along the mount's z)."""
    mount = r.link(prefix + "arm_mount") if prefix else None
    if mount:
        r.fixed(prefix + "arm_mount_joint", parent, mount, mount_xyz, mount_rpy)
        parent = mount
    prev = parent
    for i in range(7):
        ln = r.link(link_names[i], masses[i])
        r.joint(joint_names[i], "revolute", prev, ln, (0, 0, seg[i]), (0, 0, 0), axes[i],
                -deg(limits_deg[i]), deg(limits_deg[i]), deg(vel_deg[i]), effort[i])
        prev = ln
    r.link(tool)
    r.fixed(tool + "_joint", prev, tool, (0, 0, seg[7]))
    z = [sum(seg[:i + 1]) for i in range(8)]  # heights of J1..J7, flange in the mount frame
    frame = mount or r.links[0]
    body, joint_c = colors
    R0, R1, R2, R3 = radii
    L = link_names
    r.cap(L[0], (0, 0, z[0] + 0.01), (0, 0, z[1]), R0, R0, body, frame=frame)
    r.rcyl(L[1], (0, -R0 * 1.1, z[1]), (0, R0 * 1.1, z[1]), R0, 0.015, joint_c, frame=frame)
    r.cap(L[1], (0, 0, z[1]), (0, 0, z[2] - 0.015), R0 * 0.97, R1, body, frame=frame)
    r.cap(L[2], (0, 0, z[2]), (0, 0, z[3]), R1, R1, body, frame=frame)
    r.rcyl(L[3], (0, -R1 * 1.1, z[3]), (0, R1 * 1.1, z[3]), R1, 0.015, joint_c, frame=frame)
    r.cap(L[3], (0, 0, z[3]), (0, 0, z[4] - 0.015), R1 * 0.97, R2, body, frame=frame)
    r.cap(L[4], (0, 0, z[4]), (0, 0, z[5]), R2, R2 * 0.95, body, frame=frame)
    r.rcyl(L[5], (0, -R2 * 1.05, z[5]), (0, R2 * 1.05, z[5]), R2 * 0.97, 0.012, joint_c,
           frame=frame)
    r.cap(L[5], (0, 0, z[5]), (0, 0, z[6] - 0.01), R2 * 0.92, R3, body, frame=frame)
    r.rcyl(L[6], (0, 0, z[6] - 0.008), (0, 0, z[7]), R3, 0.008, joint_c, frame=frame)
    return z


def make_iiwa7():
    r = Robot("iiwa7", "KUKA LBR iiwa 7 R800 (proportions)",
              "7-DoF arm with KUKA LBR iiwa 7 R800 proportions and axis ranges")
    r.source = ("iiwa7: dimensions, axis ranges, speeds and torques from KUKA's LBR iiwa 7 R800 "
                "specification")
    r.format_offset = 2
    r.palette = {"iiwa_orange": (1.0, 0.45, 0.08, 1.0), "iiwa_grey": (0.62, 0.63, 0.65, 1.0),
                 "iiwa_dark": (0.25, 0.26, 0.28, 1.0)}
    r.link("iiwa_link_0", 3.4525)
    seg = [0.15, 0.19, 0.21, 0.19, 0.21, 0.19, 0.081, 0.045]
    links = ["iiwa_link_%d" % i for i in range(1, 8)]
    joints = ["iiwa_joint_%d" % i for i in range(1, 8)]
    axes = [(0, 0, 1), (0, 1, 0), (0, 0, 1), (0, -1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1)]
    iiwa_like_arm(r, "", "iiwa_link_0", None, None, seg, (0.07, 0.065, 0.06, 0.045),
                  [170, 120, 170, 120, 170, 120, 175], [98, 98, 100, 130, 140, 180, 180],
                  [176, 176, 110, 110, 110, 40, 40],
                  [3.4821, 4.05623, 3.4822, 2.1633, 2.3466, 3.129, 1.129], axes,
                  ("iiwa_orange", "iiwa_grey"), links, joints, "iiwa_link_ee")
    r.rcyl("iiwa_link_0", (0, 0, 0), (0, 0, 0.15), 0.1, 0.015, "iiwa_dark")
    r.rest = {"iiwa_joint_2": 0.6, "iiwa_joint_4": -1.4, "iiwa_joint_6": 1.14}
    r.end_effectors = ["iiwa_link_ee"]
    r.objectives = [obj_pose("flange pose", "iiwa_link_ee"), obj_posture(1.0, True), obj_limits()]
    # capsules that overlap in the neutral configuration across the wrist (`ikwb check iiwa7
    # --sample-pairs`, reason Default)
    r.disabled_pairs = [("iiwa_link_5", "iiwa_link_7", "Default")]
    return r


def make_dual_arm():
    r = Robot("dual_arm", "Dual-arm torso", "A torso with a yaw joint and two 7-DoF arms")
    r.source = "dual_arm: our own design (iiwa-like arms scaled down on a yaw torso)"
    r.palette = {"torso_dark": (0.22, 0.24, 0.27, 1.0), "arm_light": (0.86, 0.87, 0.88, 1.0),
                 "joint_blue": (0.2, 0.42, 0.75, 1.0), "camera_black": (0.05, 0.05, 0.06, 1.0),
                 "pedestal_grey": (0.45, 0.46, 0.48, 1.0)}
    r.link("base_link", 30.0)
    r.link("torso", 12.0)
    r.joint("torso_yaw_joint", "revolute", "base_link", "torso", (0, 0, 0.8), (0, 0, 0),
            (0, 0, 1), -deg(150), deg(150), 1.5, 200.0)
    r.rbox("base_link", (0, 0, 0.025), (0.5, 0.5, 0.05), 0.02, "pedestal_grey")
    r.rcyl("base_link", (0, 0, 0.05), (0, 0, 0.8), 0.11, 0.02, "pedestal_grey")
    r.rcyl("torso", (0, 0, 0.8), (0, 0, 0.88), 0.13, 0.02, "torso_dark")
    r.rbox("torso", (0, 0, 1.08), (0.24, 0.34, 0.42), 0.05, "torso_dark")
    r.psphere("torso", (0.03, 0, 1.38), 0.085, "camera_black")
    seg = [0.0, 0.1, 0.16, 0.16, 0.15, 0.15, 0.05, 0.05]
    axes = [(0, 0, 1), (1, 0, 0), (0, 0, 1), (1, 0, 0), (0, 0, 1), (1, 0, 0), (0, 0, 1)]
    for side, y, rpy in (("left", 0.17, (-HALF_PI, 0, 0)), ("right", -0.17, (-HALF_PI, 0, PI))):
        iiwa_like_arm(r, side + "_", "torso", (0, y, 0.45), rpy, seg, (0.055, 0.05, 0.045, 0.035),
                      [170, 120, 170, 120, 170, 120, 175], [100, 100, 110, 130, 140, 180, 180],
                      [80, 80, 50, 50, 30, 20, 20], [2.0, 2.0, 1.6, 1.4, 1.0, 0.8, 0.3], axes,
                      ("arm_light", "joint_blue"), ["%s_link_%d" % (side, i) for i in range(1, 8)],
                      ["%s_joint_%d" % (side, i) for i in range(1, 8)], side + "_tool")
    r.rest = {"left_joint_1": 0.0, "left_joint_2": -1.2, "left_joint_3": -HALF_PI,
              "left_joint_4": -1.6, "left_joint_5": 0.0, "left_joint_6": -0.6,
              "left_joint_7": 0.0}
    for k in range(1, 8):  # mirror: the right arm's frames are the left's rotated about z by pi
        r.rest["right_joint_%d" % k] = r.rest["left_joint_%d" % k] * (1 if k % 2 == 0 else -1)
    r.end_effectors = ["left_tool", "right_tool"]
    r.objectives = [obj_pose("left tool pose", "left_tool"),
                    obj_pose("right tool pose", "right_tool"),
                    {"type": "min_distance", "name": "tools apart", "link": "left_tool",
                     "offset": [0.0, 0.0, 0.0], "link_b": "right_tool", "offset_b": [0.0, 0.0, 0.0],
                     "distance": 0.12, "weight": 1.0, "hard": True},
                    obj_posture(1.0, True), obj_limits(), obj_self_collision()]
    # the shoulders' second links overlap the torso's capsule, and links two apart across a
    # short roll link overlap or nearly touch (the elbow: 2-4, the wrist: 5-7)
    for side in ("left", "right"):
        r.disabled_pairs += [("torso", side + "_link_2", "User"),
                             (side + "_link_2", side + "_link_4", "User"),
                             (side + "_link_5", side + "_link_7", "User")]
    return r


def make_humanoid():
    H = 1.6
    r = Robot("humanoid", "Humanoid (1.6 m)",
              "Floating-base humanoid: torso 2, head 2, arms 2 x 6, legs 2 x 6 joints")
    r.source = ("humanoid: our own design at 1.6 m, segment lengths from the Drillis and "
                "Contini anthropometric fractions of body height")
    r.mesh_ref = "package"
    r.floating_base = True
    r.segments = 22
    r.palette = {"hum_white": (0.9, 0.9, 0.92, 1.0), "hum_dark": (0.24, 0.26, 0.3, 1.0),
                 "hum_blue": (0.22, 0.46, 0.82, 1.0), "visor_black": (0.04, 0.05, 0.07, 1.0)}
    Wt, Dk, Bl = "hum_white", "hum_dark", "hum_blue"
    pelvis_h = 0.9                                # pelvis frame height when standing
    hip_z = 0.530 * H - pelvis_h                  # -0.052
    knee_z = 0.285 * H - pelvis_h                 # -0.444
    ankle_z = 0.039 * H - pelvis_h                # -0.8376
    sole_z = -pelvis_h
    waist_z = 0.10
    shoulder_z = 0.818 * H - pelvis_h             # 0.4088
    neck_z = 0.870 * H - pelvis_h                 # 0.492
    elbow_z = shoulder_z - 0.186 * H              # upper arm 0.2976
    wrist_z = elbow_z - 0.146 * H                 # forearm 0.2336
    hand_len = 0.108 * H
    foot_len, foot_w = 0.152 * H, 0.055 * H
    hip_y, shoulder_y = 0.5 * 0.191 * H * 0.56, 0.18   # hip joint centres +-0.0856
    r.link("pelvis", 9.0)
    r.link("waist_link", 1.0)
    r.link("torso", 17.0)
    r.link("neck_link", 0.6)
    r.link("head", 4.4)
    r.joint("torso_yaw_joint", "revolute", "pelvis", "waist_link", (0, 0, waist_z), (0, 0, 0),
            (0, 0, 1), -0.8, 0.8, 4.0, 150.0)
    r.joint("torso_pitch_joint", "revolute", "waist_link", "torso", (0, 0, 0), (0, 0, 0),
            (0, 1, 0), -0.35, 1.0, 4.0, 150.0)
    r.joint("neck_yaw_joint", "revolute", "torso", "neck_link", (0, 0, neck_z - waist_z),
            (0, 0, 0), (0, 0, 1), -1.2, 1.2, 6.0, 10.0)
    r.joint("neck_pitch_joint", "revolute", "neck_link", "head", (0, 0, 0), (0, 0, 0), (0, 1, 0),
            -0.6, 0.8, 6.0, 10.0)
    r.rbox("pelvis", (0, 0, -0.015), (0.17, 0.27, 0.13), 0.05, Dk, collision=False)
    # two capsules across the pelvis (its box's one capsule reached y = +-0.24 past its 0.135)
    for cx in (-0.02, 0.02):
        r.collision_cap("pelvis", (cx, -0.07, -0.015), (cx, 0.07, -0.015), 0.065)
    r.rcyl("waist_link", (0, 0, 0.045), (0, 0, 0.13), 0.075, 0.02, Dk)
    r.rbox("torso", (0, 0, 0.2), (0.16, 0.24, 0.14), 0.05, Wt, collision=False)
    r.rbox("torso", (0, 0, 0.36), (0.2, 0.26, 0.24), 0.07, Wt, collision=False)
    # the torso collides as capsules, not boxes: one capsule fitted to a chest box is as thick
    # as its cross-section's diagonal (the chest, 0.33 m wide then, reached y = +-0.32, past the
    # shoulders at +-0.18), so the upper arms could not be checked against it. Four upright
    # capsules for the chest (0.117 m to each side, 1.3 cm inside the chest's 0.13, where a
    # hanging upper arm begins at 0.133; the front within 1.4 cm) and two across the belly
    # (tools/robots/visual_outside_collision.py measures the corners they leave out). Each is long
    # enough that its cylinder's least-volume capsule is the capsule itself (a short cylinder is
    # fitted with a sphere that reaches further).
    for cx in (-0.03, 0.03):
        for cy in (-0.045, 0.045):
            r.collision_cap("torso", (cx, cy, 0.26), (cx, cy, 0.44), 0.072)
    for cx in (-0.02, 0.02):
        r.collision_cap("torso", (cx, -0.06, 0.2), (cx, 0.06, 0.2), 0.06)
    r.cap("neck_link", (0, 0, neck_z - 0.04), (0, 0, neck_z + 0.05), 0.04, 0.038, Dk)
    r.rbox("head", (0.01, 0, neck_z + 0.105), (0.19, 0.16, 0.22), 0.075, Wt)
    r.pbox("head", (0.097, 0, neck_z + 0.125), (0.02, 0.12, 0.045), "visor_black",
           collision=False)
    for side, s in (("left", 1.0), ("right", -1.0)):
        p = side + "_"
        sy, hy = s * shoulder_y, s * hip_y
        # arm: shoulder pitch (y), roll (x), yaw (z); elbow (y); wrist yaw (z), pitch (y)
        for n, m in (("shoulder_pitch_link", 0.4), ("shoulder_roll_link", 0.3),
                     ("upper_arm", 1.6), ("forearm", 1.0), ("wrist_link", 0.2), ("hand", 0.45)):
            r.link(p + n, m)
        roll = (-0.3, 2.9) if s > 0 else (-2.9, 0.3)
        r.joint(p + "shoulder_pitch_joint", "revolute", "torso", p + "shoulder_pitch_link",
                (0, sy, shoulder_z - waist_z), (0, 0, 0), (0, 1, 0), -3.0, 1.0, 6.0, 40.0)
        r.joint(p + "shoulder_roll_joint", "revolute", p + "shoulder_pitch_link",
                p + "shoulder_roll_link", (0, 0, 0), (0, 0, 0), (1, 0, 0), roll[0], roll[1],
                6.0, 40.0)
        r.joint(p + "shoulder_yaw_joint", "revolute", p + "shoulder_roll_link", p + "upper_arm",
                (0, 0, 0), (0, 0, 0), (0, 0, 1), -1.5, 1.5, 6.0, 30.0)
        r.joint(p + "elbow_joint", "revolute", p + "upper_arm", p + "forearm",
                (0, 0, elbow_z - shoulder_z), (0, 0, 0), (0, 1, 0), -2.6, 0.0, 6.0, 30.0)
        r.joint(p + "wrist_yaw_joint", "revolute", p + "forearm", p + "wrist_link",
                (0, 0, wrist_z - elbow_z), (0, 0, 0), (0, 0, 1), -1.5, 1.5, 8.0, 10.0)
        r.joint(p + "wrist_pitch_joint", "revolute", p + "wrist_link", p + "hand", (0, 0, 0),
                (0, 0, 0), (0, 1, 0), -1.2, 1.2, 8.0, 10.0)
        r.sphere(p + "shoulder_pitch_link", (0, sy, shoulder_z), 0.058, Dk)
        r.cap(p + "upper_arm", (0, sy, shoulder_z - 0.03), (0, sy, elbow_z + 0.01), 0.047,
              0.04, Wt)
        r.sphere(p + "forearm", (0, sy, elbow_z), 0.042, Dk)
        r.cap(p + "forearm", (0, sy, elbow_z - 0.02), (0, sy, wrist_z + 0.015), 0.038, 0.03, Bl)
        hand_top, hand_bottom = wrist_z - 0.01, wrist_z - 0.01 - hand_len
        r.rbox(p + "hand", (0.0, sy, 0.5 * (hand_top + hand_bottom)), (0.085, 0.032, hand_len),
               0.015, Wt, collision=False)
        # the flat hand as two capsules side by side, ending where it ends (its box's one capsule
        # was 45 mm thick and reached 45 mm past the fingertips)
        for cx in (-0.0215, 0.0215):
            r.collision_cap(p + "hand", (cx, sy, hand_top - 0.021), (cx, sy, hand_bottom + 0.021),
                            0.021)
        # leg: hip yaw (z), roll (x), pitch (y); knee (y); ankle pitch (y), roll (x)
        for n, m in (("hip_yaw_link", 0.6), ("hip_roll_link", 0.8), ("thigh", 6.0),
                     ("shin", 2.8), ("ankle_link", 0.3), ("ankle_roll_link", 0.9)):
            r.link(p + n, m)
        r.link(p + "foot")
        yaw = (-0.4, 0.8) if s > 0 else (-0.8, 0.4)
        hroll = (-0.4, 0.8) if s > 0 else (-0.8, 0.4)
        r.joint(p + "hip_yaw_joint", "revolute", "pelvis", p + "hip_yaw_link", (0, hy, hip_z),
                (0, 0, 0), (0, 0, 1), yaw[0], yaw[1], 6.0, 80.0)
        r.joint(p + "hip_roll_joint", "revolute", p + "hip_yaw_link", p + "hip_roll_link",
                (0, 0, 0), (0, 0, 0), (1, 0, 0), hroll[0], hroll[1], 6.0, 120.0)
        r.joint(p + "hip_pitch_joint", "revolute", p + "hip_roll_link", p + "thigh", (0, 0, 0),
                (0, 0, 0), (0, 1, 0), -2.0, 0.5, 6.0, 150.0)
        r.joint(p + "knee_joint", "revolute", p + "thigh", p + "shin", (0, 0, knee_z - hip_z),
                (0, 0, 0), (0, 1, 0), 0.0, 2.5, 8.0, 150.0)
        r.joint(p + "ankle_pitch_joint", "revolute", p + "shin", p + "ankle_link",
                (0, 0, ankle_z - knee_z), (0, 0, 0), (0, 1, 0), -0.6, 0.9, 8.0, 80.0)
        r.joint(p + "ankle_roll_joint", "revolute", p + "ankle_link", p + "ankle_roll_link",
                (0, 0, 0), (0, 0, 0), (1, 0, 0), -0.4, 0.4, 8.0, 40.0)
        sole_x = 0.035
        r.fixed(p + "sole_joint", p + "ankle_roll_link", p + "foot",
                (sole_x, 0, sole_z - ankle_z))
        r.sphere(p + "hip_roll_link", (0, hy, hip_z), 0.065, Dk)
        r.cap(p + "thigh", (0, hy, hip_z - 0.02), (0, hy, knee_z + 0.02), 0.072, 0.052, Wt)
        r.sphere(p + "shin", (0, hy, knee_z), 0.053, Dk)
        r.cap(p + "shin", (0, hy, knee_z - 0.02), (0, hy, ankle_z + 0.03), 0.05, 0.038, Bl)
        r.rbox(p + "ankle_roll_link", (sole_x, hy, sole_z + 0.032), (foot_len, foot_w, 0.064),
               0.022, Dk)
    r.rest = {}
    for side, s in (("left", 1.0), ("right", -1.0)):
        p = side + "_"
        r.rest.update({p + "hip_pitch_joint": -0.3, p + "knee_joint": 0.6,
                       p + "ankle_pitch_joint": -0.3, p + "shoulder_roll_joint": s * 0.3,
                       p + "shoulder_pitch_joint": 0.1, p + "elbow_joint": -0.5})
    # the head bowed and turned toward the right palm, which the gaze objective keeps in view
    r.rest.update({"neck_pitch_joint": 0.6, "neck_yaw_joint": -0.35})
    r.end_effectors = ["left_hand", "right_hand", "left_foot", "right_foot"]
    palm = (0.0, 0.0, -0.07)
    r.objectives = [obj_pose("left foot", "left_foot", hard=True),
                    obj_pose("right foot", "right_foot", hard=True),
                    obj_pose("left hand", "left_hand", palm, weight=1.0),
                    obj_pose("right hand", "right_hand", palm, weight=1.0),
                    obj_posture(1.0, True), obj_limits(),
                    # balance: the centre of mass over the feet (their soles' corners, from the
                    # collision boxes), 2 cm inside
                    {"type": "support_polygon", "name": "balance",
                     "contacts": [{"link": "left_ankle_roll_link"},
                                  {"link": "right_ankle_roll_link"}],
                     "margin": 0.02, "weight": 1.0, "hard": True},
                    obj_self_collision(),
                    # the head keeps the right palm in view: the line of sight from between the
                    # eyes (0.3 rad below the head's forward x axis, a resting gaze) points at
                    # the palm within a 0.75 rad (43 deg) cone, so the neck alone follows the
                    # hand over most of its range and the rest posture (head bowed toward the
                    # hand) meets it; soft and light, it never pulls a hand off its target
                    # (listed last: earlier objective indices stay as they were)
                    {"type": "look_at", "name": "gaze", "link": "head",
                     "offset": [0.09, 0.0, 0.125],
                     "axis": [round(math.cos(0.3), 6), 0.0, -round(math.sin(0.3), 6)],
                     "cone": 0.75,
                     "link_b": "right_hand", "offset_b": list(palm), "weight": 0.3,
                     "hard": False}]
    # links joined through the small shoulder, hip, waist, neck, wrist and ankle links: their
    # capsules overlap at rest (the pelvis's capsule is as thick as its box's cross-section);
    # upper arms, forearms, hands, shins and feet stay checked against the body
    r.disabled_pairs = [("torso", "head", "User"), ("pelvis", "torso", "User")]
    for side in ("left", "right"):
        p = side + "_"
        r.disabled_pairs += [(p + "shoulder_pitch_link", p + "upper_arm", "User"),
                             (p + "forearm", p + "hand", "User"),
                             ("pelvis", p + "thigh", "User"),
                             ("pelvis", p + "hip_roll_link", "User"),
                             (p + "shin", p + "ankle_roll_link", "User")]
    return r


def make_quadruped():
    r = Robot("quadruped", "Quadruped (Go1 proportions)",
              "Floating-base quadruped: 4 legs x 3 joints (hip abduction, hip flexion, knee)")
    r.source = "quadruped: Unitree Go1 proportions and limits from unitree_ros go1_description"
    r.floating_base = True
    r.format_offset = 1
    r.segments = 20
    r.palette = {"body_dark": (0.2, 0.21, 0.23, 1.0), "leg_silver": (0.7, 0.72, 0.75, 1.0),
                 "motor_dark": (0.3, 0.31, 0.33, 1.0), "foot_black": (0.06, 0.06, 0.06, 1.0),
                 "sensor_black": (0.02, 0.02, 0.03, 1.0)}
    lx, ly, t_off, L_th, L_ca, foot_r = 0.1881, 0.04675, 0.08, 0.213, 0.213, 0.02
    r.link("body", 5.204)
    r.rbox("body", (0, 0, 0), (0.3762, 0.12, 0.114), 0.035, "body_dark")
    r.pbox("body", (0.195, 0, 0.0), (0.02, 0.08, 0.06), "sensor_black", collision=False)
    for leg, sx, sy in (("fl", 1, 1), ("fr", 1, -1), ("rl", -1, 1), ("rr", -1, -1)):
        hip, thigh, calf, foot = leg + "_hip", leg + "_thigh", leg + "_calf", leg + "_foot"
        r.link(hip, 0.68)
        r.link(thigh, 1.009)
        r.link(calf, 0.196)
        r.link(foot, 0.06)
        hx, hy = sx * lx, sy * ly
        r.joint(leg + "_hip_joint", "revolute", "body", hip, (hx, hy, 0), (0, 0, 0), (1, 0, 0),
                -0.863, 0.863, 30.1, 23.7)
        r.joint(leg + "_thigh_joint", "revolute", hip, thigh, (0, sy * t_off, 0), (0, 0, 0),
                (0, 1, 0), -0.686, 4.501, 30.1, 23.7)
        r.joint(leg + "_calf_joint", "revolute", thigh, calf, (0, 0, -L_th), (0, 0, 0),
                (0, 1, 0), -2.818, -0.888, 20.06, 35.55)
        r.fixed(leg + "_foot_joint", calf, foot, (0, 0, -L_ca))
        ty = hy + sy * t_off
        r.rcyl(hip, (hx - sx * 0.035, hy, 0), (hx + sx * 0.035, hy, 0), 0.046, 0.01,
               "motor_dark")
        r.rcyl(thigh, (hx, hy + sy * 0.015, 0), (hx, ty + sy * 0.03, 0), 0.046, 0.01,
               "motor_dark")
        r.cap(thigh, (hx, ty, -0.01), (hx, ty, -L_th), 0.03, 0.022, "leg_silver")
        r.cap(calf, (hx, ty, -L_th), (hx, ty, -L_th - L_ca + 0.02), 0.018, 0.012, "leg_silver")
        r.psphere(foot, (hx, ty, -L_th - L_ca), foot_r, "foot_black")
    r.rest = {}
    for leg in ("fl", "fr", "rl", "rr"):
        r.rest.update({leg + "_hip_joint": 0.0, leg + "_thigh_joint": 0.8,
                       leg + "_calf_joint": -1.5})
    r.end_effectors = ["fl_foot", "fr_foot", "rl_foot", "rr_foot"]
    r.objectives = [obj_pose("%s foot" % leg.upper(), leg + "_foot", hard=True, kind="position")
                    for leg in ("fl", "fr", "rl", "rr")]
    # the body placed by its centre of mass (drag it over the feet), its orientation kept
    r.objectives += [{"type": "com", "name": "body CoM", "weight": 1.0, "hard": False,
                      "target": "current"},
                     {"type": "rotation", "name": "body orientation", "link": "body",
                      "weight": 1.0, "hard": False, "target": "current"},
                     obj_posture(1.0, True), obj_limits(), obj_self_collision()]
    # the thighs overlap the body's capsule next to their hip links; the two front (and the two
    # rear) hip links' capsules overlap across the middle and come within 5 mm of the other
    # side's thigh
    r.disabled_pairs = [("fl_hip", "fr_hip", "User"), ("rl_hip", "rr_hip", "User"),
                        ("fl_hip", "fr_thigh", "User"), ("fr_hip", "fl_thigh", "User"),
                        ("rl_hip", "rr_thigh", "User"), ("rr_hip", "rl_thigh", "User")]
    r.disabled_pairs += [("body", leg + "_thigh", "User") for leg in ("fl", "fr", "rl", "rr")]
    return r


def make_planar3():
    r = Robot("planar3", "Planar 3-link arm", "Planar 3R teaching arm (links 0.5, 0.4, 0.3 m)")
    r.source = "planar3: textbook planar 3R arm"
    r.ascii_stl = True
    r.format_offset = 0
    r.palette = {"base_grey": (0.35, 0.36, 0.38, 1.0), "link_red": (0.85, 0.25, 0.2, 1.0),
                 "link_green": (0.25, 0.7, 0.35, 1.0), "link_blue": (0.2, 0.45, 0.85, 1.0),
                 "tip_yellow": (0.98, 0.8, 0.1, 1.0)}
    r.link("base", 5.0)
    lens = [0.5, 0.4, 0.3]
    names = ["link1", "link2", "link3"]
    masses = [2.0, 1.5, 1.0]
    prev = "base"
    x = 0.0
    for i in range(3):
        r.link(names[i], masses[i])
        r.joint("joint%d" % (i + 1), "revolute", prev, names[i],
                (0 if i == 0 else lens[i - 1], 0, 0.05 if i == 0 else 0), (0, 0, 0), (0, 0, 1),
                -PI if i == 0 else -2.6, PI if i == 0 else 2.6, 2.0, 20.0)
        prev = names[i]
    r.link("tip")
    r.fixed("tip_joint", "link3", "tip", (lens[2], 0, 0))
    r.pcyl("base", (0, 0, 0), (0, 0, 0.03), 0.09, "base_grey")
    colors = ["link_red", "link_green", "link_blue"]
    radii = [0.04, 0.034, 0.028]
    z = 0.05
    for i in range(3):
        r.rcyl(names[i], (x, 0, z - 0.03), (x, 0, z + 0.03), radii[i] * 1.35, 0.01, colors[i])
        r.cap(names[i], (x, 0, z), (x + lens[i], 0, z), radii[i], radii[i] * 0.85, colors[i])
        x += lens[i]
    r.psphere("tip", (x, 0, z), 0.032, "tip_yellow")
    r.rest = {"joint1": 0.3, "joint2": 0.9, "joint3": 0.7}
    r.end_effectors = ["tip"]
    r.objectives = [obj_pose("tip position", "tip", kind="position"), obj_posture(1.0, True),
                    obj_limits()]
    return r


# ----------------------------------------------------------------------------- checks

def check_structure(robot, urdf_path, out_dir):
    """Parses the written URDF with xml.etree and checks names, tree, files, rest, preset."""
    root = ET.parse(urdf_path).getroot()
    assert root.tag == "robot" and root.get("name") == robot.name
    links = [e.get("name") for e in root.findall("link")]
    joints = root.findall("joint")
    assert len(links) == len(set(links)), "duplicate link names"
    jnames = [j.get("name") for j in joints]
    assert len(jnames) == len(set(jnames)), "duplicate joint names"
    children = set()
    for j in joints:
        p, c = j.find("parent").get("link"), j.find("child").get("link")
        assert p in links and c in links, (j.get("name"), p, c)
        assert c not in children, "link with two parents: " + c
        children.add(c)
        m = j.find("mimic")
        if m is not None:
            assert m.get("joint") in jnames
    roots = [ln for ln in links if ln not in children]
    assert roots == [robot.links[0]], roots
    formats = set()
    for mesh in root.iter("mesh"):
        fn = mesh.get("filename")
        rel = fn.split("package://%s/" % robot.name, 1)[1] if fn.startswith("package://") else fn
        path = os.path.join(out_dir, robot.name, rel)
        assert os.path.isfile(path), path
        formats.add(os.path.splitext(fn)[1][1:])
        if fn.endswith(".dae"):
            d = ET.parse(path).getroot()
            ns = "{http://www.collada.org/2005/11/COLLADASchema}"
            assert d.find(ns + "asset/" + ns + "up_axis").text == "Z_UP"
        if fn.endswith(".obj"):
            assert os.path.isfile(path[:-4] + ".mtl")
    assert formats == set(FORMATS), (robot.name, formats)
    lim = {j["name"]: j for j in robot.joints}
    for name, val in robot.rest.items():
        j = lim[name]
        assert j["type"] != "fixed" and not j["mimic"], name
        if j["lower"] is not None:
            assert j["lower"] <= val <= j["upper"], (name, val)
    for o in robot.objectives:
        for key in ("link", "link_b"):
            if key in o:
                assert o[key] in links, o
    for e in robot.end_effectors:
        assert e in links, e
    for l in root.findall("link"):
        it = l.find("inertial/inertia")
        if it is None:
            continue
        I = [[float(it.get(a)) for a in row] for row in
             (("ixx", "ixy", "ixz"), ("ixy", "iyy", "iyz"), ("ixz", "iyz", "izz"))]
        m2 = I[0][0] * I[1][1] - I[0][1] ** 2
        m3 = (I[0][0] * (I[1][1] * I[2][2] - I[1][2] ** 2) - I[0][1] * (I[0][1] * I[2][2] - I[1][2] * I[0][2])
              + I[0][2] * (I[0][1] * I[1][2] - I[1][1] * I[0][2]))
        d = (I[0][0], I[1][1], I[2][2])
        assert I[0][0] > 0 and m2 > 0 and m3 > 0, ("inertia not positive definite", l.get("name"))
        assert all(d[i] <= d[(i + 1) % 3] + d[(i + 2) % 3] + 1e-9 for i in range(3)), l.get("name")
    return links, jnames


def panda_dh_check(robot, dh):
    """URDF FK against the modified-DH product for random configurations."""
    rng = random.Random(7)
    worst = 0.0
    for _ in range(20):
        q = [rng.uniform(-2.5, 2.5) for _ in range(7)]
        T = Tf()
        for i in range(7):
            T = T * Tf(rot_x(dh["alpha"][i])) * Tf(IDENTITY, (dh["a"][i], 0, 0)) * \
                Tf(rot_z(q[i])) * Tf(IDENTITY, (0, 0, dh["d"][i]))
        T = T * Tf(IDENTITY, (0, 0, 0.107))
        X = robot.fk({"panda_joint%d" % (i + 1): q[i] for i in range(7)})
        worst = max(worst, max_abs_diff(T, X["panda_link8"]))
    return worst


def ur_dh_check(robot, dh):
    """tool0 in the `base` frame against the standard-DH product (Universal Robots' table)."""
    rng = random.Random(11)
    worst_p, worst_R = 0.0, 0.0
    names = ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
             "wrist_2_joint", "wrist_3_joint"]
    for _ in range(20):
        q = [rng.uniform(-3, 3) for _ in range(6)]
        T = Tf()
        for i in range(6):
            T = T * Tf(rot_z(q[i])) * Tf(IDENTITY, (0, 0, dh["d"][i])) * \
                Tf(IDENTITY, (dh["a"][i], 0, 0)) * Tf(rot_x(dh["alpha"][i]))
        X = robot.fk(dict(zip(names, q)))
        Tb = X["base"].inv() * X["tool0"]
        worst_p = max(worst_p, max(abs(T.t[i] - Tb.t[i]) for i in range(3)))
        worst_R = max(worst_R, max(abs(T.R[i][j] - Tb.R[i][j]) for i in range(3)
                                   for j in range(3)))
    return worst_p, worst_R


def run_check_urdf(path):
    exe = shutil.which("check_urdf")
    if not exe:
        return "check_urdf not installed (apt package liburdfdom-tools)"
    p = subprocess.run([exe, path], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("check_urdf failed on %s:\n%s%s" % (path, p.stdout, p.stderr))
    return "check_urdf ok"


def fmt_p(p):
    return "(%.4f, %.4f, %.4f)" % tuple(0.0 if abs(x) < 5e-5 else x for x in p)


# ----------------------------------------------------------------------------- README

def readme_text(robots, stats):
    lines = ["# Robot library", "",
             "Generated by `tools/robots/generate.py` (Python 3, standard library only; do not "
             "edit these files by hand, change the generator and run it again). Every robot has "
             "a folder with `<name>.urdf`, `meshes/` (shapes of our own: capsules, rounded "
             "cylinders, rounded boxes, spheres) and `preset.json`; `robots.json` is the "
             "registry (a JSON list of {name, title, urdf, preset, description, "
             "floating_base, end_effectors, default, dof}, paths relative to this folder). "
             "`tools/robots/preview.py` renders a PNG of a robot from these files. Each robot "
             "mixes the three mesh formats: STL (binary; ASCII for "
             "planar3), OBJ with an `.mtl` material file, and COLLADA `.dae` (metres, "
             "`Z_UP` declared, colours in the file; its URDF visual has no material so the "
             "file's colours show; the vertices are already in the link frame, so a loader "
             "must not turn Z_UP into Y_UP: with assimp set "
             "AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, as engine/core does). Links of "
             "several colours are OBJ or COLLADA, single-colour links cycle through all three. STL and OBJ visuals use robot-level named URDF materials; "
             "URDF primitive visuals (box, cylinder, sphere) carry inline colours. Collision "
             "geometry is URDF primitives only. `panda` and `humanoid` reference their meshes "
             "as `package://<name>/meshes/...` (the package name is the folder name, so adding "
             "`assets/robots` to the package search path, or resolving against the URDF's "
             "ancestor folders, finds them); the others use paths relative to the URDF. "
             "Inertials: the given link mass spread uniformly over the link's shapes.", "",
             "Preset files (`preset.json`, version 1): `robot` (URDF file name, relative), "
             "`floating_base`, `rest` (joint name -> value for every actuated joint; mimic "
             "joints are left out), `objectives` (type, name, link, offset in the link frame, "
             "weight, hard, `\"target\": \"current\"` = the link's pose at the rest posture; "
             "posture and joint_limits objectives have no link and no target; `relative_fixed`, "
             "`relative_ball` and `min_distance` add `link_b`, `offset_b` and, for "
             "min_distance, `distance` (dual_arm keeps its tools 0.12 m apart this way); the "
             "humanoid's `gaze`, a `look_at` with `link_b`, turns the head to follow the right "
             "palm), "
             "`solver` (n_seeds, sampler, iterations) and, for the robots whose preset has a "
             "`self_collision` objective (dual_arm, humanoid, quadruped), `srdf`: "
             "`<name>.srdf`, the link pairs it skips (joined through small intermediate links, "
             "their fitted capsules overlap at the rest posture).", ""]
    for r in robots:
        st = stats[r.name]
        dof = len(r.movable())
        fb = " The base is floating (the loader adds a free root joint, 6 more dofs)." \
            if r.floating_base else ""
        mimic = [j["name"] for j in r.joints if j["mimic"]]
        mim = (" Mimic joints (not counted): %s." % ", ".join(mimic)) if mimic else ""
        lines.append("## %s: %s" % (r.name, r.title))
        lines.append("")
        lines.append("%s. %s %d actuated joints.%s%s End effectors: %s. Mesh triangles: %d "
                     "(%d links as meshes). Sources: %s" % (
                         r.description, README_SOURCES[r.name], dof, mim, fb,
                         ", ".join("`%s`" % e for e in r.end_effectors), st["mesh_triangles"],
                         st["mesh_links"], r.source + "."))
        lines.append("")
    return "\n".join(lines)


README_SOURCES = {
    "panda": "Kinematics exactly as published by Franka Emika (modified DH a = [0, 0, 0, 0.0825, "
             "-0.0825, 0, 0.088], d = [0.333, 0, 0.316, 0, 0.384, 0, 0], flange 0.107 m), "
             "written as joint origins the way franka_description does; hand at the flange "
             "yawed by -pi/4, TCP `panda_hand_tcp` 0.1034 m further; published position, "
             "velocity and torque limits. Zero pose: flange at (0.088, 0, 0.926), TCP at "
             "(0.088, 0, 0.8226). Two prismatic fingers (0 to 0.04 m), the second a mimic of "
             "the first, so 7 arm joints plus 1 finger joint.",
    "ur5e": "Universal Robots' published DH parameters (d1 0.1625, a2 -0.425, a3 -0.3922, "
            "d4 0.1333, d5 0.0997, d6 0.0996) with the frame layout of the official ROS "
            "description (`base_link`, `base_link_inertia` and `base` rotated by pi about z, "
            "`flange`, `tool0`); limits +-2 pi (elbow +-pi). At q = 0, tool0 is at "
            "(-0.8172, -0.2329, 0.0628) in `base` (the DH/controller frame) and at "
            "(0.8172, 0.2329, 0.0628) in `base_link`.",
    "iiwa7": "KUKA LBR iiwa 7 R800 proportions (0.34, 0.4, 0.4, 0.126 m between base, axis 2, "
             "axis 4, axis 6 and flange) and published axis ranges (+-170, +-120, +-170, "
             "+-120, +-170, +-120, +-175 deg), speeds and torques; all frames aligned with the "
             "base at q = 0 (flange at z = 1.266).",
    "dual_arm": "A pedestal with a torso yaw joint (+-150 deg) and two iiwa-like 7-DoF arms "
                "(0.10, 0.32, 0.30, 0.10 m) mounted sideways at shoulder height; mirrored "
                "joint conventions.",
    "humanoid": "1.6 m tall; root link `pelvis`; torso yaw and pitch, neck yaw and pitch, per "
                "arm shoulder pitch/roll/yaw, elbow, wrist yaw/pitch, per leg hip "
                "yaw/roll/pitch, knee, ankle pitch/roll. `left_foot`/`right_foot` are sole "
                "frames (z up, at the sole centre); the hand links' frames are at the wrists "
                "(the preset puts the hand objectives 7 cm down, at the palm).",
    "quadruped": "Go1-like: body 0.376 x 0.12 x 0.114 m, hips at (+-0.1881, +-0.04675), "
                 "thigh offset 0.08, thigh and calf 0.213 m; joints hip abduction (x), hip "
                 "flexion (y), knee (y) per leg; foot frames at the foot sphere centres.",
    "planar3": "Three revolute joints about z, links 0.5, 0.4 and 0.3 m, tip frame `tip`.",
}


# ----------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "..", "assets",
                                                                   "robots")))
    ap.add_argument("--check", action="store_true", help="also run check_urdf when installed")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)

    panda, panda_dh = make_panda()
    ur5e, ur_dh = make_ur5e()
    robots = [panda, ur5e, make_iiwa7(), make_dual_arm(), make_humanoid(), make_quadruped(),
              make_planar3()]
    registry = []
    stats = {}
    ok = True
    print("%-10s %5s %6s %9s %9s  %s" % ("robot", "dof", "links", "mesh tris", "prim tris",
                                         "mesh links by format"))
    for r in robots:
        st = write_robot(r, out)
        write_preset(r, out)
        stats[r.name] = st
        urdf = os.path.join(out, r.name, r.name + ".urdf")
        check_structure(r, urdf, out)
        total = st["mesh_triangles"] + st["primitive_triangles_estimate"]
        if total > MAX_TRIANGLES:
            print("ERROR: %s has %d triangles (limit %d)" % (r.name, total, MAX_TRIANGLES))
            ok = False
        print("%-10s %5d %6d %9d %9d  %s" % (r.name, len(r.movable()), len(r.links),
                                              st["mesh_triangles"],
                                              st["primitive_triangles_estimate"],
                                              ", ".join("%s %d" % kv for kv in
                                                        st["per_format"].items())))
        if args.check:
            print("           " + run_check_urdf(urdf))
        registry.append({"name": r.name, "title": r.title,
                         "urdf": "%s/%s.urdf" % (r.name, r.name),
                         "preset": "%s/preset.json" % r.name,
                         "description": r.description, "floating_base": r.floating_base,
                         "end_effectors": r.end_effectors, "default": r.default,
                         "dof": len(r.movable())})
    with open(os.path.join(out, "robots.json"), "w", newline="\n") as fh:
        fh.write(to_json(registry) + "\n")
    with open(os.path.join(out, "README.md"), "w", newline="\n") as fh:
        fh.write(readme_text(robots, stats) + "\n")

    # ---- forward-kinematics self-check
    print("\nFK self-check (positions in the root frame, metres)")
    X = panda.fk()
    fl, tcp = X["panda_link8"].t, X["panda_hand_tcp"].t
    print("panda q=0: flange %s (expect (0.0880, 0, 0.9260)); tcp %s (expect (0.0880, 0, 0.8226))"
          % (fmt_p(fl), fmt_p(tcp)))
    ok &= v_norm(v_sub(fl, (0.088, 0, 0.926))) < 1e-9
    ok &= v_norm(v_sub(tcp, (0.088, 0, 0.926 - 0.1034))) < 1e-9
    err = panda_dh_check(panda, panda_dh)
    print("panda URDF vs modified DH, 20 random q: max |difference| %.2e" % err)
    ok &= err < 1e-9
    Xr = panda.fk(panda.rest)
    print("panda rest: tcp %s" % fmt_p(Xr["panda_hand_tcp"].t))

    X = ur5e.fk()
    tb = (X["base"].inv() * X["tool0"]).t
    tl = X["tool0"].t
    print("ur5e q=0: tool0 in base %s (expect (-0.8172, -0.2329, 0.0628)); in base_link %s"
          % (fmt_p(tb), fmt_p(tl)))
    ok &= v_norm(v_sub(tb, (-0.8172, -0.2329, 0.0628))) < 1e-9
    ep, eR = ur_dh_check(ur5e, ur_dh)
    print("ur5e tool0 (in base) vs standard DH, 20 random q: position %.2e, rotation %.2e"
          % (ep, eR))
    ok &= ep < 1e-9 and eR < 1e-9
    print("ur5e rest: tool0 in base_link %s" % fmt_p(ur5e.fk(ur5e.rest)["tool0"].t))

    for r in robots[2:]:
        X0, Xr = r.fk(), r.fk(r.rest)
        for e in r.end_effectors:
            print("%-9s %-12s q=0 %s   rest %s" % (r.name, e, fmt_p(X0[e].t), fmt_p(Xr[e].t)))
    X = robots[2].fk()
    ok &= v_norm(v_sub(X["iiwa_link_ee"].t, (0, 0, 1.266))) < 1e-9
    if not ok:
        print("SELF-CHECK FAILED")
        return 1
    print("self-check ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
