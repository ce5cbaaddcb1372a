#!/usr/bin/env bash
# Mutation check: flips chosen places of the engine one at a time, rebuilds, runs the tests that cover
# them and prints "mutation X: suite RED (n failed)" or "SURVIVED". A survivor means those tests would
# not notice that bug. The sources are ALWAYS restored (trap on exit, also on Ctrl-C or a failed build).
#
#   bash scripts/mutate.sh            # native: GoogleTest (scalar kernel twins, shared kernel drivers) in build/mutate
#   bash scripts/mutate.sh --wasm     # also the wasm package: Vitest's PyTorch-fixture suites on a mutated dist/attention.wasm
#   bash scripts/mutate.sh --only tail-loop
#
# The kernels' blocking, masking and tail handling live in kernels_driver.h, shared by the SIMD128 build
# (wasm) and its scalar twin (native), so a driver mutation reaches both; the native run exercises it
# through the scalar twin, --wasm through the SIMD kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

WASM=0
ONLY=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --wasm) WASM=1 ;;
    --only) ONLY=$2; shift ;;
    *) echo "usage: $0 [--wasm] [--only NAME]" >&2; exit 2 ;;
  esac
  shift
done

# name | file | perl substitution (must change exactly one line) | native test filter (ctest -R)
MUTATIONS=(
  "scale|src/core/attention.cpp|s{1\.f / std::sqrt\(static_cast<float>\(dk\)\)}{1.f / static_cast<float>(dk)}|Attention|MultiHead"
  "mask-comparison|src/core/attention.cpp|s{case Kind::Causal: return j > i;}{case Kind::Causal: return j >= i;}|Attention|MultiHead"
  "softmax-max-subtraction|src/kernels/kernels_driver.h|s{Ops::exp_sum\(s, lim, m, ls\)}{Ops::exp_sum(s, lim, 0.0f, ls)}|Kernels|Attention"
  "tail-loop|src/kernels/kernels_driver.h|s{for \(int x = 0; x < cols; \+\+x\)}{for (int x = 0; x + 1 < cols; ++x)}|Kernels|Attention"
  "multihead-causal|src/core/multihead.cpp|s{\(p\.causal && j > i\)}{(p.causal \&\& j >= i)}|MultiHead"
  "softmax-normalization|src/kernels/kernels_driver.h|s{Ops::scale\(s, lim, 1\.0f / sum\)}{Ops::scale(s, lim, 1.0f / (sum + 1e-3f))}|Kernels|Attention"
)

lock_build_dir "$(basename "${MUTATE_BUILD_DIR:-build/mutate}")"
BACKUP=$(mktemp -d)
restore() {
  # Put every touched file back byte for byte (and with a new mtime, so the next build recompiles it).
  local p
  for p in "$BACKUP"/files/*.path; do
    [[ -e $p ]] || continue
    cp "${p%.path}" "$(cat "$p")" && touch "$(cat "$p")"
  done
  rm -rf "$BACKUP"
}
trap restore EXIT
mkdir -p "$BACKUP/files"
backup() {
  local key
  key=$(echo "$1" | tr '/' '_')
  if [[ ! -e $BACKUP/files/$key ]]; then
    cp "$1" "$BACKUP/files/$key"
    echo "$1" >"$BACKUP/files/$key.path"
  fi
}

NATIVE=${MUTATE_BUILD_DIR:-build/mutate}
if [[ ! -f $NATIVE/CMakeCache.txt ]]; then
  cmake -S . -B "$NATIVE" -DBUILD_TESTING=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if [[ $WASM == 1 ]]; then
  for f in dist/attention.wasm dist/attention.js; do backup "$f"; done
fi

VITEST_SUBSET=(tests/kernels/engine-run.test.ts tests/kernels/engine-attention.test.ts tests/kernels/engine-mha.test.ts
  tests/kernels/engine-fused.test.ts tests/kernels/engine-properties.test.ts)

survived=0
for m in "${MUTATIONS[@]}"; do
  IFS='|' read -r name file subst filter1 filter2 <<<"$m"
  filter=${filter1}${filter2:+|$filter2}
  [[ -n $ONLY && $ONLY != "$name" ]] && continue
  backup "$file"
  cp "$BACKUP/files/$(echo "$file" | tr '/' '_')" "$file"
  perl -pi -e "$subst" "$file"
  changed=$(diff "$BACKUP/files/$(echo "$file" | tr '/' '_')" "$file" | grep -c '^>' || true)
  if [[ $changed != 1 ]]; then
    echo "mutation $name: the substitution changed $changed lines of $file (expected 1); the script is out of date" >&2
    exit 1
  fi
  result=""
  # native
  if ! cmake --build "$NATIVE" -j2 --target ap_tests >"$BACKUP/build.log" 2>&1; then
    result="suite RED (does not compile)"
  else
    out=$(ctest --test-dir "$NATIVE" -R "$filter" -j2 2>&1 || true)
    failed=$(grep -oE '[0-9]+ tests failed' <<<"$out" | grep -oE '^[0-9]+' || echo 0)
    total=$(grep -oE 'out of [0-9]+' <<<"$out" | grep -oE '[0-9]+$' || echo 0)
    [[ $total == 0 ]] && { echo "mutation $name: ctest -R '$filter' ran no tests" >&2; exit 1; }
    native="native $failed/$total failed"
    # wasm
    wasm=""
    if [[ $WASM == 1 ]]; then
      # The plain SIMD128 build's environment, and the package lookup of EMCMAKE_FLAGS: scripts/toolchain.mjs.
      eval "$(node scripts/toolchain.mjs plain-env)"
      emcmake cmake -S . -B build/mutate-wasm -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH >/dev/null 2>&1
      if cmake --build build/mutate-wasm --target attention -j2 >"$BACKUP/wbuild.log" 2>&1; then
        cp build/mutate-wasm/attention.wasm dist/attention.wasm
        cp build/mutate-wasm/attention.js dist/attention.js
        vout=$(node node_modules/vitest/vitest.mjs run --project engine "${VITEST_SUBSET[@]}" 2>&1 || true)
        vfailed=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$vout" | grep -E '^ +Tests ' | grep -oE '[0-9]+ failed' | grep -oE '^[0-9]+' || echo 0)
        wasm=", Vitest $vfailed failed"
        failed=$((failed + vfailed))
      else
        wasm=", wasm does not compile"
        failed=$((failed + 1))
      fi
    fi
    if [[ $failed -gt 0 ]]; then result="suite RED ($failed failed: $native$wasm)"
    else result="SURVIVED ($native$wasm)"; survived=$((survived + 1)); fi
  fi
  echo "mutation $name ($file): $result"
  # back to the original before the next one
  cp "$BACKUP/files/$(echo "$file" | tr '/' '_')" "$file"
  touch "$file"
done
if [[ $WASM == 1 ]]; then
  cp "$BACKUP/files/dist_attention.wasm" dist/attention.wasm
  cp "$BACKUP/files/dist_attention.js" dist/attention.js
fi
echo "$survived mutation(s) survived"
[[ $survived == 0 ]]
