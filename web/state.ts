// The whole playground state and its URL form (read and written here, nowhere else). URL parameter
// names match the widget's attributes so one link format serves both. The rules that settle one field by
// the others (`normalize`) and what the state means for the engine are in compute/.

import { POSITION_STEP_NAMES, STEP_NAMES } from 'attention-playground/constants'
import { normalize } from './compute/normalize'
import { VIEW_NAMES, VIEW_PANEL_NAMES, VIEWS_USING_CONTROLS } from './view-table'
import {
  DEFAULT_STATE,
  EDITABLE,
  LANGS,
  LIMITS,
  MASKS,
  MODES,
  POSITIONS,
  RULES,
  SCALES,
  SENTENCE_FIELDS,
  SIZE_FIELDS,
  TOKENIZERS,
  PARAMS,
  WEIGHT_SOURCES,
  type CellEdit,
  type ParamSpec,
  type EditableTensor,
  type Lang,
  type Notice,
  type PlaygroundState,
} from './params'

export {
  DEFAULT_STATE,
  EDITABLE,
  LANGS,
  LIMITS,
  MASKS,
  MODES,
  PARAMS,
  POSITIONS,
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
  PositionsChoice,
  Rule,
  ScaleChoice,
  Tokenizer,
  View,
  WeightSource,
} from './params'

/** The views, in tab order: their one table is web/view-table.ts. */
export const VIEWS = VIEW_NAMES
export { VIEWS_USING_CONTROLS }

export function defaultState(lang?: Lang): PlaygroundState {
  return cloneState({ ...DEFAULT_STATE, lang: lang ?? DEFAULT_STATE.lang })
}

export function cloneState(s: PlaygroundState): PlaygroundState {
  return {
    ...s,
    padKeys: [...s.padKeys],
    maskCells: s.maskCells.map(([i, j]) => [i, j] as [number, number]),
    edits: s.edits.map((e) => ({ ...e })),
    steps: [...s.steps],
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

/** A state the learner's change leads to (normalize's rules applied; a copy). */
export function withoutCrossCausal(s: PlaygroundState): PlaygroundState {
  const out = cloneState(s)
  normalize(out, { prev: null, given: new Set(), fromLink: false })
  return out
}

function parseIntStrict(v: string): number | null {
  if (!/^-?\d{1,10}$/.test(v.trim())) return null
  const n = Number(v)
  return Number.isSafeInteger(n) ? n : null
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

/**
 * A `steps` list (the widget's attribute, the page's URL parameter): the panels to show, comma-separated.
 * Unknown names are refused one by one (`refuse`); null when every name is unknown.
 */
function parseSteps(v: string, refuse: (part: string) => void): string[] | null {
  const names = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
  const known = names.filter((n) => PANEL_NAMES.has(n))
  const unknown = names.filter((n) => !PANEL_NAMES.has(n))
  if (names.length && !known.length) return null
  if (unknown.length) refuse(unknown.join(','))
  return known
}

/** The parser of each `list` parameter; `refuse` names a part it dropped while keeping the rest. */
const LISTS: Record<string, (v: string, refuse: (part: string) => void) => unknown> = {
  pad: parseIndexList,
  cells: parseCells,
  edits: parseEdits,
  steps: parseSteps,
}

/** One parameter's value as its field holds it, or null when the table's kind refuses it. */
function readValue(p: ParamSpec, v: string, refuse: (part: string) => void): unknown {
  switch (p.kind) {
    case 'text':
      return v.length > p.max ? null : v
    case 'enum': {
      const x = p.aliases?.[v] ?? v
      return p.values.includes(x) ? x : null
    }
    case 'view':
      return (VIEWS as readonly string[]).includes(v) ? v : null
    case 'int': {
      const n = parseIntStrict(v)
      return n !== null && n >= p.min && n <= p.max ? n : null
    }
    case 'number': {
      const n = Number(v)
      return v.trim() !== '' && Number.isFinite(n) && n >= p.min && n <= p.max ? n : null
    }
    case 'list':
      return LISTS[p.name](v, refuse)
  }
}

/** What a notice quotes of a refused value (long texts and lists cut short). */
function quoted(p: ParamSpec, v: string): string {
  if (p.kind === 'text' && v.length > p.max) return v.slice(0, 40) + '…'
  if (p.name === 'edits' && v.length > 60) return v.slice(0, 60) + '…'
  if (p.kind === 'enum') return p.aliases?.[v] ?? v
  return v
}

/** What a link implies by the parameters it names: a source or target means cross attention; a model file opens its view. */
function implied(params: URLSearchParams, s: PlaygroundState, given: ReadonlySet<string>): void {
  if ((params.has('source') || params.has('target')) && !params.has('mode')) s.mode = 'cross'
  if (given.has('src') && !params.has('view')) s.view = 'model'
}

/**
 * Reads a state from URL parameters (or widget attributes), one PARAMS row at a time. Unknown parameters
 * are ignored; a known parameter with an invalid value keeps its default and is reported, so the page can
 * say so; then what the link implies, then `normalize`.
 */
export function parseParams(
  params: URLSearchParams,
  base: PlaygroundState,
): { state: PlaygroundState; notices: Notice[] } {
  const s = cloneState(base)
  const notices: Notice[] = []
  const given = new Set<string>()
  for (const p of PARAMS) {
    const v = params.get(p.name)
    if (v === null) continue
    const value = readValue(p, v, (part) => notices.push({ param: p.name, value: part }))
    if (value === null) notices.push({ param: p.name, value: quoted(p, v) })
    else {
      ;(s as unknown as Record<string, unknown>)[p.field] = value
      given.add(p.field)
    }
  }
  implied(params, s, given)
  notices.push(...normalize(s, { prev: base, given, fromLink: true }))
  return { state: s, notices }
}

/** A field's value in a link. */
function written(p: ParamSpec, s: PlaygroundState): string {
  switch (p.name) {
    case 'pad':
      return s.padKeys.join(',')
    case 'cells':
      return s.maskCells.map(([i, j]) => `${i}.${j}`).join(',')
    case 'edits':
      return s.edits.map((e) => `${e.t}.${e.r}.${e.c}=${e.v}`).join(';')
    case 'steps':
      return s.steps.join(',')
  }
  return String(s[p.field])
}

/** Whether a link carries the field: what differs from the base, and what a view needs said. */
function carries(p: ParamSpec, s: PlaygroundState, base: PlaygroundState): boolean {
  if (p.kind === 'list') return (s[p.field] as unknown[]).length > 0
  // The decode view reads the source and target in either mode.
  if ((p.name === 'source' || p.name === 'target') && s.mode !== 'cross' && s.view !== 'decode') return false
  if (p.name === 'text' && s.mode === 'cross') return false
  if (p.name === 'mode' && (s.mode === 'cross' || s.view === 'decode')) return true
  return s[p.field] !== base[p.field]
}

/** Only what differs from the defaults goes into the URL, so links stay short and readable. */
export function toParams(s: PlaygroundState, base: PlaygroundState = DEFAULT_STATE): URLSearchParams {
  const out = new URLSearchParams()
  for (const p of PARAMS) if (carries(p, s, base)) out.set(p.name, written(p, s))
  return out
}

/** Panel names `steps` accepts (PARAMS' steps row): the engine's step names and the page's other panels. */
export const PANEL_NAMES = new Set<string>([
  ...STEP_NAMES,
  ...POSITION_STEP_NAMES,
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
