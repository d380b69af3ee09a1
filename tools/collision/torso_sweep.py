"""The humanoid's right hand dragged across its torso in the workbench, self-collision on and off.

Writes a workbench script that sweeps the right hand's target through the torso in 8 steps (12
frames each) with the preset's self_collision objective enabled, then again with it disabled,
dumping the state after each step; runs `ikwb gui --script` (under Xvfb when there is no
display) and prints, per case: steps that end with a penetrating self pair, the least self pair
distance, the median solve time and the hand's median position error.
usage: python3 tools/collision/torso_sweep.py [BUILD_DIR]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build"
tmp = tempfile.mkdtemp()
ys = [-0.35 + 0.1 * i for i in range(8)]
lines = ["robot humanoid", "wait 30"]
for case in ("on", "off"):
    if case == "off":
        lines += ["enable 7 off", "target 3 0.09103 -0.34668 -0.14188", "wait 30"]
    for i, y in enumerate(ys):
        lines += [f"target 3 0.05 {y:.3f} -0.05", "wait 12", f"dump {tmp}/{case}_{i}.json"]
script = os.path.join(tmp, "sweep.txt")
with open(script, "w") as f:
    f.write("\n".join(lines) + "\n")
cmd = [os.path.join(build, "ikwb"), "gui", "--script", script]
if not os.environ.get("DISPLAY") and shutil.which("xvfb-run"):
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x720x24"] + cmd
subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for case in ("on", "off"):
    hit, least, ms, err = 0, [], [], []
    for i in range(len(ys)):
        d = json.load(open(f"{tmp}/{case}_{i}.json"))
        pairs = [c for c in d["collisions"] if "link_b" in c]
        hit += any(c["penetrating"] for c in pairs)
        least.append(min(c["distance"] for c in pairs))
        ms.append(d["solver"]["solve_ms"])
        err.append(d["objectives"][3]["position_error"])
    print(f"self_collision {case:3s}: {hit}/{len(ys)} steps end with a penetrating self pair, "
          f"least distance {1000 * min(least):.1f} mm, median solve {statistics.median(ms):.2f} ms, "
          f"hand error median {1000 * statistics.median(err):.1f} mm")
shutil.rmtree(tmp)
