/**
 * A model's attention as python/export_attention.py writes it (safetensors):
 *   attention.<i>.weights [heads, nq, nk], optional attention.<i>.q [heads, nq, d], .k / .v [heads, nk, d],
 *   attention.<i>.mask [nq, nk] (1 = masked); metadata: tokens, source_tokens (JSON lists of strings) and
 *   layers (a JSON list: name, kind, heads, head_names, scale, queries / keys = 'tokens' | 'source_tokens').
 * Everything is checked against the tokens, so what is drawn is what the file claims.
 */
import { AttentionError } from './util.js';
import type { Tensor } from './util.js';
import { readSafetensors } from './safetensors.js';

export const ATTENTION_FILE_LIMITS = {
  /** Tokens on one side. */
  tokens: 16384,
  layers: 1024,
  heads: 256,
} as const;

export interface AttentionFileLayer {
  index: number;
  /** The module's name in the model, e.g. "encoder.layers.0.self_attn". */
  name: string;
  kind: 'self' | 'cross';
  heads: number;
  headNames: string[];
  /** The tokens of the rows (queries) and columns (keys). */
  queryTokens: string[];
  keyTokens: string[];
  /** [heads, nq, nk], as the model computed them. */
  weights: Tensor;
  /** Per head, when the exporter reached them: [heads, nq, d], [heads, nk, d], [heads, nk, dv]. */
  q?: Tensor;
  k?: Tensor;
  v?: Tensor;
  /** nq·nk, 1 = masked (absent: nothing masked). */
  mask?: Uint8Array;
  /** The multiplier on Q·Kᵀ (1/√d by default). */
  scale?: number;
}

export interface AttentionFile {
  format: string;
  tokens: string[];
  sourceTokens?: string[];
  layers: AttentionFileLayer[];
  metadata: Record<string, string>;
}

function jsonMeta(meta: Record<string, string>, key: string): unknown {
  if (meta[key] === undefined) return undefined;
  try {
    return JSON.parse(meta[key]);
  } catch {
    throw new AttentionError(`__metadata__.${key}: is not valid JSON`);
  }
}

function tokenList(meta: Record<string, string>, key: string): string[] | undefined {
  const v = jsonMeta(meta, key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw new AttentionError(`__metadata__.${key}: must be a JSON list of strings`);
  }
  if (v.length === 0 || v.length > ATTENTION_FILE_LIMITS.tokens) {
    throw new AttentionError(`__metadata__.${key}: ${v.length} tokens; expected 1 to ${ATTENTION_FILE_LIMITS.tokens}`);
  }
  return v as string[];
}

const shapeStr = (s: readonly number[]) => `[${s.join(', ')}]`;

function checkFinite(name: string, t: Tensor): void {
  const d = t.data;
  for (let i = 0; i < d.length; i++) {
    // x − x is 0 for every finite x and NaN for NaN and ±Infinity (cheaper than a call per element).
    if (d[i] - d[i] !== 0) {
      // The index in the tensor's own coordinates, so the author can find it in PyTorch.
      const at: number[] = [];
      let r = i;
      for (let k = t.shape.length - 1; k >= 0; k--) { at.unshift(r % t.shape[k]); r = Math.floor(r / t.shape[k]); }
      throw new AttentionError(`${name}: ${Number.isNaN(d[i]) ? 'NaN' : d[i] > 0 ? 'Infinity' : '-Infinity'} at ${shapeStr(at)}; the file's values must be finite`);
    }
  }
}

interface LayerMeta {
  name?: unknown;
  kind?: unknown;
  heads?: unknown;
  head_names?: unknown;
  scale?: unknown;
  queries?: unknown;
  keys?: unknown;
}

/** Reads and checks an attention file (see python/export_attention.py). */
export function readAttentionFile(input: ArrayBuffer | ArrayBufferView): AttentionFile {
  const { metadata, tensors } = readSafetensors(input);
  const format = metadata.format ?? '';
  if (format && !format.startsWith('attention-playground/')) {
    throw new AttentionError(`__metadata__.format: '${format.slice(0, 40)}' is not an attention file (expected attention-playground/1, from python/export_attention.py)`);
  }
  let layerMeta = jsonMeta(metadata, 'layers') as LayerMeta[] | undefined;
  if (layerMeta === undefined) {
    // A file written by other tools: the layers are the weights tensors there are.
    const idx = [...tensors.keys()].map((k) => /^attention\.(\d+)\.weights$/.exec(k)).filter((m) => m).map((m) => Number(m![1]));
    layerMeta = Array.from({ length: idx.length ? Math.max(...idx) + 1 : 0 }, () => ({}));
  }
  if (!Array.isArray(layerMeta) || !layerMeta.every((l) => l !== null && typeof l === 'object')) {
    throw new AttentionError('__metadata__.layers: must be a JSON list of objects');
  }
  if (layerMeta.length === 0) throw new AttentionError('file: no attention layers (no attention.<i>.weights tensor and no layers in the metadata)');
  if (layerMeta.length > ATTENTION_FILE_LIMITS.layers) {
    throw new AttentionError(`__metadata__.layers: ${layerMeta.length} layers, the limit is ${ATTENTION_FILE_LIMITS.layers}`);
  }
  const named = (n: number) => Array.from({ length: n }, (_, i) => String(i));
  let tokens = tokenList(metadata, 'tokens');
  let sourceTokens = tokenList(metadata, 'source_tokens');
  const layers: AttentionFileLayer[] = [];
  layerMeta.forEach((m, i) => {
    const p = `attention.${i}`;
    const w = tensors.get(`${p}.weights`);
    if (!w) throw new AttentionError(`${p}.weights: missing (the metadata lists ${layerMeta!.length} layers)`);
    if (w.shape.length !== 3) throw new AttentionError(`${p}.weights: expected [heads, queries, keys], got ${shapeStr(w.shape)}`);
    const qSide = m.queries === 'source_tokens' ? 'source_tokens' : 'tokens';
    const kSide = m.keys === 'source_tokens' ? 'source_tokens' : m.keys === 'tokens' ? 'tokens' : m.kind === 'cross' ? 'source_tokens' : qSide;
    tokens ??= qSide === 'tokens' ? named(w.shape[1]) : kSide === 'tokens' ? named(w.shape[2]) : undefined;
    if (kSide === 'source_tokens') sourceTokens ??= named(w.shape[2]);
    else if (qSide === 'source_tokens') sourceTokens ??= named(w.shape[1]);
    const qt = (qSide === 'tokens' ? tokens : sourceTokens)!;
    const kt = (kSide === 'tokens' ? tokens : sourceTokens)!;
    const heads = w.shape[0];
    if (heads < 1 || heads > ATTENTION_FILE_LIMITS.heads) {
      throw new AttentionError(`${p}.weights: ${heads} heads, expected 1 to ${ATTENTION_FILE_LIMITS.heads}`);
    }
    if (w.shape[1] !== qt.length || w.shape[2] !== kt.length) {
      throw new AttentionError(`${p}.weights: shape ${shapeStr(w.shape)} does not match the tokens: expected [heads, ${qt.length}, ${kt.length}] (${qt.length} ${qSide === 'tokens' ? 'tokens' : 'source tokens'} × ${kt.length} ${kSide === 'tokens' ? 'tokens' : 'source tokens'})`);
    }
    if (m.heads !== undefined && m.heads !== heads) {
      throw new AttentionError(`${p}.weights: ${heads} heads, but the metadata says ${String(m.heads)}`);
    }
    checkFinite(`${p}.weights`, w);
    const layer: AttentionFileLayer = {
      index: i,
      name: typeof m.name === 'string' ? m.name : p,
      kind: m.kind === 'cross' || (m.kind === undefined && qSide !== kSide) ? 'cross' : 'self',
      heads,
      headNames: Array.isArray(m.head_names) && m.head_names.length === heads && m.head_names.every((x) => typeof x === 'string')
        ? [...(m.head_names as string[])] : named(heads),
      queryTokens: qt,
      keyTokens: kt,
      weights: { data: w.data, shape: [...w.shape] },
    };
    const q = tensors.get(`${p}.q`), k = tensors.get(`${p}.k`), v = tensors.get(`${p}.v`);
    if (q || k || v) {
      if (!q || !k || !v) throw new AttentionError(`${p}.${!q ? 'q' : !k ? 'k' : 'v'}: missing (a layer has all of q, k and v, or none)`);
      const d = q.shape[2];
      const expect: Array<[string, Tensor, number, string]> = [
        ['q', q, qt.length, 'd'], ['k', k, kt.length, String(d)], ['v', v, kt.length, 'dv'],
      ];
      for (const [n, t, rows, last] of expect) {
        const want = [heads, rows, n === 'k' ? d : t.shape[2]];
        if (t.shape.length !== 3 || t.shape.some((x, j) => x !== want[j]) || !(t.shape[2] >= 1)) {
          throw new AttentionError(`${p}.${n}: shape ${shapeStr(t.shape)} does not match the tokens: expected [${heads}, ${rows}, ${last}]`);
        }
        checkFinite(`${p}.${n}`, t);
      }
      layer.q = { data: q.data, shape: [...q.shape] };
      layer.k = { data: k.data, shape: [...k.shape] };
      layer.v = { data: v.data, shape: [...v.shape] };
      const scale = m.scale === undefined ? 1 / Math.sqrt(d) : m.scale;
      if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0) {
        throw new AttentionError(`${p}: scale must be a finite number > 0, got ${JSON.stringify(scale)}`);
      }
      layer.scale = scale;
    }
    const mask = tensors.get(`${p}.mask`);
    if (mask) {
      if (mask.shape.length !== 2 || mask.shape[0] !== qt.length || mask.shape[1] !== kt.length) {
        throw new AttentionError(`${p}.mask: shape ${shapeStr(mask.shape)} does not match the tokens: expected [${qt.length}, ${kt.length}]`);
      }
      checkFinite(`${p}.mask`, mask);
      layer.mask = Uint8Array.from(mask.data, (x) => (x !== 0 ? 1 : 0));
    }
    layers.push(layer);
  });
  const out: AttentionFile = { format: format || 'attention-playground/1', tokens: tokens!, layers, metadata };
  if (sourceTokens) out.sourceTokens = sourceTokens;
  return out;
}
