#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang, AddressSanitizer and UBSan into
# build-fuzz/ and runs each for a set time (both at once, one core each).
# Usage: tools/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET... (default: urdf scene)]
# Environment: IKWB_FUZZ_BUILD (build folder), IKWB_FUZZ_JOBS (build jobs, default 2),
# IKWB_FUZZ_ARGS (extra libFuzzer flags, e.g. -only_ascii=1).
#
# The committed seeds (tests/fuzz/corpus/NAME) and the hostile inputs (tests/data/hostile/NAME)
# seed a working corpus, build-fuzz/corpus/NAME, which grows across runs and is not committed.
# A crash, sanitizer report or broken invariant is written to build-fuzz/findings/NAME/ and
# makes the script fail. To reproduce and minimise one:
#   build-fuzz/tests/fuzz/NAME_fuzzer FILE
#   build-fuzz/tests/fuzz/NAME_fuzzer -minimize_crash=1 -runs=100000 FILE
# Once fixed, add the input to tests/data/hostile/ with a line in expectations.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(urdf scene)
build="${IKWB_FUZZ_BUILD:-$root/build-fuzz}"

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2
  exit 1
fi
# coverage for everything we compile; uninstrumented system libraries (urdfdom, tinyxml2,
# assimp) still run, they just give the fuzzer no feedback
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
flags+=" -fno-omit-frame-pointer"
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCMAKE_CXX_FLAGS="$flags" -DIKWB_FUZZ=ON -DIKWB_BUILD_APP=OFF -DIKWB_ENABLE_CUDA=OFF \
  -DIKWB_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "${IKWB_FUZZ_JOBS:-2}" --target "${targets[@]/%/_fuzzer}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/sanitizer/lsan.supp}"
pids=()
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/findings/$t"
  # shellcheck disable=SC2086
  "$build/tests/fuzz/${t}_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -dict="$root/tests/fuzz/$t.dict" -artifact_prefix="$build/findings/$t/" \
    -print_final_stats=1 ${IKWB_FUZZ_ARGS:-} \
    "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" "$root/tests/data/hostile/$t" \
    >"$build/fuzz-$t.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
  t="${targets[$i]}"
  if wait "${pids[$i]}"; then
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz-$t.log")"
    echo "fuzz $t: no findings in $seconds s ($runs runs)"
  else
    status=1
    echo "fuzz $t: FINDING, see $build/fuzz-$t.log and $build/findings/$t/" >&2
    tail -n 40 "$build/fuzz-$t.log" >&2
  fi
done
exit $status
