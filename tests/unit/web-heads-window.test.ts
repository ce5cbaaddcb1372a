// The heads view's sliding window with sinks (web/compute/grouped-heads.ts windowCell) and the sentence it shows when
// no key slides out (web/i18n/modern.ts headsNoneOutside): that sentence's condition, W + sinks ≥ n, is exactly when
// every row still sees all its earlier keys — not W ≥ n, which the view said before (false at W = 3, 1 sink, 4 tokens).
import { describe, expect, it } from 'vitest'
import { windowCell } from '../../web/compute/grouped-heads'
import { translate } from '../../web/i18n'
import { MODERN } from '../../web/i18n/modern'

const slidOut = (n: number, w: number, k: number) => {
  const out: Array<[number, number]> = []
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (windowCell(i, j, w, k) === 'out') out.push([i, j])
  return out
}

describe('sliding window with sinks', () => {
  it('no key slides out exactly when W + sinks ≥ n', () => {
    for (let n = 1; n <= 10; n++)
      for (let w = 1; w <= n; w++)
        for (let k = 0; k <= Math.min(3, n); k++)
          expect(slidOut(n, w, k).length === 0, `n ${n} W ${w} k ${k}`).toBe(w + k >= n)
  })

  it('the defaults (W = 2, 1 sink) on "this is my cat": the last row loses "is" and keeps "this" as its sink', () => {
    expect(slidOut(4, 2, 1)).toEqual([[3, 1]])
    expect(windowCell(3, 0, 2, 1)).toBe('sink')
    // Before: W = 3 showed nothing sliding out, under a sentence that said W ≥ n (3 ≥ 4).
    expect(slidOut(4, 3, 1)).toEqual([])
  })

  it('the sentence states the condition with the numbers (en, zh)', () => {
    expect(translate(MODERN, 'en')('headsNoneOutside', { w: 3, k: 1, n: 4 })).toContain('W + sinks = 3 + 1 ≥ n = 4')
    expect(translate(MODERN, 'zh')('headsNoneOutside', { w: 3, k: 1, n: 4 })).toContain('W + 汇聚词数 = 3 + 1 ≥ n = 4')
    for (const lang of ['en', 'zh'] as const)
      expect(translate(MODERN, lang)('headsNoneOutside')).not.toMatch(/（W ≥ n）|\(W ≥ n\)/)
  })
})
