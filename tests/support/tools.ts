// The external tools some tests need. A missing tool is a failure that names it and its install
// command: a suite that silently skips what it cannot run would exit green having checked nothing.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

/** The Python that has PyTorch (Debian's python3-torch); the `python3` on PATH may not. */
export const PY = '/usr/bin/python3'

function missing(what: string, install: string, detail: string): Error {
  return new Error(`${what} is required by this test and is missing (${detail}); install it: ${install}`)
}

/** Throws unless `import torch` works under PY; returns PY. */
export function requireTorch(): string {
  if (!existsSync(PY)) throw missing('PyTorch', 'apt-get install -y python3-torch', `${PY} does not exist`)
  const r = spawnSync(PY, ['-c', 'import torch'], { encoding: 'utf8' })
  if (r.status !== 0) {
    const last = (r.stderr ?? String(r.error ?? '')).trim().split('\n').pop()
    throw missing('PyTorch', 'apt-get install -y python3-torch', `import torch failed under ${PY}: ${last}`)
  }
  return PY
}

/** Throws unless `command` runs (looked up on PATH); `pkg` is the Debian package that provides it. */
export function requireCommand(command: string, pkg: string, args = ['--version']): string {
  const r = spawnSync(command, args, { encoding: 'utf8' })
  if (r.error || r.status !== 0) {
    throw missing(command, `apt-get install -y ${pkg}`, r.error ? String(r.error.message) : `exit ${r.status}`)
  }
  return command
}
