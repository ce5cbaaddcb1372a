#!/usr/bin/env node
// The register tile per engine, chosen by measurement: builds the kernel harness (bench/wasm_harness) once per engine
// (SIMD128, relaxed SIMD) and tile height (AP_TILE_ROWS; the row block stays 36), then times the fused kernel
// (n = 512 and 2048, d = 64, one thread, non-causal) with every variant taking its turn in each round, in a fresh
// Node process each time, so that load from the other processes on this shared machine falls on all variants alike.
// Prints, per engine and size, the median over rounds of each variant's median GFLOP/s, its ratio to the engine's
// current tile (kTileOf in src/kernels/kernels_internal.h), the tile's ceiling (the register tiles alone on
// cache-resident data) and the load average. docs/perf-notes.md keeps the table.
//
//   node bench/tile-sweep.mjs [--rounds 7] [--rows 3,4,6] [--no-build (reuse the variants built before)]
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { harnessBuild, harnessCall } from './kernel_harness.mjs'
import { cli, median } from './inputs.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = cli(
  {
    rounds: { type: 'string', default: '7' },
    rows: { type: 'string', default: '4,6' },
    'no-build': { type: 'boolean', default: false },
  },
  'node bench/tile-sweep.mjs [--rounds 7] [--rows 4,6] [--no-build]',
)
const rounds = Number(args.rounds)
const rows = args.rows.split(',').map(Number)
const dir = join(root, 'build/tile-sweep')
const ENGINES = [
  { engine: 'simd128', relaxed: false },
  { engine: 'relaxed-simd', relaxed: true },
]
const CASES = [
  { n: 512, runs: 15 },
  { n: 2048, runs: 3 },
]
const D = 64

const variants = ENGINES.flatMap((e) =>
  rows.map((mr) => {
    const name = `${e.engine}-mr${mr}`
    console.log(`${name} (load ${os.loadavg()[0].toFixed(2)})`)
    const flags = `-DAP_TILE_ROWS=${mr} -DAP_FLASH_BR=36`
    return {
      ...e,
      mr,
      ...harnessBuild({ relaxed: e.relaxed, name, dir, flags, rebuild: !args['no-build'] }),
    }
  }),
)

const ceilings = Object.fromEntries(variants.map((v) => [v.name, harnessCall(v, `ceiling(${D})`)]))
const times = Object.fromEntries(variants.flatMap((v) => CASES.map((c) => [`${v.name} ${c.n}`, []])))
const loads = []
for (let r = 0; r < rounds; r++) {
  loads.push(os.loadavg()[0])
  // Rotate the order each round: no variant always runs first (or right after a build of caches by another).
  const order = variants.map((_, i) => variants[(i + r) % variants.length])
  for (const c of CASES)
    for (const v of order)
      times[`${v.name} ${c.n}`].push(harnessCall(v, `flash(${c.n}, ${D}, ${c.runs})`).median_gflops)
}

const current = { simd128: 4, 'relaxed-simd': 6 } // kTileOf<Engine::simd128 / relaxed>.rows
console.log(
  `\nfused kernel, d = ${D}, one thread, Node ${process.version}: median over ${rounds} interleaved rounds of each ` +
    `run's median GFLOP/s; load average during the rounds ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`,
)
console.log(
  '| engine | tile | ceiling GFLOP/s (qk, pv) | ' +
    CASES.map((c) => `n = ${c.n}: GFLOP/s (÷ current)`).join(' | ') +
    ' |',
)
console.log('|---|---|---|' + CASES.map(() => '---|').join(''))
for (const v of variants) {
  const base = variants.find((w) => w.engine === v.engine && w.mr === current[v.engine])
  const cells = CASES.map((c) => {
    const g = median(times[`${v.name} ${c.n}`])
    const b = base ? median(times[`${base.name} ${c.n}`]) : NaN
    return `${g.toFixed(1)} (${(g / b).toFixed(2)}×)`
  })
  const cl = ceilings[v.name]
  console.log(
    `| ${v.engine} | ${v.mr}×8 | ${cl.gflops.toFixed(1)} (${cl.qk_gflops.toFixed(1)}, ${cl.pv_gflops.toFixed(1)}) | ${cells.join(' | ')} |`,
  )
}
