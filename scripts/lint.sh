#!/usr/bin/env bash
# Every static check: ESLint (in src/js and web/ no function over 80 lines), tsc --noEmit over each project
# (the package; the page with the widget and the worker; the tests and build configurations; the benchmarks
# and scripts), no import cycle in web/ (madge), Prettier's format check, and the C++ checks
# (scripts/lint-cpp.sh). Any finding fails. `npm run lint` runs it; scripts/test.sh runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=node_modules/.bin
for tool in eslint prettier tsc madge; do
  [[ -x $bin/$tool ]] || { echo "lint: $bin/$tool is missing; install the devDependencies with: npm ci" >&2; exit 1; }
done

# The tests type-check against the built package's declarations (dist/*.d.ts): on a clean clone, or when
# src/js is newer than them, write those alone (tsc's declarations and the glue's, as scripts/build.mjs
# copies them; no wasm build, dist/*.js untouched). ESLint's typed rules read them too: first.
if [[ ! -f dist/index.d.ts || -n $(find src/js tsconfig.json -newer dist/index.d.ts -print -quit) ]]; then
  "$bin/tsc" -p tsconfig.json --emitDeclarationOnly
  for engine in attention attention-relaxed attention-threads; do cp src/js/attention.d.ts "dist/$engine.d.ts"; done
  for trainer in attention-train attention-train-relaxed; do cp "src/js/$trainer.d.ts" "dist/$trainer.d.ts"; done
fi

# Three lanes side by side on the two cores: the C++ checks (scripts/lint-cpp.sh: clang-format, clang-tidy),
# ESLint, and here tsc, madge and Prettier, one after another. Each of them keeps to about one core; one after
# another they took ~1 min 50 s, side by side ~1 min. The other two lanes' reports are printed at the end, each
# under its own heading.
logs=$(mktemp -d)
bash scripts/lint-cpp.sh >"$logs/cpp" 2>&1 &
cpp=$!
"$bin/eslint" --max-warnings 0 src/js web tests bench scripts ./*.config.ts eslint.config.js >"$logs/eslint" 2>&1 &
eslint=$!
# A finding in this lane ends this script at once: the other lanes go with it, with what they started (clang-tidy,
# clang-format; children first, so none is left to finish on its own), and a lane that has ended already is no
# failure (under set -e a failing command in the trap would be the exit status).
kill_tree() {
  local child
  for child in $(pgrep -P "$1" || true); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'kill_tree "$cpp"; kill_tree "$eslint"; rm -rf "$logs"' EXIT

echo "== tsc --noEmit"
for project in tsconfig.json web/tsconfig.json tests/tsconfig.json bench/tsconfig.json; do
  echo "   $project"
  "$bin/tsc" --noEmit -p "$project"
done

echo "== import cycles in web/ (madge, type-only imports included; .madgerc)"
# Its report is printed only when it finds a cycle (a clean run's "Processed N files (1 warning)" — the package
# import it skips — reads like a problem).
if ! cycles=$("$bin/madge" --circular --no-spinner web 2>&1); then
  echo "$cycles"
  exit 1
fi

echo "== Prettier (check only; the style is .prettierrc)"
"$bin/prettier" --check --log-level warn src/js web tests bench scripts ./*.config.ts eslint.config.js

status=0
echo "== ESLint"
wait "$eslint" || status=$?
cat "$logs/eslint"

echo "== C++ (clang-format, clang-tidy)"
cpp_status=0
wait "$cpp" || cpp_status=$?
cat "$logs/cpp"
((status)) && exit "$status"
exit "$cpp_status"
