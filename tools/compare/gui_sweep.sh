#!/usr/bin/env bash
# Opens every URDF of example-robot-data in the workbench (meshes loaded and rendered, under the
# current DISPLAY: run it with xvfb-run -a) and prints one line per file: exit status, bodies,
# load warnings and OpenGL errors from the state dump. Needs the comparison venv
# (tools/compare/run.py creates it) for the robots.
#   xvfb-run -a tools/compare/gui_sweep.sh [IKWB] [VENV]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ikwb="${1:-$root/build/ikwb}"
venv="${2:-$root/.venv-compare}"
robots=$(ls -d "$venv"/lib/python3*/site-packages/cmeel.prefix/share/example-robot-data/robots)
share=$(dirname "$(dirname "$robots")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'wait 3\ndump %s/d.json\n' "$work" >"$work/s.txt"
find "$robots" -name '*.urdf' | sort | while read -r f; do
  rm -f "$work/d.json"
  timeout 60 "$ikwb" gui "$f" --package-path "$share" --package-path "$robots" \
    --script "$work/s.txt" --no-restore --width 640 --height 360 >"$work/log.txt" 2>&1
  rc=$?
  python3 - "$work/d.json" "${f#"$robots"/}" "$rc" <<'PY'
import json, os, sys
path, name, rc = sys.argv[1:]
if not os.path.exists(path):
    print(f"{name:64} exit {rc}  no state dump")
    sys.exit()
d = json.load(open(path))
warnings = sum(1 for m in d.get("messages", []) if m.get("level") == "warning")
print(f"{name:64} exit {rc}  bodies {len(d.get('bodies', [])):3}  warnings {warnings:2}  "
      f"gl_errors {d.get('gl_errors')}")
PY
done
