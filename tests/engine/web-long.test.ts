// The long view's numbers (web/long.ts) against the engine's own full run on the same text: the split
// runs' Q, K, V, the on-demand rows of scores and weights, and the output, over tokenizers, rules,
// masks, heads and edited cells. n = 400 tokens: above the long-view threshold, small enough that
// the full n×n run stays quick in a test.
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import { LONG_TOKENS, computeLong, longTokens } from '../../web/compute/long-rows'
import { defaultState, type PlaygroundState } from '../../web/state'
import type { Engine, Tensor } from 'attention-playground'

let ap: Awaited<ReturnType<typeof init>>
let engine: Engine
beforeAll(async () => {
  ap = await init()
  engine = ap as unknown as Engine
})

const WORDS =
  'the animal did not cross the street because it was too tired , a cat sat on a mat while birds sang'.split(' ')
const EN = Array.from({ length: 400 }, (_, i) => WORDS[(i * 5 + (i >> 3)) % WORDS.length]).join(' ')
const ZH = '我爱中国的长城和黄河，春天来了花开了。'.repeat(24) // 456 characters

function state(patch: Partial<PlaygroundState>): PlaygroundState {
  return { ...defaultState('en'), text: EN, tokenizer: 'word', ...patch }
}

/** Row r of one head of a [n, n] or [heads, n, n] tensor. */
function row(t: Tensor, h: number, r: number): Float32Array {
  const n = t.shape[t.shape.length - 1]
  const off = t.shape.length === 3 ? h * n * n : 0
  return t.data.subarray(off + r * n, off + (r + 1) * n)
}

function close(got: ArrayLike<number>, want: ArrayLike<number>, what: string, rel = 1e-5) {
  expect(got.length, what).toBe(want.length)
  for (let k = 0; k < want.length; k++) {
    if (want[k] === -Infinity || got[k] === -Infinity) {
      expect(got[k], `${what}[${k}]`).toBe(want[k])
      continue
    }
    expect(Math.abs(got[k] - want[k]), `${what}[${k}]: long ${got[k]}, run ${want[k]}`).toBeLessThanOrEqual(
      rel * Math.max(1, Math.abs(want[k])),
    )
  }
}

const CASES: Array<[string, Partial<PlaygroundState>]> = [
  ['word, scaled-dot, no mask', {}],
  ['word-sorted, dot, causal', { tokenizer: 'word-sorted', score: 'dot', mask: 'causal' }],
  [
    'char (Chinese), general, 2 heads, temperature 0.5',
    { text: ZH, tokenizer: 'char', score: 'general', heads: 2, head: 1, temperature: 0.5 },
  ],
  ['word, additive, padding', { score: 'additive', mask: 'padding', padKeys: [0, 3, 399] }],
  [
    'word, scaled-dot, cells, 2 heads',
    {
      mask: 'cells',
      maskCells: [
        [5, 0],
        [5, 1],
        [7, 7],
      ],
      heads: 2,
    },
  ],
  [
    'word, scaled-dot, scale off, edited W_q and embeddings',
    {
      scale: 'off',
      edits: [
        { t: 'Wq', r: 0, c: 1, v: -2 },
        { t: 'embeddings', r: 3, c: 2, v: 4 },
      ],
    },
  ],
]

describe("long view numbers equal the engine's full run", () => {
  it('takes texts above the threshold only, and not bpe, concat or cross attention', () => {
    expect(longTokens(engine, state({}))?.tokens.length).toBe(400)
    expect(longTokens(engine, state({ text: 'a b c' }))).toBeNull()
    expect(longTokens(engine, state({ text: 'word '.repeat(LONG_TOKENS) }))).toBeNull() // exactly the threshold: normal view
    expect(longTokens(engine, state({ tokenizer: 'bpe' }))).toBeNull()
    expect(longTokens(engine, state({ score: 'concat' }))).toBeNull()
    expect(longTokens(engine, state({ mode: 'cross' }))).toBeNull()
  })

  for (const [name, patch] of CASES) {
    it(name, () => {
      const s = state(patch)
      const tok = longTokens(engine, s)!
      expect(tok).not.toBeNull()
      const { trace, long } = computeLong(engine, s, tok)
      trace.output = long.output()
      // The engine's full run on the same options: the page's compute() path.
      const opts: Record<string, unknown> = {
        text: s.text,
        tokenizer: s.tokenizer,
        score: s.score,
        heads: s.heads,
        temperature: s.temperature,
      }
      if (s.scale === 'off') opts.scale = false
      const n = tok.tokens.length
      if (s.mask === 'causal') opts.mask = 'causal'
      if (s.mask === 'padding') opts.mask = { keyPadding: Array.from({ length: n }, (_, j) => s.padKeys.includes(j)) }
      if (s.mask === 'cells') {
        const m = new Uint8Array(n * n)
        for (const [i, j] of s.maskCells) m[i * n + j] = 1
        opts.mask = { matrix: m }
      }
      if (s.edits.length) {
        const base = ap.run({ ...opts, mask: 'none' } as never)
        const Wq = { data: new Float32Array(base.Wq.data), shape: base.Wq.shape }
        const emb = { data: new Float32Array(base.embeddings.data), shape: base.embeddings.shape }
        for (const e of s.edits)
          (e.t === 'Wq' ? Wq : emb).data[e.r * (e.t === 'Wq' ? Wq.shape[1] : emb.shape[1]) + e.c] = e.v
        opts.Wq = Wq
        opts.embeddings = emb
      }
      const full = ap.run(opts as never) as unknown as Record<string, Tensor> & { tokens: string[]; scale: number }
      expect(trace.tokens).toEqual(full.tokens)
      expect(trace.scale).toBe(full.scale)
      // Q, K, V from the split runs are the full run's, bit for bit.
      for (const k of ['embeddings', 'Q', 'K', 'V'] as const) expect(trace[k].data, k).toEqual(full[k].data)
      // rows on demand, in any order and with repeats, for the shown head
      const h = s.head
      const rows = [0, 5, 7, n - 1, 123, 5]
      const got = long.rows(h, rows)
      rows.forEach((r, i) => {
        close(got[i].weights, row(full.weights, h, r), `weights[${r}]`)
        close(got[i].scores, row(full.scores, h, r), `scores[${r}]`)
      })
      // The fused kernel (dot / scaled-dot, none / causal) sums in another order: 3e-5 (see long-text e2e).
      close(trace.output.data, full.output.data, 'output', 3e-5)
      expect(trace.weights.data.length, 'no n×n weights').toBe(0)
    })
  }

  it('computes each row once: rows asked again come from its cache, in blocks of at most 256', () => {
    const s = state({})
    const { long } = computeLong(engine, s, longTokens(engine, s)!)
    const all = Array.from({ length: 400 }, (_, i) => i)
    long.rows(0, all)
    expect(long.rowCalls).toBe(2) // 256 + 144 rows
    long.rows(0, [1, 2, 3, 399])
    long.rows(0, all)
    expect(long.rowCalls).toBe(2)
  })
})
