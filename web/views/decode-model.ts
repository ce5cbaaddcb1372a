// The seq2seq lesson's decoding loop, computed by the engine one step at a time. The target is fed
// shifted right (a start token first); at step t the decoder's input token t asks one query row:
// first of the decoder's own inputs so far (causal self-attention), then of the whole source
// (cross attention), whose output is the context vector C_t (the lesson's attention_q).
//
// The query of both is the input token's embedding times W_q, as in the page's cross mode: this
// toy decoder has one layer and no feed-forward part, so nothing else would change it.

import type { Engine, Tensor } from 'attention-playground'
import type { PlaygroundState } from '../state'

/** One character, so every tokenizer keeps it as one token. */
export const START = '▶'

export interface DecodeStep {
  /** 0-based step: input token t, producing target token t. */
  t: number
  /** Causal self-attention over the decoder inputs 0..t: (t+1)×(t+1) weights, the last row is step t's. */
  selfWeights: Tensor
  /** Output row t of the decoder's self-attention [1, dv]. */
  selfOutput: Tensor
  /** The query row q_t [1, dq]. */
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
  /** What each step produces (teacher forcing: the known target), [y_1, …, y_m]. */
  targets: string[]
  dq: number
  dk: number
  dv: number
  /** Keys and values of the source [n, dk], [n, dv]. */
  K: Tensor
  V: Tensor
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

export function decodeModel(engine: Engine, s: PlaygroundState): DecodeModel {
  if (!engine.attention) throw new Error('decode: this engine build has no attention() call')
  const dims = { tokenizer: s.tokenizer, dModel: s.dModel, dq: s.dq, dk: s.dq, dv: s.dv, seed: s.seed }
  // One run for the tensors: the target with the start token in front, the source, W_q, W_k, W_v.
  const run = engine.run({
    ...dims,
    source: s.source,
    target: `${START} ${s.target}`,
    score: 'scaled-dot',
    mask: 'none',
    heads: 1,
  })
  const all = run.tokens
  if (all.length < 2) throw new Error(`target: needs at least one token after the start token, got "${s.target}"`)
  const m = all.length - 1
  const X = rows(run.embeddings, 0, m)
  const Kdec = matmul(X, run.Wk)
  const Vdec = matmul(X, run.Wv)
  const steps: DecodeStep[] = []
  for (let t = 0; t < m; t++) {
    const self = engine.attention({
      query: rows(run.Q, 0, t + 1),
      key: rows(Kdec, 0, t + 1),
      value: rows(Vdec, 0, t + 1),
      score: 'scaled-dot',
      mask: 'causal',
    })
    const query = rows(run.Q, t, t + 1)
    const cross = engine.attention({
      query,
      key: run.K,
      value: run.V,
      score: 'scaled-dot',
      mask: 'none',
      needScores: true,
    })
    steps.push({
      t,
      selfWeights: self.weights!,
      selfOutput: rows(self.output, t, t + 1),
      query,
      crossScores: cross.scores!,
      crossWeights: cross.weights!,
      context: cross.output,
    })
  }
  return {
    sourceTokens: run.sourceTokens ?? [],
    inputs: all.slice(0, m),
    targets: all.slice(1),
    dq: s.dq,
    dk: s.dq,
    dv: s.dv,
    K: run.K,
    V: run.V,
    steps,
  }
}
