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

# halt_on_error/abort_on_error: the first report ends the test with a failure, not a warning in a log.
# detect_leaks: LeakSanitizer runs at exit of each test process (gtest_discover_tests runs one test per
# process, so a leak is pinned to its test).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# ap::fmt's sampled values (tests/native/test_fmt.cpp): a tenth of the plain run's, which has checked each one's text.
# Their glibc reference costs ~0.5 ms a value under ASan: the full samples took 74 of the run's ~200 test-seconds.
export AP_FMT_TYPED=${AP_FMT_TYPED:-2000} AP_FMT_RANDOM=${AP_FMT_RANDOM:-5000}
# The learning tests train hundreds of steps to check what the steps learn (52 of the run's ~136 test-seconds); the plain
# run checks that. Here Train.EveryTaskAndPositionStepsEvaluatesAndTraces runs the same loop for every task and
# position encoding, under the sanitizers, in a second.
LEARNING='^Train\.(ReverseLearns|CoreferenceLearnsToPointAtTheReferent|NextCharLearnsWithCausalMask)$|^TrainPositions\.ReverseNeedsPositions$'
ctest --test-dir "$BUILD" --output-on-failure -j2 -E "$LEARNING" "$@"
