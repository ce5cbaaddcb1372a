// The playground's state: its fields, their kinds and defaults, and the page's bounds. A leaf module
// (it imports only types), so every layer may read it; state.ts re-exports it with the URL form.

import { SCORE_RULES, TOKENIZER_NAMES } from 'attention-playground'

/**
 * The views' names. Their one table is views/registry.ts, which adds its entries' names to this
 * interface (so this module imports nothing of the views and every layer may import it).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by views/registry.ts
export interface ViewNames {}
export type View = keyof ViewNames

export const TOKENIZERS = TOKENIZER_NAMES
export const RULES = SCORE_RULES
export const MASKS = ['none', 'causal', 'padding', 'cells'] as const
export const MODES = ['self', 'cross'] as const
export const SCALES = ['auto', 'on', 'off'] as const
export const EDITABLE = ['embeddings', 'sourceEmbeddings', 'Wq', 'Wk', 'Wv'] as const
export const LANGS = ['zh', 'en'] as const
/** Where W_q, W_k, W_v come from: drawn from the seed, or the Train tab's coreference model (model/trained.ts). */
export const WEIGHT_SOURCES = ['random', 'trained'] as const

export type Tokenizer = (typeof TOKENIZERS)[number]
export type Rule = (typeof RULES)[number]
export type MaskKind = (typeof MASKS)[number]
export type Mode = (typeof MODES)[number]
export type ScaleChoice = (typeof SCALES)[number]
export type EditableTensor = (typeof EDITABLE)[number]
export type Lang = (typeof LANGS)[number]
export type WeightSource = (typeof WEIGHT_SOURCES)[number]

export interface CellEdit {
  t: EditableTensor
  r: number
  c: number
  v: number
}

export interface PlaygroundState {
  mode: Mode
  text: string
  source: string
  target: string
  tokenizer: Tokenizer
  dModel: number
  dq: number
  dk: number
  dv: number
  seed: number
  heads: number
  head: number
  score: Rule
  scale: ScaleChoice
  mask: MaskKind
  padKeys: number[]
  maskCells: Array<[number, number]>
  temperature: number
  edits: CellEdit[]
  lang: Lang
  guided: number
  view: View
  /** The model file the model view opens (a URL, relative to the page), '' for none. */
  src: string
  /** random: drawn from the seed; trained: the coreference model's last layer (model/trained.ts). */
  weights: WeightSource
  /** The decoding view's step, 1-based as its label counts. */
  step: number
}

/** The fields that choose the sentences and how they are split into tokens. */
export const SENTENCE_FIELDS = ['mode', 'text', 'source', 'target', 'tokenizer'] as const satisfies Array<
  keyof PlaygroundState
>
/** The model's sizes and the seed its weights are drawn from. */
export const SIZE_FIELDS = ['dModel', 'dq', 'dk', 'dv', 'seed'] as const satisfies Array<keyof PlaygroundState>

export const DEFAULT_STATE: Readonly<PlaygroundState> = Object.freeze({
  mode: 'self',
  text: 'this is my cat',
  source: '我 爱 中国',
  target: 'I love China',
  tokenizer: 'word-sorted',
  dModel: 16,
  dq: 24,
  dk: 24,
  dv: 28,
  seed: 123,
  heads: 1,
  head: 0,
  score: 'scaled-dot',
  scale: 'auto',
  mask: 'none',
  padKeys: [],
  maskCells: [],
  temperature: 1,
  edits: [],
  lang: 'en',
  guided: 0,
  view: 'pipeline',
  src: '',
  weights: 'random',
  step: 1,
} as PlaygroundState)

// Bounds the page accepts; the engine has its own limits and says so when they are exceeded.
export const LIMITS = {
  dim: [1, 512] as const,
  heads: [1, 16] as const,
  temperature: [0.05, 10] as const,
  textChars: 4000,
  srcChars: 2048,
  edits: 256,
}

export interface Notice {
  param: string
  value: string
  /** Why a valid value was not applied (the value alone would read as a typo). */
  reason?: 'crossCausal'
  /** A value that clashed with others: the translated explanation's key and numbers (value stays the English). */
  clash?: { key: 'noticeDkClash' | 'noticeHeadsClash'; vars: Record<string, string | number> }
}
