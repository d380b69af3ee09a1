#!/usr/bin/env bash
# GPU checks of the CUDA backend, prepared for one short run on a lent GPU machine (an H200,
# x86-64, CUDA at /usr/local/cuda, CMake present, no Debian packages and no network).
#
#   here, once (no GPU needed):  tests/gpu/run_gpu_checks.sh --prepare [BUILD]
#       copies the GoogleTest sources into build-gpu-deps/ (ignored by git) so the GPU machine
#       can build the tests without libgtest-dev; with BUILD, a build folder configured with
#       CUDA for sm_90 (IKWB_CUDA_ARCHS=90) where gpu_tests, gpu_bench and ikwb were built,
#       also packs those programs (and the Python module, where built) and the shared
#       libraries they load that are not the C
#       library's (Debian 12's, with glvnd's EGL and OpenGL loaders) into
#       build-gpu-deps/prebuilt.tar.gz (about 30 MB of the device tool's 64 MiB), so the GPU
#       machine runs them without compiling
#   on the GPU machine:          bash tests/gpu/run_gpu_checks.sh
#       (device tool: carry ["build-gpu-deps"], timeout_s 540)
#
# Without a GPU (nvidia-smi fails) it stops at once and exits 2. With one it exports
# IKWB_REQUIRE_GPU=1, so GPU tests and gpu_bench fail instead of skipping when CUDA cannot
# use the device. It runs the prebuilt programs when they start there; else it builds gpu_tests
# and gpu_bench for sm_90 with the project's CMake when every package is there (then the ikwb
# CLI, separately), else with a generated stand-alone CMake project over the same sources
# (model, FK, solver, kernels; no URDF loader needed); apt-get runs only when deb.debian.org
# resolves. Then it runs the GPU tests, gpu_bench (batch protocol at 1, 10, 100, 1000, 2000
# and 65536 on CUDA and CPU, shared against global row buffers, graph replay against direct
# launches at batch 1 and 1000, CUDA against CPU parity, FK throughput), `ikwb bench --backend
# cuda` when ikwb is there, the Python module's Scene.solve on CUDA and the CPU where the archive
# has the module and python3 is its CPython (python_cuda_check.py), the workbench's drag scripts (Panda, humanoid) headless through
# EGL on the CUDA and CPU backends, and with the time left a compute-sanitizer memcheck of
# some GPU tests (where the runtime refuses the sanitizer, as gVisor does, that step reads
# "unsupported" and does not fail the run). Everything goes to stdout and to $OUT/gpu_log.txt
# (when OUT is set; the drag runs' state dumps go there too), complete before the script exits.
# Each step has a time limit; the run stays under 8 min. Exit status: 0 all passed, 1 a step
# failed, 2 no GPU.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
deps="$root/build-gpu-deps"

# the packed programs travel as one archive; the GPU run unpacks it here
archive="$deps/prebuilt.tar.gz"
prebuilt=/tmp/ikwb-prebuilt

# copies BUILD's gpu_tests, gpu_bench and ikwb, and the shared libraries they need that are not
# the C library's, into $archive (tests/, bench/, ikwb, lib/: the layout of a build folder)
pack() {
  local b="$1" f lib
  for f in tests/gpu_tests bench/gpu_bench ikwb; do
    if [ ! -x "$b/$f" ]; then
      echo "prepare: $b/$f not built (configure with -DIKWB_CUDA_ARCHS=90; build it)" >&2
      return 1
    fi
  done
  rm -rf "$prebuilt"
  mkdir -p "$prebuilt/tests" "$prebuilt/bench" "$prebuilt/lib"
  cp "$b/tests/gpu_tests" "$prebuilt/tests/"
  cp "$b/bench/gpu_bench" "$prebuilt/bench/"
  cp "$b/ikwb" "$prebuilt/"
  # the Python module where the build has one (its libraries are ikwb's)
  local module=("$b"/python/ikwb*.so)
  if [ -f "${module[0]}" ]; then
    mkdir -p "$prebuilt/python"
    cp "${module[0]}" "$prebuilt/python/"
    strip --strip-unneeded "$prebuilt/python/$(basename "${module[0]}")"
  fi
  # loaded at run time by the workbench's headless mode: glvnd's EGL and OpenGL loaders (epoxy)
  # and libGL.so.1 (ImGui's OpenGL3 backend loads its functions through it); the vendor's EGL
  # driver is the GPU machine's
  local gl=()
  for lib in libEGL.so.1 libGLdispatch.so.0 libOpenGL.so.0 libGL.so.1 libGLX.so.0; do
    gl+=("/usr/lib/x86_64-linux-gnu/$lib")
  done
  # the C library's own, and the driver's, come from the GPU machine
  ldd "$b/tests/gpu_tests" "$b/bench/gpu_bench" "$b/ikwb" "${gl[@]}" |
    awk '/=> \//{print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libcuda)\.so' |
    while read -r lib; do cp -L "$lib" "$prebuilt/lib/"; done
  cp -L "${gl[@]}" "$prebuilt/lib/"
  strip -s "$prebuilt/ikwb" "$prebuilt/tests/gpu_tests" "$prebuilt/bench/gpu_bench"
  tar -czf "$archive" -C "$prebuilt" .
  echo "prepare: packed $(ls "$prebuilt/lib" | wc -l) libraries, 3 programs and" \
    "$(ls "$prebuilt/python" 2>/dev/null | wc -l) Python module into $archive" \
    "($(du -sh "$archive" | cut -f1))"
  rm -rf "$prebuilt"
}

if [ "${1:-}" = "--prepare" ]; then
  src=/usr/src/googletest
  if [ ! -f "$src/googletest/CMakeLists.txt" ]; then
    echo "prepare: $src not found (install googletest or libgtest-dev)" >&2
    exit 1
  fi
  rm -rf "$deps/googletest"
  mkdir -p "$deps"
  cp -r "$src" "$deps/googletest"
  echo "prepare: copied $src to $deps/googletest ($(du -sh "$deps/googletest" | cut -f1))"
  if [ -n "${2:-}" ]; then pack "$2" || exit 1; fi
  echo "prepare: name build-gpu-deps in the device run's carry"
  exit 0
fi

log="${OUT:+$OUT/gpu_log.txt}"
log="${log:-/tmp/ikwb_gpu_log.txt}"
mkdir -p "$(dirname "$log")"

export PATH=/usr/local/cuda/bin:$PATH
jobs=$(nproc)
[ "$jobs" -gt 16 ] && jobs=16
build=/tmp/ikwb-gpu-build

start=$SECONDS
status=()
step() { echo; echo "=== [$((SECONDS - start)) s] $*"; }
record() { status+=("$1: $2"); }
# seconds a step may take: at most $1, and never past 7 min 40 s from the start
budget() {
  local left=$((460 - (SECONDS - start)))
  [ "$left" -lt "$1" ] && echo "$((left > 5 ? left : 5))" || echo "$1"
}
# prints the status lines; returns 1 when a step failed
summary() {
  step "summary ($((SECONDS - start)) s)"
  local s failed=0
  for s in "${status[@]}"; do
    echo "  $s"
    case "$s" in *FAILED*|*"not built"*) failed=1 ;; esac
  done
  return $failed
}

# the packages (apt-get when the network allows) and the build; sets full and bin of checks
build_here() {
  # --- packages -----------------------------------------------------------------------------
  local missing=()
  have_header eigen3/Eigen/Core || missing+=(libeigen3-dev)
  have_header urdf_model/model.h || missing+=(liburdfdom-dev liburdfdom-headers-dev)
  have_header assimp/Importer.hpp || missing+=(libassimp-dev)
  have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
  have_header tinyxml2.h || missing+=(libtinyxml2-dev)
  have_header gtest/gtest.h || missing+=(libgtest-dev)
  have_header benchmark/benchmark.h || missing+=(libbenchmark-dev)
  if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
    if timeout 3 getent hosts deb.debian.org >/dev/null 2>&1; then
      step "apt-get install ${missing[*]}"
      if timeout "$(budget 40)" apt-get update -qq; then
        DEBIAN_FRONTEND=noninteractive timeout "$(budget 90)" apt-get install -y -qq \
          --no-install-recommends "${missing[@]}" || echo "apt-get install failed"
      else
        echo "apt-get update failed or timed out: building what the machine allows"
      fi
    else
      echo "missing ${missing[*]}; no network (deb.debian.org does not resolve): no apt-get"
    fi
  fi

  # --- build --------------------------------------------------------------------------------
  step "configure the project (CUDA 90, no app)"
  rm -rf "$build"
  # IKWB_GPU_STANDALONE=1 skips the project build (to try the stand-alone path)
  if [ "${IKWB_GPU_STANDALONE:-0}" != 1 ] &&
    timeout "$(budget 120)" cmake -S "$root" -B "$build/full" "${gen[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DIKWB_BUILD_APP=OFF -DIKWB_BUILD_BENCH=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
      >"$build-configure.log" 2>&1; then
    full=1
    bin="$build/full"
    # the tests first, so a failed ikwb build cannot leave them unbuilt
    step "build gpu_tests gpu_bench (-j$jobs)"
    if timeout "$(budget 300)" cmake --build "$bin" -j "$jobs" --target gpu_tests gpu_bench; then
      record build "ok (project CMake)"
    else
      record build "FAILED (project CMake)"
    fi
    step "build ikwb (-j$jobs)"
    if timeout "$(budget 150)" cmake --build "$bin" -j "$jobs" --target ikwb; then
      record "ikwb build" ok
    else
      record "ikwb build" FAILED
    fi
  else
    [ -f "$build-configure.log" ] && tail -5 "$build-configure.log"
    echo "project configure failed (packages missing): stand-alone build of the GPU targets"
    local gtest_src="" d
    for d in "$deps/googletest" /usr/src/googletest; do
      [ -f "$d/googletest/CMakeLists.txt" ] && gtest_src="$d" && break
    done
    local sa="$build/standalone-src"
    mkdir -p "$sa"
    cat >"$sa/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.22)
project(ikwb_gpu_checks LANGUAGES CXX CUDA)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CUDA_STANDARD 17)
set(R "$root")
find_package(Threads REQUIRED)
find_package(CUDAToolkit REQUIRED)
add_compile_options(\$<\$<COMPILE_LANGUAGE:CXX>:-march=x86-64-v3> \$<\$<COMPILE_LANGUAGE:CXX>:-mno-fma>
                    \$<\$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
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
  \$<\$<COMPILE_LANGUAGE:CUDA>:-O3 -Xcompiler=-march=x86-64-v3,-mno-fma>)
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

}

# the workbench's drag scripts (Panda, humanoid) headless through EGL, each on the CUDA and the
# CPU backend; a run counts when it ended with the script and its state dump names the backend
drag_runs() {
  local ikwb="$1" nvidia=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  # glvnd's EGL looks for vendors under /usr/share; the driver's lies with the driver
  if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$nvidia" ]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES="$nvidia"
  fi
  export IKWB_ASSETS="$root/assets"
  local script backend name dump rc
  for script in bench_drag bench_drag_humanoid; do
    for backend in cuda cpu; do
      name="${script}_$backend"
      dump="${OUT:-/tmp}/$name.json"
      [ "$(budget 40)" -ge 40 ] || { record "$name" "not run (no time left)"; continue; }
      step "workbench headless: $script on the $backend backend"
      sed -e "s|^solver backend cpu|solver backend $backend|" -e "s|^dump .*|dump $dump|" \
        "$root/assets/scripts/$script.txt" >"$build-$name.txt"
      timeout "$(budget 90)" "$ikwb" gui --headless --script "$build-$name.txt" --stats \
        --no-restore 2>&1 | tail -25
      rc=${PIPESTATUS[0]}
      if [ "$rc" = 0 ] && grep -Eq "\"backend_in_use\": *\"$backend\"" "$dump"; then
        record "$name" ok
      else
        record "$name" "FAILED (exit $rc, or the dump names another backend)"
      fi
    done
  done
}

# the prebuilt Python module's Scene.solve on CUDA and the CPU (tests/gpu/python_cuda_check.py),
# where the archive has the module and the machine's python3 is the CPython it was built for
python_check() {
  local module=("$1"/python/ikwb*.so) want have rc
  [ -f "${module[0]}" ] || return 0
  want=$(basename "${module[0]}" | sed -n 's/.*cpython-\([0-9]*\)-.*/\1/p')
  have=$(python3 -c 'import sys; print("%d%d" % sys.version_info[:2])' 2>/dev/null)
  if [ "$want" != "$have" ]; then
    record python "not run (the module is for CPython $want; python3 here: ${have:-none})"
    return 0
  fi
  [ "$(budget 60)" -ge 30 ] || { record python "not run (no time left)"; return 0; }
  step "Python module: Scene.solve on CUDA and the CPU"
  PYTHONPATH="$1/python" timeout "$(budget 60)" python3 "$root/tests/gpu/python_cuda_check.py" \
    "$root/assets" 10000
  rc=$?
  case "$rc" in
    0) record python ok ;;
    2) record python "FAILED (CUDA unusable from Python)" ;;
    4) record python "not run (no numpy for this python3)" ;;
    *) record python "FAILED (exit $rc)" ;;
  esac
}

checks() {
  step "machine"
  uname -mr
  if nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv; then
    # from here on a test or benchmark that finds no usable device fails instead of skipping
    export IKWB_REQUIRE_GPU=1
    echo "IKWB_REQUIRE_GPU=1: GPU tests fail, not skip, without a usable CUDA device"
  else
    echo "no GPU: nvidia-smi failed, so there is nothing to check here; stopping"
    record machine "no GPU (nvidia-smi failed): nothing checked"
    summary
    return 2
  fi
  nvcc --version 2>&1 | tail -2
  cmake --version 2>&1 | head -1
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)

  # --- the programs: prebuilt when they start here, else built here -------------------------
  local full=0 bin=""
  if [ -f "$archive" ]; then
    step "prebuilt programs ($archive, unpacked into $prebuilt)"
    rm -rf "$prebuilt"
    mkdir -p "$prebuilt"
    tar -xzf "$archive" -C "$prebuilt"
    mkdir -p "$build"
    export LD_LIBRARY_PATH="$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if timeout 30 "$prebuilt/tests/gpu_tests" --gtest_list_tests >/dev/null &&
      timeout 30 "$prebuilt/ikwb" --help >/dev/null; then
      bin="$prebuilt"
      full=1
      record build "ok (prebuilt on the development machine)"
    else
      echo "the prebuilt programs do not start here: building"
    fi
  fi
  [ -z "$bin" ] && build_here

  # --- tests --------------------------------------------------------------------------------
  # one process per suite: a sticky CUDA error in one cannot fail the others; a failed suite
  # runs again with CUDA_LAUNCH_BLOCKING=1 so the error names the kernel that raised it
  local tests="$bin/tests/gpu_tests" rc suite skipped
  if [ -x "$tests" ]; then
    for suite in $("$tests" --gtest_list_tests | sed -n 's/^\([A-Za-z0-9_]*\)\.$/\1/p'); do
      step "gpu_tests: $suite"
      timeout "$(budget 120)" "$tests" --gtest_color=no --gtest_filter="$suite.*" 2>&1 |
        tee "$build-gpu_tests-$suite.log"
      rc=${PIPESTATUS[0]}
      # skipped tests are not passing ones
      skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' \
        "$build-gpu_tests-$suite.log")
      if [ "$rc" != 0 ]; then
        record "gpu_tests $suite" "FAILED (exit $rc)"
        if [ "$(budget 60)" -ge 30 ]; then
          step "gpu_tests: $suite again, CUDA_LAUNCH_BLOCKING=1"
          CUDA_LAUNCH_BLOCKING=1 timeout "$(budget 60)" "$tests" --gtest_color=no \
            --gtest_filter="$suite.*" 2>&1 | grep -v '^\[ *\(RUN\|OK\) *\]'
        fi
      elif [ -n "$skipped" ]; then
        record "gpu_tests $suite" "FAILED ($skipped skipped)"
      else
        record "gpu_tests $suite" ok
      fi
    done
  else
    record gpu_tests "not built"
  fi

  # --- benchmarks ---------------------------------------------------------------------------
  local bench="$bin/bench/gpu_bench"
  if [ -x "$bench" ]; then
    step "gpu_bench"
    if timeout "$(budget 200)" "$bench"; then
      record gpu_bench ok
    else
      record gpu_bench "FAILED or timed out"
    fi
  else
    record gpu_bench "not built"
  fi
  if [ "$full" = 1 ] && [ -x "$bin/ikwb" ] && [ "$(budget 60)" -ge 60 ]; then
    step "ikwb bench --backend cuda (batch protocol, shipped panda)"
    # ikwb falls back to the CPU when CUDA is unusable: only a run on the CUDA backend counts
    if timeout "$(budget 60)" "$bin/ikwb" bench "$root/assets/robots/panda/panda.urdf" \
      --link panda_hand_tcp --protocol batch --backend cuda --batches 1,10,100,1000,2000,65536 \
      --repetitions 5 2>&1 | tee "$build/ikwb_bench.txt" && grep -q "backend cuda" "$build/ikwb_bench.txt"; then
      record "ikwb bench" ok
    else
      record "ikwb bench" "FAILED (timed out, or not on the CUDA backend)"
    fi
  fi

  python_check "$bin"

  if [ "$full" = 1 ] && [ -x "$bin/ikwb" ] && "$bin/ikwb" gui --help >/dev/null 2>&1; then
    drag_runs "$bin/ikwb"
  fi

  # --- memcheck, with the time left ---------------------------------------------------------
  # exit 3 (--error-exitcode) is a memcheck finding; anything else, such as a runtime that
  # refuses the sanitizer ("Device not supported", error 999 on gVisor), reads "unsupported"
  if [ -x "$tests" ] && command -v compute-sanitizer >/dev/null && [ "$(budget 90)" -ge 90 ]; then
    step "compute-sanitizer memcheck (FK, objectives, graph replay, row storage)"
    local filter='CudaFk.*:CudaObjectives.*:CudaSolver.GraphReplay*:CudaSolver.FixedIter*'
    filter+=':CudaSolver.SharedAndGlobal*'
    timeout "$(budget 120)" compute-sanitizer --tool memcheck --error-exitcode 3 "$tests" \
      --gtest_color=no --gtest_filter="$filter" 2>&1 | tee "$build-memcheck.log"
    rc=${PIPESTATUS[0]}
    if [ "$rc" = 0 ]; then
      record memcheck ok
    elif grep -q "ERROR SUMMARY: 0 errors" "$build-memcheck.log"; then
      # it ran: a failing test is gpu_tests' finding, counted above
      record memcheck "ok (0 errors; the tests' own exit $rc)"
    elif [ "$rc" = 3 ] && ! grep -q "Device not supported" "$build-memcheck.log"; then
      record memcheck "FAILED (memcheck errors, see the log)"
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      record memcheck "timed out (exit $rc; not counted)"
    else
      record memcheck "unsupported (exit $rc; not counted)"
    fi
  fi

  summary
}

have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ]; }

# run in a pipeline so the script waits for tee: the log is complete when it exits
checks 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
