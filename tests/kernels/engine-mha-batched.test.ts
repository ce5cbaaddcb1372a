// ap.multiHeadAttention against torch.nn.MultiheadAttention(batch_first=True): batches [B, n, E], a
// boolean attn_mask, key padding that masks every key of an item, a float attn_mask (finite and -inf,
// alone and with key padding, batched and unbatched), per-head weights (average_attn_weights=False) and
// their mean (=True) — tests/fixtures/engine-mha-batched.json.
import { describe, expect, it } from 'vitest'
import {
  ap,
  decodeInput,
  isTensorJson,
  itEachCase,
  loadFixture,
  toTensor,
  useEngine,
  type FixtureJson,
  type Tensor,
} from '../support/helpers'
import { expectTensorClose, SUMS } from '../support/helpers'

const fx = loadFixture('engine-mha-batched.json')

useEngine()

function input(c: FixtureJson) {
  const o = decodeInput(c.input)
  // a float attn_mask is written as a tensor [nq, nk] and passed as a Float32Array; a boolean one as 0/1
  if (isTensorJson(c.input.attnMask)) o.attnMask = toTensor(c.input.attnMask).data
  else if (c.input.attnMask) o.attnMask = Uint8Array.from(c.input.attnMask)
  return o
}

describe('batched multiHeadAttention() reproduces torch.nn.MultiheadAttention(batch_first=True)', () => {
  it('the fixture has its seven cases, four with a float attn_mask', () => {
    expect(fx.cases).toHaveLength(7)
    expect(fx.cases.filter((c: FixtureJson) => isTensorJson(c.input.attnMask))).toHaveLength(4)
  })
  itEachCase(fx, (c) => {
    const r = ap.multiHeadAttention(input(c))
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
    expectTensorClose(r.weights, c.expected.weights, 'weights [B, H, nq, nk]')
    // average_attn_weights=True is the mean over heads of the same weights (unbatched: no B axis)
    const batched = r.weights.shape.length === 4
    const [B, H, nq, nk] = batched ? r.weights.shape : [1, ...r.weights.shape]
    const avg = new Float32Array(B * nq * nk)
    for (let b = 0; b < B; b++)
      for (let h = 0; h < H; h++)
        for (let x = 0; x < nq * nk; x++) avg[b * nq * nk + x] += r.weights.data[(b * H + h) * nq * nk + x] / H
    const avgShape = batched ? [B, nq, nk] : [nq, nk]
    expectTensorClose({ data: avg, shape: avgShape }, c.expected.averagedWeights, 'mean over heads')
    // rows PyTorch turns into NaN are exactly the rows the engine reports as fully masked
    expect(r.maskedRows).toEqual(c.torchNaN)
  })

  it('a fully masked row: torch gave NaN, the engine gives zero weights and out_proj.bias as output', () => {
    const c = fx.cases.find(
      (c: FixtureJson) => c.torchNaN.some((rows: number[]) => rows.length > 0) && c.input.keyPaddingMask,
    )
    expect(c.torchNaN[1]).toEqual([0, 1, 2])
    const r = ap.multiHeadAttention(input(c))
    const [B, H, nq, nk] = r.weights.shape
    expect(B).toBe(2)
    for (let h = 0; h < H; h++)
      for (let x = 0; x < nq * nk; x++) expect(r.weights.data[(1 * H + h) * nq * nk + x]).toBe(0)
    const E = r.output.shape[2]
    const bias = toTensor(c.input.outProjBias).data
    expect(Array.from(r.output.data.subarray(nq * E, 2 * nq * E))).toEqual(
      Array.from({ length: nq }, () => Array.from(bias)).flat(),
    )
  })

  it('a batch item gives the same numbers as the unbatched call', () => {
    const o = input(fx.cases[0])
    const whole = ap.multiHeadAttention(o)
    const [B, nq, E] = whole.output.shape
    const nk = o.key.shape[1]
    for (let b = 0; b < B; b++) {
      const part = (t: Tensor, n: number) => ({ data: t.data.slice(b * n * E, (b + 1) * n * E), shape: [n, E] })
      const one = ap.multiHeadAttention({
        ...o,
        query: part(o.query, nq),
        key: part(o.key, nk),
        value: part(o.value, nk),
      })
      expect(Array.from(one.output.data)).toEqual(Array.from(whole.output.data.subarray(b * nq * E, (b + 1) * nq * E)))
    }
  })

  it('bad batched input names the argument and the shapes', () => {
    const o = input(fx.cases[0])
    expect(() => ap.multiHeadAttention({ ...o, key: { data: o.key.data.slice(0, 40), shape: [1, 5, 8] } })).toThrow(
      'query/key/value: need the same rank and batch size, got query [3, 4, 8], key [1, 5, 8], value [3, 5, 8]',
    )
    expect(() => ap.multiHeadAttention({ ...o, keyPaddingMask: [0, 1] })).toThrow(/keyPaddingMask: expected \[3, 5\]/)
    expect(ap.multiHeadAttention(o).output.shape).toEqual([3, 4, 8]) // still works
  })

  it('a float attn_mask: -Infinity masks like true, a row of -Infinity is fully masked, 0 changes nothing', () => {
    const o = input(fx.cases[0]) // B = 3, nq = 4, nk = 5, no mask
    const nq = 4
    const nk = 5
    const bool = new Uint8Array(nq * nk)
    const additive = new Float32Array(nq * nk)
    for (const x of [1, 7, 8, 12]) {
      bool[x] = 1
      additive[x] = -Infinity
    }
    const a = ap.multiHeadAttention({ ...o, attnMask: bool })
    const b = ap.multiHeadAttention({ ...o, attnMask: additive })
    expectTensorClose(b.output, { shape: a.output.shape, data: Array.from(a.output.data) }, 'output', SUMS)
    expectTensorClose(b.weights, { shape: a.weights.shape, data: Array.from(a.weights.data) }, 'weights')
    const zero = ap.multiHeadAttention({ ...o, attnMask: new Float32Array(nq * nk) })
    const none = ap.multiHeadAttention(o)
    expect(Array.from(zero.output.data)).toEqual(Array.from(none.output.data))
    additive.fill(-Infinity, 2 * nk, 3 * nk) // row 2: every key masked
    const c = ap.multiHeadAttention({ ...o, attnMask: additive })
    expect(c.maskedRows).toEqual([[2], [2], [2]])
    expect(c.output.data.every(Number.isFinite)).toBe(true)
  })

  it('a bad float attn_mask names attnMask and the shapes; NaN and +Infinity are rejected', () => {
    const o = input(fx.cases[3]) // B = 2, nq = 4, nk = 5, float mask
    const m = o.attnMask as Float32Array
    expect(m).toBeInstanceOf(Float32Array)
    expect(() => ap.multiHeadAttention({ ...o, attnMask: m.slice(0, 12) })).toThrow(
      /^attnMask: a float mask is added to the scores \[nq, nk\] = \[4, 5\] \(query \[4, 8\], key \[5, 8\]\), so it needs 20 values, got 12$/,
    )
    const nan = m.slice()
    nan[6] = NaN
    expect(() => ap.multiHeadAttention({ ...o, attnMask: nan })).toThrow(
      /^attnMask: a float mask must not hold NaN, got NaN at \[1, 1\]/,
    )
    const inf = m.slice()
    inf[6] = Infinity
    expect(() => ap.multiHeadAttention({ ...o, attnMask: inf })).toThrow(
      /^attnMask: a float mask allows finite values and -inf \(masked\), got \+inf at \[1, 1\]/,
    )
    const { query, key, value } = o
    const unbatched = { ...o, query: item(query), key: item(key), value: item(value), attnMask: m.slice(0, 19) }
    expect(() => ap.multiHeadAttention(unbatched)).toThrow(/attnMask: .*\[4, 5\].*got 19/)
    expect(ap.multiHeadAttention(o).output.shape).toEqual([2, 4, 8]) // still works
  })
})

/** Item 0 of a [B, n, E] tensor as [n, E]. */
function item(t: Tensor): Tensor {
  const [, n, E] = t.shape
  return { data: t.data.slice(0, n * E), shape: [n, E] }
}
