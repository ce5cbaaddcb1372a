// docs/benchmarks.md is generated: the committed page must be exactly what scripts/bench-doc.mjs writes from
// the committed bench/results/*.json (so no number in it is typed by hand, and a new run rewrites all of it).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { benchDoc, num } from '../../scripts/bench-doc.mjs'
import { scratchDir } from '../support/scratch-dir'

const root = new URL('../../', import.meta.url)
const read = (f: string) => readFileSync(new URL(f, root), 'utf8')

describe('docs/benchmarks.md', () => {
  it('is the output of scripts/bench-doc.mjs from the committed JSON', () => {
    expect(read('docs/benchmarks.md')).toBe(benchDoc())
  })

  it('shows the JSON medians: a changed median changes the page', () => {
    const dir = scratchDir('bench-doc-')
    const chromium = JSON.parse(read('bench/results/chromium.json'))
    const cell = chromium.results.find((c: { n: number; threads: number }) => c.n === 2048 && c.threads === 1)
    const row = cell.rows[0]
    expect(benchDoc()).toContain(`| ${cell.n} | ${cell.d} | ${cell.causal ? 'on' : 'off'} | ${num(row.ms)} |`)
    row.ms = 12345.6
    writeFileSync(join(dir, 'chromium.json'), JSON.stringify(chromium))
    writeFileSync(join(dir, 'node.json'), read('bench/results/node.json'))
    expect(benchDoc(dir)).toContain(`| ${cell.n} | ${cell.d} | ${cell.causal ? 'on' : 'off'} | 12346 |`)
  })

  it('rounds to three significant digits', () => {
    expect([num(3.414), num(63.21), num(638.4), num(0.5801), num(NaN), num(undefined)]).toEqual([
      '3.41',
      '63.2',
      '638',
      '0.580',
      '–',
      '–',
    ])
  })
})
