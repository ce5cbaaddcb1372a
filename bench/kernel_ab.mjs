#!/usr/bin/env node
// A/B of the kernels alone in Node: the kernel harness (bench/wasm_harness) built from another source tree (A, e.g.
// main's sources: `git archive main src bench scripts | tar -x -C build/base`) and from this one (B), per engine
// (SIMD128, relaxed SIMD), timing the fused kernel (d = 64, one thread, non-causal) with A and B taking turns in
// every round (a fresh Node process per round and engine, the two builds called by turns in it), so that load from
// the other processes on a shared machine falls on both alike. Prints per engine and size the median over rounds of each run's median
// GFLOP/s, the ratio B ÷ A (> 1: B faster), the load average during the rounds, and whether the two outputs have
// the same bits (the harness prints a hash of them).
//
//   node bench/kernel_ab.mjs path/to/other/tree [--rounds 9] [--calls 4] [--n 512,2048] [--engines simd128,relaxed-simd]
import os from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFileSync, spawnSync } from 'node:child_process'
import { harnessBuild } from './kernel_harness.mjs'
import { cli, median } from './inputs.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const USAGE =
  'node bench/kernel_ab.mjs path/to/other/tree [--rounds 9] [--calls 4] [--n 512,2048] [--engines simd128,relaxed-simd]'
const args = cli(
  {
    rounds: { type: 'string', default: '9' },
    calls: { type: 'string', default: '4' },
    n: { type: 'string', default: '512,2048' },
    engines: { type: 'string', default: 'simd128,relaxed-simd' },
  },
  USAGE,
  1,
)
if (!args._[0]) throw new Error(`usage: ${USAGE}`)
const other = resolve(args._[0])
const rounds = Number(args.rounds)
const calls = Number(args.calls)
const ns = args.n.split(',').map(Number)
const engines = args.engines.split(',')
const D = 64
const RUNS = { 512: 15, 2048: 5 }
const dir = join(root, 'build/kernel-ab')

const sides = engines.flatMap((engine) => {
  const relaxed = engine === 'relaxed-simd'
  const a = `a-${engine}`
  // A: built by the other tree's own script, from its sources, every time (its sources are not tracked here).
  execFileSync('bash', [join(other, 'bench/wasm_harness/build.sh'), dir], {
    env: { ...process.env, HARNESS_NAME: a, HARNESS_RELAXED: relaxed ? '1' : '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return [
    { engine, side: 'A', relaxed, name: a, file: join(dir, `${a}.cjs`) },
    { engine, side: 'B', ...harnessBuild({ relaxed, name: `b-${engine}`, dir }) },
  ]
})

// One round of one engine: a fresh Node process loads both builds and calls them by turns (A B B A …, `calls`
// times each per size), so that the two sides of a pair run a few milliseconds apart; each side's value in the
// round is the median of its calls.
function round(pair, calls) {
  const script = `
    const lines = [], log = console.log
    console.log = (l) => lines.push(String(l))
    const M = ${JSON.stringify(pair.map((s) => s.file))}.map((f) => require(f))
    const out = {}
    for (const n of ${JSON.stringify(ns)}) {
      out[n] = [[], []]
      for (let k = 0; k < ${calls}; k++)
        for (const i of k % 2 ? [1, 0] : [0, 1]) {
          lines.length = 0
          M[i]._harness_flash(n, ${D}, ${JSON.stringify(RUNS)}[n] ?? 3)
          out[n][i].push(JSON.parse(lines.find((l) => l.startsWith('{'))))
        }
    }
    log(JSON.stringify(out))`
  const flags = pair[0].relaxed ? ['--experimental-wasm-relaxed-simd'] : []
  const r = spawnSync(process.execPath, [...flags, '-e', script, '-', '--exports-only'], { encoding: 'utf8' })
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'))
  if (!line) throw new Error(`${pair[0].engine}: ${r.stderr || r.stdout}`)
  return JSON.parse(line)
}

const times = new Map(sides.flatMap((s) => ns.map((n) => [`${s.name} ${n}`, []])))
const best = new Map(sides.flatMap((s) => ns.map((n) => [`${s.name} ${n}`, []])))
const hashes = new Map()
const loads = []
for (let r = 0; r < rounds; r++) {
  loads.push(os.loadavg()[0])
  for (const engine of engines) {
    const pair = sides.filter((s) => s.engine === engine)
    const out = round(pair, calls)
    for (const n of ns)
      pair.forEach((s, i) => {
        times.get(`${s.name} ${n}`).push(median(out[n][i].map((o) => o.median_gflops)))
        best.get(`${s.name} ${n}`).push(Math.max(...out[n][i].map((o) => o.min_gflops)))
        hashes.set(`${s.name} ${n}`, out[n][i][0].out_hash)
      })
  }
}
loads.push(os.loadavg()[0])
console.log(
  `\nfused kernel, d = ${D}, one thread, Node ${process.version}, A = ${other}, B = this tree: median over ${rounds} ` +
    `interleaved rounds (each the median of ${calls} calls by turns) of each call's median GFLOP/s; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`,
)
// Under load the fastest run of a round is the least disturbed one: its ratio is printed too.
console.log(
  '| engine | n | A GFLOP/s | B GFLOP/s | B ÷ A | B ÷ A per round (median) | fastest runs: B ÷ A per round (median) | same bits |',
)
console.log('|---|---|---|---|---|---|---|---|')
for (const engine of engines)
  for (const n of ns) {
    const ta = times.get(`a-${engine} ${n}`)
    const tb = times.get(`b-${engine} ${n}`)
    const a = median(ta)
    const b = median(tb)
    const paired = median(tb.map((x, i) => x / ta[i]))
    const fa = best.get(`a-${engine} ${n}`)
    const fastest = median(best.get(`b-${engine} ${n}`).map((x, i) => x / fa[i]))
    const same = hashes.get(`a-${engine} ${n}`) === hashes.get(`b-${engine} ${n}`) ? 'yes' : 'NO'
    console.log(
      `| ${engine} | ${n} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(3)} | ${paired.toFixed(3)} | ${fastest.toFixed(3)} | ${same} |`,
    )
  }
