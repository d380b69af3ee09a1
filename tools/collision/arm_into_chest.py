"""How far the humanoid's left arm can be pulled into its chest with self collision hard.

Solves 48 left-hand targets in and around the torso (x 0 / 0.06 / 0.12, y -0.16..0.08, z
0.12..0.42 m in the pelvis frame of assets/demos/humanoid_stance.json) with `ikwb solve --scene`,
the scene's self_collision objective made hard, then `ikwb fk` of the answers, and measures how
deep the left upper arm, forearm and hand (their collision capsules, from `ikwb info
--capsules`) reach into the chest as drawn: the rounded box of tools/robots/generate.py (0.2 x
0.26 x 0.24 m, corners rounded 0.07 m, centred 0.26 m above the torso frame). Prints the largest
depths, how many answers reach more than 1 cm in, and the hand's median miss.
usage: python3 tools/collision/arm_into_chest.py [BUILD_DIR] [CHEST_WIDTH]
(CHEST_WIDTH: the chest box's y size to measure against, default 0.26; IKWB_ASSETS, as for
ikwb, picks the robots measured)
"""
import csv
import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build"
half = (0.1, 0.5 * float(sys.argv[2]) if len(sys.argv) > 2 else 0.13, 0.12)
centre, rounding = (0.0, 0.0, 0.26), 0.07
root = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
assets = os.environ.get("IKWB_ASSETS") or os.path.join(root, "assets")
ikwb = os.path.join(build, "ikwb")
tmp = tempfile.mkdtemp()


def run(*args):
    subprocess.run([ikwb, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rotate(q, v):
    x, y, z, w = q
    t = (2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0]))
    return (v[0] + w * t[0] + y * t[2] - z * t[1], v[1] + w * t[1] + z * t[0] - x * t[2],
            v[2] + w * t[2] + x * t[1] - y * t[0])


def chest_sdf(p):
    q = [abs(p[i] - centre[i]) - (half[i] - rounding) for i in range(3)]
    outside = math.sqrt(sum(max(c, 0.0) ** 2 for c in q))
    return outside + min(max(q), 0.0) - rounding


scene = json.load(open(os.path.join(assets, "demos", "humanoid_stance.json")))
scene["srdf"] = os.path.join(assets, "robots", "humanoid", "humanoid.srdf")
for o in scene["objectives"]:
    if o["type"] == "self_collision":
        o["hard"] = True
json.dump(scene, open(os.path.join(tmp, "scene.json"), "w"))
targets = list(itertools.product((0.0, 0.06, 0.12), (-0.16, -0.08, 0.0, 0.08),
                                 (0.12, 0.22, 0.32, 0.42)))
with open(os.path.join(tmp, "targets.csv"), "w") as f:
    f.write("left hand.x,left hand.y,left hand.z\n")
    f.writelines("%g,%g,%g\n" % t for t in targets)
run("solve", "--scene", os.path.join(tmp, "scene.json"), "--targets",
    os.path.join(tmp, "targets.csv"), "--out", os.path.join(tmp, "q.csv"))
run("fk", "humanoid", "--floating-base", "--q", os.path.join(tmp, "q.csv"), "--out",
    os.path.join(tmp, "poses.csv"))
info = subprocess.run([ikwb, "info", "humanoid", "--capsules", "--json"], check=True,
                      capture_output=True, text=True).stdout
capsules = {b["name"]: b["capsules"] for b in json.loads(info)["bodies"]}
poses = {}
for r in csv.DictReader(open(os.path.join(tmp, "poses.csv"))):
    poses.setdefault(int(r["config"]), {})[r["body"]] = (
        tuple(float(r[k]) for k in "xyz"), tuple(float(r[k]) for k in ("qx", "qy", "qz", "qw")))
answers = list(csv.DictReader(open(os.path.join(tmp, "q.csv"))))
depth = {"left_upper_arm": [], "left_forearm": [], "left_hand": []}
for c in sorted(poses):
    tp, tq = poses[c]["torso"]
    tq_inv = (-tq[0], -tq[1], -tq[2], tq[3])
    for link in depth:
        lp, lq = poses[c][link]
        worst = -math.inf
        for cap in capsules[link]:
            for i in range(41):
                s = i / 40
                local = [(1 - s) * a + s * b for a, b in zip(cap["p0"], cap["p1"])]
                world = [p + d for p, d in zip(lp, rotate(lq, local))]
                in_torso = rotate(tq_inv, [w - p for w, p in zip(world, tp)])
                worst = max(worst, cap["radius"] - chest_sdf(in_torso))
        depth[link].append(worst)
for link, d in depth.items():
    print("%-15s deepest %5.1f mm into the chest, more than 1 cm in %d of %d answers" %
          (link, 1000 * max(d), sum(x > 0.01 for x in d), len(d)))
print("left hand miss: median %.1f mm, %d of %d reached" %
      (1000 * statistics.median(float(a["pos_err"]) for a in answers),
       sum(a["converged"] == "1" for a in answers), len(answers)))
shutil.rmtree(tmp)
