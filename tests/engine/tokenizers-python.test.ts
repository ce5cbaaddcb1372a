// The package's tokenizers against the independent Python implementation (tests/fixtures/gen_tokenizers.py,
// tests/fixtures/tokenizers.json): every one-text case through ap.tokenize, every two-text case through
// ap.run({ source, target }) (one joint vocabulary), every error case by its message.
import { describe, expect, it } from 'vitest'
import { loadFixture, type FixtureJson, ap, useEngine } from '../support/helpers'

const fx = loadFixture('tokenizers.json')

useEngine()

const repeat = (v: unknown) => (Array.isArray(v) ? String(v[0]).repeat(Number(v[1])) : undefined)

describe('tokenizers.json (84 cases from Python)', () => {
  it('the fixture holds the cases this suite expects', () => {
    expect(fx.cases).toHaveLength(84)
    expect(fx.cases.filter((c: FixtureJson) => c.texts.length === 1).length).toBe(72)
  })

  for (const c of fx.cases.filter((c: FixtureJson) => c.texts.length === 1)) {
    it(`ap.tokenize: ${c.name}`, () => {
      const r = ap.tokenize(c.texts[0], c.kind, c.options)
      const want = c.results[0]
      expect(r.tokens).toEqual(want.tokens)
      expect(Array.from(r.ids)).toEqual(want.ids)
      expect(r.vocab).toEqual(want.vocab)
      expect(r.merges.map((m: string[]) => [...m])).toEqual(want.merges)
    })
  }

  // Three texts share one vocabulary only inside the native tokenize_joint (tests/native/test_tokenizer.cpp);
  // the package's only joint tokenization is source + target.
  for (const c of fx.cases.filter((c: FixtureJson) => c.texts.length === 2)) {
    it(`ap.run({ source, target }): ${c.name}`, () => {
      const t = ap.run({ source: c.texts[0], target: c.texts[1], tokenizer: c.kind, ...c.options })
      const [src, tgt] = c.results
      expect(t.vocab).toEqual(src.vocab)
      expect(tgt.vocab).toEqual(src.vocab)
      expect(t.sourceTokens).toEqual(src.tokens)
      expect(Array.from(t.sourceTokenIds ?? [])).toEqual(src.ids)
      expect(t.tokens).toEqual(tgt.tokens)
      expect(Array.from(t.tokenIds)).toEqual(tgt.ids)
    })
  }

  for (const e of fx.errors) {
    it(`error: ${e.name}`, () => {
      const text = e.text ?? repeat(e.textRepeat)
      const options = { ...(e.options ?? {}) }
      if (options.bpeCorpusRepeat) {
        options.bpeCorpus = repeat(options.bpeCorpusRepeat)
        delete options.bpeCorpusRepeat
      }
      expect(() => ap.tokenize(text, e.kind, options)).toThrow(e.message)
    })
  }
})
