#!/usr/bin/env bash
# The test tiers (docs/building.md, "Tests"). With no tier, every one, in this order (what `npm test` runs after
# ensure-deps and the build):
#   lint         ESLint, Prettier, tsc over every project, clang-format/tidy (scripts/lint.sh)
#   unit         Vitest, tests/unit/: Node alone, no build needed
#   native       GoogleTest (CTest), the same under ASan + UBSan, the SIMD128 kernels against their scalar twins in wasm
#   engine       Vitest, tests/engine/ and tests/kernels/: the built engine (dist/), kernels on both SIMD engines
#   integration  Vitest, tests/integration/: PyTorch, pip, npm pack, soaks, long training
#   e2e          Vitest, tests/e2e/: the page and the widget in Chromium
# Usage: bash scripts/test.sh [TIER ...] [-- ARGS for Vitest]   (the build is the caller's: node scripts/build.mjs)
set -euo pipefail
cd "$(dirname "$0")/.."

tiers=()
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    lint | unit | native | engine | integration | e2e) tiers+=("$1") ;;
    *) echo "usage: $0 [lint|unit|native|engine|integration|e2e ...] [-- vitest args]" >&2; exit 2 ;;
  esac
  shift
done
[[ ${1:-} == -- ]] && shift
((${#tiers[@]})) || tiers=(lint unit native engine integration e2e)

vitest() {
  echo "== Vitest: $*"
  node node_modules/vitest/vitest.mjs run "$@"
}

# Vitest tiers given one after another run in one Vitest process (its scheduler fills both cores across them).
projects=()
flush() {
  ((${#projects[@]})) || return 0
  vitest "${projects[@]}" "$@"
  projects=()
}

for tier in "${tiers[@]}"; do
  case $tier in
    lint)
      flush "$@"
      echo "== lint (ESLint, Prettier, tsc over every project, C++)"
      npm run --silent lint
      ;;
    native)
      flush "$@"
      echo "== native tests (GoogleTest via CTest)"
      ctest --test-dir build/native --output-on-failure -j2
      # Always run (with bash, so a lost run bit cannot skip it); a missing sanitizer runtime fails here by name.
      echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer"
      bash scripts/test-sanitizers.sh
      echo "== SIMD128 kernels vs their scalar twins, in wasm (bench/wasm_harness)"
      harness=build/wasm-harness/harness.cjs
      if [[ ! -f $harness || -n $(find src/kernels bench/wasm_harness -newer "$harness" -print -quit) ]]; then
        bash bench/wasm_harness/build.sh build/wasm-harness >/dev/null
      fi
      node "$harness" --check-only
      ;;
    unit) projects+=(--project unit) ;;
    engine) projects+=(--project engine --project engine-relaxed) ;;
    integration) projects+=(--project integration) ;;
    e2e) projects+=(--project e2e) ;;
  esac
done
flush "$@"
