// A heatmap's picture: the cells' layout, the canvas (cells, hatching of masked cells, numbers, labels, head
// blocks, highlights, selection, cursor) and the colour legend. Drawn from the Grid (heatmap-grid.ts).

import { setText } from './dom'
import { fmt } from './format'
import { rgbCss, textOn } from './palette'
import { LONG_TOKENS } from './compute/long-rows'
import type { Grid } from './heatmap-grid'

const LABEL_FONT = '11px system-ui, "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif'
/** Token labels are all drawn up to this many tokens a side (beyond it, every n-th, and the table has them all). */
const FULL_LABELS = 64
/** The smallest cell that still holds a label of LABEL_FONT (11 px) beside or above it. */
const LABEL_CELL = 12
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

export class HeatmapPainter {
  readonly canvas = document.createElement('canvas')
  readonly legend = document.createElement('div')
  /** The container's width, kept by the heatmap's ResizeObserver so updates never force a synchronous layout. */
  avail = 0
  /** The scroll box's offset: the numbers are written near what it shows. */
  scrollTop = 0
  private upright = false
  private cells: HTMLCanvasElement | null = null
  private offCtx: CanvasRenderingContext2D | null = null
  private img: ImageData | null = null
  /** Which rows have their numbers written (drawCellTexts). */
  private textRows = new Uint8Array(0)
  /** The data changed since the cells were painted (painted when drawn: off-screen heatmaps wait). */
  private cellsStale = false
  private legendKey = ''
  private gradient = ''
  private readonly maskedKey = document.createElement('span')

  constructor(private g: Grid) {
    this.canvas.className = 'hm-canvas'
    this.legend.className = 'hm-legend'
  }

  /** The data changed: the cells are painted again at the next draw. */
  dataChanged(): void {
    this.cellsStale = true
  }

  /**
   * Reads the width available (`el`: the heatmap's box) the first time; later the ResizeObserver keeps it. Reading it
   * lays the page out when nodes changed since the last read: flushHeatmaps reads every new heatmap's width before
   * any of them resizes its canvas, one layout for all.
   */
  measure(el: HTMLElement): void {
    if (!this.avail) this.avail = el.clientWidth || el.parentElement?.clientWidth || 600
  }

  /** Sizes the cells and the canvas for the data and the width available (`el`: the heatmap's box). */
  layout(el: HTMLElement): void {
    const ctx = measureCtx()
    ctx.font = LABEL_FONT
    this.measure(el)
    const avail = Math.max(160, this.avail - 4)
    let lw = 0
    // Thousands of labels: a sample of ~400 sets the width (longer ones are cut with an ellipsis anyway).
    const every = Math.max(1, Math.floor(this.g.rowLabels.length / 400))
    for (let i = 0; i < this.g.rowLabels.length; i += every) lw = Math.max(lw, labelWidth(ctx, this.g.rowLabels[i]))
    // Measured in the regular weight; a highlighted label is bold, about 12 % wider, and must still fit.
    this.g.labelW = Math.ceil(Math.min(lw * 1.12, 96)) + 8
    const maxCell = this.g.opts.maxCell ?? 46
    // Long texts: cells shrink (down to 1 px) so a canvas never grows past ~1600 px a side.
    const minCell = Math.max(1, Math.min(5, Math.floor(1600 / Math.max(this.g.rows, this.g.cols, 1))))
    // Up to FULL_LABELS tokens a side every token's label shows (cells at least LABEL_CELL px, the heatmap
    // scrolling inside its panel when that is wider than the screen).
    const tokenCols = this.colsAreTokens() && this.g.cols <= FULL_LABELS ? LABEL_CELL : minCell
    this.g.cw = Math.max(tokenCols, Math.min(maxCell, Math.floor((avail - this.g.labelW) / Math.max(this.g.cols, 1))))
    this.g.ch = Math.max(
      this.g.cw,
      this.g.rows > FULL_LABELS ? Math.min(6, minCell) : this.g.rows > 48 ? LABEL_CELL : 16,
    )
    if (this.g.ch > 34 && this.g.cols > 8) this.g.ch = 34
    // Hundreds or thousands of rows (a long text): squeezed into ~640 px, several rows to a pixel,
    // instead of a canvas tens of thousands of pixels tall that the browser must allocate and paint.
    if (this.g.rows > LONG_TOKENS) this.g.ch = Math.min(this.g.ch, 640 / this.g.rows)
    let cl = 0
    for (const l of this.g.colLabels) cl = Math.max(cl, labelWidth(ctx, l))
    const labels = () => {
      // Short labels (one CJK character, 'is') sit upright; longer ones are turned to fit.
      this.upright = cl <= this.g.cw - 4
      this.g.labelH = this.colsAreTokens() && !this.upright ? Math.ceil(Math.min(cl, 80)) + 8 : 16
    }
    labels()
    // A heatmap that fits its scroll box with smaller cells (down to LABEL_CELL) gets them, so every row shows at once
    // (an 18 × 18 model head at 32 px cells was 16 rows in an inner scroll, its last two rows out of sight).
    const fit = Math.floor((SCROLL_MAX_H - this.g.labelH - 2) / Math.max(this.g.rows, 1))
    if (this.g.rows <= FULL_LABELS && this.g.ch > fit && fit >= LABEL_CELL) {
      this.g.ch = fit
      this.g.cw = Math.min(this.g.cw, fit)
      labels()
      // Narrower columns may have turned the labels, taller: take it off the cells once more.
      this.g.ch = Math.max(
        LABEL_CELL,
        Math.min(this.g.ch, Math.floor((SCROLL_MAX_H - this.g.labelH - 2) / this.g.rows)),
      )
      this.g.cw = Math.min(this.g.cw, this.g.ch)
    }
    const w = this.g.labelW + this.g.cols * this.g.cw + 2
    const h = this.g.labelH + this.g.rows * this.g.ch + 2
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
    return this.g.opts.colAxis !== null || !!this.g.opts.tokenCols
  }

  /** One pixel per cell in an offscreen canvas; drawn scaled, so redraws on hover stay cheap. */
  private paintCells(): void {
    this.cellsStale = false
    const { rows, cols } = this.g
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
      const v = this.g.data[k]
      if (Number.isFinite(v)) this.g.scale.paint(v, px, k * 4)
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

  /** Draws the picture now; `all`: every number too, not only those near the scroll box's window. */
  draw(all = false): void {
    if (this.cellsStale) this.paintCells()
    const ctx = this.canvas.getContext('2d')!
    const dpr = window.devicePixelRatio || 1
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height)
    const { rows, cols, cw, ch, labelW: x0, labelH: y0 } = this.g
    if (!this.cells) return
    // Rows thinner than a pixel are averaged; otherwise cells stay crisp.
    ctx.imageSmoothingEnabled = ch < 1
    ctx.drawImage(this.cells, x0, y0, cols * cw, rows * ch)

    // Hatch masked cells so "masked" never depends on colour alone (where cells are big enough to see it).
    ctx.strokeStyle = 'rgba(90,90,90,0.55)'
    ctx.lineWidth = 1
    for (let i = 0; i < (cw >= 4 ? rows : 0); i++) {
      for (let j = 0; j < cols; j++) {
        if (this.g.data[i * cols + j] !== -Infinity) continue
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
    this.textRows = new Uint8Array(this.g.rows)
    const [r0, r1] = all ? [0, this.g.rows] : this.rowWindow()
    this.drawTextRows(ctx, r0, r1)
  }

  /** The rows of the canvas within TEXT_MARGIN px of what the scroll box shows. */
  private rowWindow(): [number, number] {
    const top = this.scrollTop - this.g.labelH
    const from = Math.floor((top - TEXT_MARGIN) / this.g.ch)
    const to = Math.ceil((top + SCROLL_MAX_H + TEXT_MARGIN) / this.g.ch)
    return [Math.max(0, from), Math.min(this.g.rows, to)]
  }

  /** Writes the numbers of rows r0..r1 not yet written: the cells of one text colour in one pass. */
  private drawTextRows(ctx: CanvasRenderingContext2D, r0: number, r1: number): void {
    const { cols, cw, ch, labelW: x0, labelH: y0 } = this.g
    ctx.font = CELL_FONT
    ctx.textAlign = 'center'
    ctx.textBaseline = 'middle'
    const light: number[] = []
    ctx.fillStyle = '#111'
    for (let i = r0; i < r1; i++) {
      if (this.textRows[i]) continue
      this.textRows[i] = 1
      for (let k = i * cols; k < (i + 1) * cols; k++) {
        const v = this.g.data[k]
        if (textOn(Number.isFinite(v) ? this.g.scale.color(v) : GREY) !== '#111') light.push(k)
        else ctx.fillText(cellText(v), x0 + (k - i * cols) * cw + cw / 2, y0 + i * ch + ch / 2 + 0.5)
      }
    }
    ctx.fillStyle = '#fff'
    for (const k of light) {
      const i = (k / cols) | 0,
        j = k - i * cols
      ctx.fillText(cellText(this.g.data[k]), x0 + j * cw + cw / 2, y0 + i * ch + ch / 2 + 0.5)
    }
  }

  /** Writes the numbers missing near the scroll box's window (or all of them), over the drawn picture. */
  fillTexts(all = false): void {
    if (!this.cells || this.textRows.length !== this.g.rows || !(this.g.cw >= 40 && this.g.ch >= 18)) return
    const [r0, r1] = all ? [0, this.g.rows] : this.rowWindow()
    let missing = false
    for (let i = r0; i < r1 && !missing; i++) missing = !this.textRows[i]
    if (!missing) return
    const ctx = this.canvas.getContext('2d')!
    const dpr = window.devicePixelRatio || 1
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    this.drawTextRows(ctx, r0, r1)
  }

  private drawLabels(ctx: CanvasRenderingContext2D): void {
    const { rows, cols, cw, ch, labelW: x0, labelH: y0 } = this.g
    ctx.font = LABEL_FONT
    ctx.fillStyle = '#1d2330'
    ctx.textBaseline = 'middle'
    ctx.textAlign = 'right'
    const rowStep = ch >= 11 ? 1 : Math.ceil(11 / ch)
    for (let i = 0; i < rows; i += rowStep) {
      const bold = this.g.opts.rowAxis !== null && this.g.hl[this.g.opts.rowAxis] === i
      ctx.font = bold ? `bold ${LABEL_FONT}` : LABEL_FONT
      ctx.fillText(clip(ctx, this.g.rowLabels[i] ?? String(i), x0 - 6), x0 - 5, y0 + i * ch + ch / 2)
    }
    ctx.font = LABEL_FONT
    if (this.colsAreTokens() && this.upright) {
      ctx.textAlign = 'center'
      for (let j = 0; j < cols; j++) {
        const bold = this.g.opts.colAxis !== null && this.g.hl[this.g.opts.colAxis] === j
        ctx.font = bold ? `bold ${LABEL_FONT}` : LABEL_FONT
        ctx.fillText(this.g.colLabels[j] ?? String(j), x0 + j * cw + cw / 2, y0 - 8)
      }
    } else if (this.colsAreTokens()) {
      const colStep = cw >= 11 ? 1 : Math.ceil(11 / cw)
      ctx.textAlign = 'left'
      for (let j = 0; j < cols; j += colStep) {
        ctx.save()
        ctx.translate(x0 + j * cw + cw / 2, y0 - 4)
        ctx.rotate(-Math.PI / 2)
        const bold = this.g.opts.colAxis !== null && this.g.hl[this.g.opts.colAxis] === j
        ctx.font = bold ? `bold ${LABEL_FONT}` : LABEL_FONT
        ctx.fillText(clip(ctx, this.g.colLabels[j] ?? String(j), y0 - 8), 0, 0)
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
    const { rows, cols, cw, ch, labelW: x0, labelH: y0 } = this.g
    if (this.g.groups > 1 && cols % this.g.groups === 0) {
      const gw = (cols / this.g.groups) * cw
      ctx.strokeStyle = '#1d2330'
      ctx.lineWidth = 2
      ctx.beginPath()
      for (let g = 1; g < this.g.groups; g++) {
        ctx.moveTo(x0 + g * gw, y0 - 3)
        ctx.lineTo(x0 + g * gw, y0 + rows * ch + 3)
      }
      ctx.stroke()
      ctx.strokeStyle = '#1c64d1'
      ctx.lineWidth = 2
      ctx.strokeRect(x0 + this.g.activeGroup * gw + 1, y0 - 2, gw - 2, rows * ch + 4)
    }
    const { rowAxis, colAxis } = this.g.opts
    ctx.lineWidth = 2
    ctx.strokeStyle = '#e8590c'
    const r = rowAxis ? this.g.hl[rowAxis] : null
    if (r !== null && r < rows) ctx.strokeRect(x0 + 1, y0 + r * ch + 1, cols * cw - 2, ch - 2)
    const c = colAxis ? this.g.hl[colAxis] : null
    if (c !== null && c < cols) ctx.strokeRect(x0 + c * cw + 1, y0 + 1, cw - 2, rows * ch - 2)
    if (this.g.selected) {
      const [i, j] = this.g.selected
      ctx.lineWidth = 3
      ctx.strokeStyle = '#000'
      ctx.strokeRect(x0 + j * cw + 1.5, y0 + i * ch + 1.5, cw - 3, ch - 3)
      ctx.lineWidth = 1
      ctx.strokeStyle = '#fff'
      ctx.strokeRect(x0 + j * cw + 3.5, y0 + i * ch + 3.5, cw - 7, ch - 7)
    }
    // A flag kept by focus/blur: querying :focus here would force a style recalc on every draw.
    if (this.g.focused) {
      const [i, j] = this.g.cursor
      ctx.setLineDash([3, 2])
      ctx.lineWidth = 2
      ctx.strokeStyle = '#1c7ed6'
      ctx.strokeRect(x0 + j * cw + 1, y0 + i * ch + 1, cw - 2, ch - 2)
      ctx.setLineDash([])
    }
  }

  renderLegend(): void {
    const t = this.g.opts.t
    let masked = false
    for (let k = 0; k < this.g.data.length; k++)
      if (this.g.data[k] === -Infinity) {
        masked = true
        break
      }
    const key = `${this.g.scale.kind}|${fmt(this.g.scale.lo, 2)}|${fmt(this.g.scale.hi, 2)}|${masked}|${t('legendMasked')}`
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
    setText(lo, fmt(this.g.scale.lo, 2))
    const stops: string[] = []
    for (let k = 0; k <= 8; k++)
      stops.push(rgbCss(this.g.scale.color(this.g.scale.lo + ((this.g.scale.hi - this.g.scale.lo) * k) / 8)))
    const gradient = `linear-gradient(to right, ${stops.join(',')})`
    if (gradient !== this.gradient) bar.style.background = this.gradient = gradient
    setText(hi, fmt(this.g.scale.hi, 2))
    setText(this.maskedKey, t('legendMasked'))
    if (masked && this.maskedKey.parentNode !== lg) lg.append(this.maskedKey)
    else if (!masked) this.maskedKey.remove()
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
