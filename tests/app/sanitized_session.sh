#!/bin/sh
# A short scripted session (scene save / open, undo / redo, store and export, a brief soak) for
# the sanitizer build: ./sanitized_session.sh PATH/TO/ikwb. Exits 0 on success.
set -eu
ikwb=${1:?usage: sanitized_session.sh PATH/TO/ikwb}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/script.txt" <<'SCRIPT'
robot panda
wait 2
weight 0 2
wait 1
store
undo
redo
save_scene scene.json
open_scene scene.json
wait 1
export_configs configs.csv
soak 200 1
wait 60
expect reached 0
SCRIPT
run() { (cd "$dir" && "$@" gui --script script.txt --width 480 --height 320 \
  --recovery-file "$dir/recovery.json" --autosave-seconds 0); }
if [ -n "${DISPLAY:-}" ]; then run "$ikwb"; else run xvfb-run -a "$ikwb"; fi
test -s "$dir/scene.json" && test -s "$dir/configs.csv"
