#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages), builds everything and runs the whole test
# suite; GUI tests run under Xvfb with Mesa's software OpenGL. Usage: tools/test.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
"$root/tools/setup.sh"
jobs="$(nproc)"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${IKWB_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
cd "$build"
xvfb-run -a -s '-screen 0 1280x720x24' ctest --output-on-failure -j "$jobs" --timeout 900
