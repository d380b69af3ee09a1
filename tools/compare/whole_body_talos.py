#!/usr/bin/env python3
"""Whole-body solves on Talos through `ikwb solve --scene` (issue 15, Measured).

The problem is the humanoid preset's (tests/bench/whole_body_bench.cpp) on Talos
(example-robot-data's talos_reduced.urdf, visuals and collisions stripped, floating base):
  - both soles fixed: hard pose objectives on left_sole_link / right_sole_link at their
    half-sitting poses (the SRDF's "half_sitting", which is also where every solve starts);
  - the support polygon hard: the corners of each sole (+-0.105 m, +-0.065 m in the sole frame,
    the 0.21 x 0.13 m sole box of talos_reduced_box.urdf), margin 0.02 m;
  - the hands (arm_left_7_link, arm_right_7_link) soft pose objectives at random reachable
    targets; a posture objective towards half-sitting (null space) and soft joint limits;
  - the solver block of the humanoid preset (16 seeds, Roberts sampler, 20 iterations per seed
    and restart) over `ikwb solve`'s defaults (up to 50 restarts, stall window 10), one thread.
Targets: half-sitting with every joint not between the root and a sole (torso, head, arms,
grippers) drawn uniformly within its limits; Pinocchio's FK of that configuration gives the
hands' poses. A draw whose centre of mass (Pinocchio's) lies outside the polygon shrunk by the
margin is thrown away, so every row has a configuration meeting every hard objective.

Every answer is checked again with Pinocchio: soles within 1e-4 m / 1e-3 rad of their poses,
hands within 1e-4 m / 1e-3 rad of their targets, the CoM's ground projection inside the
polygon shrunk by the margin (to 1e-4 m), every joint inside its limits (to 1e-6). Runs with
the preset's 16 seeds and with 1 seed (then `iterations` in OUT.csv counts every LM iteration of
the problem, restarts included, so time per LM iteration is exact). Times: CPU time of the
`ikwb solve` process less that of the same command without a problem (load, scene, CSV: the
least of three runs), and the solve's wall time as `ikwb solve` prints it; on a shared machine
the wall time also counts waiting for a core.

    .venv-compare/bin/python tools/compare/whole_body_talos.py --ikwb build/ikwb [--problems 100]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import sys
import time
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import Robot, quat_to_mat, robots_dir, rot_angle, run  # noqa: E402

SOLES = ("left_sole_link", "right_sole_link")
HANDS = (("left_hand", "arm_left_7_link"), ("right_hand", "arm_right_7_link"))
CORNERS = [(sx * 0.105, sy * 0.065, 0.0) for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))]
MARGIN = 0.02
TOL_POS, TOL_ROT = 1e-4, 1e-3


def strip(src, dst):
    tree = ET.parse(src)
    for link in tree.getroot().findall("link"):
        for tag in ("visual", "collision"):
            for e in link.findall(tag):
                link.remove(e)
    tree.write(dst)


def half_sitting(srdf):
    root = ET.parse(srdf).getroot()
    gs = next(g for g in root.iter("group_state") if g.get("name") == "half_sitting")
    return {j.get("name"): [float(v) for v in j.get("value").split()] for j in gs.iter("joint")}


def hull(points):
    """convex hull of 2D points, counter-clockwise (monotone chain)"""
    pts = sorted(map(tuple, points))
    def half(seq):
        out = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) -
                                     (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out
    lo, up = half(pts), half(reversed(pts))
    return np.array(lo[:-1] + up[:-1])


def inside_margin(h, c):
    """signed distance of c inside every edge of the ccw hull h, minimum over edges"""
    d = math.inf
    for i in range(len(h)):
        a, b = h[i], h[(i + 1) % len(h)]
        e = b - a
        n = np.array([-e[1], e[0]]) / np.linalg.norm(e)  # inward normal (ccw)
        d = min(d, float(n @ (c - a)))
    return d


class Talos:
    def __init__(self, urdf, ikwb):
        self.info = json.loads(run([ikwb, "info", urdf, "--json", "--floating-base"]).stdout)
        self.pm = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
        self.rob = Robot(self.info, self.pm)
        self.pd = self.rob.pd
        self.fid = {n: self.pm.getFrameId(n, pin.FrameType.BODY)
                    for n in SOLES + tuple(link for _, link in HANDS)}

    def frames(self, q):
        qp = self.rob.to_pin(q)
        pin.framesForwardKinematics(self.pm, self.pd, qp)
        c = pin.centerOfMass(self.pm, self.pd, qp, False)
        return {n: self.pd.oMf[i].copy() for n, i in self.fid.items()}, c.copy()

    def polygon(self, frames):
        pts = [(frames[s].act(np.array(p)))[:2] for s in SOLES for p in CORNERS]
        return hull(pts)

    def fixed_joints(self):
        """joints between the root and a sole (kept at half-sitting when drawing targets)"""
        by_child = {j["child"]: j for j in self.info["joints"]}
        out = set()
        for s in SOLES:
            link = s
            while link in by_child:
                j = by_child[link]
                out.add(j["name"])
                link = j["parent"]
        return out


def scene_json(urdf, hs):
    joints = {k: (v if len(v) > 1 else v[0]) for k, v in hs.items()}
    pose = lambda name, link, hard: {"type": "pose", "name": name, "link": link,  # noqa: E731
                                     "offset": [0, 0, 0], "weight": 1.0, "hard": hard,
                                     "target": "current"}
    return {
        "version": 1, "robot": urdf, "floating_base": True, "joint_q": joints, "rest": joints,
        "objectives": [
            pose("left_foot", SOLES[0], True), pose("right_foot", SOLES[1], True),
            *[pose(name, link, False) for name, link in HANDS],
            {"type": "posture", "name": "posture", "weight": 1.0, "hard": False,
             "null_space": True},
            {"type": "joint_limits", "name": "joint limits", "weight": 1.0, "hard": False},
            {"type": "support_polygon", "name": "balance", "margin": MARGIN, "weight": 1.0,
             "hard": True,
             "contacts": [{"link": s, "points": [list(p) for p in CORNERS]} for s in SOLES]}],
        "solver": {"n_seeds": 16, "sampler": "roberts", "iterations": 20}}


def solve(args, scene, targets, out, extra):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = run([args.ikwb, "solve", "--scene", scene, "--targets", targets, "--out", out,
             "--threads", "1", *extra])
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = re.search(r"solved (\d+)/(\d+) .* in ([0-9.]+) s", p.stdout)
    return {"claimed": int(m.group(1)), "n": int(m.group(2)), "solve_wall_s": float(m.group(3)),
            "process_wall_s": wall,
            "process_cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "summary": p.stdout.strip()}


def verify(talos, f0, targets, out):
    """re-checks every answer with Pinocchio; returns (count meeting everything, iterations of
    each row, the worst of each check)"""
    with open(out) as f:
        next(f)
        rows = [[float(x) for x in line.split(",")] for line in f if line.strip()]
    h0 = talos.polygon(f0)
    ok, iters = 0, []
    worst = {"sole_pos": 0.0, "sole_rot": 0.0, "hand_pos": 0.0, "hand_rot": 0.0,
             "com_margin": math.inf, "limits": -math.inf}
    for t, row in zip(targets, rows):
        q = np.array(row[4:])
        iters.append(row[3])
        fr, c = talos.frames(q)
        e = {"sole_pos": max(np.linalg.norm(fr[s].translation - f0[s].translation) for s in SOLES),
             "sole_rot": max(rot_angle(fr[s].rotation, f0[s].rotation) for s in SOLES),
             "hand_pos": max(np.linalg.norm(fr[link].translation - t[7 * k:7 * k + 3])
                             for k, (_, link) in enumerate(HANDS)),
             "hand_rot": max(rot_angle(fr[link].rotation, quat_to_mat(t[7 * k + 3:7 * k + 7]))
                             for k, (_, link) in enumerate(HANDS)),
             # the soles stay put (checked above), so the polygon is half-sitting's
             "com_margin": inside_margin(h0, c[:2]) - MARGIN,
             "limits": talos.rob.outside(q)}
        good = (e["sole_pos"] <= TOL_POS and e["sole_rot"] <= TOL_ROT and e["hand_pos"] <= TOL_POS
                and e["hand_rot"] <= TOL_ROT and e["com_margin"] >= -1e-4 and e["limits"] <= 1e-6)
        ok += int(good)
        for k, v in e.items():
            worst[k] = float(min(worst[k], v) if k == "com_margin" else max(worst[k], v))
    return ok, iters, worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ikwb", required=True)
    ap.add_argument("--problems", type=int, default=100)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--work", default="/tmp/whole_body_talos")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    erd = robots_dir()
    urdf = os.path.join(args.work, "talos_reduced.urdf")
    strip(os.path.join(erd, "talos_data/robots/talos_reduced.urdf"), urdf)
    talos = Talos(urdf, args.ikwb)
    hs = half_sitting(os.path.join(erd, "talos_data/srdf/talos.srdf"))

    # half-sitting in our coordinates
    q0 = np.zeros(talos.rob.nq)
    for j in talos.info["joints"]:
        if j["name"] in hs:
            q0[j["q_start"]:j["q_start"] + j["coord_count"]] = hs[j["name"]]
    f0, c0 = talos.frames(q0)
    h0 = talos.polygon(f0)
    print(f"half-sitting: CoM {inside_margin(h0, c0[:2]):.4f} m inside the sole polygon")

    scene = os.path.join(args.work, "talos_whole_body.json")
    with open(scene, "w") as f:
        json.dump(scene_json(urdf, hs), f, indent=1)

    # random reachable hand targets
    rng = np.random.default_rng(args.seed)
    fixed = talos.fixed_joints()
    free = [j for j in talos.info["joints"]
            if j["coord_count"] == 1 and not j["mimic"] and j["name"] not in fixed]
    targets, rejected = [], 0
    while len(targets) < args.problems:
        q = q0.copy()
        for j in free:
            lo, hi = talos.rob.lower[j["q_start"]], talos.rob.upper[j["q_start"]]
            q[j["q_start"]] = rng.uniform(lo, hi)
        fr, c = talos.frames(q)
        if inside_margin(h0, c[:2]) < MARGIN:
            rejected += 1
            continue
        row = []
        for _, link in HANDS:
            row += list(fr[link].translation) + list(pin.Quaternion(fr[link].rotation).coeffs())
        targets.append(np.array(row))
    kept = sum(1 for j in talos.info["joints"] if j["name"] in fixed and j["coord_count"])
    tcsv = os.path.join(args.work, "targets.csv")
    with open(tcsv, "w") as f:
        f.write(",".join(f"{n}.{a}" for n, _ in HANDS
                         for a in ("x", "y", "z", "qx", "qy", "qz", "qw")) + "\n")
        for r in targets:
            f.write(",".join("%.17g" % v for v in r) + "\n")
    print(f"{args.problems} targets ({rejected} draws rejected: CoM off the feet); "
          f"{len(free)} joints drawn, {kept} kept (legs, root)")

    # the process's own cost (load, scene, CSV) with one problem (ikwb solve refuses a targets
    # file without one), taken off the CPU time below, which then counts the other n - 1
    one = os.path.join(args.work, "targets_one.csv")
    with open(tcsv) as f, open(one, "w") as g:
        g.write(f.readline())
        g.write(f.readline())
    base = min(solve(args, scene, one, os.path.join(args.work, "out_one.csv"), [])
               ["process_cpu_s"] for _ in range(3))
    results = {"problems": args.problems, "rejected_draws": rejected, "base_cpu_s": base,
               "runs": {}}
    for label, extra in (("16 seeds (preset)", []), ("1 seed", ["--seeds", "1"])):
        out = os.path.join(args.work, "out_" + label.split()[0] + ".csv")
        r = solve(args, scene, tcsv, out, extra)
        ok, iters, worst = verify(talos, f0, targets, out)
        n = r["n"]
        cpu = (r["process_cpu_s"] - base) * n / max(n - 1, 1)  # the n problems' CPU time
        r.update(verified=ok, worst=worst, best_seed_iters_mean=float(np.mean(iters)),
                 s_per_solve=r["solve_wall_s"] / n, cpu_s_per_solve=cpu / n)
        if extra:
            r["s_per_lm_iter"] = r["solve_wall_s"] / float(np.sum(iters))
            r["cpu_s_per_lm_iter"] = cpu / float(np.sum(iters))
        results["runs"][label] = r
        print(f"{label}: {r['summary']}")
        print(f"  Pinocchio check: {ok}/{n} meet every objective; worst: soles "
              f"{worst['sole_pos']:.1e} m {worst['sole_rot']:.1e} rad, hands "
              f"{worst['hand_pos']:.1e} m {worst['hand_rot']:.1e} rad, CoM "
              f"{worst['com_margin']:+.1e} m inside the shrunk polygon, limits "
              f"{worst['limits']:+.1e}")
        line = (f"  per solve: {r['cpu_s_per_solve'] * 1e3:.1f} ms CPU, "
                f"{r['s_per_solve'] * 1e3:.1f} ms wall; LM iterations of the winning seed "
                f"{r['best_seed_iters_mean']:.0f} per solve")
        if extra:
            line += (f"; per LM iteration {r['cpu_s_per_lm_iter'] * 1e6:.1f} us CPU, "
                     f"{r['s_per_lm_iter'] * 1e6:.1f} us wall")
        print(line)
        print(f"  whole process: {r['process_wall_s']:.2f} s wall, {r['process_cpu_s']:.2f} s CPU "
              f"(of which {base:.2f} s for a run of one problem)")
    with open(os.path.join(args.work, "whole_body_talos.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
