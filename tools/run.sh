#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages), builds the workbench and opens it on the
# default robot. Extra arguments go to ikwb (for example: --robot humanoid).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
"$root/tools/setup.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${IKWB_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)" --target ikwb
exec "$build/ikwb" gui "$@"
