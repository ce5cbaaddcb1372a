#!/usr/bin/env bash
# Installs what `npm start` / `npm test` / `npm run bench` need and is missing: Debian packages (as root) and
# the npm devDependencies. Safe to run again: it only acts on what is absent.
#   --test  also the packages only the tests and the benchmarks use (GoogleTest, ccache for the native builds,
#           Chromium for the benchmarks and its headless shell for the tests, clang for fuzzing, wabt, PyTorch,
#           poppler-utils: pdftotext reads the printed PDF; Sphinx and MkDocs build docs/docs-sites.md's recipes).
set -euo pipefail
cd "$(dirname "$0")/.."

# clang-16 + lld-16: the relaxed-SIMD engines (Emscripten 3.1.6's clang 14 predates the final relaxed opcodes).
want=(cmake make g++ libeigen3-dev emscripten clang-16 lld-16)
if [[ "${1:-}" == "--test" ]]; then
  want+=(libgtest-dev ccache chromium chromium-headless-shell fonts-noto-cjk clang libclang-rt-14-dev wabt python3-torch poppler-utils clang-format clang-tidy
    python3-sphinx mkdocs mkdocs-material)
  # the notebook helper's tests: a Jupyter Notebook server, nbconvert, a kernel, pip (pip install ./python), html5lib
  want+=(jupyter-notebook python3-nbconvert python3-ipykernel python3-pip python3-setuptools python3-html5lib)
fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ensure-deps: installing Debian packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    SUDO=sudo
  else
    SUDO=
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm dependencies: install when node_modules is absent or older than the lock file.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "ensure-deps: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
