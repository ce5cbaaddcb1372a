// What one heatmap shows, shared by its parts (web/heatmap.ts puts them together): the matrix and its labels,
// the colour scale, the highlighted, selected and cursor cells, and the cell geometry the painter lays out.

import { scaleFor, type ColorScale } from './palette'
import type { Translate } from './i18n'

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

export class Grid {
  data: Float32Array = new Float32Array(0)
  rows = 0
  cols = 0
  rowLabels: string[] = []
  colLabels: string[] = []
  scale: ColorScale = scaleFor([])
  hl: { q: number | null; k: number | null } = { q: null, k: null }
  selected: [number, number] | null = null
  cursor: [number, number] = [0, 0]
  /** A flag kept by focus/blur: querying :focus while drawing would force a style recalc on every draw. */
  focused = false
  /** Column blocks of the heads (Q, K, V with heads > 1) and the one shown. */
  groups = 1
  activeGroup = 0
  /** Cell width and height and the label margins (px), set by the painter's layout. */
  cw = 20
  ch = 20
  labelW = 0
  labelH = 0

  constructor(readonly opts: HeatmapOptions) {}

  value(i: number, j: number): number {
    return this.data[i * this.cols + j]
  }

  rowLabel(i: number): string {
    return this.rowLabels[i] ?? String(i)
  }

  colLabel(j: number): string {
    return this.colLabels[j] ?? String(j)
  }

  /** New data: the scale follows it, a selection or cursor outside it is dropped or moved in. */
  set(data: Float32Array, rows: number, cols: number, rowLabels: string[], colLabels: string[]): void {
    this.data = data
    this.rows = rows
    this.cols = cols
    this.rowLabels = rowLabels
    this.colLabels = colLabels
    this.scale = scaleFor(data, this.opts.unit)
    if (this.selected && (this.selected[0] >= rows || this.selected[1] >= cols)) this.selected = null
    this.cursor = [Math.min(this.cursor[0], Math.max(rows - 1, 0)), Math.min(this.cursor[1], Math.max(cols - 1, 0))]
  }
}
