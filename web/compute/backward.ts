// The backward view's arithmetic, without the DOM: the goal the learner picks as runBackward's loss, the
// run options from the page's trace (with the view's own stepped weights), one gradient step, a row's
// softmax Jacobian, and the √d_k sweep on gradients.

import type { Engine, PipelineLoss, RunBackwardResult, RunOptions, Tensor, Trace } from 'attention-playground'
import { normals, randn } from './scaling'

export type GoalKind = 'attend' | 'output'

export interface Goal {
  kind: GoalKind
  /** The query row i. */
  i: number
  /** attend: the key j; output: the token whose output row (when the goal was set) is the target. */
  j: number
  /** output: the target row, fixed when the goal is set. */
  target: Float32Array | null
}

export interface Weights {
  Wq: Tensor
  Wk: Tensor
  Wv: Tensor
}

/** The page's run, reproduced: its options and its (possibly edited) embeddings, with `w` for Wq, Wk, Wv. */
export function runOptionsFrom(trace: Trace, w: Weights | null): RunOptions {
  const o = trace.options
  const base: RunOptions = {
    tokenizer: o.tokenizer,
    dModel: o.dModel,
    dq: o.dq,
    dk: o.dk,
    dv: o.dv,
    seed: o.seed,
    score: o.score,
    scale: o.scale,
    mask: o.mask,
    temperature: o.temperature,
    heads: o.heads,
    embeddings: trace.embeddings,
    Wq: w?.Wq ?? trace.Wq,
    Wk: w?.Wk ?? trace.Wk,
    Wv: w?.Wv ?? trace.Wv,
  }
  if (o.bpeMerges !== undefined) base.bpeMerges = o.bpeMerges
  if (o.source !== undefined && o.target !== undefined) {
    return { ...base, source: o.source, target: o.target, sourceEmbeddings: trace.sourceEmbeddings }
  }
  return { ...base, text: o.text }
}

export function lossOf(goal: Goal): PipelineLoss {
  if (goal.kind === 'attend') return { kind: 'attend', query: goal.i, key: goal.j }
  return { kind: 'output', query: goal.i, target: { data: goal.target!, shape: [goal.target!.length] } }
}

/** The output row j of a trace (a copy): the target of an 'output' goal. */
export function outputRow(t: Trace, j: number): Float32Array {
  const dv = t.output.shape[1]
  return t.output.data.slice(j * dv, (j + 1) * dv)
}

export function backward(engine: Engine, trace: Trace, w: Weights | null, goal: Goal): RunBackwardResult {
  return engine.runBackward({ ...runOptionsFrom(trace, w), loss: lossOf(goal) })
}

/** One step of gradient descent: W ← W − lr · dL/dW for W_q, W_k, W_v. */
export function step(r: RunBackwardResult, lr: number): Weights {
  const move = (w: Tensor, g: Tensor): Tensor => ({ data: w.data.map((x, i) => x - lr * g.data[i]), shape: w.shape })
  return { Wq: move(r.Wq, r.gradWq), Wk: move(r.Wk, r.gradWk), Wv: move(r.Wv, r.gradWv) }
}

/** Head 0's [nq, nk] matrix of a per-head tensor ([nq, nk] or [heads, nq, nk]). */
export function head0(t: Tensor): Tensor {
  if (t.shape.length === 2) return t
  const [, r, c] = t.shape
  return { data: t.data.slice(0, r * c), shape: [r, c] }
}

/**
 * The view's first goal: the last token's output row should become the output row farthest from it now
 * (loss = Σ (O[i] − target)²). The loss starts high and visibly falls in the first steps at the view's learning
 * rate, and every panel of the chain has numbers: dL/dO is not zero, so neither are dV and dW_v (an "attend" goal
 * leaves those three at zero, since −log A[i, j] does not depend on V; and a key the row already weighs ~1 gives
 * a loss near 0 with gradients near 0 — nothing to see).
 */
export function firstGoal(trace: Trace): Goal {
  const [n, dv] = trace.output.shape
  const o = trace.output.data
  const i = n - 1
  let j = 0
  let far = -1
  for (let t = 0; t < n - 1; t++) {
    let d = 0
    for (let c = 0; c < dv; c++) d += (o[i * dv + c] - o[t * dv + c]) ** 2
    if (d > far) [far, j] = [d, t]
  }
  return { kind: 'output', i, j, target: outputRow(trace, j) }
}

/** Row i of the weights as a, its Jacobian diag(a) − a·aᵀ, the dA row, and dS's row = J·dA (J is symmetric). */
export function jacobianRow(weights: Tensor, gradWeights: Tensor, i: number) {
  const n = weights.shape[1]
  const a = weights.data.slice(i * n, (i + 1) * n)
  const dA = gradWeights.data.slice(i * n, (i + 1) * n)
  const J = new Float32Array(n * n)
  const dS = new Float32Array(n)
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      J[r * n + c] = (r === c ? a[r] : 0) - a[r] * a[c]
      dS[r] += J[r * n + c] * dA[c]
    }
  }
  return { a, J, dA, dS, n }
}

export const GRAD_DKS = [4, 16, 64, 256] as const

export interface GradPoint {
  dk: number
  /** Mean over rows of ‖dS row‖, scale off (score 'dot') and on ('scaled-dot'). */
  raw: number
  scaled: number
  /** Mean over rows of the largest weight (how saturated the rows are). */
  rawMax: number
  scaledMax: number
}

function rowNorms(t: Tensor): number {
  const [r, c] = t.shape
  let s = 0
  for (let i = 0; i < r; i++) {
    let q = 0
    for (let j = 0; j < c; j++) q += t.data[i * c + j] ** 2
    s += Math.sqrt(q)
  }
  return s / r
}

function meanRowMax(t: Tensor): number {
  const [r, c] = t.shape
  let s = 0
  for (let i = 0; i < r; i++) s += Math.max(...t.data.subarray(i * c, (i + 1) * c))
  return s / r
}

/**
 * The scaling view's sweep on gradients: unit-variance q, k (n rows), v and dL/dO; dS with the scale off and on.
 * Several blocks per d_k, averaged.
 */
export function gradientSweep(engine: Engine, seed: number, n = 16, blocks = 4): GradPoint[] {
  const next = normals(seed)
  return GRAD_DKS.map((dk) => {
    const p: GradPoint = { dk, raw: 0, scaled: 0, rawMax: 0, scaledMax: 0 }
    for (let b = 0; b < blocks; b++) {
      const query = randn(next, n, dk),
        key = randn(next, n, dk),
        value = randn(next, n, 4),
        gradOutput = randn(next, n, 4)
      for (const side of ['raw', 'scaled'] as const) {
        const score = side === 'raw' ? 'dot' : 'scaled-dot'
        const g = engine.attentionBackward({ query, key, value, gradOutput, score })
        const w = engine.attention({ query, key, value, score }).weights!
        p[side] += rowNorms(g.gradScores) / blocks
        p[side === 'raw' ? 'rawMax' : 'scaledMax'] += meanRowMax(w) / blocks
      }
    }
    return p
  })
}
