# Shared by the test scripts (source it).

# One run at a time per build directory: several npm test runs may share a tree, and two cmake builds of
# one folder corrupt each other. Holds the lock (fd 9) until the calling script exits.
lock_build_dir() {
  mkdir -p build
  exec 9>"build/.$1.lock"
  if ! flock -n 9; then
    echo "$(basename "$0"): waiting for another run that holds build/$1" >&2
    flock 9
  fi
}
