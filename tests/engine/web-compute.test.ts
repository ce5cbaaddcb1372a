// The pipeline's compute (web/compute/run.ts) runs attention once per state: with a padding or painted mask or
// edited cells it takes the token counts and the seed's tensors from ap.projections (O(n), no attention), then runs
// once. Its trace equals the two-run path it replaced (a maskless run for the sizes and tensors, then the run),
// written out here.
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import type { Engine, RunOptions, Tensor } from 'attention-playground'
import { compute } from '../../web/compute/run'
import { baseRunOptions } from '../../web/compute/options'
import { defaultState, parseParams, type PlaygroundState } from '../../web/state'

let ap: Engine

beforeAll(async () => {
  ap = (await init({ backend: 'simd128' })) as unknown as Engine
})

const state = (q: Record<string, string>): PlaygroundState =>
  parseParams(new URLSearchParams(q), defaultState('en')).state

const CASES: Record<string, string>[] = [
  { mask: 'padding', pad: '3' },
  { mask: 'cells', cells: '0.1,2.3' },
  { edits: 'Wq.0.1=2;embeddings.3.2=-1' },
  { mask: 'padding', pad: '1', edits: 'Wk.1.1=3', mode: 'cross', source: 'a b c', target: 'x y' },
]

describe('compute: one attention run per state', () => {
  for (const q of CASES) {
    it(new URLSearchParams(q).toString(), () => {
      const s = state(q)
      expect(s.mask === 'padding' || s.mask === 'cells' || s.edits.length > 0, 'the case needs sizes').toBe(true)
      const c = { run: 0, projections: 0 }
      const spy = Object.create(ap) as Engine
      spy.run = (o) => (c.run++, ap.run(o))
      spy.projections = (o) => (c.projections++, ap.projections(o))
      const { trace } = compute(spy, s)
      expect(c).toEqual({ run: 1, projections: 1 })
      // The path it replaced: a maskless run for the sizes and the seed's tensors, then the run.
      const base = ap.run({ ...baseRunOptions(s, 0, 0), mask: 'none' })
      const nq = base.tokens.length
      const nk = base.sourceTokens?.length ?? nq
      const edited: Record<string, Tensor> = {}
      for (const e of s.edits) {
        const t = edited[e.t] ?? base[e.t]!
        edited[e.t] = { data: Float32Array.from(t.data), shape: [...t.shape] }
        edited[e.t].data[e.r * t.shape[1] + e.c] = e.v
      }
      const o: RunOptions = { ...baseRunOptions(s, nq, nk), ...edited }
      const want = ap.run(o)
      expect(trace.tokens).toEqual(want.tokens)
      for (const k of ['scores', 'weights', 'output'] as const)
        expect(Array.from(trace![k].data)).toEqual(Array.from(want[k].data))
    })
  }
})
