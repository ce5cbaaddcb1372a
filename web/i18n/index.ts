// The page's strings: every visible string of the playground, in English and Chinese, one table per feature in this
// folder. The shell, the panels, the tour, the quiz and the lesson views share one key space, the page's table
// below (`Ctx.t`, `Texts`); the views with a vocabulary of their own (modern.ts, backward.ts) and the Train panel
// (train.ts, loaded with the panel) have their own tables, read with `translate`. The course material is Chinese;
// the explanations are written in our own words after its lessons. How to add a string: docs/design.md, "Adding a
// string".

import { Labels, translate, type Lang, type Messages, type T, type Table } from './core'
import { BOOT, type BootKey } from './boot'
import { LESSONS, type LessonsKey } from './lessons'
import { MODEL, type ModelKey } from './model'
import { PIPELINE, type PipelineKey } from './pipeline'
import { POSITIONS, type PositionsKey } from './positions'
import { QUIZ, type QuizKey } from './quiz'
import { SHELL, type ShellKey } from './shell'
import { TOUR, type TourKey } from './tour'

export { fill, isTouchScreen, Labels, LANGS, translate, type Lang, type Messages, type T, type Table } from './core'

/** The tables of the page's key space (tests/unit/web-i18n.test.ts checks that no key is in two of them). */
export const PAGE_TABLES = { BOOT, SHELL, PIPELINE, TOUR, QUIZ, LESSONS, MODEL, POSITIONS }

export type MsgKey = BootKey | ShellKey | PipelineKey | TourKey | QuizKey | LessonsKey | ModelKey | PositionsKey

const page = (lang: Lang): Messages<MsgKey> => ({
  ...BOOT[lang],
  ...SHELL[lang],
  ...PIPELINE[lang],
  ...TOUR[lang],
  ...QUIZ[lang],
  ...LESSONS[lang],
  ...MODEL[lang],
  ...POSITIONS[lang],
})

export const MESSAGES: Table<MsgKey> = { en: page('en'), zh: page('zh') }

/** The page's strings in one language: `t(key)`, `t(key, { n })`. */
export type Translate = T<MsgKey>

/** Elements showing the page's strings, re-labelled together when the language changes (`new Texts()`). */
export const Texts = Labels<MsgKey>
export type Texts = Labels<MsgKey>

/** The page's strings in `lang`; `touch`: a key's `…Touch` twin ("tap" for "click") where there is one. */
export function translator(lang: Lang, touch = false): Translate {
  return translate(MESSAGES, lang, touch)
}
