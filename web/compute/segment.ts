// Word boundaries for text written without spaces (Chinese, Japanese): the engine's word tokenizers split on
// whitespace only, so the page asks the platform's word segmenter (Intl.Segmenter, ICU's dictionary) where the
// words are and hands the engine the text with one space at each boundary it found. The vocabulary and the ids
// stay the engine's (word-sorted: sorted unique words). Text without such characters is passed on unchanged, so
// the course's "this is my cat" and every English sentence tokenize exactly as before; spaces the learner typed
// stay boundaries ("我 爱 北京 天安门" keeps its four words).

import type { Tokenizer } from '../params'

/** Han, kana and CJK compatibility ideographs: scripts written without spaces between words. */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/
/** A segment that is whitespace (the engine splits there anyway). */
const SPACE = /^\s+$/

let segmenter: Intl.Segmenter | undefined

/**
 * The text with a space between every two neighbouring words of Intl.Segmenter('zh', { granularity: 'word' })
 * when one of them holds a Chinese or Japanese character: 我爱中国 → "我 爱 中国", "AI很好。" → "AI 很好 。".
 * Everything else (the learner's spaces, Latin words and their punctuation) is left as typed.
 */
export function segmentWords(text: string): string {
  if (!CJK.test(text)) return text
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' })
  let out = ''
  let prev = ''
  for (const { segment } of segmenter.segment(text)) {
    const space = SPACE.test(segment)
    if (!space && prev && (CJK.test(prev) || CJK.test(segment))) out += ' '
    out += segment
    prev = space ? '' : segment
  }
  return out
}

/** What the engine gets for a sentence: segmented for the word tokenizers, as typed for char and bpe. */
export function engineText(text: string, tokenizer: Tokenizer): string {
  return tokenizer === 'word' || tokenizer === 'word-sorted' ? segmentWords(text) : text
}
