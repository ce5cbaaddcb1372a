// The "Write a poem" view's numbers (web/compute/generate.ts) on the committed poems sample, against independent
// references: the poem equals tests/support/lm-sampler.ts's referenceGenerate over the package's forward logits
// (one forward of the whole prefix per character, no KV cache); each step's top ten before and after temperature /
// top-k / top-p equal the spec's distribution computed here in float64 from those logits, its u mulberry32's; the
// heads' rows equal forward's weights; the residual stream adds up and the last block's lens is the model's own
// prediction; the head scores pooled chunk by chunk equal one headScores call; the grid and the role keys follow
// docs/lm-spec.md's positions (place k of line l at 6·l + k).
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { LanguageModel } from 'attention-playground'
import { ap, useEngine } from '../support/helpers'
import { referenceGenerate } from '../support/lm-sampler'
import { mulberry32 } from '../../web/compute/random'
import {
  HeadMeter,
  POEM_DEFAULTS,
  fileMetadata,
  gridPlaces,
  missingCharacters,
  poemText,
  readablePoems,
  residualAt,
  tracePoem,
  roleKeys,
  writePoem,
  type Poem,
} from '../../web/compute/generate'
import { POEM_PRESETS } from '../../web/i18n/generate'

useEngine()

const ROOT = new URL('../../', import.meta.url).pathname
const SAMPLE = readFileSync(ROOT + 'public/samples/poems.safetensors')
const VALIDATION = readFileSync(ROOT + 'public/poems/validation.txt', 'utf8')

/** The spec's distribution of one row of logits (docs/lm-spec.md "Sampling"), float64: sorted, cut, renormalised. */
function distribution(row: ArrayLike<number>, temperature: number, topK: number, topP: number) {
  const soft = (T: number) => {
    let m = -Infinity
    for (let i = 0; i < row.length; i++) m = Math.max(m, row[i])
    const e = Array.from(row, (v) => Math.exp((v - m) / T))
    const s = e.reduce((a, b) => a + b, 0)
    return e.map((v, id) => ({ id, p: v / s })).sort((a, b) => b.p - a.p || a.id - b.id)
  }
  const before = soft(1)
  let after = soft(temperature)
  if (topK) after = after.slice(0, topK)
  if (topP < 1) {
    let c = 0
    const keep = after.findIndex((x) => (c += x.p) >= topP)
    if (keep >= 0) after = after.slice(0, keep + 1)
  }
  const z = after.reduce((a, x) => a + x.p, 0)
  return { before: before.slice(0, 10), after: after.map((x) => ({ id: x.id, p: x.p / z })), kept: after.length }
}

function withModel(f: (m: LanguageModel) => void): void {
  const m = ap.loadLanguageModel(SAMPLE)
  try {
    f(m)
  } finally {
    m.dispose()
  }
}

const first = (m: LanguageModel): Poem => writePoem(m, { ...POEM_DEFAULTS, prompt: POEM_PRESETS.genPresetJingyesi })

describe('the generate view on the poems sample', () => {
  it('writes what the reference sampler draws over forward logits, with its distributions, u and attention rows', () => {
    withModel((m) => {
      const poem = first(m)
      const V = m.config.vocabSize
      const { temperature, topK, topP, seed } = POEM_DEFAULTS
      const prompt = m.encode(POEM_PRESETS.genPresetJingyesi)
      const want = referenceGenerate(
        (ids) => ({ data: m.forward(ids).logits.data, vocab: V }),
        prompt,
        { maxTokens: m.config.context - prompt.length, seed, temperature, topK, topP, endId: 0 },
        m.config.context,
      )
      expect(poem.ids).toEqual([...prompt, ...want])
      expect(poem.reason).toBe('stop')
      const u = mulberry32(seed)
      for (const st of poem.steps) {
        const ids = poem.ids.slice(0, st.position)
        const { logits, trace } = m.forward(ids, { trace: true })
        const row = logits.data.subarray((st.position - 1) * V, st.position * V)
        const d = distribution(row, temperature, topK, topP)
        expect(st.u).toBe(u())
        expect(st.kept).toBe(d.kept)
        expect(st.before.map((c) => c.id)).toEqual(d.before.map((c) => c.id))
        expect(st.after.map((c) => c.id)).toEqual(d.after.slice(0, 10).map((c) => c.id))
        st.before.forEach((c, i) => expect(Math.abs(c.p - d.before[i].p)).toBeLessThan(1e-6))
        st.after.forEach((c, i) => expect(Math.abs(c.p - d.after[i].p)).toBeLessThan(1e-6))
        trace!.blocks.forEach((b, l) => {
          const [H, n] = b.weights.shape
          for (let hd = 0; hd < H; hd++) {
            const want = b.weights.data.subarray((hd * n + n - 1) * n, (hd * n + n) * n)
            const got = st.attention[l][hd]
            expect(got.length).toBe(st.position)
            for (let j = 0; j < n; j++) expect(Math.abs(got[j] - want[j])).toBeLessThan(1e-6)
          }
        })
      }
      expect(poemText(poem, poem.steps.length)).toBe(POEM_PRESETS.genPresetJingyesi + m.decode(want).replace(/\n$/, ''))
    })
  })

  it('the residual stream adds up at every position and the last block’s lens is the next-character prediction', () => {
    withModel((m) => {
      const poem = first(m)
      expect(() => residualAt(poem, 0)).toThrow(/tracePoem/)
      tracePoem(m, poem)
      for (const st of poem.steps) {
        const blocks = residualAt(poem, st.position - 1)
        blocks.forEach((b, i) => {
          for (let c = 0; c < b.input.length; c++)
            expect(Math.abs(b.input[c] + b.attention[c] + b.mlp[c] - b.output[c])).toBeLessThan(1e-4)
          if (i > 0) expect(Array.from(b.input)).toEqual(Array.from(blocks[i - 1].output))
        })
        const lens = blocks[blocks.length - 1].lens
        expect(lens.map((c) => c.id)).toEqual(st.before.slice(0, lens.length).map((c) => c.id))
        lens.forEach((c, k) => expect(Math.abs(c.p - st.before[k].p)).toBeLessThan(1e-5))
        expect(lens.map((c) => c.token)).toEqual(lens.map((c) => m.vocab[c.id]))
      }
    })
  })

  it('pools the head scores chunk by chunk to one headScores call’s, labels included', () => {
    withModel((m) => {
      const poems = readablePoems(m, VALIDATION).slice(0, 50)
      expect(poems.length).toBe(50)
      const meter = new HeadMeter(m, poems, 16)
      let chunks = 0
      while (meter.step()) chunks++
      expect(chunks).toBe(3)
      const got = meter.result()!
      const want = m.headScores(poems)
      expect(got.poems).toBe(50)
      for (const r of ['previousLine', 'previousChar', 'lineEnd'] as const)
        want[r].forEach((row, l) =>
          row.forEach((v, hd) => expect(Math.abs(got.scores[r][l][hd] - v)).toBeLessThan(1e-12)),
        )
      expect(got.scores.labels).toEqual(want.labels)
      expect(got.scores.threshold).toBe(0.4)
      // The sample's largest score is below the threshold: the view says no head specialises.
      expect(got.scores.labels.flat().every((x) => x === null)).toBe(true)
      expect(got.best.value).toBe(
        Math.max(...(['previousLine', 'previousChar', 'lineEnd'] as const).flatMap((r) => got.scores[r].flat())),
      )
    })
  })

  it('reads the file’s metadata, names characters outside the vocabulary, every preset is readable', () => {
    withModel((m) => {
      const md = fileMetadata(SAMPLE)
      expect(Number(md.val_loss)).toBeCloseTo(4.536, 3)
      expect(md.n_head).toBe('4')
      expect(fileMetadata(new Uint8Array([1, 2, 3]))).toEqual({})
      expect(missingCharacters(m, 'a床b床a')).toEqual(['a', 'b'])
      for (const p of Object.values(POEM_PRESETS)) expect(missingCharacters(m, p), p).toEqual([])
    })
  })
})

describe('a learner’s nanoGPT checkpoint (torch’s, with a vocabulary of 18)', () => {
  it('writes with top-k past its vocabulary as with top-k = the vocabulary (every token kept)', () => {
    const m = ap.loadLanguageModel(readFileSync(ROOT + 'tests/fixtures/lm/nanogpt-raw.safetensors'))
    try {
      const s = { ...POEM_DEFAULTS, prompt: POEM_PRESETS.genPresetJingyesi }
      const a = writePoem(m, s)
      const b = writePoem(m, { ...s, topK: m.config.vocabSize })
      expect(a.ids).toEqual(b.ids)
      expect(a.steps.map((x) => x.kept)).toEqual(a.steps.map(() => 18))
    } finally {
      m.dispose()
    }
  })
})

describe('the poem grid and the head scores’ places', () => {
  it('puts place k of line l at 6·l + k and wraps text without punctuation at six', () => {
    const poem = Array.from('床前明月光，疑是地上霜。举头望明月，低头思故乡。\n')
    const places = gridPlaces(poem)
    poem.forEach((_, i) => expect(places[i]).toEqual({ line: Math.floor(i / 6), col: i % 6 }))
    expect(gridPlaces(Array.from('abcdefgh'))[6]).toEqual({ line: 1, col: 0 })
    expect(gridPlaces(Array.from('ab，cd'))[3]).toEqual({ line: 1, col: 0 })
  })

  it('names the keys docs/lm-spec.md reads for a query', () => {
    expect(roleKeys(0)).toEqual({ previousLine: null, previousChar: null, lineEnd: null })
    expect(roleKeys(4)).toEqual({ previousLine: null, previousChar: 3, lineEnd: null })
    expect(roleKeys(8)).toEqual({ previousLine: 2, previousChar: 7, lineEnd: 5 })
    expect(roleKeys(17)).toEqual({ previousLine: 11, previousChar: 16, lineEnd: 11 })
  })
})
