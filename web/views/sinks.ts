// The "sinks" view: why a head with nothing to look at puts its weight on the first token, measured on a model of
// the Train tab trained here in small chunks (compute/sinks.ts), and the same head with a sink logit.

import type { Ctx, Panel } from '../context'
import type { Engine, Tensor, Trace, Trainer } from 'attention-playground'
import { h, labelled, setText, tokLabel, viewSection } from '../dom'
import { fmt, oneBased } from '../format'
import { engineErrorText } from '../engine-errors'
import { isTouchScreen, Labels, translate, type T } from '../i18n'
import { MODERN, type ModernKey } from '../i18n/modern'
import {
  SINK_CHUNK,
  SINK_STEPS,
  measureSinks,
  measureTrace,
  sampleMeasure,
  sinkTrainer,
  withSinkLogit,
  type SinkMeasure,
  type TraceSinks,
} from '../compute/sinks'

const SHOW = 10

/** A weight as a whole percent of its row (the table's legend says so): 0.378 → "38", 2.96e-7 → "0". */
function pct(v: number): string {
  return String(Math.round(v * 100))
}

export class SinksView implements Panel {
  readonly el: HTMLElement
  private labels = new Labels<ModernKey>()
  private status = h('p', { class: 'hint', role: 'status', 'data-sinks': 'status' })
  private verdict = h('p', { class: 'help', 'data-sinks': 'verdict' })
  private heads = h('ul', { class: 'sinks-heads', 'data-sinks': 'heads' })
  private logit = h('input', { type: 'range', name: 'sinkLogit', min: -4, max: 6, step: 0.5, value: 0 })
  private logitValue = h('output', {})
  private pos0 = h('p', { class: 'help', 'data-sinks': 'pos0' })
  private table = h('div', { class: 'table-scroll', tabindex: 0 })
  private error = h('p', { class: 'banner decode-error', role: 'alert', hidden: true })
  private tabVerdict = h('p', { class: 'help', 'data-sinks': 'train-verdict' })
  private tabHeads = h('ul', { class: 'sinks-heads', 'data-sinks': 'train-heads' })
  /** The Train tab's model (its last layer), once its "look inside this step" handed it over. */
  private tab: { sinks: TraceSinks; n: number } | null = null
  private trainer: Trainer | null = null
  private measure: SinkMeasure | null = null
  private seed = -1
  private timer: ReturnType<typeof setTimeout> | null = null
  /** Counts start() and dispose() calls: a trainer module that finishes loading after either starts nothing. */
  private starts = 0
  private ctx: Ctx | null = null

  constructor(private engine: Engine) {
    const lb = this.labels.el
    this.el = viewSection(
      this.labels,
      { class: 'panel sinks', 'data-step': 'sinks' },
      { title: 'sinksTitle', beyond: 'beyond', lead: 'sinksLead' },
      this.status,
      this.error,
      this.heads,
      this.verdict,
      h(
        'section',
        { class: 'sinks-train', 'data-sinks': 'train' },
        lb('h3', 'sinksTabTitle'),
        this.tabVerdict,
        this.tabHeads,
      ),
      lb('h3', 'sinksLogitTitle'),
      lb('p', 'sinksLogitLead', 'help'),
      labelled(this.labels.bind, 'sinksLogit', [this.logit, this.logitValue]),
      this.pos0,
      lb('p', 'sinksTableLegend', 'hint'),
      this.table,
    )
    this.logit.addEventListener('input', () => this.draw())
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    if (ctx.state.seed !== this.seed) this.start(ctx.state.seed)
    this.draw()
  }

  /** The Train tab's model, as its "look inside this step" hands over its last layer: measured like the one above. */
  showTrained(trace: Trace): void {
    this.tab = { sinks: measureTrace(trace), n: trace.tokens.length }
    this.draw()
  }

  /** A new model for the seed, trained a chunk at a time so the page stays responsive. */
  private start(seed: number): void {
    this.dispose()
    this.seed = seed
    this.measure = sampleMeasure(seed)
    if (this.measure) return
    const started = this.starts
    // The trainer module is not in the page's engine: loaded on the first visit to this view.
    this.engine.loadTrainer().then(
      () => {
        if (started === this.starts) this.train(seed)
      },
      (e: unknown) => this.fail(e),
    )
  }

  private train(seed: number): void {
    try {
      this.trainer = sinkTrainer(this.engine, seed)
    } catch (e) {
      this.fail(e)
      return
    }
    const tick = () => {
      const tr = this.trainer
      if (!tr || this.seed !== seed) return
      try {
        tr.step(SINK_CHUNK)
        if (tr.steps >= SINK_STEPS) {
          this.measure = measureSinks(tr)
          this.timer = null
        } else {
          this.timer = setTimeout(tick, 0)
        }
      } catch (e) {
        this.fail(e)
      }
      this.draw()
    }
    this.timer = setTimeout(tick, 0)
  }

  private fail(e: unknown): void {
    this.error.hidden = false
    setText(this.error, engineErrorText(this.ctx?.state.lang ?? 'en', e))
  }

  dispose(): void {
    this.starts++ // a trainer module still loading starts nothing afterwards
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.trainer?.dispose()
    this.trainer = null
  }

  private draw(): void {
    const ctx = this.ctx
    if (!ctx) return
    const tx = translate(MODERN, ctx.state.lang, isTouchScreen())
    this.labels.apply(tx)
    this.drawTab(tx)
    const m = this.measure
    this.el.dataset.sinksDone = String(!!m)
    if (!m) {
      setText(this.status, `${tx('sinksTraining', { steps: SINK_STEPS })} ${this.trainer?.steps ?? 0}`)
      return
    }
    setText(this.status, tx('sinksTrain', { steps: SINK_STEPS }))
    this.el.dataset.sinksFound = String(m.found)
    this.heads.replaceChildren(
      ...m.heads.map((hd) =>
        h('li', {
          'data-layer': hd.layer,
          'data-head': hd.head,
          'data-mean': hd.mean,
          text: tx('sinksHeadTitle', { l: oneBased(hd.layer), h: oneBased(hd.head), mean: fmt(hd.mean, 3) }),
        }),
      ),
    )
    const vars = {
      l: oneBased(m.best.layer),
      h: oneBased(m.best.head),
      mean: fmt(m.best.mean, 3),
      uniform: fmt(m.uniform, 3),
      ratio: fmt(m.best.mean / m.uniform, 2),
    }
    setText(this.verdict, tx(m.found ? 'sinksFound' : 'sinksNotFound', vars))
    this.drawSink(m, tx)
  }

  private drawTab(tx: T<ModernKey>): void {
    const t = this.tab
    this.el.dataset.sinksTab = t ? String(t.sinks.found) : 'none'
    if (!t) {
      setText(this.tabVerdict, tx('sinksTabWaiting'))
      this.tabHeads.replaceChildren()
      return
    }
    const { best, uniform, found } = t.sinks
    const vars = {
      n: t.n,
      h: oneBased(best.head),
      mean: fmt(best.mean, 3),
      uniform: fmt(uniform, 3),
      ratio: fmt(best.mean / uniform, 2),
    }
    setText(this.tabVerdict, tx(found ? 'sinksTabFound' : 'sinksTabNotFound', vars))
    this.tabHeads.replaceChildren(
      ...t.sinks.heads.map((hd) =>
        h('li', {
          'data-head': hd.head,
          'data-mean': hd.mean,
          text: tx('sinksTabHead', { h: oneBased(hd.head), mean: fmt(hd.mean, 3) }),
        }),
      ),
    )
  }

  private drawSink(m: SinkMeasure, tx: T<ModernKey>): void {
    const s = Number(this.logit.value)
    setText(this.logitValue, fmt(s, 1))
    const r = withSinkLogit(this.engine, m, s)
    this.pos0.dataset.share = String(r.share)
    setText(this.pos0, tx('sinksPos0', { a: fmt(r.pos0, 3), b: fmt(r.pos0Sink, 3), c: fmt(r.share, 3) }))
    const n = Math.min(SHOW, m.tokens.length)
    const nk = r.weights.shape[1]
    const cell = (w: Tensor, i: number, j: number) => w.data[i * nk + j]
    const toks = m.tokens.map(tokLabel)
    const body = Array.from({ length: n }, (_, i) => {
      let sum = 0
      for (let j = 0; j < nk; j++) sum += cell(r.weights, i, j)
      return h(
        'tr',
        { 'data-row': i },
        h('th', { scope: 'row', text: toks[i] }),
        ...Array.from({ length: n }, (_, j) => {
          const v = cell(r.weights, i, j)
          const td = h('td', { text: j > i ? '' : `${pct(v)} (${pct(cell(r.plain, i, j))})` })
          if (j <= i) td.style.background = `rgba(28, 100, 209, ${(0.5 * v).toFixed(3)})`
          return td
        }),
        h('td', { class: 'sink', 'data-share': r.sinkShare[i], text: pct(r.sinkShare[i]) }),
        h('td', { 'data-sum': sum, text: pct(sum) }),
      )
    })
    this.table.replaceChildren(
      h(
        'table',
        { class: 'decode-table sinks-table', 'data-sinks': 'table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('td', {}),
            ...toks.slice(0, n).map((t) => h('th', { scope: 'col', text: t })),
            h('th', { scope: 'col', text: tx('sinksColumnSink') }),
            h('th', { scope: 'col', text: tx('sinksRowSum') }),
          ),
        ),
        h('tbody', {}, ...body),
      ),
    )
  }
}
