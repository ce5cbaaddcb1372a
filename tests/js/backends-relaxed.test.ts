// The relaxed-SIMD engine (FMA) against the SIMD128 one, in one process: every PyTorch fixture input
// and large random attention calls, every returned tensor within 1e-5 relative of the other engine.
// Runs in the 'relaxed-simd' vitest project (Node with --experimental-wasm-relaxed-simd); without
// the flag init() rejects the relaxed engine and this file fails.
import { beforeAll, describe, expect, it } from 'vitest'
import { init, supportsRelaxedSimd } from '../../dist/index.js'
import { decodeInput, loadFixture, rng, type Engine } from './helpers'

let relaxed: Engine
let simd: Engine
beforeAll(async () => {
  relaxed = await init({ backend: 'relaxed-simd' })
  simd = await init({ backend: 'simd128' })
})

// |a - b| <= 1e-5 · max(|a|, |b|), with a floor of 1e-5 of the tensor's largest magnitude: FMA skips one
// rounding per product, so a cell that is the near-cancelling sum of large terms differs by a few ulps of
// those terms, not of itself.
function expectSameTensor(a: { data: Float32Array; shape: number[] }, b: { data: Float32Array; shape: number[] }, label: string) {
  expect(a.shape, `${label} shape`).toEqual(b.shape)
  let big = 0
  for (const x of b.data) if (Number.isFinite(x)) big = Math.max(big, Math.abs(x))
  let worst = 0
  let at = -1
  for (let i = 0; i < a.data.length; i++) {
    const x = a.data[i], y = b.data[i]
    if (x === y) continue  // equal infinities too
    const err = Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y), 1e-3 * big, 1e-30)
    if (!(err <= worst)) {
      worst = Number.isNaN(err) ? Infinity : err
      at = i
    }
  }
  expect(worst, `${label}: relative difference ${worst} at ${at} (relaxed ${a.data[at]}, simd128 ${b.data[at]})`)
    .toBeLessThanOrEqual(1e-5)
}

const isTensor = (x: any) => !!x && x.data instanceof Float32Array && Array.isArray(x.shape)

function compareResults(r: any, s: any, label: string) {
  let tensors = 0
  for (const k of Object.keys(s)) {
    if (isTensor(s[k])) {
      expectSameTensor(r[k], s[k], `${label}.${k}`)
      tensors++
    } else if (typeof s[k] !== 'object') {
      expect(r[k], `${label}.${k}`).toEqual(s[k])
    }
  }
  expect(tensors, `${label}: tensors compared`).toBeGreaterThan(0)
}

describe('relaxed-SIMD engine = SIMD128 engine within 1e-5 relative', () => {
  it('the runtime runs relaxed SIMD and each engine says which it is', () => {
    expect(supportsRelaxedSimd()).toBe(true)
    expect(relaxed.backend).toBe('relaxed-simd')
    expect(simd.backend).toBe('simd128')
    expect(relaxed.threads).toBe(1)
  })

  for (const file of ['engine-attention.json', 'engine-fused.json']) {
    const fx = loadFixture(file)
    it(`${file}: ${fx.cases.length} cases`, () => {
      for (const c of fx.cases) {
        const input = { ...decodeInput(c.input, fx.tensors), ...(c.input.needWeights === false ? {} : { needScores: true }) }
        compareResults(relaxed.attention(input), simd.attention(input), c.name)
      }
    })
  }

  it('engine-mha.json', () => {
    const fx = loadFixture('engine-mha.json')
    for (const c of fx.cases) compareResults(relaxed.multiHeadAttention(decodeInput(c.input)), simd.multiHeadAttention(decodeInput(c.input)), c.name)
  })

  it('engine-run.json', () => {
    const fx = loadFixture('engine-run.json')
    for (const c of fx.cases) compareResults(relaxed.run(decodeInput(c.options)), simd.run(decodeInput(c.options)), c.name)
  })

  // The sizes of the benchmark: the fused kernel and the weights path over many flash and register tiles.
  for (const [n, d, causal] of [[512, 64, false], [512, 128, true], [777, 64, true]] as const) {
    it(`random n=${n} d=${d}${causal ? ' causal' : ''}`, () => {
      const r = rng(n * d)
      const t = () => ({ data: Float32Array.from({ length: n * d }, () => r() * 2 - 1), shape: [n, d] })
      const q = t(), k = t(), v = t()
      const mask = causal ? 'causal' : 'none'
      for (const needWeights of [false, true]) {
        const o = { query: q, key: k, value: v, mask, needWeights }
        compareResults(relaxed.attention(o), simd.attention(o), `n=${n} needWeights=${needWeights}`)
      }
    })
  }
})
