// The committed poems corpus (public/poems, made by scripts/poems-corpus.mjs) against the invariants
// docs/design.md ("Language model") states: every poem keeps the five-character form, every character is in
// the vocabulary, the vocabulary is docs/lm-spec.md's (the fixed ids, then each character seen >= 20 times in the
// train split, most frequent first), no poem twice and none in both splits, the split is the hash's, and the
// counts and sizes in public/poems/README.md are the files'. Needs only the repository (no build, no cache).
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { keepsForm, poemStarts } from '../../scripts/poem-form.mjs'
import { MIN_COUNT, SPECIAL, splitOf } from '../../scripts/poems-corpus.mjs'

const DIR = new URL('../../public/poems/', import.meta.url).pathname
const read = (f: string) => readFileSync(join(DIR, f), 'utf8')
const poems = (f: string) => {
  const text = read(f)
  expect(text.endsWith('\n'), `${f} ends with a newline`).toBe(true)
  return text.slice(0, -1).split('\n')
}
const train = poems('train.txt')
const validation = poems('validation.txt')
const vocab = JSON.parse(read('vocab.json')) as string[]
const readme = read('README.md')

describe('the poems corpus (public/poems)', () => {
  it('holds only poems of the five-character form, every character in the vocabulary', () => {
    const known = new Set(vocab)
    for (const [name, list] of [
      ['train', train],
      ['validation', validation],
    ] as const) {
      const bad = list.filter((p) => !keepsForm(p))
      expect(bad.slice(0, 3), `${name}: poems that break the form`).toEqual([])
      const outside = list.flatMap((p) => [...p].filter((c) => !known.has(c)))
      expect(outside.slice(0, 5), `${name}: characters outside vocab.json`).toEqual([])
    }
    expect(train.length).toBeGreaterThan(15000)
    expect(validation.length).toBeGreaterThan(700)
  })

  it('has no poem twice, none in both splits, and each poem without □ in the split of its hash', () => {
    expect(new Set(train).size).toBe(train.length)
    expect(new Set(validation).size).toBe(validation.length)
    const inTrain = new Set(train)
    expect(validation.filter((p) => inTrain.has(p))).toEqual([])
    // the split is drawn from the text before rare characters became □, so only poems without □ can be checked
    const wrong = [
      ...train.filter((p) => !p.includes('□') && splitOf(p) !== 'train'),
      ...validation.filter((p) => !p.includes('□') && splitOf(p) !== 'validation'),
    ]
    expect(wrong).toEqual([])
    // 1 in 20 by the hash: 902 of 17,986 is 5.0 %; a broken split (all in one, or half) would be far from it
    const share = validation.length / (train.length + validation.length)
    expect(share).toBeGreaterThan(0.04)
    expect(share).toBeLessThan(0.06)
  })

  it("has docs/lm-spec.md's vocabulary: the fixed ids, then every character seen >= 20 times in train, by count", () => {
    expect(vocab.slice(0, SPECIAL.length)).toEqual(['\n', '，', '。', '□'])
    expect(new Set(vocab).size).toBe(vocab.length)
    const count = new Map<string, number>()
    for (const p of train) for (const c of p) count.set(c, (count.get(c) ?? 0) + 1)
    const chars = vocab.slice(SPECIAL.length)
    for (const c of chars) {
      expect([...c].length, `vocab entry ${JSON.stringify(c)}`).toBe(1)
      expect(count.get(c) ?? 0, `count of ${c} in train`).toBeGreaterThanOrEqual(MIN_COUNT)
    }
    // most frequent first, ties by code point
    for (let i = 1; i < chars.length; i++) {
      const [a, b] = [count.get(chars[i - 1])!, count.get(chars[i])!]
      expect(
        a > b || (a === b && chars[i - 1].codePointAt(0)! < chars[i].codePointAt(0)!),
        `${chars[i - 1]} ${chars[i]}`,
      ).toBe(true)
    }
    // every character of train other than the fixed ones is in the vocabulary, so none seen >= 20 times is missing
    expect([...count.keys()].filter((c) => !SPECIAL.includes(c) && !chars.includes(c))).toEqual([])
    expect(vocab.length).toBeGreaterThan(2000)
    expect(vocab.length).toBeLessThan(3000)
  })

  it('README.md states the counts and sizes of the files beside it', () => {
    const row = (file: string) => new RegExp(`^\\| ${file} \\| (\\d+) \\| (\\d+) `, 'm').exec(readme)
    const lines4 = (list: string[]) => list.filter((p) => [...p].length === 24).length
    for (const [file, list] of [
      ['train.txt', train],
      ['validation.txt', validation],
    ] as const) {
      const m = row(file)
      expect(m, `${file} row`).not.toBeNull()
      expect(Number(m![1])).toBe(statSync(join(DIR, file)).size)
      expect(Number(m![2])).toBe(list.length)
      expect(readme).toContain(`${list.length} poems (${lines4(list)} of 4 lines, ${list.length - lines4(list)} of 8)`)
    }
    const v = row('vocab.json')
    expect(Number(v![1])).toBe(statSync(join(DIR, 'vocab.json')).size)
    expect(Number(v![2])).toBe(vocab.length)
    expect(read('LICENSE')).toMatch(/^\s*The MIT License \(MIT\)/)
  })
})

describe('keepsForm (scripts/poem-form.mjs)', () => {
  it('takes 4 or 8 lines of five characters with "，" and "。" alternating, and nothing else', () => {
    const q = '床前明月光，疑是地上霜。举头望明月，低头思故乡。'
    expect(keepsForm(q)).toBe(true)
    expect(keepsForm(q + q)).toBe(true)
    expect(keepsForm('□前明月光，疑是地上霜。举头望明月，低头思故□。')).toBe(true)
    expect(keepsForm(q + q.slice(0, 12))).toBe(false) // 6 lines
    expect(keepsForm(q.slice(0, 12))).toBe(false) // 2 lines
    expect(keepsForm(q + q + q)).toBe(false) // 12 lines
    expect(keepsForm(q + '\n')).toBe(false) // the end of the poem is not part of it
    expect(keepsForm('床前明月光。疑是地上霜，举头望明月，低头思故乡。')).toBe(false) // punctuation swapped
    expect(keepsForm('床前明月光光，疑是地上霜。举头望明月，低头思故乡。')).toBe(false) // six characters
    expect(keepsForm('床前明月，疑是地上霜。举头望明月，低头思故乡。')).toBe(false) // four
    expect(keepsForm('床前明月光,疑是地上霜。举头望明月，低头思故乡。')).toBe(false) // ASCII comma
    expect(keepsForm('床前明月a，疑是地上霜。举头望明月，低头思故乡。')).toBe(false)
    expect(keepsForm('𠀀前明月光，疑是地上霜。举头望明月，低头思故乡。')).toBe(true) // outside the BMP: one character
    expect(keepsForm('')).toBe(false)
  })
})

describe('poemStarts (scripts/poem-form.mjs)', () => {
  it('gives the first id of each poem (poems end with id 0), at most count of them', () => {
    expect(poemStarts([5, 6, 0, 7, 8, 9, 0, 4, 0])).toEqual([5, 7, 4])
    expect(poemStarts(Uint16Array.from([5, 6, 0, 7, 8, 9, 0, 4, 0]), 2)).toEqual([5, 7])
    expect(poemStarts([])).toEqual([])
    // the validation split's poems, one start each: as many as the file has lines
    const index = new Map(vocab.map((c, i) => [c, i]))
    const ids = Array.from(validation.join('\n') + '\n', (c) => index.get(c) ?? 3)
    expect(poemStarts(ids)).toHaveLength(validation.length)
    expect(poemStarts(ids).slice(0, 3)).toEqual(validation.slice(0, 3).map((p) => index.get(Array.from(p)[0]) ?? 3))
  })
})
