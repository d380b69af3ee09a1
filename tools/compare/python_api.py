#!/usr/bin/env python3
"""The `ikwb` Python module's overhead and throughput next to the `ikwb` command line tool, on the
Panda, in one run (docs/python.md "Measured").

  PYTHONPATH=build/python /usr/bin/python3 tools/compare/python_api.py --cli build/ikwb

Per call: eval_fk of one configuration into a State; eval_fk_batch of 10,000 configurations;
one IK solve (a pose target updated in place, IKSolver.step of one problem; the same through the
adam-shaped InverseKinematics). Batch: 10,000 reachable pose targets solved from Python
(IKSolver with the CLI's batch settings, and Scene.solve of the Panda preset) and by
`ikwb solve` on the same targets. Times are wall-clock medians of repeated runs on this machine.
"""
import argparse
import csv
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

import ikwb
from ikwb import ik

ROOT = pathlib.Path(__file__).resolve().parents[2]
PANDA = str(ROOT / "assets" / "robots" / "panda" / "panda.urdf")
PRESET = str(ROOT / "assets" / "robots" / "panda" / "preset.json")
TCP = "panda_hand_tcp"


def per_call(fn, seconds=0.5):
    """median seconds per call over batches of calls"""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt > 0.05:
            break
        n *= 4
    samples = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(samples) < 5:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n)
    return float(np.median(samples))


def configurations(model, n, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(model.joint_limit_lower, model.joint_limit_upper, size=(n, model.joint_dof_count))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=str(ROOT / "build" / "ikwb"), help="the ikwb program")
    ap.add_argument("--problems", type=int, default=10000)
    ap.add_argument("--threads", type=int, default=0, help="solver threads (0: all cores)")
    args = ap.parse_args()
    m = ikwb.Model.from_urdf(PANDA)
    tcp = m.body_index(TCP)
    n = args.problems
    rows = []

    q1 = m.middle_configuration()
    s = m.state()
    rows.append(("eval_fk, one configuration", per_call(lambda: ikwb.eval_fk(m, q1, None, s)), "per call"))
    qs = configurations(m, n, 1)
    out = np.zeros((n, m.body_count, 7))
    t = per_call(lambda: ikwb.eval_fk_batch(m, qs, None, out), seconds=1.0)
    rows.append((f"eval_fk_batch, {n} configurations", t / n, "per configuration"))

    goals = ikwb.eval_fk_batch(m, configurations(m, n, 2))[0][:, tcp]
    obj = ik.IKObjectivePose(tcp, [0, 0, 0], goals[:1])
    one = ik.IKSolver(m, 1, [obj], threads=1)
    qin = q1[None, :].copy()
    qout = np.empty_like(qin)
    k = [0]

    def solve_one():
        obj.set_target_pose(0, goals[k[0] % n])
        k[0] += 1
        one.step(qin, qout)

    rows.append(("IKSolver.step, one pose problem (1 seed, from the middle)", per_call(solve_one), "per call"))
    adam = ikwb.InverseKinematics(PANDA, [f"panda_joint{i}" for i in range(1, 8)],
                                  solver_settings={"threads": 1})
    adam.add_target_pose(TCP)
    j = [0]

    def adam_one():
        g = goals[j[0] % n]
        j[0] += 1
        adam.update_target_pose(TCP, g[:3], g[3:])
        adam.set_initial_guess(np.eye(4), q1[:7])
        adam.solve()

    rows.append(("InverseKinematics.solve, one pose target", per_call(adam_one), "per call"))

    # the batch: the CLI's defaults for `ikwb solve ROBOT --link` (middle start, 50 restarts,
    # 60 iterations, stall 10)
    batch_obj = ik.IKObjectivePose(tcp, [0, 0, 0], goals)
    batch = ik.IKSolver(m, n, [batch_obj], iterations=60, restarts=50, stall=10, threads=args.threads)
    qb = np.tile(q1, (n, 1))
    t0 = time.perf_counter()
    batch.step(qb, qb)
    t_py = time.perf_counter() - t0
    py_ok = int(batch.converged.sum())

    scene = ikwb.load_scene(PRESET)
    t0 = time.perf_counter()
    r = scene.solve({"tcp pose": goals}, threads=args.threads)
    t_scene = time.perf_counter() - t0
    scene_ok = int(r["converged"].sum())

    cli_rates = {}
    with tempfile.TemporaryDirectory() as d:
        qpath = os.path.join(d, "q.csv")
        np.savetxt(qpath, qs, delimiter=",", fmt="%.17g")
        t0 = time.perf_counter()
        subprocess.run([args.cli, "fk", PANDA, "--q", qpath, "--out", os.path.join(d, "p.csv")],
                       check=True, capture_output=True)
        rows.insert(2, (f"CLI `ikwb fk`, {n} configurations (load, CSV in and out)",
                        (time.perf_counter() - t0) / n, "per configuration"))
        tpath = os.path.join(d, "t.csv")
        np.savetxt(tpath, goals, delimiter=",", fmt="%.17g")
        spath = os.path.join(d, "s.csv")
        with open(spath, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["tcp pose." + c for c in ("x", "y", "z", "qx", "qy", "qz", "qw")])
            w.writerows(goals.tolist())
        threads = ["--threads", str(args.threads)] if args.threads else []
        for label, cmd in [("link", [args.cli, "solve", PANDA, "--link", TCP, "--targets", tpath]),
                           ("scene", [args.cli, "solve", "--scene", PRESET, "--targets", spath])]:
            t0 = time.perf_counter()
            p = subprocess.run(cmd + ["--out", os.path.join(d, "o.csv")] + threads, check=True,
                               capture_output=True, text=True)
            wall = time.perf_counter() - t0
            mm = re.search(r"solved (\d+)/(\d+) .* in ([0-9.]+) s", p.stdout)
            cli_rates[label] = (int(mm.group(1)), float(mm.group(3)), wall)

    print(f"ikwb Python module ({sys.executable}, numpy {np.__version__}) and {args.cli}; "
          f"Panda, {os.cpu_count()} cores\n")
    print("| call | time | |")
    print("|---|---|---|")
    for name, sec, unit in rows:
        print(f"| {name} | {sec * 1e6:.2f} us | {unit} |")
    print()
    print(f"| {n} pose targets | solved | solve time | solves/s |")
    print("|---|---|---|---|")
    print(f"| Python `IKSolver.step` (CLI batch settings) | {py_ok}/{n} | {t_py:.3f} s | {n / t_py:.0f} |")
    c = cli_rates["link"]
    print(f"| CLI `ikwb solve panda --link` | {c[0]}/{n} | {c[1]:.3f} s ({c[2]:.3f} s with load and CSV) | {n / c[1]:.0f} |")
    print(f"| Python `Scene.solve` (Panda preset) | {scene_ok}/{n} | {t_scene:.3f} s | {n / t_scene:.0f} |")
    c = cli_rates["scene"]
    print(f"| CLI `ikwb solve --scene` (Panda preset) | {c[0]}/{n} | {c[1]:.3f} s ({c[2]:.3f} s with load and CSV) | {n / c[1]:.0f} |")
    print("\nNewton's Python API (newton, warp-lang) is not installed in this environment: no "
          "figures for it here (tools/compare/run.py measures it in its own venv).")


if __name__ == "__main__":
    main()
