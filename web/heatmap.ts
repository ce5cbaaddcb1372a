// One matrix drawn as a heatmap on a canvas (fast for 128×128 and more), operable by mouse and
// keyboard, with its numbers on hover, a live-region readout, and a table as its text alternative.
// Its parts, one job each: heatmap-grid.ts (what it shows), heatmap-paint.ts (layout, the picture, the
// legend), heatmap-input.ts (mouse, keyboard, tooltip, readout, cell editor), heatmap-table.ts (the table of
// numbers and printing). This file puts them together and decides when to draw.

import { watchSeen } from './dom'
import type { Translate } from './i18n'
import { Grid, type HeatmapOptions } from './heatmap-grid'
import { HeatmapInput } from './heatmap-input'
import { HeatmapPainter } from './heatmap-paint'
import { HeatmapTable, hookPrint } from './heatmap-table'

export type { Axis, HeatmapOptions } from './heatmap-grid'

/**
 * Heatmaps waiting to be drawn. A render changes many panels' text and nodes; a canvas that sets its font
 * makes the browser bring the page's style up to date, so drawing in the middle of those changes would
 * recompute style twice. The playground draws them all at the end of its render (flushHeatmaps); a
 * microtask does it for everyone else.
 */
const queued = new Set<Heatmap>()
/**
 * Heatmaps whose data changed since they were sized: sized at the flush, every width read first (a new heatmap's
 * first read lays the page out), then every canvas sized. Reading one heatmap's width after another had resized its
 * canvas laid the whole page out again: a first render of the pipeline did that once per heatmap.
 */
const unsized = new Set<Heatmap>()
let flushQueued = false

function flushSoon(): void {
  if (flushQueued) return
  flushQueued = true
  queueMicrotask(flushHeatmaps)
}

/** Sizes every heatmap whose data changed and draws every one whose picture is out of date (at once: before reading or exporting a canvas). */
export function flushHeatmaps(): void {
  flushQueued = false
  if (unsized.size) {
    const batch = [...unsized]
    for (const m of batch) m.measure()
    for (const m of batch) m.size()
  }
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

const printAll = () => {
  for (const m of live) m.prepareForPrint()
}

export class Heatmap {
  readonly el: HTMLElement
  private g: Grid
  private painter: HeatmapPainter
  private input: HeatmapInput
  private table: HeatmapTable
  private resize: ResizeObserver | null = null
  private langSet = false
  // Off-screen heatmaps are drawn when they scroll into view, not on every update.
  private visible = true
  private dirty = false
  private seen: IntersectionObserver | null = null

  constructor(opts: HeatmapOptions) {
    live.add(this)
    hookPrint(printAll)
    this.g = new Grid(opts)
    this.painter = new HeatmapPainter(this.g)
    this.input = new HeatmapInput(this.g, this.painter.canvas, () => this.draw())
    this.table = new HeatmapTable(this.g)
    this.el = document.createElement('div')
    this.el.className = 'hm'
    const scroll = document.createElement('div')
    scroll.className = 'hm-scroll'
    scroll.append(this.painter.canvas, this.input.tip, this.input.editor)
    scroll.addEventListener(
      'scroll',
      () => {
        this.painter.scrollTop = scroll.scrollTop
        if (!this.dirty) this.painter.fillTexts()
      },
      { passive: true },
    )
    this.el.append(scroll, this.painter.legend, this.input.live, this.table.details)
    this.setLang(opts.t)
    this.observe()
  }

  /** Redraws on a new width (ResizeObserver) and when scrolled into view (IntersectionObserver). */
  private observe(): void {
    if (typeof ResizeObserver === 'function') {
      this.resize = new ResizeObserver((entries) => {
        const w = Math.floor(entries[entries.length - 1].contentRect.width)
        const p = this.painter
        if (w <= 0 || Math.abs(w - p.avail) < 2) return
        const first = p.avail === 0
        p.avail = w
        if (!first && this.g.rows) {
          p.layout(this.el)
          this.draw()
        }
      })
      this.resize.observe(this.el)
    }
    this.seen = watchSeen(this.painter.canvas, (near) => {
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
    unsized.delete(this)
  }

  /** Reads the width available, the first time (flushHeatmaps: every heatmap's before any is sized). */
  measure(): void {
    this.painter.measure(this.el)
  }

  /** Sizes the cells and the canvas for data set since the last time. */
  size(): void {
    if (!unsized.delete(this)) return
    this.painter.layout(this.el)
  }

  /**
   * For printing: draws now if an update is waiting, visible or not, and builds the table of numbers (the
   * print stylesheet shows it: a canvas prints as a picture, the table as text).
   */
  prepareForPrint(): void {
    this.table.prepareForPrint()
    this.complete()
  }

  /** Draws the whole picture now, every number included, visible or not (printing, exporting). */
  complete(): void {
    if (!this.dirty) {
      this.painter.fillTexts(true)
      return
    }
    const was = this.visible
    this.visible = true
    this.drawNow(true)
    this.visible = was
  }

  setLang(t: Translate): void {
    if (this.g.opts.t === t && this.langSet) return
    this.langSet = true
    this.g.opts.t = t
    this.table.setLang(t)
    this.input.setLang(t)
    this.painter.renderLegend()
  }

  setData(data: Float32Array, rows: number, cols: number, rowLabels: string[], colLabels: string[]): void {
    this.g.set(data, rows, cols, rowLabels, colLabels)
    // Sized at the flush, with the others (the playground's at the end of its render, a microtask for everyone else).
    unsized.add(this)
    flushSoon()
    this.painter.dataChanged()
    this.draw()
    this.painter.renderLegend()
    this.table.refresh()
  }

  value(i: number, j: number): number {
    return this.g.value(i, j)
  }

  /** Column blocks of the heads (Q, K, V with heads > 1): drawn as separators, the shown head framed. */
  setGroups(groups: number, active: number): void {
    if (groups === this.g.groups && active === this.g.activeGroup) return
    this.g.groups = groups
    this.g.activeGroup = active
    this.draw()
  }

  setHighlight(q: number | null, k: number | null): void {
    if (q === this.g.hl.q && k === this.g.hl.k) return
    this.g.hl = { q, k }
    this.draw()
  }

  setSelected(cell: [number, number] | null): void {
    const a = this.g.selected
    if (a === cell || (a && cell && a[0] === cell[0] && a[1] === cell[1])) return
    this.g.selected = cell
    this.draw()
  }

  /** Asks for a redraw: at the next flush, or when the heatmap scrolls into view. */
  private draw(): void {
    if (!this.visible) {
      this.dirty = true
      return
    }
    queued.add(this)
    flushSoon()
  }

  /** Draws now (a visible heatmap; an off-screen one waits until it scrolls into view); `all`: every number too. */
  drawNow(all = false): void {
    if (!this.visible) {
      this.dirty = true
      return
    }
    this.size()
    this.dirty = false
    queued.delete(this)
    this.painter.draw(all)
  }
}
