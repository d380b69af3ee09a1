#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages), builds the workbench and opens it on the
# default robot. Extra arguments go to ikwb (for example: --robot humanoid).
# The CUDA backend is compiled for the GPU that is there (IKWB_CUDA_ARCHS=auto), and not at all
# without one. IKWB_CMAKE_ARGS adds CMake options (they come last, so they win).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
"$root/tools/setup.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIKWB_CUDA_ARCHS=auto ${IKWB_CMAKE_ARGS:-}
status="$(sed -n 's/^IKWB_CUDA_STATUS:INTERNAL=//p' "$build/CMakeCache.txt")"
case "$status" in
  "not built"*) echo "run.sh: building without the CUDA backend: ${status#not built: }; the CPU backend solves" ;;
esac
cmake --build "$build" -j "$(nproc)" --target ikwb
exec "$build/ikwb" gui "$@"
