// Re-derives one cell of the pipeline from its inputs, term by term, for the arithmetic view.
// Sums run in float64; the view compares them with the engine's float32 result.

import type { ScoreRule, Trace } from 'attention-playground'
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

/** One head's q (row i), k (row j) and the rule's parameters, with what a rule needs to re-derive S_ij. */
interface Cell {
  trace: Trace
  q: Float32Array
  k: Float32Array
  p: ReturnType<typeof paramsForHead>
  i: number
  j: number
  head: number
}

function dotBreakdown({ q, k }: Cell): ScoreBreakdown {
  const { products, sum } = dotTerms(q, k)
  return { terms: products.map((v, t) => ({ label: `q${t}·k${t}`, a: q[t], b: k[t], value: v })), sum }
}

/** qᵀ W k = Σ_t (qᵀW)_t k_t with W [dq_h, dk_h]. */
function generalBreakdown({ q, k, p }: Cell): ScoreBreakdown | null {
  if (!p.W) return null
  const [dqh, dkh] = p.W.shape
  if (dqh !== q.length || dkh !== k.length) return null
  const qW = new Array<number>(dkh).fill(0)
  for (let a = 0; a < dqh; a++) for (let b = 0; b < dkh; b++) qW[b] += q[a] * p.W.data[a * dkh + b]
  const terms = qW.map((v, t) => ({ label: `(qᵀW)${t}·k${t}`, a: v, b: k[t], value: v * k[t] }))
  return { terms, sum: terms.reduce((s, x) => s + x.value, 0) }
}

function additiveBreakdown({ q, k, p }: Cell): ScoreBreakdown | null {
  if (!p.Wq || !p.Wk || !p.v) return null
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

/** score[i][j] = W[j] · [q_i; k_i] + b[j]: the course's rule 1, one score per value row. */
function concatBreakdown({ trace, q, p, i, j, head }: Cell): ScoreBreakdown | null {
  if (!p.W || !p.b) return null
  const ki = headRow(trace.K, i, head, trace.heads || 1)
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

/** Each rule's re-derivation of one score (null when the trace lacks the rule's parameters or shapes). */
const BREAKDOWNS: Record<ScoreRule, (cell: Cell) => ScoreBreakdown | null> = {
  dot: dotBreakdown,
  'scaled-dot': dotBreakdown,
  general: generalBreakdown,
  additive: additiveBreakdown,
  concat: concatBreakdown,
}

/** The raw score of cell (i, j) of one head, re-derived from Q, K and the rule's parameters. */
export function scoreBreakdown(
  trace: Trace,
  rule: ScoreRule,
  i: number,
  j: number,
  head: number,
): ScoreBreakdown | null {
  const heads = trace.heads || 1
  const q = headRow(trace.Q, i, head, heads)
  const k = headRow(trace.K, j, head, heads)
  return BREAKDOWNS[rule]({ trace, q, k, p: paramsForHead(trace, head), i, j, head })
}

/** Relative-or-absolute closeness used to say "matches the engine". */
export function close(a: number, b: number, tol = 1e-4): boolean {
  if (a === b) return true
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false
  return Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b))
}
