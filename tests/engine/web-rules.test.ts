// The page's per-rule tables: RULE_TRAITS (web/params.ts) against what the engine does with each rule, and no
// rule told apart anywhere else in web/ by comparing it with a string (so a new rule cannot slip past a table).
import { describe, expect, it } from 'vitest'
import { SCORE_RULES } from 'attention-playground'
import { RULE_TRAITS } from '../../web/params'
import { ap, useEngine } from '../support/helpers'
import { numberedLines, sourceFiles as sources } from '../support/sources'

useEngine()

const RULE = `'(?:${SCORE_RULES.join('|')})'`

describe('RULE_TRAITS', () => {
  it('has one row per rule of the engine', () => {
    expect(Object.keys(RULE_TRAITS).sort()).toEqual([...SCORE_RULES].sort())
  })

  it.each(SCORE_RULES)('%s: dotProduct is true exactly when the engine needs dq = dk', (score) => {
    expect(() => ap.run({ score, dq: 24, dk: 24 })).not.toThrow()
    const clash = () => ap.run({ score, dq: 24, dk: 16 })
    if (RULE_TRAITS[score].dotProduct) expect(clash).toThrow(/dq\/dk: score .* needs dq = dk/)
    else expect(clash).not.toThrow()
  })

  it.each(SCORE_RULES)('%s: scaledByDefault is true exactly when run() scales by 1/√dk by default', (score) => {
    const t = ap.run({ score, dq: 16, dk: 16 })
    expect(t.scale).toBe(RULE_TRAITS[score].scaledByDefault ? Math.fround(1 / 4) : 1)
  })

  it.each(SCORE_RULES)('%s: linear is true exactly when its scores need nq = nk (one per value row)', (score) => {
    const cross = () => ap.run({ score, source: 'a b c', target: 'a b' })
    if (RULE_TRAITS[score].linear) expect(cross).toThrow()
    else expect(cross).not.toThrow()
  })

  it('the backward pass takes exactly the dot-product rules', () => {
    const x = { data: new Float32Array([1, 0, 0, 1]), shape: [2, 2] }
    for (const score of SCORE_RULES) {
      const call = () =>
        ap.attentionBackward({ query: x, key: x, value: x, gradOutput: x, score: score as 'dot' | 'scaled-dot' })
      if (RULE_TRAITS[score].dotProduct) expect(call).not.toThrow()
      else expect(call).toThrow()
    }
  })
})

describe('no rule is told apart outside a table', () => {
  const files = [...sources('web'), ...sources('src/js')]
  // A comparison with a rule's name, a `case` on it, or a fallback for a rule missing from a table.
  const patterns = [
    new RegExp(`[!=]==\\s*${RULE}|${RULE}\\s*[!=]==`),
    new RegExp(`case\\s+${RULE}\\s*:`),
    /RULE_TRAITS\[[^\]]+\]\s*\?\?|(?:SCORE_TITLES|SCORE_TEX|SCORE_SHAPES|BREAKDOWNS|NOTE_KEYS|SHORT_KEYS|RULE_KEYS|RULE_CODE)\[[^\]]+\]\s*\?\?/,
  ]
  it('in any source file of web/ and src/js', () => {
    const hits = files.flatMap((f) => numberedLines(f).filter((line) => patterns.some((p) => p.test(line))))
    expect(hits).toEqual([])
  })

  it('the scan sees the tables (it reads the right files)', () => {
    expect(files).toContain('web/params.ts')
    expect(files.length).toBeGreaterThan(50)
    expect(patterns[0].test("if (s.score === 'concat')")).toBe(true)
    expect(patterns[1].test("    case 'general':")).toBe(true)
  })
})
