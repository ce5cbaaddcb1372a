// One matrix drawn as a heatmap on a canvas (fast for 128×128 and more), operable by mouse and
// keyboard, with its numbers on hover, a live-region readout, and a table as its text alternative.

import { setText, watchSeen } from './dom'
import { fmt, parseShown } from './format'
import { rgbCss, scaleFor, textOn, type ColorScale } from './palette'
import type { Translate } from './i18n'
import { LONG_TOKENS } from './compute/long-rows'

export type Axis = 'q' | 'k' | null

export interface HeatmapOptions {
  name: string
  rowAxis: Axis
  colAxis: Axis
  /** Values are probabilities: viridis from 0 to the maximum. */
  unit?: boolean
  editable?: boolean
  selectable?: boolean
  /** Column labels are tokens even though the columns are not linked to a token axis. */
  tokenCols?: boolean
  maxCell?: number
  t: Translate
  onHover?: (i: number | null, j: number | null) => void
  onActivate?: (i: number, j: number) => void
  onEdit?: (i: number, j: number, v: number) => void
}

const LABEL_FONT = '11px system-ui, "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif'
/** Token labels are all drawn up to this many tokens a side (beyond it, every n-th, and the table has them all). */
const FULL_LABELS = 64
/** The smallest cell that still holds a label of LABEL_FONT (11 px) beside or above it. */
const LABEL_CELL = 12
const TABLE_MAX = 200
const CELL_FONT = '10px ui-monospace, "DejaVu Sans Mono", monospace'
const GREY: [number, number, number] = [215, 215, 215]
/** .hm-scroll's max-height (styles.ts): how much of a tall canvas shows at once. */
const SCROLL_MAX_H = 560
/** Numbers are written this far (px) beyond the scroll box's window, ahead of scrolling. */
const TEXT_MARGIN = 300

// Text is measured on a detached canvas: setting a font on a canvas in the document makes the
// browser bring the whole page's style up to date first.
let measurer: CanvasRenderingContext2D | null = null
function measureCtx(): CanvasRenderingContext2D {
  measurer ??= document.createElement('canvas').getContext('2d')!
  return measurer
}

/**
 * Heatmaps waiting to be drawn. A render changes many panels' text and nodes; a canvas that sets its font
 * makes the browser bring the page's style up to date, so drawing in the middle of those changes would
 * recompute style twice. The playground draws them all at the end of its render (flushHeatmaps); a
 * microtask does it for everyone else.
 */
const queued = new Set<Heatmap>()
let flushQueued = false

/** Draws every heatmap whose picture is out of date (at once: before reading or exporting a canvas). */
export function flushHeatmaps(): void {
  flushQueued = false
  for (const m of queued) {
    queued.delete(m)
    m.drawNow()
  }
}

/** Draws every heatmap inside `root` completely, seen or not (a panel's PNG shows its whole matrix). */
export function completeHeatmaps(root: Element): void {
  flushHeatmaps()
  for (const m of live) if (root.contains(m.el)) m.complete()
}

/** Every live heatmap, so that printing can draw those that were never scrolled into view. */
const live = new Set<Heatmap>()
let printHooked = false

/**
 * Printing (or saving as PDF) shows the whole page at once: `beforeprint` and the print media query draw
 * every heatmap still waiting to scroll into view (or the printout would have empty panels) and its table.
 */
function hookPrint(): void {
  if (printHooked || typeof window === 'undefined') return
  printHooked = true
  const drawAll = () => {
    for (const m of live) m.prepareForPrint()
  }
  window.addEventListener('beforeprint', drawAll)
  window.matchMedia?.('print').addEventListener?.('change', (e) => {
    if (e.matches) drawAll()
  })
}

export class Heatmap {
  readonly el: HTMLElement
  private canvas: HTMLCanvasElement
  private tip: HTMLElement
  private live: HTMLElement
  private legend: HTMLElement
  private details: HTMLDetailsElement
  private tableWrap: HTMLElement
  private editor: HTMLInputElement
  private data: Float32Array = new Float32Array(0)
  private rows = 0
  private cols = 0
  private rowLabels: string[] = []
  private colLabels: string[] = []
  private scale: ColorScale = scaleFor([])
  private cw = 20
  private ch = 20
  private labelW = 0
  private labelH = 0
  private hl: { q: number | null; k: number | null } = { q: null, k: null }
  private selected: [number, number] | null = null
  private cursor: [number, number] = [0, 0]
  private hover: [number, number] | null = null
  private cells: HTMLCanvasElement | null = null
  private offCtx: CanvasRenderingContext2D | null = null
  private img: ImageData | null = null
  /** Which rows have their numbers written (drawCellTexts), and the scroll box's offset. */
  private textRows = new Uint8Array(0)
  private scrollTop = 0
  /** The data changed since the cells were painted (painted when drawn: off-screen heatmaps wait). */
  private cellsStale = false
  private opts: HeatmapOptions
  // The container's width, kept by a ResizeObserver so updates never force a synchronous layout.
  private avail = 0
  private resize: ResizeObserver | null = null
  private focused = false
  private langSet = false
  private legendKey = ''
  private gradient = ''
  private readonly maskedKey = document.createElement('span')
  private upright = false
  private groups = 1
  private activeGroup = 0
  // Off-screen heatmaps are drawn when they scroll into view, not on every update.
  private visible = true
  private dirty = false
  private seen: IntersectionObserver | null = null

  constructor(opts: HeatmapOptions) {
    this.opts = opts
    live.add(this)
    hookPrint()
    const doc = document
    this.el = doc.createElement('div')
    this.el.className = 'hm'
    const scroll = doc.createElement('div')
    scroll.className = 'hm-scroll'
    this.canvas = doc.createElement('canvas')
    this.canvas.tabIndex = 0
    // 'application': screen readers pass the arrow keys through to the heatmap's own navigation.
    this.canvas.setAttribute('role', 'application')
    this.canvas.setAttribute('aria-roledescription', 'heatmap')
    this.canvas.className = 'hm-canvas'
    scroll.append(this.canvas)
    this.tip = doc.createElement('div')
    this.tip.className = 'hm-tip'
    this.tip.hidden = true
    this.editor = doc.createElement('input')
    this.editor.className = 'hm-editor'
    this.editor.type = 'text'
    this.editor.inputMode = 'decimal'
    this.editor.hidden = true
    scroll.append(this.tip, this.editor)
    scroll.addEventListener(
      'scroll',
      () => {
        this.scrollTop = scroll.scrollTop
        this.fillTexts()
      },
      { passive: true },
    )
    this.legend = doc.createElement('div')
    this.legend.className = 'hm-legend'
    this.live = doc.createElement('p')
    this.live.className = 'sr-only'
    this.live.setAttribute('aria-live', 'polite')
    this.details = doc.createElement('details')
    this.details.className = 'hm-alt'
    const summary = doc.createElement('summary')
    this.details.append(summary)
    this.tableWrap = doc.createElement('div')
    this.tableWrap.className = 'hm-table-wrap'
    this.details.append(this.tableWrap)
    this.details.addEventListener('toggle', () => {
      if (this.details.open) this.buildTable()
    })
    this.el.append(scroll, this.legend, this.live, this.details)
    this.bindEvents()
    this.setLang(opts.t)
    if (typeof ResizeObserver === 'function') {
      this.resize = new ResizeObserver((entries) => {
        const w = Math.floor(entries[entries.length - 1].contentRect.width)
        if (w <= 0 || Math.abs(w - this.avail) < 2) return
        const first = this.avail === 0
        this.avail = w
        if (!first && this.rows) {
          this.layout()
          this.draw()
        }
      })
      this.resize.observe(this.el)
    }
    this.seen = watchSeen(this.canvas, (near) => {
      this.visible = near
      if (near && this.dirty) this.drawNow()
    })
    if (this.seen) this.visible = false
  }

  dispose(): void {
    this.resize?.disconnect()
    this.seen?.disconnect()
    live.delete(this)
    queued.delete(this)
  }

  /**
   * For printing: draws now if an update is waiting, visible or not, and builds the table of numbers (the
   * print stylesheet shows it: a canvas prints as a picture, the table as text).
   */
  prepareForPrint(): void {
    if (this.rows && !this.details.open) this.buildTable()
    this.complete()
  }

  /** Draws the whole picture now, every number included, visible or not (printing, exporting). */
  complete(): void {
    if (!this.dirty) {
      this.fillTexts(true)
      return
    }
    const was = this.visible
    this.visible = true
    this.drawNow(true)
    this.visible = was
  }

  setLang(t: Translate): void {
    if (this.opts.t === t && this.langSet) return
    this.langSet = true
    this.opts.t = t
    this.details.querySelector('summary')!.textContent = t('showNumbers')
    this.canvas.setAttribute('aria-label', `${this.opts.name}. ${t('keyboardHelp')}`)
    this.editor.setAttribute('aria-label', t('editCell'))
    this.editor.placeholder = t('editCell')
    this.renderLegend()
  }

  setData(data: Float32Array, rows: number, cols: number, rowLabels: string[], colLabels: string[]): void {
    this.data = data
    this.rows = rows
    this.cols = cols
    this.rowLabels = rowLabels
    this.colLabels = colLabels
    this.scale = scaleFor(data, this.opts.unit)
    if (this.selected && (this.selected[0] >= rows || this.selected[1] >= cols)) this.selected = null
    this.cursor = [Math.min(this.cursor[0], Math.max(rows - 1, 0)), Math.min(this.cursor[1], Math.max(cols - 1, 0))]
    this.layout()
    this.cellsStale = true
    this.draw()
    this.renderLegend()
    if (this.details.open) this.buildTable()
  }

  value(i: number, j: number): number {
    return this.data[i * this.cols + j]
  }

  /** Column blocks of the heads (Q, K, V with heads > 1): drawn as separators, the shown head framed. */
  setGroups(groups: number, active: number): void {
    if (groups === this.groups && active === this.activeGroup) return
    this.groups = groups
    this.activeGroup = active
    this.draw()
  }

  setHighlight(q: number | null, k: number | null): void {
    if (q === this.hl.q && k === this.hl.k) return
    this.hl = { q, k }
    this.draw()
  }

  setSelected(cell: [number, number] | null): void {
    const a = this.selected
    if (a === cell || (a && cell && a[0] === cell[0] && a[1] === cell[1])) return
    this.selected = cell
    this.draw()
  }

  private layout(): void {
    const ctx = measureCtx()
    ctx.font = LABEL_FONT
    if (!this.avail) this.avail = this.el.clientWidth || this.el.parentElement?.clientWidth || 600
    const avail = Math.max(160, this.avail - 4)
    let lw = 0
    // Thousands of labels: a sample of ~400 sets the width (longer ones are cut with an ellipsis anyway).
    const every = Math.max(1, Math.floor(this.rowLabels.length / 400))
    for (let i = 0; i < this.rowLabels.length; i += every) lw = Math.max(lw, labelWidth(ctx, this.rowLabels[i]))
    // Measured in the regular weight; a highlighted label is bold, about 12 % wider, and must still fit.
    this.labelW = Math.ceil(Math.min(lw * 1.12, 96)) + 8
    const maxCell = this.opts.maxCell ?? 46
    // Long texts: cells shrink (down to 1 px) so a canvas never grows past ~1600 px a side.
    const minCell = Math.max(1, Math.min(5, Math.floor(1600 / Math.max(this.rows, this.cols, 1))))
    // Up to FULL_LABELS tokens a side every token's label shows (cells at least LABEL_CELL px, the heatmap
    // scrolling inside its panel when that is wider than the screen).
    const tokenCols = this.colsAreTokens() && this.cols <= FULL_LABELS ? LABEL_CELL : minCell
    this.cw = Math.max(tokenCols, Math.min(maxCell, Math.floor((avail - this.labelW) / Math.max(this.cols, 1))))
    this.ch = Math.max(this.cw, this.rows > FULL_LABELS ? Math.min(6, minCell) : this.rows > 48 ? LABEL_CELL : 16)
    if (this.ch > 34 && this.cols > 8) this.ch = 34
    // Hundreds or thousands of rows (a long text): squeezed into ~640 px, several rows to a pixel,
    // instead of a canvas tens of thousands of pixels tall that the browser must allocate and paint.
    if (this.rows > LONG_TOKENS) this.ch = Math.min(this.ch, 640 / this.rows)
    let cl = 0
    for (const l of this.colLabels) cl = Math.max(cl, labelWidth(ctx, l))
    // Short labels (one CJK character, 'is') sit upright; longer ones are turned to fit.
    this.upright = cl <= this.cw - 4
    this.labelH = this.colsAreTokens() && !this.upright ? Math.ceil(Math.min(cl, 80)) + 8 : 16
    const w = this.labelW + this.cols * this.cw + 2
    const h = this.labelH + this.rows * this.ch + 2
    const dpr = window.devicePixelRatio || 1
    const W = Math.ceil(w * dpr),
      H = Math.ceil(h * dpr)
    // Resizing a canvas reallocates it: only when the size really changed.
    if (this.canvas.width !== W || this.canvas.height !== H) {
      this.canvas.width = W
      this.canvas.height = H
      this.canvas.style.width = `${w}px`
      this.canvas.style.height = `${h}px`
    }
  }

  private colsAreTokens(): boolean {
    return this.opts.colAxis !== null || !!this.opts.tokenCols
  }

  /** One pixel per cell in an offscreen canvas; drawn scaled, so redraws on hover stay cheap. */
  private paintCells(): void {
    this.cellsStale = false
    const { rows, cols } = this
    if (rows === 0 || cols === 0) {
      this.cells = null
      return
    }
    // One offscreen canvas per heatmap, reused: creating a canvas and its context per update is slow.
    const off = this.cells ?? document.createElement('canvas')
    if (off.width !== cols) off.width = cols
    if (off.height !== rows) off.height = rows
    this.offCtx ??= off.getContext('2d')!
    const ctx = this.offCtx
    if (this.img?.width !== cols || this.img.height !== rows) this.img = ctx.createImageData(cols, rows)
    const img = this.img
    const px = img.data
    for (let k = 0; k < rows * cols; k++) {
      const v = this.data[k]
      if (Number.isFinite(v)) this.scale.paint(v, px, k * 4)
      else if (Number.isNaN(v)) {
        px[k * 4] = 255
        px[k * 4 + 1] = 0
        px[k * 4 + 2] = 255
      } else {
        px[k * 4] = px[k * 4 + 1] = px[k * 4 + 2] = 215
      }
      px[k * 4 + 3] = 255
    }
    ctx.putImageData(img, 0, 0)
    this.cells = off
  }

  /** Asks for a redraw: at the next flush, or when the heatmap scrolls into view. */
  private draw(): void {
    if (!this.visible) {
      this.dirty = true
      return
    }
    queued.add(this)
    if (flushQueued) return
    flushQueued = true
    queueMicrotask(flushHeatmaps)
  }

  /** Draws now (a visible heatmap; an off-screen one waits until it scrolls into view); `all`: every number too. */
  drawNow(all = false): void {
    if (!this.visible) {
      this.dirty = true
      return
    }
    this.dirty = false
    queued.delete(this)
    if (this.cellsStale) this.paintCells()
    const ctx = this.canvas.getContext('2d')!
    const dpr = window.devicePixelRatio || 1
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height)
    const { rows, cols, cw, ch, labelW: x0, labelH: y0 } = this
    if (!this.cells) return
    // Rows thinner than a pixel are averaged; otherwise cells stay crisp.
    ctx.imageSmoothingEnabled = ch < 1
    ctx.drawImage(this.cells, x0, y0, cols * cw, rows * ch)

    // Hatch masked cells so "masked" never depends on colour alone (where cells are big enough to see it).
    ctx.strokeStyle = 'rgba(90,90,90,0.55)'
    ctx.lineWidth = 1
    for (let i = 0; i < (cw >= 4 ? rows : 0); i++) {
      for (let j = 0; j < cols; j++) {
        if (this.data[i * cols + j] !== -Infinity) continue
        const x = x0 + j * cw,
          y = y0 + i * ch
        ctx.save()
        ctx.beginPath()
        ctx.rect(x, y, cw, ch)
        ctx.clip()
        ctx.beginPath()
        for (let d = -ch; d < cw; d += 5) {
          ctx.moveTo(x + d, y + ch)
          ctx.lineTo(x + d + ch, y)
        }
        ctx.stroke()
        ctx.restore()
      }
    }
    if (cw >= 8 && ch >= 8) {
      ctx.strokeStyle = 'rgba(255,255,255,0.7)'
      ctx.beginPath()
      for (let j = 1; j < cols; j++) {
        ctx.moveTo(x0 + j * cw + 0.5, y0)
        ctx.lineTo(x0 + j * cw + 0.5, y0 + rows * ch)
      }
      for (let i = 1; i < rows; i++) {
        ctx.moveTo(x0, y0 + i * ch + 0.5)
        ctx.lineTo(x0 + cols * cw, y0 + i * ch + 0.5)
      }
      ctx.stroke()
    }
    if (cw >= 40 && ch >= 18) this.drawCellTexts(ctx, all)
    this.drawLabels(ctx)
    this.drawOverlays(ctx)
  }

  /**
   * The cells' numbers of the rows in or near the scroll box's window (a tall matrix shows a few dozen of
   * its rows at a time); the others are written as they scroll near (fillTexts), or for print and export.
   */
  private drawCellTexts(ctx: CanvasRenderingContext2D, all: boolean): void {
    this.textRows = new Uint8Array(this.rows)
    const [r0, r1] = all ? [0, this.rows] : this.rowWindow()
    this.drawTextRows(ctx, r0, r1)
  }

  /** The rows of the canvas within TEXT_MARGIN px of what the scroll box shows. */
  private rowWindow(): [number, number] {
    const top = this.scrollTop - this.labelH
    const from = Math.floor((top - TEXT_MARGIN) / this.ch)
    const to = Math.ceil((top + SCROLL_MAX_H + TEXT_MARGIN) / this.ch)
    return [Math.max(0, from), Math.min(this.rows, to)]
  }

  /** Writes the numbers of rows r0..r1 not yet written: the cells of one text colour in one pass. */
  private drawTextRows(ctx: CanvasRenderingContext2D, r0: number, r1: number): void {
    const { cols, cw, ch, labelW: x0, labelH: y0 } = this
    ctx.font = CELL_FONT
    ctx.textAlign = 'center'
    ctx.textBaseline = 'middle'
    const light: number[] = []
    ctx.fillStyle = '#111'
    for (let i = r0; i < r1; i++) {
      if (this.textRows[i]) continue
      this.textRows[i] = 1
      for (let k = i * cols; k < (i + 1) * cols; k++) {
        const v = this.data[k]
        if (textOn(Number.isFinite(v) ? this.scale.color(v) : GREY) !== '#111') light.push(k)
        else ctx.fillText(cellText(v), x0 + (k - i * cols) * cw + cw / 2, y0 + i * ch + ch / 2 + 0.5)
      }
    }
    ctx.fillStyle = '#fff'
    for (const k of light) {
      const i = (k / cols) | 0,
        j = k - i * cols
      ctx.fillText(cellText(this.data[k]), x0 + j * cw + cw / 2, y0 + i * ch + ch / 2 + 0.5)
    }
  }

  /** Writes the numbers missing near the scroll box's window (or all of them), over the drawn picture. */
  private fillTexts(all = false): void {
    if (this.dirty || !this.cells || this.textRows.length !== this.rows || !(this.cw >= 40 && this.ch >= 18)) return
    const [r0, r1] = all ? [0, this.rows] : this.rowWindow()
    let missing = false
    for (let i = r0; i < r1 && !missing; i++) missing = !this.textRows[i]
    if (!missing) return
    const ctx = this.canvas.getContext('2d')!
    const dpr = window.devicePixelRatio || 1
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    this.drawTextRows(ctx, r0, r1)
  }

  private drawLabels(ctx: CanvasRenderingContext2D): void {
    const { rows, cols, cw, ch, labelW: x0, labelH: y0 } = this
    ctx.font = LABEL_FONT
    ctx.fillStyle = '#1d2330'
    ctx.textBaseline = 'middle'
    ctx.textAlign = 'right'
    const rowStep = ch >= 11 ? 1 : Math.ceil(11 / ch)
    for (let i = 0; i < rows; i += rowStep) {
      const bold = this.opts.rowAxis !== null && this.hl[this.opts.rowAxis] === i
      ctx.font = bold ? `bold ${LABEL_FONT}` : LABEL_FONT
      ctx.fillText(clip(ctx, this.rowLabels[i] ?? String(i), x0 - 6), x0 - 5, y0 + i * ch + ch / 2)
    }
    ctx.font = LABEL_FONT
    if (this.colsAreTokens() && this.upright) {
      ctx.textAlign = 'center'
      for (let j = 0; j < cols; j++) {
        const bold = this.opts.colAxis !== null && this.hl[this.opts.colAxis] === j
        ctx.font = bold ? `bold ${LABEL_FONT}` : LABEL_FONT
        ctx.fillText(this.colLabels[j] ?? String(j), x0 + j * cw + cw / 2, y0 - 8)
      }
    } else if (this.colsAreTokens()) {
      const colStep = cw >= 11 ? 1 : Math.ceil(11 / cw)
      ctx.textAlign = 'left'
      for (let j = 0; j < cols; j += colStep) {
        ctx.save()
        ctx.translate(x0 + j * cw + cw / 2, y0 - 4)
        ctx.rotate(-Math.PI / 2)
        const bold = this.opts.colAxis !== null && this.hl[this.opts.colAxis] === j
        ctx.font = bold ? `bold ${LABEL_FONT}` : LABEL_FONT
        ctx.fillText(clip(ctx, this.colLabels[j] ?? String(j), y0 - 8), 0, 0)
        ctx.restore()
      }
    } else {
      ctx.textAlign = 'center'
      ctx.fillStyle = '#777'
      ctx.font = '9px ui-monospace, monospace'
      const colStep = Math.max(1, Math.ceil(18 / cw))
      for (let j = 0; j < cols; j += colStep) ctx.fillText(String(j), x0 + j * cw + cw / 2, y0 - 7)
    }
  }

  private drawOverlays(ctx: CanvasRenderingContext2D): void {
    const { rows, cols, cw, ch, labelW: x0, labelH: y0 } = this
    if (this.groups > 1 && cols % this.groups === 0) {
      const gw = (cols / this.groups) * cw
      ctx.strokeStyle = '#1d2330'
      ctx.lineWidth = 2
      ctx.beginPath()
      for (let g = 1; g < this.groups; g++) {
        ctx.moveTo(x0 + g * gw, y0 - 3)
        ctx.lineTo(x0 + g * gw, y0 + rows * ch + 3)
      }
      ctx.stroke()
      ctx.strokeStyle = '#1c64d1'
      ctx.lineWidth = 2
      ctx.strokeRect(x0 + this.activeGroup * gw + 1, y0 - 2, gw - 2, rows * ch + 4)
    }
    const { rowAxis, colAxis } = this.opts
    ctx.lineWidth = 2
    ctx.strokeStyle = '#e8590c'
    const r = rowAxis ? this.hl[rowAxis] : null
    if (r !== null && r < rows) ctx.strokeRect(x0 + 1, y0 + r * ch + 1, cols * cw - 2, ch - 2)
    const c = colAxis ? this.hl[colAxis] : null
    if (c !== null && c < cols) ctx.strokeRect(x0 + c * cw + 1, y0 + 1, cw - 2, rows * ch - 2)
    if (this.selected) {
      const [i, j] = this.selected
      ctx.lineWidth = 3
      ctx.strokeStyle = '#000'
      ctx.strokeRect(x0 + j * cw + 1.5, y0 + i * ch + 1.5, cw - 3, ch - 3)
      ctx.lineWidth = 1
      ctx.strokeStyle = '#fff'
      ctx.strokeRect(x0 + j * cw + 3.5, y0 + i * ch + 3.5, cw - 7, ch - 7)
    }
    // A flag kept by focus/blur: querying :focus here would force a style recalc on every draw.
    if (this.focused) {
      const [i, j] = this.cursor
      ctx.setLineDash([3, 2])
      ctx.lineWidth = 2
      ctx.strokeStyle = '#1c7ed6'
      ctx.strokeRect(x0 + j * cw + 1, y0 + i * ch + 1, cw - 2, ch - 2)
      ctx.setLineDash([])
    }
  }

  private cellAt(ev: MouseEvent): [number, number] | null {
    const rect = this.canvas.getBoundingClientRect()
    const x = ev.clientX - rect.left - this.labelW
    const y = ev.clientY - rect.top - this.labelH
    const j = Math.floor(x / this.cw),
      i = Math.floor(y / this.ch)
    if (x < 0 || y < 0 || i >= this.rows || j >= this.cols) return null
    return [i, j]
  }

  private describe(i: number, j: number): string {
    const t = this.opts.t
    const rl = this.rowLabels[i] ?? String(i)
    const cl = this.colLabels[j] ?? String(j)
    return `${this.opts.name}[${i}, ${j}] · ${t('cellRow')} ${rl} · ${t('cellCol')} ${cl} = ${fmt(this.value(i, j), 6)}`
  }

  /** The tensor's name and index are code (the same in every language): marked so; the rest is prose. */
  private putDescription(el: HTMLElement, i: number, j: number): void {
    const text = this.describe(i, j)
    const cut = text.indexOf(' · ')
    const code = document.createElement('code')
    code.textContent = text.slice(0, cut)
    el.replaceChildren(code, text.slice(cut))
  }

  private showTip(i: number, j: number): void {
    this.putDescription(this.tip, i, j)
    this.tip.hidden = false
    let x = this.labelW + (j + 1) * this.cw + 6
    const y = this.labelH + i * this.ch - 4
    // Kept inside the visible part of the heatmap's box (and so of the screen): left of the cell when it
    // would run past the right edge, wrapped when it is wider than the box.
    const box = this.tip.parentElement
    const view = box ? { left: box.scrollLeft, width: Math.min(box.clientWidth, innerWidth) } : null
    if (view && view.width > 0) {
      this.tip.style.maxWidth = `${Math.max(120, view.width - 8)}px`
      this.tip.style.whiteSpace = ''
      if (this.tip.scrollWidth > view.width - 8) this.tip.style.whiteSpace = 'normal'
      const w = this.tip.offsetWidth
      if (x + w > view.left + view.width) x = this.labelW + j * this.cw - w - 6
      x = Math.max(view.left + 2, Math.min(x, view.left + view.width - w - 2))
    }
    this.tip.style.left = `${x}px`
    this.tip.style.top = `${y}px`
  }

  private announce(i: number, j: number): void {
    this.putDescription(this.live, i, j)
  }

  private bindEvents(): void {
    const c = this.canvas
    c.addEventListener('mousemove', (ev) => {
      const cell = this.cellAt(ev)
      if (!cell) {
        this.leave()
        return
      }
      if (this.hover && this.hover[0] === cell[0] && this.hover[1] === cell[1]) return
      this.hover = cell
      this.showTip(cell[0], cell[1])
      this.opts.onHover?.(this.opts.rowAxis ? cell[0] : null, this.opts.colAxis ? cell[1] : null)
      c.style.cursor = this.opts.editable || this.opts.selectable ? 'pointer' : 'crosshair'
    })
    c.addEventListener('mouseleave', () => this.leave())
    c.addEventListener('click', (ev) => {
      const cell = this.cellAt(ev)
      if (!cell) return
      this.cursor = cell
      this.activate(cell[0], cell[1])
    })
    c.addEventListener('focus', () => {
      this.focused = true
      this.draw()
      this.announce(...this.cursor)
      this.emitCursor()
    })
    c.addEventListener('blur', () => {
      this.focused = false
      this.draw()
      this.tip.hidden = true
    })
    c.addEventListener('keydown', (ev) => this.onKey(ev))
    this.editor.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') {
        this.closeEditor()
        this.canvas.focus()
        return
      }
      if (ev.key !== 'Enter') return
      const v = parseShown(this.editor.value)
      if (v === null || !Number.isFinite(v)) {
        this.editor.setAttribute('aria-invalid', 'true')
        this.editor.title = this.opts.t('badNumber')
        this.live.textContent = this.opts.t('badNumber')
        return
      }
      const [i, j] = this.cursor
      this.closeEditor()
      this.canvas.focus()
      this.opts.onEdit?.(i, j, v)
    })
    this.editor.addEventListener('blur', () => this.closeEditor())
  }

  /** The keyboard on the canvas: arrows, Home and End move the cursor; Enter and Space act on its cell. */
  private onKey(ev: KeyboardEvent): void {
    let [i, j] = this.cursor
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault()
      this.activate(i, j)
      return
    }
    const move = ARROW_MOVES[ev.key]
    if (move) {
      i = stepWithin(i, move[0], this.rows)
      j = stepWithin(j, move[1], this.cols)
    } else if (ev.key === 'Home') j = 0
    else if (ev.key === 'End') j = this.cols - 1
    else return
    ev.preventDefault()
    this.cursor = [i, j]
    this.draw()
    this.showTip(i, j)
    this.announce(i, j)
    this.emitCursor()
  }

  private emitCursor(): void {
    const [i, j] = this.cursor
    this.opts.onHover?.(this.opts.rowAxis ? i : null, this.opts.colAxis ? j : null)
  }

  private leave(): void {
    this.hover = null
    this.tip.hidden = true
    this.opts.onHover?.(null, null)
  }

  private activate(i: number, j: number): void {
    if (this.opts.editable) {
      this.openEditor(i, j)
      return
    }
    if (this.opts.selectable) this.opts.onActivate?.(i, j)
  }

  private openEditor(i: number, j: number): void {
    const e = this.editor
    e.hidden = false
    e.removeAttribute('aria-invalid')
    e.title = ''
    e.value = String(Number(this.value(i, j).toPrecision(6)))
    e.style.left = `${this.labelW + j * this.cw}px`
    e.style.top = `${this.labelH + i * this.ch}px`
    e.style.minWidth = `${Math.max(this.cw, 70)}px`
    e.focus()
    e.select()
  }

  private closeEditor(): void {
    this.editor.hidden = true
  }

  private renderLegend(): void {
    const t = this.opts.t
    let masked = false
    for (let k = 0; k < this.data.length; k++)
      if (this.data[k] === -Infinity) {
        masked = true
        break
      }
    const key = `${this.scale.kind}|${fmt(this.scale.lo, 2)}|${fmt(this.scale.hi, 2)}|${masked}|${t('legendMasked')}`
    if (key === this.legendKey) return
    this.legendKey = key
    // The same spans each time, their text and colours changed (new nodes would each need style and layout).
    const lg = this.legend
    if (!lg.childNodes.length) {
      const bar = document.createElement('span')
      bar.className = 'hm-bar'
      lg.append(document.createElement('span'), bar, document.createElement('span'))
      this.maskedKey.className = 'hm-masked-key'
    }
    const [lo, bar, hi] = Array.from(lg.children) as HTMLElement[]
    setText(lo, fmt(this.scale.lo, 2))
    const stops: string[] = []
    for (let k = 0; k <= 8; k++)
      stops.push(rgbCss(this.scale.color(this.scale.lo + ((this.scale.hi - this.scale.lo) * k) / 8)))
    const gradient = `linear-gradient(to right, ${stops.join(',')})`
    if (gradient !== this.gradient) bar.style.background = this.gradient = gradient
    setText(hi, fmt(this.scale.hi, 2))
    setText(this.maskedKey, t('legendMasked'))
    if (masked && this.maskedKey.parentNode !== lg) lg.append(this.maskedKey)
    else if (!masked) this.maskedKey.remove()
  }

  /** The text alternative: every number in a table, row and column headed by their tokens. */
  private buildTable(): void {
    const doc = document
    const table = doc.createElement('table')
    const cap = doc.createElement('caption')
    cap.textContent = this.opts.name
    const thead = doc.createElement('thead')
    const hr = doc.createElement('tr')
    // The corner names the two axes for screen readers (an empty header cell says nothing).
    const corner = doc.createElement('th')
    const cornerText = doc.createElement('span')
    cornerText.className = 'sr-only'
    cornerText.textContent = this.opts.t('tableCorner')
    corner.append(cornerText)
    hr.append(corner)
    for (let j = 0; j < Math.min(this.cols, TABLE_MAX); j++) {
      const th = doc.createElement('th')
      th.scope = 'col'
      th.textContent = this.colLabels[j] ?? String(j)
      hr.append(th)
    }
    thead.append(hr)
    const tbody = doc.createElement('tbody')
    // A table of a 4000×4000 matrix would freeze the page: the first rows and columns, and a note.
    const maxRows = Math.min(this.rows, TABLE_MAX),
      maxCols = Math.min(this.cols, TABLE_MAX)
    if (maxRows < this.rows || maxCols < this.cols)
      cap.textContent += ` (${maxRows}×${maxCols} / ${this.rows}×${this.cols})`
    for (let i = 0; i < maxRows; i++) {
      const tr = doc.createElement('tr')
      const th = doc.createElement('th')
      th.scope = 'row'
      th.textContent = this.rowLabels[i] ?? String(i)
      tr.append(th)
      for (let j = 0; j < maxCols; j++) {
        const td = doc.createElement('td')
        td.textContent = fmt(this.value(i, j), 4)
        tr.append(td)
      }
      tbody.append(tr)
    }
    table.append(cap, thead, tbody)
    this.tableWrap.replaceChildren(table)
  }
}

/** Fixed-point text that fits a cell: tiny weights read as 0.000 rather than 1.4e-9. */
function cellText(v: number): string {
  if (!Number.isFinite(v)) return fmt(v)
  const a = Math.abs(v)
  const s = a >= 1000 ? v.toExponential(1) : v.toFixed(a >= 100 ? 1 : a >= 10 ? 2 : 3)
  return s.startsWith('-') ? '−' + s.slice(1) : s
}

const widths = new Map<string, number>()

/** A label's width in LABEL_FONT (cached: the same tokens are measured on every update). */
function labelWidth(ctx: CanvasRenderingContext2D, s: string): number {
  let w = widths.get(s)
  if (w === undefined) {
    w = ctx.measureText(s).width
    if (widths.size > 5000) widths.clear()
    widths.set(s, w)
  }
  return w
}

const clipped = new Map<string, string>()

/** The label cut with an ellipsis to fit max pixels (cached: labels repeat on every redraw). */
function clip(ctx: CanvasRenderingContext2D, s: string, max: number): string {
  const key = `${ctx.font}|${max}|${s}`
  let out = clipped.get(key)
  if (out === undefined) {
    out = clipUncached(ctx, s, max)
    if (clipped.size > 5000) clipped.clear()
    clipped.set(key, out)
  }
  return out
}

function clipUncached(ctx: CanvasRenderingContext2D, s: string, max: number): string {
  if (ctx.measureText(s).width <= max) return s
  let lo = 0,
    hi = s.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (ctx.measureText(s.slice(0, mid) + '…').width <= max) lo = mid
    else hi = mid - 1
  }
  return s.slice(0, lo) + '…'
}

/** The arrow keys' cursor moves, [rows, columns]. */
const ARROW_MOVES: Partial<Record<string, [number, number]>> = {
  ArrowUp: [-1, 0],
  ArrowDown: [1, 0],
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
}

/** One step of `d` (−1, 0 or 1) from `v`, kept inside 0 … n − 1 on the side it moves to. */
function stepWithin(v: number, d: number, n: number): number {
  if (d < 0) return Math.max(0, v + d)
  if (d > 0) return Math.min(n - 1, v + d)
  return v
}
