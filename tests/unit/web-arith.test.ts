// The arithmetic view re-derives cells of the pipeline; here its math is checked against PyTorch
// (tests/e2e/fixtures/gen_web_fixtures.py, run with /usr/bin/python3).
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import type { Tensor, Trace } from 'attention-playground'
import { close, dotTerms, scoreBreakdown, softmaxRow } from '../../web/compute/terms'
import { headMatrix, headRow } from '../../web/compute/heads'

const fx = JSON.parse(readFileSync(new URL('../e2e/fixtures/web_fixtures.json', import.meta.url), 'utf8'))
const tensor = (data: number[], shape: number[]): Tensor => ({ data: Float32Array.from(data), shape })
const byKind = (k: string) => fx.arith.filter((c: { kind: string }) => c.kind === k)

function fakeTrace(Q: Tensor, K: Tensor, params: Trace['params'], heads = 1): Trace {
  // Only the members scoreBreakdown reads; the rest of a trace is irrelevant to it.
  return { Q, K, params, heads } as unknown as Trace
}

describe('dot products', () => {
  it('term by term, equal to torch q @ k.T', () => {
    const c = byKind('dot')[0]
    const [nq, nk, d] = c.shape
    const Q = tensor(c.q, [nq, d]),
      K = tensor(c.k, [nk, d])
    for (let i = 0; i < nq; i++) {
      for (let j = 0; j < nk; j++) {
        const { products, sum } = dotTerms(headRow(Q, i, 0, 1), headRow(K, j, 0, 1))
        expect(products).toHaveLength(d)
        expect(sum).toBeCloseTo(c.scores[i * nk + j], 5)
        const bd = scoreBreakdown(fakeTrace(Q, K, {}), 'scaled-dot', i, j, 0)!
        expect(bd.sum).toBeCloseTo(c.scores[i * nk + j], 5)
        expect(bd.terms[3].value).toBeCloseTo(c.q[i * d + 3] * c.k[j * d + 3], 6)
      }
    }
  })

  it("per head uses that head's contiguous block of columns", () => {
    const c = byKind('dot')[0]
    const [nq, nk, d] = c.shape
    const Q = tensor(c.q, [nq, d]),
      K = tensor(c.k, [nk, d])
    // With 2 heads of 4 columns, head 0 + head 1 dot products add up to the full dot product.
    const h0 = dotTerms(headRow(Q, 1, 0, 2), headRow(K, 2, 0, 2)).sum
    const h1 = dotTerms(headRow(Q, 1, 1, 2), headRow(K, 2, 1, 2)).sum
    expect(headRow(Q, 1, 1, 2)[0]).toBe(Q.data[1 * d + 4])
    expect(h0 + h1).toBeCloseTo(c.scores[1 * nk + 2], 5)
  })

  it('rejects vectors of different lengths', () => {
    expect(() => dotTerms([1, 2], [1, 2, 3])).toThrow(/lengths differ \(2 vs 3\)/)
  })
})

describe('softmax of a row', () => {
  for (const c of byKind('softmax')) {
    it(`matches torch softmax with masks at T = ${c.temperature}`, () => {
      for (let i = 0; i < c.rows; i++) {
        const row = c.input.slice(i * c.cols, (i + 1) * c.cols).map((x: number | null) => (x === null ? -Infinity : x))
        const sm = softmaxRow(row, c.temperature)
        for (let j = 0; j < c.cols; j++) expect(sm.probs[j]).toBeCloseTo(c.weights[i * c.cols + j], 6)
        const total = sm.probs.reduce((a, b) => a + b, 0)
        expect(total).toBeCloseTo(row.every((x: number) => x === -Infinity) ? 0 : 1, 6)
        expect(sm.probs.some(Number.isNaN)).toBe(false)
      }
    })
  }
})

describe('score rules with parameters', () => {
  it('general: qᵀ W k', () => {
    const c = byKind('general')[0]
    const [nq, nk, dq, dk] = c.dims
    const tr = fakeTrace(tensor(c.q, [nq, dq]), tensor(c.k, [nk, dk]), { W: tensor(c.W, [dq, dk]) })
    for (let i = 0; i < nq; i++)
      for (let j = 0; j < nk; j++) {
        expect(scoreBreakdown(tr, 'general', i, j, 0)!.sum).toBeCloseTo(c.scores[i * nk + j], 5)
      }
  })

  it('additive: vᵀ tanh(W_q q + W_k k)', () => {
    const c = byKind('additive')[0]
    const [nq, nk, dq, dk, hd] = c.dims
    const tr = fakeTrace(tensor(c.q, [nq, dq]), tensor(c.k, [nk, dk]), {
      Wq: tensor(c.Wq, [hd, dq]),
      Wk: tensor(c.Wk, [hd, dk]),
      v: tensor(c.v, [hd]),
    })
    for (let i = 0; i < nq; i++)
      for (let j = 0; j < nk; j++) {
        const bd = scoreBreakdown(tr, 'additive', i, j, 0)!
        expect(bd.terms).toHaveLength(hd)
        expect(bd.sum).toBeCloseTo(c.scores[i * nk + j], 5)
      }
  })

  it("concat: Linear([q_i; k_i])[j], the course's rule 1", () => {
    const c = byKind('concat')[0]
    const [n, d] = c.dims
    const tr = fakeTrace(tensor(c.q, [n, d]), tensor(c.k, [n, d]), { W: tensor(c.W, [n, 2 * d]), b: tensor(c.b, [n]) })
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        expect(scoreBreakdown(tr, 'concat', i, j, 0)!.sum).toBeCloseTo(c.scores[i * n + j], 5)
      }
  })

  it('with 2 heads, head 1 uses its own columns and its own params', () => {
    const c = byKind('general')[0]
    const [nq, nk, dq, dk] = c.dims
    // Head 0's columns hold zeros, head 1's hold the fixture's q and k.
    const widen = (x: number[], n: number, d: number) =>
      tensor(Array.from({ length: n }, (_, r) => [...new Array(d).fill(0), ...x.slice(r * d, (r + 1) * d)]).flat(), [
        n,
        2 * d,
      ])
    const zero = tensor(new Array(dq * dk).fill(0), [dq, dk])
    const tr = fakeTrace(widen(c.q, nq, dq), widen(c.k, nk, dk), [{ W: zero }, { W: tensor(c.W, [dq, dk]) }], 2)
    for (let i = 0; i < nq; i++)
      for (let j = 0; j < nk; j++) {
        expect(scoreBreakdown(tr, 'general', i, j, 1)!.sum).toBeCloseTo(c.scores[i * nk + j], 5)
        expect(Math.abs(scoreBreakdown(tr, 'general', i, j, 0)!.sum)).toBe(0)
      }
  })

  it('returns null when the parameters do not fit (no made-up breakdown)', () => {
    const tr = fakeTrace(tensor([1, 2], [1, 2]), tensor([3, 4], [1, 2]), { W: tensor([1, 2, 3], [1, 3]) })
    expect(scoreBreakdown(tr, 'general', 0, 0, 0)).toBeNull()
    expect(scoreBreakdown(tr, 'additive', 0, 0, 0)).toBeNull()
  })
})

describe('helpers', () => {
  it('headMatrix slices [heads, n, m]', () => {
    const t = tensor([0, 1, 2, 3, 4, 5, 6, 7], [2, 2, 2])
    expect(Array.from(headMatrix(t, 1).data)).toEqual([4, 5, 6, 7])
    expect(headMatrix(tensor([1, 2, 3, 4, 5, 6], [2, 3]), 0)).toMatchObject({ rows: 2, cols: 3 })
  })

  it('close() is relative for big numbers and exact for infinities', () => {
    expect(close(1000, 1000.05)).toBe(true)
    expect(close(1, 1.001)).toBe(false)
    expect(close(-Infinity, -Infinity)).toBe(true)
    expect(close(-Infinity, 0)).toBe(false)
  })
})
