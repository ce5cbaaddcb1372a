#!/usr/bin/env bash
# Every static check of the TypeScript and JavaScript: ESLint (in src/js and web/ no function over 80
# lines), tsc --noEmit over each project (the package; the page with the widget and the worker; the tests
# and build configurations; the benchmarks and scripts), no import cycle in web/ (madge), then Prettier's
# format check. Any finding fails. `npm run lint` runs it; scripts/test.sh runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=node_modules/.bin
for tool in eslint prettier tsc madge; do
  [[ -x $bin/$tool ]] || { echo "lint: $bin/$tool is missing; install the devDependencies with: npm ci" >&2; exit 1; }
done

# The C++ checks (scripts/lint-cpp.sh: clang-format, clang-tidy) run beside the TypeScript ones, which use one core;
# their report is printed at the end, under its own heading.
cpp_log=$(mktemp)
bash scripts/lint-cpp.sh >"$cpp_log" 2>&1 &
cpp=$!
# A TypeScript finding ends this script at once: the C++ run goes with it (and a run that has ended already is no
# failure: under set -e a failing command in the trap would be the exit status).
trap 'kill "$cpp" 2>/dev/null || true; rm -f "$cpp_log"' EXIT

echo "== ESLint"
"$bin/eslint" --max-warnings 0 src/js web tests bench scripts ./*.config.ts eslint.config.js

# The tests type-check against the built package's declarations (dist/*.d.ts): on a clean clone, or when
# src/js is newer than them, write those alone (tsc's declarations and the glue's, as scripts/build.mjs
# copies them; no wasm build, dist/*.js untouched).
if [[ ! -f dist/index.d.ts || -n $(find src/js tsconfig.json -newer dist/index.d.ts -print -quit) ]]; then
  "$bin/tsc" -p tsconfig.json --emitDeclarationOnly
  for engine in attention attention-relaxed attention-threads; do cp src/js/attention.d.ts "dist/$engine.d.ts"; done
  for trainer in attention-train attention-train-relaxed; do cp "src/js/$trainer.d.ts" "dist/$trainer.d.ts"; done
fi

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

echo "== C++ (clang-format, clang-tidy)"
cpp_status=0
wait "$cpp" || cpp_status=$?
cat "$cpp_log"
exit "$cpp_status"
