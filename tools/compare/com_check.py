#!/usr/bin/env python3
"""Centre of mass: `ikwb fk --com` against Pinocchio's centerOfMass (issue 15, Measured).

For each robot: random configurations inside the limits ([-pi, pi] when unbounded; a floating
base anywhere in [-1, 1]^3 with a random orientation), our centre of mass and total mass from
`ikwb fk --com` (the com objective's sum_i m_i X_i com_i / sum_i m_i), Pinocchio's from
pinocchio.centerOfMass on the same configurations. Reported: the largest absolute difference of
any component over all configurations, and the total masses.

Pinocchio leaves the inertia of the root link out of centerOfMass when the base is fixed (it
hangs on the universe joint, model.inertias[0]); ours counts every link. So on a fixed base the
root link's inertia is added to Pinocchio's result (the universe frame is the world frame), and
the table says how much that changed it.

Robots: Talos (talos_full_v2 and talos_reduced, floating base), Panda and UR5 from
example-robot-data, and the robots shipped in assets/robots (the humanoid and quadruped with
their floating base, as their presets load them).

    .venv-compare/bin/python tools/compare/com_check.py --ikwb build/ikwb [--configs 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
import pinocchio as pin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import Robot, robots_dir, run, write_rows  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def robot_list(erd):
    shipped = os.path.join(ROOT, "assets", "robots")
    out = [("talos_full_v2", os.path.join(erd, "talos_data/robots/talos_full_v2.urdf"), True),
           ("talos_reduced", os.path.join(erd, "talos_data/robots/talos_reduced.urdf"), True),
           ("panda (erd)", os.path.join(erd, "panda_description/urdf/panda.urdf"), False),
           ("ur5 (erd)", os.path.join(erd, "ur_description/urdf/ur5_robot.urdf"), False)]
    for name, floating in [("humanoid", True), ("quadruped", True), ("panda", False),
                           ("ur5e", False), ("iiwa7", False), ("dual_arm", False),
                           ("planar3", False)]:
        out.append((name + " (shipped)", os.path.join(shipped, name, name + ".urdf"), floating))
    return out


def check(label, path, floating, args, pkg, rng):
    r = {"robot": label, "urdf": path, "floating_base": floating}
    fb = ["--floating-base"] if floating else []
    pp = sum((["--package-path", d] for d in pkg), [])
    info = json.loads(run([args.ikwb, "info", path, "--json", *fb, *pp]).stdout)
    pm = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating
          else pin.buildModelFromUrdf(path))
    rob = Robot(info, pm)
    if rob.missing_joints:
        raise RuntimeError(f"joints missing on our side: {rob.missing_joints}")
    q = rob.random_q(args.configs, rng)
    d = os.path.join(args.work, label.split()[0] + ("_shipped" if "shipped" in label else ""))
    os.makedirs(d, exist_ok=True)
    write_rows(os.path.join(d, "q.csv"), q)
    com_csv = os.path.join(d, "com.csv")
    run([args.ikwb, "fk", path, *fb, *pp, "--q", os.path.join(d, "q.csv"),
         "--out", os.devnull, "--com", com_csv])
    ours = np.loadtxt(com_csv, delimiter=",", skiprows=1, ndmin=2)
    assert ours.shape[0] == args.configs
    root = pm.inertias[0]  # the root link on a fixed base (zero with a free flyer)
    m_pin = pin.computeTotalMass(pm)
    diff = root_shift = 0.0
    for i in range(args.configs):
        c = pin.centerOfMass(pm, rob.pd, rob.to_pin(q[i]))
        full = (m_pin * c + root.mass * root.lever) / (m_pin + root.mass)
        root_shift = max(root_shift, float(np.abs(full - c).max()))
        diff = max(diff, float(np.abs(ours[i, 1:4] - full).max()))
    r.update(nq=rob.nq, configs=args.configs, mass_ours=float(ours[0, 4]),
             mass_pin=float(m_pin + root.mass), root_mass=float(root.mass),
             max_abs_diff=diff, root_inertia_shift=root_shift)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ikwb", required=True, help="the ikwb binary")
    ap.add_argument("--configs", type=int, default=1000, help="random configurations per robot")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default="/tmp/com_check", help="CSV files and com_check.json")
    args = ap.parse_args()
    erd = robots_dir()
    pkg = [os.path.dirname(erd), erd]  # package://example-robot-data/... and package://NAME/...
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.work, exist_ok=True)
    results = []
    print(f"Pinocchio {pin.__version__}, {args.configs} random configurations per robot")
    print(f"| robot | nq | mass ours (kg) | mass Pinocchio (kg) | max abs CoM difference (m) "
          f"| root link added to Pinocchio's (kg, max shift m) |")
    print("|---|---|---|---|---|---|")
    for label, path, floating in robot_list(erd):
        try:
            r = check(label, path, floating, args, pkg, rng)
        except Exception as e:  # noqa: BLE001
            r = {"robot": label, "error": str(e)[:300]}
            print(f"| {label} | error: {r['error']} |||||")
        else:
            root = f"{r['root_mass']:.4g}, {r['root_inertia_shift']:.2e}" if r["root_mass"] \
                else "-"
            print(f"| {label} | {r['nq']} | {r['mass_ours']:.6g} | {r['mass_pin']:.6g} "
                  f"| {r['max_abs_diff']:.2e} | {root} |")
        results.append(r)
    with open(os.path.join(args.work, "com_check.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
