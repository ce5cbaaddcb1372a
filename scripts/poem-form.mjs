// The five-character form (五言绝句 / 五言律诗), one definition for the corpus script
// (scripts/poems-corpus.mjs keeps the poems that have it), the corpus test and the poems bench (the share of
// sampled poems that keep it), and mirrored by scripts/poems_torch.py (tests/unit/poems-sample.test.ts checks
// that the share it wrote equals this checker's over the same poems).
//
// A poem keeps the form when it is 4 or 8 lines of five characters each, the odd lines ending in "，" and the
// even ones in "。" (couplets), nothing before, between or after: "床前明月光，疑是地上霜。举头望明月，低头思故乡。".
// A character is a Han character (Unicode script Han, so the rare ones outside the BMP count as one) or "□"
// (U+25A1, the corpus's unknown character).

/** Characters in a line of the form. */
export const LINE_CHARS = 5
/** The line counts of the form: a quatrain (绝句) or a regulated verse (律诗). */
export const LINE_COUNTS = [4, 8]
/** The unknown character: the source's lacunae and every character outside the vocabulary. */
export const UNKNOWN = '□'

const CHAR = String.raw`[\p{Script=Han}□]`
const COUPLET = `${CHAR}{5}，${CHAR}{5}。`
const FORM = new RegExp(`^(?:(?:${COUPLET}){2}|(?:${COUPLET}){4})$`, 'u')

/** True when `text` (one poem, without the "\n" that ends it) keeps the five-character form. */
export function keepsForm(text) {
  if (typeof text !== 'string') throw new TypeError(`keepsForm(text): expected a string, got ${typeof text}`)
  return FORM.test(text)
}

/**
 * The poem a generation wrote: its text up to the first "\n" (the end of a poem), or null when it wrote no "\n"
 * (it ran out of tokens first, so it does not keep the form).
 */
export function poemOf(written) {
  const end = written.indexOf('\n')
  return end < 0 ? null : written.slice(0, end)
}

/** The first id of each poem in `ids` (every poem ends with id 0, its "\n"), at most `count` of them: the prompts of
 * the sampled poems, as the sample's measurement (scripts/poems_torch.py) takes them. */
export function poemStarts(ids, count = Infinity) {
  const out = []
  for (let i = 0; i < ids.length && out.length < count; i++) if (i === 0 || ids[i - 1] === 0) out.push(ids[i])
  return out
}

/**
 * The target of task poems' default run (issue 37), one definition for the integration test, bench/poems_train_*.mjs
 * and docs/benchmarks.md: the validation loss over every validation poem ≤ `valLoss`, and at least `form` of
 * `samples` poems sampled at `temperature` (prompt: the first character of validation poem i, seed 1 + i) keep the
 * form.
 */
export const POEMS_TARGET = Object.freeze({ valLoss: 4.9, form: 0.9, samples: 250, temperature: 0.8 })

/** The share of `written` (generated texts) whose poem keeps the form, and how many did. */
export function formShare(written) {
  let kept = 0
  for (const w of written) {
    const p = poemOf(w)
    if (p !== null && keepsForm(p)) kept++
  }
  return { kept, total: written.length, share: written.length ? kept / written.length : 0 }
}
