// A heatmap's interaction: the mouse and the keyboard on its canvas (a cursor cell, arrows, Home, End, Enter
// and Space), the tooltip and the live-region readout of a cell, and the cell editor of editable matrices.

import { fmt, parseShown } from './format'
import type { Translate } from './i18n'
import type { Grid } from './heatmap-grid'

export class HeatmapInput {
  readonly tip = document.createElement('div')
  readonly editor = document.createElement('input')
  readonly live = document.createElement('p')
  private hover: [number, number] | null = null

  /** `redraw`: asks the heatmap for a new picture (the cursor, focus or selection moved). */
  constructor(
    private g: Grid,
    private canvas: HTMLCanvasElement,
    private redraw: () => void,
  ) {
    canvas.tabIndex = 0
    // 'application': screen readers pass the arrow keys through to the heatmap's own navigation.
    canvas.setAttribute('role', 'application')
    canvas.setAttribute('aria-roledescription', 'heatmap')
    this.tip.className = 'hm-tip'
    this.tip.hidden = true
    this.editor.className = 'hm-editor'
    this.editor.type = 'text'
    this.editor.inputMode = 'decimal'
    this.editor.hidden = true
    this.live.className = 'sr-only'
    this.live.setAttribute('aria-live', 'polite')
    this.bindEvents()
  }

  setLang(t: Translate): void {
    this.canvas.setAttribute('aria-label', `${this.g.opts.name}. ${t('keyboardHelp')}`)
    this.editor.setAttribute('aria-label', t('editCell'))
    this.editor.placeholder = t('editCell')
  }

  private cellAt(ev: MouseEvent): [number, number] | null {
    const rect = this.canvas.getBoundingClientRect()
    const x = ev.clientX - rect.left - this.g.labelW
    const y = ev.clientY - rect.top - this.g.labelH
    const j = Math.floor(x / this.g.cw),
      i = Math.floor(y / this.g.ch)
    if (x < 0 || y < 0 || i >= this.g.rows || j >= this.g.cols) return null
    return [i, j]
  }

  private describe(i: number, j: number): string {
    const t = this.g.opts.t
    const rl = this.g.rowLabel(i)
    const cl = this.g.colLabel(j)
    return `${this.g.opts.name}[${i}, ${j}] · ${t('cellRow')} ${rl} · ${t('cellCol')} ${cl} = ${fmt(this.g.value(i, j), 6)}`
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
    let x = this.g.labelW + (j + 1) * this.g.cw + 6
    const y = this.g.labelH + i * this.g.ch - 4
    // Kept inside the visible part of the heatmap's box (and so of the screen): left of the cell when it
    // would run past the right edge, wrapped when it is wider than the box.
    const box = this.tip.parentElement
    const view = box ? { left: box.scrollLeft, width: Math.min(box.clientWidth, innerWidth) } : null
    if (view && view.width > 0) {
      this.tip.style.maxWidth = `${Math.max(120, view.width - 8)}px`
      this.tip.style.whiteSpace = ''
      if (this.tip.scrollWidth > view.width - 8) this.tip.style.whiteSpace = 'normal'
      const w = this.tip.offsetWidth
      if (x + w > view.left + view.width) x = this.g.labelW + j * this.g.cw - w - 6
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
      this.g.opts.onHover?.(this.g.opts.rowAxis ? cell[0] : null, this.g.opts.colAxis ? cell[1] : null)
      c.style.cursor = this.g.opts.editable || this.g.opts.selectable ? 'pointer' : 'crosshair'
    })
    c.addEventListener('mouseleave', () => this.leave())
    c.addEventListener('click', (ev) => {
      const cell = this.cellAt(ev)
      if (!cell) return
      this.g.cursor = cell
      this.activate(cell[0], cell[1])
    })
    c.addEventListener('focus', () => {
      this.g.focused = true
      this.redraw()
      this.announce(...this.g.cursor)
      this.emitCursor()
    })
    c.addEventListener('blur', () => {
      this.g.focused = false
      this.redraw()
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
        this.editor.title = this.g.opts.t('badNumber')
        this.live.textContent = this.g.opts.t('badNumber')
        return
      }
      const [i, j] = this.g.cursor
      this.closeEditor()
      this.canvas.focus()
      this.g.opts.onEdit?.(i, j, v)
    })
    this.editor.addEventListener('blur', () => this.closeEditor())
  }

  /** The keyboard on the canvas: arrows, Home and End move the cursor; Enter and Space act on its cell. */
  private onKey(ev: KeyboardEvent): void {
    let [i, j] = this.g.cursor
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault()
      this.activate(i, j)
      return
    }
    const move = ARROW_MOVES[ev.key]
    if (move) {
      i = stepWithin(i, move[0], this.g.rows)
      j = stepWithin(j, move[1], this.g.cols)
    } else if (ev.key === 'Home') j = 0
    else if (ev.key === 'End') j = this.g.cols - 1
    else return
    ev.preventDefault()
    this.g.cursor = [i, j]
    this.redraw()
    this.showTip(i, j)
    this.announce(i, j)
    this.emitCursor()
  }

  private emitCursor(): void {
    const [i, j] = this.g.cursor
    this.g.opts.onHover?.(this.g.opts.rowAxis ? i : null, this.g.opts.colAxis ? j : null)
  }

  private leave(): void {
    this.hover = null
    this.tip.hidden = true
    this.g.opts.onHover?.(null, null)
  }

  private activate(i: number, j: number): void {
    if (this.g.opts.editable) {
      this.openEditor(i, j)
      return
    }
    if (this.g.opts.selectable) this.g.opts.onActivate?.(i, j)
  }

  private openEditor(i: number, j: number): void {
    const e = this.editor
    e.hidden = false
    e.removeAttribute('aria-invalid')
    e.title = ''
    e.value = String(Number(this.g.value(i, j).toPrecision(6)))
    e.style.left = `${this.g.labelW + j * this.g.cw}px`
    e.style.top = `${this.g.labelH + i * this.g.ch}px`
    e.style.minWidth = `${Math.max(this.g.cw, 70)}px`
    e.focus()
    e.select()
  }

  private closeEditor(): void {
    this.editor.hidden = true
  }
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
