// The positions view's numbers, every one from the engine (no DOM): the order check (a sentence and a shuffled
// copy under each encoding), the sinusoidal table and P·Pᵀ, RoPE's dials and its offset check, ALiBi with and
// without its bias. views/positions.ts draws them.

import { POSITION_ENCODINGS, type PositionEncoding } from 'attention-playground/constants'
import type { Engine, RunOptions, Tensor, Trace } from 'attention-playground'
import { mulberry32 } from './random'
import { segmentWords } from './segment'

/** The view's model: small fixed sizes (even per head for RoPE up to 8 heads), the page's seed. */
export const VIEW_SIZES = { dModel: 16, dq: 16, dk: 16, dv: 16 } as const
/** Below this largest difference the shuffled outputs count as the same vectors, permuted (float32 sums). */
export const PERMUTED_TOL = 1e-4
/** The sentence the view shows when the page's has fewer than two words. */
const FALLBACK = ['this', 'is', 'my', 'cat']
/** At most this many words (the order table runs ten small models). */
const MAX_WORDS = 24

/** run()'s options for the view's model: the course's tokenizer (its sorted vocabulary ignores word order). */
export function viewRunOptions(
  text: string,
  seed: number,
  positions: PositionEncoding,
  heads = 1,
  mask: 'none' | 'causal' = 'none',
): RunOptions {
  return { text, tokenizer: 'word-sorted', seed, positions, heads, mask, ...VIEW_SIZES }
}

/** The page's sentence as words (at least two: the course's sentence otherwise). */
export function viewWords(text: string): string[] {
  const w = segmentWords(text).split(/\s+/).filter(Boolean).slice(0, MAX_WORDS)
  return w.length >= 2 ? w : FALLBACK
}

/**
 * The words in a new order, from `seed`: perm[r] is the original index of the word now at r. The new sentence
 * differs from the original whenever some two words differ.
 */
export function shuffleWords(words: string[], seed: number): { words: string[]; perm: number[] } {
  const n = words.length
  const rand = mulberry32(seed)
  const perm = Array.from({ length: n }, (_, i) => i)
  const same = () => perm.every((p, i) => words[p] === words[i])
  for (let tries = 0; tries < 32; tries++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[perm[i], perm[j]] = [perm[j], perm[i]]
    }
    if (!same()) break
  }
  return { words: perm.map((p) => words[p]), perm }
}

export interface OrderRow {
  positions: PositionEncoding
  /** max over rows r and columns c of |shuffled.output[r, c] − original.output[perm[r], c]|. */
  maxDiff: number
  permuted: boolean
  original: Trace
  shuffled: Trace
}

/** The largest difference between the shuffled sentence's output rows and the original's rows they came from. */
export function permutedDiff(original: Tensor, shuffled: Tensor, perm: number[]): number {
  const d = original.shape[1]
  let m = 0
  perm.forEach((p, r) => {
    for (let c = 0; c < d; c++) m = Math.max(m, Math.abs(shuffled.data[r * d + c] - original.data[p * d + c]))
  })
  return m
}

/** The sentence and its shuffled copy under each encoding (none first). */
export function orderCheck(
  engine: Engine,
  words: string[],
  shuffled: string[],
  perm: number[],
  seed: number,
): OrderRow[] {
  return POSITION_ENCODINGS.map((positions) => {
    const original = engine.run(viewRunOptions(words.join(' '), seed, positions))
    const copy = engine.run(viewRunOptions(shuffled.join(' '), seed, positions))
    const maxDiff = permutedDiff(original.output, copy.output, perm)
    return { positions, maxDiff, permuted: maxDiff < PERMUTED_TOL, original, shuffled: copy }
  })
}

/**
 * The same check with no positions under a causal mask: row i sees only the words before it, so the mask carries
 * order and a shuffle changes the rows (Haviv et al. 2022: causal models without positions still learn order).
 */
export function causalOrderCheck(
  engine: Engine,
  words: string[],
  shuffled: string[],
  perm: number[],
  seed: number,
): OrderRow {
  const original = engine.run(viewRunOptions(words.join(' '), seed, 'none', 1, 'causal'))
  const copy = engine.run(viewRunOptions(shuffled.join(' '), seed, 'none', 1, 'causal'))
  const maxDiff = permutedDiff(original.output, copy.output, perm)
  return { positions: 'none', maxDiff, permuted: maxDiff < PERMUTED_TOL, original, shuffled: copy }
}

/** The sinusoidal table [n, d] as the engine adds it to the embeddings (a run over n placeholder tokens). */
export function sinusoidalTable(engine: Engine, n: number, d: number): Tensor {
  const text = Array.from({ length: n }, (_, i) => `p${i}`).join(' ')
  return engine.run({ text, positions: 'sinusoidal', dModel: d, dq: 2, dk: 2, dv: 1 }).positions!
}

/** P·Pᵀ: how alike two positions' codes are. */
export function positionDots(P: Tensor): Tensor {
  const [n, d] = P.shape
  const out = new Float32Array(n * n)
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = 0
      for (let c = 0; c < d; c++) s += P.data[i * d + c] * P.data[j * d + c]
      out[i * n + j] = s
    }
  return { data: out, shape: [n, n] }
}

/** Each pair (i, i + d/2) at position m: the engine turns the unit vector e_i to (cos mθ_i, sin mθ_i) in that pair. */
export function ropeDials(engine: Engine, d: number, base: number, m: number): Array<{ cos: number; sin: number }> {
  const half = d / 2
  const e = new Float32Array(half * d)
  for (let i = 0; i < half; i++) e[i * d + i] = 1
  const unit = { data: e, shape: [half, d] }
  const r = engine.attention({
    query: unit,
    key: unit,
    value: { data: new Float32Array(half), shape: [half, 1] },
    rope: { base, queryPositions: Array<number>(half).fill(m), keyPositions: Array<number>(half).fill(0) },
  })
  const q = r.rotatedQ!
  return Array.from({ length: half }, (_, i) => ({ cos: q.data[i * d + i], sin: q.data[i * d + i + half] }))
}

/** The RoPE score q·k of one query row and one key row placed at positions (i, j), by the engine's attention. */
export function ropeScore(
  engine: Engine,
  q: Float32Array,
  k: Float32Array,
  i: number,
  j: number,
  base: number,
): number {
  const d = q.length
  const r = engine.attention({
    query: { data: q, shape: [1, d] },
    key: { data: k, shape: [1, d] },
    value: { data: new Float32Array(1), shape: [1, 1] },
    score: 'dot',
    needScores: true,
    rope: { base, queryPositions: [i], keyPositions: [j] },
  })
  return r.scores!.data[0]
}

export interface RopeOffset {
  /** The sentence's tokens (the query's and the key's choices). */
  tokens: string[]
  i: number
  j: number
  s: number
  /** q·k at (i, j) and at (i + s, j + s). */
  a: number
  b: number
}

/** The offset check: q of token i and k of token j (the view's model, no positions) scored at (i, j) and (i+s, j+s). */
export function ropeOffset(
  engine: Engine,
  words: string[],
  seed: number,
  i: number,
  j: number,
  s: number,
  base: number,
): RopeOffset {
  const tr = engine.run(viewRunOptions(words.join(' '), seed, 'none'))
  const n = tr.tokens.length
  const qi = Math.min(Math.max(i, 0), n - 1)
  const kj = Math.min(Math.max(j, 0), n - 1)
  const d = tr.Q.shape[1]
  const q = tr.Q.data.slice(qi * d, (qi + 1) * d)
  const k = tr.K.data.slice(kj * d, (kj + 1) * d)
  return {
    tokens: tr.tokens,
    i: qi,
    j: kj,
    s,
    a: ropeScore(engine, q, k, qi, kj, base),
    b: ropeScore(engine, q, k, qi + s, kj + s, base),
  }
}

/** ALiBi with `heads` heads and the same model without positions; `slopes` read off the bias (−B[h, 0, 1]). */
export function alibiRuns(
  engine: Engine,
  words: string[],
  seed: number,
  heads: number,
): { with: Trace; without: Trace; slopes: number[] } {
  const text = words.join(' ')
  const withBias = engine.run(viewRunOptions(text, seed, 'alibi', heads))
  const bias = withBias.positionBias!
  const n = withBias.tokens.length
  const slopes = Array.from({ length: heads }, (_, h) => (n > 1 ? -bias.data[h * n * n + 1] : 0))
  return { with: withBias, without: engine.run(viewRunOptions(text, seed, 'none', heads)), slopes }
}
