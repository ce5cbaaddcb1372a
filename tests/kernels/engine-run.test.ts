import { STEP_NAMES } from '../../dist/index.js'
// ap.run against PyTorch: the course's seed program and its variations (tests/fixtures/engine-run.json,
// written by tests/fixtures/gen_fixtures.py with torch 1.13).
import { describe, expect, it } from 'vitest'
import {
  ap,
  decodeInput,
  isTensorJson,
  itEachCase,
  loadFixture,
  useEngine,
  type FixtureJson,
  type Tensor,
} from '../support/helpers'
import { expectTensorClose, maskedRowList, shapeOf, SUMS, tolFor } from '../support/helpers'

const fx = loadFixture('engine-run.json')
const STEPS = STEP_NAMES

useEngine()

describe('run() reproduces PyTorch', () => {
  itEachCase(fx, (c) => {
    const t = ap.run(decodeInput(c.options))
    const e = c.expected
    expect(t.tokens, 'tokens').toEqual(e.tokens)
    expect(Array.from(t.tokenIds), 'tokenIds').toEqual(e.tokenIds)
    expect(t.vocab, 'vocab').toEqual(e.vocab)
    for (const step of STEPS) expectTensorClose(t[step], e[step], step, tolFor(step))
    if (e.sourceTokens) {
      expect(t.sourceTokens, 'sourceTokens').toEqual(e.sourceTokens)
      expect(Array.from(t.sourceTokenIds ?? []), 'sourceTokenIds').toEqual(e.sourceTokenIds)
      expectTensorClose(t.sourceEmbeddings, e.sourceEmbeddings, 'sourceEmbeddings', SUMS)
    }
    expect(maskedRowList(t.maskedRows), 'maskedRows').toEqual(e.maskedRows)
    // rows with every key masked: exactly 0 in every head's weights and in the output, not ~0
    const [nq, nk] = shapeOf(t.weights).slice(-2)
    const dv = shapeOf(t.output)[1]
    for (const i of e.maskedRows as number[]) {
      for (let h = 0; h < t.weights.data.length / (nq * nk); h++) {
        for (let j = 0; j < nk; j++)
          expect(Object.is(t.weights.data[(h * nq + i) * nk + j], 0), `weights row ${i}`).toBe(true)
      }
      for (let j = 0; j < dv; j++) expect(Object.is(t.output.data[i * dv + j], 0), `output row ${i}`).toBe(true)
    }
  })
})

// The rule's parameters are drawn after Wv (docs/design.md); the trace must show the ones it used.
// Their layout per head is not fixed by the contract, so accept an array of per-head objects, a
// single object when heads = 1, or per-key tensors stacked over heads.
function paramFor(tp: FixtureJson, heads: number, h: number, key: string): Tensor | undefined {
  if (Array.isArray(tp)) return tp[h]?.[key]
  if (heads === 1) return tp?.[key]
  const stacked = tp?.[key]
  if (!stacked) return undefined
  const per = stacked.data.length / heads
  return { shape: shapeOf(stacked).slice(1), data: stacked.data.subarray(h * per, (h + 1) * per) }
}

describe('run() exposes the rule parameters it drew (trace.params)', () => {
  for (const c of fx.cases.filter((c: FixtureJson) =>
    c.expected.params?.some((p: FixtureJson) => Object.keys(p).length),
  )) {
    it(c.name, () => {
      const t = ap.run(decodeInput(c.options))
      const heads = c.options.heads ?? 1
      expect(t.params, 'trace.params').toBeTruthy()
      c.expected.params.forEach((p: FixtureJson, h: number) => {
        for (const [key, val] of Object.entries(p)) {
          if (!isTensorJson(val)) continue
          const actual = paramFor(t.params, heads, h, key)
          expect(actual, `params head ${h} ${key} (trace.params keys: ${Object.keys(t.params ?? {})})`).toBeTruthy()
          // v is a vector [h]; accept [h] or [1, h]
          const a = key === 'v' && shapeOf(actual).length === 2 ? { ...actual!, shape: [shapeOf(actual)[1]] } : actual
          expectTensorClose(a, val, `params head ${h} ${key}`)
        }
      })
    })
  }
})

// The course program's options, written out here (not read from the engine) so the defaults are checked.
const COURSE_TEXT = { text: 'this is my cat', tokenizer: 'word-sorted', score: 'scaled-dot', mask: 'none' } as const
const COURSE_OPTIONS = { ...COURSE_TEXT, dModel: 16, dq: 24, dk: 24, dv: 28, seed: 123, temperature: 1 }

describe('run() bookkeeping', () => {
  it('defaults are the course program: run({}) equals the explicit options', () => {
    const a = ap.run({})
    const b = ap.run({ ...COURSE_OPTIONS, heads: 1 })
    for (const step of STEPS) expect(Array.from(a[step].data), step).toEqual(Array.from(b[step].data))
  })

  it('the trace reports the scale multiplier it applied (1/√(dk/heads) by default)', () => {
    expect(ap.run({}).scale).toBeCloseTo(1 / Math.sqrt(24), 7)
    expect(ap.run({ heads: 2 }).scale).toBeCloseTo(1 / Math.sqrt(12), 7)
    expect(ap.run({ scale: false }).scale).toBe(1)
    expect(ap.run({ scale: 0.05 }).scale).toBeCloseTo(0.05, 7)
    expect(ap.run({ score: 'general' }).scale).toBe(1)
  })

  it('the trace carries the resolved options (docs/design.md: trace.options)', () => {
    const t = ap.run({ heads: 2 })
    expect(t.options, 'trace.options is missing').toBeTruthy()
    expect(t.options).toMatchObject({ ...COURSE_OPTIONS, heads: 2 })
  })

  it('the same options twice give identical numbers (one generator per call, seeded)', () => {
    const opts = { text: 'the cat sat on the mat', seed: 9, score: 'additive' as const, heads: 2 }
    const a = ap.run(opts)
    const b = ap.run(opts)
    expect(Array.from(a.output.data)).toEqual(Array.from(b.output.data))
  })

  it('a different seed changes the embeddings', () => {
    const a = ap.run({ seed: 1 })
    const b = ap.run({ seed: 2 })
    expect(Array.from(a.embeddings.data)).not.toEqual(Array.from(b.embeddings.data))
  })

  it('returned tensors are copies: editing one does not change the next run', () => {
    const a = ap.run({})
    const before = a.output.data[0]
    a.output.data.fill(42)
    a.embeddings.data.fill(42)
    const b = ap.run({})
    expect(b.output.data[0]).toBe(before)
  })

  it('editing a cell through the overrides recomputes everything downstream', () => {
    const base = ap.run({})
    const emb = { data: Float32Array.from(base.embeddings.data), shape: shapeOf(base.embeddings) }
    emb.data[0] += 1
    const t = ap.run({ embeddings: emb })
    // overriding the embeddings must not shift the random draws that follow them
    expect(Array.from(t.Wq.data), 'Wq after an embeddings override').toEqual(Array.from(base.Wq.data))
    // row 0 of Q changes by exactly Wq's row 0 (Q = E·Wq); the other rows stay
    const dq = shapeOf(t.Q)[1]
    for (let j = 0; j < dq; j++) {
      expect(t.Q.data[j] - base.Q.data[j]).toBeCloseTo(base.Wq.data[j], 4)
      expect(t.Q.data[dq + j]).toBe(base.Q.data[dq + j])
    }
    expect(Array.from(t.output.data)).not.toEqual(Array.from(base.output.data))
  })
})
