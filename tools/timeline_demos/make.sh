#!/bin/sh
# Makes the timeline demos' scenes (assets/demos/panda_pick_place.json, humanoid_stance.json)
# by posing the robots in the real workbench with the scripts beside this file, then names the
# robot by its shipped name instead of the absolute path a saved scene holds, and its SRDF by a
# path relative to assets/demos.
#   tools/timeline_demos/make.sh [BUILD_DIR]     (under xvfb-run -a without a display)
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ikwb="${1:-$root/build}/ikwb"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for demo in panda_pick_place:panda humanoid_stance:humanoid; do
  name=${demo%%:*}
  robot=${demo##*:}
  (cd "$work" && "$ikwb" gui --script "$here/$name.txt" > "$name.log" 2>&1) ||
    { cat "$work/$name.log"; exit 1; }
  python3 - "$work/$name.json" "$robot" "$root/assets/demos/$name.json" <<'PY'
import json, os, sys
scene = json.load(open(sys.argv[1]))
scene["robot"] = sys.argv[2]
scene.pop("extra", None)
if scene.get("srdf"):
    scene["srdf"] = os.path.relpath(scene["srdf"], os.path.dirname(sys.argv[3]))
open(sys.argv[3], "w").write(json.dumps(scene, indent=2) + "\n")
PY
  echo "wrote assets/demos/$name.json"
done
