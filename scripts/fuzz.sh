#!/usr/bin/env bash
# The fuzz job: builds the libFuzzer targets of tests/fuzz/*.cpp with clang, ASan and UBSan,
# then runs each for a bounded time on its committed seed corpus plus every committed regression input.
# Exits 1 if any target crashes, hits a sanitizer report or breaks an invariant (2 if it cannot build);
# the crashing input is left in build/h-fuzz/artifacts/<target>/ — copy it to
# tests/fuzz/regressions/<target>/ so tests/native/test_fuzz_regressions.cpp replays it from then on.
#
#   scripts/fuzz.sh                 # 60 s per target: ~4 min of fuzzing + 1.5-3 min of build here
#   FUZZ_SECONDS=120 scripts/fuzz.sh fuzz_run fuzz_tokenize
#
# New inputs the fuzzer finds go to build/h-fuzz/corpus/<target>/ (kept between runs, never committed
# automatically: the committed seeds stay small and reviewed).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib.sh
lock_build_dir h-fuzz

SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
BUILD=build/h-fuzz
JOBS=${FUZZ_BUILD_JOBS:-2}

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ is needed (apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
fi

# ap_core itself must carry the coverage instrumentation (-fsanitize=fuzzer-no-link), or libFuzzer would
# only see the few branches of the target files; CMakeLists.txt adds -fsanitize=fuzzer to the targets only.
# UBSan must not recover, so undefined behaviour stops the run like a crash.
FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [[ ! -f $BUILD/CMakeCache.txt ]] || ! grep -q "fuzzer-no-link" "$BUILD/CMakeCache.txt"; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DAP_FUZZ=ON -DBUILD_TESTING=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS=$FLAGS" >/dev/null
fi

if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  targets=()
  for src in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi
if ! cmake --build "$BUILD" -j"$JOBS" --target "${targets[@]}" >"$BUILD/build.log" 2>&1; then
  tail -40 "$BUILD/build.log" >&2
  echo "fuzz.sh: the build failed (full log: $BUILD/build.log)" >&2
  exit 2
fi

failed=()
start=$(date +%s)
for t in "${targets[@]}"; do
  work=$BUILD/corpus/$t
  art=$BUILD/artifacts/$t
  mkdir -p "$work" "$art"
  seeds=()
  [[ -d tests/fuzz/corpus/$t ]] && seeds+=("tests/fuzz/corpus/$t")
  [[ -d tests/fuzz/regressions/$t ]] && seeds+=("tests/fuzz/regressions/$t")
  log=$BUILD/$t.log
  echo "== $t: ${SECONDS_PER_TARGET}s"
  set +e
  # -timeout: one input taking over 10 s is a hang (a failure); -rss_limit_mb: the run is bounded in
  # memory too, since six engineers share this machine.
  "$BUILD/$t" "$work" "${seeds[@]}" -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$art/" -print_final_stats=1 -print_pcs=0 >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  cov=$(grep -oE '(#[0-9]+|DONE).*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
  corpus=$(ls "$work" | wc -l)
  echo "   execs=${execs:-?} ${cov:-cov: ?} corpus=$corpus exit=$rc"
  if [[ $rc -ne 0 ]]; then
    failed+=("$t")
    echo "   FAILED: see $log; crash input(s):"
    ls -1 "$art" | sed "s|^|     $art/|"
    grep -m5 -E 'ERROR: |runtime error|apfuzz invariant|deadly signal|Timeout' "$log" | sed 's/^/     /' || true
  fi
done
echo "fuzz.sh: ${#targets[@]} targets in $(( $(date +%s) - start ))s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
