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
  simd+=(-mrelaxed-simd -sWASM_BIGINT=1 "-sEXPORTED_FUNCTIONS=[_harness_check,_harness_flash,_harness_ceiling,_harness_phases,_harness_products]")
else
  # The plain SIMD128 build's environment (NODE_PATH, the PATH without npm's binaryen): scripts/toolchain.mjs.
  eval "$(node "$root/scripts/toolchain.mjs" plain-env)"
fi
# HARNESS_WEB=1: for a (classic) worker in Chromium instead of Node (bench/lm_bench.mjs measures the tile's ceiling
# there): `importScripts(<name>-web.js)` defines createHarness({ locateFile, print }); main is not run.
env=(-sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0)
suffix=.cjs
if [[ "${HARNESS_WEB:-}" == 1 ]]; then
  env=(-sENVIRONMENT=worker -sMODULARIZE=1 -sEXPORT_NAME=createHarness -sINVOKE_RUN=0)
  suffix=-web.js
fi
# The language model's products (--products) as the package builds them: src/core at -Os (cmake/Toolchain.cmake),
# with Debian's Eigen (src/core/common.h) and its asserts off.
em++ -std=c++17 -Os "${simd[@]}" -I"$root/src" -I/usr/include/eigen3 -DEIGEN_NO_DEBUG -DEIGEN_MPL2_ONLY \
  ${HARNESS_FLAGS:-} -c "$root/src/core/lm_products.cpp" -o "$out/${HARNESS_NAME:-harness}.lm_products.o"
em++ -std=c++17 -O3 "${simd[@]}" -Wall -Wextra -I"$root/src" ${HARNESS_FLAGS:-} \
  "$root/bench/wasm_harness/harness.cpp" "$root"/src/kernels/*.cpp "$out/${HARNESS_NAME:-harness}.lm_products.o" \
  "${env[@]}" -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sTOTAL_STACK=1MB \
  -o "$out/${HARNESS_NAME:-harness}$suffix"
echo "built $out/${HARNESS_NAME:-harness}$suffix (node $out/harness.cjs [--quick] [--check-only])"
