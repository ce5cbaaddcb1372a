// The Train tab's task poems without the engine: the corpus read into ids as the worker reads it
// (web/train/poems-session.ts encodePoems: the same ids as vocab.json's index of every code point), the poem laid
// out in its lines (web/train/poems-charts.ts: every line of every validation poem is five characters and its
// punctuation, and a poem whose lines all are, 4 or 8 of them alternating ，/。, is one scripts/poem-form.mjs keeps),
// the best head score and the thinned loss curve.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { keepsForm } from '../../scripts/poem-form.mjs'
import { encodePoems } from '../../web/train/poems-session'
import { bestScore, lineInForm, maxOf, poemLines, thin } from '../../web/train/poems-charts'

const dir = new URL('../../public/poems/', import.meta.url)
const vocab = JSON.parse(readFileSync(new URL('vocab.json', dir), 'utf8')) as string[]
const index = new Map(vocab.map((c, i) => [c, i]))
const validationText = readFileSync(new URL('validation.txt', dir), 'utf8')
const poems = validationText.split('\n').filter(Boolean)

describe('encodePoems', () => {
  it('reads validation.txt one code point at a time through vocab.json (902 poems, id 0 after each)', () => {
    const ids = encodePoems(validationText, index, 'validation.txt')
    const chars = Array.from(validationText)
    expect(ids.length).toBe(chars.length)
    expect(Array.from(ids, (i) => vocab[i]).join('')).toBe(validationText)
    expect(Array.from(ids).filter((i) => i === 0).length).toBe(902)
    expect(poems.length).toBe(902)
  })

  it('a character outside the vocabulary becomes “□” (id 3); without “□” in it, an error naming the file', () => {
    expect(Array.from(encodePoems('床\u{20000}光', index, 'x.txt'))).toEqual([index.get('床'), 3, index.get('光')])
    expect(vocab[3]).toBe('□')
    expect(() => encodePoems('床光', new Map([['床', 0]]), 'train.txt')).toThrow(
      /^train\.txt: “光” is not in vocab\.json, which has no “□” either$/,
    )
  })
})

describe('poemLines and lineInForm', () => {
  it('cuts 静夜思 into its four lines, each in the form', () => {
    const lines = poemLines('床前明月光，疑是地上霜。举头望明月，低头思故乡。')
    expect(lines).toEqual(['床前明月光，', '疑是地上霜。', '举头望明月，', '低头思故乡。'])
    expect(lines.every(lineInForm)).toBe(true)
  })

  it('every line of the 902 validation poems is in the form, and poem-form.mjs keeps each poem', () => {
    for (const p of poems) {
      const lines = poemLines(p)
      expect([4, 8]).toContain(lines.length)
      expect(lines.every(lineInForm), p).toBe(true)
      expect(keepsForm(p), p).toBe(true)
    }
  })

  it('marks the line a character short or long, or with no punctuation yet; such a poem is not kept', () => {
    const p = poems[0]
    const lines = poemLines(p)
    const short = [lines[0], [...lines[1]].slice(1).join(''), ...lines.slice(2)].join('')
    const long = [lines[0], '山' + lines[1], ...lines.slice(2)].join('')
    for (const bad of [short, long]) {
      expect(poemLines(bad).map(lineInForm)).toEqual(lines.map((_, i) => i !== 1))
      expect(keepsForm(bad)).toBe(false)
    }
    // what a model wrote before the context ran out: the last piece has no punctuation
    expect(poemLines('床前明月光，疑是地').map(lineInForm)).toEqual([true, false])
    expect(poemLines('')).toEqual([])
  })
})

describe('head scores and curves', () => {
  const scores = {
    previousLine: [
      [0.1, 0.05],
      [0.02, 0.3],
    ],
    previousChar: [
      [0.2, 0.61],
      [0.1, 0.1],
    ],
    lineEnd: [
      [0.3, 0.1],
      [0.55, 0.2],
    ],
    labels: [
      [null, 'previousChar' as const],
      ['lineEnd' as const, null],
    ],
    threshold: 0.4,
  }

  it('bestScore finds the largest of every head and kind, where it is; maxOf per kind', () => {
    expect(bestScore(scores)).toEqual({ score: 0.61, kind: 'previousChar', layer: 0, head: 1 })
    expect(maxOf(scores, 'previousLine')).toBe(0.3)
    expect(maxOf(scores, 'lineEnd')).toBe(0.55)
  })

  it('thin keeps short curves and averages long ones in buckets ending at their last step', () => {
    const pts = Array.from({ length: 10 }, (_, i) => ({ steps: i + 1, loss: i }))
    expect(thin(pts, 20)).toEqual(pts)
    expect(thin(pts, 5)).toEqual([
      { steps: 2, loss: 0.5 },
      { steps: 4, loss: 2.5 },
      { steps: 6, loss: 4.5 },
      { steps: 8, loss: 6.5 },
      { steps: 10, loss: 8.5 },
    ])
  })
})
