// "Check your understanding": questions built from the current state and trace, so a new sentence
// or new sizes give new questions. Each has exactly one right option; ids carry the numbers they ask
// about, so the stored progress belongs to that exact question.

import type { Trace } from 'attention-playground'
import type { Translate, MsgKey } from '../i18n'
import type { PlaygroundState, View } from '../params'
import { headMatrix } from '../compute/heads'
import { tokLabel } from '../dom'
import { fmt } from '../format'

export interface Question {
  id: string
  prompt: string
  options: string[]
  right: number
  explain: string
  /** The guided tour's step (1..5) the question follows, when it belongs to one. */
  guided?: number
}

/** The right answer first in `options`; placed by a hash of the id so re-renders keep the order. */
export function make(
  id: string,
  prompt: string,
  right: string,
  wrong: string[],
  explain: string,
  guided?: number,
): Question {
  const opts = [right, ...[...new Set(wrong)].filter((w) => w !== right)].slice(0, 4)
  let hsh = 0
  for (const c of id) hsh = (Math.imul(hsh, 31) + c.charCodeAt(0)) | 0
  const at = Math.abs(hsh) % opts.length
  const options = [...opts.slice(1, at + 1), opts[0], ...opts.slice(at + 1)]
  return { id, prompt, options, right: at, explain, guided }
}

const shape = (...d: number[]) => `(${d.join(', ')})`

/** Distinct labels for tokens that repeat ("the" twice becomes "the #0", "the #3"). */
function labels(toks: string[]): string[] {
  const l = toks.map(tokLabel)
  return l.map((x, i) => (l.indexOf(x) !== l.lastIndexOf(x) ? `${x} #${i}` : x))
}

/** Numbers that are equal as shown (4 decimals). */
const same = (a: number, b: number) => Math.abs(a - b) < 5e-5

/**
 * "By what number does step ② divide the scores?": √d_k (or the scale in use). The temperature divides later,
 * inside the softmax, so the prompt names the step, and no wrong option equals √d_k, nor √d_k·T (the two
 * divisions together), so exactly one option is right for any temperature and any d_k (d_k = 1 included).
 */
function scaleQuestion(s: PlaygroundState, tr: Trace, t: Translate, dkh: number): Question {
  const root = 1 / tr.scale
  const T = s.temperature
  const taken = [root, root * T]
  const wrong = [dkh, dkh * dkh, 1, 2 * root, root / 2, T].filter((v) => !taken.some((x) => same(v, x)))
  const unique = wrong.filter((v, i) => wrong.findIndex((w) => same(v, w)) === i).slice(0, 3)
  const prompt = T === 1 ? 'quizScalePrompt' : 'quizScalePromptTemp'
  return make(
    `scale:${dkh}:${fmt(root, 4)}:${T}`,
    t(prompt, { dk: dkh, T: fmt(T, 2) }),
    fmt(root, 4),
    unique.map((v) => fmt(v, 4)),
    t('quizScaleExplain', { dk: dkh, root: fmt(root, 4) }),
    2,
  )
}

/**
 * "Which key does the query … weigh most?" (shown head), asked of the last row whose largest weight is clear:
 * not a fully masked row (all weights 0), not a tie (a repeated word gives equal scores) as shown to 4 decimals.
 * No such row: no question.
 */
function topQuestion(s: PlaygroundState, tr: Trace, t: Translate, q: string[], k: string[]): Question | null {
  const A = headMatrix(tr.weights, s.head)
  for (let row = q.length - 1; row >= 0; row--) {
    if (tr.maskedRows?.includes(row)) continue
    const w = Array.from(A.data.subarray(row * A.cols, (row + 1) * A.cols))
    const best = w.indexOf(Math.max(...w))
    if (!(w[best] > 0) || w.some((v, j) => j !== best && same(v, w[best]))) continue
    const wb = fmt(w[best], 4)
    return make(
      `top:${s.head}:${row}:${k.join('|')}:${best}:${wb}`,
      t('quizTopPrompt', { tok: q[row] }),
      k[best],
      k.filter((_, j) => j !== best).slice(0, 3),
      t('quizTopExplain', { tok: q[row], key: k[best], w: wb }),
      4,
    )
  }
  return null
}

function pipelineQuestions(s: PlaygroundState, tr: Trace, t: Translate): Question[] {
  const out: Question[] = []
  const q = labels(tr.tokens)
  const k = labels(s.mode === 'cross' && tr.sourceTokens ? tr.sourceTokens : tr.tokens)
  const nq = q.length,
    nk = k.length
  const heads = tr.heads || 1
  const dkh = tr.K.shape[1] / heads,
    dvh = tr.V.shape[1] / heads
  // With several heads every shape is one head's (d_k per head); the output puts the heads side by side.
  const perHead = heads > 1 ? { heads } : null
  out.push(
    make(
      `shape:${nq}:${nk}:${dkh}:${heads}`,
      t(perHead ? 'quizShapePromptHeads' : 'quizShapePrompt', { nq, nk, dk: dkh, heads }),
      shape(nq, nk),
      [shape(nq, dkh), shape(dkh, dkh), nk !== nq ? shape(nk, nq) : shape(nk, dkh + 1), shape(nq, nk, dkh)],
      t('quizShapeExplain', { nq, nk, dk: dkh }),
      1,
    ),
  )
  if (tr.scale !== 1) out.push(scaleQuestion(s, tr, t, dkh))
  // The long view never builds the n×n matrices: the questions below need them.
  if (!tr.maskedScores?.data?.length || !tr.weights?.data?.length) return out
  // Which keys the mask hides for one row, read from the masked scores of the shown head.
  const M = headMatrix(tr.maskedScores, s.head)
  const r = Math.min(1, nq - 1)
  const hidden = k.filter((_, j) => M.data[r * M.cols + j] === -Infinity)
  const seen = k.filter((_, j) => M.data[r * M.cols + j] !== -Infinity)
  const list = (xs: string[]) => (xs.length ? xs.join(t('quizListSep')) : t('quizNone'))
  out.push(
    make(
      `mask:${s.mask}:${r}:${hidden.join('|')}:${nk}`,
      t('quizMaskPrompt', { tok: q[r] }),
      list(hidden),
      [list(seen), hidden.length ? t('quizNone') : list(k.slice(r + 1)), list(k), list(k.slice(0, r + 1))],
      hidden.length ? t('quizMaskExplain', { tok: q[r], list: list(hidden) }) : t('quizMaskNoneExplain'),
      3,
    ),
  )
  const top = topQuestion(s, tr, t, q, k)
  if (top) out.push(top)
  out.push(
    make(
      `out:${nq}:${dvh * heads}:${heads}`,
      t(perHead ? 'quizOutPromptHeads' : 'quizOutPrompt', { nq, nk, dv: dvh * heads, dvh, heads }),
      shape(nq, dvh * heads),
      [shape(nk, dvh * heads), shape(nq, nk), shape(dvh * heads, nq)],
      t('quizOutExplain', { nq, dv: dvh * heads }),
      5,
    ),
  )
  return out
}

function fixed(
  id: string,
  t: Translate,
  p: MsgKey,
  right: MsgKey,
  wrong: MsgKey[],
  ex: MsgKey,
  vars: Record<string, string | number> = {},
): Question {
  return make(
    id,
    t(p, vars),
    t(right, vars),
    wrong.map((w) => t(w, vars)),
    t(ex, vars),
  )
}

function seq2seqQuestions(t: Translate): Question[] {
  return [
    fixed(
      'seq2seq:kv',
      t,
      'quizKvPrompt',
      'quizFromEncoder',
      ['quizFromDecoder', 'quizFromBoth', 'quizFromRandom'],
      'quizKvExplain',
    ),
    fixed(
      'seq2seq:q',
      t,
      'quizQPrompt',
      'quizFromDecoder',
      ['quizFromEncoder', 'quizFromBoth', 'quizFromRandom'],
      'quizQExplain',
    ),
  ]
}

/** A view's questions (web/shell/view-factories.ts gives each view its own). */
export type QuizFor = (s: PlaygroundState, tr: Trace | null, t: Translate) => Question[]

/** What the quiz and the guided tour read of the views table (web/shell/view-factories.ts hands it in). */
export interface QuizViews {
  /** The view's questions. */
  quiz(view: View): QuizFor
  /** The view the guided tour runs on. */
  tour: View
}

export const pipelineQuiz: QuizFor = (s, tr, t) => (tr ? pipelineQuestions(s, tr, t) : [])

/** The stems of the questions whose texts follow one naming: quiz{stem}Prompt, Right, Wrong1 to 3 and Explain. */
type Stem = 'Why' | 'Decode' | 'ScaleWhat' | 'Pos' | 'Rope' | 'BwMask' | 'BwSat' | 'Train'

/** The question of stem `stem`'s six texts (the wrong options in their order 1, 2, 3). */
function named(id: string, t: Translate, stem: Stem, vars: Record<string, string | number> = {}): Question {
  const k = `quiz${stem}` as const
  return fixed(id, t, `${k}Prompt`, `${k}Right`, [`${k}Wrong1`, `${k}Wrong2`, `${k}Wrong3`], `${k}Explain`, vars)
}

export const whyQuiz: QuizFor = (_s, _tr, t) => [named('why:direct', t, 'Why')]

export const originQuiz: QuizFor = (_s, _tr, t) => seq2seqQuestions(t)

export const decodeQuiz: QuizFor = (s, _tr, t) => [
  ...seq2seqQuestions(t),
  named(`decode:q:${s.dq}`, t, 'Decode', { dq: s.dq }),
]

export const scalingQuiz: QuizFor = (_s, _tr, t) => [named('scaling:what', t, 'ScaleWhat')]

export const positionsQuiz: QuizFor = (_s, _tr, t) => [
  named('positions:shuffle', t, 'Pos'),
  named('positions:rope-offset', t, 'Rope'),
]

export const backwardQuiz: QuizFor = (_s, _tr, t) => [
  named('backward:mask', t, 'BwMask'),
  named('backward:saturation', t, 'BwSat'),
]

export const trainQuiz: QuizFor = (_s, _tr, t) => [named('train:what', t, 'Train')]

export const noQuiz: QuizFor = () => []
