#!/usr/bin/env bash
# Every test: the lint (scripts/lint.sh), the native GoogleTest suite (CTest), then Vitest (package, page logic, real-browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== lint (ESLint, Prettier, tsc over every project)"
npm run --silent lint

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

echo "== Vitest"
node node_modules/vitest/vitest.mjs run "$@"
