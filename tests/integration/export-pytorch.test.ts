import { POSITION_STEP_NAMES, STEP_NAMES } from '../../dist/index.js'
// "Copy as PyTorch code": the program web/export.ts writes must print, under real PyTorch
// (/usr/bin/python3 with Debian's python3-torch), the numbers the engine computed, for every rule,
// mask, tokenizer, cross attention, heads, temperature, scale switch, hand-edited cells and position encoding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expectAllClose, getAp, tolFor, type Engine, type Tensor } from '../support/helpers'
import { requireTorch } from '../support/tools'
import { pytorchCode } from '../../web/export/pytorch'
import { TRAINED_DIMS, TRAINED_SENTENCE, trainedLayerInputs } from '../../web/compute/trained'
import { defaultState, type PlaygroundState } from '../../web/state'
import type { Trace } from 'attention-playground'

const DRIVER = new URL('../fixtures/gen_export_check.py', import.meta.url).pathname

const STEPS = STEP_NAMES
const HOSTILE = 'x" + __import__("os").system("touch /tmp/ap-pwned") + "\n# \\ \'\'\' """ 我'

interface Case {
  name: string
  state: Partial<PlaygroundState>
  /** The engine options, written out here by hand (not through state.ts), so the test checks the mapping too. */
  run: Record<string, unknown>
  /** Trained weights: the coreference model's last layer (its X, W_q, W_k, W_v) passed as overrides. */
  trained?: boolean
  /** Cell edits applied to the first run's tensors, then passed back as overrides. */
  edits?: Array<{ t: 'embeddings' | 'sourceEmbeddings' | 'Wq' | 'Wk' | 'Wv'; r: number; c: number; v: number }>
}

const CASES: Case[] = [
  { name: 'the course program (defaults)', state: {}, run: {} },
  {
    name: 'zh, char tokenizer, causal mask, small sizes',
    state: { text: '我爱中国', tokenizer: 'char', mask: 'causal', dq: 8, dk: 8, dv: 12, lang: 'zh' },
    run: { text: '我爱中国', tokenizer: 'char', mask: 'causal', dq: 8, dk: 8, dv: 12 },
  },
  {
    name: 'additive, 2 heads, temperature 0.5, seed 7',
    state: { text: 'the animal was too tired', score: 'additive', heads: 2, temperature: 0.5, seed: 7 },
    run: { text: 'the animal was too tired', score: 'additive', heads: 2, temperature: 0.5, seed: 7 },
  },
  {
    name: 'general, key padding, scale off, dq ≠ dk',
    state: {
      text: 'a b c d e',
      tokenizer: 'word',
      score: 'general',
      scale: 'off',
      mask: 'padding',
      padKeys: [1, 3],
      dq: 12,
      dk: 20,
    },
    run: {
      text: 'a b c d e',
      tokenizer: 'word',
      score: 'general',
      scale: false,
      mask: { keyPadding: [false, true, false, true, false] },
      dq: 12,
      dk: 20,
    },
  },
  {
    name: 'concat, hand-masked cells incl. a fully masked row, temperature 2',
    state: {
      text: 'one two three',
      score: 'concat',
      mask: 'cells',
      maskCells: [
        [0, 1],
        [2, 0],
        [1, 0],
        [1, 1],
        [1, 2],
      ],
      temperature: 2,
    },
    run: {
      text: 'one two three',
      score: 'concat',
      temperature: 2,
      mask: { matrix: Uint8Array.from([0, 1, 0, 1, 1, 1, 1, 0, 0]) },
    },
  },
  {
    name: 'cross attention (zh source, en target), dot with ÷√d_k switched on, causal',
    state: {
      mode: 'cross',
      source: '我 爱 中国',
      target: 'I love China very much',
      tokenizer: 'word',
      score: 'dot',
      scale: 'on',
      mask: 'causal',
    },
    run: {
      source: '我 爱 中国',
      target: 'I love China very much',
      tokenizer: 'word',
      score: 'dot',
      scale: 1 / Math.sqrt(24),
      mask: 'causal',
    },
  },
  {
    name: 'bpe tokenizer, 4 heads, edited embeddings and W_q',
    state: { text: 'the lowest newer lower widest', tokenizer: 'bpe', heads: 4, dq: 16, dk: 16, dv: 8 },
    run: { text: 'the lowest newer lower widest', tokenizer: 'bpe', heads: 4, dq: 16, dk: 16, dv: 8 },
    edits: [
      { t: 'embeddings', r: 1, c: 3, v: 2.5 },
      { t: 'Wq', r: 0, c: 0, v: -1.25 },
      { t: 'Wq', r: 15, c: 15, v: 0.1 },
    ],
  },
  {
    name: 'cross attention with edited source embeddings and W_v, general rule',
    state: { mode: 'cross', source: 'le chat noir', target: 'the black cat', tokenizer: 'word', score: 'general' },
    run: { source: 'le chat noir', target: 'the black cat', tokenizer: 'word', score: 'general' },
    edits: [
      { t: 'sourceEmbeddings', r: 2, c: 0, v: -3 },
      { t: 'Wv', r: 4, c: 27, v: 7.75 },
    ],
  },
  {
    name: 'trained weights (the coreference model, last layer), causal mask, temperature 0.5',
    state: { weights: 'trained', text: TRAINED_SENTENCE, ...TRAINED_DIMS, mask: 'causal', temperature: 0.5 },
    run: {
      text: TRAINED_SENTENCE,
      tokenizer: 'word',
      dModel: 32,
      dq: 32,
      dk: 32,
      dv: 32,
      mask: 'causal',
      temperature: 0.5,
    },
    trained: true,
  },
  { name: 'positions: sinusoidal, one head', state: { positions: 'sinusoidal' }, run: { positions: 'sinusoidal' } },
  {
    name: 'positions: sinusoidal, 2 heads, causal',
    state: { positions: 'sinusoidal', heads: 2, mask: 'causal' },
    run: { positions: 'sinusoidal', heads: 2, mask: 'causal' },
  },
  {
    name: 'positions: learned, 2 heads, causal',
    state: { positions: 'learned', heads: 2, mask: 'causal', text: 'the cat sat on the mat', tokenizer: 'word' },
    run: { positions: 'learned', heads: 2, mask: 'causal', text: 'the cat sat on the mat', tokenizer: 'word' },
  },
  {
    name: 'positions: learned, cross attention, edited embeddings',
    state: { positions: 'learned', mode: 'cross', source: 'le chat noir', target: 'the black cat', tokenizer: 'word' },
    run: { positions: 'learned', source: 'le chat noir', target: 'the black cat', tokenizer: 'word' },
    edits: [{ t: 'embeddings', r: 0, c: 1, v: 1.5 }],
  },
  { name: 'positions: rope, one head', state: { positions: 'rope' }, run: { positions: 'rope' } },
  {
    name: 'positions: rope, 4 heads, base 500, general rule, causal',
    state: { positions: 'rope', ropeBase: 500, heads: 4, score: 'general', dq: 16, dk: 16, mask: 'causal' },
    run: { positions: 'rope', ropeBase: 500, heads: 4, score: 'general', dq: 16, dk: 16, mask: 'causal' },
  },
  {
    name: 'positions: alibi, one head, causal',
    state: { positions: 'alibi', mask: 'causal' },
    run: { positions: 'alibi', mask: 'causal' },
  },
  {
    name: 'positions: alibi, 3 heads (not a power of two), zh',
    state: { positions: 'alibi', heads: 3, dq: 12, dk: 12, dv: 6, lang: 'zh', text: '我 爱 中国 很 多' },
    run: { positions: 'alibi', heads: 3, dq: 12, dk: 12, dv: 6, text: '我 爱 中国 很 多' },
  },
  {
    name: 'hostile text stays a string literal',
    state: { text: HOSTILE, tokenizer: 'char', dq: 4, dk: 4, dv: 4, dModel: 8 },
    run: { text: HOSTILE, tokenizer: 'char', dq: 4, dk: 4, dv: 4, dModel: 8 },
  },
]

let engine: Engine
let dir: string
const made: Array<{ c: Case; state: PlaygroundState; trace: Trace; code: string }> = []
let results: Array<{ printed: Record<string, unknown>; globals: Record<string, unknown> }> = []

function trainedOverrides(text: string): Record<string, Tensor> {
  const L = trainedLayerInputs(engine, text)
  return { embeddings: L.X, Wq: L.Wq, Wk: L.Wk, Wv: L.Wv }
}

function traceFor(c: Case): Trace {
  if (c.trained) return engine.run({ ...c.run, ...trainedOverrides(c.run.text as string) }) as Trace
  if (!c.edits?.length) return engine.run(c.run) as Trace
  const base = engine.run(c.run) as Trace
  const over: Record<string, Tensor> = {}
  for (const e of c.edits) {
    const src = (base as unknown as Record<string, Tensor>)[e.t]
    over[e.t] ??= { data: new Float32Array(src.data), shape: [...src.shape] }
    over[e.t].data[e.r * src.shape[1] + e.c] = e.v
  }
  return engine.run({ ...c.run, ...over }) as Trace
}

function flat(v: unknown): number[] {
  const out: number[] = []
  const walk = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(walk)
    else out.push(x === '-inf' ? -Infinity : x === 'inf' ? Infinity : x === 'nan' ? NaN : (x as number))
  }
  walk(v)
  return out
}

/** The shared comparison (helpers.ts): weights with F32, every other step (a sum of products) with SUMS. */
function expectClose(got: number[], want: Float32Array, what: string): void {
  expectAllClose(got, want, what, tolFor(what.split(': ').pop() ?? what))
}

beforeAll(async () => {
  engine = await getAp()
  dir = mkdtempSync(join(tmpdir(), 'ap-export-'))
  for (const c of CASES) {
    const state = { ...defaultState('en'), ...c.state, edits: c.edits ?? [] } as PlaygroundState
    const trace = traceFor(c)
    made.push({ c, state, trace, code: pytorchCode(state, trace) })
  }
  const py = requireTorch()
  const files = made.map((m, i) => {
    const f = join(dir, `case${i}.py`)
    writeFileSync(f, m.code)
    return f
  })
  results = JSON.parse(
    execFileSync(py, [DRIVER, ...files], { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120_000 }),
  )
  expect(results).toHaveLength(CASES.length)
}, 180_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("exported PyTorch code reproduces the engine's numbers", () => {
  for (const [i, c] of CASES.entries()) {
    it(c.name, () => {
      const { trace } = made[i]
      const printed = results[i].printed
      for (const step of STEPS)
        expectClose(flat(printed[step]), (trace as unknown as Record<string, Tensor>)[step].data, `${c.name}: ${step}`)
      if (trace.sourceEmbeddings)
        expectClose(flat(printed.sourceEmbeddings), trace.sourceEmbeddings.data, `${c.name}: sourceEmbeddings`)
      for (const step of POSITION_STEP_NAMES) {
        const t = trace[step]
        expect(step in printed, `${c.name}: ${step} printed only for its encoding`).toBe(!!t)
        if (t) expectClose(flat(printed[step]), t.data, `${c.name}: ${step}`)
      }
      expect(results[i].globals.vocab).toEqual(trace.vocab)
    })
  }

  it('--json is strict JSON for a causal mask: JSON.parse reads it, masked scores are "-inf"', () => {
    const i = CASES.findIndex((c) => c.state.mask === 'causal' && c.state.mode !== 'cross')
    const file = join(dir, 'causal.py')
    writeFileSync(file, made[i].code)
    const out = execFileSync(requireTorch(), [file, '--json'], {
      encoding: 'utf8',
      maxBuffer: 16 << 20,
      timeout: 120_000,
    })
    expect(out).not.toMatch(/Infinity|NaN/)
    const printed = JSON.parse(out) as Record<string, unknown[][]>
    expect(printed.maskedScores[0].slice(1)).toEqual(['-inf', '-inf', '-inf'])
    expect(typeof printed.maskedScores[1][0]).toBe('number')
    expectClose(flat(printed.weights), made[i].trace.weights.data, 'causal weights')
    const help = execFileSync(requireTorch(), [file, '--help'], { encoding: 'utf8', timeout: 120_000 })
    expect(help).toContain('"-inf"')
    expect(help).toContain('--json')
  }, 300_000) // two Python runs, each importing torch: over a minute on a loaded machine

  it('masked cells print as -inf, and a fully masked row has zero weights', () => {
    const i = CASES.findIndex((c) => c.name.startsWith('concat'))
    const ms = flat(results[i].printed.maskedScores)
    expect(ms[1]).toBe(-Infinity)
    expect(ms.slice(3, 6)).toEqual([-Infinity, -Infinity, -Infinity])
    expect(flat(results[i].printed.weights).slice(3, 6)).toEqual([0, 0, 0])
    expect(made[i].trace.maskedRows).toEqual([1])
  })

  it('learner text reaches Python as the same string and runs nothing', () => {
    const i = CASES.findIndex((c) => c.name.startsWith('hostile'))
    expect(results[i].globals.text).toBe(HOSTILE)
    expect(existsSync('/tmp/ap-pwned')).toBe(false)
    const j = CASES.findIndex((c) => c.name.startsWith('cross attention (zh'))
    expect(results[j].globals.source_text).toBe('我 爱 中国')
    expect(results[j].globals.target_text).toBe('I love China very much')
  })
})

describe('the program text', () => {
  it('writes the tokenization out (vocab and ids), so char and bpe need no tokenizer in Python', () => {
    const bpe = made.find((m) => m.c.name.startsWith('bpe'))!
    expect(bpe.trace.vocab.length).toBeGreaterThan(0)
    expect(bpe.code).toContain(`token_ids = [${bpe.trace.tokenIds.join(', ')}]`)
    expect(bpe.code).toContain('vocab = ')
  })

  it('never puts learner text outside a JSON string literal', () => {
    const m = made.find((x) => x.c.name.startsWith('hostile'))!
    const lines = m.code.split('\n')
    // The raw newline of the text must not start a line of its own: only escaped \n inside literals.
    expect(lines.some((l) => l.startsWith('# \\'))).toBe(false)
    expect(m.code).toContain(`text = ${JSON.stringify(HOSTILE)}`)
  })

  it('writes edited tensors out whole, with the cells that were edited', () => {
    const m = made.find((x) => x.c.name.startsWith('bpe'))!
    expect(m.code).toMatch(
      /# Wq as edited in the playground \(cells \(0, 0\), \(15, 15\)\):\n\s+W_q = torch\.tensor\(\[/,
    )
    expect(m.code).toMatch(/# embeddings as edited in the playground \(cells \(1, 3\)\):\n\s+x = torch\.tensor\(\[/)
  })
})
