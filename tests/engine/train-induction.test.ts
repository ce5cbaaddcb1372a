// The induction task through the package: its data, its defaults, and one seed (0) trained with the
// default settings until held-out copy accuracy reaches 90 % within 3,000 steps, with an induction head in
// layer 2 and the previous-token head in layer 1 that serves it (the textbook circuit). The page's role labels and phase step are checked on
// hand-written scores. Speed is measured in bench/train_bench.mjs, not here.
import { describe, expect, it } from 'vitest'
import type { HeadScores } from '../../dist/index.js'
import { headRoles, phaseStep, ROLE_THRESHOLD } from '../../web/train/induction'
import { ap, loadFixture, useEngine } from '../support/helpers'

useEngine()

describe('createTrainer({ task: "induction" })', () => {
  it('defaults: 2 layers of 2 heads, causal, constant lr 0.01, 32 words, 24 tokens', () => {
    using tr = ap.createTrainer({ task: 'induction', seed: 0 })
    const c = tr.info.config
    expect([c.layers, c.heads, c.mask, c.schedule, c.lr, c.batchSize]).toEqual([2, 2, 'causal', 'constant', 0.01, 32])
    expect(tr.info.vocab.length).toBe(32)
    expect(tr.info.maxLen).toBe(24)
    for (const ex of tr.examples('test', 50)) {
      const [p, L] = ex.segment!
      expect(L).toBeGreaterThanOrEqual(4)
      expect(L).toBeLessThanOrEqual(8)
      expect(ex.ids.slice(p, p + L)).toEqual(ex.ids.slice(p + L, p + 2 * L))
      expect(ex.targets!.slice(0, -1)).toEqual(ex.ids.slice(1))
    }
    const s = tr.headScores({ limit: 16 })
    for (const rows of [s.previousToken, s.induction, s.duplicateToken]) {
      expect(rows.length).toBe(2)
      for (const r of rows) {
        expect(r.length).toBe(2)
        for (const x of r) expect(x >= 0 && x <= 1).toBe(true)
      }
    }
  })

  // the start from which layer 1 learns a previous-token head: word vectors at 0.1 of nn.Embedding's N(0, 1),
  // positions at 1 (torch's own draws for the seed, tests/fixtures/gen_induction_init.py)
  for (const c of loadFixture('induction-init.json').cases)
    it(`starts from word vectors at 0.1 and positions at 1, as torch draws them (${c.name})`, () => {
      using tr = ap.createTrainer({ task: 'induction', seed: c.seed })
      const p = tr.parameters()
      for (const name of ['embedding', 'position']) {
        expect(p[name].shape).toEqual(c[name].shape)
        expect(Array.from(p[name].data)).toEqual(c[name].data)
      }
    })

  it('seed 0 learns to copy (≥ 90 % held-out within 3,000 steps): a previous-token head in layer 1, an induction head in layer 2', () => {
    using tr = ap.createTrainer({ task: 'induction', seed: 0 })
    const before = tr.evaluate({ limit: 128 })
    let e = before
    while (tr.steps < 3000 && e.accuracy < 0.9) {
      tr.step(100)
      // a sample of the held-out set while far from the goal, all of it near the goal
      e = tr.evaluate({ limit: 128 })
      if (e.accuracy >= 0.85) e = tr.evaluate()
    }
    expect(e.accuracy).toBeGreaterThanOrEqual(0.9)
    expect(before.accuracy).toBeLessThan(0.1)
    // the other words are random: chance is 1/32 (the model may lean on what the context leaves out)
    expect(e.restAccuracy!).toBeLessThan(0.1)
    const s = tr.headScores()
    const roles = headRoles(s)
    expect(Math.max(...s.induction[1])).toBeGreaterThan(0.6)
    expect(roles[1]).toContain('induction')
    // the layer-1 head that serves it looks back at the previous word (not at the earlier copy)
    expect(Math.max(...s.previousToken[0])).toBeGreaterThan(ROLE_THRESHOLD)
    expect(roles[0]).toContain('previousToken')
    expect(roles[0]).not.toContain('duplicateToken')
    expect(Math.max(...s.induction[0])).toBeLessThan(0.3)
  }, 900_000)
})

describe("the Train tab's head roles and phase step", () => {
  const scores = (prev: number, ind: number, dup: number): HeadScores => ({
    previousToken: [[prev, 0.1]],
    induction: [[ind, 0.05]],
    duplicateToken: [[dup, 0.1]],
  })

  it('a head takes the role of its largest score once it reaches the threshold', () => {
    expect(headRoles(scores(0.7, 0.1, 0.2))).toEqual([['previousToken', null]])
    expect(headRoles(scores(0.2, 0.8, 0.1))).toEqual([['induction', null]])
    expect(headRoles(scores(0.1, 0.3, 0.45))).toEqual([['duplicateToken', null]])
    expect(headRoles(scores(0.39, 0.39, 0.39))).toEqual([[null, null]])
  })

  it('the phase step is the first point where the largest induction score is 0.15 above its first value', () => {
    const h = [0.05, 0.06, 0.1, 0.21, 0.5].map((x, i) => ({ steps: i * 50, scores: scores(0.1, x, 0.1) }))
    expect(phaseStep(h)).toBe(150)
    expect(phaseStep(h.slice(0, 3))).toBeNull()
  })
})
