#!/usr/bin/env node
// Training targets, measured: coreference reaches ≥ 95 % held-out
// accuracy with "it" attending more to the right noun than to the other in both lesson sentences, within
// 5 s of single-thread training in Node; plus steps per second for every rule and task.
//
// Usage: node bench/train_bench.mjs [--dist DIR] [--seeds N] [--quick] [--induction-only]
// Time counted as "training" is the time inside tr.step(); the checks between chunks (evaluate, trace)
// are reported separately as wall time.
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { cli } from './inputs.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const args = cli(
  {
    dist: { type: 'string', default: join(here, '..', 'dist') },
    seeds: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
    'induction-only': { type: 'boolean', default: false },
  },
  'node bench/train_bench.mjs [--dist DIR] [--seeds N] [--quick] [--induction-only]',
)
const dist = resolve(args.dist)
const seeds = Number(args.seeds)
const quick = args.quick

const { init, SCORE_RULES } = await import(pathToFileURL(join(dist, 'index.js')).href)
const { createTrainerFor } = await import(pathToFileURL(join(dist, 'trainer.js')).href)
const ap = await init({ wasmBinary: readFileSync(join(dist, 'attention.wasm')) })
const create = (o) => (typeof ap.createTrainer === 'function' ? ap.createTrainer(o) : createTrainerFor(ap.module, o))

const TIRED = "the animal didn't cross the street because it was too tired"
const WIDE = "the animal didn't cross the street because it was too wide"
const IT = 7,
  ANIMAL = 1,
  STREET = 5

function pointsRight(tr) {
  const row = (text) => {
    const t = tr.trace(text)
    const n = t.tokens.length
    const h = t.weights.shape.length === 3 ? t.weights.shape[0] : 1
    const w = new Float64Array(n)
    for (let k = 0; k < h; k++) for (let j = 0; j < n; j++) w[j] += t.weights.data[k * n * n + IT * n + j] / h
    return w
  }
  const a = row(TIRED),
    b = row(WIDE)
  return {
    ok: a[ANIMAL] > a[STREET] && b[STREET] > b[ANIMAL],
    tired: [a[ANIMAL], a[STREET]],
    wide: [b[ANIMAL], b[STREET]],
  }
}

function toTarget(opts, budgetSteps = 3000, chunk = 25) {
  const tr = create(opts)
  let trainMs = 0,
    steps = 0,
    reached = null,
    last
  const wall0 = performance.now()
  while (steps < budgetSteps) {
    const t0 = performance.now()
    tr.step(chunk)
    trainMs += performance.now() - t0
    steps += chunk
    last = tr.evaluate()
    if (last.accuracy >= 0.95) {
      const p = pointsRight(tr)
      if (p.ok) {
        reached = { steps, trainMs, wallMs: performance.now() - wall0, acc: last.accuracy, p }
        break
      }
    }
  }
  tr.dispose()
  return { reached, steps, trainMs, last }
}

function throughput(opts, steps = 200) {
  const tr = create(opts)
  tr.step(5) // warm-up
  const t0 = performance.now()
  tr.step(steps)
  const ms = performance.now() - t0
  const e = tr.evaluate()
  tr.dispose()
  return { stepsPerSec: (steps / ms) * 1000, examplesPerSec: ((steps * (opts.batchSize ?? 32)) / ms) * 1000, held: e }
}

const f = (x, d = 1) => x.toFixed(d)
console.log(`# Training benchmark (Node ${process.version}, wasm ${ap.backend}, one thread)`)
if (args['induction-only']) {
  inductionSection()
  process.exit()
}
console.log(`\n## coreference to target: held-out ≥ 95 % and "it" → right noun in both lesson sentences`)
console.log(
  'seed | steps | training s | wall s (with checks) | held-out acc | tired: animal/street | wide: animal/street | ≤ 5 s',
)
let met = 0
for (let s = 0; s < seeds; s++) {
  const r = toTarget({ task: 'coreference', seed: s })
  if (r.reached) {
    const { steps, trainMs, wallMs, acc, p } = r.reached
    const ok = trainMs <= 5000
    met += ok ? 1 : 0
    console.log(
      `${s} | ${steps} | ${f(trainMs / 1000, 2)} | ${f(wallMs / 1000, 2)} | ${f(acc * 100)} % | ` +
        `${f(p.tired[0], 3)}/${f(p.tired[1], 3)} | ${f(p.wide[0], 3)}/${f(p.wide[1], 3)} | ${ok ? 'yes' : 'NO'}`,
    )
  } else {
    console.log(
      `${s} | not reached in ${r.steps} steps (${f(r.trainMs / 1000, 2)} s) | held-out ${f(r.last.accuracy * 100)} % | NO`,
    )
  }
}
console.log(`target met for ${met}/${seeds} seeds`)

// Stability with the defaults (warm-up + cosine decay): once held-out accuracy reaches 95 % it must stay
// ≥ 95 % at every evaluation (every 40 steps) to step 1,000, for seeds 0–9. The run fails otherwise.
console.log('\n## coreference stays learned: held-out accuracy every 40 steps to 1,000, defaults, seeds 0–9')
console.log('seed | first ≥ 95 % at step | lowest after that | at step 1,000 | lr in use at the end | stable')
let unstable = 0
for (let s = 0; s < 10; s++) {
  const tr = create({ task: 'coreference', seed: s })
  let reached = -1,
    low = 1,
    acc = 0
  for (let step = 40; step <= 1000; step += 40) {
    tr.step(40)
    acc = tr.evaluate().accuracy
    if (reached < 0 && acc >= 0.95) reached = step
    if (reached >= 0) low = Math.min(low, acc)
  }
  const ok = reached > 0 && low >= 0.95
  unstable += ok ? 0 : 1
  console.log(
    `${s} | ${reached > 0 ? reached : 'never'} | ${f(low * 100)} % | ${f(acc * 100)} % | ${tr.lrInUse.toPrecision(3)} | ${ok ? 'yes' : 'NO'}`,
  )
  tr.dispose()
}
console.log(`stable for ${10 - unstable}/10 seeds`)
if (unstable) process.exitCode = 1

// Induction (issue 26): default settings, steps and training seconds until held-out copy accuracy ≥ 90 %
// (checked every 50 steps on the whole held-out set) within 3,000 steps, seeds 0–4; the heads' scores there.
function inductionSection() {
  console.log('\n## induction to target: held-out copy accuracy ≥ 90 % within 3,000 steps, defaults, seeds 0–4')
  console.log(
    'seed | steps | training s | copy acc | rest acc | max induction score (layer 2) | max previous-token (layer 1) | max duplicate-token (layer 1)',
  )
  let inductionMet = 0
  for (let s = 0; s < 5; s++) {
    const tr = create({ task: 'induction', seed: s })
    let trainMs = 0,
      steps = 0,
      e = null
    while (steps < 3000) {
      const t0 = performance.now()
      tr.step(50)
      trainMs += performance.now() - t0
      steps += 50
      e = tr.evaluate()
      if (e.accuracy >= 0.9) break
    }
    const h = tr.headScores()
    const max = (rows) => Math.max(...rows)
    const ok = e.accuracy >= 0.9
    inductionMet += ok ? 1 : 0
    console.log(
      `${s} | ${ok ? steps : `not reached in ${steps}`} | ${f(trainMs / 1000, 2)} | ${f(e.accuracy * 100)} % | ` +
        `${f(e.restAccuracy * 100)} % | ${f(max(h.induction[1]), 2)} | ${f(max(h.previousToken[0]), 2)} | ` +
        `${f(max(h.duplicateToken[0]), 2)}`,
    )
    tr.dispose()
  }
  console.log(`induction target met for ${inductionMet}/5 seeds`)
}
inductionSection()

console.log('\n## throughput (batch 32, Adam), steps/s and examples/s; held-out accuracy after the run')
console.log('task | rule | heads | dModel | layers | steps/s | examples/s | held-out acc after')
const cases = []
// The page's order: scaled-dot, the course's rule, first.
for (const score of ['scaled-dot', ...SCORE_RULES.filter((r) => r !== 'scaled-dot')])
  cases.push({ task: 'coreference', score })
cases.push({ task: 'coreference', heads: 4 })
if (!quick) {
  cases.push({ task: 'coreference', dModel: 64, heads: 4 })
  cases.push({ task: 'reverse' })
  cases.push({ task: 'next-char' })
  cases.push({ task: 'induction' })
}
for (const c of cases) {
  const r = throughput(c, quick ? 100 : 300)
  const info = create(c)
  const cfg = info.info.config
  info.dispose()
  console.log(
    `${c.task} | ${cfg.score} | ${cfg.heads} | ${cfg.dModel} | ${cfg.layers} | ${f(r.stepsPerSec, 0)} | ` +
      `${f(r.examplesPerSec, 0)} | ${f(r.held.accuracy * 100)} %`,
  )
}
