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
import resource
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


def newton_figures(m, n, goals, qs, fk_batch):
    """Newton's Python API (newton, warp-lang from PyPI; CPU device, float32) on the same robot
    and targets: eval_fk per call and over fk_batch replicated robots, IKSolver.step of one
    problem and of the n targets (position + rotation + joint-limit objectives, LM, analytic
    Jacobian, from the middle of the limits, 60 iterations: Newton always runs them all).
    None when newton is not importable."""
    try:
        import newton
        import newton.ik as nik
        import warp as wp
    except ImportError:
        return None
    import xml.etree.ElementTree as ET

    tree = ET.parse(PANDA)  # without meshes (Newton's mesh import needs trimesh)
    for link in tree.getroot().iter("link"):
        for tag in ("visual", "collision"):
            for e in link.findall(tag):
                link.remove(e)
    tmp = tempfile.mkdtemp()
    urdf = os.path.join(tmp, "panda.urdf")
    tree.write(urdf)

    def build(copies):
        b = newton.ModelBuilder()
        b.add_urdf(urdf, floating=False)
        if copies > 1:
            top = newton.ModelBuilder()
            top.replicate(b, copies)
            b = top
        return b.finalize(device="cpu")

    nm = build(1)
    names = [lbl.rsplit("/", 1)[-1] for lbl in nm.joint_label]
    qstart = nm.joint_q_start.numpy()

    def to_newton(q_ours):  # our coordinates (the second finger mimics the first) to Newton's
        out = np.tile(nm.joint_q.numpy(), (len(q_ours), 1))
        for j, name in enumerate(m.joint_key):
            if name in names and m.joint_q_start[j + 1] - m.joint_q_start[j] == 1:
                out[:, qstart[names.index(name)]] = q_ours[:, m.joint_q_start[j]]
        fj = names.index("panda_finger_joint2")
        out[:, qstart[fj]] = q_ours[:, m.joint_q_start[m.joint_index("panda_finger_joint1")]]
        return out.astype(np.float32)

    def to_ours(qn):
        out = np.tile(m.middle_configuration(), (len(qn), 1))
        for j, name in enumerate(m.joint_key):
            if name in names and m.joint_q_start[j + 1] - m.joint_q_start[j] == 1:
                out[:, m.joint_q_start[j]] = qn[:, qstart[names.index(name)]]
        return out

    rows = []
    s = nm.state()
    q1 = wp.array(to_newton(m.middle_configuration()[None, :])[0], dtype=wp.float32, device="cpu")
    newton.eval_fk(nm, q1, nm.joint_qd, s)  # warm-up: kernel compile or load

    def fk_one():
        newton.eval_fk(nm, q1, nm.joint_qd, s)
        wp.synchronize()

    rows.append(("Newton `eval_fk`, one configuration", per_call(fk_one), "per call"))
    big = build(fk_batch)
    qb = wp.array(to_newton(qs[:fk_batch]).reshape(-1), dtype=wp.float32, device="cpu")
    sb = big.state()
    newton.eval_fk(big, qb, big.joint_qd, sb)

    def fk_many():
        newton.eval_fk(big, qb, big.joint_qd, sb)
        wp.synchronize()

    rows.append((f"Newton `eval_fk`, {fk_batch} replicated robots in one call",
                 per_call(fk_many) / fk_batch, "per configuration"))

    ee = [lbl.rsplit("/", 1)[-1] for lbl in nm.body_label].index(TCP)

    def solver_for(targets):
        objs = [nik.IKObjectivePosition(ee, wp.vec3(0.0, 0.0, 0.0),
                                        wp.array(targets[:, :3].astype(np.float32), dtype=wp.vec3)),
                nik.IKObjectiveRotation(ee, wp.quat_identity(),
                                        wp.array(targets[:, 3:7].astype(np.float32), dtype=wp.vec4)),
                nik.IKObjectiveJointLimit(nm.joint_limit_lower, nm.joint_limit_upper, weight=10.0)]
        return nik.IKSolver(nm, len(targets), objs, jacobian_mode="analytic", lambda_initial=0.1)

    one = solver_for(goals[:1])
    qin1 = wp.array(to_newton(m.middle_configuration()[None, :]), dtype=wp.float32, device="cpu")
    qout1 = wp.zeros_like(qin1)
    one.step(qin1, qout1, iterations=60)

    def ik_one():
        one.step(qin1, qout1, iterations=60)
        wp.synchronize()

    rows.append(("Newton `IKSolver.step`, one pose problem (60 iterations, from the middle)",
                 per_call(ik_one), "per call"))
    many = solver_for(goals)
    qin = wp.array(to_newton(np.tile(m.middle_configuration(), (n, 1))), dtype=wp.float32,
                   device="cpu")
    qout = wp.zeros_like(qin)
    many.step(qin, qout, iterations=60)  # warm-up
    wp.synchronize()
    w0, c0 = time.perf_counter(), time.process_time()
    many.step(qin, qout, iterations=60)
    wp.synchronize()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    # judged by our FK in float64, with the CLI's tolerances
    got = ikwb.eval_fk_batch(m, to_ours(qout.numpy().astype(np.float64)))[0][:, m.body_index(TCP)]
    perr = np.linalg.norm(got[:, :3] - goals[:, :3], axis=1)
    rerr = 2 * np.arccos(np.clip(np.abs(np.sum(got[:, 3:] * goals[:, 3:], axis=1)), 0, 1))
    ok = int(np.sum((perr < 1e-4) & (rerr < 1e-3)))
    return rows, (ok, wall, cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=str(ROOT / "build" / "ikwb"), help="the ikwb program")
    ap.add_argument("--problems", type=int, default=10000)
    ap.add_argument("--threads", type=int, default=0, help="solver threads (0: all cores)")
    ap.add_argument("--newton", action="store_true",
                    help="also Newton's Python API (pip install newton warp-lang in the venv)")
    ap.add_argument("--newton-fk-batch", type=int, default=1000,
                    help="replicated robots for Newton's batched FK (building 10000 takes long)")
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
    k, one_ok, inside = [0], [0], [0.0]

    def solve_one():
        obj.set_target_pose(0, goals[k[0] % n])
        k[0] += 1
        one.step(qin, qout)
        one_ok[0] += bool(one.converged[0])
        inside[0] += one.solve_seconds

    t = per_call(solve_one)
    rows.append(("IKSolver.step, one pose problem (1 seed, at most 100 iterations, from the middle; "
                 f"{100 * one_ok[0] / k[0]:.0f}% converge)", t,
                 f"per call, of which {inside[0] / k[0] * 1e6:.2f} us in the C++ solve"))
    adam = ikwb.InverseKinematics(PANDA, [f"panda_joint{i}" for i in range(1, 8)],
                                  solver_settings={"threads": 1})
    adam.add_target_pose(TCP)
    j, adam_ok = [0], [0]

    def adam_one():
        g = goals[j[0] % n]
        j[0] += 1
        adam.update_target_pose(TCP, g[:3], g[3:])
        adam.set_initial_guess(np.eye(4), q1[:7])
        adam.solve()
        adam_ok[0] += bool(adam.converged)

    t = per_call(adam_one)
    rows.append(("InverseKinematics.solve, one pose target (from the middle, up to 20 restarts; "
                 f"{100 * adam_ok[0] / j[0]:.0f}% converge)", t, "per call"))

    # the batch: the CLI's defaults for `ikwb solve ROBOT --link` (middle start, 50 restarts,
    # 60 iterations, stall 5). Wall time with every thread, and CPU time on one thread (what a
    # machine shared with other jobs still measures fairly).
    def python_batch(threads):
        b = ik.IKSolver(m, n, [ik.IKObjectivePose(tcp, [0, 0, 0], goals)], iterations=60,
                        restarts=50, stall=5, threads=threads)
        qb = np.tile(q1, (n, 1))
        w0, c0 = time.perf_counter(), time.process_time()
        b.step(qb, qb)
        return int(b.converged.sum()), time.perf_counter() - w0, time.process_time() - c0

    def python_like_newton(threads):  # one seed from the middle, no restarts, 60 iterations
        b = ik.IKSolver(m, n, [ik.IKObjectivePose(tcp, [0, 0, 0], goals)], iterations=60,
                        threads=threads)
        qb = np.tile(q1, (n, 1))
        w0, c0 = time.perf_counter(), time.process_time()
        b.step(qb, qb)
        return int(b.converged.sum()), time.perf_counter() - w0, time.process_time() - c0

    def python_scene(threads):
        scene = ikwb.load_scene(PRESET)
        w0, c0 = time.perf_counter(), time.process_time()
        r = scene.solve({"tcp pose": goals}, threads=threads)
        return int(r["converged"].sum()), time.perf_counter() - w0, time.process_time() - c0

    def child_cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    batch = {}
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

        def cli(cmd, threads):
            c0, w0 = child_cpu(), time.perf_counter()
            p = subprocess.run(cmd + ["--out", os.path.join(d, "o.csv"), "--threads", str(threads)],
                               check=True, capture_output=True, text=True)
            wall, cpu = time.perf_counter() - w0, child_cpu() - c0
            mm = re.search(r"solved (\d+)/(\d+) .* in ([0-9.]+) s", p.stdout)
            return int(mm.group(1)), float(mm.group(3)), cpu, wall

        link = [args.cli, "solve", PANDA, "--link", TCP, "--targets", tpath]
        scene_cmd = [args.cli, "solve", "--scene", PRESET, "--targets", spath]
        for threads in (args.threads, 1):
            batch[("py", threads)] = python_batch(threads)
            batch[("py1", threads)] = python_like_newton(threads)
            batch[("cli", threads)] = cli(link, threads)
            batch[("pyscene", threads)] = python_scene(threads)
            batch[("cliscene", threads)] = cli(scene_cmd, threads)

    newton_result = newton_figures(m, n, goals, qs, args.newton_fk_batch) if args.newton else None
    if newton_result:
        rows.extend(newton_result[0])

    print(f"ikwb Python module ({sys.executable}, numpy {np.__version__}) and {args.cli}; "
          f"Panda, {os.cpu_count()} cores\n")
    print("| call | time | |")
    print("|---|---|---|")
    for name, sec, unit in rows:
        print(f"| {name} | {sec * 1e6:.2f} us | {unit} |")
    print()
    t = args.threads or os.cpu_count()
    print(f"| {n} pose targets | solved | wall, {t} threads | solves/s | CPU time, 1 thread |")
    print("|---|---|---|---|---|")
    for key, name in [("py", "Python `IKSolver.step` (the CLI's batch settings)"),
                      ("py1", "Python `IKSolver.step` (1 seed, no restarts, at most 60 iterations)"),
                      ("cli", "CLI `ikwb solve panda --link`"),
                      ("pyscene", "Python `Scene.solve` (Panda preset)"),
                      ("cliscene", "CLI `ikwb solve --scene` (Panda preset)")]:
        many, one = batch[(key, args.threads)], batch[(key, 1)]
        if key.startswith("py"):
            print(f"| {name} | {many[0]}/{n} | {many[1]:.3f} s | {n / many[1]:.0f} | {one[2]:.3f} s |")
        else:  # the solve line's time; CPU time of the whole process (load, CSV in and out)
            print(f"| {name} | {many[0]}/{n} | {many[1]:.3f} s (process {many[3]:.3f} s) | "
                  f"{n / many[1]:.0f} | {one[2]:.3f} s (whole process) |")
    if newton_result:
        ok, wall, cpu = newton_result[1]
        print(f"| Newton `IKSolver.step` (position + rotation + joint limits, 60 iterations, "
              f"float32) | {ok}/{n} within 1e-4 m, 1e-3 rad | {wall:.3f} s | {n / wall:.0f} | "
              f"CPU time, its threads: {cpu:.3f} s |")
    elif args.newton:
        print("\nNewton's Python API (newton, warp-lang) is not importable here: no figures for it.")


if __name__ == "__main__":
    main()
