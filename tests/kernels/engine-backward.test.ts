// ap.attentionBackward and ap.runBackward against PyTorch autograd (tests/fixtures/engine-backward.json,
// written by gen_backward_fixtures.py): causal, padding, a fully masked row, temperature, scale off, self
// and cross, batched; the pipeline's two losses back to the embeddings and Wq, Wk, Wv.
import { describe, expect, it } from 'vitest'
import {
  ap,
  decodeInput,
  expectTensorClose,
  loadFixture,
  useEngine,
  type FixtureJson,
  type Tol,
} from '../support/helpers'

const fx = loadFixture('engine-backward.json')
// 1e-5 relative, with atol 1e-5 · max|expected| for the sums of products (helpers.ts SUMS).
const TOL: Tol = { atol: 1e-7, rtol: fx.tolerance, atolOfMax: fx.tolerance }

useEngine()

const ATTENTION_GRADS = ['gradQuery', 'gradKey', 'gradValue', 'gradWeights', 'gradScores'] as const

describe('attentionBackward reproduces torch.autograd', () => {
  for (const c of fx.attentionBackward as FixtureJson[]) {
    it(c.name, () => {
      const r = ap.attentionBackward(decodeInput(c.input))
      for (const k of ATTENTION_GRADS) expectTensorClose(r[k], c.expected[k], k, TOL)
    })
  }

  it('masked cells and fully masked rows receive exactly 0 in gradScores', () => {
    const c = (fx.attentionBackward as FixtureJson[]).find((x) => x.name.startsWith('a fully masked row'))
    const r = ap.attentionBackward(decodeInput(c.input))
    const m: number[] = c.input.mask.matrix
    m.forEach((masked, i) => {
      if (masked) expect(r.gradScores.data[i] === 0, `gradScores cell ${i} (${r.gradScores.data[i]})`).toBe(true)
    })
    // row 1 is fully masked: its query gets no gradient either
    for (let j = 0; j < 8; j++) expect(r.gradQuery.data[8 + j]).toBe(0)
  })
})

const RUN_GRADS = [
  'gradEmbeddings',
  'gradWq',
  'gradWk',
  'gradWv',
  'gradQuery',
  'gradKey',
  'gradValue',
  'gradOutput',
  'gradWeights',
  'gradScores',
] as const

describe('runBackward reproduces torch.autograd', () => {
  for (const c of fx.runBackward as FixtureJson[]) {
    it(c.name, () => {
      const r = ap.runBackward(decodeInput(c.input))
      expect(r.loss).toBeCloseTo(c.expected.loss, 5)
      for (const k of RUN_GRADS) expectTensorClose(r[k], c.expected[k], k, TOL)
      if (c.expected.gradSourceEmbeddings)
        expectTensorClose(r.gradSourceEmbeddings, c.expected.gradSourceEmbeddings, 'gradSourceEmbeddings', TOL)
      else expect(r.gradSourceEmbeddings).toBeUndefined()
    })
  }

  it('a step of −lr · grad on Wq, Wk, Wv lowers the loss (the course text, attend 0 → 3)', () => {
    const loss = { kind: 'attend', query: 0, key: 3 } as const
    const r = ap.runBackward({ loss })
    const step = (w: { data: Float32Array; shape: number[] }, g: { data: Float32Array }) => ({
      data: w.data.map((x, i) => x - 0.05 * g.data[i]),
      shape: w.shape,
    })
    const after = ap.runBackward({
      loss,
      Wq: step(r.Wq, r.gradWq),
      Wk: step(r.Wk, r.gradWk),
      Wv: step(r.Wv, r.gradWv),
    })
    expect(after.loss).toBeLessThan(r.loss)
  })
})
