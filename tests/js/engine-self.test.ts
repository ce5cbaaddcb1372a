// The parameter lesson's self-vs-general check (seeds/000): Q = K = V is self attention, anything
// else general attention (torch.equal in the lesson). The fixture's flags come from torch.equal.
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeInput, getAp, loadFixture, type Engine } from './helpers'

const fx = loadFixture('engine-attention.json')
const lesson = fx.cases.filter((c: any) => c.name.startsWith('parameter lesson'))

let ap: Engine
beforeAll(async () => {
  ap = await getAp()
})

describe('attention() says whether it was self attention (result.selfAttention)', () => {
  for (const c of lesson) {
    it(`${c.name} -> ${c.expected.selfAttention ? 'self' : 'general'}`, () => {
      const r = ap.attention(decodeInput(c.input, fx.tensors))
      expect(typeof r.selfAttention, 'result.selfAttention (boolean) is missing').toBe('boolean')
      expect(r.selfAttention).toBe(c.expected.selfAttention)
    })
  }
})

describe('run() says which kind of attention it traced (trace.kind)', () => {
  it('one sentence is self attention, source + target is cross attention', () => {
    const self = ap.run({})
    const cross = ap.run({ source: 'the animal did not cross the street', target: 'it was too tired' })
    expect(self.kind, 'trace.kind is missing').toBeTruthy()
    expect(cross.kind, 'trace.kind is missing').toBeTruthy()
    expect(self.kind).toMatch(/self/)
    expect(cross.kind).not.toBe(self.kind)
  })
})
