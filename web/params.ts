// The playground's state: its fields, their kinds and defaults, and the page's bounds. A leaf module (it
// imports the strings' languages and the views' table, leaves too), so every layer may read it; state.ts
// re-exports it with the URL form.

import { POSITION_ENCODINGS, SCORE_RULES, TOKENIZER_NAMES } from 'attention-playground/constants'
import { LANGS, type Lang } from './i18n/core'
import type { View } from './view-table'

export { LANGS, type Lang, type View }

export const TOKENIZERS = TOKENIZER_NAMES
export const RULES = SCORE_RULES
export const MASKS = ['none', 'causal', 'padding', 'cells'] as const
/** How word order enters (issue 23): none (the course), sinusoidal, learned, rope, alibi. */
export const POSITIONS = POSITION_ENCODINGS
export const MODES = ['self', 'cross'] as const
export const SCALES = ['auto', 'on', 'off'] as const
export const EDITABLE = ['embeddings', 'sourceEmbeddings', 'Wq', 'Wk', 'Wv'] as const
/** Where W_q, W_k, W_v come from: drawn from the seed, or the Train tab's coreference model (compute/trained.ts). */
export const WEIGHT_SOURCES = ['random', 'trained'] as const

export type Tokenizer = (typeof TOKENIZERS)[number]
export type Rule = (typeof RULES)[number]
export type MaskKind = (typeof MASKS)[number]
export type PositionsChoice = (typeof POSITIONS)[number]
export type Mode = (typeof MODES)[number]
export type ScaleChoice = (typeof SCALES)[number]
export type EditableTensor = (typeof EDITABLE)[number]
export type WeightSource = (typeof WEIGHT_SOURCES)[number]

/**
 * What sets each scoring rule apart, for every place in web/ that treats the rules differently. A rule added to
 * SCORE_RULES fails the type check here until its row is written (and at every other Record<Rule, …>).
 */
export interface RuleTraits {
  /** S = Q·Kᵀ: needs dq = dk; the fused kernel (the long view's output) and the backward pass take it. */
  dotProduct: boolean
  /** The scale ÷√d_k is on by default (scale 'auto'). */
  scaledByDefault: boolean
  /** One score per value row, (W [q_i; k_i] + b)_j: a linear layer rather than a product of q and k. */
  linear: boolean
  /** The rule's own matrices that share a projection's name, and the name they are shown under (as in the .py export). */
  shownAs: Readonly<Partial<Record<string, string>>>
}

export const RULE_TRAITS: Readonly<Record<Rule, RuleTraits>> = {
  dot: { dotProduct: true, scaledByDefault: false, linear: false, shownAs: {} },
  'scaled-dot': { dotProduct: true, scaledByDefault: true, linear: false, shownAs: {} },
  general: { dotProduct: false, scaledByDefault: false, linear: false, shownAs: {} },
  additive: { dotProduct: false, scaledByDefault: false, linear: false, shownAs: { Wq: 'Wa_q', Wk: 'Wa_k' } },
  concat: { dotProduct: false, scaledByDefault: false, linear: true, shownAs: {} },
}

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
  /** How word order enters: none (the course's program), sinusoidal, learned, rope, alibi. */
  positions: PositionsChoice
  /** RoPE's base (its angles θ_i = base^(−2i/d)). */
  ropeBase: number
  edits: CellEdit[]
  lang: Lang
  guided: number
  view: View
  /** The model file the model view opens, or with view=generate the language model it writes with (a URL, relative to the page), '' for none. */
  src: string
  /** random: drawn from the seed; trained: the coreference model's last layer (compute/trained.ts). */
  weights: WeightSource
  /** The decoding view's step, 1-based as its label counts. */
  step: number
  /**
   * The panels to show (data-step / data-panel names, PANEL_NAMES in state.ts); empty: every panel. On the
   * page a list also gives the embed layout (no header, tabs or controls: an iframe shows just these panels).
   */
  steps: string[]
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
  positions: 'none',
  ropeBase: 10000,
  edits: [],
  lang: 'en',
  guided: 0,
  view: 'pipeline',
  src: '',
  weights: 'random',
  step: 1,
  steps: [],
} as PlaygroundState)

/**
 * How a parameter's text is read: `text` (at most `max` characters), `enum` (one of `values`;
 * `aliases` are read as the value they name), `view` (a name of the views table, web/view-table.ts),
 * `int` and `number` (in [min, max]), `list` (pad, cells, edits, steps: the parser in state.ts per name).
 */
export type ParamKind =
  | { kind: 'text'; max: number }
  | { kind: 'enum'; values: readonly string[]; aliases?: Readonly<Record<string, string>> }
  | { kind: 'view' }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'list'; max?: number }

/** One parameter of the state: a URL parameter, mostly also a widget attribute. */
export type ParamSpec = ParamKind & {
  /** The URL parameter. */
  name: string
  /** The state field it sets (its default is DEFAULT_STATE's). */
  field: keyof PlaygroundState
  /** The widget's attribute (HTML lower-cases names), null when only a link carries it. */
  attr: string | null
  /**
   * Folded on a first visit, in the controls' "More options" (issue 22): `true`, the parameter's control; a list,
   * those values of an enum (its select offers the others at once). A link or state that uses one opens the fold
   * (`advancedInUse`). A new advanced control: mark its row here and put the control in ControlsPanel's fold.
   */
  advanced?: true | readonly string[]
}

const DIM = { kind: 'int', min: 1, max: 512 } as const
/** The longest sentence a link or attribute may carry (characters). */
const TEXT_CHARS = 4000

/**
 * Every parameter of the state, in the order a link writes them: `parseParams` and `toParams`
 * (state.ts), the widget's `observedAttributes`, `LIMITS` and the controls' bounds read this table;
 * tests/unit/web-params.test.ts checks the documented attribute table against it.
 */
export const PARAMS: readonly ParamSpec[] = [
  { name: 'mode', field: 'mode', attr: 'mode', kind: 'enum', values: MODES },
  {
    name: 'text',
    field: 'text',
    attr: 'text',
    kind: 'text',
    max: TEXT_CHARS,
  },
  { name: 'source', field: 'source', attr: 'source', kind: 'text', max: TEXT_CHARS },
  { name: 'target', field: 'target', attr: 'target', kind: 'text', max: TEXT_CHARS },
  {
    name: 'tokenizer',
    field: 'tokenizer',
    attr: 'tokenizer',
    kind: 'enum',
    values: TOKENIZERS,

    // The course's word-sorted at first.
    advanced: ['word', 'char', 'bpe'],
  },
  {
    name: 'score',
    field: 'score',
    attr: 'score',
    kind: 'enum',
    values: RULES,
    // Old links and the engine say `general`; the page calls the rule bilinear (Luong's name "general"
    // clashes with the lesson's 一般注意力, a category, not a scoring rule). Both are read.
    aliases: { bilinear: 'general' },

    // The lesson's rule 3 (scaled dot, and dot: it without the scale) at first; its rules 1-2 and bilinear folded.
    advanced: ['general', 'additive', 'concat'],
  },
  { name: 'scale', field: 'scale', attr: 'scale', kind: 'enum', values: SCALES },
  { name: 'mask', field: 'mask', attr: 'mask', kind: 'enum', values: MASKS },
  { name: 'dModel', field: 'dModel', attr: 'dmodel', ...DIM },
  { name: 'dq', field: 'dq', attr: 'dq', ...DIM },
  { name: 'dk', field: 'dk', attr: 'dk', ...DIM },
  { name: 'dv', field: 'dv', attr: 'dv', ...DIM },
  {
    name: 'seed',
    field: 'seed',
    attr: 'seed',
    kind: 'int',
    min: 0,
    max: 0xffffffff,
  },
  { name: 'heads', field: 'heads', attr: 'heads', kind: 'int', min: 1, max: 16, advanced: true },
  { name: 'head', field: 'head', attr: null, kind: 'int', min: 0, max: 15, advanced: true },
  {
    name: 'temperature',
    field: 'temperature',
    attr: 'temperature',
    kind: 'number',
    min: 0.05,
    max: 10,

    advanced: true,
  },
  // Beyond the lessons (they have no positions): how word order enters, folded at first (docs/positions.md).
  {
    name: 'positions',
    field: 'positions',
    attr: 'positions',
    kind: 'enum',
    values: POSITIONS,

    advanced: true,
  },
  {
    name: 'ropeBase',
    field: 'ropeBase',
    attr: 'ropebase',
    kind: 'number',
    min: 1,
    max: 1e9,

    advanced: true,
  },
  { name: 'lang', field: 'lang', attr: 'lang', kind: 'enum', values: LANGS },
  // The attribute also reads present / true / false (the widget's own step before this table).
  { name: 'guided', field: 'guided', attr: 'guided', kind: 'int', min: 0, max: 5 },
  { name: 'view', field: 'view', attr: 'view', kind: 'view' },
  { name: 'src', field: 'src', attr: 'src', kind: 'text', max: 2048 },
  { name: 'weights', field: 'weights', attr: 'weights', kind: 'enum', values: WEIGHT_SOURCES },
  { name: 'step', field: 'step', attr: 'step', kind: 'int', min: 1, max: TEXT_CHARS },
  // Read at mount (the widget mounts again when the attribute changes); unknown names are named in a notice.
  { name: 'steps', field: 'steps', attr: 'steps', kind: 'list' },
  { name: 'pad', field: 'padKeys', attr: null, kind: 'list' },
  { name: 'cells', field: 'maskCells', attr: null, kind: 'list' },
  // Editing the cells of the embeddings and W_q, W_k, W_v.
  { name: 'edits', field: 'edits', attr: null, kind: 'list', max: 256, advanced: true },
]

/** Whether a value of parameter `name` (a whole parameter when `value` is absent) is in the "More options" fold. */
export function isAdvanced(name: string, value?: string): boolean {
  const a = param(name).advanced
  return a === true || (a !== undefined && value !== undefined && a.includes(value))
}

/**
 * The advanced parameters `s` uses (PARAMS' `advanced`): a whole parameter away from its default, or one of the
 * listed values. The controls open their fold when this becomes non-empty.
 */
export function advancedInUse(s: PlaygroundState): string[] {
  return PARAMS.filter((p) => {
    const v = s[p.field]
    if (p.advanced === undefined) return false
    if (p.advanced !== true) return p.advanced.includes(String(v))
    return Array.isArray(v) ? v.length > 0 : v !== DEFAULT_STATE[p.field]
  }).map((p) => p.name)
}

/** The parameter named `name` (a URL parameter). */
export function param(name: string): ParamSpec {
  const p = PARAMS.find((x) => x.name === name)
  if (!p) throw new Error(`param: no parameter named "${name}"`)
  return p
}

function range(name: string): readonly [number, number] {
  const p = param(name)
  if (p.kind !== 'int' && p.kind !== 'number') throw new Error(`range: ${name} is a ${p.kind}`)
  return [p.min, p.max] as const
}

function maxOf(name: string): number {
  const p = param(name)
  if (p.kind !== 'text' && p.kind !== 'list') throw new Error(`maxOf: ${name} is a ${p.kind}`)
  return p.max ?? Infinity
}

// Bounds the page accepts (from PARAMS); the engine has its own limits and says so when they are exceeded.
export const LIMITS = {
  dim: range('dModel'),
  heads: range('heads'),
  temperature: range('temperature'),
  ropeBase: range('ropeBase'),
  textChars: maxOf('text'),
  srcChars: maxOf('src'),
  edits: maxOf('edits'),
}

export interface Notice {
  param: string
  value: string
  /** Why a valid value was not applied (the value alone would read as a typo). */
  reason?: 'crossCausal'
  /** A value that clashed with others: the translated explanation's key and numbers (value stays the English). */
  clash?: {
    key: 'noticeDkClash' | 'noticeHeadsClash' | 'noticeRopeClash' | 'noticeAlibiClash'
    vars: Record<string, string | number>
  }
}
