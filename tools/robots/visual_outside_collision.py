"""How far each generated robot's drawing sticks out of its collision capsules.

For every link of the robots tools/robots/generate.py makes, the vertices of its visual shapes
(in the link's frame, as the generator builds them) are measured against the capsules ikwb fits
to the link's <collision> elements (`ikwb info NAME --capsules --json`): a vertex's distance to
the nearest capsule's surface, positive outside. Prints per robot the links whose drawing reaches
more than 5 mm outside, the worst first: what a collision check cannot see (a hand or a knee that
passes into something by that much before any pair reports it).
usage: python3 tools/robots/visual_outside_collision.py [BUILD_DIR] [ROBOT...]
"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build"
names = sys.argv[2:] or ["panda", "ur5e", "iiwa7", "dual_arm", "humanoid", "quadruped"]


def segment_distance(p, a, b):
    d = [b[i] - a[i] for i in range(3)]
    l2 = sum(x * x for x in d)
    t = 0.0 if l2 == 0 else max(0.0, min(1.0, sum((p[i] - a[i]) * d[i] for i in range(3)) / l2))
    return math.dist(p, [a[i] + t * d[i] for i in range(3)])


for name in names:
    robot = getattr(generate, "make_" + name)()
    if isinstance(robot, tuple):  # with its published numbers (panda, ur5e)
        robot = robot[0]
    geometry = generate.build_link_geometry(robot)
    info = subprocess.run([os.path.join(build, "ikwb"), "info", name, "--capsules", "--json"],
                          check=True, capture_output=True, text=True).stdout
    capsules = {b["name"]: b["capsules"] for b in json.loads(info)["bodies"]}
    worst = []
    for link in robot.links:
        caps = capsules.get(link, [])
        points = [v for m in geometry[link]["volume_meshes"] for v in m.v]
        if not caps or not points:
            continue
        out = max(min(segment_distance(v, c["p0"], c["p1"]) - c["radius"] for c in caps)
                  for v in points)
        if out > 0.005:
            worst.append((out, link))
    worst.sort(reverse=True)
    print("%-10s %s" % (name, ", ".join("%s %.1f mm" % (link, 1000 * out) for out, link in worst)
                        or "every drawing within 5 mm of its capsules"))
