#!/usr/bin/env node
// Writes tests/durations.json, the order test files start in (tests/sequencer.ts: longest first), from a Vitest JSON
// report of the tiers that run together: each file's seconds, by its path from the repository root (a file run in two projects, as
// tests/kernels/ is, keeps the longer). Refresh it when files are added or a file's length changes a lot; a stale
// entry only moves a file in the order.
//   bash scripts/test.sh engine integration e2e -- --reporter=default --reporter=json --outputFile=/tmp/vitest.json
//   node scripts/test-durations.mjs /tmp/vitest.json
import { readFileSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'
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
/** @type {Record<string, number>} */
const seconds = {}
for (const f of report.testResults) {
  const path = relative(ROOT, f.name)
  const s = Math.max(0.1, Math.round((f.endTime - f.startTime) / 100) / 10)
  seconds[path] = Math.max(seconds[path] ?? 0, s)
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)))
const out = new URL('../tests/durations.json', import.meta.url)
writeFileSync(out, JSON.stringify(sorted, null, 2) + '\n')
console.log(`tests/durations.json: ${Object.keys(sorted).length} files`)
