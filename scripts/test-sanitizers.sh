#!/usr/bin/env bash
# The native GoogleTest suite again, built with AddressSanitizer (+ LeakSanitizer) and
# UndefinedBehaviorSanitizer (CMake option AP_SANITIZE), in build/asan. scripts/test.sh calls this.
# Any sanitizer report fails the test that triggered it (UBSan does not recover, ASan aborts), so a
# clean run means: no out-of-bounds access, use-after-free, leak, signed overflow, misaligned or
# null access, bad shift or float-to-int overflow anywhere the native tests reach.
#
# The build is incremental: when nothing changed since the last run, cmake --build does no work.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib.sh
lock_build_dir asan

BUILD=build/asan

# A missing sanitizer runtime would otherwise surface as an obscure link error deep in the build:
# fail first, naming what to install.
cxx=${CXX:-c++}
probe=$(mktemp -d)
echo 'int main() { return 0; }' >"$probe/p.cpp"
if ! "$cxx" -fsanitize=address,undefined "$probe/p.cpp" -o "$probe/p" 2>"$probe/err" || ! "$probe/p"; then
  echo "test-sanitizers: $cxx cannot build or run an AddressSanitizer + UndefinedBehaviorSanitizer program:" >&2
  sed 's/^/  /' "$probe/err" >&2
  echo "install the sanitizer runtime: apt-get install -y libclang-rt-14-dev (clang) or libasan8 libubsan1 (g++)" >&2
  rm -rf "$probe"
  exit 1
fi
rm -rf "$probe"
JOBS=${SANITIZE_BUILD_JOBS:-2}

# Line tables (-g1) for readable reports (file:line in every frame); the full debug info of -g, which the reports do not
# read, made the build a third slower (train.cpp 28.5 -> 18.6 s). -O1 keeps the suite's run time reasonable under
# ASan. Configured every time (cheap) so a tree configured with other flags takes these.
cmake -S . -B "$BUILD" -DAP_SANITIZE=ON -DBUILD_TESTING=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target ap_tests

# halt_on_error/abort_on_error: the first report ends the run with a failure, not a warning in a log.
# detect_leaks: LeakSanitizer runs when each process exits; its report's allocation stacks name the test's body.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# ap::fmt's sampled values (tests/native/test_fmt.cpp): a tenth of the plain run's, which has checked each one's text.
# Their glibc reference costs ~0.5 ms a value under ASan: the full samples took 74 of the run's ~200 test-seconds.
export AP_FMT_TYPED=${AP_FMT_TYPED:-2000} AP_FMT_RANDOM=${AP_FMT_RANDOM:-5000}
# The learning tests train hundreds of steps to check what the steps learn (52 of the run's ~136 test-seconds); the plain
# run checks that. Here Train.EveryTaskAndPositionStepsEvaluatesAndTraces runs the same loop for every task and
# position encoding, under the sanitizers, in a second.
export FILTER=-Train.ReverseLearns:Train.CoreferenceLearnsToPointAtTheReferent:Train.NextCharLearnsWithCausalMask:TrainPositions.ReverseNeedsPositions

# GoogleTest's own shards (GTEST_TOTAL_SHARDS: test i runs in shard i mod 8), two processes at a time: not CTest's one
# process per test, since an ASan process costs ~0.2 s to start and to check for leaks at exit, 198 times ~45 of the
# ~110 CPU-s (CTest -j2: 56 s; eight shards: 30 s). A report ends its shard: the shard's log is printed, and its last
# "[ RUN      ]" line names the test. Arguments go to each shard (e.g. --gtest_filter=Fmt.*, which replaces FILTER).
export SHARDS=8 LOGS BIN=$BUILD/ap_tests
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
shard() {
  GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$1 "$BIN" --gtest_filter="$FILTER" "${@:2}" >"$LOGS/$1.log" 2>&1
  echo $? >"$LOGS/$1.status"
}
export -f shard
seq 0 $((SHARDS - 1)) | xargs -P 2 -I '{}' bash -c 'shard "$@"' _ '{}' "$@" || true

# What the shards should have passed: the tests listed under the same filter (an argument's --gtest_filter replaces
# FILTER), as many times as --gtest_repeat asks; the other arguments do not change the list.
filter=$FILTER repeat=1
for arg in "$@"; do
  case $arg in
    --gtest_filter=*) filter=${arg#--gtest_filter=} ;;
    --gtest_repeat=*) repeat=${arg#--gtest_repeat=} ;;
  esac
done
expected=$(("$("$BIN" --gtest_list_tests --gtest_filter="$filter" | grep -c '^  ' || true)" * repeat))
passed=0 failed=0
for ((i = 0; i < SHARDS; i++)); do
  n=$(grep -c '^\[       OK \]' "$LOGS/$i.log" || true)
  passed=$((passed + n))
  if [[ $(cat "$LOGS/$i.status" 2>/dev/null) != 0 ]]; then
    failed=1
    echo "test-sanitizers: shard $i of $SHARDS failed (exit $(cat "$LOGS/$i.status" 2>/dev/null || echo '?')); its log:" >&2
    cat "$LOGS/$i.log" >&2
  fi
done
if ((failed)); then
  echo "test-sanitizers: failed under ASan + UBSan (the shards' logs above; a leak is reported when its shard exits)" >&2
  exit 1
fi
if ((passed != expected)); then
  echo "test-sanitizers: $passed of the $expected tests listed passed: the others did not run" >&2
  exit 1
fi
echo "ASan + UBSan: $passed of $expected tests passed ($SHARDS shards, two at a time)"
