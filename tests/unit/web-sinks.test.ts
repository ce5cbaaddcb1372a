// The sinks view's measure of a handed-over layer (web/compute/sinks.ts measureTrace), on weights written by hand:
// each head's mean weight on position 0 over rows 1…, against an even spread over the keys each row sees.
import { describe, expect, it } from 'vitest'
import { measureTrace } from '../../web/compute/sinks'

const I = -Infinity

describe('measureTrace', () => {
  it('a causal layer of 3 tokens, 2 heads: means, the even spread and the 2× threshold', () => {
    // head 0 piles onto position 0; head 1 spreads evenly over what each row sees
    const weights = [
      [1, 0, 0, 0.9, 0.1, 0, 0.8, 0.1, 0.1],
      [1, 0, 0, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3],
    ]
    const causal = [0, I, I, 0, 0, I, 0, 0, 0]
    const r = measureTrace({
      weights: { data: new Float32Array(weights.flat()), shape: [2, 3, 3] },
      maskedScores: { data: new Float32Array([...causal, ...causal]), shape: [2, 3, 3] },
    })
    expect(r.heads.map((h) => h.mean)).toEqual([expect.closeTo(0.85, 6), expect.closeTo((0.5 + 1 / 3) / 2, 6)])
    expect(r.uniform).toBeCloseTo((1 / 2 + 1 / 3) / 2, 6) // rows 1 and 2 see 2 and 3 keys
    expect(r.best.head).toBe(0)
    expect(r.found).toBe(true) // 0.85 ≥ 2 × 0.4167
  })

  it('no mask: the even spread is 1 / n, and a head at 1.5× it is not a sink', () => {
    const n = 4
    const row = [0.375, 0.625 / 3, 0.625 / 3, 0.625 / 3] // 0.375 = 1.5 × 1/4
    const r = measureTrace({
      weights: { data: new Float32Array(Array.from({ length: n }, () => row).flat()), shape: [n, n] },
      maskedScores: { data: new Float32Array(n * n), shape: [n, n] },
    })
    expect(r.uniform).toBeCloseTo(0.25, 6)
    expect(r.heads).toHaveLength(1)
    expect(r.best.mean).toBeCloseTo(0.375, 6)
    expect(r.found).toBe(false)
  })
})
