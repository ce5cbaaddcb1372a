// PNG and CSV buttons in the header of every matrix panel (the step panels and the encoder embeddings).

import { h, setText } from '../dom'
import type { Translate } from '../i18n'
import { downloadBlob } from '../export/png'
import type { Panel } from '../context'

export interface ExportActions {
  png(step: string): Promise<Blob>
  csv(step: string): string
  /** Runs an export; its error goes to the status line. */
  safely(fn: () => unknown): void
}

/** Adds the buttons and returns their (re-)labelling. */
export function addExportButtons(panels: readonly Panel[], act: ExportActions): (t: Translate) => void {
  const buttons: HTMLButtonElement[] = []
  for (const p of panels) {
    const name = p.el.dataset.step ?? p.el.dataset.panel ?? ''
    const head = p.el.querySelector(':scope > header')
    if (!name || !head) continue
    const png = h('button', { type: 'button', class: 'btn-small', 'data-export': 'png' })
    const csv = h('button', { type: 'button', class: 'btn-small', 'data-export': 'csv' })
    png.addEventListener('click', () => act.safely(async () => downloadBlob(await act.png(name), `${name}.png`)))
    // A BOM so spreadsheet programs read the Chinese tokens as UTF-8.
    csv.addEventListener('click', () =>
      act.safely(() =>
        downloadBlob(new Blob(['\ufeff' + act.csv(name)], { type: 'text/csv;charset=utf-8' }), `${name}.csv`),
      ),
    )
    head.append(h('span', { class: 'ap-export' }, png, csv))
    buttons.push(png, csv)
  }
  return (t) => {
    for (const b of buttons) {
      const png = b.dataset.export === 'png'
      setText(b, t(png ? 'exportPng' : 'exportCsv'))
      b.setAttribute('aria-label', t(png ? 'exportPngLabel' : 'exportCsvLabel'))
    }
  }
}
