#!/bin/sh
# Collision-aware IK on the Panda with a table and a 0.4 m high box between the base and the
# targets (docs/benchmarks.md, "Collision-aware IK"). Writes its files to a temporary folder and
# prints: success and time per solve (16 seeds, one thread) with and without the collision
# objectives, the fraction of answers in collision, and the time per LM iteration (one seed,
# 50 fixed iterations).
# usage: tools/collision/run.sh [BUILD_DIR] [N_TARGETS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
n=${2:-100}
ikwb="$build/ikwb"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# targets on the far side of the box: x in [0.62, 0.72], y in [-0.25, 0.25], z in [0.17, 0.35]
python3 - "$n" > "$tmp/targets.csv" <<'PY'
import random, sys
random.seed(7)
print("reach.x,reach.y,reach.z")
for _ in range(int(sys.argv[1])):
    print("%.4f,%.4f,%.4f" % (random.uniform(0.62, 0.72), random.uniform(-0.25, 0.25),
                              random.uniform(0.17, 0.35)))
PY
for kind in wall plain; do
  "$ikwb" solve --scene "$here/panda_$kind.json" --targets "$tmp/targets.csv" \
    --out "$tmp/$kind.csv" --seeds 16 --threads 1 > "$tmp/$kind.log"
  cut -d, -f5- "$tmp/$kind.csv" | tail -n +2 > "$tmp/${kind}_q.csv"
  set +e
  "$ikwb" check panda --q "$tmp/${kind}_q.csv" --scene "$here/panda_wall.json" \
    > "$tmp/${kind}_check.csv" 2> "$tmp/${kind}_check.log"
  set -e
  # cost per LM iteration: one seed, a fixed 50 iterations per target
  "$ikwb" solve --scene "$here/panda_$kind.json" --targets "$tmp/targets.csv" \
    --out "$tmp/${kind}_fixed.csv" --seeds 1 --iterations 50 --fixed-iterations --threads 1 \
    > "$tmp/${kind}_fixed.log"
done
python3 - "$tmp" <<'PY'
import csv, re, sys
tmp = sys.argv[1]
for kind in ("wall", "plain"):
    rows = list(csv.DictReader(open(f"{tmp}/{kind}.csv")))
    check = list(csv.DictReader(open(f"{tmp}/{kind}_check.csv")))
    log = open(f"{tmp}/{kind}.log").read()
    secs = float(re.search(r"in ([0-9.]+) s", log).group(1))
    ok = sum(r["converged"] == "1" for r in rows)
    hits = sum(c["in_collision"] == "yes" for c in check)
    clear_ok = sum(r["converged"] == "1" and c["in_collision"] == "no" for r, c in zip(rows, check))
    fixed = float(re.search(r"in ([0-9.]+) s", open(f"{tmp}/{kind}_fixed.log").read()).group(1))
    print(f"{kind:5s}: converged {ok}/{len(rows)}, converged and collision-free {clear_ok}/{len(rows)}, "
          f"in collision {hits}/{len(rows)}, {1e3 * secs / len(rows):.2f} ms/solve, "
          f"{1e6 * fixed / (50 * len(rows)):.1f} us per LM iteration")
PY
