// Long texts: thousands of tokens, where the n×n matrices of a normal run would
// take hundreds of milliseconds and megabytes per step. Nothing n×n is ever built here:
// - Q, K and V come from ap.projections: run()'s tokens, draws and projections by the same code, without
//   attention, so O(n); bit for bit the ones a run on the text computes.
// - The output comes from the fused kernel (ap.attention with needWeights: false) where it applies
//   (dot / scaled-dot, no mask or causal), otherwise from blocks of rows.
// - The rows of scores and weights the viewer shows are computed on demand: ap.attention with just
//   those rows of Q as the query, the whole K and V as keys and values.

import type { AttentionOptions, AttentionResult, Engine, MaskSpec, Tensor, Trace } from 'attention-playground'
import { RULE_TRAITS, type EditableTensor, type PlaygroundState } from '../params'
import { applyEdits } from './changes'
import { headColumns, paramsForHead, setHeadColumns } from './heads'
import { engineMask, fullyMaskedRows, range } from './masks'
import { baseRunOptions } from './options'
import { engineText } from './segment'

/** Above this many tokens the page switches to the long view (a normal run stays well under 16 ms below it). */
export const LONG_TOKENS = 320
/** Rows per engine call when rows are computed in blocks (bounds the rows×n matrix of one call). */
const BLOCK_ROWS = 256

export interface RowData {
  /** Raw scores (before scaling and mask), one row of n. */
  scores: Float32Array
  weights: Float32Array
}

export class LongData {
  readonly n: number
  readonly heads: number
  private qh: Tensor[] = []
  private kh: Tensor[] = []
  private vh: Tensor[] = []
  private cache: Array<Map<number, RowData>> = []
  private cachedRows = 0
  /** Engine calls made for rows (the benchmark and tests read it). */
  rowCalls = 0

  constructor(
    private engine: Engine,
    readonly trace: Trace,
    private state: PlaygroundState,
  ) {
    this.n = trace.tokens.length
    this.heads = trace.heads || 1
    for (let h = 0; h < this.heads; h++) {
      this.qh.push(headColumns(trace.Q, h, this.heads))
      this.kh.push(headColumns(trace.K, h, this.heads))
      this.vh.push(headColumns(trace.V, h, this.heads))
      this.cache.push(new Map())
    }
  }

  private params(h: number): AttentionOptions['params'] {
    const one = paramsForHead(this.trace, h)
    return Object.keys(one).length ? one : undefined
  }

  /** The mask of query rows `rows` against all keys, in the engine's form. */
  private maskFor(rows: readonly number[]): MaskSpec {
    return engineMask(this.state, rows.length, this.n, rows)
  }

  private call(h: number, rows: readonly number[], needWeights: boolean): AttentionResult {
    const dq = this.qh[h].shape[1]
    const q = new Float32Array(rows.length * dq)
    rows.forEach((r, i) => q.set(this.qh[h].data.subarray(r * dq, (r + 1) * dq), i * dq))
    const opts: AttentionOptions = {
      query: { data: q, shape: [rows.length, dq] },
      key: this.kh[h],
      value: this.vh[h],
      score: this.state.score,
      scale: this.trace.scale,
      temperature: this.state.temperature,
      mask: this.maskFor(rows),
      params: this.params(h),
    }
    // The rows' viewer shows the raw scores too; the engine returns them only when asked.
    if (!needWeights) opts.needWeights = false
    else opts.needScores = true
    return this.engine.attention(opts)
  }

  /** Rows of head h (cached): one engine call for all the rows not yet known. */
  rows(h: number, rows: readonly number[]): RowData[] {
    const cache = this.cache[h]
    const missing = [...new Set(rows.filter((r) => !cache.has(r)))]
    if (missing.length) {
      // A bounded cache: a long session of panning must not hold the whole n×n matrix.
      if (this.cachedRows + missing.length > 3000) {
        for (const c of this.cache) c.clear()
        this.cachedRows = 0
      }
      for (let b = 0; b < missing.length; b += BLOCK_ROWS) {
        const block = missing.slice(b, b + BLOCK_ROWS)
        const r = this.call(h, block, true)
        this.rowCalls++
        const n = this.n
        block.forEach((row, i) => {
          // Views into the block's arrays, not copies: the block lives as long as one of its rows is cached.
          cache.set(row, {
            scores: r.scores!.data.subarray(i * n, (i + 1) * n),
            weights: r.weights!.data.subarray(i * n, (i + 1) * n),
          })
        })
        this.cachedRows += block.length
      }
    }
    return rows.map((r) => cache.get(r)!)
  }

  /** The output [n, dv], every head concatenated, without any n×n matrix where the fused kernel applies. */
  output(): Tensor {
    const n = this.n,
      dv = this.trace.V.shape[1],
      dvh = dv / this.heads
    const out = new Float32Array(n * dv)
    const fused =
      RULE_TRAITS[this.state.score].dotProduct && (this.state.mask === 'none' || this.state.mask === 'causal')
    for (let h = 0; h < this.heads; h++) {
      let o: Float32Array
      if (fused) {
        o = this.engine.attention({
          query: this.qh[h],
          key: this.kh[h],
          value: this.vh[h],
          score: this.state.score,
          scale: this.trace.scale,
          temperature: this.state.temperature,
          mask: this.state.mask === 'causal' ? 'causal' : 'none',
          needWeights: false,
        }).output.data
      } else {
        o = new Float32Array(n * dvh)
        for (let b = 0; b < n; b += BLOCK_ROWS) {
          const rows = range(Math.min(BLOCK_ROWS, n - b)).map((i) => b + i)
          o.set(this.call(h, rows, true).output.data, b * dvh)
        }
      }
      setHeadColumns(out, dv, h, o, dvh)
    }
    return { data: out, shape: [n, dv] }
  }
}

const EMPTY: Tensor = { data: new Float32Array(0), shape: [0, 0] }

export interface Tokenized {
  tokens: string[]
  ids: number[]
  vocab: string[]
}

/**
 * The tokenized text when the long view can take it, else null (short texts, cross attention, bpe,
 * concat, an engine without attention()).
 */
export function longTokens(engine: Engine, s: PlaygroundState): Tokenized | null {
  // Positions need the whole sequence in one run (the long view's rows come from calls on pieces): the full run.
  if (s.mode !== 'self' || s.tokenizer === 'bpe' || RULE_TRAITS[s.score].linear || s.positions !== 'none') return null
  // Fewer characters than LONG_TOKENS cannot make that many tokens: skip the tokenizer.
  if (s.text.length <= LONG_TOKENS) return null
  const t = engine.tokenize(engineText(s.text, s.tokenizer), s.tokenizer)
  const tok: Tokenized = { tokens: t.tokens, ids: t.ids, vocab: t.vocab }
  return tok.tokens.length > LONG_TOKENS ? tok : null
}

/** Q, K, V, embeddings and weights of the long text (see the top of this file), edits applied. */
export function computeLong(
  engine: Engine,
  s: PlaygroundState,
  tok: Tokenized,
): { trace: Trace; long: LongData; droppedEdits: boolean } {
  // The mask and the temperature belong to attention, which projections() does not compute.
  const { mask: _mask, temperature: _temperature, ...options } = baseRunOptions(s, 0, 0)
  let p = engine.projections(options)
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, i) => v === y[i])
  if (!same(p.tokens, tok.tokens)) throw new Error("long view: the projections' tokens differ from the text's")
  let dropped = false
  if (s.edits.length) {
    const tensors: Record<EditableTensor, Tensor | undefined> = {
      embeddings: p.embeddings,
      sourceEmbeddings: undefined,
      Wq: p.Wq,
      Wk: p.Wk,
      Wv: p.Wv,
    }
    const { overrides, dropped: d } = applyEdits(tensors, s.edits)
    dropped = d.length > 0
    p = engine.projections({ ...options, ...overrides })
  }
  const trace: Trace = {
    ...p,
    scores: EMPTY,
    scaledScores: EMPTY,
    maskedScores: EMPTY,
    weights: EMPTY,
    output: EMPTY,
    maskedRows: [],
  }
  const long = new LongData(engine, trace, s)
  // The output is filled in by the caller (LongData.output), in a task of its own.
  trace.output = { data: new Float32Array(long.n * p.V.shape[1]), shape: [long.n, p.V.shape[1]] }
  trace.maskedRows = fullyMaskedRows(s, long.n, long.n)
  return { trace, long, droppedEdits: dropped }
}
