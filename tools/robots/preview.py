#!/usr/bin/env python3
"""Renders a quick preview PNG of a generated robot from its files (URDF + STL/OBJ/DAE meshes +
URDF primitives), at its preset's rest posture. Standard library only; slow but fine for the
few thousand triangles of our robots. It reads the files the way a loader would, so it doubles
as a check of what generate.py wrote.

    python3 tools/robots/preview.py assets/robots/panda/panda.urdf out.png [--zero] [--view az el]
"""

import argparse
import json
import math
import os
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

sys.dont_write_bytecode = True  # keep tools/robots free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402  (math helpers and primitive meshes)


def floats(s):
    return [float(x) for x in s.split()]


def load_stl(path):
    data = open(path, "rb").read()
    tris = []
    if data[:5] == b"solid" and b"facet" in data[:300]:
        verts = [tuple(floats(l.split(None, 1)[1])) for l in data.decode().splitlines()
                 if l.strip().startswith("vertex")]
        return [(verts[i], verts[i + 1], verts[i + 2], None) for i in range(0, len(verts), 3)]
    n = struct.unpack("<I", data[80:84])[0]
    assert len(data) == 84 + 50 * n, path
    for k in range(n):
        v = struct.unpack("<12f", data[84 + 50 * k: 84 + 50 * k + 48])
        tris.append((v[3:6], v[6:9], v[9:12], None))
    return tris


def load_obj(path):
    mtl = {}
    cur = None
    vs, tris = [], []
    color = None
    for line in open(path):
        p = line.split()
        if not p:
            continue
        if p[0] == "mtllib":
            for l in open(os.path.join(os.path.dirname(path), p[1])):
                q = l.split()
                if q and q[0] == "newmtl":
                    cur = q[1]
                elif q and q[0] == "Kd":
                    mtl[cur] = tuple(float(x) for x in q[1:4])
        elif p[0] == "v":
            vs.append(tuple(float(x) for x in p[1:4]))
        elif p[0] == "usemtl":
            color = mtl[p[1]]
        elif p[0] == "f":
            idx = [int(x.split("/")[0]) - 1 for x in p[1:]]
            tris.append((vs[idx[0]], vs[idx[1]], vs[idx[2]], color))
    return tris


def load_dae(path):
    ns = "{http://www.collada.org/2005/11/COLLADASchema}"
    root = ET.parse(path).getroot()
    colors = {}
    for eff in root.iter(ns + "effect"):
        c = eff.find(".//" + ns + "diffuse/" + ns + "color")
        colors["#" + eff.get("id")] = tuple(floats(c.text)[:3])
    mat = {"#" + m.get("id"): colors[m.find(ns + "instance_effect").get("url")]
           for m in root.iter(ns + "material")}
    sym = {}
    for im in root.iter(ns + "instance_material"):
        sym[im.get("symbol")] = mat[im.get("target")]
    tris = []
    for geom in root.iter(ns + "geometry"):
        mesh = geom.find(ns + "mesh")
        src = {}
        for s in mesh.findall(ns + "source"):
            src["#" + s.get("id")] = floats(s.find(ns + "float_array").text)
        vert = mesh.find(ns + "vertices")
        pos = src[vert.find(ns + "input").get("source")]
        for t in mesh.findall(ns + "triangles"):
            inputs = t.findall(ns + "input")
            stride = max(int(i.get("offset")) for i in inputs) + 1
            p = [int(x) for x in t.find(ns + "p").text.split()]
            idx = p[0::stride]
            c = sym.get(t.get("material"))
            for k in range(0, len(idx), 3):
                a, b, d = (tuple(pos[3 * i: 3 * i + 3]) for i in idx[k: k + 3])
                tris.append((a, b, d, c))
    return tris


def robot_tris(urdf_path, q):
    root = ET.parse(urdf_path).getroot()
    base = os.path.dirname(urdf_path)
    mats = {}
    for m in root.findall("material"):
        mats[m.get("name")] = tuple(floats(m.find("color").get("rgba"))[:3])
    joints = root.findall("joint")
    children = {j.find("child").get("link") for j in joints}
    links = [l.get("name") for l in root.findall("link")]
    X = {[l for l in links if l not in children][0]: g.Tf()}
    pending = list(joints)
    while pending:
        rest = []
        for j in pending:
            p = j.find("parent").get("link")
            if p not in X:
                rest.append(j)
                continue
            o = j.find("origin")
            T = g.Tf.xyz_rpy(floats(o.get("xyz")), floats(o.get("rpy")))
            val = q.get(j.get("name"), 0.0)
            m = j.find("mimic")
            if m is not None:
                val = float(m.get("multiplier", 1)) * q.get(m.get("joint"), 0.0) + \
                    float(m.get("offset", 0))
            if j.get("type") in ("revolute", "continuous"):
                T = T * g.Tf(g.rot_axis(floats(j.find("axis").get("xyz")), val))
            elif j.get("type") == "prismatic":
                T = T * g.Tf(g.IDENTITY, g.v_scale(floats(j.find("axis").get("xyz")), val))
            X[j.find("child").get("link")] = X[p] * T
        pending = rest
    out = []
    for l in root.findall("link"):
        for vis in l.findall("visual"):
            o = vis.find("origin")
            T = X[l.get("name")] * g.Tf.xyz_rpy(floats(o.get("xyz")), floats(o.get("rpy")))
            geo = vis.find("geometry")[0]
            color = None
            m = vis.find("material")
            if m is not None:
                c = m.find("color")
                color = tuple(floats(c.get("rgba"))[:3]) if c is not None else mats[m.get("name")]
            if geo.tag == "mesh":
                fn = geo.get("filename")
                if fn.startswith("package://"):
                    fn = os.path.join(os.path.dirname(base), fn[len("package://"):])
                else:
                    fn = os.path.join(base, fn)
                ext = fn.rsplit(".", 1)[1]
                tris = {"stl": load_stl, "obj": load_obj, "dae": load_dae}[ext](fn)
            else:
                if geo.tag == "box":
                    mesh = g.mesh_box(floats(geo.get("size")))
                elif geo.tag == "cylinder":
                    mesh = g.mesh_cylinder(float(geo.get("length")), float(geo.get("radius")), 20)
                else:
                    mesh = g.mesh_sphere(float(geo.get("radius")), 20, 10)
                tris = [(mesh.v[a], mesh.v[b], mesh.v[c], None) for a, b, c in mesh.f]
            for a, b, c, col in tris:
                out.append((T.apply(a), T.apply(b), T.apply(c), color or col or (0.7, 0.7, 0.7)))
    return out


def render(tris, path, size=640, az=-35.0, el=20.0):
    ca, sa = math.cos(math.radians(az)), math.sin(math.radians(az))
    ce, se = math.cos(math.radians(el)), math.sin(math.radians(el))

    def view(p):  # camera looking along -forward; x right, y up, z toward the viewer
        x, y, z = p
        xr = ca * x - sa * y
        yr = sa * x + ca * y
        return (xr, se * yr + ce * z, -ce * yr + se * z)

    vt = [(view(a), view(b), view(c), col) for a, b, c, col in tris]
    xs = [p[0] for t in vt for p in t[:3]]
    ys = [p[1] for t in vt for p in t[:3]]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) * 1.08
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    s = size / span
    W = H = size
    zbuf = [-1e9] * (W * H)
    img = bytearray([235, 238, 242] * (W * H))
    light = g.v_unit((0.4, 0.6, 0.7))
    for a, b, c, col in vt:
        n = g.v_cross(g.v_sub(b, a), g.v_sub(c, a))
        if n[2] <= 0 or g.v_norm(n) == 0:
            continue  # back face
        n = g.v_unit(n)
        shade = 0.35 + 0.65 * max(0.0, g.v_dot(n, light))
        rgb = bytes(min(255, int(255 * ch * shade)) for ch in col)
        P = [((p[0] - cx) * s + W / 2, H / 2 - (p[1] - cy) * s, p[2]) for p in (a, b, c)]
        x0, x1 = max(0, int(min(p[0] for p in P))), min(W - 1, int(max(p[0] for p in P)) + 1)
        y0, y1 = max(0, int(min(p[1] for p in P))), min(H - 1, int(max(p[1] for p in P)) + 1)
        (ax, ay, az_), (bx, by, bz), (qx, qy, qz) = P
        den = (by - qy) * (ax - qx) + (qx - bx) * (ay - qy)
        if abs(den) < 1e-12:
            continue
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                px, py = x + 0.5, y + 0.5
                w0 = ((by - qy) * (px - qx) + (qx - bx) * (py - qy)) / den
                w1 = ((qy - ay) * (px - qx) + (ax - qx) * (py - qy)) / den
                w2 = 1 - w0 - w1
                if w0 < 0 or w1 < 0 or w2 < 0:
                    continue
                z = w0 * az_ + w1 * bz + w2 * qz
                k = y * W + x
                if z > zbuf[k]:
                    zbuf[k] = z
                    img[3 * k: 3 * k + 3] = rgb
    raw = b"".join(b"\x00" + bytes(img[3 * W * y: 3 * W * (y + 1)]) for y in range(H))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + \
            struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as fh:
        fh.write(png)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("urdf")
    ap.add_argument("png")
    ap.add_argument("--zero", action="store_true", help="q = 0 instead of the preset's rest")
    ap.add_argument("--view", nargs=2, type=float, default=(-35.0, 20.0), metavar=("AZ", "EL"))
    ap.add_argument("--size", type=int, default=560)
    a = ap.parse_args()
    q = {}
    preset = os.path.join(os.path.dirname(a.urdf), "preset.json")
    if not a.zero and os.path.isfile(preset):
        q = json.load(open(preset))["rest"]
    tris = robot_tris(a.urdf, q)
    render(tris, a.png, a.size, a.view[0], a.view[1])
    print("%s: %d triangles -> %s" % (a.urdf, len(tris), a.png))


if __name__ == "__main__":
    main()
