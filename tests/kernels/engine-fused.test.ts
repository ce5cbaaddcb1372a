// needWeights: false takes the fused (FlashAttention-style) kernel; its output must equal PyTorch
// within 1e-5 relative, with and without the causal mask, up to n = 300 (tests/fixtures/engine-fused.json).
import { describe, expect, it } from 'vitest'
import { SUMS, decodeInput, expectTensorClose, loadFixture, rng, ap, useEngine, itEachCase } from '../support/helpers'

const fx = loadFixture('engine-fused.json')

useEngine()

describe('attention({ needWeights: false }) reproduces PyTorch', () => {
  itEachCase(fx, (c) => {
    const r = ap.attention({ ...decodeInput(c.input, fx.tensors), needWeights: false })
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
    // the point of the path: no nq×nk matrix comes back (it was never built)
    expect(r.weights == null || r.weights.data.length === 0, 'weights returned on the fused path').toBe(true)
  })
})

describe('fused and materialized paths agree', () => {
  // sizes that are not multiples of any tile or SIMD width, so the kernel's edge handling runs
  const shapes: [number, number, number, number][] = [
    [1, 1, 1, 1],
    [3, 5, 7, 2],
    [129, 67, 33, 17],
    [250, 250, 64, 64],
    [1030, 1030, 64, 64],
  ]
  for (const [nq, nk, d, dv] of shapes) {
    for (const mask of ['none', 'causal'] as const) {
      it(`nq=${nq} nk=${nk} d=${d} dv=${dv} ${mask}`, () => {
        const g = rng(nq * 1000 + nk + (mask === 'causal' ? 7 : 0))
        const base = { query: g.tensor([nq, d]), key: g.tensor([nk, d]), value: g.tensor([nk, dv]), mask }
        const full = ap.attention(base)
        const fused = ap.attention({ ...base, needWeights: false })
        expectTensorClose(fused.output, full.output, 'fused vs materialized output', SUMS)
      })
    }
  }
})

// The fused kernel covers dot / scaled-dot with no or causal mask; other requests with
// needWeights: false must still give the materialized answer, never a wrong one or an error.
describe("needWeights: false outside the fused kernel's cases", () => {
  const g = rng(77)
  const query = g.tensor([5, 4]),
    key = g.tensor([6, 4]),
    value = g.tensor([6, 3])
  const variants: [string, object][] = [
    ['general', { score: 'general', params: { W: g.tensor([4, 4], 0.5) } }],
    ['additive', { score: 'additive', params: { Wq: g.tensor([3, 4]), Wk: g.tensor([3, 4]), v: g.tensor([3]) } }],
    ['keyPadding', { mask: { keyPadding: [true, false, false, true, false, false] } }],
    [
      'matrix with a fully masked row',
      { mask: { matrix: Uint8Array.from({ length: 30 }, (_, i) => ((i >= 6 && i < 12) || i % 7 === 0 ? 1 : 0)) } },
    ],
    ['temperature 3, scale 0.2', { temperature: 3, scale: 0.2 }],
    ['batch', { query: g.tensor([2, 5, 4]), key: g.tensor([2, 6, 4]), value: g.tensor([2, 6, 3]), mask: 'causal' }],
  ]
  for (const [name, extra] of variants) {
    it(name, () => {
      const base = { query, key, value, ...extra }
      const full = ap.attention(base)
      const fused = ap.attention({ ...base, needWeights: false })
      expectTensorClose(fused.output, full.output, 'needWeights false vs true', SUMS)
    })
  }
})
