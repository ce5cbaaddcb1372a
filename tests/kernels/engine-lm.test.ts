// ap.loadLanguageModel against torch (tests/fixtures/lm/, written by gen_lm_fixtures.py from gpt_torch.py in float64):
// forward's logits and trace, the KV cache's greedy continuation, a nanoGPT checkpoint as torch saved it, generate
// with a seed against a sampler written here from docs/lm-spec.md over the package's own logits, head scores from the
// trace's weights, the errors (each naming the argument) and dispose. Both engines (an engine suite).
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { AttentionError, writeSafetensors, type LanguageModel, type Tensor } from '../../dist/index.js'
import { mulberry32 } from '../../web/compute/random'
import { ap, expectTensorClose, loadFixture, useEngine, type FixtureJson, type Tol } from '../support/helpers'
import { referenceGenerate } from '../support/lm-sampler'

useEngine()

const CASES = ['learned-tied-bias', 'learned-untied-nobias', 'rope-tied-nobias', 'rope-untied-bias']
// Forward: 1e-5 absolute (issue 37); the logits are O(1).
const FORWARD: Tol = { atol: 1e-5, rtol: 0 }

const fixtures = new Map<string, FixtureJson>(CASES.map((c) => [c, loadFixture(`lm/lm-${c}.json`)]))

/** The fixture's parameters as a nanoGPT safetensors file. */
function fileOf(fx: FixtureJson, extra: Record<string, string> = {}, drop: string[] = []): Uint8Array {
  const tensors: Record<string, Tensor> = {}
  for (const [name, t] of Object.entries(fx.params as Record<string, { shape: number[]; data: number[] }>)) {
    if (!drop.includes(name)) tensors[name] = { data: Float32Array.from(t.data), shape: t.shape }
  }
  const meta: Record<string, string> = { vocab: JSON.stringify(fx.vocab), n_head: String(fx.config.heads) }
  if (fx.config.positions === 'rope') {
    meta.positions = 'rope'
    meta.rope_base = String(fx.config.ropeBase)
    meta.context = String(fx.config.context)
  }
  return writeSafetensors(tensors, { ...meta, ...extra })
}

function open(c: string): LanguageModel {
  return ap.loadLanguageModel(fileOf(fixtures.get(c)))
}

const rows = (t: { shape: number[]; data: number[] }, from: number, count: number) => {
  const w = t.shape[t.shape.length - 1]
  return { shape: [count, w], data: t.data.slice(from * w, (from + count) * w) }
}

describe('forward against torch', () => {
  for (const c of CASES) {
    it(`${c}: logits and every block's trace`, () => {
      const fx = fixtures.get(c)
      using m = open(c)
      expect(m.config).toMatchObject({
        vocabSize: fx.config.vocabSize,
        context: fx.config.context,
        layers: fx.config.layers,
        heads: fx.config.heads,
        dModel: fx.config.dModel,
        positions: fx.config.positions,
        tied: fx.config.tied,
      })
      const n = fx.n
      for (let b = 0; b < fx.batch; b++) {
        const ids = fx.ids.slice(b * n, (b + 1) * n)
        const r = m.forward(ids, { trace: b === 0 })
        expectTensorClose(r.logits, rows(fx.logits, b * n, n), `logits of item ${b}`, FORWARD)
        if (b > 0) {
          expect(r.trace).toBeUndefined()
          continue
        }
        expect(r.trace!.tokens!.join('')).toBe(ids.map((i: number) => fx.vocab[i]).join(''))
        fx.trace.forEach((t: FixtureJson, l: number) => {
          const blk = r.trace!.blocks[l]
          const pairs: Array<[Tensor, string]> = [
            [blk.input, 'input'],
            [blk.attention, 'attnOut'],
            [blk.afterAttention, 'afterAttn'],
            [blk.mlp, 'mlpOut'],
            [blk.output, 'output'],
            [blk.mlpPreactivations, 'preact'],
            [blk.mlpActivations, 'act'],
            [blk.weights, 'weights'],
          ]
          for (const [got, key] of pairs) expectTensorClose(got, t[key], `block ${l} ${key}`, FORWARD)
        })
      }
    })
  }

  it('the logit lens: the top tokens of ln_f(output)·lm_headᵀ, the last block equal to the logits', () => {
    const fx = fixtures.get('learned-untied-nobias')
    using m = open('learned-untied-nobias')
    const ids = fx.ids.slice(0, fx.n)
    const r = m.forward(ids, { trace: true, lens: 3 })
    const last = r.trace!.blocks[r.trace!.blocks.length - 1].lens!
    const V = m.config.vocabSize
    for (let i = 0; i < ids.length; i++) {
      const row = Array.from(r.logits.data.slice(i * V, (i + 1) * V))
      const order = row.map((z, id) => ({ z, id })).sort((a, b) => b.z - a.z || a.id - b.id)
      expect(last.ids[i]).toEqual(order.slice(0, 3).map((x) => x.id))
      const zmax = order[0].z
      const s = row.reduce((acc, z) => acc + Math.exp(z - zmax), 0)
      expect(last.probs[i][0]).toBeCloseTo(1 / s, 6)
    }
    expect(r.trace!.blocks[0].lens!.ids[0]).toHaveLength(3)
  })
})

describe('generate', () => {
  for (const c of CASES) {
    it(`${c}: greedy with the KV cache and by recomputing equals torch's recomputed continuation`, () => {
      const fx = fixtures.get(c)
      using m = open(c)
      for (const cache of [true, false]) {
        const g = m.generate({
          prompt: fx.greedy.prompt,
          maxTokens: fx.config.context,
          temperature: 0,
          stop: null,
          cache,
        })
        expect(g.ids, `cache ${cache}`).toEqual(fx.greedy.ids)
        expect(g.reason).toBe('context')
        expect(g.text).toBe(g.ids.map((i) => fx.vocab[i]).join(''))
        expect(g.promptIds).toEqual(fx.greedy.prompt)
        const k1 = m.generate({ prompt: fx.greedy.prompt, topK: 1, stop: null, cache, seed: 5 })
        expect(k1.ids).toEqual(fx.greedy.ids)
      }
    })
  }

  /** docs/lm-spec.md's sampler, written here from the spec (not from the engine's code). */
  function referenceDraw(logits: ArrayLike<number>, o: { temperature: number; topK: number; topP: number }, u: number) {
    const z = Array.from(logits)
    if (o.temperature === 0 || o.topK === 1) return z.indexOf(Math.max(...z))
    const zmax = Math.max(...z)
    const e = z.map((x) => Math.exp((x - zmax) / o.temperature))
    const total = e.reduce((a, b) => a + b, 0)
    let list = e.map((x, id) => ({ id, p: x / total })).sort((a, b) => b.p - a.p || a.id - b.id)
    if (o.topK > 0) list = list.slice(0, o.topK)
    if (o.topP < 1) {
      let c = 0
      const k = list.findIndex((x) => (c += x.p) >= o.topP)
      if (k >= 0) list = list.slice(0, k + 1)
    }
    const kept = list.reduce((a, x) => a + x.p, 0)
    let c = 0
    for (const x of list) {
      c += x.p / kept
      if (c > u) return x.id
    }
    return list[list.length - 1].id
  }

  const SETTINGS = [
    { temperature: 1, topK: 0, topP: 1, seed: 1 },
    { temperature: 0.8, topK: 5, topP: 1, seed: 2 },
    { temperature: 1.3, topK: 0, topP: 0.9, seed: 3 },
    { temperature: 0.7, topK: 4, topP: 0.8, seed: 4 },
  ]

  for (const s of SETTINGS) {
    it(`with seed ${s.seed} (temperature ${s.temperature}, topK ${s.topK}, topP ${s.topP}) equals a JS sampler over forward's logits`, () => {
      using m = open('rope-untied-bias')
      const prompt = [1, 2]
      const next = mulberry32(s.seed)
      const seq = [...prompt]
      const want: number[] = []
      while (seq.length < m.config.context) {
        const { logits } = m.forward(seq)
        const V = m.config.vocabSize
        const id = referenceDraw(logits.data.subarray((seq.length - 1) * V), s, next())
        want.push(id)
        seq.push(id)
      }
      const g = m.generate({ prompt, ...s, stop: null, cache: false })
      expect(g.ids).toEqual(want)
      const cached = m.generate({ prompt, ...s, stop: null })
      expect(cached.ids).toEqual(want)
      // the per-step details a view plays back: the uniform drawn, the top ten before and after, the one drawn
      const u = mulberry32(s.seed)
      g.steps.forEach((st, k) => {
        expect(st.position).toBe(prompt.length + k)
        expect(st.u).toBe(u())
        expect(st.id).toBe(want[k])
        // the drawn id is among `after` whenever fewer than ten ids were kept
        if (st.kept <= 10) expect(st.after.some((c) => c.id === st.id)).toBe(true)
        expect(st.after).toHaveLength(Math.min(10, st.kept))
        expect(st.before.length).toBe(10)
        expect(st.before[0].p).toBeGreaterThanOrEqual(st.before[9].p)
        expect(st.after.reduce((a, c) => a + c.p, 0)).toBeLessThanOrEqual(1 + 1e-9)
        if (s.topK) expect(st.kept).toBeLessThanOrEqual(s.topK)
      })
    })
  }

  it('equals tests/support/lm-sampler.ts (the shared reference, checked against gpt_torch.py), stopping after "\\n" (id 0)', () => {
    using m = open('learned-tied-bias')
    const V = m.config.vocabSize
    for (const [seed, temperature, topK, topP] of [
      [7, 1.4, 0, 1],
      [8, 0.9, 6, 0.95],
      [9, 2, 0, 0.7],
    ]) {
      const want = referenceGenerate(
        (ids) => ({ data: m.forward(ids).logits.data, vocab: V }),
        [3, 4],
        {
          maxTokens: 10,
          seed,
          temperature,
          topK,
          topP,
          endId: 0,
        },
        m.config.context,
      )
      const got = m.generate({ prompt: [3, 4], maxTokens: 10, seed, temperature, topK, topP })
      expect(got.ids, `seed ${seed}`).toEqual(want)
      expect(got.reason).toBe(want[want.length - 1] === 0 ? 'stop' : want.length === 10 ? 'maxTokens' : 'context')
    }
  })

  it('stops after the stop token ("\\n" by default), reads the prompt as text, and keeps the attention rows', () => {
    const fx = fixtures.get('learned-tied-bias')
    using m = open('learned-tied-bias')
    const g = m.generate({ prompt: '床前', temperature: 1.5, seed: 11, attention: true })
    expect(g.promptIds).toEqual([1, 2])
    const nl = g.ids.indexOf(0)
    if (g.reason === 'stop') expect(nl).toBe(g.ids.length - 1)
    else expect(nl).toBe(-1)
    const last = g.steps[g.steps.length - 1]
    expect(last.attention!.shape).toEqual([fx.config.layers, fx.config.heads, last.position])
    // its rows are forward's weights of the token read, row position - 1
    const seq = [...g.promptIds, ...g.ids.slice(0, -1)]
    const tr = m.forward(seq, { trace: true }).trace!
    const n = seq.length
    for (let l = 0; l < fx.config.layers; l++)
      for (let h = 0; h < fx.config.heads; h++) {
        const w = tr.blocks[l].weights.data.slice((h * n + n - 1) * n, (h * n + n) * n)
        const a = last.attention!.data.slice((l * fx.config.heads + h) * n, (l * fx.config.heads + h + 1) * n)
        expectTensorClose({ data: a, shape: [n] }, { data: Array.from(w), shape: [n] }, `layer ${l} head ${h}`, {
          atol: 1e-6,
          rtol: 0,
        })
      }
    const capped = m.generate({ prompt: '床前', temperature: 1.5, seed: 11, maxTokens: 2, stop: null })
    expect(capped.ids).toHaveLength(2)
    expect(capped.reason).toBe('maxTokens')
  })
})

describe('a nanoGPT checkpoint as torch saved it', () => {
  const ref = loadFixture('lm/nanogpt-ref.json')
  it("opens with its _orig_mod. prefix, attn.bias buffers and lm_head equal to wte, and gives torch's logits", () => {
    using m = ap.loadLanguageModel(readFileSync(new URL('../fixtures/lm/nanogpt-raw.safetensors', import.meta.url)))
    expect(m.config.tied).toBe(true)
    expect(m.notes.join(' ')).toMatch(/_orig_mod\./)
    expect(m.notes.join(' ')).toMatch(/attn\.bias/)
    expect(m.encode(ref.text)).toEqual(ref.ids)
    expectTensorClose(m.forward(m.encode(ref.text)).logits, ref.logits, 'logits', FORWARD)
    expect(m.vocab).toEqual(ref.vocab)
  })
})

describe('head scores', () => {
  it('are the means of the spec cells of forward’s weights, labelled at 0.4', () => {
    using m = open('learned-tied-bias')
    const poems = ['床前明月光，疑是地上霜。', '明月光']
    const s = m.headScores(poems)
    const H = m.config.heads
    const sum = { previousLine: 0, previousChar: 0, lineEnd: 0 }
    const count = { previousLine: 0, previousChar: 0 }
    const l = 1,
      h = 0
    for (const p of poems) {
      const ids = m.encode(p)
      const n = ids.length
      const w = m.forward(ids, { trace: true }).trace!.blocks[l].weights.data
      const A = (i: number, j: number) => w[(h * n + i) * n + j]
      for (let i = 1; i < n; i++) {
        sum.previousChar += A(i, i - 1)
        count.previousChar++
      }
      for (let i = 6; i < n; i++) {
        sum.previousLine += A(i, i - 6)
        sum.lineEnd += A(i, 6 * Math.floor(i / 6) - 1)
        count.previousLine++
      }
    }
    expect(s.previousLine[l][h]).toBeCloseTo(sum.previousLine / count.previousLine, 6)
    expect(s.previousChar[l][h]).toBeCloseTo(sum.previousChar / count.previousChar, 6)
    expect(s.lineEnd[l][h]).toBeCloseTo(sum.lineEnd / count.previousLine, 6)
    expect(s.labels).toHaveLength(m.config.layers)
    for (let i = 0; i < m.config.layers; i++)
      for (let j = 0; j < H; j++) {
        const roles = {
          previousLine: s.previousLine[i][j],
          previousChar: s.previousChar[i][j],
          lineEnd: s.lineEnd[i][j],
        }
        const best = (Object.keys(roles) as (keyof typeof roles)[]).reduce((a, b) => (roles[b] > roles[a] ? b : a))
        expect(s.labels[i][j]).toBe(roles[best] >= 0.4 ? best : null)
      }
  })
})

describe('bad input: a clear error naming the argument, and the model keeps working', () => {
  const fx = fixtures.get('learned-tied-bias')
  const err = (f: () => unknown) => {
    try {
      f()
    } catch (e) {
      expect(e).toBeInstanceOf(AttentionError)
      return (e as Error).message
    }
    throw new Error('no error')
  }

  it('in the file: a missing or misshapen tensor, the metadata', () => {
    expect(err(() => ap.loadLanguageModel(fileOf(fx, {}, ['transformer.h.1.attn.c_proj.weight'])))).toBe(
      'transformer.h.1.attn.c_proj.weight: missing (expected [16, 16])',
    )
    const bad = {
      ...fx,
      params: { ...fx.params, 'transformer.h.0.mlp.c_fc.weight': { shape: [16, 64], data: new Array(1024).fill(0) } },
    }
    expect(err(() => ap.loadLanguageModel(fileOf(bad)))).toBe(
      'transformer.h.0.mlp.c_fc.weight: expected [64, 16], got [16, 64]',
    )
    expect(err(() => ap.loadLanguageModel(fileOf(fx, { n_head: 'four' })))).toMatch(
      /^__metadata__\.n_head: expected the string of a whole number/,
    )
    expect(err(() => ap.loadLanguageModel(fileOf(fx, { n_head: '3' })))).toMatch(
      /^__metadata__\.n_head: 3 heads do not divide dModel 16/,
    )
    expect(err(() => ap.loadLanguageModel(fileOf(fx, { vocab: '["a","b"]' })))).toMatch(
      /^__metadata__\.vocab: expected 13 strings/,
    )
    expect(err(() => ap.loadLanguageModel(fileOf(fx, { vocab: '{' })))).toMatch(/^__metadata__\.vocab: not JSON/)
    expect(err(() => ap.loadLanguageModel(fileOf(fx, { vocab: '[1]' })))).toBe(
      '__metadata__.vocab[0]: expected a string, got number',
    )
    const noVocab = writeSafetensors(
      { 'transformer.wte.weight': { data: new Float32Array(4), shape: [2, 2] } },
      { n_head: '1' },
    )
    expect(err(() => ap.loadLanguageModel(noVocab))).toMatch(/^__metadata__\.vocab: missing/)
    expect(err(() => ap.loadLanguageModel(new Uint8Array(3)))).toMatch(/^file: 3 bytes, too short/)
  })

  it('in the calls: ids, a prompt character outside the vocabulary, options', () => {
    using m = open('learned-tied-bias')
    expect(err(() => m.forward([1, 13]))).toBe('ids[1]: must be an id from 0 to 12, got 13')
    expect(err(() => m.forward(new Array(13).fill(1)))).toMatch(/^ids: 13 ids is more than the limit of 12/)
    expect(err(() => m.forward([]))).toBe('ids: give at least one token id')
    expect(err(() => m.forward([1], { trace: true, lens: 99 }))).toMatch(/^lens: /)
    expect(err(() => m.forward([1], { traces: true } as never))).toMatch(/^forward: unknown option 'traces'/)
    expect(err(() => m.generate({ prompt: '床前望月' }))).toBe(
      'prompt: the character "望" (U+671B) at index 2 is not in the model\'s vocabulary (13 entries)',
    )
    expect(err(() => m.generate({ prompt: '' }))).toMatch(/^prompt: give at least one/)
    expect(err(() => m.generate({ prompt: '床', temperature: -1 }))).toMatch(/^temperature: /)
    expect(err(() => m.generate({ prompt: '床', topK: 14 }))).toMatch(/^topK: /)
    expect(err(() => m.generate({ prompt: '床', topP: 0 }))).toMatch(/^topP: /)
    expect(err(() => m.generate({ prompt: '床', seed: -1 }))).toMatch(/^seed: /)
    expect(err(() => m.generate({ prompt: '床', maxTokens: 13 }))).toMatch(/^maxTokens: /)
    expect(err(() => m.generate({ prompt: '床', stop: '望' }))).toMatch(/^stop: /)
    expect(err(() => m.generate({ prompt: '床', topk: 3 } as never))).toMatch(
      /^generate: unknown option 'topk' \(did you mean 'topK'\?\)/,
    )
    expect(err(() => m.encode('x'))).toMatch(/^text: the character "x" \(U\+0078\) at index 0/)
    expect(err(() => m.headScores([[1, 99]]))).toMatch(/^poems\[0\]\[1\]: /)
    // still working
    expectTensorClose(m.forward(fx.ids.slice(0, fx.n)).logits, rows(fx.logits, 0, fx.n), 'logits', FORWARD)
  })
})

describe('handles and copies', () => {
  it('dispose() frees the wasm memory (also via using and twice), and a disposed model says so', () => {
    const before = ap.memoryStats().allocatedBytes
    const m = open('rope-untied-bias')
    m.generate({ prompt: [1], attention: true })
    expect(ap.memoryStats().allocatedBytes).toBeGreaterThan(before)
    m.dispose()
    m.dispose()
    expect(ap.memoryStats().allocatedBytes).toBe(before)
    expect(() => m.forward([1])).toThrow('model: already disposed')
    {
      using u = open('rope-tied-nobias')
      u.forward([1, 2])
    }
    expect(ap.memoryStats().allocatedBytes).toBe(before)
  })

  it('results are copies: editing them changes nothing', () => {
    using m = open('learned-tied-bias')
    const a = m.forward([1, 2, 3]).logits
    const keep = Float32Array.from(a.data)
    a.data.fill(0)
    expect(m.forward([1, 2, 3]).logits.data).toEqual(keep)
    const v = m.vocab
    v[0] = 'x'
    expect(m.vocab[0]).toBe('\n')
    const p = m.parameters()
    expect(Object.keys(p)).toEqual(Object.keys(fixtures.get('learned-tied-bias').params))
    p['transformer.wte.weight'].data.fill(0)
    expect(m.forward([1, 2, 3]).logits.data).toEqual(keep)
  })
})

describe('docs/api.md', () => {
  it('documents every member of a model, every generate option and every trace field', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')
    const section = doc.slice(doc.indexOf('## Language model'), doc.indexOf('## Memory rules'))
    using m = open('learned-tied-bias')
    const members = [
      ...Object.getOwnPropertyNames(Object.getPrototypeOf(m)).filter((k) => k !== 'constructor' && k !== 'live'),
      'config',
    ]
    const g = m.generate({ prompt: [1], maxTokens: 1, attention: true })
    const t = m.forward([1, 2], { trace: true, lens: 2 }).trace!
    const names = [
      ...members,
      ...['prompt', 'maxTokens', 'temperature', 'topK', 'topP', 'seed', 'stop', 'cache', 'attention'],
      ...Object.keys(g),
      ...Object.keys(g.steps[0]),
      ...Object.keys(t),
      ...Object.keys(t.blocks[0]),
      ...Object.keys(m.config),
      ...Object.keys(m.headScores(['床前'])),
    ]
    for (const k of new Set(names))
      expect(section, `docs/api.md "Language model" names \`${k}\``).toMatch(new RegExp(`\\b${k}\\b`))
  })
})
