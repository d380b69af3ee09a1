#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages), builds everything and runs the whole test
# suite; GUI tests run under Xvfb with Mesa's software OpenGL. Usage: tools/test.sh [BUILD_DIR]
# The CUDA backend always compiles: for the GPU that is there, or for sm_90 (the GPU the checks
# run on) without one, so a broken kernel fails here and in CI; its tests skip without a
# device. IKWB_CMAKE_ARGS adds CMake options (they come last, so they win).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
"$root/tools/setup.sh"
jobs="$(nproc)"
cuda_archs=90
if nvidia-smi --query-gpu=compute_cap --format=csv,noheader >/dev/null 2>&1; then
  cuda_archs=auto
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIKWB_CUDA_ARCHS="$cuda_archs" \
  ${IKWB_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
cd "$build"
xvfb-run -a -s '-screen 0 1280x720x24' ctest --output-on-failure -j "$jobs" --timeout 900
