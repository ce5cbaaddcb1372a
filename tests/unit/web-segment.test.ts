// Chinese words for the word tokenizers (issue 39 item 5): web/compute/segment.ts against the platform's word
// segmenter in this Node (Intl.Segmenter('zh', { granularity: 'word' }), ICU's dictionary) and the lesson's
// 我/爱/中国 (lesson 002, item 7). English text reaches the engine unchanged, so the course's numbers stay.
import { describe, expect, it } from 'vitest'
import { engineText, segmentWords } from '../../web/compute/segment'
import { baseRunOptions } from '../../web/compute/options'
import { decoderRunOptions } from '../../web/compute/decoder'
import { viewWords } from '../../web/compute/positions'
import { defaultState } from '../../web/state'

/** The engine's word split: whitespace runs (Python's str.split for these inputs). */
const words = (s: string) => s.split(/\s+/).filter(Boolean)
/** Intl.Segmenter's own pieces of a text without spaces: the reference. */
const icu = (s: string) =>
  [...new Intl.Segmenter('zh', { granularity: 'word' }).segment(s)].map((x) => x.segment).filter((x) => /\S/.test(x))

describe('segmentWords', () => {
  it("gives the lesson's 我/爱/中国 (this Node's ICU agrees with the lesson)", () => {
    expect(icu('我爱中国')).toEqual(['我', '爱', '中国'])
    expect(segmentWords('我爱中国')).toBe('我 爱 中国')
  })

  it('splits unspaced Chinese and Japanese exactly where Intl.Segmenter does', () => {
    for (const s of [
      '我爱北京天安门',
      '我们学习注意力机制',
      '中国的首都是北京',
      '私は猫です',
      '今天天气很好，我们去学习。',
    ]) {
      expect(words(segmentWords(s)), s).toEqual(icu(s))
      expect(words(segmentWords(s)).length, s).toBeGreaterThan(1)
    }
  })

  it('keeps the spaces the learner typed as boundaries', () => {
    expect(words(segmentWords('我 爱 北京 天安门'))).toEqual(['我', '爱', '北京', '天安门'])
    expect(segmentWords('我 爱 中国 ！')).toBe('我 爱 中国 ！')
    // A typed space splits even where the segmenter would see one word.
    expect(icu('中国')).toEqual(['中国'])
    expect(words(segmentWords('中 国'))).toEqual(['中', '国'])
    // Line breaks and other whitespace are left as typed.
    expect(segmentWords('我爱中国\n中国很大')).toBe('我 爱 中国\n中国 很大')
  })

  it('leaves text without Chinese or Japanese characters as typed', () => {
    for (const s of [
      'this is my cat',
      "The animal didn't cross the street, because it was too tired.",
      '  spaced   out  ',
      'naïve café, 3.14',
    ])
      expect(segmentWords(s)).toBe(s)
  })

  it('separates Latin words and punctuation from the Chinese words beside them', () => {
    expect(words(segmentWords('AI很好。'))).toEqual(['AI', '很好', '。'])
  })
})

describe('the engine gets segmented text for the word tokenizers only', () => {
  it('word and word-sorted are segmented; char and bpe get the text as typed', () => {
    expect(engineText('我爱中国', 'word-sorted')).toBe('我 爱 中国')
    expect(engineText('我爱中国', 'word')).toBe('我 爱 中国')
    expect(engineText('我爱中国', 'char')).toBe('我爱中国')
    expect(engineText('我爱中国', 'bpe')).toBe('我爱中国')
  })

  it("the page's run options: the course's sentence unchanged, Chinese segmented in both modes", () => {
    const s = defaultState('en')
    expect(baseRunOptions(s, 0, 0).text).toBe('this is my cat')
    expect(baseRunOptions({ ...s, text: '我爱中国' }, 0, 0).text).toBe('我 爱 中国')
    expect(baseRunOptions({ ...s, text: '我爱中国', tokenizer: 'char' }, 0, 0).text).toBe('我爱中国')
    const cross = baseRunOptions({ ...s, mode: 'cross', source: '我爱中国', target: 'I love China' }, 0, 0)
    expect([cross.source, cross.target]).toEqual(['我 爱 中国', 'I love China'])
    expect(decoderRunOptions({ ...s, mode: 'cross', target: '中国很大' }).text).toBe('中国 很大')
    expect(viewWords('我爱北京天安门')).toEqual(['我', '爱', '北京', '天安门'])
  })
})
