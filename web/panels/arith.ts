// One cell's arithmetic: the score term by term, the scaling, the mask, and the softmax of its row,
// each recomputed here and checked against the engine's number.

import type { Trace } from 'attention-playground'
import type { Ctx, Panel, Selection } from '../context'
import { h, prefersReducedMotion, tokLabel } from '../dom'
import { close, scoreBreakdown, softmaxRow, type ScoreBreakdown, type SoftmaxRow } from '../compute/terms'
import { headMatrix, type Matrix } from '../compute/heads'
import { fmt } from '../format'
import { renderTex } from '../formula'
import { scoreTex } from './steps'
import { ruleName } from './rule-notes'
import { RULE_TRAITS } from '../params'

export class ArithPanel implements Panel {
  readonly el: HTMLElement
  private title = h('h3')
  private body = h('div', { class: 'arith-body' })
  /** After a cell was clicked far above: back to it. */
  private back = h('button', { type: 'button', class: 'btn-small', name: 'arithBack', hidden: true })
  /** The selection last shown: a new one is brought into view. */
  private lastKey = ''
  private cueTimer = 0

  constructor() {
    this.el = h(
      'section',
      { class: 'panel', 'data-panel': 'arith', 'aria-live': 'polite' },
      h('header', { class: 'panel-head' }, this.title, this.back),
      this.body,
    )
  }

  render(ctx: Ctx): void {
    this.select(ctx)
  }

  select(ctx: Ctx): void {
    const { t, trace, sel } = ctx
    this.title.textContent = t('arithPanel')
    this.back.textContent = t('arithBack')
    const key = sel ? `${sel.step}:${sel.i}:${sel.j}` : ''
    const fresh = !!sel && key !== this.lastKey
    this.lastKey = key
    if (!sel) this.back.hidden = true
    if (fresh) requestAnimationFrame(() => this.reveal(sel.step))
    this.body.replaceChildren()
    if (!trace || !sel) {
      this.body.append(h('p', { class: 'help', text: t('arithEmpty') }))
      return
    }
    const cell = selectedCell(ctx, trace, sel)
    if (!cell) return
    this.appendHeading(cell)
    this.appendScore(cell)
    this.appendScaling(cell)
    this.appendMask(cell)
    this.appendSoftmax(cell)
  }

  /**
   * A cell just selected: when this panel is out of sight (it sits below the matrices, a screen or more away),
   * it is scrolled into view and flashes, and "back to the cell" returns to the matrix the learner clicked.
   */
  private reveal(step: string): void {
    const r = this.el.getBoundingClientRect()
    if (r.height === 0) return
    if (r.top >= 0 && r.bottom <= innerHeight) return
    this.el.scrollIntoView({ block: 'start', behavior: prefersReducedMotion() ? 'auto' : 'smooth' })
    this.el.classList.add('arith-cue')
    clearTimeout(this.cueTimer)
    this.cueTimer = window.setTimeout(() => this.el.classList.remove('arith-cue'), 1600)
    this.back.hidden = false
    this.back.onclick = () => {
      const root = this.el.getRootNode() as Document | ShadowRoot
      const panel = root.querySelector<HTMLElement>(`[data-step="${step}"]`)
      this.back.hidden = true
      panel?.scrollIntoView({ block: 'center' })
      panel?.querySelector<HTMLElement>('canvas.hm-canvas')?.focus({ preventScroll: true })
    }
  }

  dispose(): void {
    clearTimeout(this.cueTimer)
  }

  /** The cell's position and its query → key tokens. */
  private appendHeading({ i, j, qTok, kToks }: Cell): void {
    const heading = h('p', { class: 'arith-cell' })
    heading.append(h('strong', { text: `(${i}, ${j})` }), ` ${qTok} → ${kToks[j]}`)
    this.body.append(heading)
  }

  /** ① The score: the rule's formula, then its terms summed (when they can be re-derived). */
  private appendScore({ ctx, trace, i, j, head, engineScore }: Cell): void {
    const { t, state } = ctx
    const f = h('div', { class: 'formula' })
    renderTex(f, scoreTex(state.score))
    this.body.append(h('h4', { text: `① ${t('arithScore')} · ${t('arithRule')}: ${ruleName(t, state.score)}` }), f)
    const bd = scoreBreakdown(trace, state.score, i, j, head)
    if (bd) {
      this.body.append(
        h('p', {
          class: 'help',
          'data-arith': RULE_TRAITS[state.score].linear ? 'linear' : 'dot',
          text: `${t(RULE_TRAITS[state.score].linear ? 'arithLinear' : 'arithDot')} (${bd.terms.length})`,
        }),
        termList(bd),
        result(t, bd.sum, engineScore),
      )
    } else {
      this.body.append(h('p', { class: 'mono', text: `${t('arithNoBreakdown')} ${fmt(engineScore, 6)}` }))
    }
  }

  /** ② The scaling of the score. */
  private appendScaling({ ctx, trace, i, j, S1, engineScore }: Cell): void {
    const { t } = ctx
    const scaled = at(S1, i, j)
    this.body.append(
      h('h4', { text: `② ${t('arithScale')}` }),
      trace.scale === 1
        ? h('p', { class: 'mono', text: `${t('arithScaleOff')}: ${fmt(engineScore, 6)}` })
        : h('p', {
            class: 'mono',
            text: `${fmt(engineScore, 6)} × ${fmt(trace.scale, 6)} = ${fmt(engineScore * trace.scale, 6)}`,
          }),
      result(t, engineScore * trace.scale, scaled),
    )
  }

  /** ③ The mask: −∞ or the scaled score unchanged. */
  private appendMask({ ctx, i, j, S2 }: Cell): void {
    const { t } = ctx
    const masked = at(S2, i, j)
    this.body.append(
      h('h4', { text: `③ ${t('arithMask')}` }),
      h('p', {
        class: 'mono',
        text: masked === -Infinity ? t('arithMasked') : `${t('arithNotMasked')}: ${fmt(masked, 6)}`,
      }),
    )
  }

  /** ④ The softmax of the cell's row, key by key, against the engine's weights. */
  private appendSoftmax(cell: Cell): void {
    const { ctx, i, j, S, S2, A } = cell
    const { t, state } = ctx
    const row = Array.from({ length: S.cols }, (_, c) => at(S2, i, c))
    const sm = softmaxRow(row, state.temperature)
    this.body.append(
      h('h4', { text: `④ ${t('arithSoftmax')} (T = ${state.temperature.toFixed(2)})` }),
      h('p', {
        class: 'mono',
        text: `max = ${fmt(sm.max, 4)}, Σ = ${fmt(sm.sum, 4)}, w = ${fmt(sm.exps[j], 4)} / ${fmt(sm.sum, 4)} = ${fmt(sm.probs[j], 6)}`,
      }),
      h('div', { class: 'table-scroll' }, softmaxTable(cell, row, sm)),
      result(t, sm.probs[j], at(A, i, j)),
    )
  }
}

/** The selected cell with its head's matrices (scores, scaled, masked, weights) and token labels. */
interface Cell {
  ctx: Ctx
  trace: Trace
  i: number
  j: number
  head: number
  S: Matrix
  S1: Matrix
  S2: Matrix
  A: Matrix
  qTok: string
  kToks: string[]
  /** The engine's raw score of the cell. */
  engineScore: number
}

/** The cell `sel` points at in the current head, or null when it lies outside the matrices. */
function selectedCell(ctx: Ctx, trace: Trace, sel: Selection): Cell | null {
  const { state } = ctx
  const { i, j } = sel
  const head = state.head
  const S = headMatrix(trace.scores, head)
  const S1 = headMatrix(trace.scaledScores, head)
  const S2 = headMatrix(trace.maskedScores, head)
  const A = headMatrix(trace.weights, head)
  if (i >= S.rows || j >= S.cols) return null
  const qTok = tokLabel(trace.tokens[i] ?? String(i))
  const kToks = (state.mode === 'cross' && trace.sourceTokens ? trace.sourceTokens : trace.tokens).map(tokLabel)
  return { ctx, trace, i, j, head, S, S1, S2, A, qTok, kToks, engineScore: at(S, i, j) }
}

function at(m: Matrix, r: number, c: number): number {
  return m.data[r * m.cols + c]
}

/** The score's addends a×b joined by +, each titled with where it comes from. */
function termList(bd: ScoreBreakdown): HTMLElement {
  const terms = h('p', { class: 'terms mono' })
  bd.terms.forEach((term, n) => {
    const b = term.b < 0 ? `(${fmt(term.b, 3)})` : fmt(term.b, 3)
    const span = h('span', { class: 'term', title: term.label, text: `${fmt(term.a, 3)}×${b}` })
    if (n) terms.append(' + ')
    terms.append(span)
  })
  return terms
}

/** One line per key: its masked score, exp, recomputed weight and the engine's weight (the cell's key marked). */
function softmaxTable({ ctx, i, j, A, kToks }: Cell, row: number[], sm: SoftmaxRow): HTMLElement {
  const { t } = ctx
  const table = h('table', { class: 'softmax' })
  table.append(
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { text: t('arithKey') }),
        h('th', { text: 's' }),
        h('th', { text: t('arithExp') }),
        h('th', { text: t('arithWeight') }),
        h('th', { text: t('arithEngine') }),
      ),
    ),
  )
  const tb = h('tbody')
  for (let c = 0; c < row.length; c++) {
    const tr = h(
      'tr',
      { class: c === j ? 'sel' : '' },
      h('th', { text: kToks[c] ?? String(c) }),
      h('td', { text: fmt(row[c], 4) }),
      h('td', { text: fmt(sm.exps[c], 4) }),
      h('td', { text: fmt(sm.probs[c], 4) }),
      h('td', { text: fmt(at(A, i, c), 4) }),
    )
    tb.append(tr)
  }
  table.append(tb)
  return table
}

function result(t: Ctx['t'], mine: number, engine: number): HTMLElement {
  const ok = close(mine, engine)
  return h(
    'p',
    { class: 'check ' + (ok ? 'ok' : 'bad') },
    `${t('arithRecomputed')} ${fmt(mine, 6)} · ${t('arithEngine')} ${fmt(engine, 6)} · `,
    h('strong', { text: ok ? `✓ ${t('arithMatch')}` : `✗ ${t('arithMismatch')}` }),
  )
}
