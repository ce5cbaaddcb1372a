// The package as a user gets it: `npm pack` of the repository (dist/ must be built) installed with npm into a
// fresh folder. Shared by the tests that consume the tarball (Node, TypeScript, bundlers, docs sites).
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Packs the repository into `dest` and returns the tarball's path. */
export function packTarball(dest: string): string {
  // --ignore-scripts: `npm test` built dist/ already; prepack would only rebuild what is stale anyway.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  return join(dest, JSON.parse(out)[0].filename)
}

/**
 * Makes `dir` a consumer project (its package.json, plus `extra` fields) with the tarball installed as npm
 * installs it. The package has no dependencies, so this needs no network.
 */
export function installTarball(tarball: string, dir: string, extra: Record<string, unknown> = {}): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', ...extra }),
  )
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: dir, stdio: 'pipe' })
}

/** The course program's PyTorch weights [4, 4] (tests/fixtures/engine-run.json, row-major). */
export function courseWeights(): number[] {
  const fx = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/engine-run.json'), 'utf8'))
  const course = fx.cases.find((c: { name: string }) => c.name.startsWith('course seed program'))
  return course.expected.weights.data.map(Number)
}

/**
 * The fenced code block of docs/embedding.md (the course author's recipes) that holds `marker`, or else the
 * first one after it: tests build exactly what the documentation shows.
 */
export function docBlock(marker: string, file = 'docs/embedding.md'): string {
  const doc = readFileSync(join(ROOT, file), 'utf8')
  const at = doc.indexOf(marker)
  if (at < 0) throw new Error(`${file} no longer contains ${JSON.stringify(marker)}`)
  const fencesBefore = doc.slice(0, at).match(/^```/gm)?.length ?? 0
  const open = fencesBefore % 2 ? doc.lastIndexOf('\n```', at) + 1 : doc.indexOf('```', at)
  const start = doc.indexOf('\n', open) + 1
  return doc.slice(start, doc.indexOf('\n```', start) + 1)
}
