// What the heads view shows, without the DOM: the page's sentence (its embeddings) through the engine's
// multiHeadAttention as multi-head, grouped-query and multi-query attention with the same query projection, and the
// sliding window with sinks. The projections are drawn from the page's seed (they are not the course's W_q).

import type { Engine, Tensor, Trace } from 'attention-playground'
import { mulberry32 } from './random'

export const HEADS_MAX_N = 10

export interface Arrangement {
  id: 'mha' | 'gqa' | 'mqa'
  kvHeads: number
  /** [H, n, n] */
  weights: Tensor
  /** Numbers cached per token per layer: 2 · kvHeads · headDim. */
  perToken: number
}

export interface HeadsModel {
  tokens: string[]
  n: number
  E: number
  H: number
  hd: number
  arrangements: Arrangement[]
  window: { window: number; sinks: number; weights: Tensor }
}

function matrix(rows: number, cols: number, next: () => number): Tensor {
  const data = new Float32Array(rows * cols)
  const s = 1 / Math.sqrt(cols)
  for (let i = 0; i < data.length; i++) data[i] = (next() * 2 - 1) * s * 1.7
  return { data, shape: [rows, cols] }
}

function rows(t: Tensor, n: number): Tensor {
  return { data: t.data.slice(0, n * t.shape[1]), shape: [n, t.shape[1]] }
}

/** Query heads: 4 when they divide E, else 2, else 1. */
export function queryHeads(E: number): number {
  return E % 4 === 0 ? 4 : E % 2 === 0 ? 2 : 1
}

/** Query head h reads K/V head ⌊h · kv / H⌋ (Hugging Face's repeat_kv). */
export const kvHeadOf = (h: number, kv: number, H: number) => Math.floor((h * kv) / H)

export function headsModel(engine: Engine, trace: Trace, seed: number, window: number, sinks: number): HeadsModel {
  const emb = trace.embeddings // cross mode: the target's, attending to itself
  const n = Math.min(HEADS_MAX_N, emb.shape[0])
  const x = rows(emb, n)
  const E = x.shape[1]
  const H = queryHeads(E)
  const hd = E / H
  const next = mulberry32(seed * 104729 + 24)
  const Wq = matrix(E, E, next)
  const Wk = matrix(E, E, next)
  const Wv = matrix(E, E, next)
  const Wo = matrix(E, E, next)
  const base = { query: x, key: x, value: x, numHeads: H, qProjWeight: Wq, outProjWeight: Wo, causal: true }
  const kvs: Array<[Arrangement['id'], number]> = [
    ['mha', H],
    ['gqa', Math.max(1, H / 2)],
    ['mqa', 1],
  ]
  const arrangements = kvs.map(([id, kv]) => {
    // The first kv heads' rows of the same K and V projections: the arrangements differ only in the sharing.
    const r = engine.multiHeadAttention({
      ...base,
      numKVHeads: kv,
      kProjWeight: rows(Wk, kv * hd),
      vProjWeight: rows(Wv, kv * hd),
    })
    return { id, kvHeads: kv, weights: r.weights, perToken: 2 * kv * hd }
  })
  const w = Math.max(1, Math.min(window, n))
  const k = Math.max(0, Math.min(sinks, n))
  const win = engine.multiHeadAttention({
    ...base,
    causal: false,
    kProjWeight: Wk,
    vProjWeight: Wv,
    window: w,
    sinks: k,
  })
  return {
    tokens: trace.tokens.slice(0, n),
    n,
    E,
    H,
    hd,
    arrangements,
    window: { window: w, sinks: k, weights: win.weights },
  }
}

export type CellKind = 'seen' | 'sink' | 'out' | 'future'

/** Where key j stands for query i under a window of w keys with k sinks. */
export function windowCell(i: number, j: number, w: number, k: number): CellKind {
  if (j > i) return 'future'
  if (j > i - w) return 'seen'
  return j < k ? 'sink' : 'out'
}
