#!/usr/bin/env node
// The Train tab's task poems in Chromium (issue 37 item 6): the trainer in a module Web Worker as the Train tab
// runs it (bench/pages/poems-train-worker.js: init(), loadTrainer(), ap.createTrainer({ task: 'poems' }) with its
// defaults — 2 layers × 4 heads × d 64, context 64, batch 32, lr 3e-3, 100 warm-up steps, cosine to step 500).
//   1. milliseconds a step in Chromium's worker and in this Node process (the same dist/), interleaved round by
//      round (--rounds rounds of --steps steps each, the order alternating), medians and their ratio;
//   2. the time to the target (unless --skip-target): the default run in the worker, measured every --every steps
//      as the Node bench and the integration test measure it — the validation loss over all 902 poems ≤ 4.9 and
//      ≥ 90 % of 250 poems sampled at temperature 0.8 keep the form (scripts/poem-form.mjs) —; the training time
//      (inside step()) until the first checkpoint that meets both, and the checks' time apart;
//   3. the Train tab itself (--page-steps N, 0 to skip; needs the site): Play on task poems for N steps, the wall
//      time a step with the panel's own measurements (every 25 steps) and drawing, against 1.'s worker median.
// Calls into the worker take a few steps each (Playwright's worker.evaluate). Not run by the tests.
//
// Usage: node --experimental-wasm-relaxed-simd bench/poems_train_page.mjs [--rounds 7] [--steps 3] [--every 100]
//        [--max-steps 500] [--skip-target] [--page-steps 30] [--json FILE]
// (Chromium runs the relaxed-SIMD engine; Node does when it has the flag, else SIMD128: the ratio says which.)
import { readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { CHROMIUM, launchChromium, ROOT, serveRoot, serveStatic, SITE } from '../tests/e2e/harness.mjs'
import { formShare, POEMS_TARGET as TARGET } from '../scripts/poem-form.mjs'
import { cli, median } from './inputs.mjs'

const args = cli(
  {
    rounds: { type: 'string', default: '7' },
    steps: { type: 'string', default: '3' },
    every: { type: 'string', default: '100' },
    'max-steps': { type: 'string', default: '500' },
    'skip-target': { type: 'boolean', default: false },
    'page-steps': { type: 'string', default: '30' },
    json: { type: 'string' },
  },
  'node --experimental-wasm-relaxed-simd bench/poems_train_page.mjs [--rounds 7] [--steps 3] [--every 100] ' +
    '[--max-steps 500] [--skip-target] [--page-steps 30] [--json FILE]',
)
const load = () => loadavg()[0].toFixed(1)
const out = { bench: 'poems_train_page', loadAtStart: load() }

// ---- Node: the same package and corpus
const { init } = await import(join(ROOT, 'dist/index.js'))
const ap = await init()
const poems = join(ROOT, 'public/poems')
const vocab = JSON.parse(readFileSync(join(poems, 'vocab.json'), 'utf8'))
const index = new Map(vocab.map((c, i) => [c, i]))
const encode = (name) => Uint16Array.from(Array.from(readFileSync(join(poems, name), 'utf8'), (c) => index.get(c)))
const nodeTrainer = ap.createTrainer({
  task: 'poems',
  vocab,
  train: encode('train.txt'),
  validation: encode('validation.txt'),
})

// ---- Chromium: the worker page
const server = await serveRoot()
const { browser } = await launchChromium(CHROMIUM)
const page = await browser.newPage()
const ready = new Promise((resolve) => page.on('worker', resolve))
await page.goto(`${server.url}/bench/pages/poems-train.html`)
/** @type {import('playwright-core').Worker} */
const worker = /** @type {any} */ (await ready)
await worker.evaluate(
  () =>
    new Promise((resolve) => {
      const poll = () => (/** @type {any} */ (self).bench ? resolve(undefined) : setTimeout(poll, 50))
      poll()
    }),
)
/** Calls self.bench[name](...a) in the worker. */
const call = (name, ...a) => worker.evaluate(([n, xs]) => /** @type {any} */ (self).bench[n](...xs), [name, a])
const config = await call('create')
out.backend = { chromium: await worker.evaluate(() => /** @type {any} */ (self).bench.backend), node: ap.backend }
out.shape = `${config.layers} x ${config.heads} x d${config.dModel}, context ${config.context}, batch ${config.batch}`

// ---- 1. a step, interleaved
const per = Number(args.steps)
await call('step', 1)
nodeTrainer.step(1) // warm both up
const ms = { chromium: [], node: [] }
const nodeStep = () => {
  const t0 = performance.now()
  nodeTrainer.step(per)
  ms.node.push((performance.now() - t0) / per)
}
const chromiumStep = async () => ms.chromium.push((await call('step', per)).ms / per)
for (let r = 0; r < Number(args.rounds); r++) {
  if (r % 2) {
    nodeStep()
    await chromiumStep()
  } else {
    await chromiumStep()
    nodeStep()
  }
}
out.msPerStep = {
  chromiumWorker: +median(ms.chromium).toFixed(1),
  node: +median(ms.node).toFixed(1),
  ratio: +(median(ms.chromium) / median(ms.node)).toFixed(3),
  rounds: { chromium: ms.chromium.map((x) => +x.toFixed(1)), node: ms.node.map((x) => +x.toFixed(1)) },
  // the same steps on the same engine give the same losses
  sameLoss: (await call('evaluate', 50)).loss === nodeTrainer.evaluate({ limit: 50 }).loss,
}
console.log(JSON.stringify({ msPerStep: out.msPerStep, backend: out.backend, load: load() }))
nodeTrainer.dispose()

// ---- 2. the default run to its target, in the worker
if (!args['skip-target']) {
  await call('create')
  const every = Number(args.every)
  const rows = []
  let trainMs = 0
  let checkMs = 0
  let reached = null
  while (rows.length === 0 || rows.at(-1).step < Number(args['max-steps'])) {
    for (let done = 0; done < every; done += 5) trainMs += (await call('step', Math.min(5, every - done))).ms
    const t0 = performance.now()
    const { loss } = await call('evaluate', 0)
    const written = []
    for (let i = 0; i < TARGET.samples; i += 25) written.push(...(await call('samples', i, i + 25)))
    checkMs += performance.now() - t0
    const form = formShare(written).share
    rows.push({
      step: rows.length ? rows.at(-1).step + every : every,
      valLoss: +loss.toFixed(4),
      form,
      trainSeconds: +(trainMs / 1000).toFixed(1),
      load: load(),
    })
    console.log(JSON.stringify(rows.at(-1)))
    if (!reached && loss <= TARGET.valLoss && form >= TARGET.form) reached = rows.at(-1)
  }
  out.target = { target: TARGET, reached, rows, checkSeconds: +(checkMs / 1000).toFixed(1) }
  console.log(JSON.stringify({ reached, checkSeconds: out.target.checkSeconds }))
}
await page.close()
await server.close()

// ---- 3. the Train tab's own loop
const pageSteps = Number(args['page-steps'])
if (pageSteps > 0) {
  const site = await serveStatic(SITE)
  const tab = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
  await tab.goto(`${site.url}?view=train&lang=en`) // site.url ends with '/'
  const panel = tab.locator('section.ap-train')
  const status = () => panel.locator('.tr-status').textContent()
  const until = async (re, timeout) => {
    for (const end = Date.now() + timeout; Date.now() < end; await tab.waitForTimeout(200)) {
      const s = (await status()) ?? ''
      if (re.test(s)) return s
    }
    throw new Error(`the Train tab's status never matched ${re}: ${await status()}`)
  }
  await tab.waitForSelector('section.ap-train select[name="task"]', { timeout: 60_000 })
  await panel.locator('select[name="task"]').selectOption('poems')
  await until(/^step 0 · .*\(step 0\)/, 300_000)
  const t0 = performance.now()
  await panel.locator('button[name="play"]').click()
  const last = await until(new RegExp(`^step (${pageSteps}|[1-9]\\d{${String(pageSteps).length}})\\b`), 3_600_000)
  const wall = performance.now() - t0
  await panel.locator('button[name="play"]').click()
  const steps = Number(/^step (\d+)/.exec(last)[1])
  out.page = {
    steps,
    msPerStepWithMeasurements: +(wall / steps).toFixed(1),
    againstWorkerMedian: +(wall / steps / median(ms.chromium)).toFixed(3),
    status: last,
  }
  console.log(JSON.stringify({ page: out.page, load: load() }))
  await site.close()
}
await browser.close()
out.loadAtEnd = load()
if (args.json) writeFileSync(args.json, JSON.stringify(out, null, 2) + '\n')
console.log(JSON.stringify({ loadAtEnd: out.loadAtEnd }))
