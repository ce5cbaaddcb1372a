// Numerical properties of attention that hold for any input: rows of weights sum to 1
// (or are all 0 when fully masked), permuting keys with their values changes nothing, scale 1/√dk is
// temperature √dk, causal weights above the diagonal are exactly 0, logits of ±1e30 give no NaN.
import { describe, expect, it } from 'vitest'
import { ap, decodeInput, itEachCase, loadFixture, rng, useEngine, type Tensor } from '../support/helpers'
import { expectTensorClose, maskedRowList, shapeOf, SUMS, TIGHT } from '../support/helpers'
import type { MaskSpec } from '../../dist/index.js'

useEngine()

const RULES = ['dot', 'scaled-dot', 'general', 'additive'] as const
function paramsFor(rule: string, g: ReturnType<typeof rng>, dq: number, dk: number) {
  if (rule === 'general') return { W: g.tensor([dq, dk], 0.5) }
  if (rule === 'additive') return { Wq: g.tensor([7, dq], 0.5), Wk: g.tensor([7, dk], 0.5), v: g.tensor([7]) }
  return undefined
}

// rows are the last axis; every leading axis (batch, head, query) is a row index
function rows(t: Tensor) {
  const s = shapeOf(t)
  const w = s[s.length - 1]
  const n = t.data.length / w
  return Array.from({ length: n }, (_, i) => t.data.subarray(i * w, (i + 1) * w))
}

describe('each weights row sums to 1, or is all 0 when its keys are all masked', () => {
  for (const rule of RULES) {
    for (const mask of ['none', 'causal', 'pad', 'matrix'] as const) {
      it(`${rule}, ${mask}`, () => {
        const g = rng(RULES.indexOf(rule) * 10 + ['none', 'causal', 'pad', 'matrix'].indexOf(mask))
        const nq = 6,
          nk = 9,
          dq = 5,
          dk = 5
        let m: MaskSpec = mask === 'none' || mask === 'causal' ? mask : 'none'
        const fully = new Set<number>()
        if (mask === 'pad') m = { keyPadding: Array.from({ length: nk }, (_, j) => j % 3 === 1) }
        if (mask === 'matrix') {
          const matrix = new Uint8Array(nq * nk)
          for (let i = 0; i < nq * nk; i++) matrix[i] = g.next() < 0.4 ? 1 : 0
          matrix.fill(1, 2 * nk, 3 * nk) // row 2 sees nothing
          fully.add(2)
          m = { matrix }
        }
        const r = ap.attention({
          query: g.tensor([nq, dq]),
          key: g.tensor([nk, dk]),
          value: g.tensor([nk, 4]),
          score: rule,
          mask: m,
          temperature: 0.8,
          params: paramsFor(rule, g, dq, dk),
        })
        rows(r.weights!).forEach((row, i) => {
          const sum = row.reduce((a, b) => a + b, 0)
          if (fully.has(i)) expect(Array.from(row), `row ${i}`).toEqual(new Array(nk).fill(0))
          else expect(Math.abs(sum - 1), `row ${i} sums to ${sum}`).toBeLessThanOrEqual(1e-6 * nk)
          for (const x of row) expect(x >= 0 && x <= 1, `weight ${x} in row ${i}`).toBe(true)
        })
        expect(maskedRowList(r.maskedRows)).toEqual([...fully])
      })
    }
  }

  it('multi-head run(): every head row sums to 1', () => {
    // dq = dk = 24 and dv = 28 split into four heads of 6, 6 and 7
    const t = ap.run({ heads: 4, mask: 'causal', score: 'general', text: 'a b c d e f g', dModel: 8 })
    for (const row of rows(t.weights))
      expect(Math.abs(row.reduce((a, b) => a + b, 0) - 1)).toBeLessThanOrEqual(1e-6 * 7)
  })
})

describe('permuting keys and values together leaves the output unchanged', () => {
  for (const rule of RULES) {
    it(rule, () => {
      const g = rng(100 + RULES.indexOf(rule))
      const nq = 5,
        nk = 11,
        d = 6,
        dv = 3
      const query = g.tensor([nq, d]),
        key = g.tensor([nk, d]),
        value = g.tensor([nk, dv])
      const perm = Array.from({ length: nk }, (_, i) => (i * 4 + 3) % nk) // a fixed derangement-ish permutation
      const permute = (t: Tensor, w: number): Tensor => {
        const data = new Float32Array(t.data.length)
        perm.forEach((src, dst) => data.set(t.data.subarray(src * w, (src + 1) * w), dst * w))
        return { data, shape: t.shape }
      }
      const params = paramsFor(rule, g, d, d)
      const a = ap.attention({ query, key, value, score: rule, params })
      const b = ap.attention({ query, key: permute(key, d), value: permute(value, dv), score: rule, params })
      expectTensorClose(b.output, a.output, 'output after the permutation', SUMS)
      // and the weights move with their keys
      for (let i = 0; i < nq; i++) {
        perm.forEach((src, dst) => expect(b.weights!.data[i * nk + dst]).toBeCloseTo(a.weights!.data[i * nk + src], 6))
      }
    })
  }

  it('with keyPadding permuted along', () => {
    const g = rng(7)
    const nk = 8
    const query = g.tensor([4, 5]),
      key = g.tensor([nk, 5]),
      value = g.tensor([nk, 2])
    const pad = [false, true, false, false, true, false, false, false]
    const perm = [7, 6, 5, 4, 3, 2, 1, 0]
    const permute = (t: Tensor, w: number): Tensor => {
      const data = new Float32Array(t.data.length)
      perm.forEach((src, dst) => data.set(t.data.subarray(src * w, (src + 1) * w), dst * w))
      return { data, shape: t.shape }
    }
    const a = ap.attention({ query, key, value, mask: { keyPadding: pad } })
    const b = ap.attention({
      query,
      key: permute(key, 5),
      value: permute(value, 2),
      mask: { keyPadding: perm.map((s) => pad[s]) },
    })
    expectTensorClose(b.output, a.output, 'output', SUMS)
  })
})

describe('scale 1/√dk equals temperature √dk with the scale off', () => {
  for (const dk of [1, 4, 24, 64]) {
    it(`dk = ${dk}`, () => {
      const g = rng(dk)
      const base = {
        query: g.tensor([7, dk]),
        key: g.tensor([9, dk]),
        value: g.tensor([9, 5]),
        score: 'scaled-dot' as const,
      }
      const a = ap.attention(base)
      const b = ap.attention({ ...base, scale: false, temperature: Math.sqrt(dk) })
      const c = ap.attention({ ...base, scale: 1 / Math.sqrt(dk) })
      expectTensorClose(b.weights, a.weights, 'weights', TIGHT)
      expectTensorClose(b.output, a.output, 'output', TIGHT)
      expectTensorClose(c.weights, a.weights, 'explicit 1/√dk vs default', TIGHT)
    })
  }

  it('in run(): trace with scale off and temperature √24 has the same weights', () => {
    const a = ap.run({})
    const b = ap.run({ scale: false, temperature: Math.sqrt(24) })
    expectTensorClose(b.weights, a.weights, 'weights', TIGHT)
    expectTensorClose(b.output, a.output, 'output', TIGHT)
  })
})

describe('causal weights above the diagonal are exactly 0', () => {
  const check = (w: Tensor, label: string) => {
    const s = shapeOf(w)
    const nk = s[s.length - 1],
      nq = s[s.length - 2]
    const blocks = w.data.length / (nq * nk)
    for (let b = 0; b < blocks; b++) {
      for (let i = 0; i < nq; i++) {
        for (let j = i + 1; j < nk; j++) {
          expect(
            Object.is(w.data[(b * nq + i) * nk + j], 0),
            `${label} block ${b} [${i}, ${j}] = ${w.data[(b * nq + i) * nk + j]}`,
          ).toBe(true)
        }
      }
    }
  }
  for (const rule of RULES) {
    it(`attention, ${rule}, self and cross (nq < nk), batch`, () => {
      const g = rng(200 + RULES.indexOf(rule))
      const p = paramsFor(rule, g, 4, 4)
      // q, k and v drawn in that order for each shape, so the inputs are those of the seed
      const causal = (q: number[], k: number[], v: number[]) =>
        ap.attention({
          query: g.tensor(q),
          key: g.tensor(k),
          value: g.tensor(v),
          score: rule,
          params: p,
          mask: 'causal',
        }).weights!
      check(causal([6, 4], [6, 4], [6, 3]), 'self')
      check(causal([4, 4], [10, 4], [10, 3]), 'cross')
      check(causal([2, 5, 4], [2, 5, 4], [2, 5, 3]), 'batch')
    })
  }
  it('even when the masked scores would dominate (huge values above the diagonal)', () => {
    const g = rng(5)
    const n = 5
    const key = g.tensor([n, 2])
    for (let j = 1; j < n; j++) {
      key.data[j * 2] = 1e6
      key.data[j * 2 + 1] = 1e6
    }
    const query: Tensor = { data: new Float32Array(n * 2).fill(1), shape: [n, 2] }
    check(ap.attention({ query, key, value: g.tensor([n, 3]), mask: 'causal', score: 'dot' }).weights!, 'dominant')
  })
  it('run(), concat, heads = 2; maskedScores are -Infinity there', () => {
    const t = ap.run({ mask: 'causal', score: 'concat', heads: 2 })
    check(t.weights, 'weights')
    const s = shapeOf(t.maskedScores)
    const n = s[s.length - 1]
    for (let b = 0; b < t.maskedScores.data.length / (n * n); b++) {
      for (let i = 0; i < n; i++)
        for (let j = i + 1; j < n; j++) expect(t.maskedScores.data[(b * n + i) * n + j]).toBe(-Infinity)
    }
  })
})

describe('logits of ±1e30 give finite weights (PyTorch fixture)', () => {
  const fx = loadFixture('engine-properties.json')
  itEachCase(fx, (c) => {
    const r = ap.attention(decodeInput(c.input, fx.tensors))
    for (const x of r.weights!.data) expect(Number.isNaN(x), 'NaN weight').toBe(false)
    for (const x of r.output.data) expect(Number.isFinite(x), `output ${x}`).toBe(true)
    expectTensorClose(r.weights, c.expected.weights, 'weights')
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
  })
  it('needWeights: false with logits of ±1e30', () => {
    const c = fx.cases[1]
    const r = ap.attention({ ...decodeInput(c.input, fx.tensors), needWeights: false })
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
  })
})
