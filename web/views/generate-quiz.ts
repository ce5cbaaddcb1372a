// The "Write a poem" view's questions, two per part of its teaching text (attention and the MLP, positions, the
// mask): predict, then see the answer. Their text is in web/i18n/generate.ts, each question's keys named by its
// prefix (…Prompt, …Right, …Wrong1–3, …Explain).

import { translate, type Lang } from '../i18n'
import { GENERATE, type GenerateKey } from '../i18n/generate'
import { make, type Question, type QuizFor } from '../quiz/questions'

type Prefix<K> = K extends `quiz${infer P}Prompt` ? `quiz${P}` : never

/** In the order of the teaching text: attention and the MLP, positions, the mask. */
const QUESTIONS: Array<Prefix<GenerateKey>> = [
  'quizGenMlp',
  'quizGenNoAttn',
  'quizGenComma',
  'quizGenContext',
  'quizGenPeek',
  'quizGenLastRow',
]

export function generateQuestions(lang: Lang): Question[] {
  const t = translate(GENERATE, lang)
  return QUESTIONS.map((p, i) =>
    make(
      `generate:${i}`,
      t(`${p}Prompt`),
      t(`${p}Right`),
      [t(`${p}Wrong1`), t(`${p}Wrong2`), t(`${p}Wrong3`)],
      t(`${p}Explain`),
    ),
  )
}

/** The view's questions, for web/shell/view-factories.ts. */
export const generateQuiz: QuizFor = (s) => generateQuestions(s.lang)
