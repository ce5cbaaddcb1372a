// The token-to-token view: lines from each query token (left) to the key tokens it attends to
// (right), thicker for more weight — the lessons' "it → animal" picture, for any sentence.

import type { Ctx, Panel } from '../context'
import { h, setText, svg, tokLabel } from '../dom'
import { headMatrix } from '../arith'
import { fmt } from '../format'

const ROW_H = 24
const MAX_TOKENS = 150

export class LinesPanel implements Panel {
  readonly el: HTMLElement
  private title = h('h3')
  private help = h('p', { class: 'help' })
  private summary = h('p', { class: 'lines-summary' })
  private svgEl = svg('svg', { class: 'lines', role: 'img' })
  private lineEls: SVGLineElement[][] = []
  private weights: number[][] = []
  private leftTexts: SVGTextElement[] = []
  private rightTexts: SVGTextElement[] = []
  private qToks: string[] = []
  private kToks: string[] = []

  constructor() {
    this.el = h('section', { class: 'panel', 'data-panel': 'lines' },
      h('header', { class: 'panel-head' }, this.title), this.help, this.summary, h('div', { class: 'lines-wrap' }, this.svgEl))
  }

  render(ctx: Ctx): void {
    const { t, trace, state } = ctx
    setText(this.title, t('linesPanel'))
    setText(this.help, t('linesHelp'))
    this.svgEl.setAttribute('aria-label', t('linesPanel'))
    if (!trace) return
    const full = headMatrix(trace.weights, state.head)
    // Past 150 tokens a side the picture is unreadable and heavy: the first 150, said in the help line.
    const nqAll = full.rows, nkAll = full.cols
    const A = { rows: Math.min(nqAll, MAX_TOKENS), cols: Math.min(nkAll, MAX_TOKENS), data: new Float32Array(0) }
    A.data = new Float32Array(A.rows * A.cols)
    for (let i = 0; i < A.rows; i++) A.data.set(full.data.subarray(i * nkAll, i * nkAll + A.cols), i * A.cols)
    if (nqAll > MAX_TOKENS || nkAll > MAX_TOKENS) setText(this.help, `${t('linesHelp')} (${A.rows}×${A.cols} / ${nqAll}×${nkAll})`)
    this.qToks = trace.tokens.map(tokLabel)
    this.kToks = (state.mode === 'cross' && trace.sourceTokens ? trace.sourceTokens : trace.tokens).map(tokLabel)
    const nq = A.rows, nk = A.cols
    const width = 420
    const height = Math.max(nq, nk) * ROW_H + 10
    const xl = 130, xr = width - 130
    this.svgEl.setAttribute('viewBox', `0 0 ${width} ${height}`)
    this.svgEl.setAttribute('width', '100%')
    this.svgEl.style.maxWidth = `${width * 1.25}px`
    this.svgEl.replaceChildren()
    const yq = (i: number) => 14 + i * ROW_H + (Math.max(nq, nk) - nq) * ROW_H / 2
    const yk = (j: number) => 14 + j * ROW_H + (Math.max(nq, nk) - nk) * ROW_H / 2
    const g = svg('g', { class: 'lines-g' })
    this.lineEls = []
    this.weights = []
    // Past ~40 tokens all n² lines would be an unreadable (and slow) mesh: keep each row's top 3.
    const many = nq * nk > 1600
    for (let i = 0; i < nq; i++) {
      const row: SVGLineElement[] = []
      const wrow = Array.from(A.data.subarray(i * nk, (i + 1) * nk))
      const keep = many ? new Set(topK(wrow, 3)) : null
      for (let j = 0; j < nk; j++) {
        const w = wrow[j]
        if (keep && !keep.has(j)) { row.push(null as unknown as SVGLineElement); continue }
        const line = svg('line', { x1: xl + 6, y1: yq(i), x2: xr - 6, y2: yk(j), 'stroke-width': (0.5 + 6 * w).toFixed(2) })
        row.push(line)
        g.append(line)
      }
      this.lineEls.push(row)
      this.weights.push(wrow)
    }
    this.svgEl.append(g)
    const mk = (x: number, y: number, s: string, anchor: string, onEnter: () => void) => {
      const e = svg('text', { x, y: y + 4, 'text-anchor': anchor, class: 'lines-tok', tabindex: 0, text: s })
      e.addEventListener('mouseenter', onEnter)
      e.addEventListener('focus', onEnter)
      e.addEventListener('mouseleave', () => ctx.setHighlight(null, null))
      e.addEventListener('blur', () => ctx.setHighlight(null, null))
      this.svgEl.append(e)
      return e
    }
    this.leftTexts = this.qToks.map((s, i) => mk(xl, yq(i), s, 'end', () => ctx.setHighlight(i, null)))
    this.rightTexts = this.kToks.map((s, j) => mk(xr, yk(j), s, 'start', () => ctx.setHighlight(null, j)))
    this.highlight(ctx)
  }

  private defaultQuery(): number {
    const it = this.qToks.findIndex((s) => s.toLowerCase() === 'it')
    return it >= 0 ? it : 0
  }

  highlight(ctx: Ctx): void {
    const q = ctx.hl.q
    const k = ctx.hl.k
    this.lineEls.forEach((row, i) => {
      row.forEach((line, j) => {
        if (!line) return
        const w = this.weights[i][j]
        let op = Math.max(0.04, w)
        if (q !== null) op = i === q ? Math.max(0.15, w) : 0.03
        else if (k !== null) op = j === k ? Math.max(0.15, w) : 0.03
        line.setAttribute('stroke-opacity', op.toFixed(3))
        line.classList.toggle('on', (q !== null && i === q) || (k !== null && j === k))
      })
    })
    this.leftTexts.forEach((e, i) => e.classList.toggle('hl', i === q))
    this.rightTexts.forEach((e, j) => e.classList.toggle('hl', j === k))
    const qi = q ?? this.defaultQuery()
    const w = this.weights[qi]
    if (!w) { this.summary.textContent = ''; return }
    const order = topK(w, 3)
    this.summary.textContent = `${this.qToks[qi]} → ` + order.map((j) => `${this.kToks[j]} ${fmt(w[j], 3)}`).join(' · ') + `  (${ctx.t('linesTop')})`
  }
}

function topK(w: number[], k: number): number[] {
  return w.map((v, j) => [v, j] as const).sort((a, b) => b[0] - a[0]).slice(0, k).map(([, j]) => j)
}
