#!/usr/bin/env node
// The language model's matrix products (src/core/lm_products.cpp: mm_nt, mm_nn, mm_tn; forward and backward, the
// unembedding and the MLP included) at the poems model's shapes, in the kernel harness (bench/wasm_harness, built per
// engine with the package's flags), each one's GFLOP/s as a fraction of the engine's register-tile ceiling measured in
// the same run (the tile alone on cache-resident data, as `bench/run.mjs --only ceiling` does for attention), round by
// round: each round measures the ceiling and then every product once, and the fraction is the median of the rounds'
// ratios (this machine is shared: a call of 15 ms is preempted often, and the load then falls on both). Also the
// model's other steps (GELU, LayerNorm, the cross-entropy; forward and backward) in ms. Goal (issue 38 item 3):
// >= 60 % of the ceiling at these shapes.
// Usage: node --experimental-wasm-relaxed-simd bench/products_bench.mjs [--runs 7] [--json out]
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { harnessOf } from './kernel_limits.mjs'
import { cli } from './inputs.mjs'
// the shape the Train tab's task poems trains (the package's defaults, docs/lm-spec.md)
import { POEMS_DEFAULTS } from '../dist/poemsTrainer.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = cli(
  {
    runs: { type: 'string', default: '7' },
    json: { type: 'string', default: join(root, 'bench/results/products.json') },
  },
  'node bench/products_bench.mjs [--runs 7] [--json bench/results/products.json]',
)
const RUNS = Number(args.runs)
export const GOAL_FRACTION = 0.6
const log = (s) => process.stdout.write(s + '\n')
const load = () => os.loadavg()[0].toFixed(2)

/** Every JSON line of one harness call (products prints one per product). */
function harnessLines(h, call) {
  const flags = h.relaxed ? ['--experimental-wasm-relaxed-simd'] : []
  const script = `const M = require(${JSON.stringify(h.file)}); M._harness_${call}`
  const r = spawnSync(process.execPath, [...flags, '-e', script, '-', '--exports-only'], { encoding: 'utf8' })
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'))
  if (!lines.length) throw new Error(`${h.name} ${call}: ${r.stderr || r.stdout}`)
  return lines.map((l) => JSON.parse(l))
}

export function runProductsBench() {
  // the relaxed engine's harness runs in a child Node with the flag; time it when this Node has it too (npm run bench)
  const relaxed = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('relaxed-simd'))
  const engines = relaxed ? ['simd128', 'relaxed-simd'] : ['simd128']
  log(
    `the language model's products at the poems shapes (${RUNS} rounds, each: the tile's ceiling, then every product ` +
      `once; medians), load average ${load()}`,
  )
  const out = []
  const steps = []
  const ceilings = {}
  for (const e of engines) {
    const h = harnessOf(e)
    const d = POEMS_DEFAULTS
    const lines = harnessLines(
      h,
      `products(${RUNS}, ${d.batch}, ${d.context}, ${d.dModel}, ${d.heads}, ${d.vocabSize})`,
    )
    const ceiling = lines.find((l) => l.path === 'products_ceiling')
    ceilings[e] = ceiling
    log(
      `  ${e}: ${ceiling.tile_rows}×8 tile, ceiling ${ceiling.gflops.toFixed(1)} GFLOP/s at d = 64 (median of the rounds; ` +
        `load ${load()})`,
    )
    log(
      `    ${'product'.padEnd(24)}${'call'.padEnd(8)}${'m × n × k'.padStart(18)}${'ms'.padStart(10)}${'GFLOP/s'.padStart(9)}${'÷ ceiling'.padStart(11)}`,
    )
    for (const r of lines.filter((l) => l.path === 'products')) {
      log(
        `    ${r.name.padEnd(24)}${r.kind.padEnd(8)}${`${r.m} × ${r.n} × ${r.k}`.padStart(18)}${r.ms.toFixed(3).padStart(10)}` +
          `${r.gflops.toFixed(1).padStart(9)}${`${(100 * r.fraction).toFixed(0)} %`.padStart(11)}${r.fraction >= GOAL_FRACTION ? '' : '  < 60 %'}`,
      )
      out.push({ engine: e, ceiling: ceiling.gflops, ...r })
    }
    log(`    ${'the other steps'.padEnd(32)}${'elements'.padStart(12)}${'ms'.padStart(10)}${'ns each'.padStart(10)}`)
    for (const r of lines.filter((l) => l.path === 'steps')) {
      log(
        `    ${r.name.padEnd(32)}${String(r.elements).padStart(12)}${r.ms.toFixed(3).padStart(10)}` +
          `${((r.ms * 1e6) / r.elements).toFixed(2).padStart(10)}`,
      )
      steps.push({ engine: e, ...r })
    }
  }
  const met = out.filter((r) => r.fraction >= GOAL_FRACTION).length
  log(`  goal >= ${100 * GOAL_FRACTION} % of the ceiling: ${met} of ${out.length} products`)
  return { goalFraction: GOAL_FRACTION, runs: RUNS, ceilings, rows: out, steps }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const res = runProductsBench()
  const file = args.json
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), load: os.loadavg(), ...res }, null, 1) + '\n')
  log(`wrote ${file}`)
}
