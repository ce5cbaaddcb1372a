// Defaults that teach (issue 39 item 3): each view's first state shows its point without a click. These read the
// numbers the views draw at their defaults (web/compute, the page's state with no URL parameter).
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import type { Engine, Tensor } from 'attention-playground'
import { compute } from '../../web/compute/run'
import * as B from '../../web/compute/backward'
import { defaultState } from '../../web/state'

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
