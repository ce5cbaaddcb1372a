// The JS reference sampler (tests/support/lm-sampler.ts) draws what tests/fixtures/gpt_torch.py's `sample` drew
// (tests/fixtures/lm-sampler.json, from tests/fixtures/gen_lm_sampler.py): every row, option set and u, and the
// generate loop of a bigram model with mulberry32(seed), one draw per token, stopping after id 0.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { referenceGenerate, sampleRow } from '../support/lm-sampler'

interface Row {
  logits: number[]
  temperature: number
  topK: number
  topP: number
  u: number[]
  ids: number[]
}
interface Gen {
  temperature: number
  topK: number
  topP: number
  seed: number
  prompt: number[]
  maxTokens: number
  ids: number[]
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/lm-sampler.json', import.meta.url), 'utf8')) as {
  rows: Row[]
  bigram: number[][]
  generate: Gen[]
}

describe('the reference sampler (docs/lm-spec.md "Sampling")', () => {
  it("takes gpt_torch.sample's id for every row, option set and u", () => {
    expect(fixture.rows.length).toBe(14)
    for (const [r, row] of fixture.rows.entries()) {
      const logits = Float32Array.from(row.logits) // the package hands logits as float32
      const got = row.u.map((u) => sampleRow(logits, row, u))
      expect(got, `row ${r} (${logits.length} ids, ${JSON.stringify({ ...row, logits: 0, u: 0, ids: 0 })})`).toEqual(
        row.ids,
      )
    }
  })

  it('greedy (temperature 0 or topK 1) takes the lowest id of the largest logit', () => {
    expect(sampleRow([1, 3, 3, 2], { temperature: 0 }, 0.99)).toBe(1)
    expect(sampleRow([1, 3, 3, 2], { temperature: 2, topK: 1 }, 0.99)).toBe(1)
    // topK 2 of a tie keeps ids 1 and 2 (the lower first): u below one half takes 1, above takes 2
    expect(sampleRow([1, 3, 3, 2], { temperature: 1, topK: 2 }, 0.49)).toBe(1)
    expect(sampleRow([1, 3, 3, 2], { temperature: 1, topK: 2 }, 0.51)).toBe(2)
  })

  it("writes gpt_torch's ids for a bigram model, stopping after id 0", () => {
    const V = fixture.bigram.length
    const forward = (ids: number[]) => {
      const data = new Float32Array(ids.length * V)
      ids.forEach((id, i) => data.set(fixture.bigram[id], i * V))
      return { data, vocab: V }
    }
    for (const g of fixture.generate) {
      expect(referenceGenerate(forward, g.prompt, g)).toEqual(g.ids)
    }
    expect(fixture.generate.some((g) => g.ids.at(-1) === 0 && g.ids.length < g.maxTokens)).toBe(true)
  })
})
