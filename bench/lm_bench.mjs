#!/usr/bin/env node
// Issue 38 items 1 and 2, in headless Chromium (/usr/bin/chromium via playwright-core), each engine in a Web Worker
// (bench/lm_worker.js) as the Train tab runs it:
// - training: the poems model (docs/lm-spec.md: the trainer's defaults, 2 layers × 4 heads × d 64, vocabulary 2,401,
//   context 64, batch 32) trained by our package (ap.createTrainer({ task: 'poems' }) on one thread, each SIMD engine)
//   and by the same model written in tfjs ops with tf.train.adam on tfjs-backend-wasm (its SIMD build, one thread; two
//   on the cross-origin isolated page), from the same initial weights on the same windows, AdamW with nanoGPT's groups
//   at a constant learning rate; and by native torch (tests/fixtures/gpt_torch.py, Debian's torch on one thread,
//   bench/lm_torch.py). First `--agree` steps from the same weights, every loss printed side by side (so all train the
//   same thing); then `--rounds` rounds in which each takes one step in turn, and the kernel harness's register tile
//   alone in the same worker (the ceiling); ms per step are medians, the ratios medians of the per-round ratios, and
//   the step's flops (3 × the forward's matrix products, attention at full n²) ÷ the ceiling per round.
// - generation: the sample model (public/samples/poems.safetensors) writing from one character up to its context, with
//   the KV cache and recomputing the prefix at every step (the two taking turns), ms per character.
// This machine is shared: absolute times move with the load (printed); the ratios within a round are the comparable
// part. Results: bench/results/lm.json (scripts/bench-doc.mjs writes them into docs/benchmarks.md).
//
//   node bench/lm_bench.mjs [--rounds 5] [--agree 3] [--gen 5] [--no-torch] [--quick] [--json bench/results/lm.json]
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join, relative } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { CHROMIUM, launchChromium } from '../tests/e2e/harness.mjs'
import { serve } from '../scripts/serve.mjs'
import { harnessBuild } from './kernel_harness.mjs'
import { cli, median, machine } from './inputs.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = cli(
  {
    rounds: { type: 'string', default: '5' },
    agree: { type: 'string', default: '3' },
    gen: { type: 'string', default: '5' },
    'no-torch': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    json: { type: 'string', default: join(root, 'bench/results/lm.json') },
  },
  'node bench/lm_bench.mjs [--rounds 5] [--agree 3] [--gen 5] [--no-torch] [--quick] [--json bench/results/lm.json]',
)
const ROUNDS = args.quick ? 2 : Number(args.rounds)
const AGREE = Number(args.agree)
const GEN = args.quick ? 2 : Number(args.gen)
/** Goals of issue 38. */
export const LM_GOALS = { vsTfjs: 10, vsTorch: 2, ceilingFraction: 0.5, msPerChar: 2 }
/** Losses after the same steps agree when within this relative difference (float32 sums in other orders). */
const AGREE_REL = 1e-3
const log = (s) => process.stdout.write(s + '\n')
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

/** The step's flops: 3 × the forward's matrix products (the backward pass is twice the forward), attention at n². */
export function stepFlops(c) {
  const rows = c.batch * c.context
  const perRow = c.layers * (2 * 12 * c.dModel * c.dModel + 2 * 2 * c.context * c.dModel) + 2 * c.dModel * c.vocabSize
  return 3 * rows * perRow
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>language model bench</title>
<script>
const pending = new Map()
let worker, next = 0
window.start = () => {
  worker = new Worker('/bench/lm_worker.js')
  worker.onmessage = (e) => {
    const p = pending.get(e.data.id)
    pending.delete(e.data.id)
    if (e.data.error) p.reject(new Error(e.data.error)); else p.resolve(e.data.result)
  }
}
window.call = (cmd, args) => new Promise((resolve, reject) => {
  const id = next++
  pending.set(id, { resolve, reject })
  worker.postMessage({ id, cmd, args })
})
window.__ready = true
</script>`

/** bench/lm_torch.py as a child process: one JSON line in, one out. */
function torchPeer() {
  const p = spawn('/usr/bin/python3', [join(root, 'bench/lm_torch.py')], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: p.stdout })
  const waiting = []
  lines.on('line', (l) => waiting.shift()?.(JSON.parse(l)))
  return {
    call: (req) =>
      new Promise((resolve) => {
        waiting.push(resolve)
        p.stdin.write(JSON.stringify(req) + '\n')
      }),
    close: () => p.stdin.end(),
  }
}

const rel = (a, b) => Math.abs(a - b) / Math.abs(b)
const fmt = (x, p = 1) => (Number.isFinite(x) ? x.toFixed(p) : '–')

async function newWorkerPage(browser, base) {
  const page = await browser.newPage()
  page.on('pageerror', (e) => log(`  page error: ${e.message}`))
  await page.goto(`${base}/build/bench/lm.html`)
  await page.waitForFunction(() => window['__ready'], null, { timeout: 60_000 })
  await page.evaluate(() => window['start']())
  return (cmd, a = {}) => page.evaluate(({ cmd, a }) => window['call'](cmd, a), { cmd, a })
}

/** One engine's training page: agreement, then rounds of ours / tfjs / torch with the ceiling. */
async function trainPage(browser, base, engine, tfThreads, torch, rounds) {
  const h = harnessBuild({ relaxed: engine === 'relaxed-simd', name: engine, web: true })
  const harness = { script: '/' + relative(root, h.file), dir: '/' + relative(root, dirname(h.file)) + '/' }
  const call = await newWorkerPage(browser, base)
  const info = await call('setup', { backend: engine, tfThreads, harness, rounds })
  log(
    `\n${engine} (ours, one thread) against tfjs-backend-wasm ${info.tfjs.version} (SIMD ${info.tfjs.simd}, ` +
      `${info.tfjs.threads ?? 1} thread${info.tfjs.threads > 1 ? 's' : ''} reported${info.isolated ? ', isolated page' : ''})` +
      (torch ? ' and native torch (one thread)' : '') +
      `; load ${load()}`,
  )
  const agree = await call('agree', { steps: AGREE + 1 })
  let torchInfo = null
  const torchAgree = []
  if (torch) {
    mkdirSync(join(root, 'build/bench'), { recursive: true })
    const init = join(root, 'build/bench/lm-init.safetensors')
    const windows = join(root, 'build/bench/lm-windows.json')
    writeFileSync(init, Buffer.from(agree.init, 'base64'))
    writeFileSync(windows, JSON.stringify(agree.windows))
    torchInfo = await torch.call({ cmd: 'setup', init, windows, lr: 3e-3, weight_decay: 0.1 })
    torchAgree.push(...(await torch.call({ cmd: 'agree', steps: AGREE + 1 })).losses)
  }
  log(`  the loss of each step from the same weights and windows (step ${AGREE + 1}'s: after ${AGREE} updates)`)
  log(`    ${'step'.padEnd(6)}${'ours'.padStart(12)}${'tfjs'.padStart(12)}${torch ? 'torch'.padStart(12) : ''}`)
  agree.ours.forEach((l, s) =>
    log(
      `    ${String(s + 1).padEnd(6)}${l.toFixed(6).padStart(12)}${agree.tfjs[s].toFixed(6).padStart(12)}` +
        `${torch ? torchAgree[s].toFixed(6).padStart(12) : ''}`,
    ),
  )
  const last = agree.ours.length - 1
  const agreement = {
    steps: AGREE,
    ours: agree.ours,
    tfjs: agree.tfjs,
    torch: torch ? torchAgree : null,
    tfjsRel: rel(agree.tfjs[last], agree.ours[last]),
    torchRel: torch ? rel(torchAgree[last], agree.ours[last]) : null,
  }
  agreement.agree = agreement.tfjsRel <= AGREE_REL && (!torch || agreement.torchRel <= AGREE_REL)
  log(
    `  after ${AGREE} updates: tfjs ${(agreement.tfjsRel * 100).toExponential(2)} % from ours` +
      (torch ? `, torch ${(agreement.torchRel * 100).toExponential(2)} %` : '') +
      ` (agree within ${AGREE_REL * 100} %: ${agreement.agree ? 'yes' : 'NO'})`,
  )
  const flops = stepFlops(info.config)
  const rows = []
  log(
    `    ${'round'.padEnd(6)}${'ours ms'.padStart(10)}${'tfjs ms'.padStart(10)}${torch ? 'torch ms'.padStart(10) : ''}${'ceiling'.padStart(10)}`,
  )
  for (let r = 0; r < rounds; r++) {
    const c = await call('ceiling')
    const step = await call('round', { index: r })
    const t = torch ? await torch.call({ cmd: 'step', index: r }) : null
    const row = { ...step, torchMs: t?.ms, ceiling: c.gflops, load: os.loadavg()[0] }
    rows.push(row)
    log(
      `    ${String(r + 1).padEnd(6)}${fmt(row.oursMs).padStart(10)}${fmt(row.tfjsMs, 0).padStart(10)}` +
        `${torch ? fmt(row.torchMs, 0).padStart(10) : ''}${fmt(row.ceiling).padStart(10)}`,
    )
  }
  const res = {
    engine,
    tfjs: info.tfjs,
    isolated: info.isolated,
    torch: torchInfo,
    config: info.config,
    stepGflop: flops / 1e9,
    agreement,
    rounds: rows,
    oursMs: median(rows.map((r) => r.oursMs)),
    tfjsMs: median(rows.map((r) => r.tfjsMs)),
    torchMs: torch ? median(rows.map((r) => r.torchMs)) : null,
    vsTfjs: median(rows.map((r) => r.tfjsMs / r.oursMs)),
    vsTorch: torch ? median(rows.map((r) => r.torchMs / r.oursMs)) : null,
    ceiling: median(rows.map((r) => r.ceiling)),
    fraction: median(rows.map((r) => flops / 1e6 / r.oursMs / r.ceiling)),
    load: os.loadavg(),
  }
  log(
    `  medians: ours ${fmt(res.oursMs)} ms a step, tfjs ${fmt(res.tfjsMs, 0)} ms (${fmt(res.vsTfjs, 2)}× ours)` +
      (torch ? `, torch ${fmt(res.torchMs, 0)} ms (${fmt(res.vsTorch, 2)}× ours)` : '') +
      `; the step's ${fmt(res.stepGflop, 2)} GFLOP at ${fmt(res.fraction * 100)} % of the ${fmt(res.ceiling)} GFLOP/s ceiling`,
  )
  return { res, call }
}

/** Generation with the KV cache and without, taking turns, in a worker that has our engine loaded. */
async function generation(call, engine) {
  const file = '/public/samples/poems.safetensors'
  const seeds = Array.from({ length: GEN }, (_, i) => 1 + i)
  await call('generate', { file, cache: true, seeds: [0] }) // warm up
  await call('generate', { file, cache: false, seeds: [0] })
  const cache = []
  const recompute = []
  for (const seed of seeds) {
    cache.push(...(await call('generate', { file, cache: true, seeds: [seed] })))
    recompute.push(...(await call('generate', { file, cache: false, seeds: [seed] })))
  }
  const same = cache.every((c, i) => c.text === recompute[i].text)
  const res = {
    engine,
    chars: median(cache.map((c) => c.chars)),
    cacheMsPerChar: median(cache.map((c) => c.msPerChar)),
    recomputeMsPerChar: median(recompute.map((c) => c.msPerChar)),
    speedup: median(cache.map((c, i) => recompute[i].msPerChar / c.msPerChar)),
    sameText: same,
    load: os.loadavg(),
  }
  log(
    `  generation (${engine}, the sample model, ${res.chars} characters from one): KV cache ${res.cacheMsPerChar.toFixed(3)} ` +
      `ms a character, recomputing the prefix ${res.recomputeMsPerChar.toFixed(3)} ms (${res.speedup.toFixed(1)}×); ` +
      `the same text both ways: ${same ? 'yes' : 'NO'}; load ${load()}`,
  )
  return res
}

export async function runLmBench() {
  mkdirSync(join(root, 'build/bench'), { recursive: true })
  writeFileSync(join(root, 'build/bench/lm.html'), PAGE)
  // cross-origin isolated (tfjs's threaded build needs SharedArrayBuffer for its two-thread run)
  const isolation = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
  const server = await serve({ root, port: 0, headers: isolation })
  const base = server.url.replace(/\/$/, '')
  const { browser } = await launchChromium(CHROMIUM)
  const machineInfo = machine(`Chromium ${browser.version()}`)
  const torch = args['no-torch'] ? null : torchPeer()
  const train = []
  const generate = []
  try {
    log(`the language model in ${browser.version()} (headless), one worker per page; load average ${load()}`)
    for (const engine of ['relaxed-simd', 'simd128']) {
      const { res, call } = await trainPage(browser, base, engine, 1, torch, ROUNDS)
      train.push(res)
      generate.push(await generation(call, engine))
    }
    // The isolated page: tfjs's threaded build asked for two threads (ours stays on one: the trainer has no threads).
    const { res } = await trainPage(browser, base, 'relaxed-simd', 2, null, Math.max(2, ROUNDS - 2))
    train.push({ ...res, tfThreads: 2 })
  } finally {
    torch?.close()
    await browser.close()
    await server.close()
  }
  const out = {
    date: new Date().toISOString(),
    machine: machineInfo,
    loadavg: os.loadavg(),
    quick: args.quick,
    goals: LM_GOALS,
    train,
    generate,
  }
  mkdirSync(dirname(args.json), { recursive: true })
  writeFileSync(args.json, JSON.stringify(out, null, 1) + '\n')
  log(`results written to ${args.json}`)
  return out
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await runLmBench()
