// Head slicing: how the page cuts one head out of the engine's tensors. Q, K, V and the output hold
// the heads side by side ([n, d], head h = columns h·d/heads …); the per-head steps stack them
// ([heads, nq, nk]).

import type { ScoreParamsOut, Tensor, Trace } from 'attention-playground'

/** The steps the engine returns per head ([heads, nq, nk] when heads > 1): the n×n matrices. */
export const PER_HEAD_STEPS = ['scores', 'scaledScores', 'maskedScores', 'weights'] as const
export type PerHeadStep = (typeof PER_HEAD_STEPS)[number]

export function isPerHeadStep(step: string): step is PerHeadStep {
  return (PER_HEAD_STEPS as readonly string[]).includes(step)
}

export interface Matrix {
  data: Float32Array
  rows: number
  cols: number
}

/** The [rows, cols] matrix of one head from a [n, m] or [heads, n, m] tensor (a view, head clamped). */
export function headMatrix(t: Tensor, head: number): Matrix {
  if (t.shape.length === 3) {
    const [h, rows, cols] = t.shape
    const hh = Math.min(Math.max(head, 0), h - 1)
    return { data: t.data.subarray(hh * rows * cols, (hh + 1) * rows * cols), rows, cols }
  }
  const [rows, cols] = t.shape.length === 2 ? t.shape : [1, t.shape[0] ?? t.data.length]
  return { data: t.data, rows, cols }
}

/** One head of a [n, m] or [heads, n, m] tensor as a 2-D tensor (a copy); a bad head is an error. */
export function headTensor(t: Tensor, head: number, fn: string): Tensor {
  if (t.shape.length === 2) return t
  const [h, r, c] = t.shape
  if (!Number.isInteger(head) || head < 0 || head >= h)
    throw new Error(`${fn}: head must be from 0 to ${h - 1}, got ${head}`)
  return { data: t.data.slice(head * r * c, (head + 1) * r * c), shape: [r, c] }
}

/** Row i of a [n, d] tensor restricted to head h's contiguous block of d/heads columns (a view). */
export function headRow(t: Tensor, i: number, head: number, heads: number): Float32Array {
  const d = t.shape[1]
  const dh = d / heads
  return t.data.subarray(i * d + head * dh, i * d + (head + 1) * dh)
}

/** Head h's block of columns of a [n, d] tensor as a [n, d/heads] tensor. */
export function headColumns(t: Tensor, head: number, heads: number): Tensor {
  if (heads === 1) return t
  const [n, d] = t.shape
  const dh = d / heads
  const out = new Float32Array(n * dh)
  for (let i = 0; i < n; i++) out.set(headRow(t, i, head, heads), i * dh)
  return { data: out, shape: [n, dh] }
}

/** Writes a [n, d/heads] head result into its block of columns of a [n, d] tensor. */
export function setHeadColumns(out: Float32Array, d: number, head: number, headData: Float32Array, dh: number): void {
  const n = headData.length / dh
  for (let i = 0; i < n; i++) out.set(headData.subarray(i * dh, (i + 1) * dh), i * d + head * dh)
}

/** The scoring rule's parameters of one head ({} for the dot products, which have none). */
export function paramsForHead(trace: Trace, head: number): ScoreParamsOut {
  const p = trace.params
  return Array.isArray(p) ? (p[head] ?? {}) : (p ?? {})
}
