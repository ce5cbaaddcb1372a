#!/usr/bin/env node
// Writes tests/durations.json, the order test files start in (tests/sequencer.ts: tier by tier, longest first), from a Vitest JSON
// report of the tiers that run together: each file's seconds, by its path from the repository root (a file run in two projects, as
// tests/kernels/ is, keeps the longer). Refresh it when files are added or a file's length changes a lot; a stale
// entry only moves a file in the order.
//   bash scripts/test.sh engine integration e2e -- --reporter=default --reporter=json --outputFile=/tmp/vitest.json
//   node scripts/test-durations.mjs /tmp/vitest.json
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

const { positionals } = parseArgs({ allowPositionals: true })
if (positionals.length !== 1) {
  console.error('usage: node scripts/test-durations.mjs REPORT.json (Vitest --reporter=json --outputFile=REPORT.json)')
  process.exit(2)
}
/** @type {{ testResults: { name: string, startTime: number, endTime: number }[] }} */
const report = JSON.parse(readFileSync(positionals[0], 'utf8'))
/**
 * A file's path from the root of the repository it ran in, which may be another clone (a clean clone's run in
 * /tmp): the part from a `tests/` folder on, that names a file here. Keys relative to this checkout's root would name
 * no file in any other (`../../tmp/cc22/tests/…`), and every file would then start in Vitest's order.
 */
function fromRoot(/** @type {string} */ name) {
  for (let at = name.indexOf('/tests/'); at >= 0; at = name.indexOf('/tests/', at + 1)) {
    const path = name.slice(at + 1)
    if (existsSync(join(ROOT, path))) return path
  }
  console.error(`test-durations: ${name} names no file under tests/ of ${ROOT}`)
  process.exit(1)
}

/** @type {Record<string, number>} */
const seconds = {}
for (const f of report.testResults) {
  const path = fromRoot(f.name)
  const s = Math.max(0.1, Math.round((f.endTime - f.startTime) / 100) / 10)
  seconds[path] = Math.max(seconds[path] ?? 0, s)
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)))
const out = new URL('../tests/durations.json', import.meta.url)
writeFileSync(out, JSON.stringify(sorted, null, 2) + '\n')
console.log(`tests/durations.json: ${Object.keys(sorted).length} files`)
