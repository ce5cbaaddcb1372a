// The engine's contract as the page uses it (docs/design.md "JS package"). Kept here as plain types so
// the page logic and its tests compile without the wasm package being built.

export interface Tensor {
  data: Float32Array
  shape: number[]
}

export type MaskOption = 'none' | 'causal' | { keyPadding: boolean[] } | { matrix: Uint8Array }

export interface RunOptions {
  text?: string
  source?: string
  target?: string
  tokenizer?: string
  dModel?: number
  dq?: number
  dk?: number
  dv?: number
  seed?: number
  score?: string
  scale?: number | boolean
  mask?: MaskOption
  temperature?: number
  heads?: number
  embeddings?: Tensor
  sourceEmbeddings?: Tensor
  Wq?: Tensor
  Wk?: Tensor
  Wv?: Tensor
}

/** A scoring rule's parameters for one head (absent members do not apply to the rule). */
export interface ScoreParams {
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
  sourceTokens?: string[]
  sourceTokenIds?: number[]
  embeddings: Tensor
  sourceEmbeddings?: Tensor
  Wq: Tensor
  Wk: Tensor
  Wv: Tensor
  Q: Tensor
  K: Tensor
  V: Tensor
  scores: Tensor
  scaledScores: Tensor
  maskedScores: Tensor
  weights: Tensor
  output: Tensor
  maskedRows: number[]
  merges: [string, string][]
  selfAttention?: boolean
  /** The scale multiplier that was applied. */
  scale: number
  heads: number
  /** One object per head when heads > 1. */
  params: ScoreParams | ScoreParams[]
}

export interface AttentionCall {
  query: Tensor
  key: Tensor
  value: Tensor
  score?: string
  scale?: number | boolean
  mask?: MaskOption
  temperature?: number
  params?: ScoreParams
  /** false: the fused kernel, which never builds the nq×nk matrix (dot / scaled-dot, none / causal). */
  needWeights?: boolean
}

export interface AttentionOut {
  scores?: Tensor
  weights?: Tensor
  output: Tensor
  maskedRows: number[] | number[][]
}

export interface Engine {
  run(opts: RunOptions): Trace
  tokenize?(text: string, tokenizer: string, options?: unknown): unknown
  attention?(opts: AttentionCall): AttentionOut
}

export const STEP_NAMES = [
  'embeddings', 'Wq', 'Wk', 'Wv', 'Q', 'K', 'V',
  'scores', 'scaledScores', 'maskedScores', 'weights', 'output',
] as const
export type StepName = (typeof STEP_NAMES)[number]
