// One cell's arithmetic: the score term by term, the scaling, the mask, and the softmax of its row,
// each recomputed here and checked against the engine's number.

import type { Ctx, Panel } from '../context'
import { h, tokLabel } from '../dom'
import { close, scoreBreakdown, softmaxRow } from '../model/terms'
import { headMatrix } from '../model/heads'
import { fmt } from '../format'
import { renderTex } from '../formula'
import { scoreTex } from './steps'
import { ruleName } from './rule-notes'

export class ArithPanel implements Panel {
  readonly el: HTMLElement
  private title = h('h3')
  private body = h('div', { class: 'arith-body' })

  constructor() {
    this.el = h(
      'section',
      { class: 'panel', 'data-panel': 'arith', 'aria-live': 'polite' },
      h('header', { class: 'panel-head' }, this.title),
      this.body,
    )
  }

  render(ctx: Ctx): void {
    this.select(ctx)
  }

  select(ctx: Ctx): void {
    const { t, trace, sel, state } = ctx
    this.title.textContent = t('arithPanel')
    this.body.replaceChildren()
    if (!trace || !sel) {
      this.body.append(h('p', { class: 'help', text: t('arithEmpty') }))
      return
    }
    const { i, j } = sel
    const head = state.head
    const S = headMatrix(trace.scores, head)
    const S1 = headMatrix(trace.scaledScores, head)
    const S2 = headMatrix(trace.maskedScores, head)
    const A = headMatrix(trace.weights, head)
    if (i >= S.rows || j >= S.cols) return
    const nk = S.cols
    const qTok = tokLabel(trace.tokens[i] ?? String(i))
    const kToks = (state.mode === 'cross' && trace.sourceTokens ? trace.sourceTokens : trace.tokens).map(tokLabel)
    const at = (m: typeof S, r: number, c: number) => m.data[r * m.cols + c]

    const heading = h('p', { class: 'arith-cell' })
    heading.append(h('strong', { text: `(${i}, ${j})` }), ` ${qTok} → ${kToks[j]}`)
    this.body.append(heading)

    // 1. the score
    const f = h('div', { class: 'formula' })
    renderTex(f, scoreTex(state.score))
    this.body.append(h('h4', { text: `① ${t('arithScore')} · ${t('arithRule')}: ${ruleName(t, state.score)}` }), f)
    const engineScore = at(S, i, j)
    const bd = scoreBreakdown(trace, state.score, i, j, head)
    if (bd) {
      const terms = h('p', { class: 'terms mono' })
      bd.terms.forEach((term, n) => {
        const b = term.b < 0 ? `(${fmt(term.b, 3)})` : fmt(term.b, 3)
        const span = h('span', { class: 'term', title: term.label, text: `${fmt(term.a, 3)}×${b}` })
        if (n) terms.append(' + ')
        terms.append(span)
      })
      this.body.append(
        h('p', {
          class: 'help',
          'data-arith': state.score === 'concat' ? 'linear' : 'dot',
          text: `${t(state.score === 'concat' ? 'arithLinear' : 'arithDot')} (${bd.terms.length})`,
        }),
        terms,
        result(t, bd.sum, engineScore),
      )
    } else {
      this.body.append(h('p', { class: 'mono', text: `${t('arithNoBreakdown')} ${fmt(engineScore, 6)}` }))
    }

    // 2. scaling
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

    // 3. mask
    const masked = at(S2, i, j)
    this.body.append(
      h('h4', { text: `③ ${t('arithMask')}` }),
      h('p', {
        class: 'mono',
        text: masked === -Infinity ? t('arithMasked') : `${t('arithNotMasked')}: ${fmt(masked, 6)}`,
      }),
    )

    // 4. softmax of the row
    const row = Array.from({ length: nk }, (_, c) => at(S2, i, c))
    const sm = softmaxRow(row, state.temperature)
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
    for (let c = 0; c < nk; c++) {
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
    this.body.append(
      h('h4', { text: `④ ${t('arithSoftmax')} (T = ${state.temperature.toFixed(2)})` }),
      h('p', {
        class: 'mono',
        text: `max = ${fmt(sm.max, 4)}, Σ = ${fmt(sm.sum, 4)}, w = ${fmt(sm.exps[j], 4)} / ${fmt(sm.sum, 4)} = ${fmt(sm.probs[j], 6)}`,
      }),
      h('div', { class: 'table-scroll' }, table),
      result(t, sm.probs[j], at(A, i, j)),
    )
  }
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
