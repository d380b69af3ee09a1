#!/usr/bin/env python3
"""MJCF robots: `ikwb fk` against MuJoCo's own forward kinematics.

Every MJCF file given (or every robots/*/robot.xml of the robosuite wheel, downloaded with
`pip download --no-deps robosuite`) is loaded by `ikwb` (MuJoCo 2.2.2's compiler, Debian) and by
the `mujoco` PyPI package (a newer MuJoCo: an independent compile); at random configurations
within the joint ranges, every body's world position and orientation are compared. Writes a
Markdown table (docs/robot_sweep.md by default).

    python3 -m venv /tmp/sweep && /tmp/sweep/bin/pip install mujoco numpy
    /tmp/sweep/bin/python tools/compare/mjcf_sweep.py --ikwb build/ikwb --robosuite WHEEL.whl
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import mujoco
import numpy as np


def random_qpos(m, rng):
    q = m.qpos0.copy()
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = rng.uniform(-1, 1, 3)
            v = rng.normal(size=4)
            q[a + 3:a + 7] = v / np.linalg.norm(v)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            v = rng.normal(size=4)
            q[a:a + 4] = v / np.linalg.norm(v)
        else:
            lo, hi = m.jnt_range[j] if m.jnt_limited[j] else (-np.pi, np.pi)
            q[a] = rng.uniform(lo, hi)
    return q


def angle_between(a, b):
    """rotation angle between unit quaternions a, b (w first), well conditioned near zero"""
    w = a[0] * b[0] + np.dot(a[1:], b[1:])
    v = a[0] * b[1:] - b[0] * a[1:] - np.cross(a[1:], b[1:])
    return 2 * float(np.arctan2(np.linalg.norm(v), abs(w)))


def to_ours(m, d_qpos, info):
    """MuJoCo's qpos as our q (q_start order, quaternions w last); None for mimic joints"""
    q = [0.0] * info["joint_coord_count"]
    by_name = {j["name"]: j for j in info["joints"]}
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint_{j}"
        ours = by_name[name]
        if ours["coord_count"] == 0:
            continue
        a, s = m.jnt_qposadr[j], ours["q_start"]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[s:s + 3] = d_qpos[a:a + 3]
            w, x, y, z = d_qpos[a + 3:a + 7]
            q[s + 3:s + 7] = [x, y, z, w]
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            w, x, y, z = d_qpos[a:a + 4]
            q[s:s + 4] = [x, y, z, w]
        else:
            q[s] = d_qpos[a]
    return q


def compare(ikwb, path, configs, seed):
    info = json.loads(subprocess.run([ikwb, "info", path, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    ours, want = [], []
    for _ in range(configs):
        d.qpos[:] = random_qpos(m, rng)
        mujoco.mj_kinematics(m, d)
        ours.append(to_ours(m, d.qpos, info))
        want.append({(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) or f"body_{b}"):
                     (d.xpos[b].copy(), d.xquat[b].copy()) for b in range(1, m.nbody)})
    with tempfile.TemporaryDirectory() as tmp:
        qf, pf = os.path.join(tmp, "q.csv"), os.path.join(tmp, "p.csv")
        with open(qf, "w") as f:
            for q in ours:
                f.write(",".join(repr(float(v)) for v in q) + "\n")
        subprocess.run([ikwb, "fk", path, "--q", qf, "--out", pf], check=True, capture_output=True)
        pos_err = rot_err = 0.0
        bodies = 0
        with open(pf) as f:
            for row in csv.DictReader(f):
                w = want[int(row["config"])].get(row["body"])
                if w is None:
                    continue  # a body of ours between two joints of one MuJoCo body
                bodies += 1
                p = np.array([float(row[k]) for k in "xyz"])
                q = np.array([float(row["qw"]), float(row["qx"]), float(row["qy"]),
                              float(row["qz"])])
                pos_err = max(pos_err, float(np.linalg.norm(p - w[0])))
                rot_err = max(rot_err, angle_between(q, w[1]))
    return info, m, pos_err, rot_err, bodies // configs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ikwb", default="build/ikwb")
    ap.add_argument("--robosuite", help="robosuite wheel: sweep its robots/*/robot.xml")
    ap.add_argument("files", nargs="*", help="MJCF files")
    ap.add_argument("--configs", type=int, default=50)
    ap.add_argument("--out", default="docs/robot_sweep.md")
    args = ap.parse_args()
    files = list(args.files)
    tmp = tempfile.mkdtemp()
    if args.robosuite:
        with zipfile.ZipFile(args.robosuite) as z:
            z.extractall(tmp)
        root = os.path.join(tmp, "robosuite", "models", "assets", "robots")
        files += sorted(os.path.join(root, r, "robot.xml") for r in os.listdir(root)
                        if os.path.isfile(os.path.join(root, r, "robot.xml")))
    rows = []
    for i, path in enumerate(files):
        name = os.path.basename(os.path.dirname(path)) if args.robosuite else path
        try:
            info, m, pe, re_, nb = compare(args.ikwb, path, args.configs, seed=i)
            warn = len(info["warnings"])
            rows.append(f"| {name} | {m.nbody - 1} | {m.njnt} | {info['joint_coord_count']} | "
                        f"{nb} | {pe:.1e} | {re_:.1e} | {warn} |")
        except subprocess.CalledProcessError as e:
            why = (e.stderr.decode() if isinstance(e.stderr, bytes) else e.stderr).strip()
            rows.append(f"| {name} | | | | | not loaded: {why.splitlines()[-1][:160]} | | |")
        print(rows[-1], flush=True)
    with open(args.out, "w") as f:
        f.write("# MJCF robots: `ikwb fk` against MuJoCo's forward kinematics\n\n")
        f.write(f"Generated by `tools/compare/mjcf_sweep.py` (MuJoCo {mujoco.__version__} from "
                f"PyPI as the reference; ikwb compiles with Debian's MuJoCo 2.2.2), "
                f"{args.configs} random configurations within the joint ranges per robot, every "
                "body compared. The robots are robosuite 1.5.2's `robots/*/robot.xml` "
                "(`pip download --no-deps robosuite`) when `--robosuite` is given. Load warnings "
                "are attributes newer than MuJoCo 2.2.2 that ikwb dropped (README, MJCF).\n\n"
                "```\n" + " ".join(["python3", "tools/compare/mjcf_sweep.py"] + sys.argv[1:]) +
                "\n```\n\n")
        f.write("| robot | MuJoCo bodies | joints | our coordinates | bodies compared | "
                "max position error (m) | max rotation error (rad) | load warnings |\n")
        f.write("|---|---|---|---|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
