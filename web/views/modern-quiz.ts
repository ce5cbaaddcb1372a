// Quiz questions of the views on attention as it runs today (flash, heads, sinks); their text is in
// web/i18n/modern.ts, each question's keys named by its prefix (…Prompt, …Right, …Wrong1–3, …Explain).

import { translate, type Lang } from '../i18n'
import { MODERN, type ModernKey } from '../i18n/modern'
import { make, type Question, type QuizFor } from '../quiz/questions'

type Prefix<K> = K extends `${infer P}Prompt` ? P : never

const QUESTIONS: Record<'flash' | 'heads' | 'sinks', Array<Prefix<ModernKey>>> = {
  flash: ['quizFlashRescale', 'quizFlashMemory'],
  heads: ['quizHeadsGroup', 'quizHeadsWindow'],
  sinks: ['quizSinksSum', 'quizSinksLogit'],
}

export function modernQuestions(view: 'flash' | 'heads' | 'sinks', lang: Lang): Question[] {
  const t = translate(MODERN, lang)
  return QUESTIONS[view].map((p, i) =>
    make(
      `${view}:${i}`,
      t(`${p}Prompt`),
      t(`${p}Right`),
      [t(`${p}Wrong1`), t(`${p}Wrong2`), t(`${p}Wrong3`)],
      t(`${p}Explain`),
    ),
  )
}

/** The view's questions, for web/shell/view-factories.ts. */
export const modernQuiz =
  (view: 'flash' | 'heads' | 'sinks'): QuizFor =>
  (s) =>
    modernQuestions(view, s.lang)
