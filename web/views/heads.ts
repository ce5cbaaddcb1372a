// The "heads" view: MHA, GQA and MQA side by side on the page's sentence (compute/grouped-heads.ts): which query heads share
// which K/V head (one colour per K/V head), each head's weights, the K/V memory of each; then the sliding window with
// sinks and where the tokens outside the window went.

import type { Ctx, Panel } from '../context'
import type { Engine, Tensor } from 'attention-playground'
import { h, labelled, setText, tokLabel, viewSection } from '../dom'
import { fmt, oneBased } from '../format'
import { engineErrorText } from '../engine-errors'
import { headsModel, kvHeadOf, windowCell, type Arrangement, type HeadsModel } from '../compute/grouped-heads'
import { isTouchScreen, Labels, translate, type T } from '../i18n'
import { MODERN, type ModernKey } from '../i18n/modern'

/** One colour per K/V head (up to 4), light enough for dark text. */
const GROUP_COLOURS = ['#f4a261', '#2a9d8f', '#9b5de5', '#e9c46a']
const NAMES: Record<Arrangement['id'], string> = {
  mha: 'MHA (multi-head)',
  gqa: 'GQA (grouped-query)',
  mqa: 'MQA (multi-query)',
}

function weightTable(w: Tensor, head: number, toks: string[], cls: (i: number, j: number) => string = () => '') {
  const n = w.shape[1]
  const body = Array.from({ length: n }, (_, i) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row', text: toks[i] }),
      ...Array.from({ length: n }, (_, j) => {
        const v = w.data[(head * n + i) * n + j]
        const c = cls(i, j)
        const td = h('td', { class: c || undefined, text: c === 'future' ? '' : fmt(v, 2) })
        if (!c || c === 'seen' || c === 'sink')
          td.style.background = `rgba(28, 100, 209, ${(0.5 * Math.max(0, Math.min(1, v))).toFixed(3)})`
        return td
      }),
    ),
  )
  return h(
    'table',
    { class: 'decode-table heads-weights' },
    h('thead', {}, h('tr', {}, h('td', {}), ...toks.map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, ...body),
  )
}

export class HeadsView implements Panel {
  readonly el: HTMLElement
  private labels = new Labels<ModernKey>()
  private sentence = h('p', { class: 'hint', 'data-heads': 'sentence' })
  private cols = h('div', { class: 'heads-cols' })
  // W = 2 with 1 sink: on the default "this is my cat" the last row's "is" slides out (none would with W + sinks ≥ n)
  private windowInput = h('input', { type: 'number', name: 'headsWindow', min: 1, max: 10, value: 2 })
  private sinksInput = h('input', { type: 'number', name: 'headsSinks', min: 0, max: 3, value: 1 })
  private windowBox = h('div', { class: 'table-scroll', tabindex: 0 })
  private outside = h('ul', { class: 'heads-outside', 'data-heads': 'outside' })
  private error = h('p', { class: 'banner decode-error', role: 'alert', hidden: true })
  private model: HeadsModel | null = null
  private key = ''
  private ctx: Ctx | null = null

  constructor(private engine: Engine) {
    const lb = this.labels.el
    const legend = (cls: string, key: ModernKey) => h('span', { class: `heads-legend ${cls}` }, lb('span', key))
    this.el = viewSection(
      this.labels,
      { class: 'panel heads', 'data-step': 'heads' },
      { title: 'headsTitle', beyond: 'beyond', lead: 'headsLead' },
      this.sentence,
      this.error,
      this.cols,
      lb('h3', 'headsWindowTitle'),
      lb('p', 'headsWindowLead', 'help'),
      h(
        'div',
        { class: 'decode-ctrl', role: 'group' },
        labelled(this.labels.bind, 'headsWindow', this.windowInput),
        labelled(this.labels.bind, 'headsSinks', this.sinksInput),
        legend('seen', 'headsLegendSeen'),
        legend('sink', 'headsLegendSink'),
        legend('out', 'headsLegendOut'),
      ),
      this.windowBox,
      this.outside,
    )
    for (const i of [this.windowInput, this.sinksInput]) i.addEventListener('input', () => this.update(true))
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    this.update(false)
  }

  private update(force: boolean): void {
    const ctx = this.ctx
    if (!ctx || !ctx.trace) return
    const w = Math.max(1, Math.floor(Number(this.windowInput.value) || 1))
    const k = Math.max(0, Math.floor(Number(this.sinksInput.value) || 0))
    const key = JSON.stringify([ctx.trace.tokens, ctx.trace.embeddings.data[0], ctx.state.seed, w, k])
    if (force || key !== this.key) {
      this.key = key
      try {
        this.model = headsModel(this.engine, ctx.trace, ctx.state.seed, w, k)
        this.error.hidden = true
      } catch (e) {
        this.error.hidden = false
        setText(this.error, engineErrorText(ctx.state.lang, e))
        this.model = null
      }
    }
    this.draw(translate(MODERN, ctx.state.lang, isTouchScreen()))
  }

  private draw(tx: T<ModernKey>): void {
    this.labels.apply(tx)
    const m = this.model
    if (!m) return
    this.windowInput.max = String(m.n)
    setText(this.sentence, tx('headsSentence', { n: m.n, E: m.E, H: m.H, hd: m.hd }))
    const toks = m.tokens.map(tokLabel)
    this.cols.replaceChildren(...m.arrangements.map((a) => this.column(m, a, toks, tx)))
    const { window: w, sinks: k, weights } = m.window
    this.windowBox.replaceChildren(weightTable(weights, 0, toks, (i, j) => windowCell(i, j, w, k)))
    this.windowBox.dataset.window = String(w)
    this.windowBox.dataset.sinks = String(k)
    const rows = toks.flatMap((tok, i) => {
      const out = toks.filter((_, j) => windowCell(i, j, w, k) === 'out')
      return out.length ? [h('li', { 'data-row': i, text: tx('headsOutside', { i, tok, list: out.join(', ') }) })] : []
    })
    const none = tx('headsNoneOutside', { w, k, n: m.n })
    this.outside.replaceChildren(...(rows.length ? rows : [h('li', { text: none })]))
  }

  private column(m: HeadsModel, a: Arrangement, toks: string[], tx: T<ModernKey>): HTMLElement {
    const heads = Array.from({ length: m.H }, (_, hh) => {
      const g = kvHeadOf(hh, a.kvHeads, m.H)
      const fig = h(
        'figure',
        { class: 'heads-head', 'data-head': hh, 'data-kv': g },
        h('figcaption', {
          text: `${tx('headsWeightsOf', { h: oneBased(hh) })} · ${tx('headsShare', { h: oneBased(hh), g: oneBased(g) })}`,
        }),
        weightTable(a.weights, hh, toks),
      )
      fig.style.borderColor = GROUP_COLOURS[g % GROUP_COLOURS.length]
      return fig
    })
    return h(
      'div',
      { class: 'heads-col', 'data-arrangement': a.id, 'data-kv-heads': a.kvHeads },
      h('h3', { text: NAMES[a.id] }),
      h('p', {
        class: 'help',
        text: `${tx('headsKV')}: ${a.kvHeads} · ${tx('headsMemory')}: 2·${a.kvHeads}·${m.hd} = ${a.perToken}`,
      }),
      ...heads,
    )
  }
}
