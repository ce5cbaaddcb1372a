#!/usr/bin/env node
// A/B of two builds of the package in headless Chromium, one page: dist/ (B, this tree) against another build's
// dist directory (A, e.g. main's, copied under build/ab/), each engine (SIMD128, relaxed SIMD) on one thread, fused,
// non-causal, d = 64. In every round A and B take turns (the order alternating), so load from other processes falls
// on both alike; medians per side and the ratio B ÷ A (> 1: B faster) are printed with the load average.
//
//   node bench/ab_page.mjs path/to/other/dist [--rounds 15] [--n 512,2048]
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHROMIUM, launchChromium } from '../tests/e2e/harness.mjs'
import { serve } from '../scripts/serve.mjs'
import { cli, median, rand } from './inputs.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const USAGE = 'node bench/ab_page.mjs path/to/other/dist [--rounds 15] [--n 512,2048]'
const args = cli({ rounds: { type: 'string', default: '15' }, n: { type: 'string', default: '512,2048' } }, USAGE, 1)
if (!args._[0]) throw new Error(`usage: ${USAGE}`)
const other = resolve(args._[0])
const rounds = Number(args.rounds)
const ns = args.n.split(',').map(Number)

const copy = join(root, 'build/ab/a-dist')
if (other !== copy) {
  rmSync(copy, { recursive: true, force: true })
  cpSync(other, copy, { recursive: true })
}
const PAGE = `<!doctype html><meta charset="utf-8"><title>A/B</title>
<script type="module">
import * as A from '/build/ab/a-dist/index.js'
import * as B from '/dist/index.js'
${median.toString()}
${rand.toString()}
window.run = async ({ backend, n, rounds }) => {
  const a = await A.init({ backend, threads: 1 }), b = await B.init({ backend, threads: 1 })
  a.warmUp(); b.warmUp()
  const d = 64, t = (seed) => ({ data: rand(n * d, seed), shape: [n, d] })
  const opts = { query: t(1), key: t(2), value: t(3), needWeights: false }
  const oa = a.attention(opts).output.data, ob = b.attention(opts).output.data
  let diff = 0
  for (let i = 0; i < oa.length; i++) diff = Math.max(diff, Math.abs(oa[i] - ob[i]))
  const time = (e) => { const s = performance.now(); e.attention(opts); return performance.now() - s }
  for (let w = 0; w < 5; w++) { time(a); time(b) }
  const ta = [], tb = []
  for (let r = 0; r < rounds; r++)
    if (r % 2) { tb.push(time(b)); ta.push(time(a)) } else { ta.push(time(a)); tb.push(time(b)) }
  return { backendA: a.backend, backendB: b.backend, msA: median(ta), msB: median(tb), maxAbsDiff: diff }
}
window.__ready = true
</script>`
mkdirSync(join(root, 'build/bench'), { recursive: true })
writeFileSync(join(root, 'build/bench/ab.html'), PAGE)
const server = await serve({ root })
const { browser } = await launchChromium(CHROMIUM)
try {
  const page = await browser.newPage()
  await page.goto(`http://127.0.0.1:${server.port}/build/bench/ab.html`)
  await page.waitForFunction(() => /** @type {any} */ (window).__ready === true)
  console.log(`Chromium ${browser.version()}: A = ${other}, B = dist/; fused, d = 64, one thread, ${rounds} rounds`)
  for (const backend of ['simd128', 'relaxed-simd'])
    for (const n of ns) {
      const l0 = os.loadavg()[0]
      const r = await page.evaluate((c) => /** @type {any} */ (window).run(c), { backend, n, rounds })
      console.log(
        `  ${backend.padEnd(13)} n = ${String(n).padStart(4)}: A ${r.msA.toFixed(2)} ms, B ${r.msB.toFixed(2)} ms, ` +
          `B ÷ A speed ${(r.msA / r.msB).toFixed(2)}×  (max |A − B| ${r.maxAbsDiff.toExponential(1)}; load ${l0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)})`,
      )
    }
} finally {
  await browser.close()
  await server.close()
}
