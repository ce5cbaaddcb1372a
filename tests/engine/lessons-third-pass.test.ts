// Issue 36 ("Lessons right, third pass"): the numbers behind the corrected sentences, computed on the real engine
// and checked against references written out here — the shuffle check under a causal mask (item 1), ALiBi's slopes
// against the formula as the view writes it (2), the attend goal's gradient on a saturated row (3), the sink
// logit's share per key (4). Each also reads the sentence it backs, so the text and the numbers cannot drift apart.
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import type { Engine, Tensor } from 'attention-playground'
import {
  alibiRuns,
  causalOrderCheck,
  orderCheck,
  shuffleWords,
  viewRunOptions,
  viewWords,
} from '../../web/compute/positions'
import { withSinkLogit, type SinkMeasure } from '../../web/compute/sinks'
import { mulberry32 } from '../../web/compute/random'
import { MESSAGES } from '../../web/i18n'
import { BACKWARD } from '../../web/i18n/backward'
import { MODERN } from '../../web/i18n/modern'

let engine: Engine
beforeAll(async () => {
  engine = (await init()) as unknown as Engine
})

const SENTENCE = 'the cat sat on the mat'

/** Causal attention written out: row i = softmax(q_i·k_j · scale, j ≤ i) · V, in double precision. */
function causalAttention(Q: Tensor, K: Tensor, V: Tensor, scale: number): Float64Array {
  const [n, d] = Q.shape
  const dv = V.shape[1]
  const out = new Float64Array(n * dv)
  for (let i = 0; i < n; i++) {
    const s: number[] = []
    for (let j = 0; j <= i; j++) {
      let dot = 0
      for (let c = 0; c < d; c++) dot += Q.data[i * d + c] * K.data[j * d + c]
      s.push(dot * scale)
    }
    const m = Math.max(...s)
    const e = s.map((x) => Math.exp(x - m))
    const z = e.reduce((a, b) => a + b, 0)
    for (let j = 0; j <= i; j++) for (let c = 0; c < dv; c++) out[i * dv + c] += (e[j] / z) * V.data[j * dv + c]
  }
  return out
}

describe('item 1: order blindness holds with no mask only', () => {
  it('under a causal mask the shuffled rows differ, by what causal attention written out here gives', () => {
    const words = viewWords(SENTENCE)
    for (const seed of [1, 2, 3]) {
      const { words: sh, perm } = shuffleWords(words, seed)
      const none = orderCheck(engine, words, sh, perm, 123)[0]
      expect(none.positions).toBe('none')
      expect(none.permuted, 'no mask: the same vectors, permuted').toBe(true)
      const causal = causalOrderCheck(engine, words, sh, perm, 123)
      expect(causal.permuted, `shuffle ${seed}: causal rows differ`).toBe(false)
      // The reference: the engine's own Q, K, V (no mask changes them), attention written out with j ≤ i.
      const ref = (w: string[]) => {
        const tr = engine.run(viewRunOptions(w.join(' '), 123, 'none'))
        return { out: causalAttention(tr.Q, tr.K, tr.V, 1 / Math.sqrt(tr.K.shape[1])), dv: tr.V.shape[1] }
      }
      const a = ref(words)
      const b = ref(sh)
      let diff = 0
      perm.forEach((p, r) => {
        for (let c = 0; c < a.dv; c++) diff = Math.max(diff, Math.abs(b.out[r * a.dv + c] - a.out[p * a.dv + c]))
      })
      expect(Math.abs(causal.maxDiff - diff), `engine ${causal.maxDiff} vs written out ${diff}`).toBeLessThan(1e-5)
      expect(diff).toBeGreaterThan(1e-3)
      // The engine's causal rows are that reference too.
      const tr = engine.run(viewRunOptions(sh.join(' '), 123, 'none', 1, 'causal'))
      tr.output.data.forEach((v, k) => expect(Math.abs(v - b.out[k])).toBeLessThan(1e-5))
    }
  })

  it('every sentence that claims order blindness says "no mask", in both languages', () => {
    const keys = ['quizPosPrompt', 'quizPosExplain', 'posOrderLead', 'posVerdictSame', 'guided5Body', 'positionsHint']
    for (const k of keys) {
      expect(MESSAGES.en[k as 'quizPosPrompt'], k).toMatch(/no mask/)
      expect(MESSAGES.zh[k as 'quizPosPrompt'], k).toMatch(/不加掩码/)
    }
    expect(MESSAGES.en.posVerdictCausal).toContain('Haviv et al., 2022')
    expect(MESSAGES.zh.posVerdictCausal).toContain('Haviv 等，2022')
  })
})

describe('item 2: ALiBi slopes against the formula as written', () => {
  it('2^(−8h/H) with the heads numbered as the view writes them (h = 1 … H) gives the engine’s slopes', () => {
    for (const lang of ['en', 'zh'] as const) {
      const lead = MESSAGES[lang].posAlibiLead
      expect(lead, lang).toContain('2^(−8h/H)')
      const first = Number(/h = (\d+) … H/.exec(lead)![1])
      expect(first, `${lang}: the first head's number in the formula`).toBe(1)
      for (const H of [2, 4, 8]) {
        const { slopes } = alibiRuns(engine, viewWords(SENTENCE), 123, H)
        slopes.forEach((m, k) => {
          const h = first + k // the k-th head as the view labels it (m1, m2, …)
          expect(m, `${lang}: H = ${H}, head ${h}`).toBeCloseTo(2 ** ((-8 * h) / H), 6)
        })
      }
    }
  })
})

describe('item 3: a saturated row and the attend goal', () => {
  it('−log A[i, j] on a row saturated on another key: dS row i = a − e_j (≈ e_m − e_j), not 0', () => {
    // The course's sentence with W_q scaled up until a row is saturated (largest weight > 0.99), scale off; j a
    // key of that row with a weight float32 can still take −log of.
    const base = engine.run({ text: SENTENCE, dModel: 8, dq: 8, dk: 8, dv: 8, seed: 7, score: 'dot' })
    const n = base.tokens.length
    let found: { opts: object; a: number[]; i: number; m: number; j: number } | null = null
    for (const f of [4, 6, 8, 12, 16, 24]) {
      const Wq = { data: base.Wq.data.map((x) => x * f), shape: base.Wq.shape }
      const opts = { text: SENTENCE, dModel: 8, dq: 8, dk: 8, dv: 8, seed: 7, score: 'dot' as const, Wq }
      const tr = engine.run(opts)
      for (let i = 0; i < n && !found; i++) {
        const a = Array.from(tr.weights.data.slice(i * n, (i + 1) * n))
        const m = a.indexOf(Math.max(...a))
        const j = a.findIndex((x, c) => c !== m && x > 1e-6)
        if (a[m] > 0.99 && j >= 0) found = { opts, a, i, m, j }
      }
      if (found) break
    }
    expect(found, 'a saturated row').not.toBeNull()
    const { opts, a, i, m, j } = found as {
      opts: Parameters<Engine['run']>[0]
      a: number[]
      i: number
      m: number
      j: number
    }
    const att = engine.runBackward({ ...opts, loss: { kind: 'attend', query: i, key: j } })
    const dS = Array.from(att.gradScores.data.slice(i * n, (i + 1) * n))
    dS.forEach((g, c) => expect(Math.abs(g - (a[c] - (c === j ? 1 : 0))), `dS[${i}, ${c}]`).toBeLessThan(1e-4))
    expect(dS[m]).toBeCloseTo(1, 2)
    expect(dS[j]).toBeCloseTo(-1, 2)
    expect(Math.hypot(...att.gradWq.data), 'W_q learns').toBeGreaterThan(1e-2)
    // The output goal on the same row (dA bounded): dS row i ≈ 0, while V still gets a gradient.
    const target = { data: new Float32Array(8).fill(1), shape: [8] }
    const out = engine.runBackward({ ...opts, loss: { kind: 'output', query: i, target } })
    const dSo = out.gradScores.data.slice(i * n, (i + 1) * n)
    expect(Math.max(...Array.from(dSo, Math.abs)), 'output goal: dS row ≈ 0').toBeLessThan(1e-2)
    expect(Math.hypot(...out.gradValue.data), 'output goal: V learns').toBeGreaterThan(0.1)
    // The sentences say so.
    expect(BACKWARD.en.jacHelp).toContain('`a − e_j`')
    expect(BACKWARD.zh.jacHelp).toContain('`a − e_j`')
    expect(MESSAGES.en.quizBwSatPrompt).toContain('output goal')
    expect(MESSAGES.en.quizBwSatExplain).toContain('a − e_j')
    expect(MESSAGES.zh.quizBwSatExplain).toContain('a − e_j')
  })
})

describe('item 4: the sink logit’s share per key', () => {
  it('every weight of a row is multiplied by 1 − c; position 0 loses a₀·c, not c', () => {
    const rand = mulberry32(5)
    const n = 6
    const d = 4
    const t = (r: number, c: number): Tensor => ({
      data: Float32Array.from({ length: r * c }, () => 2 * rand() - 1),
      shape: [r, c],
    })
    const m = { qkv: { query: t(n, d), key: t(n, d), value: t(n, d), scale: 0.5 } } as unknown as SinkMeasure
    for (const s of [0, 1, 2.5]) {
      const r = withSinkLogit(engine, m, s)
      let lost0 = 0
      for (let i = 0; i < n; i++) {
        const c = r.sinkShare[i]
        expect(c).toBeGreaterThan(0)
        for (let j = 0; j < n; j++) {
          const a = r.plain.data[i * n + j]
          expect(Math.abs(r.weights.data[i * n + j] - a * (1 - c)), `s ${s}, (${i}, ${j})`).toBeLessThan(1e-6)
        }
        if (i >= 1) lost0 += r.plain.data[i * n] * c
      }
      // The view's sinksPos0 numbers: the mean drop on position 0 is the mean of a₀·c, well below the mean share c.
      expect(Math.abs(r.pos0 - r.pos0Sink - lost0 / (n - 1))).toBeLessThan(1e-6)
      expect(r.pos0 - r.pos0Sink).toBeLessThan(r.share)
    }
    expect(MODERN.en.sinksLogitLead).toContain('a₀·c')
    expect(MODERN.zh.sinksLogitLead).toContain('a₀·c')
    expect(MODERN.en.sinksLogitLead).not.toContain('no longer has to go to position 0')
  })
})
