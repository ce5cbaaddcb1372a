// The long view: the weights (or scores) of a text with thousands of tokens on one canvas with zoom
// and pan. Only the rows on screen are ever computed (LongData.rows): zoomed out, one query row per
// pixel row is sampled; zoomed in, every visible row. A hovered or keyboard-selected cell is computed
// exactly and read out as text, so the numbers stay available without the n×n table.

import type { Ctx, Panel } from '../context'
import { h, setText, tokLabel } from '../dom'
import type { LongData, RowData } from '../compute/long-rows'
import { diverging, viridis } from '../palette'
import { fmt, oneBased } from '../format'

type Kind = 'weights' | 'scores'

const LEFT = 86 // row labels
const TOP = 70 // column labels
const MAX_ZOOM = 40 // px per cell
const LABEL_ZOOM = 12

export class LongPanel implements Panel {
  readonly el: HTMLElement
  private title = h('h3')
  private shape = h('span', { class: 'shape' })
  private help = h('p', { class: 'help' })
  private kindSel = h('select', { name: 'longKind' })
  private zoomIn = h('button', { type: 'button', class: 'btn-small', name: 'zoomIn', text: '+' })
  private zoomOut = h('button', { type: 'button', class: 'btn-small', name: 'zoomOut', text: '−' })
  private fit = h('button', { type: 'button', class: 'btn-small', name: 'zoomFit' })
  private zoomOutLabel = h('span', { class: 'long-zoom' })
  private canvas = h('canvas', {
    class: 'long-canvas',
    tabindex: 0,
    role: 'application',
    'aria-roledescription': 'heatmap',
  })
  private readout = h('p', { class: 'long-readout mono', 'aria-live': 'polite' })
  private legend = h('div', { class: 'hm-legend' })
  private off = document.createElement('canvas')
  private data: LongData | null = null
  private kind: Kind = 'weights'
  private head = 0
  // View: px per cell and the cell at the top-left corner of the plot.
  private s = 1
  private ox = 0
  private oy = 0
  private fitted = false
  private W = 800
  private H = 520
  private cursor: [number, number] = [0, 0]
  private hover: [number, number] | null = null
  private frame = 0
  private drag: { x: number; y: number; ox: number; oy: number } | null = null
  /** The pointers down on the canvas (fingers), and their distance at the last pinch step. */
  private pointers = new Map<number, { x: number; y: number }>()
  private pinch: number | null = null
  private resize: ResizeObserver | null = null
  private t: Ctx['t'] | null = null
  /** Rows computed for the last drawn frame (tests and the benchmark read it). */
  lastRows = 0

  constructor(ctx: Ctx) {
    this.el = h(
      'section',
      { class: 'panel long', 'data-panel': 'long', hidden: true },
      h('header', { class: 'panel-head' }, this.title, this.shape),
      this.help,
      h('div', { class: 'long-bar' }, this.kindSel, this.zoomOut, this.zoomIn, this.fit, this.zoomOutLabel),
      h('div', { class: 'long-wrap' }, this.canvas),
      this.legend,
      this.readout,
    )
    this.kindSel.addEventListener('change', () => {
      this.kind = this.kindSel.value as Kind
      const shown = this.readout.dataset.i
      if (shown !== undefined) this.readCell(Number(shown), Number(this.readout.dataset.j))
      this.request()
    })
    this.zoomIn.addEventListener('click', () => this.zoomAt(2, this.W / 2, this.H / 2))
    this.zoomOut.addEventListener('click', () => this.zoomAt(0.5, this.W / 2, this.H / 2))
    this.fit.addEventListener('click', () => this.fitAll())
    const c = this.canvas
    c.addEventListener(
      'wheel',
      (ev) => {
        ev.preventDefault()
        const [x, y] = this.plotXY(ev)
        this.zoomAt(ev.deltaY < 0 ? 1.25 : 0.8, x, y)
      },
      { passive: false },
    )
    this.bindPointers(ctx)
    c.addEventListener('pointerleave', () => {
      this.hover = null
      this.request()
    })
    c.addEventListener('keydown', (ev) => this.key(ev))
    if (typeof ResizeObserver === 'function') {
      this.resize = new ResizeObserver((entries) => {
        const w = Math.floor(entries[entries.length - 1].contentRect.width)
        if (w > 0 && Math.abs(w - this.W - LEFT) > 2) {
          this.W = Math.max(200, w - LEFT)
          this.sizeCanvas()
          this.request()
        }
      })
      this.resize.observe(this.el)
    }
  }

  /** One finger (or the mouse) drags, two pinch; hovering reads a cell out. */
  private bindPointers(ctx: Ctx): void {
    const c = this.canvas
    // One finger (or the mouse) drags; two fingers pinch: the zoom follows their distance, about their midpoint.
    const startDrag = (x: number, y: number) => {
      this.drag = { x, y, ox: this.ox, oy: this.oy }
    }
    c.addEventListener('pointerdown', (ev) => {
      c.setPointerCapture(ev.pointerId)
      this.pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY })
      if (this.pointers.size === 2) {
        this.drag = null
        this.pinch = this.pinchDistance()
      } else if (this.pointers.size === 1) startDrag(ev.clientX, ev.clientY)
    })
    c.addEventListener('pointermove', (ev) => {
      if (this.pointers.has(ev.pointerId)) this.pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY })
      if (this.pinch !== null && this.pointers.size >= 2) {
        const d = this.pinchDistance()
        const [a, b] = [...this.pointers.values()]
        const [x, y] = this.plotXY({ clientX: (a.x + b.x) / 2, clientY: (a.y + b.y) / 2 })
        if (this.pinch > 0 && d > 0) this.zoomAt(d / this.pinch, x, y)
        this.pinch = d
        return
      }
      if (this.drag) {
        this.ox = this.drag.ox - (ev.clientX - this.drag.x) / this.s
        this.oy = this.drag.oy - (ev.clientY - this.drag.y) / this.s
        this.clamp()
        this.request()
        return
      }
      const [x, y] = this.plotXY(ev)
      const cell = this.cellAt(x, y)
      this.hover = cell
      if (cell) this.readCell(cell[0], cell[1])
      this.request()
      if (cell) ctx.setHighlight(cell[0], cell[1])
    })
    const lift = (ev: PointerEvent) => {
      this.pointers.delete(ev.pointerId)
      if (this.pointers.size < 2) this.pinch = null
      // The finger left on the glass after a pinch goes on dragging from where it is.
      const rest = this.pointers.size === 1 ? [...this.pointers.values()][0] : null
      if (rest) startDrag(rest.x, rest.y)
      else this.drag = null
    }
    c.addEventListener('pointerup', lift)
    c.addEventListener('pointercancel', lift)
  }

  /** Shown only in long mode; `data` null hides it. */
  setData(ctx: Ctx, data: LongData | null): void {
    const changedN = data?.n !== this.data?.n
    this.data = data
    this.el.hidden = !data
    if (!data) return
    this.head = Math.min(ctx.state.head, data.heads - 1)
    if (changedN || !this.fitted) this.fitAll()
    else this.request()
    if (this.hover) this.readCell(...this.hover)
  }

  render(ctx: Ctx): void {
    const { t, state } = ctx
    this.t = t
    setText(this.title, t('longTitle'))
    setText(this.help, t('longHelp'))
    setText(this.fit, t('longFit'))
    this.zoomIn.setAttribute('aria-label', t('longZoomIn'))
    this.zoomOut.setAttribute('aria-label', t('longZoomOut'))
    const opts: Array<[Kind, string]> = [
      ['weights', t('longWeights')],
      ['scores', t('longScores')],
    ]
    if (this.kindSel.options.length !== 2 || this.kindSel.options[0].textContent !== opts[0][1]) {
      this.kindSel.replaceChildren(...opts.map(([v, l]) => h('option', { value: v, text: l })))
    }
    this.kindSel.value = this.kind
    this.kindSel.setAttribute('aria-label', t('longKindLabel'))
    this.canvas.setAttribute('aria-label', `${t('longTitle')}. ${t('longKeys')}`)
    if (this.data) {
      const n = this.data.n
      setText(
        this.shape,
        `${state.heads > 1 ? `${t('headN')} ${oneBased(this.head)}: ` : ''}(${n},${n}) · ${t('longOnDemand')}`,
      )
    }
  }

  dispose(): void {
    this.resize?.disconnect()
    cancelAnimationFrame(this.frame)
  }

  // ---------------------------------------------------------------------------------------------

  private sizeCanvas(): void {
    const dpr = window.devicePixelRatio || 1
    const w = LEFT + this.W,
      hgt = TOP + this.H
    this.canvas.width = Math.round(w * dpr)
    this.canvas.height = Math.round(hgt * dpr)
    this.canvas.style.width = `${w}px`
    this.canvas.style.height = `${hgt}px`
  }

  private fitAll(): void {
    if (!this.data) return
    if (!this.resize || this.W === 800) this.W = Math.max(200, (this.el.clientWidth || 900) - 30 - LEFT)
    this.sizeCanvas()
    this.s = Math.min(this.W, this.H) / this.data.n
    this.ox = 0
    this.oy = 0
    this.fitted = true
    this.request()
  }

  private minZoom(): number {
    return this.data ? Math.min(this.W, this.H) / this.data.n : 1
  }

  private zoomAt(f: number, x: number, y: number): void {
    if (!this.data) return
    const s2 = Math.min(MAX_ZOOM, Math.max(this.minZoom(), this.s * f))
    // Keep the cell under (x, y) where it is.
    this.ox += x / this.s - x / s2
    this.oy += y / this.s - y / s2
    this.s = s2
    this.clamp()
    this.request()
  }

  private clamp(): void {
    if (!this.data) return
    const n = this.data.n
    this.ox = Math.min(Math.max(0, this.ox), Math.max(0, n - this.W / this.s))
    this.oy = Math.min(Math.max(0, this.oy), Math.max(0, n - this.H / this.s))
  }

  private pinchDistance(): number {
    const [a, b] = [...this.pointers.values()]
    return Math.hypot(a.x - b.x, a.y - b.y)
  }

  private plotXY(ev: { clientX: number; clientY: number }): [number, number] {
    const r = this.canvas.getBoundingClientRect()
    return [ev.clientX - r.left - LEFT, ev.clientY - r.top - TOP]
  }

  private cellAt(x: number, y: number): [number, number] | null {
    if (!this.data || x < 0 || y < 0) return null
    const i = Math.floor(this.oy + y / this.s),
      j = Math.floor(this.ox + x / this.s)
    return i < this.data.n && j < this.data.n ? [i, j] : null
  }

  private key(ev: KeyboardEvent): void {
    if (!this.data) return
    const n = this.data.n
    let [i, j] = this.cursor
    const step = ev.shiftKey ? 10 : 1
    switch (ev.key) {
      case 'ArrowUp':
        i -= step
        break
      case 'ArrowDown':
        i += step
        break
      case 'ArrowLeft':
        j -= step
        break
      case 'ArrowRight':
        j += step
        break
      case '+':
      case '=':
        this.zoomAt(2, (j - this.ox + 0.5) * this.s, (i - this.oy + 0.5) * this.s)
        ev.preventDefault()
        return
      case '-':
        this.zoomAt(0.5, (j - this.ox + 0.5) * this.s, (i - this.oy + 0.5) * this.s)
        ev.preventDefault()
        return
      case '0':
        this.fitAll()
        ev.preventDefault()
        return
      default:
        return
    }
    ev.preventDefault()
    i = Math.min(n - 1, Math.max(0, i))
    j = Math.min(n - 1, Math.max(0, j))
    this.cursor = [i, j]
    // Keep the cursor cell in view.
    const vw = this.W / this.s,
      vh = this.H / this.s
    if (j < this.ox) this.ox = j
    if (j + 1 > this.ox + vw) this.ox = j + 1 - vw
    if (i < this.oy) this.oy = i
    if (i + 1 > this.oy + vh) this.oy = i + 1 - vh
    this.clamp()
    this.readCell(i, j)
    this.request()
  }

  /** The exact value of one cell, as text (one engine row). */
  private readCell(i: number, j: number): void {
    if (!this.data || !this.t) return
    const row = this.data.rows(this.head, [i])[0]
    const v = this.value(row, j)
    const toks = this.data.trace.tokens
    this.readout.textContent = `${this.t ? this.t(this.kind === 'weights' ? 'longKindWeights' : 'longKindScores') : this.kind}[${i}, ${j}] = ${fmt(v, 6)}   (${tokLabel(toks[i])} → ${tokLabel(toks[j])})`
    this.readout.dataset.i = String(i)
    this.readout.dataset.j = String(j)
    this.readout.dataset.value = String(v)
  }

  private value(row: RowData, j: number): number {
    return this.kind === 'weights' ? row.weights[j] : row.scores[j]
  }

  private request(): void {
    if (this.frame) return
    this.frame = requestAnimationFrame(() => {
      this.frame = 0
      this.draw()
    })
  }

  /** Draws now (tests and the benchmark call it through the rendered event's timing). */
  draw(): void {
    const d = this.data
    if (!d || this.el.hidden) return
    const n = d.n,
      s = this.s
    const c0 = Math.floor(this.ox),
      c1 = Math.min(n, Math.ceil(this.ox + this.W / s))
    const r0 = Math.floor(this.oy),
      r1 = Math.min(n, Math.ceil(this.oy + this.H / s))
    // Zoomed out: one sampled query row per pixel row; zoomed in: every row on screen.
    const rows: number[] = []
    if (s >= 1) for (let r = r0; r < r1; r++) rows.push(r)
    else
      for (let py = 0; py < Math.min(this.H, (r1 - this.oy) * s); py++)
        rows.push(Math.min(n - 1, Math.floor(this.oy + py / s)))
    const data = d.rows(this.head, rows)
    this.lastRows = rows.length
    const cols = c1 - c0
    let lo = Infinity,
      hi = -Infinity
    for (const row of data) {
      const vals = this.kind === 'weights' ? row.weights : row.scores
      for (let j = c0; j < c1; j++) {
        const v = vals[j]
        if (v < lo && v !== -Infinity) lo = v
        if (v > hi) hi = v
      }
    }
    if (lo === Infinity) {
      lo = 0
      hi = 1
    }
    const weights = this.kind === 'weights'
    const { m, top } = this.paint(data, c0, cols, lo, hi)

    const ctx = this.canvas.getContext('2d')!
    const dpr = window.devicePixelRatio || 1
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    ctx.clearRect(0, 0, LEFT + this.W, TOP + this.H)
    ctx.save()
    ctx.beginPath()
    ctx.rect(LEFT, TOP, this.W, this.H)
    ctx.clip()
    // Shrinking (many keys per pixel) averages them; enlarging keeps cells crisp.
    ctx.imageSmoothingEnabled = false
    const x = LEFT + (c0 - this.ox) * s
    const y = s >= 1 ? TOP + (r0 - this.oy) * s : TOP
    ctx.drawImage(this.off, x, y, s >= 1 ? cols * s : this.off.width, s >= 1 ? rows.length * s : rows.length)
    const mark = (cell: [number, number] | null, color: string) => {
      if (!cell) return
      const [i, j] = cell
      const cx = LEFT + (j - this.ox) * s,
        cy = TOP + (i - this.oy) * s
      ctx.strokeStyle = color
      ctx.lineWidth = 2
      ctx.strokeRect(cx - 1, cy - 1, Math.max(s, 3) + 2, Math.max(s, 3) + 2)
    }
    if (document.activeElement === this.canvas || this.canvas.matches(':focus')) mark(this.cursor, '#000')
    mark(this.hover, '#e8590c')
    ctx.restore()
    this.drawLabels(ctx, r0, r1, c0, c1)
    this.renderLegend(weights ? 0 : -m, weights ? top : m, weights)
    setText(
      this.zoomOutLabel,
      `${s >= 1 ? s.toFixed(0) : s.toFixed(2)} ${this.t ? this.t('longPx') : 'px'}/${this.t ? this.t('longCell') : 'cell'} · ${this.t ? this.t('longRows') : 'rows'} ${r0}–${r1 - 1}`,
    )
  }

  /** The cells on screen into the offscreen canvas, one pixel each; returns the colour scale's ends. */
  private paint(data: RowData[], c0: number, cols: number, lo: number, hi: number): { m: number; top: number } {
    const s = this.s
    const weights = this.kind === 'weights'
    const m = Math.max(Math.abs(lo), Math.abs(hi), 1e-12)
    const top = Math.max(hi, 1e-12)
    // 256 colours looked up per cell (a million cells per frame when zoomed out).
    const lut = new Uint8Array(256 * 3)
    for (let k = 0; k < 256; k++)
      lut.set((weights ? viridis(k / 255) : diverging(k / 127.5 - 1)).map(Math.round), k * 3)
    const index = weights
      ? (v: number) => Math.min(255, Math.max(0, Math.round((v / top) * 255)))
      : (v: number) => Math.min(255, Math.max(0, Math.round((v / m + 1) * 127.5)))

    // Zoomed out, several keys share a pixel column: the largest (for weights) or the largest in
    // magnitude (for scores) stands for them, so a single strong link stays visible.
    const pw = s >= 1 ? cols : Math.max(1, Math.min(cols, Math.round(cols * s)))
    const per = cols / pw
    this.off.width = pw
    this.off.height = data.length
    const g = this.off.getContext('2d')!
    const img = g.createImageData(pw, data.length)
    const px = img.data
    const field = weights ? 'weights' : 'scores'
    data.forEach((row, i) => {
      const vals = row[field]
      for (let x = 0; x < pw; x++) {
        const ja = c0 + Math.floor(x * per),
          jb = Math.max(ja + 1, c0 + Math.floor((x + 1) * per))
        let v = vals[ja]
        for (let j = ja + 1; j < jb; j++) {
          const w = vals[j]
          if (!Number.isFinite(v) || (weights ? w > v : Math.abs(w) > Math.abs(v))) v = w
        }
        const k = (i * pw + x) * 4
        if (Number.isFinite(v)) {
          const c = index(v) * 3
          px[k] = lut[c]
          px[k + 1] = lut[c + 1]
          px[k + 2] = lut[c + 2]
        } else {
          px[k] = 215
          px[k + 1] = 215
          px[k + 2] = 215
        }
        px[k + 3] = 255
      }
    })
    g.putImageData(img, 0, 0)
    return { m, top }
  }

  private drawLabels(ctx: CanvasRenderingContext2D, r0: number, r1: number, c0: number, c1: number): void {
    const d = this.data!
    const s = this.s
    ctx.fillStyle = '#1d2330'
    ctx.font = '11px system-ui, "Noto Sans CJK SC", "WenQuanYi Micro Hei", sans-serif'
    if (s >= LABEL_ZOOM) {
      // Tokens as labels once a cell is big enough to name.
      ctx.textAlign = 'right'
      ctx.textBaseline = 'middle'
      for (let i = r0; i < r1; i++)
        ctx.fillText(cut(tokLabel(d.trace.tokens[i]), 10), LEFT - 6, TOP + (i - this.oy + 0.5) * s)
      ctx.textAlign = 'left'
      for (let j = c0; j < c1; j++) {
        ctx.save()
        ctx.translate(LEFT + (j - this.ox + 0.5) * s, TOP - 6)
        ctx.rotate(-Math.PI / 3)
        ctx.fillText(cut(tokLabel(d.trace.tokens[j]), 9), 0, 0)
        ctx.restore()
      }
    } else {
      // Otherwise positions, about every 60 px.
      const every = niceStep(60 / s)
      ctx.fillStyle = '#5b6475'
      ctx.textAlign = 'right'
      ctx.textBaseline = 'middle'
      for (let i = Math.ceil(r0 / every) * every; i < r1; i += every)
        ctx.fillText(String(i), LEFT - 6, TOP + (i - this.oy) * s)
      ctx.textAlign = 'center'
      ctx.textBaseline = 'bottom'
      for (let j = Math.ceil(c0 / every) * every; j < c1; j += every)
        ctx.fillText(String(j), LEFT + (j - this.ox) * s, TOP - 4)
    }
    ctx.fillStyle = '#5b6475'
    ctx.textAlign = 'left'
    ctx.textBaseline = 'top'
    ctx.fillText(this.t ? `${this.t('longQueries')} ↓   ${this.t('longKeysAxis')} →` : '', 4, 4)
  }

  private renderLegend(lo: number, hi: number, unit: boolean): void {
    const stops = Array.from({ length: 11 }, (_, k) => {
      const [r, g, b] = unit ? viridis(k / 10) : diverging(k / 5 - 1)
      return `rgb(${r | 0},${g | 0},${b | 0}) ${k * 10}%`
    })
    const bar = h('span', { class: 'hm-bar' })
    bar.style.background = `linear-gradient(90deg, ${stops.join(', ')})`
    this.legend.replaceChildren(
      h('span', { text: fmt(lo, 3) }),
      bar,
      h('span', { text: fmt(hi, 3) }),
      h('span', { text: this.t ? this.t('longLegend') : '' }),
    )
  }
}

function cut(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s
}

function niceStep(x: number): number {
  const p = 10 ** Math.floor(Math.log10(Math.max(x, 1)))
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p
  return 10 * p
}
