// Task poems in a module Web Worker, as the Train tab's worker runs it (web/train/worker.ts: init(), then
// loadTrainer(), then ap.createTrainer({ task: 'poems', ... }) on the corpus read one code point at a time), without
// the panel around it: bench/poems_train_page.mjs calls `self.bench` through Playwright, a few steps per call.
import { init } from '../../dist/index.js'
import { POEMS_TARGET, poemStarts } from '../../scripts/poem-form.mjs'

const ap = await (await init()).loadTrainer()
const get = async (file) => {
  const r = await fetch(new URL(`../../public/poems/${file}`, import.meta.url))
  if (!r.ok) throw new Error(`${file}: HTTP ${r.status}`)
  return r.text()
}
const vocab = JSON.parse(await get('vocab.json'))
const index = new Map(vocab.map((c, i) => [c, i]))
const encode = (text) => Uint16Array.from(Array.from(text, (c) => index.get(c) ?? 3))
const train = encode(await get('train.txt'))
const validation = encode(await get('validation.txt'))
const firsts = poemStarts(validation)

let tr = null
self.bench = {
  backend: ap.backend,
  /** A fresh trainer with the panel's defaults (and `options`). */
  create(options = {}) {
    tr?.dispose()
    tr = ap.createTrainer({ task: 'poems', vocab, train, validation, ...options })
    return tr.config
  },
  /** n steps; the milliseconds they took, and the last loss. */
  step(n) {
    const t0 = performance.now()
    const { loss } = tr.step(n)
    return { ms: performance.now() - t0, loss, steps: tr.steps }
  },
  /** The validation loss on the first `limit` poems (0: all 902) and its milliseconds. */
  evaluate(limit) {
    const t0 = performance.now()
    const { loss } = tr.evaluate({ limit })
    return { ms: performance.now() - t0, loss }
  },
  /** What the model writes from validation poem i's first character, temperature 0.8, seed 1 + i, i in [from, to). */
  samples(from, to) {
    const out = []
    for (let i = from; i < to; i++) {
      const s = tr.sample({ prompt: [firsts[i]], temperature: POEMS_TARGET.temperature, seed: 1 + i })
      out.push(vocab[firsts[i]] + (s.text ?? ''))
    }
    return out
  },
}
self.postMessage('ready')
