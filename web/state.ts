// The whole playground state and its URL form (read and written here, nowhere else). URL parameter
// names match the widget's attributes so one link format serves both; what the state means for the
// engine is in model/.

import { STEP_NAMES } from 'attention-playground'
import { TRAINED_DIMS } from './model/trained'
import { settleClashes } from './model/options'
import { VIEW_NAMES, VIEW_PANEL_NAMES, VIEW_REGISTRY } from './views/registry'
import {
  DEFAULT_STATE,
  EDITABLE,
  LANGS,
  LIMITS,
  MASKS,
  MODES,
  RULES,
  SCALES,
  SENTENCE_FIELDS,
  SIZE_FIELDS,
  TOKENIZERS,
  WEIGHT_SOURCES,
  type CellEdit,
  type EditableTensor,
  type Lang,
  type Notice,
  type PlaygroundState,
  type Rule,
  type View,
} from './params'

export {
  DEFAULT_STATE,
  EDITABLE,
  LANGS,
  LIMITS,
  MASKS,
  MODES,
  RULES,
  SCALES,
  SENTENCE_FIELDS,
  SIZE_FIELDS,
  TOKENIZERS,
  WEIGHT_SOURCES,
}
export type {
  CellEdit,
  EditableTensor,
  Lang,
  MaskKind,
  Mode,
  Notice,
  PlaygroundState,
  Rule,
  ScaleChoice,
  Tokenizer,
  View,
  WeightSource,
} from './params'

/** The views, in tab order: their one table is views/registry.ts. */
export const VIEWS = VIEW_NAMES

/** The views the control column (and the PyTorch export of its configuration) acts on; the others hide it. */
export const VIEWS_USING_CONTROLS: readonly View[] = VIEW_REGISTRY.filter((v) => v.controls).map((v) => v.name)

export function defaultState(lang?: Lang): PlaygroundState {
  return cloneState({ ...DEFAULT_STATE, lang: lang ?? DEFAULT_STATE.lang })
}

export function cloneState(s: PlaygroundState): PlaygroundState {
  return {
    ...s,
    padKeys: [...s.padKeys],
    maskCells: s.maskCells.map(([i, j]) => [i, j] as [number, number]),
    edits: s.edits.map((e) => ({ ...e })),
  }
}

/** Preferred language from navigator.languages: any zh* wins, otherwise English. */
export function browserLang(languages: readonly string[] | undefined): Lang {
  for (const l of languages ?? []) {
    const low = l.toLowerCase()
    if (low.startsWith('zh')) return 'zh'
    if (low.startsWith('en')) return 'en'
  }
  return 'en'
}

/**
 * Old links and the engine say `general`; the page calls the rule bilinear (Luong's name "general"
 * clashes with the lesson's 一般注意力, a category, not a scoring rule). Both are read.
 */
export const RULE_ALIASES: Readonly<Record<string, Rule>> = { bilinear: 'general' }

/**
 * The causal mask belongs to the decoder's own self-attention: in cross attention every target
 * position may see the whole source, so cross mode never carries it.
 */
export function withoutCrossCausal(s: PlaygroundState): PlaygroundState {
  return s.mode === 'cross' && s.mask === 'causal' ? { ...s, mask: 'none' } : s
}

const INT_PARAMS = ['dModel', 'dq', 'dk', 'dv', 'seed', 'heads', 'head', 'guided', 'step'] as const

function parseIntStrict(v: string): number | null {
  if (!/^-?\d{1,10}$/.test(v.trim())) return null
  const n = Number(v)
  return Number.isSafeInteger(n) ? n : null
}

function oneOf<T extends string>(list: readonly T[], v: string): T | null {
  return (list as readonly string[]).includes(v) ? (v as T) : null
}

function intInRange(name: string, n: number | null): number | null {
  if (n === null) return null
  switch (name) {
    case 'dModel':
    case 'dq':
    case 'dk':
    case 'dv':
      return n >= LIMITS.dim[0] && n <= LIMITS.dim[1] ? n : null
    case 'heads':
      return n >= LIMITS.heads[0] && n <= LIMITS.heads[1] ? n : null
    case 'head':
      return n >= 0 && n < LIMITS.heads[1] ? n : null
    case 'seed':
      return n >= 0 && n <= 0xffffffff ? n : null
    case 'guided':
      return n >= 0 && n <= 5 ? n : null
    case 'step':
      return n >= 1 && n <= LIMITS.textChars ? n : null
  }
  return n
}

function parseIndexList(v: string): number[] | null {
  if (v === '') return []
  const out: number[] = []
  for (const part of v.split(',')) {
    const n = parseIntStrict(part)
    if (n === null || n < 0 || n > 100000) return null
    out.push(n)
  }
  return out
}

function parseCells(v: string): Array<[number, number]> | null {
  if (v === '') return []
  const out: Array<[number, number]> = []
  for (const part of v.split(',')) {
    const m = /^(\d{1,5})\.(\d{1,5})$/.exec(part)
    if (!m) return null
    out.push([Number(m[1]), Number(m[2])])
  }
  return out
}

function parseEdits(v: string): CellEdit[] | null {
  if (v === '') return []
  const out: CellEdit[] = []
  for (const part of v.split(';')) {
    const m = /^(embeddings|sourceEmbeddings|Wq|Wk|Wv)\.(\d{1,5})\.(\d{1,5})=(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)$/.exec(
      part,
    )
    if (!m) return null
    const val = Number(m[4])
    if (!Number.isFinite(val)) return null
    out.push({ t: m[1] as EditableTensor, r: Number(m[2]), c: Number(m[3]), v: val })
  }
  return out.length > LIMITS.edits ? null : out
}

/** Records a known parameter whose value was rejected (the state keeps its default). */
type ReportBad = (param: string, value: string) => void

function readTextParams(params: URLSearchParams, s: PlaygroundState, bad: ReportBad): void {
  for (const key of ['text', 'source', 'target'] as const) {
    const v = params.get(key)
    if (v === null) continue
    if (v.length > LIMITS.textChars) bad(key, v.slice(0, 40) + '…')
    else s[key] = v
  }
}

function readEnumParams(params: URLSearchParams, s: PlaygroundState, bad: ReportBad): void {
  const enums: Array<[string, readonly string[], keyof PlaygroundState]> = [
    ['mode', MODES, 'mode'],
    ['tokenizer', TOKENIZERS, 'tokenizer'],
    ['score', RULES, 'score'],
    ['mask', MASKS, 'mask'],
    ['scale', SCALES, 'scale'],
    ['lang', LANGS, 'lang'],
    ['view', VIEWS, 'view'],
    ['weights', WEIGHT_SOURCES, 'weights'],
  ]
  for (const [param, list, field] of enums) {
    const raw = params.get(param)
    if (raw === null) continue
    const v = param === 'score' ? (RULE_ALIASES[raw] ?? raw) : raw
    const ok = oneOf(list, v)
    if (ok === null) bad(param, v)
    else (s as unknown as Record<string, unknown>)[field] = ok
  }
}

function readNumberParams(params: URLSearchParams, s: PlaygroundState, bad: ReportBad): void {
  for (const key of INT_PARAMS) {
    const v = params.get(key)
    if (v === null) continue
    const n = intInRange(key, parseIntStrict(v))
    if (n === null) bad(key, v)
    else s[key] = n
  }
  const temp = params.get('temperature')
  if (temp !== null) {
    const t = Number(temp)
    if (temp.trim() === '' || !Number.isFinite(t) || t < LIMITS.temperature[0] || t > LIMITS.temperature[1])
      bad('temperature', temp)
    else s.temperature = t
  }
}

/** pad, cells and edits: the lists that a link carries. */
function readListParams(params: URLSearchParams, s: PlaygroundState, bad: ReportBad): void {
  const pad = params.get('pad')
  if (pad !== null) {
    const p = parseIndexList(pad)
    if (p === null) bad('pad', pad)
    else s.padKeys = p
  }
  const cells = params.get('cells')
  if (cells !== null) {
    const c = parseCells(cells)
    if (c === null) bad('cells', cells)
    else s.maskCells = c
  }
  const edits = params.get('edits')
  if (edits !== null) {
    const e = parseEdits(edits)
    if (e === null) bad('edits', edits.length > 60 ? edits.slice(0, 60) + '…' : edits)
    else s.edits = e
  }
}

function readSrcParam(params: URLSearchParams, s: PlaygroundState, bad: ReportBad): void {
  const src = params.get('src')
  if (src !== null) {
    if (src.length > LIMITS.srcChars) bad('src', src.slice(0, 40) + '…')
    else {
      s.src = src
      // A link to a model file opens its view unless the link names another.
      if (!params.has('view')) s.view = 'model'
    }
  }
}

/** Defaults implied by other parameters, then the clashes settled; returns the notices for what changed. */
function settleParsedState(params: URLSearchParams, s: PlaygroundState, base: PlaygroundState): Notice[] {
  if (params.has('source') || params.has('target')) {
    if (!params.has('mode')) s.mode = 'cross'
  }
  // Trained weights come with the trained model's sizes and tokenizer.
  if (s.weights === 'trained') Object.assign(s, TRAINED_DIMS)
  if (s.head >= s.heads) s.head = 0
  const notices: Notice[] = [...settleClashes(s)]
  if (s.mode === 'cross' && s.mask === 'causal') {
    notices.push({ param: 'mask', value: 'causal', reason: 'crossCausal' })
    s.mask = base.mask === 'causal' ? 'none' : base.mask
  }
  return notices
}

/**
 * Reads a state from URL parameters (or widget attributes). Unknown parameters are ignored; a known
 * parameter with an invalid value keeps its default and is reported, so the page can say so.
 */
export function parseParams(
  params: URLSearchParams,
  base: PlaygroundState,
): { state: PlaygroundState; notices: Notice[] } {
  const s = cloneState(base)
  const notices: Notice[] = []
  const bad: ReportBad = (param, value) => {
    notices.push({ param, value })
  }
  readTextParams(params, s, bad)
  readEnumParams(params, s, bad)
  readNumberParams(params, s, bad)
  readListParams(params, s, bad)
  readSrcParam(params, s, bad)
  notices.push(...settleParsedState(params, s, base))
  return { state: s, notices }
}

/** Only what differs from the defaults goes into the URL, so links stay short and readable. */
export function toParams(s: PlaygroundState, base: PlaygroundState = DEFAULT_STATE): URLSearchParams {
  const p = new URLSearchParams()
  const simple: Array<keyof PlaygroundState> = [
    ...SENTENCE_FIELDS,
    'score',
    'scale',
    'mask',
    ...SIZE_FIELDS,
    'heads',
    'head',
    'temperature',
    'lang',
    'guided',
    'view',
    'src',
    'weights',
    'step',
  ]
  for (const k of simple) {
    if (k === 'source' || k === 'target') {
      // The decode view reads the source and target in either mode.
      if (s.mode !== 'cross' && s.view !== 'decode') continue
    }
    if (k === 'text' && s.mode === 'cross') continue
    if (s[k] !== base[k] || (k === 'mode' && (s.mode === 'cross' || s.view === 'decode'))) p.set(k, String(s[k]))
  }
  if (s.padKeys.length) p.set('pad', s.padKeys.join(','))
  if (s.maskCells.length) p.set('cells', s.maskCells.map(([i, j]) => `${i}.${j}`).join(','))
  if (s.edits.length) p.set('edits', s.edits.map((e) => `${e.t}.${e.r}.${e.c}=${e.v}`).join(';'))
  return p
}

/** Panel names `steps` accepts: the engine's step names and the page's other panels. */
export const PANEL_NAMES = new Set<string>([
  ...STEP_NAMES,
  'sourceEmbeddings',
  'tokens',
  'params',
  'lines',
  'arith',
  'guided',
  'decoderSelfAttention',
  'long',
  'quiz',
  ...VIEW_PANEL_NAMES,
])

/**
 * A `steps` list (the widget's attribute, the page's URL parameter): the panels to show, comma-separated.
 * Unknown names are reported as a notice; undefined (every panel) when absent, empty or all unknown.
 */
export function parseSteps(value: string | null, notices: Notice[]): string[] | undefined {
  if (value === null || value.trim() === '') return undefined
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const known = names.filter((n) => PANEL_NAMES.has(n))
  const unknown = names.filter((n) => !PANEL_NAMES.has(n))
  if (unknown.length) notices.push({ param: 'steps', value: unknown.join(',') })
  return known.length ? known : undefined
}
