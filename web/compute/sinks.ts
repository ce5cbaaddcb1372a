// What the sinks view measures, without the DOM: a model of the Train tab (task next-char, causal) trained here, the
// weight each head puts on position 0, and one head recomputed with a sink logit through ap.attention. For the page's
// default seed the measure is committed (sinks-sample.ts, scripts/gen-sinks-sample.mjs): the view opens on it.

import type { Engine, Tensor, TrainTrace, Trainer } from 'attention-playground'
import { SINKS_SAMPLE } from './sinks-sample'
import { floats } from './trained'

export const SINK_STEPS = 600
export const SINK_CHUNK = 50
export const SINK_LAYERS = 2
export const SINK_HEADS = 4

export interface HeadSink {
  layer: number
  head: number
  /** Mean over rows 1… of the weight on position 0. */
  mean: number
}

export interface SinkMeasure {
  heads: HeadSink[]
  best: HeadSink
  /** The same mean if every row spread its weight evenly over the keys it sees: mean of 1 / (i + 1). */
  uniform: number
  found: boolean
  tokens: string[]
  /** The best head's Q, K, V and scale, to recompute it with a sink logit. */
  qkv: { query: Tensor; key: Tensor; value: Tensor; scale: number }
}

export function sinkTrainer(engine: Engine, seed: number): Trainer {
  return engine.createTrainer({ task: 'next-char', seed, heads: SINK_HEADS, layers: SINK_LAYERS, dModel: 32 })
}

/** The committed measure when `seed` is the one it was trained with (null: train in the view). */
export function sampleMeasure(seed: number): SinkMeasure | null {
  const S = SINKS_SAMPLE
  if (seed !== S.seed) return null
  const t = (x: { shape: readonly number[]; data: string }): Tensor => ({ data: floats(x.data), shape: [...x.shape] })
  return {
    heads: S.heads.map((x) => ({ ...x })),
    best: { ...S.best },
    uniform: S.uniform,
    found: S.found,
    tokens: [...S.tokens],
    qkv: { query: t(S.qkv.query), key: t(S.qkv.key), value: t(S.qkv.value), scale: S.qkv.scale },
  }
}

function cols(t: Tensor, c0: number, w: number): Tensor {
  const [n, d] = t.shape
  const data = new Float32Array(n * w)
  for (let i = 0; i < n; i++) data.set(t.data.subarray(i * d + c0, i * d + c0 + w), i * w)
  return { data, shape: [n, w] }
}

function meanOnFirst(w: Tensor, head: number): number {
  const n = w.shape[w.shape.length - 1]
  let s = 0
  for (let i = 1; i < n; i++) s += w.data[(head * n + i) * n]
  return s / Math.max(1, n - 1)
}

export interface TraceSinks {
  /** One per head of the layer (layer -1: the Train tab's last layer). */
  heads: HeadSink[]
  best: HeadSink
  /** The mean if every row spread its weight evenly over the keys it sees (its unmasked scores). */
  uniform: number
  found: boolean
}

/** The Train tab's model as its "look inside this step" hands it over (its last layer, any mask): each head's mean
 * weight on position 0 over rows 1…, against an even spread over the keys each row sees. */
export function measureTrace(t: { weights: Tensor; maskedScores: Tensor }): TraceSinks {
  const n = t.weights.shape[t.weights.shape.length - 1]
  const H = t.weights.shape.length === 3 ? t.weights.shape[0] : 1
  let uniform = 0
  for (let i = 1; i < n; i++) {
    let seen = 0
    for (let j = 0; j < n; j++) if (Number.isFinite(t.maskedScores.data[i * n + j])) seen++
    if (seen > 0) uniform += 1 / seen
  }
  uniform /= Math.max(1, n - 1)
  const heads = Array.from({ length: H }, (_, head) => ({ layer: -1, head, mean: meanOnFirst(t.weights, head) }))
  const best = heads.reduce((a, b) => (b.mean > a.mean ? b : a))
  return { heads, best, uniform, found: best.mean >= 2 * uniform }
}

/** Every head of every layer; `found` when the best one's mean on position 0 is at least twice the uniform one. */
export function measureSinks(tr: Trainer): SinkMeasure {
  const traces: TrainTrace[] = []
  for (let l = 0; l < SINK_LAYERS; l++) traces.push(tr.trace(undefined, { layer: l }))
  const n = traces[0].tokens.length
  let uniform = 0
  for (let i = 1; i < n; i++) uniform += 1 / (i + 1)
  uniform /= Math.max(1, n - 1)
  const heads: HeadSink[] = []
  traces.forEach((t, layer) => {
    const H = t.weights.shape.length === 3 ? t.weights.shape[0] : 1
    for (let head = 0; head < H; head++) heads.push({ layer, head, mean: meanOnFirst(t.weights, head) })
  })
  const best = heads.reduce((a, b) => (b.mean > a.mean ? b : a))
  const t = traces[best.layer]
  const H = t.weights.shape.length === 3 ? t.weights.shape[0] : 1
  const dk = t.K.shape[1] / H
  const dv = t.V.shape[1] / H
  return {
    heads,
    best,
    uniform,
    found: best.mean >= 2 * uniform,
    tokens: t.tokens,
    qkv: {
      query: cols(t.Q, best.head * dk, dk),
      key: cols(t.K, best.head * dk, dk),
      value: cols(t.V, best.head * dv, dv),
      scale: t.scale,
    },
  }
}

export interface WithSink {
  plain: Tensor
  weights: Tensor
  sinkShare: Float32Array
  /** Mean over rows 1… of the weight on position 0, without and with the sink, and the sink's mean share. */
  pos0: number
  pos0Sink: number
  share: number
}

export function withSinkLogit(engine: Engine, m: SinkMeasure, sinkLogit: number): WithSink {
  const base = { ...m.qkv, mask: 'causal' as const }
  const plain = engine.attention(base).weights as Tensor
  const r = engine.attention({ ...base, sinkLogit })
  const share = r.sinkShare as Float32Array
  const n = share.length
  let s = 0
  for (let i = 1; i < n; i++) s += share[i]
  return {
    plain,
    weights: r.weights as Tensor,
    sinkShare: share,
    pos0: meanOnFirst(plain, 0),
    pos0Sink: meanOnFirst(r.weights as Tensor, 0),
    share: s / Math.max(1, n - 1),
  }
}
