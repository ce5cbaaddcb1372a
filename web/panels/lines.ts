// The token-to-token view: lines from each query token (left) to the key tokens it attends to
// (right), thicker for more weight — the lessons' "it → animal" picture, for any sentence.
// Lines are drawn on a canvas (n² SVG elements made every keystroke slow); the tokens are SVG text
// on top, focusable and hoverable.

import type { Ctx, Panel } from '../context'
import { h, panelSection, setText, svg, tokLabel, watchSeen } from '../dom'
import { headMatrix } from '../compute/heads'

const ROW_H = 24
const MAX_TOKENS = 150
const WIDTH = 420
const XL = 130,
  XR = WIDTH - 130

export class LinesPanel implements Panel {
  private title = h('h3')
  private help = h('p', { class: 'help' })
  private summary = h('p', { class: 'lines-summary' })
  private canvas = h('canvas', { class: 'lines-canvas', 'aria-hidden': 'true' })
  private svgEl = svg('svg', { class: 'lines', role: 'img' })
  private weights: Float32Array[] = []
  /** Each row's three largest weights, found when first needed (the summary needs one row, the picture all). */
  private top: Array<number[] | undefined> = []
  private leftTexts: SVGTextElement[] = []
  private rightTexts: SVGTextElement[] = []
  private qToks: string[] = []
  private kToks: string[] = []
  private tokKey = ''
  private height = 0
  private hl: { q: number | null; k: number | null } = { q: null, k: null }
  readonly el = panelSection(
    'lines',
    [this.title],
    this.help,
    this.summary,
    h('div', { class: 'lines-wrap' }, h('div', { class: 'lines-stack' }, this.canvas, this.svgEl)),
  )
  // Far below the fold on a long sentence: the lines are drawn when they scroll into view.
  private visible = true
  private dirty = false
  private seen: IntersectionObserver | null = null
  private printQuery: MediaQueryList | null = null

  constructor() {
    this.seen = watchSeen(this.canvas, (near) => {
      this.visible = near
      if (near && this.dirty) this.draw()
    })
    if (this.seen) {
      this.visible = false
      // A printout shows the whole page: the lines too, seen or not.
      window.addEventListener('beforeprint', this.drawAnyway)
      this.printQuery = window.matchMedia?.('print') ?? null
      this.printQuery?.addEventListener?.('change', this.drawAnyway)
    }
  }

  dispose(): void {
    this.seen?.disconnect()
    window.removeEventListener('beforeprint', this.drawAnyway)
    this.printQuery?.removeEventListener?.('change', this.drawAnyway)
  }

  private readonly drawAnyway = (): void => {
    if (!this.dirty) return
    const was = this.visible
    this.visible = true
    this.draw()
    this.visible = was
  }

  render(ctx: Ctx): void {
    const { t, trace, state } = ctx
    setText(this.title, t('linesPanel'))
    setText(this.help, t('linesHelp'))
    this.svgEl.setAttribute('aria-label', t('linesPanel'))
    if (!trace) return
    const full = headMatrix(trace.weights, state.head)
    // Past 150 tokens a side the picture is unreadable: the first 150, said in the help line.
    const nqAll = full.rows,
      nkAll = full.cols
    const nq = Math.min(nqAll, MAX_TOKENS),
      nk = Math.min(nkAll, MAX_TOKENS)
    if (nqAll > nq || nkAll > nk) setText(this.help, `${t('linesHelp')} (${nq}×${nk} / ${nqAll}×${nkAll})`)
    this.weights = Array.from({ length: nq }, (_, i) => full.data.subarray(i * nkAll, i * nkAll + nk))
    this.top = []
    this.qToks = trace.tokens.slice(0, nq).map(tokLabel)
    this.kToks = (state.mode === 'cross' && trace.sourceTokens ? trace.sourceTokens : trace.tokens)
      .slice(0, nk)
      .map(tokLabel)
    const key = JSON.stringify([this.qToks, this.kToks])
    if (key !== this.tokKey) {
      this.tokKey = key
      // The same counts (a word typed): the token texts take the new words.
      if (this.leftTexts.length === nq && this.rightTexts.length === nk) this.retext()
      else this.buildTokens(ctx, nq, nk)
    }
    this.highlight(ctx)
  }

  private yq(i: number): number {
    return 14 + i * ROW_H + ((Math.max(this.qToks.length, this.kToks.length) - this.qToks.length) * ROW_H) / 2
  }

  private yk(j: number): number {
    return 14 + j * ROW_H + ((Math.max(this.qToks.length, this.kToks.length) - this.kToks.length) * ROW_H) / 2
  }

  private buildTokens(ctx: Ctx, nq: number, nk: number): void {
    this.height = Math.max(nq, nk) * ROW_H + 10
    this.svgEl.setAttribute('viewBox', `0 0 ${WIDTH} ${this.height}`)
    this.svgEl.setAttribute('width', String(WIDTH))
    this.svgEl.setAttribute('height', String(this.height))
    const dpr = window.devicePixelRatio || 1
    this.canvas.width = Math.ceil(WIDTH * dpr)
    this.canvas.height = Math.ceil(this.height * dpr)
    this.canvas.style.width = `${WIDTH}px`
    this.canvas.style.height = `${this.height}px`
    this.svgEl.replaceChildren()
    const mk = (x: number, y: number, s: string, anchor: string, onEnter: () => void) => {
      const e = svg('text', { x, y: y + 4, 'text-anchor': anchor, class: 'lines-tok', text: s })
      // The target is the token's whole row beside the lines (ROW_H = 24 px tall: WCAG 2.2's target size).
      const left = anchor === 'end'
      const hit = svg('g', { class: 'lines-hit', tabindex: 0 })
      hit.append(
        svg('rect', {
          x: left ? 2 : x - 6,
          y: y - ROW_H / 2,
          width: left ? x + 4 : WIDTH - x + 4,
          height: ROW_H,
          fill: 'transparent',
        }),
        e,
      )
      hit.addEventListener('mouseenter', onEnter)
      hit.addEventListener('focus', onEnter)
      hit.addEventListener('mouseleave', () => ctx.setHighlight(null, null))
      hit.addEventListener('blur', () => ctx.setHighlight(null, null))
      this.svgEl.append(hit)
      return e
    }
    this.leftTexts = this.qToks.map((s, i) => mk(XL, this.yq(i), s, 'end', () => ctx.setHighlight(i, null)))
    this.rightTexts = this.kToks.map((s, j) => mk(XR, this.yk(j), s, 'start', () => ctx.setHighlight(null, j)))
  }

  private retext(): void {
    this.leftTexts.forEach((e, i) => setText(e, this.qToks[i]))
    this.rightTexts.forEach((e, j) => setText(e, this.kToks[j]))
  }

  private topOf(i: number): number[] {
    return (this.top[i] ??= topK(this.weights[i], 3))
  }

  private defaultQuery(): number {
    const it = this.qToks.findIndex((s) => s.toLowerCase() === 'it')
    return it >= 0 ? it : 0
  }

  highlight(ctx: Ctx): void {
    this.hl = { q: ctx.hl.q, k: ctx.hl.k }
    this.draw()
    const { q, k } = this.hl
    this.leftTexts.forEach((e, i) => e.classList.toggle('hl', i === q))
    this.rightTexts.forEach((e, j) => e.classList.toggle('hl', j === k))
    const qi = q !== null && q < this.weights.length ? q : this.defaultQuery()
    const w = this.weights[qi]
    if (!w) {
      setText(this.summary, '')
      return
    }
    setText(
      this.summary,
      `${this.qToks[qi]} → ` +
        this.topOf(qi)
          .map((j) => `${this.kToks[j]} ${w[j].toFixed(3)}`)
          .join(' · ') +
        `  (${ctx.t('linesTop')})`,
    )
  }

  private draw(): void {
    this.dirty = !this.visible
    if (this.dirty) return
    const ctx = this.canvas.getContext('2d')
    if (!ctx) return
    const dpr = window.devicePixelRatio || 1
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    ctx.clearRect(0, 0, WIDTH, this.height)
    ctx.lineCap = 'round'
    const { q, k } = this.hl
    // Past ~40 tokens all n² lines are an unreadable mesh: each row's top 3 unless a token is picked.
    const many = this.weights.length * (this.weights[0]?.length ?? 0) > 1600
    const line = (i: number, j: number, op: number, on: boolean) => {
      const w = this.weights[i][j]
      ctx.strokeStyle = on ? `rgba(232,89,12,${op})` : `rgba(28,100,209,${op})`
      ctx.lineWidth = 0.5 + 6 * w
      ctx.beginPath()
      ctx.moveTo(XL + 6, this.yq(i))
      ctx.lineTo(XR - 6, this.yk(j))
      ctx.stroke()
    }
    this.weights.forEach((row, i) => {
      const cols = many && q !== i ? this.topOf(i) : Array.from(row, (_, j) => j)
      for (const j of cols) {
        if (many && k !== null && j !== k && q !== i) continue
        const w = row[j]
        let op = Math.max(0.04, w)
        if (q !== null) op = i === q ? Math.max(0.15, w) : 0.03
        else if (k !== null) op = j === k ? Math.max(0.15, w) : 0.03
        line(i, j, Math.min(1, op), (q !== null && i === q) || (k !== null && j === k))
      }
    })
  }
}

/** The indices of the k largest values, largest first (ties: the lower index first, as a stable sort gives). */
function topK(w: ArrayLike<number>, k: number): number[] {
  const top: number[] = []
  for (let j = 0; j < w.length; j++) {
    let at = top.length
    while (at > 0 && w[top[at - 1]] < w[j]) at--
    if (at < k) {
      top.splice(at, 0, j)
      if (top.length > k) top.pop()
    }
  }
  return top
}
