// The "Why ÷√d_k" view: measures (compute/scaling.ts) one d_k per task, so the curves grow live, and
// draws four small charts with a table of the same numbers as their text alternative.

import { chartFrame } from '../chart-frame'
import type { Ctx, Panel } from '../context'
import type { Engine } from 'attention-playground'
import { h, setText, svg, viewSection } from '../dom'
import { fmt } from '../format'
import { Texts, type MsgKey } from '../i18n'
import { SCALING_DKS, measureScaling, type ScalingPoint, type ScalingSide } from '../compute/scaling'

const N = 32
// 300 units wide, drawn at least 280 px wide (.scaling-grid), so that its 13-unit text is 12 px or more; the x axis's
// ticks and its title "d_k" (centred below them) on two lines of the bottom margin.
const { W, H, L, R, T, B } = chartFrame(300, 190, [26, 12, 40, 46])

type Metric = { key: keyof ScalingSide; title: MsgKey; log?: boolean; max?: number }
const METRICS: Metric[] = [
  { key: 'variance', title: 'scalingVariance', log: true },
  { key: 'maxWeight', title: 'scalingMax', max: 1 },
  { key: 'entropy', title: 'scalingEntropy', max: Math.log(N) },
  { key: 'gradient', title: 'scalingGradient' },
]

export class ScalingView implements Panel {
  readonly el: HTMLElement
  private texts = new Texts()
  private charts = h('div', { class: 'scaling-grid' })
  private table = h('div', { class: 'table-scroll', tabindex: 0 })
  private status = h('p', { class: 'hint', role: 'status' })
  private points: ScalingPoint[] = []
  private seed = -1
  private timer: ReturnType<typeof setTimeout> | null = null
  private ctx: Ctx | null = null

  constructor(private engine: Engine) {
    const tx = this.texts.bind
    this.el = viewSection(
      this.texts,
      { class: 'panel scaling', 'data-step': 'scaling' },
      { title: 'scalingTitle', lead: 'scalingIntro' },
      h(
        'p',
        { class: 'scaling-legend' },
        tx(h('span', { class: 'raw' }), 'scalingRaw'),
        tx(h('span', { class: 'scaled' }), 'scalingScaled'),
      ),
      this.status,
      this.charts,
      tx(h('p', { class: 'help' }), 'scalingTake'),
      this.table,
    )
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    this.texts.apply(ctx.t)
    // The page's seed draws the samples: a new seed measures again.
    if (ctx.state.seed !== this.seed) {
      this.seed = ctx.state.seed
      this.points = []
      this.measureNext(0)
    }
    this.draw()
  }

  private measureNext(i: number): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (i >= SCALING_DKS.length) {
      this.draw()
      return
    }
    const seed = this.seed
    this.timer = setTimeout(() => {
      if (seed !== this.seed) return
      try {
        this.points.push(...measureScaling(this.engine, [SCALING_DKS[i]], { n: N, seed: seed * 31 + i }))
      } catch (e) {
        setText(this.status, e instanceof Error ? e.message : String(e))
        return
      }
      this.draw()
      this.measureNext(i + 1)
    }, 0)
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private draw(): void {
    const ctx = this.ctx
    if (!ctx) return
    const t = ctx.t
    const done = this.points.length === SCALING_DKS.length
    this.el.dataset.scalingDone = String(done)
    const last = this.points[this.points.length - 1]
    setText(this.status, done ? t('scalingDone') : `${t('scalingMeasuring')} d_k = ${last ? last.dk : 1} …`)
    this.charts.replaceChildren(...METRICS.map((m) => this.chart(m, t)))
    const cols: MsgKey[] = ['scalingVariance', 'scalingMax', 'scalingEntropy', 'scalingGradient']
    const pair = (a: number, b: number, d: number) => `${fmt(a, d)} / ${fmt(b, d)}`
    this.table.replaceChildren(
      h(
        'table',
        { class: 'compare', 'data-scaling': 'table' },
        h('caption', { text: `${t('scalingRaw')} / ${t('scalingScaled')}` }),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col', text: 'd_k' }),
            ...cols.map((c) => h('th', { scope: 'col', text: t(c) })),
          ),
        ),
        h(
          'tbody',
          {},
          ...this.points.map((p) =>
            h(
              'tr',
              { 'data-dk': p.dk },
              h('th', { scope: 'row', text: String(p.dk) }),
              h('td', {
                'data-raw': p.raw.variance,
                'data-scaled': p.scaled.variance,
                text: pair(p.raw.variance, p.scaled.variance, 3),
              }),
              h('td', { text: pair(p.raw.maxWeight, p.scaled.maxWeight, 3) }),
              h('td', { text: pair(p.raw.entropy, p.scaled.entropy, 3) }),
              h('td', { text: pair(p.raw.gradient, p.scaled.gradient, 4) }),
            ),
          ),
        ),
      ),
    )
  }

  private chart(m: Metric, t: Ctx['t']): HTMLElement {
    const s = svg('svg', { class: 'scaling-plot', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': t(m.title) })
    const pts = this.points
    const ys = pts.flatMap((p) => [p.raw[m.key], p.scaled[m.key]])
    const tr = (v: number) => (m.log ? Math.log2(Math.max(v, 1e-3)) : v)
    const yMax = m.log ? Math.log2(1024) : (m.max ?? Math.max(1e-6, ...ys) * 1.1)
    const yMin = m.log ? -1 : 0
    const x = (dk: number) => L + (Math.log2(dk) / 9) * (W - L - R)
    const y = (v: number) => H - B - ((tr(v) - yMin) / (yMax - yMin)) * (H - T - B)
    s.append(svg('text', { x: L, y: 16, text: t(m.title) }))
    s.append(
      svg('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, class: 'axis' }),
      svg('line', { x1: L, y1: T, x2: L, y2: H - B, class: 'axis' }),
    )
    for (const dk of [1, 8, 64, 512])
      s.append(svg('text', { x: x(dk), y: H - B + 16, 'text-anchor': 'middle', text: String(dk) }))
    s.append(svg('text', { x: (L + W - R) / 2, y: H - 5, 'text-anchor': 'middle', text: 'd_k' }))
    const ticks = m.log ? [1, 32, 1024] : [0, yMax / 2, yMax]
    for (const v of ticks) {
      const yy = m.log ? y(v) : H - B - ((v - yMin) / (yMax - yMin)) * (H - T - B)
      s.append(
        svg('line', { x1: L, y1: yy, x2: W - R, y2: yy, class: 'grid' }),
        svg('text', { x: L - 4, y: yy + 4, 'text-anchor': 'end', text: m.log ? String(v) : fmt(v, 2) }),
      )
    }
    for (const side of ['raw', 'scaled'] as const) {
      if (!pts.length) break
      const d = pts.map((p, i) => `${i ? 'L' : 'M'} ${x(p.dk).toFixed(1)} ${y(p[side][m.key]).toFixed(1)}`).join(' ')
      s.append(svg('path', { d, class: side }))
    }
    return h('figure', { class: 'scaling-fig', 'data-metric': m.key }, s)
  }
}
