// Sliding windows with sinks, sink logits, grouped-query heads and FlashAttention's tiles against hand-written
// PyTorch (tests/fixtures/engine-modern.json, written by tests/fixtures/gen_modern_fixtures.py with torch 1.13).
import { STEP_NAMES } from '../../dist/index.js'
import { describe, expect, it } from 'vitest'
import { ap, decodeInput, loadFixture, useEngine, type FixtureJson, type Tensor } from '../support/helpers'
import { EXACT, expectAllClose, expectTensorClose, shapeOf, SUMS, TIGHT, tolFor, toTensor } from '../support/helpers'

const fx = loadFixture('engine-modern.json')

useEngine()

function eachCase(cases: FixtureJson[], check: (c: FixtureJson) => void) {
  for (const c of cases) it(c.name, () => check(c))
}

function rowSums(w: Tensor): number[] {
  const nk = w.shape[w.shape.length - 1]
  const sums: number[] = []
  for (let r = 0; r < w.data.length / nk; r++) {
    let s = 0
    for (let j = 0; j < nk; j++) s += w.data[r * nk + j]
    sums.push(s)
  }
  return sums
}

describe('attention(): sliding window + sinks and the sink logit equal PyTorch', () => {
  eachCase(fx.attention, (c) => {
    const opts = decodeInput(c.input)
    const r = ap.attention(opts)
    expectTensorClose(r.weights, c.expected.weights, 'weights')
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
    if (c.expected.sinkShare) {
      expectAllClose(r.sinkShare as Float32Array, toTensor(c.expected.sinkShare).data, 'sinkShare')
      // each row's weights and the sink's share make 1: the rows themselves sum to less
      const sums = rowSums(r.weights as Tensor)
      sums.forEach((s, i) => {
        expect(s).toBeLessThan(1)
        expect(s + (r.sinkShare as Float32Array)[i]).toBeCloseTo(1, 6)
      })
    } else {
      expect(r.sinkShare).toBeUndefined()
    }
    // the fused kernel (no weights) gives the same output
    const fused = ap.attention({ ...opts, needWeights: false })
    expectTensorClose(fused.output, c.expected.output, 'fused output', SUMS)
  })
})

describe('run(): mask { window, sinks } equals PyTorch', () => {
  eachCase(fx.run, (c) => {
    const t = ap.run(decodeInput(c.options))
    for (const step of STEP_NAMES) expectTensorClose(t[step], c.expected[step], step, tolFor(step))
    expect(t.options.mask).toEqual(c.options.mask)
  })
})

describe("run(): sinkLogit adds one logit to every head's softmax and drops its share", () => {
  // The reference: softmax over each row of each head's masked scores and the sink, all divided by the temperature.
  function sinkSoftmax(masked: Tensor, sink: number, temperature: number): Float32Array {
    const nk = masked.shape[masked.shape.length - 1]
    const out = new Float32Array(masked.data.length)
    for (let r = 0; r < masked.data.length / nk; r++) {
      const row = Array.from(masked.data.subarray(r * nk, (r + 1) * nk), (s) => s / temperature)
      const m = Math.max(sink / temperature, ...row)
      const e = row.map((x) => Math.exp(x - m))
      const z = Math.exp(sink / temperature - m) + e.reduce((a, b) => a + b, 0)
      e.forEach((x, j) => (out[r * nk + j] = x / z))
    }
    return out
  }
  // output = weights_h · V_h for each head h, the heads side by side.
  function headsTimesV(w: Tensor, V: Tensor, heads: number): Float32Array {
    const [nq, nk] = w.shape.slice(-2)
    const dv = V.shape[1]
    const dh = dv / heads
    const out = new Float32Array(nq * dv)
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < nq; i++)
        for (let c = 0; c < dh; c++) {
          let acc = 0
          for (let j = 0; j < nk; j++) acc += w.data[(h * nq + i) * nk + j] * V.data[j * dv + h * dh + c]
          out[i * dv + h * dh + c] = acc
        }
    return out
  }
  const base = {
    text: 'the cat sat on the mat because it was tired',
    heads: 2,
    mask: 'causal',
    temperature: 2,
  } as const

  for (const sinkLogit of [0, 1.5, -3]) {
    it(`sinkLogit ${sinkLogit}: weights and output equal the reference over run()'s own masked scores`, () => {
      const t = ap.run({ ...base, sinkLogit })
      const plain = ap.run(base)
      // everything before the softmax is run()'s without the sink
      expectTensorClose(t.maskedScores, plain.maskedScores, 'maskedScores', EXACT)
      expectAllClose(t.weights.data, sinkSoftmax(t.maskedScores, sinkLogit, 2), 'weights')
      expectAllClose(t.output.data, headsTimesV(t.weights, t.V, 2), 'output', SUMS)
      // the sink keeps a share of the rows: none sums to more than 1, some visibly to less
      const sums = rowSums(t.weights)
      sums.forEach((s, r) => expect(s, `row ${r}`).toBeLessThanOrEqual(1 + 1e-6))
      expect(Math.min(...sums)).toBeLessThan(0.999)
    })
  }

  it('is off unless given; projections and runBackward reject it by name; a non-finite one is named', () => {
    const plain = ap.run(base)
    rowSums(plain.weights).forEach((s, r) => expect(s, `row ${r}`).toBeCloseTo(1, 6))
    expect(() => ap.run({ ...base, sinkLogit: Infinity })).toThrow(/^sinkLogit: must be finite, got inf/)
    expect(() => ap.projections({ text: base.text, sinkLogit: 0 } as never)).toThrow(
      /^projections: unknown option 'sinkLogit'; known options: text, /,
    )
    const loss = { kind: 'attend', query: 1, key: 0 } as const
    expect(() => ap.runBackward({ ...base, sinkLogit: 0, loss } as never)).toThrow(
      /^runBackward: unknown option 'sinkLogit'; known options: /,
    )
  })
})

describe('flashTrace(): every tile of the fused kernel equals the online softmax in PyTorch', () => {
  eachCase(fx.flash, (c) => {
    const t = ap.flashTrace(decodeInput(c.input))
    expect(t.steps.length).toBe(c.expected.steps.length)
    t.steps.forEach((s, k) => {
      const e = c.expected.steps[k]
      expect([s.rowBlock, s.colBlock], `step ${k}`).toEqual([e.rowBlock, e.colBlock])
      expectAllClose(s.m, toTensor(e.m).data, `step ${k} m`)
      expectAllClose(s.l, toTensor(e.l).data, `step ${k} l`)
      expectTensorClose(s.O, e.O, `step ${k} O`, SUMS)
    })
    expectTensorClose(t.output, c.expected.output, 'output', SUMS)
    expect([t.kernelBlockRows, t.kernelBlockCols]).toEqual([36, 128])
  })

  it('output equals attention() within 1e-6; the last m is the row max, the last l its Σ exp(s − m)', () => {
    const c = fx.flash[1]
    const inp = decodeInput(c.input)
    const t = ap.flashTrace(inp)
    const plain = ap.attention({ query: inp.query, key: inp.key, value: inp.value, mask: 'causal', needScores: true })
    expectTensorClose(t.output, plain.output, 'output vs attention()', { atol: 1e-6, rtol: 0 })
    const S = plain.maskedScores as Tensor
    const [nq, nk] = shapeOf(S)
    const br = inp.blockRows as number
    for (let i = 0; i < nq; i++) {
      const b = Math.floor(i / br)
      const last = t.steps.filter((s) => s.rowBlock === b).at(-1)!
      let m = -Infinity
      for (let j = 0; j < nk; j++) m = Math.max(m, S.data[i * nk + j])
      let l = 0
      for (let j = 0; j < nk; j++) l += Math.exp(S.data[i * nk + j] - m)
      expect(last.m[i - b * br]).toBeCloseTo(m, 5)
      expect(Math.abs(last.l[i - b * br] - l) / l).toBeLessThan(1e-5)
    }
  })

  it('is the kernel itself: the trace with the kernel block sizes matches the fused output bit for bit', () => {
    const c = fx.flash[3]
    const inp = decodeInput(c.input)
    const t = ap.flashTrace(inp)
    const fused = ap.attention({ query: inp.query, key: inp.key, value: inp.value, needWeights: false })
    expectTensorClose(t.output, fused.output, 'output', TIGHT)
  })
})

describe('bad input names the option', () => {
  const X = { data: new Float32Array(12).fill(0.5), shape: [4, 3] }
  const cases: [string, () => unknown, RegExp][] = [
    [
      'window 0',
      () => ap.attention({ query: X, key: X, value: X, mask: { window: 0 } }),
      /^mask\.window: .*at least 1/,
    ],
    [
      'sinks > n',
      () => ap.attention({ query: X, key: X, value: X, mask: { window: 2, sinks: 5 } }),
      /^mask\.sinks: .*0 to the 4 keys, got 5/,
    ],
    [
      'sinkLogit NaN',
      () => ap.attention({ query: X, key: X, value: X, sinkLogit: NaN }),
      /^sinkLogit: must be finite, got nan/,
    ],
    [
      'blockRows 0',
      () => ap.flashTrace({ query: X, key: X, value: X, blockRows: 0, blockCols: 2 }),
      /^blockRows: must be an integer from 1 to 36/,
    ],
    [
      'blockCols 200',
      () => ap.flashTrace({ query: X, key: X, value: X, blockRows: 2, blockCols: 200 }),
      /^blockCols: must be an integer from 1 to 128/,
    ],
    ['blockCols 2.5', () => ap.flashTrace({ query: X, key: X, value: X, blockRows: 2, blockCols: 2.5 }), /^blockCols/],
    ['run window 0', () => ap.run({ mask: { window: 0 } }), /^mask\.window/],
  ]
  for (const [name, f, re] of cases) {
    it(name, () => {
      expect(f).toThrow(re)
      // the module keeps working after the error
      expect(ap.attention({ query: X, key: X, value: X }).output.shape).toEqual([4, 3])
    })
  }
})
