#!/usr/bin/env node
// The Train tab's task `poems` (issue 37 item 6) in Node, one thread: milliseconds per optimizer step of the default
// shape (2 layers × 4 heads × d 64, context 64, batch 32: ap.createTrainer({ task: 'poems' })'s defaults), the
// median of --rounds rounds of --steps steps each, and the time to the target: the default run (500 steps, cosine
// to lr/10 at step 500) evaluated every --every steps until the validation loss is ≤ 4.9 and ≥ 90 % of 250 sampled
// poems keep the form (the sample's measurement: the prompt is the first character of validation poem i,
// temperature 0.8, seed 1 + i; scripts/poem-form.mjs's keepsForm). Time in step() is "training"; the checks are
// reported apart. Not run by the tests.
//
// Usage: USAGE below (node:util parseArgs through bench/inputs.mjs cli: an unknown option stops with the usage line).
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { formShare, POEMS_TARGET as TARGET, poemStarts } from '../scripts/poem-form.mjs'
import { cli, median } from './inputs.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const USAGE =
  'node bench/poems_train_bench.mjs [--dist DIR] [--rounds 5] [--steps 10] [--target] [--every 100] [--max-steps 500] [--relaxed]'
const args = cli(
  {
    dist: { type: 'string', default: join(here, '..', 'dist') },
    rounds: { type: 'string', default: '5' },
    steps: { type: 'string', default: '10' },
    target: { type: 'boolean', default: false },
    every: { type: 'string', default: '100' },
    'max-steps': { type: 'string', default: '500' },
    relaxed: { type: 'boolean', default: false },
  },
  USAGE,
)
const dist = resolve(args.dist)
const rounds = Number(args.rounds)
const perRound = Number(args.steps)
const every = Number(args.every)
const maxSteps = Number(args['max-steps'])

const { init } = await import(pathToFileURL(join(dist, 'index.js')).href)
const relaxed = args.relaxed
const wasm = readFileSync(join(dist, relaxed ? 'attention-relaxed.wasm' : 'attention.wasm'))
const ap = await init({ wasmBinary: wasm, backend: relaxed ? 'relaxed-simd' : 'simd128' })

const poems = join(here, '..', 'public', 'poems')
const vocab = JSON.parse(readFileSync(join(poems, 'vocab.json'), 'utf8'))
const index = new Map(vocab.map((c, i) => [c, i]))
const encode = (name) => Uint16Array.from(Array.from(readFileSync(join(poems, name), 'utf8'), (c) => index.get(c)))
const train = encode('train.txt')
const validation = encode('validation.txt')
const create = () => ap.createTrainer({ task: 'poems', vocab, train, validation })

function perStep() {
  const tr = create()
  tr.step(2) // warm the tiers up
  const ms = []
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now()
    tr.step(perRound)
    ms.push((performance.now() - t0) / perRound)
  }
  tr.dispose()
  return ms
}

/** The form share of TARGET.samples poems and the validation loss: what the integration test checks. */
function measure(tr) {
  const loss = tr.evaluate().loss
  const written = poemStarts(validation, TARGET.samples).map(
    (id, i) => vocab[id] + (tr.sample({ prompt: [id], temperature: TARGET.temperature, seed: 1 + i }).text ?? ''),
  )
  return { loss, form: formShare(written).share }
}

function toTarget() {
  const tr = create()
  let trainMs = 0
  let checkMs = 0
  const rows = []
  let reached = null
  while (tr.steps < maxSteps) {
    const t0 = performance.now()
    tr.step(Math.min(every, maxSteps - tr.steps))
    trainMs += performance.now() - t0
    const t1 = performance.now()
    const m = measure(tr)
    checkMs += performance.now() - t1
    rows.push({ step: tr.steps, valLoss: +m.loss.toFixed(4), form: m.form, trainSeconds: +(trainMs / 1000).toFixed(1) })
    console.log(JSON.stringify(rows.at(-1)))
    if (!reached && m.loss <= TARGET.valLoss && m.form >= TARGET.form) reached = rows.at(-1)
  }
  tr.dispose()
  return { rows, reached, checkSeconds: +(checkMs / 1000).toFixed(1) }
}

const ms = perStep()
console.log(
  JSON.stringify({
    bench: 'poems_train',
    backend: ap.backend,
    shape: '2 x 4 x d64, context 64, batch 32',
    msPerStep: +median(ms).toFixed(1),
    rounds: ms.map((x) => +x.toFixed(1)),
  }),
)
if (args.target) console.log(JSON.stringify({ target: TARGET, ...toTarget() }))
