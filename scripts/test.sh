#!/usr/bin/env bash
# Every test: the native GoogleTest suite (CTest), then Vitest (package, page logic, real-browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== native tests (GoogleTest via CTest)"
ctest --test-dir build/native --output-on-failure -j2

if [[ -x scripts/test-sanitizers.sh ]]; then
  echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  scripts/test-sanitizers.sh
fi

echo "== Vitest"
node node_modules/vitest/vitest.mjs run "$@"
