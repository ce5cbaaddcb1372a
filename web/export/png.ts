// Export: a panel as PNG (from a canvas, no external library), and a blob as a download.

import { completeHeatmaps } from '../heatmap'

/**
 * Renders one panel (its title, shape line and heatmap) into a fresh canvas and encodes it as PNG.
 * The heatmap pixels are the panel's own canvas, so colours and layout are what the learner sees.
 */
export async function exportPanelPng(panelEl: HTMLElement): Promise<Blob> {
  completeHeatmaps(panelEl)
  const maps = Array.from(panelEl.querySelectorAll<HTMLCanvasElement>('canvas.hm-canvas, canvas')).filter(
    (c) => c.width > 0 && c.height > 0,
  )
  if (maps.length === 0) {
    const name = panelEl.dataset.step ?? panelEl.dataset.panel ?? panelEl.tagName.toLowerCase()
    throw new Error(`exportPanelPng: panel "${name}" has no drawn heatmap canvas to export`)
  }
  const map = maps[0]
  // The heatmap canvas is drawn at devicePixelRatio: draw the text at the same density.
  const ratio = map.clientWidth > 0 ? map.width / map.clientWidth : 1
  const title =
    (
      panelEl.querySelector('h2, h3, header')?.querySelector('h2, h3') ?? panelEl.querySelector('h2, h3')
    )?.textContent?.trim() ?? ''
  const shape = panelEl.querySelector('.shape')?.textContent?.trim() ?? ''
  const pad = Math.round(12 * ratio)
  const titlePx = Math.round(15 * ratio)
  const shapePx = Math.round(12 * ratio)
  const font = 'system-ui, "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif'

  const out = document.createElement('canvas')
  const measure = out.getContext('2d')
  if (!measure) throw new Error('exportPanelPng: this browser gives no 2-D canvas context')
  measure.font = `600 ${titlePx}px ${font}`
  const titleW = measure.measureText(title).width
  measure.font = `${shapePx}px ui-monospace, monospace`
  const shapeW = measure.measureText(shape).width
  const headH = (title ? titlePx + pad / 2 : 0) + (shape ? shapePx + pad / 2 : 0)
  out.width = Math.ceil(Math.max(map.width, titleW, shapeW) + 2 * pad)
  out.height = Math.ceil(headH + map.height + 2 * pad)

  const g = out.getContext('2d')!
  g.fillStyle = '#ffffff'
  g.fillRect(0, 0, out.width, out.height)
  g.fillStyle = '#1d2330'
  g.textBaseline = 'top'
  let y = pad
  if (title) {
    g.font = `600 ${titlePx}px ${font}`
    g.fillText(title, pad, y)
    y += titlePx + pad / 2
  }
  if (shape) {
    g.font = `${shapePx}px ui-monospace, monospace`
    g.fillStyle = '#1c64d1'
    g.fillText(shape, pad, y)
    y += shapePx + pad / 2
  }
  g.drawImage(map, pad, Math.round(y))
  return new Promise<Blob>((resolve, reject) => {
    out.toBlob(
      (b) => (b ? resolve(b) : reject(new Error('exportPanelPng: the canvas could not be encoded as PNG'))),
      'image/png',
    )
  })
}

/** Saves a blob under a file name through a temporary link (no server round trip). */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.rel = 'noopener'
  a.click()
  // Revoked later, not at once: the browser may still be reading the blob for the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
