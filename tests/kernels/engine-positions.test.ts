// Positions against hand-written PyTorch (tests/fixtures/engine-positions.json, written by
// tests/fixtures/gen_positions.py with torch 1.13): run({ positions }) for each encoding (single-head,
// multi-head, causal, cross), attention({ rope, alibiSlope }) (rope with other query and key positions),
// multiHeadAttention({ rope, alibi }), and ALiBi's slopes as BLOOM computes them.
import { describe, expect, it } from 'vitest'
import { POSITION_ENCODINGS, POSITION_STEP_NAMES, STEP_NAMES } from '../../dist/index.js'
import { ap, decodeInput, expectTensorClose, F32, loadFixture, SUMS, tolFor, useEngine } from '../support/helpers'
import type { FixtureJson, Tensor } from '../support/helpers'

const fx = loadFixture('engine-positions.json')

useEngine()

const each = (cases: FixtureJson[], check: (c: FixtureJson) => void) => {
  for (const c of cases) it(c.name, () => check(c))
}

describe('run({ positions }) reproduces PyTorch', () => {
  each(fx.run, (c) => {
    const t = ap.run(decodeInput(c.options))
    const e = c.expected
    expect(t.tokens).toEqual(e.tokens)
    for (const step of [...STEP_NAMES, ...POSITION_STEP_NAMES]) {
      if (e[step]) expectTensorClose(t[step], e[step], step, tolFor(step))
      else expect(t[step], `${step}: only for its encoding`).toBeUndefined()
    }
    if (e.sourceEmbeddings) expectTensorClose(t.sourceEmbeddings, e.sourceEmbeddings, 'sourceEmbeddings', SUMS)
    expect(t.options.positions).toBe(c.options.positions)
    expect(t.options.ropeBase).toBe(c.options.ropeBase ?? 10000)
  })

  it('the default is none: the course program, no position steps', () => {
    const t = ap.run()
    expect(t.options.positions).toBe('none')
    for (const step of POSITION_STEP_NAMES) expect(t[step]).toBeUndefined()
    expect(POSITION_ENCODINGS).toEqual(['none', 'sinusoidal', 'learned', 'rope', 'alibi'])
  })
})

describe('attention({ rope, alibiSlope }) reproduces PyTorch', () => {
  each(fx.attention, (c) => {
    const r = ap.attention(decodeInput(c.input))
    for (const key of ['rotatedQ', 'rotatedK', 'scores', 'positionBias', 'maskedScores', 'weights', 'output'] as const)
      if (c.expected[key]) expectTensorClose(r[key], c.expected[key], key, tolFor(key))
  })

  it('rope: the score of two rows depends on their offset only, for any shift s', () => {
    const g = decodeInput(fx.attention[0].input)
    const one = (t: Tensor, row: number): Tensor => ({
      data: t.data.slice(row * t.shape[1], (row + 1) * t.shape[1]),
      shape: [1, t.shape[1]],
    })
    const score = (i: number, j: number) =>
      ap.attention({
        query: one(g.query, 0),
        key: one(g.key, 1),
        value: one(g.value, 1),
        needScores: true,
        rope: { queryPositions: [i], keyPositions: [j] },
      }).scores!.data[0]
    const base = score(3, 1)
    for (const s of [1, 5, 40, 1000])
      expect(Math.abs(score(3 + s, 1 + s) - base)).toBeLessThan(1e-4 * Math.max(1, Math.abs(base)))
    expect(Math.abs(score(4, 1) - base)).toBeGreaterThan(1e-3)
  })

  it('rope and alibi work in the fused path too (needWeights: false gives the same output)', () => {
    const c = fx.attention.find((c: FixtureJson) => c.input.rope && c.input.alibiSlope !== undefined)
    const { needScores, ...inp } = decodeInput(c.input)
    void needScores
    expectTensorClose(ap.attention({ ...inp, needWeights: false }).output, c.expected.output, 'output', SUMS)
  })
})

describe('multiHeadAttention({ rope, alibi }) reproduces PyTorch', () => {
  each(fx.mha, (c) => {
    const r = ap.multiHeadAttention(decodeInput(c.input))
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
    expectTensorClose(r.weights, c.expected.weights, 'weights', F32)
  })
})

describe("ALiBi's head slopes are BLOOM's build_alibi_tensor", () => {
  for (const [h, slopes] of Object.entries(fx.alibiSlopes as Record<string, FixtureJson>)) {
    it(`${h} heads`, () => {
      const H = Number(h)
      // run's positionBias row 0 column 1 is -m_h·|0 - 1| = -m_h
      const t = ap.run({ positions: 'alibi', heads: H, dq: 2 * H, dk: 2 * H, dv: H, text: 'a b' })
      const bias = t.positionBias!
      const got = Array.from({ length: H }, (_, i) => -bias.data[i * 4 + 1])
      expectTensorClose({ data: Float32Array.from(got), shape: [H] }, slopes, 'slopes', { atol: 0, rtol: 1e-6 })
    })
  }
})
