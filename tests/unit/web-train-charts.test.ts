// The Train tab's canvas charts (issue 39 item 6), drawn on a recording 2-D context: the induction chart's mark label
// (where the induction score rose) is clear of the loss curve, and the gradient chart's axis reads whole decades
// (0.01, 0.1, 1; before: "1e-0.9", "1e-2.7").
import { describe, expect, it } from 'vitest'
import { decade, drawCurves, drawGradNorms, type HistoryPoint } from '../../web/train/charts'
import { translate } from '../../web/i18n'
import { TRAIN } from '../../web/i18n/train'

interface Drawn {
  texts: Array<{ text: string; x: number; y: number; align: string; baseline: string; color: string }>
  /** Stroked polylines, with their colour. */
  lines: Array<{ color: string; points: Array<[number, number]> }>
}

/** A canvas whose 2-D context records text and stroked paths (fonts measured at 0.6 em a character). */
function recordingCanvas(): { canvas: HTMLCanvasElement; drawn: Drawn } {
  const drawn: Drawn = { texts: [], lines: [] }
  let path: Array<[number, number]> = []
  const g = {
    font: '11px sans-serif',
    strokeStyle: '#000',
    fillStyle: '#000',
    textAlign: 'left',
    textBaseline: 'alphabetic',
    lineWidth: 1,
    clearRect() {},
    strokeRect() {},
    fillRect() {},
    setLineDash() {},
    beginPath: () => (path = []),
    moveTo: (x: number, y: number) => path.push([x, y]),
    lineTo: (x: number, y: number) => path.push([x, y]),
    stroke: () => drawn.lines.push({ color: String(g.strokeStyle), points: path }),
    fillText: (text: string, x: number, y: number) =>
      drawn.texts.push({ text, x, y, align: g.textAlign, baseline: g.textBaseline, color: String(g.fillStyle) }),
    measureText: (text: string) => ({ width: text.length * 0.6 * parseFloat(g.font) }),
  }
  const canvas = { getContext: () => g, setAttribute() {} } as unknown as HTMLCanvasElement
  return { canvas, drawn }
}

/** A text's box as drawn at 11 px (alphabetic baseline: 9 px above it, 3 below). */
function box(t: Drawn['texts'][number], size = 11) {
  const w = t.text.length * 0.6 * size
  const left = t.align === 'right' ? t.x - w : t.align === 'center' ? t.x - w / 2 : t.x
  const top = t.baseline === 'middle' ? t.y - size / 2 : t.y - 0.8 * size
  return { left, right: left + w, top, bottom: top + (t.baseline === 'middle' ? size : 1.1 * size) }
}

/** Whether a segment passes through a box (sampled every 0.5 px along it). */
function crosses(b: ReturnType<typeof box>, [x1, y1]: [number, number], [x2, y2]: [number, number]): boolean {
  const n = Math.max(1, Math.ceil(Math.hypot(x2 - x1, y2 - y1) * 2))
  for (let i = 0; i <= n; i++) {
    const x = x1 + ((x2 - x1) * i) / n
    const y = y1 + ((y2 - y1) * i) / n
    if (x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) return true
  }
  return false
}

const t = translate(TRAIN, 'en')

/** An induction run as the Train tab records it: a plateau, the phase change at step 600, a low plateau. */
function inductionHistory(): HistoryPoint[] {
  return Array.from({ length: 101 }, (_, i) => {
    const step = i * 10
    const loss = step < 600 ? 2.3 - step / 6000 : Math.max(0.3, 2.2 - (step - 600) / 100)
    return { steps: step, loss, trainAcc: NaN, testAcc: NaN, grads: [10 ** (-0.9 - step / 1000), 10 ** -2.7] }
  })
}

describe('the loss chart with a mark', () => {
  it('puts the mark’s label where no curve runs (above the plot)', () => {
    const { canvas, drawn } = recordingCanvas()
    drawCurves(canvas, inductionHistory(), t, { step: 650, label: 'phase' })
    const label = drawn.texts.find((x) => x.text.startsWith(t('phase')))!
    expect(label.text).toBe(`${t('phase')} (650)`)
    const loss = drawn.lines.find((l) => l.color === '#1f77b4')!
    expect(loss.points.length).toBeGreaterThan(50)
    const b = box(label)
    for (let i = 1; i < loss.points.length; i++)
      expect(crosses(b, loss.points[i - 1], loss.points[i]), `segment ${i} of the loss`).toBe(false)
    expect(b.top).toBeGreaterThanOrEqual(0)
  })
})

describe('the gradient chart', () => {
  it('labels its log axis with whole decades', () => {
    const { canvas, drawn } = recordingCanvas()
    const names = [
      { name: 'layers.1.Wq', norm: 0 },
      { name: 'layers.1.Wk', norm: 0 },
    ]
    drawGradNorms(canvas, inductionHistory(), names, t)
    const axis = drawn.texts.filter((x) => x.align === 'right').map((x) => x.text)
    // The norms run from 10^-2.7 to 10^-0.9: the axis spans 0.001 to 1 (1 is where the data would top out).
    expect(axis).toEqual(['0.001', '0.01', '0.1', '1'])
  })
  it('decade(k) writes 10^k as an axis reads it', () => {
    expect([-5, -4, -3, -2, -1, 0, 1, 3].map(decade)).toEqual([
      '1e-5',
      '1e-4',
      '0.001',
      '0.01',
      '0.1',
      '1',
      '10',
      '1000',
    ])
  })
})
