// Messages between the Train panel (main thread) and its Web Worker, which owns the trainer so that
// training never blocks the page.

import type {
  HeadScores,
  LanguageModelHeadScores,
  PoemsTrainerConfig,
  ScoreRule,
  Trace,
  TrainTask,
} from 'attention-playground'

/** The panel's tasks: the attention trainers' and the language model of Tang poems (web/train/poems-session.ts). */
export type PanelTask = TrainTask | 'poems'

export interface TrainSettings {
  task: PanelTask
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
  /** poems only: the run's length in steps (the cosine schedule reaches lr / 10 there and training pauses once). */
  steps?: number
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
  /** `corpus`: poems only, where its three files are (absolute URLs). */
  | { type: 'reset'; settings: TrainSettings; sentence?: string; corpus?: PoemsCorpusUrls }
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
  /**
   * ‖dL/dW‖ (Frobenius) of the last layer's W_q, W_k, W_v, W_o and of the embeddings, on a training batch: measured
   * with the held-out numbers (every few chunks while playing; after every Step and pause).
   */
  gradNorms: Array<{ name: string; norm: number }>
  /** The step count `gradNorms` were measured at. */
  gradNormsAt: number
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
  | { type: 'poemsReady'; info: PoemsInfo; snapshot: PoemsSnapshot }
  | { type: 'poems'; snapshot: PoemsSnapshot }
  /** poems' "look inside": the current weights as a safetensors file (trainer.exportSafetensors()), at `steps`. */
  | { type: 'weights'; bytes: Uint8Array; steps: number }
  /** `fatal`: a wasm trap (WebAssembly.RuntimeError): the engine's state is lost, so the panel replaces the worker. */
  | { type: 'error'; message: string; fatal?: boolean }
  /** "Look inside this step": the last layer's attention on the sentence, as run options the backward view runs. */
  | { type: 'inspect'; trace: Trace; labels: string[] }

/** The worker's answer to a ping (the panel's watchdog), apart from FromWorker: only the panel reads it. */
export interface Pong {
  type: 'pong'
}

/** Task poems' peak learning rate in the panel's field: the trainer's default (POEMS_DEFAULTS.lr, docs/lm-spec.md). */
export const POEMS_LR = 3e-3

/** The poems corpus's files (public/poems/: vocab.json, train.txt, validation.txt; docs/lm-spec.md). */
export interface PoemsCorpusUrls {
  vocab: string
  train: string
  validation: string
}

/** How often the poems worker measures, in steps (each measurement costs about one training step). */
export const POEMS_EVERY = Object.freeze({
  /** the validation loss (on the first VALIDATION_POEMS poems) and the sampled poems */
  validation: 25,
  /** the head scores (on the first SCORE_POEMS poems) */
  heads: 50,
})

/** The task poems once created: the trainer's shape (trainer.config) and what the measurements use. */
export interface PoemsInfo {
  config: PoemsTrainerConfig
  /** Validation poems the loss is measured on, and the head scores. */
  validationPoems: number
  scorePoems: number
  /** Poems sampled at each measurement (temperature 0.8, the first character of validation poem i, seed 1 + i). */
  samples: number
}

/** One poem the model wrote: `poem` is the text before the first "\n" (null: it wrote none before the context). */
export interface PoemShot {
  steps: number
  poem: string | null
  /** What it wrote, the prompt included, cut at the "\n" (all of it when there is none). */
  written: string
  keepsForm: boolean
}

export interface PoemsSnapshot {
  steps: number
  lrInUse: number
  playing: boolean
  /** The training loss of each step since the last snapshot, in order (the steps before `steps`). */
  losses: number[]
  /** The last measurement's validation loss (nats a character) and its step; null before the first. */
  validation: { steps: number; loss: number } | null
  /** Of the last measurement's sampled poems, how many keep the form; the first of them, shown as a poem. */
  form: { steps: number; kept: number; total: number } | null
  sample: PoemShot | null
  /** The last head scores and their step (null before the first). */
  heads: { steps: number; scores: LanguageModelHeadScores } | null
  /** The run reached its length (settings.steps) at this snapshot: training paused once there. */
  finished: boolean
}
