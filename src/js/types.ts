import type { Tensor, TensorLike } from './util.js'
import type { PositionEncoding, ScoreRule, TokenizerName } from './constants.js'

export * from './constants.js'

/**
 * 'causal': query i sees keys j ≤ i. keyPadding: one boolean per key (true = padding). matrix: nq·nk, 1 = masked.
 * window: a causal sliding window (Mistral, Gemma): query i sees keys i − window < j ≤ i, plus the first `sinks`
 * keys (StreamingLLM's kept tokens; default 0).
 */
export type MaskSpec =
  | 'none'
  | 'causal'
  | { keyPadding: ArrayLike<boolean | number> }
  | { matrix: Uint8Array | ArrayLike<number> }
  | { window: number; sinks?: number }

export interface RunOptions {
  /** The sentence (self-attention). Default "this is my cat". */
  text?: string
  /** Cross attention: the encoder sentence (keys, values). Give `target` too. */
  source?: string
  /** Cross attention: the decoder sentence (queries). */
  target?: string
  tokenizer?: TokenizerName
  /** bpe: the text to learn merges from (default: a small built-in English + Chinese corpus). */
  bpeCorpus?: string
  /** bpe: how many merges to learn. */
  bpeMerges?: number
  dModel?: number
  dq?: number
  dk?: number
  dv?: number
  seed?: number
  score?: ScoreRule
  /** A multiplier on the scores: default 1/√(dk/heads) for scaled-dot, 1 otherwise; `false` switches it off. */
  scale?: number | boolean
  mask?: MaskSpec
  temperature?: number
  heads?: number
  /**
   * How word order enters (default 'none'): 'sinusoidal' or 'learned' add a table [n, dModel] to the
   * embeddings before the projections; 'rope' rotates each head's Q and K by position; 'alibi' adds
   * -m_h·|i - j| to the scaled scores before the mask.
   */
  positions?: PositionEncoding
  /** rope's base (default 10000): pair i turns by position · base^(-2i/d). */
  ropeBase?: number
  /**
   * A learned attention sink in every head (gpt-oss; 0 is "softmax off by one"): one more logit in each row's
   * softmax whose share is dropped, so a row of `weights` sums to less than 1. Divided by the temperature like the
   * scores. Not an option of `projections` (no attention) or `runBackward` (it differentiates the course's softmax).
   */
  sinkLogit?: number
  /** Edited cells: replace what the seed drew (the other draws stay the same). */
  embeddings?: TensorLike
  sourceEmbeddings?: TensorLike
  Wq?: TensorLike
  Wk?: TensorLike
  Wv?: TensorLike
}

export interface ScoreParamsOut {
  W?: Tensor
  Wq?: Tensor
  Wk?: Tensor
  v?: Tensor
  b?: Tensor
}

export interface Trace {
  tokens: string[]
  tokenIds: number[]
  vocab: string[]
  /** bpe merges in learned order. */
  merges: [string, string][]
  /** true when Q, K and V come from one sequence. */
  selfAttention: boolean
  sourceTokens?: string[]
  sourceTokenIds?: number[]
  sourceEmbeddings?: Tensor
  embeddings: Tensor
  Wq: Tensor
  Wk: Tensor
  Wv: Tensor
  Q: Tensor
  K: Tensor
  V: Tensor
  /** [nq, nk], or [heads, nq, nk] when heads > 1 (the same for the next three). */
  scores: Tensor
  scaledScores: Tensor
  /** Masked cells are -Infinity. */
  maskedScores: Tensor
  weights: Tensor
  output: Tensor
  /** sinusoidal / learned: the table added to the embeddings, [max(nq, nk), dModel]. */
  positions?: Tensor
  /** rope: Q [nq, dq] and K [nk, dk] as the scores saw them (each head rotated on its own). */
  rotatedQ?: Tensor
  rotatedK?: Tensor
  /** alibi: the bias added to the scaled scores, [nq, nk] or [heads, nq, nk]. */
  positionBias?: Tensor
  /** Query rows whose keys were all masked: their weights and output are exactly 0. */
  maskedRows: number[]
  /** The scale multiplier that was applied. */
  scale: number
  heads: number
  /** The rule's parameters (an array, one per head, when heads > 1). */
  params: ScoreParamsOut | ScoreParamsOut[]
  /** The options as resolved (defaults filled in; scale as the multiplier applied). */
  options: Required<
    Pick<
      RunOptions,
      | 'tokenizer'
      | 'dModel'
      | 'dq'
      | 'dk'
      | 'dv'
      | 'seed'
      | 'score'
      | 'mask'
      | 'temperature'
      | 'heads'
      | 'positions'
      | 'ropeBase'
    >
  > &
    Pick<RunOptions, 'text' | 'source' | 'target' | 'bpeMerges'> & { scale: number }
}

/** `projections` options: run()'s options that shape the tokens, the embeddings and W_q, W_k, W_v, Q, K, V. */
export type ProjectionsOptions = Omit<RunOptions, 'mask' | 'temperature' | 'sinkLogit'>

/**
 * run()'s trace up to V: the same tokens, draws and projections by the same code, no attention (nothing nq × nk);
 * `positions` the table added before the projections (sinusoidal, learned); rope and alibi act in attention.
 * `scale` is the multiplier run() would apply; `params` the rule's parameters run() would use.
 */
export type Projections = Omit<
  Trace,
  | 'scores'
  | 'scaledScores'
  | 'maskedScores'
  | 'weights'
  | 'output'
  | 'maskedRows'
  | 'rotatedQ'
  | 'rotatedK'
  | 'positionBias'
>

export interface AttentionParams {
  /** general: [dq, dk]; concat: [nv, dq + dk]. */
  W?: TensorLike
  /** additive: [h, dq]. */
  Wq?: TensorLike
  /** additive: [h, dk]. */
  Wk?: TensorLike
  /** additive: [h]. */
  v?: TensorLike
  /** concat: [nv]. */
  b?: TensorLike
  /** concat, optional combine layer: [out, dq + dv]. */
  combineW?: TensorLike
  combineB?: TensorLike
}

export interface AttentionOptions {
  /** [nq, dq] or [batch, nq, dq]. */
  query: TensorLike
  key: TensorLike
  value: TensorLike
  score?: ScoreRule
  scale?: number | boolean
  mask?: MaskSpec
  temperature?: number
  params?: AttentionParams
  /** false: the fused kernel (no nq×nk matrix; dot / scaled-dot with none / causal masks). Default true. */
  needWeights?: boolean
  /** true: also return `scores` and `maskedScores` (each one more nq×nk matrix). Needs needWeights. Default false. */
  needScores?: boolean
  /**
   * A learned attention sink (gpt-oss; 0 is "softmax off by one"): one more logit in each row's softmax whose share
   * is dropped, so each row's weights sum to 1 − sinkShare[i]. Divided by the temperature like the scores.
   */
  sinkLogit?: number
  /**
   * RoPE: query and key rotated by position before the scores (dq = dk, even). Positions default to 0, 1, …;
   * give them to place the rows elsewhere (e.g. the same two words at (i, j) and (i + s, j + s)).
   */
  rope?: RopeOptions
  /** ALiBi: -alibiSlope·|i - j| added to the scaled scores before the mask (not with score 'concat'). */
  alibiSlope?: number
}

export interface RopeOptions {
  /** Default 10000. */
  base?: number
  /** One integer position (0 … 65535) per query row. */
  queryPositions?: ArrayLike<number>
  /** One integer position per key row. */
  keyPositions?: ArrayLike<number>
}

export interface AttentionResult {
  /** Raw scores before scaling (only with needScores: true). */
  scores?: Tensor
  /** Scaled scores with masked cells at -Infinity (only with needScores: true). */
  maskedScores?: Tensor
  weights?: Tensor
  output: Tensor
  /** concat with combine params: weights · V (output is then the combine layer's). */
  context?: Tensor
  /** Fully masked query rows (per batch item for batched input). */
  maskedRows: number[] | number[][]
  scale: number
  /** query, key and value are equal: self-attention (the course's check). */
  selfAttention: boolean
  /** With sinkLogit: each row's weight on the sink (per batch item for batched input). */
  sinkShare?: Float32Array | Float32Array[]
  /** With rope: the rotated query and key. */
  rotatedQ?: Tensor
  rotatedK?: Tensor
  /** With alibiSlope: the bias [nq, nk] added to the scaled scores. */
  positionBias?: Tensor
}

export interface FlashTraceOptions {
  /** [nq, d]. */
  query: TensorLike
  /** [nk, d]. */
  key: TensorLike
  /** [nk, dv]. */
  value: TensorLike
  /** Query rows per block, 1 … 36 (the kernel's own is 36). */
  blockRows: number
  /** Keys per block, 1 … 128 (the kernel's own is 128, 64 when d > 64). */
  blockCols: number
  /** Query i sees keys j ≤ i; tiles wholly above the diagonal are skipped. Default false. */
  causal?: boolean
  /** The multiplier of the scores; default 1/√d. */
  scale?: number | boolean
}

/** The state after one tile of the fused kernel: row block rowBlock against key block colBlock. */
export interface FlashStep {
  rowBlock: number
  colBlock: number
  /** Each row of the block: the running maximum of its scaled scores so far. */
  m: Float32Array
  /** Each row: the running Σ exp(s − m) over the keys so far. */
  l: Float32Array
  /** [rows, dv]: the block's output so far, not yet divided by l. */
  O: Tensor
}

export interface FlashTraceResult {
  steps: FlashStep[]
  /** Equal to attention()'s output (within 1e-6). */
  output: Tensor
  scale: number
  /** The block sizes the real kernel runs (36 × 128). */
  kernelBlockRows: number
  kernelBlockCols: number
}

export interface MultiHeadAttentionOptions {
  /** [nq, E], or [B, nq, E] for a batch (PyTorch's batch_first=True; key and value then [B, nk, ·]). */
  query: TensorLike
  key: TensorLike
  value: TensorLike
  numHeads: number
  /**
   * Grouped-query heads: K/V heads, each shared by numHeads / numKVHeads query heads (query head h reads K/V head
   * ⌊h · numKVHeads / numHeads⌋, as Hugging Face's repeat_kv). Default numHeads; 1 is multi-query. kProjWeight and
   * vProjWeight then have kv = numKVHeads · E / numHeads rows; inProjWeight [E + 2kv, E], inProjBias [E + 2kv].
   */
  numKVHeads?: number
  inProjWeight?: TensorLike
  qProjWeight?: TensorLike
  kProjWeight?: TensorLike
  vProjWeight?: TensorLike
  inProjBias?: TensorLike
  outProjWeight: TensorLike
  outProjBias?: TensorLike
  causal?: boolean
  /** [nk], or [B, nk] (flat or nested) for a batch; true / 1 = padding. */
  keyPaddingMask?: ArrayLike<boolean | number> | ArrayLike<boolean | number>[]
  /**
   * [nq, nk] row-major, shared by a batch. A Float32Array is PyTorch's float attn_mask: added to the scaled
   * scores before softmax (finite values or -Infinity = masked; NaN and +Infinity are rejected). Any other
   * array is boolean: true / nonzero = masked.
   */
  attnMask?: Float32Array | ArrayLike<boolean | number>
  /** A causal sliding window: query i sees keys i − window < j ≤ i, plus the first `sinks` keys. */
  window?: number
  sinks?: number
  /** One learned sink logit per head (gpt-oss): each row's weights then sum to 1 − sinkShare. */
  sinkLogits?: ArrayLike<number>
  /** RoPE in each head (head size E / numHeads even), positions 0, 1, …; base default 10000. */
  rope?: { base?: number }
  /** ALiBi: head h's scores biased by -m_h·|i - j|, the slopes of BLOOM's build_alibi_tensor. */
  alibi?: boolean
}

export interface MultiHeadAttentionResult {
  /** [nq, E], or [B, nq, E]. */
  output: Tensor
  /** [numHeads, nq, nk], or [B, numHeads, nq, nk] (PyTorch's average_attn_weights=False). */
  weights: Tensor
  /** Rows with every key masked (their weights and output rows are 0; PyTorch gives NaN); per item for a batch. */
  maskedRows: number[] | number[][]
  /** With sinkLogits: [numHeads, nq] (or [B, numHeads, nq]), each row's weight on the sink. */
  sinkShare?: Tensor
}

export interface Tokenization {
  tokens: string[]
  ids: number[]
  vocab: string[]
  merges: [string, string][]
}

export interface MemoryStats {
  /** Bytes of wasm linear memory. */
  heapBytes: number
  /** Bytes malloc has handed out and not taken back. */
  allocatedBytes: number
}

/** ap.attentionBackward (docs/backward.md): attention's options (dot / scaled-dot) plus dL/d(output). */
export interface AttentionBackwardOptions {
  /** [nq, d] or [batch, nq, d]. */
  query: TensorLike
  key: TensorLike
  value: TensorLike
  /** dL/dO, the output's shape: [nq, dv] or [batch, nq, dv]. */
  gradOutput: TensorLike
  /** The rules with a backward pass here: 'dot' and 'scaled-dot' (default). */
  score?: 'dot' | 'scaled-dot'
  scale?: number | boolean
  mask?: MaskSpec
  temperature?: number
}

/**
 * For S = scale · Q·Kᵀ / temperature (masked cells -∞), A = softmax(S) by rows, O = A·V; shapes as the inputs'
 * (with the batch dimension when they have one).
 */
export interface AttentionBackwardResult {
  /** dL/dQ = (scale / temperature) · dS·K. */
  gradQuery: Tensor
  /** dL/dK = (scale / temperature) · dSᵀ·Q. */
  gradKey: Tensor
  /** dL/dV = Aᵀ·dO. */
  gradValue: Tensor
  /** dL/dA = dO·Vᵀ. */
  gradWeights: Tensor
  /** dL/dS = A ⊙ (dA − rowsum(dA ⊙ A)): 0 in masked cells and fully masked rows. */
  gradScores: Tensor
}

/** The loss of ap.runBackward: −log weights[query, key] (of `head`, default 0), or Σ (output[query] − target)². */
export type PipelineLoss =
  | { kind: 'attend'; query: number; key: number; head?: number }
  | { kind: 'output'; query: number; target: TensorLike | number[] }

export interface RunBackwardOptions extends Omit<RunOptions, 'sinkLogit'> {
  loss: PipelineLoss
}

/** The trace of `run`, the loss, and its gradients (dot / scaled-dot); per-head ones like the trace's. */
export interface RunBackwardResult extends Trace {
  loss: number
  /** dL/d(embeddings) (cross attention: the target's; the source's in gradSourceEmbeddings). */
  gradEmbeddings: Tensor
  gradSourceEmbeddings?: Tensor
  gradWq: Tensor
  gradWk: Tensor
  gradWv: Tensor
  gradQuery: Tensor
  gradKey: Tensor
  gradValue: Tensor
  gradOutput: Tensor
  /** [nq, nk], or [heads, nq, nk]. */
  gradWeights: Tensor
  gradScores: Tensor
}
