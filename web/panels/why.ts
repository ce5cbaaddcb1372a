// "Why attention": an RNN passing the sentence along word by word (what it knew of "animal" fades at
// every step) against attention's direct one-step links, and the CNN / FC / attention comparison.

import type { Ctx, Panel } from '../context'
import { compareTable, h, viewSection, prefersReducedMotion, svg } from '../dom'
import { Texts, type MsgKey } from '../i18n'
import { TRAINED, trainedLessonWeights } from '../compute/trained'

/** The attention figure: the words' baseline, the arcs' feet above them, the gap between an arc and its label. */
const Y_WORDS = 170
const Y_FOOT = Y_WORDS - 16
const LABEL_GAP = 4
/** An arc's control height for a span of `dx` units: longer links arch higher. */
const arcHeight = (dx: number) => 20 + Math.abs(dx) * 0.32

const WORDS = ['The', 'animal', "didn't", 'cross', 'the', 'street', 'because', 'it', 'was', 'too', 'tired']
const ANIMAL = 1
const IT = 7

export class WhyPanel implements Panel {
  readonly el: HTMLElement
  private texts = new Texts()
  private rnnSvg = svg('svg', { class: 'why-rnn', viewBox: '0 0 880 150', role: 'img' })
  // A group, not an img: it holds the words one picks (an img's content is not interactive).
  private attnSvg = svg('svg', { class: 'why-attn', viewBox: '0 0 880 190', role: 'group' })
  private step = h('input', { type: 'range', min: 0, max: WORDS.length - 1, step: 1, value: IT, name: 'rnnStep' })
  private keep = h('input', { type: 'range', min: 0.3, max: 0.95, step: 0.05, value: 0.7, name: 'rnnKeep' })
  private stepOut = h('output', { class: 'val' })
  private keepOut = h('output', { class: 'val' })
  private left = h('p', { class: 'why-left' })
  private play = h('button', { type: 'button', name: 'rnnPlay' })
  private query = IT
  private timer: ReturnType<typeof setInterval> | null = null
  private t: Ctx['t'] | null = null
  private xs: number[] = []
  /** The small CNN / FC / attention figures, named by their captions. */
  private minis: Array<[SVGElement, MsgKey]> = []
  /** The trained model's attention on the sentence: the Train tab's default run, the pipeline's "it" preset. */
  private real = trainedLessonWeights()
  private source = h('p', { class: 'hint', 'data-why-weights': 'trained' })

  constructor() {
    const tx = this.texts.bind
    let x = 20
    for (const w of WORDS) {
      this.xs.push(x + w.length * 4.3)
      x += w.length * 8.6 + 24
    }
    // The drawing is as tall as its highest arc (the first word to the last) with its thickest stroke and label.
    const top = Math.floor(Y_FOOT - 0.75 * arcHeight(this.xs[this.xs.length - 1] - this.xs[0]) - 7.4 - LABEL_GAP - 14)
    this.attnSvg.setAttribute('viewBox', `0 ${top} 880 ${190 - top}`)
    const cmpTable = this.buildTable()
    this.el = viewSection(
      this.texts,
      { class: 'panel why', 'data-panel': 'why' },
      { title: 'whyTitle', lead: 'whyIntro' },
      tx(h('p', { class: 'help', 'data-why-matters': '' }), 'whyMatters'),
      h(
        'div',
        { class: 'why-cols stack' },
        h(
          'div',
          { class: 'why-col' },
          tx(h('h3'), 'whyRnnTitle'),
          tx(h('p', { class: 'help' }), 'whyRnnBody'),
          // Scrolls sideways on a phone: focusable, so that a keyboard can scroll it too.
          h(
            'div',
            { class: 'why-rnn-wrap', tabindex: 0, role: 'region', 'data-scroll-label': 'whyRnnTitle' },
            this.rnnSvg,
          ),
          h(
            'div',
            { class: 'why-ctrl' },
            h('label', {}, tx(h('span'), 'whyStep'), this.step, this.stepOut),
            h('label', {}, tx(h('span'), 'whyKeep'), this.keep, this.keepOut),
            this.play,
          ),
          this.left,
        ),
        h(
          'div',
          { class: 'why-col' },
          tx(h('h3'), 'whyAttnTitle'),
          tx(h('p', { class: 'help' }), 'whyAttnBody'),
          tx(h('p', { class: 'hint' }), 'whyQuery'),
          h('div', { class: 'why-attn-wrap' }, this.attnSvg),
          this.source,
        ),
      ),
      tx(h('h3'), 'whyCompareTitle'),
      this.diagrams(tx),
      cmpTable,
      tx(h('p', { class: 'lead' }), 'whySummary'),
    )
    this.step.addEventListener('input', () => this.draw())
    this.keep.addEventListener('input', () => this.draw())
    this.play.addEventListener('click', () => this.toggle())
  }

  private buildTable(): HTMLElement {
    const rows: MsgKey[][] = [
      ['whyRowHow', 'whyCnnHow', 'whyFcHow', 'whyAttnHow'],
      ['whyRowWeights', 'whyCnnWeights', 'whyFcWeights', 'whyAttnWeights'],
      ['whyRowFocus', 'whyCnnFocus', 'whyFcFocus', 'whyAttnFocus'],
      ['whyRowGood', 'whyCnnGood', 'whyFcGood', 'whyAttnGood'],
      ['whyRowUse', 'whyCnnUse', 'whyFcUse', 'whyAttnUse'],
    ]
    const cols: MsgKey[] = ['whyColAspect', 'whyColCnn', 'whyColFc', 'whyColAttn']
    return h(
      'div',
      { class: 'table-scroll', tabindex: 0, role: 'region', 'data-scroll-label': 'whyCompareTitle' },
      compareTable(this.texts, cols, rows, { lastClass: 'attn' }),
    )
  }

  private diagrams(tx: <E extends HTMLElement>(e: E, key: MsgKey) => E): HTMLElement {
    const mk = (kind: 'cnn' | 'fc' | 'attn', key: MsgKey) => {
      const s = svg('svg', { viewBox: '0 0 160 110', class: 'mini', role: 'img' })
      this.minis.push([s, key])
      const n = 5
      const x = (i: number) => 20 + i * 30
      const strength = [
        [0.6, 0.2, 0.05, 0.1, 0.05],
        [0.1, 0.5, 0.3, 0.05, 0.05],
        [0.05, 0.3, 0.4, 0.2, 0.05],
        [0.4, 0.05, 0.05, 0.4, 0.1],
        [0.05, 0.05, 0.1, 0.2, 0.6],
      ]
      for (let o = 0; o < n; o++) {
        for (let i = 0; i < n; i++) {
          let w = 0
          if (kind === 'cnn') w = Math.abs(o - i) <= 1 ? 0.5 : 0
          if (kind === 'fc') w = 0.25
          if (kind === 'attn') w = strength[o][i]
          if (!w) continue
          s.append(
            svg('line', {
              x1: x(i),
              y1: 90,
              x2: x(o),
              y2: 20,
              stroke: kind === 'attn' ? '#e8590c' : '#5c7cfa',
              'stroke-width': (0.6 + 5 * w).toFixed(2),
              'stroke-opacity': kind === 'attn' ? (0.25 + w).toFixed(2) : '0.55',
            }),
          )
        }
      }
      for (let i = 0; i < n; i++) {
        s.append(svg('circle', { cx: x(i), cy: 90, r: 6, class: 'node-in' }))
        s.append(svg('circle', { cx: x(i), cy: 20, r: 6, class: 'node-out' }))
      }
      return h('figure', { class: 'mini-fig' }, s, tx(h('figcaption'), key))
    }
    return h(
      'div',
      { class: 'minis' },
      mk('cnn', 'whyDiagramCnn'),
      mk('fc', 'whyDiagramFc'),
      mk('attn', 'whyDiagramAttn'),
    )
  }

  private toggle(): void {
    if (this.timer) {
      this.stop()
      this.draw()
      return
    }
    if (Number(this.step.value) >= WORDS.length - 1) this.step.value = '0'
    const tick = () => {
      const v = Number(this.step.value)
      if (v >= WORDS.length - 1) {
        this.stop()
        this.draw()
        return
      }
      this.step.value = String(v + 1)
      this.draw()
    }
    this.timer = setInterval(tick, prefersReducedMotion() ? 1200 : 700)
    this.draw()
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  render(ctx: Ctx): void {
    this.t = ctx.t
    this.texts.apply(ctx.t)
    this.rnnSvg.setAttribute('aria-label', ctx.t('whyRnnTitle'))
    for (const r of this.el.querySelectorAll<HTMLElement>('[data-scroll-label]'))
      r.setAttribute('aria-label', ctx.t(r.dataset.scrollLabel as MsgKey))
    this.attnSvg.setAttribute('aria-label', ctx.t('whyAttnTitle'))
    for (const [s, key] of this.minis) s.setAttribute('aria-label', ctx.t(key))
    this.draw()
  }

  dispose(): void {
    this.stop()
  }

  /** The trained model's row for the query word. */
  private weightsFor(q: number): number[] {
    const n = this.real.tokens.length
    return Array.from(this.real.weights.subarray(q * n, (q + 1) * n))
  }

  private describeSource(t: NonNullable<WhyPanel['t']>): void {
    this.source.textContent = t('whyTrained', {
      steps: TRAINED.recipe.steps,
      acc: `${(TRAINED.heldOut.accuracy * 100).toFixed(1)}%`,
    })
  }

  private draw(): void {
    const t = this.t
    if (!t) return
    const cur = Number(this.step.value)
    const keep = Number(this.keep.value)
    this.stepOut.textContent = `${cur + 1}/${WORDS.length} · ${WORDS[cur]}`
    this.keepOut.textContent = `${Math.round(keep * 100)}%`
    this.play.textContent = this.timer ? t('whyPause') : t('whyPlay')
    const left = keep ** (IT - ANIMAL)
    this.left.textContent = `${Math.round(keep * 100)}%^${IT - ANIMAL} = ${(left * 100).toFixed(1)}% ${t('whyLeft')}`
    this.drawRnn(cur, keep)
    this.drawAttention()
  }

  /** RNN: words on top, one hidden-state box per word, a bar of how much of "animal" survives. */
  private drawRnn(cur: number, keep: number): void {
    const r = this.rnnSvg
    r.replaceChildren()
    WORDS.forEach((w, i) => {
      const x = this.xs[i]
      const read = i <= cur
      r.append(
        svg('text', {
          x,
          y: 18,
          'text-anchor': 'middle',
          class: 'why-word' + (i === ANIMAL ? ' key' : i === IT ? ' query' : ''),
          text: w,
        }),
      )
      const box = svg('rect', {
        x: x - 18,
        y: 40,
        width: 36,
        height: 60,
        rx: 5,
        class: 'why-box' + (read ? ' read' : ''),
      })
      r.append(box)
      const amount = read && i >= ANIMAL ? keep ** (i - ANIMAL) : 0
      if (amount > 0)
        r.append(
          svg('rect', { x: x - 12, y: 40 + 54 - 48 * amount, width: 24, height: 48 * amount, class: 'why-fill' }),
        )
      r.append(svg('text', { x, y: 118, 'text-anchor': 'middle', class: 'why-h', text: `h${i + 1}` }))
      if (read && i >= ANIMAL)
        r.append(
          svg('text', { x, y: 138, 'text-anchor': 'middle', class: 'why-pct', text: `${Math.round(amount * 100)}%` }),
        )
      if (i < WORDS.length - 1) {
        const nx = this.xs[i + 1]
        r.append(svg('line', { x1: x + 18, y1: 70, x2: nx - 20, y2: 70, class: 'why-arrow' + (i < cur ? ' on' : '') }))
      }
      r.append(svg('line', { x1: x, y1: 24, x2: x, y2: 38, class: 'why-in' + (read ? ' on' : '') }))
    })
  }

  /** Attention: arcs from the query word straight to every word, width by weight; a word picks the query. */
  private drawAttention(): void {
    const a = this.attnSvg
    a.replaceChildren()
    const weights = this.weightsFor(this.query)
    if (this.t) this.describeSource(this.t)
    WORDS.forEach((_, j) => {
      if (j === this.query) return
      const x1 = this.xs[this.query],
        x2 = this.xs[j]
      const hgt = arcHeight(x2 - x1)
      const d = `M ${x1} ${Y_FOOT} C ${x1} ${Y_FOOT - hgt}, ${x2} ${Y_FOOT - hgt}, ${x2} ${Y_FOOT}`
      const width = 0.8 + 14 * weights[j]
      a.append(
        svg('path', {
          d,
          class: 'why-arc',
          'data-key': j,
          'data-weight': weights[j].toFixed(4),
          'stroke-width': width.toFixed(2),
          'stroke-opacity': (0.25 + weights[j]).toFixed(2),
        }),
      )
      // The label sits just above the arc's top, clear of its stroke (a cubic with both controls at -hgt peaks at
      // 3/4 of it; half the stroke is above that line).
      a.append(
        svg('text', {
          x: (x1 + x2) / 2,
          y: Y_FOOT - hgt * 0.75 - width / 2 - LABEL_GAP,
          'text-anchor': 'middle',
          class: 'why-wt',
          text: weights[j] >= 0.08 ? weights[j].toFixed(2) : '',
        }),
      )
    })
    WORDS.forEach((w, j) => {
      const e = svg('text', {
        x: this.xs[j],
        y: Y_WORDS,
        'text-anchor': 'middle',
        class: 'why-word pick' + (j === this.query ? ' query' : ''),
        text: w,
      })
      // The target: the word and a transparent box around it, as wide as the gap to its neighbours and
      // tall (44 units), so that at a phone's scale of the drawing it is still 24 × 24 CSS px or more (WCAG 2.2).
      const half =
        Math.min(this.xs[j] - (this.xs[j - 1] ?? this.xs[j] - 40), (this.xs[j + 1] ?? this.xs[j] + 40) - this.xs[j]) / 2
      const hit = svg('g', { class: 'why-pick', tabindex: 0, role: 'button', 'aria-label': w })
      hit.append(
        svg('rect', { x: this.xs[j] - half, y: Y_WORDS - 28, width: 2 * half, height: 44, fill: 'transparent' }),
        e,
      )
      const pick = () => {
        this.query = j
        this.draw()
      }
      hit.addEventListener('click', pick)
      hit.addEventListener('keydown', (ev) => {
        if ((ev as KeyboardEvent).key === 'Enter' || (ev as KeyboardEvent).key === ' ') {
          ev.preventDefault()
          pick()
        }
      })
      a.append(hit)
    })
  }
}
