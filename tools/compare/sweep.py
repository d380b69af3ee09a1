#!/usr/bin/env python3
"""Sweep every URDF of example-robot-data through ikwb and Pinocchio.

For each robots/**/*.urdf file (loaded with its meshes, package:// paths resolved):
  1. load:  `ikwb info --json` (ok / error, warnings) and pinocchio.buildModelFromUrdf (fixed
            base, mimic joints as independent joints fed the mimic value); joint limits compared;
            when ikwb warns about meshes, whether Pinocchio's buildGeomFromUrdf finds them.
  2. FK:    random configurations inside the limits ([-pi, pi] when unbounded), `ikwb fk` against
            Pinocchio's frames of type BODY, matched by link name: max position and rotation
            difference, links compared / missing on either side.
  3. IK:    end effector = deepest link (most movable joints, then most joints) of the tree;
            pose targets from Pinocchio FK of random configurations, `ikwb solve` with default
            settings (one thread), every answer re-checked with Pinocchio FK (success = position
            <= 1e-4 m, rotation <= 1e-3 rad, inside the limits); answers ikwb calls converged but
            Pinocchio does not ("mismatch") and answers outside the limits are counted.
            Skipped when the solve takes longer than --ik-timeout seconds.
One table row per URDF on stdout (wrn: ikwb warnings, * when Pinocchio loads the meshes ikwb
warned about; lm: joint limits that differ); details in WORK/sweep.json.

    .venv-compare/bin/python tools/compare/sweep.py --ikwb build-peer/ikwb [--only panda]
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import pinocchio as pin

TOL_POS, TOL_ROT = 1e-4, 1e-3  # `ikwb solve` defaults
LIMIT_EPS = 1e-9  # a returned joint further than this outside its limits is reported


def robots_dir():
    for c in glob.glob(os.path.join(sys.prefix, "lib", "python*", "site-packages", "cmeel.prefix",
                                    "share", "example-robot-data", "robots")):
        return c
    raise SystemExit("example-robot-data not found in this interpreter's prefix")


def run(cmd, timeout=None):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines() or ["(no output)"]
        raise RuntimeError(f"exit {p.returncode}: {lines[-1][:300]}")
    return p


def quat_to_mat(q):
    x, y, z, w = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def rot_angle(ra, rb):
    e = ra.T @ rb
    s = 0.5 * np.array([e[2, 1] - e[1, 2], e[0, 2] - e[2, 0], e[1, 0] - e[0, 1]])
    return math.atan2(np.linalg.norm(s), 0.5 * (np.trace(e) - 1.0))


def write_rows(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(",".join("%.17g" % v for v in r) + "\n")


class Robot:
    """our model from `ikwb info --json`, Pinocchio's model, and the q maps between them"""

    def __init__(self, info, pmodel):
        self.info, self.pm = info, pmodel
        self.pd = pmodel.createData()
        self.nq = info["joint_coord_count"]
        self.joints = {j["name"]: j for j in info["joints"]}
        self.lower = np.full(self.nq, -math.pi)
        self.upper = np.full(self.nq, math.pi)
        self.limited = np.zeros(self.nq, bool)
        self.free = []  # q_start of 7-coordinate joints
        for j in info["joints"]:
            qs, nc = j["q_start"], j["coord_count"]
            if nc == 1 and j["lower"] is not None and j["upper"] is not None:
                self.lower[qs], self.upper[qs], self.limited[qs] = j["lower"], j["upper"], True
            elif nc == 7:
                self.free.append(qs)
            elif nc not in (0, 1):
                raise RuntimeError(f"joint {j['name']}: {nc} coordinates not handled")
        self.lower = np.where(np.isfinite(self.lower), self.lower, -math.pi)
        self.upper = np.where(np.isfinite(self.upper), self.upper, math.pi)
        # Pinocchio joints by name -> (idx_q, nq); every one needs a counterpart here
        self.slots, self.missing_joints = [], []
        for name in list(pmodel.names)[1:]:
            jm = pmodel.joints[pmodel.getJointId(name)]
            if name not in self.joints:
                self.missing_joints.append(name)
            else:
                self.slots.append((name, jm.idx_q, jm.nq))
        self.ee_name = self.pick_ee()

    def pick_ee(self):
        depth = {}  # link -> (movable joints, joints) from the root
        for j in self.info["joints"]:  # breadth-first: parents come first
            d = depth.get(j["parent"], (0, 0)) if j["parent"] else (0, 0)
            movable = j["type"] != "fixed" and j["name"] != "root_joint"
            depth[j["child"]] = (d[0] + movable, d[1] + 1)
        best = max(depth.values())
        return [b for b, d in depth.items() if d == best][-1] if best[0] > 0 else None

    def value(self, q, name):
        """joint value in our q (mimic joints follow their source)"""
        j = self.joints[name]
        m = j["mimic"]
        if m:
            src = self.joints[m["joint"]]
            return m["multiplier"] * q[src["q_start"]] + m["offset"]
        return q[j["q_start"]]

    def random_q(self, n, rng):
        q = self.lower + rng.random((n, self.nq)) * (self.upper - self.lower)
        for qs in self.free:
            q[:, qs:qs + 3] = rng.uniform(-1, 1, (n, 3))
            u = rng.normal(size=(n, 4))
            q[:, qs + 3:qs + 7] = u / np.linalg.norm(u, axis=1, keepdims=True)
        return q

    def to_pin(self, q):
        out = pin.neutral(self.pm)
        for name, iq, nq in self.slots:
            j = self.joints[name]
            if nq == 1:
                out[iq] = self.value(q, name)
            elif nq == 2:  # unbounded revolute: cos, sin
                v = self.value(q, name)
                out[iq], out[iq + 1] = math.cos(v), math.sin(v)
            elif nq == 7 and j["coord_count"] == 7:  # x y z qx qy qz qw in both
                out[iq:iq + 7] = q[j["q_start"]:j["q_start"] + 7]
            else:
                raise RuntimeError(f"joint {name}: Pinocchio nq {nq}, ours {j['coord_count']}")
        return out

    def limit_mismatches(self):
        bad = []
        for name, iq, nq in self.slots:
            j = self.joints[name]
            if nq != 1 or j["coord_count"] != 1 or j["lower"] is None:
                continue
            pl, pu = self.pm.lowerPositionLimit[iq], self.pm.upperPositionLimit[iq]
            if abs(pl - j["lower"]) > 1e-12 or abs(pu - j["upper"]) > 1e-12:
                bad.append(f"{name}: ours [{j['lower']}, {j['upper']}] pin [{pl}, {pu}]")
        return bad

    def frames(self, qp):
        pin.framesForwardKinematics(self.pm, self.pd, qp)
        return self.pd.oMf

    def outside(self, q):
        over = np.maximum(self.lower - q, q - self.upper)
        return float(np.max(np.where(self.limited, over, -np.inf), initial=-np.inf))


def sweep_one(path, args, work, pkg):
    r = {"urdf": os.path.relpath(path, args.robots)}
    t0 = time.time()
    pp = sum((["--package-path", d] for d in pkg), [])
    try:
        info = json.loads(run([args.ikwb, "info", path, "--json", *pp]).stdout)
        r["ikwb"] = "ok"
        r["warnings"] = info.get("warnings", [])
    except Exception as e:  # noqa: BLE001
        info, r["ikwb"], r["warnings"] = None, str(e), []
    try:
        pmodel = pin.buildModelFromUrdf(path)
        r["pin"] = "ok"
    except Exception as e:  # noqa: BLE001
        pmodel, r["pin"] = None, f"{type(e).__name__}: {str(e)[:300]}"
    if info is None or pmodel is None:
        return r
    if any("mesh" in w for w in r["warnings"]):  # does Pinocchio (coal) find those meshes?
        try:
            n = sum(pin.buildGeomFromUrdf(pmodel, path, kind, package_dirs=pkg).ngeoms
                    for kind in (pin.GeometryType.VISUAL, pin.GeometryType.COLLISION))
            r["pin_meshes"] = f"ok ({n} geometries)"
        except Exception as e:  # noqa: BLE001
            r["pin_meshes"] = f"{type(e).__name__}: {str(e)[:300]}"
    try:
        rob = Robot(info, pmodel)
    except Exception as e:  # noqa: BLE001
        r["map_error"] = str(e)
        return r
    r.update(nq=rob.nq, pin_nq=int(pmodel.nq), missing_joints=rob.missing_joints,
             limit_mismatch=rob.limit_mismatches())
    rng = np.random.default_rng(args.seed)
    d = os.path.join(work, r["urdf"].replace("/", "__")[:-5])
    os.makedirs(d, exist_ok=True)

    # -- FK -----------------------------------------------------------------------------------
    n_fk = args.fk if rob.nq else 1  # a robot without coordinates has one configuration
    q = rob.random_q(n_fk, rng)
    write_rows(os.path.join(d, "q.csv"), q)
    try:
        run([args.ikwb, "fk", path, "--q", os.path.join(d, "q.csv"), "--out",
             os.path.join(d, "poses.csv"), *pp])
        ours = {}
        with open(os.path.join(d, "poses.csv")) as f:
            next(f)
            for line in f:
                c = line.strip().split(",")
                ours[(int(c[0]), c[1])] = np.array([float(x) for x in c[2:9]])
        bodies = [b["name"] for b in info["bodies"]]
        pbodies = {f.name: i for i, f in enumerate(pmodel.frames) if f.type == pin.FrameType.BODY}
        common = [b for b in bodies if b in pbodies]
        pe = np.zeros(len(common))
        re_ = np.zeros(len(common))
        for i in range(n_fk):
            oMf = rob.frames(rob.to_pin(q[i]))
            for k, b in enumerate(common):
                x, m = ours[(i, b)], oMf[pbodies[b]]
                pe[k] = max(pe[k], np.linalg.norm(m.translation - x[:3]))
                re_[k] = max(re_[k], rot_angle(m.rotation, quat_to_mat(x[3:])))
        worst = int(np.argmax(pe + re_)) if common else None
        r["fk"] = {"compared": len(common), "max_pos": float(pe.max(initial=0)),
                   "max_rot": float(re_.max(initial=0)),
                   "worst_link": common[worst] if worst is not None else None,
                   "bad_links": [b for k, b in enumerate(common) if pe[k] > 1e-9 or re_[k] > 1e-9],
                   "only_ours": [b for b in bodies if b not in pbodies],
                   "only_pin": [b for b in pbodies if b not in bodies]}
    except Exception as e:  # noqa: BLE001
        r["fk"] = {"error": str(e)}

    # -- IK -----------------------------------------------------------------------------------
    ee = rob.ee_name
    r["ee"] = ee
    if ee is None or args.ik == 0:
        return r
    if not pmodel.existFrame(ee, pin.FrameType.BODY):
        r["ik"] = {"error": f"Pinocchio has no BODY frame {ee}"}
        return r
    fid = pmodel.getFrameId(ee, pin.FrameType.BODY)
    qt = rob.random_q(args.ik, rng)
    targets = []
    for i in range(args.ik):
        m = rob.frames(rob.to_pin(qt[i]))[fid]
        targets.append((m.translation.copy(), m.rotation.copy()))
    write_rows(os.path.join(d, "targets.csv"),
               [np.r_[p, pin.Quaternion(R).coeffs()] for p, R in targets])  # coeffs: x y z w
    out = os.path.join(d, "ik.csv")
    t1 = time.time()
    try:
        run([args.ikwb, "solve", path, "--link", ee, "--targets", os.path.join(d, "targets.csv"),
             "--out", out, "--threads", "1", *pp], timeout=args.ik_timeout)
    except subprocess.TimeoutExpired:
        r["ik"] = {"skipped": f"solve took over {args.ik_timeout} s"}
        return r
    except Exception as e:  # noqa: BLE001
        r["ik"] = {"error": str(e)}
        return r
    ik = {"seconds": round(time.time() - t1, 2), "claimed": 0, "ok": 0, "mismatch": 0,
          "outside": 0, "max_outside": 0.0, "max_pos_conv": 0.0, "max_rot_conv": 0.0,
          "max_report_diff": 0.0}
    with open(out) as f:
        next(f)
        rows = [[float(x) for x in line.strip().split(",")] for line in f if line.strip()]
    for (p, R), row in zip(targets, rows):
        conv, qs = row[0] > 0.5, np.array(row[4:])
        m = rob.frames(rob.to_pin(qs))[fid]
        pe, re_ = np.linalg.norm(m.translation - p), rot_angle(R, m.rotation)
        over = rob.outside(qs)
        inside = over <= 1e-5
        ok = pe <= TOL_POS and re_ <= TOL_ROT and inside and np.isfinite(qs).all()
        ik["claimed"] += conv
        ik["ok"] += ok
        ik["mismatch"] += conv and not ok
        ik["outside"] += over > LIMIT_EPS
        ik["max_outside"] = max(ik["max_outside"], over)
        ik["max_report_diff"] = max(ik["max_report_diff"], abs(row[1] - pe))
        if conv:
            ik["max_pos_conv"] = max(ik["max_pos_conv"], pe)
            ik["max_rot_conv"] = max(ik["max_rot_conv"], re_)
    ik["n"] = len(rows)
    r["ik"] = ik
    r["seconds"] = round(time.time() - t0, 1)
    return r


def row_text(r):
    def g(x):
        return "-" if x is None else f"{x:.1e}"
    load = ("ok" if r["ikwb"] == "ok" else "ERR") + "/" + ("ok" if r["pin"] == "ok" else "ERR")
    fk, ik = r.get("fk", {}), r.get("ik", {})
    fk_s = (f"{fk['compared']:>3} {len(fk['only_ours'])}/{len(fk['only_pin'])} "
            f"{g(fk['max_pos'])} {g(fk['max_rot'])}") if "compared" in fk else \
        (fk.get("error", r.get("map_error", "-"))[:40])
    if "n" in ik:
        ik_s = (f"{ik['ok']:>3}/{ik['n']} cl {ik['claimed']:>3} mm {ik['mismatch']} "
                f"out {ik['outside']} {ik['seconds']:.0f}s")
    else:
        ik_s = (ik.get("skipped") or ik.get("error") or "-")[:40]
    lim = len(r.get("limit_mismatch", []))
    wrn = f"{len(r['warnings'])}{'*' if r.get('pin_meshes', '').startswith('ok') else ''}"
    return (f"{r['urdf'][:52]:<52} {load:<7} {wrn:>3} {r.get('nq', '-'):>3} "
            f"{lim:>2} {fk_s:<28} {str(r.get('ee'))[:22]:<22} {ik_s}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ikwb", default=os.path.join(os.path.dirname(__file__), "../../build-peer/ikwb"))
    ap.add_argument("--robots", default=None, help="example-robot-data robots folder")
    ap.add_argument("--work", default="/tmp/sweep/work", help="scratch folder and sweep.json")
    ap.add_argument("--only", default="", help="substring filter on the URDF path")
    ap.add_argument("--fk", type=int, default=200, help="FK configurations per robot")
    ap.add_argument("--ik", type=int, default=100, help="IK targets per robot (0 = no IK)")
    ap.add_argument("--ik-timeout", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    args.robots = args.robots or robots_dir()
    # package://example-robot-data/... (share/) and package://NAME/... (robots/)
    pkg = [os.path.dirname(os.path.dirname(args.robots)), args.robots]
    os.makedirs(args.work, exist_ok=True)
    urdfs = sorted(p for p in glob.glob(os.path.join(args.robots, "**", "*.urdf"), recursive=True)
                   if args.only in p)
    print(f"{'urdf':<52} {'ik/pin':<7} {'wrn':>3} {'nq':>3} {'lm':>2} "
          f"{'FK n ours/pin-only dpos drot':<28} {'end effector':<22} IK ok/n claimed mismatch "
          "outside-limits time", flush=True)
    results = []
    for p in urdfs:
        r = sweep_one(p, args, args.work, pkg)
        results.append(r)
        print(row_text(r), flush=True)
        with open(os.path.join(args.work, "sweep.json"), "w") as f:
            json.dump(results, f, indent=1, default=float)


if __name__ == "__main__":
    main()
