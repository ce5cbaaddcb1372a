// Messages between the Train panel (main thread) and its Web Worker, which owns the trainer so that
// training never blocks the page.

import type { HeadScores, ScoreRule, Trace, TrainTask } from 'attention-playground'

export interface TrainSettings {
  task: TrainTask
  score: ScoreRule
  heads: number
  dModel: number
  optimizer: 'adam' | 'sgd'
  lr: number
  seed: number
  /** How word order enters the model (docs/positions.md): a learned table, the sinusoidal table, or RoPE. */
  positions: 'learned' | 'sinusoidal' | 'rope'
  /** next-char only */
  text?: string
}

/** The training the Train tab starts with, and the one "why attention" trains its example with. */
export const DEFAULT_TRAIN_SETTINGS: Readonly<TrainSettings> = Object.freeze({
  task: 'coreference',
  score: 'scaled-dot',
  heads: 1,
  dModel: 32,
  optimizer: 'adam',
  lr: 0.01,
  seed: 0,
  positions: 'learned',
})

export type ToWorker =
  | { type: 'reset'; settings: TrainSettings; sentence?: string }
  | { type: 'play' }
  | { type: 'pause' }
  | { type: 'step'; n: number }
  | { type: 'lr'; lr: number }
  | { type: 'sentence'; text: string }
  | { type: 'inspect' }
  /** The panel's watchdog: the worker answers 'pong' at once (web/train/panel.ts restarts a worker that stops answering). */
  | { type: 'ping' }

export interface Snapshot {
  steps: number
  /** The learning rate of the next step, after the schedule (warm-up, then cosine decay). */
  lrInUse: number
  /** Mean training loss / accuracy of the last chunk of steps. */
  train: { loss: number; accuracy: number }
  /** Held-out loss / accuracy (recomputed every few chunks; null before the first evaluation). */
  test: { loss: number; accuracy: number } | null
  /** Attention of the chosen sentence in the last layer, averaged over heads: tokens × tokens. */
  attention: { tokens: string[]; weights: Float32Array } | null
  attentionError: string | null
  /** 2-D PCA of the token embeddings: x0, y0, x1, y1, … one pair per vocabulary entry. */
  pca: Float32Array
  playing: boolean
  /** induction only: the held-out accuracy on the other (not copyable) words. */
  restAccuracy?: number
  /** induction only: every layer's and head's attention on the watched sequence, and the heads' scores. */
  induction?: InductionSnapshot
  /** ‖dL/dW‖ (Frobenius) of the last layer's W_q, W_k, W_v, W_o and of the embeddings, on a training batch. */
  gradNorms: Array<{ name: string; norm: number }>
}

export interface InductionSnapshot {
  tokens: string[]
  /** [layer][head] n × n attention weights (rows: queries). */
  maps: Float32Array[][]
  /** The heads' scores on held-out sequences, recomputed with every evaluation, and the step they were taken at. */
  scores: HeadScores | null
  scoresAt: number
}

export interface ReadyInfo {
  vocab: string[]
  sample: string
  testSize: number
  trainSize: number
  layers: number
  heads: number
}

export type FromWorker =
  | { type: 'ready'; info: ReadyInfo; snapshot: Snapshot }
  | { type: 'snapshot'; snapshot: Snapshot }
  /** `fatal`: a wasm trap (WebAssembly.RuntimeError): the engine's state is lost, so the panel replaces the worker. */
  | { type: 'error'; message: string; fatal?: boolean }
  /** "Look inside this step": the last layer's attention on the sentence, as run options the backward view runs. */
  | { type: 'inspect'; trace: Trace; labels: string[] }

/** The worker's answer to a ping (the panel's watchdog), apart from FromWorker: only the panel reads it. */
export interface Pong {
  type: 'pong'
}
