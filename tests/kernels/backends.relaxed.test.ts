// The relaxed-SIMD engine (FMA) against the SIMD128 one, in one process: every PyTorch fixture input
// and large random attention calls, every returned tensor within 1e-5 of the other engine (relative
// above 1, absolute below: the fixture suites' measure; FMA rounds once where mul + add rounds twice).
// Runs in the 'engine-relaxed' Vitest project alone (Node with --experimental-wasm-relaxed-simd); without
// the flag init() rejects the relaxed engine and this file fails.
import { beforeAll, describe, expect, it } from 'vitest'
import { init, supportsRelaxedSimd } from '../../dist/index.js'
import {
  decodeInput,
  expectTensorClose,
  loadFixture,
  rng,
  type Engine,
  type Tensor,
  type Tol,
} from '../support/helpers'

let relaxed: Engine
let simd: Engine
beforeAll(async () => {
  relaxed = await init({ backend: 'relaxed-simd' })
  simd = await init({ backend: 'simd128' })
})

// 1e-5 of the other engine: absolute near zero, relative for larger values (the old max(1, |b|) measure
// in helpers' atol + rtol form).
const RELAXED_TOL: Tol = { atol: 1e-5, rtol: 1e-5 }

const isTensor = (x: unknown): x is Tensor =>
  !!x && (x as Tensor).data instanceof Float32Array && Array.isArray((x as Tensor).shape)

// The engines' results (AttentionResult, MultiHeadAttentionResult, Trace) compared field by field.
function compareResults<T extends object>(relaxedResult: T, simdResult: T, label: string) {
  const r = relaxedResult as Record<string, unknown>
  const s = simdResult as Record<string, unknown>
  let tensors = 0
  for (const k of Object.keys(s)) {
    if (isTensor(s[k])) {
      expectTensorClose(r[k] as Tensor | undefined, s[k], `${label}.${k}`, RELAXED_TOL)
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
        const input = {
          ...decodeInput(c.input, fx.tensors),
          ...(c.input.needWeights === false ? {} : { needScores: true }),
        }
        compareResults(relaxed.attention(input), simd.attention(input), c.name)
      }
    })
  }

  it('engine-mha.json', () => {
    const fx = loadFixture('engine-mha.json')
    for (const c of fx.cases)
      compareResults(
        relaxed.multiHeadAttention(decodeInput(c.input)),
        simd.multiHeadAttention(decodeInput(c.input)),
        c.name,
      )
  })

  it('engine-run.json', () => {
    const fx = loadFixture('engine-run.json')
    for (const c of fx.cases)
      compareResults(relaxed.run(decodeInput(c.options)), simd.run(decodeInput(c.options)), c.name)
  })

  // The sizes of the benchmark: the fused kernel and the weights path over many flash and register tiles.
  for (const [n, d, causal] of [
    [512, 64, false],
    [512, 128, true],
    [777, 64, true],
  ] as const) {
    it(`random n=${n} d=${d}${causal ? ' causal' : ''}`, () => {
      const r = rng(n * d)
      const q = r.tensor([n, d]),
        k = r.tensor([n, d]),
        v = r.tensor([n, d])
      const mask = causal ? ('causal' as const) : ('none' as const)
      for (const needWeights of [false, true]) {
        const o = { query: q, key: k, value: v, mask, needWeights }
        compareResults(relaxed.attention(o), simd.attention(o), `n=${n} needWeights=${needWeights}`)
      }
    })
  }
})
