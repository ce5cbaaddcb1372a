// The task poems' charts and the plain functions behind its text: the loss curves with the form's share, the heads'
// largest scores by step, a poem cut into its lines, the best head score. Labels go in through fillText.

import type { HeadRole, LanguageModelHeadScores } from 'attention-playground'
import type { T } from '../i18n/core'
import type { TrainPoemsKey } from '../i18n/train-poems'
import { framed, legend, lossAxes, polyline } from './charts'

type Translate = T<TrainPoemsKey>

/** The score kinds in the columns' order (docs/lm-spec.md, "Head scores"). */
export const HEAD_KINDS: readonly HeadRole[] = ['previousLine', 'previousChar', 'lineEnd']

/** Each kind's column title (and its name in sentences). */
export const KIND_KEY: Record<HeadRole, TrainPoemsKey> = {
  previousLine: 'colPreviousLine',
  previousChar: 'colPreviousChar',
  lineEnd: 'colLineEnd',
}

/** Each kind's short name: under the chart, atop the table's columns. */
export const SHORT_KEY: Record<HeadRole, TrainPoemsKey> = {
  previousLine: 'legPreviousLine',
  previousChar: 'legPreviousChar',
  lineEnd: 'legLineEnd',
}

/** The punctuation that ends a line of a poem. */
const LINE_END = /[，。？！；]/u

/** A poem cut after each line's punctuation (the last piece may have none): the lines as the page shows them. */
export function poemLines(poem: string): string[] {
  const lines: string[] = []
  let line = ''
  for (const ch of poem) {
    line += ch
    if (LINE_END.test(ch)) {
      lines.push(line)
      line = ''
    }
  }
  if (line) lines.push(line)
  return lines
}

/** A line of the form: five characters and its punctuation. */
export function lineInForm(line: string): boolean {
  const chars = [...line]
  return chars.length === 6 && LINE_END.test(chars[5]) && !chars.slice(0, 5).some((c) => LINE_END.test(c))
}

/** The largest score of any head and kind, where it is (layer, head 0-based). */
export function bestScore(s: LanguageModelHeadScores): { score: number; kind: HeadRole; layer: number; head: number } {
  let best = { score: -Infinity, kind: HEAD_KINDS[0], layer: 0, head: 0 }
  for (const kind of HEAD_KINDS)
    s[kind].forEach((row, layer) =>
      row.forEach((score, head) => {
        if (score > best.score) best = { score, kind, layer, head }
      }),
    )
  return best
}

/** The largest score of one kind over every head. */
export const maxOf = (s: LanguageModelHeadScores, kind: HeadRole) => Math.max(...s[kind].flat())

export interface LossPoint {
  steps: number
  loss: number
}

/** At most `max` points: consecutive points averaged in equal buckets (each at its last step). */
export function thin(points: readonly LossPoint[], max: number): LossPoint[] {
  if (points.length <= max) return [...points]
  const size = Math.ceil(points.length / max)
  const out: LossPoint[] = []
  for (let i = 0; i < points.length; i += size) {
    const b = points.slice(i, i + size)
    out.push({ steps: b[b.length - 1].steps, loss: b.reduce((a, p) => a + p.loss, 0) / b.length })
  }
  return out
}

export interface PoemsCurves {
  train: readonly LossPoint[]
  validation: readonly LossPoint[]
  /** The share of sampled poems in the form (0–1) at each measurement. */
  form: readonly LossPoint[]
  /** The run's length: the x axis reaches at least this step. */
  runLength: number
}

const COLORS = { train: '#1f77b4', validation: '#d62728', form: '#333' }

/** Training loss (thinned), validation loss (dots joined), the form's share on the right axis (0–100 %). */
export function drawPoemsCurves(c: HTMLCanvasElement, d: PoemsCurves, t: Translate): void {
  const { g, W, H, L, R, T, B } = framed(c, [10, 36, 34, 36])
  const last = Math.max(d.runLength, d.train.at(-1)?.steps ?? 0, d.validation.at(-1)?.steps ?? 0, 1)
  const losses = [...d.train, ...d.validation].map((p) => p.loss).filter(Number.isFinite)
  const top = Math.max(1, Math.ceil(Math.max(0, ...losses)))
  const x = (s: number) => L + ((W - L - R) * s) / last
  const y = (v: number) => T + (H - T - B) * (1 - v / top)
  const yf = (v: number) => T + (H - T - B) * (1 - v)
  polyline(
    g,
    thin(d.train, 240).map((p) => [x(p.steps), y(p.loss)]),
    COLORS.train,
  )
  polyline(
    g,
    d.validation.map((p) => [x(p.steps), y(p.loss)]),
    COLORS.validation,
  )
  g.fillStyle = COLORS.validation
  for (const p of d.validation) g.fillRect(x(p.steps) - 2, y(p.loss) - 2, 4, 4)
  polyline(
    g,
    d.form.map((p) => [x(p.steps), yf(p.loss)]),
    COLORS.form,
    [1, 2],
  )
  lossAxes(g, { W, H, L, R, T, B }, String(top), last)
  legend(
    g,
    [
      [COLORS.train, t('trainLoss'), []],
      [COLORS.validation, t('valLoss'), []],
      [COLORS.form, t('formShare'), [1, 2]],
    ],
    L,
    H,
  )
}

const KIND_STYLE: Record<HeadRole, [string, number[]]> = {
  previousLine: ['#2ca02c', []],
  previousChar: ['#9467bd', [5, 3]],
  lineEnd: ['#ff7f0e', [1, 2]],
}

/** The largest score of each kind over the heads, by step, with the naming threshold dashed. */
export function drawScoresByStep(
  c: HTMLCanvasElement,
  history: ReadonlyArray<{ steps: number; scores: LanguageModelHeadScores }>,
  runLength: number,
  t: Translate,
): void {
  const { g, W, H, L, R, T, B } = framed(c, [10, 12, 34, 30])
  const last = Math.max(runLength, history.at(-1)?.steps ?? 0, 1)
  const x = (s: number) => L + ((W - L - R) * s) / last
  const y = (v: number) => T + (H - T - B) * (1 - v)
  const threshold = history.at(-1)?.scores.threshold ?? 0.4
  polyline(
    g,
    [
      [L, y(threshold)],
      [W - R, y(threshold)],
    ],
    '#999',
    [6, 4],
  )
  for (const kind of HEAD_KINDS)
    polyline(
      g,
      history.map((p) => [x(p.steps), y(maxOf(p.scores, kind))]),
      ...KIND_STYLE[kind],
    )
  g.fillStyle = '#333'
  g.textAlign = 'right'
  g.fillText('1', L - 3, T + 9)
  g.fillText(String(threshold), L - 3, y(threshold) + 4)
  g.fillText('0', L - 3, H - B)
  g.textAlign = 'center'
  g.fillText(String(last), W - R, H - B + 12)
  legend(
    g,
    HEAD_KINDS.map((k) => [KIND_STYLE[k][0], t(SHORT_KEY[k]), KIND_STYLE[k][1]]),
    L,
    H,
  )
}
