#!/usr/bin/env bash
# GPU checks of the CUDA backend, prepared for one short run on a lent GPU machine (an H200,
# x86-64, CUDA at /usr/local/cuda, CMake present, maybe no Debian packages and no network).
#
#   here, once (no GPU needed):  tests/gpu/run_gpu_checks.sh --prepare
#       copies the GoogleTest sources into build-gpu-deps/ (ignored by git) so the GPU machine
#       can build the tests without libgtest-dev
#   on the GPU machine:          bash tests/gpu/run_gpu_checks.sh
#       (device tool: carry ["build-gpu-deps"], timeout_s 540)
#
# It builds gpu_tests and gpu_bench for sm_90 with the project's CMake when every package is
# there (then the ikwb CLI too), else with a generated stand-alone CMake project over the same
# sources (model, FK, solver, kernels; no URDF loader needed). Then it runs the GPU tests,
# gpu_bench (batch protocol at 1, 10, 100, 1000, 2000 and 65536 on CUDA and CPU, shared against
# global row buffers, graph replay against direct launches at batch 1 and 1000, CUDA against
# CPU parity, FK throughput), `ikwb bench --backend cuda` when ikwb was built, and with the
# time left a compute-sanitizer memcheck of some GPU tests. Everything goes to stdout and to
# $OUT/gpu_log.txt (when OUT is set). Each step has a time limit; the run stays under 8 min.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
deps="$root/build-gpu-deps"

if [ "${1:-}" = "--prepare" ]; then
  src=/usr/src/googletest
  if [ ! -f "$src/googletest/CMakeLists.txt" ]; then
    echo "prepare: $src not found (install googletest or libgtest-dev)" >&2
    exit 1
  fi
  rm -rf "$deps/googletest"
  mkdir -p "$deps"
  cp -r "$src" "$deps/googletest"
  echo "prepare: copied $src to $deps/googletest ($(du -sh "$deps" | cut -f1))"
  echo "prepare: name build-gpu-deps in the device run's carry"
  exit 0
fi

log="${OUT:+$OUT/gpu_log.txt}"
log="${log:-/tmp/ikwb_gpu_log.txt}"
exec > >(tee -a "$log") 2>&1
start=$SECONDS
status=()
step() { echo; echo "=== [$((SECONDS - start)) s] $*"; }
record() { status+=("$1: $2"); }
# seconds a step may take: at most $1, and never past 7 min 40 s from the start
budget() {
  local left=$((460 - (SECONDS - start)))
  [ "$left" -lt "$1" ] && echo "$((left > 5 ? left : 5))" || echo "$1"
}

export PATH=/usr/local/cuda/bin:$PATH
jobs=$(nproc)
[ "$jobs" -gt 16 ] && jobs=16
build=/tmp/ikwb-gpu-build

step "machine"
uname -m
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 || true
nvcc --version 2>&1 | tail -2
cmake --version 2>&1 | head -1
command -v ninja >/dev/null && gen=(-G Ninja) || gen=()

# --- packages -------------------------------------------------------------------------------
have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ]; }
missing=()
have_header eigen3/Eigen/Core || missing+=(libeigen3-dev)
have_header urdf_model/model.h || missing+=(liburdfdom-dev liburdfdom-headers-dev)
have_header assimp/Importer.hpp || missing+=(libassimp-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header tinyxml2.h || missing+=(libtinyxml2-dev)
have_header gtest/gtest.h || missing+=(libgtest-dev)
have_header benchmark/benchmark.h || missing+=(libbenchmark-dev)
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  step "apt-get install ${missing[*]} (short time limits: the machine may have no network)"
  if timeout "$(budget 40)" apt-get update -qq; then
    DEBIAN_FRONTEND=noninteractive timeout "$(budget 90)" apt-get install -y -qq \
      --no-install-recommends "${missing[@]}" || echo "apt-get install failed"
  else
    echo "apt-get update failed or timed out: building what the machine allows"
  fi
fi

# --- build ----------------------------------------------------------------------------------
full=0
step "configure the project (CUDA 90, no app)"
rm -rf "$build"
# IKWB_GPU_STANDALONE=1 skips the project build (to try the stand-alone path anywhere)
if [ "${IKWB_GPU_STANDALONE:-0}" != 1 ] &&
  timeout "$(budget 120)" cmake -S "$root" -B "$build/full" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DIKWB_BUILD_APP=OFF -DIKWB_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >"$build-configure.log" 2>&1; then
  full=1
  bin="$build/full"
  step "build gpu_tests gpu_bench ikwb (-j$jobs)"
  if timeout "$(budget 300)" cmake --build "$bin" -j "$jobs" --target gpu_tests gpu_bench ikwb; then
    record build "ok (project CMake)"
  else
    record build "FAILED (project CMake)"
  fi
else
  [ -f "$build-configure.log" ] && tail -5 "$build-configure.log"
  echo "project configure failed (packages missing): stand-alone build of the GPU targets"
  gtest_src=""
  for d in "$deps/googletest" /usr/src/googletest; do
    [ -f "$d/googletest/CMakeLists.txt" ] && gtest_src="$d" && break
  done
  sa="$build/standalone-src"
  mkdir -p "$sa"
  cat >"$sa/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.22)
project(ikwb_gpu_checks LANGUAGES CXX CUDA)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CUDA_STANDARD 17)
set(R "$root")
find_package(Threads REQUIRED)
find_package(CUDAToolkit REQUIRED)
add_compile_options(\$<\$<COMPILE_LANGUAGE:CXX>:-march=x86-64-v3>)
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  if("$gtest_src" STREQUAL "")
    message(FATAL_ERROR "no GoogleTest: run run_gpu_checks.sh --prepare, carry build-gpu-deps")
  endif()
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory("$gtest_src" googletest EXCLUDE_FROM_ALL)
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()
file(GLOB solver_sources \${R}/solver/*.cpp)
add_library(ikwb_solver STATIC \${R}/engine/core/model.cpp \${R}/engine/core/fk.cpp
            \${solver_sources})
target_include_directories(ikwb_solver PUBLIC \${R})
target_compile_definitions(ikwb_solver PUBLIC IKWB_HAVE_CUDA=1)
target_link_libraries(ikwb_solver PUBLIC Threads::Threads)
file(GLOB kernel_sources \${R}/kernels/*.cu)
add_library(ikwb_kernels STATIC \${kernel_sources})
target_link_libraries(ikwb_kernels PUBLIC ikwb_solver CUDA::cudart)
target_compile_definitions(ikwb_kernels PRIVATE IKWB_CUDA_ARCHS="sm 90")
target_compile_options(ikwb_kernels PRIVATE
  \$<\$<COMPILE_LANGUAGE:CUDA>:-O3 -Xcompiler=-march=x86-64-v3>)
file(GLOB test_sources \${R}/tests/gpu/*_test.cpp)
add_executable(gpu_tests \${test_sources})
target_include_directories(gpu_tests PRIVATE \${R}/tests)
target_compile_definitions(gpu_tests PRIVATE IKWB_SOURCE_DIR="\${R}")
target_link_libraries(gpu_tests PRIVATE ikwb_kernels GTest::gtest GTest::gtest_main)
add_executable(gpu_bench \${R}/tests/gpu/gpu_bench.cpp)
target_include_directories(gpu_bench PRIVATE \${R}/tests)
target_link_libraries(gpu_bench PRIVATE ikwb_kernels)
set_target_properties(gpu_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY \${CMAKE_BINARY_DIR}/tests)
set_target_properties(gpu_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY \${CMAKE_BINARY_DIR}/bench)
EOF
  bin="$build/standalone"
  step "configure + build the stand-alone GPU targets (-j$jobs)"
  if timeout "$(budget 60)" cmake -S "$sa" -B "$bin" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc &&
    timeout "$(budget 300)" cmake --build "$bin" -j "$jobs" --target gpu_tests gpu_bench; then
    record build "ok (stand-alone; no ikwb CLI)"
  else
    record build "FAILED (stand-alone)"
  fi
fi

# --- tests ----------------------------------------------------------------------------------
tests="$bin/tests/gpu_tests"
if [ -x "$tests" ]; then
  step "gpu_tests"
  if timeout "$(budget 240)" "$tests" --gtest_color=no; then
    record gpu_tests ok
  else
    record gpu_tests FAILED
  fi
else
  record gpu_tests "not built"
fi

# --- benchmarks -----------------------------------------------------------------------------
bench="$bin/bench/gpu_bench"
if [ -x "$bench" ]; then
  step "gpu_bench"
  if timeout "$(budget 200)" "$bench"; then
    record gpu_bench ok
  else
    record gpu_bench "FAILED or timed out"
  fi
fi
if [ "$full" = 1 ] && [ -x "$bin/ikwb" ] && [ "$(budget 60)" -ge 60 ]; then
  step "ikwb bench --backend cuda (batch protocol, shipped panda)"
  if timeout "$(budget 60)" "$bin/ikwb" bench "$root/assets/robots/panda/panda.urdf" \
    --link panda_hand_tcp --protocol batch --backend cuda --batches 1,10,100,1000,2000,65536 \
    --repetitions 5; then
    record "ikwb bench" ok
  else
    record "ikwb bench" "FAILED or timed out"
  fi
fi

# --- memcheck, with the time left -----------------------------------------------------------
if [ -x "$tests" ] && command -v compute-sanitizer >/dev/null && [ "$(budget 90)" -ge 90 ]; then
  step "compute-sanitizer memcheck (FK, objectives, graph replay)"
  if timeout "$(budget 120)" compute-sanitizer --tool memcheck --error-exitcode 3 "$tests" \
    --gtest_color=no \
    --gtest_filter='CudaFk.*:CudaObjectives.*:CudaSolver.GraphReplay*:CudaSolver.FixedIter*'; then
    record memcheck ok
  else
    record memcheck "FAILED, timed out or unsupported (exit $?)"
  fi
fi

step "summary ($((SECONDS - start)) s)"
failed=0
for s in "${status[@]}"; do
  echo "  $s"
  case "$s" in *FAILED*|*"not built"*) failed=1 ;; esac
done
exit $failed
