#!/usr/bin/env bash
# Builds the kernel harness with the same flags the package uses for its kernels (-O3 -msimd128).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/build/h-kern-wasm}"
mkdir -p "$out"
# The plain SIMD128 build's environment (NODE_PATH, the PATH without npm's binaryen): scripts/toolchain.mjs.
eval "$(node "$root/scripts/toolchain.mjs" plain-env)"
em++ -std=c++17 -O3 -msimd128 -Wall -Wextra -I"$root/src" ${HARNESS_FLAGS:-} \
  "$root/bench/wasm_harness/harness.cpp" "$root"/src/kernels/*.cpp \
  -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sTOTAL_STACK=1MB \
  -o "$out/${HARNESS_NAME:-harness}.cjs"
echo "built $out/${HARNESS_NAME:-harness}.cjs (node $out/harness.cjs [--quick] [--check-only])"
