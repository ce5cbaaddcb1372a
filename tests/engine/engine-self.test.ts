// The parameter lesson's self-vs-general check (seeds/000): Q = K = V is self attention, anything
// else general attention (torch.equal in the lesson). The fixture's flags come from torch.equal.
import { describe, expect, it } from 'vitest'
import { decodeInput, loadFixture, type FixtureJson, ap, useEngine } from '../support/helpers'

const fx = loadFixture('engine-attention.json')
const lesson = fx.cases.filter((c: FixtureJson) => c.name.startsWith('parameter lesson'))

useEngine()

describe('attention() says whether it was self attention (result.selfAttention)', () => {
  for (const c of lesson) {
    it(`${c.name} -> ${c.expected.selfAttention ? 'self' : 'general'}`, () => {
      const r = ap.attention(decodeInput(c.input, fx.tensors))
      expect(typeof r.selfAttention, 'result.selfAttention (boolean) is missing').toBe('boolean')
      expect(r.selfAttention).toBe(c.expected.selfAttention)
    })
  }
})

// docs/design.md names no field for run(); the package's types (src/js/types.ts) give the trace the
// same `selfAttention` boolean as attention(); a `kind` string would do as well.
describe('run() says which kind of attention it traced', () => {
  const isSelf = (t: { selfAttention?: unknown; kind?: unknown }) =>
    typeof t.selfAttention === 'boolean'
      ? t.selfAttention
      : typeof t.kind === 'string'
        ? /self/.test(t.kind)
        : undefined
  it('one sentence is self attention, source + target is not', () => {
    const self = ap.run({})
    const cross = ap.run({ source: 'the animal did not cross the street', target: 'it was too tired' })
    expect(isSelf(self), 'trace.selfAttention / trace.kind is missing').toBe(true)
    expect(isSelf(cross), 'trace.selfAttention / trace.kind is missing').toBe(false)
  })
})
