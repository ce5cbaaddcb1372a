// Defaults that teach (issue 39 item 3): each view's first state shows its point without a click. These read the
// numbers the views draw at their defaults (web/compute, the page's state with no URL parameter).
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import type { Engine, Tensor } from 'attention-playground'
import { compute } from '../../web/compute/run'
import * as B from '../../web/compute/backward'
import { decodeModel, START } from '../../web/compute/decode'
import { SINK_CHUNK, SINK_STEPS, measureSinks, sampleMeasure, sinkTrainer } from '../../web/compute/sinks'
import { defaultState, parseParams } from '../../web/state'

let simd: Engine

beforeAll(async () => {
  simd = (await init({ backend: 'simd128' })) as unknown as Engine
})

const largest = (t: Tensor) => t.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0)

describe('gradients (view=backward) at its defaults', () => {
  // The view's learning rate at first: 10^-2.3, shown to two digits (web/views/backward.ts).
  const LR = 0.005

  it('the first goal is one whose loss visibly falls, with numbers in every panel of the chain', () => {
    const { trace } = compute(simd, defaultState('en'))
    expect(trace.tokens).toEqual(['this', 'is', 'my', 'cat'])
    const goal = B.firstGoal(trace)
    // cat's output row should become my's (the row farthest from it): Σ (O[3] − O[2])²
    expect(goal).toMatchObject({ kind: 'output', i: 3, j: 2 })
    let target = 0
    for (let c = 0; c < goal.target!.length; c++)
      target += (trace.output.data[3 * goal.target!.length + c] - goal.target![c]) ** 2
    let w: B.Weights | null = null
    let r = B.backward(simd, trace, w, goal)
    expect(r.loss).toBeCloseTo(target, 3)
    const losses = [r.loss]
    for (let s = 0; s < 5; s++) {
      w = B.step(r, LR)
      r = B.backward(simd, trace, w, goal)
      losses.push(r.loss)
    }
    // Today's goal before this change (cat attends to "this", weight 0.990) went 0.01015 → 0.00999 in five steps.
    expect(losses[0]).toBeGreaterThan(100)
    expect(losses[5]).toBeLessThan(losses[0] / 4)
    for (let s = 1; s < losses.length; s++) expect(losses[s]).toBeLessThan(losses[s - 1])
    // No panel all zeros (the attend goal leaves dO, dV, dW_v at exactly 0).
    const first = B.backward(simd, trace, null, goal)
    for (const name of [
      'gradOutput',
      'gradWeights',
      'gradValue',
      'gradScores',
      'gradQuery',
      'gradKey',
      'gradWq',
      'gradWk',
      'gradWv',
    ] as const)
      expect(largest(first[name] as Tensor), name).toBeGreaterThan(0.1)
  })
})

describe('decoding (view=decode): the self-attention step feeds the cross query', () => {
  const at = (query: string) => parseParams(new URLSearchParams(query), defaultState('en')).state
  const ISSUE = 'view=decode&source=我 爱 中国 ！&target=I love China !&step=3'

  it('the decoder self-attention is not one-hot, and swapping an earlier target word moves the cross query', () => {
    const a = decodeModel(simd, at(ISSUE))
    const b = decodeModel(simd, at(ISSUE.replace('target=I love', 'target=China love')))
    const t = at(ISSUE).step - 1
    expect(a.inputs).toEqual([START, 'I', 'love', 'China'])
    expect(a.inputs[t]).toBe(b.inputs[t])
    // Step 3's row over ▶, I, love: before, 8.8e-9, 1.2e-15 and 1 (raw torch.rand weights).
    const row = Array.from(a.steps[t].selfWeights.data.subarray(t * (t + 1)))
    expect(row.length).toBe(3)
    expect(Math.max(...row)).toBeLessThan(0.8)
    expect(Math.min(...row)).toBeGreaterThan(0.05)
    // Before: crossQuery identical to the last digit.
    let moved = 0
    a.steps[t].query.data.forEach((v, i) => (moved = Math.max(moved, Math.abs(v - b.steps[t].query.data[i]))))
    expect(moved).toBeGreaterThan(1e-2)
  })

  it("the KV cache holds the decoder's own K and V rows, one per input (▶, I, love, …)", () => {
    const m = decodeModel(simd, defaultState('en'))
    expect(m.selfK.shape).toEqual([m.inputs.length, m.dk])
    expect(m.selfV.shape).toEqual([m.inputs.length, m.dModel])
    // Row t's self-attention output is its weights times the cached V rows 0..t.
    const t = m.inputs.length - 1
    const w = m.steps[t].selfWeights.data.subarray(t * (t + 1))
    for (let c = 0; c < m.dModel; c++) {
      let s = 0
      for (let j = 0; j <= t; j++) s += w[j] * m.selfV.data[j * m.dModel + c]
      expect(m.steps[t].selfOutput.data[c]).toBeCloseTo(s, 5)
    }
  })
})

describe('sinks (view=sinks) opens on its numbers: no training on open for the default seed', () => {
  it('the committed measure is what the view would train for the default seed (same engine: the same bits)', () => {
    const seed = defaultState('en').seed
    const sample = sampleMeasure(seed)
    expect(sample, 'a committed measure for the default seed').not.toBeNull()
    expect(sampleMeasure(seed + 1)).toBeNull()
    const tr = sinkTrainer(simd, seed)
    try {
      while (tr.steps < SINK_STEPS) tr.step(SINK_CHUNK)
      const m = measureSinks(tr)
      expect(sample!.heads).toEqual(m.heads)
      expect(sample!.best).toEqual(m.best)
      expect(sample!.uniform).toBe(m.uniform)
      expect(sample!.found).toBe(m.found)
      expect(sample!.tokens).toEqual(m.tokens)
      for (const k of ['query', 'key', 'value'] as const) {
        expect(sample!.qkv[k].shape, k).toEqual(m.qkv[k].shape)
        expect(Array.from(sample!.qkv[k].data), k).toEqual(Array.from(m.qkv[k].data))
      }
      expect(sample!.qkv.scale).toBe(m.qkv.scale)
    } finally {
      tr.dispose()
    }
    // The best head parks on position 0: at least twice the even spread.
    expect(sample!.found).toBe(true)
    expect(sample!.best.mean).toBeGreaterThan(2 * sample!.uniform)
  })
})
