// ap.projections: run()'s pipeline up to Q, K, V and nothing after. Its Q, K, V (and tokens, embeddings, W_q,
// W_k, W_v, the rule's parameters, the scale) are run()'s bit for bit on every case of the PyTorch fixture
// tests/fixtures/engine-run.json (gen_fixtures.py, torch 1.13), and PyTorch's within the fixtures' tolerance.
import { describe, expect, it } from 'vitest'
import { POSITION_ENCODINGS, type ProjectionsOptions, type RunOptions } from '../../dist/index.js'
import {
  ap,
  decodeInput,
  EXACT,
  expectTensorClose,
  itEachCase,
  loadFixture,
  shapeOf,
  SUMS,
  useEngine,
  type FixtureJson,
} from '../support/helpers'

const fx = loadFixture('engine-run.json')
const FRONT = ['embeddings', 'Wq', 'Wk', 'Wv', 'Q', 'K', 'V'] as const
const ATTENTION_STEPS = ['scores', 'scaledScores', 'maskedScores', 'weights', 'output', 'maskedRows']

useEngine()

/** run()'s options without those of attention alone (projections refuses them). */
function front(options: RunOptions): ProjectionsOptions {
  const rest: RunOptions = { ...options }
  delete rest.mask
  delete rest.temperature
  return rest
}

describe('projections() equals run() and PyTorch', () => {
  itEachCase(fx, (c: FixtureJson) => {
    const options = decodeInput(c.options) as RunOptions
    const t = ap.run(options)
    const p = ap.projections(front(options))
    for (const k of FRONT) {
      expectTensorClose(p[k], t[k], `${k} = run()'s`, EXACT)
      expectTensorClose(p[k], c.expected[k], `${k} = PyTorch's`, SUMS)
    }
    expect(p.tokens).toEqual(t.tokens)
    expect(p.tokenIds).toEqual(t.tokenIds)
    expect(p.vocab).toEqual(t.vocab)
    expect(p.sourceTokens).toEqual(t.sourceTokens)
    if (t.sourceEmbeddings) expectTensorClose(p.sourceEmbeddings, t.sourceEmbeddings, 'sourceEmbeddings', EXACT)
    expect(p.scale).toBe(t.scale)
    expect(p.heads).toBe(t.heads)
    expect(p.params).toEqual(t.params)
    expect(p.selfAttention).toBe(t.selfAttention)
    for (const k of ATTENTION_STEPS) expect(k in p, k).toBe(false)
  })

  it('the fixture has cross, multi-head and every rule among its cases', () => {
    const opts = fx.cases.map((c: FixtureJson) => c.options)
    expect(opts.some((o: FixtureJson) => o.source !== undefined)).toBe(true)
    expect(opts.some((o: FixtureJson) => (o.heads ?? 1) > 1)).toBe(true)
    for (const s of ['dot', 'general', 'additive', 'concat'])
      expect(
        opts.some((o: FixtureJson) => o.score === s),
        s,
      ).toBe(true)
  })
})

describe('projections() with each position encoding', () => {
  it.each(POSITION_ENCODINGS)("%s: Q, K, V and the position table are run()'s", (positions) => {
    const options = { text: 'the cat sat on the mat', tokenizer: 'word', heads: 2, positions } as const
    const t = ap.run(options)
    const p = ap.projections(options)
    for (const k of FRONT) expectTensorClose(p[k], t[k], `${k} = run()'s`, EXACT)
    if (t.positions) expectTensorClose(p.positions, t.positions, 'positions', EXACT)
    else expect(p.positions).toBeUndefined()
    expect(p.scale).toBe(t.scale)
    for (const k of ['rotatedQ', 'rotatedK', 'positionBias']) expect(k in p, k).toBe(false)
  })
})

describe('projections() on a long text', () => {
  it('builds nothing n × n: 4,000 tokens with additive, where run() is over its work limit', () => {
    const text = Array.from({ length: 4000 }, (_, i) => `w${i % 500}`).join(' ')
    const options = { text, tokenizer: 'word', score: 'additive', dModel: 8, dq: 16, dk: 16, dv: 8 } as const
    expect(() => ap.run(options)).toThrow(/additive/)
    const p = ap.projections(options)
    expect(shapeOf(p.Q)).toEqual([4000, 16])
    expect(shapeOf(p.K)).toEqual([4000, 16])
    expect(shapeOf(p.V)).toEqual([4000, 8])
    // The same word has the same embedding and so the same rows of Q, K and V wherever it stands.
    for (const m of [p.Q, p.K, p.V]) {
      const d = m.shape[1]
      expect(Array.from(m.data.subarray(0, d))).toEqual(Array.from(m.data.subarray(500 * d, 501 * d)))
    }
  })

  it('edits override the draws as in run()', () => {
    const base = ap.projections({})
    const Wq = { data: base.Wq.data.map((x) => 2 * x), shape: base.Wq.shape }
    const p = ap.projections({ Wq })
    const t = ap.run({ Wq })
    expectTensorClose(p.Q, t.Q, 'Q with an edited Wq', EXACT)
    expectTensorClose(p.K, base.K, 'K unchanged', EXACT)
  })
})
