#!/usr/bin/env python3
"""A serial chain of N revolute joints as URDF, with reachable pose targets.

For trying the solver on robots of any size (README "Large robots"): joint i turns about z
(even i) or y (odd i), links of equal length add up to --reach metres along x, limits
+-LIMIT rad. Targets are the tip's poses at random configurations within the limits
(x,y,z,qx,qy,qz,qw per line, the format of `ikwb solve --targets`), so every one is reachable.

  python3 tools/robots/chain.py 5000 --out /tmp/chain5000.urdf --targets /tmp/t5000.csv
  build/ikwb solve /tmp/chain5000.urdf --link tip --targets /tmp/t5000.csv --out /tmp/q.csv

Only the standard library; the same seed writes the same files.
"""
import argparse
import math
import random


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]


def mul(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def quat_xyzw(R):
    """unit quaternion (x, y, z, w) of a rotation matrix"""
    t = R[0][0] + R[1][1] + R[2][2]
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        return ((R[2][1] - R[1][2]) / s, (R[0][2] - R[2][0]) / s, (R[1][0] - R[0][1]) / s,
                0.25 * s)
    i = max(range(3), key=lambda k: R[k][k])
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2.0 * math.sqrt(1.0 + R[i][i] - R[j][j] - R[k][k])
    q = [0.0, 0.0, 0.0]
    q[i] = 0.25 * s
    q[j] = (R[j][i] + R[i][j]) / s
    q[k] = (R[k][i] + R[i][k]) / s
    return (q[0], q[1], q[2], (R[k][j] - R[j][k]) / s)


def urdf(n, link):
    out = ['<?xml version="1.0"?>', f'<robot name="chain{n}">', '  <link name="base"/>']
    parent = "base"
    for i in range(n):
        child = f"link{i + 1}"
        axis = "0 0 1" if i % 2 == 0 else "0 1 0"
        x = 0.0 if i == 0 else link
        out += [f'  <link name="{child}"/>',
                f'  <joint name="j{i + 1}" type="revolute">',
                f'    <parent link="{parent}"/><child link="{child}"/>',
                f'    <origin xyz="{x:.9g} 0 0"/><axis xyz="{axis}"/>',
                f'    <limit lower="-{LIMIT}" upper="{LIMIT}" effort="10" velocity="1"/>',
                '  </joint>']
        parent = child
    out += ['  <link name="tip"/>', '  <joint name="tip_fixed" type="fixed">',
            f'    <parent link="{parent}"/><child link="tip"/>',
            f'    <origin xyz="{link:.9g} 0 0"/>', '  </joint>', '</robot>', '']
    return "\n".join(out)


def tip_pose(q, link):
    R = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    p = [0.0, 0.0, 0.0]
    for i, a in enumerate(q):
        if i > 0:
            p = [p[r] + R[r][0] * link for r in range(3)]
        R = mul(R, rot_z(a) if i % 2 == 0 else rot_y(a))
    p = [p[r] + R[r][0] * link for r in range(3)]
    return p, quat_xyzw(R)


LIMIT = 1.5


def main():
    global LIMIT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("joints", type=int, help="number of revolute joints")
    ap.add_argument("--out", required=True, help="URDF file to write")
    ap.add_argument("--targets", help="pose targets CSV to write")
    ap.add_argument("--count", type=int, default=10, help="targets (default 10)")
    ap.add_argument("--reach", type=float, default=2.0, help="chain length, m (default 2)")
    ap.add_argument("--limit", type=float, default=1.5, help="joint limits +-rad (default 1.5)")
    ap.add_argument("--spread", type=float, default=0.3,
                    help="targets: joints drawn within +-spread * limit (default 0.3)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.joints < 1:
        ap.error("joints must be >= 1")
    LIMIT = a.limit
    link = a.reach / (a.joints + 1)
    with open(a.out, "w") as f:
        f.write(urdf(a.joints, link))
    if a.targets:
        rng = random.Random(a.seed)
        with open(a.targets, "w") as f:
            for _ in range(a.count):
                q = [rng.uniform(-a.spread, a.spread) * LIMIT for _ in range(a.joints)]
                p, quat = tip_pose(q, link)
                f.write(",".join(f"{v:.12g}" for v in (*p, *quat)) + "\n")


if __name__ == "__main__":
    main()
