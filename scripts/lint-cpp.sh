#!/usr/bin/env bash
# C++ lint. clang-format checks the style (.clang-format) of src/, tests/native, tests/fuzz and bench/*.cpp
# without rewriting anything; clang-tidy (.clang-tidy: bugprone-*, performance-*) reads src/core and the
# kernels as the native (scalar) build compiles them, from build/native/compile_commands.json (configured
# here if missing). Any finding fails the run; only findings are printed. Tools: Debian's clang-format and
# clang-tidy (v14).
set -uo pipefail
cd "$(dirname "$0")/.."

for tool in clang-format clang-tidy; do
  if ! command -v "$tool" >/dev/null; then
    echo "lint-cpp: $tool is missing; install it with: sudo apt-get install -y clang-format clang-tidy" >&2
    exit 1
  fi
done
# clang-tidy reads the flags of each file from the native tree's compile_commands.json: on a clean clone,
# configure it (cmake's configure step only, nothing is compiled).
if [ ! -f build/native/compile_commands.json ]; then
  echo "lint-cpp: configuring build/native for compile_commands.json (cmake configure only)"
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null || {
    echo "lint-cpp: cmake could not configure build/native; install the dependencies with: bash scripts/ensure-deps.sh" >&2
    exit 1
  }
fi

status=0
mapfile -t formatted < <(find src tests/native tests/fuzz -maxdepth 2 \( -name '*.cpp' -o -name '*.h' \) | sort;
                         ls bench/*.cpp)
clang-format --dry-run --Werror "${formatted[@]}" || status=1

# clang-tidy reads the files of src/core and src/kernels as two translation units (build/native/tidy-1.cpp and -2.cpp,
# written by scripts/tidy-unit.mjs: one #include per file, one unit per .clang-tidy, since src/kernels has its own),
# so Eigen's and the standard library's headers are parsed and matched once per unit, not once per file: their AST
# is most of the work (22 files one by one: ~115 CPU-s; as two units: ~20). The findings are the same: each unit
# runs with its files' own .clang-tidy, whose HeaderFilterRegex covers the included files, and the files share one
# set of flags (checked). The two run side by side. Only findings are printed: clang-tidy also counts the warnings
# it suppressed in Eigen and the system headers ("151290 warnings generated."), which reads like a failure; those
# lines are dropped.
if ! units=$(node scripts/tidy-unit.mjs build/native/compile_commands.json build/native/tidy src/core/*.cpp src/kernels/*.cpp); then
  status=1
else
  pids=() ran=()
  while read -r config unit flags; do
    # shellcheck disable=SC2086 # the flags are words
    clang-tidy --quiet --warnings-as-errors='*' --config-file="$config" "$unit" -- $flags >"$unit.log" 2>&1 &
    pids+=($!) ran+=("$unit")
  done <<<"$units"
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for unit in "${ran[@]}"; do grep -Ev '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$' "$unit.log" || true; done
fi

# No function over 80 lines outside the two it allows (src/, tests/, bench/).
node scripts/cpp-function-size.mjs || status=1

if [ "$status" -ne 0 ]; then echo "lint-cpp: failed (see above)" >&2; fi
exit "$status"
