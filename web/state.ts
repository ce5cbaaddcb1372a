// The whole playground state, its URL form, and its translation into engine options.
// URL parameter names match the widget's attributes (issue 4) so one link format serves both.

import type { MaskOption, RunOptions, Tensor } from './engine-types'

export const TOKENIZERS = ['word-sorted', 'word', 'char', 'bpe'] as const
export const RULES = ['dot', 'scaled-dot', 'general', 'additive', 'concat'] as const
export const MASKS = ['none', 'causal', 'padding', 'cells'] as const
export const MODES = ['self', 'cross'] as const
export const VIEWS = ['pipeline', 'why', 'origin', 'train'] as const
export const SCALES = ['auto', 'on', 'off'] as const
export const EDITABLE = ['embeddings', 'sourceEmbeddings', 'Wq', 'Wk', 'Wv'] as const
export const LANGS = ['zh', 'en'] as const

export type Tokenizer = (typeof TOKENIZERS)[number]
export type Rule = (typeof RULES)[number]
export type MaskKind = (typeof MASKS)[number]
export type Mode = (typeof MODES)[number]
export type View = (typeof VIEWS)[number]
export type ScaleChoice = (typeof SCALES)[number]
export type EditableTensor = (typeof EDITABLE)[number]
export type Lang = (typeof LANGS)[number]

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
}

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
} as PlaygroundState)

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

// Bounds the page accepts; the engine has its own limits and says so when they are exceeded.
export const LIMITS = {
  dim: [1, 512] as const,
  heads: [1, 16] as const,
  temperature: [0.05, 10] as const,
  textChars: 4000,
  edits: 256,
}

export interface Notice {
  param: string
  value: string
}

const INT_PARAMS = ['dModel', 'dq', 'dk', 'dv', 'seed', 'heads', 'head', 'guided'] as const

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
    case 'dModel': case 'dq': case 'dk': case 'dv':
      return n >= LIMITS.dim[0] && n <= LIMITS.dim[1] ? n : null
    case 'heads':
      return n >= LIMITS.heads[0] && n <= LIMITS.heads[1] ? n : null
    case 'head':
      return n >= 0 && n < LIMITS.heads[1] ? n : null
    case 'seed':
      return n >= 0 && n <= 0xffffffff ? n : null
    case 'guided':
      return n >= 0 && n <= 5 ? n : null
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
    const m = /^(embeddings|sourceEmbeddings|Wq|Wk|Wv)\.(\d{1,5})\.(\d{1,5})=(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)$/.exec(part)
    if (!m) return null
    const val = Number(m[4])
    if (!Number.isFinite(val)) return null
    out.push({ t: m[1] as EditableTensor, r: Number(m[2]), c: Number(m[3]), v: val })
  }
  return out.length > LIMITS.edits ? null : out
}

/**
 * Reads a state from URL parameters (or widget attributes). Unknown parameters are ignored; a known
 * parameter with an invalid value keeps its default and is reported, so the page can say so.
 */
export function parseParams(params: URLSearchParams, base: PlaygroundState): { state: PlaygroundState; notices: Notice[] } {
  const s = cloneState(base)
  const notices: Notice[] = []
  const bad = (param: string, value: string) => notices.push({ param, value })

  for (const key of ['text', 'source', 'target'] as const) {
    const v = params.get(key)
    if (v === null) continue
    if (v.length > LIMITS.textChars) bad(key, v.slice(0, 40) + '…')
    else s[key] = v
  }
  const enums: Array<[string, readonly string[], keyof PlaygroundState]> = [
    ['mode', MODES, 'mode'], ['tokenizer', TOKENIZERS, 'tokenizer'], ['score', RULES, 'score'],
    ['mask', MASKS, 'mask'], ['scale', SCALES, 'scale'], ['lang', LANGS, 'lang'], ['view', VIEWS, 'view'],
  ]
  for (const [param, list, field] of enums) {
    const v = params.get(param)
    if (v === null) continue
    const ok = oneOf(list, v)
    if (ok === null) bad(param, v)
    else (s as unknown as Record<string, unknown>)[field] = ok
  }
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
    if (temp.trim() === '' || !Number.isFinite(t) || t < LIMITS.temperature[0] || t > LIMITS.temperature[1]) bad('temperature', temp)
    else s.temperature = t
  }
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
  if (params.has('source') || params.has('target')) {
    if (!params.has('mode')) s.mode = 'cross'
  }
  if (s.head >= s.heads) s.head = 0
  return { state: s, notices }
}

/** Only what differs from the defaults goes into the URL, so links stay short and readable. */
export function toParams(s: PlaygroundState, base: PlaygroundState = DEFAULT_STATE): URLSearchParams {
  const p = new URLSearchParams()
  const simple: Array<keyof PlaygroundState> = [
    'mode', 'text', 'source', 'target', 'tokenizer', 'score', 'scale', 'mask', 'dModel', 'dq', 'dk', 'dv',
    'seed', 'heads', 'head', 'temperature', 'lang', 'guided', 'view',
  ]
  for (const k of simple) {
    if (k === 'source' || k === 'target') {
      if (s.mode !== 'cross') continue
    }
    if (k === 'text' && s.mode === 'cross') continue
    if (s[k] !== base[k] || (k === 'mode' && s.mode === 'cross')) p.set(k, String(s[k]))
  }
  if (s.padKeys.length) p.set('pad', s.padKeys.join(','))
  if (s.maskCells.length) p.set('cells', s.maskCells.map(([i, j]) => `${i}.${j}`).join(','))
  if (s.edits.length) p.set('edits', s.edits.map((e) => `${e.t}.${e.r}.${e.c}=${e.v}`).join(';'))
  return p
}

/** The scale multiplier for the engine: undefined lets the engine apply the rule's default. */
export function resolveScale(s: PlaygroundState): number | false | undefined {
  if (s.scale === 'auto') return undefined
  if (s.scale === 'off') return false
  return 1 / Math.sqrt(s.dk / s.heads)
}

/** Whether ÷√d_k is in effect (for the toggle's checked state). */
export function scaleIsOn(s: PlaygroundState): boolean {
  if (s.scale === 'auto') return s.score === 'scaled-dot'
  return s.scale === 'on'
}

export function maskOption(s: PlaygroundState, nq: number, nk: number): MaskOption {
  switch (s.mask) {
    case 'none':
      return 'none'
    case 'causal':
      return 'causal'
    case 'padding': {
      const keyPadding = new Array<boolean>(nk).fill(false)
      for (const j of s.padKeys) if (j < nk) keyPadding[j] = true
      return { keyPadding }
    }
    case 'cells': {
      const matrix = new Uint8Array(nq * nk)
      for (const [i, j] of s.maskCells) if (i < nq && j < nk) matrix[i * nk + j] = 1
      return { matrix }
    }
  }
}

export function baseRunOptions(s: PlaygroundState, nq: number, nk: number): RunOptions {
  const o: RunOptions = {
    tokenizer: s.tokenizer,
    dModel: s.dModel,
    dq: s.dq,
    dk: s.dk,
    dv: s.dv,
    seed: s.seed,
    score: s.score,
    mask: maskOption(s, nq, nk),
    temperature: s.temperature,
    heads: s.heads,
  }
  const scale = resolveScale(s)
  if (scale !== undefined) o.scale = scale
  if (s.mode === 'cross') {
    o.source = s.source
    o.target = s.target
  } else {
    o.text = s.text
  }
  return o
}

/**
 * Applies cell edits to copies of the traced tensors. Edits that fall outside the current shapes
 * (the text or a size changed since) are dropped and returned so the page can tell the learner.
 */
export function applyEdits(
  tensors: Record<EditableTensor, Tensor | undefined>,
  edits: readonly CellEdit[],
): { overrides: Partial<Record<EditableTensor, Tensor>>; dropped: CellEdit[] } {
  const overrides: Partial<Record<EditableTensor, Tensor>> = {}
  const dropped: CellEdit[] = []
  for (const e of edits) {
    const src = tensors[e.t]
    if (!src || src.shape.length !== 2 || e.r >= src.shape[0] || e.c >= src.shape[1]) {
      dropped.push(e)
      continue
    }
    let t = overrides[e.t]
    if (!t) {
      t = { data: new Float32Array(src.data), shape: [...src.shape] }
      overrides[e.t] = t
    }
    t.data[e.r * src.shape[1] + e.c] = e.v
  }
  return { overrides, dropped }
}

/** Replaces or adds one edit (the latest value of a cell wins). */
export function withEdit(edits: readonly CellEdit[], e: CellEdit): CellEdit[] {
  const out = edits.filter((x) => !(x.t === e.t && x.r === e.r && x.c === e.c))
  out.push(e)
  return out
}

export function toggleCell(cells: ReadonlyArray<[number, number]>, i: number, j: number): Array<[number, number]> {
  const has = cells.some(([a, b]) => a === i && b === j)
  return has ? cells.filter(([a, b]) => !(a === i && b === j)) : [...cells, [i, j]]
}

export function toggleIndex(list: readonly number[], j: number): number[] {
  return list.includes(j) ? list.filter((x) => x !== j) : [...list, j].sort((a, b) => a - b)
}

/** Changing what the tokens or shapes are invalidates position-bound choices. */
export function resetsPositions(prev: PlaygroundState, next: PlaygroundState): boolean {
  return prev.text !== next.text || prev.source !== next.source || prev.target !== next.target ||
    prev.tokenizer !== next.tokenizer || prev.mode !== next.mode
}

export function resetsEdits(prev: PlaygroundState, next: PlaygroundState): boolean {
  return resetsPositions(prev, next) || prev.dModel !== next.dModel || prev.dq !== next.dq ||
    prev.dk !== next.dk || prev.dv !== next.dv || prev.seed !== next.seed
}
