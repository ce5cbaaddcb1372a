// The "FlashAttention" view: step tile by tile through the engine's flashTrace (compute/flash.ts) on a small input:
// the tile of scores being computed, each row's m and l updating, O rescaled by exp(m_old − m_new), the n×n matrix
// greyed (never stored), the memory against n², and at the end the largest difference from plain attention.

import type { Ctx, Panel } from '../context'
import type { Engine } from 'attention-playground'
import { h, labelled, setText, tokLabel, viewSection } from '../dom'
import { fmt, grouped } from '../format'
import { engineErrorText } from '../engine-errors'
import { StepPlayer } from './player'
import {
  FLASH_BLOCKS,
  flashInput,
  flashMemory,
  flashModel,
  KERNEL_FIGURE_D,
  kernelTileFloats,
  type FlashModel,
} from '../compute/flash'
import { isTouchScreen, Labels, translate, type T } from '../i18n'
import { MODERN, type ModernKey } from '../i18n/modern'

const num = (x: number, d = 3) => (Number.isFinite(x) ? fmt(x, d) : x > 0 ? '∞' : '−∞')
const vec = (a: Float32Array) => `[${Array.from(a, (x) => fmt(x, 3)).join(', ')}]`

function blockSelect(name: string): HTMLSelectElement {
  const s = h('select', { name })
  for (const b of FLASH_BLOCKS) s.append(h('option', { value: b, text: String(b) }))
  return s
}

export class FlashView implements Panel {
  readonly el: HTMLElement
  private labels = new Labels<ModernKey>()
  private br = blockSelect('flashBlockRows')
  private bc = blockSelect('flashBlockCols')
  private causal = h('input', { type: 'checkbox', name: 'flashCausal' })
  private back = h('button', { type: 'button', name: 'flashBack' })
  private step = h('button', { type: 'button', name: 'flashStep' })
  private play = h('button', { type: 'button', name: 'flashPlay', 'aria-pressed': 'false' })
  private reset = h('button', { type: 'button', name: 'flashReset' })
  private input = h('p', { class: 'hint', 'data-flash': 'input' })
  private counter = h('p', { class: 'flash-counter', role: 'status', 'data-flash': 'counter' })
  private grid = h('div', { class: 'table-scroll', tabindex: 0 })
  private rows = h('div', { class: 'table-scroll', tabindex: 0 })
  private memory = h('p', { class: 'help', 'data-flash': 'memory' })
  private result = h('p', { class: 'flash-result', 'data-flash': 'result' })
  private kernel = h('p', { class: 'hint', 'data-flash': 'kernel' })
  private error = h('p', { class: 'banner decode-error', role: 'alert', hidden: true })
  private model: FlashModel | null = null
  private key = ''
  private k = 0
  private player = new StepPlayer(
    () => (this.model ? { at: this.k, last: this.model.steps.length - 1 } : null),
    (k) => this.go(k),
    () => this.draw(),
  )
  private ctx: Ctx | null = null

  constructor(private engine: Engine) {
    const lb = this.labels.el
    this.br.value = '2'
    this.bc.value = '3'
    this.el = viewSection(
      this.labels,
      { class: 'panel flash', 'data-step': 'flash' },
      { title: 'flashTitle', beyond: 'beyond', lead: 'flashLead' },
      this.input,
      h(
        'div',
        { class: 'decode-ctrl', role: 'group' },
        labelled(this.labels.bind, 'flashBlockRows', this.br),
        labelled(this.labels.bind, 'flashBlockCols', this.bc),
        h('label', { class: 'check' }, this.causal, lb('span', 'flashCausal')),
      ),
      h('div', { class: 'decode-ctrl', role: 'group' }, this.back, this.step, this.play, this.reset, this.counter),
      this.error,
      this.grid,
      lb('h3', 'flashRowsTitle'),
      this.rows,
      this.memory,
      this.result,
      this.kernel,
    )
    for (const c of [this.br, this.bc, this.causal]) c.addEventListener('change', () => this.rebuild(true))
    this.back.addEventListener('click', () => this.go(this.k - 1))
    this.step.addEventListener('click', () => this.go(this.k + 1))
    this.reset.addEventListener('click', () => this.go(0))
    this.play.addEventListener('click', () => this.player.toggle())
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    this.rebuild(false)
  }

  private rebuild(force: boolean): void {
    const ctx = this.ctx
    if (!ctx) return
    const tr = ctx.trace
    const key = JSON.stringify([tr?.tokens, tr?.Q.data.length, tr?.Q.data[0], ctx.state.seed, this.opts()])
    if (force || key !== this.key) {
      this.key = key
      const { br, bc, causal } = this.opts()
      try {
        this.model = flashModel(this.engine, flashInput(tr, ctx.state.seed), br, bc, causal)
        this.error.hidden = true
      } catch (e) {
        this.error.hidden = false
        setText(this.error, engineErrorText(ctx.state.lang, e))
        this.model = null
      }
      this.k = 0
    }
    this.draw()
  }

  private opts() {
    return { br: Number(this.br.value), bc: Number(this.bc.value), causal: this.causal.checked }
  }

  private go(k: number): void {
    if (!this.model) return
    this.k = Math.max(0, Math.min(this.model.steps.length - 1, k))
    this.draw()
  }

  dispose(): void {
    this.player.stop()
  }

  private draw(): void {
    const ctx = this.ctx
    if (!ctx) return
    const tx = translate(MODERN, ctx.state.lang, isTouchScreen())
    this.labels.apply(tx)
    setText(this.back, tx('flashBack'))
    setText(this.step, tx('flashStep'))
    setText(this.reset, tx('flashReset'))
    setText(this.play, tx(this.player.playing ? 'flashPause' : 'flashPlay'))
    this.play.setAttribute('aria-pressed', String(this.player.playing))
    const m = this.model
    if (!m) return
    const last = this.k >= m.steps.length - 1
    this.back.disabled = this.k === 0
    this.step.disabled = last
    this.el.dataset.flashStep = String(this.k)
    this.el.dataset.flashSteps = String(m.steps.length)
    const dvNote = m.input.fromPage ? `, V: ${m.dv}` : ''
    setText(this.input, m.input.fromPage ? tx('flashInputPage', { n: m.n, dv: dvNote }) : tx('flashInputRandom'))
    const s = m.steps[this.k]
    const r0 = s.rowBlock * m.br
    const c0 = s.colBlock * m.bc
    setText(
      this.counter,
      tx('flashCounter', {
        k: this.k + 1,
        total: m.steps.length,
        r0,
        r1: Math.min(m.n, r0 + m.br) - 1,
        c0,
        c1: Math.min(m.nk, c0 + m.bc) - 1,
      }),
    )
    this.grid.replaceChildren(this.gridTable(m, tx))
    this.rows.replaceChildren(this.rowTable(m, tx))
    const mem = flashMemory(m.n, m.nk, m.dv, m.br, m.bc)
    const kb = m.kernelBlockRows
    const kdv = KERNEL_FIGURE_D
    const kernelFloats = grouped(kernelTileFloats(kb, m.kernelBlockCols, kdv))
    setText(
      this.memory,
      tx('flashMemory', {
        n: m.n,
        nk: m.nk,
        plain: mem.plain,
        br: m.br,
        bc: m.bc,
        flash: mem.flash,
        kernelFloats,
        kdv,
      }),
    )
    this.result.dataset.maxDiff = String(m.maxDiff)
    this.result.dataset.done = String(last)
    setText(this.result, last ? tx('flashDone', { diff: m.maxDiff.toExponential(2) }) : tx('flashNotDone'))
    setText(this.kernel, tx('flashKernel', { br: kb, bc: m.kernelBlockCols, half: m.kernelBlockCols / 2 }))
  }

  /** The n×nk grid: the current tile's scaled scores, earlier tiles grey (discarded), later ones blank. */
  private gridTable(m: FlashModel, tx: T<ModernKey>): HTMLElement {
    const cur = m.steps[this.k]
    const done = new Set(m.steps.slice(0, this.k).map((s) => `${s.rowBlock},${s.colBlock}`))
    const toks = m.input.tokens.map(tokLabel)
    const head = h(
      'tr',
      {},
      h('td', {}),
      ...Array.from({ length: m.nk }, (_, j) => h('th', { scope: 'col', text: toks[j] })),
    )
    const body = Array.from({ length: m.n }, (_, i) => {
      const cells = Array.from({ length: m.nk }, (_, j) => {
        const rb = Math.floor(i / m.br)
        const cb = Math.floor(j / m.bc)
        const s = m.scores[i * m.nk + j]
        if (rb === cur.rowBlock && cb === cur.colBlock) {
          const masked = !Number.isFinite(s)
          return h('td', { class: masked ? 'flash-now masked' : 'flash-now', text: masked ? '−∞' : fmt(s, 2) })
        }
        return h('td', { class: done.has(`${rb},${cb}`) ? 'flash-gone' : 'flash-later', text: '' })
      })
      return h('tr', {}, h('th', { scope: 'row', text: toks[i] }), ...cells)
    })
    return h(
      'table',
      { class: 'decode-table flash-grid', 'data-flash': 'grid' },
      h('caption', { text: tx('flashGridCaption') }),
      h('thead', {}, head),
      h('tbody', {}, ...body),
    )
  }

  private rowTable(m: FlashModel, tx: T<ModernKey>): HTMLElement {
    const head = h(
      'tr',
      {},
      ...[tx('flashRow'), 'm_old → m_new', tx('flashFactor'), 'l_old → l_new', tx('flashORow')].map((c) =>
        h('th', { scope: 'col', text: c }),
      ),
    )
    const rows = this.model!.changes[this.k].map((c) =>
      h(
        'tr',
        { 'data-row': c.row },
        h('th', { scope: 'row', text: `${c.row} ${tokLabel(m.input.tokens[c.row])}` }),
        h('td', { 'data-m': c.mNew, text: `${num(c.mOld)} → ${num(c.mNew)}` }),
        h('td', {
          'data-factor': c.factor,
          text: Number.isFinite(c.mOld) ? num(c.factor, 4) : tx('flashFirstTile'),
        }),
        h('td', { 'data-l': c.lNew, text: `${num(c.lOld)} → ${num(c.lNew)}` }),
        h('td', { text: `${vec(c.oOld)} · ${num(c.factor, 3)} + P·V = ${vec(c.oNew)}` }),
      ),
    )
    return h('table', { class: 'decode-table', 'data-flash': 'rows' }, h('thead', {}, head), h('tbody', {}, ...rows))
  }
}
