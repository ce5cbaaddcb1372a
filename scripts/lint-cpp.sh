#!/usr/bin/env bash
# C++ lint. clang-format checks the style (.clang-format) of src/, tests/native, tests/fuzz and bench/*.cpp
# without rewriting anything; clang-tidy (.clang-tidy: bugprone-*, performance-*) reads src/core and the
# kernels as the native (scalar) build compiles them, from build/native/compile_commands.json. Any finding
# fails the run. Tools: Debian's clang-format and clang-tidy (v14).
set -uo pipefail
cd "$(dirname "$0")/.."

for tool in clang-format clang-tidy; do
  if ! command -v "$tool" >/dev/null; then
    echo "lint-cpp: $tool is missing; install it with: sudo apt-get install -y clang-format clang-tidy" >&2
    exit 1
  fi
done
if [ ! -f build/native/compile_commands.json ]; then
  echo "lint-cpp: build/native/compile_commands.json is missing; build it with: node scripts/build.mjs --native" >&2
  exit 1
fi

status=0
mapfile -t formatted < <(find src tests/native tests/fuzz -maxdepth 2 \( -name '*.cpp' -o -name '*.h' \) | sort;
                         ls bench/*.cpp)
clang-format --dry-run --Werror "${formatted[@]}" || status=1

mapfile -t tidied < <(ls src/core/*.cpp src/kernels/*.cpp)
clang-tidy -p build/native --quiet --warnings-as-errors='*' "${tidied[@]}" || status=1

# No function over 80 lines outside the two it allows (src/, tests/, bench/).
node scripts/cpp-function-size.mjs || status=1

if [ "$status" -ne 0 ]; then echo "lint-cpp: failed (see above)" >&2; fi
exit "$status"
