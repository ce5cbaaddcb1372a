#!/usr/bin/env bash
# Builds the kernel harness with the same flags the package uses for its kernels (-O3 -msimd128; with
# HARNESS_RELAXED=1, -mrelaxed-simd too: the relaxed engine's kernels, run by node --experimental-wasm-relaxed-simd).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/build/h-kern-wasm}"
mkdir -p "$out"
simd=(-msimd128)
if [[ "${HARNESS_RELAXED:-}" == 1 ]]; then
  # The relaxed engine's environment (clang-16, npm's binaryen; BigInt so that emcc reads the metadata itself, which then finds no main: bench scripts call the harness_* exports).
  eval "$(node "$root/scripts/toolchain.mjs" relaxed-env)"
  simd+=(-mrelaxed-simd -sWASM_BIGINT=1 "-sEXPORTED_FUNCTIONS=[_harness_check,_harness_flash,_harness_ceiling,_harness_phases]")
else
  # The plain SIMD128 build's environment (NODE_PATH, the PATH without npm's binaryen): scripts/toolchain.mjs.
  eval "$(node "$root/scripts/toolchain.mjs" plain-env)"
fi
em++ -std=c++17 -O3 "${simd[@]}" -Wall -Wextra -I"$root/src" ${HARNESS_FLAGS:-} \
  "$root/bench/wasm_harness/harness.cpp" "$root"/src/kernels/*.cpp \
  -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sTOTAL_STACK=1MB \
  -o "$out/${HARNESS_NAME:-harness}.cjs"
echo "built $out/${HARNESS_NAME:-harness}.cjs (node $out/harness.cjs [--quick] [--check-only])"
