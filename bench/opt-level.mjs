#!/usr/bin/env node
// Two builds of the package side by side (e.g. the SIMD128 engine with its core at -Os around -O3 kernels,
// and the same all at -O3): the .wasm sizes by gzip -9, and the time of what the page and the package call —
// ap.run at the page's sizes, attention with and without the weights, the backward pass, training steps, the
// language model (loading the poems sample, 48 characters). First, whether each case gives the same bits in both
// builds (a flag that changes only size or speed must not change a result). In each round every case runs on A,
// then on B, then B, then A, so load from other processes falls on both alike; the medians over the rounds are
// printed, with B ÷ A.
//   node bench/opt-level.mjs DIST_A DIST_B [rounds]      (each DIST a folder like dist/: index.js, attention.*)
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { createHash } from 'node:crypto'
import { cli, rand } from './inputs.mjs'

const USAGE = 'node bench/opt-level.mjs DIST_A DIST_B [rounds]'
const [dirA, dirB, roundsArg] = cli({}, USAGE, 3)._
if (!dirA || !dirB) throw new Error(`usage: ${USAGE}`)
const rounds = Number(roundsArg ?? 15)

async function load(dir) {
  const bytes = readFileSync(join(dir, 'attention.wasm'))
  const { init } = await import(pathToFileURL(join(resolve(dir), 'index.js')).href)
  const ap = await init({ backend: 'simd128' })
  return { dir, ap, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
}

const t = (n, d, seed) => ({ data: rand(n * d, seed), shape: [n, d] })
const WORDS = 'the animal did not cross the street because it was too tired and the cat sat on a mat'.split(' ')
const text = (n) => Array.from({ length: n }, (_, i) => WORDS[(i * 7) % WORDS.length]).join(' ')

/**
 * Each case: a name, how many calls make one timing, and the call (given the engine and a per-engine state).
 * @type {Array<[string, number, (ap: any, s: any) => any]>}
 */
const CASES = [
  ['run, course preset (n = 4)', 200, (ap) => ap.run({})],
  [
    'run, 32 words, 2 heads, causal',
    20,
    (ap) => ap.run({ text: text(32), tokenizer: 'word', heads: 2, mask: 'causal' }),
  ],
  ['run, 128 words', 4, (ap) => ap.run({ text: text(128), tokenizer: 'word' })],
  ['run, 128 words, additive', 2, (ap) => ap.run({ text: text(128), tokenizer: 'word', score: 'additive' })],
  [
    'attention n = 256, d = 64, needWeights',
    10,
    (ap, s) => ap.attention({ query: s.q256, key: s.k256, value: s.v256, needWeights: true }),
  ],
  [
    'attention n = 1024, d = 64',
    2,
    (ap, s) => ap.attention({ query: s.q1024, key: s.k1024, value: s.v1024, needWeights: false }),
  ],
  [
    'attentionBackward n = 128, d = 64',
    10,
    (ap, s) => ap.attentionBackward({ query: s.q128, key: s.k128, value: s.v128, gradOutput: s.g128 }),
  ],
  ['trainer: 5 steps (coreference)', 1, (ap, s) => s.trainer.step(5)],
  ['language model: load the poems sample', 1, (ap) => ap.loadLanguageModel(POEMS)],
  [
    'language model: 48 characters (KV cache)',
    1,
    (ap, s) => s.lm.generate({ prompt: '床前明月光，', maxTokens: 48, temperature: 0.8, topK: 40, seed: 1 }),
  ],
]
const POEMS = readFileSync(new URL('../public/samples/poems.safetensors', import.meta.url))

function state(ap) {
  return {
    q256: t(256, 64, 1),
    k256: t(256, 64, 2),
    v256: t(256, 64, 3),
    q1024: t(1024, 64, 4),
    k1024: t(1024, 64, 5),
    v1024: t(1024, 64, 6),
    q128: t(128, 64, 7),
    k128: t(128, 64, 8),
    v128: t(128, 64, 9),
    g128: t(128, 64, 10),
    trainer: ap.createTrainer({ task: 'coreference', seed: 1 }),
    lm: ap.loadLanguageModel(POEMS),
  }
}

function time(engine, st, [, reps, call]) {
  const t0 = performance.now()
  for (let i = 0; i < reps; i++) {
    const r = call(engine.ap, st)
    if (r && typeof r.dispose === 'function') r.dispose()
  }
  return (performance.now() - t0) / reps
}

/** A hash of every number, string and typed array's bytes in a result (objects by sorted keys). */
function digest(x, h = createHash('sha256')) {
  if (ArrayBuffer.isView(x)) h.update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength))
  else if (Array.isArray(x)) for (const v of x) digest(v, h.update('['))
  else if (x && typeof x === 'object') for (const k of Object.keys(x).sort()) digest(x[k], h.update(k))
  else if (typeof x === 'number') h.update(new Uint8Array(new Float64Array([x]).buffer))
  else if (typeof x !== 'function') h.update(String(x))
  return h
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
const A = await load(dirA)
const B = await load(dirB)
// Same bits from both builds (flags that change only size or speed must not change a result): each case's result
// on a fresh state, and a fresh trainer's parameters after its steps.
const differ = CASES.filter(([, , call]) => {
  const [a, b] = [A, B].map((e) => {
    const st = state(e.ap)
    const r = call(e.ap, st)
    const out = digest([r?.dispose ? r.parameters() : r, st.trainer.parameters()]).digest('hex')
    r?.dispose?.()
    st.trainer.dispose()
    st.lm.dispose()
    return out
  })
  return a !== b
}).map(([name]) => name)
console.log(
  differ.length
    ? `results DIFFER between A and B: ${differ.join('; ')}`
    : 'results: A and B bit-identical in every case',
)
const sA = state(A.ap)
const sB = state(B.ap)
for (const c of CASES) {
  time(A, sA, c) // warm up both
  time(B, sB, c)
}
const ms = CASES.map(() => ({ a: [], b: [] }))
for (let r = 0; r < rounds; r++) {
  CASES.forEach((c, i) => {
    const order = r % 2 === 0 ? ['a', 'b', 'b', 'a'] : ['b', 'a', 'a', 'b']
    const got = { a: [], b: [] }
    for (const k of order) got[k].push(time(k === 'a' ? A : B, k === 'a' ? sA : sB, c))
    ms[i].a.push((got.a[0] + got.a[1]) / 2)
    ms[i].b.push((got.b[0] + got.b[1]) / 2)
  })
}
console.log(`A = ${A.dir}: .wasm ${A.raw} bytes, gzip -9 ${A.gzip}`)
console.log(`B = ${B.dir}: .wasm ${B.raw} bytes, gzip -9 ${B.gzip} (B − A: ${B.gzip - A.gzip} gzipped)`)
console.log(`medians over ${rounds} rounds (ms per call):`)
CASES.forEach(([name], i) => {
  const a = median(ms[i].a)
  const b = median(ms[i].b)
  console.log(
    `  ${name.padEnd(42)} A ${a.toFixed(3).padStart(8)}  B ${b.toFixed(3).padStart(8)}  B÷A ${(b / a).toFixed(2)}`,
  )
})
