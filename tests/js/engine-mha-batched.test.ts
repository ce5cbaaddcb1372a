// ap.multiHeadAttention against torch.nn.MultiheadAttention(batch_first=True): batches [B, n, E], a
// boolean attn_mask, key padding that masks every key of an item, per-head weights
// (average_attn_weights=False) and their mean (=True) — tests/fixtures/engine-mha-batched.json.
import { beforeAll, describe, expect, it } from 'vitest'
import {
  SUMS,
  decodeInput,
  expectTensorClose,
  getAp,
  loadFixture,
  toTensor,
  type Engine,
  type FixtureJson,
  type Tensor,
} from './helpers'

const fx = loadFixture('engine-mha-batched.json')

let ap: Engine
beforeAll(async () => {
  ap = await getAp()
})

function input(c: FixtureJson) {
  const o = decodeInput(c.input)
  if (c.input.attnMask) o.attnMask = Uint8Array.from(c.input.attnMask)
  return o
}

describe('batched multiHeadAttention() reproduces torch.nn.MultiheadAttention(batch_first=True)', () => {
  it('the fixture has its three cases', () => expect(fx.cases).toHaveLength(3))
  for (const c of fx.cases) {
    it(c.name, () => {
      const r = ap.multiHeadAttention(input(c))
      expectTensorClose(r.output, c.expected.output, 'output', SUMS)
      expectTensorClose(r.weights, c.expected.weights, 'weights [B, H, nq, nk]')
      // average_attn_weights=True is the mean over heads of the same weights
      const [B, H, nq, nk] = r.weights.shape
      const avg = new Float32Array(B * nq * nk)
      for (let b = 0; b < B; b++)
        for (let h = 0; h < H; h++)
          for (let x = 0; x < nq * nk; x++) avg[b * nq * nk + x] += r.weights.data[(b * H + h) * nq * nk + x] / H
      expectTensorClose({ data: avg, shape: [B, nq, nk] }, c.expected.averagedWeights, 'mean over heads')
      // rows PyTorch turns into NaN are exactly the rows the engine reports as fully masked
      expect(r.maskedRows).toEqual(c.torchNaN)
    })
  }

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
      /key: .*\[3, 4, 8\].*\[1, 5, 8\]/,
    )
    expect(() => ap.multiHeadAttention({ ...o, keyPaddingMask: [0, 1] })).toThrow(/keyPaddingMask: expected \[3, 5\]/)
    expect(ap.multiHeadAttention(o).output.shape).toEqual([3, 4, 8]) // still works
  })
})
