// The lessons' views computed in Node on the real engine: the decode loop equals the engine's own
// full runs row by row and PyTorch's numbers (tests/fixtures/gen_decode_fixture.py); URL rules for
// the cross-attention causal mask and the bilinear alias.
import { beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { init } from '../../dist/index.js'
import { decodeModel, START } from '../../web/compute/decode'
import { defaultState, parseParams, toParams, withoutCrossCausal } from '../../web/state'
import type { Engine } from 'attention-playground'

const fixture = JSON.parse(readFileSync(new URL('../fixtures/decode_fixture.json', import.meta.url), 'utf8'))
let engine: Engine

beforeAll(async () => {
  engine = (await init()) as unknown as Engine
})

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, what: string, tol = 2e-5): void {
  expect(got.length, `${what} length`).toBe(want.length)
  for (let i = 0; i < want.length; i++) {
    expect(Math.abs(got[i] - want[i]), `${what}[${i}]: ${got[i]} vs ${want[i]}`).toBeLessThanOrEqual(
      tol * Math.max(1, Math.abs(want[i])),
    )
  }
}

describe('decode view model', () => {
  const state = () => Object.assign(defaultState('en'), { mode: 'cross' as const, ...fixture.config })

  it('equals PyTorch step by step for the fixture configuration (self-attention, residual, LayerNorm, cross)', () => {
    const m = decodeModel(engine, state())
    expect(m.inputs).toEqual(fixture.inputs)
    expect(m.targets).toEqual(fixture.targets)
    expect(m.sourceTokens).toEqual(fixture.sourceTokens)
    m.steps.forEach((st, t) => {
      const ref = fixture.steps[t]
      expectClose(st.selfWeights.data, ref.selfWeights, `step ${t} selfWeights`, 1e-5)
      expectClose(st.selfOutput.data, ref.selfOutput, `step ${t} selfOutput`, 1e-5)
      expectClose(st.residual.data, ref.residual, `step ${t} residual`, 1e-5)
      expectClose(st.normed.data, ref.normed, `step ${t} LayerNorm`, 1e-5)
      expectClose(st.query.data, ref.crossQuery, `step ${t} crossQuery`, 1e-5)
      expectClose(st.crossScores.data, ref.crossScores, `step ${t} crossScores`, 1e-5)
      expectClose(st.crossWeights.data, ref.crossWeights, `step ${t} crossWeights`, 1e-5)
      expectClose(st.context.data, ref.context, `step ${t} context C`, 1e-5)
      expect(st.query.shape).toEqual([1, 24])
      expect(st.normed.shape).toEqual([1, 16])
      expect(st.crossWeights.shape).toEqual([1, 3])
    })
  })

  // An earlier word replaced by another of the same vocabulary (the source holds every word, so the draws stay the
  // same) and the same input at the last step, whose query and cross weights still change (through the
  // self-attention over the earlier inputs). Swapping two earlier words would change nothing: no positions here.
  it("earlier target words change a later step's query and cross weights, its own input unchanged", () => {
    const cases: Array<[string, string, string, 'word' | 'char']> = [
      ['le chat dort bien', 'le chat dort bien', 'chat chat dort bien', 'word'],
      ['我爱中国你们', '我爱你们', '爱爱你们', 'char'],
    ]
    for (const [source, target, changed, tokenizer] of cases) {
      const base = { mode: 'cross' as const, source, tokenizer, dq: 8, dk: 8, dv: 6, seed: 5 }
      const a = decodeModel(engine, Object.assign(defaultState('en'), base, { target }))
      const b = decodeModel(engine, Object.assign(defaultState('en'), base, { target: changed }))
      expect(a.steps.length).toBe(b.steps.length)
      const last = a.steps.length - 1
      expect(a.inputs[last]).toBe(b.inputs[last])
      expect(a.inputs.slice(1, last)).not.toEqual(b.inputs.slice(1, last))
      const differs = (x: Float32Array, y: Float32Array) => x.some((v, i) => Math.abs(v - y[i]) > 1e-4)
      expect(differs(a.steps[last].query.data, b.steps[last].query.data), `${target}: query`).toBe(true)
      expect(differs(a.steps[last].crossWeights.data, b.steps[last].crossWeights.data), `${target}: cross`).toBe(true)
      // LayerNorm: each row has mean 0 and variance 1 (up to eps).
      for (const st of a.steps) {
        const xs = Array.from(st.normed.data)
        const mean = xs.reduce((p, v) => p + v, 0) / xs.length
        const vr = xs.reduce((p, v) => p + (v - mean) ** 2, 0) / xs.length
        expect(Math.abs(mean)).toBeLessThan(1e-5)
        expect(Math.abs(vr - 1)).toBeLessThan(1e-3)
      }
      expect(a.inputs[0]).toMatch(START)
    }
  })

  it('a target with no tokens is an Error naming target', () => {
    const s = Object.assign(defaultState('en'), { mode: 'cross' as const, target: '   ' })
    expect(() => decodeModel(engine, s)).toThrow(/target/)
  })
})

describe('URL rules from the lessons', () => {
  it('cross mode drops a causal mask with a notice; self mode keeps it', () => {
    const r = parseParams(new URLSearchParams('mode=cross&mask=causal'), defaultState('en'))
    expect(r.state.mask).toBe('none')
    expect(r.notices).toEqual([{ param: 'mask', value: 'causal', reason: 'crossCausal' }])
    expect(parseParams(new URLSearchParams('source=a&mask=causal'), defaultState('en')).state.mask).toBe('none')
    expect(parseParams(new URLSearchParams('mask=causal'), defaultState('en')).state.mask).toBe('causal')
    expect(withoutCrossCausal({ ...defaultState('en'), mode: 'cross', mask: 'causal' }).mask).toBe('none')
  })

  it('score=bilinear and the old score=general both give the bilinear rule (engine id general)', () => {
    for (const v of ['bilinear', 'general']) {
      const r = parseParams(new URLSearchParams(`score=${v}`), defaultState('en'))
      expect(r.notices).toEqual([])
      expect(r.state.score).toBe('general')
      expect(toParams(r.state).get('score')).toBe('general')
    }
  })
})

describe('scaling view model: why ÷√d_k, measured on the engine', () => {
  it('the variance of q·k is d_k unscaled and 1 scaled, within sampling error; saturation and its undoing', async () => {
    const { measureScaling, SCALING_DKS } = await import('../../web/compute/scaling')
    const pts = measureScaling(engine, SCALING_DKS)
    expect(pts.map((p) => p.dk)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
    for (const p of pts) {
      // Four standard errors of the mean over independent blocks; the errors themselves are small.
      expect(
        Math.abs(p.raw.variance - p.dk),
        `raw d_k=${p.dk}: ${p.raw.variance} ± ${p.raw.varianceSE}`,
      ).toBeLessThanOrEqual(4 * p.raw.varianceSE)
      expect(
        Math.abs(p.scaled.variance - 1),
        `scaled d_k=${p.dk}: ${p.scaled.variance} ± ${p.scaled.varianceSE}`,
      ).toBeLessThanOrEqual(4 * p.scaled.varianceSE)
      expect(p.raw.varianceSE / p.dk).toBeLessThan(0.15)
      expect(p.scaled.varianceSE).toBeLessThan(0.15)
    }
    const first = pts[0],
      last = pts[pts.length - 1]
    // Unscaled: at d_k = 512 the rows are nearly one-hot, entropy near 0, the gradient nearly gone.
    expect(last.raw.maxWeight).toBeGreaterThan(0.9)
    expect(last.raw.entropy).toBeLessThan(0.3)
    expect(last.raw.gradient).toBeLessThan(0.4 * last.scaled.gradient)
    expect(last.raw.gradient).toBeLessThan(0.4 * Math.max(...pts.map((p) => p.raw.gradient)))
    // Scaled: the same at every d_k (as at d_k = 1).
    for (const p of pts) {
      expect(Math.abs(p.scaled.maxWeight - first.scaled.maxWeight)).toBeLessThan(0.08)
      expect(p.scaled.gradient).toBeGreaterThan(0.5 * first.scaled.gradient)
    }
    console.log(
      'scaling:',
      pts
        .map(
          (p) =>
            `d_k=${p.dk} var ${p.raw.variance.toFixed(1)}/${p.scaled.variance.toFixed(3)} max ${p.raw.maxWeight.toFixed(3)}/${p.scaled.maxWeight.toFixed(3)} H ${p.raw.entropy.toFixed(3)}/${p.scaled.entropy.toFixed(3)} grad ${p.raw.gradient.toFixed(4)}/${p.scaled.gradient.toFixed(4)}`,
        )
        .join('\n'),
    )
  })
})
