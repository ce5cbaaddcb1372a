// ap.multiHeadAttention against torch.nn.MultiheadAttention (unbatched [n, E] inputs,
// need_weights=True, average_attn_weights=False) — tests/fixtures/engine-mha.json.
import { describe, expect, it } from 'vitest'
import { ap, decodeInput, itEachCase, loadFixture, useEngine, type FixtureJson } from '../support/helpers'
import { expectTensorClose, shapeOf, SUMS } from '../support/helpers'

const fx = loadFixture('engine-mha.json')

useEngine()

describe('multiHeadAttention() reproduces torch.nn.MultiheadAttention', () => {
  itEachCase(fx, (c) => {
    const r = ap.multiHeadAttention(decodeInput(c.input))
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
    expectTensorClose(r.weights, c.expected.weights, 'weights')
  })

  it('causal weights are exactly 0 above the diagonal in every head', () => {
    const c = fx.cases.find((c: FixtureJson) => c.input.causal)
    const r = ap.multiHeadAttention(decodeInput(c.input))
    const [h, nq, nk] = shapeOf(r.weights)
    for (let a = 0; a < h; a++) {
      for (let i = 0; i < nq; i++) {
        for (let j = i + 1; j < nk; j++) expect(r.weights.data[(a * nq + i) * nk + j], `head ${a} [${i}, ${j}]`).toBe(0)
      }
    }
  })

  it('packed in_proj_weight equals the same weights passed as separate q/k/v projections', () => {
    const c = fx.cases[0]
    const inp = decodeInput(c.input)
    const E = shapeOf(inp.query)[1]
    const part = (i: number) => ({ data: inp.inProjWeight.data.slice(i * E * E, (i + 1) * E * E), shape: [E, E] })
    const { inProjWeight, ...rest } = inp
    void inProjWeight
    const r = ap.multiHeadAttention({ ...rest, qProjWeight: part(0), kProjWeight: part(1), vProjWeight: part(2) })
    expectTensorClose(r.output, c.expected.output, 'output', SUMS)
  })
})
