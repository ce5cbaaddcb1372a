// Re-derives one cell of the pipeline from its inputs, term by term, for the arithmetic view.
// Sums run in float64; the view compares them with the engine's float32 result.

import type { Trace } from 'attention-playground'
import { headRow, paramsForHead } from './heads'

export function dotTerms(a: ArrayLike<number>, b: ArrayLike<number>): { products: number[]; sum: number } {
  if (a.length !== b.length) throw new Error(`dotTerms: lengths differ (${a.length} vs ${b.length})`)
  const products: number[] = []
  let sum = 0
  for (let t = 0; t < a.length; t++) {
    const p = a[t] * b[t]
    products.push(p)
    sum += p
  }
  return { products, sum }
}

export interface SoftmaxRow {
  max: number
  exps: number[]
  sum: number
  probs: number[]
}

/** Max-subtracted softmax with temperature; a row of only −∞ gives all zeros (never NaN). */
export function softmaxRow(row: ArrayLike<number>, temperature: number): SoftmaxRow {
  let max = -Infinity
  for (let j = 0; j < row.length; j++) if (row[j] > max) max = row[j]
  const exps: number[] = []
  let sum = 0
  for (let j = 0; j < row.length; j++) {
    const e = max === -Infinity || row[j] === -Infinity ? 0 : Math.exp((row[j] - max) / temperature)
    exps.push(e)
    sum += e
  }
  const probs = exps.map((e) => (sum > 0 ? e / sum : 0))
  return { max, exps, sum, probs }
}

export interface ScoreBreakdown {
  /** Each addend of the score, in order, with a short label of where it comes from. */
  terms: Array<{ label: string; a: number; b: number; value: number }>
  sum: number
  /** Intermediate vector shown before the final sum (general: qᵀW; additive: tanh pre-activations). */
  note?: string
}

/** The raw score of cell (i, j) of one head, re-derived from Q, K and the rule's parameters. */
export function scoreBreakdown(trace: Trace, rule: string, i: number, j: number, head: number): ScoreBreakdown | null {
  const heads = trace.heads || 1
  const q = headRow(trace.Q, i, head, heads)
  const k = headRow(trace.K, j, head, heads)
  const p = paramsForHead(trace, head)
  if (rule === 'dot' || rule === 'scaled-dot') {
    const { products, sum } = dotTerms(q, k)
    return { terms: products.map((v, t) => ({ label: `q${t}·k${t}`, a: q[t], b: k[t], value: v })), sum }
  }
  if (rule === 'general' && p.W) {
    // qᵀ W k = Σ_t (qᵀW)_t k_t with W [dq_h, dk_h]
    const [dqh, dkh] = p.W.shape
    if (dqh !== q.length || dkh !== k.length) return null
    const qW = new Array<number>(dkh).fill(0)
    for (let a = 0; a < dqh; a++) for (let b = 0; b < dkh; b++) qW[b] += q[a] * p.W.data[a * dkh + b]
    const terms = qW.map((v, t) => ({ label: `(qᵀW)${t}·k${t}`, a: v, b: k[t], value: v * k[t] }))
    return { terms, sum: terms.reduce((s, x) => s + x.value, 0) }
  }
  if (rule === 'additive' && p.Wq && p.Wk && p.v) {
    const h = p.v.data.length
    const terms: ScoreBreakdown['terms'] = []
    for (let u = 0; u < h; u++) {
      let pre = 0
      for (let a = 0; a < q.length; a++) pre += p.Wq.data[u * q.length + a] * q[a]
      for (let b = 0; b < k.length; b++) pre += p.Wk.data[u * k.length + b] * k[b]
      const th = Math.tanh(pre)
      terms.push({ label: `v${u}·tanh(…)`, a: p.v.data[u], b: th, value: p.v.data[u] * th })
    }
    return { terms, sum: terms.reduce((s, x) => s + x.value, 0) }
  }
  if (rule === 'concat' && p.W && p.b) {
    // score[i][j] = W[j] · [q_i; k_i] + b[j]: the course's rule 1, one score per value row.
    const ki = headRow(trace.K, i, head, heads)
    const x = [...q, ...ki]
    const width = p.W.shape[1]
    if (width !== x.length || j >= p.W.shape[0]) return null
    const terms = x.map((xv, t) => ({
      label: t < q.length ? `W${j},${t}·q${t}` : `W${j},${t}·k${t - q.length}`,
      a: p.W!.data[j * width + t],
      b: xv,
      value: p.W!.data[j * width + t] * xv,
    }))
    terms.push({ label: `b${j}`, a: p.b.data[j], b: 1, value: p.b.data[j] })
    return { terms, sum: terms.reduce((s, t) => s + t.value, 0) }
  }
  return null
}

/** Relative-or-absolute closeness used to say "matches the engine". */
export function close(a: number, b: number, tol = 1e-4): boolean {
  if (a === b) return true
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false
  return Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b))
}
