// The model view's engine call: one head of a model file's layer recomputed from the file's Q, K, V by
// ap.attention (scaled-dot, the file's scale and mask), beside the file's own weights (views/model.ts draws it).

import type { AttentionFileLayer, Engine, Tensor } from 'attention-playground'

/** Above this many cells per head the pipeline is not recomputed (the engine would build the whole matrix). */
export const PIPELINE_CELLS = 2 ** 22

/** One head's [n, d] block of a [heads, n, d] tensor (a view, not a copy). */
export function headOf(t: Tensor, head: number): Tensor {
  const [, n, d] = t.shape
  return { data: t.data.subarray(head * n * d, (head + 1) * n * d), shape: [n, d] }
}

/** The engine's recomputation of one head from the file's Q, K, V. */
export interface Recomputed {
  layer: number
  head: number
  scores: Tensor
  scaledScores: Tensor
  maskedScores: Tensor
  weights: Tensor
  output: Tensor
  /** max |engine − file| over the head's weights. */
  maxDiff: number
}

export function recompute(engine: Engine, layer: AttentionFileLayer, head: number): Recomputed | null {
  if (!layer.q || !layer.k || !layer.v || !engine.attention) return null
  const q = headOf(layer.q, head),
    k = headOf(layer.k, head),
    v = headOf(layer.v, head)
  const nq = q.shape[0],
    nk = k.shape[0]
  const r = engine.attention({
    query: q,
    key: k,
    value: v,
    score: 'scaled-dot',
    scale: layer.scale,
    mask: layer.mask ? { matrix: layer.mask } : 'none',
    needScores: true, // the view shows the raw scores too
  })
  const scores = r.scores!,
    weights = r.weights!
  const scale = layer.scale ?? 1 / Math.sqrt(q.shape[1])
  const scaled = Float32Array.from(scores.data, (x) => x * scale)
  const masked = Float32Array.from(scaled, (x, i) => (layer.mask?.[i] ? -Infinity : x))
  const file = layer.weights.data.subarray(head * nq * nk, (head + 1) * nq * nk)
  let maxDiff = 0
  for (let i = 0; i < file.length; i++) maxDiff = Math.max(maxDiff, Math.abs(file[i] - weights.data[i]))
  return {
    layer: layer.index,
    head,
    scores,
    weights,
    output: r.output,
    maxDiff,
    scaledScores: { data: scaled, shape: [nq, nk] },
    maskedScores: { data: masked, shape: [nq, nk] },
  }
}
