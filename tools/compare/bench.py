"""Measurements for tools/compare (runs inside the comparison venv; started by run.py).

Every section and every peer runs inside its own try/except: a peer that is missing or fails
is recorded as {"status": "failed", "error": ...} and shows up as such in the report.
Results go to WORK/results.json; report.py turns them into docs/benchmarks.md and the plots.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
import traceback
import xml.etree.ElementTree as ET
from importlib import metadata

import numpy as np

TOL_POS = 1e-4  # m, `ikwb solve` default
TOL_ROT = 1e-3  # rad, `ikwb solve` default
LIMIT_SLACK = 1e-5  # rad or m a solution may exceed a joint limit and still count as inside

# example-robot-data files; the first candidate found is used. ee: IK link; masked: joints whose
# masks the masked-FK check uses (one joint alone, then the same joint with its descendants).
ROBOTS = [
    {"key": "panda", "candidates": [("panda_description/urdf/panda.urdf", "panda_hand_tcp")],
     "masked": "panda_joint4"},
    {"key": "ur5", "candidates": [("ur_description/urdf/ur5_robot.urdf", "tool0")],
     "masked": "elbow_joint"},
    # example-robot-data 6 ships no iiwa: the 7-dof xArm7 stands in for it
    {"key": "iiwa_or_7dof", "candidates": [("iiwa_description/urdf/iiwa.urdf", "iiwa_link_ee"),
                                           ("xarm_description/urdf/xarm7.urdf", "link_eef"),
                                           ("kinova_description/robots/kinova.urdf", "j2s6s200_end_effector")],
     "masked": None},
    {"key": "talos", "candidates": [("talos_data/robots/talos_full_v2.urdf", "arm_left_7_link")],
     "masked": "arm_left_1_joint"},
]


# ----------------------------------------------------------------------------------------------
# small utilities


def now():
    return time.perf_counter()


def cpu():
    """CPU time of this process: the comparison machines are shared, and CPU time leaves out the
    time spent waiting for a core. Every peer here runs single-threaded in this process."""
    return time.process_time()


def loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def fail(e):
    return {"status": "failed", "error": f"{type(e).__name__}: {e}".strip()[:600],
            "trace": traceback.format_exc()[-3000:]}


def guarded(results, key, fn, *a, **kw):
    t0 = now()
    print(f"[compare] {key} ...", flush=True)
    try:
        out = fn(*a, **kw)
        if out is None:
            out = {}
        out.setdefault("status", "ok")
    except Exception as e:  # noqa: BLE001 - every failure is reported, never fatal
        out = fail(e)
        print(f"[compare] {key} FAILED: {out['error']}", flush=True)
    out["section_seconds"] = round(now() - t0, 2)
    out["loadavg_after"] = loadavg()
    results[key] = out
    return out


@contextlib.contextmanager
def quiet_stderr():
    """Silence C-level stderr (urdf parsers print every unknown attribute)."""
    fd = sys.stderr.fileno()
    saved = os.dup(fd)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), fd)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, fd)
            os.close(saved)


def run(cmd, **kw):
    t0 = now()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    dt = now() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {p.returncode}: "
                           f"{(p.stderr or p.stdout).strip()[-800:]}")
    return p, dt


def write_csv(path, rows, header=None, fmt="%.17g"):
    with open(path, "w") as f:
        if header:
            f.write(header + "\n")
        for r in rows:
            f.write(",".join(fmt % v for v in r) + "\n")


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    return header, rows


def quat_to_mat(q):
    """(..., 4) x,y,z,w -> (..., 3, 3)"""
    q = np.asarray(q, dtype=float)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    r = np.empty(q.shape[:-1] + (3, 3))
    r[..., 0, 0] = 1 - 2 * (y * y + z * z)
    r[..., 0, 1] = 2 * (x * y - z * w)
    r[..., 0, 2] = 2 * (x * z + y * w)
    r[..., 1, 0] = 2 * (x * y + z * w)
    r[..., 1, 1] = 1 - 2 * (x * x + z * z)
    r[..., 1, 2] = 2 * (y * z - x * w)
    r[..., 2, 0] = 2 * (x * z - y * w)
    r[..., 2, 1] = 2 * (y * z + x * w)
    r[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return r


def mat_to_quat(r):
    """(3, 3) -> x,y,z,w (Shepperd)"""
    r = np.asarray(r, dtype=float)
    t = np.trace(r)
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        w, x, y, z = 0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2]) * 2
        w, x, y, z = (r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s
    elif r[1, 1] > r[2, 2]:
        s = math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2]) * 2
        w, x, y, z = (r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s
    else:
        s = math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1]) * 2
        w, x, y, z = (r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s
    q = np.array([x, y, z, w])
    return q / np.linalg.norm(q)


def rot_angle(ra, rb):
    """angle of ra^T rb, (..., 3, 3) each; atan2 form, accurate near zero"""
    e = np.swapaxes(ra, -1, -2) @ rb
    s = 0.5 * np.stack([e[..., 2, 1] - e[..., 1, 2], e[..., 0, 2] - e[..., 2, 0],
                        e[..., 1, 0] - e[..., 0, 1]], axis=-1)
    c = 0.5 * (np.trace(e, axis1=-2, axis2=-1) - 1.0)
    return np.arctan2(np.linalg.norm(s, axis=-1), c)


def stats(values):
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return {"median": None, "p95": None, "max": None}
    return {"median": float(np.median(v)), "p95": float(np.percentile(v, 95)), "max": float(v.max())}


# ----------------------------------------------------------------------------------------------
# our model (from `ikwb info --json`) and the coordinate maps to the peers


class OurModel:
    def __init__(self, ikwb, urdf):
        p, _ = run([ikwb, "info", urdf, "--json"])
        d = json.loads(p.stdout)
        self.info = d
        self.nq = d["joint_coord_count"]
        self.joints = d["joints"]
        self.bodies = [b["name"] for b in d["bodies"]]
        self.coord_joints = []
        self.lower = np.zeros(self.nq)
        self.upper = np.zeros(self.nq)
        self.limited = np.zeros(self.nq, dtype=bool)
        by_name = {j["name"]: j for j in self.joints}
        for j in self.joints:
            if j["coord_count"] == 0:
                continue
            if j["coord_count"] != 1:
                raise RuntimeError(f"joint {j['name']}: {j['type']} joints are not handled here")
            qs = j["q_start"]
            self.coord_joints.append(j)
            lo, hi = j["lower"], j["upper"]
            if lo is not None and hi is not None and hi - lo < 1e5:
                self.lower[qs], self.upper[qs], self.limited[qs] = lo, hi, True
            else:
                self.lower[qs], self.upper[qs] = -math.pi, math.pi
        self.mimics = []  # (name, source q index, multiplier, offset)
        for j in self.joints:
            if j["mimic"]:
                src = by_name[j["mimic"]["joint"]]
                self.mimics.append((j["name"], src["q_start"], j["mimic"]["multiplier"],
                                    j["mimic"]["offset"]))
        self.middle = np.where(self.limited, 0.5 * (self.lower + self.upper), 0.0)

    def random_q(self, n, rng):
        return self.lower + rng.random((n, self.nq)) * (self.upper - self.lower)

    def joint_values(self, q):
        """name -> column of values (mimic joints included) for q (N, nq)"""
        out = {j["name"]: q[:, j["q_start"]] for j in self.coord_joints}
        for name, src, mult, off in self.mimics:
            out[name] = mult * q[:, src] + off
        return out

    def outside_limits(self, q):
        q = np.atleast_2d(q)
        over = np.maximum(self.lower - q, q - self.upper)
        over = np.where(self.limited, over, -1.0)
        return (over > LIMIT_SLACK).any(axis=1)


class PinRobot:
    def __init__(self, urdf, ours: OurModel):
        import pinocchio as pin

        self.pin = pin
        with quiet_stderr():
            self.model = pin.buildModelFromUrdf(urdf)
        self.data = self.model.createData()
        self.ours = ours
        self.slots = []  # (name, idx_q, nq)
        self.missing = []
        names = [j["name"] for j in ours.coord_joints] + [m[0] for m in ours.mimics]
        for name in names:
            if not self.model.existJointName(name):
                self.missing.append(name)
                continue
            jm = self.model.joints[self.model.getJointId(name)]
            self.slots.append((name, jm.idx_q, jm.nq))
        covered = {s[0] for s in self.slots}
        extra = [n for n in list(self.model.names)[1:] if n not in covered]
        if extra:
            raise RuntimeError(f"Pinocchio joints without a counterpart: {extra}")

    def q(self, q_ours):
        q_ours = np.atleast_2d(q_ours)
        vals = self.ours.joint_values(q_ours)
        out = np.tile(self.pin.neutral(self.model), (q_ours.shape[0], 1))
        for name, iq, nq in self.slots:
            v = vals[name]
            if nq == 1:
                out[:, iq] = v
            else:  # unbounded revolute: cos, sin
                out[:, iq], out[:, iq + 1] = np.cos(v), np.sin(v)
        return out

    def to_ours(self, qp):
        q = self.ours.middle.copy()
        for j in self.ours.coord_joints:
            slot = next(s for s in self.slots if s[0] == j["name"])
            _, iq, nq = slot
            q[j["q_start"]] = qp[iq] if nq == 1 else math.atan2(qp[iq + 1], qp[iq])
        return q

    def frame_id(self, name):
        pin = self.pin
        if self.model.existFrame(name, pin.FrameType.BODY):
            return self.model.getFrameId(name, pin.FrameType.BODY)
        if self.model.existFrame(name):
            return self.model.getFrameId(name)
        return None

    def ee_poses(self, q_ours, fid):
        """positions (N, 3) and rotations (N, 3, 3) of frame fid"""
        pin = self.pin
        qp = self.q(q_ours)
        pos = np.empty((len(qp), 3))
        rot = np.empty((len(qp), 3, 3))
        for i, q in enumerate(qp):
            pin.forwardKinematics(self.model, self.data, q)
            m = pin.updateFramePlacement(self.model, self.data, fid)
            pos[i], rot[i] = m.translation, m.rotation
        return pos, rot


def strip_label(s):
    return s.rsplit("/", 1)[-1]


class NewtonRobot:
    """Newton model of `copies` identical robots (one articulation each) on the CPU."""

    def __init__(self, urdf, ours: OurModel, copies=1):
        import newton
        import warp as wp

        self.newton, self.wp = newton, wp
        b = newton.ModelBuilder()
        with quiet_stderr():
            b.add_urdf(urdf, floating=False)
        if copies > 1:
            top = newton.ModelBuilder()
            top.replicate(b, copies)
            b = top
        self.model = b.finalize(device="cpu")
        self.copies = copies
        m = self.model
        self.jc1 = m.joint_count // copies
        self.bc1 = m.body_count // copies
        self.nq1 = m.joint_coord_count // copies
        labels = [strip_label(x) for x in m.joint_label[: self.jc1]]
        qstart = m.joint_q_start.numpy()
        self.joint_index = {n: i for i, n in enumerate(labels)}
        self.body_index = {strip_label(x): i for i, x in enumerate(m.body_label[: self.bc1])}
        self.ours = ours
        self.slots = []
        names = [j["name"] for j in ours.coord_joints] + [mm[0] for mm in ours.mimics]
        for name in names:
            if name not in self.joint_index:
                raise RuntimeError(f"Newton model has no joint {name}")
            ji = self.joint_index[name]
            if qstart[ji + 1] - qstart[ji] != 1:
                raise RuntimeError(f"Newton joint {name} has {qstart[ji + 1] - qstart[ji]} coords")
            self.slots.append((name, int(qstart[ji])))
        if copies > 1 and int(qstart[self.jc1]) != self.nq1:
            raise RuntimeError("unexpected coordinate layout of replicated Newton model")

    def q(self, q_ours):
        """(N, nq_ours) -> (N, nq_newton) for one robot"""
        q_ours = np.atleast_2d(q_ours)
        vals = self.ours.joint_values(q_ours)
        base = self.model.joint_q.numpy()[: self.nq1]
        out = np.tile(base, (q_ours.shape[0], 1))
        for name, iq in self.slots:
            out[:, iq] = vals[name]
        return out

    def to_ours(self, qn):
        qn = np.atleast_2d(qn)
        out = np.tile(self.ours.middle, (qn.shape[0], 1))
        col = dict(self.slots)
        for j in self.ours.coord_joints:
            out[:, j["q_start"]] = qn[:, col[j["name"]]]
        return out


# ----------------------------------------------------------------------------------------------
# the benchmark


class Bench:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        os.makedirs(self.work, exist_ok=True)
        self.ikwb = args.ikwb
        self.driver = args.driver if args.driver and os.path.exists(args.driver) else None
        self.pin_timer = args.pin_timer if args.pin_timer and os.path.exists(args.pin_timer) else None
        self.quick = args.quick
        self.n_fk = 200 if self.quick else 1000
        self.n_ik = 100 if self.quick else 500
        self.n_slow = 20 if self.quick else 100
        self.n_sweep = 50 if self.quick else 200
        self.seeds = 8
        self.iters = 50
        self.seed_counts = [1, 2, 4, 8] if self.quick else [1, 2, 4, 8, 16, 32]
        self.ik_batches = [1, 10, 100] if self.quick else [1, 10, 100, 1000]
        self.fk_batches = [1, 10, 100, 1000] if self.quick else [1, 10, 100, 1000, 10000]
        self.results = {"config": {
            "quick": self.quick, "n_fk": self.n_fk, "n_ik": self.n_ik, "n_slow": self.n_slow,
            "n_sweep": self.n_sweep, "seeds": self.seeds, "iterations": self.iters,
            "tol_pos": TOL_POS, "tol_rot": TOL_ROT, "limit_slack": LIMIT_SLACK,
            "seed_counts": self.seed_counts, "ik_batches": self.ik_batches,
            "fk_batches": self.fk_batches, "rng": 20240901}}
        self.rng = np.random.default_rng(20240901)
        self.robots = {}
        self.have = {}

    # -- environment -------------------------------------------------------------------------

    def environment(self):
        env = {"python": sys.version.split()[0], "platform": platform.platform(),
               "nproc": os.cpu_count(), "loadavg_start": loadavg(), "packages": {}}
        try:
            with open("/proc/cpuinfo") as f:
                m = re.search(r"model name\s*:\s*(.*)", f.read())
                env["cpu"] = m.group(1).strip() if m else platform.processor()
        except OSError:
            env["cpu"] = platform.processor()
        try:
            with open("/proc/meminfo") as f:
                env["mem_total"] = f.readline().split(":", 1)[1].strip()
        except OSError:
            pass
        for pkg in ["newton", "warp-lang", "pin", "example-robot-data", "adam-robotics", "casadi",
                    "liecasadi", "numpy", "matplotlib"]:
            try:
                env["packages"][pkg] = metadata.version(pkg)
            except metadata.PackageNotFoundError:
                env["packages"][pkg] = None
        try:
            p = subprocess.run(["git", "-C", os.path.dirname(self.ikwb), "rev-parse", "--short",
                                "HEAD"], capture_output=True, text=True)
            env["ikwb_commit"] = p.stdout.strip() or None
        except OSError:
            env["ikwb_commit"] = None
        try:
            p = subprocess.run(["ps", "-eo", "comm"], capture_output=True, text=True)
            busy = [c for c in p.stdout.split() if c in ("cc1plus", "cc1", "ld", "nvcc", "cicc",
                                                        "ptxas", "make", "ninja", "ctest")]
            env["other_build_processes_at_start"] = len(busy)
        except OSError:
            pass
        for mod in ["pinocchio", "newton", "warp", "casadi", "adam"]:
            try:
                with quiet_stderr():
                    __import__(mod)
                self.have[mod] = True
            except Exception as e:  # noqa: BLE001
                self.have[mod] = False
                env.setdefault("import_errors", {})[mod] = f"{type(e).__name__}: {e}"[:300]
        if self.have.get("warp"):
            import warp as wp

            wp.config.quiet = True
            with quiet_stderr():
                wp.init()
        env["driver"] = bool(self.driver)
        env["pin_timer"] = bool(self.pin_timer)
        self.results["environment"] = env

    # -- robots ----------------------------------------------------------------------------

    def robot_dir(self):
        cands = glob.glob(os.path.join(sys.prefix, "lib", "python*", "site-packages", "cmeel.prefix",
                                       "share", "example-robot-data", "robots"))
        try:  # older example-robot-data versions have a Python module
            import example_robot_data  # noqa: F401

            cands.append(os.path.join(os.path.dirname(example_robot_data.getModelPath(
                "panda_description/urdf/panda.urdf")), "robots"))
        except Exception:  # noqa: BLE001
            pass
        for c in cands:
            if os.path.isdir(c):
                return c
        raise RuntimeError("example-robot-data not found (is it installed?)")

    def prepare_robots(self):
        root = self.robot_dir()
        out = {"robots_dir": root, "robots": {}}
        rdir = os.path.join(self.work, "robots")
        os.makedirs(rdir, exist_ok=True)
        for spec in ROBOTS:
            entry = {}
            try:
                path, ee = next((p, e) for p, e in spec["candidates"]
                                if os.path.exists(os.path.join(root, p)))
            except StopIteration:
                entry = {"status": "failed", "error": "no candidate URDF in example-robot-data"}
                out["robots"][spec["key"]] = entry
                continue
            src = os.path.join(root, path)
            name = os.path.splitext(os.path.basename(path))[0]
            dst = os.path.join(rdir, name + ".urdf")
            tree = ET.parse(src)
            for link in tree.getroot().findall("link"):
                for tag in ("visual", "collision"):
                    for e in link.findall(tag):
                        link.remove(e)
            tree.write(dst)
            entry.update({"source": path, "urdf": dst, "ee": ee, "name": name,
                          "masked": spec["masked"]})
            try:
                ours = OurModel(self.ikwb, dst)
                entry.update({"nq": ours.nq, "bodies": len(ours.bodies),
                              "joints": len(ours.joints), "mimics": len(ours.mimics),
                              "status": "ok"})
                self.robots[spec["key"]] = {"ours": ours, **entry}
            except Exception as e:  # noqa: BLE001
                entry.update(fail(e))
            out["robots"][spec["key"]] = entry
        # example-robot-data files our loader rejects are findings too
        rejected = {}
        for extra in ["talos_data/robots/talos_reduced.urdf", "talos_data/robots/talos_left_arm.urdf",
                      "g1_description/urdf/g1_29dof_rev_1_0.urdf",
                      "kinova_description/robots/kinova.urdf"]:
            src = os.path.join(root, extra)
            if not os.path.exists(src):
                continue
            p = subprocess.run([self.ikwb, "info", src, "--json"], capture_output=True, text=True)
            e = {"ikwb": "ok" if p.returncode == 0 else p.stderr.strip().splitlines()[-1][-400:]}
            if self.have.get("pinocchio"):
                try:
                    import pinocchio as pin

                    with quiet_stderr():
                        mm = pin.buildModelFromUrdf(src)
                    e["pinocchio"] = f"ok (nq {mm.nq})"
                except Exception as ex:  # noqa: BLE001
                    e["pinocchio"] = f"{type(ex).__name__}: {ex}"[:300]
            if self.have.get("newton"):
                try:
                    import newton

                    bb = newton.ModelBuilder()
                    with quiet_stderr():
                        bb.add_urdf(src, floating=False, hide_visuals=True)
                    e["newton"] = f"ok ({bb.joint_coord_count} coords)"
                except Exception as ex:  # noqa: BLE001
                    e["newton"] = f"{type(ex).__name__}: {ex}"[:300]
            rejected[extra] = e
        out["other_urdfs"] = rejected
        return out

    # -- FK ----------------------------------------------------------------------------------

    def fk_robot(self, key):
        r = self.robots[key]
        ours: OurModel = r["ours"]
        n = self.n_fk
        q = ours.random_q(n, self.rng)
        d = os.path.join(self.work, "fk", key)
        os.makedirs(d, exist_ok=True)
        qpath = os.path.join(d, "q.csv")
        write_csv(qpath, q)
        res = {"configs": n, "bodies": len(ours.bodies), "nq": ours.nq}
        # ours, CLI (process start + URDF parse + CSV in/out), then in-process
        poses_path = os.path.join(d, "poses_ikwb.csv")
        wall = []
        for _ in range(3):
            _, dt = run([self.ikwb, "fk", r["urdf"], "--q", qpath, "--out", poses_path])
            wall.append(dt)
        res["ikwb_cli_us_per_config"] = min(wall) * 1e6 / n
        p1 = os.path.join(d, "q1.csv")
        write_csv(p1, q[:1])
        wall1 = min(run([self.ikwb, "fk", r["urdf"], "--q", p1, "--out", os.devnull])[1]
                    for _ in range(3))
        res["ikwb_cli_fixed_ms"] = wall1 * 1e3
        if self.driver:
            try:
                p, _ = run([self.driver, "fk-time", r["urdf"], qpath, "20"])
                res["ikwb_ns_per_config"] = float(p.stdout.split()[1])
            except Exception as e:  # noqa: BLE001
                res["ikwb_inprocess"] = fail(e)
        else:
            res["ikwb_inprocess"] = {"status": "failed", "error": "driver not built"}
        header, rows = read_csv(poses_path)
        body_pose = {}
        for row in rows:
            body_pose[(int(row[0]), row[1])] = np.array([float(x) for x in row[2:9]])
        # Pinocchio: agreement and time
        pr = None
        if self.have.get("pinocchio"):
            try:
                pr = PinRobot(r["urdf"], ours)
                pin = pr.pin
                qp = pr.q(q)
                fids = {b: pr.frame_id(b) for b in ours.bodies}
                unmatched = [b for b, f in fids.items() if f is None]
                pe, re_ = [], []
                for i in range(n):
                    pin.framesForwardKinematics(pr.model, pr.data, qp[i])
                    for b, f in fids.items():
                        if f is None:
                            continue
                        m = pr.data.oMf[f]
                        x = body_pose[(i, b)]
                        pe.append(np.linalg.norm(m.translation - x[:3]))
                        re_.append(rot_angle(m.rotation, quat_to_mat(x[3:7])))
                pin_res = {"status": "ok", "max_pos_err": float(np.max(pe)),
                           "max_rot_err": float(np.max(re_)), "bodies_compared": len(fids) - len(unmatched),
                           "unmatched_bodies": unmatched, "nq": int(pr.model.nq),
                           "frames": int(pr.model.nframes)}
                # Python timing: one call per configuration (binding overhead included)
                qlist = [qp[i].copy() for i in range(n)]
                best = 1e9
                for _ in range(3):
                    t0 = cpu()
                    for qq in qlist:
                        pin.framesForwardKinematics(pr.model, pr.data, qq)
                    best = min(best, cpu() - t0)
                pin_res["py_frames_ns_per_config"] = best * 1e9 / n
                best = 1e9
                for _ in range(3):
                    t0 = cpu()
                    for qq in qlist:
                        pin.forwardKinematics(pr.model, pr.data, qq)
                    best = min(best, cpu() - t0)
                pin_res["py_joints_ns_per_config"] = best * 1e9 / n
                if self.pin_timer:
                    qpin_path = os.path.join(d, "q_pin.csv")
                    write_csv(qpin_path, qp)
                    try:
                        p, _ = run([self.pin_timer, r["urdf"], qpin_path, "20"])
                        t = p.stdout.split()
                        pin_res["cpp_frames_ns_per_config"] = float(t[1])
                        pin_res["cpp_joints_ns_per_config"] = float(t[3])
                    except Exception as e:  # noqa: BLE001
                        pin_res["cpp"] = fail(e)
                else:
                    pin_res["cpp"] = {"status": "failed", "error": "pin_fk_time not built"}
                res["pinocchio"] = pin_res
            except Exception as e:  # noqa: BLE001
                res["pinocchio"] = fail(e)
        else:
            res["pinocchio"] = {"status": "failed", "error": "pinocchio not importable"}
        # Newton: agreement (against ours) and time, one eval_fk call on n replicated robots
        if self.have.get("newton"):
            try:
                res["newton"] = self.newton_fk(r, ours, q, body_pose)
            except Exception as e:  # noqa: BLE001
                res["newton"] = fail(e)
        else:
            res["newton"] = {"status": "failed", "error": "newton not importable"}
        return res

    def newton_fk(self, r, ours, q, body_pose):
        n = len(q)
        t0 = now()
        nr = NewtonRobot(r["urdf"], ours, copies=n)
        build_s = now() - t0
        newton, wp = nr.newton, nr.wp
        m = nr.model
        jq = wp.array(nr.q(q).reshape(-1).astype(np.float32), dtype=wp.float32, device="cpu")
        st = m.state()
        newton.eval_fk(m, jq, m.joint_qd, st)  # warm-up (kernel load)
        best = 1e9
        for _ in range(5):
            t0 = cpu()
            newton.eval_fk(m, jq, m.joint_qd, st)
            wp.synchronize()
            best = min(best, cpu() - t0)
        bq = st.body_q.numpy().reshape(n, nr.bc1, 7)
        pe, re_ = [], []
        for b in ours.bodies:
            bi = nr.body_index.get(b)
            if bi is None:
                continue
            ref = np.array([body_pose[(i, b)] for i in range(n)])
            pe.append(np.linalg.norm(bq[:, bi, :3] - ref[:, :3], axis=1).max())
            re_.append(rot_angle(quat_to_mat(bq[:, bi, 3:7]), quat_to_mat(ref[:, 3:7])).max())
        return {"status": "ok", "ns_per_config": best * 1e9 / n, "build_s": build_s,
                "max_pos_err_vs_ikwb": float(max(pe)), "max_rot_err_vs_ikwb": float(max(re_)),
                "precision": "float32"}

    def fk_batch_sweep(self):
        """time of one FK call over B configurations, Panda"""
        key = "panda"
        r = self.robots[key]
        ours = r["ours"]
        d = os.path.join(self.work, "fk_batch")
        os.makedirs(d, exist_ok=True)
        qall = ours.random_q(max(self.fk_batches), self.rng)
        out = {"robot": r["name"], "batches": self.fk_batches, "series": {}}
        ser = out["series"]
        pr = PinRobot(r["urdf"], ours) if self.have.get("pinocchio") else None
        for b in self.fk_batches:
            q = qall[:b]
            qpath = os.path.join(d, f"q{b}.csv")
            write_csv(qpath, q)
            reps = "10"  # passes; each covers >= 10000 configurations (see the drivers)
            if self.driver:
                try:
                    p, _ = run([self.driver, "fk-time", r["urdf"], qpath, reps])
                    ser.setdefault("ikwb eval_fk (C++, in-process)", {})[b] = float(p.stdout.split()[1]) * b * 1e-9
                except Exception as e:  # noqa: BLE001
                    ser.setdefault("ikwb eval_fk (C++, in-process)", {})[b] = None
                    out.setdefault("errors", []).append(str(e)[:300])
            if pr is not None:
                qp = pr.q(q)
                if self.pin_timer:
                    try:
                        qpin = os.path.join(d, f"qpin{b}.csv")
                        write_csv(qpin, qp)
                        p, _ = run([self.pin_timer, r["urdf"], qpin, reps])
                        ser.setdefault("Pinocchio framesForwardKinematics (C++)", {})[b] = float(p.stdout.split()[1]) * b * 1e-9
                    except Exception as e:  # noqa: BLE001
                        out.setdefault("errors", []).append(str(e)[:300])
                qlist = [x.copy() for x in qp]
                inner = max(1, 2000 // b)
                best = 1e9
                for _ in range(3):
                    t0 = cpu()
                    for _k in range(inner):
                        for qq in qlist:
                            pr.pin.framesForwardKinematics(pr.model, pr.data, qq)
                    best = min(best, (cpu() - t0) / inner)
                ser.setdefault("Pinocchio framesForwardKinematics (Python loop)", {})[b] = best
            if self.have.get("newton") and b <= 1000:
                try:
                    nr = NewtonRobot(r["urdf"], ours, copies=b)
                    wp = nr.wp
                    jq = wp.array(nr.q(q).reshape(-1).astype(np.float32), dtype=wp.float32, device="cpu")
                    st = nr.model.state()
                    nr.newton.eval_fk(nr.model, jq, nr.model.joint_qd, st)
                    best = 1e9
                    for _ in range(5):
                        t0 = cpu()
                        nr.newton.eval_fk(nr.model, jq, nr.model.joint_qd, st)
                        wp.synchronize()
                        best = min(best, cpu() - t0)
                    ser.setdefault("Newton eval_fk (Warp CPU, one launch)", {})[b] = best
                except Exception as e:  # noqa: BLE001
                    out.setdefault("errors", []).append(f"newton B={b}: {e}"[:300])
        return out

    # -- IK ----------------------------------------------------------------------------------

    def ik_setup(self, key, n):
        """targets from Pinocchio FK (ikwb fk when Pinocchio is missing) and the seeds"""
        r = self.robots[key]
        if "ik" in r and len(r["ik"]["targets"]) >= n:
            return r["ik"]
        ours: OurModel = r["ours"]
        d = os.path.join(self.work, "ik", key)
        os.makedirs(d, exist_ok=True)
        # one target set per robot, large enough for every section: all solvers and sections
        # use its first n rows
        n = max(n, self.n_ik, max(self.ik_batches))
        q = ours.random_q(n, self.rng)
        judge = None
        if self.have.get("pinocchio"):
            pr = PinRobot(r["urdf"], ours)
            fid = pr.frame_id(r["ee"])
            if fid is None:
                raise RuntimeError(f"Pinocchio has no frame {r['ee']}")
            pos, rot = pr.ee_poses(q, fid)
            judge = ("pinocchio", pr, fid)
        else:
            qpath = os.path.join(d, "q_targets.csv")
            write_csv(qpath, q)
            ppath = os.path.join(d, "poses_targets.csv")
            run([self.ikwb, "fk", r["urdf"], "--q", qpath, "--out", ppath])
            _, rows = read_csv(ppath)
            sel = [np.array([float(x) for x in row[2:9]]) for row in rows if row[1] == r["ee"]]
            sel = np.array(sel)
            pos, rot = sel[:, :3], quat_to_mat(sel[:, 3:7])
            judge = ("ikwb fk", None, None)
        targets = np.array([np.r_[pos[i], mat_to_quat(rot[i])] for i in range(n)])
        tpath = os.path.join(d, "targets.csv")
        write_csv(tpath, targets)
        seeds = None
        if self.driver:
            spath = os.path.join(d, "seeds.csv")
            run([self.driver, "seeds", r["urdf"], str(max(self.seed_counts + [self.seeds])), spath])
            seeds = np.loadtxt(spath, delimiter=",", ndmin=2)
            if not np.allclose(seeds[0], ours.middle):
                raise RuntimeError("seed 0 is not the middle of the limits")
        else:  # our Roberts sequence (solver/sampler.hpp) re-implemented
            seeds = self.roberts_seeds(ours, max(self.seed_counts + [self.seeds]))
        r["ik"] = {"targets": targets, "tpath": tpath, "pos": pos, "rot": rot, "judge": judge,
                   "seeds": seeds, "dir": d, "q_gen": q}
        return r["ik"]

    @staticmethod
    def roberts_seeds(ours, s_max):
        dims = len(ours.coord_joints)
        x = 2.0
        for _ in range(40):
            p = x ** (dims + 1)
            x -= (p - x - 1.0) / ((dims + 1) * p / x - 1.0)
        out = [ours.middle.copy()]
        for s in range(1, s_max):
            q = ours.middle.copy()
            alpha = 1.0 / x
            for j in ours.coord_joints:
                v = 0.5 + s * alpha
                alpha /= x
                u = v - int(v)
                q[j["q_start"]] = ours.lower[j["q_start"]] + u * (ours.upper[j["q_start"]] - ours.lower[j["q_start"]])
            out.append(q)
        return np.array(out)

    def judge(self, key, q_ours, idx=None):
        """pose errors of solutions (N, nq) against the targets idx (default: the first N)"""
        r = self.robots[key]
        ik = r["ik"]
        ours = r["ours"]
        q_ours = np.atleast_2d(q_ours)
        idx = np.arange(len(q_ours)) if idx is None else np.asarray(idx)
        kind, pr, fid = ik["judge"]
        if kind == "pinocchio":
            pos, rot = pr.ee_poses(q_ours, fid)
        else:
            d = ik["dir"]
            qpath = os.path.join(d, "q_judge.csv")
            write_csv(qpath, q_ours)
            ppath = os.path.join(d, "poses_judge.csv")
            run([self.ikwb, "fk", r["urdf"], "--q", qpath, "--out", ppath])
            _, rows = read_csv(ppath)
            sel = np.array([[float(x) for x in row[2:9]] for row in rows if row[1] == r["ee"]])
            pos, rot = sel[:, :3], quat_to_mat(sel[:, 3:7])
        pe = np.linalg.norm(pos - ik["pos"][idx], axis=1)
        re_ = rot_angle(ik["rot"][idx], rot)
        out_lim = ours.outside_limits(q_ours)
        finite = np.isfinite(q_ours).all(axis=1)
        ok = (pe <= TOL_POS) & (re_ <= TOL_ROT) & ~out_lim & finite
        return pe, re_, out_lim, ok

    def summarize(self, key, q_ours, seconds, n, includes, idx=None, extra=None):
        pe, re_, out_lim, ok = self.judge(key, q_ours, idx)
        ours = self.robots[key]["ours"]
        qq = np.atleast_2d(q_ours)
        at_lim = (((np.abs(qq - ours.lower) < 1e-6) | (np.abs(qq - ours.upper) < 1e-6))
                  & ours.limited).any(axis=1)
        s = {"status": "ok", "targets": int(n), "success": float(ok.mean()),
             "failures_with_a_joint_at_a_limit": int((~ok & at_lim).sum()),
             "solved": int(ok.sum()),
             "pos_err_solved": stats(pe[ok]), "rot_err_solved": stats(re_[ok]),
             "pos_err_all": stats(pe), "rot_err_all": stats(re_),
             "outside_limits": int(out_lim.sum()),
             "pose_ok_but_outside_limits": int(((pe <= TOL_POS) & (re_ <= TOL_ROT) & out_lim).sum()),
             "seconds": seconds, "us_per_target": seconds * 1e6 / n, "time_includes": includes}
        if extra:
            s.update(extra)
        return s

    def ikwb_solve(self, key, n, seeds, iters, threads=1, defaults=False, tag="m", soft=False):
        r = self.robots[key]
        ik = self.ik_setup(key, n)
        d = ik["dir"]
        tpath = os.path.join(d, f"targets_{n}.csv")
        write_csv(tpath, ik["targets"][:n])
        out = os.path.join(d, f"out_ikwb_{tag}_{seeds}_{n}.csv")
        cmd = [self.ikwb, "solve", r["urdf"], "--link", r["ee"], "--targets", tpath, "--out", out,
               "--threads", str(threads)]
        if not defaults:
            cmd += ["--seeds", str(seeds), "--iterations", str(iters), "--restarts", "0",
                    "--stall", "0", "--tol-pos", str(TOL_POS), "--tol-rot", str(TOL_ROT)]
            if seeds > 1:
                cmd += ["--sampler", "roberts"]
        if soft:
            cmd.append("--soft-limits")
        p, wall = run(cmd)
        line = p.stdout.strip().splitlines()[-1]
        m = re.search(r"solved (\d+)/(\d+) .* in ([0-9.]+) s", line)
        t = float(m.group(3))
        _, rows = read_csv(out)
        q = np.array([[float(x) for x in row[4:]] for row in rows])
        return self.summarize(key, q, t, n, "solve call incl. problem set-up; excludes process "
                              "start, URDF load, CSV IO (the `solved ... in T s` line)",
                              extra={"wall_seconds": wall, "wall_us_per_target": wall * 1e6 / n,
                                     "own_solved": int(m.group(1)), "stdout": line,
                                     "command": " ".join(os.path.relpath(c, self.args.root)
                                                         if os.path.isabs(c) else c for c in cmd)})

    def ikwb_timed(self, key, n, seeds, iters, tag, soft=False):
        """success from `ikwb solve`, time from the in-process driver when it is built"""
        s = self.ikwb_solve(key, n, seeds, iters, tag=tag, soft=soft)
        if self.driver:
            t, k = self.ikwb_inprocess(key, n, seeds, iters, soft=soft)
            s.update({"cli_seconds": s["seconds"], "cli_us_per_target": s["us_per_target"],
                      "seconds": t, "us_per_target": t * 1e6 / n,
                      "time_includes": "in-process solve (driver, warm, best of 3)"})
        return s

    def ikwb_inprocess(self, key, n, seeds, iters, reps=3, restarts=0, stall=0, soft=False):
        r = self.robots[key]
        ik = self.ik_setup(key, n)
        tpath = os.path.join(ik["dir"], f"targets_{n}.csv")
        write_csv(tpath, ik["targets"][:n])
        p, _ = run([self.driver, "ik-time", r["urdf"], r["ee"], tpath, str(seeds), str(iters), "1",
                    str(reps), str(restarts), str(stall), "1" if soft else "0"])
        t = p.stdout.split()
        return float(t[1]), int(t[3])

    def newton_solver(self, key, n, seeds, iters, own_sampler=False, reps=1):
        """Newton IKSolver (LM, analytic Jacobian) on the first n targets. Same seeds: the n x S
        (target, seed) pairs are solved as n*S problems from our seeds and each target keeps its
        lowest-cost seed, which is what IKSolver does with n_seeds; own_sampler: n problems with
        n_seeds=S and Newton's Roberts sampler."""
        import newton.ik as nik
        import warp as wp

        r = self.robots[key]
        ik = self.ik_setup(key, n)
        cache = r.setdefault("newton_ik", {})
        if "robot" not in cache:
            cache["robot"] = NewtonRobot(r["urdf"], r["ours"], 1)
        nr: NewtonRobot = cache["robot"]
        m = nr.model
        ee = nr.body_index[r["ee"]]
        S = seeds
        rows = n if own_sampler else n * S
        tg = ik["targets"][:n]
        rep = 1 if own_sampler else S
        pos = np.repeat(tg[:, :3], rep, axis=0).astype(np.float32)
        rot = np.repeat(tg[:, 3:7], rep, axis=0).astype(np.float32)
        t0 = now()
        objs = [nik.IKObjectivePosition(ee, wp.vec3(0.0, 0.0, 0.0), wp.array(pos, dtype=wp.vec3)),
                nik.IKObjectiveRotation(ee, wp.quat_identity(), wp.array(rot, dtype=wp.vec4)),
                nik.IKObjectiveJointLimit(m.joint_limit_lower, m.joint_limit_upper, weight=10.0)]
        if own_sampler:
            solver = nik.IKSolver(m, n, objs, jacobian_mode="analytic", lambda_initial=0.1,
                                  sampler="roberts" if S > 1 else "none", n_seeds=S)
            qin_np = np.tile(nr.q(r["ours"].middle[None, :]), (n, 1))
        else:
            solver = nik.IKSolver(m, rows, objs, jacobian_mode="analytic", lambda_initial=0.1)
            qin_np = np.tile(nr.q(ik["seeds"][:S]), (n, 1))
        setup_s = now() - t0
        qin = wp.array(qin_np.astype(np.float32), dtype=wp.float32, device="cpu")
        qout = wp.zeros_like(qin)
        solver.step(qin, qout, iterations=iters)  # warm-up: kernel compile/load
        wp.synchronize()
        best = 1e9
        for _ in range(reps):
            t0 = cpu()
            solver.step(qin, qout, iterations=iters)
            wp.synchronize()
            if own_sampler:
                qsel = qout.numpy()
            else:
                cost = solver.costs.numpy().reshape(n, S)
                pick = np.argmin(cost, axis=1)
                qsel = qout.numpy().reshape(n, S, -1)[np.arange(n), pick]
            best = min(best, cpu() - t0)
        return nr.to_ours(qsel.astype(np.float64)), best, setup_s

    def pin_clik(self, key, n, seeds, iters, damping=1e-6):
        """Pinocchio's documented CLIK loop (log-error, damped least squares) with a unit step,
        joint limits by clamping, seeds tried in order until one converges (our policy)."""
        r = self.robots[key]
        ik = self.ik_setup(key, n)
        ours = r["ours"]
        pr = PinRobot(r["urdf"], ours)
        pin, model, data = pr.pin, pr.model, pr.data
        fid = pr.frame_id(r["ee"])
        seeds_p = pr.q(ik["seeds"][:seeds])
        lo = np.full(model.nq, -np.inf)
        hi = np.full(model.nq, np.inf)
        for j in ours.coord_joints:
            slot = next(s for s in pr.slots if s[0] == j["name"])
            if slot[2] == 1 and ours.limited[j["q_start"]]:
                lo[slot[1]], hi[slot[1]] = ours.lower[j["q_start"]], ours.upper[j["q_start"]]
        eye6 = np.eye(6)
        out = np.empty((n, ours.nq))
        t0 = cpu()
        for i in range(n):
            pt, rt = ik["pos"][i], ik["rot"][i]
            best_q, best_err = None, np.inf
            for s in range(seeds):
                q = seeds_p[s].copy()
                done = False
                for it in range(iters + 1):
                    pin.forwardKinematics(model, data, q)
                    mf = pin.updateFramePlacement(model, data, fid)
                    dp = mf.translation - pt
                    er = pin.log3(mf.rotation @ rt.T)
                    ep, eo = np.linalg.norm(dp), np.linalg.norm(er)
                    if ep <= TOL_POS and eo <= TOL_ROT:
                        done = True
                        break
                    if it == iters:
                        break
                    jac = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL_WORLD_ALIGNED)
                    e = np.r_[dp, er]
                    v = -jac.T @ np.linalg.solve(jac @ jac.T + damping * eye6, e)
                    q = np.clip(pin.integrate(model, q, v), lo, hi)
                if done:
                    best_q = q
                    break
                if ep + eo < best_err:
                    best_q, best_err = q, ep + eo
            out[i] = pr.to_ours(best_q)
        return out, cpu() - t0

    def adam_ipopt(self, key, n, seeds, iters):
        """adam-robotics symbolic FK (CasADi) + IPOPT: min |p - p*|^2 + (3 - tr(R*^T R)) within the
        joint limits (adam's own InverseKinematics helper optimises a floating base and uses a
        quartic rotation proxy, so the NLP is built here from adam's FK)."""
        import casadi as cs
        from adam.casadi import KinDynComputations

        r = self.robots[key]
        ik = self.ik_setup(key, n)
        ours = r["ours"]
        names = [j["name"] for j in ours.coord_joints]
        t0 = now()
        with quiet_stderr():
            kd = KinDynComputations(r["urdf"], names)
            fk = kd.forward_kinematics_fun(r["ee"])
        x = cs.SX.sym("x", len(names))
        par = cs.SX.sym("p", 12)
        h = fk(np.eye(4), x)
        rt = cs.reshape(par[3:], 3, 3)
        f = cs.sumsqr(h[:3, 3] - par[:3]) + (3 - cs.trace(cs.mtimes(rt.T, h[:3, :3])))
        solver = cs.nlpsol("ik", "ipopt", {"x": x, "p": par, "f": f},
                           {"ipopt.print_level": 0, "print_time": False, "ipopt.sb": "yes",
                            "ipopt.max_iter": iters, "ipopt.tol": 1e-12})
        setup_s = now() - t0
        cols = [j["q_start"] for j in ours.coord_joints]
        lbx = np.where(ours.limited, ours.lower, -np.inf)[cols]
        ubx = np.where(ours.limited, ours.upper, np.inf)[cols]
        out = np.empty((n, ours.nq))
        fails = 0
        t0 = cpu()
        for i in range(n):
            pt, rmat = ik["pos"][i], ik["rot"][i]
            pv = np.r_[pt, rmat.reshape(-1, order="F")]
            best_q, best_f = None, np.inf
            for s in range(seeds):
                x0 = ik["seeds"][s][cols]
                try:
                    sol = solver(x0=x0, p=pv, lbx=lbx, ubx=ubx)
                except RuntimeError:
                    fails += 1
                    continue
                xs = np.array(sol["x"]).ravel()
                q = ours.middle.copy()
                q[cols] = xs
                hh = np.array(fk(np.eye(4), xs))
                ep = np.linalg.norm(hh[:3, 3] - pt)
                eo = float(rot_angle(rmat, hh[:3, :3]))
                if ep <= TOL_POS and eo <= TOL_ROT:
                    best_q = q
                    break
                if ep + eo < best_f:
                    best_q, best_f = q, ep + eo
            out[i] = best_q if best_q is not None else ours.middle
        return out, cpu() - t0, setup_s, fails

    def ik_robot(self, key):
        n, S, I = self.n_ik, self.seeds, self.iters
        ik = self.ik_setup(key, n)
        res = {"targets": n, "seeds": S, "iterations": I, "ee": self.robots[key]["ee"],
               "judge": ik["judge"][0], "solvers": {}}
        sv = res["solvers"]

        def attempt(name, fn):
            print(f"[compare]   {key}: {name}", flush=True)
            try:
                sv[name] = fn()
            except Exception as e:  # noqa: BLE001
                sv[name] = fail(e)
                print(f"[compare]   {key}: {name} FAILED: {sv[name]['error']}", flush=True)

        attempt("ikwb", lambda: self.ikwb_solve(key, n, S, I))
        if self.driver:
            def inproc():
                t, k = self.ikwb_inprocess(key, n, S, I)
                return {"status": "ok", "seconds": t, "us_per_target": t * 1e6 / n,
                        "own_solved": k}
            attempt("ikwb_inprocess", inproc)
        def defaults():
            s = self.ikwb_solve(key, n, 1, 60, defaults=True, tag="d")
            if self.driver:  # `ikwb solve` defaults: 1 seed, 60 iterations, 50 restarts, stall 5
                t, _ = self.ikwb_inprocess(key, n, 1, 60, restarts=50, stall=5)
                s.update({"cli_seconds": s["seconds"], "cli_us_per_target": s["us_per_target"],
                          "seconds": t, "us_per_target": t * 1e6 / n,
                          "time_includes": "in-process solve (driver, warm, best of 3)"})
            return s
        attempt("ikwb_defaults", defaults)
        attempt("ikwb_soft", lambda: self.ikwb_timed(key, n, S, I, tag="soft", soft=True))

        def newton_same():
            q, t, setup = self.newton_solver(key, n, S, I, reps=2)
            return self.summarize(key, q, t, n, "IKSolver.step over n*S (target, seed) problems "
                                  "+ picking each target's lowest-cost seed; excludes model "
                                  "build, solver construction, kernel compile",
                                  extra={"setup_seconds": setup})
        attempt("newton", newton_same) if self.have.get("newton") else sv.update(
            newton={"status": "failed", "error": "newton not importable"})

        def newton_own():
            q, t, setup = self.newton_solver(key, n, S, I, own_sampler=True, reps=2)
            return self.summarize(key, q, t, n, "IKSolver.step (n_seeds=S, Newton's Roberts "
                                  "sampler); excludes model build, construction, kernel compile",
                                  extra={"setup_seconds": setup})
        attempt("newton_own_sampler", newton_own) if self.have.get("newton") else sv.update(
            newton_own_sampler={"status": "failed", "error": "newton not importable"})

        def clik():
            q, t = self.pin_clik(key, n, S, I)
            return self.summarize(key, q, t, n, "Python loop over targets and seeds calling "
                                  "Pinocchio (C++) for FK and Jacobians")
        attempt("pinocchio_clik", clik) if self.have.get("pinocchio") else sv.update(
            pinocchio_clik={"status": "failed", "error": "pinocchio not importable"})

        def adam():
            ns = min(self.n_slow, n)
            q, t, setup, fails = self.adam_ipopt(key, ns, S, I)
            s = self.summarize(key, q, t, ns, "Python loop over targets and seeds calling an "
                               "IPOPT nlpsol (CasADi, exact Hessian); excludes building the NLP",
                               extra={"setup_seconds": setup, "ipopt_exceptions": fails})
            # ours on the same subset, for a like-for-like ratio
            s["ikwb_same_subset"] = self.ikwb_timed(key, ns, S, I, tag="sub")
            return s
        attempt("adam_ipopt", adam) if (self.have.get("adam") and self.have.get("casadi")) else sv.update(
            adam_ipopt={"status": "failed", "error": "adam/casadi not importable"})
        return res

    def seeds_sweep(self, key):
        n, I = self.n_sweep, self.iters
        self.ik_setup(key, max(n, self.n_ik))
        out = {"robot": self.robots[key]["name"], "targets": n, "iterations": I,
               "seed_counts": self.seed_counts, "series": {}}
        ser = out["series"]
        for S in self.seed_counts:
            print(f"[compare]   seeds sweep {key} S={S}", flush=True)
            for name, fn in [
                ("ikwb (CPU, 1 thread)", lambda: self.ikwb_timed(key, n, S, I, tag="sw")),
                ("ikwb --soft-limits", lambda: self.ikwb_timed(key, n, S, I, tag="sws", soft=True)),
                ("Newton IKSolver (LM, same seeds)", lambda: self.summarize(
                    key, *self.newton_solver(key, n, S, I)[:2], n, "step")),
                ("Pinocchio CLIK (Python)", lambda: self.summarize(
                    key, *self.pin_clik(key, n, S, I), n, "loop")),
            ]:
                if name.startswith("Newton") and not self.have.get("newton"):
                    continue
                if name.startswith("Pinocchio") and not self.have.get("pinocchio"):
                    continue
                try:
                    s = fn()
                    ser.setdefault(name, {})[S] = {"success": s["success"],
                                                   "us_per_target": s["us_per_target"]}
                except Exception as e:  # noqa: BLE001
                    ser.setdefault(name, {})[S] = {"error": str(e)[:300]}
        return out

    def ik_batch_sweep(self, key):
        S, I = self.seeds, self.iters
        bmax = max(self.ik_batches)
        self.ik_setup(key, max(bmax, self.n_ik))
        out = {"robot": self.robots[key]["name"], "seeds": S, "iterations": I,
               "batches": self.ik_batches, "series": {}}
        ser = out["series"]
        for b in self.ik_batches:
            print(f"[compare]   IK batch sweep {key} B={b}", flush=True)
            if self.driver:
                try:
                    t, _ = self.ikwb_inprocess(key, b, S, I, reps=max(2, min(20, 200 // b)))
                    ser.setdefault("ikwb (C++, in-process, 1 thread)", {})[b] = t
                except Exception as e:  # noqa: BLE001
                    out.setdefault("errors", []).append(str(e)[:300])
            if self.have.get("newton"):
                try:
                    _, t, _ = self.newton_solver(key, b, S, I, reps=3)
                    ser.setdefault("Newton IKSolver (Warp CPU, same seeds)", {})[b] = t
                except Exception as e:  # noqa: BLE001
                    out.setdefault("errors", []).append(str(e)[:300])
            if self.have.get("pinocchio") and b <= 1000:
                try:
                    _, t = self.pin_clik(key, b, S, I)
                    ser.setdefault("Pinocchio CLIK (Python loop)", {})[b] = t
                except Exception as e:  # noqa: BLE001
                    out.setdefault("errors", []).append(str(e)[:300])
        return out

    # -- masked FK ---------------------------------------------------------------------------

    def masked_fk(self, key):
        import inspect

        import newton
        import warp as wp

        if "joint_mask" not in inspect.signature(newton.eval_fk).parameters:
            return {"status": "skipped", "error": "installed Newton's eval_fk has no joint_mask"}
        if not self.driver:
            return {"status": "failed", "error": "driver not built"}
        r = self.robots[key]
        ours: OurModel = r["ours"]
        d = os.path.join(self.work, "masked", key)
        os.makedirs(d, exist_ok=True)
        q0, q1 = ours.random_q(2, self.rng)
        write_csv(os.path.join(d, "q0.csv"), [q0])
        write_csv(os.path.join(d, "q1.csv"), [q1])
        names = [j["name"] for j in ours.joints]
        children = {j["name"]: j["child"] for j in ours.joints}
        parent_of = {j["child"]: j["parent"] for j in ours.joints}
        jname_by_child = {j["child"]: j["name"] for j in ours.joints}
        target = r["masked"]

        def descendants(jn):
            out = {jn}
            changed = True
            while changed:
                changed = False
                for j in ours.joints:
                    pj = jname_by_child.get(j["parent"])
                    if pj in out and j["name"] not in out:
                        out.add(j["name"])
                        changed = True
            return out

        cases = [("all joints", set(names)), ("no joint", set()),
                 (f"{target} alone", {target}),
                 (f"{target} + descendants", descendants(target))]
        rng = np.random.default_rng(7)
        cases.append(("random half of the joints", {n for n in names if rng.random() < 0.5}))
        masks = [[1 if n in sel else 0 for n in names] for _, sel in cases]
        write_csv(os.path.join(d, "masks.csv"), masks, fmt="%d")
        outp = os.path.join(d, "ours.csv")
        p, _ = run([self.driver, "masked", r["urdf"], os.path.join(d, "q0.csv"),
                    os.path.join(d, "q1.csv"), os.path.join(d, "masks.csv"), outp, "200"])
        ours_ns = float(p.stdout.split()[1])
        _, rows = read_csv(outp)
        ours_pose = {(int(x[0]), x[1]): np.array([float(v) for v in x[2:9]]) for x in rows}
        # Newton: map the masks by joint name (Newton's root joint is matched by its child)
        nr = NewtonRobot(r["urdf"], ours, 1)
        m = nr.model
        nlabels = [strip_label(x) for x in m.joint_label]
        nchild = m.joint_child.numpy()
        blabels = [strip_label(x) for x in m.body_label]
        res = {"robot": r["name"], "cases": [], "ours_ns_per_call": ours_ns}
        jq0 = wp.array(nr.q(q0[None, :])[0].astype(np.float32), dtype=wp.float32, device="cpu")
        jq1 = wp.array(nr.q(q1[None, :])[0].astype(np.float32), dtype=wp.float32, device="cpu")
        tsum, tcount = 0.0, 0
        base = cases.index(("no joint", set()))
        for ci, (label, sel) in enumerate(cases):
            updated = [b for b in ours.bodies
                       if np.abs(ours_pose[(ci, b)] - ours_pose[(base, b)]).max() > 1e-12]
            sel_children = {children[n] for n in sel}
            nmask = np.array([blabels[nchild[k]] in sel_children for k in range(m.joint_count)])
            wmask = wp.array(nmask, dtype=wp.bool, device="cpu")
            st = m.state()
            newton.eval_fk(m, jq0, m.joint_qd, st)
            newton.eval_fk(m, jq1, m.joint_qd, st, joint_mask=wmask)
            bq = st.body_q.numpy()
            pe, re_, differ = [], [], []
            for b in ours.bodies:
                bi = nr.body_index.get(b)
                if bi is None:
                    continue
                x = ours_pose[(ci, b)]
                e_p = float(np.linalg.norm(bq[bi, :3] - x[:3]))
                e_r = float(rot_angle(quat_to_mat(bq[bi, 3:7]), quat_to_mat(x[3:7])))
                pe.append(e_p)
                re_.append(e_r)
                if e_p > 1e-5 or e_r > 1e-5:
                    differ.append(b)
            # time: the masked call alone (Newton: one launch incl. Python/launch overhead)
            for _ in range(20):
                t0 = cpu()
                newton.eval_fk(m, jq1, m.joint_qd, st, joint_mask=wmask)
                wp.synchronize()
                tsum += cpu() - t0
                tcount += 1
            res["cases"].append({"case": label, "joints_selected": len(sel),
                                 "bodies_moved": len(updated), "bodies": len(ours.bodies),
                                 "max_pos_diff": max(pe), "max_rot_diff": max(re_),
                                 "bodies_differing": differ[:8], "n_differing": len(differ)})
        res["newton_ns_per_call"] = tsum * 1e9 / tcount
        return res

    # -- main ------------------------------------------------------------------------------

    def run(self):
        R = self.results
        self.environment()
        sections = set(self.args.sections.split(","))
        R["robots"] = guarded(R, "robots", self.prepare_robots)
        keys = list(self.robots)
        if "fk" in sections:
            R["fk"] = {}
            for k in keys:
                guarded(R["fk"], k, self.fk_robot, k)
            if "panda" in self.robots:
                guarded(R, "fk_batch", self.fk_batch_sweep)
        if "ik" in sections:
            R["ik"] = {}
            for k in keys:
                guarded(R["ik"], k, self.ik_robot, k)
        if "seeds" in sections and "panda" in self.robots:
            guarded(R, "seeds_sweep", self.seeds_sweep, "panda")
        if "batch" in sections and "panda" in self.robots:
            guarded(R, "ik_batch", self.ik_batch_sweep, "panda")
        if "masked" in sections:
            R["masked"] = {}
            for k in keys:
                if self.robots[k].get("masked"):
                    if self.have.get("newton"):
                        guarded(R["masked"], k, self.masked_fk, k)
                    else:
                        R["masked"][k] = {"status": "failed", "error": "newton not importable"}
        R["environment"]["loadavg_end"] = loadavg()
        # drop non-serialisable objects
        path = os.path.join(self.work, "results.json")
        with open(path, "w") as f:
            json.dump(R, f, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
        print(f"[compare] results: {path}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--work", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--ikwb", required=True)
    ap.add_argument("--driver")
    ap.add_argument("--pin-timer")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sections", default="fk,ik,seeds,batch,masked")
    args = ap.parse_args()
    t0 = now()
    b = Bench(args)
    b.results["started"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    try:
        b.run()
    finally:
        b.results["total_seconds"] = round(now() - t0, 1)
        with open(os.path.join(b.work, "results.json"), "w") as f:
            json.dump(b.results, f, indent=1,
                      default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))


if __name__ == "__main__":
    main()
