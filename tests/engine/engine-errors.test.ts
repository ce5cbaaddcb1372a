// Bad input: a thrown Error whose message names the argument and the
// shapes or values, never an abort or a NaN — and the module keeps working: after every error the
// course program still gives PyTorch's numbers.
import { describe, expect, it } from 'vitest'
import { expectCourseProgram, rng, type Engine, type Tensor, ap, useEngine } from '../support/helpers'

useEngine()

const g = rng(1)
const T = (...shape: number[]): Tensor => g.tensor(shape)
const q = T(5, 6),
  k = T(5, 6),
  v = T(5, 7)
const withValue = (t: Tensor, i: number, x: number): Tensor => {
  const data = Float32Array.from(t.data)
  data[i] = x
  return { data, shape: t.shape }
}
const shape = (...d: number[]) => new RegExp(`\\[${d.join(',\\s*')}\\]`)
const mhaBase = () => ({
  query: T(4, 8),
  key: T(4, 8),
  value: T(4, 8),
  numHeads: 2,
  inProjWeight: T(24, 8),
  inProjBias: T(24),
  outProjWeight: T(8, 8),
  outProjBias: T(8),
})

// [what, call, patterns every message must match]
const cases: [string, (ap: Engine) => unknown, RegExp[]][] = [
  // attention(): shapes
  ['key with the wrong width', (ap) => ap.attention({ query: q, key: T(5, 4), value: v }), [/key/, shape(5, 4)]],
  ['value rows != key rows', (ap) => ap.attention({ query: q, key: k, value: T(4, 7) }), [/value/, shape(4, 7)]],
  [
    'data length does not match the shape',
    (ap) => ap.attention({ query: { data: new Float32Array(5), shape: [2, 3] }, key: k, value: v }),
    [/query/, shape(2, 3)],
  ],
  // the batch sizes are the values that disagree: the message must name the arguments and give them
  [
    'batch sizes differ',
    (ap) => ap.attention({ query: T(2, 5, 6), key: T(3, 5, 6), value: T(3, 5, 7) }),
    [/query/, /key/, /batch/, /\b2\b/, /\b3\b/],
  ],
  [
    'dot with dq != dk',
    (ap) => ap.attention({ query: T(5, 4), key: k, value: v, score: 'dot' }),
    [/dot|dk|dq|key|query/, /\b4\b/, /\b6\b/],
  ],
  // attention(): values
  ['NaN in query', (ap) => ap.attention({ query: withValue(q, 3, NaN), key: k, value: v }), [/query/, /nan|finite/i]],
  [
    'Infinity in value',
    (ap) => ap.attention({ query: q, key: k, value: withValue(v, 0, Infinity) }),
    [/value/, /inf|finite/i],
  ],
  [
    '-Infinity in key',
    (ap) => ap.attention({ query: q, key: withValue(k, 29, -Infinity), value: v }),
    [/key/, /inf|finite/i],
  ],
  ['temperature 0', (ap) => ap.attention({ query: q, key: k, value: v, temperature: 0 }), [/temperature/, /\b0\b/]],
  [
    'temperature negative',
    (ap) => ap.attention({ query: q, key: k, value: v, temperature: -2 }),
    [/temperature/, /-2/],
  ],
  ['temperature NaN', (ap) => ap.attention({ query: q, key: k, value: v, temperature: NaN }), [/temperature/]],
  ['scale Infinity', (ap) => ap.attention({ query: q, key: k, value: v, scale: Infinity }), [/scale/]],
  // attention(): names and parameters
  [
    'unknown score rule',
    (ap) => ap.attention({ query: q, key: k, value: v, score: 'cosine' as never }),
    [/score/, /cosine/],
  ],
  ['unknown mask', (ap) => ap.attention({ query: q, key: k, value: v, mask: 'upper' as never }), [/mask/, /upper/]],
  [
    'mask matrix of the wrong length',
    (ap) => ap.attention({ query: q, key: k, value: v, mask: { matrix: new Uint8Array(7) } }),
    [/mask|matrix/, /\b7\b/, /25|\b5\b/],
  ],
  [
    'keyPadding of the wrong length',
    (ap) => ap.attention({ query: q, key: k, value: v, mask: { keyPadding: [true, false, true] } }),
    [/keyPadding/, /\b3\b/, /\b5\b/],
  ],
  [
    'general without W',
    (ap) => ap.attention({ query: q, key: k, value: v, score: 'general' }),
    [/\bW\b|params/, /general/],
  ],
  [
    'general W of the wrong shape',
    (ap) => ap.attention({ query: q, key: k, value: v, score: 'general', params: { W: T(4, 6) } }),
    [/\bW\b/, shape(4, 6), /\b6\b/],
  ],
  // h comes from one of Wq, Wk, v; when they disagree any of them may be blamed, with both sizes
  [
    'additive Wq, Wk and v disagree on h',
    (ap) =>
      ap.attention({ query: q, key: k, value: v, score: 'additive', params: { Wq: T(8, 6), Wk: T(8, 6), v: T(5) } }),
    [/\bv\b|Wq|Wk/, /\b8\b/, /\b5\b/],
  ],
  [
    'additive v not a vector',
    (ap) =>
      ap.attention({ query: q, key: k, value: v, score: 'additive', params: { Wq: T(8, 6), Wk: T(8, 6), v: T(8, 2) } }),
    [/\bv\b/, shape(8, 2)],
  ],
  [
    'additive Wk of the wrong width',
    (ap) =>
      ap.attention({ query: q, key: k, value: v, score: 'additive', params: { Wq: T(8, 6), Wk: T(8, 3), v: T(8) } }),
    [/Wk/, shape(8, 3)],
  ],
  [
    'concat with nq != nk',
    (ap) => ap.attention({ query: T(3, 6), key: k, value: v, score: 'concat', params: { W: T(5, 12), b: T(5) } }),
    [/concat|query|key/, /\b3\b/, /\b5\b/],
  ],
  [
    'concat W of the wrong shape',
    (ap) => ap.attention({ query: q, key: k, value: v, score: 'concat', params: { W: T(5, 11), b: T(5) } }),
    [/\bW\b/, shape(5, 11)],
  ],
  [
    'concat combineW of the wrong width',
    (ap) =>
      ap.attention({
        query: q,
        key: k,
        value: v,
        score: 'concat',
        params: { W: T(5, 12), b: T(5), combineW: T(4, 9), combineB: T(4) },
      }),
    [/combineW/, shape(4, 9)],
  ],
  [
    'score matrix over the size limit',
    (ap) => ap.attention({ query: T(9000, 1), key: T(9000, 1), value: T(9000, 1) }),
    [/9000/, /limit|max|too (large|big)|exceed/i],
  ],
  // run()
  ['unknown tokenizer', (ap) => ap.run({ tokenizer: 'sentencepiece' as never }), [/tokenizer/, /sentencepiece/]],
  ['empty text', (ap) => ap.run({ text: '' }), [/text/, /empty/i]],
  ['text of only spaces and commas', (ap) => ap.run({ text: ' , ,  ' }), [/text/]],
  ['unknown score in run', (ap) => ap.run({ score: 'bilinear' as never }), [/score/, /bilinear/]],
  ['heads not dividing dq', (ap) => ap.run({ heads: 5 }), [/heads/, /\b5\b/, /\b24\b/]],
  ['heads not dividing dv', (ap) => ap.run({ heads: 8, dq: 24, dk: 24, dv: 28 }), [/heads/, /\b8\b/, /\b28\b/]],
  ['dq != dk for dot in run', (ap) => ap.run({ score: 'dot', dq: 24, dk: 16 }), [/dq|dk/, /\b24\b/, /\b16\b/]],
  ['dk = 0', (ap) => ap.run({ dk: 0, dq: 0 }), [/\bd[qk]\b/, /\b0\b/]],
  ['dModel over the limit', (ap) => ap.run({ dModel: 5000 }), [/dModel/, /5000/]],
  ['dModel negative', (ap) => ap.run({ dModel: -3 }), [/dModel/, /-3/]],
  ['text over 1 MiB of UTF-8', (ap) => ap.run({ text: 'a'.repeat((1 << 20) + 1) }), [/text/, /1048577/, /1048576/]],
  ['dModel not an integer', (ap) => ap.run({ dModel: 2.5 }), [/dModel/, /2\.5/]],
  ['dq NaN', (ap) => ap.run({ dq: NaN }), [/dq/, /nan/i]],
  [
    'keys with no rows',
    (ap) => ap.attention({ query: q, key: { data: new Float32Array(0), shape: [0, 6] }, value: v }),
    [/key/, shape(0, 6)],
  ],
  [
    'a negative size in a shape',
    (ap) => ap.attention({ query: { data: new Float32Array(4), shape: [-2, -2] }, key: k, value: v }),
    [/query/, /-2/],
  ],
  ['too many tokens', (ap) => ap.run({ text: 'w '.repeat(5000) }), [/text|tokens/, /5000|4096/]],
  ['Wq override of the wrong shape', (ap) => ap.run({ Wq: T(16, 23) }), [/Wq/, shape(16, 23), /24/]],
  ['embeddings override of the wrong shape', (ap) => ap.run({ embeddings: T(3, 16) }), [/embeddings/, shape(3, 16)]],
  ['temperature 0 in run', (ap) => ap.run({ temperature: 0 }), [/temperature/]],
  // the offending value must be shown as given, not rounded to 0 by a fixed-point format
  ['temperature 1e-30 (below the limit)', (ap) => ap.run({ temperature: 1e-30 }), [/temperature/, /1(\.0*)?e-30/i]],
  ['unknown option name', (ap) => ap.run({ txt: 'a' } as never), [/txt/]],
  ['text not a string', (ap) => ap.run({ text: 42 as never }), [/text/, /number/]],
  ['heads 0', (ap) => ap.run({ heads: 0 }), [/heads/, /\b0\b/]],
  ['seed not an integer', (ap) => ap.run({ seed: 1.5 }), [/seed/, /1\.5/]],
  // multiHeadAttention()
  [
    'numHeads not dividing E',
    (ap) => ap.multiHeadAttention({ ...mhaBase(), numHeads: 3 }),
    [/numHeads/, /\b3\b/, /\b8\b/],
  ],
  [
    'inProjWeight of the wrong shape',
    (ap) => ap.multiHeadAttention({ ...mhaBase(), inProjWeight: T(24, 7) }),
    [/inProjWeight/, shape(24, 7)],
  ],
  [
    'neither inProjWeight nor q/k/v weights',
    (ap) => {
      const { inProjWeight, ...m } = mhaBase()
      void inProjWeight
      return ap.multiHeadAttention(m)
    },
    [/inProjWeight|qProjWeight/],
  ],
  [
    'kProjWeight not matching kdim',
    (ap) => {
      const { inProjWeight, ...m } = mhaBase()
      void inProjWeight
      return ap.multiHeadAttention({
        ...m,
        key: T(4, 5),
        qProjWeight: T(8, 8),
        kProjWeight: T(8, 6),
        vProjWeight: T(8, 8),
      })
    },
    [/kProjWeight|key/, shape(8, 6)],
  ],
  [
    'keyPaddingMask of the wrong length',
    (ap) => ap.multiHeadAttention({ ...mhaBase(), keyPaddingMask: [true, false] }),
    [/keyPaddingMask/, /\b2\b/, /\b4\b/],
  ],
  [
    'NaN in outProjWeight',
    (ap) => ap.multiHeadAttention({ ...mhaBase(), outProjWeight: withValue(T(8, 8), 5, NaN) }),
    [/outProjWeight/, /nan|finite/i],
  ],
]

describe('bad input gives a clear Error, and the module keeps working', () => {
  for (const [what, call, patterns] of cases) {
    it(what, () => {
      let thrown: unknown
      try {
        call(ap)
      } catch (e) {
        thrown = e
      }
      expect(thrown, 'no error was thrown').toBeInstanceOf(Error)
      const msg = (thrown as Error).message
      for (const p of patterns) expect(msg, `message "${msg}"`).toMatch(p)
      expectCourseProgram(ap)
    })
  }

  // JS strings may hold unpaired UTF-16 surrogates (invalid as UTF-8). Whatever the engine does with
  // one — a clear error naming text, or U+FFFD as TextEncoder writes — it must not swallow or merge
  // the characters around it.
  for (const tokenizer of ['char', 'word'] as const) {
    it(`an unpaired surrogate in text (${tokenizer})`, () => {
      let tokens: string[] | undefined
      let thrown: Error | undefined
      try {
        tokens = ap.run({ text: 'a \uD800 b', tokenizer }).tokens
      } catch (e) {
        thrown = e as Error
      }
      if (thrown) expect(thrown.message).toMatch(/text/)
      else expect(tokens).toEqual(['a', '\uFFFD', 'b'])
      expectCourseProgram(ap)
    })
  }

  it('every error is an AttentionError (an Error subclass named so)', () => {
    let thrown: Error | undefined
    try {
      ap.run({ tokenizer: 'nope' as never })
    } catch (e) {
      thrown = e as Error
    }
    expect(thrown).toBeInstanceOf(Error)
    expect(thrown?.name === 'AttentionError' || thrown?.constructor?.name === 'AttentionError').toBe(true)
  })

  it('keeps working after many errors in a row', () => {
    for (let i = 0; i < 200; i++) {
      expect(() => ap.attention({ query: q, key: T(5, 4), value: v })).toThrow(/key/)
    }
    expectCourseProgram(ap)
  })
})
