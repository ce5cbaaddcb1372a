// The seq2seq lesson's decoding loop as a Transformer decoder computes it, one step at a time, by the engine.
// Teacher forcing: the decoder is fed the known target shifted right (a start token first); it has no output
// layer here, so it predicts nothing: each step shows what the decoder computes from its inputs so far.
// At step t (input token t):
//   1. masked (causal) self-attention over the decoder inputs 0..t, its own W_q, W_k, W_v; row t of its output;
//   2. the residual: that row plus the input x_t (the self-attention's d_v is d_model so the two can be added;
//      a Transformer has an output projection W_o there);
//   3. LayerNorm over d_model (eps 1e-5, gain 1, shift 0: as nn.LayerNorm starts);
//   4. that row times the cross attention's own W_q is the query against the source's keys;
//   5. cross attention: softmax(q·Kᵀ/√d_k) over the source, and the context vector C_t = weights·V.
// So an earlier target word changes step t's query and its cross weights (through step 1).
// K, V are the source embeddings times the cross attention's W_k, W_v (no encoder layers run).
//
// The draws, from one generator seeded with the seed, in this order: the embedding table (one vocabulary over
// source and target), then torch.rand for the self-attention's W_q [d_model, d_q], W_k [d_model, d_k],
// W_v [d_model, d_model], then the cross attention's W_q [d_model, d_q], W_k [d_model, d_k], W_v [d_model, d_v].
// torch.rand draws element after element, so the last four are one draw of d_model·(d_model + d_q + d_k + d_v)
// numbers cut in order: the engine's run draws them as one W_v that wide (tests/fixtures/gen_decode_fixture.py
// draws them one by one). Each u in [0, 1) becomes (2u − 1)/√d_model: uniform in ±1/√d_model, as nn.Linear starts
// (its weights are U(−1/√in, 1/√in)). Raw torch.rand weights (all positive, mean 0.5) give scores so large that
// the decoder's self-attention is one-hot (weights like 1e-15 on the earlier words), and an earlier target word
// then feeds the cross query nothing a learner can see.

import type { Engine, Tensor } from 'attention-playground'
import type { PlaygroundState } from '../params'
import { engineText } from './segment'

/** One character, so every tokenizer keeps it as one token. */
export const START = '▶'

/** LayerNorm's epsilon (nn.LayerNorm's default). */
export const LN_EPS = 1e-5

export interface DecodeStep {
  /** 0-based step: input token t, producing target token t. */
  t: number
  /** Causal self-attention over the decoder inputs 0..t: (t+1)×(t+1) weights, the last row is step t's. */
  selfWeights: Tensor
  /** The decoder's input x_t [1, d_model] (the embedding of input token t). */
  input: Tensor
  /** Row t of the decoder's self-attention output [1, d_model]. */
  selfOutput: Tensor
  /** The residual: x_t + selfOutput [1, d_model]. */
  residual: Tensor
  /** LayerNorm(residual) [1, d_model]: the decoder's row that asks the source. */
  normed: Tensor
  /** The cross attention's query row q_t = normed · W_q (cross) [1, dq]. */
  query: Tensor
  /** Cross attention of q_t against the source: scores and weights [1, n], context C_t [1, dv]. */
  crossScores: Tensor
  crossWeights: Tensor
  context: Tensor
}

export interface DecodeModel {
  sourceTokens: string[]
  /** Decoder inputs, shifted right: [START, y_1, …, y_{m-1}]. */
  inputs: string[]
  /** The known target at each step (teacher forcing), [y_1, …, y_m]. */
  targets: string[]
  dModel: number
  dq: number
  dk: number
  dv: number
  /** Keys and values of the source [n, dk], [n, dv]. */
  K: Tensor
  V: Tensor
  /** The decoder's self-attention keys and values, one row per input [m, dk], [m, d_model]: what a KV cache holds. */
  selfK: Tensor
  selfV: Tensor
  steps: DecodeStep[]
}

function rows(t: Tensor, from: number, to: number): Tensor {
  const c = t.shape[1]
  return { data: t.data.slice(from * c, to * c), shape: [to - from, c] }
}

/** x·W in float64 sums, stored as float32 like the engine's tensors. */
function matmul(x: Tensor, w: Tensor): Tensor {
  const [n, d] = x.shape
  const [d2, m] = w.shape
  if (d !== d2) throw new Error(`decode: cannot multiply [${n}, ${d}] by [${d2}, ${m}]`)
  const out = new Float32Array(n * m)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0
      for (let k = 0; k < d; k++) s += x.data[i * d + k] * w.data[k * m + j]
      out[i * m + j] = s
    }
  }
  return { data: out, shape: [n, m] }
}

function add(a: Tensor, b: Tensor): Tensor {
  return { data: a.data.map((v, i) => v + b.data[i]), shape: [...a.shape] }
}

/** LayerNorm of one row (population variance, eps LN_EPS, gain 1, shift 0), in float64. */
export function layerNorm(x: Tensor): Tensor {
  const n = x.data.length
  let mean = 0
  for (const v of x.data) mean += v
  mean /= n
  let vr = 0
  for (const v of x.data) vr += (v - mean) * (v - mean)
  const inv = 1 / Math.sqrt(vr / n + LN_EPS)
  return { data: x.data.map((v) => (v - mean) * inv), shape: [...x.shape] }
}

/** torch.rand's u in [0, 1) as nn.Linear's initial weights: (2u − 1)/√d_model, uniform in ±1/√d_model. */
function linearInit(w: Tensor, dModel: number): Tensor {
  const b = 1 / Math.sqrt(dModel)
  return { data: w.data.map((u) => (2 * u - 1) * b), shape: [...w.shape] }
}

/** The run's wide W_v cut, in draw order, into [d_model, w] matrices. */
function cut(wide: Tensor, dModel: number, widths: number[]): Tensor[] {
  let at = 0
  return widths.map((w) => {
    const t = { data: wide.data.slice(at, at + dModel * w), shape: [dModel, w] }
    at += dModel * w
    return linearInit(t, dModel)
  })
}

interface Weights {
  Xdec: Tensor
  Xsrc: Tensor
  self: { Wq: Tensor; Wk: Tensor; Wv: Tensor }
  cross: { Wq: Tensor; Wk: Tensor; Wv: Tensor }
}

function draw(engine: Engine, s: PlaygroundState): { run: ReturnType<Engine['run']>; w: Weights } {
  const d = s.dModel
  const run = engine.run({
    tokenizer: s.tokenizer,
    dModel: d,
    dq: s.dq,
    dk: s.dq,
    // the self-attention's W_v, then the cross attention's W_q, W_k, W_v: one draw, cut below
    dv: d + s.dq + s.dq + s.dv,
    seed: s.seed,
    source: engineText(s.source, s.tokenizer),
    target: `${START} ${engineText(s.target, s.tokenizer)}`,
    score: 'scaled-dot',
    mask: 'none',
    heads: 1,
  })
  const [Wv, cWq, cWk, cWv] = cut(run.Wv, d, [d, s.dq, s.dq, s.dv])
  const m = run.tokens.length - 1
  return {
    run,
    w: {
      Xdec: rows(run.embeddings, 0, Math.max(0, m)),
      Xsrc: run.sourceEmbeddings!,
      self: { Wq: linearInit(run.Wq, d), Wk: linearInit(run.Wk, d), Wv },
      cross: { Wq: cWq, Wk: cWk, Wv: cWv },
    },
  }
}

/** Step t: self-attention row t, the residual, LayerNorm, the cross query and the cross attention. */
function decodeStep(
  engine: Engine,
  w: Weights,
  dec: { Q: Tensor; K: Tensor; V: Tensor },
  src: { K: Tensor; V: Tensor },
  t: number,
): DecodeStep {
  const self = engine.attention({
    query: rows(dec.Q, 0, t + 1),
    key: rows(dec.K, 0, t + 1),
    value: rows(dec.V, 0, t + 1),
    score: 'scaled-dot',
    mask: 'causal',
  })
  const selfOutput = rows(self.output, t, t + 1)
  const input = rows(w.Xdec, t, t + 1)
  const residual = add(input, selfOutput)
  const normed = layerNorm(residual)
  const query = matmul(normed, w.cross.Wq)
  const cross = engine.attention({
    query,
    key: src.K,
    value: src.V,
    score: 'scaled-dot',
    mask: 'none',
    needScores: true,
  })
  return {
    t,
    selfWeights: self.weights!,
    input,
    selfOutput,
    residual,
    normed,
    query,
    crossScores: cross.scores!,
    crossWeights: cross.weights!,
    context: cross.output,
  }
}

export function decodeModel(engine: Engine, s: PlaygroundState): DecodeModel {
  if (!engine.attention) throw new Error('decode: this engine build has no attention() call')
  const { run, w } = draw(engine, s)
  const all = run.tokens
  if (all.length < 2) throw new Error(`target: needs at least one token after the start token, got "${s.target}"`)
  const m = all.length - 1
  const dec = { Q: matmul(w.Xdec, w.self.Wq), K: matmul(w.Xdec, w.self.Wk), V: matmul(w.Xdec, w.self.Wv) }
  const src = { K: matmul(w.Xsrc, w.cross.Wk), V: matmul(w.Xsrc, w.cross.Wv) }
  const steps = Array.from({ length: m }, (_, t) => decodeStep(engine, w, dec, src, t))
  return {
    sourceTokens: run.sourceTokens ?? [],
    inputs: all.slice(0, m),
    targets: all.slice(1),
    dModel: s.dModel,
    dq: s.dq,
    dk: s.dq,
    dv: s.dv,
    K: src.K,
    V: src.V,
    selfK: dec.K,
    selfV: dec.V,
    steps,
  }
}
