// Export: a panel as PNG (from a canvas, no external library), and a blob as a download.

import { completeHeatmaps } from '../heatmap'

/** The panel's colour key as shown under its heatmap: the two ends, the bar's colours and the masked key. */
function readLegend(panelEl: HTMLElement): { lo: string; hi: string; colors: string[]; masked: string } | null {
  const lg = panelEl.querySelector<HTMLElement>('.hm-legend')
  const bar = lg?.querySelector<HTMLElement>('.hm-bar')
  if (!lg || !bar) return null
  const [lo, , hi] = Array.from(lg.children) as HTMLElement[]
  const colors = bar.style.background.match(/rgba?\([^)]*\)/g) ?? []
  if (colors.length < 2) return null
  const masked = lg.querySelector('.hm-masked-key')?.textContent?.trim() ?? ''
  return { lo: lo?.textContent?.trim() ?? '', hi: hi?.textContent?.trim() ?? '', colors, masked }
}

/** Draws the colour key at (x, y): "lo [bar] hi  masked"; returns its height. */
function drawLegend(
  g: CanvasRenderingContext2D,
  lg: NonNullable<ReturnType<typeof readLegend>>,
  x: number,
  y: number,
  px: number,
): void {
  g.font = `${px}px ui-monospace, monospace`
  g.fillStyle = '#5b6475'
  g.fillText(lg.lo, x, y)
  const barX = x + g.measureText(lg.lo).width + px / 2
  const barW = px * 9
  const grad = g.createLinearGradient(barX, 0, barX + barW, 0)
  lg.colors.forEach((c, i) => grad.addColorStop(i / (lg.colors.length - 1), c))
  g.fillStyle = grad
  g.fillRect(barX, y + px * 0.2, barW, px * 0.7)
  g.fillStyle = '#5b6475'
  g.fillText(lg.hi, barX + barW + px / 2, y)
  if (lg.masked) {
    const mx = barX + barW + px + g.measureText(lg.hi).width
    g.fillStyle = '#9a9a9a'
    g.fillRect(mx, y + px * 0.1, px, px * 0.9)
    g.fillStyle = '#5b6475'
    g.fillText(lg.masked, mx + px * 1.4, y)
  }
}

/**
 * Renders one panel (its title, shape line, heatmap with its row and column labels, colour key) and the
 * caption lines (the settings that produced it) into a fresh canvas and encodes it as PNG. The heatmap
 * pixels are the panel's own canvas, so colours and layout are what the learner sees.
 */
export async function exportPanelPng(panelEl: HTMLElement, caption: readonly string[] = []): Promise<Blob> {
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
  const legend = readLegend(panelEl)
  const capPx = Math.round(11 * ratio)
  measure.font = `${capPx}px ${font}`
  const capW = Math.max(0, ...caption.map((c) => measure.measureText(c).width))
  const headH = (title ? titlePx + pad / 2 : 0) + (shape ? shapePx + pad / 2 : 0)
  const footH = (legend ? capPx * 1.6 : 0) + caption.length * capPx * 1.5
  out.width = Math.ceil(Math.max(map.width, titleW, shapeW, capW, legend ? capPx * 24 : 0) + 2 * pad)
  out.height = Math.ceil(headH + map.height + footH + 2 * pad + (footH ? pad / 2 : 0))

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
  y += map.height + pad / 2
  if (legend) {
    drawLegend(g, legend, pad, y, capPx)
    y += capPx * 1.6
  }
  g.font = `${capPx}px ${font}`
  g.fillStyle = '#1d2330'
  for (const line of caption) {
    g.fillText(line, pad, y)
    y += capPx * 1.5
  }
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
