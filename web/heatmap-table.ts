// A heatmap's text alternative and its printout: every number in a table under a "show numbers" disclosure
// (rows and columns headed by their tokens), built when opened or before printing, and the print hook that
// gets every heatmap ready (a canvas prints as a picture, the table as text).

import { fmt } from './format'
import type { Translate } from './i18n'
import type { Grid } from './heatmap-grid'

const TABLE_MAX = 200

export class HeatmapTable {
  readonly details = document.createElement('details')
  private summary = document.createElement('summary')
  private tableWrap = document.createElement('div')

  constructor(private g: Grid) {
    this.details.className = 'hm-alt'
    this.details.append(this.summary)
    this.tableWrap.className = 'hm-table-wrap'
    this.details.append(this.tableWrap)
    this.details.addEventListener('toggle', () => {
      if (this.details.open) this.build()
    })
  }

  setLang(t: Translate): void {
    this.summary.textContent = t('showNumbers')
  }

  /** The data changed: an open table is built again. */
  refresh(): void {
    if (this.details.open) this.build()
  }

  /** For printing: the table, built even if never opened (the print stylesheet shows it). */
  prepareForPrint(): void {
    if (this.g.rows && !this.details.open) this.build()
  }

  /** The text alternative: every number in a table, row and column headed by their tokens. */
  private build(): void {
    const doc = document
    const table = doc.createElement('table')
    const cap = doc.createElement('caption')
    cap.textContent = this.g.opts.name
    const thead = doc.createElement('thead')
    const hr = doc.createElement('tr')
    // The corner names the two axes for screen readers (an empty header cell says nothing).
    const corner = doc.createElement('th')
    const cornerText = doc.createElement('span')
    cornerText.className = 'sr-only'
    cornerText.textContent = this.g.opts.t('tableCorner')
    corner.append(cornerText)
    hr.append(corner)
    for (let j = 0; j < Math.min(this.g.cols, TABLE_MAX); j++) {
      const th = doc.createElement('th')
      th.scope = 'col'
      th.textContent = this.g.colLabel(j)
      hr.append(th)
    }
    thead.append(hr)
    const tbody = doc.createElement('tbody')
    // A table of a 4000×4000 matrix would freeze the page: the first rows and columns, and a note.
    const maxRows = Math.min(this.g.rows, TABLE_MAX),
      maxCols = Math.min(this.g.cols, TABLE_MAX)
    if (maxRows < this.g.rows || maxCols < this.g.cols)
      cap.textContent += ` (${maxRows}×${maxCols} / ${this.g.rows}×${this.g.cols})`
    for (let i = 0; i < maxRows; i++) {
      const tr = doc.createElement('tr')
      const th = doc.createElement('th')
      th.scope = 'row'
      th.textContent = this.g.rowLabel(i)
      tr.append(th)
      for (let j = 0; j < maxCols; j++) {
        const td = doc.createElement('td')
        td.textContent = fmt(this.g.value(i, j), 4)
        tr.append(td)
      }
      tbody.append(tr)
    }
    table.append(cap, thead, tbody)
    this.tableWrap.replaceChildren(table)
  }
}

let printHooked = false

/**
 * Printing (or saving as PDF) shows the whole page at once: `beforeprint` and the print media query draw
 * every heatmap still waiting to scroll into view (or the printout would have empty panels) and its table.
 */
export function hookPrint(drawAll: () => void): void {
  if (printHooked || typeof window === 'undefined') return
  printHooked = true
  window.addEventListener('beforeprint', drawAll)
  window.matchMedia?.('print').addEventListener?.('change', (e) => {
    if (e.matches) drawAll()
  })
}
