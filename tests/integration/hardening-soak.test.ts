// No leaks: 10,000 mixed calls of run / attention / multiHeadAttention / tokenize —
// good inputs and bad ones, since error paths (an exception thrown half-way through decoding a Tensor,
// an embind value dropped on the floor) are where wasm modules usually leak — on a wasm instance of
// its own. malloc's bytes in use (memoryStats().allocatedBytes) must come back to exactly their value
// after a warm-up, checked every 1,000 calls, and the wasm heap (heapBytes) must not grow after the
// warm-up: the calls are no bigger than the warm-up's, so any growth is memory that was not returned.
//
// Not a timed test: it only counts bytes.
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { SCORE_RULES as SCORES, TOKENIZER_NAMES as TOKENIZERS, init } from '../../dist/index.js'
import { rng, type Engine, type Tensor } from '../support/helpers'

const wasmBinary = readFileSync(new URL('../../dist/attention.wasm', import.meta.url))

let ap: Engine
beforeAll(async () => {
  // A separate instance (its own memory), so no other test's allocations are counted.
  ap = await init({ wasmBinary })
})

const g = rng(7)
const T = (...shape: number[]): Tensor => g.tensor(shape)
const TEXTS = ['this is my cat', '我爱中国', "The animal didn't cross the street because it was too tired", 'a b a b a']

function paramsFor(score: string, dq: number, dk: number, nk: number) {
  if (score === 'general') return { W: T(dq, dk) }
  if (score === 'additive') return { Wq: T(5, dq), Wk: T(5, dk), v: T(5) }
  if (score === 'concat') return { W: T(nk, dq + dk), b: T(nk) }
  return undefined
}

// One call of the mix; i picks the kind so every kind runs 2,500 times, a sixth of them bad input.
function call(i: number): 'ok' | 'error' {
  const kind = i % 4
  const bad = i % 6 === 5
  try {
    if (kind === 0) {
      const score = SCORES[i % SCORES.length]
      ap.run({
        text: bad ? '' : TEXTS[i % TEXTS.length],
        tokenizer: TOKENIZERS[(i >> 2) % 4],
        score,
        dq: 8,
        dk: 8,
        dv: 6,
        dModel: 4 + (i % 3),
        heads: (i >> 3) % 2 === 0 ? 1 : 2,
        mask: (i >> 4) % 2 === 0 ? 'causal' : 'none',
        seed: i,
      })
    } else if (kind === 1) {
      const nq = 2 + (i % 5),
        nk = 3 + (i % 4),
        d = 4
      const score = SCORES[(i >> 2) % SCORES.length]
      const n = score === 'concat' ? nk : nq
      const query = T(n, d)
      if (bad) query.data[0] = NaN
      ap.attention({
        query,
        key: T(nk, d),
        value: T(nk, 3),
        score,
        params: paramsFor(score, d, d, nk),
        mask: (i >> 3) % 3 === 0 ? { keyPadding: Array.from({ length: nk }, (_, j) => j === 0) } : 'none',
        needWeights: (i >> 5) % 4 !== 0,
      })
    } else if (kind === 2) {
      const E = 8
      ap.multiHeadAttention({
        query: T(3, E),
        key: T(4, E),
        value: T(4, E),
        numHeads: bad ? 3 : 2,
        inProjWeight: T(3 * E, E),
        inProjBias: T(3 * E),
        outProjWeight: T(E, E),
        outProjBias: T(E),
        causal: i % 8 === 2,
      })
    } else {
      ap.tokenize(bad ? ' \u3000 ' : TEXTS[i % TEXTS.length], TOKENIZERS[(i >> 2) % 4], { bpeMerges: 8 + (i % 5) })
    }
    return 'ok'
  } catch (e) {
    if (!bad) throw e
    expect((e as Error).name).toBe('AttentionError')
    return 'error'
  }
}

describe('soak: the wasm heap returns to its starting size', () => {
  it('10,000 mixed calls (a sixth of them bad input) leave allocatedBytes and heapBytes where they were', () => {
    // Warm-up: one pass of every variant, so one-time allocations (static tables, the built-in BPE
    // corpus, malloc's own bookkeeping, heap growth for the largest call) happen before the baseline.
    for (let i = 0; i < 480; i++) call(i)
    const start = ap.memoryStats()
    expect(start.allocatedBytes).toBeGreaterThan(0)
    const checkpoints: number[] = []
    let errors = 0
    for (let i = 0; i < 10_000; i++) {
      if (call(i) === 'error') errors++
      if ((i + 1) % 1000 === 0) checkpoints.push(ap.memoryStats().allocatedBytes)
    }
    const end = ap.memoryStats()
    expect(errors, 'the bad-input share of the mix really threw').toBeGreaterThan(1500)
    expect(checkpoints, 'allocatedBytes every 1,000 calls').toEqual(checkpoints.map(() => start.allocatedBytes))
    expect(end.allocatedBytes).toBe(start.allocatedBytes)
    expect(end.heapBytes, 'heapBytes after 10,000 calls').toBe(start.heapBytes)
    // And the instance still answers correctly.
    const t = ap.run({})
    expect(t.tokens).toEqual(['this', 'is', 'my', 'cat'])
  }, 600_000)

  // Guards the measurement itself: an object the engine really keeps (a C++ trainer handle that is not
  // deleted yet) must show in allocatedBytes, or the test above could not fail.
  it('allocatedBytes sees memory that stays allocated, and sees it returned', () => {
    const before = ap.memoryStats().allocatedBytes
    // The trainers live in their own module (dist/attention-train.wasm); memoryStats counts both.
    const Handle = ap.trainerModule?.TrainerHandle as new () => { delete(): void }
    expect(typeof Handle, 'the trainer module exports TrainerHandle').toBe('function')
    const h = new Handle()
    const held = ap.memoryStats().allocatedBytes
    expect(held).toBeGreaterThan(before)
    h.delete()
    expect(ap.memoryStats().allocatedBytes).toBe(before)
  })
})
