// ap.attention against PyTorch: every scoring rule, mask, temperature, scale, batch and cross shape
// (tests/fixtures/engine-attention.json). The concat cases go through the seq2seq lesson's Attn class.
import { describe, expect, it } from 'vitest'
import { ap, decodeInput, itEachCase, loadFixture, useEngine, type FixtureJson, type Tensor } from '../support/helpers'
import { EXACT, expectTensorClose, maskedRowList, shapeOf, SUMS, TIGHT } from '../support/helpers'

const fx = loadFixture('engine-attention.json')

useEngine()

function rowsOf(t: { shape?: readonly number[] } | undefined): { nRows: number; width: number } {
  const s = shapeOf(t)
  return { nRows: s.slice(0, -1).reduce((a, b) => a * b, 1), width: s[s.length - 1] }
}

describe('attention() reproduces PyTorch', () => {
  itEachCase(fx, (c) => {
    const r = ap.attention({ ...decodeInput(c.input, fx.tensors), needScores: true })
    const e = c.expected
    // scores here are the raw rule scores, before the scale
    expectTensorClose(r.scores, e.scores, 'scores', SUMS)
    expectTensorClose(r.weights, e.weights, 'weights')
    expectTensorClose(r.output, e.output, 'output', SUMS)
    if (e.context) expectTensorClose(r.context, e.context, 'context', SUMS)
    const batched = Array.isArray(e.maskedRows[0])
    if (batched) {
      // one list per batch item; accepted flat too when no row is masked anywhere
      const none = e.maskedRows.every((m: number[]) => m.length === 0)
      const got =
        Array.isArray(r.maskedRows?.[0]) || ArrayBuffer.isView(r.maskedRows?.[0])
          ? r.maskedRows.map(maskedRowList)
          : maskedRowList(r.maskedRows)
      if (none && !Array.isArray(got[0])) expect(got).toEqual([])
      else expect(got).toEqual(e.maskedRows)
    } else {
      expect(maskedRowList(r.maskedRows), 'maskedRows').toEqual(e.maskedRows)
    }
  })
})

describe('fully masked rows are exactly zero, never NaN', () => {
  for (const c of fx.cases.filter(
    (c: FixtureJson) => c.expected.maskedRows.length && !Array.isArray(c.expected.maskedRows[0]),
  )) {
    it(c.name, () => {
      const r = ap.attention({ ...decodeInput(c.input, fx.tensors), needScores: true })
      const w = rowsOf(r.weights)
      const o = rowsOf(r.output)
      for (const i of c.expected.maskedRows as number[]) {
        for (let j = 0; j < w.width; j++)
          expect(Object.is(r.weights!.data[i * w.width + j], 0), `weights[${i}, ${j}]`).toBe(true)
        if (!c.expected.context) {
          for (let j = 0; j < o.width; j++)
            expect(Object.is(r.output.data[i * o.width + j], 0), `output[${i}, ${j}]`).toBe(true)
        }
      }
      for (const x of r.weights!.data) expect(Number.isNaN(x)).toBe(false)
      for (const x of r.output.data) expect(Number.isNaN(x)).toBe(false)
    })
  }
})

describe('attention() options', () => {
  const t = (name: string) => decodeInput(`$${name}`, fx.tensors)

  it('scale false equals scale 1, and dot equals scaled-dot with scale false', () => {
    const base = { query: t('q5x6'), key: t('k5x6'), value: t('v5x7') }
    const a = ap.attention({ ...base, score: 'scaled-dot', scale: false })
    const b = ap.attention({ ...base, score: 'scaled-dot', scale: 1 })
    const c = ap.attention({ ...base, score: 'dot' })
    expectTensorClose(a.weights, b.weights, 'scale false vs 1', EXACT)
    expectTensorClose(c.output, a.output, 'dot vs scaled-dot with scale off', TIGHT)
  })

  it('a 2-D mask matrix of zeros changes nothing', () => {
    const base = { query: t('q5x6'), key: t('k9x6'), value: t('v9x3') }
    const a = ap.attention(base)
    const b = ap.attention({ ...base, mask: { matrix: new Uint8Array(5 * 9) } })
    expectTensorClose(b.output, a.output, 'zero matrix mask', EXACT)
  })

  it('keyPadding equals the matching matrix mask', () => {
    const base = { query: t('q5x6'), key: t('k9x6'), value: t('v9x3') }
    const pad = [false, true, false, false, true, true, false, false, true]
    const matrix = new Uint8Array(5 * 9)
    for (let i = 0; i < 5; i++) for (let j = 0; j < 9; j++) matrix[i * 9 + j] = pad[j] ? 1 : 0
    const a = ap.attention({ ...base, mask: { keyPadding: pad } })
    const b = ap.attention({ ...base, mask: { matrix } })
    expectTensorClose(a.weights, b.weights, 'keyPadding vs matrix', EXACT)
  })

  it('each batch item equals the same item run alone', () => {
    const q = t('qb'),
      k = t('kb'),
      v = t('vb')
    const all = ap.attention({ query: q, key: k, value: v, mask: 'causal' })
    const slice = (x: Tensor, i: number) => {
      const [, n, d] = shapeOf(x)
      return { data: x.data.slice(i * n * d, (i + 1) * n * d), shape: [n, d] }
    }
    const [, nq, dv] = shapeOf(all.output)
    for (let i = 0; i < 3; i++) {
      const one = ap.attention({ query: slice(q, i), key: slice(k, i), value: slice(v, i), mask: 'causal' })
      const part = { data: all.output.data.slice(i * nq * dv, (i + 1) * nq * dv), shape: [nq, dv] }
      expectTensorClose(one.output, part, `batch item ${i}`, TIGHT)
    }
  })
})
