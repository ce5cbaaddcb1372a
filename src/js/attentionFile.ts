/**
 * A model's attention as python/export_attention.py writes it (safetensors):
 *   attention.<i>.weights [heads, nq, nk], optional attention.<i>.q [heads, nq, d], .k / .v [heads, nk, d],
 *   attention.<i>.mask [nq, nk] (1 = masked); metadata: tokens, source_tokens (JSON lists of strings) and
 *   layers (a JSON list: name, kind, heads, head_names, scale, queries / keys = 'tokens' | 'source_tokens').
 * Everything is checked against the tokens, so what is drawn is what the file claims.
 */
import { AttentionError, shapeStr } from './util.js'
import type { Tensor } from './util.js'
import { filePreview, readSafetensors } from './safetensors.js'

export const ATTENTION_FILE_LIMITS = {
  /** Tokens on one side. */
  tokens: 16384,
  layers: 1024,
  heads: 256,
} as const

export interface AttentionFileLayer {
  index: number
  /** The module's name in the model, e.g. "encoder.layers.0.self_attn". */
  name: string
  kind: 'self' | 'cross'
  heads: number
  headNames: string[]
  /** The tokens of the rows (queries) and columns (keys). */
  queryTokens: string[]
  keyTokens: string[]
  /** [heads, nq, nk], as the model computed them. */
  weights: Tensor
  /** Per head, when the exporter reached them: [heads, nq, d], [heads, nk, d], [heads, nk, dv]. */
  q?: Tensor
  k?: Tensor
  v?: Tensor
  /** nq·nk, 1 = masked (absent: nothing masked). */
  mask?: Uint8Array
  /** The multiplier on Q·Kᵀ (1/√d by default). */
  scale?: number
}

export interface AttentionFile {
  format: string
  tokens: string[]
  sourceTokens?: string[]
  layers: AttentionFileLayer[]
  metadata: Record<string, string>
}

function jsonMeta(meta: Record<string, string>, key: string): unknown {
  if (meta[key] === undefined) return undefined
  try {
    return JSON.parse(meta[key])
  } catch {
    throw new AttentionError(`__metadata__.${key}: is not valid JSON`)
  }
}

function tokenList(meta: Record<string, string>, key: string): string[] | undefined {
  const v = jsonMeta(meta, key)
  if (v === undefined) return undefined
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw new AttentionError(`__metadata__.${key}: must be a JSON list of strings`)
  }
  if (v.length === 0 || v.length > ATTENTION_FILE_LIMITS.tokens) {
    throw new AttentionError(`__metadata__.${key}: ${v.length} tokens; expected 1 to ${ATTENTION_FILE_LIMITS.tokens}`)
  }
  return v as string[]
}

function checkFinite(name: string, t: Tensor): void {
  const d = t.data
  for (let i = 0; i < d.length; i++) {
    // x − x is 0 for every finite x and NaN for NaN and ±Infinity (cheaper than a call per element).
    if (d[i] - d[i] !== 0) {
      // The index in the tensor's own coordinates, so the author can find it in PyTorch.
      const at: number[] = []
      let r = i
      for (let k = t.shape.length - 1; k >= 0; k--) {
        at.unshift(r % t.shape[k])
        r = Math.floor(r / t.shape[k])
      }
      throw new AttentionError(
        `${name}: ${Number.isNaN(d[i]) ? 'NaN' : d[i] > 0 ? 'Infinity' : '-Infinity'} at ${shapeStr(at)}; the file's values must be finite`,
      )
    }
  }
}

interface LayerMeta {
  name?: unknown
  kind?: unknown
  heads?: unknown
  head_names?: unknown
  scale?: unknown
  queries?: unknown
  keys?: unknown
}

type Tensors = Map<string, Tensor>
const named = (n: number) => Array.from({ length: n }, (_, i) => String(i))

/** The layers the metadata lists, or (a file written by other tools) one per attention.<i>.weights tensor. */
function layerList(metadata: Record<string, string>, tensors: Tensors): LayerMeta[] {
  let list = jsonMeta(metadata, 'layers') as LayerMeta[] | undefined
  if (list === undefined) {
    const idx = [...tensors.keys()]
      .map((k) => /^attention\.(\d+)\.weights$/.exec(k))
      .filter((m) => m)
      .map((m) => Number(m![1]))
    const last = idx.reduce((a, b) => Math.max(a, b), -1)
    if (last >= ATTENTION_FILE_LIMITS.layers) {
      throw new AttentionError(
        `attention.${last}.weights: layer ${last} is over the limit of ${ATTENTION_FILE_LIMITS.layers} layers (0 to ${ATTENTION_FILE_LIMITS.layers - 1})`,
      )
    }
    list = Array.from({ length: last + 1 }, () => ({}))
  }
  if (!Array.isArray(list) || !list.every((l) => l !== null && typeof l === 'object')) {
    throw new AttentionError('__metadata__.layers: must be a JSON list of objects')
  }
  if (list.length === 0)
    throw new AttentionError(
      'file: no attention layers (no attention.<i>.weights tensor and no layers in the metadata)',
    )
  if (list.length > ATTENTION_FILE_LIMITS.layers) {
    throw new AttentionError(`__metadata__.layers: ${list.length} layers, the limit is ${ATTENTION_FILE_LIMITS.layers}`)
  }
  return list
}

/** The token lists, filled in (as positions) from the first layer that shows a side the metadata lacks. */
interface Sides {
  tokens?: string[]
  sourceTokens?: string[]
}

/** The weights' heads and sides within the limits (before a missing token list is filled in from them). */
function checkSizes(p: string, [heads, nq, nk]: number[]): void {
  if (heads < 1 || heads > ATTENTION_FILE_LIMITS.heads) {
    throw new AttentionError(`${p}.weights: ${heads} heads, expected 1 to ${ATTENTION_FILE_LIMITS.heads}`)
  }
  for (const [n, what] of [
    [nq, 'queries'],
    [nk, 'keys'],
  ] as const) {
    if (n < 1 || n > ATTENTION_FILE_LIMITS.tokens)
      throw new AttentionError(
        `${p}.weights: ${n} ${what} in shape ${shapeStr([heads, nq, nk])}; expected 1 to ${ATTENTION_FILE_LIMITS.tokens} tokens a side`,
      )
  }
}

/** Layer i's weights, checked against its tokens. */
function readLayer(i: number, m: LayerMeta, count: number, tensors: Tensors, sides: Sides): AttentionFileLayer {
  const p = `attention.${i}`
  const w = tensors.get(`${p}.weights`)
  if (!w) throw new AttentionError(`${p}.weights: missing (the metadata lists ${count} layers)`)
  if (w.shape.length !== 3)
    throw new AttentionError(`${p}.weights: expected [heads, queries, keys], got ${shapeStr(w.shape)}`)
  checkSizes(p, w.shape)
  const qSide = m.queries === 'source_tokens' ? 'source_tokens' : 'tokens'
  const kSide =
    m.keys === 'source_tokens'
      ? 'source_tokens'
      : m.keys === 'tokens'
        ? 'tokens'
        : m.kind === 'cross'
          ? 'source_tokens'
          : qSide
  sides.tokens ??= qSide === 'tokens' ? named(w.shape[1]) : kSide === 'tokens' ? named(w.shape[2]) : undefined
  if (kSide === 'source_tokens') sides.sourceTokens ??= named(w.shape[2])
  else if (qSide === 'source_tokens') sides.sourceTokens ??= named(w.shape[1])
  const qt = (qSide === 'tokens' ? sides.tokens : sides.sourceTokens)!
  const kt = (kSide === 'tokens' ? sides.tokens : sides.sourceTokens)!
  const heads = w.shape[0]
  if (w.shape[1] !== qt.length || w.shape[2] !== kt.length) {
    const side = (s: string) => (s === 'tokens' ? 'tokens' : 'source tokens')
    throw new AttentionError(
      `${p}.weights: shape ${shapeStr(w.shape)} does not match the tokens: expected [heads, ${qt.length}, ${kt.length}] (${qt.length} ${side(qSide)} × ${kt.length} ${side(kSide)})`,
    )
  }
  if (m.heads !== undefined && m.heads !== heads) {
    throw new AttentionError(`${p}.weights: ${heads} heads, but the metadata says ${String(m.heads)}`)
  }
  checkFinite(`${p}.weights`, w)
  const layer: AttentionFileLayer = {
    index: i,
    name: typeof m.name === 'string' ? m.name : p,
    kind: m.kind === 'cross' || (m.kind === undefined && qSide !== kSide) ? 'cross' : 'self',
    heads,
    headNames:
      Array.isArray(m.head_names) && m.head_names.length === heads && m.head_names.every((x) => typeof x === 'string')
        ? [...(m.head_names as string[])]
        : named(heads),
    queryTokens: qt,
    keyTokens: kt,
    weights: { data: w.data, shape: [...w.shape] },
  }
  readQkv(p, m, tensors, layer)
  readMask(p, tensors, layer)
  return layer
}

/** The layer's Q, K, V per head (all three or none) and its scale. */
function readQkv(p: string, m: LayerMeta, tensors: Tensors, layer: AttentionFileLayer): void {
  const q = tensors.get(`${p}.q`),
    k = tensors.get(`${p}.k`),
    v = tensors.get(`${p}.v`)
  if (!q && !k && !v) return
  if (!q || !k || !v)
    throw new AttentionError(`${p}.${!q ? 'q' : !k ? 'k' : 'v'}: missing (a layer has all of q, k and v, or none)`)
  const { heads } = layer
  const d = q.shape[2]
  const expect: Array<[string, Tensor, number, string]> = [
    ['q', q, layer.queryTokens.length, 'd'],
    ['k', k, layer.keyTokens.length, String(d)],
    ['v', v, layer.keyTokens.length, 'dv'],
  ]
  for (const [n, t, rows, last] of expect) {
    const want = [heads, rows, n === 'k' ? d : t.shape[2]]
    if (t.shape.length !== 3 || t.shape.some((x, j) => x !== want[j]) || !(t.shape[2] >= 1)) {
      throw new AttentionError(
        `${p}.${n}: shape ${shapeStr(t.shape)} does not match the tokens: expected [${heads}, ${rows}, ${last}]`,
      )
    }
    checkFinite(`${p}.${n}`, t)
  }
  layer.q = { data: q.data, shape: [...q.shape] }
  layer.k = { data: k.data, shape: [...k.shape] }
  layer.v = { data: v.data, shape: [...v.shape] }
  const scale = m.scale === undefined ? 1 / Math.sqrt(d) : m.scale
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0) {
    throw new AttentionError(`${p}: scale must be a finite number > 0, got ${filePreview(scale)}`)
  }
  layer.scale = scale
}

function readMask(p: string, tensors: Tensors, layer: AttentionFileLayer): void {
  const mask = tensors.get(`${p}.mask`)
  if (!mask) return
  const nq = layer.queryTokens.length,
    nk = layer.keyTokens.length
  if (mask.shape.length !== 2 || mask.shape[0] !== nq || mask.shape[1] !== nk) {
    throw new AttentionError(
      `${p}.mask: shape ${shapeStr(mask.shape)} does not match the tokens: expected [${nq}, ${nk}]`,
    )
  }
  checkFinite(`${p}.mask`, mask)
  layer.mask = Uint8Array.from(mask.data, (x) => (x !== 0 ? 1 : 0))
}

/** Reads and checks an attention file (see python/export_attention.py). */
export function readAttentionFile(input: ArrayBuffer | ArrayBufferView): AttentionFile {
  const { metadata, tensors } = readSafetensors(input)
  const format = metadata.format ?? ''
  if (format && !format.startsWith('attention-playground/')) {
    throw new AttentionError(
      `__metadata__.format: '${format.slice(0, 40)}' is not an attention file (expected attention-playground/1, from python/export_attention.py)`,
    )
  }
  const list = layerList(metadata, tensors)
  const sides: Sides = { tokens: tokenList(metadata, 'tokens'), sourceTokens: tokenList(metadata, 'source_tokens') }
  const layers = list.map((m, i) => readLayer(i, m, list.length, tensors, sides))
  const out: AttentionFile = { format: format || 'attention-playground/1', tokens: sides.tokens!, layers, metadata }
  if (sides.sourceTokens) out.sourceTokens = sides.sourceTokens
  return out
}
